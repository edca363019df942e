/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of packing (weft_pack.c): literals, every operand form through
 * the encoder (checked by decoding the words back) and branch offsets.
 */
#include "weft_test.h"

static void
test_pack_roundtrip(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t addr = mov_imm(ir, 64, 0x123456789abull);   /* needs a literal */
   uint32_t x = mov_imm(ir, 32, 7);
   store(ir, addr, x, WEFT_TYPE_U32);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_ra(ir));

   unsigned n;
   uint64_t *w = weft_ir_pack(ir, ir, &n);
   CHECK(w && n == 5);
   struct weft_inst in;
   int k = weft_isa_decode(w, n, &in);
   CHECK(k == 2 && in.op == WEFT_OP_MOV && in.has_lit && in.lit == 0x123456789abull);
   k = weft_isa_decode(w + 2, n - 2, &in);
   CHECK(k == 1 && in.op == WEFT_OP_MOV && in.has_imm && in.imm == 7);
   k = weft_isa_decode(w + 3, 2, &in);
   CHECK(k == 1 && in.op == WEFT_OP_ST_GLOBAL);
   ralloc_free(ir);
}

/* Cross-lane ops: a shuffle with an immediate lane and one with a register,
 * typed reductions and scans, votes: through RA, validation and packing. */
static void
test_xlane_pack(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t addr = mov_imm(ir, 64, 0x100000);
   uint32_t x = mov_imm(ir, 32, 5), y = mov_imm(ir, 64, 9), lane = mov_imm(ir, 32, 3);
   uint32_t d[6];
   struct weft_ir_instr *I;

   for (unsigned i = 0; i < 6; i++)
      d[i] = weft_ir_vreg(ir, i == 3 ? 64 : 32);
   I = weft_ir_emit(ir, WEFT_OP_SHFL_XOR, WEFT_TYPE_U32, 0);
   weft_ir_set(I, WEFT_IR_D, d[0]);
   weft_ir_set(I, WEFT_IR_A, x);
   weft_ir_set_imm(I, 1);
   emit2(ir, WEFT_OP_BCAST, WEFT_TYPE_U32, d[1], x, lane);
   emit2(ir, WEFT_OP_RED_MIN, WEFT_TYPE_S32, d[2], x, 0);
   emit2(ir, WEFT_OP_ISCAN_ADD, WEFT_TYPE_U64, d[3], y, 0);
   emit2(ir, WEFT_OP_ESCAN_ADD + 3, WEFT_TYPE_F32, d[4], x, 0);   /* escan.max */
   emit2(ir, WEFT_OP_VOTE_ALL, 0, d[5], x, 0);
   for (unsigned i = 0; i < 6; i++)
      store(ir, addr, d[i], i == 3 ? WEFT_TYPE_U64 : WEFT_TYPE_U32);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_validate(ir, "test"));
   CHECK(weft_ir_ra(ir));
   CHECK(weft_ir_validate(ir, "after RA"));

   unsigned n, seen = 0;
   uint64_t *w = weft_ir_pack(ir, ir, &n);
   CHECK(w != NULL);
   struct weft_inst in[64];
   unsigned count = decode_all(w, n, in, ARRAY_SIZE(in));
   for (unsigned i = 0; i < count; i++) {
      if (in[i].op == WEFT_OP_SHFL_XOR && in[i].has_imm && in[i].imm == 1)
         seen |= 1;
      if (in[i].op == WEFT_OP_BCAST && !in[i].has_imm)
         seen |= 2;
      if (in[i].op == WEFT_OP_RED_MIN && in[i].t == WEFT_TYPE_S32)
         seen |= 4;
      if (in[i].op == WEFT_OP_ISCAN_ADD && in[i].t == WEFT_TYPE_U64)
         seen |= 8;
      if (in[i].op == WEFT_OP_ESCAN_MAX && in[i].t == WEFT_TYPE_F32)
         seen |= 16;
      if (in[i].op == WEFT_OP_VOTE_ALL)
         seen |= 32;
   }
   CHECK(seen == 63);
   ralloc_free(ir);
}

/* Scratch stores stay through DCE; a u8 scratch load packs with its offset. */
static void
test_scratch(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t off = mov_imm(ir, 32, 16), x = mov_imm(ir, 32, 5), d = weft_ir_vreg(ir, 32);
   uint32_t addr = mov_imm(ir, 64, 0x100000);
   struct weft_ir_instr *I = weft_ir_emit(ir, WEFT_OP_ST_SCRATCH, WEFT_TYPE_U32, 0);

   weft_ir_set(I, WEFT_IR_A, off);
   weft_ir_set(I, WEFT_IR_D, x);
   I = weft_ir_emit(ir, WEFT_OP_LD_SCRATCH, WEFT_TYPE_U8, 0);
   weft_ir_set(I, WEFT_IR_D, d);
   weft_ir_set(I, WEFT_IR_A, off);
   I->in.imm = 3;
   store(ir, addr, d, WEFT_TYPE_U32);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_validate(ir, "test"));
   CHECK(!weft_ir_opt_dce(ir));
   CHECK(weft_ir_ra(ir));

   unsigned n, seen = 0;
   uint64_t *w = weft_ir_pack(ir, ir, &n);
   struct weft_inst in[64];
   unsigned count = decode_all(w, n, in, ARRAY_SIZE(in));
   for (unsigned i = 0; i < count; i++) {
      if (in[i].op == WEFT_OP_ST_SCRATCH)
         seen |= 1;
      if (in[i].op == WEFT_OP_LD_SCRATCH && in[i].t == WEFT_TYPE_U8 && in[i].imm == 3)
         seen |= 2;
   }
   CHECK(seen == 3);
   ralloc_free(ir);
}

/* Branch targets become byte offsets from the branch: if to its else,
 * else to its endif, loop to its endloop. */
static void
test_pack_branch_offsets(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t x = mov_imm(ir, 32, 1);                          /* 0: 8 bytes */
   struct weft_ir_instr *If = weft_ir_emit(ir, WEFT_OP_IF, 0, 0);      /* 8 */
   weft_ir_set(If, WEFT_IR_A, x);
   mov_imm(ir, 64, 0x123456789abull);                        /* 16: a literal, 16 bytes */
   struct weft_ir_instr *Else = weft_ir_emit(ir, WEFT_OP_ELSE, 0, 0);  /* 32 */
   struct weft_ir_instr *L = weft_ir_emit(ir, WEFT_OP_LOOP, 0, 0);     /* 40 */
   struct weft_ir_instr *B = weft_ir_emit(ir, WEFT_OP_BREAK, 0, 0);    /* 48 */
   weft_ir_set(B, WEFT_IR_A, x);
   L->target = weft_ir_emit(ir, WEFT_OP_ENDLOOP, 0, 0);               /* 56 */
   struct weft_ir_instr *End = weft_ir_emit(ir, WEFT_OP_ENDIF, 0, 0); /* 64 */
   If->target = Else;
   Else->target = End;
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_ra(ir));

   unsigned n;
   uint64_t *w = weft_ir_pack(ir, ir, &n);
   CHECK(w && n == 10);
   struct weft_inst in;
   CHECK(w && weft_isa_decode(&w[1], n - 1, &in) == 1 && in.op == WEFT_OP_IF && in.imm == 24);
   CHECK(w && weft_isa_decode(&w[4], n - 4, &in) == 1 && in.op == WEFT_OP_ELSE && in.imm == 32);
   CHECK(w && weft_isa_decode(&w[5], n - 5, &in) == 1 && in.op == WEFT_OP_LOOP && in.imm == 16);
   CHECK(count_decoded(w, n, WEFT_OP_ENDLOOP) == 1 && count_decoded(w, n, WEFT_OP_END) == 1);
   ralloc_free(ir);
}

/* An instruction the encoder rejects makes packing fail, not crash. */
static void
test_pack_rejects(void)
{
   struct weft_ir *ir = build_allocated_store();

   CHECK(ir->allocated);
   nth_instr(ir, 0)->in.d = 0xffff;
   unsigned n;
   CHECK(weft_ir_pack(ir, ir, &n) == NULL);
   ralloc_free(ir);
}

int
main(void)
{
   RUN(test_pack_roundtrip);
   RUN(test_xlane_pack);
   RUN(test_scratch);
   RUN(test_pack_branch_offsets);
   RUN(test_pack_rejects);
   return weft_test_summary();
}
