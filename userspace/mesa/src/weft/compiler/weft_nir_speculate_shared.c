/* SPDX-License-Identifier: MIT */
/*
 * Small diamonds around a local memory load, as Hillis-Steele scans write
 * them (v = l >= d ? t[l - d] : 0), become straight-line code: the load
 * runs in every lane, from its own address where the condition holds and
 * from the start of the work-group's local memory where it does not, and
 * nir_opt_peephole_select then turns the phis into selects.
 *
 * On Weft a branch whose condition differs between lanes ends the
 * translated block at the if, the else and the endif, each with its lane
 * mask (execution.rst, "The translator"); a local load costs a few
 * instructions per lane either way. The load is only moved when the
 * kernel's own local memory (its __local variables) holds the load at
 * offset 0: the dispatch's SLM is at least that, so a lane that would not
 * have loaded reads its work-group's first bytes, never faults, and its
 * value is dropped by the select.
 */
#include "compiler/nir/nir_builder.h"

#include "weft_nir.h"

/* Instructions of a branch moved at most: what nir_opt_peephole_select
 * turns into selects anyway is ALU, a load is a few more. */
#define WEFT_SPECULATE_MAX_INSTRS 8

/* Whether every instruction of the branch's one block may run in every
 * lane: ALU, constants, and local loads the kernel's local memory holds
 * at offset 0. */
static bool
weft_branch_can_speculate(const nir_shader *nir, nir_block *block, unsigned *loads)
{
   unsigned count = 0;

   nir_foreach_instr(instr, block) {
      if (++count > WEFT_SPECULATE_MAX_INSTRS)
         return false;
      switch (instr->type) {
      case nir_instr_type_alu:
      case nir_instr_type_load_const:
      case nir_instr_type_undef:
         break;
      case nir_instr_type_intrinsic: {
         nir_intrinsic_instr *intr = nir_instr_as_intrinsic(instr);

         if (intr->intrinsic != nir_intrinsic_load_shared ||
             intr->def.num_components * intr->def.bit_size / 8 > nir->info.shared_size)
            return false;
         (*loads)++;
         break;
      }
      default:
         return false;
      }
   }
   return true;
}

/* Moves the branch's instructions before @nif, each local load's offset
 * replaced by one that makes its address 0 where @taken is false. */
static void
weft_speculate_branch(nir_builder *b, nir_if *nif, nir_block *block, nir_def *taken)
{
   nir_foreach_instr_safe(instr, block) {
      nir_instr_move(nir_before_cf_node(&nif->cf_node), instr);
      if (instr->type != nir_instr_type_intrinsic)
         continue;
      nir_intrinsic_instr *load = nir_instr_as_intrinsic(instr);
      nir_def *offset = load->src[0].ssa;

      b->cursor = nir_before_instr(instr);
      /* The address is offset + base: 0 - base (modulo 2^32) makes it 0. */
      nir_def *start = nir_imm_intN_t(b, -(int64_t)nir_intrinsic_base(load), offset->bit_size);
      nir_src_rewrite(&load->src[0], nir_bcsel(b, taken, offset, start));
   }
}

static bool
weft_speculate_if(nir_builder *b, nir_if *nif)
{
   nir_block *then_block = nir_if_first_then_block(nif);
   nir_block *else_block = nir_if_first_else_block(nif);
   unsigned loads = 0;

   if (then_block != nir_if_last_then_block(nif) || else_block != nir_if_last_else_block(nif))
      return false;
   if (!weft_branch_can_speculate(b->shader, then_block, &loads) ||
       !weft_branch_can_speculate(b->shader, else_block, &loads) || !loads)
      return false;

   b->cursor = nir_before_cf_node(&nif->cf_node);
   nir_def *cond = nif->condition.ssa;
   weft_speculate_branch(b, nif, then_block, cond);
   weft_speculate_branch(b, nif, else_block, nir_inot(b, cond));
   return true;
}

bool
weft_nir_speculate_shared_loads(nir_shader *nir)
{
   bool progress = false;

   if (!nir->info.shared_size)
      return false;
   nir_foreach_function_impl(impl, nir) {
      nir_builder b = nir_builder_create(impl);
      bool impl_progress = false;

      nir_foreach_block(block, impl) {
         nir_cf_node *next = nir_cf_node_next(&block->cf_node);

         if (next && next->type == nir_cf_node_if)
            impl_progress |= weft_speculate_if(&b, nir_cf_node_as_if(next));
      }
      nir_metadata_preserve(impl, impl_progress ? nir_metadata_control_flow : nir_metadata_all);
      progress |= impl_progress;
   }
   return progress;
}
