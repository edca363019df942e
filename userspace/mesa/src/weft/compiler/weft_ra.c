/* SPDX-License-Identifier: MIT */
/*
 * Linear-scan register allocation of the structured program: a value
 * lives from its definition to its last use, and across a whole loop when
 * it is live across part of it; a 64-bit value takes an even register
 * pair, a vector (weft_opt_vectorize.c) as many consecutive registers as
 * it has, aligned to their number, its parts in them. A destination never shares a register with a source of the same
 * instruction. Fails (false) when more than the allowed registers are live
 * at once: the caller spills (weft_spill.c) and allocates again.
 */
#include <string.h>

#include "util/ralloc.h"
#include "util/macros.h"

#include "weft_ir.h"

static bool
weft_ir_instr_reads(const struct weft_ir *ir, struct weft_ir_instr *I, uint32_t v)
{
   for (unsigned f = 0; f < WEFT_IR_NUM_FIELDS; f++) {
      if (I->vreg[f] && weft_ir_vreg_alloc(ir, I->vreg[f]) == v)
         return true;
   }
   return false;
}

bool
weft_ir_ra(struct weft_ir *ir)
{
   unsigned n = ir->num_vregs + 1, idx = 0, count = list_length(&ir->instrs);
   unsigned *first = ralloc_array(NULL, unsigned, n);
   unsigned *last = ralloc_array(first, unsigned, n);
   uint16_t *phys = rzalloc_array(first, uint16_t, n);
   unsigned *loop_end = rzalloc_array(first, unsigned, count + 1);
   unsigned *stack = rzalloc_array(first, unsigned, count + 1), sp = 0;
   bool busy[WEFT_NUM_REGS] = {0};
   bool *live = rzalloc_array(first, bool, n);
   bool ok = true;

   weft_ir_live_ranges(ir, first, last);
   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      if (I->in.op == WEFT_OP_LOOP)
         stack[sp++] = idx;
      else if (I->in.op == WEFT_OP_ENDLOOP && sp)
         loop_end[stack[--sp]] = idx;
      idx++;
   }
   /* A value live across part of a loop is live in all of it: the loop
    * repeats, and lanes that left it keep their registers. */
   for (bool changed = true; changed;) {
      changed = false;
      for (unsigned l = 0; l < count; l++) {
         if (!loop_end[l])
            continue;
         for (uint32_t v = 1; v < n; v++) {
            if (first[v] == ~0u)
               continue;
            bool inside = last[v] >= l && first[v] <= loop_end[l];
            bool crosses = first[v] < l || last[v] > loop_end[l] || ir->vreg_multi[v];
            if (inside && crosses && (first[v] > l || last[v] < loop_end[l])) {
               first[v] = MIN2(first[v], l);
               last[v] = MAX2(last[v], loop_end[l]);
               changed = true;
            }
         }
      }
   }

   /* The values whose live range ends at each instruction, so that the
    * allocation below stays linear in the program's size: a kernel of
    * tens of thousands of values is allocated again after every spill. */
   unsigned *dies_first = ralloc_array(first, unsigned, count + 1);
   unsigned *dies_next = ralloc_array(first, unsigned, n);

   memset(dies_first, 0xff, (count + 1) * sizeof(*dies_first));
   for (uint32_t v = n - 1; v >= 1; v--) {
      if (first[v] == ~0u)
         continue;
      dies_next[v] = dies_first[last[v]];
      dies_first[last[v]] = v;
   }

   idx = 0;
   ir->num_regs = 0;
   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      uint32_t dying[WEFT_IR_NUM_FIELDS];
      unsigned ndying = 0;

      weft_ir_foreach_reg(I, od, is_def) {
         uint32_t part = I->vreg[od->field], v = weft_ir_vreg_alloc(ir, part);

         if (!live[v]) {
            unsigned size = ir->vreg_regs[v], r;

            unsigned max = ir->max_regs ? MIN2(ir->max_regs, WEFT_NUM_REGS) : WEFT_NUM_REGS;

            for (r = 0; r + size <= max; r += size) {
               unsigned free = 0;

               while (free < size && !busy[r + free])
                  free++;
               if (free == size)
                  break;
            }
            if (r + size > max) {
               if (!ir->ra_quiet)
                  fprintf(stderr, "weft: out of registers\n");
               ok = false;
               goto out;
            }
            phys[v] = r;
            live[v] = true;
            for (unsigned i = 0; i < size; i++)
               busy[r + i] = true;
            ir->num_regs = MAX2(ir->num_regs, r + size);
         }
         if (last[v] == idx && (!ndying || dying[ndying - 1] != v))
            dying[ndying++] = v;
         *weft_ir_field_ptr(&I->in, od->field) = phys[v] + (part != v ? ir->vreg_offset[part] : 0);
      }
      for (unsigned i = 0; i < ndying; i++) {
         for (unsigned j = 0; j < ir->vreg_regs[dying[i]]; j++)
            busy[phys[dying[i]] + j] = false;
      }
      /* Loop-extended values die at the endloop, with no operand there. */
      for (uint32_t v = dies_first[idx]; v != ~0u; v = dies_next[v]) {
         if (live[v] && !weft_ir_instr_reads(ir, I, v)) {
            for (unsigned j = 0; j < ir->vreg_regs[v]; j++)
               busy[phys[v] + j] = false;
         }
      }
      idx++;
   }
   ir->allocated = true;
out:
   ralloc_free(first);
   return ok;
}
