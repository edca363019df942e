/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of vector memory access (weft_opt_vectorize.c) and of the
 * vectors' register allocation.
 */
#include "weft_test.h"

static struct weft_ir_instr *
access(struct weft_ir *ir, unsigned op, unsigned t, uint32_t addr, uint32_t data, uint32_t off)
{
   struct weft_ir_instr *I = weft_ir_emit(ir, op, t, 0);

   weft_ir_set(I, WEFT_IR_A, addr);
   weft_ir_set(I, WEFT_IR_D, data);
   I->in.imm = off;
   return I;
}

/* out[i] = in[i] for a float4: four loads, four stores in order. One
 * ld.global.v4 and one st.global.v4 of the same four registers remain. */
static void
test_vectorize_copy(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t in = mov_imm(ir, 64, 0x100000), out = mov_imm(ir, 64, 0x200000), v[4];

   for (unsigned i = 0; i < 4; i++) {
      v[i] = weft_ir_vreg(ir, 32);
      access(ir, WEFT_OP_LD_GLOBAL, WEFT_TYPE_U32, in, v[i], 16 + 4 * i);
   }
   for (unsigned i = 0; i < 4; i++)
      access(ir, WEFT_OP_ST_GLOBAL, WEFT_TYPE_U32, out, v[i], 4 * i);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_opt_vectorize(ir));
   CHECK(list_length(&ir->instrs) == 5);
   CHECK(weft_ir_validate(ir, "after vectorizing"));
   CHECK(!weft_ir_opt_dce(ir));
   struct weft_ir_instr *L = nth_instr(ir, 2), *S = nth_instr(ir, 3);
   CHECK(L->in.op == WEFT_OP_LD_GLOBAL_V4 && L->in.imm == 16);
   CHECK(S->in.op == WEFT_OP_ST_GLOBAL_V4 && S->in.imm == 0);
   CHECK(S->vreg[WEFT_IR_D] == L->vreg[WEFT_IR_D]);
   CHECK(weft_ir_ra(ir));
   CHECK(weft_ir_validate(ir, "after RA"));
   CHECK(L->in.d % 4 == 0 && S->in.d == L->in.d);

   unsigned n;
   uint64_t *w = weft_ir_pack(ir, ir, &n);
   CHECK(count_decoded(w, n, WEFT_OP_LD_GLOBAL_V4) == 1);
   CHECK(count_decoded(w, n, WEFT_OP_ST_GLOBAL_V4) == 1);
   ralloc_free(ir);
}

/* A float8 copied: eight u32 loads and stores at consecutive offsets are
 * one ld.global.v4.u64 and one st.global.v4.u64 of the same eight
 * registers, lanes 32 bytes apart, one access apart; the u32 values are
 * the parts, in order, of the 8-register vector. Six SLM loads after them
 * give a .v4.u32 and a .v2.u32: only eight are one .v4.u64. */
static void
test_vectorize_float8(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t in = mov_imm(ir, 64, 0x100000), out = mov_imm(ir, 64, 0x200000);
   uint32_t slm = mov_imm(ir, 32, 0), v[8], l[6];

   for (unsigned i = 0; i < 8; i++) {
      v[i] = weft_ir_vreg(ir, 32);
      access(ir, WEFT_OP_LD_GLOBAL, WEFT_TYPE_U32, in, v[i], 32 + 4 * i);
   }
   for (unsigned i = 0; i < 8; i++)
      access(ir, WEFT_OP_ST_GLOBAL, WEFT_TYPE_U32, out, v[i], 4 * i);
   for (unsigned i = 0; i < 6; i++) {
      l[i] = weft_ir_vreg(ir, 32);
      access(ir, WEFT_OP_LD_LOCAL, WEFT_TYPE_S32, slm, l[i], 4 * i);
   }
   for (unsigned i = 0; i < 6; i++)
      access(ir, WEFT_OP_ST_GLOBAL, WEFT_TYPE_U32, out, l[i], 256 * (i + 1));
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_opt_vectorize(ir));
   CHECK(weft_ir_validate(ir, "after vectorizing"));
   struct weft_ir_instr *L = nth_instr(ir, 3), *S = nth_instr(ir, 4);
   struct weft_ir_instr *L4 = nth_instr(ir, 5), *L2 = nth_instr(ir, 6);
   CHECK(L->in.op == WEFT_OP_LD_GLOBAL_V4 && L->in.t == WEFT_TYPE_U64 && L->in.imm == 32);
   CHECK(S->in.op == WEFT_OP_ST_GLOBAL_V4 && S->in.t == WEFT_TYPE_U64 && S->in.imm == 0);
   CHECK(S->vreg[WEFT_IR_D] == L->vreg[WEFT_IR_D] && ir->vreg_regs[L->vreg[WEFT_IR_D]] == 8);
   for (unsigned i = 0; i < 8; i++)
      CHECK(ir->vreg_vector[v[i]] == L->vreg[WEFT_IR_D] && ir->vreg_offset[v[i]] == i);
   CHECK(L4->in.op == WEFT_OP_LD_LOCAL_V4 && L4->in.t == WEFT_TYPE_U32 && L4->in.imm == 0);
   CHECK(L2->in.op == WEFT_OP_LD_LOCAL_V2 && L2->in.t == WEFT_TYPE_U32 && L2->in.imm == 16);
   CHECK(weft_ir_ra(ir));
   CHECK(weft_ir_validate(ir, "after RA"));
   CHECK(L->in.d % 8 == 0 && S->in.d == L->in.d);

   unsigned n;
   uint64_t *w = weft_ir_pack(ir, ir, &n);
   CHECK(count_decoded(w, n, WEFT_OP_LD_GLOBAL_V4) == 1);
   CHECK(count_decoded(w, n, WEFT_OP_ST_GLOBAL_V4) == 1);
   CHECK(count_decoded(w, n, WEFT_OP_ST_GLOBAL) == 6);
   ralloc_free(ir);
}

/* Two computed values stored side by side become the parts of one vector:
 * their definitions write its registers, and an add reading one part gets
 * the part's register. Three SLM loads give a .v2 and a scalar load. */
static void
test_vectorize_parts(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t out = mov_imm(ir, 64, 0x200000), slm = mov_imm(ir, 32, 64);
   uint32_t a = mov_imm(ir, 32, 1), b = weft_ir_vreg(ir, 32), l[3];
   struct weft_ir_instr *add;

   add = emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U32, b, a, 0);
   weft_ir_set_imm(add, 5);
   access(ir, WEFT_OP_ST_GLOBAL, WEFT_TYPE_U32, out, a, 8);
   access(ir, WEFT_OP_ST_GLOBAL, WEFT_TYPE_U32, out, b, 12);
   for (unsigned i = 0; i < 3; i++) {
      l[i] = weft_ir_vreg(ir, 32);
      access(ir, WEFT_OP_LD_LOCAL, WEFT_TYPE_U32, slm, l[i], 4 * i);
   }
   for (unsigned i = 0; i < 3; i++)
      access(ir, WEFT_OP_ST_GLOBAL, WEFT_TYPE_U32, out, l[i], 64 * i);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_validate(ir, "test"));
   CHECK(weft_ir_opt_vectorize(ir));
   CHECK(weft_ir_validate(ir, "after vectorizing"));
   unsigned v2 = 0, ld = 0, st_v2 = 0, st = 0;
   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      v2 += I->in.op == WEFT_OP_LD_LOCAL_V2;
      ld += I->in.op == WEFT_OP_LD_LOCAL;
      st_v2 += I->in.op == WEFT_OP_ST_GLOBAL_V2;
      st += I->in.op == WEFT_OP_ST_GLOBAL;
   }
   CHECK(v2 == 1 && ld == 1 && st_v2 == 1 && st == 3);
   CHECK(weft_ir_ra(ir));
   CHECK(weft_ir_validate(ir, "after RA"));
   CHECK(add->in.d == add->in.a + 1);
   unsigned n;
   CHECK(weft_ir_pack(ir, ir, &n) != NULL);
   ralloc_free(ir);
}

/* A vector takes registers none of which is busy: with r0:r1 free again
 * (the args pointer died) and the 32-bit value in r2 live across the load,
 * the four registers it gets are not r0..r3. */
static void
test_vector_registers_free(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t args = sreg(ir, "args"), b = sreg(ir, "lane_id"), in = weft_ir_vreg(ir, 64), v[4];
   struct weft_ir_instr *L, *S;

   access(ir, WEFT_OP_LD_GLOBAL, WEFT_TYPE_U64, args, in, 0);

   for (unsigned i = 0; i < 4; i++) {
      v[i] = weft_ir_vreg(ir, 32);
      access(ir, WEFT_OP_LD_GLOBAL, WEFT_TYPE_U32, in, v[i], 4 * i);
   }
   for (unsigned i = 0; i < 4; i++)
      access(ir, WEFT_OP_ST_GLOBAL, WEFT_TYPE_U32, in, v[i], 64 + 4 * i);
   S = access(ir, WEFT_OP_ST_GLOBAL, WEFT_TYPE_U32, in, b, 128);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_opt_vectorize(ir));
   CHECK(weft_ir_ra(ir));
   L = nth_instr(ir, 3);
   CHECK(L->in.op == WEFT_OP_LD_GLOBAL_V4);
   CHECK(S->in.d < L->in.d || S->in.d >= L->in.d + 4);
   CHECK(S->in.d != S->in.a && S->in.d != S->in.a + 1);
   ralloc_free(ir);
}

/* An unrolled sgemm step, at[ty][k] * bt[k][tx]: the four loads of the
 * row at consecutive offsets, each followed by a column's load and the
 * arithmetic, become one ld.local.v4 where the first was; the column's
 * loads, 64 bytes apart, stay. A store to local memory between the
 * row's loads keeps them where they are. */
static void
test_vectorize_past_loads(void)
{
   for (unsigned stored = 0; stored < 2; stored++) {
      struct weft_ir *ir = weft_ir_create(NULL);
      uint32_t at = mov_imm(ir, 32, 0), bt = mov_imm(ir, 32, 1024), acc = mov_imm(ir, 32, 0);

      for (unsigned k = 0; k < 4; k++) {
         uint32_t a = weft_ir_vreg(ir, 32), b = weft_ir_vreg(ir, 32), sum = weft_ir_vreg(ir, 32);
         uint32_t next = weft_ir_vreg(ir, 32);

         if (stored && k == 1)
            access(ir, WEFT_OP_ST_LOCAL, WEFT_TYPE_U32, bt, acc, 0);
         access(ir, WEFT_OP_LD_LOCAL, WEFT_TYPE_U32, at, a, 4 * k);
         access(ir, WEFT_OP_LD_LOCAL, WEFT_TYPE_U32, bt, b, 64 * k);
         emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U32, sum, a, b);
         emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U32, next, acc, sum);
         acc = next;
      }
      store(ir, mov_imm(ir, 64, 0x1000), acc, WEFT_TYPE_U32);
      weft_ir_emit(ir, WEFT_OP_END, 0, 0);
      CHECK(weft_ir_validate(ir, "test"));
      if (stored) {
         /* The three loads after the store give a .v2 (at 4 and 8) and a
          * scalar load. */
         CHECK(weft_ir_opt_vectorize(ir));
         CHECK(count_ops(ir, WEFT_OP_LD_LOCAL_V2) == 1 && count_ops(ir, WEFT_OP_LD_LOCAL) == 6);
         ralloc_free(ir);
         continue;
      }
      CHECK(weft_ir_opt_vectorize(ir));
      CHECK(weft_ir_validate(ir, "after vectorizing"));
      struct weft_ir_instr *L = nth_instr(ir, 3);
      CHECK(L->in.op == WEFT_OP_LD_LOCAL_V4 && L->in.imm == 0 && L->vreg[WEFT_IR_A] == at);
      CHECK(count_ops(ir, WEFT_OP_LD_LOCAL_V4) == 1 && count_ops(ir, WEFT_OP_LD_LOCAL) == 4);
      CHECK(weft_ir_ra(ir));
      CHECK(weft_ir_validate(ir, "after RA"));
      ralloc_free(ir);
   }
}

/* Left scalar: a gap between the offsets, a different base, a store of one
 * value twice, and 8-bit accesses. */
static void
test_no_vectorize(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t p = mov_imm(ir, 64, 0x100000), q = mov_imm(ir, 64, 0x200000);
   uint32_t x = mov_imm(ir, 32, 1), v[2];

   for (unsigned i = 0; i < 2; i++) {
      v[i] = weft_ir_vreg(ir, 32);
      access(ir, WEFT_OP_LD_GLOBAL, WEFT_TYPE_U32, p, v[i], 8 * i);
   }
   access(ir, WEFT_OP_ST_GLOBAL, WEFT_TYPE_U32, p, v[0], 0);
   access(ir, WEFT_OP_ST_GLOBAL, WEFT_TYPE_U32, q, v[1], 40);
   access(ir, WEFT_OP_ST_GLOBAL, WEFT_TYPE_U32, q, x, 8);
   access(ir, WEFT_OP_ST_GLOBAL, WEFT_TYPE_U32, q, x, 12);
   access(ir, WEFT_OP_ST_GLOBAL, WEFT_TYPE_U8, q, v[0], 16);
   access(ir, WEFT_OP_ST_GLOBAL, WEFT_TYPE_U8, q, v[1], 17);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_validate(ir, "test"));
   CHECK(!weft_ir_opt_vectorize(ir));
   ralloc_free(ir);
}

int
main(void)
{
   RUN(test_vectorize_copy);
   RUN(test_vectorize_float8);
   RUN(test_vectorize_parts);
   RUN(test_vector_registers_free);
   RUN(test_vectorize_past_loads);
   RUN(test_no_vectorize);
   return weft_test_summary();
}
