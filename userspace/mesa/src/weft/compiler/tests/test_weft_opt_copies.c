/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the coalescing of copies into and out of values written
 * more than once (weft_opt_copies.c).
 */
#include "weft_test.h"

static struct weft_ir_instr *
copy(struct weft_ir *ir, uint32_t d, uint32_t s)
{
   struct weft_ir_instr *M = weft_ir_emit(ir, WEFT_OP_MOV, WEFT_TYPE_U32, 0);

   weft_ir_set(M, WEFT_IR_D, d);
   weft_ir_set(M, WEFT_IR_B, s);
   return M;
}

static struct weft_ir_instr *
emit_if(struct weft_ir *ir, uint32_t cond)
{
   struct weft_ir_instr *If = weft_ir_emit(ir, WEFT_OP_IF, 0, 0);

   weft_ir_set(If, WEFT_IR_A, cond);
   return If;
}

/* A stencil's border test as NIR leaves it: m = c ? (a & b) : -1 through
 * a NIR register, then if (m). The and writes m itself and the if reads m:
 * both movs go, and the program still allocates and packs. */
static void
test_coalesce_phi(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t addr = mov_imm(ir, 64, 0x100000), c = sreg(ir, "lane_id");
   uint32_t a = sreg(ir, "subgroup_id"), all = mov_imm(ir, 32, 0xffffffff);
   uint32_t m = weft_ir_vreg_multi(ir, 32), s = weft_ir_vreg(ir, 32), d = weft_ir_vreg(ir, 32);
   struct weft_ir_instr *If, *Else, *And, *If2;

   If = emit_if(ir, c);
   And = emit2(ir, WEFT_OP_AND, WEFT_TYPE_U32, s, a, c);
   copy(ir, m, s);
   Else = weft_ir_emit(ir, WEFT_OP_ELSE, 0, 0);
   copy(ir, m, all);
   If->target = Else;
   Else->target = weft_ir_emit(ir, WEFT_OP_ENDIF, 0, 0);
   copy(ir, d, m);
   If2 = emit_if(ir, d);
   store(ir, addr, a, WEFT_TYPE_U32);
   If2->target = weft_ir_emit(ir, WEFT_OP_ENDIF, 0, 0);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_validate(ir, "test"));
   unsigned before = list_length(&ir->instrs);
   CHECK(weft_ir_opt_coalesce_copies(ir));
   CHECK(list_length(&ir->instrs) == before - 2);
   CHECK(And->vreg[WEFT_IR_D] == m);
   CHECK(If2->vreg[WEFT_IR_A] == m);
   CHECK(!weft_ir_opt_coalesce_copies(ir));
   CHECK(weft_ir_validate(ir, "after coalescing"));
   CHECK(weft_ir_ra(ir));
   unsigned n;
   CHECK(weft_ir_pack(ir, ir, &n) != NULL);
   ralloc_free(ir);
}

/* Left alone: a source read twice, a source defined before the
 * instruction before the copy, a copy read twice, a copy its next
 * instruction does not read, and copies of values written once (CSE's). */
static void
test_no_coalesce(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t addr = mov_imm(ir, 64, 0x100000), a = sreg(ir, "lane_id");
   uint32_t m = weft_ir_vreg_multi(ir, 32), s = weft_ir_vreg(ir, 32), t = weft_ir_vreg(ir, 32);
   uint32_t d = weft_ir_vreg(ir, 32), e = weft_ir_vreg(ir, 32), f = weft_ir_vreg(ir, 32);

   emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U32, s, a, a);
   copy(ir, m, s);
   store(ir, addr, s, WEFT_TYPE_U32);
   emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U32, t, a, a);
   store(ir, addr, a, WEFT_TYPE_U32);
   copy(ir, m, t);
   copy(ir, d, m);
   store(ir, addr, d, WEFT_TYPE_U32);
   store(ir, addr, d, WEFT_TYPE_U32);
   copy(ir, e, m);
   store(ir, addr, a, WEFT_TYPE_U32);
   store(ir, addr, e, WEFT_TYPE_U32);
   copy(ir, f, a);
   store(ir, addr, f, WEFT_TYPE_U32);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_validate(ir, "test"));
   unsigned before = list_length(&ir->instrs);
   CHECK(!weft_ir_opt_coalesce_copies(ir));
   CHECK(list_length(&ir->instrs) == before);
   ralloc_free(ir);
}

int
main(void)
{
   RUN(test_coalesce_phi);
   RUN(test_no_coalesce);
   return weft_test_summary();
}
