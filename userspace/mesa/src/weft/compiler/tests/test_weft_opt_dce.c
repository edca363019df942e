/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of dead-code elimination (weft_opt_dce.c).
 */
#include "weft_test.h"

static void
test_dce(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t addr = mov_imm(ir, 64, 0x100000);
   uint32_t x = mov_imm(ir, 32, 5);
   uint32_t dead = weft_ir_vreg(ir, 32);

   emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U32, dead, x, x);   /* never read */
   store(ir, addr, x, WEFT_TYPE_U32);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_validate(ir, "test"));
   CHECK(weft_ir_opt_dce(ir));
   CHECK(list_length(&ir->instrs) == 4);
   CHECK(!weft_ir_opt_dce(ir));
   ralloc_free(ir);
}

/* SLM stores, atomics (whose old value nobody reads), barriers and fences
 * are kept by DCE; an unread SLM load goes. */
static void
test_dce_keeps_memory_and_sync(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t off = mov_imm(ir, 32, 64), x = mov_imm(ir, 32, 5);
   uint32_t gaddr = mov_imm(ir, 64, 0x100000);
   uint32_t old = weft_ir_vreg(ir, 32), gold = weft_ir_vreg(ir, 32), ld = weft_ir_vreg(ir, 32);
   struct weft_ir_instr *I = weft_ir_emit(ir, WEFT_OP_ST_LOCAL, WEFT_TYPE_U32, 0);

   weft_ir_set(I, WEFT_IR_A, off);
   weft_ir_set(I, WEFT_IR_D, x);
   I->in.imm = 4;
   weft_ir_emit(ir, WEFT_OP_BAR, 0, 0);
   weft_ir_emit(ir, WEFT_OP_FENCE_DEV, 0, 0);
   emit2(ir, WEFT_OP_ATOM_LOCAL_ADD, WEFT_TYPE_U32, old, off, x);
   I = emit2(ir, WEFT_OP_ATOM_GLOBAL_CMPXCHG, WEFT_TYPE_U32, gold, gaddr, x);
   weft_ir_set(I, WEFT_IR_C, off);
   I = weft_ir_emit(ir, WEFT_OP_LD_LOCAL, WEFT_TYPE_U32, 0);
   weft_ir_set(I, WEFT_IR_D, ld);
   weft_ir_set(I, WEFT_IR_A, off);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_validate(ir, "test"));
   CHECK(weft_ir_opt_dce(ir));
   CHECK(list_length(&ir->instrs) == 9);
   CHECK(weft_ir_ra(ir));
   CHECK(weft_ir_validate(ir, "after RA"));

   unsigned n, ops = 0;
   uint64_t *w = weft_ir_pack(ir, ir, &n);
   CHECK(w != NULL);
   struct weft_inst in[64];
   unsigned count = decode_all(w, n, in, ARRAY_SIZE(in));
   for (unsigned i = 0; i < count; i++) {
      if (in[i].op == WEFT_OP_ST_LOCAL && in[i].imm == 4)
         ops |= 1;
      if (in[i].op == WEFT_OP_BAR)
         ops |= 2;
      if (in[i].op == WEFT_OP_FENCE_DEV)
         ops |= 4;
      if (in[i].op == WEFT_OP_ATOM_LOCAL_ADD)
         ops |= 8;
      if (in[i].op == WEFT_OP_ATOM_GLOBAL_CMPXCHG)
         ops |= 16;
      if (in[i].op == WEFT_OP_LD_LOCAL)
         ops |= 32;
   }
   CHECK(ops == 31);
   ralloc_free(ir);
}

/* A chain of dead values goes in one call, however long. */
static void
test_dce_chain(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t x = mov_imm(ir, 32, 5), prev = x;

   for (unsigned i = 0; i < 10; i++) {
      uint32_t next = weft_ir_vreg(ir, 32);
      emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U32, next, prev, x);
      prev = next;
   }
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_opt_dce(ir));
   CHECK(list_length(&ir->instrs) == 1);
   CHECK(weft_ir_validate(ir, "after DCE"));
   ralloc_free(ir);
}

int
main(void)
{
   RUN(test_dce);
   RUN(test_dce_keeps_memory_and_sync);
   RUN(test_dce_chain);
   return weft_test_summary();
}
