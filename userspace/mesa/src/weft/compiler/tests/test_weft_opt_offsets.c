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
   check_pass_cse_dce(ir, weft_ir_opt_fold_offsets);
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

/* d = op(a, b) of 64-bit values; op(a, imm) when @b is 0. */
static uint32_t
op64(struct weft_ir *ir, unsigned op, uint32_t a, uint32_t b, uint64_t imm)
{
   uint32_t d = weft_ir_vreg(ir, 64);
   struct weft_ir_instr *I = emit2(ir, op, WEFT_TYPE_U64, d, a, b);

   if (!b && op != WEFT_OP_NEG)
      weft_ir_set_imm(I, imm);
   return d;
}

/* A 5-point stencil's rows: in[i] at b + (i << 2), in[i - n] at
 * b + ((i + -n) << 2) and in[i + n] at b + ((n + i) << 2). Distributed,
 * CSE shares b + (i << 2) and n << 2: one shl and one add besides the
 * row's own, and a sub; the negation dies. */
static void
test_distribute_rows(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t b = sreg(ir, "args"), i = weft_ir_vreg(ir, 64), n = weft_ir_vreg(ir, 64);

   emit2(ir, WEFT_OP_LD_GLOBAL, WEFT_TYPE_U64, i, b, 0);
   emit2(ir, WEFT_OP_LD_GLOBAL, WEFT_TYPE_U64, n, b, 0)->in.imm = 8;
   uint32_t row = op64(ir, WEFT_OP_ADD, b, op64(ir, WEFT_OP_SHL, i, 0, 2), 0);
   struct weft_ir_instr *l0 = load(ir, row, 0);
   uint32_t up = op64(ir, WEFT_OP_ADD, i, op64(ir, WEFT_OP_NEG, n, 0, 0), 0);
   struct weft_ir_instr *l1 = load(ir, op64(ir, WEFT_OP_ADD, b, op64(ir, WEFT_OP_SHL, up, 0, 2), 0), 0);
   uint32_t down = op64(ir, WEFT_OP_ADD, n, i, 0);
   uint32_t down_addr = op64(ir, WEFT_OP_ADD, op64(ir, WEFT_OP_SHL, down, 0, 2), b, 0);
   struct weft_ir_instr *l2 = load(ir, down_addr, 0);

   store(ir, b, l0->vreg[WEFT_IR_D], WEFT_TYPE_U32);
   store(ir, b, l1->vreg[WEFT_IR_D], WEFT_TYPE_U32);
   store(ir, b, l2->vreg[WEFT_IR_D], WEFT_TYPE_U32);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   check_pass_cse_dce(ir, weft_ir_opt_fold_offsets);
   CHECK(count_ops(ir, WEFT_OP_SHL) == 2);
   CHECK(count_ops(ir, WEFT_OP_ADD) == 2);
   CHECK(count_ops(ir, WEFT_OP_SUB) == 1);
   CHECK(count_ops(ir, WEFT_OP_NEG) == 0);
   /* Both neighbours step from the row by the same n << 2. */
   struct weft_ir_instr *up_def = NULL, *down_def = NULL;
   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      if (I->vreg[WEFT_IR_D] == l1->vreg[WEFT_IR_A])
         up_def = I;
      if (I->vreg[WEFT_IR_D] == l2->vreg[WEFT_IR_A])
         down_def = I;
   }
   CHECK(up_def && up_def->in.op == WEFT_OP_SUB && up_def->vreg[WEFT_IR_A] == row);
   CHECK(down_def && down_def->in.op == WEFT_OP_ADD);
   CHECK(up_def && down_def &&
         (down_def->vreg[WEFT_IR_A] == row || down_def->vreg[WEFT_IR_B] == row) &&
         (down_def->vreg[WEFT_IR_A] == up_def->vreg[WEFT_IR_B] ||
          down_def->vreg[WEFT_IR_B] == up_def->vreg[WEFT_IR_B]));
   CHECK(weft_ir_ra(ir));
   ralloc_free(ir);
}

/* Left alone: no shift of either term before (nothing to share), the
 * shift only after the use, a shift in an if body that has ended, a sum
 * read twice, a different shift count. */
static void
test_no_distribute(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t b = sreg(ir, "args"), i = weft_ir_vreg(ir, 64), n = weft_ir_vreg(ir, 64);
   uint32_t c = sreg(ir, "lane_id");

   emit2(ir, WEFT_OP_LD_GLOBAL, WEFT_TYPE_U64, i, b, 0);
   emit2(ir, WEFT_OP_LD_GLOBAL, WEFT_TYPE_U64, n, b, 0)->in.imm = 8;
   /* Nothing shifted yet. */
   load(ir, op64(ir, WEFT_OP_ADD, b, op64(ir, WEFT_OP_SHL, op64(ir, WEFT_OP_ADD, i, n, 0), 0, 2), 0), 0);
   /* i << 3 inside an if that ends. */
   struct weft_ir_instr *If = weft_ir_emit(ir, WEFT_OP_IF, 0, 0);

   weft_ir_set(If, WEFT_IR_A, c);
   load(ir, op64(ir, WEFT_OP_ADD, b, op64(ir, WEFT_OP_SHL, i, 0, 3), 0), 0);
   If->target = weft_ir_emit(ir, WEFT_OP_ENDIF, 0, 0);
   load(ir, op64(ir, WEFT_OP_ADD, b, op64(ir, WEFT_OP_SHL, op64(ir, WEFT_OP_ADD, i, n, 0), 0, 3), 0), 0);
   /* i << 2 now exists (the first access's i + n << 2 is not i << 2). */
   uint32_t i4 = op64(ir, WEFT_OP_SHL, i, 0, 2);
   load(ir, op64(ir, WEFT_OP_ADD, b, i4, 0), 0);
   /* A sum read twice. */
   uint32_t twice = op64(ir, WEFT_OP_ADD, i, n, 0);
   load(ir, op64(ir, WEFT_OP_ADD, b, op64(ir, WEFT_OP_SHL, twice, 0, 2), 0), 0);
   store(ir, b, twice, WEFT_TYPE_U64);
   /* Shifted by 4, not 2. */
   load(ir, op64(ir, WEFT_OP_ADD, b, op64(ir, WEFT_OP_SHL, op64(ir, WEFT_OP_ADD, i, n, 0), 0, 4), 0), 0);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_validate(ir, "test"));
   unsigned before = list_length(&ir->instrs);
   CHECK(!weft_ir_opt_fold_offsets(ir));
   CHECK(list_length(&ir->instrs) == before);
   CHECK(count_ops(ir, WEFT_OP_SUB) == 0);
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
   RUN(test_distribute_rows);
   RUN(test_no_distribute);
   return weft_test_summary();
}
