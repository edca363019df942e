/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of IR printing (weft_print.c): vregs, memory operands,
 * immediates and literals before allocation, the disassembler's syntax
 * after it.
 */
#include "weft_test.h"


static char *
print_to_string(struct weft_ir *ir)
{
   char *text = NULL;
   size_t size = 0;
   FILE *fp = open_memstream(&text, &size);

   weft_ir_print(ir, fp);
   fclose(fp);
   return text;
}

static void
test_print_virtual(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t addr = mov_imm(ir, 64, 0x123456789abull);      /* v1: a literal */
   uint32_t x = mov_imm(ir, 32, 5);                         /* v2 */
   struct weft_ir_instr *I = weft_ir_emit(ir, WEFT_OP_ST_GLOBAL, WEFT_TYPE_U32, 0);

   weft_ir_set(I, WEFT_IR_A, addr);
   weft_ir_set(I, WEFT_IR_D, x);
   I->in.imm = 8;
   emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U32, weft_ir_vreg(ir, 32), x, x);
   I = weft_ir_emit(ir, WEFT_OP_S2R, WEFT_TYPE_U32, 0);
   weft_ir_set(I, WEFT_IR_D, weft_ir_vreg(ir, 32));
   I->in.mod = 0;
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);

   char *text = print_to_string(ir);
   CHECK(strstr(text, "mov.u64 v1, 0x00000123456789ab\n"));
   CHECK(strstr(text, "mov.u32 v2, 0x5\n"));
   CHECK(strstr(text, "st.global.u32 [v1+8], v2\n"));
   CHECK(strstr(text, "add.u32 v3, v2, v2\n"));
   CHECK(strstr(text, "s2r.u32 v4, sr."));
   CHECK(strstr(text, "   end\n"));
   free(text);
   ralloc_free(ir);
}

/* After allocation, each line is what the disassembler prints. */
static void
test_print_allocated(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t x = mov_imm(ir, 32, 5), y = weft_ir_vreg(ir, 32);
   char expect[256];

   emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U32, y, x, x);
   store(ir, mov_imm(ir, 64, 0x1000), y, WEFT_TYPE_U32);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_ra(ir));
   weft_isa_print(&nth_instr(ir, 1)->in, expect, sizeof(expect));
   char *text = print_to_string(ir);
   CHECK(strstr(text, expect) != NULL);
   CHECK(strstr(text, " v") == NULL);
   free(text);
   ralloc_free(ir);
}

int
main(void)
{
   RUN(test_print_virtual);
   RUN(test_print_allocated);
   return weft_test_summary();
}
