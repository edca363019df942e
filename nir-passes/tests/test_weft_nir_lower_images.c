/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of weft_nir_lower_images: build a kernel with one image access
 * (a tex instruction on a read-only image, an image intrinsic on a
 * write-only or read-write one), run the pass for a key, check the NIR it
 * leaves: which descriptor it reads (load_ubo at 8192 + 64 * n, per
 * Documentation/gpu/weft/images.rst), the memory accesses of the key's
 * format and filter, and what it leaves alone.  (What the lowered code
 * computes is checked on the device model by the OpenCL conformance
 * suite's image family, tests/conformance.)
 */
#include "weft_nir_passes.h"
#include "weft_nir_test.h"

static const nir_shader_compiler_options options = { 0 };

#define NUM_TEXTURES 2 /* read-only images before the shader images */

struct census {
   unsigned tex, image_intrinsics; /* left */
   unsigned desc_loads[4];         /* load_ubo of descriptor n */
   unsigned other_ubo_loads;
   unsigned global_loads, global_load_bits, global_load_comps;
   unsigned global_stores, global_store_comps;
   unsigned block_accesses, block_handle; /* bindless_image_*_block_intel */
   unsigned ifs;
};

static void
count_intrinsic(nir_intrinsic_instr *intr, void *data)
{
   struct census *c = data;

   switch (intr->intrinsic) {
   case nir_intrinsic_load_ubo: {
      unsigned off = nir_src_is_const(intr->src[1]) ? nir_src_as_uint(intr->src[1]) : 0;
      unsigned desc = (off - WEFT_IMAGE_DESC_OFFSET) / WEFT_IMAGE_DESC_SIZE;

      if (off >= WEFT_IMAGE_DESC_OFFSET && desc < 4)
         c->desc_loads[desc]++;
      else
         c->other_ubo_loads++;
      break;
   }
   case nir_intrinsic_load_global:
      c->global_loads++;
      c->global_load_bits = intr->def.bit_size;
      c->global_load_comps = intr->def.num_components;
      break;
   case nir_intrinsic_store_global:
      c->global_stores++;
      c->global_store_comps = nir_src_num_components(intr->src[0]);
      break;
   case nir_intrinsic_bindless_image_load_block_intel:
   case nir_intrinsic_bindless_image_store_block_intel:
      c->block_accesses++;
      c->block_handle = nir_src_is_const(intr->src[0]) ? nir_src_as_uint(intr->src[0]) : ~0u;
      break;
   case nir_intrinsic_image_load:
   case nir_intrinsic_image_store:
   case nir_intrinsic_image_size:
   case nir_intrinsic_image_load_block_intel:
   case nir_intrinsic_image_store_block_intel:
      c->image_intrinsics++;
      break;
   default:
      break;
   }
}

static struct census
count(nir_shader *nir)
{
   struct census c = { 0 };

   nir_foreach_function_impl(impl, nir) {
      nir_foreach_block(block, impl) {
         nir_foreach_instr(instr, block)
            c.tex += instr->type == nir_instr_type_tex;
         nir_cf_node *parent = block->cf_node.parent;
         if (parent->type == nir_cf_node_if && nir_if_first_then_block(nir_cf_node_as_if(parent)) == block)
            c.ifs++;
      }
   }
   weft_nir_test_foreach_intrinsic(nir, count_intrinsic, &c);
   return c;
}

enum access_kind {
   TXF,            /* read_image* without a sampler on read-only image 1 */
   SAMPLE,         /* read_imagef with sampler 0 on read-only image 1 */
   TXS,            /* get_image_dim on read-only image 1 */
   IMAGE_LOAD,     /* read_image* on read-write image 0 */
   IMAGE_STORE,    /* write_image* on write-only image 1 */
   IMAGE_SIZE,     /* get_image_width/height on image 0 */
   BLOCK_READ_RO,  /* intel_sub_group_block_read on read-only image 1 */
   BLOCK_WRITE,    /* intel_sub_group_block_write on write-only image 1 */
   INDIRECT_LOAD,  /* image_load with an index not known at compile time */
};

static nir_def *
build_tex(nir_builder *b, nir_texop op, nir_def *coord, nir_alu_type type, unsigned comps)
{
   nir_tex_instr *tex = nir_tex_instr_create(b->shader, coord ? 1 : 0);

   tex->op = op;
   tex->sampler_dim = GLSL_SAMPLER_DIM_2D;
   tex->dest_type = type;
   tex->texture_index = 1;
   tex->sampler_index = 0;
   tex->coord_components = 2;
   if (coord)
      tex->src[0] = nir_tex_src_for_ssa(nir_tex_src_coord, coord);
   nir_def_init(&tex->instr, &tex->def, comps, 32);
   nir_builder_instr_insert(b, &tex->instr);
   return &tex->def;
}

static nir_shader *
build(const char *name, enum access_kind kind)
{
   nir_builder b = weft_nir_test_kernel(&options, name);
   nir_def *r = NULL;
   nir_def *coord4 = nir_imm_ivec4(&b, 3, 4, 0, 0), *zero = nir_imm_int(&b, 0);
   nir_def *x = nir_u2u32(&b, nir_load_local_invocation_index(&b));

   b.shader->info.num_textures = NUM_TEXTURES;
   switch (kind) {
   case TXF:
      r = build_tex(&b, nir_texop_txf, nir_imm_ivec2(&b, 3, 4), nir_type_uint32, 4);
      break;
   case SAMPLE:
      r = build_tex(&b, nir_texop_tex, nir_imm_vec2(&b, 0.25f, 0.5f), nir_type_float32, 4);
      break;
   case TXS:
      r = build_tex(&b, nir_texop_txs, NULL, nir_type_int32, 2);
      break;
   case IMAGE_LOAD:
      r = nir_image_load(&b, 4, 32, zero, coord4, zero, zero, .image_dim = GLSL_SAMPLER_DIM_2D,
                         .dest_type = nir_type_float32);
      break;
   case INDIRECT_LOAD:
      r = nir_image_load(&b, 4, 32, nir_iand_imm(&b, x, 1), coord4, zero, zero,
                         .image_dim = GLSL_SAMPLER_DIM_2D, .dest_type = nir_type_float32);
      break;
   case IMAGE_STORE:
      nir_image_store(&b, nir_imm_int(&b, 1), coord4, zero, nir_imm_vec4(&b, 0.5f, 1, 0, 1), zero,
                      .image_dim = GLSL_SAMPLER_DIM_2D, .src_type = nir_type_float32);
      break;
   case IMAGE_SIZE:
      r = nir_image_size(&b, 2, 32, zero, zero, .image_dim = GLSL_SAMPLER_DIM_2D);
      break;
   case BLOCK_READ_RO:
      r = nir_image_load_block_intel(&b, 4, 16, nir_imm_int(&b, 1), nir_imm_ivec2(&b, 8, 2),
                                     .image_dim = GLSL_SAMPLER_DIM_2D,
                                     .access = ACCESS_NON_WRITEABLE);
      break;
   case BLOCK_WRITE:
      nir_image_store_block_intel(&b, nir_imm_int(&b, 1), nir_imm_ivec2(&b, 8, 2), x,
                                  .image_dim = GLSL_SAMPLER_DIM_2D,
                                  .access = ACCESS_NON_READABLE);
      break;
   }
   /* The result to scratch memory: global stores are the pass's. */
   if (r)
      nir_store_scratch(&b, r, zero, .align_mul = r->bit_size / 8,
                        .write_mask = nir_component_mask(r->num_components));
   return b.shader;
}

static void
check(const char *name, enum access_kind kind, const struct weft_image_key *key,
      struct census want, bool want_progress)
{
   nir_shader *nir = build(name, kind);
   bool ok = true;

   nir_validate_shader(nir, "before");
   bool progress = weft_nir_lower_images(nir, key);
   nir_validate_shader(nir, "after weft_nir_lower_images");
   nir_opt_constant_folding(nir);
   nir_opt_dce(nir);
   struct census c = count(nir);

#define FIELD(f) WEFT_NIR_CHECK(ok, c.f == want.f, "%u, want %u", c.f, want.f);
   FIELD(tex) FIELD(image_intrinsics) FIELD(other_ubo_loads)
   FIELD(global_loads) FIELD(global_load_bits) FIELD(global_load_comps)
   FIELD(global_stores) FIELD(global_store_comps) FIELD(block_accesses) FIELD(block_handle)
   FIELD(ifs)
   for (unsigned d = 0; d < 4; d++)
      WEFT_NIR_CHECK(ok, !c.desc_loads[d] == !want.desc_loads[d],
                     "%u loads of descriptor %u, want %s", c.desc_loads[d], d,
                     want.desc_loads[d] ? "some" : "none");
#undef FIELD
   WEFT_NIR_CHECK(ok, progress == want_progress, "progress %d, want %d", progress, want_progress);
   weft_nir_test_report(ok, name);
   ralloc_free(nir);
}

int
main(void)
{
   static struct weft_image_key key;
   const unsigned desc_base = WEFT_IMAGE_DESC_OFFSET;

   weft_nir_test_begin();
   key.texture_format[1] = PIPE_FORMAT_R8_UINT;
   key.image_format[0] = PIPE_FORMAT_R16G16_SINT;
   key.image_format[1] = PIPE_FORMAT_R8G8B8A8_UNORM;
   key.sampler[0] = (struct weft_sampler_key){ .wrap = WEFT_WRAP_REPEAT, .linear = 1,
                                               .normalized = 1 };

   /* Read-only images are descriptors 0 .. textures - 1, in texture order. */
   check("txf-r8ui-one-byte", TXF, &key,
         (struct census){ .desc_loads[1] = 1, .global_loads = 1, .global_load_bits = 8,
                          .global_load_comps = 1 }, true);
   /* Without a key: RGBA float. */
   check("txf-no-key-rgba32f", TXF, NULL,
         (struct census){ .desc_loads[1] = 1, .global_loads = 1, .global_load_bits = 32,
                          .global_load_comps = 4 }, true);
   check("txs-no-memory", TXS, &key, (struct census){ .desc_loads[1] = 1 }, true);
   /* A linear 2D sampler weighs four texels (R8UI is integer: nearest). */
   key.texture_format[1] = PIPE_FORMAT_R8G8B8A8_UNORM;
   check("sample-linear-repeat-four-taps", SAMPLE, &key,
         (struct census){ .desc_loads[1] = 1, .global_loads = 4, .global_load_bits = 8,
                          .global_load_comps = 4 }, true);
   key.sampler[0].linear = 0;
   check("sample-nearest-one-tap", SAMPLE, &key,
         (struct census){ .desc_loads[1] = 1, .global_loads = 1, .global_load_bits = 8,
                          .global_load_comps = 4 }, true);
   /* Shader images follow the read-only ones: image n is descriptor
    * textures + n. */
   check("image-load-rg16i", IMAGE_LOAD, &key,
         (struct census){ .desc_loads[2] = 1, .global_loads = 1, .global_load_bits = 16,
                          .global_load_comps = 2 }, true);
   check("image-store-rgba8-only-inside", IMAGE_STORE, &key,
         (struct census){ .desc_loads[3] = 1, .global_stores = 1, .global_store_comps = 4,
                          .ifs = 1 }, true);
   check("image-size-no-memory", IMAGE_SIZE, &key, (struct census){ .desc_loads[2] = 1 }, true);
   /* Block I/O: ld.img / st.img read the descriptor themselves; the
    * handle is its offset in the argument buffer. */
   check("block-read-read-only-is-texture-1", BLOCK_READ_RO, &key,
         (struct census){ .block_accesses = 1, .block_handle = desc_base + 1 * 64 }, true);
   check("block-write-write-only-is-image-1", BLOCK_WRITE, &key,
         (struct census){ .block_accesses = 1,
                          .block_handle = desc_base + (NUM_TEXTURES + 1) * 64 }, true);
   /* An index not known at compile time is left for the backend to refuse. */
   check("indirect-index-untouched", INDIRECT_LOAD, &key,
         (struct census){ .image_intrinsics = 1 }, false);

   return weft_nir_test_end();
}
