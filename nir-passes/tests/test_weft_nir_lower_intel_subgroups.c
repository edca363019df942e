/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of weft_nir_lower_intel_subgroups: build a kernel with
 * nir_builder, run the pass, check the NIR it leaves.  (What the lowered
 * code computes is checked on the device model by the OpenCL conformance
 * suite, tests/conformance.)
 */
#include <stdio.h>

#include "compiler/glsl_types.h"
#include "compiler/nir/nir_builder.h"

#include "weft_nir_passes.h"

static int passed, failed;

static const nir_shader_compiler_options options = {
   .has_intel_subgroups = true,
};

struct census {
   unsigned shuffles, vector_shuffles;  /* shuffle_up/down_intel */
   unsigned global_blocks, vector_global_blocks;
   unsigned shared_blocks;
   unsigned shared_accesses, lane_loads, max_size_loads;
};

static struct census
count(nir_shader *nir)
{
   struct census c = { 0 };

   nir_foreach_function_impl(impl, nir) {
      nir_foreach_block(block, impl) {
         nir_foreach_instr(instr, block) {
            if (instr->type != nir_instr_type_intrinsic)
               continue;
            nir_intrinsic_instr *intr = nir_instr_as_intrinsic(instr);
            bool store = nir_intrinsic_infos[intr->intrinsic].has_dest == false;
            unsigned comps = store ? nir_src_num_components(intr->src[0]) : intr->def.num_components;

            switch (intr->intrinsic) {
            case nir_intrinsic_shuffle_up_intel:
            case nir_intrinsic_shuffle_down_intel:
               c.shuffles++;
               c.vector_shuffles += comps > 1;
               break;
            case nir_intrinsic_load_global_block_intel:
            case nir_intrinsic_store_global_block_intel:
               c.global_blocks++;
               c.vector_global_blocks += comps > 1;
               break;
            case nir_intrinsic_load_shared_block_intel:
            case nir_intrinsic_store_shared_block_intel:
               c.shared_blocks++;
               break;
            case nir_intrinsic_load_shared:
            case nir_intrinsic_store_shared:
               c.shared_accesses++;
               break;
            case nir_intrinsic_load_subgroup_invocation: c.lane_loads++; break;
            case nir_intrinsic_load_max_subgroup_size: c.max_size_loads++; break;
            default:
               break;
            }
         }
      }
   }
   return c;
}

/* What one test puts in its kernel: @comps components of @bits bits. */
enum what { SHUFFLE_UP, SHUFFLE_DOWN, GLOBAL_READ, GLOBAL_WRITE, SHARED_READ, SHARED_WRITE };

static nir_shader *
build(const char *name, enum what what, unsigned comps, unsigned bits)
{
   nir_builder b = nir_builder_init_simple_shader(MESA_SHADER_KERNEL, &options, "%s", name);
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
#undef FIELD
   if (progress != want_progress) {
      printf("        progress %d, want %d\n", progress, want_progress);
      ok = false;
   }
   printf("%-7s %s\n", ok ? "ok" : "FAILED", name);
   if (ok)
      passed++;
   else
      failed++;
   ralloc_free(nir);
}

int
main(void)
{
   glsl_type_singleton_init_or_ref();

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

   glsl_type_singleton_decref();
   printf("%d passed, %d failed\n", passed, failed);
   return failed ? 1 : 0;
}
