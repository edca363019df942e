/* SPDX-License-Identifier: MIT */
/*
 * Lowers OpenCL image access onto the Weft GPU's plain memory instructions.
 *
 * The GPU has no texture unit: an image is linear memory described by an
 * image descriptor that the driver writes after the kernel arguments
 * (Documentation/gpu/weft/images.rst).  The pass turns
 *
 *   tex txf / txl / txs      read_image{f,i,ui,h} with and without sampler,
 *                            get_image_* on read-only images
 *   image_load/store/size    the same on write-only and read-write images
 *   image_load/store_block_intel
 *                            sub-group block reads and writes of a 2D image
 *
 * into loads of the descriptor (load_ubo of constant buffer 0), address
 * arithmetic, global loads and stores, format conversion and filtering.
 * Formats and sampler states are compile-time constants: they come from
 * the weft_image_key the driver builds from what is bound at launch, and
 * the driver compiles one variant of the kernel per key.  Sizes, pitches
 * and addresses are read from the descriptor, so resizing an image does
 * not recompile.
 *
 * Coordinates outside the image never reach memory: reads return the
 * border colour (the format's decoding of a zero texel: 0 for present
 * channels, the format's defaults for the missing ones), writes are
 * dropped.  That is CLK_ADDRESS_CLAMP's rule, and the behaviour the
 * driver guarantees for the cases the specification leaves undefined.
 */
#include "compiler/nir/nir_builder.h"
#include "util/format/u_format.h"

#include "weft_nir_passes.h"

/* An image as the lowering sees it: its format and its descriptor. */
struct weft_img {
   const struct util_format_description *fd;
   unsigned bpp;        /* bytes per texel */
   unsigned chan_bits;  /* bits per channel: 8, 16 or 32 */
   bool is_int;         /* pure integer channels */
   nir_def *base, *width, *height, *depth, *row_pitch, *slice_pitch;
};

static nir_def *
weft_desc_load(nir_builder *b, unsigned desc, unsigned field, unsigned bits)
{
   return nir_load_ubo(b, 1, bits, nir_imm_int(b, 0),
                       nir_imm_int(b, WEFT_IMAGE_DESC_OFFSET + desc * WEFT_IMAGE_DESC_SIZE +
                                         field),
                       .align_mul = bits / 8, .align_offset = 0, .range_base = 0,
                       .range = ~0u);
}

static void
weft_img_init(nir_builder *b, struct weft_img *img, unsigned desc, enum pipe_format format)
{
   img->fd = util_format_description(format);
   img->bpp = util_format_get_blocksize(format);
   img->chan_bits = img->fd->channel[0].size;
   img->is_int = util_format_is_pure_integer(format);
   img->base = weft_desc_load(b, desc, WEFT_IMAGE_DESC_BASE, 64);
   img->width = weft_desc_load(b, desc, WEFT_IMAGE_DESC_WIDTH, 32);
   img->height = weft_desc_load(b, desc, WEFT_IMAGE_DESC_HEIGHT, 32);
   img->depth = weft_desc_load(b, desc, WEFT_IMAGE_DESC_DEPTH, 32);
   img->row_pitch = weft_desc_load(b, desc, WEFT_IMAGE_DESC_ROW_PITCH, 32);
   img->slice_pitch = weft_desc_load(b, desc, WEFT_IMAGE_DESC_SLICE_PITCH, 32);
}

bool
weft_image_format_supported(enum pipe_format format)
{
   const struct util_format_description *fd = util_format_description(format);

   if (!fd || fd->layout != UTIL_FORMAT_LAYOUT_PLAIN || !fd->is_array ||
       fd->colorspace != UTIL_FORMAT_COLORSPACE_RGB)
      return false;
   for (unsigned c = 0; c < fd->nr_channels; c++) {
      const struct util_format_channel_description *ch = &fd->channel[c];

      if (ch->size != fd->channel[0].size || ch->type != fd->channel[0].type ||
          ch->normalized != fd->channel[0].normalized || ch->pure_integer != fd->channel[0].pure_integer)
         return false;
      if (ch->size != 8 && ch->size != 16 && ch->size != 32)
         return false;
      if (ch->type == UTIL_FORMAT_TYPE_FLOAT ? ch->size == 8
                                             : (ch->type != UTIL_FORMAT_TYPE_UNSIGNED &&
                                                ch->type != UTIL_FORMAT_TYPE_SIGNED))
         return false;
      if (ch->normalized ? ch->size == 32
                         : ch->type != UTIL_FORMAT_TYPE_FLOAT && !ch->pure_integer)
         return false;
   }
   return fd->nr_channels == 1 || fd->nr_channels == 2 || fd->nr_channels == 4;
}

/* The format of a slot the key leaves empty (the compile before launch, or
 * nothing bound: Rusticl refuses to launch with an image argument unset). */
static enum pipe_format
weft_key_format(const uint16_t *formats, unsigned i)
{
   enum pipe_format f = formats ? (enum pipe_format)formats[i] : PIPE_FORMAT_NONE;

   return f != PIPE_FORMAT_NONE && weft_image_format_supported(f) ? f
                                                                 : PIPE_FORMAT_R32G32B32A32_FLOAT;
}

/* The address of texel (x, y, z), all inside the image. */
static nir_def *
weft_texel_address(nir_builder *b, const struct weft_img *img, nir_def *x, nir_def *y,
                   nir_def *z)
{
   nir_def *off = nir_u2u64(b, nir_imul_imm(b, x, img->bpp));

   off = nir_iadd(b, off, nir_imul(b, nir_u2u64(b, y), nir_u2u64(b, img->row_pitch)));
   off = nir_iadd(b, off, nir_imul(b, nir_u2u64(b, z), nir_u2u64(b, img->slice_pitch)));
   return nir_iadd(b, img->base, off);
}

static nir_def *
weft_one(nir_builder *b, const struct weft_img *img)
{
   return img->is_int ? nir_imm_int(b, 1) : nir_imm_float(b, 1.0f);
}

/* The four RGBA values of a texel from its memory channels: the format's
 * swizzle, with 0 and 1 for the channels it does not have. */
static nir_def *
weft_swizzle(nir_builder *b, const struct weft_img *img, nir_def *chan[4])
{
   nir_def *rgba[4];

   for (unsigned i = 0; i < 4; i++) {
      unsigned s = img->fd->swizzle[i];

      if (s <= PIPE_SWIZZLE_W)
         rgba[i] = chan[s];
      else if (s == PIPE_SWIZZLE_1)
         rgba[i] = weft_one(b, img);
      else
         rgba[i] = nir_imm_int(b, 0);
   }
   return nir_vec(b, rgba, 4);
}

/* What a read outside the image returns: a zero texel, decoded. */
static nir_def *
weft_border(nir_builder *b, const struct weft_img *img)
{
   nir_def *zero[4];

   for (unsigned c = 0; c < 4; c++)
      zero[c] = nir_imm_int(b, 0);
   return weft_swizzle(b, img, zero);
}

/* x / d, correctly rounded, for the integer x of a normalized channel:
 * a product with the reciprocal, corrected once with its residual (the
 * plain product is off by an ulp for some x, and a texel read, scaled and
 * written back must come back the same). */
static nir_def *
weft_div_exact(nir_builder *b, nir_def *x, float d)
{
   nir_def *rcp = nir_imm_float(b, 1.0f / d);
   nir_def *q = nir_fmul(b, x, rcp);
   nir_def *r = nir_ffma(b, nir_fneg(b, q), nir_imm_float(b, d), x);

   return nir_ffma(b, r, rcp, q);
}

static nir_def *
weft_decode_channel(nir_builder *b, const struct weft_img *img, nir_def *raw)
{
   const struct util_format_channel_description *ch = &img->fd->channel[0];
   unsigned n = ch->size;

   switch (ch->type) {
   case UTIL_FORMAT_TYPE_FLOAT:
      return n == 32 ? raw : nir_f2f32(b, raw);
   case UTIL_FORMAT_TYPE_SIGNED:
      if (ch->normalized) {
         nir_def *f = nir_i2f32(b, nir_i2i32(b, raw));

         return nir_fmax(b, weft_div_exact(b, f, (float)((1u << (n - 1)) - 1)),
                         nir_imm_float(b, -1.0f));
      }
      return nir_i2i32(b, raw);
   default:
      if (ch->normalized) {
         return weft_div_exact(b, nir_u2f32(b, nir_u2u32(b, raw)), (float)((1u << n) - 1));
      }
      return nir_u2u32(b, raw);
   }
}

/* Texel (x, y, z) as RGBA (32-bit floats or integers); (x, y, z) is
 * inside the image, @inside says whether the sample wanted it or the
 * border. */
static nir_def *
weft_fetch(nir_builder *b, const struct weft_img *img, nir_def *x, nir_def *y, nir_def *z,
           nir_def *inside)
{
   nir_def *addr = weft_texel_address(b, img, x, y, z);
   unsigned bytes = img->chan_bits / 8;
   nir_def *raw = nir_load_global(b, addr, bytes, img->fd->nr_channels, img->chan_bits);
   nir_def *chan[4] = { NULL };

   for (unsigned c = 0; c < img->fd->nr_channels; c++)
      chan[c] = weft_decode_channel(b, img, nir_channel(b, raw, c));
   for (unsigned c = img->fd->nr_channels; c < 4; c++)
      chan[c] = nir_imm_int(b, 0);
   nir_def *texel = weft_swizzle(b, img, chan);

   return inside ? nir_bcsel(b, inside, texel, weft_border(b, img)) : texel;
}

static nir_def *
weft_encode_channel(nir_builder *b, const struct weft_img *img, nir_def *v)
{
   const struct util_format_channel_description *ch = &img->fd->channel[0];
   unsigned n = ch->size;

   switch (ch->type) {
   case UTIL_FORMAT_TYPE_FLOAT:
      return n == 32 ? v : nir_f2f16_rtne(b, v);
   case UTIL_FORMAT_TYPE_SIGNED:
      if (ch->normalized) {
         /* convert_{char,short}_sat_rte(v * max): NaN gives 0. */
         nir_def *s = nir_bcsel(b, nir_fneu(b, v, v), nir_imm_float(b, 0.0f), v);
         s = nir_fmin(b, nir_fmax(b, s, nir_imm_float(b, -1.0f)), nir_imm_float(b, 1.0f));
         s = nir_fround_even(b, nir_fmul_imm(b, s, (double)((1u << (n - 1)) - 1)));
         return nir_i2iN(b, nir_f2i32(b, s), n);
      }
      if (n == 32)
         return v;
      v = nir_imax(b, nir_imin(b, v, nir_imm_int(b, (1 << (n - 1)) - 1)),
                   nir_imm_int(b, -(1 << (n - 1))));
      return nir_i2iN(b, v, n);
   default:
      if (ch->normalized) {
         nir_def *u = nir_fround_even(b, nir_fmul_imm(b, nir_fsat(b, v), (double)((1u << n) - 1)));
         return nir_u2uN(b, nir_f2u32(b, u), n);
      }
      if (n == 32)
         return v;
      return nir_u2uN(b, nir_umin(b, v, nir_imm_int(b, (1 << n) - 1)), n);
   }
}

/* Integer coordinates (x, y, z) of an access of @dim, the array layer last
 * (it becomes z: layers are the descriptor's depth), as 32-bit values that
 * stay outside the image when they were: SPIR-V lets a coordinate have any
 * integer width (a 64-bit one failed the builder's bit-size assertion in
 * weft_clamp_inside), and a narrow negative one is sign-extended, a wide one
 * saturated (negative ones are huge unsigned). */
static void
weft_split_coord(nir_builder *b, nir_def *coord, enum glsl_sampler_dim dim, bool is_array,
                 nir_def *xyz[3])
{
   nir_def *zero = nir_imm_int(b, 0);

   if (coord->bit_size == 1)
      coord = nir_b2i32(b, coord);
   else if (coord->bit_size < 32)
      coord = nir_i2i32(b, coord);
   else if (coord->bit_size > 32)
      coord = nir_u2u32(b, nir_umin(b, coord, nir_imm_intN_t(b, UINT32_MAX, coord->bit_size)));

   xyz[0] = nir_channel(b, coord, 0);
   xyz[1] = zero;
   xyz[2] = zero;
   switch (dim) {
   case GLSL_SAMPLER_DIM_1D:
      if (is_array)
         xyz[2] = nir_channel(b, coord, 1);
      break;
   case GLSL_SAMPLER_DIM_2D:
      xyz[1] = nir_channel(b, coord, 1);
      if (is_array)
         xyz[2] = nir_channel(b, coord, 2);
      break;
   case GLSL_SAMPLER_DIM_3D:
      xyz[1] = nir_channel(b, coord, 1);
      xyz[2] = nir_channel(b, coord, 2);
      break;
   default:
      break;
   }
}

/* Whether (x, y, z) is inside, and the coordinates clamped inside (the
 * unsigned comparison also catches negative ones). */
static nir_def *
weft_clamp_inside(nir_builder *b, const struct weft_img *img, nir_def *xyz[3])
{
   nir_def *size[3] = { img->width, img->height, img->depth };
   nir_def *inside = nir_imm_true(b);

   for (unsigned i = 0; i < 3; i++) {
      inside = nir_iand(b, inside, nir_ult(b, xyz[i], size[i]));
      xyz[i] = nir_umin(b, xyz[i], nir_iadd_imm(b, size[i], -1));
   }
   return inside;
}

/* The size query: width, then height, then depth or layers, as many as the
 * image type has. */
static nir_def *
weft_image_size(nir_builder *b, const struct weft_img *img, enum glsl_sampler_dim dim,
                bool is_array, unsigned num_components, unsigned bit_size)
{
   nir_def *c[3] = { img->width, img->height, img->depth };

   if (dim == GLSL_SAMPLER_DIM_1D && is_array)
      c[1] = img->depth;
   for (unsigned i = num_components; i < 3; i++)
      c[i] = NULL;
   return nir_u2uN(b, nir_vec(b, c, num_components), bit_size);
}

/* The result as the instruction wants it: 16-bit for read_imageh. */
static nir_def *
weft_result(nir_builder *b, nir_def *rgba, nir_alu_type type, unsigned num_components)
{
   unsigned bits = nir_alu_type_get_type_size(type);

   rgba = nir_trim_vector(b, rgba, num_components);
   if (bits == 16)
      return nir_alu_type_get_base_type(type) == nir_type_float ? nir_f2f16(b, rgba)
                                                               : nir_i2i16(b, rgba);
   return rgba;
}

/* The texel index along one axis for a sample at @u (in texels, or
 * normalized @s for repeat and mirrored repeat), and whether it is inside
 * (CLK_ADDRESS_CLAMP's border).  @shift is 0.5 for the lower tap of
 * linear filtering, 0 for nearest; @frac gets the linear weight. */
struct weft_taps {
   nir_def *i[2];
   nir_def *inside[2];
   nir_def *frac;
};

static void
weft_address_axis(nir_builder *b, const struct weft_sampler_key *sk, nir_def *s,
                  nir_def *size, bool linear, struct weft_taps *t)
{
   nir_def *fsize = nir_u2f32(b, size);
   nir_def *last = nir_iadd_imm(b, size, -1);
   nir_def *u, *i0, *i1;

   t->inside[0] = t->inside[1] = NULL;
   t->frac = NULL;
   if (sk->normalized && sk->wrap == WEFT_WRAP_REPEAT) {
      u = nir_fmul(b, nir_fsub(b, s, nir_ffloor(b, s)), fsize);
      if (!linear) {
         i0 = nir_f2i32(b, nir_ffloor(b, u));
         i0 = nir_bcsel(b, nir_ilt(b, last, i0), nir_isub(b, i0, size), i0);
         /* A NaN or infinite coordinate must not leave the image. */
         t->i[0] = nir_umin(b, i0, last);
         return;
      }
      u = nir_fadd_imm(b, u, -0.5);
      i0 = nir_f2i32(b, nir_ffloor(b, u));
      i1 = nir_iadd_imm(b, i0, 1);
      t->i[0] = nir_bcsel(b, nir_ilt_imm(b, i0, 0), nir_iadd(b, size, i0), i0);
      t->i[1] = nir_bcsel(b, nir_ilt(b, last, i1), nir_isub(b, i1, size), i1);
      t->frac = nir_fsub(b, u, nir_ffloor(b, u));
      /* Rounding can leave a tap one texel outside a tiny image. */
      t->i[0] = nir_umin(b, t->i[0], last);
      t->i[1] = nir_umin(b, t->i[1], last);
      return;
   }
   if (sk->normalized && sk->wrap == WEFT_WRAP_MIRRORED_REPEAT) {
      nir_def *sp = nir_fmul_imm(b, nir_fround_even(b, nir_fmul_imm(b, s, 0.5)), 2.0);

      u = nir_fmul(b, nir_fabs(b, nir_fsub(b, s, sp)), fsize);
      if (!linear) {
         t->i[0] = nir_umin(b, nir_f2i32(b, nir_ffloor(b, u)), last);
         return;
      }
      u = nir_fadd_imm(b, u, -0.5);
      i0 = nir_f2i32(b, nir_ffloor(b, u));
      t->i[0] = nir_imin(b, nir_imax(b, i0, nir_imm_int(b, 0)), last);
      t->i[1] = nir_imin(b, nir_imax(b, nir_iadd_imm(b, i0, 1), nir_imm_int(b, 0)), last);
      t->frac = nir_fsub(b, u, nir_ffloor(b, u));
      return;
   }

   /* Clamp-to-edge, clamp to the border, and none (which the driver
    * treats as clamp-to-edge: the kernel promised to stay inside). */
   u = sk->normalized ? nir_fmul(b, s, fsize) : s;
   /* Far outside is as good as just outside, and f2i stays defined (a NaN
    * ends up at the low end). */
   u = nir_fmin(b, nir_fmax(b, u, nir_imm_float(b, -2.0f)), nir_fadd_imm(b, fsize, 2.0));
   if (linear) {
      u = nir_fadd_imm(b, u, -0.5);
      t->frac = nir_fsub(b, u, nir_ffloor(b, u));
   }
   i0 = nir_f2i32(b, nir_ffloor(b, u));
   t->i[0] = i0;
   t->i[1] = nir_iadd_imm(b, i0, 1);
   for (unsigned k = 0; k < (linear ? 2 : 1); k++) {
      if (sk->wrap == WEFT_WRAP_CLAMP_TO_BORDER)
         t->inside[k] = nir_ult(b, t->i[k], size);
      t->i[k] = nir_imin(b, nir_imax(b, t->i[k], nir_imm_int(b, 0)), last);
   }
}

static nir_def *
weft_sample(nir_builder *b, const struct weft_img *img, const struct weft_sampler_key *sk,
            nir_tex_instr *tex, nir_def *coord)
{
   unsigned axes = tex->coord_components - tex->is_array;
   bool linear = sk->linear && !img->is_int;
   nir_def *size[3] = { img->width, img->height, img->depth };
   struct weft_taps t[3];
   nir_def *layer = NULL;

   if (tex->sampler_dim == GLSL_SAMPLER_DIM_BUF || axes > 3)
      return NULL;
   for (unsigned a = 0; a < axes; a++)
      weft_address_axis(b, sk, nir_channel(b, coord, a), size[a], linear, &t[a]);
   if (tex->is_array) {
      /* The layer: clamp(rint(layer), 0, layers - 1), never filtered. */
      nir_def *l = nir_channel(b, coord, axes);
      nir_def *lastf = nir_u2f32(b, nir_iadd_imm(b, img->depth, -1));

      l = nir_fmin(b, nir_fmax(b, l, nir_imm_float(b, 0.0f)), lastf);
      layer = nir_f2i32(b, nir_fround_even(b, l));
   }

   nir_def *sum = NULL;
   for (unsigned tap = 0; tap < (linear ? 1u << axes : 1u); tap++) {
      nir_def *xyz[3] = { nir_imm_int(b, 0), nir_imm_int(b, 0), nir_imm_int(b, 0) };
      nir_def *inside = NULL, *weight = NULL;

      for (unsigned a = 0; a < axes; a++) {
         unsigned k = (tap >> a) & 1;
         nir_def *in = t[a].inside[k];

         xyz[a] = t[a].i[k];
         if (in)
            inside = inside ? nir_iand(b, inside, in) : in;
         if (linear) {
            nir_def *w = k ? t[a].frac : nir_fsub_imm(b, 1.0, t[a].frac);
            weight = weight ? nir_fmul(b, weight, w) : w;
         }
      }
      if (layer)
         xyz[2] = layer;
      nir_def *texel = weft_fetch(b, img, xyz[0], xyz[1], xyz[2], inside);

      if (!linear)
         return texel;
      texel = nir_fmul(b, texel, weight);
      sum = sum ? nir_fadd(b, sum, texel) : texel;
   }
   return sum;
}

struct weft_lower_images_state {
   const struct weft_image_key *key;
   unsigned num_textures;
};

static bool
weft_lower_tex(nir_builder *b, nir_tex_instr *tex, const struct weft_lower_images_state *st)
{
   struct weft_sampler_key nearest_edge = { .wrap = WEFT_WRAP_CLAMP_TO_EDGE };
   const struct weft_sampler_key *sk = &nearest_edge;
   int coord_idx = nir_tex_instr_src_index(tex, nir_tex_src_coord);
   struct weft_img img;
   nir_def *res;

   /* Only constant indices: OpenCL C cannot select an image or sampler at
    * run time.  Anything else stays for the backend to refuse. */
   if (nir_tex_instr_src_index(tex, nir_tex_src_texture_offset) >= 0 ||
       nir_tex_instr_src_index(tex, nir_tex_src_sampler_offset) >= 0 ||
       nir_tex_instr_src_index(tex, nir_tex_src_texture_deref) >= 0 ||
       tex->texture_index >= WEFT_MAX_TEXTURES)
      return false;

   b->cursor = nir_before_instr(&tex->instr);
   weft_img_init(b, &img, tex->texture_index,
                 weft_key_format(st->key ? st->key->texture_format : NULL, tex->texture_index));

   switch (tex->op) {
   case nir_texop_txs:
      res = weft_image_size(b, &img, tex->sampler_dim, tex->is_array,
                            tex->def.num_components, tex->def.bit_size);
      break;
   case nir_texop_txf: {
      nir_def *xyz[3];

      if (coord_idx < 0)
         return false;
      weft_split_coord(b, tex->src[coord_idx].src.ssa, tex->sampler_dim, tex->is_array, xyz);
      nir_def *inside = weft_clamp_inside(b, &img, xyz);
      res = weft_result(b, weft_fetch(b, &img, xyz[0], xyz[1], xyz[2], inside),
                        tex->dest_type, tex->def.num_components);
      break;
   }
   case nir_texop_tex:
   case nir_texop_txl:
      if (coord_idx < 0 || tex->sampler_index >= WEFT_MAX_SAMPLERS)
         return false;
      if (st->key)
         sk = &st->key->sampler[tex->sampler_index];
      res = weft_sample(b, &img, sk, tex, tex->src[coord_idx].src.ssa);
      if (!res)
         return false;
      res = weft_result(b, res, tex->dest_type, tex->def.num_components);
      break;
   default:
      return false;
   }
   nir_def_replace(&tex->def, res);
   return true;
}

/* Sub-group block I/O on a 2D image is the ISA's ld.img / st.img, which
 * read the descriptor themselves: the bindless form whose handle is the
 * descriptor's offset in the argument buffer (a read-only image's index is
 * its texture index, whatever the image's other uses). */
static bool
weft_lower_image_block(nir_builder *b, nir_intrinsic_instr *intr,
                       const struct weft_lower_images_state *st)
{
   bool store = intr->intrinsic == nir_intrinsic_image_store_block_intel;
   bool read_only = nir_intrinsic_access(intr) & ACCESS_NON_WRITEABLE;
   unsigned index, desc;
   nir_def *handle;

   /* A constant index, as for the other image access. */
   if (!nir_src_is_const(intr->src[0]) ||
       nir_src_as_uint(intr->src[0]) >= (read_only ? WEFT_MAX_TEXTURES : WEFT_MAX_IMAGES))
      return false;
   index = nir_src_as_uint(intr->src[0]);
   desc = read_only ? index : st->num_textures + index;
   b->cursor = nir_before_instr(&intr->instr);
   handle = nir_imm_int(b, WEFT_IMAGE_DESC_OFFSET + desc * WEFT_IMAGE_DESC_SIZE);
   if (store) {
      nir_bindless_image_store_block_intel(b, handle, intr->src[1].ssa, intr->src[2].ssa,
                                           .image_dim = GLSL_SAMPLER_DIM_2D,
                                           .access = nir_intrinsic_access(intr));
      nir_instr_remove(&intr->instr);
   } else {
      nir_def_replace(&intr->def,
                      nir_bindless_image_load_block_intel(b, intr->def.num_components,
                                                          intr->def.bit_size, handle,
                                                          intr->src[1].ssa,
                                                          .image_dim = GLSL_SAMPLER_DIM_2D,
                                                          .access = nir_intrinsic_access(intr)));
   }
   return true;
}

static bool
weft_lower_image_intrinsic(nir_builder *b, nir_intrinsic_instr *intr,
                           const struct weft_lower_images_state *st)
{
   struct weft_img img;
   nir_def *xyz[3];
   unsigned index;

   switch (intr->intrinsic) {
   case nir_intrinsic_image_load_block_intel:
   case nir_intrinsic_image_store_block_intel:
      return weft_lower_image_block(b, intr, st);
   case nir_intrinsic_image_load:
   case nir_intrinsic_image_store:
   case nir_intrinsic_image_size:
      break;
   default:
      return false;
   }
   if (!nir_src_is_const(intr->src[0]) || nir_src_as_uint(intr->src[0]) >= WEFT_MAX_IMAGES)
      return false;
   index = nir_src_as_uint(intr->src[0]);
   b->cursor = nir_before_instr(&intr->instr);
   weft_img_init(b, &img, st->num_textures + index, weft_key_format(st->key ? st->key->image_format : NULL, index));

   enum glsl_sampler_dim dim = nir_intrinsic_image_dim(intr);
   bool is_array = nir_intrinsic_image_array(intr);

   if (intr->intrinsic == nir_intrinsic_image_size) {
      nir_def_replace(&intr->def, weft_image_size(b, &img, dim, is_array,
                                                  intr->def.num_components,
                                                  intr->def.bit_size));
      return true;
   }

   weft_split_coord(b, intr->src[1].ssa, dim, is_array, xyz);
   nir_def *inside = weft_clamp_inside(b, &img, xyz);

   if (intr->intrinsic == nir_intrinsic_image_load) {
      nir_def *texel = weft_fetch(b, &img, xyz[0], xyz[1], xyz[2], inside);

      nir_def_replace(&intr->def, weft_result(b, texel, nir_intrinsic_dest_type(intr),
                                              intr->def.num_components));
      return true;
   }

   /* A store: the value converted to the format, channel by channel in
    * memory order, only when the texel is inside. */
   nir_def *value = intr->src[3].ssa;
   nir_alu_type type = nir_intrinsic_src_type(intr);
   nir_def *chan[4];

   if (value->bit_size == 16) {
      value = nir_alu_type_get_base_type(type) == nir_type_float ? nir_f2f32(b, value)
              : nir_alu_type_get_base_type(type) == nir_type_int ? nir_i2i32(b, value)
                                                                  : nir_u2u32(b, value);
   }
   for (unsigned c = 0; c < img.fd->nr_channels; c++) {
      unsigned comp = 0;

      for (unsigned i = 0; i < 4; i++) {
         if (img.fd->swizzle[i] == c)
            comp = i;
      }
      chan[c] = weft_encode_channel(b, &img, nir_channel(b, value, MIN2(comp, value->num_components - 1)));
   }
   nir_push_if(b, inside);
   nir_store_global(b, weft_texel_address(b, &img, xyz[0], xyz[1], xyz[2]), img.chan_bits / 8,
                    nir_vec(b, chan, img.fd->nr_channels),
                    nir_component_mask(img.fd->nr_channels));
   nir_pop_if(b, NULL);
   nir_instr_remove(&intr->instr);
   return true;
}

static bool
weft_lower_images_instr(nir_builder *b, nir_instr *instr, void *data)
{
   const struct weft_lower_images_state *st = data;

   if (instr->type == nir_instr_type_tex)
      return weft_lower_tex(b, nir_instr_as_tex(instr), st);
   if (instr->type == nir_instr_type_intrinsic)
      return weft_lower_image_intrinsic(b, nir_instr_as_intrinsic(instr), st);
   return false;
}

bool
weft_nir_lower_images(nir_shader *nir, const struct weft_image_key *key)
{
   struct weft_lower_images_state st = {
      .key = key,
      .num_textures = weft_image_num_textures(nir),
   };

   return nir_shader_instructions_pass(nir, weft_lower_images_instr, nir_metadata_none, &st);
}
