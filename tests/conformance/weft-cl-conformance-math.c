// SPDX-License-Identifier: MIT
/*
 * The math family of weft-cl-conformance: every math function of OpenCL C
 * (the specification's table, acos ... trunc, x / y, the half_ and native_
 * functions, the native_ ones against the bound the Weft GPU documents) on half, float and double, scalar and as 4-vectors, at SIMD 8,
 * 16 and 32, each result's error in ULP against a reference computed here,
 * checked against the limit of the OpenCL 3.0 specification's ULP tables
 * (OpenCL C 7.4, full profile).
 *
 * The reference is glibc's long double (x87, 64-bit significand) libm.
 * Its functions are within a few ULP of long double, that is 2^-9 ULP of
 * double and far less of float and half, so the error measured is the
 * device's to within 0.002 ULP; functions with no long double form in
 * glibc 2.36 (sinpi, cospi, tanpi, rootn, the *pi inverses) are composed
 * from exact argument reductions and long double operations with the same
 * bound.  Functions the specification requires correctly rounded (limit 0)
 * pass at 0.5 ULP plus that margin.
 *
 * Inputs: the type's special values (zeros, infinities, NaN, denormals, the
 * extremes, near multiples of pi/2) in every combination for two-argument
 * functions, then a fixed-seed random set (raw bit patterns over the whole
 * range, [-4 pi, 4 pi] and (0, 2]; tgamma: half of them in 4 <= |x| < 8).
 * The half_ functions get inputs in the domains the specification gives
 * them.  When the device reports no
 * denormals for a type (CL_DEVICE_{HALF,SINGLE}_FP_CONFIG without
 * CL_FP_DENORM) a result computed with denormal inputs flushed to zero,
 * or a zero where the reference is denormal, is also accepted, as the
 * specification allows.
 *
 * The work: a 1D NDRange of work-groups of 60 work-items (a partial last
 * sub-group at every width) with a smaller remainder work-group, so
 * uniform, partial and non-uniform groups all compute.  One line per
 * function, type and width with the worst error, then the table of the
 * worst error per function and type over every width.
 */
#include "weft-cl-conformance.h"

#include <CL/cl_ext.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fp {
   const char *name, *uname, *pragma;
   unsigned size, digits;
   int emin, emax;
   cl_device_info config;
   bool ftz; /* the device flushes denormals of this type */
};

enum { HALF, FLOAT, DOUBLE, NUM_FP };

static struct fp fps[NUM_FP] = {
   {"half", "ushort", "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n", 2, 11, -14, 15,
    CL_DEVICE_HALF_FP_CONFIG, false},
   {"float", "uint", "", 4, 24, -126, 127, CL_DEVICE_SINGLE_FP_CONFIG, false},
   {"double", "ulong", "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n", 8, 53, -1022, 1023,
    CL_DEVICE_DOUBLE_FP_CONFIG, false},
};

/* The arguments of one element and the reference's second results. */
struct args {
   long double x, y, z;
   int n;
   long double out2; /* sincos's cos, modf's and fract's integral part */
   int iout;         /* frexp's exponent, remquo's quotient, lgamma_r's sign, ilogb */
   const struct fp *t;
};

/* Signatures: T f(T), T f(T, T), T f(T, T, T), T f(T, int), int f(T),
 * T f(T, T *), T f(T, int *), T f(T, T, int *), T nan(UT). */
enum sig { S_1, S_2, S_3, S_1I, S_I1, S_1P, S_1PI, S_2PI, S_NAN };

/* Limits below 0: mad (any value: it must be fma's or the rounded
 * product's sum), lgamma (undefined: only infinities and NaN must match). */
#define ULP_MAD -1.0f
#define ULP_UNDEFINED -2.0f

/* Only on float (half_ and native_ functions). */
#define F_FLOAT_ONLY 1u
/* half_cos, half_sin, half_tan: x in [-2^16, 2^16]. */
#define F_DOMAIN_TRIG 2u
/* half_divide, half_recip: |x|, |y| in [2^-126, 2^126]. */
#define F_DOMAIN_DIVIDE 4u
/* tgamma: half the random inputs in 4 <= |x| < 8, where libclc's double
 * tgamma is up to 17.7 ULP off (its worst points of a scan of 65536 per
 * sign first), which the other inputs hardly reach. */
#define F_GAMMA_4_8 8u

struct math_fn {
   const char *name;
   enum sig sig;
   float ulp[NUM_FP]; /* half, float, double */
   unsigned flags;
   long double (*ref)(struct args *a);
};

/* --- The reference -------------------------------------------------------- */

static const long double pi = 3.141592653589793238462643383279502884L;

/* sin(pi r) for |r| <= 1/2, where pi r in long double loses nothing. */
static long double
sinpi_small(long double r)
{
   return r == 0 ? r : sinl(pi * r);
}

/* x reduced exactly to [-1/2, 1/2] with sin(pi x) = sinpi_small(r): the
 * reductions by 2 (fmodl), by sin(pi - a) = sin(a) and by symmetry are
 * exact, so no multiple of pi rounds away the result near a zero. */
static long double
sinpi_l(long double x)
{
   long double r = fmodl(x, 2.0L);

   if (isinf(x))
      return NAN;
   if (r > 1)
      r -= 2;
   else if (r < -1)
      r += 2;
   if (r > 0.5L)
      r = 1 - r;
   else if (r < -0.5L)
      r = -1 - r;
   /* sin(pi x) is -0 only where the specification's sinpi(-0) is. */
   return r == 0 ? copysignl(0, x) : sinpi_small(r);
}

/* cos(pi x) = sin(pi (1/2 - |r|)), r = |x| reduced to [0, 1]. */
static long double
cospi_l(long double x)
{
   long double r = fmodl(fabsl(x), 2.0L);

   if (isinf(x))
      return NAN;
   if (r > 1)
      r = 2 - r;
   return r == 0.5L ? 0 : sinpi_small(0.5L - r);
}

/* tan(pi r) with r = x - rint(x) in [-1/2, 1/2], as cot(pi (1/2 - |r|))
 * near the poles so the argument keeps its precision there. */
static long double
tanpi_l(long double x)
{
   long double r = remainderl(x, 1.0L);
   /* The sign of an exact zero or pole follows x's parity. */
   bool even = fmodl(fabsl(x - r), 2.0L) == 0;

   if (isinf(x) || isnan(x))
      return NAN;
   if (r == 0)
      return copysignl(0, x) * (even ? 1 : -1);
   if (fabsl(r) == 0.5L)
      return copysignl(INFINITY, r) * (even ? 1 : -1);
   if (fabsl(r) <= 0.25L)
      return tanl(pi * r);
   return copysignl(1 / tanl(pi * (0.5L - fabsl(r))), r);
}

static long double
rootn_l(long double x, int n)
{
   if (n == 0)
      return NAN;
   if (x < 0 && !(n & 1))
      return NAN;
   if (x == 0)
      return n > 0 ? x : copysignl(INFINITY, (n & 1) ? x : 1);
   return copysignl(powl(fabsl(x), 1.0L / n), x);
}

/* The neighbour of @x towards @y in the type's own format. */
static long double
nextafter_t(const struct fp *t, long double x, long double y)
{
   long double step;

   if (isnan(x) || isnan(y))
      return NAN;
   if (x == y)
      return y;
   if (x == 0)
      return copysignl(ldexpl(1, t->emin - (int)t->digits + 1), y);
   if (isinf(x))
      return copysignl(ldexpl(2 - ldexpl(1, 1 - (int)t->digits), t->emax), x);
   int e = ilogbl(x);
   if (e < t->emin)
      e = t->emin;
   step = ldexpl(1, e - (int)t->digits + 1);
   /* Towards zero from a power of two, the step is the smaller binade's. */
   if ((fabsl(y) < fabsl(x) || signbit(x) != signbit(y)) && fabsl(x) == ldexpl(1, e) &&
       e > t->emin)
      step /= 2;
   long double r = x + (y > x ? step : -step);
   if (fabsl(r) > ldexpl(2 - ldexpl(1, 1 - (int)t->digits), t->emax))
      return copysignl(INFINITY, r);
   return r;
}

/* @v rounded to the type. */
static long double
round_to(const struct fp *t, long double v)
{
   switch (t->size) {
   case 2: return (_Float16)v;
   case 4: return (float)v;
   default: return (double)v;
   }
}

#define REF(fn, expr)                                                                   \
   static long double ref_##fn(struct args *a)                                         \
   {                                                                                    \
      long double x = a->x, y = a->y, z = a->z;                                         \
      (void)x, (void)y, (void)z;                                                        \
      return expr;                                                                      \
   }

REF(acos, acosl(x))
REF(acosh, acoshl(x))
REF(acospi, acosl(x) / pi)
REF(asin, asinl(x))
REF(asinh, asinhl(x))
REF(asinpi, asinl(x) / pi)
REF(atan, atanl(x))
REF(atan2, atan2l(x, y))
REF(atanh, atanhl(x))
REF(atanpi, atanl(x) / pi)
REF(atan2pi, atan2l(x, y) / pi)
REF(cbrt, cbrtl(x))
REF(ceil, ceill(x))
REF(copysign, copysignl(x, y))
REF(cos, cosl(x))
REF(cosh, coshl(x))
REF(cospi, cospi_l(x))
REF(erfc, erfcl(x))
REF(erf, erfl(x))
REF(exp, expl(x))
REF(exp2, exp2l(x))
REF(exp10, exp10l(x))
REF(expm1, expm1l(x))
REF(fabs, fabsl(x))
REF(fdim, isnan(x) || isnan(y) ? NAN : x > y ? x - y : 0)
REF(floor, floorl(x))
REF(fma, fmal(x, y, z))
REF(fmax, fmaxl(x, y))
REF(fmin, fminl(x, y))
REF(fmod, fmodl(x, y))
REF(hypot, hypotl(x, y))
REF(log, logl(x))
REF(log2, log2l(x))
REF(log10, log10l(x))
REF(log1p, log1pl(x))
REF(logb, logbl(x))
REF(maxmag, fabsl(x) > fabsl(y) ? x : fabsl(y) > fabsl(x) ? y : fmaxl(x, y))
REF(minmag, fabsl(x) < fabsl(y) ? x : fabsl(y) < fabsl(x) ? y : fminl(x, y))
REF(nextafter, nextafter_t(a->t, x, y))
REF(pow, powl(x, y))
/* powr is exp2(y log2(x)): x < 0 is NaN, and so are 1^inf, 0^0, inf^0. */
REF(powr, x < 0 || isnan(x) || isnan(y) ? NAN
          : x == 1 ? (isinf(y) ? NAN : 1)
          : (x == 0 && y == 0) || (isinf(x) && y == 0) ? NAN
          : powl(fabsl(x), y))
REF(remainder, remainderl(x, y))
REF(rint, rintl(x))
REF(round, roundl(x))
REF(rsqrt, 1 / sqrtl(x))
REF(sin, sinl(x))
REF(sinh, sinhl(x))
REF(sinpi, sinpi_l(x))
REF(sqrt, sqrtl(x))
REF(tan, tanl(x))
REF(tanh, tanhl(x))
REF(tanpi, tanpi_l(x))
REF(tgamma, tgammal(x))
REF(trunc, truncl(x))
REF(divide, x / y)
REF(recip, 1 / x)
REF(lgamma, lgammal(x))
REF(ldexp, ldexpl(x, a->n))
REF(pown, a->n == 0 ? 1 : powl(x, a->n))
REF(rootn, rootn_l(x, a->n))
REF(nan, NAN)

static long double
ref_ilogb(struct args *a)
{
   if (isnan(a->x) || isinf(a->x))
      a->iout = INT_MAX;
   else if (a->x == 0)
      a->iout = INT_MIN;
   else
      a->iout = ilogbl(a->x);
   return 0;
}

static long double
ref_fract(struct args *a)
{
   long double fl = floorl(a->x);
   long double below_one = 1 - ldexpl(1, -(int)a->t->digits);

   a->out2 = fl;
   if (isnan(a->x))
      return a->x;
   if (isinf(a->x))
      return copysignl(0, a->x);
   return fminl(a->x - fl, below_one);
}

static long double
ref_modf(struct args *a)
{
   long double ip;
   long double frac = modfl(a->x, &ip);

   a->out2 = ip;
   return frac;
}

static long double
ref_sincos(struct args *a)
{
   a->out2 = cosl(a->x);
   return sinl(a->x);
}

static long double
ref_frexp(struct args *a)
{
   return frexpl(a->x, &a->iout);
}

static long double
ref_lgamma_r(struct args *a)
{
   return lgammal_r(a->x, &a->iout);
}

/* remquo's quotient: its sign and its 7 low bits (the specification's
 * minimum), from the exact remainder of |x| by 128 |y|. */
static long double
ref_remquo(struct args *a)
{
   long double r = remainderl(a->x, a->y);
   long double m = fmodl(fabsl(a->x), 128 * fabsl(a->y));
   long double k = (m - remainderl(m, fabsl(a->y))) / fabsl(a->y);

   a->iout = 0;
   if (!isnan(r)) {
      int q = (int)k & 0x7f;
      a->iout = signbit(a->x) != signbit(a->y) ? -q : q;
   }
   return r;
}

/* The specification's tables: half (cl_khr_fp16), float, double. */
#define ALL(h, f, d) {h, f, d}
#define HALF_AND_NATIVE(fn, sig, domain, ref)                                        \
   {"half_" #fn, sig, ALL(0, 8192, 0), F_FLOAT_ONLY | (domain), ref},                \
   {"native_" #fn, sig, ALL(0, 8192, 0), F_FLOAT_ONLY | (domain), ref}
static const struct math_fn math_fns[] = {
   {"acos", S_1, ALL(2, 4, 4), 0, ref_acos},
   {"acosh", S_1, ALL(2, 4, 4), 0, ref_acosh},
   {"acospi", S_1, ALL(2, 5, 5), 0, ref_acospi},
   {"asin", S_1, ALL(2, 4, 4), 0, ref_asin},
   {"asinh", S_1, ALL(2, 4, 4), 0, ref_asinh},
   {"asinpi", S_1, ALL(2, 5, 5), 0, ref_asinpi},
   {"atan", S_1, ALL(2, 5, 5), 0, ref_atan},
   {"atan2", S_2, ALL(2, 6, 6), 0, ref_atan2},
   {"atanh", S_1, ALL(2, 5, 5), 0, ref_atanh},
   {"atanpi", S_1, ALL(2, 5, 5), 0, ref_atanpi},
   {"atan2pi", S_2, ALL(2, 6, 6), 0, ref_atan2pi},
   {"cbrt", S_1, ALL(2, 2, 2), 0, ref_cbrt},
   {"ceil", S_1, ALL(0, 0, 0), 0, ref_ceil},
   {"copysign", S_2, ALL(0, 0, 0), 0, ref_copysign},
   {"cos", S_1, ALL(2, 4, 4), 0, ref_cos},
   {"cosh", S_1, ALL(2, 4, 4), 0, ref_cosh},
   {"cospi", S_1, ALL(2, 4, 4), 0, ref_cospi},
   {"erfc", S_1, ALL(4, 16, 16), 0, ref_erfc},
   {"erf", S_1, ALL(4, 16, 16), 0, ref_erf},
   {"exp", S_1, ALL(2, 3, 3), 0, ref_exp},
   {"exp2", S_1, ALL(2, 3, 3), 0, ref_exp2},
   {"exp10", S_1, ALL(2, 3, 3), 0, ref_exp10},
   {"expm1", S_1, ALL(2, 3, 3), 0, ref_expm1},
   {"fabs", S_1, ALL(0, 0, 0), 0, ref_fabs},
   {"fdim", S_2, ALL(0, 0, 0), 0, ref_fdim},
   {"floor", S_1, ALL(0, 0, 0), 0, ref_floor},
   {"fma", S_3, ALL(0, 0, 0), 0, ref_fma},
   {"fmax", S_2, ALL(0, 0, 0), 0, ref_fmax},
   {"fmin", S_2, ALL(0, 0, 0), 0, ref_fmin},
   {"fmod", S_2, ALL(0, 0, 0), 0, ref_fmod},
   {"fract", S_1P, ALL(0, 0, 0), 0, ref_fract},
   {"frexp", S_1PI, ALL(0, 0, 0), 0, ref_frexp},
   {"hypot", S_2, ALL(2, 4, 4), 0, ref_hypot},
   {"ilogb", S_I1, ALL(0, 0, 0), 0, ref_ilogb},
   {"ldexp", S_1I, ALL(0, 0, 0), 0, ref_ldexp},
   {"lgamma", S_1, ALL(ULP_UNDEFINED, ULP_UNDEFINED, ULP_UNDEFINED), 0, ref_lgamma},
   {"lgamma_r", S_1PI, ALL(ULP_UNDEFINED, ULP_UNDEFINED, ULP_UNDEFINED), 0, ref_lgamma_r},
   {"log", S_1, ALL(2, 3, 3), 0, ref_log},
   {"log2", S_1, ALL(2, 3, 3), 0, ref_log2},
   {"log10", S_1, ALL(2, 3, 3), 0, ref_log10},
   {"log1p", S_1, ALL(2, 2, 2), 0, ref_log1p},
   {"logb", S_1, ALL(0, 0, 0), 0, ref_logb},
   {"mad", S_3, ALL(ULP_MAD, ULP_MAD, ULP_MAD), 0, ref_fma},
   {"maxmag", S_2, ALL(0, 0, 0), 0, ref_maxmag},
   {"minmag", S_2, ALL(0, 0, 0), 0, ref_minmag},
   {"modf", S_1P, ALL(0, 0, 0), 0, ref_modf},
   {"nan", S_NAN, ALL(0, 0, 0), 0, ref_nan},
   {"nextafter", S_2, ALL(0, 0, 0), 0, ref_nextafter},
   {"pow", S_2, ALL(4, 16, 16), 0, ref_pow},
   {"pown", S_1I, ALL(4, 16, 16), 0, ref_pown},
   {"powr", S_2, ALL(4, 16, 16), 0, ref_powr},
   {"remainder", S_2, ALL(0, 0, 0), 0, ref_remainder},
   {"remquo", S_2PI, ALL(0, 0, 0), 0, ref_remquo},
   {"rint", S_1, ALL(0, 0, 0), 0, ref_rint},
   {"rootn", S_1I, ALL(4, 16, 16), 0, ref_rootn},
   {"round", S_1, ALL(0, 0, 0), 0, ref_round},
   {"rsqrt", S_1, ALL(1, 2, 2), 0, ref_rsqrt},
   {"sin", S_1, ALL(2, 4, 4), 0, ref_sin},
   {"sincos", S_1P, ALL(2, 4, 4), 0, ref_sincos},
   {"sinh", S_1, ALL(2, 4, 4), 0, ref_sinh},
   {"sinpi", S_1, ALL(2, 4, 4), 0, ref_sinpi},
   {"sqrt", S_1, ALL(1, 3, 0), 0, ref_sqrt},
   {"tan", S_1, ALL(2, 5, 5), 0, ref_tan},
   {"tanh", S_1, ALL(2, 5, 5), 0, ref_tanh},
   {"tanpi", S_1, ALL(2, 6, 6), 0, ref_tanpi},
   {"tgamma", S_1, ALL(4, 16, 16), F_GAMMA_4_8, ref_tgamma},
   {"trunc", S_1, ALL(0, 0, 0), 0, ref_trunc},
   /* x / y, as the specification lists it. */
   {"divide", S_2, ALL(0, 2.5f, 0), 0, ref_divide},
   /* half_: 8192 ULP (at least 10 bits) in their domains; native_:
    * implementation-defined, and the Weft GPU documents half_'s bound in
    * half_'s domains (Documentation/gpu/weft/math.rst). */
   HALF_AND_NATIVE(cos, S_1, F_DOMAIN_TRIG, ref_cos),
   HALF_AND_NATIVE(divide, S_2, F_DOMAIN_DIVIDE, ref_divide),
   HALF_AND_NATIVE(exp, S_1, 0, ref_exp),
   HALF_AND_NATIVE(exp2, S_1, 0, ref_exp2),
   HALF_AND_NATIVE(exp10, S_1, 0, ref_exp10),
   HALF_AND_NATIVE(log, S_1, 0, ref_log),
   HALF_AND_NATIVE(log2, S_1, 0, ref_log2),
   HALF_AND_NATIVE(log10, S_1, 0, ref_log10),
   HALF_AND_NATIVE(powr, S_2, 0, ref_powr),
   HALF_AND_NATIVE(recip, S_1, F_DOMAIN_DIVIDE, ref_recip),
   HALF_AND_NATIVE(rsqrt, S_1, 0, ref_rsqrt),
   HALF_AND_NATIVE(sin, S_1, F_DOMAIN_TRIG, ref_sin),
   HALF_AND_NATIVE(sqrt, S_1, 0, ref_sqrt),
   HALF_AND_NATIVE(tan, S_1, F_DOMAIN_TRIG, ref_tan),
};
#define NUM_MATH_FNS (sizeof(math_fns) / sizeof(math_fns[0]))

/*
 * The bugs this suite found that are not fixed yet, each with where it is.
 * A known bug still reports its worst error, and counts as passing while it
 * fails; once it passes, it fails until it is taken off this list.
 */
enum known_kind {
   KNOWN_INACCURATE, /* results over the limit */
   KNOWN_NO_BUILD,   /* the program does not build */
   KNOWN_ABORTS,     /* building it aborts the process: not built */
};

struct known_bug {
   const char *fn;
   unsigned type;
   enum known_kind kind;
   const char *where;
};

static const struct known_bug known_bugs[] = {
   {NULL, 0, KNOWN_INACCURATE, NULL}, /* the end */
};

static const struct known_bug *
known_bug(const struct math_fn *f, unsigned type)
{
   for (const struct known_bug *kb = known_bugs; kb->fn; kb++) {
      if (kb->type == type && !strcmp(kb->fn, f->name))
         return kb;
   }
   return NULL;
}

/* --- Values --------------------------------------------------------------- */

static long double
get_v(const struct fp *t, const void *p, size_t i)
{
   switch (t->size) {
   case 2: return ((const _Float16 *)p)[i];
   case 4: return ((const float *)p)[i];
   default: return ((const double *)p)[i];
   }
}

static void
put_v(const struct fp *t, void *p, size_t i, long double v)
{
   switch (t->size) {
   case 2: ((_Float16 *)p)[i] = (_Float16)v; break;
   case 4: ((float *)p)[i] = (float)v; break;
   default: ((double *)p)[i] = (double)v; break;
   }
}

static long double
max_finite(const struct fp *t)
{
   return ldexpl(2 - ldexpl(1, 1 - (int)t->digits), t->emax);
}

static uint64_t
next_random(uint64_t *state)
{
   uint64_t x = (*state += 0x9e3779b97f4a7c15ull);

   x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
   x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
   return x ^ (x >> 31);
}

/* Raw bit patterns (every exponent, denormals, infinities and NaN), and
 * uniform values where the functions change fastest. */
static long double
random_value(const struct fp *t, uint64_t *state)
{
   uint64_t r = next_random(state);
   long double u = (long double)(r >> 11) / (1ull << 53);
   char bits[8];

   switch (r & 3) {
   case 0:
   case 1:
      r = next_random(state);
      memcpy(bits, &r, sizeof(bits));
      return get_v(t, bits, 0);
   case 2: return round_to(t, (2 * u - 1) * 4 * pi);
   default: return round_to(t, 2 * u + ldexpl(1, t->emin));
   }
}

/* The type's special values. */
static unsigned
special_values(const struct fp *t, long double *v)
{
   long double ulp1 = ldexpl(1, 1 - (int)t->digits);
   long double dmin = ldexpl(1, t->emin - (int)t->digits + 1);
   long double base[] = {
      0, INFINITY, NAN, dmin, ldexpl(1, t->emin) - dmin, ldexpl(1, t->emin),
      max_finite(t), ldexpl(1, t->emax - 1), ldexpl(1, t->emin + 1), 1, 1 + ulp1, 1 - ulp1 / 2,
      0.5L, 2, 3, 10, 0.1L, 2.5L, 100.5L, 1e4L,
   };
   unsigned n = 0;

   for (unsigned i = 0; i < sizeof(base) / sizeof(base[0]); i++) {
      v[n++] = round_to(t, base[i]);
      v[n++] = -round_to(t, base[i]);
   }
   /* Multiples of pi / 2 as the type rounds them, and their neighbours. */
   for (unsigned k = 1; k <= 6; k++) {
      long double m = round_to(t, k * pi / 2);
      v[n++] = m;
      v[n++] = -nextafter_t(t, m, INFINITY);
      v[n++] = nextafter_t(t, m, 0);
   }
   return n;
}

#define MAX_SPECIALS 64

static const int special_ints[] = {0, 1, -1, 2, -2, 3, -3, 4, 5, 7, -7, 10, -10, 31, 64,
                                   -64, 127, -150, 200, 1100, -1100};
#define NUM_SPECIAL_INTS (sizeof(special_ints) / sizeof(special_ints[0]))

static unsigned
num_args(enum sig s)
{
   switch (s) {
   case S_2: case S_2PI: return 2;
   case S_3: return 3;
   default: return 1;
   }
}

/* A value in the half_ function's domain in place of one outside it. */
static long double
in_domain(const struct fp *t, const struct math_fn *f, long double v, uint64_t *state)
{
   long double u = (long double)(next_random(state) >> 11) / (1ull << 53);

   if ((f->flags & F_DOMAIN_TRIG) && !(fabsl(v) <= 65536))
      return round_to(t, (2 * u - 1) * 65536);
   if ((f->flags & F_DOMAIN_DIVIDE) && !(fabsl(v) >= ldexpl(1, -126) && fabsl(v) <= ldexpl(1, 126)))
      return round_to(t, copysignl(exp2l(252 * u - 126), v));
   return v;
}

static const long double gamma_4_8_worst[] = {7.873077392578125L, -7.840667724609375L};
#define NUM_GAMMA_4_8_WORST (sizeof(gamma_4_8_worst) / sizeof(gamma_4_8_worst[0]))

/* A value in 4 <= |x| < 8, either sign. */
static long double
gamma_4_8(const struct fp *t, uint64_t *state)
{
   uint64_t r = next_random(state);
   long double u = (long double)(r >> 11) / (1ull << 53);

   return round_to(t, copysignl(4 + 4 * u, (r & 1) ? -1.0L : 1.0L));
}

struct inputs {
   size_t n;
   void *x[3];
   int *ints;
};

/* Specials in every combination first (with every special integer for
 * ldexp, pown and rootn), then random values. */
static void
make_inputs(const struct fp *t, const struct math_fn *f, uint64_t seed, struct inputs *in)
{
   long double sv[MAX_SPECIALS];
   unsigned ns = special_values(t, sv), args = num_args(f->sig);
   uint64_t state = seed;

   for (size_t i = 0; i < in->n; i++) {
      long double v[3];
      int k;

      for (unsigned a = 0; a < 3; a++)
         v[a] = random_value(t, &state);
      k = (int)(next_random(&state) % 81) - 40;
      if (args == 1 && f->sig != S_1I && i < ns) {
         v[0] = sv[i];
      } else if ((f->flags & F_GAMMA_4_8) && i >= ns && i - ns < NUM_GAMMA_4_8_WORST) {
         v[0] = round_to(t, gamma_4_8_worst[i - ns]);
      } else if ((f->flags & F_GAMMA_4_8) && i % 2) {
         v[0] = gamma_4_8(t, &state);
      } else if (args == 2 && i < ns * ns) {
         v[0] = sv[i / ns];
         v[1] = sv[i % ns];
      } else if (args == 3 && i < ns * 3) {
         v[i % 3] = sv[i / 3];
      } else if (f->sig == S_1I && i < ns * NUM_SPECIAL_INTS) {
         v[0] = sv[i % ns];
         k = special_ints[i / ns];
      }
      if (f->sig == S_NAN)
         k = (int)next_random(&state);
      for (unsigned a = 0; a < 3; a++)
         put_v(t, in->x[a], i, in_domain(t, f, v[a], &state));
      in->ints[i] = k;
   }
}

/* --- Checking --------------------------------------------------------------- */

/* The margin of the reference's own error (see the top of the file). */
#define REFERENCE_MARGIN (1.0 / 512)

/* |@got - @want| in ULP of @want in the type; INFINITY when their classes
 * (NaN, infinity) differ. */
static double
ulp_error(const struct fp *t, long double got, long double want)
{
   if (isnan(want))
      return isnan(got) ? 0 : INFINITY;
   if (isnan(got))
      return INFINITY;
   if (isinf(want))
      return got == want ? 0 : INFINITY;
   if (isinf(got)) {
      if (isinf(round_to(t, want)) && signbit(got) == signbit(want))
         return 0;
      /* Infinity is one ULP past the largest finite value. */
      got = copysignl(ldexpl(1, t->emax + 1), got);
   }
   if (t->ftz && got == 0 && fabsl(want) < ldexpl(1, t->emin))
      return 0;
   int e = want == 0 ? t->emin : ilogbl(want);
   if (e < t->emin)
      e = t->emin;
   return (double)(fabsl(got - want) / ldexpl(1, e - (int)t->digits + 1));
}

/* mad may be fma or the rounded product's rounded sum. */
static double
mad_error(const struct fp *t, long double got, const struct args *a)
{
   long double product = t->size == 8 ? (long double)((double)a->x * (double)a->y)
                                      : round_to(t, a->x * a->y);
   double fused = ulp_error(t, got, fmal(a->x, a->y, a->z));
   double separate = ulp_error(t, got, round_to(t, product + a->z));

   return fused < separate ? fused : separate;
}

static bool
is_denormal(const struct fp *t, long double v)
{
   return v != 0 && fabsl(v) < ldexpl(1, t->emin);
}

static long double
flushed(const struct fp *t, long double v)
{
   return is_denormal(t, v) ? copysignl(0, v) : v;
}

struct outputs {
   void *val, *val2;
   int *ints;
};

struct verdict {
   double worst;
   size_t bad, first_bad;
   double first_err;
};

static unsigned
quotient_bits(int q)
{
   return (q < 0 ? 0u - (unsigned)q : (unsigned)q) & 0x7f;
}

/* The error of element @i against the reference from @a's inputs. */
static double
element_error(const struct math_fn *f, struct args *a, const struct outputs *out, size_t i)
{
   const struct fp *t = a->t;
   long double want = f->ref(a);
   long double got = get_v(t, out->val, i);
   double err;

   switch (f->sig) {
   case S_I1:
      return out->ints[i] == a->iout ? 0 : INFINITY;
   case S_NAN:
      return isnan(got) ? 0 : INFINITY;
   default:
      break;
   }
   if (f->ulp[t - fps] == ULP_MAD)
      err = mad_error(t, got, a);
   else
      err = ulp_error(t, got, want);
   if (f->sig == S_1P) {
      double err2 = ulp_error(t, get_v(t, out->val2, i), a->out2);
      if (err2 > err)
         err = err2;
   }
   if (f->sig == S_1PI || f->sig == S_2PI) {
      int g = out->ints[i];
      bool same;
      if (!strcmp(f->name, "frexp"))
         same = !isfinite(a->x) || g == a->iout;
      else if (!strcmp(f->name, "lgamma_r"))
         /* The sign of gamma, but at its poles and NaN. */
         same = isnan(want) || isinf(want) || (a->x <= 0 && a->x == floorl(a->x)) ||
                (g < 0) == (a->iout < 0);
      else /* remquo: the quotient's sign and 7 low bits, unless the remainder is NaN */
         same = isnan(want) || (quotient_bits(g) == quotient_bits(a->iout) &&
                                 (a->iout == 0 || (g < 0) == (a->iout < 0)));
      if (!same)
         err = INFINITY;
   }
   return err;
}

static bool
within(const struct math_fn *f, const struct fp *t, double err)
{
   float limit = f->ulp[t - fps];

   if (limit == ULP_UNDEFINED)
      return isfinite(err);
   if (limit <= 0)
      return err <= 0.5 + REFERENCE_MARGIN;
   return err <= limit + REFERENCE_MARGIN;
}

static void
check(const struct math_fn *f, const struct fp *t, const struct inputs *in,
      const struct outputs *out, struct verdict *v)
{
   for (size_t i = 0; i < in->n; i++) {
      struct args a = {get_v(t, in->x[0], i), get_v(t, in->x[1], i), get_v(t, in->x[2], i),
                       in->ints[i], 0, 0, t};
      double err = element_error(f, &a, out, i);

      if (!within(f, t, err) && t->ftz &&
          (is_denormal(t, a.x) || is_denormal(t, a.y) || is_denormal(t, a.z))) {
         struct args b = {flushed(t, a.x), flushed(t, a.y), flushed(t, a.z), a.n, 0, 0, t};
         double err_flushed = element_error(f, &b, out, i);
         if (err_flushed < err)
            err = err_flushed;
      }
      if (!within(f, t, err)) {
         if (!v->bad++) {
            v->first_bad = i;
            v->first_err = err;
         }
      }
      /* An undefined limit's worst is the worst finite error. */
      if (err > v->worst && (isfinite(err) || f->ulp[t - fps] != ULP_UNDEFINED))
         v->worst = err;
   }
}

/* --- Running ---------------------------------------------------------------- */

/* One scalar kernel (s_F) and one 4-vector kernel (v_F) per function, per
 * signature. */
static const char kernel_macros[] =
   "#define REQD __attribute__((intel_reqd_sub_group_size(SIMD)))\n"
   "#define ARGS __global const T *a, __global const T *b, __global const T *c, "
   "__global const int *n, __global T *out, __global T *out2, __global int *iout\n"
   "#define I size_t i = get_global_id(0)\n"
   "#ifdef SCALAR_ONLY\n"
   "#define K(F, S, V) REQD __kernel void s_##F(ARGS) { I; S }\n"
   "#else\n"
   "#define K(F, S, V) REQD __kernel void s_##F(ARGS) { I; S } "
   "REQD __kernel void v_##F(ARGS) { I; V }\n"
   "#endif\n"
   "#define A vload4(i, a)\n"
   "#define B vload4(i, b)\n"
   "#define divide(x, y) ((x) / (y))\n"
   "#define K_1(F) K(F, out[i] = F(a[i]);, vstore4(F(A), i, out);)\n"
   "#define K_2(F) K(F, out[i] = F(a[i], b[i]);, vstore4(F(A, B), i, out);)\n"
   "#define K_3(F) K(F, out[i] = F(a[i], b[i], c[i]);, vstore4(F(A, B, vload4(i, c)), i, out);)\n"
   "#define K_1I(F) K(F, out[i] = F(a[i], n[i]);, vstore4(F(A, vload4(i, n)), i, out);)\n"
   "#define K_I1(F) K(F, iout[i] = F(a[i]);, vstore4(F(A), i, iout);)\n"
   "#define K_1P(F) K(F, T p; out[i] = F(a[i], &p); out2[i] = p;, "
   "T4 p; vstore4(F(A, &p), i, out); vstore4(p, i, out2);)\n"
   "#define K_1PI(F) K(F, int p; out[i] = F(a[i], &p); iout[i] = p;, "
   "int4 p; vstore4(F(A, &p), i, out); vstore4(p, i, iout);)\n"
   "#define K_2PI(F) K(F, int p; out[i] = F(a[i], b[i], &p); iout[i] = p;, "
   "int4 p; vstore4(F(A, B, &p), i, out); vstore4(p, i, iout);)\n"
   "#define K_NAN(F) K(F, out[i] = F((UT)n[i]);, vstore4(F(CONVERT_UT4(vload4(i, n))), i, out);)\n";

static const char *const sig_macros[] = {
   [S_1] = "K_1", [S_2] = "K_2", [S_3] = "K_3", [S_1I] = "K_1I", [S_I1] = "K_I1",
   [S_1P] = "K_1P", [S_1PI] = "K_1PI", [S_2PI] = "K_2PI", [S_NAN] = "K_NAN",
};

static bool
applies(const struct math_fn *f, const struct fp *t)
{
   return !(f->flags & F_FLOAT_ONLY) || t == &fps[FLOAT];
}

static bool
builds(const struct math_fn *f, const struct fp *t)
{
   const struct known_bug *kb = known_bug(f, t - fps);

   return !kb || kb->kind == KNOWN_INACCURATE;
}

/* The type's macros and the kernel macros every program of the family
 * starts with. */
static char *
type_header(const struct fp *t)
{
   return append(NULL, "%s#define T %s\n#define T4 %s4\n#define UT %s\n"
                 "#define CONVERT_UT4 convert_%s4\n%s",
                 t->pragma, t->name, t->name, t->uname, t->uname, kernel_macros);
}

/* The kernels of every function of @t that builds, or with @broken, of
 * every function known not to build. */
static char *
math_source(const struct fp *t, bool broken)
{
   char *src = type_header(t);

   for (unsigned i = 0; i < NUM_MATH_FNS; i++) {
      const struct known_bug *kb = known_bug(&math_fns[i], t - fps);
      bool wanted = broken ? kb && kb->kind == KNOWN_NO_BUILD : builds(&math_fns[i], t);
      if (applies(&math_fns[i], t) && wanted)
         src = append(src, "%s(%s)\n", sig_macros[math_fns[i].sig], math_fns[i].name);
   }
   return src;
}

/* 60 work-items a group: a partial last sub-group at SIMD 8, 16 and 32;
 * the scalar kernels' 4096 and the vector kernels' 1024 work-items leave
 * a smaller remainder work-group. */
#define LOCAL_SIZE 60
#define FULL_ELEMENTS 4096
#define SLICE_ELEMENTS 256

struct buffers {
   cl_mem x[3], ints, val, val2, iout;
};

/* The buffers of @n elements of @t; an error code when one is missing. */
static cl_int
create_buffers(struct cl *cl, const struct fp *t, size_t n, struct buffers *b)
{
   cl_int err = CL_SUCCESS;

   for (unsigned a = 0; a < 3 && !err; a++)
      b->x[a] = clCreateBuffer(cl->ctx, CL_MEM_READ_ONLY, n * t->size, NULL, &err);
   if (!err)
      b->ints = clCreateBuffer(cl->ctx, CL_MEM_READ_ONLY, n * sizeof(int), NULL, &err);
   if (!err)
      b->val = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE, n * t->size, NULL, &err);
   if (!err)
      b->val2 = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE, n * t->size, NULL, &err);
   if (!err)
      b->iout = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE, n * sizeof(int), NULL, &err);
   return err;
}

static void
release_buffers(struct buffers *b)
{
   cl_mem all[] = {b->x[0], b->x[1], b->x[2], b->ints, b->val, b->val2, b->iout};

   for (unsigned a = 0; a < sizeof(all) / sizeof(all[0]); a++)
      if (all[a])
         clReleaseMemObject(all[a]);
}

static bool
run_math_kernel(struct cl *cl, cl_program prog, const char *prefix, const struct math_fn *f,
                const struct fp *t, const struct buffers *b, const struct inputs *in,
                struct outputs *out, size_t width)
{
   char name[64];
   cl_int err;
   cl_mem args[] = {b->x[0], b->x[1], b->x[2], b->ints, b->val, b->val2, b->iout};
   size_t global = in->n / width, local = LOCAL_SIZE;
   bool ok = false;

   snprintf(name, sizeof(name), "%s_%s", prefix, f->name);
   cl_kernel k = clCreateKernel(prog, name, &err);
   if (!k) {
      fprintf(stderr, "clCreateKernel(%s): %d\n", name, err);
      return false;
   }
   for (unsigned a = 0; a < sizeof(args) / sizeof(args[0]); a++) {
      if (clSetKernelArg(k, a, sizeof(cl_mem), &args[a]))
         goto out;
   }
   /* Outputs start as a pattern no function returns everywhere. */
   memset(out->val, 0xa5, in->n * t->size);
   memset(out->val2, 0xa5, in->n * t->size);
   memset(out->ints, 0xa5, in->n * sizeof(int));
   if (clEnqueueWriteBuffer(cl->q, b->val, CL_FALSE, 0, in->n * t->size, out->val, 0, NULL, NULL) ||
       clEnqueueWriteBuffer(cl->q, b->val2, CL_FALSE, 0, in->n * t->size, out->val2, 0, NULL, NULL) ||
       clEnqueueWriteBuffer(cl->q, b->iout, CL_FALSE, 0, in->n * sizeof(int), out->ints, 0, NULL, NULL))
      goto out;
   err = clEnqueueNDRangeKernel(cl->q, k, 1, NULL, &global, &local, 0, NULL, NULL);
   if (err) {
      fprintf(stderr, "clEnqueueNDRangeKernel(%s): %d\n", name, err);
      goto out;
   }
   ok = !clEnqueueReadBuffer(cl->q, b->val, CL_FALSE, 0, in->n * t->size, out->val, 0, NULL, NULL) &&
        !clEnqueueReadBuffer(cl->q, b->val2, CL_FALSE, 0, in->n * t->size, out->val2, 0, NULL, NULL) &&
        !clEnqueueReadBuffer(cl->q, b->iout, CL_TRUE, 0, in->n * sizeof(int), out->ints, 0, NULL, NULL);
out:
   clReleaseKernel(k);
   return ok;
}

/* The worst error per function and type over every width. */
static double worst_overall[NUM_MATH_FNS][NUM_FP];
static bool failed_overall[NUM_MATH_FNS][NUM_FP];

static void
limit_text(char *buf, size_t size, const struct math_fn *f, const struct fp *t)
{
   float limit = f->ulp[t - fps];

   if (limit == ULP_UNDEFINED)
      snprintf(buf, size, "undefined");
   else if (limit == ULP_MAD)
      snprintf(buf, size, "fma or mul+add");
   else if (limit == 0)
      snprintf(buf, size, "correctly rounded");
   else
      snprintf(buf, size, "%g", limit);
}

static void
run_function(struct cl *cl, cl_program prog, unsigned simd, const struct math_fn *f,
             const struct fp *t, const struct buffers *b, struct inputs *in, struct outputs *out,
             bool scalar_only /* the VM's slice */)
{
   static const char *const prefixes[] = {"s", "v"};
   struct verdict v[2] = {{0}};
   char limit[32];
   bool ran = true;

   make_inputs(t, f, 0x5eed0000u + (uint64_t)(f - math_fns) * 7 + (uint64_t)(t - fps), in);
   for (unsigned a = 0; a < 3; a++)
      clEnqueueWriteBuffer(cl->q, b->x[a], CL_FALSE, 0, in->n * t->size, in->x[a], 0, NULL, NULL);
   clEnqueueWriteBuffer(cl->q, b->ints, CL_TRUE, 0, in->n * sizeof(int), in->ints, 0, NULL, NULL);
   unsigned forms = scalar_only ? 1 : 2;
   for (unsigned w = 0; w < forms && ran; w++) {
      ran = run_math_kernel(cl, prog, prefixes[w], f, t, b, in, out, w ? 4 : 1);
      if (ran)
         check(f, t, in, out, &v[w]);
   }
   cases_in_matrix += forms;
   limit_text(limit, sizeof(limit), f, t);
   unsigned fi = f - math_fns, ti = t - fps;
   if (!ran) {
      failed_overall[fi][ti] = true;
      report(false, "math %s %s simd%u: did not run", f->name, t->name, simd);
      return;
   }
   for (unsigned w = 0; w < 2; w++) {
      if (v[w].worst > worst_overall[fi][ti])
         worst_overall[fi][ti] = v[w].worst;
   }
   const struct known_bug *kb = known_bug(f, ti);
   if (kb) {
      unsigned w = v[0].bad ? 0 : 1;
      if (v[w].bad)
         report(true, "math %s %s simd%u: KNOWN BUG (%s): worst %.3g ulp, %zu of %zu %s over the "
                "limit (%s)", f->name, t->name, simd, kb->where, v[w].worst, v[w].bad, in->n,
                w ? "vec4" : "scalar", limit);
      else if (scalar_only)
         /* The slice's fewer inputs may miss the bug: the host decides. */
         report(true, "math %s %s simd%u: KNOWN BUG (%s): not among the slice's inputs, worst "
                "%.3g ulp", f->name, t->name, simd, kb->where, v[0].worst);
      else
         report(false, "math %s %s simd%u: worst %.3g ulp (limit %s): passes now, take it off "
                "the known bugs", f->name, t->name, simd, v[0].worst, limit);
      failed_overall[fi][ti] = true;
      return;
   }
   if (!v[0].bad && !v[1].bad) {
      if (scalar_only)
         report(true, "math %s %s simd%u: worst %.3g ulp (limit %s)", f->name, t->name, simd,
                v[0].worst, limit);
      else
         report(true, "math %s %s simd%u: worst %.3g ulp scalar, %.3g ulp vec4 (limit %s)",
                f->name, t->name, simd, v[0].worst, v[1].worst, limit);
      return;
   }
   failed_overall[fi][ti] = true;
   unsigned w = v[0].bad ? 0 : 1;
   size_t i = v[w].first_bad;
   report(false, "math %s %s simd%u %s: %zu of %zu over the limit (%s), first %s(%La, %La, %La, %d)"
          " = %La (%.3g ulp)", f->name, t->name, simd, w ? "vec4" : "scalar", v[w].bad, in->n,
          limit, f->name, get_v(t, in->x[0], i), get_v(t, in->x[1], i), get_v(t, in->x[2], i),
          in->ints[i], get_v(t, out->val, i), v[w].first_err);
}

static bool
device_ftz(struct cl *cl, struct fp *t)
{
   cl_device_fp_config config = 0;

   if (clGetDeviceInfo(cl->dev, t->config, sizeof(config), &config, NULL) || !config)
      return false;
   t->ftz = !(config & CL_FP_DENORM);
   return true;
}

/* The functions known not to build still do not (one program of them
 * all), and those known to abort the process are not built. */
static void
check_known_not_building(struct cl *cl, const struct fp *t)
{
   char *src = math_source(t, true);
   bool any = false;

   for (unsigned i = 0; i < NUM_MATH_FNS; i++) {
      const struct known_bug *kb = known_bug(&math_fns[i], t - fps);
      if (kb && kb->kind == KNOWN_NO_BUILD)
         any = true;
   }
   /* Not through build(): the failure and its log are expected. */
   cl_program prog = any ? clCreateProgramWithSource(cl->ctx, 1, (const char **)&src, NULL, NULL)
                         : NULL;
   bool built = false, reason_seen = false;
   if (prog) {
      static char log[1 << 16];
      built = !clBuildProgram(prog, 1, &cl->dev, "-DSIMD=16 -cl-std=CL3.0", NULL, NULL);
      if (!clGetProgramBuildInfo(prog, cl->dev, CL_PROGRAM_BUILD_LOG, sizeof(log) - 1, log, NULL))
         reason_seen = strstr(log, "Can't find clc function") != NULL;
      clReleaseProgram(prog);
   }
   free(src);
   for (unsigned i = 0; i < NUM_MATH_FNS; i++) {
      const struct known_bug *kb = known_bug(&math_fns[i], t - fps);
      if (!kb || kb->kind == KNOWN_INACCURATE)
         continue;
      cases_in_matrix++;
      failed_overall[i][t - fps] = true;
      if (kb->kind == KNOWN_ABORTS)
         report(true, "math %s %s: KNOWN BUG (%s): not built", math_fns[i].name, t->name,
                kb->where);
      else if (!built && reason_seen)
         report(true, "math %s %s: KNOWN BUG (%s): does not build", math_fns[i].name, t->name,
                kb->where);
      else if (!built)
         report(false, "math %s %s: the program of the functions known not to build fails "
                "for another reason than theirs", math_fns[i].name, t->name);
      else
         report(false, "math %s %s: builds now, with the other functions known not to: take "
                "them off the known bugs", math_fns[i].name, t->name);
   }
}

/* --- Denormals and float controls ------------------------------------------ */

/*
 * The table above accepts a flushed result where the device reports no
 * CL_FP_DENORM.  The Weft ALU keeps denormals, and Rusticl translates for
 * it with them preserved (Mesa patch 0197): the basic operations,
 * nextafter, ldexp and frexp give them exactly, on every type.  The
 * reference rounds once from long double (which holds the exact sums,
 * products and quotients of half and float operands closely enough: 64
 * bits >= 2 p + 2) or computes in double for double.
 */
static const char denormal_kernels[] =
   "#define add(x, y) ((x) + (y))\n"
   "#define mul(x, y) ((x) * (y))\n"
   "K_2(add)\nK_2(mul)\nK_2(divide)\nK_2(nextafter)\nK_1I(ldexp)\nK_1PI(frexp)\n";

static const struct math_fn denormal_fns[] = {
   {.name = "add", .sig = S_2},       {.name = "mul", .sig = S_2},
   {.name = "divide", .sig = S_2},    {.name = "nextafter", .sig = S_2},
   {.name = "ldexp", .sig = S_1I},    {.name = "frexp", .sig = S_1PI},
};
#define NUM_DENORMAL_FNS (sizeof(denormal_fns) / sizeof(denormal_fns[0]))

static long double
denormal_ref(const struct fp *t, const char *fn, long double x, long double y, int n, int *e)
{
   bool dbl = t->size == 8;

   *e = 0;
   if (!strcmp(fn, "add"))
      return dbl ? (double)x + (double)y : round_to(t, x + y);
   if (!strcmp(fn, "mul"))
      return dbl ? (double)x * (double)y : round_to(t, x * y);
   if (!strcmp(fn, "divide"))
      return dbl ? (double)x / (double)y : round_to(t, x / y);
   if (!strcmp(fn, "nextafter"))
      return nextafter_t(t, x, y);
   if (!strcmp(fn, "ldexp"))
      return round_to(t, ldexpl(x, n));
   return isfinite(x) ? frexpl(x, e) : x;
}

/* Zeros, the smallest denormals, the largest, the smallest normals and
 * values that scale or divide into the denormals, both signs. */
static unsigned
denormal_values(const struct fp *t, long double *v)
{
   long double dmin = ldexpl(1, t->emin - (int)t->digits + 1), nmin = ldexpl(1, t->emin);
   long double base[] = {
      0, dmin, 2 * dmin, 3 * dmin, nmin / 2, nmin / 2 + dmin, nmin - dmin, nmin, nmin + dmin,
      1.5L * nmin, 2 * nmin, 0.5L, 0.75L, 1, 1.5L, 2, 3, ldexpl(1, (int)t->digits),
   };
   unsigned n = 0;

   for (unsigned i = 0; i < sizeof(base) / sizeof(base[0]); i++) {
      v[n++] = base[i];
      v[n++] = -base[i];
   }
   return n;
}

static void
make_denormal_inputs(const struct fp *t, struct inputs *in)
{
   const int ints[] = {0, 1, -1, 2, -2, 3, -3, (int)t->digits, -(int)t->digits,
                       (int)t->digits + 1, -(int)t->digits - 1, t->emin, -t->emin};
   const unsigned nints = sizeof(ints) / sizeof(ints[0]);
   long double v[MAX_SPECIALS];
   unsigned nv = denormal_values(t, v);

   /* Every pair, the second operand also walking every element. */
   for (size_t i = 0; i < in->n; i++) {
      put_v(t, in->x[0], i, v[i % nv]);
      put_v(t, in->x[1], i, v[(i / nv + i) % nv]);
      in->ints[i] = ints[(i / nv + i) % nints];
   }
}

static bool
same_value(long double got, long double want)
{
   return isnan(want) ? isnan(got) : got == want && signbit(got) == signbit(want);
}

/* The first element of @in whose result is not exactly the reference's,
 * with denormal results flushed to zero when @flush; in->n when there is
 * none. */
static size_t
first_inexact(const struct math_fn *f, const struct fp *t, const struct inputs *in,
              const struct outputs *out, bool flush, long double *want)
{
   for (size_t i = 0; i < in->n; i++) {
      int e;
      *want = denormal_ref(t, f->name, get_v(t, in->x[0], i), get_v(t, in->x[1], i),
                           in->ints[i], &e);
      if (flush)
         *want = flushed(t, *want);
      long double got = get_v(t, out->val, i);
      /* nextafter(0, -0) is -0 in C99 and 0 in NIR's lowering: OpenCL C
       * does not say. */
      bool zeros = !strcmp(f->name, "nextafter") && got == 0 && *want == 0;
      if ((!same_value(got, *want) && !zeros) || (f->sig == S_1PI && out->ints[i] != e))
         return i;
   }
   return in->n;
}

/* The denormal kernels of @prog (scalar, and vec4 unless @scalar_only). */
static void
run_denormals(struct cl *cl, cl_program prog, const struct fp *t, unsigned simd,
              const struct buffers *b, struct inputs *in, struct outputs *out, bool scalar_only)
{
   static const char *const prefixes[] = {"s", "v"};

   make_denormal_inputs(t, in);
   for (unsigned a = 0; a < 2; a++)
      clEnqueueWriteBuffer(cl->q, b->x[a], CL_FALSE, 0, in->n * t->size, in->x[a], 0, NULL, NULL);
   clEnqueueWriteBuffer(cl->q, b->ints, CL_TRUE, 0, in->n * sizeof(int), in->ints, 0, NULL, NULL);
   for (unsigned fi = 0; fi < NUM_DENORMAL_FNS; fi++) {
      const struct math_fn *f = &denormal_fns[fi];
      for (unsigned w = 0; w < (scalar_only ? 1 : 2); w++) {
         long double want = 0;
         cases_in_matrix++;
         if (!prog || !run_math_kernel(cl, prog, prefixes[w], f, t, b, in, out, w ? 4 : 1)) {
            report(false, "denormals %s %s simd%u: did not run", f->name, t->name, simd);
            continue;
         }
         size_t i = first_inexact(f, t, in, out, false, &want);
         if (i == in->n)
            report(true, "denormals %s %s simd%u %s: %zu results exact", f->name, t->name, simd,
                   w ? "vec4" : "scalar", in->n);
         else
            report(false, "denormals %s %s simd%u %s: %s(%La, %La, %d) = %La (exp %d), want %La",
                   f->name, t->name, simd, w ? "vec4" : "scalar", f->name,
                   get_v(t, in->x[0], i), get_v(t, in->x[1], i), in->ints[i],
                   get_v(t, out->val, i), out->ints[i], want);
      }
   }
}

/*
 * OpenCL C allows no transform that changes a result unless the program is
 * built with -cl-fast-relaxed-math or -cl-unsafe-math-optimizations (or
 * the finer options).  NIR's inexact rules would fold each of these
 * kernels: a + 0 to a (wrong for -0), mad(a, b, 0) to a * b (-0 * 1),
 * a * 0 to 0 (infinity, NaN), a - a to 0 (infinity, NaN), and a
 * conversion to a narrower type and back to nothing (its rounding).  With
 * the options they may, and do on weft.
 */
static const char exactness_kernels[] =
   "REQD __kernel void add_zero(ARGS) { I; out[i] = a[i] + (T)0; }\n"
   "REQD __kernel void mad_zero(ARGS) { I; out[i] = mad(a[i], b[i], (T)0); }\n"
   "REQD __kernel void mul_zero(ARGS) { I; out[i] = a[i] * (T)0; }\n"
   "REQD __kernel void sub_self(ARGS) { I; out[i] = a[i] - a[i]; }\n"
   "#ifdef NARROW\n"
   "REQD __kernel void narrow(ARGS) { I; out[i] = (T)(NARROW)a[i]; }\n"
   "#endif\n";

static const struct math_fn exactness_fns[] = {
   {.name = "add_zero"}, {.name = "mad_zero"}, {.name = "mul_zero"},
   {.name = "sub_self"}, {.name = "narrow"},
};
#define NUM_EXACTNESS_FNS (sizeof(exactness_fns) / sizeof(exactness_fns[0]))

/* The narrower type of @t's "narrow" kernel; NULL for half. */
static const struct fp *
narrower(const struct fp *t)
{
   return t == &fps[FLOAT] ? &fps[HALF] : t == &fps[DOUBLE] ? &fps[FLOAT] : NULL;
}

static long double
exactness_ref(const struct fp *t, const char *fn, long double x, long double y)
{
   if (!strcmp(fn, "add_zero"))
      return round_to(t, x + 0.0L);
   if (!strcmp(fn, "mad_zero")) /* fma and mul + add agree when y is 1 */
      return round_to(t, x * y + 0.0L);
   if (!strcmp(fn, "mul_zero"))
      return x * 0.0L;
   if (!strcmp(fn, "sub_self"))
      return x - x;
   return round_to(narrower(t), x);
}

static void
make_exactness_inputs(const struct fp *t, struct inputs *in)
{
   const long double v[] = {-0.0L, 0.0L, INFINITY, -INFINITY, NAN, 1 + ldexpl(1, -20),
                            65520, 1e-6L, -3.3L, 1e39L};

   for (size_t i = 0; i < in->n; i++) {
      put_v(t, in->x[0], i, v[i % (sizeof(v) / sizeof(v[0]))]);
      put_v(t, in->x[1], i, 1);
   }
}

/* The exactness kernels of @t, and with @denormals the denormal ones: one
 * program, a build being what the VM tier pays for. */
static cl_program
build_exactness(struct cl *cl, const struct fp *t, unsigned simd, const char *options,
                bool denormals)
{
   const struct fp *nt = narrower(t);
   char *src = type_header(t);

   if (nt)
      src = append(src, "%s#define NARROW %s\n", nt->pragma, nt->name);
   src = append(src, "%s%s", exactness_kernels, denormals ? denormal_kernels : "");
   cl_program prog = build(cl, src, simd, options);
   free(src);
   return prog;
}

/* Runs @f of @prog; true when it ran. */
static bool
run_exactness(struct cl *cl, cl_program prog, const struct math_fn *f, const struct fp *t,
              const struct buffers *b, struct inputs *in, struct outputs *out)
{
   cl_int err;
   cl_mem args[] = {b->x[0], b->x[1], b->x[2], b->ints, b->val, b->val2, b->iout};
   size_t global = in->n, local = LOCAL_SIZE;
   cl_kernel k = clCreateKernel(prog, f->name, &err);
   bool ok = false;

   if (!k)
      return false;
   for (unsigned a = 0; a < sizeof(args) / sizeof(args[0]); a++) {
      if (clSetKernelArg(k, a, sizeof(cl_mem), &args[a]))
         goto out;
   }
   memset(out->val, 0xa5, in->n * t->size);
   ok = !clEnqueueWriteBuffer(cl->q, b->val, CL_FALSE, 0, in->n * t->size, out->val, 0, NULL,
                              NULL) &&
        !clEnqueueNDRangeKernel(cl->q, k, 1, NULL, &global, &local, 0, NULL, NULL) &&
        !clEnqueueReadBuffer(cl->q, b->val, CL_TRUE, 0, in->n * t->size, out->val, 0, NULL, NULL);
out:
   clReleaseKernel(k);
   return ok;
}

static void
check_exact(struct cl *cl, cl_program prog, const struct fp *t, unsigned simd,
            const struct buffers *b, struct inputs *in, struct outputs *out)
{
   make_exactness_inputs(t, in);
   clEnqueueWriteBuffer(cl->q, b->x[0], CL_FALSE, 0, in->n * t->size, in->x[0], 0, NULL, NULL);
   clEnqueueWriteBuffer(cl->q, b->x[1], CL_TRUE, 0, in->n * t->size, in->x[1], 0, NULL, NULL);
   for (unsigned fi = 0; fi < NUM_EXACTNESS_FNS; fi++) {
      const struct math_fn *f = &exactness_fns[fi];
      if (!strcmp(f->name, "narrow") && !narrower(t))
         continue;
      cases_in_matrix++;
      if (!prog || !run_exactness(cl, prog, f, t, b, in, out)) {
         report(false, "exact %s %s simd%u: did not run", f->name, t->name, simd);
         continue;
      }
      size_t i = 0;
      long double want = 0;
      for (; i < in->n; i++) {
         long double x = get_v(t, in->x[0], i);
         want = exactness_ref(t, f->name, x, get_v(t, in->x[1], i));
         if (!same_value(get_v(t, out->val, i), want))
            break;
      }
      if (i == in->n)
         report(true, "exact %s %s simd%u: computed as written", f->name, t->name, simd);
      else
         report(false, "exact %s %s simd%u: %s(%La) = %La, want %La: transformed", f->name,
                t->name, simd, f->name, get_v(t, in->x[0], i), get_v(t, out->val, i), want);
   }
}

/* With a fast-math option NIR's inexact rules apply: -0 + 0 and
 * mad(-0, 1, 0) come out as -0, the folded kernels' result, on float.
 * The VM's slice builds the first option only. */
static void
check_fast_math(struct cl *cl, const struct buffers *b, struct inputs *in, struct outputs *out,
                bool slice)
{
   static const struct {
      const char *option, *fns[2];
   } folds[] = {
      {"-cl-fast-relaxed-math", {"add_zero", "mad_zero"}},
      {"-cl-unsafe-math-optimizations", {"mad_zero"}},
   };
   const struct fp *t = &fps[FLOAT];

   make_exactness_inputs(t, in);
   clEnqueueWriteBuffer(cl->q, b->x[0], CL_FALSE, 0, in->n * t->size, in->x[0], 0, NULL, NULL);
   clEnqueueWriteBuffer(cl->q, b->x[1], CL_TRUE, 0, in->n * t->size, in->x[1], 0, NULL, NULL);
   for (unsigned k = 0; k < (slice ? 1 : sizeof(folds) / sizeof(folds[0])); k++) {
      char options[96];
      snprintf(options, sizeof(options), "-cl-std=CL3.0 %s", folds[k].option);
      cl_program prog = build_exactness(cl, t, 16, options, false);

      for (unsigned fi = 0; fi < 2 && folds[k].fns[fi]; fi++) {
         const struct math_fn f = {.name = folds[k].fns[fi]};
         cases_in_matrix++;
         /* Element 0 is -0, and b is 1. */
         bool ran = prog && run_exactness(cl, prog, &f, t, b, in, out);
         float got = ran ? ((float *)out->val)[0] : 0;
         report(ran && got == 0 && signbit(got),
                "fast math %s %s float: %s(-0) = %s%a (folded: -0)", folds[k].option, f.name,
                f.name, ran ? "" : "did not run, ", got);
      }
      if (prog)
         clReleaseProgram(prog);
   }
}

/* -cl-denorms-are-zero is a hint the driver takes (weft_nir_flush_denorms):
 * float sums and products that would be denormal are zeros of their sign,
 * the others exact. */
static void
check_denorms_are_zero(struct cl *cl, const struct buffers *b, struct inputs *in,
                       struct outputs *out)
{
   const struct fp *t = &fps[FLOAT];
   char *src = append(type_header(t), "%s", denormal_kernels);
   cl_program prog = build(cl, src, 16, "-cl-std=CL3.0 -DSCALAR_ONLY -cl-denorms-are-zero");

   free(src);
   make_denormal_inputs(t, in);
   clEnqueueWriteBuffer(cl->q, b->x[0], CL_FALSE, 0, in->n * t->size, in->x[0], 0, NULL, NULL);
   clEnqueueWriteBuffer(cl->q, b->x[1], CL_TRUE, 0, in->n * t->size, in->x[1], 0, NULL, NULL);
   for (unsigned fi = 0; fi < 2; fi++) {
      const struct math_fn *f = &denormal_fns[fi]; /* add, mul */
      long double want = 0;
      size_t i = 0;
      cases_in_matrix++;
      bool ran = prog && run_math_kernel(cl, prog, "s", f, t, b, in, out, 1);
      if (ran)
         i = first_inexact(f, t, in, out, true, &want);
      if (ran && i == in->n)
         report(true, "-cl-denorms-are-zero %s float: %zu results, the denormal ones flushed",
                f->name, in->n);
      else
         report(false, "-cl-denorms-are-zero %s float: %s%s(%La, %La) = %La, want %La",
                f->name, ran ? "" : "did not run; ", f->name, get_v(t, in->x[0], i),
                get_v(t, in->x[1], i), ran ? get_v(t, out->val, i) : 0.0L, want);
   }
   if (prog)
      clReleaseProgram(prog);
}

/*
 * Every case on the host; the VM's slice (five builds, a build costing up
 * to a minute of TCG there) runs each type at one width, every width once,
 * the denormal kernels scalar only, and one fast-math option.
 */
static void
run_float_controls(struct cl *cl, struct inputs *in, struct outputs *out, bool slice)
{
   static const unsigned widths[] = {8, 16, 32};
   size_t n = in->n;

   for (unsigned ti = 0; ti < NUM_FP; ti++) {
      const struct fp *t = &fps[ti];
      struct buffers b = {0};
      cl_int err = create_buffers(cl, t, n, &b);

      if (err) {
         cases_in_matrix++;
         report(false, "float controls %s: no buffers (%d)", t->name, err);
      }
      for (unsigned wi = 0; wi < 3 && !err; wi++) {
         if (slice && wi != ti)
            continue;
         cl_program prog = build_exactness(cl, t, widths[wi],
                                           slice ? "-cl-std=CL3.0 -DSCALAR_ONLY" : "-cl-std=CL3.0",
                                           true);

         run_denormals(cl, prog, t, widths[wi], &b, in, out, slice);
         check_exact(cl, prog, t, widths[wi], &b, in, out);
         if (prog)
            clReleaseProgram(prog);
      }
      if (ti == FLOAT && !err) {
         check_fast_math(cl, &b, in, out, slice);
         check_denorms_are_zero(cl, &b, in, out);
      }
      release_buffers(&b);
   }
}

void
run_math(struct cl *cl, bool slice)
{
   static const unsigned widths[] = {8, 16, 32};
   size_t n = slice ? SLICE_ELEMENTS : FULL_ELEMENTS, max = FULL_ELEMENTS;
   struct inputs in = {n, {malloc(max * 8), malloc(max * 8), malloc(max * 8)},
                       malloc(max * sizeof(int))};
   struct outputs out = {malloc(max * 8), malloc(max * 8), malloc(max * sizeof(int))};
   double start = now();

   for (unsigned ti = 0; ti < NUM_FP; ti++) {
      struct fp *t = &fps[ti];
      struct buffers b = {0};
      cl_int err;
      char *src;

      if (!device_ftz(cl, t)) {
         cases_in_matrix++;
         report(false, "math %s: the device reports no %s support", t->name, t->name);
         continue;
      }
      err = create_buffers(cl, t, n, &b);
      /* On the host only: the failing build writes its log on stderr. */
      if (!slice)
         check_known_not_building(cl, t);
      src = math_source(t, false);
      for (unsigned wi = 0; wi < 3; wi++) {
         /* The slice: each type at one width, every width once. */
         if (slice && wi != ti)
            continue;
         cl_program prog =
            err ? NULL : build(cl, src, widths[wi], slice ? "-cl-std=CL3.0 -DSCALAR_ONLY" : "-cl-std=CL3.0");
         if (!prog) {
            cases_in_matrix++;
            report(false, "math %s simd%u: the program did not build", t->name, widths[wi]);
            continue;
         }
         for (unsigned fi = 0; fi < NUM_MATH_FNS; fi++) {
            if (applies(&math_fns[fi], t) && builds(&math_fns[fi], t))
               run_function(cl, prog, widths[wi], &math_fns[fi], t, &b, &in, &out, slice);
         }
         clReleaseProgram(prog);
      }
      free(src);
      release_buffers(&b);
   }

   printf("math: worst error in ULP per function over %s (limit in brackets)\n",
          slice ? "one width per type" : "SIMD 8, 16 and 32");
   printf("math: denormals: half %s, float %s, double %s (CL_FP_DENORM)\n",
          fps[HALF].ftz ? "flushed" : "kept", fps[FLOAT].ftz ? "flushed" : "kept",
          fps[DOUBLE].ftz ? "flushed" : "kept");
   printf("math: %-12s %-24s %-24s %-24s\n", "function", "half", "float", "double");
   for (unsigned fi = 0; fi < NUM_MATH_FNS; fi++) {
      char cells[NUM_FP][64];
      for (unsigned ti = 0; ti < NUM_FP; ti++) {
         char limit[32];
         limit_text(limit, sizeof(limit), &math_fns[fi], &fps[ti]);
         if (!applies(&math_fns[fi], &fps[ti]))
            snprintf(cells[ti], sizeof(cells[ti]), "-");
         else if (!builds(&math_fns[fi], &fps[ti]))
            snprintf(cells[ti], sizeof(cells[ti]), "not built [%s]", limit);
         else
            snprintf(cells[ti], sizeof(cells[ti]), "%.3g [%s]%s", worst_overall[fi][ti], limit,
                     failed_overall[fi][ti] ? " FAIL" : "");
      }
      printf("math: %-12s %-24s %-24s %-24s\n", math_fns[fi].name, cells[0], cells[1], cells[2]);
   }
   printf("math: %zu inputs per function, type and width, %s, in %.1f s\n", n,
          slice ? "scalar" : "scalar and vec4", now() - start);
   /* Every pair of the denormal inputs on both tiers: running costs
    * nothing in the VM, only building does. */
   in.n = FULL_ELEMENTS;
   run_float_controls(cl, &in, &out, slice);
   for (unsigned a = 0; a < 3; a++)
      free(in.x[a]);
   free(in.ints);
   free(out.val);
   free(out.val2);
   free(out.ints);
}
