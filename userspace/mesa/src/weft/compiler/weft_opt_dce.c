/* SPDX-License-Identifier: MIT */
/*
 * Dead-code elimination: an instruction without side effects whose
 * destination nobody reads goes, until nothing more goes.
 */
#include "util/ralloc.h"

#include "weft_ir.h"

bool
weft_ir_opt_dce(struct weft_ir *ir)
{
   bool progress = false, again = true;

   while (again) {
      uint8_t *read = rzalloc_array(NULL, uint8_t, ir->num_vregs + 1);

      again = false;
      list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
         weft_ir_foreach_reg(I, od, is_def) {
            if (!is_def)
               read[weft_ir_vreg_alloc(ir, I->vreg[od->field])] = read[I->vreg[od->field]] = 1;
         }
      }
      list_for_each_entry_safe(struct weft_ir_instr, I, &ir->instrs, link) {
         uint32_t d = I->vreg[WEFT_IR_D];

         /* A part of a vector lives while its vector is read. */
         if (!weft_ir_has_side_effects(I) && !read[d] && !read[weft_ir_vreg_alloc(ir, d)]) {
            list_del(&I->link);
            again = progress = true;
         }
      }
      ralloc_free(read);
   }
   return progress;
}
