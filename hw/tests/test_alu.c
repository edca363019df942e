// SPDX-License-Identifier: MIT
/*
 * Every integer ALU instruction, conversion, load and store on every type
 * and SIMD width, run on the model and checked against a C reference
 * written independently of the ISA table.  Edge values: 0, +-1, INT_MIN,
 * INT_MAX and all ones of every width, shift counts at and beyond the
 * width, signalling and negative NaNs (mov and sel also take the float
 * types: bit patterns).  Global sizes are not multiples of the local size,
 * which is not a multiple of the SIMD width, so partial groups and
 * sub-groups run too; slots past the end must stay untouched.  Every
 * register form runs again inside a divergent if: inactive lanes keep
 * their destination.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "harness.h"
#include "modelenv.h"

static struct env *E;
static uint64_t args_va, in_va[3], out_va;
static uint64_t *args, *in[3], *out;

#define NV 27
static const uint64_t edge[NV] = {
	0, 1, 2, 0xffffffffffffffffull, 0x7fffffff, 0x80000000, 0xffffffff, 31, 32, 33,
	63, 64, 65, 0x7fffffffffffffffull, 0x8000000000000000ull, 0x123456789abcdef1ull,
	7, 8, 15, 16, 0x7f, 0x80, 0x7fff, 0x8000, 0xffff7c01, 0x7f800001, 0x7ff0000000000001ull,
};
#define N (NV * NV + 7)		/* pairs of edge values plus a few random */

/* The integer types, then the float types (mov and sel only). */
static const char *types[] = { "u32", "s32", "u64", "s64", "u8", "s8", "u16", "s16",
			       "f16", "f32", "f64" };

static unsigned tbits(const char *t)
{
	return (unsigned)atoi(t + 1);
}

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

/* Reference semantics. @s: signed type; values are truncated to @w bits. */
static uint64_t ref(const char *op, unsigned w, int s, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t m = w == 64 ? ~0ull : (1ull << w) - 1;
	int64_t sa = (int64_t)sx(a, w), sb = (int64_t)sx(b, w);
	uint64_t ua = a & m, ub = b & m, cnt = b & (w - 1);
	uint64_t smin = 1ull << (w - 1);

	if (!strcmp(op, "mov")) return ub;
	if (!strcmp(op, "add")) return (ua + ub) & m;
	if (!strcmp(op, "sub")) return (ua - ub) & m;
	if (!strcmp(op, "mul")) return (ua * ub) & m;
	if (!strcmp(op, "mad")) return (ua * ub + c) & m;
	if (!strcmp(op, "mul_hi")) {
		if (w <= 32)
			return (s ? (uint64_t)((sa * sb) >> w) : (ua * ub) >> w) & m;
		return s ? (uint64_t)(((__int128)sa * sb) >> 64) : (uint64_t)(((unsigned __int128)ua * ub) >> 64);
	}
	if (!strcmp(op, "div")) {
		if (!ub) return m;
		if (s) return (ua == smin && ub == m) ? smin : (uint64_t)(sa / sb) & m;
		return ua / ub;
	}
	if (!strcmp(op, "rem")) {
		if (!ub) return ua;
		if (s) return (ua == smin && ub == m) ? 0 : (uint64_t)(sa % sb) & m;
		return ua % ub;
	}
	if (!strcmp(op, "add_sat")) {
		if (!s) return ua + ub > m || ua + ub < ua ? m : ua + ub;
		__int128 r = (__int128)sa + sb;
		__int128 mx = ((__int128)1 << (w - 1)) - 1;
		__int128 mn = -((__int128)1 << (w - 1));
		return (uint64_t)(r > mx ? mx : r < mn ? mn : r) & m;
	}
	if (!strcmp(op, "sub_sat")) {
		if (!s) return ua > ub ? ua - ub : 0;
		__int128 r = (__int128)sa - sb;
		__int128 mx = ((__int128)1 << (w - 1)) - 1;
		__int128 mn = -((__int128)1 << (w - 1));
		return (uint64_t)(r > mx ? mx : r < mn ? mn : r) & m;
	}
	if (!strcmp(op, "hadd") || !strcmp(op, "rhadd")) {
		int r = op[0] == 'r';
		__int128 x = s ? (__int128)sa + sb + r : (__int128)((unsigned __int128)ua + ub + r);
		/* floor division by 2 */
		__int128 h = x >= 0 ? x / 2 : -((-x + 1) / 2);
		return (uint64_t)h & m;
	}
	if (!strcmp(op, "abs_diff")) {
		if (s) {
			__int128 d = (__int128)sa - sb;
			return (uint64_t)(d < 0 ? -d : d) & m;
		}
		return ua > ub ? ua - ub : ub - ua;
	}
	if (!strcmp(op, "rotl")) return cnt ? ((ua << cnt) | (ua >> (w - cnt))) & m : ua;
	if (!strcmp(op, "rotr")) return cnt ? ((ua >> cnt) | (ua << (w - cnt))) & m : ua;
	if (!strcmp(op, "brev")) {
		uint64_t r = 0;

		for (unsigned i = 0; i < w; i++)
			if ((ua >> i) & 1)
				r |= 1ull << (w - 1 - i);
		return r;
	}
	if (!strcmp(op, "bfe")) {
		unsigned o = b & (w - 1), n = (uint32_t)c;
		uint64_t r;

		if (n > w - o)
			n = w - o;
		if (!n)
			return 0;
		r = ua >> o;
		if (n < 64)
			r &= (1ull << n) - 1;
		return s ? sx(r, n) & m : r;
	}
	if (!strcmp(op, "and")) return ua & ub;
	if (!strcmp(op, "or")) return ua | ub;
	if (!strcmp(op, "xor")) return ua ^ ub;
	if (!strcmp(op, "not")) return ~ua & m;
	if (!strcmp(op, "neg")) return (0 - ua) & m;
	if (!strcmp(op, "abs")) return s && sa < 0 ? (0 - ua) & m : ua;
	if (!strcmp(op, "shl")) return (ua << cnt) & m;
	if (!strcmp(op, "shr")) return ua >> cnt;
	if (!strcmp(op, "sar")) return (uint64_t)(sa >> cnt) & m;
	if (!strcmp(op, "popc")) return __builtin_popcountll(ua);
	if (!strcmp(op, "clz")) return ua ? (uint64_t)__builtin_clzll(ua) - (64 - w) : w;
	if (!strcmp(op, "ctz")) return ua ? (uint64_t)__builtin_ctzll(ua) : w;
	if (!strcmp(op, "min")) return s ? (sa < sb ? ua : ub) : (ua < ub ? ua : ub);
	if (!strcmp(op, "max")) return s ? (sa > sb ? ua : ub) : (ua > ub ? ua : ub);
	if (!strcmp(op, "set.eq")) return ua == ub ? 0xffffffff : 0;
	if (!strcmp(op, "set.ne")) return ua != ub ? 0xffffffff : 0;
	if (!strcmp(op, "set.lt")) return (s ? sa < sb : ua < ub) ? 0xffffffff : 0;
	if (!strcmp(op, "set.le")) return (s ? sa <= sb : ua <= ub) ? 0xffffffff : 0;
	if (!strcmp(op, "set.gt")) return (s ? sa > sb : ua > ub) ? 0xffffffff : 0;
	if (!strcmp(op, "set.ge")) return (s ? sa >= sb : ua >= ub) ? 0xffffffff : 0;
	if (!strcmp(op, "sel")) return (c & 0xffffffff) ? ua : ub;
	abort();
}

struct opdesc {
	const char *name;
	int nsrc;		/* 1: a (or b for mov), 2: a, b|imm, 3: a, b, c */
	int shift;		/* 1: b is a u32 shift count; 2: b and c are u32 (bfe) */
	int cmp;		/* result is u32 */
	int flt;		/* also on f16 / f32 / f64 (bit patterns) */
};

static const struct opdesc ops[] = {
	{ "mov", 1, 0, 0, 1 }, { "add", 2 }, { "sub", 2 }, { "mul", 2 }, { "mul_hi", 2 }, { "div", 2 },
	{ "rem", 2 }, { "mad", 3 }, { "add_sat", 2 }, { "sub_sat", 2 }, { "hadd", 2 },
	{ "rhadd", 2 }, { "abs_diff", 2 }, { "rotl", 2, 1 }, { "rotr", 2, 1 }, { "brev", 1 },
	{ "bfe", 3, 2 }, { "and", 2 }, { "or", 2 }, { "xor", 2 }, { "not", 1 },
	{ "neg", 1 }, { "abs", 1 }, { "shl", 2, 1 }, { "shr", 2, 1 }, { "sar", 2, 1 },
	{ "popc", 1 }, { "clz", 1 }, { "ctz", 1 }, { "min", 2 }, { "max", 2 },
	{ "set.eq", 2, 0, 1 }, { "set.ne", 2, 0, 1 }, { "set.lt", 2, 0, 1 },
	{ "set.le", 2, 0, 1 }, { "set.gt", 2, 0, 1 }, { "set.ge", 2, 0, 1 }, { "sel", 3, 0, 0, 1 },
};

#define SENTINEL 0x5a5a5a5a5a5a5a5aull
/* Items whose lanes run the instruction when it is inside the if (masked). */
#define ACTIVE(i) (((i) & 5) != 0)
#define MASK_IF "\ts2r.u32 r40, sr.global_id.x\n\tand.u32 r41, r40, 5\n\tif r41, x\n"
#define MASK_ENDIF "x:\tendif\n"

/* The instruction under test of the last build(). */
static char opline[128];

/* Builds the kernel: loads a, b, c (8-byte slots) for global_id.x, OP, store. */
/* imm: 0 register b, 1 a 32-bit immediate, 2 a 64-bit value (a literal word). */
/* masked: OP runs in an if that leaves the items !ACTIVE inactive. */
static uint64_t build(const struct opdesc *o, const char *t, int imm, long long immv, int masked)
{
	char immtext[32];

	char src[2048];
	int w64 = t[1] == '6';
	const char *ld = w64 ? "u64" : "u32";
	const char *st = (w64 && !o->cmp) ? "u64" : "u32";

	if (imm == 2)
		snprintf(immtext, sizeof(immtext), "0x%016llx", (unsigned long long)immv);
	else
		snprintf(immtext, sizeof(immtext), "%lld", immv);
	if (!strcmp(o->name, "mov"))
		snprintf(opline, sizeof(opline), imm ? "mov.%s r24, %s" : "mov.%s r24, r22", t, immtext);
	else if (o->nsrc == 1)
		snprintf(opline, sizeof(opline), "%s.%s r24, r20", o->name, t);
	else if (o->nsrc == 3)
		snprintf(opline, sizeof(opline), "%s.%s r24, r20, r22, r26", o->name, t);
	else if (imm)
		snprintf(opline, sizeof(opline), "%s.%s r24, r20, %s", o->name, t, immtext);
	else
		snprintf(opline, sizeof(opline), "%s.%s r24, r20, r22", o->name, t);
	snprintf(src, sizeof(src),
		 "\ts2r.u64 r0, sr.args\n"
		 "\tld.global.u64 r2, [r0+0]\n"
		 "\tld.global.u64 r4, [r0+8]\n"
		 "\tld.global.u64 r6, [r0+16]\n"
		 "\tld.global.u64 r8, [r0+24]\n"
		 "\ts2r.u64 r10, sr.global_id.x\n"
		 "\tshl.u64 r10, r10, 3\n"
		 "\tadd.u64 r12, r2, r10\n"
		 "\tadd.u64 r14, r4, r10\n"
		 "\tadd.u64 r16, r6, r10\n"
		 "\tadd.u64 r18, r8, r10\n"
		 "\tld.global.%s r20, [r12+0]\n"
		 "\tld.global.%s r22, [r14+0]\n"
		 "\tld.global.%s r26, [r18+0]\n"
		 "\tmov.u64 r24, 0x%016llx\n"
		 "%s"
		 "\t%s\n"
		 "%s"
		 "\tst.global.%s [r16+0], r24\n"
		 "\tend\n", ld, o->shift ? "u32" : ld,
		 o->cmp || o->shift == 2 || !strcmp(o->name, "sel") ? "u32" : ld,
		 masked ? SENTINEL : 0,
		 masked ? MASK_IF : "", opline, masked ? MASK_ENDIF : "", st);
	return env_code(E, src);
}

static void fill_inputs(void)
{
	uint64_t r = 0x243f6a8885a308d3ull;

	for (int i = 0; i < N; i++) {
		if (i < NV * NV) {
			in[0][i] = edge[i / NV];
			in[1][i] = edge[i % NV];
		} else {
			r = r * 6364136223846793005ull + 1442695040888963407ull;
			in[0][i] = r;
			r = r * 6364136223846793005ull + 1442695040888963407ull;
			in[1][i] = r;
		}
		in[2][i] = (i % 3) ? edge[(i * 7) % NV] : 0;
	}
}

static int run_one(const struct opdesc *o, const char *t, int imm, long long immv,
		   unsigned simd, unsigned local, int masked)
{
	unsigned w = tbits(t);
	int s = t[0] == 's', f = t[0] == 'f';
	uint64_t code = build(o, t, imm, immv, masked);
	struct env_dispatch d = { code, args_va, simd, { N, 1, 1 }, { local, 1, 1 } };
	uint32_t err;

	if (!code)
		return -1;
	memset(out, 0xa5, (N + 16) * 8);
	err = env_dispatch(E, 0, &d);
	if (err) {
		CHECK(0, "%s.%s simd %u: queue error %u", o->name, t, simd, err);
		env_reset_queue(E, 0);
		return -1;
	}
	for (int i = 0; i < N; i++) {
		uint64_t a = in[0][i], b = in[1][i], c = in[2][i], want, got;
		unsigned ow = o->cmp ? 32 : w;

		if (imm == 2)	/* a 64-bit value */
			b = (uint64_t)immv;
		else if (imm && f && w == 64)	/* f64: imm32 is the high half */
			b = zx((uint64_t)immv, 32) << 32;
		else if (imm)	/* the immediate, extended by the operand's type */
			b = o->shift ? (uint32_t)immv : s ? sx((uint64_t)immv, 32) : zx((uint64_t)immv, 32);
		if (o->shift)
			b &= 0xffffffff;
		want = ref(o->name, w, s, a, b, c);
		/* 8/16-bit results are zero- or sign-extended in their register. */
		if (!o->cmp && w < 32 && s)
			want = sx(want, w);
		if (masked && !ACTIVE(i))
			want = SENTINEL;
		/* A 32-bit store leaves the upper half of the slot untouched. */
		got = ow == 64 ? out[i] : out[i] & 0xffffffff;
		want = ow == 64 ? want : want & 0xffffffff;
		if (got != want) {
			CHECK(0, "%s.%s%s%s simd %u item %d: a=0x%llx b=0x%llx c=0x%llx got 0x%llx want 0x%llx",
			      o->name, t, imm ? " imm" : "", masked ? " masked" : "", simd, i, (unsigned long long)a,
			      (unsigned long long)b, (unsigned long long)c, (unsigned long long)got,
			      (unsigned long long)want);
			return -1;
		}
	}
	for (int i = N; i < N + 16; i++)
		CHECK(out[i] == 0xa5a5a5a5a5a5a5a5ull, "%s.%s: store past the end", o->name, t);
	cov_checked(opline, simd);
	return 0;
}

static const struct opdesc *cur_op;

static void t_op(void)
{
	static const long long imms[] = { 0, 1, -1, 31, 32, 33, 63, 64, 0x7fffffff, -0x80000000ll,
					   0xffffffffll };
	static const unsigned simds[] = { 8, 16, 32 }, locals[] = { 13, 64, 100 };
	static const uint64_t wide[] = { 0x123456789abcdef0ull, 0xffffffff00000000ull,
					 0x00000000ffffffffull, 0x8000000000000000ull,
					 0xffffffffffffffffull, 0x7fffffffffffffffull, 5 };

	for (int ti = 0; ti < (cur_op->flt ? 11 : 8); ti++) {
		for (int si = 0; si < 6; si++)
			if (run_one(cur_op, types[ti], 0, 0, simds[si % 3], locals[si % 3], si >= 3))
				break;
		if (cur_op->nsrc == 2 || !strcmp(cur_op->name, "mov"))
			for (unsigned k = 0; k < sizeof(imms) / sizeof(imms[0]); k++)
				if (run_one(cur_op, types[ti], 1, imms[k], 16, 48, 0))
					break;
		/* 64-bit values: imm32 when it can express them, else a literal word. */
		if ((cur_op->nsrc == 2 || !strcmp(cur_op->name, "mov")) && !cur_op->shift &&
		    types[ti][1] == '6')
			for (unsigned k = 0; k < sizeof(wide) / sizeof(wide[0]); k++)
				if (run_one(cur_op, types[ti], 2, (long long)wide[k], 8 << (k % 3), 40, 0))
					break;
	}
}

static const char *itypes[] = { "u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64" };
static const unsigned ibits[] = { 8, 8, 16, 16, 32, 32, 64, 64 };

static void t_cvt(void)
{
	for (int dt = 0; dt < 8; dt++)
	for (int st = 0; st < 8; st++)
	for (unsigned simd = 8; simd <= 32; simd *= 2)
	for (int masked = 0; masked < 2; masked++) {
		char src[1024];
		uint64_t code, preset = masked ? SENTINEL : 0;
		struct env_dispatch d;
		int ok = 1;

		snprintf(src, sizeof(src),
			 "\ts2r.u64 r0, sr.args\n"
			 "\tld.global.u64 r2, [r0+0]\n"
			 "\tld.global.u64 r6, [r0+16]\n"
			 "\ts2r.u32 r10, sr.global_id.x\n"
			 "\tcvt.u64.u32 r10, r10\n"
			 "\tshl.u64 r10, r10, 3\n"
			 "\tadd.u64 r12, r2, r10\n"
			 "\tadd.u64 r16, r6, r10\n"
			 "\tld.global.u64 r20, [r12+0]\n"
			 "\tmov.u64 r24, 0x%016llx\n"
			 "%s"
			 "\tcvt.%s.%s r24, r20\n"
			 "%s"
			 "\tst.global.u64 [r16+0], r24\n"
			 "\tend\n", (unsigned long long)preset, masked ? MASK_IF : "", itypes[dt], itypes[st],
			 masked ? MASK_ENDIF : "");
		code = env_code(E, src);
		d = (struct env_dispatch){ code, args_va, simd, { N, 1, 1 }, { 37, 1, 1 } };
		CHECK_EQ(env_dispatch(E, 0, &d), 0);
		for (int i = 0; i < N; i++) {
			uint64_t a = in[0][i];
			uint64_t v = itypes[st][0] == 's' ? sx(a, ibits[st]) : zx(a, ibits[st]);
			uint64_t want;

			if (ibits[dt] == 64)
				want = v;
			else if (ibits[dt] == 32)
				want = zx(v, 32);
			else
				want = zx(itypes[dt][0] == 's' ? sx(v, ibits[dt]) : zx(v, ibits[dt]), 32);
			if (ibits[dt] < 64)	/* the high register keeps its value */
				want |= preset & ~0xffffffffull;
			if (masked && !ACTIVE(i))
				want = SENTINEL;
			if (out[i] != want) {
				CHECK(0, "cvt.%s.%s simd %u%s 0x%llx: got 0x%llx want 0x%llx", itypes[dt],
				      itypes[st], simd, masked ? " masked" : "", (unsigned long long)a,
				      (unsigned long long)out[i],
				      (unsigned long long)want);
				ok = 0;
				break;
			}
		}
		if (ok) {
			snprintf(src, sizeof(src), "cvt.%s.%s r24, r20", itypes[dt], itypes[st]);
			cov_checked(src, simd);
		}
	}
}

static void t_ld_st(void)
{
	/* Every width, signed loads, unaligned and page-crossing addresses, negative offsets. */
	static const char *lt[] = { "u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64" };
	uint8_t *buf;
	uint64_t buf_va = env_buf(E, 3 * 4096, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&buf);

	for (int k = 0; k < 8; k++)
	for (unsigned simd = 8; simd <= 32; simd *= 2) {
		char src[1024];
		unsigned sz = ibits[k] / 8;
		struct env_dispatch d;
		uint64_t code;

		for (int i = 0; i < 3 * 4096; i++)
			buf[i] = (uint8_t)(i * 37 + 11);
		/* item i loads at base + 4093 - 64 + i*3 + 64 - 8 (the +imm is negative) */
		snprintf(src, sizeof(src),
			 "\ts2r.u64 r0, sr.args\n"
			 "\tld.global.u64 r2, [r0+32]\n"
			 "\ts2r.u32 r10, sr.global_id.x\n"
			 "\tmul.u32 r10, r10, 3\n"
			 "\tcvt.u64.u32 r10, r10\n"
			 "\tadd.u64 r12, r2, r10\n"
			 "\tld.global.%s r20, [r12-8]\n"
			 "\tst.global.%s [r12+4088], r20\n"
			 "\tend\n", lt[k], lt[k]);
		code = env_code(E, src);
		args[4] = buf_va + 4093 - 64 + 8;
		d = (struct env_dispatch){ code, args_va, simd, { 40, 1, 1 }, { 40, 1, 1 } };
		{
			uint8_t ref[3 * 4096];

			memcpy(ref, buf, sizeof(ref));
			for (int i = 0; i < 40; i++) {
				uint64_t src_off = 4093 - 64 + i * 3, dst_off = src_off + 4096;

				/* Work-items run in order within a sub-group lane loop; the
				 * stores never overlap the loads (4 KiB apart). */
				memcpy(ref + dst_off, ref + src_off, sz);
			}
			CHECK_EQ(env_dispatch(E, 1, &d), 0);
			for (int i = 0; i < 3 * 4096; i++)
				if (buf[i] != ref[i]) {
					CHECK(0, "%s: byte %d got 0x%x want 0x%x", lt[k], i, buf[i], ref[i]);
					break;
				}
		}
		/* Loaded values are zero- or sign-extended by type. */
		snprintf(src, sizeof(src),
			 "\ts2r.u64 r0, sr.args\n"
			 "\tld.global.u64 r2, [r0+32]\n"
			 "\tld.global.u64 r6, [r0+16]\n"
			 "\tmov.u32 r21, 0x55555555\n"
			 "\tld.global.%s r20, [r2+0]\n"
			 "\tst.global.u64 [r6+0], r20\n"
			 "\tend\n", lt[k]);
		code = env_code(E, src);
		memset(buf, 0x80, 16);
		args[4] = buf_va;
		d = (struct env_dispatch){ code, args_va, simd, { 1, 1, 1 }, { 1, 1, 1 } };
		CHECK_EQ(env_dispatch(E, 1, &d), 0);
		{
			uint64_t raw = 0x8080808080808080ull, want;

			if (ibits[k] == 64)
				want = raw;
			else
				want = 0x5555555500000000ull |
				       zx(lt[k][0] == 's' ? sx(raw, ibits[k]) : zx(raw, ibits[k]), 32);
			CHECK(out[0] == want, "ld.global.%s extension: got 0x%llx want 0x%llx", lt[k],
			      (unsigned long long)out[0], (unsigned long long)want);
		}
		if (!h_failed()) {
			snprintf(src, sizeof(src), "ld.global.%s r20, [r2+0]\nst.global.%s [r2+0], r20\n",
				 lt[k], lt[k]);
			cov_checked(src, simd);
		}
	}
}

static void t_block_uniform(void)
{
	/* out[i] = in[i] (u32 and u64, unit stride), plus a uniform load and a
	 * uniform store (the last lane in order wins), with bases that make some
	 * sub-groups cross a page (the per-lane path). */
	static const char *tys[] = { "u32", "u64" };
	uint8_t *src, *dst;
	uint64_t src_va = env_buf(E, 3 * 4096, WEFT_PTE_VALID, (void **)&src);
	uint64_t dst_va = env_buf(E, 3 * 4096, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&dst);

	for (int k = 0; k < 2; k++)
	for (unsigned simd = 8; simd <= 32; simd *= 2)
	for (unsigned shift = 0; shift < 2; shift++) {
		unsigned sz = 4 << k, n = 500;
		uint64_t sbase = src_va + (shift ? 4096 - 3 * sz : 0);
		uint64_t dbase = dst_va + (shift ? 4096 - 5 * sz : 0);
		char text[1024];
		uint64_t code;
		struct env_dispatch d;

		for (int i = 0; i < 3 * 4096; i++)
			src[i] = (uint8_t)(i * 7 + 3);
		memset(dst, 0, 3 * 4096);
		args[5] = sbase;
		args[6] = dbase;
		snprintf(text, sizeof(text),
			 "\ts2r.u64 r0, sr.args\n"
			 "\tld.global.u64 r2, [r0+40]\n"
			 "\tld.global.u64 r4, [r0+48]\n"
			 "\ts2r.u64 r6, sr.global_id.x\n"
			 "\tshl.u64 r6, r6, %u\n"
			 "\tadd.u64 r8, r2, r6\n"
			 "\tadd.u64 r10, r4, r6\n"
			 "\tld.global.%s r12, [r8+0]\n"
			 "\tst.global.%s [r10+0], r12\n"
			 "\tld.global.u32 r14, [r2+4]\n"		/* uniform */
			 "\ts2r.u32 r15, sr.global_id.x\n"
			 "\tadd.u32 r14, r14, r15\n"
			 "\tst.global.u32 [r4+8192], r14\n"		/* uniform store */
			 "\tend\n", k ? 3 : 2, tys[k], tys[k]);
		code = env_code(E, text);
		d = (struct env_dispatch){ code, args_va, simd, { n, 1, 1 }, { 100, 1, 1 } };
		CHECK_EQ(env_dispatch(E, 1, &d), 0);
		{
			uint8_t *s0 = src + (sbase - src_va), *d0 = dst + (dbase - dst_va);
			uint32_t u, last;

			CHECK(!memcmp(s0, d0, n * sz), "%s simd %u shift %u: block copy differs", tys[k],
			      simd, shift);
			memcpy(&u, s0 + 4, 4);
			memcpy(&last, d0 + 8192, 4);
			/* Groups run in any order; within a group the last lane wins. */
			CHECK((last - u) % 100 == 99, "%s simd %u: uniform store got %u", tys[k], simd,
			      last - u);
		}
	}
}

static void t_inactive_lanes(void)
{
	/* A store to an unmapped address from lanes that do not exist is never made. */
	uint64_t code = env_code(E,
		"\ts2r.u64 r0, sr.args\n"
		"\tld.global.u64 r2, [r0+16]\n"
		"\ts2r.u32 r4, sr.local_linear_id\n"
		"\tcvt.u64.u32 r6, r4\n"
		"\tshl.u64 r6, r6, 3\n"
		"\tadd.u64 r6, r2, r6\n"
		"\tst.global.u32 [r6+0], r4\n"
		"\tend\n");
	uint64_t *small;
	uint64_t small_va = env_buf(E, 4096, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&small);
	/* 5 items in a page of 512 slots: the last slot is at the end of the mapping. */
	uint64_t save = args[2];
	struct env_dispatch d = { code, args_va, 32, { 5, 1, 1 }, { 5, 1, 1 } };

	args[2] = small_va + 4096 - 5 * 8;
	CHECK_EQ(env_dispatch(E, 2, &d), 0);
	for (int i = 0; i < 5; i++)
		CHECK_EQ(small[512 - 5 + i] & 0xffffffff, i);
	args[2] = save;
}

int main(void)
{
	char name[64];

	E = env_create(0, 0);
	if (env_ready(E) != WEFT_DEVICE_RUNNING)
		return 1;
	args_va = env_buf(E, 4096, WEFT_PTE_VALID, (void **)&args);
	for (int i = 0; i < 3; i++)
		in_va[i] = env_buf(E, N * 8, WEFT_PTE_VALID, (void **)&in[i]);
	out_va = env_buf(E, (N + 16) * 8, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&out);
	args[0] = in_va[0];
	args[1] = in_va[1];
	args[2] = out_va;
	args[3] = in_va[2];
	fill_inputs();
	for (unsigned i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		cur_op = &ops[i];
		snprintf(name, sizeof(name), "alu: %s.{u8..s64} simd 8/16/32%s", ops[i].name,
			 ops[i].nsrc == 2 || i == 0 ? " reg+imm+lit" : "");
		h_run(name, t_op);
	}
	h_run("alu: cvt, all 64 integer type pairs", t_cvt);
	h_run("mem: ld/st.global every type, unaligned, page-crossing, negative offsets", t_ld_st);
	h_run("exec: inactive lanes of a partial sub-group do not store", t_inactive_lanes);
	h_run("mem: unit-stride block, uniform load, uniform store, page-crossing sub-groups",
	      t_block_uniform);
	env_destroy(E);
	return h_summary();
}
