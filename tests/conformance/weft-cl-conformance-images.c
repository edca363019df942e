// SPDX-License-Identifier: MIT
/*
 * Images: every reported format on every image type (1D, 1D buffer, 1D
 * array, 2D, 2D array, 3D; 2D and 2D array depth images), read_image{f,i,ui}
 * and read_imageh (cl_khr_fp16) with every sampler (nearest
 * and linear; clamp-to-edge, clamp, repeat, mirrored repeat, none;
 * normalized and unnormalized coordinates; integer coordinates), each
 * sampler both as a program-scope constant and as a kernel argument
 * (through a function parameter, in the same program), sampler-less reads inside and outside the image, write_image{f,i,ui,h}
 * with the conversion rules (rounding, saturation, NaN) and writes outside
 * the image, read_write images, the get_image_* queries, and
 * clEnqueueRead/Write/Copy/Fill/MapImage, each checked against a C
 * reference of the OpenCL specification's rules ("Image Addressing and
 * Filtering", "Conversion Rules").  NDRanges of 100 work-items in groups
 * of 24: partial sub-groups and a remainder work-group at every width.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft-cl-conformance.h"

enum ckind { K_UNORM, K_SNORM, K_SINT, K_UINT, K_HALF, K_FLOAT };
/* read_image{f,i,ui,h}; the kernels return halves as floats. */
enum rclass { R_F, R_I, R_UI, R_H };
static const char *const rname[] = {"f", "i", "ui", "h"};
static const char *const rtype[] = {"float", "int", "uint", "float"};
#define FP16_PRAGMA "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"

struct fmt {
   cl_channel_order order;
   cl_channel_type type;
   const char *name;
   unsigned nch, csize;
   enum ckind kind;
   bool depth; /* CL_DEPTH: only for the depth image types */
};

#define ORDERS(T, tname, size, kind)                                                     \
   {CL_R, T, "R_" tname, 1, size, kind}, {CL_RG, T, "RG_" tname, 2, size, kind},         \
      {CL_RGBA, T, "RGBA_" tname, 4, size, kind}

static const struct fmt fmts[] = {
   ORDERS(CL_UNORM_INT8, "UNORM_INT8", 1, K_UNORM),
   ORDERS(CL_UNORM_INT16, "UNORM_INT16", 2, K_UNORM),
   ORDERS(CL_SNORM_INT8, "SNORM_INT8", 1, K_SNORM),
   ORDERS(CL_SNORM_INT16, "SNORM_INT16", 2, K_SNORM),
   ORDERS(CL_SIGNED_INT8, "SIGNED_INT8", 1, K_SINT),
   ORDERS(CL_SIGNED_INT16, "SIGNED_INT16", 2, K_SINT),
   ORDERS(CL_SIGNED_INT32, "SIGNED_INT32", 4, K_SINT),
   ORDERS(CL_UNSIGNED_INT8, "UNSIGNED_INT8", 1, K_UINT),
   ORDERS(CL_UNSIGNED_INT16, "UNSIGNED_INT16", 2, K_UINT),
   ORDERS(CL_UNSIGNED_INT32, "UNSIGNED_INT32", 4, K_UINT),
   ORDERS(CL_HALF_FLOAT, "HALF_FLOAT", 2, K_HALF),
   ORDERS(CL_FLOAT, "FLOAT", 4, K_FLOAT),
   {CL_BGRA, CL_UNORM_INT8, "BGRA_UNORM_INT8", 4, 1, K_UNORM},
   /* cl_khr_depth_images */
   {CL_DEPTH, CL_FLOAT, "DEPTH_FLOAT", 1, 4, K_FLOAT, true},
   {CL_DEPTH, CL_UNORM_INT16, "DEPTH_UNORM_INT16", 1, 2, K_UNORM, true},
};
#define NUM_FMTS (sizeof(fmts) / sizeof(fmts[0]))

static enum rclass
fmt_class(const struct fmt *f)
{
   return f->kind == K_SINT ? R_I : f->kind == K_UINT ? R_UI : R_F;
}

/* Image types: size (w, h, d: d is the layers of an array), the kernel's
 * coordinate expressions from float4 v and int4 iv. */
struct itype {
   const char *name, *cltype;
   cl_mem_object_type mt;
   unsigned axes;
   bool array, sampled;
   size_t w, h, d;
   const char *fc, *ic;
   bool depth; /* read_imagef returns a float, write_imagef takes one */
};

static const struct itype itypes[] = {
   {"1d", "image1d_t", CL_MEM_OBJECT_IMAGE1D, 1, false, true, 13, 1, 1, "v.x", "iv.x"},
   {"1d-buffer", "image1d_buffer_t", CL_MEM_OBJECT_IMAGE1D_BUFFER, 1, false, false, 13, 1, 1,
    "v.x", "iv.x"},
   {"1d-array", "image1d_array_t", CL_MEM_OBJECT_IMAGE1D_ARRAY, 1, true, true, 13, 1, 3, "v.xy",
    "iv.xy"},
   {"2d", "image2d_t", CL_MEM_OBJECT_IMAGE2D, 2, false, true, 7, 5, 1, "v.xy", "iv.xy"},
   {"2d-array", "image2d_array_t", CL_MEM_OBJECT_IMAGE2D_ARRAY, 2, true, true, 7, 5, 3, "v",
    "iv"},
   {"3d", "image3d_t", CL_MEM_OBJECT_IMAGE3D, 3, false, true, 5, 4, 3, "v", "iv"},
   {"2d-depth", "image2d_depth_t", CL_MEM_OBJECT_IMAGE2D, 2, false, true, 7, 5, 1, "v.xy", "iv.xy",
    true},
   {"2d-array-depth", "image2d_array_depth_t", CL_MEM_OBJECT_IMAGE2D_ARRAY, 2, true, true, 7, 5, 3,
    "v", "iv", true},
};
#define NUM_ITYPES (sizeof(itypes) / sizeof(itypes[0]))

/* The samplers of the sampling kernel: both filters over the addressing
 * modes with normalized coordinates, then those valid without; the last
 * one is read with integer coordinates. */
struct samp {
   bool norm, linear;
   cl_addressing_mode addr;
   const char *name;
};

static const struct samp samps[] = {
   {true, false, CL_ADDRESS_CLAMP_TO_EDGE, "norm-nearest-clamp-to-edge"},
   {true, false, CL_ADDRESS_CLAMP, "norm-nearest-clamp"},
   {true, false, CL_ADDRESS_REPEAT, "norm-nearest-repeat"},
   {true, false, CL_ADDRESS_MIRRORED_REPEAT, "norm-nearest-mirrored-repeat"},
   {true, false, CL_ADDRESS_NONE, "norm-nearest-none"},
   {false, false, CL_ADDRESS_CLAMP_TO_EDGE, "unnorm-nearest-clamp-to-edge"},
   {false, false, CL_ADDRESS_CLAMP, "unnorm-nearest-clamp"},
   {false, false, CL_ADDRESS_NONE, "unnorm-nearest-none"},
   {true, true, CL_ADDRESS_CLAMP_TO_EDGE, "norm-linear-clamp-to-edge"},
   {true, true, CL_ADDRESS_CLAMP, "norm-linear-clamp"},
   {true, true, CL_ADDRESS_REPEAT, "norm-linear-repeat"},
   {true, true, CL_ADDRESS_MIRRORED_REPEAT, "norm-linear-mirrored-repeat"},
   {true, true, CL_ADDRESS_NONE, "norm-linear-none"},
   {false, true, CL_ADDRESS_CLAMP_TO_EDGE, "unnorm-linear-clamp-to-edge"},
   {false, true, CL_ADDRESS_CLAMP, "unnorm-linear-clamp"},
   {false, true, CL_ADDRESS_NONE, "unnorm-linear-none"},
   {false, false, CL_ADDRESS_CLAMP, "int-coords-nearest-clamp"},
};
#define NUM_SAMPS (sizeof(samps) / sizeof(samps[0]))
#define INT_COORD_SAMP (NUM_SAMPS - 1)

/* 100 work-items in work-groups of 24: a remainder work-group of 4. */
#define ITEMS 100
#define LOCAL 24

static const char *
addr_name(cl_addressing_mode a)
{
   switch (a) {
   case CL_ADDRESS_CLAMP_TO_EDGE: return "CLK_ADDRESS_CLAMP_TO_EDGE";
   case CL_ADDRESS_CLAMP: return "CLK_ADDRESS_CLAMP";
   case CL_ADDRESS_REPEAT: return "CLK_ADDRESS_REPEAT";
   case CL_ADDRESS_MIRRORED_REPEAT: return "CLK_ADDRESS_MIRRORED_REPEAT";
   default: return "CLK_ADDRESS_NONE";
   }
}

/* --- The kernels --------------------------------------------------------- */

/* How a kernel reads (open, the read_image call, close) and what it writes
 * for result class @r: depth images' floats widened as a CL_R texel is,
 * halves converted to and from float. */
static void
access_exprs(const struct itype *it, enum rclass r, const char **open, const char **close,
             const char **wopen, const char **wclose)
{
   *open = it->depth ? "(float4)(" : r == R_H ? "convert_float4(" : "";
   *close = it->depth ? ", 0.0f, 0.0f, 1.0f)" : r == R_H ? ")" : "";
   *wopen = r == R_H ? "convert_half4(" : "";
   *wclose = it->depth ? ".x" : r == R_H ? ")" : "";
}

/* The kernels that take their sampler as an argument, in the program of
 * the constant-sampler kernels and after them: the sampler goes through a
 * function parameter too, the constructs LLVM 15's SPIR-V translator used
 * to abort on.  @ints reads at convert_int4_rtn of the coordinates. */
static char *
sampler_arg_source(char *src)
{
   for (unsigned t = 0; t < NUM_ITYPES; t++) {
      const struct itype *it = &itypes[t];

      for (unsigned r = 0; r < (it->depth ? 1 : 4) && it->sampled; r++) {
         const char *open, *close, *wopen, *wclose;

         access_exprs(it, r, &open, &close, &wopen, &wclose);
         src = append(src,
                      "%s4 sample_with_%u_%s(read_only %s img, sampler_t s, float4 v, int ints)\n"
                      "{\n   int4 iv = convert_int4_rtn(v);\n\n"
                      "   if (ints)\n      return %sread_image%s(img, s, %s)%s;\n"
                      "   return %sread_image%s(img, s, %s)%s;\n}\n",
                      rtype[r], t, rname[r], it->cltype, open, rname[r], it->ic, close, open,
                      rname[r], it->fc, close);
         src = append(src,
                      "__kernel ATTR void sample_arg_%u_%s(read_only %s img, sampler_t s, "
                      "__global const float4 *c, __global %s4 *out, int ints)\n{\n"
                      "   size_t i = get_global_id(0);\n\n"
                      "   out[i] = sample_with_%u_%s(img, s, c[i], ints);\n}\n",
                      t, rname[r], it->cltype, rtype[r], t, rname[r]);
      }
   }
   return src;
}

static char *
kernel_source(void)
{
   char *src = append(NULL, FP16_PRAGMA
                      "#define ATTR __attribute__((intel_reqd_sub_group_size(SIMD)))\n");

   for (unsigned s = 0; s < NUM_SAMPS; s++) {
      src = append(src, "__constant sampler_t s%u = CLK_NORMALIZED_COORDS_%s | %s | %s;\n", s,
                   samps[s].norm ? "TRUE" : "FALSE", addr_name(samps[s].addr),
                   samps[s].linear ? "CLK_FILTER_LINEAR" : "CLK_FILTER_NEAREST");
   }
   for (unsigned t = 0; t < NUM_ITYPES; t++) {
      const struct itype *it = &itypes[t];

      for (unsigned r = 0; r < (it->depth ? 1 : 4); r++) {
         const char *open, *close, *wopen, *wclose;

         access_exprs(it, r, &open, &close, &wopen, &wclose);
         if (it->sampled) {
            src = append(src,
                         "__kernel ATTR void sample_%u_%s(read_only %s img, __global const float4 "
                         "*c, __global %s4 *out)\n{\n"
                         "   size_t i = get_global_id(0);\n"
                         "   float4 v = c[i];\n   int4 iv = convert_int4_rtn(v);\n",
                         t, rname[r], it->cltype, rtype[r]);
            for (unsigned s = 0; s < NUM_SAMPS; s++) {
               src = append(src, "   out[i * %zu + %u] = %sread_image%s(img, s%u, %s)%s;\n",
                            NUM_SAMPS, s, open, rname[r], s,
                            s == INT_COORD_SAMP ? it->ic : it->fc, close);
            }
            src = append(src, "}\n");
         }
         src = append(src,
                      "__kernel ATTR void fetch_%u_%s(read_only %s img, __global const int4 *c, "
                      "__global %s4 *out)\n{\n"
                      "   size_t i = get_global_id(0);\n   int4 iv = c[i];\n"
                      "   out[i] = %sread_image%s(img, %s)%s;\n}\n",
                      t, rname[r], it->cltype, rtype[r], open, rname[r], it->ic, close);
         src = append(src,
                      "__kernel ATTR void write_%u_%s(write_only %s img, __global const int4 *c, "
                      "__global const %s4 *val)\n{\n"
                      "   size_t i = get_global_id(0);\n   int4 iv = c[i];\n"
                      "   write_image%s(img, %s, %sval[i]%s);\n}\n",
                      t, rname[r], it->cltype, rtype[r], rname[r], it->ic, wopen, wclose);
         /* read_write: each work-item reads its texel and writes it back
          * changed, so nothing races. */
         src = append(src,
                      "__kernel ATTR void rw_%u_%s(read_write %s img, __global const int4 *c)\n{\n"
                      "   size_t i = get_global_id(0);\n   int4 iv = c[i];\n"
                      "   %s%s x = read_image%s(img, %s);\n"
                      "   write_image%s(img, %s, %s);\n}\n",
                      t, rname[r], it->cltype, r == R_H ? "half" : rtype[r], it->depth ? "" : "4",
                      rname[r], it->ic, rname[r], it->ic,
                      r == R_F ? "x * 0.5f" : r == R_H ? "x * (half)0.5f" : "x + 1");
      }
      src = append(src,
                   "__kernel ATTR void query_%u(read_only %s img, __global int *out)\n{\n"
                   "   out[0] = get_image_width(img);\n"
                   "   out[4] = get_image_channel_data_type(img);\n"
                   "   out[5] = get_image_channel_order(img);\n",
                   t, it->cltype);
      if (it->axes >= 2)
         src = append(src, "   out[1] = get_image_height(img);\n");
      if (it->axes == 3)
         src = append(src, "   out[2] = get_image_depth(img);\n");
      if (it->array)
         src = append(src, "   out[3] = get_image_array_size(img);\n");
      if (it->axes == 2 && !it->array)
         src = append(src, "   int2 d = get_image_dim(img);\n   out[6] = d.x; out[7] = d.y;\n");
      src = append(src, "}\n");
   }
   return sampler_arg_source(src);
}

/* --- The C reference ---------------------------------------------------- */

static uint64_t rng_state;

static uint32_t
rnd(void)
{
   rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
   return (uint32_t)(rng_state >> 33);
}

static float
rnd_float(float lo, float hi)
{
   return lo + (hi - lo) * (rnd() & 0xffffff) / (float)0x1000000;
}

static size_t
texel_bytes(const struct fmt *f)
{
   return (size_t)f->nch * f->csize;
}

/* Memory channel c of a texel, as the raw bits (sign-extended for the
 * signed kinds). */
static int64_t
raw_channel(const struct fmt *f, const uint8_t *texel, unsigned c)
{
   const uint8_t *p = texel + c * f->csize;
   bool sign = f->kind == K_SINT || f->kind == K_SNORM;

   switch (f->csize) {
   case 1: return sign ? (int64_t)(int8_t)p[0] : p[0];
   case 2: {
      uint16_t v;
      memcpy(&v, p, 2);
      return sign ? (int64_t)(int16_t)v : v;
   }
   default: {
      uint32_t v;
      memcpy(&v, p, 4);
      return sign ? (int64_t)(int32_t)v : v;
   }
   }
}

/* A texel as read_image* returns it: float, int or uint bits in 4 words. */
static void
decode(const struct fmt *f, const uint8_t *texel, uint32_t out[4])
{
   float ch[4];
   uint32_t ich[4];
   unsigned n = f->csize * 8;

   for (unsigned c = 0; c < f->nch; c++) {
      /* BGRA: memory holds B, G, R, A. */
      unsigned mc = f->order == CL_BGRA && c != 3 ? 2 - c : c;
      int64_t raw = raw_channel(f, texel, mc);

      switch (f->kind) {
      case K_UNORM: ch[c] = (float)raw / (float)((1u << n) - 1); break;
      case K_SNORM: ch[c] = fmaxf((float)raw / (float)((1u << (n - 1)) - 1), -1.0f); break;
      case K_HALF: ch[c] = (float)half_to_double((uint16_t)raw); break;
      case K_FLOAT: memcpy(&ch[c], &(uint32_t){(uint32_t)raw}, 4); break;
      default: ich[c] = (uint32_t)raw; break;
      }
   }
   for (unsigned c = f->nch; c < 4; c++) {
      ch[c] = c == 3 ? 1.0f : 0.0f;
      ich[c] = c == 3 ? 1 : 0;
   }
   for (unsigned c = 0; c < 4; c++) {
      if (fmt_class(f) == R_F)
         memcpy(&out[c], &ch[c], 4);
      else
         out[c] = ich[c];
   }
}

/* The border colour: (0, 0, 0, 0), alpha 1 for CL_R and CL_RG. */
static void
border(const struct fmt *f, uint32_t out[4])
{
   uint8_t zero[16] = {0};

   decode(f, zero, out);
}

/* write_image*: the value converted to the format's texel. */
static void
encode(const struct fmt *f, const uint32_t in[4], uint8_t *texel)
{
   unsigned n = f->csize * 8;

   for (unsigned c = 0; c < f->nch; c++) {
      unsigned mc = f->order == CL_BGRA && c != 3 ? 2 - c : c;
      float x;
      int64_t v = 0;

      memcpy(&x, &in[c], 4);
      switch (f->kind) {
      case K_UNORM:
         v = (int64_t)rintf(fminf(fmaxf(x, 0.0f), 1.0f) * (float)((1u << n) - 1));
         break;
      case K_SNORM:
         v = isnan(x) ? 0
                      : (int64_t)rintf(fminf(fmaxf(x, -1.0f), 1.0f) *
                                       (float)((1u << (n - 1)) - 1));
         break;
      case K_HALF: v = double_to_half(x); break;
      case K_FLOAT: v = in[c]; break;
      case K_SINT: {
         int64_t lo = -(1ll << (n - 1)), hi = (1ll << (n - 1)) - 1, s = (int32_t)in[c];
         v = s < lo ? lo : s > hi ? hi : s;
         break;
      }
      case K_UINT: {
         uint64_t hi = n == 32 ? 0xffffffffull : (1ull << n) - 1;
         v = in[c] > hi ? (int64_t)hi : in[c];
         break;
      }
      }
      memcpy(texel + mc * f->csize, &v, f->csize);
   }
}

/* A random texel: anything for the integer and normalized kinds, floats
 * in [-8, 8] for the float kinds (no NaN, so filtering is comparable). */
static void
random_texel(const struct fmt *f, uint8_t *texel)
{
   for (unsigned c = 0; c < f->nch; c++) {
      uint8_t *p = texel + c * f->csize;

      if (f->kind == K_HALF) {
         uint16_t h = double_to_half(rnd_float(-8, 8));
         memcpy(p, &h, 2);
      } else if (f->kind == K_FLOAT) {
         float x = rnd_float(-8, 8);
         memcpy(p, &x, 4);
      } else {
         uint32_t r = rnd();
         memcpy(p, &r, f->csize);
      }
   }
}

struct image_data {
   const struct fmt *f;
   const struct itype *it;
   uint8_t *texels; /* tightly packed, x fastest, then y, then slice/layer */
};

static const uint8_t *
texel_at(const struct image_data *img, size_t x, size_t y, size_t z)
{
   return img->texels + ((z * img->it->h + y) * img->it->w + x) * texel_bytes(img->f);
}

struct taps {
   int i[2];
   bool inside[2];
   float a;
};

static float
fracf(float x)
{
   return x - floorf(x);
}

/* The specification's addressing of one axis. */
static void
address_axis(const struct samp *s, float c, int size, struct taps *t)
{
   float u;

   t->inside[0] = t->inside[1] = true;
   t->a = 0;
   if (s->norm && s->addr == CL_ADDRESS_REPEAT) {
      u = (c - floorf(c)) * size;
      if (!s->linear) {
         t->i[0] = (int)floorf(u);
         if (t->i[0] > size - 1)
            t->i[0] -= size;
         return;
      }
      t->i[0] = (int)floorf(u - 0.5f);
      t->i[1] = t->i[0] + 1;
      if (t->i[0] < 0)
         t->i[0] += size;
      if (t->i[1] > size - 1)
         t->i[1] -= size;
      t->a = fracf(u - 0.5f);
      return;
   }
   if (s->norm && s->addr == CL_ADDRESS_MIRRORED_REPEAT) {
      float sp = 2.0f * rintf(0.5f * c);

      u = fabsf(c - sp) * size;
      if (!s->linear) {
         t->i[0] = (int)floorf(u);
         if (t->i[0] > size - 1)
            t->i[0] = size - 1;
         return;
      }
      t->i[0] = (int)floorf(u - 0.5f);
      t->i[1] = t->i[0] + 1;
      if (t->i[0] < 0)
         t->i[0] = 0;
      if (t->i[1] > size - 1)
         t->i[1] = size - 1;
      t->a = fracf(u - 0.5f);
      return;
   }
   u = s->norm ? c * size : c;
   if (s->linear) {
      t->i[0] = (int)floorf(u - 0.5f);
      t->a = fracf(u - 0.5f);
   } else {
      t->i[0] = (int)floorf(u);
   }
   t->i[1] = t->i[0] + 1;
   for (unsigned k = 0; k < 2; k++) {
      if (s->addr == CL_ADDRESS_CLAMP) {
         t->inside[k] = t->i[k] >= 0 && t->i[k] < size;
      } else {
         t->i[k] = t->i[k] < 0 ? 0 : t->i[k] > size - 1 ? size - 1 : t->i[k];
      }
   }
}

/* read_image* with sampler @s at coordinates @c (the layer of an array
 * last). */
static void
sample_ref(const struct image_data *img, const struct samp *s, const float c[4], uint32_t out[4])
{
   const struct itype *it = img->it;
   int size[3] = {(int)it->w, (int)it->h, (int)it->d};
   bool linear = s->linear && fmt_class(img->f) == R_F;
   struct samp eff = *s;
   struct taps t[3];
   int layer = 0;

   eff.linear = linear;
   for (unsigned a = 0; a < it->axes; a++)
      address_axis(&eff, c[a], size[a], &t[a]);
   if (it->array) {
      float l = rintf(c[it->axes]);
      layer = l < 0 ? 0 : l > it->d - 1 ? (int)it->d - 1 : (int)l;
   }
   float sum[4] = {0};
   for (unsigned tap = 0; tap < (linear ? 1u << it->axes : 1u); tap++) {
      size_t xyz[3] = {0, 0, (size_t)layer};
      bool inside = true;
      float w = 1.0f;
      uint32_t texel[4];

      for (unsigned a = 0; a < it->axes; a++) {
         unsigned k = (tap >> a) & 1;

         xyz[a] = t[a].i[k];
         inside &= t[a].inside[k];
         w *= k ? t[a].a : 1.0f - t[a].a;
      }
      if (inside)
         decode(img->f, texel_at(img, xyz[0], xyz[1], xyz[2]), texel);
      else
         border(img->f, texel);
      if (!linear) {
         memcpy(out, texel, 16);
         return;
      }
      for (unsigned ch = 0; ch < 4; ch++) {
         float v;
         memcpy(&v, &texel[ch], 4);
         sum[ch] += w * v;
      }
   }
   memcpy(out, sum, 16);
}

/* Sampler-less read at integer coordinates: the border outside. */
static void
fetch_ref(const struct image_data *img, const int c[4], uint32_t out[4])
{
   const struct itype *it = img->it;
   long size[3] = {(long)it->w, (long)it->h, (long)it->d};
   long xyz[3] = {0, 0, 0};

   for (unsigned a = 0; a < it->axes; a++)
      xyz[a] = c[a];
   if (it->array)
      xyz[2] = c[it->axes];
   for (unsigned a = 0; a < 3; a++) {
      if (xyz[a] < 0 || xyz[a] >= size[a]) {
         border(img->f, out);
         return;
      }
   }
   decode(img->f, texel_at(img, xyz[0], xyz[1], xyz[2]), out);
}

/* read_imageh: the float texel rounded to half. */
static void
round_to_half(uint32_t t[4])
{
   for (unsigned c = 0; c < 4; c++) {
      float x;

      memcpy(&x, &t[c], 4);
      x = (float)half_to_double(double_to_half(x));
      memcpy(&t[c], &x, 4);
   }
}

static bool
same_texel(const struct fmt *f, enum rclass r, const uint32_t got[4], const uint32_t want[4],
           bool linear)
{
   for (unsigned c = 0; c < 4; c++) {
      if (fmt_class(f) != R_F) {
         if (got[c] != want[c])
            return false;
         continue;
      }
      float g, w;
      memcpy(&g, &got[c], 4);
      memcpy(&w, &want[c], 4);
      /* Normalized reads within 1.5 ulp; linear filtering within the
       * weights' rounding (2^-12 of the values blended). */
      float tol = linear ? 8.0f / 4096 + fabsf(w) / 4096 : fabsf(w) * 3e-7f;
      /* Halves: and the rounding of a value on the edge of two. */
      if (r == R_H)
         tol += fabsf(w) / 1024 + 6e-8f;
      if (!(fabsf(g - w) <= tol))
         return false;
   }
   return true;
}

/* --- Running ------------------------------------------------------------ */

static cl_image_desc
image_desc(const struct itype *it, cl_mem buffer)
{
   cl_image_desc d = {0};

   d.image_type = it->mt;
   d.image_width = it->w;
   d.image_height = it->axes >= 2 ? it->h : 0;
   d.image_depth = it->axes == 3 ? it->d : 0;
   d.image_array_size = it->array ? it->d : 0;
   d.buffer = buffer;
   return d;
}

/* Region of the whole image in clEnqueue*Image terms. */
static void
image_region(const struct itype *it, size_t region[3])
{
   region[0] = it->w;
   region[1] = it->mt == CL_MEM_OBJECT_IMAGE1D_ARRAY ? it->d : it->h;
   region[2] = it->mt == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 1 : it->d;
}

struct img {
   cl_mem mem, buffer;
};

static bool
create_image(struct cl *cl, const struct fmt *f, const struct itype *it, cl_mem_flags flags,
             struct img *out)
{
   cl_image_format format = {f->order, f->type};
   cl_int err;

   out->buffer = NULL;
   if (it->mt == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
      out->buffer = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE, it->w * texel_bytes(f), NULL, &err);
      if (!out->buffer)
         return false;
   }
   cl_image_desc d = image_desc(it, out->buffer);
   out->mem = clCreateImage(cl->ctx, flags, &format, &d, NULL, &err);
   if (!out->mem) {
      if (out->buffer)
         clReleaseMemObject(out->buffer);
      fprintf(stderr, "clCreateImage(%s %s): %d\n", it->name, f->name, err);
      return false;
   }
   return true;
}

static void
release_image(struct img *i)
{
   if (i->mem)
      clReleaseMemObject(i->mem);
   if (i->buffer)
      clReleaseMemObject(i->buffer);
}

static size_t
num_texels(const struct itype *it)
{
   return it->w * it->h * it->d;
}

/* Releases what a case created, whichever of it exists. */
static void
release(cl_kernel k, cl_mem a, cl_mem b)
{
   if (k)
      clReleaseKernel(k);
   if (a)
      clReleaseMemObject(a);
   if (b)
      clReleaseMemObject(b);
}

static bool
launch(struct cl *cl, cl_kernel k)
{
   size_t g = ITEMS, l = LOCAL;
   cl_int err = clEnqueueNDRangeKernel(cl->q, k, 1, NULL, &g, &l, 0, NULL, NULL);

   if (err == CL_SUCCESS)
      err = clFinish(cl->q);
   if (err != CL_SUCCESS)
      fprintf(stderr, "launch: %d\n", err);
   return err == CL_SUCCESS;
}

static cl_kernel
kernel(cl_program p, const char *fmt, unsigned t, enum rclass r)
{
   char name[64];
   cl_int err;

   snprintf(name, sizeof(name), fmt, t, rname[r]);
   return clCreateKernel(p, name, &err);
}

/* Coordinates of the sampling kernels: normalized ones around [0, 1] with
 * a margin each side, unnormalized ones the same in texels; the int
 * coordinate reads use convert_int4_rtn of the unnormalized ones. */
static void
random_coords(const struct itype *it, bool norm, float c[ITEMS][4])
{
   float size[3] = {(float)it->w, (float)it->h, (float)it->d};

   for (unsigned i = 0; i < ITEMS; i++) {
      for (unsigned a = 0; a < 4; a++)
         c[i][a] = 0;
      for (unsigned a = 0; a < it->axes; a++)
         c[i][a] = norm ? rnd_float(-1.5f, 2.5f) : rnd_float(-2.0f, size[a] + 2.0f);
      if (it->array)
         c[i][it->axes] = rnd_float(-1.0f, it->d + 1.0f);
   }
   /* The corners and centre exactly. */
   for (unsigned a = 0; a < it->axes; a++) {
      c[0][a] = 0;
      c[1][a] = norm ? 1.0f : size[a];
      c[2][a] = norm ? 0.5f : size[a] / 2;
   }
}

static bool
upload(struct cl *cl, const struct img *img, const struct image_data *data)
{
   size_t origin[3] = {0, 0, 0}, region[3];

   image_region(data->it, region);
   return clEnqueueWriteImage(cl->q, img->mem, CL_TRUE, origin, region, 0, 0, data->texels, 0,
                              NULL, NULL) == CL_SUCCESS;
}

static bool
download(struct cl *cl, const struct img *img, const struct image_data *data, uint8_t *out)
{
   size_t origin[3] = {0, 0, 0}, region[3];

   image_region(data->it, region);
   (void)data;
   return clEnqueueReadImage(cl->q, img->mem, CL_TRUE, origin, region, 0, 0, out, 0, NULL,
                             NULL) == CL_SUCCESS;
}

/* The sampling kernel: every sampler, ITEMS coordinates each. */
static void
run_sample(struct cl *cl, cl_program p, unsigned simd, const struct img *img,
           const struct image_data *data, unsigned t, enum rclass r)
{
   const struct itype *it = data->it;
   static float cn[ITEMS][4], cu[ITEMS][4];
   static uint32_t out[2][ITEMS * NUM_SAMPS][4];
   cl_kernel k = kernel(p, "sample_%u_%s", t, r);
   cl_int err;

   random_coords(it, true, cn);
   random_coords(it, false, cu);
   /* One launch with normalized coordinates, one with unnormalized: each
    * sampler's results are taken from the launch that suits it. */
   for (unsigned pass = 0; pass < 2; pass++) {
      cl_mem cbuf = clCreateBuffer(cl->ctx, CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY,
                                   sizeof(cn), pass ? cu : cn, &err);
      cl_mem obuf = clCreateBuffer(cl->ctx, CL_MEM_WRITE_ONLY, sizeof(out[0]), NULL, &err);
      bool ok = k && cbuf && obuf;

      ok = ok && !clSetKernelArg(k, 0, sizeof(cl_mem), &img->mem) &&
           !clSetKernelArg(k, 1, sizeof(cl_mem), &cbuf) &&
           !clSetKernelArg(k, 2, sizeof(cl_mem), &obuf) && launch(cl, k) &&
           !clEnqueueReadBuffer(cl->q, obuf, CL_TRUE, 0, sizeof(out[0]), out[pass], 0, NULL,
                                NULL);
      if (!ok)
         memset(out[pass], 0xa5, sizeof(out[0]));
      release(NULL, cbuf, obuf);
   }
   for (unsigned s = 0; s < NUM_SAMPS; s++) {
      const struct samp *sm = &samps[s];
      bool use_norm = sm->norm;
      unsigned bad = 0, first = 0;
      uint32_t want[4], first_want[4] = {0}, *first_got = NULL;

      for (unsigned i = 0; i < ITEMS; i++) {
         float c[4];
         const uint32_t *got = out[use_norm ? 0 : 1][i * NUM_SAMPS + s];

         memcpy(c, use_norm ? cn[i] : cu[i], sizeof(c));
         if (s == INT_COORD_SAMP) {
            /* convert_int4_rtn, then the texel centre. */
            for (unsigned a = 0; a < 4; a++) {
               float fl = floorf(c[a]);
               c[a] = (it->array && a == it->axes) ? fl : fl + 0.5f;
            }
         }
         sample_ref(data, sm, c, want);
         if (r == R_H)
            round_to_half(want);
         if (!same_texel(data->f, r, got, want, sm->linear)) {
            if (!bad++) {
               first = i;
               memcpy(first_want, want, 16);
               first_got = (uint32_t *)got;
            }
         }
      }
      cases_in_matrix++;
      if (!bad) {
         report(true, "image read_image%s %s %s %s simd%u", rname[r], it->name, data->f->name,
                sm->name, simd);
      } else {
         report(false,
                "image read_image%s %s %s %s simd%u: %u of %u wrong, first item %u: "
                "%08x %08x %08x %08x, want %08x %08x %08x %08x",
                rname[r], it->name, data->f->name, sm->name, simd, bad, ITEMS, first,
                first_got[0], first_got[1], first_got[2], first_got[3], first_want[0],
                first_want[1], first_want[2], first_want[3]);
      }
   }
   release(k, NULL, NULL);
}

/* Every sampler of the sampling kernel again, created with
 * clCreateSamplerWithProperties and passed as a kernel argument. */
static void
run_sampler_arg(struct cl *cl, cl_program p, unsigned simd, const struct img *img,
                const struct image_data *data, unsigned t, enum rclass r)
{
   const struct itype *it = data->it;
   static float c[ITEMS][4];
   static uint32_t out[ITEMS][4];
   cl_kernel k = kernel(p, "sample_arg_%u_%s", t, r);
   cl_int err;

   for (unsigned w = 0; w < NUM_SAMPS; w++) {
      const struct samp *sm = &samps[w];
      cl_int ints = w == INT_COORD_SAMP;
      cl_sampler_properties props[] = {CL_SAMPLER_NORMALIZED_COORDS, sm->norm,
                                       CL_SAMPLER_ADDRESSING_MODE, sm->addr,
                                       CL_SAMPLER_FILTER_MODE,
                                       sm->linear ? CL_FILTER_LINEAR : CL_FILTER_NEAREST, 0};
      cl_sampler smp = clCreateSamplerWithProperties(cl->ctx, props, &err);
      unsigned bad = 0;

      random_coords(it, sm->norm, c);
      cl_mem cbuf = clCreateBuffer(cl->ctx, CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY, sizeof(c),
                                   c, &err);
      cl_mem obuf = clCreateBuffer(cl->ctx, CL_MEM_WRITE_ONLY, sizeof(out), NULL, &err);
      bool ok = k && smp && cbuf && obuf && !clSetKernelArg(k, 0, sizeof(cl_mem), &img->mem) &&
                !clSetKernelArg(k, 1, sizeof(cl_sampler), &smp) &&
                !clSetKernelArg(k, 2, sizeof(cl_mem), &cbuf) &&
                !clSetKernelArg(k, 3, sizeof(cl_mem), &obuf) &&
                !clSetKernelArg(k, 4, sizeof(ints), &ints) && launch(cl, k) &&
                !clEnqueueReadBuffer(cl->q, obuf, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL);
      for (unsigned i = 0; ok && i < ITEMS; i++) {
         uint32_t want[4];
         float at[4];

         memcpy(at, c[i], sizeof(at));
         for (unsigned a = 0; ints && a < 4; a++) {
            /* convert_int4_rtn, then the texel centre. */
            float fl = floorf(at[a]);

            at[a] = (it->array && a == it->axes) ? fl : fl + 0.5f;
         }
         sample_ref(data, sm, at, want);
         if (r == R_H)
            round_to_half(want);
         bad += !same_texel(data->f, r, out[i], want, sm->linear);
      }
      cases_in_matrix++;
      report(ok && !bad, "image read_image%s %s %s sampler-argument %s simd%u%s", rname[r],
             it->name, data->f->name, sm->name, simd, ok ? (bad ? ": wrong results" : "")
                                                          : ": did not run");
      if (smp)
         clReleaseSampler(smp);
      release(NULL, cbuf, obuf);
   }
   release(k, NULL, NULL);
}

/* Integer coordinates inside and up to two texels outside every edge. */
static void
random_int_coords(const struct itype *it, int c[ITEMS][4])
{
   int size[3] = {(int)it->w, (int)it->h, (int)it->d};

   for (unsigned i = 0; i < ITEMS; i++) {
      for (unsigned a = 0; a < 4; a++)
         c[i][a] = 0;
      for (unsigned a = 0; a < it->axes; a++)
         c[i][a] = (int)(rnd() % (size[a] + 4)) - 2;
      if (it->array)
         c[i][it->axes] = (int)(rnd() % (it->d + 4)) - 2;
   }
}

static void
run_fetch(struct cl *cl, cl_program p, unsigned simd, const struct img *img,
          const struct image_data *data, unsigned t, enum rclass r)
{
   const struct itype *it = data->it;
   static int c[ITEMS][4];
   static uint32_t out[ITEMS][4];
   cl_kernel k = kernel(p, "fetch_%u_%s", t, r);
   unsigned bad = 0, outside = 0;
   cl_int err;

   random_int_coords(it, c);
   cl_mem cbuf = clCreateBuffer(cl->ctx, CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY, sizeof(c), c,
                                &err);
   cl_mem obuf = clCreateBuffer(cl->ctx, CL_MEM_WRITE_ONLY, sizeof(out), NULL, &err);
   bool ok = k && cbuf && obuf && !clSetKernelArg(k, 0, sizeof(cl_mem), &img->mem) &&
             !clSetKernelArg(k, 1, sizeof(cl_mem), &cbuf) &&
             !clSetKernelArg(k, 2, sizeof(cl_mem), &obuf) && launch(cl, k) &&
             !clEnqueueReadBuffer(cl->q, obuf, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL);
   for (unsigned i = 0; ok && i < ITEMS; i++) {
      uint32_t want[4], b[4];

      fetch_ref(data, c[i], want);
      border(data->f, b);
      outside += !memcmp(want, b, 16);
      if (r == R_H)
         round_to_half(want);
      bad += !same_texel(data->f, r, out[i], want, false);
   }
   cases_in_matrix++;
   report(ok && !bad, "image read_image%s %s %s no-sampler (%u outside) simd%u%s", rname[r],
          it->name, data->f->name, outside, simd,
          ok ? (bad ? ": wrong results" : "") : ": did not run");
   release(k, cbuf, obuf);
}

/* Values to write: for the float kinds the rounding and saturation cases
 * (halves between codes, out of range, NaN, infinities), for the integer
 * kinds values past both ends of every width. */
static uint32_t
write_value(const struct fmt *f, unsigned i, unsigned c)
{
   static const float fspecial[] = {0.0f, 1.0f, -1.0f, 0.5f, 2.0f, -3.0f, 1.0f / 510,
                                    3.0f / 510, NAN, INFINITY, -INFINITY, 65504.0f, 1e-8f,
                                    0.25f / 32767, 1.0f / 3};
   static const uint32_t ispecial[] = {0, 1, 127, 128, 255, 256, 32767, 32768, 65535, 65536,
                                       0x7fffffff, 0x80000000, 0xffffffff, 0xffffff80,
                                       0xffff8000};
   unsigned n = sizeof(fspecial) / sizeof(fspecial[0]);
   unsigned idx = (i * 4 + c) % (2 * n);

   if (fmt_class(f) == R_F) {
      float x = idx < n ? fspecial[idx] : rnd_float(-1.2f, 1.2f);
      uint32_t u;

      if (f->kind == K_FLOAT || f->kind == K_HALF)
         x = idx < n ? x : rnd_float(-100, 100);
      memcpy(&u, &x, 4);
      return u;
   }
   return idx < n ? ispecial[idx] : rnd();
}

static void
run_write(struct cl *cl, cl_program p, unsigned simd, const struct image_data *data, unsigned t,
          enum rclass r)
{
   const struct itype *it = data->it;
   const struct fmt *f = data->f;
   size_t bytes = num_texels(it) * texel_bytes(f);
   static int c[ITEMS][4];
   static uint32_t val[ITEMS][4];
   uint8_t *want = malloc(bytes), *got = malloc(bytes);
   cl_kernel k = kernel(p, "write_%u_%s", t, r);
   struct image_data wd = *data;
   unsigned outside = 0;
   struct img img = {0};
   cl_int err;

   /* Each work-item its own texel (a permutation of the image's first
    * ITEMS texels), every fifth one outside. */
   size_t texels = num_texels(it);
   for (unsigned i = 0; i < ITEMS; i++) {
      size_t lin = i % texels;
      int size[3] = {(int)it->w, (int)it->h, (int)it->d};
      int xyz[3] = {(int)(lin % it->w), (int)(lin / it->w % it->h), (int)(lin / (it->w * it->h))};

      memset(c[i], 0, sizeof(c[i]));
      if (i >= texels || i % 5 == 4) {
         unsigned a = i % (it->array ? it->axes + 1 : it->axes);
         unsigned dim = it->array && a == it->axes ? 2 : a;
         xyz[dim] = i % 2 ? -1 - (int)(i % 3) : size[dim] + (int)(i % 3);
         outside++;
      }
      for (unsigned a = 0; a < it->axes; a++)
         c[i][a] = xyz[a];
      if (it->array)
         c[i][it->axes] = xyz[2];
      for (unsigned ch = 0; ch < 4; ch++)
         val[i][ch] = write_value(f, i, ch);
   }
   memcpy(want, data->texels, bytes);
   wd.texels = want;
   for (unsigned i = 0; i < ITEMS; i++) {
      int xyz[3] = {c[i][0], it->axes > 1 ? c[i][1] : 0,
                    it->array ? c[i][it->axes] : it->axes > 2 ? c[i][2] : 0};
      if (xyz[0] < 0 || xyz[0] >= (int)it->w || xyz[1] < 0 || xyz[1] >= (int)it->h ||
          xyz[2] < 0 || xyz[2] >= (int)it->d)
         continue;
      uint32_t v[4];

      memcpy(v, val[i], sizeof(v));
      /* write_imageh of convert_half4(v). */
      if (r == R_H)
         round_to_half(v);
      encode(f, v, (uint8_t *)texel_at(&wd, xyz[0], xyz[1], xyz[2]));
   }

   bool ok = create_image(cl, f, it, CL_MEM_READ_WRITE, &img);
   cl_mem cbuf = clCreateBuffer(cl->ctx, CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY, sizeof(c), c,
                                &err);
   cl_mem vbuf = clCreateBuffer(cl->ctx, CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY, sizeof(val),
                                val, &err);
   ok = ok && k && cbuf && vbuf && upload(cl, &img, data) &&
        !clSetKernelArg(k, 0, sizeof(cl_mem), &img.mem) &&
        !clSetKernelArg(k, 1, sizeof(cl_mem), &cbuf) &&
        !clSetKernelArg(k, 2, sizeof(cl_mem), &vbuf) && launch(cl, k) &&
        download(cl, &img, data, got);
   size_t bad = 0, first = 0;
   for (size_t i = 0; ok && i < bytes; i++) {
      if (got[i] != want[i] && !bad++)
         first = i;
   }
   cases_in_matrix++;
   report(ok && !bad, "image write_image%s %s %s (%u outside) simd%u%s", rname[r], it->name,
          f->name, outside, simd,
          !ok ? ": did not run" : bad ? ": wrong bytes" : "");
   if (bad && ok) {
      size_t tx = first / texel_bytes(f) * texel_bytes(f);
      fprintf(stderr, "   first wrong byte %zu (texel %zu): got", first, first / texel_bytes(f));
      for (size_t b = 0; b < texel_bytes(f); b++)
         fprintf(stderr, " %02x", got[tx + b]);
      fprintf(stderr, ", want");
      for (size_t b = 0; b < texel_bytes(f); b++)
         fprintf(stderr, " %02x", want[tx + b]);
      fprintf(stderr, "\n");
   }
   release_image(&img);
   release(k, cbuf, vbuf);
   free(want);
   free(got);
}

/* read_write: x * 0.5 (floats) or x + 1 (integers) at each work-item's own
 * texel; checked by decoding the result. */
static void
run_read_write(struct cl *cl, cl_program p, unsigned simd, const struct image_data *data,
               unsigned t, enum rclass r)
{
   const struct itype *it = data->it;
   const struct fmt *f = data->f;
   size_t bytes = num_texels(it) * texel_bytes(f), texels = num_texels(it);
   static int c[ITEMS][4];
   uint8_t *want = malloc(bytes), *got = malloc(bytes);
   cl_kernel k = kernel(p, "rw_%u_%s", t, r);
   struct image_data wd = *data;
   struct img img = {0};
   cl_int err;

   memcpy(want, data->texels, bytes);
   wd.texels = want;
   /* The first min(ITEMS, texels) texels once each; extra items outside. */
   for (unsigned i = 0; i < ITEMS; i++) {
      size_t lin = i % texels;
      int xyz[3] = {(int)(lin % it->w), (int)(lin / it->w % it->h), (int)(lin / (it->w * it->h))};

      if (i >= texels)
         xyz[0] = -1;
      memset(c[i], 0, sizeof(c[i]));
      for (unsigned a = 0; a < it->axes; a++)
         c[i][a] = xyz[a];
      if (it->array)
         c[i][it->axes] = xyz[2];
      if (i >= texels)
         continue;
      uint32_t v[4];
      uint8_t *tx = (uint8_t *)texel_at(&wd, xyz[0], xyz[1], xyz[2]);

      decode(f, texel_at(data, xyz[0], xyz[1], xyz[2]), v);
      if (r == R_H)
         round_to_half(v);
      for (unsigned ch = 0; ch < 4; ch++) {
         if (r == R_F || r == R_H) {
            float x;
            memcpy(&x, &v[ch], 4);
            x *= 0.5f;
            memcpy(&v[ch], &x, 4);
         } else {
            v[ch] += 1;
         }
      }
      /* The product is a half too. */
      if (r == R_H)
         round_to_half(v);
      encode(f, v, tx);
   }
   bool ok = create_image(cl, f, it, CL_MEM_READ_WRITE, &img);
   cl_mem cbuf = clCreateBuffer(cl->ctx, CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY, sizeof(c), c,
                                &err);
   ok = ok && k && cbuf && upload(cl, &img, data) &&
        !clSetKernelArg(k, 0, sizeof(cl_mem), &img.mem) &&
        !clSetKernelArg(k, 1, sizeof(cl_mem), &cbuf) && launch(cl, k) &&
        download(cl, &img, data, got);
   cases_in_matrix++;
   report(ok && !memcmp(got, want, bytes), "image read_write %s %s %s simd%u%s", rname[r],
          it->name, f->name, simd,
          !ok ? ": did not run" : memcmp(got, want, bytes) ? ": wrong bytes" : "");
   release_image(&img);
   release(k, cbuf, NULL);
   free(want);
   free(got);
}

static void
run_query(struct cl *cl, cl_program p, const struct img *img, const struct image_data *data,
          unsigned t)
{
   const struct itype *it = data->it;
   int out[8], want[8] = {(int)it->w, 0, 0, 0, (int)data->f->type, (int)data->f->order, 0, 0};
   char name[32];
   cl_int err;

   if (it->axes >= 2)
      want[1] = (int)it->h;
   if (it->axes == 3)
      want[2] = (int)it->d;
   if (it->array)
      want[3] = (int)it->d;
   if (it->axes == 2 && !it->array) {
      want[6] = (int)it->w;
      want[7] = (int)it->h;
   }
   snprintf(name, sizeof(name), "query_%u", t);
   cl_kernel k = clCreateKernel(p, name, &err);
   cl_mem obuf = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(out),
                                (int[8]){0}, &err);
   size_t one = 1;
   bool ok = k && obuf && !clSetKernelArg(k, 0, sizeof(cl_mem), &img->mem) &&
             !clSetKernelArg(k, 1, sizeof(cl_mem), &obuf) &&
             !clEnqueueNDRangeKernel(cl->q, k, 1, NULL, &one, &one, 0, NULL, NULL) &&
             !clEnqueueReadBuffer(cl->q, obuf, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL);
   cases_in_matrix++;
   report(ok && !memcmp(out, want, sizeof(out)),
          "image get_image_* %s %s: %d %d %d %d %#x %#x, want %d %d %d %d %#x %#x", it->name,
          data->f->name, out[0], out[1], out[2], out[3], out[4], out[5], want[0], want[1],
          want[2], want[3], want[4], want[5]);
   release(k, obuf, NULL);
}

/* clEnqueueWrite/Read/Copy/Fill/MapImage against the C copy. */
static void
run_transfers(struct cl *cl, const struct img *img, const struct image_data *data)
{
   const struct itype *it = data->it;
   const struct fmt *f = data->f;
   size_t tb = texel_bytes(f), bytes = num_texels(it) * tb;
   uint8_t *got = malloc(bytes), *want = malloc(bytes);
   size_t origin[3] = {0, 0, 0}, region[3], sub_origin[3] = {1, 0, 0}, sub_region[3];
   struct image_data wd = *data;
   struct img other = {0};
   bool ok;

   image_region(it, region);
   memcpy(sub_region, region, sizeof(region));
   sub_region[0] = it->w - 2;
   if (region[1] > 2) {
      sub_origin[1] = 1;
      sub_region[1] = region[1] - 1;
   }

   /* Read back what was written. */
   ok = download(cl, img, data, got);
   cases_in_matrix++;
   report(ok && !memcmp(got, data->texels, bytes), "image clEnqueueWrite/ReadImage %s %s",
          it->name, f->name);

   /* Copy all of it to a second image, then fill part of that one. */
   ok = create_image(cl, f, it, CL_MEM_READ_WRITE, &other) &&
        !clEnqueueCopyImage(cl->q, img->mem, other.mem, origin, origin, region, 0, NULL, NULL) &&
        download(cl, &other, data, got);
   cases_in_matrix++;
   report(ok && !memcmp(got, data->texels, bytes), "image clEnqueueCopyImage %s %s", it->name,
          f->name);

   uint32_t color[4];
   for (unsigned c = 0; c < 4; c++) {
      static const float fc[4] = {1.0f, -1.0f, 0.0f, 1.0f};
      static const float hc[4] = {1.5f, -2.25f, 0.5f, 4.0f};
      static const int32_t ic[4] = {5, -3, 100, 1};
      float x = f->kind == K_HALF || f->kind == K_FLOAT ? hc[c]
                : f->kind == K_UNORM ? fabsf(fc[c]) : fc[c];

      if (fmt_class(f) == R_F)
         memcpy(&color[c], &x, 4);
      else
         color[c] = f->kind == K_UINT ? (uint32_t)abs(ic[c]) : (uint32_t)ic[c];
   }
   memcpy(want, data->texels, bytes);
   wd.texels = want;
   for (size_t z = sub_origin[2]; z < sub_origin[2] + sub_region[2]; z++) {
      for (size_t y = sub_origin[1]; y < sub_origin[1] + sub_region[1]; y++) {
         for (size_t x = sub_origin[0]; x < sub_origin[0] + sub_region[0]; x++) {
            size_t yy = it->mt == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 0 : y;
            size_t zz = it->mt == CL_MEM_OBJECT_IMAGE1D_ARRAY ? y : z;
            encode(f, color, (uint8_t *)texel_at(&wd, x, yy, zz));
         }
      }
   }
   ok = ok && !clEnqueueFillImage(cl->q, other.mem, color, sub_origin, sub_region, 0, NULL,
                                  NULL) &&
        download(cl, &other, data, got);
   cases_in_matrix++;
   report(ok && !memcmp(got, want, bytes), "image clEnqueueFillImage %s %s", it->name, f->name);

   /* Map for reading, then for writing a changed first row. */
   size_t row_pitch = 0, slice_pitch = 0;
   cl_int err = CL_SUCCESS;
   uint8_t *map = ok ? clEnqueueMapImage(cl->q, other.mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                         origin, region, &row_pitch, &slice_pitch, 0, NULL,
                                         NULL, &err)
                     : NULL;
   bool same = map != NULL;
   for (size_t z = 0; map && z < region[2]; z++) {
      for (size_t y = 0; y < region[1]; y++) {
         size_t yy = it->mt == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 0 : y;
         size_t zz = it->mt == CL_MEM_OBJECT_IMAGE1D_ARRAY ? y : z;
         uint8_t *row = map + z * slice_pitch + y * row_pitch;

         same &= !memcmp(row, texel_at(&wd, 0, yy, zz), it->w * tb);
         if (y == 0 && z == 0) {
            for (size_t b = 0; b < it->w * tb; b++)
               row[b] ^= 0x5a;
         }
      }
   }
   if (map)
      clEnqueueUnmapMemObject(cl->q, other.mem, map, 0, NULL, NULL);
   for (size_t b = 0; b < it->w * tb; b++)
      want[b] ^= 0x5a;
   ok = map && download(cl, &other, data, got);
   cases_in_matrix++;
   report(ok && same && !memcmp(got, want, bytes), "image clEnqueueMapImage %s %s%s", it->name,
          f->name, !map ? ": map failed" : !same ? ": mapped bytes differ" : "");
   release_image(&other);
   free(got);
   free(want);
}

/* --- Bad input --------------------------------------------------------------- */

static void
run_image_bad_input(struct cl *cl)
{
   cl_image_format ok_fmt = {CL_RGBA, CL_UNORM_INT8};
   /* Valid formats the device lacks, then one that is no format. */
   cl_image_format bad_fmts[] = {{CL_INTENSITY, CL_FLOAT}, {CL_A, CL_UNORM_INT8},
                                 {CL_RGB, CL_UNORM_SHORT_565}, {CL_sRGBA, CL_UNORM_INT8},
                                 {CL_R, 0x4242}};
   cl_image_desc d = {0};
   cl_int err;
   cl_mem m;

   d.image_type = CL_MEM_OBJECT_IMAGE2D;
   d.image_width = 8;
   d.image_height = 8;
   for (unsigned i = 0; i < sizeof(bad_fmts) / sizeof(bad_fmts[0]); i++) {
      char what[96];

      m = clCreateImage(cl->ctx, CL_MEM_READ_WRITE, &bad_fmts[i], &d, NULL, &err);
      snprintf(what, sizeof(what), "image clCreateImage(order %#x, type %#x)",
               bad_fmts[i].image_channel_order, bad_fmts[i].image_channel_data_type);
      expect(err, i == 4 ? CL_INVALID_IMAGE_FORMAT_DESCRIPTOR
                             : CL_IMAGE_FORMAT_NOT_SUPPORTED, what);
      if (m)
         clReleaseMemObject(m);
   }

   static const struct {
      cl_mem_object_type t;
      size_t w, h, d, a;
      const char *what;
   } sizes[] = {
      {CL_MEM_OBJECT_IMAGE2D, 16385, 1, 0, 0, "image clCreateImage(2D, width 16385)"},
      {CL_MEM_OBJECT_IMAGE2D, 1, 16385, 0, 0, "image clCreateImage(2D, height 16385)"},
      {CL_MEM_OBJECT_IMAGE3D, 4, 4, 2049, 0, "image clCreateImage(3D, depth 2049)"},
      {CL_MEM_OBJECT_IMAGE2D_ARRAY, 4, 4, 0, 2049, "image clCreateImage(2D array, 2049 layers)"},
      {CL_MEM_OBJECT_IMAGE1D, 16385, 0, 0, 0, "image clCreateImage(1D, width 16385)"},
   };
   d.image_width = 0;
   m = clCreateImage(cl->ctx, CL_MEM_READ_WRITE, &ok_fmt, &d, NULL, &err);
   expect(err, CL_INVALID_IMAGE_DESCRIPTOR, "image clCreateImage(2D, width 0)");
   if (m)
      clReleaseMemObject(m);
   for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
      cl_image_desc sd = {0};

      sd.image_type = sizes[i].t;
      sd.image_width = sizes[i].w;
      sd.image_height = sizes[i].h;
      sd.image_depth = sizes[i].d;
      sd.image_array_size = sizes[i].a;
      m = clCreateImage(cl->ctx, CL_MEM_READ_WRITE, &ok_fmt, &sd, NULL, &err);
      expect(err, CL_INVALID_IMAGE_SIZE, sizes[i].what);
      if (m)
         clReleaseMemObject(m);
   }

   /* The device's limits are the full profile's minimums or more. */
   cl_bool support = CL_FALSE;
   size_t w2 = 0, w3 = 0, layers = 0;
   cl_uint reads = 0, writes = 0, samplers = 0;
   clGetDeviceInfo(cl->dev, CL_DEVICE_IMAGE_SUPPORT, sizeof(support), &support, NULL);
   clGetDeviceInfo(cl->dev, CL_DEVICE_IMAGE2D_MAX_WIDTH, sizeof(w2), &w2, NULL);
   clGetDeviceInfo(cl->dev, CL_DEVICE_IMAGE3D_MAX_DEPTH, sizeof(w3), &w3, NULL);
   clGetDeviceInfo(cl->dev, CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, sizeof(layers), &layers, NULL);
   clGetDeviceInfo(cl->dev, CL_DEVICE_MAX_READ_IMAGE_ARGS, sizeof(reads), &reads, NULL);
   clGetDeviceInfo(cl->dev, CL_DEVICE_MAX_WRITE_IMAGE_ARGS, sizeof(writes), &writes, NULL);
   clGetDeviceInfo(cl->dev, CL_DEVICE_MAX_SAMPLERS, sizeof(samplers), &samplers, NULL);
   cases_in_matrix++;
   report(support && w2 >= 16384 && w3 >= 2048 && layers >= 2048 && reads >= 128 &&
          writes >= 64 && samplers >= 16,
          "image api limits: support %u, 2D %zu, 3D %zu, %zu layers, %u read / %u write "
          "images, %u samplers",
          support, w2, w3, layers, reads, writes, samplers);

   /* Exactly the formats of the table, for every type (CL_DEPTH for 2D
    * images and 2D arrays only). */
   for (unsigned t = 0; t < NUM_ITYPES; t++) {
      bool depth_ok = itypes[t].mt == CL_MEM_OBJECT_IMAGE2D ||
                      itypes[t].mt == CL_MEM_OBJECT_IMAGE2D_ARRAY;
      cl_image_format list[128];
      cl_uint n = 0, found = 0, want = 0;

      if (itypes[t].depth)
         continue;
      clGetSupportedImageFormats(cl->ctx, CL_MEM_READ_WRITE, itypes[t].mt, 128, list, &n);
      for (unsigned i = 0; i < NUM_FMTS; i++) {
         if (fmts[i].depth && !depth_ok)
            continue;
         want++;
         for (cl_uint j = 0; j < n && j < 128; j++) {
            if (list[j].image_channel_order == fmts[i].order &&
                list[j].image_channel_data_type == fmts[i].type) {
               found++;
               break;
            }
         }
      }
      cases_in_matrix++;
      report(n == want && found == want,
             "image api clGetSupportedImageFormats(%s): %u formats, %u of the table's %u",
             itypes[t].name, n, found, want);
   }
}

/* --- The matrix -------------------------------------------------------------- */

static void
run_format(struct cl *cl, cl_program p, unsigned simd, unsigned t,
           const struct fmt *f, bool transfers)
{
   const struct itype *it = &itypes[t];
   struct image_data data = {f, it, malloc(num_texels(it) * texel_bytes(f))};
   struct img img = {0};

   for (size_t i = 0; i < num_texels(it); i++)
      random_texel(f, data.texels + i * texel_bytes(f));
   if (!create_image(cl, f, it, CL_MEM_READ_WRITE, &img) || !upload(cl, &img, &data)) {
      cases_in_matrix++;
      report(false, "image %s %s simd%u: the image could not be created and written", it->name,
             f->name, simd);
      release_image(&img);
      free(data.texels);
      return;
   }
   if (transfers) {
      run_transfers(cl, &img, &data);
      run_query(cl, p, &img, &data, t);
   }
   /* read_image{f,i,ui} as the format wants, and read_imageh of the float
    * formats (cl_khr_fp16). */
   enum rclass classes[2] = {fmt_class(f), R_H};

   for (unsigned c = 0; c < (classes[0] == R_F && !it->depth ? 2 : 1); c++) {
      enum rclass r = classes[c];

      if (it->sampled)
         run_sample(cl, p, simd, &img, &data, t, r);
      if (it->sampled)
         run_sampler_arg(cl, p, simd, &img, &data, t, r);
      run_fetch(cl, p, simd, &img, &data, t, r);
      run_write(cl, p, simd, &data, t, r);
      run_read_write(cl, p, simd, &data, t, r);
   }
   release_image(&img);
   free(data.texels);
}

void
run_images(struct cl *cl, bool slice)
{
   /* At SIMD 16 the whole matrix; at 8 and 32 every function on a format
    * of each kind on every type.  The VM's slice: 2D and 3D images at SIMD
    * 16 on those formats. */
   static const char *const few[] = {"RGBA_UNORM_INT8", "RG_SIGNED_INT16", "R_UNSIGNED_INT32",
                                     "RGBA_FLOAT", "DEPTH_FLOAT"};
   static const unsigned widths[] = {16, 8, 32};
   char *src = kernel_source();

   rng_state = 0x1234567;
   for (unsigned w = 0; w < (slice ? 1 : 3); w++) {
      unsigned simd = widths[w];
      cl_program p = build(cl, src, simd, "-cl-std=CL3.0");

      if (!p) {
         cases_in_matrix++;
         report(false, "image simd%u: the program did not build", simd);
         continue;
      }
      for (unsigned t = 0; t < NUM_ITYPES; t++) {
         if (slice && strcmp(itypes[t].name, "2d") && strcmp(itypes[t].name, "3d"))
            continue;
         for (unsigned i = 0; i < NUM_FMTS; i++) {
            bool is_few = false;

            if (fmts[i].depth != itypes[t].depth)
               continue;
            for (unsigned j = 0; j < sizeof(few) / sizeof(few[0]); j++)
               is_few |= !strcmp(fmts[i].name, few[j]);
            if ((slice || simd != 16) && !is_few)
               continue;
            run_format(cl, p, simd, t, &fmts[i], simd == 16);
         }
      }
      clReleaseProgram(p);
   }
   if (!slice)
      run_image_bad_input(cl);
   free(src);
}
