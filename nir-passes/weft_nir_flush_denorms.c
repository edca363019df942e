/* SPDX-License-Identifier: MIT */
/*
 * -cl-denorms-are-zero on the weft backend, as a nir_shader_alu_pass
 * callback.  The ALU never flushes denormals (execution.rst, "Floats"), so
 * a shader whose float controls flush 32-bit denormals (Rusticl translates
 * a program built with that option so, Mesa patch 0197) gets every 32-bit
 * float result that can be a denormal replaced by a zero of its sign.
 *
 * Operands are not flushed: every 32-bit float value the kernel computes
 * is a flushed result already, and the option only allows a flush, so a
 * denormal read from memory may still scale to a normal result.  fneg and
 * fabs only change a sign, so their operand's flush stands for them.  NaN
 * and infinities go through unchanged.
 */
#include <float.h>

#include "compiler/nir/nir_builder.h"

#include "weft_nir_passes.h"

static bool
flush_result(nir_builder *b, nir_alu_instr *alu, UNUSED void *data)
{
   nir_def *r = &alu->def;

   if (r->bit_size != 32 ||
       nir_alu_type_get_base_type(nir_op_infos[alu->op].output_type) != nir_type_float ||
       alu->op == nir_op_fneg || alu->op == nir_op_fabs)
      return false;

   /* What this adds is no float result (flt, iand, bcsel), so the pass
    * does not visit it again. */
   b->cursor = nir_after_instr(&alu->instr);
   nir_def *min_normal = nir_replicate(b, nir_imm_float(b, FLT_MIN), r->num_components);
   nir_def *tiny = nir_flt(b, nir_fabs(b, r), min_normal);
   nir_def *signed_zero = nir_iand_imm(b, r, 0x80000000u);
   nir_def *flushed = nir_bcsel(b, tiny, signed_zero, r);
   nir_def_rewrite_uses_after(r, flushed, flushed->parent_instr);
   return true;
}

bool
weft_nir_flush_denorms(nir_shader *nir)
{
   if (!nir_is_denorm_flush_to_zero(nir->info.float_controls_execution_mode, 32))
      return false;
   return nir_shader_alu_pass(nir, flush_result, nir_metadata_control_flow, NULL);
}
