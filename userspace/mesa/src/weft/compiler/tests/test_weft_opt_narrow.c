/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the narrowing of 64-bit id arithmetic to 32 bits
 * (weft_opt_narrow.c).
 */
#include "weft_test.h"

static uint32_t
cvt(struct weft_ir *ir, unsigned t, unsigned t2, uint32_t a)
{
   uint32_t d = weft_ir_vreg(ir, weft_isa_type_bits(t));
   struct weft_ir_instr *I = weft_ir_emit(ir, WEFT_OP_CVT, t, t2);

   weft_ir_set(I, WEFT_IR_D, d);
   weft_ir_set(I, WEFT_IR_A, a);
   return d;
}

static uint32_t
op_imm(struct weft_ir *ir, unsigned op, unsigned t, uint32_t a, uint64_t imm)
{
   uint32_t d = weft_ir_vreg(ir, weft_isa_type_bits(t));

   weft_ir_set_imm(emit2(ir, op, t, d, a, 0), imm);
   return d;
}

/* (u32)(((u64)l << 2) + 0x100000004): the SLM offset of t[l + 1] as NIR
 * leaves it. Narrowed, it is (l << 2) + 4 in 32 bits, and the 64-bit
 * instructions die. */
static void
test_narrow_offset(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t l = mov_imm(ir, 32, 7), wide = cvt(ir, WEFT_TYPE_U64, WEFT_TYPE_U32, l);
   uint32_t sh = op_imm(ir, WEFT_OP_SHL, WEFT_TYPE_U64, wide, 2);
   uint32_t sum = op_imm(ir, WEFT_OP_ADD, WEFT_TYPE_U64, sh, 0x100000004ull);
   uint32_t off = cvt(ir, WEFT_TYPE_U32, WEFT_TYPE_U64, sum);
   struct weft_ir_instr *st = weft_ir_emit(ir, WEFT_OP_ST_LOCAL, WEFT_TYPE_U32, 0);

   weft_ir_set(st, WEFT_IR_A, off);
   weft_ir_set(st, WEFT_IR_D, l);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   check_pass_cse_dce(ir, weft_ir_opt_narrow);
   /* mov, shl.u32, add.u32, st.local, end */
   CHECK(list_length(&ir->instrs) == 5);
   struct weft_ir_instr *S = nth_instr(ir, 1), *A = nth_instr(ir, 2);
   CHECK(S->in.op == WEFT_OP_SHL && S->in.t == WEFT_TYPE_U32 && S->vreg[WEFT_IR_A] == l &&
         S->in.imm == 2);
   CHECK(A->in.op == WEFT_OP_ADD && A->in.t == WEFT_TYPE_U32 && A->in.imm == 4 &&
         A->vreg[WEFT_IR_A] == S->vreg[WEFT_IR_D]);
   CHECK(nth_instr(ir, 3)->vreg[WEFT_IR_A] == A->vreg[WEFT_IR_D]);
   CHECK(weft_ir_ra(ir));
   ralloc_free(ir);
}

/* Left alone: a shift by 32 or more (its low half is not the 32-bit
 * shift's), a 64-bit value also read elsewhere (it would be computed
 * twice), a source that is no widened 32-bit value, and a right shift. */
static void
test_no_narrow(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t addr = mov_imm(ir, 64, 0x100000), l = mov_imm(ir, 32, 7);
   uint32_t wide = cvt(ir, WEFT_TYPE_U64, WEFT_TYPE_U32, l), low[4];
   uint32_t big = op_imm(ir, WEFT_OP_SHL, WEFT_TYPE_U64, wide, 33);
   uint32_t shared = op_imm(ir, WEFT_OP_ADD, WEFT_TYPE_U64, wide, 1);
   uint32_t other = op_imm(ir, WEFT_OP_ADD, WEFT_TYPE_U64, addr, 1);
   uint32_t right = op_imm(ir, WEFT_OP_SHR, WEFT_TYPE_U64, wide, 1);

   low[0] = cvt(ir, WEFT_TYPE_U32, WEFT_TYPE_U64, big);
   low[1] = cvt(ir, WEFT_TYPE_U32, WEFT_TYPE_U64, shared);
   low[2] = cvt(ir, WEFT_TYPE_U32, WEFT_TYPE_U64, other);
   low[3] = cvt(ir, WEFT_TYPE_U32, WEFT_TYPE_U64, right);
   store(ir, shared, l, WEFT_TYPE_U32);
   for (unsigned i = 0; i < 4; i++)
      store(ir, addr, low[i], WEFT_TYPE_U32);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_validate(ir, "test"));
   CHECK(!weft_ir_opt_narrow(ir));
   ralloc_free(ir);
}

/* The 32-bit lane mask of set.* @op of @a and @b. */
static uint32_t
set2(struct weft_ir *ir, unsigned op, unsigned t, uint32_t a, uint32_t b)
{
   uint32_t d = weft_ir_vreg(ir, 32);

   emit2(ir, op, t, d, a, b);
   return d;
}

/* The same of @a and @imm. */
static uint32_t
set_imm(struct weft_ir *ir, unsigned op, unsigned t, uint32_t a, uint64_t imm)
{
   uint32_t d = weft_ir_vreg(ir, 32);

   weft_ir_set_imm(emit2(ir, op, t, d, a, 0), imm);
   return d;
}

/* The stencil's border test, x == 0 || y == 0 as NIR leaves it: min.u64
 * of the widened ids, set.ne.u64 with 0; and a signed compare with an
 * immediate and an equality of two widened values. All become 32-bit
 * compares of the ids, the min a min.u32; the 64-bit min dies, the cvt
 * that an address also reads stays. */
static void
test_narrow_compare(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t addr = mov_imm(ir, 64, 0x100000);
   uint32_t x = sreg(ir, "lane_id"), y = sreg(ir, "subgroup_id");
   uint32_t wx = cvt(ir, WEFT_TYPE_U64, WEFT_TYPE_U32, x);
   uint32_t wy = cvt(ir, WEFT_TYPE_S64, WEFT_TYPE_U32, y), m = weft_ir_vreg(ir, 64), c[3];

   emit2(ir, WEFT_OP_MIN, WEFT_TYPE_U64, m, wx, wy);
   c[0] = set_imm(ir, WEFT_OP_SET_NE, WEFT_TYPE_U64, m, 0);
   c[1] = set_imm(ir, WEFT_OP_SET_LT, WEFT_TYPE_S64, wx, 5);
   c[2] = set2(ir, WEFT_OP_SET_EQ, WEFT_TYPE_U64, wx, wy);
   store(ir, wx, x, WEFT_TYPE_U32);
   for (unsigned i = 0; i < 3; i++)
      store(ir, addr, c[i], WEFT_TYPE_U32);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_validate(ir, "test"));
   CHECK(weft_ir_opt_narrow(ir));
   CHECK(weft_ir_opt_dce(ir));
   CHECK(weft_ir_validate(ir, "after narrowing"));
   unsigned wide = 0, n = 0;
   struct weft_ir_instr *sets[3], *min = NULL;
   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      if (I->in.op == WEFT_OP_MIN)
         min = I;
      else if (I->in.op >= WEFT_OP_SET_EQ && I->in.op <= WEFT_OP_SET_GE && n < 3)
         sets[n++] = I;
      wide += (I->in.op == WEFT_OP_MIN || I->in.op == WEFT_OP_SET_NE ||
               I->in.op == WEFT_OP_SET_LT || I->in.op == WEFT_OP_SET_EQ) &&
              weft_isa_type_bits(I->in.t) == 64;
   }
   CHECK(wide == 0 && n == 3 && min);
   CHECK(min->in.t == WEFT_TYPE_U32 && min->vreg[WEFT_IR_A] == x && min->vreg[WEFT_IR_B] == y);
   CHECK(sets[0]->in.op == WEFT_OP_SET_NE && sets[0]->in.t == WEFT_TYPE_U32 &&
         sets[0]->vreg[WEFT_IR_A] == min->vreg[WEFT_IR_D] && sets[0]->in.has_imm &&
         sets[0]->in.imm == 0);
   CHECK(sets[1]->in.op == WEFT_OP_SET_LT && sets[1]->in.t == WEFT_TYPE_U32 &&
         sets[1]->vreg[WEFT_IR_A] == x && sets[1]->in.has_imm && sets[1]->in.imm == 5);
   CHECK(sets[2]->in.op == WEFT_OP_SET_EQ && sets[2]->in.t == WEFT_TYPE_U32 &&
         sets[2]->vreg[WEFT_IR_A] == x && sets[2]->vreg[WEFT_IR_B] == y);
   CHECK(weft_ir_ra(ir));
   unsigned words;
   CHECK(weft_ir_pack(ir, ir, &words) != NULL);
   ralloc_free(ir);
}

/* Compares left alone: of sign-extended values, with an immediate whose
 * 64-bit value is 2^32 or more (-1 as s64 too), through a min also read
 * elsewhere, of a value that is no widened one, and of a widened value
 * written more than once (the compare would read it later than the cvt). */
static void
test_no_narrow_compare(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t addr = mov_imm(ir, 64, 0x100000), x = sreg(ir, "lane_id");
   uint32_t multi = weft_ir_vreg_multi(ir, 32), m = weft_ir_vreg(ir, 64), c[6];
   uint32_t sx = cvt(ir, WEFT_TYPE_S64, WEFT_TYPE_S32, x);
   uint32_t wx = cvt(ir, WEFT_TYPE_U64, WEFT_TYPE_U32, x);

   weft_ir_set_imm(emit2(ir, WEFT_OP_MOV, WEFT_TYPE_U32, multi, 0, 0), 3);
   uint32_t wm = cvt(ir, WEFT_TYPE_U64, WEFT_TYPE_U32, multi);
   weft_ir_set_imm(emit2(ir, WEFT_OP_MOV, WEFT_TYPE_U32, multi, 0, 0), 4);
   emit2(ir, WEFT_OP_MIN, WEFT_TYPE_U64, m, wx, wx);
   c[0] = set_imm(ir, WEFT_OP_SET_LT, WEFT_TYPE_S64, sx, 5);
   c[1] = set_imm(ir, WEFT_OP_SET_LT, WEFT_TYPE_U64, wx, 0x100000000ull);
   c[2] = set_imm(ir, WEFT_OP_SET_EQ, WEFT_TYPE_S64, wx, (uint64_t)-1);
   c[3] = set_imm(ir, WEFT_OP_SET_NE, WEFT_TYPE_U64, m, 0);
   c[4] = set2(ir, WEFT_OP_SET_EQ, WEFT_TYPE_U64, wx, addr);
   c[5] = set_imm(ir, WEFT_OP_SET_NE, WEFT_TYPE_U64, wm, 0);
   store(ir, m, x, WEFT_TYPE_U32);
   store(ir, wx, multi, WEFT_TYPE_U32);
   for (unsigned i = 0; i < 6; i++)
      store(ir, addr, c[i], WEFT_TYPE_U32);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_validate(ir, "test"));
   CHECK(!weft_ir_opt_narrow(ir));
   ralloc_free(ir);
}

int
main(void)
{
   RUN(test_narrow_offset);
   RUN(test_no_narrow);
   RUN(test_narrow_compare);
   RUN(test_no_narrow_compare);
   return weft_test_summary();
}
