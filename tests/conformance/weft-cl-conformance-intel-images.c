// SPDX-License-Identifier: MIT
/*
 * Sub-group block reads and writes on image2d_t (cl_intel_subgroups,
 * _short and _char): intel_sub_group_block_read/write{,2,4,8} unsuffixed
 * and _ui, _us, _uc (and _uc16), on read_only, write_only and read_write
 * images, at SIMD 8, 16 and 32, in uniform, non-uniform and partial
 * sub-group work-groups, checked against a C reference.
 *
 * Each sub-group reads or writes its own block: block k of the NDRange
 * (work-group * sub-groups per enqueued work-group + sub-group id) has its
 * top-left corner at byte x = (k % across) * SIMD * element size + x0, row
 * y = (k / across) * rows + y0, with x0 two elements left of the image, y0
 * one row above it and blocks across the image's right edge, so blocks
 * straddle every edge; the image's width in bytes is not a multiple of
 * the block's (nor, for R8, of 4: a uint there straddles the edge).  Each
 * case runs twice: x0 a multiple of the element, and x0 one byte further
 * (an x that is not a multiple of the element size; not in the slice).
 *
 * The rule for edges is cl_intel_subgroups' note on out-of-bounds
 * behaviour, bounds-checked in units of the function's element
 * (Documentation/gpu/weft/execution.rst, "Block I/O"): an element not
 * entirely inside the image reads the edge element (the one at the byte x
 * clamped to [0, width - size] and the row clamped to [0, height - 1], as
 * CLK_ADDRESS_CLAMP_TO_EDGE) and is not written.  Three formats: RGBA8 (a
 * texel is a uint, the case the specification defines fully), R8 (width in
 * bytes = texels) and RGBA16 (8 bytes a texel).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft-cl-conformance.h"

struct img_block_fn {
   const char *sfx, *type;
   unsigned size, max_rows;
   const char *ext; /* the macro the functions need */
};

static const struct img_block_fn img_fns[] = {
   {"", "uint", 4, 8, "cl_intel_subgroups"},
   {"_ui", "uint", 4, 8, "cl_intel_subgroups_short"},
   {"_us", "ushort", 2, 8, "cl_intel_subgroups_short"},
   {"_uc", "uchar", 1, 16, "cl_intel_subgroups_char"},
};
#define NUM_IMG_FNS (sizeof(img_fns) / sizeof(img_fns[0]))

enum access { ACC_READ, ACC_WRITE, ACC_READ_WRITE };
static const char *const access_name[] = {"read_only", "write_only", "read_write"};
static const char *const kernel_prefix[] = {"ibr", "ibw", "ibrw"};

struct img_fmt {
   cl_image_format f;
   const char *name;
   unsigned bpp;
};

static const struct img_fmt img_fmts[] = {
   {{CL_RGBA, CL_UNSIGNED_INT8}, "RGBA8", 4},
   {{CL_R, CL_UNSIGNED_INT8}, "R8", 1},
   {{CL_RGBA, CL_UNSIGNED_INT16}, "RGBA16", 8},
};
#define NUM_IMG_FMTS (sizeof(img_fmts) / sizeof(img_fmts[0]))

#define IMG_HEIGHT 11
#define OUT_STRIDE 16 /* elements per work-item in the output buffer */

/* The width of the test image in texels at @simd. */
static size_t
img_width(const struct img_fmt *f, unsigned simd)
{
   return f->bpp == 1 ? 2 * simd * 4 + 6 : f->bpp == 4 ? simd + 3 : simd / 2 + 3;
}

/* The value work-item @gid writes to row @i. */
static uint32_t
written_value(size_t gid, unsigned i)
{
   return (uint32_t)(gid * 7 + i * 13 + 1);
}

static char *
vec_type(char *buf, size_t len, const struct img_block_fn *f, unsigned rows)
{
   if (rows == 1)
      snprintf(buf, len, "%s", f->type);
   else
      snprintf(buf, len, "%s%u", f->type, rows);
   return buf;
}

static char *
img_block_kernels(char *src)
{
   src = append(src,
                "#define REQD __attribute__((intel_reqd_sub_group_size(SIMD)))\n"
                "#define BLOCK (get_group_id(0) * ((get_enqueued_local_size(0) + SIMD - 1) / SIMD) + \\\n"
                "               get_sub_group_id())\n"
                "#define COORD(T, rows) (int2)((int)(BLOCK %% g.z) * (int)(SIMD * sizeof(T)) + g.x, \\\n"
                "                              (int)(BLOCK / g.z) * (rows) + g.y)\n");
   for (unsigned b = 0; b < NUM_IMG_FNS; b++) {
      const struct img_block_fn *f = &img_fns[b];

      src = append(src, "#ifdef %s\n", f->ext);
      for (unsigned rows = 1; rows <= f->max_rows; rows *= 2) {
         char vt[24], num[12] = "", vals[1024] = "";
         size_t o = 0;

         vec_type(vt, sizeof(vt), f, rows);
         if (rows > 1)
            snprintf(num, sizeof(num), "%u", rows);
         o += snprintf(vals + o, sizeof(vals) - o, "(%s)(", vt);
         for (unsigned i = 0; i < rows; i++)
            o += snprintf(vals + o, sizeof(vals) - o, "%s(%s)(get_global_id(0) * 7 + %u)",
                          i ? ", " : "", f->type, i * 13 + 1);
         snprintf(vals + o, sizeof(vals) - o, ")");
         for (unsigned a = 0; a < 3; a++) {
            src = append(src,
                         "__kernel REQD void %s%s%u(%s image2d_t img, __global %s *out, int4 g)\n"
                         "{\n"
                         "   __global %s *o = out + get_global_id(0) * %u;\n",
                         kernel_prefix[a], f->sfx, rows, access_name[a], f->type, f->type,
                         OUT_STRIDE);
            if (a != ACC_WRITE) {
               src = append(src, "   %s v = intel_sub_group_block_read%s%s(img, COORD(%s, %u));\n",
                            vt, f->sfx, num, f->type, rows);
               if (rows == 1)
                  src = append(src, "   o[0] = v;\n");
               else
                  src = append(src, "   vstore%u(v, 0, o);\n", rows);
            }
            if (a == ACC_WRITE)
               src = append(src, "   intel_sub_group_block_write%s%s(img, COORD(%s, %u), %s);\n",
                            f->sfx, num, f->type, rows, vals);
            else if (a == ACC_READ_WRITE)
               src = append(src,
                            "   intel_sub_group_block_write%s%s(img, COORD(%s, %u), v + %s);\n",
                            f->sfx, num, f->type, rows, vals);
            src = append(src, "}\n");
         }
      }
      src = append(src, "#endif\n");
   }
   return src;
}

struct img_case {
   const struct img_block_fn *f;
   unsigned rows, simd;
   enum access acc;
   size_t width_bytes;
   int x0, y0, across;
   const uint8_t *img0; /* the image before the kernel */
   uint8_t *img_want;   /* after it, as the reference computes */
   const uint8_t *out;  /* the values the kernel read */
   bool writes;         /* this pass computes img_want, the next checks reads */
   unsigned bad, checked;
   char first[200];
};

static uint32_t
load_le(const uint8_t *p, unsigned size)
{
   uint32_t v = 0;

   for (unsigned i = 0; i < size; i++)
      v |= (uint32_t)p[i] << (8 * i);
   return v;
}

static void
store_le(uint8_t *p, unsigned size, uint32_t v)
{
   for (unsigned i = 0; i < size; i++)
      p[i] = (uint8_t)(v >> (8 * i));
}

static void
check_img_group(const struct item *items, unsigned n, void *data)
{
   struct img_case *c = data;
   unsigned size = c->f->size;
   uint32_t mask = size == 4 ? ~0u : (1u << (8 * size)) - 1;

   for (unsigned i = 0; i < n; i++) {
      const struct item *it = &items[i];
      unsigned per_group = (it->enq_lsize[0] + c->simd - 1) / c->simd;
      unsigned block = it->group_linear * per_group + it->sg;
      int x = (int)(block % c->across) * (int)(c->simd * size) + c->x0;
      int y = (int)(block / c->across) * (int)c->rows + c->y0;
      int xx = x + (int)(it->lane * size);

      for (unsigned r = 0; r < c->rows; r++) {
         int yy = y + (int)r;
         bool inside = yy >= 0 && yy < IMG_HEIGHT && xx >= 0 &&
                       (size_t)xx + size <= c->width_bytes;
         /* Outside: the edge element, in units of the function's element. */
         int edge_x = (int)(c->width_bytes - size);
         size_t cx = (size_t)(xx < 0 ? 0 : xx > edge_x ? edge_x : xx);
         size_t cy = (size_t)(yy < 0 ? 0 : yy >= IMG_HEIGHT ? IMG_HEIGHT - 1 : yy);
         size_t at = cy * c->width_bytes + cx;
         uint32_t read_want = load_le(c->img0 + at, size);

         if (c->acc != ACC_WRITE && !c->writes) {
            uint32_t got = load_le(c->out + (it->global_linear * OUT_STRIDE + r) * size, size);
            bool ok = got == read_want;

            /* Read-write: an edge element read from outside may race with
             * the sub-group that writes it; each byte is before or after. */
            for (unsigned b = 0; !ok && !inside && c->acc == ACC_READ_WRITE && b < size; b++) {
               uint8_t g = (uint8_t)(got >> (8 * b));

               if (g != c->img0[at + b] && g != c->img_want[at + b])
                  break;
               ok = b == size - 1;
            }
            c->checked++;
            if (!ok && !c->bad++)
               snprintf(c->first, sizeof(c->first),
                        "read: work-item %zu (lane %u of %u) row %u at (%d, %d): 0x%x, want 0x%x",
                        it->global_linear, it->lane, it->sg_size, r, xx, yy, got, read_want);
         }
         if (c->acc != ACC_READ && inside && c->writes) {
            uint32_t v = written_value(it->global_linear, r);

            if (c->acc == ACC_READ_WRITE)
               v += read_want;
            store_le(c->img_want + at, size, v & mask);
         }
      }
   }
}

/* The kernel over shape @s on a fresh image; false when it did not run. */
static bool
run_img_case(struct cl *cl, cl_program prog, const struct shape *s, const struct img_fmt *fmt,
             struct img_case *c, uint8_t *img_got, uint8_t *out, size_t out_bytes)
{
   size_t width = img_width(fmt, c->simd), origin[3] = {0, 0, 0};
   size_t region[3] = {width, IMG_HEIGHT, 1};
   cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = width,
                         .image_height = IMG_HEIGHT};
   cl_int g[4] = {c->x0, c->y0, c->across, 0};
   cl_int err;
   char name[32];
   cl_mem img = clCreateImage(cl->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, &fmt->f, &desc,
                              (void *)c->img0, &err);
   cl_mem buf = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, out_bytes, out,
                               &err);
   cl_kernel k;
   bool ok = false;

   snprintf(name, sizeof(name), "%s%s%u", kernel_prefix[c->acc], c->f->sfx, c->rows);
   k = clCreateKernel(prog, name, &err);
   if (k && img && buf && !clSetKernelArg(k, 0, sizeof(img), &img) &&
       !clSetKernelArg(k, 1, sizeof(buf), &buf) && !clSetKernelArg(k, 2, sizeof(g), g) &&
       !clEnqueueNDRangeKernel(cl->q, k, 1, NULL, s->global, s->local, 0, NULL, NULL) &&
       !clEnqueueReadBuffer(cl->q, buf, CL_TRUE, 0, out_bytes, out, 0, NULL, NULL) &&
       !clEnqueueReadImage(cl->q, img, CL_TRUE, origin, region, 0, 0, img_got, 0, NULL, NULL))
      ok = true;
   if (k)
      clReleaseKernel(k);
   if (img)
      clReleaseMemObject(img);
   if (buf)
      clReleaseMemObject(buf);
   return ok;
}

static void
run_img_blocks_shape(struct cl *cl, cl_program prog, unsigned simd, const struct shape *s,
                     bool slice)
{
   size_t n = total_items(s);

   for (unsigned fi = 0; fi < NUM_IMG_FMTS; fi++) {
      const struct img_fmt *fmt = &img_fmts[fi];
      size_t width_bytes = img_width(fmt, simd) * fmt->bpp;
      size_t img_bytes = width_bytes * IMG_HEIGHT;
      uint8_t *img0 = malloc(img_bytes), *img_got = malloc(img_bytes);
      uint8_t *img_want = malloc(img_bytes);

      for (size_t i = 0; i < img_bytes; i++)
         img0[i] = (uint8_t)((i * 0x9e3779b1u) >> 13) ^ (uint8_t)(simd + fi);
      for (unsigned b = 0; b < NUM_IMG_FNS; b++) {
         const struct img_block_fn *f = &img_fns[b];
         size_t out_bytes = n * OUT_STRIDE * f->size;
         uint8_t *out = malloc(out_bytes);

         for (unsigned rows = 1; rows <= f->max_rows; rows *= 2) {
            for (unsigned a = 0; a < 3 * 2; a++) {
               /* The second time round, x is one byte past a multiple of the element. */
               int skew = a >= 3 && f->size > 1;
               struct img_case c = {
                  .f = f, .rows = rows, .simd = simd, .acc = a % 3, .width_bytes = width_bytes,
                  .x0 = -2 * (int)f->size + skew, .y0 = -1,
                  .across = (int)((width_bytes + 2 * f->size) / (simd * f->size)) + 2,
                  .img0 = img0, .img_want = img_want, .out = out,
               };
               char what[128];
               bool ran;

               /* A uchar's x is always a multiple of its size; the VM's
                * slice has the aligned x only. */
               if (a >= 3 && (!skew || slice))
                  continue;
               memset(out, 0xa5, out_bytes);
               ran = run_img_case(cl, prog, s, fmt, &c, img_got, out, out_bytes);
               memcpy(img_want, img0, img_bytes);
               for (unsigned pass = 0; ran && pass < 2; pass++) {
                  c.writes = !pass;
                  for_each_group(s, simd, check_img_group, &c);
               }
               if (ran && memcmp(img_got, img_want, img_bytes)) {
                  size_t i = 0;

                  while (img_got[i] == img_want[i])
                     i++;
                  if (!c.bad++)
                     snprintf(c.first, sizeof(c.first),
                              "image byte %zu of row %zu: 0x%02x, want 0x%02x (before: 0x%02x)",
                              i % width_bytes, i / width_bytes, img_got[i], img_want[i], img0[i]);
               }
               snprintf(what, sizeof(what),
                        "intel_sub_group_block_%s%s%u %s image2d_t %s simd%u %s x0=%d",
                        c.acc == ACC_READ ? "read" : c.acc == ACC_WRITE ? "write" : "read+write",
                        f->sfx, rows, access_name[c.acc], fmt->name, simd, s->name, c.x0);
               cases_in_matrix++;
               if (!ran)
                  report(false, "%s: did not run", what);
               else if (c.bad)
                  report(false, "%s: %s", what, c.first);
               else
                  report(true, "%s (%u values read, %zu image bytes)", what, c.checked, img_bytes);
            }
         }
         free(out);
      }
      free(img0);
      free(img_got);
      free(img_want);
   }
}

void
run_intel_image_blocks(struct cl *cl, bool slice)
{
   static const unsigned simds[] = {8, 16, 32};
   static const char *const full_shapes[] = {"1d-uniform", "1d-partial-sg", "1d-non-uniform",
                                             "1d-max-non-uniform"};
   char *src = img_block_kernels(NULL);
   unsigned long long first_case = cases_in_matrix;
   double start = now(), build_time = 0;
   unsigned nshapes = 0;

   for (unsigned w = 0; w < 3; w++) {
      double t0 = now();
      cl_program prog = build(cl, src, simds[w], "-cl-std=CL3.0");

      build_time += now() - t0;
      nshapes = 0;
      for (unsigned si = 0; si < num_shapes; si++) {
         bool wanted = false;

         for (unsigned k = 0; k < sizeof(full_shapes) / sizeof(full_shapes[0]); k++)
            wanted |= !strcmp(shapes[si].name, full_shapes[k]);
         if (!wanted || (slice && strcmp(shapes[si].name, "1d-partial-sg")))
            continue;
         nshapes++;
         if (!prog) {
            cases_in_matrix++;
            report(false, "image block I/O simd%u %s: the program did not build", simds[w],
                   shapes[si].name);
            continue;
         }
         run_img_blocks_shape(cl, prog, simds[w], &shapes[si], slice);
      }
      if (prog)
         clReleaseProgram(prog);
   }
   printf("matrix: image block I/O %llu cases (4 functions x their row counts x read_only, "
          "write_only, read_write x x0 aligned or not x 3 formats x 3 widths x %u shapes), "
          "%.1f s (%.1f s building)\n",
          cases_in_matrix - first_case, nshapes, now() - start, build_time);
   free(src);
}
