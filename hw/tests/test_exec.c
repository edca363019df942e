// SPDX-License-Identifier: MIT
/*
 * The execution model beyond the integer ALU, on the model, against C
 * references: structured control flow with divergence, cross-lane
 * operations on every type (partial sub-groups and inactive lanes
 * excluded), shared local memory with barriers, global and local atomics
 * across work-groups on several host threads, sub-group block and image
 * block I/O, private (scratch) memory, the float ALU and rounding
 * conversions.  Every kernel runs at SIMD 8, 16 and 32.
 */
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "randprog.h"
#include "harness.h"
#include "weft_isa.h"
#include "modelenv.h"

static struct env *E;
static uint64_t args_va, in_va, in2_va, out_va, aux_va;
static uint64_t *args, *in, *in2, *out, *aux;

#define NMAX 4096
static const unsigned simds[] = { 8, 16, 32 };

/* r2 = in, r4 = out, r14 = in2, r16 = aux; r10 = &in[gid], r12 = &out[gid], r18 = &in2[gid];
 * r20:r21 = in[gid], r22:r23 = in2[gid], r30 = lane id. */
#define PRO \
	"\ts2r.u64 r0, sr.args\n" \
	"\tld.global.u64 r2, [r0+0]\n" \
	"\tld.global.u64 r4, [r0+8]\n" \
	"\tld.global.u64 r14, [r0+16]\n" \
	"\tld.global.u64 r16, [r0+24]\n" \
	"\ts2r.u64 r6, sr.global_id.x\n" \
	"\tshl.u64 r8, r6, 3\n" \
	"\tadd.u64 r10, r2, r8\n" \
	"\tadd.u64 r12, r4, r8\n" \
	"\tadd.u64 r18, r14, r8\n" \
	"\tld.global.u64 r20, [r10+0]\n" \
	"\tld.global.u64 r22, [r18+0]\n" \
	"\ts2r.u32 r30, sr.lane_id\n"

static uint64_t sx(uint64_t v, unsigned bits)
{
	if (bits >= 64)
		return v;
	v &= (1ull << bits) - 1;
	return (v >> (bits - 1)) & 1 ? v | ~((1ull << bits) - 1) : v;
}

static uint64_t zx(uint64_t v, unsigned bits)
{
	return bits >= 64 ? v : v & ((1ull << bits) - 1);
}

static uint32_t run(const char *src, unsigned simd, unsigned g, unsigned l, unsigned slm,
		    unsigned scratch)
{
	uint64_t code = env_code(E, src);
	struct env_dispatch d = { code, args_va, simd, { g, 1, 1 }, { l, 1, 1 }, { 0, 0, 0 }, slm,
				  scratch };
	uint32_t err;

	if (!code)
		return 0xbad;
	err = env_dispatch(E, 0, &d);
	if (err)
		env_reset_queue(E, 0);
	return err;
}

static uint64_t rnd64(void)
{
	return h_rand();
}

/* ---- control flow ---- */

static uint32_t ref_cf(uint32_t x)
{
	uint32_t y, s = 0, n = x & 7;

	if (x & 1) {
		y = x * 3;
	} else {
		y = x + 100;
		if (x & 2)
			y ^= 0xff;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (i & 1)
			continue;
		for (uint32_t j = 0;; j++) {	/* inner loop: break from inside an if */
			if (j == i)
				break;
			s += 1000;
		}
		s += i;
	}
	return y + (s << 8) + (5u << 28);
}

static void t_control_flow(void)
{
	static const char *src = PRO
		"\tand.u32 r40, r20, 1\n"
		"\tif r40, e1\n"
		"\tmul.u32 r24, r20, 3\n"
		"e1:\telse n1\n"
		"\tadd.u32 r24, r20, 100\n"
		"\tand.u32 r41, r20, 2\n"
		"\tif r41, n2\n"
		"\txor.u32 r24, r24, 0xff\n"
		"n2:\tendif\n"
		"n1:\tendif\n"
		"\tmov.u32 r42, 0\n"		/* i */
		"\tmov.u32 r43, 0\n"		/* s */
		"\tand.u32 r44, r20, 7\n"	/* n */
		"\tloop l1\n"
		"\tset.ge.u32 r45, r42, r44\n"
		"\tbreak r45\n"
		"\tand.u32 r46, r42, 1\n"
		"\tadd.u32 r42, r42, 1\n"
		"\tif r46, m1\n"
		"\tcont r46\n"
		"\tmov.u32 r43, 0xdead\n"	/* never: every lane continued */
		"m1:\tendif\n"
		"\tsub.u32 r47, r42, 1\n"
		"\tmov.u32 r48, 0\n"		/* j */
		"\tloop l2\n"
		"\tset.eq.u32 r49, r48, r47\n"
		"\tif r49, k1\n"
		"\tbreak r49\n"
		"k1:\tendif\n"
		"\tadd.u32 r43, r43, 1000\n"
		"\tadd.u32 r48, r48, 1\n"
		"l2:\tendloop\n"
		"\tadd.u32 r43, r43, r47\n"
		"l1:\tendloop\n"
		"\tshl.u32 r43, r43, 8\n"
		"\tadd.u32 r24, r24, r43\n"
		/* a uniform loop: bra.any */
		"\tmov.u32 r50, 0\n"
		"top:\tadd.u32 r50, r50, 1\n"
		"\tset.lt.u32 r51, r50, 5\n"
		"\tbra.any r51, top\n"
		"\tshl.u32 r50, r50, 28\n"
		"\tadd.u32 r24, r24, r50\n"
		"\tst.global.u32 [r12+0], r24\n"
		"\tend\n";

	for (int si = 0; si < 3; si++) {
		unsigned n = 1000;

		for (unsigned i = 0; i < n; i++)
			in[i] = rnd64();
		memset(out, 0, n * 8);
		CHECK_EQ(run(src, simds[si], n, 77, 0, 0), 0);
		for (unsigned i = 0; i < n; i++) {
			if ((uint32_t)out[i] != ref_cf((uint32_t)in[i])) {
				CHECK(0, "simd %u item %u: x=0x%x got 0x%x want 0x%x", simds[si], i,
				      (uint32_t)in[i], (uint32_t)out[i], ref_cf((uint32_t)in[i]));
				break;
			}
		}
		if (!h_failed())
			cov_checked(src, simds[si]);
	}
}

static void t_cf_malformed(void)
{
	/* endif without if, break outside a loop, nesting too deep: BAD_INSTRUCTION. */
	static const char *bad[] = {
		"\tendif\n\tend\n",
		"\tmov.u32 r1, 1\n\tbreak r1\n\tend\n",
		"\tendloop\n\tend\n",
		"\tmov.u32 r1, 0\n\tif r1, x\nx:\telse y\n\telse y\ny:\tendif\n\tend\n",
		"\tmov.u32 r1, 1\nt:\tloop x\n\tbra t\nx:\tendloop\n\tend\n",
	};

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(run(bad[i], 8 << (i % 3), 40, 40, 0, 0) == WEFT_QERR_BAD_INSTRUCTION, "case %u", i);
	/* if with no lane true skips its body; else with none skips too. */
	CHECK_EQ(run(PRO "\tmov.u32 r1, 0\n\tmov.u32 r24, 7\n\tif r1, a\n\tbreak r1\n"
		     "a:\telse b\n\tmov.u32 r24, 9\nb:\tendif\n\tst.global.u32 [r12+0], r24\n\tend\n",
		     16, 20, 20, 0, 0), 0);
	CHECK_EQ(out[19] & 0xffffffff, 9);
	/* bra.all / bra.none over the active lanes only (inside an if). */
	for (unsigned i = 0; i < 64; i++)
		in[i] = i;
	CHECK_EQ(run(PRO "\tmov.u32 r24, 0\n\tset.lt.u32 r1, r20, 4\n\tif r1, e\n"
		     "\tset.lt.u32 r2, r20, 10\n\tbra.all r2, a\n\tmov.u32 r24, 1\n"
		     "a:\tset.gt.u32 r3, r20, 10\n\tbra.none r3, b\n\tmov.u32 r24, 2\n"
		     "b:\tadd.u32 r24, r24, 10\n"
		     "e:\tendif\n\tst.global.u32 [r12+0], r24\n\tend\n", 8, 16, 16, 0, 0), 0);
	for (unsigned i = 0; i < 16; i++)
		CHECK(out[i] == (i < 4 ? 10u : 0u), "bra.all/none item %u: %llu", i,
		      (unsigned long long)out[i]);
}

/* ---- cross-lane ---- */

struct tinfo {
	const char *name;
	unsigned bits;
	char kind;
};
static const struct tinfo T[] = {
	{ "u8", 8, 'u' }, { "s8", 8, 's' }, { "u16", 16, 'u' }, { "s16", 16, 's' },
	{ "u32", 32, 'u' }, { "s32", 32, 's' }, { "u64", 64, 'u' }, { "s64", 64, 's' },
	{ "f16", 16, 'f' }, { "f32", 32, 'f' }, { "f64", 64, 'f' },
};

static uint64_t norm(uint64_t v, const struct tinfo *t)
{
	if (t->kind == 'f')
		return zx(v, t->bits);
	return t->kind == 's' ? sx(v, t->bits) : zx(v, t->bits);
}

static double fval(uint64_t v, unsigned bits)
{
	if (bits == 16) {
		_Float16 h;
		uint16_t x = (uint16_t)v;

		memcpy(&h, &x, 2);
		return h;
	}
	if (bits == 32) {
		float f;
		uint32_t x = (uint32_t)v;

		memcpy(&f, &x, 4);
		return f;
	}
	{
		double d;

		memcpy(&d, &v, 8);
		return d;
	}
}

static uint64_t fbits(double d, unsigned bits)
{
	if (bits == 16) {
		_Float16 h = (_Float16)d;
		uint16_t x;

		memcpy(&x, &h, 2);
		return x;
	}
	if (bits == 32) {
		float f = (float)d;
		uint32_t x;

		memcpy(&x, &f, 4);
		return x;
	}
	{
		uint64_t x;

		memcpy(&x, &d, 8);
		return x;
	}
}

/* Reference combine, written independently: in the precision of the type. */
static uint64_t comb(const char *op, const struct tinfo *t, uint64_t a, uint64_t b)
{
	if (t->kind == 'f') {
		double x = fval(a, t->bits), y = fval(b, t->bits), r;

		if (!strcmp(op, "add"))
			r = x + y;
		else if (!strcmp(op, "mul"))
			r = x * y;
		else if (isnan(x))
			r = y;
		else if (isnan(y))
			r = x;
		else if (x == y)
			r = (!strcmp(op, "min")) == !!signbit(x) ? x : y;
		else
			r = (!strcmp(op, "min")) == (x < y) ? x : y;
		/* f16 / f32 results of + and * round once from the exact double result. */
		return fbits(r, t->bits);
	}
	if (!strcmp(op, "add")) return norm(a + b, t);
	if (!strcmp(op, "mul")) return norm(a * b, t);
	if (!strcmp(op, "and")) return a & b;
	if (!strcmp(op, "or")) return a | b;
	if (!strcmp(op, "xor")) return a ^ b;
	{
		int lt = t->kind == 's' ? (int64_t)a < (int64_t)b : a < b;

		return (!strcmp(op, "min")) == lt ? a : b;
	}
}

static uint64_t ident(const char *op, const struct tinfo *t)
{
	if (!strcmp(op, "add") || !strcmp(op, "or") || !strcmp(op, "xor"))
		return 0;
	if (!strcmp(op, "and"))
		return norm(~0ull, t);
	if (!strcmp(op, "mul"))
		return t->kind == 'f' ? fbits(1.0, t->bits) : 1;
	if (t->kind == 'f')
		return fbits(!strcmp(op, "min") ? INFINITY : -INFINITY, t->bits);
	if (!strcmp(op, "min"))
		return t->kind == 's' ? norm(~0ull >> (65 - t->bits), t) : norm(~0ull, t);
	return t->kind == 's' ? sx(1ull << (t->bits - 1), t->bits) : 0;
}

static uint64_t rand_val(const struct tinfo *t)
{
	static const double fe[] = { 0.0, -0.0, 1.0, -1.5, 0.1, 3.0, 1e-40, NAN, INFINITY, -2.5,
				     65504.0, 1e-7, 0.5, 7.0 };
	uint64_t r = rnd64();

	if (t->kind == 'f') {
		if (r % 13 == 0)	/* a signalling NaN, a negative quiet NaN */
			return (r & 256 ? 1ull << (t->bits - 1) : 1) |
			       (t->bits == 16 ? 0x7c00 : t->bits == 32 ? 0x7f800000 :
				(r & 256 ? 0x7ff8000000000000ull : 0x7ff0000000000000ull)) |
			       (r & 256 && t->bits < 64 ? 1ull << (t->bits == 16 ? 9 : 22) : 0);
		if (r % 3)
			return fbits(fe[(r >> 8) % (sizeof(fe) / sizeof(fe[0]))], t->bits);
		return fbits((double)(int64_t)(r >> 40) / 64.0, t->bits);
	}
	if (r % 4 == 0)
		r = r % 7;	/* small values: products stay interesting */
	return norm(r, t);
}

/* The one NaN that float arithmetic returns (execution.rst, "Floats"). */
static uint64_t default_nan(unsigned bits)
{
	return bits == 16 ? 0x7e00 : bits == 32 ? 0x7fc00000 : 0x7ff8000000000000ull;
}

static int g_exact;	/* same(): NaNs must match bit for bit */

static int same(uint64_t got, uint64_t want, const struct tinfo *t)
{
	unsigned b = t->bits < 32 ? 32 : t->bits;

	got = zx(got, b);
	want = zx(want, b);
	if (t->kind == 'f' && !g_exact && isnan(fval(got, t->bits)) && isnan(fval(want, t->bits)))
		return 1;
	return got == want;
}

#define SENT 0x5a5a5a5a5a5a5a5aull
/* Around an instruction: the items with gid & 5 == 0 inactive. */
#define MASK_IF "\ts2r.u32 r40, sr.global_id.x\n\tand.u32 r41, r40, 5\n\tif r41, x\n"
#define MASK_ENDIF "x:\tendif\n"

static unsigned g_nl;	/* lanes that exist in the sub-group being checked */
static int g_immb = -1;	/* >= 0: the shuffle's b is this immediate */
static int g_few;	/* xlane_case inputs: mostly one value (vote.eq) */
static int g_wide_delta;	/* shfl.up2/down2: b ^ 0xfff00000, else b & 63 */

/*
 * One cross-lane instruction on type t: lanes with in2 odd are active (an
 * if), a = in, c = in[gid ^ 1] (a neighbour's value loaded per lane), b =
 * in2 >> 8 (index / delta).  g items in groups of l.
 */
static void xlane_case(const char *line, const struct tinfo *t, unsigned simd, unsigned g, unsigned l,
		       uint64_t (*refl)(unsigned, const uint64_t *, const uint64_t *, const uint32_t *,
					uint32_t, unsigned, const char *, const struct tinfo *),
		       const char *op)
{
	char src[4096];
	unsigned regs = t->bits == 64 ? 2 : 1;

	(void)regs;
	snprintf(src, sizeof(src), PRO
		 "\tld.global.u64 r26, [r10+%d]\n"	/* placeholder for c: in[gid^1] below */
		 "\txor.u64 r32, r6, 1\n"
		 "\tshl.u64 r32, r32, 3\n"
		 "\tadd.u64 r32, r2, r32\n"
		 "\tld.global.u64 r26, [r32+0]\n"
		 "\tshr.u32 r28, r22, 8\n"
		 "\tmov.u64 r24, 0x%016llx\n"
		 "\tand.u32 r29, r22, 1\n"
		 "\tif r29, x\n"
		 "\t%s\n"
		 "x:\tendif\n"
		 "\tst.global.u64 [r12+0], r24\n"
		 "\tend\n", 0, (unsigned long long)SENT, line);
	for (unsigned i = 0; i < g + 1; i++) {
		in[i] = rand_val(t) | (t->bits < 64 ? (rnd64() & ~0ull) << t->bits : 0);
		if (g_few)	/* mostly +0, sometimes the sign bit alone (-0, INT_MIN) */
			in[i] = rnd64() % 16 ? 0 : 1ull << (t->bits - 1);
		in[i] = t->bits < 32 ? (in[i] & 0xffffffff00000000ull) | (uint32_t)in[i] : in[i];
		in2[i] = rnd64();
	}
	CHECK_EQ(run(src, simd, g, l, 0, 0), 0);
	for (unsigned grp = 0; grp * l < g; grp++) {
		unsigned n = g - grp * l < l ? g - grp * l : l;

		for (unsigned sg = 0; sg * simd < n; sg++) {
			unsigned base = grp * l + sg * simd, nl = n - sg * simd < simd ? n - sg * simd : simd;
			uint64_t a[32], c[32];
			uint32_t b[32], mask = 0;

			g_nl = nl;
			for (unsigned k = 0; k < simd; k++) {
				unsigned it = base + (k < nl ? k : 0);

				a[k] = norm(in[it], t);
				c[k] = norm(in[it ^ 1], t);
				b[k] = (uint32_t)in2[it] >> 8;
				if (k < nl && (in2[it] & 1))
					mask |= 1u << k;
			}
			for (unsigned k = 0; k < nl; k++) {
				uint64_t got = out[base + k], want;

				if (!((mask >> k) & 1)) {
					CHECK(got == SENT, "%s simd %u: inactive lane %u written", line, simd, k);
					continue;
				}
				want = refl(k, a, c, b, mask, simd, op, t);
				if (want == SENT)	/* reads a lane that does not exist */
					continue;
				/* votes and ballots write a u32 lane mask */
				if (!same(got, want, strstr(line, "vote") || strstr(line, "ballot") ? &T[4] : t)) {
					CHECK(0, "'%s' simd %u group %u sg %u lane %u (mask 0x%x): got 0x%llx want 0x%llx",
					      line, simd, grp, sg, k, mask, (unsigned long long)got,
					      (unsigned long long)want);
					return;
				}
			}
		}
	}
	if (!h_failed())
		cov_checked_last(line, simd);
}


static uint64_t ref_red(unsigned k, const uint64_t *a, const uint64_t *c, const uint32_t *b,
			uint32_t mask, unsigned simd, const char *op, const struct tinfo *t)
{
	/* op: "red.X", "iscan.X", "escan.X" */
	const char *o = strchr(op, '.') + 1;
	uint64_t acc = ident(o, t);
	int any = 0;

	(void)c; (void)b; (void)simd;
	for (unsigned j = 0; j < 32; j++) {
		if (!((mask >> j) & 1))
			continue;
		if (op[0] == 'i' && j > k)
			break;
		if (op[0] == 'e' && j >= k)
			break;
		acc = any ? comb(o, t, acc, a[j]) : a[j];
		any = 1;
	}
	return acc;
}

static uint64_t ref_shfl(unsigned k, const uint64_t *a, const uint64_t *c, const uint32_t *b,
			 uint32_t mask, unsigned simd, const char *op, const struct tinfo *t)
{
	int64_t j;
	unsigned first = __builtin_ctz(mask);
	uint32_t bi[32];

	(void)t;
	if (g_immb >= 0) {
		for (unsigned i = 0; i < 32; i++)
			bi[i] = (uint32_t)g_immb;
		b = bi;
	}
	if (!strcmp(op, "idx")) j = b[k] % simd;
	else if (!strcmp(op, "xor")) j = (k ^ b[k]) % simd;
	else if (!strcmp(op, "up")) j = (k - b[k]) & (simd - 1);
	else if (!strcmp(op, "down")) j = (k + b[k]) & (simd - 1);
	else if (!strcmp(op, "bcast")) j = b[first] % simd;
	else if (!strcmp(op, "up2") || !strcmp(op, "down2")) {
		uint32_t d = g_wide_delta ? b[k] ^ 0xfff00000 : b[k] & 63;	/* as the kernel */

		j = op[0] == 'u' ? (int64_t)k - d : (int64_t)k + d;
		if (j >= 0 && j < simd)
			return j < g_nl ? a[j] : SENT;
		j = op[0] == 'u' ? j + simd : j - simd;
		if (j >= 0 && j < simd)
			return j < g_nl ? c[j] : SENT;
		return 0;
	} else abort();
	return j < g_nl ? a[j] : SENT;
}

static void t_reduce_scan(void)
{
	static const char *ops[] = { "add", "mul", "min", "max", "and", "or", "xor" };
	static const char *kinds[] = { "red", "iscan", "escan" };

	for (unsigned ti = 0; ti < 11; ti++)
	for (unsigned oi = 0; oi < 7; oi++)
	for (unsigned ki = 0; ki < 3; ki++) {
		char line[64], op[32];
		if (T[ti].kind == 'f' && oi >= 4)
			continue;
		for (unsigned si = 0; si < 3; si++) {
			unsigned simd = simds[si];

			if (!h_case())
				continue;
		/* float add / mul in lane order: keep the values exact-ish? No: the
		 * reference rounds at each step in the type, like the model. */
		snprintf(line, sizeof(line), "%s.%s.%s r24, r20", kinds[ki], ops[oi], T[ti].name);
		snprintf(op, sizeof(op), "%s.%s", kinds[ki], ops[oi]);
			/* g = 3 groups of 2 sub-groups + 3 lanes: partial sub-groups */
			xlane_case(line, &T[ti], simd, 3 * (2 * simd + 3), 2 * simd + 3, ref_red, op);
		}
	}
}

/*
 * red/iscan/escan of signalling NaNs only: every result that combined two
 * or more of them is the default NaN (fmin/fmax of two NaNs, and add and
 * mul, whose NaN the host would otherwise pick by operand order).  iscan
 * lane 0 and escan lanes 0 and 1 combine nothing: not checked.
 */
static void t_reduce_nan_default(void)
{
	static const char *kinds[] = { "red", "iscan", "escan" };
	static const char *ops[] = { "min", "max", "add", "mul" };

	for (unsigned ti = 8; ti < 11; ti++)
	for (unsigned oi = 0; oi < 4; oi++)
	for (unsigned ki = 0; ki < 3; ki++)
	for (unsigned si = 0; si < 3; si++) {
		const struct tinfo *t = &T[ti];
		unsigned simd = simds[si], bits = t->bits;
		uint64_t exp = bits == 16 ? 0x7c00 : bits == 32 ? 0x7f800000 : 0x7ff0000000000000ull;
		char src[1024];

		snprintf(src, sizeof(src), PRO "\t%s.%s.%s r24, r20\n\tst.global.u64 [r12+0], r24\n\tend\n",
			 kinds[ki], ops[oi], t->name);
		for (unsigned i = 0; i < simd; i++)	/* +-sNaN, payloads 1.. */
			in[i] = exp | (i & 1 ? 1ull << (bits - 1) : 0) | (1 + i % 3);
		CHECK_EQ(run(src, simd, simd, simd, 0, 0), 0);
		for (unsigned k = ki == 0 ? 0 : ki; k < simd; k++) {
			uint64_t got = zx(out[k], bits);

			if (got != default_nan(bits)) {
				CHECK(0, "%s.%s.%s simd %u lane %u: 0x%llx is not the default NaN", kinds[ki],
				      ops[oi], t->name, simd, k, (unsigned long long)got);
				break;
			}
		}
	}
}

/* Shuffles move bit patterns: NaNs (signalling, negative) arrive unchanged.
 * A lane that reads a lane past the end of a partial sub-group is not checked. */
static void t_shuffle(void)
{
	static const char *ops[] = { "idx", "xor", "up", "down", "up2", "down2", "bcast" };

	g_exact = 1;
	for (unsigned ti = 0; ti < 11; ti++)
	for (unsigned oi = 0; oi < 7; oi++)
	for (unsigned form = 0; form < 2; form++)
	for (unsigned si = 0; si < 3; si++) {
		char line[96];
		unsigned simd = simds[si];
		const char *tn = T[ti].name;

		if (!h_case())
			continue;
		if (oi >= 4 && oi <= 5) {
			/* deltas 0..63, then any u32 (mostly past both sources: 0) */
			snprintf(line, sizeof(line), "%s\n\tshfl.%s.%s r24, r20, r26, r28",
				 form ? "xor.u32 r28, r28, 0xfff00000" : "and.u32 r28, r28, 63", ops[oi], tn);
			g_wide_delta = form;
		} else if (form) {
			/* an immediate: the reference sees b = 5 (bcast: 3) in every lane */
			g_immb = oi == 6 ? 3 : 5;
			if (oi == 6)
				snprintf(line, sizeof(line), "bcast.%s r24, r20, 3", tn);
			else
				snprintf(line, sizeof(line), "shfl.%s.%s r24, r20, 5", ops[oi], tn);
		} else if (oi == 6) {
			snprintf(line, sizeof(line), "bcast.%s r24, r20, r28", tn);
		} else {
			snprintf(line, sizeof(line), "shfl.%s.%s r24, r20, r28", ops[oi], tn);
		}
		/* 3 groups of 2 sub-groups + 3 lanes: partial sub-groups */
		xlane_case(line, &T[ti], simd, 3 * (2 * simd + 3), 2 * simd + 3, ref_shfl, ops[oi]);
		g_immb = -1;
		g_wide_delta = 0;
	}
	g_exact = 0;
}

static uint64_t ref_vote(unsigned k, const uint64_t *a, const uint64_t *c, const uint32_t *b,
			 uint32_t mask, unsigned simd, const char *op, const struct tinfo *t)
{
	uint32_t m = 0;

	(void)k; (void)c; (void)simd; (void)t;
	for (unsigned j = 0; j < 32; j++)
		if ((mask >> j) & 1 && (b[j] & 0x10))
			m |= 1u << j;
	if (!strcmp(op, "ballot")) return m;
	if (!strcmp(op, "any")) return m ? 0xffffffff : 0;
	if (!strcmp(op, "all")) return m == mask ? 0xffffffff : 0;
	{
		/* "eq": of a; "eq b&0x1000": of that bit of b, which the program compares */
		int eq = 1, of_b = !strcmp(op, "eq b&0x1000");
		unsigned first = __builtin_ctz(mask);

		for (unsigned j = 0; j < 32; j++)
			if ((mask >> j) & 1)
				eq &= of_b ? (b[j] & 0x1000) == (b[first] & 0x1000) : a[j] == a[first];
		return eq ? 0xffffffff : 0;
	}
}

static void t_vote(void)
{
	static const struct tinfo u32 = { "u32", 32, 'u' };

	for (unsigned si = 0; si < 3; si++) {
		unsigned simd = simds[si];

		g_nl = 32;
		xlane_case("and.u32 r31, r28, 0x10\n\tvote.any r24, r31", &u32, simd, 5 * simd + 3, 2 * simd + 1,
			   ref_vote, "any");
		xlane_case("and.u32 r31, r28, 0x10\n\tvote.all r24, r31", &u32, simd, 5 * simd + 3, 2 * simd + 1,
			   ref_vote, "all");
		xlane_case("and.u32 r31, r28, 0x10\n\tballot r24, r31", &u32, simd, 5 * simd + 3, 2 * simd + 1,
			   ref_vote, "ballot");
		/* vote.eq: mostly equal values */
		xlane_case("and.u32 r20, r28, 0x1000\n\tvote.eq.u32 r24, r20", &u32, simd, 5 * simd + 3,
			   2 * simd + 1, ref_vote, "eq b&0x1000");
		/* every type: mostly +0, sometimes only the sign bit (-0 differs from +0) */
		g_few = 1;
		for (unsigned ti = 0; ti < 11; ti++) {
			char line[64];

			snprintf(line, sizeof(line), "vote.eq.%s r24, r20", T[ti].name);
			xlane_case(line, &T[ti], simd, 5 * simd + 3, 2 * simd + 1, ref_vote, "eq");
		}
		g_few = 0;
	}
}

/* ---- SLM and barriers ---- */

static void t_slm_reduction(void)
{
	/* A local-memory tree reduction: a uniform loop of barriers with a
	 * divergent if inside; each group's sum goes to out[group]. */
	static const char *src =
		"\ts2r.u64 r0, sr.args\n"
		"\tld.global.u64 r2, [r0+0]\n"
		"\tld.global.u64 r4, [r0+8]\n"
		"\ts2r.u64 r6, sr.global_id.x\n"
		"\tshl.u64 r8, r6, 3\n"
		"\tadd.u64 r10, r2, r8\n"
		"\tld.global.u32 r20, [r10+0]\n"
		"\ts2r.u32 r31, sr.local_linear_id\n"
		"\tshl.u32 r32, r31, 2\n"
		"\tst.local.u32 [r32+0], r20\n"
		"\ts2r.u32 r33, sr.local_size.x\n"
		"\tshr.u32 r33, r33, 1\n"		/* stride */
		"\tbar\n"
		"top:\tset.lt.u32 r34, r31, r33\n"
		"\tif r34, skip\n"
		"\tshl.u32 r35, r33, 2\n"
		"\tadd.u32 r35, r35, r32\n"
		"\tld.local.u32 r36, [r35+0]\n"
		"\tld.local.u32 r37, [r32+0]\n"
		"\tadd.u32 r37, r37, r36\n"
		"\tst.local.u32 [r32+0], r37\n"
		"skip:\tendif\n"
		"\tbar\n"
		"\tshr.u32 r33, r33, 1\n"
		"\tset.ne.u32 r34, r33, 0\n"
		"\tbra.any r34, top\n"
		"\tset.eq.u32 r34, r31, 0\n"
		"\tif r34, done\n"
		"\tld.local.u32 r38, [r32+0]\n"
		"\ts2r.u64 r40, sr.group_id.x\n"
		"\tshl.u64 r40, r40, 3\n"
		"\tadd.u64 r40, r4, r40\n"
		"\tst.global.u32 [r40+0], r38\n"
		"done:\tendif\n"
		"\tend\n";
	static const unsigned locals[] = { 64, 256, 1024 };

	for (int si = 0; si < 3; si++) {
		unsigned l = locals[si], g = (NMAX / l < 8 ? NMAX / l : 8) * l;

		for (unsigned i = 0; i < g; i++)
			in[i] = rnd64() & 0xffff;
		memset(out, 0, 8 * 8);
		CHECK_EQ(run(src, simds[si], g, l, 4 * l, 0), 0);
		for (unsigned grp = 0; grp < g / l; grp++) {
			uint32_t s = 0;

			for (unsigned i = 0; i < l; i++)
				s += (uint32_t)in[grp * l + i];
			CHECK(out[grp] == s, "simd %u local %u group %u: got %llu want %u", simds[si], l, grp,
			      (unsigned long long)out[grp], s);
		}
	}
}

static void t_slm_types(void)
{
	/* Each item stores to its SLM slot, barrier, loads the mirrored item's
	 * slot (another sub-group): every width, vector forms. */
	static const struct { const char *st, *ld; unsigned size; } f[] = {
		{ "st.local.u8", "ld.local.s8", 1 }, { "st.local.u16", "ld.local.u16", 2 },
		{ "st.local.u32", "ld.local.u32", 4 }, { "st.local.u64", "ld.local.u64", 8 },
		{ "st.local.v2.u64", "ld.local.v2.u64", 16 }, { "st.local.v4.u32", "ld.local.v4.u32", 16 },
	};

	for (unsigned k = 0; k < 6; k++)
	for (unsigned si = 0; si < 3; si++) {
		char src[2048];
		unsigned l = 100, g = 300;

		snprintf(src, sizeof(src), PRO
			 "\tmov.u64 r24, r20\n\tmov.u64 r26, r22\n"
			 "\ts2r.u32 r31, sr.local_linear_id\n"
			 "\tmul.u32 r32, r31, %u\n"
			 "\t%s [r32+0], r24\n"
			 "\tbar\n"
			 "\tsub.u32 r33, r31, 99\n\tneg.s32 r33, r33\n"
			 "\tmul.u32 r33, r33, %u\n"
			 "\tmov.u64 r40, 0\n\tmov.u64 r42, 0\n"
			 "\t%s r40, [r33+0]\n"
			 "\tst.global.u64 [r12+0], r40\n"
			 "\tst.global.u64 [r18+0], r42\n"
			 "\tend\n", f[k].size, f[k].st, f[k].size, f[k].ld);
		for (unsigned i = 0; i < g; i++) {
			in[i] = rnd64();
			in2[i] = rnd64();
		}
		memcpy(aux, in2, g * 8);
		CHECK_EQ(run(src, simds[si], g, l, l * 16, 0), 0);
		for (unsigned i = 0; i < g; i++) {
			unsigned m = (i / l) * l + (l - 1 - i % l);
			uint64_t w0, w1 = 0;

			switch (k) {
			case 0: w0 = zx(sx(in[m], 8), 32); break;
			case 1: w0 = zx(in[m], 16); break;
			case 2: w0 = zx(in[m], 32); break;
			case 3: w0 = in[m]; break;
			case 4: w0 = in[m]; w1 = aux[m]; break;
			default: w0 = in[m]; w1 = aux[m]; break;
			}
			if (out[i] != w0 || ((k >= 4) && in2[i] != w1)) {
				CHECK(0, "%s simd %u item %u: got 0x%llx/0x%llx want 0x%llx/0x%llx", f[k].ld,
				      simds[si], i, (unsigned long long)out[i], (unsigned long long)in2[i],
				      (unsigned long long)w0, (unsigned long long)w1);
				break;
			}
		}
		memcpy(in2, aux, g * 8);
	}
	/* Past the SLM size rounded up to its granule: BAD_ACCESS.  Within the
	 * granule, past the size asked for (8 bytes, a 16-byte access): fine. */
	CHECK_EQ(run("\tmov.u32 r1, 1016\n\tst.local.u64 [r1+0], r2\n\tend\n", 8, 8, 8, 1024, 0),
		 0);
	CHECK_EQ(run("\tmov.u32 r1, 0\n\tst.local.v2.u64 [r1+0], r2\n\tend\n", 8, 8, 8, 8, 0), 0);
	CHECK_EQ(run("\tmov.u32 r1, 1016\n\tst.local.u64 [r1+0], r2\n\tend\n", 8, 8, 8, 1, 0),
		 0);
	CHECK_EQ(run("\tmov.u32 r1, 1020\n\tst.local.u64 [r1+0], r2\n\tend\n", 8, 8, 8, 66, 0),
		 WEFT_QERR_BAD_ACCESS);
	CHECK_EQ(run("\tmov.u32 r1, 2044\n\tld.local.u32 r2, [r1+0]\n\tend\n", 8, 8, 8, 1025, 0),
		 0);
	CHECK_EQ(run("\tmov.u32 r1, 2048\n\tld.local.u32 r2, [r1+0]\n\tend\n", 8, 8, 8, 1025, 0),
		 WEFT_QERR_BAD_ACCESS);
	CHECK_EQ(run("\tmov.u32 r1, 0\n\tld.local.u32 r2, [r1+0]\n\tend\n", 8, 8, 8, 0, 0),
		 WEFT_QERR_BAD_ACCESS);
	CHECK_EQ(run("\tmov.u32 r1, 0\n\tld.local.u32 r2, [r1-4]\n\tend\n", 8, 8, 8, 64, 0),
		 WEFT_QERR_BAD_ACCESS);
	/* The u32 address and its offset wrap together: -4 + 8 is byte 4. */
	CHECK_EQ(run("\tmov.s32 r1, -4\n\tst.local.u32 [r1+8], r2\n"
		     "\tld.local.u32 r3, [r1+8]\n\tend\n", 8, 8, 8, 64, 0), 0);
	CHECK_EQ(run("\tmov.s32 r1, -4\n\tst.scratch.u32 [r1+8], r2\n"
		     "\tld.scratch.u32 r3, [r1+8]\n\tend\n", 8, 8, 8, 0, 16), 0);
	CHECK_EQ(run("\tmov.s32 r1, -4\n\tst.scratch.u32 [r1+4], r2\n\tend\n", 8, 8, 8, 0, 16),
		 0);
	CHECK_EQ(run("\tmov.s32 r1, -4\n\tst.scratch.u32 [r1+2], r2\n\tend\n", 8, 8, 8, 0, 16),
		 WEFT_QERR_BAD_ACCESS);
}

/* ---- atomics ---- */

static void t_atomics_global(void)
{
	static const char *ops[] = { "add", "sub", "min", "max", "and", "or", "xor", "inc", "dec" };
	static const char *ty[] = { "u32", "s32", "u64", "s64" };
	unsigned g = 4096;

	for (unsigned ti = 0; ti < 4; ti++)
	for (unsigned oi = 0; oi < 9; oi++) {
		char src[2048];
		int w64 = ty[ti][1] == '6', sg = ty[ti][0] == 's';
		uint64_t init = rnd64(), acc, mask = w64 ? ~0ull : 0xffffffffull;
		int inc = oi >= 7;

		snprintf(src, sizeof(src), PRO
			 "\tatom.global.%s.%s r24, [r16]%s\n"
			 "\tst.global.%s [r12+0], r24\n"
			 "\tend\n", ops[oi], ty[ti], inc ? "" : ", r20", w64 ? "u64" : "u32");
		for (unsigned i = 0; i < g; i++)
			in[i] = oi >= 2 && oi <= 3 ? rnd64() : rnd64() % 1000;
		init &= mask;
		aux[0] = init;
		memset(out, 0, g * 8);
		CHECK_EQ(run(src, simds[(ti + oi) % 3], g, 64, 0, 0), 0);
		acc = init;
		for (unsigned i = 0; i < g; i++) {
			uint64_t v = in[i] & mask, a = acc;

			switch (oi) {
			case 0: a += v; break;
			case 1: a -= v; break;
			case 2: case 3: {
				int lt = sg ? (w64 ? (int64_t)v < (int64_t)a : (int32_t)v < (int32_t)a) : v < a;

				if ((oi == 2) == lt)
					a = v;
				break;
			}
			case 4: a &= v; break;
			case 5: a |= v; break;
			case 6: a ^= v; break;
			case 7: a++; break;
			default: a--; break;
			}
			acc = a & mask;
		}
		CHECK(aux[0] == acc, "atom.global.%s.%s: final 0x%llx want 0x%llx", ops[oi], ty[ti],
		      (unsigned long long)aux[0], (unsigned long long)acc);
		if (oi == 7) {
			/* inc: the old values are a permutation of init .. init + g - 1 */
			uint8_t *seen = calloc(g, 1);

			for (unsigned i = 0; i < g; i++) {
				uint64_t k = ((out[i] & mask) - init) & mask;

				CHECK(k < g && !seen[k], "inc: old value 0x%llx twice or out of range",
				      (unsigned long long)out[i]);
				if (k < g)
					seen[k] = 1;
			}
			free(seen);
		}
	}
}

static void t_atomics_xchg_cmpxchg(void)
{
	unsigned g = 2000;

	/* cmpxchg on per-item slots: even items match, odd ones do not. */
	for (unsigned w = 0; w < 2; w++) {
		char src[1024];

		snprintf(src, sizeof(src), PRO
			 "\tand.u64 r26, r6, 1\n"
			 "\tadd.u64 r26, r26, r6\n"		/* expected: gid + (gid & 1) */
			 "\tatom.global.cmpxchg.%s r24, [r18], r26, r20\n"
			 "\tst.global.%s [r12+0], r24\n"
			 "\tend\n", w ? "u64" : "u32", w ? "u64" : "u32");
		for (unsigned i = 0; i < g; i++) {
			in[i] = rnd64();
			in2[i] = i;
		}
		CHECK_EQ(run(src, simds[w], g, 50, 0, 0), 0);
		for (unsigned i = 0; i < g; i++) {
			uint64_t want = (i & 1) ? i : (w ? in[i] : (uint32_t)in[i]);

			if ((w ? in2[i] : (uint32_t)in2[i]) != want || (uint32_t)out[i] != i) {
				CHECK(0, "cmpxchg item %u: mem 0x%llx old 0x%llx", i,
				      (unsigned long long)in2[i], (unsigned long long)out[i]);
				break;
			}
		}
	}
	/* xchg: the old values plus the final value are the initial value plus every item's. */
	{
		uint64_t sum = 0, got = 0;

		for (unsigned i = 0; i < g; i++) {
			in[i] = i + 1;
			sum += i + 1;
		}
		aux[0] = 0;
		CHECK_EQ(run(PRO "\tatom.global.xchg.u32 r24, [r16], r20\n\tst.global.u32 [r12+0], r24\n\tend\n",
			     16, g, 64, 0, 0), 0);
		for (unsigned i = 0; i < g; i++)
			got += (uint32_t)out[i];
		got += (uint32_t)aux[0];
		CHECK(got == sum, "xchg: sum %llu want %llu", (unsigned long long)got, (unsigned long long)sum);
	}
	/* misaligned: BAD_ACCESS */
	CHECK_EQ(run(PRO "\tadd.u64 r16, r16, 2\n\tatom.global.add.u32 r24, [r16], r20\n\tend\n", 8, 8, 8, 0, 0),
		 WEFT_QERR_BAD_ACCESS);
}

static void t_atomics_float(void)
{
	/* Sums of small integers in floats are exact in any order; min / max. */
	static const char *ops[] = { "fadd", "fmin", "fmax" };
	unsigned g = 3000;

	for (unsigned w = 0; w < 2; w++)
	for (unsigned oi = 0; oi < 3; oi++) {
		char src[1024];
		double want = oi == 0 ? 0.5 : oi == 1 ? 1e9 : -1e9;
		unsigned bits = w ? 64 : 32;

		snprintf(src, sizeof(src), PRO
			 "\tatom.global.%s.%s r24, [r16], r20\n"
			 "\tend\n", ops[oi], w ? "f64" : "f32");
		for (unsigned i = 0; i < g; i++) {
			double v = i == 7 ? NAN : (double)((int)(rnd64() % 2001) - 1000);

			/* item 7 is NaN: minNum / maxNum ignore it; fadd gives NaN */
			in[i] = fbits(v, bits);
			want = oi == 0 ? want + v : oi == 1 ? fmin(want, v) : fmax(want, v);
		}
		aux[0] = fbits(oi == 0 ? 0.5 : oi == 1 ? 1e9 : -1e9, bits);
		CHECK_EQ(run(src, simds[oi], g, 64, 0, 0), 0);
		if (oi == 0)
			CHECK(zx(aux[0], bits) == default_nan(bits), "atom.%s.f%u: 0x%llx, not the default NaN",
			      ops[oi], bits, (unsigned long long)aux[0]);
		else
			CHECK(fval(aux[0], bits) == want, "atom.%s.f%u: %g want %g", ops[oi], bits,
			      fval(aux[0], bits), want);
	}
	/* local: every lane adds 0.25 to one SLM float, item 0 writes it out */
	CHECK_EQ(run(PRO "\tmov.u32 r30, 0\n\tmov.u32 r31, 0x3e800000\n"
		     "\tatom.local.fadd.f32 r24, [r30], r31\n\tbar\n"
		     "\tld.local.u32 r25, [r30+0]\n\tst.global.u32 [r12+0], r25\n\tend\n",
		     16, 100, 100, 4, 0), 0);
	CHECK_EQ((uint32_t)out[0], fbits(25.0, 32));
}

static void t_atomics_local(void)
{
	/* A work-group histogram in SLM, then items 0..15 write the bins out. */
	static const char *src = PRO
		"\ts2r.u32 r31, sr.local_linear_id\n"
		"\tset.lt.u32 r32, r31, 16\n"
		"\tshl.u32 r33, r31, 2\n"
		"\tmov.u32 r34, 0\n"
		"\tif r32, a\n"
		"\tst.local.u32 [r33+0], r34\n"
		"a:\tendif\n"
		"\tbar\n"
		"\tand.u32 r35, r20, 15\n"
		"\tshl.u32 r35, r35, 2\n"
		"\tatom.local.inc.u32 r36, [r35]\n"
		"\tatom.local.max.s32 r37, [r33], r34\n"	/* 64 + lid: past the bins */
		"\tbar\n"
		"\tif r32, b\n"
		"\tld.local.u32 r38, [r33+0]\n"
		"\ts2r.u64 r40, sr.group_id.x\n"
		"\tshl.u64 r40, r40, 4\n"
		"\tcvt.u64.u32 r42, r31\n"
		"\tadd.u64 r40, r40, r42\n"
		"\tshl.u64 r40, r40, 3\n"
		"\tadd.u64 r40, r4, r40\n"
		"\tst.global.u32 [r40+0], r38\n"
		"b:\tendif\n"
		"\tend\n";

	for (unsigned si = 0; si < 3; si++) {
		unsigned l = 200, g = 5 * l;

		for (unsigned i = 0; i < g; i++)
			in[i] = rnd64();
		memset(out, 0, 80 * 8);
		CHECK_EQ(run(src, simds[si], g, l, 64 * 4 + 4 * 256, 0), 0);
		for (unsigned grp = 0; grp < 5; grp++)
		for (unsigned b = 0; b < 16; b++) {
			uint32_t n = 0;

			for (unsigned i = 0; i < l; i++)
				n += (in[grp * l + i] & 15) == b;
			CHECK(out[grp * 16 + b] == n, "simd %u group %u bin %u: %llu want %u", simds[si], grp,
			      b, (unsigned long long)out[grp * 16 + b], n);
		}
	}
}

/* ---- block and image I/O ---- */

static void t_block(void)
{
	static const char *ty[] = { "u8", "u16", "u32", "u64" };
	static const unsigned sz[] = { 1, 2, 4, 8 };
	uint8_t *src8 = (uint8_t *)in, *dst8 = (uint8_t *)aux;

	for (unsigned ti = 0; ti < 4; ti++)
	for (unsigned ni = 0; ni < 4; ni++)
	for (unsigned si = 0; si < 3; si++) {
		unsigned n = 1u << ni, simd = simds[si], size = sz[ti], regs = size == 8 ? 2 : 1;
		unsigned l = 2 * simd + 5, g = 2 * l;	/* partial last sub-groups */
		char src[2048], sfx[4] = "";

		if (n > 1)
			snprintf(sfx, sizeof(sfx), "%u", n);
		/* base of the sub-group: in + (group * nsub + sg) * simd * n * size */
		snprintf(src, sizeof(src),
			 "\ts2r.u64 r0, sr.args\n"
			 "\tld.global.u64 r2, [r0+0]\n"
			 "\tld.global.u64 r4, [r0+24]\n"
			 "\ts2r.u64 r6, sr.group_id.x\n"
			 "\tmul.u64 r6, r6, 3\n"
			 "\ts2r.u64 r8, sr.subgroup_id\n"
			 "\tadd.u64 r6, r6, r8\n"
			 "\tmul.u64 r6, r6, %u\n"
			 "\tadd.u64 r8, r2, r6\n"
			 "\tadd.u64 r10, r4, r6\n"
			 "\tld.block%s.%s r100, [r8+0]\n"
			 "\tst.block%s.%s [r10+0], r100\n"
			 "\tend\n", simd * n * size, sfx, ty[ti], sfx, ty[ti]);
		for (unsigned i = 0; i < NMAX; i++)
			in[i] = rnd64();
		memset(aux, 0xee, NMAX * 8);
		CHECK_EQ(run(src, simd, g, l, 0, 0), 0);
		(void)regs;
		for (unsigned grp = 0; grp < 2; grp++)
		for (unsigned sg = 0; sg < 3; sg++) {
			unsigned nl = sg < 2 ? simd : 5;
			size_t base = (size_t)(grp * 3 + sg) * simd * n * size;

			for (unsigned i = 0; i < n; i++)
			for (unsigned k = 0; k < simd; k++) {
				size_t o = base + ((size_t)i * simd + k) * size;
				int ok = k < nl ? !memcmp(dst8 + o, src8 + o, size) :
						  dst8[o] == 0xee && dst8[o + size - 1] == 0xee;

				if (!ok) {
					CHECK(0, "block%u.%s simd %u group %u sg %u elem %u lane %u wrong", n,
					      ty[ti], simd, grp, sg, i, k);
					goto next;
				}
			}
		}
		if (!h_failed()) {
			snprintf(src, sizeof(src), "ld.block%s.%s r100, [r8+0]\nst.block%s.%s [r10+0], r100\n",
				 sfx, ty[ti], sfx, ty[ti]);
			cov_checked(src, simd);
		}
next:;
	}
}

/*
 * Whole-line block writes (which the model streams past the cache) are seen
 * by the writing sub-group's next read and, after a barrier, by the other
 * sub-group of its work-group.
 */
static void t_block_write_read_back(void)
{
	for (unsigned si = 0; si < 3; si++) {
		unsigned simd = simds[si], bytes = simd * 8 * 4, groups = 4;
		uint32_t *src32 = (uint32_t *)in, *dst32 = (uint32_t *)aux;
		size_t words = (size_t)bytes / 4, third = 8192 / 3 / 64 * 64;
		char src[2048];

		/* sub-group k of group g: block (2g + k); its partner's block is (2g + (k ^ 1)) */
		snprintf(src, sizeof(src),
			 "\ts2r.u64 r0, sr.args\n"
			 "\tld.global.u64 r2, [r0+0]\n"
			 "\tld.global.u64 r4, [r0+24]\n"
			 "\ts2r.u64 r6, sr.group_id.x\n"
			 "\tshl.u64 r6, r6, 1\n"
			 "\ts2r.u64 r8, sr.subgroup_id\n"
			 "\tadd.u64 r12, r6, r8\n"
			 "\txor.u64 r14, r8, 1\n"
			 "\tadd.u64 r14, r6, r14\n"
			 "\tmul.u64 r12, r12, %u\n"
			 "\tmul.u64 r14, r14, %u\n"
			 "\tadd.u64 r8, r2, r12\n"
			 "\tadd.u64 r10, r4, r12\n"
			 "\tadd.u64 r14, r4, r14\n"
			 "\tld.block8.u32 r100, [r8+0]\n"
			 "\tst.block8.u32 [r10+0], r100\n"
			 "\tld.block8.u32 r120, [r10+0]\n"
			 "\tst.block8.u32 [r10+%zu], r120\n"
			 "\tbar\n"
			 "\tld.block8.u32 r140, [r14+0]\n"
			 "\tst.block8.u32 [r10+%zu], r140\n"
			 "\tend\n", bytes, bytes, third * 4, 2 * third * 4);
		for (unsigned i = 0; i < NMAX; i++)
			in[i] = rnd64();
		memset(aux, 0xee, NMAX * 8);
		CHECK_EQ(run(src, simd, groups * 2 * simd, 2 * simd, 0, 0), 0);
		for (unsigned b = 0; b < groups * 2; b++) {
			size_t own = b * words, partner = (b ^ 1) * words;

			CHECK(!memcmp(dst32 + own, src32 + own, bytes),
			      "simd %u block %u: the block write", simd, b);
			CHECK(!memcmp(dst32 + third + own, src32 + own, bytes),
			      "simd %u block %u: its own read-back", simd, b);
			CHECK(!memcmp(dst32 + 2 * third + own, src32 + partner, bytes),
			      "simd %u block %u: the partner's block after the barrier", simd, b);
		}
	}
}

static void t_image(void)
{
	/* Image of 40 x 6 bytes, pitch 64, at aux; descriptor at in2.
	 * The block origin (x, y) in bytes per sub-group comes from in[]. */
	static const char *ty[] = { "u8", "u16", "u32" };
	static const unsigned sz[] = { 1, 2, 4 };
	uint8_t *img = (uint8_t *)aux;

	for (unsigned ti = 0; ti < 3; ti++)
	for (unsigned ni = 0; ni < 4; ni++)
	for (unsigned si = 0; si < 3; si++) {
		unsigned n = 1u << ni, simd = simds[si], size = sz[ti];
		static const int org[][2] = { { -4, -1 }, { 8, 3 }, { 36, 0 }, { 0, 5 } };
		char src[2048], sfx[4] = "";
		uint32_t *desc = (uint32_t *)in2;

		if (!h_case())
			continue;
		if (n > 1)
			snprintf(sfx, sizeof(sfx), "%u", n);
		/* then again in divergent code: lanes with lane & 5 == 0 inactive (and their x far out) */
		for (unsigned o = 0; o < 8; o++) {
			int x = org[o % 4][0], y = org[o % 4][1], masked = o >= 4;

			snprintf(src, sizeof(src),
				 "\ts2r.u64 r0, sr.args\n"
				 "\tld.global.u64 r2, [r0+16]\n"	/* descriptor */
				 "\tld.global.u64 r4, [r0+8]\n"	/* out */
				 "\tmov.s32 r6, %d\n\tmov.s32 r7, %d\n"
				 "\ts2r.u32 r9, sr.lane_id\n"
				 "\t%s.u32 r10, r9, %d\n"		/* all lanes: or 1; masked: and 5 */
				 "\tmov.u32 r11, 0x40000000\n"
				 "\tsel.u32 r6, r6, r11, r10\n"
				 "\tmov.u64 r100, 0xeeeeeeeeeeeeeeee\n\tmov.u64 r102, r100\n"
				 "\tmov.u64 r104, r100\n\tmov.u64 r106, r100\n"
				 "\tif r10, a\n"
				 "\tld.img%s.%s r100, [r2], r6\n"
				 "a:\tendif\n"
				 "\ts2r.u64 r8, sr.lane_id\n"
				 "\tshl.u64 r8, r8, 6\n"
				 "\tadd.u64 r8, r4, r8\n"
				 "%s"
				 "\tadd.s32 r7, r7, 1\n"	/* write the block one row lower */
				 "\tif r10, b\n"
				 "\tst.img%s.%s [r2], r6, r100\n"
				 "b:\tendif\n"
				 "\tend\n", x, y, masked ? "and" : "or", masked ? 5 : 1, sfx, ty[ti],
				 n == 1 ? "\tst.global.u32 [r8+0], r100\n" :
				 n == 2 ? "\tst.global.u32 [r8+0], r100\n\tst.global.u32 [r8+4], r101\n" :
				 n == 4 ? "\tst.global.v4.u32 [r8+0], r100\n" :
				 "\tst.global.v4.u32 [r8+0], r100\n\tst.global.v4.u32 [r8+16], r104\n",
				 sfx, ty[ti]);
			for (unsigned i = 0; i < 64 * 8; i++)
				img[i] = (uint8_t)(i * 13 + 1);
			{
				uint8_t before[64 * 8];

				memcpy(before, img, sizeof(before));
				desc[0] = (uint32_t)aux_va;
				desc[1] = (uint32_t)(aux_va >> 32);
				desc[2] = 40;
				desc[3] = 6;
				desc[4] = 64;
				desc[5] = 0;
				memset(out, 0, 32 * 64);
				CHECK_EQ(run(src, simd, simd, simd, 0, 0), 0);
				for (unsigned k = 0; k < simd; k++)
				for (unsigned i = 0; i < n; i++) {
					int xx = x + (int)(k * size), yy = y + (int)i;
					/* outside: the edge element, clamped in units of the element */
					int cx = xx < 0 ? 0 : xx > 40 - (int)size ? 40 - (int)size : xx;
					int cy = yy < 0 ? 0 : yy > 5 ? 5 : yy;
					uint32_t want = 0, got = ((uint32_t *)out)[k * 16 + i];

					if (masked && !(k & 5))
						want = 0xeeeeeeee;
					else
						memcpy(&want, before + cy * 64 + cx, size);
					if (got != want) {
						CHECK(0, "ld.img%u.%s simd %u%s (%d,%d) lane %u row %u: 0x%x want 0x%x",
						      n, ty[ti], simd, masked ? " masked" : "", x, y, k, i, got, want);
						goto next;
					}
				}
				/* the write one row lower: expected image */
				for (unsigned k = 0; k < simd; k++)
				for (unsigned i = 0; i < n; i++) {
					int xx = x + (int)(k * size), yy = y + 1 + (int)i;
					int inside = xx >= 0 && xx + (int)size <= 40 && yy >= 0 && yy < 6;
					uint32_t v = ((uint32_t *)out)[k * 16 + i];

					if (inside && !(masked && !(k & 5)))
						memcpy(before + yy * 64 + xx, &v, size);
				}
				if (memcmp(before, img, sizeof(before))) {
					CHECK(0, "st.img%u.%s simd %u%s (%d,%d): image differs", n, ty[ti], simd,
					      masked ? " masked" : "", x, y);
					goto next;
				}
			}
		}
		if (!h_failed()) {
			snprintf(src, sizeof(src), "ld.img%s.%s r100, [r2], r6\nst.img%s.%s [r2], r6, r100\n",
				 sfx, ty[ti], sfx, ty[ti]);
			cov_checked(src, simd);
		}
next:;
	}
}

/* ---- scratch ---- */

static void t_scratch(void)
{
	/* Each item fills a private array of 32 u32, passes a barrier (other
	 * sub-groups run in between), then sums a[i] * i. */
	static const char *src = PRO
		"\tmov.u32 r40, 0\n"
		"\tloop l1\n"
		"\tset.ge.u32 r41, r40, 32\n"
		"\tbreak r41\n"
		"\tshl.u32 r42, r40, 2\n"
		"\tadd.u32 r43, r20, r40\n"
		"\tst.scratch.u32 [r42+0], r43\n"
		"\tadd.u32 r40, r40, 1\n"
		"l1:\tendloop\n"
		"\tbar\n"
		"\tmov.u32 r46, 100\n"
		"\tld.scratch.v4.u32 r50, [r46+12]\n"	/* a[28..31] */
		"\tmov.u32 r44, 0\n"
		"\tmov.u32 r40, 0\n"
		"\tloop l2\n"
		"\tset.ge.u32 r41, r40, 32\n"
		"\tbreak r41\n"
		"\tshl.u32 r42, r40, 2\n"
		"\tld.scratch.u32 r45, [r42+0]\n"
		"\tmad.u32 r44, r45, r40, r44\n"
		"\tadd.u32 r40, r40, 1\n"
		"l2:\tendloop\n"
		"\tadd.u32 r44, r44, r53\n"
		"\tst.global.u32 [r12+0], r44\n"
		"\tend\n";

	for (unsigned si = 0; si < 3; si++) {
		unsigned g = 700, l = 100;

		for (unsigned i = 0; i < g; i++)
			in[i] = rnd64() & 0xffffff;
		CHECK_EQ(run(src, simds[si], g, l, 0, 256), 0);
		for (unsigned i = 0; i < g; i++) {
			uint32_t s = 0, x = (uint32_t)in[i];

			for (uint32_t j = 0; j < 32; j++)
				s += (x + j) * j;
			s += x + 31;
			if ((uint32_t)out[i] != s) {
				CHECK(0, "simd %u item %u: got %u want %u", simds[si], i, (uint32_t)out[i], s);
				break;
			}
		}
	}
	/* Private memory starts zeroed: nothing of the previous dispatch is left. */
	CHECK_EQ(run(PRO "\tmov.u32 r1, 0\n\tld.scratch.u32 r24, [r1+60]\n"
		     "\tst.global.u32 [r12+0], r24\n\tend\n", 16, 700, 100, 0, 64), 0);
	for (unsigned i = 0; i < 700; i++)
		if ((uint32_t)out[i]) {
			CHECK(0, "item %u: scratch not zeroed: 0x%x", i, (uint32_t)out[i]);
			break;
		}
	CHECK_EQ(run(src, 8, 8, 8, 0, 124), WEFT_QERR_BAD_ACCESS);
	CHECK_EQ(run("\tmov.u32 r1, 0\n\tld.scratch.u32 r2, [r1+0]\n\tend\n", 8, 8, 8, 0, 0),
		 WEFT_QERR_BAD_ACCESS);
}

/* ---- float ALU ---- */

static const double fedge[] = {
	0.0, -0.0, 1.0, -1.0, 0.5, 3.0, -7.25, 1e-45, 1.17549435e-38, 6e-8, 65504.0, 65520.0,
	1e10, -1e-300, 3.4028235e38, 1e300, INFINITY, -INFINITY, NAN, 0.1, 2.5, -2.5, 3.5,
	100.7, -0.3, 1.5e-5, 4.9e-324, 2.0, 0.75, 1024.0,
};
#define NFE (sizeof(fedge) / sizeof(fedge[0]))
#define NFRAND 1500

/* fbits(d), but for a NaN one of +-quiet, +-signalling by @k. */
static uint64_t fnan(double d, unsigned bits, unsigned k)
{
	uint64_t sign = 1ull << (bits - 1), quiet = 1ull << (bits == 16 ? 9 : bits == 32 ? 22 : 51);

	if (!isnan(d))
		return fbits(d, bits);
	return fbits(INFINITY, bits) | (k & 1 ? sign : 0) | (k & 2 ? quiet : 1);
}

/* What is wrong with an arithmetic result register (low 32 bits for f16/f32), or NULL. */
static const char *fresult_bad(uint64_t got, unsigned bits)
{
	if (bits == 16 && (got >> 16))
		return "the high half of an f16 register is not 0";
	if (isnan(fval(got, bits)) && got != default_nan(bits))
		return "not the default NaN (every NaN result is)";
	return NULL;
}

static double fref1(const char *op, double a, unsigned bits)
{
	if (!strcmp(op, "fneg")) return -a;
	if (!strcmp(op, "fabs")) return fabs(a);
	if (!strcmp(op, "fsqrt")) return sqrt(a);
	if (!strcmp(op, "ffloor")) return floor(a);
	if (!strcmp(op, "fceil")) return ceil(a);
	if (!strcmp(op, "ftrunc")) return trunc(a);
	if (!strcmp(op, "frint")) return nearbyint(a);
	if (!strcmp(op, "frcp")) return 1.0 / a;
	if (!strcmp(op, "frsqrt")) return bits == 64 ? 1.0 / sqrt(a) : (double)(1.0L / sqrtl(a));
	if (!strcmp(op, "fexp2")) return (double)exp2l(a);
	if (!strcmp(op, "flog2")) return (double)log2l(a);
	if (!strcmp(op, "fsin")) return (double)sinl(a);
	if (!strcmp(op, "fcos")) return (double)cosl(a);
	abort();
}

static double fref2(const char *op, double a, double b)
{
	if (!strcmp(op, "fadd")) return a + b;
	if (!strcmp(op, "fsub")) return a - b;
	if (!strcmp(op, "fmul")) return a * b;
	if (!strcmp(op, "fdiv")) return a / b;
	if (!strcmp(op, "fcopysign")) return copysign(a, b);
	if (!strcmp(op, "fmin") || !strcmp(op, "fmax")) {
		int mn = op[2] == 'i';

		if (isnan(a)) return b;
		if (isnan(b)) return a;
		if (a == b) return mn == !!signbit(a) ? a : b;
		return mn == (a < b) ? a : b;
	}
	abort();
}

static uint32_t fcmp(const char *c, double a, double b)
{
	int u = isnan(a) || isnan(b), r;

	if (!strcmp(c, "eq")) r = !u && a == b;
	else if (!strcmp(c, "ne")) r = !u && a != b;
	else if (!strcmp(c, "lt")) r = !u && a < b;
	else if (!strcmp(c, "le")) r = !u && a <= b;
	else if (!strcmp(c, "gt")) r = !u && a > b;
	else if (!strcmp(c, "ge")) r = !u && a >= b;
	else if (!strcmp(c, "equ")) r = u || a == b;
	else if (!strcmp(c, "neu")) r = u || a != b;
	else if (!strcmp(c, "ltu")) r = u || a < b;
	else if (!strcmp(c, "leu")) r = u || a <= b;
	else if (!strcmp(c, "gtu")) r = u || a > b;
	else if (!strcmp(c, "geu")) r = u || a >= b;
	else if (!strcmp(c, "ord")) r = !u;
	else r = u;
	return r ? 0xffffffff : 0;
}

/* Distance in ulps between two float bit patterns of @bits (0 if both NaN). */
static uint64_t ulps(uint64_t x, uint64_t y, unsigned bits)
{
	double a = fval(x, bits), b = fval(y, bits);
	int64_t ix, iy;
	uint64_t sign = 1ull << (bits - 1);

	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b) ? 0 : ~0ull;
	if (a == b)
		return x == y || a != 0 ? 0 : 1;
	ix = (x & sign) ? -(int64_t)(x & ~sign) : (int64_t)x;
	iy = (y & sign) ? -(int64_t)(y & ~sign) : (int64_t)y;
	return ix > iy ? (uint64_t)(ix - iy) : (uint64_t)(iy - ix);
}

static void t_float_alu(void)
{
	static const char *un[] = { "fneg", "fabs", "fsqrt", "ffloor", "fceil", "ftrunc", "frint",
				    "frcp", "frsqrt", "fexp2", "flog2", "fsin", "fcos" };
	static const char *bin[] = { "fadd", "fsub", "fmul", "fdiv", "fmin", "fmax", "fcopysign" };
	static const char *cmps[] = { "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu",
				      "leu", "gtu", "geu", "ord", "unord" };
	static const char *ft[] = { "f16", "f32", "f64" };
	static const unsigned fb[] = { 16, 32, 64 };
	/* immediates: 1.5, -0, NaN, inf, the smallest denormal (f64: of the high half), -2.5 */
#define NFIMM 6
	static const uint32_t fimm[3][NFIMM] = {
		{ 0x3e00, 0x8000, 0x7e00, 0x7c00, 0x0001, 0xc100 },
		{ 0x3fc00000, 0x80000000, 0x7fc00000, 0x7f800000, 0x00000001, 0xc0200000 },
		{ 0x3ff80000, 0x80000000, 0x7ff80000, 0x7ff00000, 0x00000001, 0xc0040000 },
	};
	unsigned n = NFE * NFE + NFRAND;	/* every pair of edge values, then random bit patterns */

	for (unsigned fi = 0; fi < 3; fi++) {
		unsigned bits = fb[fi];

		for (unsigned i = 0; i < n; i++) {
			in[i] = fnan(fedge[i / NFE % NFE], bits, i);
			in2[i] = fnan(fedge[i % NFE], bits, i / NFE);
			aux[i] = fbits(fedge[(i * 7) % NFE], bits);
			if (i >= NFE * NFE + 16) {
				in[i] = zx(rnd64(), bits);
				in2[i] = i % 3 ? zx(rnd64(), bits) : in[i] ^ zx(rnd64() & 0xff, bits);
				aux[i] = zx(rnd64(), bits);
			} else if (i >= NFE * NFE) {	/* two NaNs: +-quiet, +-signalling each */
				in[i] = fnan(NAN, bits, i);
				in2[i] = fnan(NAN, bits, i >> 2);
			}
		}
		for (unsigned k = 0; k < 13 + 7 + 14 + 1; k++)
		for (unsigned wi = 0; wi < 6 + NFIMM; wi++) {
			char src[2048], line[96], b_text[16] = "r22";
			int masked = wi >= 3 && wi < 6;	/* in an if: the items i & 5 == 0 inactive */
			int imm = wi >= 6;		/* b is the immediate fimm[fi][wi - 6] */
			const char *name;
			int kind;	/* 0 unary, 1 binary, 2 compare, 3 fma */

			if (imm && !((k >= 13 && k < 19) || (k >= 20 && k < 34)))
				continue;	/* no rB|imm operand */
			if (!h_case())
				continue;
			if (imm)
				snprintf(b_text, sizeof(b_text), "0x%x", fimm[fi][wi - 6]);
			if (k < 13) { kind = 0; name = un[k]; snprintf(line, sizeof(line), "%s.%s r24, r20", name, ft[fi]); }
			else if (k < 20) { kind = 1; name = bin[k - 13]; snprintf(line, sizeof(line), "%s.%s r24, r20, %s", name, ft[fi], b_text); }
			else if (k < 34) { kind = 2; name = cmps[k - 20]; snprintf(line, sizeof(line), "fset.%s.%s r24, r20, %s", name, ft[fi], b_text); }
			else { kind = 3; name = "ffma"; snprintf(line, sizeof(line), "ffma.%s r24, r20, r22, r26", ft[fi]); }
			snprintf(src, sizeof(src), PRO
				 "\tld.global.u64 r26, [r0+24]\n"
				 "\tadd.u64 r26, r26, r8\n"
				 "\tld.global.u64 r26, [r26+0]\n"
				 "\tmov.u64 r24, 0x%016llx\n"
				 "%s"
				 "\t%s\n"
				 "%s"
				 "\tst.global.u64 [r12+0], r24\n"
				 "\tend\n", masked ? (unsigned long long)SENT : 0ull,
				 masked ? MASK_IF : "", line, masked ? MASK_ENDIF : "");
			CHECK_EQ(run(src, simds[wi % 3], n, 61, 0, 0), 0);
			for (unsigned i = 0; i < n; i++) {
				double a = fval(in[i], bits), b = fval(in2[i], bits), c = fval(aux[i], bits);
				uint64_t want, got = out[i], sign = 1ull << (bits - 1);
				unsigned tol = 0;

				if (imm)	/* f16 / f32: the bits; f64: the high half */
					b = fval(bits == 64 ? (uint64_t)fimm[fi][wi - 6] << 32 : fimm[fi][wi - 6], bits);
				if (masked && !(i & 5)) {
					if (got != SENT) {
						CHECK(0, "%s simd %u: inactive item %u written: 0x%llx", line,
						      simds[wi % 3], i, (unsigned long long)got);
						break;
					}
					continue;
				}
				if (kind == 2 || bits < 64)
					got &= 0xffffffff;	/* the low register only */
				if (k < 2 || k == 19) {
					/* fneg, fabs, fcopysign: sign-bit operations, NaNs too
					 * (a signalling NaN stays signalling). */
					want = k == 0 ? in[i] ^ sign : k == 1 ? in[i] & ~sign :
					       (in[i] & ~sign) | (in2[i] & sign);
					tol = ~0u;
				} else if (kind == 2) {
					want = fcmp(name, a, b);
				} else if (kind == 3) {
					/* f32: fmaf, as the long double fmal would round twice
					 * (to long double, then to float) where its sum is inexact. */
					want = fbits(bits == 64 ? fma(a, b, c) :
						     bits == 32 ? fmaf((float)a, (float)b, (float)c) :
						     (double)fmal(a, b, c), bits);
				} else if (kind == 1) {
					want = fbits(fref2(name, a, b), bits);
				} else {
					want = fbits(fref1(name, a, bits), bits);
					if (k >= 8)
						tol = 1;	/* transcendentals: 1 ulp */
				}
				/* NaN results are quiet: fmin/fmax of two NaNs too. */
				if (kind != 2 && k >= 2 && k != 19 && fresult_bad(got, bits)) {
					CHECK(0, "%s simd %u a=0x%llx b=0x%llx: result 0x%llx: %s", line,
					      simds[wi % 3], (unsigned long long)in[i], (unsigned long long)in2[i],
					      (unsigned long long)got, fresult_bad(got, bits));
					break;
				}
				if (kind == 2 || tol == ~0u ? got != want : ulps(got, want, bits) > tol) {
					CHECK(0, "%s simd %u%s a=%g b=%g c=%g (0x%llx 0x%llx): got 0x%llx want 0x%llx",
					      line, simds[wi % 3], masked ? " masked" : "", a, b, c,
					      (unsigned long long)in[i], (unsigned long long)in2[i],
					      (unsigned long long)got, (unsigned long long)want);
					break;
				}
			}
			if (!h_failed())
				cov_checked(line, simds[wi % 3]);
		}
	}
	/* Immediates: f32 bits, f64 high half, f64 literal. */
	in[0] = fbits(1.5, 32);
	CHECK_EQ(run(PRO "\tfadd.f32 r24, r20, 0x40000000\n\tst.global.u32 [r12+0], r24\n\tend\n", 8, 1, 1, 0, 0), 0);
	CHECK_EQ((uint32_t)out[0], fbits(3.5, 32));
	in[0] = fbits(1.5, 64);
	CHECK_EQ(run(PRO "\tfmul.f64 r24, r20, 0x4000000000000000\n\tst.global.u64 [r12+0], r24\n\tend\n", 8, 1, 1, 0, 0), 0);
	CHECK_EQ(out[0], fbits(3.0, 64));
	CHECK_EQ(run(PRO "\tfadd.f64 r24, r20, 0x3fb999999999999a\n\tst.global.u64 [r12+0], r24\n\tend\n", 8, 1, 1, 0, 0), 0);
	CHECK_EQ(out[0], fbits(1.5 + 0.1, 64));
	/* Decimal float immediates. */
	CHECK_EQ(run(PRO "\tfadd.f64 r24, r20, 0.1\n\tst.global.u64 [r12+0], r24\n\tend\n", 8, 1, 1, 0, 0), 0);
	CHECK_EQ(out[0], fbits(1.5 + 0.1, 64));
	in[0] = fbits(2.0, 32);
	CHECK_EQ(run(PRO "\tfmul.f32 r24, r20, -0.25\n\tst.global.u32 [r12+0], r24\n\tend\n", 8, 1, 1, 0, 0), 0);
	CHECK_EQ((uint32_t)out[0], fbits(-0.5, 32));
	in[0] = fbits(2.0, 16);
	CHECK_EQ(run(PRO "\tfadd.f16 r24, r20, 1e0\n\tst.global.u32 [r12+0], r24\n\tend\n", 8, 1, 1, 0, 0), 0);
	CHECK_EQ((uint32_t)out[0], fbits(3.0, 16));
	/* ffma.f32 rounds once: (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 is halfway
	 * between two floats, and + 2^-80 takes it up.  Through a sum rounded
	 * to f64 first, 2^-80 is lost and the tie goes to even, down. */
	in[0] = in2[0] = fbits(1 + 0x1p-12, 32);
	aux[0] = fbits(0x1p-80, 32);
	CHECK_EQ(run(PRO "\tld.global.u64 r26, [r0+24]\n\tld.global.u64 r26, [r26+0]\n"
		     "\tffma.f32 r24, r20, r22, r26\n\tst.global.u32 [r12+0], r24\n\tend\n",
		     8, 1, 1, 0, 0), 0);
	CHECK_EQ((uint32_t)out[0], fbits(1 + 0x1p-11 + 0x1p-23, 32));
}

/* ---- conversions with rounding modes ---- */

static const struct tinfo CT[] = {
	{ "u8", 8, 'u' }, { "s8", 8, 's' }, { "u16", 16, 'u' }, { "s16", 16, 's' },
	{ "u32", 32, 'u' }, { "s32", 32, 's' }, { "u64", 64, 'u' }, { "s64", 64, 's' },
	{ "f16", 16, 'f' }, { "f32", 32, 'f' }, { "f64", 64, 'f' },
};

static const int fmodes[] = { FE_TONEAREST, FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD };

/* The reference: the host FPU in the rounding mode. */
static uint64_t cvt_ref(uint64_t v, const struct tinfo *d, const struct tinfo *s, int rm, int sat)
{
	long double x;
	uint64_t r;

	if (s->kind != 'f' && d->kind != 'f') {
		uint64_t e = s->kind == 's' ? sx(v, s->bits) : zx(v, s->bits);

		if (sat) {
			__int128 val = s->kind == 's' ? (__int128)(int64_t)e : (__int128)e;
			__int128 lo = d->kind == 's' ? -((__int128)1 << (d->bits - 1)) : 0;
			__int128 hi = d->kind == 's' ? ((__int128)1 << (d->bits - 1)) - 1 :
					((__int128)1 << d->bits) - 1;

			e = (uint64_t)(val < lo ? lo : val > hi ? hi : val);
		}
		return norm(e, d);
	}
	if (s->kind == 'f')
		x = fval(v, s->bits);
	else
		x = s->kind == 's' ? (long double)(int64_t)sx(v, s->bits) : (long double)zx(v, s->bits);
	fesetround(fmodes[rm]);
	if (d->kind == 'f') {
		volatile long double vx = x;

		if (d->bits == 16) {
			volatile _Float16 h = (_Float16)vx;
			uint16_t b;

			memcpy(&b, (const void *)&h, 2);
			r = b;
		} else if (d->bits == 32) {
			volatile float f = (float)vx;
			uint32_t b;

			memcpy(&b, (const void *)&f, 4);
			r = b;
		} else {
			volatile double f = (double)vx;

			memcpy(&r, (const void *)&f, 8);
		}
		fesetround(FE_TONEAREST);
		if (isnan(x))
			return ~0ull;	/* any NaN */
		return r;
	}
	{
		volatile long double vx = x;
		long double ri = rintl(vx);
		long double lo = d->kind == 's' ? -ldexpl(1, d->bits - 1) : 0;
		long double hi = d->kind == 's' ? ldexpl(1, d->bits - 1) - 1 : ldexpl(1, d->bits) - 1;

		fesetround(FE_TONEAREST);
		if (isnan(x))
			return 0;
		ri = ri < lo ? lo : ri > hi ? hi : ri;
		return norm(d->kind == 's' ? (uint64_t)(int64_t)ri : (uint64_t)ri, d);
	}
}

static void t_cvt_round(void)
{
	static const char *rms[] = { "rte", "rtz", "rtp", "rtn" };
	unsigned n = 0;

	for (unsigned di = 0; di < 11; di++)
	for (unsigned si = 0; si < 11; si++)
	for (unsigned rm = 0; rm < 4; rm++)
	for (unsigned sat = 0; sat < 2; sat++) {
		char src[1024], line[64];
		const struct tinfo *d = &CT[di], *s = &CT[si];

		if (!h_case())
			continue;
		n = 0;
		for (unsigned i = 0; i < NFE; i++)
			in[n++] = s->kind == 'f' ? fbits(fedge[i], s->bits) : 0;
		if (s->kind != 'f') {
			static const uint64_t ie[] = { 0, 1, 2, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff,
				0x7fffffff, 0x80000000, 0xffffffff, 0x1000001, 0xffffff7f, 0x7ffffffffffffdff,
				0x8000000000000001ull, 0xffffffffffffffffull, 0x20000000000003ull, 0x801, 0xfff,
				/* just above a tie of f32 that a double intermediate would round to the tie */
				0x8000008000000001ull, 0x4000004000000001ull, 0xffffff7fffffffffull };
			n = 0;
			for (unsigned i = 0; i < sizeof(ie) / sizeof(ie[0]); i++)
				in[n++] = ie[i];
			for (unsigned i = 0; i < 20; i++)
				in[n++] = rnd64() >> (rnd64() % 64);
		} else {
			/* just above ties of f16 / f32 (normal and subnormal), the f16 overflow edge */
			static const double ties[] = { 1 + 0x1p-11 + 0x1p-40, 1 + 0x1p-24 + 0x1p-50,
				0x1p-25 + 0x1p-40, 0x1p-150 + 0x1p-170, 65519.99, -(1 + 0x1p-11 + 0x1p-40) };

			for (unsigned i = 0; i < sizeof(ties) / sizeof(ties[0]); i++)
				in[n++] = fbits(ties[i], s->bits);
			for (unsigned i = 0; i < 20; i++)
				in[n++] = fbits((double)(int64_t)rnd64() / (double)(1ull << (rnd64() % 62)), s->bits);
			/* halves (ties of float to integer), either side of them, any bit pattern */
			for (unsigned i = 0; i < 12; i++) {
				double h = (double)((int)(rnd64() % 601) - 300) + 0.5;

				in[n++] = fbits(h, s->bits);
				in[n++] = zx(fbits(h, s->bits) + (i & 1 ? 1 : ~0ull), s->bits);	/* one ulp off */
				in[n++] = zx(rnd64(), s->bits);
			}
		}
		snprintf(line, sizeof(line), "cvt.%s%s.%s.%s r24, r20", rms[rm], sat ? ".sat" : "", d->name,
			 s->name);
		for (unsigned wi = 0; wi < 6; wi++) {
			int masked = wi >= 3;

			snprintf(src, sizeof(src), PRO
				 "\tmov.u64 r24, 0x%016llx\n"
				 "%s"
				 "\t%s\n"
				 "%s"
				 "\tst.global.u64 [r12+0], r24\n"
				 "\tend\n", masked ? (unsigned long long)SENT : 0ull, masked ? MASK_IF : "",
				 line, masked ? MASK_ENDIF : "");
			CHECK_EQ(run(src, simds[wi % 3], n, 40, 0, 0), 0);
			for (unsigned i = 0; i < n; i++) {
				uint64_t want = cvt_ref(in[i], d, s, rm, sat), got = out[i];
				unsigned b = d->bits < 32 ? 32 : d->bits;

				if (masked && !(i & 5)) {	/* inactive: r24:r25 untouched */
					want = SENT;
					b = 64;
				} else if (d->kind == 'f' && fresult_bad(d->bits == 64 ? got : (uint32_t)got, d->bits)) {
					CHECK(0, "%s simd %u 0x%llx: result 0x%llx: %s", line, simds[wi % 3],
					      (unsigned long long)in[i], (unsigned long long)got,
					      fresult_bad(d->bits == 64 ? got : (uint32_t)got, d->bits));
					return;
				}
				if (want == ~0ull && isnan(fval(got, d->bits)))
					continue;
				if (zx(got, b) != zx(want, b)) {
					CHECK(0, "cvt.%s%s.%s.%s simd %u%s 0x%llx: got 0x%llx want 0x%llx", rms[rm],
					      sat ? ".sat" : "", d->name, s->name, simds[wi % 3],
					      masked ? " masked" : "",
					      (unsigned long long)in[i], (unsigned long long)got,
					      (unsigned long long)want);
					return;
				}
			}
			if (!h_failed())
				cov_checked(line, simds[wi % 3]);
		}
	}
}

/* ---- every load / store form of every space, from the ISA table ---- */

/*
 * For each ld.X / st.X pair of the table (global, local, scratch, their
 * vector forms) and each of their types: every item stores the first
 * elements of its 32 input bytes (r24..r31) to its slot in an if that
 * leaves the items with gid & 5 == 0 inactive, then loads (gid & 6 == 0
 * inactive) from the slot of itself (global, scratch) or of its mirror
 * item in the work-group (local, after a barrier), into r40.. preset to
 * 0xee bytes.  Slots are pre-filled with 0xee bytes.  Partial sub-groups
 * and a partial last work-group run too.
 */
#define MEM_SLOT 32

static void mem_case(const char *sfx, unsigned t, unsigned simd)
{
	const struct weft_type_info *ti = &weft_isa_types[t];
	unsigned vec = 1, sz = ti->bits / 8, nb, l = 2 * simd + 3, g = 3 * l - 2;
	int local = !strncmp(sfx, "local", 5), scratch = !strncmp(sfx, "scratch", 7);
	char src[4096], fill[512] = "", line[96];
	const char *v = strchr(sfx, 'v');
	uint8_t *ib = (uint8_t *)in, *ob = (uint8_t *)out, *ab = (uint8_t *)aux;

	if (v)
		vec = (unsigned)atoi(v + 1);
	nb = vec * sz;
	if (local || scratch)
		for (unsigned o = 0; o < MEM_SLOT; o += 4)
			snprintf(fill + strlen(fill), sizeof(fill) - strlen(fill),
				 "\tst.%s.u32 [r32+%u], r50\n", local ? "local" : "scratch", 8 + o);
	snprintf(src, sizeof(src),
		 "\ts2r.u64 r0, sr.args\n"
		 "\tld.global.u64 r2, [r0+0]\n"
		 "\tld.global.u64 r4, [r0+8]\n"
		 "\tld.global.u64 r6, [r0+24]\n"
		 "\ts2r.u64 r8, sr.global_id.x\n"
		 "\tshl.u64 r8, r8, 5\n"
		 "\tadd.u64 r10, r2, r8\n"
		 "\tadd.u64 r12, r4, r8\n"
		 "\tadd.u64 r14, r6, r8\n"
		 "\tld.global.u64 r24, [r10+0]\n"
		 "\tld.global.u64 r26, [r10+8]\n"
		 "\tld.global.u64 r28, [r10+16]\n"
		 "\tld.global.u64 r30, [r10+24]\n"
		 "\ts2r.u32 r16, sr.global_id.x\n"
		 "\tand.u32 r17, r16, 5\n"
		 "\tand.u32 r18, r16, 6\n"
		 "\tmov.u32 r50, 0xeeeeeeee\n"
		 "\tmov.u64 r40, 0xeeeeeeeeeeeeeeee\n"
		 "\tmov.u64 r42, 0xeeeeeeeeeeeeeeee\n"
		 "\tmov.u64 r44, 0xeeeeeeeeeeeeeeee\n"
		 "\tmov.u64 r46, 0xeeeeeeeeeeeeeeee\n"
		 "%s"
		 "%s"
		 "\tif r17, s\n"
		 "\tst.%s.%s [r32+8], r24\n"
		 "s:\tendif\n"
		 "\tbar\n"
		 "\tif r18, l\n"
		 "\tld.%s.%s r40, [r34+8]\n"
		 "l:\tendif\n"
		 "\tst.global.u64 [r12+0], r40\n"
		 "\tst.global.u64 [r12+8], r42\n"
		 "\tst.global.u64 [r12+16], r44\n"
		 "\tst.global.u64 [r12+24], r46\n"
		 "\tend\n",
		 local ? "\ts2r.u32 r19, sr.local_linear_id\n"
			 "\tmul.u32 r32, r19, 32\n"
			 "\ts2r.u32 r33, sr.local_size.x\n"
			 "\tsub.u32 r33, r33, r19\n"
			 "\tsub.u32 r33, r33, 1\n"
			 "\tmul.u32 r34, r33, 32\n" :
		 scratch ? "\tmov.u32 r32, 0\n\tmov.u32 r34, 0\n" :
			   "\tsub.u64 r32, r14, 8\n\tmov.u64 r34, r32\n",
		 fill, sfx, ti->name, sfx, ti->name);
	for (unsigned i = 0; i < g * MEM_SLOT / 8; i++)
		in[i] = rnd64();
	memset(aux, 0xee, (size_t)g * MEM_SLOT);
	memset(out, 0, (size_t)g * MEM_SLOT);
	CHECK_EQ(run(src, simd, g, l, l * MEM_SLOT + 8, MEM_SLOT + 8), 0);
	for (unsigned i = 0; i < g; i++) {
		unsigned grp = i / l, ls = g - grp * l < l ? g - grp * l : l;
		unsigned srci = local ? grp * l + (ls - 1 - i % l) : i;
		uint8_t slot[MEM_SLOT], want[MEM_SLOT];

		/* the source slot: its item's first nb input bytes if it stored */
		memset(slot, 0xee, sizeof(slot));
		if (srci & 5)
			memcpy(slot, ib + (size_t)srci * MEM_SLOT, nb);
		memset(want, 0xee, sizeof(want));
		if (i & 6) {
			if (sz >= 4) {
				memcpy(want, slot, nb);
			} else {
				uint64_t x = 0;
				uint32_t r;

				memcpy(&x, slot, sz);
				r = (uint32_t)(ti->kind == 's' ? sx(x, ti->bits) : x);
				memcpy(want, &r, 4);
			}
		}
		if (memcmp(ob + (size_t)i * MEM_SLOT, want, MEM_SLOT)) {
			CHECK(0, "ld/st.%s.%s simd %u item %u (from %u): r40.. differ", sfx, ti->name, simd, i,
			      srci);
			return;
		}
		if (!local && !scratch) {
			memset(slot, 0xee, sizeof(slot));
			if (i & 5)
				memcpy(slot, ib + (size_t)i * MEM_SLOT, nb);
			if (memcmp(ab + (size_t)i * MEM_SLOT, slot, MEM_SLOT)) {
				CHECK(0, "st.%s.%s simd %u item %u: memory differs", sfx, ti->name, simd, i);
				return;
			}
		}
	}
	snprintf(line, sizeof(line), "st.%s.%s [r32+8], r24\nld.%s.%s r40, [r34+8]\n", sfx, ti->name,
		 sfx, ti->name);
	cov_checked(line, simd);
}

/* A local or scratch access that ends at the size works; one element further is BAD_ACCESS.
 * SLM: a size of whole granules, the bound itself. */
static void mem_bounds(const char *sfx, unsigned t, unsigned simd)
{
	const struct weft_type_info *ti = &weft_isa_types[t];
	const char *v = strchr(sfx, 'v');
	int local = !strncmp(sfx, "local", 5);
	unsigned sz = ti->bits / 8, nb = (v ? (unsigned)atoi(v + 1) : 1) * sz;
	unsigned size = local ? 2 * WEFT_CMD_DISPATCH_SLM_GRANULE : 256;
	char src[512];

	for (unsigned k = 0; k < 4; k++) {
		unsigned off = size - nb + (k & 1 ? sz : 0);
		uint32_t err;

		snprintf(src, sizeof(src), k & 2 ? "\tmov.u32 r1, %u\n\tst.%s.%s [r1+0], r4\n\tend\n" :
			 "\tmov.u32 r1, %u\n\tld.%s.%s r4, [r1+0]\n\tend\n", off, sfx, ti->name);
		err = run(src, simd, 2 * simd + 1, 2 * simd + 1, local ? size : 0, local ? 0 : size);
		CHECK(err == (k & 1 ? WEFT_QERR_BAD_ACCESS : 0), "%s.%s.%s at %u of %u: error %u",
		      k & 2 ? "st" : "ld", sfx, ti->name, off, size, err);
	}
}

static void t_mem_forms(void)
{
	/* ld.X and st.X of the table: every X, every type both declare */
	for (unsigned op = 0; op < WEFT_ISA_OPCODE_COUNT; op++) {
		const struct weft_op_info *ld = &weft_isa_ops[op];
		char stname[64];

		if (!ld->name || strncmp(ld->name, "ld.", 3) || strstr(ld->name, ".block") ||
		    strstr(ld->name, ".img"))
			continue;
		snprintf(stname, sizeof(stname), "st.%s", ld->name + 3);
		for (unsigned sop = 0; sop < WEFT_ISA_OPCODE_COUNT; sop++) {
			const struct weft_op_info *st = &weft_isa_ops[sop];

			if (!st->name || strcmp(st->name, stname))
				continue;
			for (unsigned t = 1; t < WEFT_TYPE_COUNT; t++)
				if ((ld->types & st->types) >> t & 1)
					for (unsigned si = 0; si < 3; si++) {
						if (!h_case())
							continue;
						mem_case(ld->name + 3, t, simds[si]);
						if (strncmp(ld->name, "ld.global", 9))
							mem_bounds(ld->name + 3, t, simds[si]);
					}
		}
	}
}

/* ---- every atomic of the table on every type ---- */

/*
 * Four consecutive items share a slot (8 bytes; a 32-bit T uses its low
 * half): they are lanes of one sub-group, so the model applies them in lane
 * order and the old values and the final slot are deterministic.  Items
 * with gid & 5 == 0 are inactive (an if).  Local atomics work on an SLM copy
 * of the slots that the first item of each slot writes back.
 */
static uint64_t atom_ref(const char *op, const struct weft_type_info *ti, uint64_t old, uint64_t b,
			 uint64_t c)
{
	unsigned w = ti->bits;
	uint64_t m = w == 64 ? ~0ull : 0xffffffffull;

	old &= m;
	b &= m;
	c &= m;
	if (ti->kind == 'f') {
		double x = fval(old, w), y = fval(b, w);

		if (!strcmp(op, "fadd"))
			return w == 32 ? fbits((float)x + (float)y, 32) : fbits(x + y, 64);
		return fbits(fref2(op, x, y), w);
	}
	if (!strcmp(op, "add")) return (old + b) & m;
	if (!strcmp(op, "sub")) return (old - b) & m;
	if (!strcmp(op, "and")) return old & b;
	if (!strcmp(op, "or")) return old | b;
	if (!strcmp(op, "xor")) return old ^ b;
	if (!strcmp(op, "xchg")) return b;
	if (!strcmp(op, "cmpxchg")) return old == b ? c : old;
	if (!strcmp(op, "inc")) return (old + 1) & m;
	if (!strcmp(op, "dec")) return (old - 1) & m;
	{
		int lt = ti->kind == 's' ? (int64_t)sx(old, w) < (int64_t)sx(b, w) : old < b;

		return (!strcmp(op, "min")) == lt ? old : b;
	}
}

static uint64_t atom_val(const struct weft_type_info *ti)
{
	static const uint64_t ie[] = { 0, 1, 0xffffffffffffffffull, 0x7fffffff, 0x80000000,
				       0x7fffffffffffffffull, 0x8000000000000000ull, 0xffffffff };
	uint64_t r = rnd64();

	if (ti->kind == 'f')
		return fnan(fedge[r % NFE], ti->bits, (unsigned)(r >> 32));
	return r % 3 ? ie[(r >> 8) % 8] : r;
}

static void atom_case(const char *name, unsigned t, unsigned simd)
{
	const struct weft_type_info *ti = &weft_isa_types[t];
	const char *op = strchr(name + 5, '.') + 1;
	int local = !strncmp(name, "atom.local", 10), w64 = ti->bits == 64;
	int nsrc = !strcmp(op, "inc") || !strcmp(op, "dec") ? 0 : !strcmp(op, "cmpxchg") ? 2 : 1;
	unsigned l = 2 * simd + 4, g = 3 * l, nslot = g / 4;
	uint64_t init[NMAX / 4], m = w64 ? ~0ull : 0xffffffffull;
	char src[4096], line[96];

	snprintf(line, sizeof(line), "%s.%s r24, [r32]%s", name, ti->name,
		 nsrc == 0 ? "" : nsrc == 1 ? ", r20" : ", r20, r22");
	snprintf(src, sizeof(src), PRO
		 "\tshr.u64 r34, r6, 2\n"
		 "\tshl.u64 r34, r34, 3\n"
		 "\tadd.u64 r34, r16, r34\n"		/* &aux[gid / 4] */
		 "\ts2r.u32 r31, sr.local_linear_id\n"
		 "\tand.u32 r37, r31, 3\n"
		 "\tset.eq.u32 r37, r37, 0\n"		/* the first item of a slot */
		 "%s"
		 "\tmov.u64 r24, 0x%016llx\n"
		 "\ts2r.u32 r40, sr.global_id.x\n"
		 "\tand.u32 r41, r40, 5\n"
		 "\tif r41, x\n"
		 "\t%s\n"
		 "x:\tendif\n"
		 "%s"
		 "\tst.global.u64 [r12+0], r24\n"
		 "\tend\n",
		 local ? "\tshr.u32 r32, r31, 2\n\tshl.u32 r32, r32, 3\n"
			 "\tif r37, i\n\tld.global.u64 r38, [r34+0]\n\tst.local.u64 [r32+0], r38\n"
			 "i:\tendif\n\tbar\n" : "\tmov.u64 r32, r34\n",
		 (unsigned long long)SENT, line,
		 local ? "\tbar\n\tif r37, o\n\tld.local.u64 r38, [r32+0]\n"
			 "\tst.global.u64 [r34+0], r38\no:\tendif\n" : "");
	for (unsigned s = 0; s < nslot; s++)
		init[s] = aux[s] = atom_val(ti) | (w64 ? 0 : rnd64() << 32);
	for (unsigned i = 0; i < g; i++) {
		in[i] = atom_val(ti);
		in2[i] = atom_val(ti);
		/* cmpxchg: often expect what the slot holds (its start, or the new value before) */
		if (rnd64() % 2)
			in[i] = i % 4 ? in2[i - 1] : init[i / 4];
	}
	CHECK_EQ(run(src, simd, g, l, nslot * 8 / 3 + 16, 0), 0);
	for (unsigned s = 0; s < nslot; s++) {
		uint64_t v = init[s];

		for (unsigned i = 4 * s; i < 4 * s + 4; i++) {
			uint64_t want = SENT, got = out[i];

			if (i & 5) {
				want = (SENT & ~m) | (v & m);
				v = (v & ~m) | atom_ref(op, ti, v, in[i], in2[i]);
			}
			if (ti->kind == 'f' && got != want && isnan(fval(got & m, ti->bits)) &&
			    isnan(fval(want & m, ti->bits)) && (got & ~m) == (want & ~m))
				continue;
			if (got != want) {
				CHECK(0, "%s simd %u item %u: old 0x%llx want 0x%llx", line, simd, i,
				      (unsigned long long)got, (unsigned long long)want);
				return;
			}
		}
		if (aux[s] != v && !(ti->kind == 'f' && isnan(fval(aux[s] & m, ti->bits)) &&
				     isnan(fval(v & m, ti->bits)) && (aux[s] & ~m) == (v & ~m))) {
			CHECK(0, "%s simd %u slot %u: 0x%llx want 0x%llx", line, simd, s,
			      (unsigned long long)aux[s], (unsigned long long)v);
			return;
		}
	}
	cov_checked(line, simd);
}

/* An atomic at an aligned address works; half its size further is BAD_ACCESS. */
static void atom_misaligned(const char *name, unsigned t, unsigned simd)
{
	const struct weft_type_info *ti = &weft_isa_types[t];
	const char *op = strchr(name + 5, '.') + 1;
	int local = !strncmp(name, "atom.local", 10);
	int nsrc = !strcmp(op, "inc") || !strcmp(op, "dec") ? 0 : !strcmp(op, "cmpxchg") ? 2 : 1;

	for (unsigned off = 0; off <= ti->bits / 16; off += ti->bits / 16) {
		char setup[128], src[512];
		uint32_t err;

		snprintf(setup, sizeof(setup), local ? "\tmov.u32 r2, %u\n" :
			 "\ts2r.u64 r0, sr.args\n\tld.global.u64 r2, [r0+24]\n\tadd.u64 r2, r2, %u\n", off);
		snprintf(src, sizeof(src), "%s\t%s.%s r4, [r2]%s\n\tend\n", setup, name, ti->name,
			 nsrc == 0 ? "" : nsrc == 1 ? ", r6" : ", r6, r8");
		err = run(src, simd, simd, simd, 64, 0);
		CHECK(err == (off ? WEFT_QERR_BAD_ACCESS : 0), "%s.%s %u bytes off: error %u", name,
		      ti->name, off, err);
	}
}

static void t_atomics_all(void)
{
	for (unsigned op = 0; op < WEFT_ISA_OPCODE_COUNT; op++) {
		const struct weft_op_info *oi = &weft_isa_ops[op];

		if (oi->cls != WEFT_CLASS_ATOM)
			continue;
		for (unsigned t = 1; t < WEFT_TYPE_COUNT; t++)
			if (oi->types >> t & 1)
				for (unsigned si = 0; si < 3; si++) {
					if (!h_case())
						continue;
					atom_case(oi->name, t, simds[si]);
					if (si == t % 3)
						atom_misaligned(oi->name, t, simds[si]);
				}
	}
}

/* ---- uniform branches, nop, barriers and fences ---- */

static uint32_t ref_uniform(const uint32_t *x, unsigned k, unsigned nl, uint32_t nb)
{
	/* nl lanes of the sub-group, lane k; nb: the item's SLM neighbour value */
	uint32_t r = 1, all = 1, none = 1;

	for (unsigned j = 0; j < nl; j++) {
		all &= (x[j] & 3) == 0;
		none &= (x[j] & 3) != 0;
	}
	if (!all)
		r += 2;
	if (!none)
		r += 4;
	if (x[k] & 8) {		/* inside an if: only these lanes decide */
		unsigned any = 0;

		for (unsigned j = 0; j < nl; j++)
			any |= (x[j] & 8) && (x[j] & 16);
		if (any)
			r += 8;
	}
	return r + (nb << 8);
}

static void t_cf_uniform(void)
{
	/* bra, bra.all, bra.none, bra.any inside an if, nop, fences; every item
	 * then publishes its value in SLM, passes a barrier and adds the value of
	 * the item simd places further (another sub-group) in its work-group. */
	static const char *src = PRO
		"\tmov.u32 r24, 1\n"
		"\tnop\n"
		"\tbra a\n"
		"\tmov.u32 r24, 99\n"
		"a:\tand.u32 r40, r20, 3\n"
		"\tset.eq.u32 r41, r40, 0\n"
		"\tbra.all r41, b\n"
		"\tadd.u32 r24, r24, 2\n"
		"b:\tbra.none r41, c\n"
		"\tadd.u32 r24, r24, 4\n"
		"c:\tfence.sg\n"
		"\tand.u32 r42, r20, 8\n"
		"\tif r42, d\n"
		"\tand.u32 r43, r20, 16\n"
		"\tbra.any r43, e\n"
		"\tbra f\n"
		"e:\tadd.u32 r24, r24, 8\n"
		"f:\tnop\n"
		"d:\tendif\n"
		"\ts2r.u32 r44, sr.local_linear_id\n"
		"\tshl.u32 r45, r44, 2\n"
		"\tst.local.u32 [r45+0], r20\n"
		"\tfence.wg\n"
		"\tbar\n"
		"\ts2r.u32 r46, sr.max_subgroup_size\n"
		"\tadd.u32 r46, r46, r44\n"
		"\ts2r.u32 r47, sr.local_size.x\n"
		"\trem.u32 r46, r46, r47\n"
		"\tshl.u32 r46, r46, 2\n"
		"\tld.local.u32 r48, [r46+0]\n"
		"\tshl.u32 r48, r48, 8\n"
		"\tadd.u32 r24, r24, r48\n"
		"\tfence.dev\n"
		"\tst.global.u32 [r12+0], r24\n"
		"\tend\n";

	for (unsigned si = 0; si < 3; si++) {
		unsigned simd = simds[si], l = 3 * simd + 5, g = 4 * l - 7;

		for (unsigned i = 0; i < g; i++) {
			unsigned sg = (i % l) / simd;

			/* whole sub-groups with x % 4 == 0 (bra.all), none (bra.none) */
			in[i] = rnd64() & 0xffffff;
			if (sg % 3 == 0)
				in[i] &= ~3ull;
			else if (sg % 3 == 1)
				in[i] |= 1;
		}
		memset(out, 0, (size_t)g * 8);
		CHECK_EQ(run(src, simd, g, l, 4 * l, 0), 0);
		for (unsigned i = 0; i < g; i++) {
			unsigned grp = i / l, ls = g - grp * l < l ? g - grp * l : l, lid = i % l;
			unsigned base = grp * l + lid / simd * simd, nl = ls - lid / simd * simd;
			uint32_t x[32], want;

			nl = nl < simd ? nl : simd;
			for (unsigned j = 0; j < nl; j++)
				x[j] = (uint32_t)in[base + j];
			want = ref_uniform(x, i - base, nl, (uint32_t)in[grp * l + (lid + simd) % ls]);
			if ((uint32_t)out[i] != want) {
				CHECK(0, "simd %u item %u: got 0x%x want 0x%x", simd, i, (uint32_t)out[i], want);
				break;
			}
		}
		if (!h_failed())
			cov_checked(src, simd);
	}
}

/*
 * Block reads and writes in divergent code, every form and type of the
 * table: the items with gid & 5 == 0 are inactive, and their base address
 * is unmapped (the base is the first active lane's).  A read leaves the
 * inactive lanes' registers alone; a write leaves their elements alone.
 */
static void block_masked_case(const char *name, unsigned t, unsigned simd)
{
	const struct weft_type_info *ti = &weft_isa_types[t];
	const char *v = name + strlen("ld.block");
	unsigned n = *v ? (unsigned)atoi(v) : 1, size = ti->bits / 8, l = 2 * simd + 5, g = 2 * l;
	unsigned regs = size == 8 ? 2 : 1;
	int st = name[0] == 's';
	uint8_t *src8 = (uint8_t *)in, *dst8 = (uint8_t *)aux, *o8 = (uint8_t *)out;
	char src[2048], line[64];

	snprintf(line, sizeof(line), st ? "%s.%s [r8+0], r100" : "%s.%s r100, [r8+0]", name, ti->name);
	snprintf(src, sizeof(src),
		 "\ts2r.u64 r0, sr.args\n"
		 "\tld.global.u64 r2, [r0+%u]\n"		/* in (read) or aux (write) */
		 "\ts2r.u64 r6, sr.group_id.x\n"
		 "\tmul.u64 r6, r6, 3\n"
		 "\ts2r.u64 r8, sr.subgroup_id\n"
		 "\tadd.u64 r6, r6, r8\n"
		 "\tmul.u64 r6, r6, %u\n"
		 "\tadd.u64 r8, r2, r6\n"			/* the sub-group's base */
		 "\ts2r.u64 r10, sr.global_id.x\n"
		 "\tshl.u64 r10, r10, 6\n"
		 "\tld.global.u64 r12, [r0+8]\n"
		 "\tadd.u64 r12, r12, r10\n"			/* &out[gid * 8] */
		 "\tld.global.u64 r14, [r0+16]\n"
		 "\tadd.u64 r14, r14, r10\n"			/* &in2[gid * 8]: data to write */
		 "%s"
		 "\ts2r.u32 r40, sr.global_id.x\n"
		 "\tand.u32 r41, r40, 5\n"
		 "\tmov.u64 r42, 0x7ff000000000\n"
		 "\tsel.u64 r8, r8, r42, r41\n"		/* inactive lanes: an unmapped base */
		 "\tif r41, x\n"
		 "\t%s\n"
		 "x:\tendif\n"
		 "%s"
		 "\tend\n", st ? 24 : 0, simd * n * size,
		 st ? "\tld.global.v4.u64 r100, [r14+0]\n\tld.global.v4.u64 r108, [r14+32]\n" :
		      "\tmov.u64 r100, 0xeeeeeeeeeeeeeeee\n\tmov.u64 r102, r100\n\tmov.u64 r104, r100\n"
		      "\tmov.u64 r106, r100\n\tmov.u64 r108, r100\n\tmov.u64 r110, r100\n"
		      "\tmov.u64 r112, r100\n\tmov.u64 r114, r100\n",
		 line,
		 st ? "" : "\tst.global.v4.u64 [r12+0], r100\n\tst.global.v4.u64 [r12+32], r108\n");
	for (unsigned i = 0; i < NMAX; i++) {
		in[i] = rnd64();
		in2[i] = rnd64();
	}
	memset(aux, 0xee, NMAX * 8);
	memset(out, 0, (size_t)g * 64);
	CHECK_EQ(run(src, simd, g, l, 0, 0), 0);
	for (unsigned grp = 0; grp < 2; grp++)
	for (unsigned sg = 0; sg < 3; sg++)
	for (unsigned k = 0; k < (sg < 2 ? simd : 5); k++) {
		unsigned gid = grp * l + sg * simd + k;
		size_t base = (size_t)(grp * 3 + sg) * simd * n * size;
		int active = (gid & 5) != 0;

		for (unsigned i = 0; i < n; i++) {
			size_t mo = base + ((size_t)i * simd + k) * size;
			const uint8_t *reg = st ? (const uint8_t *)in2 + (size_t)gid * 64 + i * regs * 4 :
						  o8 + (size_t)gid * 64 + i * regs * 4;
			uint8_t want[8];
			int ok;

			if (st) {
				memset(want, 0xee, sizeof(want));
				if (active)
					memcpy(want, reg, size);
				ok = !memcmp(dst8 + mo, want, size);
			} else {
				memset(want, 0xee, sizeof(want));
				if (active) {
					memset(want, 0, sizeof(want));
					memcpy(want, src8 + mo, size);
				}
				ok = !memcmp(reg, want, regs * 4);
			}
			if (!ok) {
				CHECK(0, "%s simd %u item %u (%s) element %u wrong", line, simd, gid,
				      active ? "active" : "inactive", i);
				return;
			}
		}
	}
	cov_checked(line, simd);
}

static void t_block_masked(void)
{
	for (unsigned op = 0; op < WEFT_ISA_OPCODE_COUNT; op++) {
		const char *name = weft_isa_ops[op].name;

		if (!name || (strncmp(name, "ld.block", 8) && strncmp(name, "st.block", 8)))
			continue;
		for (unsigned t = 1; t < WEFT_TYPE_COUNT; t++)
			if (weft_isa_ops[op].types >> t & 1)
				for (unsigned si = 0; si < 3; si++)
					if (h_case())
						block_masked_case(name, t, simds[si]);
	}
}

static void t_bar_divergent(void)
{
	/* Sub-group 0 of every group ends before the barrier; in the others only
	 * the odd lanes are active at it (bar is the sub-group's as a whole).
	 * Then every item adds the value of the item simd places further, or its
	 * own where that is past the group. */
	static const char *src = PRO
		"\ts2r.u32 r40, sr.subgroup_id\n"
		"\tset.eq.u32 r41, r40, 0\n"
		"\tbra.any r41, done\n"
		"\ts2r.u32 r42, sr.local_linear_id\n"
		"\tshl.u32 r43, r42, 2\n"
		"\tst.local.u32 [r43+0], r20\n"
		"\tand.u32 r44, r42, 1\n"
		"\tif r44, e\n"
		"\tbar\n"
		"e:\tendif\n"
		"\ts2r.u32 r45, sr.max_subgroup_size\n"
		"\tadd.u32 r45, r45, r42\n"
		"\ts2r.u32 r46, sr.local_size.x\n"
		"\tset.ge.u32 r47, r45, r46\n"
		"\tsel.u32 r45, r42, r45, r47\n"
		"\tshl.u32 r45, r45, 2\n"
		"\tld.local.u32 r48, [r45+0]\n"
		"\tadd.u32 r24, r20, r48\n"
		"\tst.global.u32 [r12+0], r24\n"
		"done:\tend\n";

	for (unsigned si = 0; si < 3; si++) {
		unsigned simd = simds[si], l = 3 * simd + 5, g = 3 * l - 4;

		for (unsigned i = 0; i < g; i++)
			in[i] = rnd64() & 0xffffff;
		memset(out, 0, (size_t)g * 8);
		CHECK_EQ(run(src, simd, g, l, 4 * l, 0), 0);
		for (unsigned i = 0; i < g; i++) {
			unsigned grp = i / l, ls = g - grp * l < l ? g - grp * l : l, lid = i % l;
			unsigned nb = lid + simd < ls ? lid + simd : lid;
			uint64_t want = lid < simd ? 0 : (uint32_t)(in[i] + in[grp * l + nb]);

			if (out[i] != want) {
				CHECK(0, "simd %u item %u: 0x%llx want 0x%llx", simd, i,
				      (unsigned long long)out[i], (unsigned long long)want);
				break;
			}
		}
		if (!h_failed())
			cov_checked("bar\n", simd);
	}
}

/* ---- independent forward progress of sub-groups ---- */

/*
 * Spins per sub-group before a kernel gives up: far more than a sub-group
 * needs when every other one gets its turns (a turn is 4096 instructions,
 * about 600 spins), so a scheduler that does not switch away from a spinning
 * sub-group fails the test instead of hanging it.
 */
#define SPIN_BOUND "200000"

/*
 * Sub-group k of a work-group of n waits until the flag holds n - 1 - k, then
 * writes n - k: the last sub-group goes first and every other one spins until
 * a later sub-group lets it go.  Each item writes the flag value it saw
 * (its turn, unless it gave up).
 */
#define FP_TURN \
	"\ts2r.u32 r46, sr.subgroup_id\n" \
	"\ts2r.u32 r47, sr.num_subgroups\n" \
	"\tsub.u32 r48, r47, r46\n" \
	"\tsub.u32 r48, r48, 1\n" \
	"\tmov.u32 r49, 0\n"

/* The flag in global memory (aux[group], u32), a structured loop. */
static const char *fp_global_src = PRO
	"\ts2r.u32 r40, sr.group_id.x\n"
	"\tcvt.u64.u32 r42, r40\n"
	"\tshl.u64 r42, r42, 2\n"
	"\tadd.u64 r44, r16, r42\n"
	FP_TURN
	"\tloop w\n"
	"\tld.global.u32 r50, [r44+0]\n"
	"\tset.eq.u32 r51, r50, r48\n"
	"\tbreak r51\n"
	"\tadd.u32 r49, r49, 1\n"
	"\tset.ge.u32 r52, r49, " SPIN_BOUND "\n"
	"\tbreak r52\n"
	"w:\tendloop\n"
	"\tadd.u32 r53, r48, 1\n"
	"\tst.global.u32 [r44+0], r53\n"
	"\tst.global.u32 [r12+0], r50\n"
	"\tend\n";

/* The flag in SLM (offset 0, cleared by sub-group 0 before a barrier), a uniform loop. */
static const char *fp_local_src = PRO
	FP_TURN
	"\tmov.u32 r40, 0\n"
	"\tset.eq.u32 r41, r46, 0\n"
	"\tbra.none r41, ready\n"
	"\tst.local.u32 [r40+0], r40\n"
	"ready:\tbar\n"
	"spin:\n\tld.local.u32 r50, [r40+0]\n"
	"\tset.ne.u32 r51, r50, r48\n"
	"\tadd.u32 r49, r49, 1\n"
	"\tset.lt.u32 r52, r49, " SPIN_BOUND "\n"
	"\tand.u32 r51, r51, r52\n"
	"\tbra.any r51, spin\n"
	"\tadd.u32 r53, r48, 1\n"
	"\tst.local.u32 [r40+0], r53\n"
	"\tst.global.u32 [r12+0], r50\n"
	"\tend\n";

static void fp_case(const char *src, bool global)
{
	for (unsigned si = 0; si < 3; si++) {
		unsigned simd = simds[si];
		/* 2, 5 and 8 sub-groups, the last one partial; 4 work-groups, the last partial. */
		for (unsigned nsub = 2; nsub <= 8; nsub += 3) {
			unsigned l = nsub * simd - 3, g = 4 * l - simd - 1, bad = 0;

			memset(out, 0xff, (size_t)g * 8);
			memset(aux, 0, 4 * 8);
			CHECK_EQ(run(src, simd, g, l, global ? 0 : 4, 0), 0);
			for (unsigned i = 0; i < g && !bad; i++) {
				unsigned grp = i / l, ls = g - grp * l < l ? g - grp * l : l;
				unsigned n = (ls + simd - 1) / simd, turn = n - 1 - (i % l) / simd;

				if ((uint32_t)out[i] != turn) {
					CHECK(0, "simd %u, %u sub-groups: item %u saw flag %u, its turn is %u",
					      simd, nsub, i, (uint32_t)out[i], turn);
					bad = 1;
				}
			}
			for (unsigned grp = 0; global && grp < 4 && !bad; grp++) {
				unsigned ls = g - grp * l < l ? g - grp * l : l;

				CHECK_EQ(((uint32_t *)aux)[grp], (ls + simd - 1) / simd);
			}
		}
	}
}

static void t_progress_global(void)
{
	fp_case(fp_global_src, true);
}

static void t_progress_local(void)
{
	fp_case(fp_local_src, false);
}

static void t_progress_watchdog(void)
{
	/*
	 * Sub-group 0 spins on a flag nobody sets: switching sub-groups does not
	 * hide it from the watchdog.  In the second kernel another sub-group
	 * faults while sub-group 0 spins: the fault ends the dispatch.  Then the
	 * device runs the next kernel.
	 */
	struct env *e = env_create(2, 1000000);
	uint64_t *flag, fva = env_buf(e, 4096, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&flag);
	uint64_t code[2];
	char src[1024];
	struct env_dispatch d = { 0, fva, 0, { 64, 1, 1 }, { 64, 1, 1 } };

	CHECK_EQ(env_ready(e), WEFT_DEVICE_RUNNING);
	for (int faulting = 0; faulting < 2; faulting++) {
		snprintf(src, sizeof(src),
			 "\ts2r.u64 r0, sr.args\n"
			 "\ts2r.u32 r2, sr.subgroup_id\n"
			 "\tset.eq.u32 r3, r2, 0\n"
			 "\tbra.none r3, other\n"
			 "spin:\n\tld.global.u32 r4, [r0+0]\n"
			 "\tset.eq.u32 r5, r4, 0\n"
			 "\tbra.any r5, spin\n"
			 "\tend\n"
			 "other:\n\t%s\n"
			 "\tend\n",
			 faulting ? "st.global.u32 [r0+8192], r2" : "nop");
		code[faulting] = env_code(e, src);
	}
	for (unsigned si = 0; si < 3; si++) {
		d.simd = simds[si];
		for (int faulting = 0; faulting < 2; faulting++) {
			d.code_va = code[faulting];
			*flag = 0;
			CHECK_EQ(env_dispatch(e, 0, &d), faulting ? WEFT_QERR_MMU_FAULT : WEFT_QERR_WATCHDOG);
			if (faulting)
				CHECK_EQ(env_reg(e, WEFT_REG_FAULT_ADDR_LO), (uint32_t)(fva + 8192));
			env_wreg(e, WEFT_REG_FAULT_ACK, env_reg(e, WEFT_REG_FAULT_SEQ));
			env_reset_queue(e, 0);
			/* The same spin ends once the flag is set. */
			*flag = 1;
			d.code_va = code[0];
			CHECK_EQ(env_dispatch(e, 0, &d), 0);
		}
	}
	env_destroy(e);
}

/* ---- special registers ---- */

/* The value of special register @name for the item at global index g[] (offset excluded). */
static int sreg_ref(const char *name, const uint32_t *g, const uint32_t *G, const uint32_t *L,
		    const uint32_t *off, unsigned simd, uint64_t *v)
{
	uint32_t grp[3], lid[3], ls[3], ng[3], n, lin;
	int c = name[strlen(name) - 1] - 'x';

	for (int i = 0; i < 3; i++) {
		grp[i] = g[i] / L[i];
		lid[i] = g[i] % L[i];
		ls[i] = G[i] - grp[i] * L[i] < L[i] ? G[i] - grp[i] * L[i] : L[i];
		ng[i] = (G[i] + L[i] - 1) / L[i];
	}
	n = ls[0] * ls[1] * ls[2];
	lin = lid[0] + lid[1] * ls[0] + lid[2] * ls[0] * ls[1];
	if (c < 0 || c > 2 || name[strlen(name) - 2] != '.')
		c = -1;
	if (!strcmp(name, "lane_id")) *v = lin % simd;
	else if (!strcmp(name, "subgroup_id")) *v = lin / simd;
	else if (!strcmp(name, "subgroup_size")) *v = n - lin / simd * simd < simd ? n - lin / simd * simd : simd;
	else if (!strcmp(name, "num_subgroups")) *v = (n + simd - 1) / simd;
	else if (!strcmp(name, "local_linear_id")) *v = lin;
	else if (!strcmp(name, "max_subgroup_size")) *v = simd;
	else if (!strcmp(name, "args")) *v = args_va;
	else if (c >= 0 && !strncmp(name, "local_id.", 9)) *v = lid[c];
	else if (c >= 0 && !strncmp(name, "group_id.", 9)) *v = grp[c];
	else if (c >= 0 && !strncmp(name, "global_id.", 10)) *v = g[c] + off[c];
	else if (c >= 0 && !strncmp(name, "local_size.", 11)) *v = ls[c];
	else if (c >= 0 && !strncmp(name, "global_size.", 12)) *v = G[c];
	else if (c >= 0 && !strncmp(name, "num_groups.", 11)) *v = ng[c];
	else if (c >= 0 && !strncmp(name, "global_offset.", 14)) *v = off[c];
	else if (c >= 0 && !strncmp(name, "enqueued_local_size.", 20)) *v = L[c];
	else return 0;
	return 1;
}

static void t_sregs(void)
{
	/* Every special register of the table, s2r.u32 and s2r.u64 (zero-extended), in a 3D
	 * dispatch with a global offset, partial groups and partial sub-groups. */
	static const uint32_t G[3] = { 7, 5, 3 }, L[3] = { 4, 3, 2 }, off[3] = { 1000, 20, 3 };
	char src[8192], line[96];

	for (unsigned w = 32; w <= 64; w += 32)
	for (unsigned si = 0; si < 3; si++) {
		unsigned simd = simds[si], len;
		uint64_t code;
		uint32_t err;

		len = (unsigned)snprintf(src, sizeof(src),
			"\ts2r.u64 r0, sr.args\n"
			"\tld.global.u64 r2, [r0+8]\n"
			"\ts2r.u32 r4, sr.global_id.x\n\tsub.u32 r4, r4, %u\n"
			"\ts2r.u32 r5, sr.global_id.y\n\tsub.u32 r5, r5, %u\n"
			"\ts2r.u32 r6, sr.global_id.z\n\tsub.u32 r6, r6, %u\n"
			"\tmul.u32 r6, r6, %u\n\tadd.u32 r5, r5, r6\n"
			"\tmul.u32 r5, r5, %u\n\tadd.u32 r4, r4, r5\n"
			"\tcvt.u64.u32 r4, r4\n\tshl.u64 r4, r4, 8\n\tadd.u64 r2, r2, r4\n",
			off[0], off[1], off[2], G[1], G[0]);
		for (unsigned s = 0; s < WEFT_ISA_NUM_SREGS; s++) {
			if (!weft_isa_sregs[s].name || (weft_isa_sregs[s].bits == 64 && w == 32))
				continue;
			snprintf(line, sizeof(line), "s2r.u%u r10, sr.%s", w, weft_isa_sregs[s].name);
			len += (unsigned)snprintf(src + len, sizeof(src) - len,
				"\tmov.u64 r10, 0x5a5a5a5a5a5a5a5a\n\t%s\n\tst.global.u64 [r2+%u], r10\n",
				line, 8 * s);
		}
		snprintf(src + len, sizeof(src) - len, "\tend\n");
		code = env_code(E, src);
		{
			struct env_dispatch d = { code, args_va, simd, { G[0], G[1], G[2] },
						  { L[0], L[1], L[2] }, { off[0], off[1], off[2] } };

			memset(out, 0, (size_t)G[0] * G[1] * G[2] * 256);
			err = env_dispatch(E, 0, &d);
			CHECK(err == 0, "simd %u: error %u", simd, err);
			if (err)
				env_reset_queue(E, 0);
		}
		for (uint32_t z = 0; z < G[2]; z++)
		for (uint32_t y = 0; y < G[1]; y++)
		for (uint32_t x = 0; x < G[0]; x++) {
			const uint32_t g[3] = { x, y, z };
			const uint64_t *o = out + 32 * (x + G[0] * (y + G[1] * z));

			for (unsigned s = 0; s < WEFT_ISA_NUM_SREGS; s++) {
				const char *name = weft_isa_sregs[s].name;
				uint64_t want;

				if (!name || (weft_isa_sregs[s].bits == 64 && w == 32))
					continue;
				if (!sreg_ref(name, g, G, L, off, simd, &want)) {
					CHECK(0, "sr.%s: no reference in this test", name);
					return;
				}
				if (w == 32)	/* a u32 s2r writes one register */
					want = (uint32_t)want | 0x5a5a5a5a00000000ull;
				if (o[s] != want) {
					CHECK(0, "s2r.u%u sr.%s simd %u item %u,%u,%u: 0x%llx want 0x%llx", w, name,
					      simd, x, y, z, (unsigned long long)o[s], (unsigned long long)want);
					return;
				}
			}
		}
		snprintf(line, sizeof(line), "s2r.u%u r10, sr.lane_id", w);
		cov_checked(line, simd);
	}
}

/* ---- robustness ---- */

static void t_fuzz_valid(void)
{
	/* Random valid instructions of the whole table (biased to the new
	 * classes), registers holding pointers into a mapped buffer, SLM and
	 * scratch: every dispatch ends, successfully or with an error code. */
	struct env *e = env_create(2, 200000);
	uint64_t *code, *a;
	uint64_t cva = env_buf(e, 8192, WEFT_PTE_VALID | WEFT_PTE_EXEC, (void **)&code);
	uint64_t ava = env_buf(e, 16384, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&a);
	unsigned counts[8] = { 0 };

	CHECK_EQ(env_ready(e), WEFT_DEVICE_RUNNING);
	for (int iter = 0; iter < 400; iter++) {
		unsigned n = 0, simd = 8 << (iter % 3);
		struct env_dispatch d;
		uint32_t err;

		if (!h_case())
			continue;
		randprog_fill(a, ava);
		n = randprog(code, 100 + (unsigned)iter * 2);
		code[n++] = (uint64_t)WEFT_OP_END;
		d = (struct env_dispatch){ cva, ava, simd, { 1 + h_rand() % 300, 1, 1 },
					   { 1 + h_rand() % 128, 1, 1 }, { 0, 0, 0 }, h_rand() % 2048,
					   h_rand() % 3 ? h_rand() % 512 : 0 };
		err = env_dispatch(e, iter % 4, &d);
		CHECK(err == 0 || err == WEFT_QERR_MMU_FAULT || err == WEFT_QERR_BAD_INSTRUCTION ||
		      err == WEFT_QERR_BAD_ACCESS || err == WEFT_QERR_WATCHDOG, "iter %d: error %u", iter, err);
		counts[err < 8 ? err : 0]++;
		if (err) {
			env_wreg(e, WEFT_REG_FAULT_ACK, env_reg(e, WEFT_REG_FAULT_SEQ));
			env_reset_queue(e, iter % 4);
		}
	}
	/* Still alive and serving. */
	{
		uint64_t c = env_code(e, "end\n");
		struct env_dispatch d = { c, 0, 8, { 8, 1, 1 }, { 8, 1, 1 } };

		for (unsigned q = 0; q < 4; q++)
			CHECK_EQ(env_dispatch(e, q, &d), 0);
	}
	printf("    fuzz outcomes: ok %u, mmu %u, bad-inst %u, bad-access %u, watchdog %u\n", counts[0],
	       counts[WEFT_QERR_MMU_FAULT], counts[WEFT_QERR_BAD_INSTRUCTION],
	       counts[WEFT_QERR_BAD_ACCESS], counts[WEFT_QERR_WATCHDOG]);
	env_destroy(e);
}

static void t_wg_size_wrap(void)
{
	/* Local sizes whose product wraps to 0 in 64 bits are rejected. */
	uint64_t c = env_code(E, "\tend\n");
	struct env_dispatch d = { c, 0, 8, { 200, 200, 1 }, { 1u << 31, 1u << 31, 4 } };

	CHECK_EQ(env_dispatch(E, 0, &d), WEFT_QERR_BAD_DISPATCH);
	env_reset_queue(E, 0);
	d.lsize[0] = 1025;
	d.lsize[1] = d.lsize[2] = 1;
	CHECK_EQ(env_dispatch(E, 0, &d), WEFT_QERR_BAD_DISPATCH);
	env_reset_queue(E, 0);
	d.lsize[0] = 1024;
	CHECK_EQ(env_dispatch(E, 0, &d), 0);
}

static void t_barrier_loop_watchdog(void)
{
	/* An endless loop around a barrier is stopped by the watchdog. */
	struct env *e = env_create(2, 100000);
	uint64_t c = env_code(e, "top:\tbar\n\tbra top\n\tend\n");
	struct env_dispatch d = { c, 0, 16, { 64, 1, 1 }, { 64, 1, 1 } };

	CHECK_EQ(env_ready(e), WEFT_DEVICE_RUNNING);
	CHECK_EQ(env_dispatch(e, 0, &d), WEFT_QERR_WATCHDOG);
	env_destroy(e);
}

int main(void)
{
	E = env_create(2, 0);
	if (env_ready(E) != WEFT_DEVICE_RUNNING)
		return 1;
	args_va = env_buf(E, 4096, WEFT_PTE_VALID, (void **)&args);
	in_va = env_buf(E, NMAX * 8 + 4096, WEFT_PTE_VALID, (void **)&in);
	in2_va = env_buf(E, NMAX * 8 + 4096, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&in2);
	out_va = env_buf(E, NMAX * 8 + 4096, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&out);
	aux_va = env_buf(E, NMAX * 8 + 4096, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&aux);
	args[0] = in_va;
	args[1] = out_va;
	args[2] = in2_va;
	args[3] = aux_va;
	h_run("cf: if/else/endif, loop/break/cont, nested loops, bra.any; simd 8/16/32", t_control_flow);
	h_run("cf: malformed nesting is BAD_INSTRUCTION; empty if/else bodies are skipped", t_cf_malformed);
	h_run_cases("xlane: shfl idx/xor/up/down/up2/down2, bcast on every type, inactive lanes", t_shuffle);
	h_run_cases("xlane: red/iscan/escan add/mul/min/max/and/or/xor on every type, partial sub-groups", t_reduce_scan);
	h_run("xlane: red/iscan/escan min/max/add/mul of signalling NaNs give the default NaN", t_reduce_nan_default);
	h_run("xlane: vote.any/all/eq, ballot with divergence", t_vote);
	h_run("slm: tree reduction with barriers in a uniform loop, 2..128 sub-groups", t_slm_reduction);
	h_run("slm: every width and vector form across sub-groups; out of range is BAD_ACCESS", t_slm_types);
	h_run("atomics: global add..dec on u32/s32/u64/s64 across work-groups and threads", t_atomics_global);
	h_run("atomics: global cmpxchg, xchg; misaligned is BAD_ACCESS", t_atomics_xchg_cmpxchg);
	h_run("atomics: local histogram with inc and max", t_atomics_local);
	h_run("atomics: global and local fadd/fmin/fmax on f32/f64", t_atomics_float);
	h_run("block: ld/st.block{,2,4,8} u8/u16/u32/u64, partial sub-groups", t_block);
	h_run("block: whole-line writes read back by the writer and, after bar, its partner",
	      t_block_write_read_back);
	h_run_cases("image: ld/st.img{,2,4,8} u8/u16/u32 with out-of-bounds blocks", t_image);
	h_run("scratch: private arrays across a barrier; out of range is BAD_ACCESS", t_scratch);
	h_run_cases("float: every f16/f32/f64 ALU op and compare on edge values, immediates, inactive lanes",
	            t_float_alu);
	h_run_cases("float: cvt.{rte,rtz,rtp,rtn}[.sat] for all 121 type pairs", t_cvt_round);
	h_run_cases("mem: every ld/st form and type of the table, inactive lanes, partial sub-groups, SLM/scratch bounds",
	            t_mem_forms);
	h_run_cases("atomics: every global and local atomic and type of the table, lane order, inactive lanes, alignment",
	            t_atomics_all);
	h_run("cf: bra, bra.all/none/any, nop, bar, fence.sg/wg/dev; partial sub-groups", t_cf_uniform);
	h_run_cases("block: every ld/st.block form and type in divergent code", t_block_masked);
	h_run("bar: sub-groups that ended and a barrier in divergent code", t_bar_divergent);
	h_run("progress: a sub-group spins on a global flag a later sub-group sets; 2..8 sub-groups",
	      t_progress_global);
	h_run("progress: a sub-group spins on an SLM flag a later sub-group sets; 2..8 sub-groups",
	      t_progress_local);
	h_run("progress: a sub-group that spins forever meets the watchdog or another's fault",
	      t_progress_watchdog);
	h_run("s2r: every special register of the table, u32 and u64, 3D partial groups with an offset",
	      t_sregs);
	h_run_cases("robust: random valid programs of every class end with a defined error or none",
	            t_fuzz_valid);
	h_run("robust: a loop around a barrier meets the watchdog", t_barrier_loop_watchdog);
	h_run("robust: a work-group size that wraps in 64 bits is BAD_DISPATCH", t_wg_size_wrap);
	env_destroy(E);
	return h_summary();
}
