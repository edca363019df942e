/* SPDX-License-Identifier: MIT */
/*
 * Spilling to scratch: the unspilled value with the longest live range
 * gets a slot in the work-item's private memory; each definition goes to a
 * fresh temporary stored at once, each read loads into a fresh temporary.
 * Spill temporaries are never spilled again.
 */
#include "util/ralloc.h"
#include "util/macros.h"
#include "util/u_math.h"

#include "weft_ir.h"

/* Marks @v as not to be spilled (again); new entries start at 0. */
static void
weft_ir_spill_mark(struct weft_ir *ir, uint32_t v, uint8_t value)
{
   if (ir->spilled_cap < ir->vreg_cap) {
      ir->vreg_spilled = rerzalloc(ir, ir->vreg_spilled, uint8_t, ir->spilled_cap, ir->vreg_cap);
      ir->spilled_cap = ir->vreg_cap;
   }
   if (v)
      ir->vreg_spilled[v] = value;
}

/* The address of a spill access, in a fresh temporary never spilled: 0,
 * the slot being the access's offset. Inserted before or after @at. */
static uint32_t
weft_spill_base(struct weft_ir *ir, struct weft_ir_instr *at, bool after)
{
   uint32_t a = weft_ir_vreg(ir, 32);
   struct weft_ir_instr *M = weft_ir_emit_at(ir, at, after, WEFT_OP_MOV, WEFT_TYPE_U32);

   weft_ir_spill_mark(ir, a, 1);
   weft_ir_set(M, WEFT_IR_D, a);
   weft_ir_set_imm(M, 0);
   return a;
}

bool
weft_ir_spill(struct weft_ir *ir)
{
   unsigned n = ir->num_vregs + 1, best_len = 0;
   unsigned *first = ralloc_array(NULL, unsigned, n);
   unsigned *last = ralloc_array(first, unsigned, n);
   uint32_t best = 0;

   weft_ir_spill_mark(ir, 0, 0);
   weft_ir_live_ranges(ir, first, last);
   for (uint32_t v = 1; v < n; v++) {
      /* Vectors stay in registers: the compiler retries without them. */
      if (first[v] != ~0u && !ir->vreg_spilled[v] && !ir->vreg_vector[v] &&
          last[v] - first[v] > best_len) {
         best = v;
         best_len = last[v] - first[v];
      }
   }
   ralloc_free(first);
   if (!best)
      return false;

   unsigned size = ir->vreg_regs[best] * 4, slot = ALIGN(ir->scratch_size, size);
   unsigned t = size == 8 ? WEFT_TYPE_U64 : WEFT_TYPE_U32;

   ir->scratch_size = slot + size;
   weft_ir_spill_mark(ir, best, 1);
   list_for_each_entry_safe(struct weft_ir_instr, I, &ir->instrs, link) {
      bool reads = false, writes = false;

      weft_ir_foreach_reg(I, od, is_def) {
         if (I->vreg[od->field] != best)
            continue;
         if (is_def)
            writes = true;
         else
            reads = true;
      }
      if (reads) {
         uint32_t a = weft_spill_base(ir, I, false), tmp = weft_ir_vreg(ir, size * 8);
         struct weft_ir_instr *L = weft_ir_emit_at(ir, I, false, WEFT_OP_LD_SCRATCH, t);

         weft_ir_spill_mark(ir, tmp, 1);
         weft_ir_set(L, WEFT_IR_D, tmp);
         weft_ir_set(L, WEFT_IR_A, a);
         L->in.imm = slot;
         weft_ir_foreach_reg(I, od, is_def) {
            if (!is_def && I->vreg[od->field] == best)
               I->vreg[od->field] = tmp;
         }
      }
      if (writes) {
         /* The definition goes to a fresh single-assignment temporary: a
          * spilled variable (NIR register) no longer lives across loops. */
         struct weft_ir_instr *S = weft_ir_emit_at(ir, I, true, WEFT_OP_ST_SCRATCH, t);
         uint32_t a = weft_spill_base(ir, I, true), def = weft_ir_vreg(ir, size * 8);

         weft_ir_spill_mark(ir, def, 1);
         weft_ir_foreach_reg(I, od, is_def) {
            if (is_def && I->vreg[od->field] == best)
               I->vreg[od->field] = def;
         }
         weft_ir_set(S, WEFT_IR_A, a);
         weft_ir_set(S, WEFT_IR_D, def);
         S->in.imm = slot;
      }
   }
   return true;
}
