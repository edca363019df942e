// SPDX-License-Identifier: MIT
/*
 * ISA tests: encoder / decoder / disassembler / assembler round trips over
 * the whole table, canonical encodings, assembler diagnostics, and the
 * golden corpus (DIR/NAME.s with the expected words in DIR/NAME.hex).
 *
 * usage: test_isa GOLDEN_DIR
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "weft_isa.h"

static const char *golden_dir;

#define rnd h_rand

/* A random valid instance of opcode @op with types t, t2. */
/* imm: 0 register, 1 imm32, 2 a 64-bit literal where the operand is 64-bit. */
static void random_inst(struct weft_inst *in, unsigned op, unsigned t, unsigned t2, int imm)
{
	const struct weft_op_info *oi = &weft_isa_ops[op];

	memset(in, 0, sizeof(*in));
	in->op = op;
	in->t = t;
	in->t2 = t2;
	for (unsigned i = 0; i < oi->nopnd; i++) {
		const struct weft_operand_desc *od = &oi->opnd[i];
		unsigned bits = weft_isa_type_bits(weft_isa_opnd_type(in, od));
		uint16_t v = rnd() % 256;
		uint16_t *f = od->field == WEFT_FIELD_D ? &in->d : od->field == WEFT_FIELD_A ? &in->a :
			      od->field == WEFT_FIELD_B ? &in->b : od->field == WEFT_FIELD_C ? &in->c :
			      &in->mod;

		if (od->role == WEFT_ROLE_DST || od->role == WEFT_ROLE_SDATA)
			v %= 257 - weft_isa_opnd_regs(in, od);
		if (bits == 64)
			v &= ~1;
		if (od->role == WEFT_ROLE_TARGET) {
			in->has_imm = 1;
			in->imm = (uint32_t)rnd() & ~7u;
			continue;
		}
		if (od->role == WEFT_ROLE_SREG) {
			do
				v = rnd() % WEFT_ISA_NUM_SREGS;
			while (weft_isa_sregs[v].bits == 64 && t != WEFT_TYPE_U64);
		}
		if (od->role == WEFT_ROLE_SRCI && imm == 2 && bits == 64) {
			in->has_lit = 1;
			in->lit = rnd() | 0x100000000ull;	/* never imm32-expressible */
			if (weft_isa_types[weft_isa_opnd_type(in, od)].kind == 's')
				in->lit = (in->lit & 0x0fffffffffffffffull) | 0x4000000000000000ull;
			continue;
		}
		if ((od->role == WEFT_ROLE_SRCI && imm) || od->role == WEFT_ROLE_MEM) {
			in->has_imm = 1;
			in->imm = (uint32_t)rnd();
			if (od->role == WEFT_ROLE_SRCI)
				continue;
		}
		*f = v;
	}
}

static void t_roundtrip(void)
{
	unsigned count = 0;

	for (unsigned op = 0; op < WEFT_ISA_OPCODE_COUNT; op++) {
		const struct weft_op_info *oi = &weft_isa_ops[op];

		if (!oi->name)
			continue;
		for (unsigned t = 0; t < WEFT_TYPE_COUNT; t++) {
			if (oi->types ? !((oi->types >> t) & 1) : t)
				continue;
			for (unsigned t2 = 0; t2 < WEFT_TYPE_COUNT; t2++) {
				if (oi->types2 ? !((oi->types2 >> t2) & 1) : t2)
					continue;
				for (int rep = 0; rep < 40; rep++) {
					struct weft_inst in, dec;
					uint64_t w[2], *w2;
					size_t n2;
					char text[160], text2[160], err[256];
					int n;

					random_inst(&in, op, t, t2, rep % 3);
					n = weft_isa_encode(&in, w);
					if (n != 1 + in.has_lit) {
						CHECK(0, "%s: encode failed: %s", oi->name, weft_isa_dec_error(n));
						continue;
					}
					n = weft_isa_decode(w, 2, &dec);
					CHECK(n == 1 + in.has_lit, "%s: decode of 0x%016llx: %s", oi->name,
					      (unsigned long long)w[0], weft_isa_dec_error(n));
					weft_isa_print(&in, text, sizeof(text));
					weft_isa_print(&dec, text2, sizeof(text2));
					CHECK(!strcmp(text, text2), "'%s' != '%s'", text, text2);
					if (weft_asm(text, "rt", &w2, &n2, err, sizeof(err))) {
						CHECK(0, "'%s' does not assemble: %s", text, err);
						continue;
					}
					CHECK(n2 == (size_t)n && w2[0] == w[0] && (n < 2 || w2[1] == w[1]),
					      "'%s' assembles to 0x%016llx, not 0x%016llx", text,
					      (unsigned long long)w2[0], (unsigned long long)w[0]);
					free(w2);
					count++;
				}
			}
		}
	}
	CHECK(count > 1000, "only %u instructions tried", count);
}

/* Every word either fails to decode or re-encodes to exactly itself. */
static void t_canonical(void)
{
	unsigned lits = 0;

	for (int i = 0; i < 300000; i++) {
		uint64_t w[2] = { rnd(), rnd() }, w2[2];
		struct weft_inst in;
		int n;

		if (i & 1)	/* bias toward defined opcodes and few set fields */
			w[0] = (w[0] & rnd() & rnd()) | (rnd() % 0x110);
		if (i % 4 == 1) {	/* literals (some small: then not canonical) */
			w[0] = (rnd() & 0x00000000fefe0000ull) | 0x4000 | (uint64_t)(7 + rnd() % 2) << 9 |
			       rnd() % 0x50;
			w[1] >>= rnd() % 64;
		}
		n = weft_isa_decode(w, 2, &in);
		if (n < 0)
			continue;
		lits += n == 2;
		if (weft_isa_encode(&in, w2) != n || w2[0] != w[0] || (n == 2 && w2[1] != w[1])) {
			CHECK(0, "0x%016llx decodes but re-encodes as 0x%016llx", (unsigned long long)w[0],
			      (unsigned long long)w2[0]);
			return;
		}
		/* A literal instruction without its literal word is truncated. */
		if (n == 2)
			CHECK_EQ(weft_isa_decode(w, 1, &in), WEFT_DEC_TRUNCATED);
	}
	CHECK(lits > 10, "only %u literal instructions seen", lits);
}

static void expect_asm_error(const char *src, const char *needle)
{
	uint64_t *w = NULL;
	size_t n;
	char err[256];

	if (!weft_asm(src, "k.s", &w, &n, err, sizeof(err))) {
		CHECK(0, "'%s' assembled", src);
		free(w);
		return;
	}
	CHECK(strstr(err, needle) != NULL, "'%s': message '%s' lacks '%s'", src, err, needle);
}

static void t_asm_errors(void)
{
	expect_asm_error("end\nfoo.u32 r0, r1\n", "k.s:2: unknown instruction 'foo.u32'");
	expect_asm_error("add.u64 r1, r2, r4\n", "k.s:1: 'r1': a 64-bit operand needs an even");
	expect_asm_error("add.u32 r1, r2\n", "add takes 3 operands, got 2");
	expect_asm_error("add.f32 r1, r2, r3\n", "type .f32 not allowed for add");
	expect_asm_error("add r1, r2, r3\n", "unknown instruction");
	expect_asm_error("mov.u32 r256, 1\n", "expected a register");
	expect_asm_error("mov.u32 r1, 0x100000000\n", "bad operand");
	expect_asm_error("mov.u32 r1, -0x80000001\n", "bad operand");
	expect_asm_error("s2r.u32 r1, sr.nope\n", "unknown special register");
	expect_asm_error("s2r.u32 r1, sr.args\n", "use s2r.u64");
	expect_asm_error("s2r.u32 r1, r2\n", "expected a special register");
	expect_asm_error("ld.global.u32 r1, r2\n", "expected a memory operand");
	expect_asm_error("ld.global.u32 r1, [r3+4]\n", "even register pair");
	expect_asm_error("ld.global.u32 r1, [r2+0x80000000]\n", "out of range");
	expect_asm_error("ld.global.u32 r1, [r2+x]\n", "bad memory offset");
	expect_asm_error("a:\na:\n", "label 'a' defined twice");
	expect_asm_error("1a:\n", "bad label");
	expect_asm_error("cvt.u64.f32 r0, r1\n", "source type .f32 not allowed for cvt");
	expect_asm_error("end r1\n", "end takes 0 operands");
	expect_asm_error(".dword zz\n", "bad .dword");
	expect_asm_error("mov.u32 r1, 0x000000001\n", "bad operand");
	expect_asm_error("mov.u64 r2, 0x1ffffffffffffffff\n", "bad operand");
	expect_asm_error("mov.s64 r2, -9223372036854775809\n", "bad operand");
	expect_asm_error("shl.u64 r2, r2, 0x100000000\n", "bad operand");
}

static void t_asm_accepts(void)
{
	static const char *src =
		"# comment\n"
		"start:\n"
		"\tmov.s32 r1, -5   # trailing comment\n"
		"loop: add.u32 r1, r1, 0x10\n"
		"\tld.global.u8 r3, [r4]\n"
		"\tld.global.s16 r3, [ r4 - 16 ]\n"
		"\tst.global.u64 [r4-8], r6\n"
		"\tmov.u32 r1, 4294967295\n"
		"\tmov.u32 r1, -1\n"
		"\tend\n";
	uint64_t *w;
	size_t n;
	char err[256], text[160];
	struct weft_inst in;

	if (weft_asm(src, "k.s", &w, &n, err, sizeof(err))) {
		CHECK(0, "%s", err);
		return;
	}
	CHECK_EQ(n, 8);
	weft_isa_decode(&w[0], 1, &in);
	weft_isa_print(&in, text, sizeof(text));
	CHECK(!strcmp(text, "mov.s32 r1, -5"), "%s", text);
	weft_isa_decode(&w[3], 1, &in);
	weft_isa_print(&in, text, sizeof(text));
	CHECK(!strcmp(text, "ld.global.s16 r3, [r4-16]"), "%s", text);
	weft_isa_decode(&w[4], 1, &in);
	weft_isa_print(&in, text, sizeof(text));
	CHECK(!strcmp(text, "st.global.u64 [r4-8], r6"), "%s", text);
	CHECK_EQ(w[5], w[6]);
	free(w);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n + 1);
	if (fread(buf, 1, n, f) != (size_t)n)
		n = 0;
	buf[n] = 0;
	fclose(f);
	return buf;
}

static const char *cur_golden;

/* NAME.s -> words == NAME.hex; NAME.hex -> text == NAME.s without comments/blank lines. */
static void t_golden(void)
{
	char path[512], err[256];
	char *src, *hex, *p, *canon;
	uint64_t *w, expect[4096];
	size_t n, ne = 0, cl = 0;

	snprintf(path, sizeof(path), "%s/%s.s", golden_dir, cur_golden);
	src = slurp(path);
	snprintf(path, sizeof(path), "%s/%s.hex", golden_dir, cur_golden);
	hex = slurp(path);
	if (!src || !hex) {
		CHECK(0, "cannot read %s(.s|.hex)", cur_golden);
		return;
	}
	for (p = strtok(hex, " \t\n"); p && ne < 4096; p = strtok(NULL, " \t\n"))
		expect[ne++] = strtoull(p, NULL, 16);
	if (weft_asm(src, cur_golden, &w, &n, err, sizeof(err))) {
		CHECK(0, "%s", err);
		goto out;
	}
	CHECK(n == ne, "%zu words, expected %zu", n, ne);
	for (size_t i = 0; i < n && i < ne; i++)
		CHECK(w[i] == expect[i], "word %zu: 0x%016llx, expected 0x%016llx", i,
		      (unsigned long long)w[i], (unsigned long long)expect[i]);
	free(w);
	/* bytes -> text: the canonical lines of the .s file. */
	canon = calloc(1, strlen(src) + 1);
	for (p = strtok(src, "\n"); p; p = strtok(NULL, "\n")) {
		char *h = strchr(p, '#');

		if (h)
			*h = 0;
		while (*p == ' ' || *p == '\t')
			p++;
		for (h = p + strlen(p); h > p && (h[-1] == ' ' || h[-1] == '\t'); )
			*--h = 0;
		if (!*p || p[strlen(p) - 1] == ':')
			continue;
		cl += sprintf(canon + cl, "%s\n", p);
	}
	{
		char *dis = calloc(1, ne * 200 + 1), *d = dis;

		for (size_t i = 0; i < ne;) {
			struct weft_inst in;
			int r = weft_isa_decode(&expect[i], ne - i, &in);

			if (r < 0) {
				d += sprintf(d, ".dword 0x%016llx\n", (unsigned long long)expect[i]);
				r = 1;
			} else {
				d += weft_isa_print(&in, d, 160);
				*d++ = '\n';
			}
			i += r;
		}
		*d = 0;
		CHECK(!strcmp(dis, canon), "disassembly differs:\n%s---- expected\n%s", dis, canon);
		free(dis);
	}
	free(canon);
out:
	free(src);
	free(hex);
}

int main(int argc, char **argv)
{
	DIR *d;
	struct dirent *de;
	char names[64][128];
	int nn = 0;

	h_run("isa: encode/decode/print/assemble round trip of every opcode and type", t_roundtrip);
	h_run("isa: every decodable word has one encoding", t_canonical);
	h_run("asm: diagnostics name file:line and the problem", t_asm_errors);
	h_run("asm: accepted syntax variants", t_asm_accepts);
	golden_dir = argc > 1 ? argv[1] : "golden";
	d = opendir(golden_dir);
	if (!d) {
		printf("FAIL golden: cannot open %s\n", golden_dir);
		h_summary();
		return 1;
	}
	while ((de = readdir(d)) && nn < 64) {
		size_t l = strlen(de->d_name);

		if (l > 2 && !strcmp(de->d_name + l - 2, ".s") && l - 2 < 128) {
			memcpy(names[nn], de->d_name, l - 2);
			names[nn++][l - 2] = 0;
		}
	}
	closedir(d);
	qsort(names, nn, sizeof(names[0]), (int (*)(const void *, const void *))strcmp);
	for (int i = 0; i < nn; i++) {
		char title[512];

		cur_golden = names[i];
		snprintf(title, sizeof(title), "golden: %.100s (text -> bytes -> text)", names[i]);
		h_run(title, t_golden);
	}
	return h_summary();
}
