/* SPDX-License-Identifier: MIT */
/*
 * SPV_INTEL_subgroups (cl_intel_subgroups and its short, char and long
 * siblings) onto what the weft backend emits, as a
 * nir_shader_intrinsics_pass callback:
 *
 * - shuffle_up_intel / shuffle_down_intel on vectors: one per component
 *   (the ISA's shfl.up2 / shfl.down2 move one register); the common
 *   nir_lower_subgroups does not know these two.
 * - load/store_global_block_intel of N elements: N one-element block
 *   accesses, element i at base + i * max sub-group size * element size,
 *   each the ISA's ld.block / st.block (their multi-register forms would
 *   need register groups the allocator does not make).
 * - load/store_shared_block_intel (SPIR-V's block I/O on Workgroup
 *   pointers): the ISA has no SLM block instruction, so each lane accesses
 *   its own element i at base + (i * max sub-group size + lane) * size.
 * - bindless_image_load/store_block_intel of N rows (after
 *   weft_nir_lower_images): N one-row accesses, row i at (x, y + i), each
 *   the ISA's ld.img / st.img.
 *
 * The layout is the specification's: element i of sub-group local id l is
 * p[l + i * max_sub_group_size], also in a partial sub-group.  A block
 * write writes every element (nir_lower_explicit_io leaves its write mask
 * 0).
 */
#include "compiler/nir/nir_builder.h"

#include "weft_nir_passes.h"

static nir_def *
element_offset(nir_builder *b, unsigned i, unsigned bytes, nir_def *lane)
{
   nir_def *row = nir_imul_imm(b, nir_load_max_subgroup_size(b), i);

   if (lane)
      row = nir_iadd(b, row, lane);
   return nir_imul_imm(b, row, bytes);
}

static bool
lower_shuffle(nir_builder *b, nir_intrinsic_instr *intr)
{
   nir_def *first = intr->src[0].ssa, *second = intr->src[1].ssa, *delta = intr->src[2].ssa;
   nir_def *comps[NIR_MAX_VEC_COMPONENTS];

   if (intr->def.num_components == 1)
      return false;
   for (unsigned c = 0; c < intr->def.num_components; c++) {
      nir_def *x = nir_channel(b, first, c), *y = nir_channel(b, second, c);

      comps[c] = intr->intrinsic == nir_intrinsic_shuffle_up_intel ?
                 nir_shuffle_up_intel(b, x, y, delta) : nir_shuffle_down_intel(b, x, y, delta);
   }
   nir_def_replace(&intr->def, nir_vec(b, comps, intr->def.num_components));
   return true;
}

/* Global: one block access per element; shared: one access per lane and
 * element, at the lane's own place in the block. */
static bool
lower_block(nir_builder *b, nir_intrinsic_instr *intr, bool shared)
{
   bool store = !nir_intrinsic_infos[intr->intrinsic].has_dest;
   nir_def *data = store ? intr->src[0].ssa : NULL;
   nir_def *base = intr->src[store ? 1 : 0].ssa;
   unsigned n = store ? data->num_components : intr->def.num_components;
   unsigned bits = store ? data->bit_size : intr->def.bit_size;
   nir_def *lane = shared ? nir_load_subgroup_invocation(b) : NULL;
   nir_def *comps[NIR_MAX_VEC_COMPONENTS];

   if (n == 1 && !shared)
      return false;
   for (unsigned i = 0; i < n; i++) {
      nir_def *a = i || shared ? nir_iadd(b, base, nir_u2uN(b, element_offset(b, i, bits / 8, lane),
                                                            base->bit_size)) : base;
      nir_def *value = store ? nir_channel(b, data, i) : NULL;

      if (shared && store)
         nir_store_shared(b, value, a, .base = nir_intrinsic_base(intr), .align_mul = bits / 8);
      else if (shared)
         comps[i] = nir_load_shared(b, 1, bits, a, .base = nir_intrinsic_base(intr),
                                    .align_mul = bits / 8);
      else if (store)
         nir_store_global_block_intel(b, value, a, .access = nir_intrinsic_access(intr));
      else
         comps[i] = nir_load_global_block_intel(b, 1, bits, a, .access = nir_intrinsic_access(intr));
   }
   if (store)
      nir_instr_remove(&intr->instr);
   else
      nir_def_replace(&intr->def, nir_vec(b, comps, n));
   return true;
}

static bool
lower_image_block(nir_builder *b, nir_intrinsic_instr *intr)
{
   bool store = intr->intrinsic == nir_intrinsic_bindless_image_store_block_intel;
   nir_def *data = store ? intr->src[2].ssa : NULL;
   nir_def *handle = intr->src[0].ssa, *coord = intr->src[1].ssa;
   unsigned rows = store ? data->num_components : intr->def.num_components;
   unsigned bits = store ? data->bit_size : intr->def.bit_size;
   nir_def *comps[NIR_MAX_VEC_COMPONENTS];

   if (rows == 1)
      return false;
   for (unsigned i = 0; i < rows; i++) {
      nir_def *row = i ? nir_vec2(b, nir_channel(b, coord, 0),
                                  nir_iadd_imm(b, nir_channel(b, coord, 1), i)) : coord;

      if (store)
         nir_bindless_image_store_block_intel(b, handle, row, nir_channel(b, data, i),
                                              .image_dim = GLSL_SAMPLER_DIM_2D,
                                              .access = nir_intrinsic_access(intr));
      else
         comps[i] = nir_bindless_image_load_block_intel(b, 1, bits, handle, row,
                                                        .image_dim = GLSL_SAMPLER_DIM_2D,
                                                        .access = nir_intrinsic_access(intr));
   }
   if (store)
      nir_instr_remove(&intr->instr);
   else
      nir_def_replace(&intr->def, nir_vec(b, comps, rows));
   return true;
}

static bool
lower_intel_subgroups(nir_builder *b, nir_intrinsic_instr *intr, void *data)
{
   b->cursor = nir_before_instr(&intr->instr);

   switch (intr->intrinsic) {
   case nir_intrinsic_shuffle_up_intel:
   case nir_intrinsic_shuffle_down_intel:
      return lower_shuffle(b, intr);
   case nir_intrinsic_load_global_block_intel:
   case nir_intrinsic_store_global_block_intel:
      return lower_block(b, intr, false);
   case nir_intrinsic_load_shared_block_intel:
   case nir_intrinsic_store_shared_block_intel:
      return lower_block(b, intr, true);
   case nir_intrinsic_bindless_image_load_block_intel:
   case nir_intrinsic_bindless_image_store_block_intel:
      return lower_image_block(b, intr);
   default:
      return false;
   }
}

bool
weft_nir_lower_intel_subgroups(nir_shader *nir)
{
   return nir_shader_intrinsics_pass(nir, lower_intel_subgroups, nir_metadata_control_flow, NULL);
}
