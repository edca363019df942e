/* SPDX-License-Identifier: MIT */
/*
 * Immediate offsets folded into addresses: a memory access at [d+off] where
 * d = a + imm (one definition, a register plus an immediate) becomes
 * [a+off+imm] while the sum fits the access's signed 32-bit offset. NIR
 * splits a vector access into one access per component, each after its own
 * address add; folded, they share one base and the adds die (DCE).
 */
#include "util/ralloc.h"

#include "weft_ir.h"

/* The field of @I's [rA+imm] operand, or -1. */
static int
weft_mem_field(const struct weft_ir_instr *I)
{
   const struct weft_op_info *oi = &weft_isa_ops[I->in.op];

   for (unsigned i = 0; i < oi->nopnd; i++) {
      if (oi->opnd[i].role == WEFT_ROLE_MEM)
         return oi->opnd[i].field;
   }
   return -1;
}

/* The immediate @I adds to its register, if it is such an add (as the
 * hardware extends it: by the type's signedness). */
static bool
weft_add_imm(const struct weft_ir_instr *I, int64_t *imm)
{
   unsigned bits = weft_isa_type_bits(I->in.t);

   if (I->in.op != WEFT_OP_ADD || !I->vreg[WEFT_IR_A] || (bits != 32 && bits != 64))
      return false;
   if (I->in.has_lit)
      *imm = (int64_t)I->in.lit;
   else if (I->in.has_imm)
      *imm = weft_isa_types[I->in.t].kind == 's' ? (int64_t)(int32_t)I->in.imm
                                                  : (int64_t)I->in.imm;
   else
      return false;
   /* A 32-bit address wraps at 4 GiB: only offsets that cannot wrap. */
   return bits == 64 || (*imm >= 0 && *imm <= INT32_MAX);
}

bool
weft_ir_opt_fold_offsets(struct weft_ir *ir)
{
   struct weft_ir_instr **def = rzalloc_array(NULL, struct weft_ir_instr *, ir->num_vregs + 1);
   bool progress = false;

   /* The single definition of each value (vregs written once). */
   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      weft_ir_foreach_reg(I, od, is_def) {
         uint32_t d = I->vreg[od->field];

         if (is_def && d && !ir->vreg_multi[d])
            def[d] = I;
      }
   }
   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      int f = weft_mem_field(I);
      struct weft_ir_instr *A;
      int64_t imm;

      /* Down a chain of adds as far as the offset stays in range. */
      while (f >= 0 && (A = def[I->vreg[f]]) && weft_add_imm(A, &imm) &&
             !ir->vreg_multi[A->vreg[WEFT_IR_A]]) {
         int64_t off = (int64_t)(int32_t)I->in.imm + imm;

         if (off < INT32_MIN || off > INT32_MAX)
            break;
         I->vreg[f] = A->vreg[WEFT_IR_A];
         I->in.imm = (uint32_t)(int32_t)off;
         progress = true;
      }
   }
   ralloc_free(def);
   return progress;
}
