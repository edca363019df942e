/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the per-lane semantics strings of weft_isa.py that are not
 * plain C expressions (weft_<op>_<type>).  Every function is total: it has a
 * defined result for every input, like the hardware.
 */
#ifndef WEFT_ISA_HELPERS_H
#define WEFT_ISA_HELPERS_H

#include <stdint.h>

#define WEFT_HELPERS_SIGNED(T, S, U, W, MIN) \
static inline S weft_div_##T(S a, S b) \
{ return b == 0 ? (S)-1 : (a == MIN && b == -1) ? MIN : a / b; } \
static inline S weft_rem_##T(S a, S b) \
{ return b == 0 ? a : (a == MIN && b == -1) ? 0 : a % b; } \
static inline S weft_abs_##T(S a) \
{ return a < 0 ? (S)(0 - (U)a) : a; }

#define WEFT_HELPERS_SAT_SIGNED(T, S, MIN, MAX) \
static inline S weft_addsat_##T(S a, S b) \
{ S r; return __builtin_add_overflow(a, b, &r) ? (a < 0 ? MIN : MAX) : r; } \
static inline S weft_subsat_##T(S a, S b) \
{ S r; return __builtin_sub_overflow(a, b, &r) ? (a < 0 ? MIN : MAX) : r; }

#define WEFT_HELPERS_SAT_UNSIGNED(T, U) \
static inline U weft_addsat_##T(U a, U b) { U r = a + b; return r < a ? (U)~(U)0 : r; } \
static inline U weft_subsat_##T(U a, U b) { return a > b ? a - b : 0; }

/* Bit reverse and bit-field extract, on the unsigned bits U of type X. */
#define WEFT_HELPERS_BITFIELD(T, X, U, W, SGN) \
static inline X weft_brev_##T(X a) \
{ \
	U v = (U)a, r = 0; \
	for (int i = 0; i < W; i++, v >>= 1) \
		r = (U)(r << 1) | (v & 1); \
	return (X)r; \
} \
static inline X weft_bfe_##T(X a, uint32_t off, uint32_t cnt) \
{ \
	unsigned o = off & (W - 1), n = cnt < W - o ? cnt : W - o; \
	U v; \
	if (!n) \
		return 0; \
	v = (U)((U)a >> o); \
	if (n < W) { \
		v &= ((U)1 << n) - 1; \
		if (SGN && (v >> (n - 1)) & 1) \
			v |= ~(((U)1 << n) - 1); \
	} \
	return (X)v; \
}

#define WEFT_HELPERS_UNSIGNED(T, U) \
static inline U weft_div_##T(U a, U b) { return b == 0 ? (U)~(U)0 : a / b; } \
static inline U weft_rem_##T(U a, U b) { return b == 0 ? a : a % b; } \
static inline U weft_abs_##T(U a) { return a; }

#define WEFT_HELPERS_BITS(T, X, U, W, BUILTIN) \
static inline X weft_popc_##T(X a) { return (X)__builtin_popcount##BUILTIN((U)a); } \
static inline X weft_clz_##T(X a) { return (U)a ? (X)__builtin_clz##BUILTIN((U)a) : (X)W; } \
static inline X weft_ctz_##T(X a) { return (U)a ? (X)__builtin_ctz##BUILTIN((U)a) : (X)W; }

WEFT_HELPERS_SIGNED(s32, int32_t, uint32_t, 32, INT32_MIN)
WEFT_HELPERS_SIGNED(s64, int64_t, uint64_t, 64, INT64_MIN)
WEFT_HELPERS_UNSIGNED(u32, uint32_t)
WEFT_HELPERS_UNSIGNED(u64, uint64_t)
WEFT_HELPERS_SAT_SIGNED(s32, int32_t, INT32_MIN, INT32_MAX)
WEFT_HELPERS_SAT_SIGNED(s64, int64_t, INT64_MIN, INT64_MAX)
WEFT_HELPERS_SAT_UNSIGNED(u32, uint32_t)
WEFT_HELPERS_SAT_UNSIGNED(u64, uint64_t)
WEFT_HELPERS_BITFIELD(u32, uint32_t, uint32_t, 32, 0)
WEFT_HELPERS_BITFIELD(s32, int32_t, uint32_t, 32, 1)
WEFT_HELPERS_BITFIELD(u64, uint64_t, uint64_t, 64, 0)
WEFT_HELPERS_BITFIELD(s64, int64_t, uint64_t, 64, 1)
WEFT_HELPERS_BITS(u32, uint32_t, uint32_t, 32, )
WEFT_HELPERS_BITS(s32, int32_t, uint32_t, 32, )
WEFT_HELPERS_BITS(u64, uint64_t, uint64_t, 64, ll)
WEFT_HELPERS_BITS(s64, int64_t, uint64_t, 64, ll)

static inline uint32_t weft_mulhi_u32(uint32_t a, uint32_t b)
{ return (uint32_t)(((uint64_t)a * b) >> 32); }
static inline int32_t weft_mulhi_s32(int32_t a, int32_t b)
{ return (int32_t)(uint32_t)((uint64_t)((int64_t)a * b) >> 32); }
static inline uint64_t weft_mulhi_u64(uint64_t a, uint64_t b)
{ return (uint64_t)(((unsigned __int128)a * b) >> 64); }
static inline int64_t weft_mulhi_s64(int64_t a, int64_t b)
{ return (int64_t)(uint64_t)((unsigned __int128)((__int128)a * b) >> 64); }

#endif
