/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of copy propagation and common-subexpression elimination
 * (weft_opt_cse.c).
 */
#include "weft_test.h"

/* The same add twice (sources swapped the second time), the same special
 * register twice and a copy: one of each is left, and the stores read the
 * survivors. */
static void
test_cse_and_copies(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t addr = mov_imm(ir, 64, 0x100000);
   uint32_t x = sreg(ir, "lane_id"), y = sreg(ir, "lane_id"), k = mov_imm(ir, 32, 3);
   uint32_t s1 = weft_ir_vreg(ir, 32), s2 = weft_ir_vreg(ir, 32), c = weft_ir_vreg(ir, 32);
   struct weft_ir_instr *M;

   emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U32, s1, x, k);
   emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U32, s2, k, y);
   M = weft_ir_emit(ir, WEFT_OP_MOV, WEFT_TYPE_U32, 0);
   weft_ir_set(M, WEFT_IR_D, c);
   weft_ir_set(M, WEFT_IR_B, s2);
   store(ir, addr, s1, WEFT_TYPE_U32);
   store(ir, addr, c, WEFT_TYPE_U32);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_validate(ir, "test"));
   unsigned before = list_length(&ir->instrs), stores = 0;
   CHECK(weft_ir_opt_cse(ir));
   /* Gone: the second s2r, the second add and the mov. */
   CHECK(list_length(&ir->instrs) == before - 3);
   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      if (I->in.op == WEFT_OP_ST_GLOBAL) {
         CHECK(I->vreg[WEFT_IR_D] == s1);
         stores++;
      }
   }
   CHECK(stores == 2);
   CHECK(!weft_ir_opt_cse(ir));
   CHECK(weft_ir_validate(ir, "after CSE"));
   CHECK(weft_ir_ra(ir));
   ralloc_free(ir);
}

/* An add inside an if is not available after its endif, nor in the else;
 * one before the if is available in both. Values written more than once
 * and cross-lane instructions are left alone. */
static void
test_cse_structure(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t addr = mov_imm(ir, 64, 0x100000), x = sreg(ir, "lane_id");
   uint32_t a[5], multi = weft_ir_vreg_multi(ir, 32), r1 = weft_ir_vreg(ir, 32);
   uint32_t r2 = weft_ir_vreg(ir, 32), m1 = weft_ir_vreg(ir, 32), m2 = weft_ir_vreg(ir, 32);
   struct weft_ir_instr *I, *E, *End;

   for (unsigned i = 0; i < 5; i++)
      a[i] = weft_ir_vreg(ir, 32);
   emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U32, a[0], x, x);
   I = weft_ir_emit(ir, WEFT_OP_IF, 0, 0);
   weft_ir_set(I, WEFT_IR_A, x);
   emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U32, a[1], x, x);      /* = a[0] */
   emit2(ir, WEFT_OP_MUL, WEFT_TYPE_U32, a[2], x, x);
   E = weft_ir_emit(ir, WEFT_OP_ELSE, 0, 0);
   emit2(ir, WEFT_OP_MUL, WEFT_TYPE_U32, a[3], x, x);      /* not the then's */
   End = weft_ir_emit(ir, WEFT_OP_ENDIF, 0, 0);
   I->target = E;
   E->target = End;
   emit2(ir, WEFT_OP_MUL, WEFT_TYPE_U32, a[4], x, x);      /* nor after */
   emit2(ir, WEFT_OP_MOV, WEFT_TYPE_U32, multi, 0, 0)->vreg[WEFT_IR_B] = x;
   emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U32, m1, multi, x);
   emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U32, m2, multi, x);
   emit2(ir, WEFT_OP_RED_ADD, WEFT_TYPE_U32, r1, x, 0);
   emit2(ir, WEFT_OP_RED_ADD, WEFT_TYPE_U32, r2, x, 0);
   for (unsigned i = 0; i < 5; i++)
      store(ir, addr, a[i], WEFT_TYPE_U32);
   store(ir, addr, m1, WEFT_TYPE_U32);
   store(ir, addr, m2, WEFT_TYPE_U32);
   store(ir, addr, r1, WEFT_TYPE_U32);
   store(ir, addr, r2, WEFT_TYPE_U32);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_validate(ir, "test"));
   unsigned before = list_length(&ir->instrs);
   CHECK(weft_ir_opt_cse(ir));
   CHECK(list_length(&ir->instrs) == before - 1);
   unsigned muls = 0, reds = 0, adds = 0;
   list_for_each_entry(struct weft_ir_instr, J, &ir->instrs, link) {
      muls += J->in.op == WEFT_OP_MUL;
      reds += J->in.op == WEFT_OP_RED_ADD;
      adds += J->in.op == WEFT_OP_ADD;
      if (J->in.op == WEFT_OP_ST_GLOBAL)
         CHECK(J->vreg[WEFT_IR_D] != a[1]);
   }
   CHECK(muls == 3 && reds == 2 && adds == 3);
   CHECK(weft_ir_validate(ir, "after CSE"));
   ralloc_free(ir);
}

int
main(void)
{
   RUN(test_cse_and_copies);
   RUN(test_cse_structure);
   return weft_test_summary();
}
