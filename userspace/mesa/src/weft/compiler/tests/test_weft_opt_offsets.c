/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the folding of immediate offsets into addresses
 * (weft_opt_offsets.c).
 */
#include "weft_test.h"

/* d = a + imm */
static uint32_t
add_imm(struct weft_ir *ir, unsigned t, uint32_t a, uint64_t imm)
{
   uint32_t d = weft_ir_vreg(ir, weft_isa_type_bits(t));
   struct weft_ir_instr *I = emit2(ir, WEFT_OP_ADD, t, d, a, 0);

   weft_ir_set_imm(I, imm);
   return d;
}

static struct weft_ir_instr *
load(struct weft_ir *ir, uint32_t addr, uint32_t off)
{
   struct weft_ir_instr *I = emit2(ir, WEFT_OP_LD_GLOBAL, WEFT_TYPE_U32,
                                   weft_ir_vreg(ir, 32), addr, 0);

   I->in.imm = off;
   return I;
}

/* Two components of a vector: both accesses end up on the base, the adds
 * die, and the program still allocates and packs. */
static void
test_fold_components(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t base = mov_imm(ir, 64, 0x100000);
   struct weft_ir_instr *l0 = load(ir, add_imm(ir, WEFT_TYPE_U64, base, 4), 0);
   struct weft_ir_instr *l1 = load(ir, add_imm(ir, WEFT_TYPE_U64, base, 8), 8);
   uint32_t at12 = add_imm(ir, WEFT_TYPE_U64, base, 12);
   struct weft_ir_instr *st = weft_ir_emit(ir, WEFT_OP_ST_GLOBAL, WEFT_TYPE_U32, 0);

   weft_ir_set(st, WEFT_IR_A, at12);
   weft_ir_set(st, WEFT_IR_D, l0->vreg[WEFT_IR_D]);
   store(ir, base, l1->vreg[WEFT_IR_D], WEFT_TYPE_U32);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_validate(ir, "test"));
   CHECK(weft_ir_opt_fold_offsets(ir));
   CHECK(l0->vreg[WEFT_IR_A] == base && l0->in.imm == 4);
   CHECK(l1->vreg[WEFT_IR_A] == base && l1->in.imm == 16);
   CHECK(st->vreg[WEFT_IR_A] == base && st->in.imm == 12);
   CHECK(!weft_ir_opt_fold_offsets(ir));
   CHECK(weft_ir_opt_dce(ir));
   CHECK(list_length(&ir->instrs) == 6);
   CHECK(weft_ir_validate(ir, "after folding"));
   CHECK(weft_ir_ra(ir));
   unsigned n;
   CHECK(weft_ir_pack(ir, ir, &n) != NULL);
   ralloc_free(ir);
}

/* A chain of adds folds all the way down; a negative offset of a signed
 * add too. */
static void
test_fold_chain(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t base = mov_imm(ir, 64, 0x100000);
   uint32_t a = add_imm(ir, WEFT_TYPE_U64, add_imm(ir, WEFT_TYPE_U64, base, 16), 32);
   struct weft_ir_instr *l = load(ir, add_imm(ir, WEFT_TYPE_S64, a, -8), 2);

   store(ir, base, l->vreg[WEFT_IR_D], WEFT_TYPE_U32);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_opt_fold_offsets(ir));
   CHECK(l->vreg[WEFT_IR_A] == base && l->in.imm == 42);
   ralloc_free(ir);
}

/* Left alone: an add of two registers, a base written more than once
 * (control flow), an offset beyond 32 bits, and a 32-bit address add whose
 * immediate could wrap. */
static void
test_no_fold(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t base = sreg(ir, "args"), x = weft_ir_vreg(ir, 64);
   uint32_t sum = weft_ir_vreg(ir, 64), multi = weft_ir_vreg_multi(ir, 64);
   struct weft_ir_instr *l[4];

   emit2(ir, WEFT_OP_LD_GLOBAL, WEFT_TYPE_U64, x, base, 0);
   emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U64, sum, base, x);
   l[0] = load(ir, sum, 0);
   emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U64, multi, base, x);
   l[1] = load(ir, add_imm(ir, WEFT_TYPE_U64, multi, 4), 0);
   l[2] = load(ir, add_imm(ir, WEFT_TYPE_U64, base, 0x7ffffff0), 0x20);

   uint32_t off32 = mov_imm(ir, 32, 64);
   uint32_t d = weft_ir_vreg(ir, 32);
   struct weft_ir_instr *I = emit2(ir, WEFT_OP_ADD, WEFT_TYPE_S32, d, off32, 0);

   weft_ir_set_imm(I, (uint64_t)-4);
   l[3] = emit2(ir, WEFT_OP_LD_LOCAL, WEFT_TYPE_U32, weft_ir_vreg(ir, 32), d, 0);
   for (unsigned i = 0; i < 4; i++)
      store(ir, base, l[i]->vreg[WEFT_IR_D], WEFT_TYPE_U32);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_validate(ir, "test"));
   CHECK(!weft_ir_opt_fold_offsets(ir));
   CHECK(l[0]->vreg[WEFT_IR_A] == sum && l[2]->in.imm == 0x20 && l[3]->vreg[WEFT_IR_A] == d);
   ralloc_free(ir);
}

/* in[i - 1] and in[i]: [b + (x - 4)] is reassociated to [(b + x) - 4],
 * whose b + x CSE shares with the in[i] access; one add is left. A base
 * also read as a value keeps its add. */
static void
test_reassociate(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t b = sreg(ir, "args"), x = weft_ir_vreg(ir, 64);

   emit2(ir, WEFT_OP_LD_GLOBAL, WEFT_TYPE_U64, x, b, 0);
   uint32_t xm4 = add_imm(ir, WEFT_TYPE_S64, x, -4), d1 = weft_ir_vreg(ir, 64);
   uint32_t d0 = weft_ir_vreg(ir, 64), kept = weft_ir_vreg(ir, 64);
   struct weft_ir_instr *l1, *l0, *l2;

   emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U64, d1, b, xm4);
   l1 = load(ir, d1, 0);
   emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U64, d0, b, x);
   l0 = load(ir, d0, 0);
   emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U64, kept, xm4, x);
   l2 = load(ir, kept, 0);
   store(ir, b, kept, WEFT_TYPE_U64);
   store(ir, b, l1->vreg[WEFT_IR_D], WEFT_TYPE_U32);
   store(ir, b, l0->vreg[WEFT_IR_D], WEFT_TYPE_U32);
   store(ir, b, l2->vreg[WEFT_IR_D], WEFT_TYPE_U32);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_validate(ir, "test"));
   CHECK(weft_ir_opt_fold_offsets(ir));
   CHECK(weft_ir_opt_cse(ir));
   CHECK(weft_ir_opt_dce(ir));
   CHECK(weft_ir_validate(ir, "after reassociating"));
   CHECK(l1->vreg[WEFT_IR_A] == l0->vreg[WEFT_IR_A] && l1->in.imm == (uint32_t)-4 &&
         l0->in.imm == 0);
   CHECK(l2->vreg[WEFT_IR_A] == kept && l2->in.imm == 0);
   unsigned adds = 0;
   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link)
      adds += I->in.op == WEFT_OP_ADD;
   /* b + x, x - 4 and the kept base */
   CHECK(adds == 3);
   ralloc_free(ir);
}

/* t[1088 / 4 + x]: NIR's constant first, in a register; the add takes it
 * as an immediate, which folds into the SLM access. */
static void
test_const_operand(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t x = sreg(ir, "lane_id"), k = mov_imm(ir, 32, 1088), a = weft_ir_vreg(ir, 32);
   struct weft_ir_instr *L;

   emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U32, a, k, x);
   L = emit2(ir, WEFT_OP_LD_LOCAL, WEFT_TYPE_U32, weft_ir_vreg(ir, 32), a, 0);
   store(ir, mov_imm(ir, 64, 0x1000), L->vreg[WEFT_IR_D], WEFT_TYPE_U32);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_opt_fold_offsets(ir));
   CHECK(L->vreg[WEFT_IR_A] == x && L->in.imm == 1088);
   CHECK(weft_ir_opt_dce(ir));
   CHECK(list_length(&ir->instrs) == 5);
   CHECK(weft_ir_validate(ir, "after folding"));
   ralloc_free(ir);
}

int
main(void)
{
   RUN(test_fold_components);
   RUN(test_fold_chain);
   RUN(test_no_fold);
   RUN(test_reassociate);
   RUN(test_const_operand);
   return weft_test_summary();
}
