/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of spilling (weft_spill.c).
 */
#include "weft_test.h"

/* Six values live at once with four registers: RA fails, spilling to
 * scratch makes it succeed; every spilled value gets a slot. */
static void
test_spill(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t addr = mov_imm(ir, 64, 0x100000), v[6];
   unsigned rounds = 0;

   for (unsigned i = 0; i < 6; i++)
      v[i] = mov_imm(ir, 32, i + 1);
   for (unsigned i = 0; i < 6; i++)
      store(ir, addr, v[5 - i], WEFT_TYPE_U32);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   ir->max_regs = 4;
   ir->ra_quiet = true;
   CHECK(!weft_ir_ra(ir));
   while (!weft_ir_ra(ir) && rounds < 16) {
      CHECK(weft_ir_spill(ir));
      rounds++;
   }
   CHECK(rounds > 0 && rounds < 16);
   CHECK(ir->num_regs <= 4);
   CHECK(ir->scratch_size >= 4 * rounds);
   CHECK(weft_ir_validate(ir, "after spilling"));

   unsigned n;
   uint64_t *w = weft_ir_pack(ir, ir, &n);
   unsigned ld = count_decoded(w, n, WEFT_OP_LD_SCRATCH), st = count_decoded(w, n, WEFT_OP_ST_SCRATCH);
   CHECK(ld >= rounds && st >= rounds);
   ralloc_free(ir);
}

/* A spilled variable (multi-assignment, updated in a loop) keeps no
 * register: every definition writes a fresh temporary stored at once. */
static void
test_spill_loop_variable(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t addr = mov_imm(ir, 64, 0x400000), x = weft_ir_vreg_multi(ir, 32);
   uint32_t all = mov_imm(ir, 32, 0xffffffffu);
   struct weft_ir_instr *I = weft_ir_emit(ir, WEFT_OP_MOV, WEFT_TYPE_U32, 0);
   unsigned rounds = 0, writes = 0;

   weft_ir_set(I, WEFT_IR_D, x);
   weft_ir_set_imm(I, 1);
   struct weft_ir_instr *L = weft_ir_emit(ir, WEFT_OP_LOOP, 0, 0);
   emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U32, x, x, all);
   struct weft_ir_instr *B = weft_ir_emit(ir, WEFT_OP_BREAK, 0, 0);
   weft_ir_set(B, WEFT_IR_A, all);
   L->target = weft_ir_emit(ir, WEFT_OP_ENDLOOP, 0, 0);
   store(ir, addr, x, WEFT_TYPE_U32);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_validate(ir, "test"));
   while ((!ir->vreg_spilled || !ir->vreg_spilled[x]) && rounds < 8) {
      CHECK(weft_ir_spill(ir));
      rounds++;
   }
   CHECK(ir->vreg_spilled && ir->vreg_spilled[x]);
   list_for_each_entry(struct weft_ir_instr, J, &ir->instrs, link)
      writes += J->vreg[WEFT_IR_D] == x && weft_isa_ops[J->in.op].cls != WEFT_CLASS_STX;
   CHECK(writes == 0);
   CHECK(weft_ir_validate(ir, "after spilling"));
   CHECK(weft_ir_ra(ir));
   CHECK(weft_ir_validate(ir, "after RA"));
   ralloc_free(ir);
}

/* The longest live range is spilled first; spill temporaries never are, so
 * spilling runs out. */
static void
test_spill_choice_and_end(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t addr = mov_imm(ir, 64, 0x100000);
   uint32_t lng = mov_imm(ir, 32, 1), shrt = mov_imm(ir, 32, 2);
   unsigned rounds = 0;

   store(ir, addr, shrt, WEFT_TYPE_U32);
   store(ir, addr, lng, WEFT_TYPE_U32);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_spill(ir));
   CHECK(ir->vreg_spilled[addr] && !ir->vreg_spilled[lng] && !ir->vreg_spilled[shrt]);
   CHECK(ir->scratch_size == 8);
   CHECK(weft_ir_validate(ir, "after spilling"));
   while (weft_ir_spill(ir) && rounds < 100)
      rounds++;
   CHECK(rounds == 2);
   CHECK(ir->vreg_spilled[lng] && ir->vreg_spilled[shrt]);
   CHECK(ir->scratch_size == 16);
   CHECK(weft_ir_validate(ir, "after spilling"));
   ralloc_free(ir);
}

int
main(void)
{
   RUN(test_spill);
   RUN(test_spill_loop_variable);
   RUN(test_spill_choice_and_end);
   return weft_test_summary();
}
