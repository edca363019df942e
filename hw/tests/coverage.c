// SPDX-License-Identifier: MIT
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft_isa.h"
#include "coverage.h"

/* SIMD widths seen, bit 0: 8, bit 1: 16, bit 2: 32; per opcode, T, T2. */
static uint8_t seen[WEFT_ISA_OPCODE_COUNT][WEFT_TYPE_COUNT][WEFT_TYPE_COUNT];
static int registered;

static void cov_write(void)
{
	const char *path = getenv("WEFT_COVERAGE");
	FILE *f;

	if (!path || !*path || !(f = fopen(path, "a")))
		return;
	for (unsigned op = 0; op < WEFT_ISA_OPCODE_COUNT; op++)
		for (unsigned t = 0; t < WEFT_TYPE_COUNT; t++)
			for (unsigned t2 = 0; t2 < WEFT_TYPE_COUNT; t2++)
				if (seen[op][t][t2])
					fprintf(f, "%s %s %s %u\n", weft_isa_ops[op].name,
						t ? weft_isa_types[t].name : "-",
						t2 ? weft_isa_types[t2].name : "-", seen[op][t][t2]);
	fclose(f);
}

void cov_checked(const char *text, unsigned simd)
{
	uint64_t *words;
	size_t n;
	char err[256];
	unsigned bit = simd == 8 ? 1 : simd == 16 ? 2 : simd == 32 ? 4 : 0;

	if (!registered) {
		atexit(cov_write);
		registered = 1;
	}
	if (!bit || weft_asm(text, "<coverage>", &words, &n, err, sizeof(err))) {
		fprintf(stderr, "coverage: cannot record '%s' at simd %u: %s\n", text, simd,
			bit ? err : "bad width");
		abort();
	}
	for (size_t i = 0; i < n;) {
		struct weft_inst in;
		int k = weft_isa_decode(words + i, n - i, &in);

		if (k <= 0)
			break;
		seen[in.op][in.t][in.t2] |= bit;
		i += (size_t)k;
	}
	free(words);
}

void cov_checked_last(const char *text, unsigned simd)
{
	const char *p = text + strlen(text);

	while (p > text && (p[-1] == '\n' || p[-1] == '\t' || p[-1] == ' '))
		p--;
	while (p > text && p[-1] != '\n')
		p--;
	cov_checked(p, simd);
}
