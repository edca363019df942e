/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the weft IR core (weft_ir.c): vregs, immediates against
 * literals, insertion, side effects and live ranges.
 */
#include "weft_test.h"


/* Vregs count from 1; a 64-bit value takes a register pair. */
static void
test_vregs(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t a = weft_ir_vreg(ir, 32), b = weft_ir_vreg(ir, 64), c = weft_ir_vreg_multi(ir, 32);

   CHECK(a == 1 && b == 2 && c == 3 && ir->num_vregs == 3);
   CHECK(ir->vreg_regs[a] == 1 && ir->vreg_regs[b] == 2 && ir->vreg_regs[c] == 1);
   CHECK(!ir->vreg_multi[a] && !ir->vreg_multi[b] && ir->vreg_multi[c]);
   for (unsigned i = 0; i < 200; i++)
      weft_ir_vreg(ir, 32);
   CHECK(ir->num_vregs == 203 && ir->vreg_regs[b] == 2 && ir->vreg_multi[c]);
   ralloc_free(ir);
}

/* An immediate is 32 bits, extended by the operand's type; a 64-bit value
 * that extension cannot give becomes a literal word. */
static void
test_set_imm(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t d = weft_ir_vreg(ir, 64), a = weft_ir_vreg(ir, 64);
   struct weft_ir_instr *I;

   I = emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U64, d, a, a);
   weft_ir_set_imm(I, 0xfffffff0u);
   CHECK(I->in.has_imm && !I->in.has_lit && I->in.nwords == 1 && !I->vreg[WEFT_IR_B]);
   CHECK(I->in.imm == 0xfffffff0u);

   I = emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U64, d, a, 0);
   weft_ir_set_imm(I, ~0ull);              /* unsigned: zero-extended, not all ones */
   CHECK(I->in.has_lit && !I->in.has_imm && I->in.nwords == 2 && I->in.lit == ~0ull);

   I = emit2(ir, WEFT_OP_ADD, WEFT_TYPE_S64, d, a, 0);
   weft_ir_set_imm(I, ~0ull);              /* signed: -1 sign-extends */
   CHECK(I->in.has_imm && I->in.nwords == 1 && I->in.imm == 0xffffffffu);

   I = emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U32, weft_ir_vreg(ir, 32), weft_ir_vreg(ir, 32), 0);
   weft_ir_set_imm(I, 7);
   CHECK(I->in.has_imm && I->in.imm == 7 && I->in.nwords == 1);
   ralloc_free(ir);
}

/* weft_ir_emit_at puts the new instruction right before or after. */
static void
test_emit_at(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   struct weft_ir_instr *A = weft_ir_emit(ir, WEFT_OP_NOP, 0, 0);
   struct weft_ir_instr *E = weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   struct weft_ir_instr *B = weft_ir_emit_at(ir, A, true, WEFT_OP_BAR, 0);
   struct weft_ir_instr *C = weft_ir_emit_at(ir, E, false, WEFT_OP_FENCE_DEV, 0);

   CHECK(list_length(&ir->instrs) == 4);
   CHECK(nth_instr(ir, 0) == A && nth_instr(ir, 1) == B && nth_instr(ir, 2) == C &&
         nth_instr(ir, 3) == E);
   ralloc_free(ir);
}

static void
test_side_effects(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t x = mov_imm(ir, 32, 1), addr = mov_imm(ir, 64, 0x1000);
   struct weft_ir_instr *add = emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U32, weft_ir_vreg(ir, 32), x, x);
   struct weft_ir_instr *atom =
      emit2(ir, WEFT_OP_ATOM_GLOBAL_ADD, WEFT_TYPE_U32, weft_ir_vreg(ir, 32), addr, x);
   struct weft_ir_instr *ld = weft_ir_emit(ir, WEFT_OP_LD_GLOBAL, WEFT_TYPE_U32, 0);

   store(ir, addr, x, WEFT_TYPE_U32);
   CHECK(!weft_ir_has_side_effects(add));
   CHECK(!weft_ir_has_side_effects(ld));
   CHECK(weft_ir_has_side_effects(atom));
   CHECK(weft_ir_has_side_effects(list_last_entry(&ir->instrs, struct weft_ir_instr, link)));
   CHECK(weft_ir_has_side_effects(weft_ir_emit(ir, WEFT_OP_BAR, 0, 0)));
   CHECK(weft_ir_has_side_effects(weft_ir_emit(ir, WEFT_OP_END, 0, 0)));
   ralloc_free(ir);
}

/* From the first instruction naming a vreg to the last; unnamed: ~0u. */
static void
test_live_ranges(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t addr = mov_imm(ir, 64, 0x1000);                 /* 0 */
   uint32_t x = mov_imm(ir, 32, 1);                         /* 1 */
   uint32_t unused = weft_ir_vreg(ir, 32), y = weft_ir_vreg(ir, 32);
   unsigned first[5], last[5];

   emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U32, y, x, x);          /* 2 */
   store(ir, addr, y, WEFT_TYPE_U32);                       /* 3 */
   store(ir, addr, x, WEFT_TYPE_U32);                       /* 4 */
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   weft_ir_live_ranges(ir, first, last);
   CHECK(first[addr] == 0 && last[addr] == 4);
   CHECK(first[x] == 1 && last[x] == 4);
   CHECK(first[y] == 2 && last[y] == 3);
   CHECK(first[unused] == ~0u);
   ralloc_free(ir);
}

int
main(void)
{
   RUN(test_vregs);
   RUN(test_set_imm);
   RUN(test_emit_at);
   RUN(test_side_effects);
   RUN(test_live_ranges);
   return weft_test_summary();
}
