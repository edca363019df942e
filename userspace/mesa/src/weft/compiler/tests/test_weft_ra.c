/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of register allocation (weft_ra.c): pairs, reuse,
 * interference, loops, running out and the register limit.
 */
#include "weft_test.h"

/* An address, then @n values all live until stored one after the other. */
static struct weft_ir *
build_live_values(unsigned n)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t addr = mov_imm(ir, 64, 0x300000);
   uint32_t *v = ralloc_array(ir, uint32_t, n);

   for (unsigned i = 0; i < n; i++)
      v[i] = mov_imm(ir, 32, i);
   for (unsigned i = 0; i < n; i++)
      store(ir, addr, v[i], WEFT_TYPE_U32);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   return ir;
}

static void
test_ra_pairs_and_reuse(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t x = mov_imm(ir, 32, 1);              /* r0 */
   uint32_t addr = mov_imm(ir, 64, 0x200000);    /* even pair */
   uint32_t y = weft_ir_vreg(ir, 32);

   emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U32, y, x, x);
   store(ir, addr, y, WEFT_TYPE_U32);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_ra(ir));
   CHECK(weft_ir_validate(ir, "test"));

   struct weft_ir_instr *I = list_first_entry(&ir->instrs, struct weft_ir_instr, link);
   unsigned rx = I->in.d;
   I = list_entry(I->link.next, struct weft_ir_instr, link);
   unsigned raddr = I->in.d;
   I = list_entry(I->link.next, struct weft_ir_instr, link);
   CHECK((raddr & 1) == 0);
   CHECK(raddr != rx && raddr + 1 != rx);
   /* y is defined while x dies: never the same register as a source */
   CHECK(I->in.d != I->in.a);
   CHECK(ir->num_regs <= 4);
   ralloc_free(ir);
}

static void
test_ra_interference(void)
{
   struct weft_ir *ir = build_live_values(40);
   CHECK(weft_ir_ra(ir));
   CHECK(weft_ir_validate(ir, "test"));

   /* all 40 values live at once: 40 different registers, none in the pair */
   bool seen[WEFT_NUM_REGS] = {0};
   unsigned distinct = 0, n = 0;
   struct weft_ir_instr *first = list_first_entry(&ir->instrs, struct weft_ir_instr, link);
   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      if (I == first || n++ > 40)
         continue;
      if (I->in.op == WEFT_OP_MOV) {
         CHECK(I->in.d != first->in.d && I->in.d != first->in.d + 1);
         distinct += !seen[I->in.d];
         seen[I->in.d] = true;
      }
   }
   CHECK(distinct == 40);
   ralloc_free(ir);
}

static void
test_ra_out_of_registers(void)
{
   struct weft_ir *ir = build_live_values(300);
   fprintf(stderr, "(expected error follows)\n");
   CHECK(!weft_ir_ra(ir));
   ralloc_free(ir);
}

/* A value defined before a loop and read inside it must keep its register
 * for the whole loop, even after its last read: the loop repeats. */
static void
test_ra_loop_extends_liveness(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t addr = mov_imm(ir, 64, 0x400000);
   uint32_t x = mov_imm(ir, 32, 5);
   uint32_t all = mov_imm(ir, 32, 0xffffffffu);
   struct weft_ir_instr *L = weft_ir_emit(ir, WEFT_OP_LOOP, 0, 0);
   uint32_t y = weft_ir_vreg(ir, 32);

   emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U32, y, x, x);      /* last read of x */
   uint32_t z = mov_imm(ir, 32, 9);                      /* must not take x's register */
   store(ir, addr, y, WEFT_TYPE_U32);
   store(ir, addr, z, WEFT_TYPE_U32);
   struct weft_ir_instr *B = weft_ir_emit(ir, WEFT_OP_BREAK, 0, 0);
   weft_ir_set(B, WEFT_IR_A, all);
   L->target = weft_ir_emit(ir, WEFT_OP_ENDLOOP, 0, 0);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_validate(ir, "test"));
   CHECK(weft_ir_ra(ir));
   CHECK(weft_ir_validate(ir, "test"));

   unsigned rx = ~0u, rz = ~0u, n = 0;
   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      if (n == 1)
         rx = I->in.d;
      if (I->in.op == WEFT_OP_MOV && I->in.has_imm && I->in.imm == 9)
         rz = I->in.d;
      n++;
   }
   CHECK(rx != ~0u && rz != ~0u && rx != rz);

   /* the loop's target is resolved when packing: loop -> endloop */
   unsigned nw;
   uint64_t *w = weft_ir_pack(ir, ir, &nw);
   CHECK(w != NULL);
   ralloc_free(ir);
}

/* max_regs bounds the registers RA hands out. */
static void
test_ra_max_regs(void)
{
   struct weft_ir *ir = build_live_values(4);

   ir->max_regs = 5;
   ir->ra_quiet = true;
   CHECK(!weft_ir_ra(ir));
   ir->max_regs = 6;
   CHECK(weft_ir_ra(ir));
   CHECK(ir->num_regs == 6);
   ralloc_free(ir);
}

int
main(void)
{
   RUN(test_ra_pairs_and_reuse);
   RUN(test_ra_interference);
   RUN(test_ra_out_of_registers);
   RUN(test_ra_loop_extends_liveness);
   RUN(test_ra_max_regs);
   return weft_test_summary();
}
