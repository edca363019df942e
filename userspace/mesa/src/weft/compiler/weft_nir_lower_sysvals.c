/* SPDX-License-Identifier: MIT */
/*
 * Lowers the system values the hardware has no special register for into
 * ones it has, as nir_shader_intrinsics_pass callbacks:
 *
 * - load_global_invocation_id_zero_base / load_global_invocation_id:
 *   kept (sr.global_id, the DISPATCH carries no offset: Rusticl adds its
 *   own base from the kernel input);
 * - load_local_invocation_index: kept (sr.local_linear_id);
 * - load_workgroup_size, load_enqueued_workgroup_size: kept (sr.local_size,
 *   smaller in a remainder work-group, and sr.enqueued_local_size), the
 *   enqueued size a constant when the kernel fixes it;
 * - load_num_enqueued_subgroups: the enqueued size over the SIMD width,
 *   rounded up.
 */
#include "compiler/nir/nir_builder.h"

#include "weft_nir.h"

static bool
weft_lower_sysval(nir_builder *b, nir_intrinsic_instr *intr, void *data)
{
   b->cursor = nir_before_instr(&intr->instr);

   switch (intr->intrinsic) {
   case nir_intrinsic_load_enqueued_workgroup_size:
      if (b->shader->info.workgroup_size_variable)
         return false;
      {
         nir_def *v = nir_imm_ivec3(b, b->shader->info.workgroup_size[0],
                                    b->shader->info.workgroup_size[1],
                                    b->shader->info.workgroup_size[2]);
         nir_def_replace(&intr->def, nir_u2uN(b, v, intr->def.bit_size));
      }
      return true;
   case nir_intrinsic_load_num_enqueued_subgroups: {
      nir_def *size = nir_load_enqueued_workgroup_size(b);
      nir_def *items = nir_imul(b, nir_imul(b, nir_channel(b, size, 0), nir_channel(b, size, 1)),
                                nir_channel(b, size, 2));
      nir_def *simd = nir_load_max_subgroup_size(b);
      nir_def *n = nir_udiv(b, nir_iadd(b, items, nir_iadd_imm(b, simd, -1)), simd);
      nir_def_replace(&intr->def, nir_u2uN(b, n, intr->def.bit_size));
      return true;
   }
   default:
      return false;
   }
}

bool
weft_nir_lower_sysvals(nir_shader *nir)
{
   return nir_shader_intrinsics_pass(nir, weft_lower_sysval, nir_metadata_control_flow,
                                     NULL);
}
