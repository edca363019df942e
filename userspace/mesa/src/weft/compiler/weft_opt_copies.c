/* SPDX-License-Identifier: MIT */
/*
 * Copies of values written more than once (NIR registers: the phis of
 * if/else and loops), which copy propagation (weft_opt_cse.c) leaves
 * alone: a mov into such a value right after the only definition of its
 * source, which nothing else reads, goes and the definition writes the
 * value itself; a mov out of one whose copy the next instruction alone
 * reads goes and that instruction reads the value. With nothing in
 * between, the value and the copy hold the same lanes (both write the
 * active lanes of the same mask), so the program computes the same.
 */
#include "util/ralloc.h"

#include "weft_ir.h"

/* A mov of a register of its own size, neither a vector nor a part. */
static bool
weft_is_plain_copy(const struct weft_ir *ir, const struct weft_ir_instr *I)
{
   uint32_t d = I->vreg[WEFT_IR_D], s = I->vreg[WEFT_IR_B];

   return I->in.op == WEFT_OP_MOV && !I->in.has_imm && !I->in.has_lit && d && s &&
          !weft_ir_vreg_is_part(ir, d) && !weft_ir_vreg_is_part(ir, s) &&
          ir->vreg_regs[d] == ir->vreg_regs[s];
}

/* Whether @I writes @v. */
static bool
weft_defines(const struct weft_ir_instr *I, uint32_t v)
{
   weft_ir_foreach_reg(I, od, is_def) {
      if (is_def && I->vreg[od->field] == v)
         return true;
   }
   return false;
}

/* Replaces @I's reads of @from by @to; whether it read @from. */
static bool
weft_replace_reads(struct weft_ir_instr *I, uint32_t from, uint32_t to)
{
   bool read = false;

   weft_ir_foreach_reg(I, od, is_def) {
      if (!is_def && I->vreg[od->field] == from) {
         I->vreg[od->field] = to;
         read = true;
      }
   }
   return read;
}

bool
weft_ir_opt_coalesce_copies(struct weft_ir *ir)
{
   unsigned *reads = rzalloc_array(NULL, unsigned, ir->num_vregs + 1);
   bool progress = false;

   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      weft_ir_foreach_reg(I, od, is_def) {
         if (!is_def)
            reads[I->vreg[od->field]]++;
      }
   }
   list_for_each_entry_safe(struct weft_ir_instr, I, &ir->instrs, link) {
      uint32_t d = I->vreg[WEFT_IR_D], s = I->vreg[WEFT_IR_B];
      struct weft_ir_instr *P = I->link.prev != &ir->instrs
                                   ? list_entry(I->link.prev, struct weft_ir_instr, link) : NULL;
      struct weft_ir_instr *N = I->link.next != &ir->instrs
                                   ? list_entry(I->link.next, struct weft_ir_instr, link) : NULL;

      if (!weft_is_plain_copy(ir, I) || (!ir->vreg_multi[d] && !ir->vreg_multi[s]))
         continue;
      if (!ir->vreg_multi[s] && reads[s] == 1 && P && weft_defines(P, s)) {
         weft_ir_foreach_reg(P, od, is_def) {
            if (is_def && P->vreg[od->field] == s)
               P->vreg[od->field] = d;
         }
      } else if (!ir->vreg_multi[d] && reads[d] == 1 && N && !weft_defines(N, d) &&
                 weft_replace_reads(N, d, s)) {
         reads[s]++;
      } else {
         continue;
      }
      list_del(&I->link);
      progress = true;
   }
   ralloc_free(reads);
   return progress;
}
