/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the per-lane semantics strings of weft_isa.py that are not
 * plain C expressions (weft_<op>_<type>).  Every function is total: it has a
 * defined result for every input, like the hardware.
 */
#ifndef WEFT_ISA_HELPERS_H
#define WEFT_ISA_HELPERS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

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

WEFT_HELPERS_SIGNED(s8, int8_t, uint8_t, 8, INT8_MIN)
WEFT_HELPERS_SIGNED(s16, int16_t, uint16_t, 16, INT16_MIN)
WEFT_HELPERS_UNSIGNED(u8, uint8_t)
WEFT_HELPERS_UNSIGNED(u16, uint16_t)
WEFT_HELPERS_SAT_SIGNED(s8, int8_t, INT8_MIN, INT8_MAX)
WEFT_HELPERS_SAT_SIGNED(s16, int16_t, INT16_MIN, INT16_MAX)
WEFT_HELPERS_SAT_UNSIGNED(u8, uint8_t)
WEFT_HELPERS_SAT_UNSIGNED(u16, uint16_t)
WEFT_HELPERS_BITFIELD(u8, uint8_t, uint8_t, 8, 0)
WEFT_HELPERS_BITFIELD(s8, int8_t, uint8_t, 8, 1)
WEFT_HELPERS_BITFIELD(u16, uint16_t, uint16_t, 16, 0)
WEFT_HELPERS_BITFIELD(s16, int16_t, uint16_t, 16, 1)

/* 8/16-bit bit counts: on the zero-extended value. */
#define WEFT_HELPERS_BITS_SMALL(T, X, U, W) \
static inline X weft_popc_##T(X a) { return (X)__builtin_popcount((U)a); } \
static inline X weft_clz_##T(X a) { return (U)a ? (X)(__builtin_clz((U)a) - (32 - W)) : (X)W; } \
static inline X weft_ctz_##T(X a) { return (U)a ? (X)__builtin_ctz((U)a) : (X)W; }
WEFT_HELPERS_BITS_SMALL(u8, uint8_t, uint8_t, 8)
WEFT_HELPERS_BITS_SMALL(s8, int8_t, uint8_t, 8)
WEFT_HELPERS_BITS_SMALL(u16, uint16_t, uint16_t, 16)
WEFT_HELPERS_BITS_SMALL(s16, int16_t, uint16_t, 16)

static inline uint8_t weft_mulhi_u8(uint8_t a, uint8_t b) { return (uint8_t)((unsigned)a * b >> 8); }
static inline int8_t weft_mulhi_s8(int8_t a, int8_t b) { return (int8_t)((int)a * b >> 8); }
static inline uint16_t weft_mulhi_u16(uint16_t a, uint16_t b)
{ return (uint16_t)((uint32_t)a * b >> 16); }
static inline int16_t weft_mulhi_s16(int16_t a, int16_t b) { return (int16_t)((int32_t)a * b >> 16); }

static inline uint32_t weft_mulhi_u32(uint32_t a, uint32_t b)
{ return (uint32_t)(((uint64_t)a * b) >> 32); }
static inline int32_t weft_mulhi_s32(int32_t a, int32_t b)
{ return (int32_t)(uint32_t)((uint64_t)((int64_t)a * b) >> 32); }
static inline uint64_t weft_mulhi_u64(uint64_t a, uint64_t b)
{ return (uint64_t)(((unsigned __int128)a * b) >> 64); }
static inline int64_t weft_mulhi_s64(int64_t a, int64_t b)
{ return (int64_t)(uint64_t)((unsigned __int128)((__int128)a * b) >> 64); }

/*
 * Floats.  Registers hold IEEE bit patterns: f16 in the low 16 bits of a
 * register (the high 16 bits written as 0), f32 in a register, f64 in a pair.
 * Denormals are kept (no flush to zero).
 */
static inline _Float16 weft_f16_from_bits(uint32_t v)
{ uint16_t h = (uint16_t)v; _Float16 f; memcpy(&f, &h, 2); return f; }
static inline float weft_f32_from_bits(uint32_t v) { float f; memcpy(&f, &v, 4); return f; }
static inline double weft_f64_from_bits(uint64_t v) { double f; memcpy(&f, &v, 8); return f; }
static inline uint32_t weft_bits_f16(_Float16 f) { uint16_t h; memcpy(&h, &f, 2); return h; }
static inline uint32_t weft_bits_f32(float f) { uint32_t v; memcpy(&v, &f, 4); return v; }
static inline uint64_t weft_bits_f64(double f) { uint64_t v; memcpy(&v, &f, 8); return v; }

/*
 * The bits of an arithmetic result: a NaN is the type's default NaN,
 * whatever NaN the host made (execution.rst, "Floats").  Which operand's
 * payload an SSE/AVX instruction passes on depends on the operand order
 * the C compiler or LLVM picked, which differs between SIMD widths; one
 * NaN leaves the interpreter and the translator nothing to disagree on.
 */
#define WEFT_NAN_F16 0x7e00u
#define WEFT_NAN_F32 0x7fc00000u
#define WEFT_NAN_F64 0x7ff8000000000000ull
/*
 * Without a branch or a compare: a NaN's magnitude bits exceed infinity's,
 * so infinity minus them wraps and sets the top bit.  A branch per lane
 * would give the ALU handlers so many basic blocks that GCC's PRE (which
 * skips functions of 4000 or more) no longer hoists their loop invariants,
 * and SSE2 has no 64-bit compare (bench/VECTORIZATION.md).
 */
#define WEFT_RESULT_FLOAT(T, F, U, MAGNITUDE, INF, DEFAULT_NAN) \
static inline U weft_result_##T(F f) \
{ \
	U v = weft_bits_##T(f); \
	U nan = (U)0 - ((U)(INF - (v & MAGNITUDE)) >> (sizeof(U) * 8 - 1)); \
	return (v & ~nan) | (DEFAULT_NAN & nan); \
}
WEFT_RESULT_FLOAT(f16, _Float16, uint32_t, 0x7fffu, 0x7c00u, WEFT_NAN_F16)
WEFT_RESULT_FLOAT(f32, float, uint32_t, 0x7fffffffu, 0x7f800000u, WEFT_NAN_F32)
WEFT_RESULT_FLOAT(f64, double, uint64_t, 0x7fffffffffffffffull, 0x7ff0000000000000ull, WEFT_NAN_F64)

/*
 * minNum / maxNum with -0 < +0: one NaN operand gives the other operand,
 * two give a NaN (which weft_result_T() makes the default one).
 */
#define WEFT_HELPERS_FLOAT(T, F) \
static inline F weft_fmin_##T(F a, F b) \
{ \
	if (a != a) return b != b ? a + b : b; \
	if (b != b) return a; \
	if (a == b) return signbit((double)a) ? a : b; \
	return a < b ? a : b; \
} \
static inline F weft_fmax_##T(F a, F b) \
{ \
	if (a != a) return b != b ? a + b : b; \
	if (b != b) return a; \
	if (a == b) return signbit((double)a) ? b : a; \
	return a > b ? a : b; \
}
WEFT_HELPERS_FLOAT(f16, _Float16)
WEFT_HELPERS_FLOAT(f32, float)
WEFT_HELPERS_FLOAT(f64, double)

/* f16 / f32 through f64 (exact operands, one final rounding); f64 through libm. */
#define WEFT_HELPERS_FLOAT_NARROW(T, F) \
static inline F weft_sqrt_##T(F a) { return (F)sqrt((double)a); } \
static inline F weft_floor_##T(F a) { return (F)floor((double)a); } \
static inline F weft_ceil_##T(F a) { return (F)ceil((double)a); } \
static inline F weft_trunc_##T(F a) { return (F)trunc((double)a); } \
static inline F weft_rint_##T(F a) { return (F)nearbyint((double)a); } \
static inline F weft_rcp_##T(F a) { return (F)(1.0 / (double)a); } \
static inline F weft_rsqrt_##T(F a) { return (F)(1.0 / sqrt((double)a)); } \
static inline F weft_exp2_##T(F a) { return (F)exp2((double)a); } \
static inline F weft_log2_##T(F a) { return (F)log2((double)a); } \
static inline F weft_sin_##T(F a) { return (F)sin((double)a); } \
static inline F weft_cos_##T(F a) { return (F)cos((double)a); }
WEFT_HELPERS_FLOAT_NARROW(f16, _Float16)
WEFT_HELPERS_FLOAT_NARROW(f32, float)

/*
 * fma rounds once.  An f32 a * b + c is not always exact in f64, and
 * rounding it to f64 and then to f32 can land on the wrong neighbour (a
 * product halfway between two floats plus a tiny c): fmaf.  An f16 one is
 * exact in f64 whenever the result is finite: then a * b (22 bits) is below
 * 2^17 and c's lowest bit at least 2^-24, unless c is 2^32 times a * b or
 * more, and then a * b is far below half an ULP of c, whose f64 neighbours
 * round back to c.
 */
static inline _Float16 weft_fma_f16(_Float16 a, _Float16 b, _Float16 c)
{ return (_Float16)fma((double)a, (double)b, (double)c); }
static inline float weft_fma_f32(float a, float b, float c) { return fmaf(a, b, c); }

/*
 * fneg and fabs change the sign bit only: a signalling NaN stays signalling
 * whatever code the compiler makes of them (_Float16 arithmetic goes
 * through float, which quiets it).
 */
static inline _Float16 weft_fneg_f16(_Float16 a) { return weft_f16_from_bits(weft_bits_f16(a) ^ 0x8000); }
static inline float weft_fneg_f32(float a) { return weft_f32_from_bits(weft_bits_f32(a) ^ 0x80000000u); }
static inline double weft_fneg_f64(double a)
{ return weft_f64_from_bits(weft_bits_f64(a) ^ 0x8000000000000000ull); }
static inline _Float16 weft_fabs_f16(_Float16 a) { return weft_f16_from_bits(weft_bits_f16(a) & 0x7fff); }
static inline float weft_fabs_f32(float a) { return weft_f32_from_bits(weft_bits_f32(a) & 0x7fffffffu); }
static inline double weft_fabs_f64(double a)
{ return weft_f64_from_bits(weft_bits_f64(a) & 0x7fffffffffffffffull); }

/* copysign moves the sign bit only: a signalling NaN stays signalling (no trip through f64). */
static inline _Float16 weft_copysign_f16(_Float16 a, _Float16 b)
{ return weft_f16_from_bits((weft_bits_f16(a) & 0x7fff) | (weft_bits_f16(b) & 0x8000)); }
static inline float weft_copysign_f32(float a, float b)
{ return weft_f32_from_bits((weft_bits_f32(a) & 0x7fffffff) | (weft_bits_f32(b) & 0x80000000)); }

static inline double weft_fma_f64(double a, double b, double c) { return fma(a, b, c); }
static inline double weft_sqrt_f64(double a) { return sqrt(a); }
static inline double weft_floor_f64(double a) { return floor(a); }
static inline double weft_ceil_f64(double a) { return ceil(a); }
static inline double weft_trunc_f64(double a) { return trunc(a); }
static inline double weft_rint_f64(double a) { return nearbyint(a); }
static inline double weft_rcp_f64(double a) { return 1.0 / a; }
static inline double weft_rsqrt_f64(double a) { return 1.0 / sqrt(a); }
static inline double weft_exp2_f64(double a) { return exp2(a); }
static inline double weft_log2_f64(double a) { return log2(a); }
static inline double weft_sin_f64(double a) { return sin(a); }
static inline double weft_cos_f64(double a) { return cos(a); }
static inline double weft_copysign_f64(double a, double b) { return copysign(a, b); }

#endif
