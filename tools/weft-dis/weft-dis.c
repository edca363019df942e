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

static void print_line(int verbose, const char *text, uint64_t off, const uint64_t *w, int n)
{
	if (!verbose) {
		printf("\t%s\n", text);
		return;
	}
	printf("\t%-40s # %04llx: %016llx", text, (unsigned long long)off, (unsigned long long)w[0]);
	if (n > 1)
		printf(" %016llx", (unsigned long long)w[1]);
	printf("\n");
}

int main(int argc, char **argv)
{
	const char *in = NULL;
	int verbose = 0, bad = 0;
	uint64_t *words = NULL;
	size_t n = 0, cap = 0, r;
	unsigned char b[8];
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

		for (int j = 0; j < 8; j++)
			w |= (uint64_t)b[j] << (8 * j);
		if (n == cap) {
			uint64_t *nw = realloc(words, (cap = cap ? 2 * cap : 512) * sizeof(*nw));

			if (!nw) {
				fprintf(stderr, "weft-dis: out of memory\n");
				return 1;
			}
			words = nw;
		}
		words[n++] = w;
	}
	if (f != stdin)
		fclose(f);
	for (size_t i = 0; i < n;) {
		struct weft_inst inst;
		char text[160];
		int k = weft_isa_decode(&words[i], n - i, &inst);

		if (k < 0) {
			snprintf(text, sizeof(text), ".dword 0x%016llx\t# %s",
				 (unsigned long long)words[i], weft_isa_dec_error(k));
			bad = 1;
			k = 1;
		} else {
			weft_isa_print(&inst, text, sizeof(text));
		}
		print_line(verbose, text, 8 * i, &words[i], k);
		i += k;
	}
	free(words);
	if (r) {
		fprintf(stderr, "weft-dis: %s: %zu trailing bytes (not a multiple of 8)\n", in, r);
		return 1;
	}
	return bad;
}
