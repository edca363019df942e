/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of weft_nir_lower_intel_subgroups: build a kernel with
 * nir_builder, run the pass, check the NIR it leaves.  (What the lowered
 * code computes is checked on the device model by the OpenCL conformance
 * suite, tests/conformance.)
 */
#include "weft_nir_passes.h"
#include "weft_nir_test.h"

static const nir_shader_compiler_options options = {
   .has_intel_subgroups = true,
};

struct census {
   unsigned shuffles, vector_shuffles;  /* shuffle_up/down_intel */
   unsigned global_blocks, vector_global_blocks;
   unsigned shared_blocks;
   unsigned shared_accesses, lane_loads, max_size_loads;
   unsigned image_blocks, vector_image_blocks;
};

static void
count_intrinsic(nir_intrinsic_instr *intr, void *data)
{
   struct census *c = data;
   bool store = nir_intrinsic_infos[intr->intrinsic].has_dest == false;
   unsigned data_src = intr->intrinsic == nir_intrinsic_bindless_image_store_block_intel ? 2 : 0;
   unsigned comps = store ? nir_src_num_components(intr->src[data_src]) : intr->def.num_components;

   switch (intr->intrinsic) {
   case nir_intrinsic_shuffle_up_intel:
   case nir_intrinsic_shuffle_down_intel:
      c->shuffles++;
      c->vector_shuffles += comps > 1;
      break;
   case nir_intrinsic_load_global_block_intel:
   case nir_intrinsic_store_global_block_intel:
      c->global_blocks++;
      c->vector_global_blocks += comps > 1;
      break;
   case nir_intrinsic_load_shared_block_intel:
   case nir_intrinsic_store_shared_block_intel:
      c->shared_blocks++;
      break;
   case nir_intrinsic_load_shared:
   case nir_intrinsic_store_shared:
      c->shared_accesses++;
      break;
   case nir_intrinsic_bindless_image_load_block_intel:
   case nir_intrinsic_bindless_image_store_block_intel:
      c->image_blocks++;
      c->vector_image_blocks += comps > 1;
      break;
   case nir_intrinsic_load_subgroup_invocation: c->lane_loads++; break;
   case nir_intrinsic_load_max_subgroup_size: c->max_size_loads++; break;
   default:
      break;
   }
}

static struct census
count(nir_shader *nir)
{
   struct census c = { 0 };

   weft_nir_test_foreach_intrinsic(nir, count_intrinsic, &c);
   return c;
}

/* What one test puts in its kernel: @comps components of @bits bits. */
enum what {
   SHUFFLE_UP, SHUFFLE_DOWN, GLOBAL_READ, GLOBAL_WRITE, SHARED_READ, SHARED_WRITE,
   IMAGE_READ, IMAGE_WRITE,
};

static nir_shader *
build(const char *name, enum what what, unsigned comps, unsigned bits)
{
   nir_builder b = weft_nir_test_kernel(&options, name);
   nir_def *lane = nir_u2uN(&b, nir_load_local_invocation_index(&b), bits);
   nir_def *comp[NIR_MAX_VEC_COMPONENTS];
   nir_def *out = nir_imm_int64(&b, 0x10000), *r = NULL;

   for (unsigned c = 0; c < comps; c++)
      comp[c] = nir_iadd_imm(&b, lane, c);
   nir_def *x = nir_vec(&b, comp, comps);

   switch (what) {
   case SHUFFLE_UP:
      r = nir_shuffle_up_intel(&b, x, nir_iadd_imm(&b, x, 100), nir_imm_int(&b, 3));
      break;
   case SHUFFLE_DOWN:
      r = nir_shuffle_down_intel(&b, x, nir_iadd_imm(&b, x, 100), nir_imm_int(&b, 5));
      break;
   case GLOBAL_READ:
      r = nir_load_global_block_intel(&b, comps, bits, nir_imm_int64(&b, 0x20000));
      break;
   case GLOBAL_WRITE:
      nir_store_global_block_intel(&b, x, nir_imm_int64(&b, 0x20000));
      break;
   case SHARED_READ:
      r = nir_load_shared_block_intel(&b, comps, bits, nir_imm_int(&b, 64));
      break;
   case SHARED_WRITE:
      nir_store_shared_block_intel(&b, x, nir_imm_int(&b, 64));
      break;
   case IMAGE_READ:
      r = nir_bindless_image_load_block_intel(&b, comps, bits, nir_imm_int(&b, 8192),
                                              nir_imm_ivec2(&b, 12, 3),
                                              .image_dim = GLSL_SAMPLER_DIM_2D);
      break;
   case IMAGE_WRITE:
      nir_bindless_image_store_block_intel(&b, nir_imm_int(&b, 8192), nir_imm_ivec2(&b, 12, 3), x,
                                           .image_dim = GLSL_SAMPLER_DIM_2D);
      break;
   }
   if (r)
      nir_store_global(&b, out, bits / 8, r, (1u << comps) - 1);
   return b.shader;
}

static void
check(const char *name, enum what what, unsigned comps, unsigned bits, struct census want,
      bool want_progress)
{
   nir_shader *nir = build(name, what, comps, bits);
   bool ok = true;

   nir_validate_shader(nir, "before");
   bool progress = weft_nir_lower_intel_subgroups(nir);
   nir_validate_shader(nir, "after weft_nir_lower_intel_subgroups");
   struct census c = count(nir);

#define FIELD(f)                                                               \
   if (c.f != want.f) {                                                       \
      printf("        %s: %u, want %u\n", #f, c.f, want.f);                   \
      ok = false;                                                             \
   }
   FIELD(shuffles) FIELD(vector_shuffles) FIELD(global_blocks) FIELD(vector_global_blocks)
   FIELD(shared_blocks) FIELD(shared_accesses) FIELD(lane_loads) FIELD(max_size_loads)
   FIELD(image_blocks) FIELD(vector_image_blocks)
#undef FIELD
   WEFT_NIR_CHECK(ok, progress == want_progress, "progress %d, want %d", progress, want_progress);
   weft_nir_test_report(ok, name);
   ralloc_free(nir);
}

struct rows_seen {
   unsigned rows;
   bool ok;
};

static void
check_image_row(nir_intrinsic_instr *intr, void *data)
{
   struct rows_seen *s = data;

   if (intr->intrinsic != nir_intrinsic_bindless_image_load_block_intel &&
       intr->intrinsic != nir_intrinsic_bindless_image_store_block_intel)
      return;
   nir_scalar x = nir_scalar_resolved(intr->src[1].ssa, 0);
   nir_scalar y = nir_scalar_resolved(intr->src[1].ssa, 1);
   WEFT_NIR_CHECK(s->ok, nir_src_is_const(intr->src[0]) && nir_src_as_uint(intr->src[0]) == 8192,
                  "row %u: the handle changed", s->rows);
   WEFT_NIR_CHECK(s->ok, nir_scalar_is_const(x) && nir_scalar_as_uint(x) == 12,
                  "row %u: x not 12", s->rows);
   WEFT_NIR_CHECK(s->ok, nir_scalar_is_const(y) && nir_scalar_as_uint(y) == 3 + s->rows,
                  "row %u: y not %u", s->rows, 3 + s->rows);
   s->rows++;
}

/* Row i of an image block access at (x, y + i), same x and handle. */
static void
check_image_rows(const char *name, enum what what, unsigned rows)
{
   nir_shader *nir = build(name, what, rows, 16);
   struct rows_seen s = { 0, true };

   weft_nir_lower_intel_subgroups(nir);
   nir_opt_constant_folding(nir);
   weft_nir_test_foreach_intrinsic(nir, check_image_row, &s);
   WEFT_NIR_CHECK(s.ok, s.rows == rows, "%u rows, want %u", s.rows, rows);
   weft_nir_test_report(s.ok, name);
   ralloc_free(nir);
}

int
main(void)
{
   weft_nir_test_begin();

   /* Vectors split per component; scalars are what the backend takes. */
   check("shuffle-down-vec4-u32", SHUFFLE_DOWN, 4, 32, (struct census){ .shuffles = 4 }, true);
   check("shuffle-up-vec16-u8", SHUFFLE_UP, 16, 8, (struct census){ .shuffles = 16 }, true);
   check("shuffle-up-vec3-u64", SHUFFLE_UP, 3, 64, (struct census){ .shuffles = 3 }, true);
   check("shuffle-down-scalar-untouched", SHUFFLE_DOWN, 1, 16,
         (struct census){ .shuffles = 1 }, false);
   /* N elements: N block accesses, rows 1 .. N-1 at multiples of the
    * maximum sub-group size. */
   check("global-read-8-u16", GLOBAL_READ, 8, 16,
         (struct census){ .global_blocks = 8, .max_size_loads = 7 }, true);
   check("global-read-16-u8", GLOBAL_READ, 16, 8,
         (struct census){ .global_blocks = 16, .max_size_loads = 15 }, true);
   check("global-write-2-u64", GLOBAL_WRITE, 2, 64,
         (struct census){ .global_blocks = 2, .max_size_loads = 1 }, true);
   check("global-write-4-u32", GLOBAL_WRITE, 4, 32,
         (struct census){ .global_blocks = 4, .max_size_loads = 3 }, true);
   check("global-read-1-untouched", GLOBAL_READ, 1, 32,
         (struct census){ .global_blocks = 1 }, false);
   /* Shared memory: one access per lane and element, at its lane. */
   check("shared-read-4-u32", SHARED_READ, 4, 32,
         (struct census){ .shared_accesses = 4, .lane_loads = 1, .max_size_loads = 4 }, true);
   check("shared-write-1-u16", SHARED_WRITE, 1, 16,
         (struct census){ .shared_accesses = 1, .lane_loads = 1, .max_size_loads = 1 }, true);
   /* Images: one ld.img / st.img per row. */
   check("image-read-8-u16", IMAGE_READ, 8, 16, (struct census){ .image_blocks = 8 }, true);
   check("image-write-4-u32", IMAGE_WRITE, 4, 32, (struct census){ .image_blocks = 4 }, true);
   check("image-read-16-u8", IMAGE_READ, 16, 8, (struct census){ .image_blocks = 16 }, true);
   check("image-write-1-untouched", IMAGE_WRITE, 1, 16, (struct census){ .image_blocks = 1 },
         false);
   check_image_rows("image-read-rows-at-y-plus-i", IMAGE_READ, 4);
   check_image_rows("image-write-rows-at-y-plus-i", IMAGE_WRITE, 8);

   return weft_nir_test_end();
}
