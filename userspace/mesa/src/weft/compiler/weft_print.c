/* SPDX-License-Identifier: MIT */
/*
 * Printing weft IR: before register allocation, virtual registers (v1,
 * [v2+8], immediates and literals); after it, the disassembler's syntax.
 */
#include <inttypes.h>

#include "weft_ir.h"

void
weft_ir_print(struct weft_ir *ir, FILE *fp)
{
   char buf[256];

   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      const struct weft_op_info *oi = &weft_isa_ops[I->in.op];

      if (ir->allocated) {
         weft_isa_print(&I->in, buf, sizeof(buf));
         fprintf(fp, "   %s\n", buf);
         continue;
      }
      fprintf(fp, "   %s", oi->name ? oi->name : "???");
      if (oi->types)
         fprintf(fp, ".%s", weft_isa_types[I->in.t].name);
      if (oi->types2)
         fprintf(fp, ".%s", weft_isa_types[I->in.t2].name);
      for (unsigned i = 0; i < oi->nopnd; i++) {
         const struct weft_operand_desc *od = &oi->opnd[i];

         fprintf(fp, i ? ", " : " ");
         switch (od->role) {
         case WEFT_ROLE_SREG:
            fprintf(fp, "sr.%s", weft_isa_sregs[I->in.mod].name);
            break;
         case WEFT_ROLE_MEM:
            fprintf(fp, "[v%u+%d]", I->vreg[od->field], (int32_t)I->in.imm);
            break;
         case WEFT_ROLE_SRCI:
            if (I->in.has_lit) {
               fprintf(fp, "0x%016" PRIx64, I->in.lit);
               break;
            } else if (I->in.has_imm) {
               fprintf(fp, "0x%x", I->in.imm);
               break;
            }
            __attribute__((fallthrough));
         default:
            fprintf(fp, "v%u", I->vreg[od->field]);
         }
      }
      fprintf(fp, "\n");
   }
}
