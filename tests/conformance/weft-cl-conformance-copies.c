// SPDX-License-Identifier: MIT
/*
 * Copies of a constant size in weft-cl-conformance: __builtin_memcpy between
 * global, private and local memory, at sizes below, at and past the 1 KiB up
 * to which the compiler unrolls a copy (Mesa patch 0059: larger ones loop
 * over 16-byte chunks, then copy the tail), from and to addresses of every
 * alignment, at SIMD 8, 16 and 32 in uniform, partial-sub-group and
 * non-uniform work-groups, every byte checked against what C copies.
 */
#include "weft-cl-conformance.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Each work-item's region starts 3 bytes after the previous one's, and the
 * copies are 1 or 2 bytes into it, so that every alignment is met.  The
 * private kernel fills its array, copies into it at offset 3 and writes the
 * whole array out, size + 19 bytes per work-item; the local one copies one
 * region per work-group, which the work-group then writes out.
 */
static const char copies_source[] =
   "#define REQD __attribute__((intel_reqd_sub_group_size(SIMD)))\n"
   "#define STRIDE(n) ((n) + 3)\n"
   "#define GLOBAL_COPY(n) REQD __kernel void global_##n(__global const uchar *src,\\\n"
   "                                                     __global uchar *dst)\\\n"
   "{\\\n"
   "   size_t i = get_global_id(0);\\\n"
   "   __builtin_memcpy(dst + i * STRIDE(n) + 1, src + i * STRIDE(n) + 2, n);\\\n"
   "}\n"
   "#define PRIVATE_COPY(n) REQD __kernel void private_##n(__global const uchar *src,\\\n"
   "                                                       __global uchar *dst)\\\n"
   "{\\\n"
   "   size_t i = get_global_id(0);\\\n"
   "   uchar p[(n) + 19];\\\n"
   "   for (uint j = 0; j < (n) + 19; j++)\\\n"
   "      p[j] = (uchar)(j * 7 + i);\\\n"
   "   __builtin_memcpy(p + 3, src + i * STRIDE(n) + 1, n);\\\n"
   "   for (uint j = 0; j < (n) + 19; j++)\\\n"
   "      dst[i * ((n) + 19) + j] = p[j];\\\n"
   "}\n"
   "#define LOCAL_COPY(n) REQD __kernel void local_##n(__global const uchar *src,\\\n"
   "                                                   __global uchar *dst)\\\n"
   "{\\\n"
   "   __local uchar l[(n) + 8];\\\n"
   "   size_t g = get_group_id(0);\\\n"
   "   if (get_local_id(0) == 0)\\\n"
   "      __builtin_memcpy(l + 5, src + g * STRIDE(n) + 2, n);\\\n"
   "   barrier(CLK_LOCAL_MEM_FENCE);\\\n"
   "   for (uint j = get_local_id(0); j < (n); j += get_local_size(0))\\\n"
   "      dst[g * STRIDE(n) + j] = l[5 + j];\\\n"
   "}\n"
   "GLOBAL_COPY(15)\n"
   "GLOBAL_COPY(1024)\n"
   "GLOBAL_COPY(1025)\n"
   "GLOBAL_COPY(4109)\n"
   "GLOBAL_COPY(16391)\n"
   "PRIVATE_COPY(1061)\n"
   "LOCAL_COPY(4109)\n";

enum copy_space { COPY_GLOBAL, COPY_PRIVATE, COPY_LOCAL };

static const struct copy_case {
   enum copy_space space;
   unsigned size;
} copy_cases[] = {
   {COPY_GLOBAL, 15},     {COPY_GLOBAL, 1024},  {COPY_GLOBAL, 1025}, {COPY_GLOBAL, 4109},
   {COPY_GLOBAL, 16391},  {COPY_PRIVATE, 1061}, {COPY_LOCAL, 4109},
};
#define NUM_COPY_CASES (sizeof(copy_cases) / sizeof(copy_cases[0]))

static const char *const copy_space_names[] = {"global", "private", "local"};

/* What the kernel of @c leaves in @dst (filled with 0xa5 before, as run()
 * does) over @items work-items in groups of @local_size. */
static void
expected_copy(const struct copy_case *c, const uint8_t *src, uint8_t *dst, size_t items,
              size_t local_size)
{
   size_t stride = c->size + 3;

   switch (c->space) {
   case COPY_GLOBAL:
      for (size_t i = 0; i < items; i++)
         memcpy(dst + i * stride + 1, src + i * stride + 2, c->size);
      break;
   case COPY_PRIVATE:
      for (size_t i = 0; i < items; i++) {
         uint8_t *p = dst + i * (c->size + 19);
         for (size_t j = 0; j < c->size + 19; j++)
            p[j] = (uint8_t)(j * 7 + i);
         memcpy(p + 3, src + i * stride + 1, c->size);
      }
      break;
   case COPY_LOCAL:
      for (size_t g = 0; g * local_size < items; g++)
         memcpy(dst + g * stride, src + g * stride + 2, c->size);
      break;
   }
}

/* The kernel's output against C's, with the first differing byte. */
static void
check_copy(const struct copy_case *c, unsigned simd, const struct shape *s, const uint8_t *got,
           const uint8_t *want, size_t bytes, bool ran)
{
   size_t first = 0;

   while (ran && first < bytes && got[first] == want[first])
      first++;
   cases_in_matrix++;
   if (!ran)
      report(false, "copies simd%u %s: %s %u bytes: the kernel did not run", simd, s->name,
             copy_space_names[c->space], c->size);
   else if (first < bytes)
      report(false, "copies simd%u %s: %s %u bytes: byte %zu is 0x%02x, C copies 0x%02x", simd,
             s->name, copy_space_names[c->space], c->size, first, got[first], want[first]);
   else
      report(true, "copies simd%u %s: %s %u bytes", simd, s->name, copy_space_names[c->space],
             c->size);
}

void
run_copies(struct cl *cl)
{
   for (unsigned simd = 8; simd <= 32; simd *= 2) {
      cl_program prog = build(cl, copies_source, simd, "-cl-std=CL3.0");

      if (!prog) {
         cases_in_matrix++;
         report(false, "copies simd%u: the program did not build", simd);
         continue;
      }
      /* The 1D shapes: uniform, partial last sub-group, non-uniform. */
      for (unsigned si = 0; si < 3; si++) {
         const struct shape *s = &shapes[si];
         size_t items = total_items(s);

         for (unsigned ci = 0; ci < NUM_COPY_CASES; ci++) {
            const struct copy_case *c = &copy_cases[ci];
            /* As much as the private kernel writes, the most of all. */
            size_t bytes = items * (c->size + 19);
            uint8_t *src = malloc(bytes), *got = malloc(bytes), *want = malloc(bytes);
            char name[32];

            for (size_t i = 0; i < bytes; i++)
               src[i] = (uint8_t)(i * 131 + (i >> 8) * 17 + 1);
            memset(want, 0xa5, bytes);
            expected_copy(c, src, want, items, s->local[0]);
            snprintf(name, sizeof(name), "%s_%u", copy_space_names[c->space], c->size);
            bool ran = run(cl, prog, name, s, src, bytes, got, bytes);
            check_copy(c, simd, s, got, want, bytes, ran);
            free(src);
            free(got);
            free(want);
         }
      }
      clReleaseProgram(prog);
   }
}
