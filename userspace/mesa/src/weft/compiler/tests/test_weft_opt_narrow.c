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

int
main(void)
{
   RUN(test_narrow_offset);
   RUN(test_no_narrow);
   return weft_test_summary();
}
