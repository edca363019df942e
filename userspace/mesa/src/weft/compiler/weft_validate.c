/* SPDX-License-Identifier: MIT */
/*
 * Validation of weft IR, run after every stage of the backend: opcodes the
 * ISA table defines, every register operand a vreg of the operand's size
 * defined before it is read (single assignment except for NIR registers),
 * (vectors and their parts included), no vreg in a field that is no
 * register operand, balanced structured
 * control flow with resolved targets, END last; once allocated, every
 * instruction must encode.
 */
#include "util/ralloc.h"

#include "weft_ir.h"

bool
weft_ir_validate(struct weft_ir *ir, const char *when)
{
   uint8_t *defined = rzalloc_array(NULL, uint8_t, ir->num_vregs + 1);
   bool ok = true;
   unsigned idx = 0;

#define FAIL(...)                                                              \
   do {                                                                        \
      fprintf(stderr, "weft: invalid IR %s, instruction %u: ", when, idx);     \
      fprintf(stderr, __VA_ARGS__);                                            \
      fprintf(stderr, "\n");                                                   \
      ok = false;                                                              \
   } while (0)

   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      const struct weft_op_info *oi = &weft_isa_ops[I->in.op];
      bool used[WEFT_IR_NUM_FIELDS] = {0};

      if (I->in.op >= WEFT_ISA_OPCODE_COUNT || !oi->name) {
         FAIL("undefined opcode 0x%x", I->in.op);
         idx++;
         continue;
      }
      weft_ir_foreach_reg(I, od, is_def) {
         unsigned bits = weft_isa_type_bits(weft_isa_opnd_type(&I->in, od));
         uint32_t v = I->vreg[od->field];

         used[od->field] = true;
         if (ir->allocated)
            continue;
         if (!v || v > ir->num_vregs) {
            FAIL("%s: operand %u has no virtual register", oi->name, _i);
            continue;
         }
         unsigned regs = weft_ir_operand_regs(&I->in, od, bits == 64 ? 2 : 1);
         uint32_t vector = ir->vreg_vector[v];

         if (ir->vreg_regs[v] != regs)
            FAIL("%s: v%u has %u registers, the operand takes %u", oi->name, v,
                 ir->vreg_regs[v], regs);
         if (vector && ir->vreg_offset[v] + ir->vreg_regs[v] > ir->vreg_regs[vector])
            FAIL("%s: v%u lies outside its vector v%u", oi->name, v, vector);
         /* A vector is defined whole (a vector load) or by its parts. */
         if (ir->vreg_multi[v]) {
            defined[v] = 1;
         } else if (is_def) {
            if (defined[v] && vector != v)
               FAIL("%s: v%u defined twice", oi->name, v);
            defined[v] = 1;
            if (vector)
               defined[vector] = 1;
         } else if (!defined[v] && !(vector && defined[vector])) {
            FAIL("%s: v%u used before its definition", oi->name, v);
         }
      }
      for (unsigned f = 0; f < WEFT_IR_NUM_FIELDS; f++) {
         if (!used[f] && I->vreg[f])
            FAIL("%s: field %u holds v%u but is no register operand", oi->name, f,
                 I->vreg[f]);
      }
      if (ir->allocated) {
         uint64_t words[2];
         int err = weft_isa_encode(&I->in, words);

         if (err < 0)
            FAIL("%s: does not encode: %s", oi->name, weft_isa_dec_error(err));
      }
      idx++;
   }
   {
      int depth = 0;
      list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
         if (I->in.op == WEFT_OP_IF || I->in.op == WEFT_OP_LOOP)
            depth++;
         else if (I->in.op == WEFT_OP_ENDIF || I->in.op == WEFT_OP_ENDLOOP)
            depth--;
         if (weft_ir_op_has_target(I->in.op) && !I->target)
            FAIL("%s without a target", weft_isa_ops[I->in.op].name);
         if (depth < 0)
            FAIL("unbalanced control flow");
      }
      if (depth)
         FAIL("unclosed if or loop");
   }
   if (list_is_empty(&ir->instrs) ||
       list_last_entry(&ir->instrs, struct weft_ir_instr, link)->in.op != WEFT_OP_END) {
      FAIL("the program does not end with end");
   }
   ralloc_free(defined);
   return ok;
#undef FAIL
}
