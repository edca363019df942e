// SPDX-License-Identifier: MIT
/*
 * weft-cl-conformance: the sub-group builtins of cl_khr_subgroups (and
 * cl_khr_subgroup_extended_types) and every work-group collective of
 * OpenCL C, through the ICD loader on the first GPU, on every type the
 * specifications name, at SIMD 8, 16 and 32 (intel_reqd_sub_group_size),
 * in 1D, 2D and 3D NDRanges of uniform work-groups, work-groups whose last
 * sub-group is partial, and non-uniform NDRanges whose remainder
 * work-groups are smaller.  Every output element is checked against a
 * reference computed here in C.  The work-item functions (get_global_id()
 * to get_num_groups()) are checked the same way with a global offset, at a
 * dimension known only at run time, past the third too (0 or 1 there).
 *
 * The kernels are generated from the type table (adding a type is one
 * line), one program per SIMD width, one kernel per type computing every
 * function of that type, so a few program builds cover the matrix.  Other
 * families have files of their own, run by the same program (one process,
 * also in the VM): weft-cl-conformance-math.c (every math function's
 * accuracy against the specification's ULP tables), weft-cl-conformance-
 * intel.c (the cl_intel_subgroups shuffles and block reads and writes),
 * weft-cl-conformance-intel-images.c (their block I/O on images),
 * weft-cl-conformance-enqueue.c (device-side enqueue),
 * weft-cl-conformance-pipes.c (the pipe builtins and API),
 * weft-cl-conformance-copies.c (__builtin_memcpy of constant sizes).
 *
 *   weft-cl-conformance [--slice] [--clc20 | --math | --intel | --pipes | --images |
 *                        --enqueue | --copies] [-v]
 *
 * --slice: SIMD 8, 16 and 32 in one shape (1D, partial last sub-group)
 * for the VM tier: every function at least once per width.  Prints one
 * line per case, the matrix's size and "N passed, M failed".  --clc20: the
 * OpenCL C 2.0 tests only (weft-cl-clc20.c).  --math: the math functions'
 * accuracy only (weft-cl-conformance-math.c).  --intel: the Intel
 * sub-group families only.  --pipes: the pipe family only.  --images: the
 * images family only (weft-cl-conformance-images.c).  --enqueue: the
 * device-side enqueue family only (weft-cl-conformance-enqueue.c).
 * --copies: the copies family only, which --slice leaves out (it tests the
 * compiler's lowering, the same on both tiers).
 */
#include "weft-cl-conformance.h"

#include <CL/cl_ext.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "weft-cl-conformance.h"

/* The types of the specifications: sub-group functions on all of them
 * (char/short through cl_khr_subgroup_extended_types), work-group
 * collectives on 32/64-bit integers and the floats. */
const struct type types[] = {
   {"char", 1, SINT, false},
   {"uchar", 1, UINT, false},
   {"short", 2, SINT, false},
   {"ushort", 2, UINT, false},
   {"int", 4, SINT, true},
   {"uint", 4, UINT, true},
   {"long", 8, SINT, true},
   {"ulong", 8, UINT, true},
   {"half", 2, FLT, true},
   {"float", 4, FLT, true},
   {"double", 8, FLT, true},
};
#define NUM_TYPES (sizeof(types) / sizeof(types[0]))
const unsigned num_types = NUM_TYPES;

/* The reductions and scans, in output order. */
static const char *const ops[] = {"add", "min", "max"};
static const char *const scans[] = {"reduce", "scan_inclusive", "scan_exclusive"};
#define NUM_ARITH 9
static const unsigned vec_sizes[] = {2, 3, 4, 8, 16};
#define NUM_VEC (sizeof(vec_sizes) / sizeof(vec_sizes[0]))
#define VEC_STRIDE 16

/* Sub-group kernel outputs: 9 reductions/scans, broadcast. */
#define SG_OUTS (NUM_ARITH + 1)
/* Work-group kernel outputs: 9 reductions/scans, broadcast 1D, 2D, 3D. */
#define WG_OUTS (NUM_ARITH + 3)
/* The ids kernel: sub-group size, max size, count, enqueued count, id,
 * local id, local size x/y/z, enqueued local size x/y/z. */
#define IDS_OUTS 12
/* The votes kernel: sub_group_all, _any, work_group_all, _any. */
#define VOTE_OUTS 4

/* 60 work-items leave a partial last sub-group at every width (60 = 7 * 8
 * + 4 = 3 * 16 + 12 = 32 + 28); the non-uniform shapes have remainder
 * work-groups, partial in their own way. */
const struct shape shapes[] = {
   {"1d-uniform", 1, {256, 1, 1}, {64, 1, 1}},
   {"1d-partial-sg", 1, {240, 1, 1}, {60, 1, 1}},
   {"1d-non-uniform", 1, {250, 1, 1}, {64, 1, 1}},
   {"2d-uniform", 2, {16, 16, 1}, {8, 8, 1}},
   {"2d-partial-sg", 2, {20, 12, 1}, {10, 6, 1}},
   {"2d-non-uniform", 2, {21, 13, 1}, {8, 8, 1}},
   {"3d-uniform", 3, {8, 8, 8}, {4, 4, 4}},
   {"3d-partial-sg", 3, {10, 8, 6}, {5, 4, 3}},
   {"3d-non-uniform", 3, {9, 7, 6}, {4, 4, 4}},
   /* The largest work-group, uniform and with a remainder of 476 = 14 * 32
    * + 28 work-items. */
   {"1d-max", 1, {2048, 1, 1}, {1024, 1, 1}},
   {"1d-max-non-uniform", 1, {1500, 1, 1}, {1024, 1, 1}},
};
#define NUM_SHAPES (sizeof(shapes) / sizeof(shapes[0]))
const unsigned num_shapes = NUM_SHAPES;

static int passed, failed, verbose;
/* The -cl-std of the program, when not the default CL3.0. */
static const char *std_tag = "";
unsigned long long cases_in_matrix;

/* --- Values ------------------------------------------------------------ */

double
half_to_double(uint16_t h)
{
   _Float16 f;
   memcpy(&f, &h, 2);
   return f;
}

uint16_t
double_to_half(double d)
{
   _Float16 f = (_Float16)d;
   uint16_t h;
   memcpy(&h, &f, 2);
   return h;
}

/* Element i of a buffer of @t as a double (floats) or as 64-bit bits. */
static double
get_f(const struct type *t, const void *p, size_t i)
{
   switch (t->size) {
   case 2: return half_to_double(((const uint16_t *)p)[i]);
   case 4: return ((const float *)p)[i];
   default: return ((const double *)p)[i];
   }
}

static void
set_f(const struct type *t, void *p, size_t i, double v)
{
   switch (t->size) {
   case 2: ((uint16_t *)p)[i] = double_to_half(v); break;
   case 4: ((float *)p)[i] = (float)v; break;
   default: ((double *)p)[i] = v; break;
   }
}

int64_t
get_i(const struct type *t, const void *p, size_t i)
{
   switch (t->size) {
   case 1: return t->kind == SINT ? ((const int8_t *)p)[i] : ((const uint8_t *)p)[i];
   case 2: return t->kind == SINT ? ((const int16_t *)p)[i] : ((const uint16_t *)p)[i];
   case 4: return t->kind == SINT ? (int64_t)((const int32_t *)p)[i] : (int64_t)((const uint32_t *)p)[i];
   default: return ((const int64_t *)p)[i];
   }
}

/* @v truncated to the type, as the type's value (sign- or zero-extended). */
static int64_t
wrap_i(const struct type *t, int64_t v)
{
   uint64_t m = t->size == 8 ? ~0ull : (1ull << (8 * t->size)) - 1;
   uint64_t u = (uint64_t)v & m;

   if (t->kind == SINT && t->size < 8 && (u >> (8 * t->size - 1)))
      u |= ~m;
   return (int64_t)u;
}

void
set_i(const struct type *t, void *p, size_t i, int64_t v)
{
   memcpy((char *)p + i * t->size, &v, t->size);
}

/* min/max in the type's order (unsigned 64-bit compares as unsigned). */
static int64_t
min_i(const struct type *t, int64_t a, int64_t b)
{
   if (t->kind == UINT && t->size == 8)
      return (uint64_t)a < (uint64_t)b ? a : b;
   return a < b ? a : b;
}

static int64_t
max_i(const struct type *t, int64_t a, int64_t b)
{
   if (t->kind == UINT && t->size == 8)
      return (uint64_t)a > (uint64_t)b ? a : b;
   return a > b ? a : b;
}

static int64_t
identity_i(const struct type *t, unsigned op)
{
   unsigned bits = 8 * t->size;

   if (op == 0)
      return 0;
   if (t->kind == UINT)
      return op == 1 ? wrap_i(t, -1) : 0;
   if (op == 1)
      return bits == 64 ? INT64_MAX : (int64_t)((1ull << (bits - 1)) - 1);
   return bits == 64 ? INT64_MIN : -(int64_t)(1ull << (bits - 1));
}

static double
unit_roundoff(const struct type *t)
{
   return t->size == 2 ? ldexp(1, -11) : t->size == 4 ? ldexp(1, -24) : ldexp(1, -53);
}

/* Deterministic inputs: integers over the whole range of the type (so sums
 * wrap); float and double k/64 for |k| <= 1000, half the integers -2..2.
 * Every partial sum of up to 1024 of them is then exact in its type (at
 * most 2^16 multiples of 2^-6 for float, 2048 for half), so the checks'
 * tolerance, which holds for any order of additions, is a bound the
 * results meet with room to spare; a wrong or missing term still shows. */
static uint64_t
mix(uint64_t x)
{
   x ^= x >> 33;
   x *= 0xff51afd7ed558ccdull;
   x ^= x >> 33;
   x *= 0xc4ceb9fe1a85ec53ull;
   return x ^ (x >> 33);
}

void
fill(const struct type *t, void *p, size_t n, uint64_t seed)
{
   for (size_t i = 0; i < n; i++) {
      uint64_t r = mix(seed * 1000003 + i);
      if (t->kind == FLT && t->size == 2)
         set_f(t, p, i, (double)(r % 5) - 2.0);
      else if (t->kind == FLT)
         set_f(t, p, i, ((double)(r % 2001) - 1000.0) / 64.0);
      else
         set_i(t, p, i, (int64_t)r);
   }
}

/* --- The work-groups of a shape ----------------------------------------- */

static size_t
num_groups(const struct shape *s, unsigned d)
{
   return (s->global[d] + s->local[d] - 1) / s->local[d];
}

size_t
total_items(const struct shape *s)
{
   return s->global[0] * s->global[1] * s->global[2];
}

void
for_each_group(const struct shape *s, unsigned simd, group_fn fn, void *data)
{
   static struct item items[1024];

   for (size_t gz = 0; gz < num_groups(s, 2); gz++)
   for (size_t gy = 0; gy < num_groups(s, 1); gy++)
   for (size_t gx = 0; gx < num_groups(s, 0); gx++) {
      size_t g[3] = {gx, gy, gz};
      unsigned ls[3], n = 0;

      for (unsigned d = 0; d < 3; d++) {
         size_t left = s->global[d] - g[d] * s->local[d];
         ls[d] = left < s->local[d] ? left : s->local[d];
      }
      unsigned count = ls[0] * ls[1] * ls[2];
      for (unsigned z = 0; z < ls[2]; z++)
      for (unsigned y = 0; y < ls[1]; y++)
      for (unsigned x = 0; x < ls[0]; x++) {
         struct item *it = &items[n];
         size_t gid[3] = {g[0] * s->local[0] + x, g[1] * s->local[1] + y,
                          g[2] * s->local[2] + z};

         it->global_linear = gid[0] + gid[1] * s->global[0] +
                             gid[2] * s->global[0] * s->global[1];
         it->group_linear = gx + gy * num_groups(s, 0) + gz * num_groups(s, 0) * num_groups(s, 1);
         memcpy(it->lsize, ls, sizeof(ls));
         it->lid[0] = x, it->lid[1] = y, it->lid[2] = z;
         it->local_linear = n;
         it->n_local = count;
         it->sg = n / simd;
         it->lane = n % simd;
         it->sg_size = count - it->sg * simd < simd ? count - it->sg * simd : simd;
         it->n_sg = (count + simd - 1) / simd;
         for (unsigned d = 0; d < 3; d++)
            it->enq_lsize[d] = s->local[d];
         n++;
      }
      fn(items, n, data);
   }
}

/* --- The kernels --------------------------------------------------------- */

char *
append(char *src, const char *fmt, ...)
{
   va_list ap;
   size_t len = src ? strlen(src) : 0;
   char buf[4096];

   va_start(ap, fmt);
   vsnprintf(buf, sizeof(buf), fmt, ap);
   va_end(ap);
   src = realloc(src, len + strlen(buf) + 1);
   strcpy(src + len, buf);
   return src;
}

/* The broadcast lane of a sub-group and the broadcast work-item of a
 * work-group: uniform, inside the actual sizes, varying between groups.
 * The host computes the same. */
#define SG_SRC_LANE "(get_group_id(0) * 7 + get_sub_group_id() * 3 + 1) % get_sub_group_size()"

static unsigned
sg_src_lane(const struct item *it, const struct shape *s)
{
   size_t gx = it->group_linear % num_groups(s, 0);
   return (gx * 7 + it->sg * 3 + 1) % it->sg_size;
}

static unsigned
wg_src(const struct item *it, unsigned d)
{
   return (it->group_linear * (5 + d) + 3 * d + 1) % it->lsize[d];
}

/* cl_intel_subgroups_short and _char: intel_sub_group_broadcast, _reduce_*
 * and _scan_* on their types. */
static bool
has_intel_collectives(const struct type *t)
{
   return t->kind != FLT && t->size <= 2;
}

/* What each work-item sees of its work-group and sub-group (check_ids_group). */
static char *
ids_kernel(char *src)
{
   return append(src,
      "__kernel REQD void ids(__global uint *out)\n{\n"
      "   uint v[%u] = { get_sub_group_size(), get_max_sub_group_size(), get_num_sub_groups(),\n"
      "      get_enqueued_num_sub_groups(), get_sub_group_id(), get_sub_group_local_id(),\n"
      "      get_local_size(0), get_local_size(1), get_local_size(2),\n"
      "      get_enqueued_local_size(0), get_enqueued_local_size(1), get_enqueued_local_size(2) };\n"
      "   for (int i = 0; i < %u; i++)\n"
      "      out[i * N + GID] = v[i];\n}\n", IDS_OUTS, IDS_OUTS);
}

/* @subgroups: with the sub-group kernels (OpenCL C 3.0, or cl_khr_subgroups);
 * @work_groups: with the work-group collectives and what else needs OpenCL
 * C 2.0 or later (the ids, votes and spin kernels). */
static char *
kernel_source(bool subgroups, bool work_groups)
{
   char *src = append(NULL,
      "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
      "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
      "#ifdef cl_khr_subgroups\n"
      "#pragma OPENCL EXTENSION cl_khr_subgroups : enable\n"
      "#endif\n"
      "#define REQD __attribute__((intel_reqd_sub_group_size(SIMD)))\n"
      "#define GID (get_global_id(0) + get_global_id(1) * get_global_size(0) + \\\n"
      "             get_global_id(2) * get_global_size(0) * get_global_size(1))\n"
      "#define N (get_global_size(0) * get_global_size(1) * get_global_size(2))\n"
      "#define SG_SRC_LANE %s\n"
      "#define WG_SRC(d) (uint)((get_group_id(0) + get_group_id(1) * get_num_groups(0) + "
      "get_group_id(2) * get_num_groups(0) * get_num_groups(1)) * (5 + d) + 3 * d + 1) %% "
      "(uint)get_local_size(d)\n", SG_SRC_LANE);

   for (unsigned t = 0; t < NUM_TYPES; t++) {
      const char *T = types[t].name;

      if (!subgroups)
         goto work_group;
      for (unsigned intel = 0; intel < (has_intel_collectives(&types[t]) ? 2 : 1); intel++) {
         const char *fn = intel ? "intel_sub_group" : "sub_group";

         if (intel)
            src = append(src, "#ifdef cl_intel_subgroups_%s\n", types[t].size == 1 ? "char" : "short");
         src = append(src, "__kernel REQD void %ssg_%s(__global const %s *in, __global %s *out)\n{\n"
                           "   %s x = in[GID];\n", intel ? "i" : "", T, T, T, T);
         for (unsigned s = 0; s < 3; s++)
            for (unsigned o = 0; o < 3; o++)
               src = append(src, "   out[%u * N + GID] = %s_%s_%s(x);\n", s * 3 + o, fn,
                            scans[s], ops[o]);
         src = append(src, "   out[9 * N + GID] = %s_broadcast(x, SG_SRC_LANE);\n}\n%s", fn,
                      intel ? "#endif\n" : "");
      }

      src = append(src, "__kernel REQD void sgv_%s(__global const %s *in, __global %s *out)\n{\n",
                   T, T, T);
      for (unsigned v = 0; v < NUM_VEC; v++) {
         src = append(src, "   vstore%u(sub_group_broadcast(vload%u(0, in + GID * %u), SG_SRC_LANE), "
                           "0, out + (%u * N + GID) * %u);\n", vec_sizes[v], vec_sizes[v],
                      VEC_STRIDE, v, VEC_STRIDE);
      }
      src = append(src, "}\n");

   work_group:
      if (!types[t].work_group || !work_groups)
         continue;
      src = append(src, "__kernel REQD void wg_%s(__global const %s *in, __global %s *out)\n{\n"
                        "   %s x = in[GID];\n", T, T, T, T);
      for (unsigned s = 0; s < 3; s++)
         for (unsigned o = 0; o < 3; o++)
            src = append(src, "   out[%u * N + GID] = work_group_%s_%s(x);\n", s * 3 + o,
                         scans[s], ops[o]);
      src = append(src,
                   "   out[9 * N + GID] = work_group_broadcast(x, WG_SRC(0));\n"
                   "   out[10 * N + GID] = work_group_broadcast(x, WG_SRC(0), WG_SRC(1));\n"
                   "   out[11 * N + GID] = work_group_broadcast(x, WG_SRC(0), WG_SRC(1), WG_SRC(2));\n"
                   "}\n");
   }
   if (!subgroups || !work_groups)
      return src;
   src = ids_kernel(src);
   /* Independent forward progress: the first sub-group spins on a flag
    * that only the last one sets, with no barrier between them. */
   src = append(src,
      "__kernel REQD void spin_global(__global volatile int *flag, __global int *out)\n{\n"
      "   int seen = 0;\n"
      "   if (get_sub_group_id() == 0) {\n"
      "      while (flag[get_group_id(0)] == 0)\n"
      "         ;\n"
      "      seen = flag[get_group_id(0)];\n"
      "   } else if (get_sub_group_id() == get_num_sub_groups() - 1) {\n"
      "      flag[get_group_id(0)] = 1 + get_group_id(0);\n"
      "   }\n"
      "   out[GID] = seen;\n}\n"
      "__kernel REQD void spin_local(__global const int *unused, __global int *out)\n{\n"
      "   __local volatile int flag;\n"
      "   int seen = 0;\n"
      "   if (get_local_id(0) == 0)\n"
      "      flag = 0;\n"
      "   barrier(CLK_LOCAL_MEM_FENCE);\n"
      "   if (get_sub_group_id() == 0) {\n"
      "      while (flag == 0)\n"
      "         ;\n"
      "      seen = flag;\n"
      "   } else if (get_sub_group_id() == get_num_sub_groups() - 1) {\n"
      "      flag = 7 + get_group_id(0);\n"
      "   }\n"
      "   out[GID] = seen;\n}\n");
   src = append(src,
      "__kernel REQD void votes(__global const int *flag, __global int *out)\n{\n"
      "   int f = flag[GID];\n"
      "   out[0 * N + GID] = sub_group_all(f) != 0;\n"
      "   out[1 * N + GID] = sub_group_any(f) != 0;\n"
      "   out[2 * N + GID] = work_group_all(f) != 0;\n"
      "   out[3 * N + GID] = work_group_any(f) != 0;\n}\n");
   return src;
}

/* --- Checking ------------------------------------------------------------ */

struct check {
   const struct type *t;
   const struct shape *shape;
   const void *in, *out;
   size_t n;
   unsigned out_index; /* which output array */
   unsigned kind;      /* what to check, below */
   unsigned bad, first_bad_index;
   double first_got, first_want;
   int64_t first_got_i, first_want_i;
};

enum { CK_ARITH, CK_SG_BCAST, CK_WG_BCAST, CK_VEC_BCAST };

static void
note_bad(struct check *c, size_t idx, double got, double want, int64_t gi, int64_t wi)
{
   if (!c->bad++) {
      c->first_bad_index = idx;
      c->first_got = got, c->first_want = want;
      c->first_got_i = gi, c->first_want_i = wi;
   }
}

/* The items [first, first + n) in lane or local order: one reduction/scan
 * group (a sub-group or a work-group). */
static void
check_arith(struct check *c, const struct item *it, unsigned n)
{
   const struct type *t = c->t;
   unsigned scan = c->out_index / 3, op = c->out_index % 3;
   const char *outp = (const char *)c->out + (size_t)c->out_index * c->n * t->size;

   if (t->kind == FLT) {
      /* The reference in long double, with the sum of magnitudes for the
       * bound: any order of n - 1 additions in the type is within
       * (n - 1) * u * sum|x_i| of the exact sum (Higham, Accuracy and
       * Stability of Numerical Algorithms, 4.2), plus half an ulp for
       * the rounding of the result.  min and max are exact. */
      long double acc = 0, mag = 0;
      double m = op == 1 ? INFINITY : -INFINITY;
      for (unsigned i = 0; i < n; i++) {
         double x = get_f(t, c->in, it[i].global_linear);
         double want;
         unsigned terms = scan == 2 ? i : i + 1;
         long double acc_before = acc, mag_before = mag;
         double m_before = m;

         acc += x, mag += fabs(x);
         m = op == 1 ? fmin(m, x) : fmax(m, x);
         if (scan == 0)
            continue;
         if (op == 0) {
            long double a = scan == 2 ? acc_before : acc, g = scan == 2 ? mag_before : mag;
            double got = get_f(t, outp, it[i].global_linear);
            double tol = (terms > 1 ? (terms - 1) : 0) * unit_roundoff(t) * (double)g +
                         unit_roundoff(t) * fabs((double)a);
            if (!(fabs(got - (double)a) <= tol))
               note_bad(c, it[i].global_linear, got, (double)a, 0, 0);
         } else {
            want = scan == 2 ? m_before : m;
            double got = get_f(t, outp, it[i].global_linear);
            if (!(got == want))
               note_bad(c, it[i].global_linear, got, want, 0, 0);
         }
      }
      if (scan == 0) {
         for (unsigned i = 0; i < n; i++) {
            double got = get_f(t, outp, it[i].global_linear);
            if (op == 0) {
               double tol = (n - 1) * unit_roundoff(t) * (double)mag +
                            unit_roundoff(t) * fabs((double)acc);
               if (!(fabs(got - (double)acc) <= tol))
                  note_bad(c, it[i].global_linear, got, (double)acc, 0, 0);
            } else if (!(got == m)) {
               note_bad(c, it[i].global_linear, got, m, 0, 0);
            }
         }
      }
      return;
   }

   int64_t acc = identity_i(t, op);
   for (unsigned pass = 0; pass < (scan == 0 ? 2 : 1); pass++) {
      if (pass == 1) {
         for (unsigned i = 0; i < n; i++) {
            int64_t got = get_i(t, outp, it[i].global_linear);
            if (got != acc)
               note_bad(c, it[i].global_linear, 0, 0, got, acc);
         }
         break;
      }
      for (unsigned i = 0; i < n; i++) {
         int64_t x = get_i(t, c->in, it[i].global_linear);
         int64_t before = acc;
         acc = op == 0 ? wrap_i(t, (int64_t)((uint64_t)acc + (uint64_t)x))
             : op == 1 ? min_i(t, acc, x) : max_i(t, acc, x);
         if (scan == 0)
            continue;
         int64_t want = scan == 2 ? before : acc;
         int64_t got = get_i(t, outp, it[i].global_linear);
         if (got != want)
            note_bad(c, it[i].global_linear, 0, 0, got, want);
      }
   }
}

bool
same_bits(const struct type *t, const void *a, size_t ia, const void *b, size_t ib)
{
   return !memcmp((const char *)a + ia * t->size, (const char *)b + ib * t->size, t->size);
}

struct group_ctx {
   struct check *c;
   unsigned simd;
};

static void
check_group(const struct item *items, unsigned n, void *data)
{
   struct group_ctx *g = data;
   struct check *c = g->c;
   const struct type *t = c->t;

   switch (c->kind) {
   case CK_ARITH:
      if (c->out_index < NUM_ARITH && g->simd) {
         for (unsigned first = 0; first < n; first += g->simd)
            check_arith(c, items + first, items[first].sg_size);
      } else {
         check_arith(c, items, n);
      }
      return;
   case CK_SG_BCAST: {
      const char *outp = (const char *)c->out + (size_t)9 * c->n * t->size;
      for (unsigned i = 0; i < n; i++) {
         const struct item *src = &items[items[i].sg * g->simd + sg_src_lane(&items[i], c->shape)];
         if (!same_bits(t, outp, items[i].global_linear, c->in, src->global_linear))
            note_bad(c, items[i].global_linear, 0, 0, get_i(t, outp, items[i].global_linear),
                     get_i(t, c->in, src->global_linear));
      }
      return;
   }
   case CK_VEC_BCAST: {
      unsigned v = c->out_index, w = vec_sizes[v];
      for (unsigned i = 0; i < n; i++) {
         const struct item *src = &items[items[i].sg * g->simd + sg_src_lane(&items[i], c->shape)];
         for (unsigned k = 0; k < w; k++) {
            size_t o = ((size_t)v * c->n + items[i].global_linear) * VEC_STRIDE + k;
            size_t s = src->global_linear * VEC_STRIDE + k;
            if (!same_bits(t, c->out, o, c->in, s))
               note_bad(c, items[i].global_linear, 0, 0, get_i(t, c->out, o), get_i(t, c->in, s));
         }
      }
      return;
   }
   case CK_WG_BCAST: {
      unsigned dims = c->out_index - 8; /* outputs 9, 10, 11: 1D, 2D, 3D */
      const char *outp = (const char *)c->out + (size_t)c->out_index * c->n * t->size;
      unsigned x = wg_src(&items[0], 0), y = dims > 1 ? wg_src(&items[0], 1) : 0,
               z = dims > 2 ? wg_src(&items[0], 2) : 0;
      const struct item *src = &items[x + y * items[0].lsize[0] +
                                      z * items[0].lsize[0] * items[0].lsize[1]];
      for (unsigned i = 0; i < n; i++) {
         if (!same_bits(t, outp, items[i].global_linear, c->in, src->global_linear))
            note_bad(c, items[i].global_linear, 0, 0, get_i(t, outp, items[i].global_linear),
                     get_i(t, c->in, src->global_linear));
      }
      return;
   }
   }
}

void
report(bool ok, const char *fmt, ...)
{
   va_list ap;

   printf("%-7s ", ok ? "ok" : "FAILED");
   va_start(ap, fmt);
   vprintf(fmt, ap);
   va_end(ap);
   printf("%s\n", std_tag);
   if (ok)
      passed++;
   else
      failed++;
}

/* Checks @c over every group; @group_simd 0: the reductions and scans run
 * over whole work-groups. */
static void
finish(struct check *c, unsigned simd, unsigned group_simd, const char *what)
{
   struct group_ctx g = {c, group_simd};

   cases_in_matrix++;
   for_each_group(c->shape, simd, check_group, &g);
   if (!c->bad) {
      report(true, "%s %s simd%u %s", what, c->t->name, simd, c->shape->name);
   } else if (c->t->kind == FLT && c->kind == CK_ARITH) {
      report(false, "%s %s simd%u %s: %u wrong, first at %u: %.9g, want %.9g", what, c->t->name,
             simd, c->shape->name, c->bad, c->first_bad_index, c->first_got, c->first_want);
   } else {
      report(false, "%s %s simd%u %s: %u wrong, first at %u: 0x%" PRIx64 ", want 0x%" PRIx64,
             what, c->t->name, simd, c->shape->name, c->bad, c->first_bad_index,
             (uint64_t)c->first_got_i, (uint64_t)c->first_want_i);
   }
}

/* --- Running --------------------------------------------------------------- */

#define CL_CHECK(call)                                                                  \
   do {                                                                                 \
      cl_int err_ = (call);                                                             \
      if (err_ != CL_SUCCESS) {                                                         \
         fprintf(stderr, "%s:%d: %s: %d\n", __FILE__, __LINE__, #call, err_);             \
         return false;                                                                  \
      }                                                                                 \
   } while (0)

bool
run(struct cl *cl, cl_program prog, const char *name, const struct shape *s, const void *in,
    size_t in_bytes, void *out, size_t out_bytes)
{
   return run_with_arg(cl, prog, name, s, in, in_bytes, out, out_bytes, NULL, 0);
}

bool
run_with_arg(struct cl *cl, cl_program prog, const char *name, const struct shape *s,
             const void *in, size_t in_bytes, void *out, size_t out_bytes, const void *arg,
             size_t arg_size)
{
   cl_int err;
   cl_kernel k = clCreateKernel(prog, name, &err);
   cl_mem bin = NULL, bout = NULL;
   bool ok = false;

   if (!k) {
      fprintf(stderr, "clCreateKernel(%s): %d\n", name, err);
      return false;
   }
   memset(out, 0xa5, out_bytes);
   bout = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, out_bytes, out, &err);
   if (in)
      bin = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, in_bytes,
                           (void *)in, &err);
   if (!bout || (in && !bin))
      goto out;
   unsigned a = 0;
   if (in && clSetKernelArg(k, a++, sizeof(bin), &bin))
      goto out;
   if (clSetKernelArg(k, a++, sizeof(bout), &bout))
      goto out;
   if (arg && clSetKernelArg(k, a++, arg_size, arg))
      goto out;
   err = clEnqueueNDRangeKernel(cl->q, k, s->dims, NULL, s->global,
                                s->null_local ? NULL : s->local, 0, NULL, NULL);
   if (err) {
      fprintf(stderr, "clEnqueueNDRangeKernel(%s, %s): %d\n", name, s->name, err);
      goto out;
   }
   err = clEnqueueReadBuffer(cl->q, bout, CL_TRUE, 0, out_bytes, out, 0, NULL, NULL);
   ok = err == CL_SUCCESS;
out:
   if (bin)
      clReleaseMemObject(bin);
   if (bout)
      clReleaseMemObject(bout);
   clReleaseKernel(k);
   return ok;
}

static void
run_type(struct cl *cl, cl_program prog, unsigned simd, const struct shape *s,
         const struct type *t, bool subgroups, bool work_groups)
{
   size_t n = total_items(s);
   char name[64], what[96];
   void *in = calloc(n * VEC_STRIDE, t->size);
   void *out = calloc(n * (NUM_VEC * VEC_STRIDE + WG_OUTS + SG_OUTS), t->size);
   bool ran;

   fill(t, in, n * VEC_STRIDE, simd * 131 + (uint64_t)(s - shapes) * 17 + (uint64_t)(t - types));

   if (!subgroups)
      goto work_group;
   /* Sub-group reductions, scans and broadcast; the same under their
    * cl_intel_subgroups_short/_char names. */
   for (unsigned intel = 0; intel < (has_intel_collectives(t) ? 2 : 1); intel++) {
      const char *fn = intel ? "intel_sub_group" : "sub_group";

      snprintf(name, sizeof(name), "%ssg_%s", intel ? "i" : "", t->name);
      ran = run(cl, prog, name, s, in, n * t->size, out, n * SG_OUTS * t->size);
      for (unsigned o = 0; o < SG_OUTS; o++) {
         struct check c = {t, s, in, out, n, o, o < NUM_ARITH ? CK_ARITH : CK_SG_BCAST};
         if (o < NUM_ARITH)
            snprintf(what, sizeof(what), "%s_%s_%s", fn, scans[o / 3], ops[o % 3]);
         else
            snprintf(what, sizeof(what), "%s_broadcast", fn);
         if (!ran) {
            cases_in_matrix++;
            report(false, "%s %s simd%u %s: did not run", what, t->name, simd, s->name);
            continue;
         }
         finish(&c, simd, simd, what);
      }
   }

   /* Broadcast of the vector types. */
   snprintf(name, sizeof(name), "sgv_%s", t->name);
   ran = run(cl, prog, name, s, in, n * VEC_STRIDE * t->size, out,
             n * NUM_VEC * VEC_STRIDE * t->size);
   for (unsigned v = 0; v < NUM_VEC; v++) {
      struct check c = {t, s, in, out, n, v, CK_VEC_BCAST};
      snprintf(what, sizeof(what), "sub_group_broadcast(%s%u)", t->name, vec_sizes[v]);
      if (!ran) {
         cases_in_matrix++;
         report(false, "%s simd%u %s: did not run", what, simd, s->name);
         continue;
      }
      finish(&c, simd, simd, what);
   }

work_group:
   if (t->work_group && work_groups) {
      snprintf(name, sizeof(name), "wg_%s", t->name);
      ran = run(cl, prog, name, s, in, n * t->size, out, n * WG_OUTS * t->size);
      for (unsigned o = 0; o < WG_OUTS; o++) {
         struct check c = {t, s, in, out, n, o, o < NUM_ARITH ? CK_ARITH : CK_WG_BCAST};
         if (o < NUM_ARITH)
            snprintf(what, sizeof(what), "work_group_%s_%s", scans[o / 3], ops[o % 3]);
         else
            snprintf(what, sizeof(what), "work_group_broadcast-%ud", o - 8);
         if (!ran) {
            cases_in_matrix++;
            report(false, "%s %s simd%u %s: did not run", what, t->name, simd, s->name);
            continue;
         }
         finish(&c, simd, o < NUM_ARITH ? 0 : simd, what);
      }
   }
   free(in);
   free(out);
}

struct ids_ctx {
   const uint32_t *out;
   size_t n;
   unsigned simd;
   unsigned bad;
   char first[160];
};

static void
check_ids_group(const struct item *items, unsigned n, void *data)
{
   struct ids_ctx *x = data;

   for (unsigned i = 0; i < n; i++) {
      const struct item *it = &items[i];
      unsigned enq = it->enq_lsize[0] * it->enq_lsize[1] * it->enq_lsize[2];
      uint32_t want[IDS_OUTS] = {it->sg_size, 0, it->n_sg, 0, it->sg, it->lane,
                                 it->lsize[0], it->lsize[1], it->lsize[2],
                                 it->enq_lsize[0], it->enq_lsize[1], it->enq_lsize[2]};
      /* The width, checked against the required one in run_ids. */
      want[1] = x->simd;
      want[3] = (enq + want[1] - 1) / want[1];
      for (unsigned k = 0; k < IDS_OUTS; k++) {
         uint32_t got = x->out[k * x->n + it->global_linear];
         if (got != want[k] && !x->bad++)
            snprintf(x->first, sizeof(x->first), "value %u of item %zu: %u, want %u", k,
                     it->global_linear, got, want[k]);
      }
   }
}

static void
run_ids(struct cl *cl, cl_program prog, unsigned simd, const struct shape *s)
{
   size_t n = total_items(s);
   uint32_t *out = calloc(n * IDS_OUTS, 4);
   struct ids_ctx x = {out, n, simd};

   cases_in_matrix++;
   if (!run(cl, prog, "ids", s, NULL, 0, out, n * IDS_OUTS * 4)) {
      report(false, "sub-group-and-local-ids simd%u %s: did not run", simd, s->name);
      free(out);
      return;
   }
   for_each_group(s, simd, check_ids_group, &x);
   if (x.bad)
      report(false, "sub-group-and-local-ids simd%u %s: %u wrong, first %s", simd, s->name,
             x.bad, x.first);
   else
      report(true, "sub-group-and-local-ids simd%u %s", simd, s->name);
   free(out);
}

struct vote_ctx {
   const int32_t *flag, *out;
   size_t n;
   unsigned simd, bad[VOTE_OUTS];
};

static void
check_votes_group(const struct item *items, unsigned n, void *data)
{
   struct vote_ctx *v = data;
   int wg_all = 1, wg_any = 0;

   for (unsigned i = 0; i < n; i++) {
      wg_all &= v->flag[items[i].global_linear] != 0;
      wg_any |= v->flag[items[i].global_linear] != 0;
   }
   for (unsigned first = 0; first < n; first += v->simd) {
      int all = 1, any = 0;
      for (unsigned i = first; i < first + items[first].sg_size; i++) {
         all &= v->flag[items[i].global_linear] != 0;
         any |= v->flag[items[i].global_linear] != 0;
      }
      for (unsigned i = first; i < first + items[first].sg_size; i++) {
         int want[VOTE_OUTS] = {all, any, wg_all, wg_any};
         for (unsigned k = 0; k < VOTE_OUTS; k++)
            v->bad[k] += v->out[k * v->n + items[i].global_linear] != want[k];
      }
   }
}

/* Flags per group: all set, none, one, all but one, so every vote sees
 * both answers. */
static void
set_flags_group(const struct item *items, unsigned n, void *data)
{
   int32_t *flag = data;
   unsigned pattern = items[0].group_linear % 4;

   for (unsigned i = 0; i < n; i++) {
      unsigned special = (items[0].group_linear * 13) % n;
      int f = pattern == 0 ? 1 : pattern == 1 ? 0 : pattern == 2 ? i == special : i != special;
      flag[items[i].global_linear] = f ? (int)(i * 2 + 1) : 0;
   }
}

static void
run_votes(struct cl *cl, cl_program prog, unsigned simd, const struct shape *s)
{
   static const char *const names[VOTE_OUTS] = {"sub_group_all", "sub_group_any",
                                                "work_group_all", "work_group_any"};
   size_t n = total_items(s);
   int32_t *flag = calloc(n, 4), *out = calloc(n * VOTE_OUTS, 4);
   struct vote_ctx v = {flag, out, n, simd};
   bool ran;

   for_each_group(s, simd, set_flags_group, flag);
   ran = run(cl, prog, "votes", s, flag, n * 4, out, n * VOTE_OUTS * 4);
   if (ran)
      for_each_group(s, simd, check_votes_group, &v);
   for (unsigned k = 0; k < VOTE_OUTS; k++) {
      cases_in_matrix++;
      if (!ran)
         report(false, "%s simd%u %s: did not run", names[k], simd, s->name);
      else if (v.bad[k])
         report(false, "%s simd%u %s: %u wrong", names[k], simd, s->name, v.bad[k]);
      else
         report(true, "%s simd%u %s", names[k], simd, s->name);
   }
   free(flag);
   free(out);
}

cl_program
build(struct cl *cl, const char *src, unsigned simd, const char *std)
{
   char opts[128];
   cl_int err;
   cl_program p = clCreateProgramWithSource(cl->ctx, 1, &src, NULL, &err);

   snprintf(opts, sizeof(opts), "-DSIMD=%u %s", simd, std);
   if (!p)
      return NULL;
   err = clBuildProgram(p, 1, &cl->dev, opts, NULL, NULL);
   if (err != CL_SUCCESS) {
      char log[8192] = "";
      clGetProgramBuildInfo(p, cl->dev, CL_PROGRAM_BUILD_LOG, sizeof(log) - 1, log, NULL);
      fprintf(stderr, "clBuildProgram(%s): %d\n%s\n", opts, err, log);
      clReleaseProgram(p);
      return NULL;
   }
   return p;
}

/* --- The work-item functions at a dimension known only at run time ------- */

/* get_global_id() .. get_num_groups() of dimension first_dim + k (first_dim
 * is 0, passed at run time so that no dimension is a constant): 0, 1 and 2,
 * then 3, 4 and UINT_MAX, where OpenCL C defines the ids and the offset as
 * 0 and the sizes as 1. */
#define WORK_ITEM_FUNCS 8
#define WORK_ITEM_DIMS 6
static const char work_item_dims_src[] =
   "__kernel void work_item_dims(__global ulong *out, uint first_dim)\n{\n"
   "   size_t n = get_global_size(0) * get_global_size(1) * get_global_size(2);\n"
   "   size_t gl = ((get_global_id(2) - get_global_offset(2)) * get_global_size(1) +\n"
   "                get_global_id(1) - get_global_offset(1)) * get_global_size(0) +\n"
   "               get_global_id(0) - get_global_offset(0);\n"
   "   for (uint k = 0; k < 6; k++) {\n"
   "      uint d = k < 5 ? first_dim + k : ~0u;\n"
   "      size_t v[8] = { get_global_id(d), get_global_offset(d), get_local_id(d),\n"
   "         get_group_id(d), get_global_size(d), get_local_size(d),\n"
   "         get_enqueued_local_size(d), get_num_groups(d) };\n"
   "      for (uint f = 0; f < 8; f++)\n"
   "         out[(k * 8 + f) * n + gl] = v[f];\n"
   "   }\n}\n";

static const char *const work_item_funcs[WORK_ITEM_FUNCS] = {
   "get_global_id", "get_global_offset", "get_local_id", "get_group_id",
   "get_global_size", "get_local_size", "get_enqueued_local_size", "get_num_groups",
};

/* The global offset of every dimension the NDRange has. */
static const size_t work_item_offset[3] = {9, 8, 7};

struct work_item_ctx {
   const struct shape *s;
   const uint64_t *out;
   unsigned bad;
   char first[200];
};

static void
check_work_item_group(const struct item *items, unsigned n, void *data)
{
   struct work_item_ctx *x = data;
   const struct shape *s = x->s;
   size_t total = total_items(s);

   for (unsigned i = 0; i < n; i++) {
      const struct item *it = &items[i];
      size_t gid[3] = {it->global_linear % s->global[0],
                       it->global_linear / s->global[0] % s->global[1],
                       it->global_linear / s->global[0] / s->global[1]};

      for (unsigned k = 0; k < WORK_ITEM_DIMS; k++) {
         unsigned d = k < 5 ? k : ~0u;
         uint64_t want[WORK_ITEM_FUNCS] = {0, 0, 0, 0, 1, 1, 1, 1};

         if (d < 3) {
            size_t off = d < s->dims ? work_item_offset[d] : 0;
            size_t groups = (s->global[d] + s->local[d] - 1) / s->local[d];

            want[0] = gid[d] + off;
            want[1] = off;
            want[2] = it->lid[d];
            want[3] = gid[d] / s->local[d];
            want[4] = s->global[d];
            want[5] = it->lsize[d];
            want[6] = s->local[d];
            want[7] = groups;
         }
         for (unsigned f = 0; f < WORK_ITEM_FUNCS; f++) {
            uint64_t got = x->out[(k * WORK_ITEM_FUNCS + f) * total + it->global_linear];

            if (got != want[f] && !x->bad++)
               snprintf(x->first, sizeof(x->first), "%s(%u) of item %zu: %llu, want %llu",
                        work_item_funcs[f], d, it->global_linear, (unsigned long long)got,
                        (unsigned long long)want[f]);
         }
      }
   }
}

/* One case: the NDRange of @s with work_item_offset, every value checked. */
static void
run_work_item_dims_shape(struct cl *cl, cl_kernel k, unsigned simd, const struct shape *s)
{
   size_t n = total_items(s), size = n * WORK_ITEM_DIMS * WORK_ITEM_FUNCS * 8;
   uint64_t *out = calloc(1, size);
   struct work_item_ctx x = {s, out, 0, ""};
   cl_uint first_dim = 0;
   cl_int err = CL_INVALID_KERNEL;
   cl_mem buf = clCreateBuffer(cl->ctx, CL_MEM_WRITE_ONLY, size, NULL, &err);

   cases_in_matrix++;
   if (k && buf && !(err = clSetKernelArg(k, 0, sizeof(buf), &buf)) &&
       !(err = clSetKernelArg(k, 1, sizeof(first_dim), &first_dim)) &&
       !(err = clEnqueueNDRangeKernel(cl->q, k, s->dims, work_item_offset, s->global, s->local,
                                      0, NULL, NULL)))
      err = clEnqueueReadBuffer(cl->q, buf, CL_TRUE, 0, size, out, 0, NULL, NULL);
   if (err) {
      report(false, "work-item-dims simd%u %s: did not run: %d", simd, s->name, (int)err);
   } else {
      for_each_group(s, simd, check_work_item_group, &x);
      if (x.bad)
         report(false, "work-item-dims simd%u %s: %u wrong, first %s", simd, s->name, x.bad,
                x.first);
      else
         report(true, "work-item-dims simd%u %s", simd, s->name);
   }
   if (buf)
      clReleaseMemObject(buf);
   free(out);
}

/* Every width over every shape; the VM's slice: SIMD 16, 3D non-uniform. */
static void
run_work_item_dims(struct cl *cl, bool slice)
{
   static const unsigned widths[] = {8, 16, 32};

   for (unsigned w = 0; w < 3; w++) {
      if (slice && widths[w] != 16)
         continue;
      cl_program prog = build(cl, work_item_dims_src, widths[w], "-cl-std=CL3.0");
      cl_kernel k = prog ? clCreateKernel(prog, "work_item_dims", NULL) : NULL;

      for (unsigned si = 0; si < NUM_SHAPES; si++) {
         if (!slice || !strcmp(shapes[si].name, "3d-non-uniform"))
            run_work_item_dims_shape(cl, k, widths[w], &shapes[si]);
      }
      if (k)
         clReleaseKernel(k);
      if (prog)
         clReleaseProgram(prog);
   }
}

struct wg_size_ctx {
   const uint32_t *out;
   size_t n;
   unsigned bad;
   char first[160];
};

static void
check_wg_size_group(const struct item *items, unsigned n, void *data)
{
   struct wg_size_ctx *x = data;

   for (unsigned i = 0; i < n; i++) {
      const struct item *it = &items[i];
      uint32_t size = x->out[it->global_linear], linear = x->out[x->n + it->global_linear];

      if ((size != it->n_local || linear != it->local_linear) && !x->bad++)
         snprintf(x->first, sizeof(x->first),
                  "item %zu: work_group_reduce_add(1) %u, local linear id %u; want %u, %u",
                  it->global_linear, size, linear, it->n_local, it->local_linear);
   }
}

/* The ids and a work-group reduction of a kernel with reqd_work_group_size
 * (@s's local size) launched over @s, with that local size or a NULL one. */
static void
check_reqd_launch(struct cl *cl, cl_program prog, unsigned simd, const struct shape *s)
{
   const char *how = s->null_local ? " local NULL" : "";
   size_t n = total_items(s);
   uint32_t *out = calloc(n * IDS_OUTS, 4);
   struct ids_ctx ids = {out, n, simd};
   struct wg_size_ctx wg = {out, n};

   cases_in_matrix += 2;
   if (!run(cl, prog, "ids", s, NULL, 0, out, n * IDS_OUTS * 4)) {
      report(false, "reqd_work_group_size ids simd%u %s%s: did not run", simd, s->name, how);
   } else {
      for_each_group(s, simd, check_ids_group, &ids);
      report(!ids.bad, "reqd_work_group_size ids simd%u %s%s%s%s", simd, s->name, how,
             ids.bad ? ": " : "", ids.bad ? ids.first : "");
   }
   if (!run(cl, prog, "wg_size", s, NULL, 0, out, n * 2 * 4)) {
      report(false, "reqd_work_group_size work_group_reduce_add simd%u %s%s: did not run", simd,
             s->name, how);
   } else {
      for_each_group(s, simd, check_wg_size_group, &wg);
      report(!wg.bad, "reqd_work_group_size work_group_reduce_add simd%u %s%s%s%s", simd,
             s->name, how, wg.bad ? ": " : "", wg.bad ? wg.first : "");
   }
   free(out);
}

static cl_program
build_reqd(struct cl *cl, const struct shape *s, unsigned simd, const char *std)
{
   char opts[128];
   char *src = append(NULL,
      "#define REQD __attribute__((intel_reqd_sub_group_size(SIMD))) \\\n"
      "             __attribute__((reqd_work_group_size(LX, LY, LZ)))\n"
      "#define GID (get_global_id(0) + get_global_id(1) * get_global_size(0) + \\\n"
      "             get_global_id(2) * get_global_size(0) * get_global_size(1))\n"
      "#define N (get_global_size(0) * get_global_size(1) * get_global_size(2))\n");
   src = ids_kernel(src);
   src = append(src, "__kernel REQD void wg_size(__global uint *out)\n{\n"
                     "   out[GID] = work_group_reduce_add(1u);\n"
                     "   out[N + GID] = get_local_linear_id();\n}\n");
   snprintf(opts, sizeof(opts), "%s -DLX=%zu -DLY=%zu -DLZ=%zu", std, s->local[0], s->local[1],
            s->local[2]);
   cl_program prog = build(cl, src, simd, opts);
   free(src);
   return prog;
}

/* Enqueues kernel "ids" of @prog (a buffer for its output) with @dims,
 * @global and @local; the error code. */
static cl_int
enqueue_ids(struct cl *cl, cl_program prog, unsigned dims, const size_t *global,
            const size_t *local)
{
   cl_int err;
   cl_kernel k = clCreateKernel(prog, "ids", &err);
   cl_mem buf = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE, 1 << 20, NULL, &err);

   err = k && buf ? clSetKernelArg(k, 0, sizeof(buf), &buf) : CL_OUT_OF_RESOURCES;
   if (!err)
      err = clEnqueueNDRangeKernel(cl->q, k, dims, NULL, global, local, 0, NULL, NULL);
   if (!err)
      err = clFinish(cl->q);
   if (buf)
      clReleaseMemObject(buf);
   if (k)
      clReleaseKernel(k);
   return err;
}

/* The API around reqd_work_group_size, with @prog built for @s's local size:
 * CL_KERNEL_COMPILE_WORK_GROUP_SIZE, another local size refused, the
 * suggested local size (what a NULL local size gets) being the required
 * one, and a NULL local size refused where no work-group of the required
 * size fits: a 1D NDRange for a 2D required size, and a global size that is
 * not a multiple of it in a program that requires uniform work-groups. */
static void
check_reqd_api(struct cl *cl, cl_program prog, const struct shape *s)
{
   typedef cl_int (*suggest_fn)(cl_command_queue, cl_kernel, cl_uint, const size_t *,
                                const size_t *, size_t *);
   size_t other[3] = {s->local[0] / 2, s->local[1], s->local[2]}, compiled[3] = {0};
   size_t suggested[3] = {0}, offset[3] = {0};
   cl_platform_id platform = NULL;
   cl_int err;
   cl_kernel k = clCreateKernel(prog, "ids", &err);
   char what[128];

   cases_in_matrix += 2;
   clGetKernelWorkGroupInfo(k, cl->dev, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof(compiled),
                            compiled, NULL);
   report(!memcmp(compiled, s->local, sizeof(compiled)),
          "reqd_work_group_size %s: CL_KERNEL_COMPILE_WORK_GROUP_SIZE (%zu, %zu, %zu)", s->name,
          compiled[0], compiled[1], compiled[2]);
   snprintf(what, sizeof(what), "reqd_work_group_size %s: another local size", s->name);
   expect(enqueue_ids(cl, prog, s->dims, s->global, other), CL_INVALID_WORK_GROUP_SIZE, what);

   clGetDeviceInfo(cl->dev, CL_DEVICE_PLATFORM, sizeof(platform), &platform, NULL);
   suggest_fn suggest = (suggest_fn)clGetExtensionFunctionAddressForPlatform(
      platform, "clGetKernelSuggestedLocalWorkSizeKHR");
   cl_mem buf = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
   clSetKernelArg(k, 0, sizeof(buf), &buf);
   err = suggest ? suggest(cl->q, k, s->dims, offset, s->global, suggested) : CL_INVALID_VALUE;
   report(!err && !memcmp(suggested, s->local, s->dims * sizeof(size_t)),
          "reqd_work_group_size %s: clGetKernelSuggestedLocalWorkSizeKHR %d (%zu, %zu, %zu)",
          s->name, err, suggested[0], suggested[1], suggested[2]);
   if (s->local[1] > 1) {
      snprintf(what, sizeof(what), "reqd_work_group_size %s: 1D NDRange, local NULL", s->name);
      expect(enqueue_ids(cl, prog, 1, s->global, NULL), CL_INVALID_WORK_GROUP_SIZE, what);
      snprintf(what, sizeof(what), "reqd_work_group_size %s: 1D NDRange, suggested local size",
               s->name);
      expect(suggest ? suggest(cl->q, k, 1, offset, s->global, suggested) : CL_INVALID_VALUE,
             CL_INVALID_WORK_GROUP_SIZE, what);
   }
   clReleaseMemObject(buf);
   clReleaseKernel(k);
}

/* reqd_work_group_size.  In a non-uniform NDRange the remainder work-groups
 * are smaller than the required size (OpenCL 2.0 allows it unless built with
 * -cl-uniform-work-group-size), so the compiler must not take the required
 * size for the work-group's.  With a NULL local size the launch uses the
 * required size, the one the kernel's local memory and collectives were laid
 * out for (Rusticl used to pick its own, 256 where the global size allows
 * it), also when the global size is not a multiple of it.  Checked with the
 * ids of every work-item and a work-group reduction, in every shape with a
 * NULL local size and in the non-uniform ones with the required local size
 * as well (the matrix runs the uniform ones with theirs). */
static void
run_reqd_work_group_size(struct cl *cl, bool slice)
{
   static const unsigned simds[] = {8, 16, 32};

   for (unsigned si = 0; si < NUM_SHAPES; si++) {
      const struct shape *s = &shapes[si];
      bool non_uniform = strstr(s->name, "non-uniform");

      if (slice && strcmp(s->name, "1d-non-uniform"))
         continue;
      for (unsigned w = 0; w < 3; w++) {
         cl_program prog = build_reqd(cl, s, simds[w], "-cl-std=CL3.0");
         struct shape launch = *s;

         if (!prog) {
            cases_in_matrix++;
            report(false, "reqd_work_group_size simd%u %s: build failed", simds[w], s->name);
            continue;
         }
         if (non_uniform)
            check_reqd_launch(cl, prog, simds[w], &launch);
         launch.null_local = true;
         check_reqd_launch(cl, prog, simds[w], &launch);
         if (w == 0 && !slice)
            check_reqd_api(cl, prog, s);
         clReleaseProgram(prog);
      }
      if (non_uniform && !slice) {
         cl_program prog = build_reqd(cl, s, 16, "-cl-std=CL3.0 -cl-uniform-work-group-size");
         char what[128];

         snprintf(what, sizeof(what),
                  "reqd_work_group_size %s: -cl-uniform-work-group-size, local NULL", s->name);
         expect(prog ? enqueue_ids(cl, prog, s->dims, s->global, NULL) : CL_BUILD_PROGRAM_FAILURE,
                CL_INVALID_WORK_GROUP_SIZE, what);
         if (prog)
            clReleaseProgram(prog);
      }
   }
}

/* Where run_local_mem_with_collective's kernel has its local memory. */
enum local_mem_form { LOCAL_ARRAY, LOCAL_ARG, LOCAL_ARRAY_AND_ARG };

struct local_mem_launch {
   cl_kernel k;
   cl_mem out;
   size_t global, local, words;
   bool collective;
};

static void
local_mem_limits(struct cl *cl, cl_ulong *local_mem, size_t *max_wg)
{
   clGetDeviceInfo(cl->dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(*local_mem), local_mem, NULL);
   clGetDeviceInfo(cl->dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(*max_wg), max_wg, NULL);
}

static void
release_local_mem_launch(cl_program prog, const struct local_mem_launch *l)
{
   if (l->k)
      clReleaseKernel(l->k);
   if (prog)
      clReleaseProgram(prog);
   if (l->out)
      clReleaseMemObject(l->out);
}

/* Launches with @arg_bytes in the __local argument (if any), reads the
 * results back and counts the work-items whose sum is wrong; the
 * enqueue's error otherwise. */
static cl_int
launch_full_local(struct cl *cl, const struct local_mem_launch *l, enum local_mem_form form,
                  size_t arg_bytes, unsigned *bad)
{
   uint32_t *out = calloc(l->global, 4);
   cl_int err = out ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;

   if (!err && form != LOCAL_ARRAY)
      err = clSetKernelArg(l->k, 0, arg_bytes, NULL);
   if (!err)
      err = clSetKernelArg(l->k, form != LOCAL_ARRAY, sizeof(l->out), &l->out);
   if (!err)
      err = clEnqueueNDRangeKernel(cl->q, l->k, 1, NULL, &l->global, &l->local, 0, NULL, NULL);
   if (!err)
      err = clEnqueueReadBuffer(cl->q, l->out, CL_TRUE, 0, l->global * 4, out, 0, NULL, NULL);
   *bad = 0;
   for (size_t i = 0; !err && i < l->global; i++) {
      /* each work-item sums buf[words - 1 - j] = 3 (words - 1 - j) + 1 over
       * its words j; the collective sums all words */
      uint64_t n = l->local, item = i % n, want = 0;

      if (l->collective)
         want = 3ull * l->words * (l->words - 1) / 2 + l->words;
      else
         for (uint64_t j = item; j < l->words; j += n)
            want += 3 * (l->words - 1 - j) + 1;
      *bad += out[i] != (uint32_t)want;
   }
   free(out);
   return err;
}

/*
 * A kernel may use all of CL_DEVICE_LOCAL_MEM_SIZE, as a __local array of
 * its own, as a __local argument or as both, with or without a work-group
 * collective, whose slots the compiler places in local memory on top of
 * it: at the largest work-group and SIMD 8, where the slots are the most.
 * Each work-item fills its words, then sums others' after a barrier (and
 * work_group_reduce_add sums the sums): every word is written and read.
 * One byte more in the argument is CL_OUT_OF_RESOURCES at
 * clEnqueueNDRangeKernel (OpenCL 3.0: "insufficient resources such as
 * registers or local memory"), not a job the device fails: nothing runs
 * (the output keeps its pattern), and the queue runs the kernel again with
 * the bytes that fit.
 */
static void
run_local_mem_with_collective(struct cl *cl)
{
   static const char *const src =
      "#ifdef ARG_WORDS\n"
      "#define LOCAL_ARG __local uint *arg,\n"
      "#else\n"
      "#define LOCAL_ARG\n"
      "#define ARG_WORDS 0\n"
      "#endif\n"
      "#if STATIC_WORDS && ARG_WORDS\n"
      "#define AT(i) (*((i) < STATIC_WORDS ? &buf[i] : &arg[(i) - STATIC_WORDS]))\n"
      "#elif STATIC_WORDS\n"
      "#define AT(i) buf[i]\n"
      "#else\n"
      "#define AT(i) arg[i]\n"
      "#endif\n"
      "__kernel __attribute__((intel_reqd_sub_group_size(8)))\n"
      "void full_local(LOCAL_ARG __global uint *out)\n"
      "{\n"
      "#if STATIC_WORDS\n"
      "   __local uint buf[STATIC_WORDS];\n"
      "#endif\n"
      "   const uint words = STATIC_WORDS + ARG_WORDS;\n"
      "   uint l = get_local_id(0), n = get_local_size(0), s = 0;\n"
      "   for (uint i = l; i < words; i += n)\n"
      "      AT(i) = i * 3u + 1u;\n"
      "   barrier(CLK_LOCAL_MEM_FENCE);\n"
      "   for (uint i = l; i < words; i += n)\n"
      "      s += AT(words - 1 - i);\n"
      "#ifdef COLLECTIVE\n"
      "   s = work_group_reduce_add(s);\n"
      "#endif\n"
      "   out[get_global_id(0)] = s;\n"
      "}\n";
   static const char *const form_names[] = {"__local array", "__local argument",
                                             "__local array and argument"};
   cl_ulong local_mem = 0;
   size_t max_wg = 0;

   local_mem_limits(cl, &local_mem, &max_wg);
   for (unsigned c = 0; c < 2; c++) {
      for (enum local_mem_form form = LOCAL_ARRAY; form <= LOCAL_ARRAY_AND_ARG; form++) {
         size_t words = local_mem / 4;
         /* half and half keeps the argument at a multiple of 128 bytes */
         size_t static_words = form == LOCAL_ARRAY ? words : form == LOCAL_ARG ? 0 : words / 2;
         size_t arg_bytes = (words - static_words) * 4;
         struct local_mem_launch l = {NULL, NULL, 2 * max_wg, max_wg, words, c};
         const char *what = form_names[form];
         char opts[128];
         cl_program prog;
         cl_int err = CL_INVALID_VALUE;
         unsigned bad = 0;
         int n;

         n = snprintf(opts, sizeof(opts), "-cl-std=CL3.0 -DSTATIC_WORDS=%zu%s", static_words,
                      c ? " -DCOLLECTIVE" : "");
         if (form != LOCAL_ARRAY)
            snprintf(opts + n, sizeof(opts) - n, " -DARG_WORDS=%zu", words - static_words);
         prog = build(cl, src, 8, opts);
         if (prog)
            l.k = clCreateKernel(prog, "full_local", &err);
         l.out = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE, l.global * 4, NULL, &err);
         if (l.k && l.out)
            err = launch_full_local(cl, &l, form, arg_bytes, &bad);
         cases_in_matrix++;
         report(!err && !bad, "all of CL_DEVICE_LOCAL_MEM_SIZE (%llu bytes) as a %s%s at %zu "
                "work-items, SIMD 8%s (error %d, %u wrong)", (unsigned long long)local_mem, what,
                c ? " and work_group_reduce_add" : "", max_wg, !err && !bad ? "" : ": FAILED",
                err, bad);
         if (form != LOCAL_ARRAY && l.k && l.out) {
            const uint32_t pattern = 0xa5a5a5a5u;
            uint32_t first = 0, last = 0;
            cl_int refused, finished;

            clEnqueueFillBuffer(cl->q, l.out, &pattern, 4, 0, l.global * 4, 0, NULL, NULL);
            refused = launch_full_local(cl, &l, form, arg_bytes + 1, &bad);
            finished = clFinish(cl->q);
            clEnqueueReadBuffer(cl->q, l.out, CL_TRUE, 0, 4, &first, 0, NULL, NULL);
            clEnqueueReadBuffer(cl->q, l.out, CL_TRUE, (l.global - 1) * 4, 4, &last, 0, NULL,
                                NULL);
            err = launch_full_local(cl, &l, form, arg_bytes, &bad);
            cases_in_matrix++;
            report(refused == CL_OUT_OF_RESOURCES && finished == CL_SUCCESS &&
                      first == pattern && last == pattern && !err && !bad,
                   "CL_DEVICE_LOCAL_MEM_SIZE + 1 (%llu bytes) as a %s%s: clEnqueueNDRangeKernel "
                   "%d (want CL_OUT_OF_RESOURCES), clFinish %d, output %s; then the bytes that "
                   "fit: error %d, %u wrong", (unsigned long long)local_mem + 1, what,
                   c ? " and work_group_reduce_add" : "", refused, finished,
                   first == pattern && last == pattern ? "untouched" : "WRITTEN", err, bad);
         }
         release_local_mem_launch(prog, &l);
      }
   }
}

/* Launches odd_local with @b_bytes in its second __local argument, reads
 * the results back and counts the wrong ones; the enqueue's error
 * otherwise. */
static cl_int
launch_odd_local(struct cl *cl, const struct local_mem_launch *l, size_t array_bytes,
                 size_t b_bytes, unsigned *bad)
{
   uint32_t *out = calloc(l->global, 4), want = 0x5a + 0xa5 + 0x01020304u;
   cl_int err = out ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;

   if (!err)
      err = clSetKernelArg(l->k, 0, 2, NULL);
   if (!err)
      err = clSetKernelArg(l->k, 1, b_bytes, NULL);
   if (!err)
      err = clSetKernelArg(l->k, 2, sizeof(l->out), &l->out);
   if (!err)
      err = clEnqueueNDRangeKernel(cl->q, l->k, 1, NULL, &l->global, &l->local, 0, NULL, NULL);
   if (!err)
      err = clEnqueueReadBuffer(cl->q, l->out, CL_TRUE, 0, l->global * 4, out, 0, NULL, NULL);
   for (size_t i = 0; i < array_bytes; i++)
      want += (uint8_t)(i * 7 + 1);
   *bad = 0;
   for (size_t i = 0; !err && i < l->global; i++) {
      uint32_t mine = 0;

      if (!l->collective)
         for (size_t j = i % l->local; j < array_bytes; j += l->local)
            mine += (uint8_t)((array_bytes - 1 - j) * 7 + 1);
      *bad += out[i] != (l->collective ? want : mine + 0x5a + 0xa5 + 0x01020304u);
   }
   free(out);
   return err;
}

/*
 * The edge where alignment padding decides: a __local array of
 * CL_DEVICE_LOCAL_MEM_SIZE - 7 bytes (odd), then a 2-byte and a 4-byte
 * __local argument, which Rusticl places at 2- and 4-byte alignment, end
 * at exactly CL_DEVICE_LOCAL_MEM_SIZE, with and without a work-group
 * collective at the largest work-group and SIMD 8, whose slots are the
 * most.  It runs, every byte written and read; 5 bytes in the second
 * argument align it to 8 and end one byte past the edge: CL_OUT_OF_RESOURCES
 * at the enqueue, nothing runs, and the queue then runs the kernel that
 * fits.  (While the slots sat between the array and the arguments, their
 * own alignment moved the arguments past the SLM: a job the device failed.)
 */
static void
run_local_mem_odd_edge(struct cl *cl)
{
   static const char *const src =
      "__kernel __attribute__((intel_reqd_sub_group_size(8)))\n"
      "void odd_local(__local uchar *a, __local uint *b, __global uint *out)\n"
      "{\n"
      "   __local uchar buf[ARRAY_BYTES];\n"
      "   uint l = get_local_id(0), n = get_local_size(0), s = 0;\n"
      "   for (uint i = l; i < ARRAY_BYTES; i += n)\n"
      "      buf[i] = (uchar)(i * 7u + 1u);\n"
      "   if (l == 0) {\n"
      "      a[0] = 0x5a;\n"
      "      a[1] = 0xa5;\n"
      "      *b = 0x01020304u;\n"
      "   }\n"
      "   barrier(CLK_LOCAL_MEM_FENCE);\n"
      "   for (uint i = l; i < ARRAY_BYTES; i += n)\n"
      "      s += buf[ARRAY_BYTES - 1 - i];\n"
      "#ifdef COLLECTIVE\n"
      "   s = work_group_reduce_add(s);\n"
      "#endif\n"
      "   out[get_global_id(0)] = s + a[0] + a[1] + *b;\n"
      "}\n";
   cl_ulong local_mem = 0;
   size_t max_wg = 0;

   local_mem_limits(cl, &local_mem, &max_wg);
   for (unsigned c = 0; c < 2; c++) {
      /* the array ends 7 bytes short of a multiple of 8 */
      size_t array_bytes = (local_mem & ~(cl_ulong)7) - 7;
      struct local_mem_launch l = {NULL, NULL, 2 * max_wg, max_wg, 0, c};
      const uint32_t pattern = 0xa5a5a5a5u;
      uint32_t first = 0, last = 0;
      cl_int err = CL_INVALID_VALUE, refused = CL_INVALID_VALUE, finished;
      cl_program prog;
      char opts[96];
      unsigned bad = 0, bad_after = 0;

      snprintf(opts, sizeof(opts), "-cl-std=CL3.0 -DARRAY_BYTES=%zu%s", array_bytes,
               c ? " -DCOLLECTIVE" : "");
      prog = build(cl, src, 8, opts);
      if (prog)
         l.k = clCreateKernel(prog, "odd_local", &err);
      l.out = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE, l.global * 4, NULL, &err);
      if (l.k && l.out) {
         err = launch_odd_local(cl, &l, array_bytes, 4, &bad);
         clEnqueueFillBuffer(cl->q, l.out, &pattern, 4, 0, l.global * 4, 0, NULL, NULL);
         refused = launch_odd_local(cl, &l, array_bytes, 5, &bad_after);
         finished = clFinish(cl->q);
         clEnqueueReadBuffer(cl->q, l.out, CL_TRUE, 0, 4, &first, 0, NULL, NULL);
         clEnqueueReadBuffer(cl->q, l.out, CL_TRUE, (l.global - 1) * 4, 4, &last, 0, NULL,
                             NULL);
         if (!err)
            err = finished;
         if (!err)
            err = launch_odd_local(cl, &l, array_bytes, 4, &bad_after);
      }
      cases_in_matrix++;
      report(!err && !bad && !bad_after, "a __local array of %zu bytes and __local arguments "
             "of 2 and 4 bytes, %llu in all%s at %zu work-items, SIMD 8: error %d, %u wrong "
             "(then again %u wrong)", array_bytes, (unsigned long long)local_mem,
             c ? " and work_group_reduce_add" : "", max_wg, err, bad, bad_after);
      cases_in_matrix++;
      report(refused == CL_OUT_OF_RESOURCES && first == pattern && last == pattern,
             "the same with 5 bytes in the second argument (%llu + 1 with its 8-byte "
             "alignment)%s: clEnqueueNDRangeKernel %d (want CL_OUT_OF_RESOURCES), output %s",
             (unsigned long long)local_mem, c ? " and work_group_reduce_add" : "", refused,
             first == pattern && last == pattern ? "untouched" : "WRITTEN");
      release_local_mem_launch(prog, &l);
   }
}

/* CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS, as a program sees it:
 * in every work-group the first sub-group waits in a loop for a global or
 * local flag that only the last sub-group sets, with no barrier between;
 * a device that switched sub-groups only at barriers would spin until its
 * watchdog ends the kernel (then the event reports an error and the
 * outputs stay 0).  Checked: the kernel completes and the first sub-group
 * saw its work-group's value. */
static void
run_forward_progress(struct cl *cl, cl_program prog, unsigned simd, const struct shape *s)
{
   static const char *const names[] = {"spin_global", "spin_local"};
   size_t n = total_items(s), groups = n / s->local[0];
   int32_t *flag = calloc(n, 4), *out = calloc(n, 4);

   for (unsigned v = 0; v < 2; v++) {
      unsigned bad = 0;
      bool ran = run(cl, prog, names[v], s, flag, n * 4, out, n * 4);

      for (size_t i = 0; ran && i < n; i++) {
         size_t g = i / s->local[0], lid = i % s->local[0];
         int want = lid >= simd ? 0 : v == 0 ? (int)(1 + g) : (int)(7 + g);
         bad += out[i] != want;
      }
      cases_in_matrix++;
      report(ran && !bad, "independent-forward-progress %s simd%u %s (%zu work-groups of %zu "
             "sub-groups)%s", names[v], simd, s->name, groups,
             (s->local[0] + simd - 1) / simd, ran ? "" : ": did not run");
   }
   free(flag);
   free(out);
}

/* --- Bad input ------------------------------------------------------------ */

/* Undefined behaviour that must harm nothing else: sub-group 0 waits at a
 * work-group barrier for the others, which spin on a flag it sets only
 * after the barrier.  The device's watchdog ends the dispatch. */
static const char *divergent_source =
   "__kernel void divergent_barrier(__global int *out, __global volatile int *flag)\n"
   "{\n"
   "   if (get_sub_group_id() == 0) {\n"
   "      int s = work_group_reduce_add(1);\n"
   "      flag[0] = s;\n"
   "   } else {\n"
   "      while (flag[0] == 0)\n"
   "         ;\n"
   "   }\n"
   "   out[get_global_id(0)] = 1;\n"
   "}\n";

/* Rusticl gives a new command queue the pipe context of a released one:
 * the reset of a queue the watchdog stopped must stay with that queue.
 * Several queues, created and released one after another, each run a
 * kernel right. */
static void
run_after_stopped_queue_released(struct cl *cl)
{
   static const struct shape s = {"1d-uniform", 1, {64, 1, 1}, {64, 1, 1}};
   static const char *squares_source =
      "__kernel void squares(__global int *out)\n"
      "{\n"
      "   int i = get_global_id(0);\n"
      "   out[i] = i * i;\n"
      "}\n";

   for (unsigned n = 1; n <= 3; n++) {
      cl_int err;
      struct cl fresh = {cl->ctx, clCreateCommandQueueWithProperties(cl->ctx, cl->dev, NULL, &err),
                         cl->dev};
      cl_program p = fresh.q ? build(&fresh, squares_source, 16, "-cl-std=CL3.0") : NULL;
      int out[64];
      bool ran = p && run(&fresh, p, "squares", &s, NULL, 0, out, sizeof(out));
      unsigned right = 0;

      for (unsigned i = 0; ran && i < 64; i++)
         right += out[i] == (int)(i * i);
      cases_in_matrix++;
      report(ran && right == 64,
             "bad-input queue %u created after the stopped queue's release: %u of 64 right%s", n,
             right, ran ? "" : ", did not run");
      if (p)
         clReleaseProgram(p);
      if (fresh.q)
         clReleaseCommandQueue(fresh.q);
   }
}

static void
run_bad_input(struct cl *cl, const char *src)
{
   static const struct shape s = {"1d-uniform", 1, {64, 1, 1}, {64, 1, 1}};
   cl_int err, status = CL_COMPLETE;
   cl_program p = build(cl, divergent_source, 16, "-cl-std=CL3.0");
   cl_command_queue q = NULL, q2 = NULL;
   cl_kernel k = NULL;
   cl_mem out = NULL, flag = NULL;
   cl_event ev = NULL;
   int zero[64] = {0};
   struct stderr_capture capture;
   char said[256];

   stderr_capture_begin(&capture);
   if (p) {
      k = clCreateKernel(p, "divergent_barrier", &err);
      q = clCreateCommandQueueWithProperties(cl->ctx, cl->dev, NULL, &err);
      out = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(zero), zero, &err);
      flag = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(zero), zero, &err);
   }
   if (k && q && out && flag && !clSetKernelArg(k, 0, sizeof(out), &out) &&
       !clSetKernelArg(k, 1, sizeof(flag), &flag) &&
       !clEnqueueNDRangeKernel(q, k, 1, NULL, s.global, s.local, 0, NULL, &ev)) {
      clFinish(q);
      clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL);
   }

   /* A new queue runs correctly afterwards (the whole int matrix row). */
   q2 = clCreateCommandQueueWithProperties(cl->ctx, cl->dev, NULL, &err);
   if (q2) {
      struct cl other = {cl->ctx, q2, cl->dev};
      cl_program good = build(&other, src, 16, "-cl-std=CL3.0");
      if (good) {
         run_type(&other, good, 16, &shapes[1], &types[4], true, true);
         clReleaseProgram(good);
      }
      clReleaseCommandQueue(q2);
   }
   if (ev)
      clReleaseEvent(ev);
   if (out)
      clReleaseMemObject(out);
   if (flag)
      clReleaseMemObject(flag);
   if (k)
      clReleaseKernel(k);
   if (q)
      clReleaseCommandQueue(q);
   if (p)
      clReleaseProgram(p);
   stderr_capture_end(&capture, said, sizeof(said));
   cases_in_matrix++;
   report(status < 0, "bad-input divergent-work-group-collective: the event reports %d (\"%s\")",
          status, said);
   run_after_stopped_queue_released(cl);
}

/* Its own process's part "bad-input" (run_in_own_process). */
static void
run_bad_input_part(struct cl *cl)
{
   char *src = kernel_source(true, true);

   run_bad_input(cl, src);
   free(src);
}

static const struct {
   const char *name;
   void (*run)(struct cl *cl);
} own_process_parts[] = {
   {"bad-input", run_bad_input_part},
   {"pipe-misuse", run_pipe_misuse},
   {"never-ending-child", run_enqueue_never_ending_child},
};

/* What a part's process sends back on fd 3. */
struct own_process_counts {
   int passed, failed;
   unsigned long long cases;
};

/* `weft-cl-conformance --own-process PART`: runs the part, sends its counts. */
static int
own_process_main(struct cl *cl, const char *part)
{
   struct own_process_counts counts;

   for (size_t i = 0; i < sizeof(own_process_parts) / sizeof(own_process_parts[0]); i++) {
      if (!strcmp(own_process_parts[i].name, part)) {
         own_process_parts[i].run(cl);
         fflush(stdout);
         counts = (struct own_process_counts){passed, failed, cases_in_matrix};
         return write(3, &counts, sizeof(counts)) == sizeof(counts) ? 0 : 1;
      }
   }
   fprintf(stderr, "weft-cl-conformance: no part %s\n", part);
   return 2;
}

/*
 * A kernel that never ends waits for the device's watchdog: 2^32 sub-group
 * instructions per dispatch by default, minutes on the drm-shim's device
 * model.  So its part runs in a process of its own, whose model gets the
 * budget make check gives the whole suite (WEFT_SHIM_WATCHDOG, unless the
 * user set one), and a user running a family by hand waits seconds too;
 * every other case keeps its own.  The process is this program run again,
 * not a fork of this one: a forked child has none of the parent's threads,
 * and Mesa's disk cache writes through one, so a program the cache has not
 * seen (a new Mesa, a cold cache) made the child wait for it forever.
 * (weft.ko ignores the variable: its job timeout ends the kernel.)
 */
void
run_in_own_process(const char *part)
{
   char *const argv[] = {"weft-cl-conformance", "--own-process", (char *)part, NULL};
   struct own_process_counts counts;
   int ends[2], wstatus = -1;
   pid_t pid = -1;
   bool got = false, budget_set_here = !getenv("WEFT_SHIM_WATCHDOG");

   fflush(stdout);
   fflush(stderr);
   if (pipe(ends) == 0) {
      posix_spawn_file_actions_t fds;

      posix_spawn_file_actions_init(&fds);
      /* closed first: the read end may be fd 3 itself */
      posix_spawn_file_actions_addclose(&fds, ends[0]);
      posix_spawn_file_actions_adddup2(&fds, ends[1], 3);
      if (budget_set_here)
         setenv("WEFT_SHIM_WATCHDOG", "0x4000000", 1);
      if (posix_spawn(&pid, "/proc/self/exe", &fds, NULL, argv, environ))
         pid = -1;
      if (budget_set_here)
         unsetenv("WEFT_SHIM_WATCHDOG");
      posix_spawn_file_actions_destroy(&fds);
      close(ends[1]);
      got = pid > 0 && read(ends[0], &counts, sizeof(counts)) == sizeof(counts);
      close(ends[0]);
      if (pid > 0)
         waitpid(pid, &wstatus, 0);
   }
   if (got && WIFEXITED(wstatus) && !WEXITSTATUS(wstatus)) {
      passed += counts.passed;
      failed += counts.failed;
      cases_in_matrix += counts.cases;
   } else {
      cases_in_matrix++;
      report(false, "%s: its process (pid %d) gave no result, wait status 0x%x", part, (int)pid,
             wstatus);
   }
}

void
stderr_capture_begin(struct stderr_capture *c)
{
   c->file = tmpfile();
   c->saved = c->file ? dup(2) : -1;
   fflush(stderr);
   if (c->saved >= 0)
      dup2(fileno(c->file), 2);
}

void
stderr_capture_end(struct stderr_capture *c, char *first_line, size_t size)
{
   first_line[0] = 0;
   fflush(stderr);
   if (c->saved >= 0) {
      dup2(c->saved, 2);
      close(c->saved);
      rewind(c->file);
      if (!fgets(first_line, size, c->file))
         first_line[0] = 0;
      first_line[strcspn(first_line, "\n")] = 0;
   }
   if (c->file)
      fclose(c->file);
}

/* API misuse: the specification's error codes. */
void
expect(cl_int got, cl_int want, const char *what)
{
   cases_in_matrix++;
   report(got == want, "api %s: %d (want %d)", what, got, want);
}

/* CL_DEVICE_MAX_CONSTANT_ARGS is the full profile's 8 at least, and a kernel
 * with 8 __constant arguments reads each of them. */
#define CONSTANT_ARGS 8
static void
run_constant_args(struct cl *cl)
{
   static const char *src =
      "__kernel void consts(__global uint *out, __constant uint *c0, __constant uint *c1,\n"
      "   __constant uint *c2, __constant uint *c3, __constant uint *c4, __constant uint *c5,\n"
      "   __constant uint *c6, __constant uint *c7)\n"
      "{ uint i = get_global_id(0);\n"
      "  out[i] = c0[i] + (c1[i] << 1) + (c2[i] << 2) + (c3[i] << 3) + (c4[i] << 4) +\n"
      "           (c5[i] << 5) + (c6[i] << 6) + (c7[i] << 7); }\n";
   enum { N = 64 };
   cl_uint max_args = 0, data[CONSTANT_ARGS][N], got[N];
   cl_mem bufs[CONSTANT_ARGS + 1] = {0};
   cl_program p = build(cl, src, 16, "-cl-std=CL3.0");
   cl_kernel k = p ? clCreateKernel(p, "consts", NULL) : NULL;
   cl_int err = k ? CL_SUCCESS : CL_INVALID_KERNEL;
   size_t global = N;
   bool ok = true;

   clGetDeviceInfo(cl->dev, CL_DEVICE_MAX_CONSTANT_ARGS, sizeof(max_args), &max_args, NULL);
   cases_in_matrix++;
   report(max_args >= CONSTANT_ARGS, "api CL_DEVICE_MAX_CONSTANT_ARGS is at least %d: %u",
          CONSTANT_ARGS, max_args);
   bufs[0] = clCreateBuffer(cl->ctx, CL_MEM_WRITE_ONLY, sizeof(got), NULL, &err);
   for (unsigned a = 0; a < CONSTANT_ARGS && !err; a++) {
      for (unsigned i = 0; i < N; i++)
         data[a][i] = i * (a + 1) + a;
      bufs[a + 1] = clCreateBuffer(cl->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                   sizeof(data[a]), data[a], &err);
   }
   for (unsigned a = 0; a <= CONSTANT_ARGS && !err; a++)
      err = clSetKernelArg(k, a, sizeof(cl_mem), &bufs[a]);
   if (!err)
      err = clEnqueueNDRangeKernel(cl->q, k, 1, NULL, &global, NULL, 0, NULL, NULL);
   if (!err)
      err = clEnqueueReadBuffer(cl->q, bufs[0], CL_TRUE, 0, sizeof(got), got, 0, NULL, NULL);
   for (unsigned i = 0; i < N && !err; i++) {
      cl_uint want = 0;
      for (unsigned a = 0; a < CONSTANT_ARGS; a++)
         want += data[a][i] << a;
      ok &= got[i] == want;
   }
   cases_in_matrix++;
   report(!err && ok, "api a kernel with %d __constant arguments reads each (error %d)",
          CONSTANT_ARGS, err);
   for (unsigned a = 0; a <= CONSTANT_ARGS; a++)
      if (bufs[a])
         clReleaseMemObject(bufs[a]);
   if (k)
      clReleaseKernel(k);
   if (p)
      clReleaseProgram(p);
}

/* --- clGetKernelSubGroupInfo ---------------------------------------------- */

typedef cl_int (*subgroup_info_fn)(cl_kernel, cl_device_id, cl_kernel_sub_group_info, size_t,
                                   const void *, size_t, void *, size_t *);

/* What a kernel sees of its sub-groups in one work-group of @local: the
 * answer the queries must give for that local size. */
static const char *subgroup_info_source =
   "#ifdef REQD_SIMD\n"
   "#define REQD __attribute__((intel_reqd_sub_group_size(REQD_SIMD)))\n"
   "#else\n"
   "#define REQD\n"
   "#endif\n"
   "__kernel REQD void seen(__global uint *out)\n"
   "{\n"
   "   if (get_local_linear_id() == 0) {\n"
   "      out[0] = get_max_sub_group_size();\n"
   "      out[1] = get_num_sub_groups();\n"
   "   }\n"
   "}\n";

/* Runs kernel @k in one work-group of @local (@dims dimensions); what it
 * saw in @seen (max sub-group size, number of sub-groups). */
static bool
run_one_group(struct cl *cl, cl_kernel k, unsigned dims, const size_t *local, uint32_t seen[2])
{
   cl_int err;
   cl_mem buf = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE, 2 * sizeof(uint32_t), NULL, &err);
   bool ok = buf && !clSetKernelArg(k, 0, sizeof(buf), &buf) &&
             !clEnqueueNDRangeKernel(cl->q, k, dims, NULL, local, local, 0, NULL, NULL) &&
             !clEnqueueReadBuffer(cl->q, buf, CL_TRUE, 0, 2 * sizeof(uint32_t), seen, 0, NULL,
                                  NULL);

   if (buf)
      clReleaseMemObject(buf);
   return ok;
}

/* The NDRange queries against what the kernel sees, and
 * LOCAL_SIZE_FOR_SUB_GROUP_COUNT by running the size it answers. */
static void
check_subgroup_info_kernel(struct cl *cl, cl_kernel k, const char *name, unsigned reqd,
                           subgroup_info_fn info, const char *fn)
{
   static const struct {
      unsigned dims;
      size_t local[3];
   } locals[] = {
      {1, {1, 1, 1}}, {1, {60, 1, 1}}, {1, {64, 1, 1}}, {2, {10, 6, 1}},
      {3, {5, 4, 3}}, {3, {4, 4, 4}},
   };
   size_t wg_size = 0, max_sg = 0, max_num = 0, compiled = 1, compile_num = 1, ret = 0;
   uint32_t seen[2];
   cl_int err;

   clGetKernelWorkGroupInfo(k, cl->dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg_size), &wg_size,
                            NULL);
   for (unsigned i = 0; i < sizeof(locals) / sizeof(locals[0]); i++) {
      size_t size = 0, count = 0;

      err = info(k, cl->dev, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                 locals[i].dims * sizeof(size_t), locals[i].local, sizeof(size), &size, &ret);
      err = err ? err : info(k, cl->dev, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
                             locals[i].dims * sizeof(size_t), locals[i].local, sizeof(count),
                             &count, NULL);
      bool ran = !err && run_one_group(cl, k, locals[i].dims, locals[i].local, seen);
      cases_in_matrix++;
      report(ran && ret == sizeof(size_t) && size == seen[0] && count == seen[1] &&
             (!reqd || size == reqd),
             "%s %s: MAX_SUB_GROUP_SIZE_FOR_NDRANGE %zu and SUB_GROUP_COUNT_FOR_NDRANGE %zu for "
             "(%zu, %zu, %zu) in %uD, the kernel sees %u and %u (error %d)", fn, name, size,
             count, locals[i].local[0], locals[i].local[1], locals[i].local[2], locals[i].dims,
             ran ? seen[0] : 0, ran ? seen[1] : 0, err);
      if (!max_sg)
         max_sg = ran ? seen[0] : 0;
   }

   err = info(k, cl->dev, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL, sizeof(max_num), &max_num,
              NULL);
   cases_in_matrix++;
   report(!err && max_sg && max_num == (wg_size + max_sg - 1) / max_sg,
          "%s %s: MAX_NUM_SUB_GROUPS %zu for CL_KERNEL_WORK_GROUP_SIZE %zu at SIMD %zu (error "
          "%d)", fn, name, max_num, wg_size, max_sg, err);
   err = info(k, cl->dev, CL_KERNEL_COMPILE_NUM_SUB_GROUPS, 0, NULL, sizeof(compile_num),
              &compile_num, NULL);
   cases_in_matrix++;
   report(!err && compile_num == 0, "%s %s: COMPILE_NUM_SUB_GROUPS %zu, no required count "
          "(error %d)", fn, name, compile_num, err);
   err = info(k, cl->dev, CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL, 0, NULL, sizeof(compiled),
              &compiled, NULL);
   cases_in_matrix++;
   report(!err && compiled == reqd, "%s %s: COMPILE_SUB_GROUP_SIZE_INTEL %zu (error %d)", fn,
          name, compiled, err);

   /* A count the kernel can have, in one, two and three dimensions; one
    * more than it can have gets zeros. */
   size_t counts[] = {1, 3, max_num, max_num + 1};
   for (unsigned c = 0; c < 4; c++) {
      for (unsigned dims = 1; dims <= 3; dims++) {
         size_t local[3] = {7, 7, 7};
         bool possible = c < 3, ran = false;

         err = info(k, cl->dev, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT, sizeof(counts[c]),
                    &counts[c], dims * sizeof(size_t), local, &ret);
         bool zeros = local[0] == 0 && (dims < 2 || local[1] == 0) && (dims < 3 || local[2] == 0);
         if (!err && possible && !zeros)
            ran = run_one_group(cl, k, dims, local, seen);
         cases_in_matrix++;
         report(!err && ret == dims * sizeof(size_t) && (dims > 2 || local[dims] == 7) &&
                (possible ? ran && seen[1] == counts[c] : zeros),
                "%s %s: LOCAL_SIZE_FOR_SUB_GROUP_COUNT %zu%s in %uD: (%zu, %zu, %zu), the "
                "kernel sees %u sub-groups (error %d)", fn, name, counts[c],
                possible ? "" : " (one too many)", dims, local[0], dims > 1 ? local[1] : 0,
                dims > 2 ? local[2] : 0, ran ? seen[1] : 0, err);
      }
   }
}

/* clGetKernelSubGroupInfo and clGetKernelSubGroupInfoKHR: every query of
 * OpenCL 3.0 and cl_khr_subgroups (and cl_intel_required_subgroup_size's),
 * for a kernel at the default width and at a required 8, 16 and 32,
 * checked against what the kernel sees at run time; and their errors. */
static void
run_subgroup_info(struct cl *cl)
{
   static const unsigned reqd[] = {0, 8, 16, 32};
   cl_platform_id platform = NULL;
   subgroup_info_fn khr;

   clGetDeviceInfo(cl->dev, CL_DEVICE_PLATFORM, sizeof(platform), &platform, NULL);
   khr = (subgroup_info_fn)clGetExtensionFunctionAddressForPlatform(
      platform, "clGetKernelSubGroupInfoKHR");
   cases_in_matrix++;
   report(khr != NULL, "clGetKernelSubGroupInfoKHR: the platform gives its address");

   for (unsigned r = 0; r < 4; r++) {
      char opts[64], name[32];
      cl_int err;

      if (reqd[r]) {
         snprintf(opts, sizeof(opts), "-cl-std=CL3.0 -DREQD_SIMD=%u", reqd[r]);
         snprintf(name, sizeof(name), "simd%u", reqd[r]);
      } else {
         snprintf(opts, sizeof(opts), "-cl-std=CL3.0");
         snprintf(name, sizeof(name), "default width");
      }
      cl_program p = build(cl, subgroup_info_source, reqd[r], opts);
      cl_kernel k = p ? clCreateKernel(p, "seen", &err) : NULL;

      if (!k) {
         cases_in_matrix++;
         report(false, "clGetKernelSubGroupInfo %s: the kernel did not build", name);
         if (p)
            clReleaseProgram(p);
         continue;
      }
      check_subgroup_info_kernel(cl, k, name, reqd[r], clGetKernelSubGroupInfo,
                                 "clGetKernelSubGroupInfo");
      if (khr)
         check_subgroup_info_kernel(cl, k, name, reqd[r], khr, "clGetKernelSubGroupInfoKHR");

      if (r == 0) {
         size_t in[4] = {64, 1, 1, 1}, out = 0, count = 2;
         cl_device_id not_a_device = (cl_device_id)cl->ctx;

         expect(clGetKernelSubGroupInfo(k, not_a_device, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL,
                                        sizeof(out), &out, NULL),
                CL_INVALID_DEVICE, "clGetKernelSubGroupInfo(a context for the device)");
         expect(clGetKernelSubGroupInfo(k, NULL, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL,
                                        sizeof(out), &out, NULL),
                CL_SUCCESS, "clGetKernelSubGroupInfo(NULL device, the kernel's only one)");
         expect(clGetKernelSubGroupInfo(k, cl->dev, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL, 1,
                                        &out, NULL),
                CL_INVALID_VALUE, "clGetKernelSubGroupInfo(MAX_NUM_SUB_GROUPS, 1-byte output)");
         expect(clGetKernelSubGroupInfo(k, cl->dev, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                        sizeof(in), in, sizeof(out), &out, NULL),
                CL_INVALID_VALUE,
                "clGetKernelSubGroupInfo(MAX_SUB_GROUP_SIZE_FOR_NDRANGE, 4 dimensions)");
         expect(clGetKernelSubGroupInfo(k, cl->dev, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                        0, NULL, sizeof(out), &out, NULL),
                CL_INVALID_VALUE,
                "clGetKernelSubGroupInfo(MAX_SUB_GROUP_SIZE_FOR_NDRANGE, no input)");
         expect(clGetKernelSubGroupInfo(k, cl->dev, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                                        2 * sizeof(count), in, sizeof(out), &out, NULL),
                CL_INVALID_VALUE,
                "clGetKernelSubGroupInfo(LOCAL_SIZE_FOR_SUB_GROUP_COUNT, 2 counts)");
         expect(clGetKernelSubGroupInfo(k, cl->dev, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                                        sizeof(count), NULL, sizeof(out), &out, NULL),
                CL_INVALID_VALUE,
                "clGetKernelSubGroupInfo(LOCAL_SIZE_FOR_SUB_GROUP_COUNT, NULL input)");
         expect(clGetKernelSubGroupInfo(k, cl->dev, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                                        sizeof(count), &count, 4 * sizeof(out), in, NULL),
                CL_INVALID_VALUE,
                "clGetKernelSubGroupInfo(LOCAL_SIZE_FOR_SUB_GROUP_COUNT, 4-dimension output)");
         if (khr)
            expect(khr(NULL, cl->dev, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL, sizeof(out), &out,
                       NULL),
                   CL_INVALID_KERNEL, "clGetKernelSubGroupInfoKHR(no kernel)");
      }
      clReleaseKernel(k);
      clReleaseProgram(p);
   }
}

static void
run_api_misuse(struct cl *cl, const char *src)
{
   cl_program p = build(cl, src, 16, "-cl-std=CL3.0");
   static const char *ids12 = "__kernel void ids(__global uint *out)\n"
                              "{ out[get_global_id(0)] = get_local_size(0); }\n";
   cl_program p12 = build(cl, ids12, 16, "-cl-std=CL1.2");
   cl_int err;
   size_t in[3] = {64, 1, 1}, outv[3], size;
   cl_kernel k = p ? clCreateKernel(p, "ids", &err) : NULL;
   cl_kernel k12 = p12 ? clCreateKernel(p12, "ids", &err) : NULL;
   cl_mem buf = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE, 1 << 16, NULL, &err);
   size_t gws = 100, lws = 64, big = 4096, wg2d[2] = {64, 32};

   if (!k || !k12 || !buf) {
      cases_in_matrix++;
      report(false, "api: setup failed (%d)", err);
      return;
   }
   clSetKernelArg(k, 0, sizeof(buf), &buf);
   clSetKernelArg(k12, 0, sizeof(buf), &buf);
   expect(clGetKernelSubGroupInfo(k, cl->dev, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                  sizeof(in), in, sizeof(outv[0]), outv, NULL), CL_SUCCESS,
          "clGetKernelSubGroupInfo(MAX_SUB_GROUP_SIZE_FOR_NDRANGE)");
   cases_in_matrix++;
   report(outv[0] == 16, "api MAX_SUB_GROUP_SIZE_FOR_NDRANGE is the required 16: %zu", outv[0]);
   expect(clGetKernelSubGroupInfo(k, cl->dev, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
                                  sizeof(in), in, sizeof(outv[0]), outv, NULL), CL_SUCCESS,
          "clGetKernelSubGroupInfo(SUB_GROUP_COUNT_FOR_NDRANGE)");
   cases_in_matrix++;
   report(outv[0] == 4, "api SUB_GROUP_COUNT_FOR_NDRANGE of 64 at SIMD 16 is 4: %zu", outv[0]);
   expect(clGetKernelSubGroupInfo(k, cl->dev, CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL, 0, NULL,
                                  sizeof(outv[0]), outv, NULL), CL_SUCCESS,
          "clGetKernelSubGroupInfo(COMPILE_SUB_GROUP_SIZE_INTEL)");
   cases_in_matrix++;
   report(outv[0] == 16, "api COMPILE_SUB_GROUP_SIZE_INTEL is 16: %zu", outv[0]);
   expect(clGetKernelSubGroupInfo(k, cl->dev, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
                                  0, NULL, sizeof(outv[0]), outv, NULL), CL_INVALID_VALUE,
          "clGetKernelSubGroupInfo(SUB_GROUP_COUNT_FOR_NDRANGE, no input)");
   expect(clGetKernelSubGroupInfo(k, cl->dev, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
                                  sizeof(in), NULL, sizeof(outv[0]), outv, NULL), CL_INVALID_VALUE,
          "clGetKernelSubGroupInfo(SUB_GROUP_COUNT_FOR_NDRANGE, NULL input)");
   expect(clGetKernelSubGroupInfo(k, cl->dev, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
                                  5, in, sizeof(outv[0]), outv, NULL), CL_INVALID_VALUE,
          "clGetKernelSubGroupInfo(SUB_GROUP_COUNT_FOR_NDRANGE, 5-byte input)");
   expect(clGetKernelSubGroupInfo(k, cl->dev, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                                  sizeof(in[0]), in, 1, outv, NULL), CL_INVALID_VALUE,
          "clGetKernelSubGroupInfo(LOCAL_SIZE_FOR_SUB_GROUP_COUNT, 1-byte output)");
   expect(clGetKernelSubGroupInfo(k, cl->dev, 0x7fff, 0, NULL, sizeof(size), &size, NULL),
          CL_INVALID_VALUE, "clGetKernelSubGroupInfo(unknown query)");
   expect(clGetKernelSubGroupInfo(NULL, cl->dev, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL,
                                  sizeof(size), &size, NULL), CL_INVALID_KERNEL,
          "clGetKernelSubGroupInfo(no kernel)");
   expect(clEnqueueNDRangeKernel(cl->q, k, 1, NULL, &big, &big, 0, NULL, NULL),
          CL_INVALID_WORK_ITEM_SIZE, "local size 4096 over CL_DEVICE_MAX_WORK_ITEM_SIZES");
   expect(clEnqueueNDRangeKernel(cl->q, k, 2, NULL, wg2d, wg2d, 0, NULL, NULL),
          CL_INVALID_WORK_GROUP_SIZE, "local size 64 x 32 over the work-group maximum");
   expect(clEnqueueNDRangeKernel(cl->q, k12, 1, NULL, &gws, &lws, 0, NULL, NULL),
          CL_INVALID_WORK_GROUP_SIZE, "non-uniform NDRange for OpenCL C 1.2");
   expect(clEnqueueNDRangeKernel(cl->q, k, 1, NULL, &gws, &lws, 0, NULL, NULL), CL_SUCCESS,
          "non-uniform NDRange for OpenCL C 3.0");
   clFinish(cl->q);

   /* cl_intel_required_subgroup_size: the device's sizes, and a size that
    * is not one of them fails the build with a log that says so. */
   size_t sizes[8] = {0}, n = 0;
   expect(clGetDeviceInfo(cl->dev, CL_DEVICE_SUB_GROUP_SIZES_INTEL, sizeof(sizes), sizes, &n),
          CL_SUCCESS, "clGetDeviceInfo(SUB_GROUP_SIZES_INTEL)");
   cases_in_matrix++;
   report(n == 3 * sizeof(size_t) && sizes[0] + sizes[1] + sizes[2] == 56 &&
          sizes[0] * sizes[1] * sizes[2] == 8 * 16 * 32,
          "api SUB_GROUP_SIZES_INTEL are 8, 16, 32: %zu values", n / sizeof(size_t));
   static const char *bad_size = "__kernel __attribute__((intel_reqd_sub_group_size(12)))\n"
                                 "void twelve(__global int *o) { o[0] = get_sub_group_size(); }\n";
   cl_program bp = clCreateProgramWithSource(cl->ctx, 1, &bad_size, NULL, &err);
   char log[4096] = "";
   expect(clBuildProgram(bp, 1, &cl->dev, "-cl-std=CL3.0", NULL, NULL), CL_BUILD_PROGRAM_FAILURE,
          "intel_reqd_sub_group_size(12) fails the build");
   clGetProgramBuildInfo(bp, cl->dev, CL_PROGRAM_BUILD_LOG, sizeof(log) - 1, log, NULL);
   cases_in_matrix++;
   report(strstr(log, "intel_reqd_sub_group_size(12)") != NULL,
          "the build log of intel_reqd_sub_group_size(12) says why");
   clReleaseProgram(bp);

   clReleaseMemObject(buf);
   clReleaseKernel(k);
   clReleaseKernel(k12);
   clReleaseProgram(p);
   clReleaseProgram(p12);
}

double
now(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
   bool slice = false, clc20_only = false, math_only = false, intel_only = false;
   bool pipes_only = false, images_only = false, enqueue_only = false, copies_only = false;
   bool api_only = false, only;
   const char *own_process = NULL;
   struct cl cl = {0};
   cl_platform_id plats[8];
   cl_uint np = 0;
   cl_int err;

   for (int i = 1; i < argc; i++) {
      if (!strcmp(argv[i], "--slice"))
         slice = true;
      else if (!strcmp(argv[i], "--clc20"))
         clc20_only = true;
      else if (!strcmp(argv[i], "--math"))
         math_only = true;
      else if (!strcmp(argv[i], "--intel"))
         intel_only = true;
      else if (!strcmp(argv[i], "--pipes"))
         pipes_only = true;
      else if (!strcmp(argv[i], "--images"))
         images_only = true;
      else if (!strcmp(argv[i], "--enqueue"))
         enqueue_only = true;
      else if (!strcmp(argv[i], "--copies"))
         copies_only = true;
      else if (!strcmp(argv[i], "--api"))
         api_only = true;
      else if (!strcmp(argv[i], "-v"))
         verbose = 1;
      /* the suite runs itself again with it (run_in_own_process) */
      else if (!strcmp(argv[i], "--own-process") && i + 1 < argc)
         own_process = argv[++i];
      else {
         fprintf(stderr, "usage: %s [--slice] [--clc20 | --math | --intel | --pipes | --images | "
                 "--enqueue | --copies | --api] [-v]\n", argv[0]);
         return 2;
      }
   }
   only = clc20_only || math_only || intel_only || pipes_only || images_only || enqueue_only ||
          copies_only || api_only;
   if (clGetPlatformIDs(8, plats, &np) || !np) {
      printf("no OpenCL platform\n0 passed, 1 failed\n");
      return 1;
   }
   for (cl_uint i = 0; i < np && !cl.dev; i++)
      clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_GPU, 1, &cl.dev, NULL);
   if (!cl.dev) {
      printf("no OpenCL GPU\n0 passed, 1 failed\n");
      return 1;
   }
   cl.ctx = clCreateContext(NULL, 1, &cl.dev, NULL, NULL, &err);
   cl.q = clCreateCommandQueueWithProperties(cl.ctx, cl.dev, NULL, &err);
   if (!cl.q) {
      printf("no queue: %d\n0 passed, 1 failed\n", err);
      return 1;
   }
   if (own_process)
      return own_process_main(&cl, own_process);

   /* Every width with OpenCL C 3.0 over every shape; the same program
    * built as OpenCL C 2.0 (cl_khr_subgroups by its pragma), explicitly and
    * without -cl-std (the device's CL_DEVICE_OPENCL_C_VERSION, 2.0),
    * computes the same in a few shapes. */
   static const struct {
      unsigned simd;
      const char *std, *tag;
      bool all_shapes, work_groups;
      const char *few[2];
   } programs[] = {
      {8, "-cl-std=CL3.0", "", true, true, {0}},
      {16, "-cl-std=CL3.0", "", true, true, {0}},
      {32, "-cl-std=CL3.0", "", true, true, {0}},
      {16, "-cl-std=CL2.0", " [CL2.0]", false, true, {"1d-partial-sg", "3d-non-uniform"}},
      {16, "", " [no -cl-std]", false, true, {"1d-partial-sg", "3d-non-uniform"}},
   };
   char *src = kernel_source(true, true), *src_sg = kernel_source(true, false);
   double start = now(), build_time = 0;
   for (unsigned w = 0; w < sizeof(programs) / sizeof(programs[0]); w++) {
      unsigned simd = programs[w].simd;
      double t0 = now();

      if ((slice && !programs[w].all_shapes) || only)
         continue;
      std_tag = programs[w].tag;
      cl_program prog = build(&cl, programs[w].work_groups ? src : src_sg, simd, programs[w].std);
      build_time += now() - t0;

      for (unsigned si = 0; si < NUM_SHAPES; si++) {
         const struct shape *s = &shapes[si];
         bool few = programs[w].few[0] && (!strcmp(s->name, programs[w].few[0]) ||
                                           !strcmp(s->name, programs[w].few[1]));

         if (!programs[w].all_shapes && !few)
            continue;
         if (slice && strcmp(s->name, "1d-partial-sg"))
            continue;
         if (!prog) {
            cases_in_matrix++;
            report(false, "build simd%u %s: the program did not build", simd, s->name);
            continue;
         }
         for (unsigned t = 0; t < NUM_TYPES; t++)
            run_type(&cl, prog, simd, s, &types[t], true, programs[w].work_groups);
         if (!programs[w].work_groups)
            continue;
         run_ids(&cl, prog, simd, s);
         run_votes(&cl, prog, simd, s);
         /* 1d-partial-sg: the VM's slice; its last sub-group is partial. */
         if (!strcmp(s->name, "1d-uniform") || !strcmp(s->name, "1d-max") ||
             !strcmp(s->name, "1d-partial-sg"))
            run_forward_progress(&cl, prog, simd, s);
      }
      if (prog)
         clReleaseProgram(prog);
   }
   std_tag = "";
   if (!clc20_only && !intel_only && !pipes_only && !images_only && !enqueue_only && !copies_only &&
       !api_only)
      run_math(&cl, slice);
   if (!only || images_only)
      run_images(&cl, slice);
   if (!math_only && !intel_only && !pipes_only && !images_only && !enqueue_only && !copies_only &&
       !api_only)
      run_clc20(&cl, slice);
   if (!only) {
      run_work_item_dims(&cl, slice);
      run_reqd_work_group_size(&cl, slice);
   }
   /* the bound device-side enqueue holds children to as well */
   if (!only || enqueue_only) {
      run_local_mem_with_collective(&cl);
      run_local_mem_odd_edge(&cl);
   }
   if (!only || pipes_only)
      run_pipes(&cl, slice);
   if ((!slice && !only) || api_only) {
      run_api_misuse(&cl, src);
      run_subgroup_info(&cl);
      run_constant_args(&cl);
      run_kernels_attached(&cl);
   }
   if (!only)
      run_in_own_process("bad-input");
   if (!clc20_only && !math_only && !pipes_only && !images_only && !enqueue_only &&
       !copies_only && !api_only) {
      run_intel_subgroups(&cl, slice);
      run_intel_image_blocks(&cl, slice);
   }
   if (!only || enqueue_only)
      run_enqueue(&cl);
   /* The compiler's lowering alone: the host tier's. */
   if ((!only && !slice) || copies_only)
      run_copies(&cl);
   free(src);
   free(src_sg);
   printf("matrix: %llu cases (%zu types x 3 widths x %s), %.1f s (%.1f s building)\n",
          cases_in_matrix, NUM_TYPES, slice ? "1 shape" : "11 shapes + CL2.0 + no -cl-std", now() - start,
          build_time);
   clReleaseCommandQueue(cl.q);
   clReleaseContext(cl.ctx);
   printf("%d passed, %d failed\n", passed, failed);
   return failed ? 1 : 0;
}
