// SPDX-License-Identifier: MIT
/*
 * The cl_intel_subgroups family: intel_sub_group_shuffle, _down, _up and
 * _xor on every type and vector width the specifications (and clang's
 * opencl-c.h with clc's opencl-c-intel-subgroups.h) declare, the buffer
 * block reads and writes of cl_intel_subgroups (unsuffixed),
 * cl_intel_subgroups_short (_us), _char (_uc), _long (_ul) and their _ui
 * aliases with 1, 2, 4, 8 (and for _uc 16) elements, on global and (with
 * cl_intel_subgroup_local_block_io) local memory, at SIMD 8, 16 and 32
 * in every shape of the suite, each checked against a reference here.
 * (The intel_sub_group_broadcast, _reduce_* and _scan_* of _short and
 * _char are checked with the sub-group collectives.)
 *
 * Where a specification leaves a result undefined the reference does not
 * check it (a shuffle from a work-item past the end of a partial
 * sub-group); where the Weft GPU defines it (shuffle indices out of range
 * give 0, block accesses at any alignment, in partial sub-groups only the
 * work-items there access memory) the manual says so and the check is
 * against that.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft-cl-conformance.h"

static const unsigned widths[] = {1, 2, 3, 4, 8, 16};
#define NUM_WIDTHS (sizeof(widths) / sizeof(widths[0]))
#define STRIDE 16 /* elements per work-item and value, any width */
static const char *const shuffle_fns[] = {"shuffle", "shuffle_down", "shuffle_up", "shuffle_xor"};
#define NUM_SHUFFLES 4
/* Sub-groups per work-group the block regions leave room for: 1024 / 8. */
#define MAX_SG_PER_GROUP 128

/* The vector widths of the shuffles on @t: long, ulong, half and double
 * are scalar only in the specifications. */
static bool
has_width(const struct type *t, unsigned w)
{
   return w == 1 || !(t->size == 8 || (t->kind == FLT && t->size == 2));
}

/* The per-lane arguments, the same in the kernels and in the reference:
 * l = sub-group local id, s = sub-group size, m = maximum sub-group size,
 * w = the width's index (so each width shuffles differently). */
#define SHUFFLE_INDEX "((l * 5 + 3 + w) % s)"
#define DOWN_DELTA "((l * 5 + 1 + w) % m)"
#define UP_DELTA "((l * 3 + 2 + w) % (m + 1))"
#define XOR_VALUE "((w * 3 + 1) & (m - 1))"

static unsigned
arg_of(unsigned f, unsigned l, unsigned s, unsigned m, unsigned w)
{
   switch (f) {
   case 0: return (l * 5 + 3 + w) % s;
   case 1: return (l * 5 + 1 + w) % m;
   case 2: return (l * 3 + 2 + w) % (m + 1);
   default: return (w * 3 + 1) & (m - 1);
   }
}

/* Where lane @l's result comes from: source 0 (data, current) or 1
 * (next, previous) of lane *src; false when the specification leaves it
 * undefined (a lane not in the sub-group). */
static bool
shuffle_source(unsigned f, unsigned l, unsigned s, unsigned m, unsigned w, unsigned *which,
               unsigned *src)
{
   unsigned a = arg_of(f, l, s, m, w);
   int j;

   *which = 0;
   switch (f) {
   case 0:
      *src = a;
      break;
   case 1:
      j = (int)(l + a);
      if (j >= (int)m)
         *which = 1, j -= m;
      *src = j;
      break;
   case 2:
      j = (int)l - (int)a;
      if (j < 0)
         *which = 1, j += m;
      *src = j;
      break;
   default:
      *src = l ^ a;
      break;
   }
   return *src < s;
}

static char *
shuffle_kernels(char *src)
{
   for (unsigned t = 0; t < num_types; t++) {
      const char *T = types[t].name;

      src = append(src,
                   "__kernel REQD void ishuf_%s(__global const %s *in, __global %s *out)\n{\n"
                   "   uint l = get_sub_group_local_id(), s = get_sub_group_size(),\n"
                   "        m = get_max_sub_group_size();\n"
                   "   __global const %s *a = in + GID * %u, *b = in + (N + GID) * %u;\n",
                   T, T, T, T, STRIDE, STRIDE);
      for (unsigned wi = 0; wi < NUM_WIDTHS; wi++) {
         unsigned w = widths[wi];
         char vt[16], ld_a[64], ld_b[64];

         if (!has_width(&types[t], w))
            continue;
         if (w == 1) {
            snprintf(vt, sizeof(vt), "%s", T);
            snprintf(ld_a, sizeof(ld_a), "a[0]");
            snprintf(ld_b, sizeof(ld_b), "b[0]");
         } else {
            snprintf(vt, sizeof(vt), "%s%u", T, w);
            snprintf(ld_a, sizeof(ld_a), "vload%u(0, a)", w);
            snprintf(ld_b, sizeof(ld_b), "vload%u(0, b)", w);
         }
         src = append(src, "   {\n      uint w = %u;\n      %s x = %s, y = %s;\n", wi, vt, ld_a,
                      ld_b);
         static const char *const call[NUM_SHUFFLES] = {
            "intel_sub_group_shuffle(x, " SHUFFLE_INDEX ")",
            "intel_sub_group_shuffle_down(x, y, " DOWN_DELTA ")",
            "intel_sub_group_shuffle_up(y, x, " UP_DELTA ")",
            "intel_sub_group_shuffle_xor(x, " XOR_VALUE ")",
         };
         for (unsigned f = 0; f < NUM_SHUFFLES; f++) {
            size_t out = (size_t)(f * NUM_WIDTHS + wi);
            if (w == 1)
               src = append(src, "      out[(%zu * N + GID) * %u] = %s;\n", out, STRIDE, call[f]);
            else
               src = append(src, "      vstore%u(%s, 0, out + (%zu * N + GID) * %u);\n", w,
                            call[f], out, STRIDE);
         }
         src = append(src, "   }\n");
      }
      src = append(src, "}\n");
   }
   /* Out of range (the Weft GPU: 0, see the manual). */
   src = append(src,
                "__kernel REQD void ishuf_out_of_range(__global const uint *in, __global uint *out)\n"
                "{\n"
                "   uint l = get_sub_group_local_id(), m = get_max_sub_group_size();\n"
                "   uint x = in[GID], y = in[N + GID];\n"
                "   out[GID] = intel_sub_group_shuffle_down(x, y, 2 * m + l);\n"
                "   out[N + GID] = intel_sub_group_shuffle_up(x, y, m + 1 + l);\n"
                "}\n");
   return src;
}

struct shuffle_ctx {
   const struct type *t;
   const void *in, *out;
   size_t n;
   unsigned simd, f, wi;
   unsigned bad, checked;
   char first[160];
};

static void
check_shuffle_group(const struct item *items, unsigned n, void *data)
{
   struct shuffle_ctx *x = data;
   const struct type *t = x->t;

   for (unsigned i = 0; i < n; i++) {
      const struct item *it = &items[i];
      unsigned which, src;

      if (!shuffle_source(x->f, it->lane, it->sg_size, x->simd, x->wi, &which, &src))
         continue;
      const struct item *from = &items[it->sg * x->simd + src];
      for (unsigned k = 0; k < widths[x->wi]; k++) {
         size_t o = ((size_t)(x->f * NUM_WIDTHS + x->wi) * x->n + it->global_linear) * STRIDE + k;
         size_t s = ((size_t)which * x->n + from->global_linear) * STRIDE + k;

         x->checked++;
         if (!same_bits(t, x->out, o, x->in, s) && !x->bad++)
            snprintf(x->first, sizeof(x->first),
                     "work-item %zu (lane %u of %u) component %u: 0x%llx, want 0x%llx",
                     it->global_linear, it->lane, it->sg_size, k,
                     (unsigned long long)get_i(t, x->out, o),
                     (unsigned long long)get_i(t, x->in, s));
      }
   }
}

static void
run_shuffles(struct cl *cl, cl_program prog, unsigned simd, const struct shape *s,
             const struct type *t)
{
   size_t n = total_items(s);
   size_t out_elems = n * NUM_SHUFFLES * NUM_WIDTHS * STRIDE;
   void *in = calloc(2 * n * STRIDE, t->size), *out = calloc(out_elems, t->size);
   char name[64];
   bool ran;

   fill(t, in, 2 * n * STRIDE, 0x1e7 + simd * 7 + (uint64_t)(s - shapes) * 131 + (t - types));
   snprintf(name, sizeof(name), "ishuf_%s", t->name);
   ran = run(cl, prog, name, s, in, 2 * n * STRIDE * t->size, out, out_elems * t->size);
   for (unsigned f = 0; f < NUM_SHUFFLES; f++) {
      for (unsigned wi = 0; wi < NUM_WIDTHS; wi++) {
         struct shuffle_ctx x = {t, in, out, n, simd, f, wi};
         char ty[16];

         if (!has_width(t, widths[wi]))
            continue;
         snprintf(ty, sizeof(ty), widths[wi] == 1 ? "%s" : "%s%u", t->name, widths[wi]);
         cases_in_matrix++;
         if (!ran) {
            report(false, "intel_sub_group_%s %s simd%u %s: did not run", shuffle_fns[f], ty,
                   simd, s->name);
            continue;
         }
         for_each_group(s, simd, check_shuffle_group, &x);
         if (x.bad)
            report(false, "intel_sub_group_%s %s simd%u %s: %u of %u wrong, first %s",
                   shuffle_fns[f], ty, simd, s->name, x.bad, x.checked, x.first);
         else
            report(x.checked > 0, "intel_sub_group_%s %s simd%u %s (%u values)", shuffle_fns[f],
                   ty, simd, s->name, x.checked);
      }
   }
   free(in);
   free(out);
}

static void
run_out_of_range(struct cl *cl, cl_program prog, unsigned simd, const struct shape *s)
{
   size_t n = total_items(s);
   uint32_t *in = calloc(2 * n, 4), *out = calloc(2 * n, 4);
   unsigned bad = 0;
   bool ran;

   for (size_t i = 0; i < 2 * n; i++)
      in[i] = 0x1000 + (uint32_t)i;
   ran = run(cl, prog, "ishuf_out_of_range", s, in, 2 * n * 4, out, 2 * n * 4);
   for (size_t i = 0; ran && i < 2 * n; i++)
      bad += out[i] != 0;
   cases_in_matrix++;
   report(ran && !bad, "intel_sub_group_shuffle_down/up out of range give 0 simd%u %s%s", simd,
          s->name, !ran ? ": did not run" : bad ? ": not 0" : "");
   free(in);
   free(out);
}

/* --- Block reads and writes ------------------------------------------------ */

struct block_fn {
   const char *sfx;  /* of intel_sub_group_block_read / _write */
   const char *type; /* the element type */
   unsigned size;
   unsigned max_n;   /* 8, or 16 for _uc */
};

static const struct block_fn block_fns[] = {
   {"", "uint", 4, 8},
   {"_ui", "uint", 4, 8},
   {"_us", "ushort", 2, 8},
   {"_uc", "uchar", 1, 16},
   {"_ul", "ulong", 8, 8},
};
#define NUM_BLOCK_FNS (sizeof(block_fns) / sizeof(block_fns[0]))

/* The element types of the block functions, as the suite's types. */
static const struct type *
block_type(const struct block_fn *b)
{
   for (unsigned t = 0; t < num_types; t++)
      if (!strcmp(types[t].name, b->type))
         return &types[t];
   return NULL;
}

/* Each sub-group reads and writes its own region of max sub-group size *
 * STRIDE elements at (work-group * MAX_SG_PER_GROUP + sub-group id); the
 * input holds the regions, then each work-item's values to write.  The
 * output holds each work-item's read values, then the written regions. */
#define GROUP_LINEAR "(get_group_id(0) + get_group_id(1) * get_num_groups(0) + " \
                     "get_group_id(2) * get_num_groups(0) * get_num_groups(1))"

static size_t
num_groups_total(const struct shape *s)
{
   size_t g = 1;
   for (unsigned d = 0; d < 3; d++)
      g *= (s->global[d] + s->local[d] - 1) / s->local[d];
   return g;
}

/* Local memory: each sub-group copies its region from the input into
 * local memory, block-reads it there, block-writes its values to a second
 * local region and copies that out, each lane its own elements, so the
 * output is laid out as the global kernels'.  A work-group has at most
 * LOCAL_BLOCK_ITEMS work-items (rounded up to the SIMD width). */
#define LOCAL_BLOCK_ITEMS 64

/* The suffix of the n-element functions ("" or "2" to "16") and their
 * vector type. */
static void
block_names(const struct block_fn *f, unsigned n, char num[12], char vt[24])
{
   num[0] = 0;
   if (n > 1)
      snprintf(num, 12, "%u", n);
   snprintf(vt, 24, "%s%s", f->type, num);
}

static char *
local_block_kernel(char *src, const struct block_fn *f, unsigned n)
{
   char vt[24], num[12];

   block_names(f, n, num, vt);
   src = append(src,
                "__kernel REQD void ilblk%s%u(__global const %s *in, __global %s *out,\n"
                "                             ulong regions)\n{\n"
                "   __local %s rd[%u], wr[%u];\n"
                "   uint l = get_sub_group_local_id(), m = get_max_sub_group_size();\n"
                "   uint lbase = get_sub_group_id() * m * %u;\n"
                "   ulong base = ((ulong)" GROUP_LINEAR " * %u + get_sub_group_id()) * m * %u;\n"
                "   for (uint e = 0; e < %u; e++)\n"
                "      rd[lbase + e * m + l] = in[base + e * m + l];\n"
                "   sub_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
                "   %s v = intel_sub_group_block_read%s%s(rd + lbase);\n",
                f->sfx, n, f->type, f->type, f->type, LOCAL_BLOCK_ITEMS * STRIDE,
                LOCAL_BLOCK_ITEMS * STRIDE, STRIDE, MAX_SG_PER_GROUP, STRIDE, n, vt, f->sfx, num);
   if (n == 1)
      src = append(src, "   out[GID * %u] = v;\n"
                        "   intel_sub_group_block_write%s(wr + lbase, in[regions + GID * %u]);\n",
                   STRIDE, f->sfx, STRIDE);
   else
      src = append(src, "   vstore%u(v, 0, out + GID * %u);\n"
                        "   intel_sub_group_block_write%s%u(wr + lbase, vload%u(0, in + regions + GID * %u));\n",
                   n, STRIDE, f->sfx, n, n, STRIDE);
   return append(src, "   sub_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
                      "   for (uint e = 0; e < %u; e++)\n"
                      "      out[N * %u + base + e * m + l] = wr[lbase + e * m + l];\n"
                      "}\n",
                 n, STRIDE);
}

static char *
block_kernels(char *src)
{
   for (unsigned b = 0; b < NUM_BLOCK_FNS; b++) {
      const struct block_fn *f = &block_fns[b];

      if (f->size == 1)
         src = append(src, "#ifdef cl_intel_subgroups_char\n");
      else if (f->size == 2)
         src = append(src, "#ifdef cl_intel_subgroups_short\n");
      else if (f->size == 8)
         src = append(src, "#ifdef cl_intel_subgroups_long\n");
      else if (*f->sfx)
         src = append(src, "#if defined(cl_intel_subgroups_short) || defined(cl_intel_subgroups_char)\n");
      for (unsigned n = 1; n <= f->max_n; n *= 2) {
         char vt[24], num[12];

         block_names(f, n, num, vt);
         src = append(src,
                      "__kernel REQD void iblk%s%u(__global const %s *in, __global %s *out,\n"
                      "                            ulong regions)\n{\n"
                      "   ulong base = ((ulong)" GROUP_LINEAR " * %u + get_sub_group_id()) *\n"
                      "                get_max_sub_group_size() * %u;\n"
                      "   %s v = intel_sub_group_block_read%s%s(in + base);\n",
                      f->sfx, n, f->type, f->type, MAX_SG_PER_GROUP, STRIDE, vt, f->sfx, num);
         if (n == 1)
            src = append(src, "   out[GID * %u] = v;\n"
                              "   intel_sub_group_block_write%s(out + N * %u + base, in[regions + GID * %u]);\n",
                         STRIDE, f->sfx, STRIDE, STRIDE);
         else
            src = append(src, "   vstore%u(v, 0, out + GID * %u);\n"
                              "   intel_sub_group_block_write%s%u(out + N * %u + base,\n"
                              "                                  vload%u(0, in + regions + GID * %u));\n",
                         n, STRIDE, f->sfx, n, STRIDE, n, STRIDE);
         src = append(src, "}\n");
         src = append(src, "#ifdef cl_intel_subgroup_local_block_io\n");
         src = local_block_kernel(src, f, n);
         src = append(src, "#endif\n");
      }
      if (*f->sfx)
         src = append(src, "#endif\n");
   }
   /* At any alignment (the Weft GPU's definition; the specifications ask
    * for 4 bytes to read and 16 to write): the data at the address. */
   src = append(src,
                "__kernel REQD void iblk_misaligned(__global const uchar *in, __global uchar *out)\n"
                "{\n"
                "   uint v = intel_sub_group_block_read((const __global uint *)(in + 1));\n"
                "   intel_sub_group_block_write2((__global uint *)(out + 4), (uint2)(v, ~v));\n"
                "#ifdef cl_intel_subgroups_char\n"
                "   uchar c = intel_sub_group_block_read_uc(in + 3);\n"
                "   intel_sub_group_block_write_uc(out + 8 * get_max_sub_group_size() + 5, c);\n"
                "#endif\n"
                "}\n");
   return src;
}

struct block_ctx {
   const struct type *t;
   const uint8_t *in, *out;
   size_t n, regions; /* work-items; elements of the region area */
   unsigned simd, elems;
   unsigned read_bad, write_bad, untouched_bad, checked;
   char first[160];
};

static void
check_block_group(const struct item *items, unsigned n, void *data)
{
   struct block_ctx *x = data;
   const struct type *t = x->t;
   const uint8_t fill_byte[8] = {0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5};

   for (unsigned i = 0; i < n; i++) {
      const struct item *it = &items[i];
      size_t base = ((size_t)it->group_linear * MAX_SG_PER_GROUP + it->sg) * x->simd * STRIDE;

      for (unsigned e = 0; e < x->elems; e++) {
         size_t at = base + (size_t)e * x->simd + it->lane;
         size_t got = it->global_linear * STRIDE + e;
         size_t value = x->regions + it->global_linear * STRIDE + e;

         x->checked += 2;
         if (!same_bits(t, x->out, got, x->in, at) && !x->read_bad++)
            snprintf(x->first, sizeof(x->first), "read: work-item %zu element %u: 0x%llx, want 0x%llx",
                     it->global_linear, e, (unsigned long long)get_i(t, x->out, got),
                     (unsigned long long)get_i(t, x->in, at));
         if (!same_bits(t, x->out, x->n * STRIDE + at, x->in, value) && !x->write_bad++)
            snprintf(x->first, sizeof(x->first), "write: work-item %zu element %u: 0x%llx, want 0x%llx",
                     it->global_linear, e,
                     (unsigned long long)get_i(t, x->out, x->n * STRIDE + at),
                     (unsigned long long)get_i(t, x->in, value));
      }
      /* The lanes a partial sub-group lacks leave their elements alone. */
      if (it->lane == it->sg_size - 1) {
         for (unsigned l = it->sg_size; l < x->simd; l++)
            for (unsigned e = 0; e < x->elems; e++) {
               size_t at = x->n * STRIDE + base + (size_t)e * x->simd + l;
               if (memcmp(x->out + at * t->size, fill_byte, t->size) && !x->untouched_bad++)
                  snprintf(x->first, sizeof(x->first),
                           "write: absent lane %u of sub-group %u wrote element %u", l, it->sg, e);
            }
      }
   }
}

static void
run_blocks(struct cl *cl, cl_program prog, unsigned simd, const struct shape *s, bool local)
{
   size_t n = total_items(s);
   cl_ulong regions = num_groups_total(s) * MAX_SG_PER_GROUP * simd * STRIDE;
   const char *space = local ? " __local" : "";

   if (local && s->local[0] * s->local[1] * s->local[2] > LOCAL_BLOCK_ITEMS)
      return;
   for (unsigned b = 0; b < NUM_BLOCK_FNS; b++) {
      const struct block_fn *f = &block_fns[b];
      const struct type *t = block_type(f);
      size_t in_elems = regions + n * STRIDE, out_elems = n * STRIDE + regions;
      uint8_t *in = malloc(in_elems * f->size), *out = malloc(out_elems * f->size);

      fill(t, in, in_elems, 0xb10c + simd * 3 + (uint64_t)(s - shapes) * 29 + b);
      for (unsigned e = 1; e <= f->max_n; e *= 2) {
         struct block_ctx x = {t, in, out, n, regions, simd, e};
         char name[64];
         bool ran;

         snprintf(name, sizeof(name), "%s%s%u", local ? "ilblk" : "iblk", f->sfx, e);
         ran = run_with_arg(cl, prog, name, s, in, in_elems * f->size, out, out_elems * f->size,
                            &regions, sizeof(regions));
         if (ran)
            for_each_group(s, simd, check_block_group, &x);
         cases_in_matrix += 2;
         if (!ran) {
            report(false, "intel_sub_group_block_read%s%u%s simd%u %s: did not run", f->sfx, e,
                   space, simd, s->name);
            report(false, "intel_sub_group_block_write%s%u%s simd%u %s: did not run", f->sfx, e,
                   space, simd, s->name);
            continue;
         }
         report(!x.read_bad, "intel_sub_group_block_read%s%u%s simd%u %s%s%s", f->sfx, e, space,
                simd, s->name, x.read_bad ? ": " : "", x.read_bad ? x.first : "");
         report(!x.write_bad && !x.untouched_bad, "intel_sub_group_block_write%s%u%s simd%u %s%s%s",
                f->sfx, e, space, simd, s->name, x.write_bad || x.untouched_bad ? ": " : "",
                x.write_bad || x.untouched_bad ? x.first : "");
      }
      free(in);
      free(out);
   }
}

static void
run_misaligned(struct cl *cl, cl_program prog, unsigned simd)
{
   static const struct shape s = {"1d-one-sub-group", 1, {0, 1, 1}, {0, 1, 1}};
   struct shape one = s;
   size_t bytes = 16 * simd + 64;
   uint8_t *in = malloc(bytes), *out = malloc(bytes), *want = malloc(bytes);
   bool ran;

   one.global[0] = one.local[0] = simd;
   for (size_t i = 0; i < bytes; i++)
      in[i] = (uint8_t)(i * 37 + 11);
   ran = run(cl, prog, "iblk_misaligned", &one, in, bytes, out, bytes);
   memset(want, 0xa5, bytes);
   for (unsigned l = 0; l < simd; l++) {
      uint32_t v, nv;

      memcpy(&v, in + 1 + 4 * l, 4);
      nv = ~v;
      memcpy(want + 4 + 4 * l, &v, 4);
      memcpy(want + 4 + 4 * (simd + l), &nv, 4);
      want[8 * simd + 5 + l] = in[3 + l];
   }
   cases_in_matrix++;
   report(ran && !memcmp(out, want, bytes),
          "intel_sub_group_block_read/write at misaligned addresses (uint at +1 and +4 bytes, "
          "uchar at +3 and +5) simd%u%s", simd, ran ? "" : ": did not run");
   free(in);
   free(out);
   free(want);
}

/* --- A fault ----------------------------------------------------------------- */

/* A block read from an address no buffer maps faults on the device: its
 * event reports an error, and a second queue of the same context, opened
 * before, still runs the shuffles correctly afterwards.  What the driver
 * says about the fault on stderr is captured (a fault is not normal use,
 * which the VM tier checks is quiet) and shown in the case's line. */
static void
run_fault(struct cl *cl, const char *src)
{
   static const char *fault_src =
      "__kernel void block_fault(__global uint *out, ulong where)\n"
      "{\n"
      "   out[get_global_id(0)] = intel_sub_group_block_read((const __global uint *)where);\n"
      "}\n";
   static const struct shape s = {"1d", 1, {64, 1, 1}, {64, 1, 1}};
   cl_int err, status = CL_COMPLETE;
   cl_command_queue q = clCreateCommandQueueWithProperties(cl->ctx, cl->dev, NULL, &err);
   cl_command_queue q2 = clCreateCommandQueueWithProperties(cl->ctx, cl->dev, NULL, &err);
   cl_program p = build(cl, fault_src, 16, "-cl-std=CL3.0");
   cl_kernel k = p ? clCreateKernel(p, "block_fault", &err) : NULL;
   cl_mem out = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE, 64 * 4, NULL, &err);
   cl_ulong where = 0x7ff000000000ull; /* past every allocation */
   cl_event ev = NULL;
   char said[256];
   struct stderr_capture capture;

   stderr_capture_begin(&capture);
   if (k && q && out && !clSetKernelArg(k, 0, sizeof(out), &out) &&
       !clSetKernelArg(k, 1, sizeof(where), &where) &&
       !clEnqueueNDRangeKernel(q, k, 1, NULL, s.global, s.local, 0, NULL, &ev)) {
      clFinish(q);
      clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL);
   }
   if (ev)
      clReleaseEvent(ev);
   if (out)
      clReleaseMemObject(out);
   if (k)
      clReleaseKernel(k);
   if (p)
      clReleaseProgram(p);
   if (q)
      clReleaseCommandQueue(q);
   stderr_capture_end(&capture, said, sizeof(said));
   cases_in_matrix++;
   report(status < 0, "bad-input intel_sub_group_block_read outside the GPU VM: the event reports "
          "%d (\"%s\")", status, said);
   if (q2) {
      struct cl other = {cl->ctx, q2, cl->dev};
      cl_program good = build(&other, src, 16, "-cl-std=CL3.0");

      if (good) {
         run_shuffles(&other, good, 16, &shapes[1], &types[4]);
         clReleaseProgram(good);
      } else {
         cases_in_matrix++;
         report(false, "after the fault: the program did not build");
      }
   }
   if (q2)
      clReleaseCommandQueue(q2);
}

void
run_intel_subgroups(struct cl *cl, bool slice)
{
   char *src = append(NULL,
                      "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
                      "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                      "#define REQD __attribute__((intel_reqd_sub_group_size(SIMD)))\n"
                      "#define GID (get_global_id(0) + get_global_id(1) * get_global_size(0) + \\\n"
                      "             get_global_id(2) * get_global_size(0) * get_global_size(1))\n"
                      "#define N (get_global_size(0) * get_global_size(1) * get_global_size(2))\n");
   static const unsigned simds[] = {8, 16, 32};
   double start = now(), build_time = 0;
   unsigned long long first_case = cases_in_matrix;

   src = shuffle_kernels(src);
   src = block_kernels(src);
   for (unsigned w = 0; w < 3; w++) {
      unsigned simd = simds[w];
      double t0 = now();
      cl_program prog = build(cl, src, simd, "-cl-std=CL3.0");

      build_time += now() - t0;
      for (unsigned si = 0; si < num_shapes; si++) {
         const struct shape *s = &shapes[si];

         if (slice && strcmp(s->name, "1d-partial-sg"))
            continue;
         if (!prog) {
            cases_in_matrix++;
            report(false, "cl_intel_subgroups simd%u %s: the program did not build", simd, s->name);
            continue;
         }
         for (unsigned t = 0; t < num_types; t++)
            run_shuffles(cl, prog, simd, s, &types[t]);
         run_out_of_range(cl, prog, simd, s);
         run_blocks(cl, prog, simd, s, false);
         run_blocks(cl, prog, simd, s, true);
      }
      if (prog) {
         run_misaligned(cl, prog, simd);
         clReleaseProgram(prog);
      }
   }
   run_fault(cl, src);
   printf("matrix: cl_intel_subgroups %llu cases (%u types x their widths x 4 shuffles + 21 block "
          "reads and writes on global memory and 21 on local memory in the shapes of up to %u "
          "work-items, x 3 widths x %s), %.1f s (%.1f s building)\n",
          cases_in_matrix - first_case, num_types, LOCAL_BLOCK_ITEMS, slice ? "1 shape" : "11 shapes",
          now() - start, build_time);
   free(src);
}
