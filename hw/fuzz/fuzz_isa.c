// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the Weft instruction decoder, encoder, printer and
 * assembler.
 *
 * Input byte 0 picks the mode:
 *   even: the rest is little-endian instruction words.  Every word (with its
 *         literal) that decodes must print, assemble back to the very same
 *         words, and re-encode to them; words that do not decode must print
 *         as ".dword" that assembles back to the same word.
 *   odd:  the rest is assembler text.  The assembler must not crash; when it
 *         accepts the text, every word it emits must decode and survive the
 *         print -> assemble round trip above.
 * A broken property aborts (a crash for libFuzzer).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft_isa.h"

#define FAIL(...) do { fprintf(stderr, "fuzz_isa: " __VA_ARGS__); abort(); } while (0)

/* words[0..n) decode as one instruction of n words: check the round trip. */
static void roundtrip(const uint64_t *words, size_t avail)
{
	struct weft_inst in, in2;
	char text[256], err[256];
	uint64_t enc[2], *out;
	size_t nout;
	int n, n2, len;

	n = weft_isa_decode(words, avail, &in);
	if (n < 0) {
		/* What weft-dis prints for it: ".dword" must give the word back. */
		snprintf(text, sizeof(text), ".dword 0x%016llx\n", (unsigned long long)words[0]);
		if (weft_asm(text, "<dword>", &out, &nout, err, sizeof(err)))
			FAIL("'.dword' rejected: %s\n", err);
		if (nout != 1 || out[0] != words[0])
			FAIL(".dword round trip of 0x%016llx\n", (unsigned long long)words[0]);
		free(out);
		if (weft_isa_dec_error(n)[0] == 'o')
			FAIL("decode error %d has no message\n", n);
		return;
	}
	if (n != in.nwords || n < 1 || n > 2 || (size_t)n > avail)
		FAIL("decode returned %d, nwords %u\n", n, in.nwords);
	/* Encoder: the decoded instruction encodes to the same words. */
	memset(enc, 0, sizeof(enc));
	n2 = weft_isa_encode(&in, enc);
	if (n2 != n || enc[0] != words[0] || (n == 2 && enc[1] != words[1]))
		FAIL("encode(decode(0x%016llx)) = %d 0x%016llx\n", (unsigned long long)words[0], n2,
		     (unsigned long long)enc[0]);
	/* Printer -> assembler. */
	len = weft_isa_print(&in, text, sizeof(text) - 1);
	if (len <= 0 || (size_t)len >= sizeof(text) - 1)
		FAIL("print of 0x%016llx: length %d\n", (unsigned long long)words[0], len);
	text[len] = '\n';
	text[len + 1] = 0;
	if (weft_asm(text, "<print>", &out, &nout, err, sizeof(err)))
		FAIL("0x%016llx prints as '%.*s', which does not assemble: %s\n",
		     (unsigned long long)words[0], len, text, err);
	if (nout != (size_t)n || memcmp(out, words, n * 8))
		FAIL("0x%016llx -> '%.*s' -> %zu words 0x%016llx\n", (unsigned long long)words[0],
		     len, text, nout, nout ? (unsigned long long)out[0] : 0ull);
	free(out);
	/* The decode is canonical: decoding the same words again is identical. */
	if (weft_isa_decode(words, n, &in2) != n || memcmp(&in, &in2, sizeof(in)))
		FAIL("decode of 0x%016llx is not deterministic\n", (unsigned long long)words[0]);
}

static void fuzz_words(const uint8_t *data, size_t size)
{
	size_t n = size / 8;
	uint64_t *w;

	if (!n)
		return;
	w = malloc(n * 8);
	memcpy(w, data, n * 8);
	for (size_t i = 0; i < n; i++)
		roundtrip(w + i, n - i);
	/* Truncation: a lit word at the very end must report TRUNCATED, never read past. */
	{
		struct weft_inst in;

		(void)weft_isa_decode(w + n - 1, 1, &in);
		(void)weft_isa_decode(w, 0, &in);
	}
	free(w);
}

static void fuzz_text(const uint8_t *data, size_t size)
{
	char *src = malloc(size + 1), err[256];
	uint64_t *out;
	size_t nout;

	memcpy(src, data, size);
	src[size] = 0;
	if (!weft_asm(src, "<fuzz>", &out, &nout, err, sizeof(err))) {
		for (size_t i = 0; i < nout; i++) {
			struct weft_inst in;
			int n = weft_isa_decode(out + i, nout - i, &in);

			roundtrip(out + i, nout - i);
			if (n == 2)
				i++;
		}
		free(out);
	} else if (!memchr(err, ':', sizeof(err))) {
		FAIL("assembler error without file:line: '%s'\n", err);
	}
	free(src);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] & 1)
		fuzz_text(data + 1, size - 1);
	else
		fuzz_words(data + 1, size - 1);
	return 0;
}
