// SPDX-License-Identifier: MIT
/*
 * weft-dis: disassemble Weft ISA binaries (raw little-endian 64-bit words).
 *
 *   weft-dis [-v] in.bin     -v adds the offset and the raw word to each line
 *
 * The output assembles back to the same bytes with weft-asm; a word that
 * does not decode is printed as ".dword 0x..." with the reason, and the
 * exit status is then 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft_isa.h"

int main(int argc, char **argv)
{
	const char *in = NULL;
	int verbose = 0, bad = 0;
	unsigned char b[8];
	uint64_t off = 0;
	size_t r;
	FILE *f;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v"))
			verbose = 1;
		else if (!in && (argv[i][0] != '-' || !argv[i][1]))
			in = argv[i];
		else {
			fprintf(stderr, "usage: weft-dis [-v] IN.bin\n");
			return 2;
		}
	}
	if (!in) {
		fprintf(stderr, "usage: weft-dis [-v] IN.bin\n");
		return 2;
	}
	f = strcmp(in, "-") ? fopen(in, "rb") : stdin;
	if (!f) {
		fprintf(stderr, "weft-dis: %s: cannot read\n", in);
		return 1;
	}
	while ((r = fread(b, 1, 8, f)) == 8) {
		uint64_t w = 0;
		struct weft_inst inst;
		char text[160];
		int n;

		for (int j = 0; j < 8; j++)
			w |= (uint64_t)b[j] << (8 * j);
		n = weft_isa_decode(&w, 1, &inst);
		if (n < 0) {
			snprintf(text, sizeof(text), ".dword 0x%016llx\t# %s", (unsigned long long)w,
				 weft_isa_dec_error(n));
			bad = 1;
		} else {
			weft_isa_print(&inst, text, sizeof(text));
		}
		if (verbose)
			printf("\t%-40s # %04llx: %016llx\n", text, (unsigned long long)off,
			       (unsigned long long)w);
		else
			printf("\t%s\n", text);
		off += 8;
	}
	if (f != stdin)
		fclose(f);
	if (r) {
		fprintf(stderr, "weft-dis: %s: %zu trailing bytes (not a multiple of 8)\n", in, r);
		return 1;
	}
	return bad;
}
