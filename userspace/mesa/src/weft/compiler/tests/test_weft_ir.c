/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the weft IR passes: validation, dead-code elimination,
 * register allocation (pairs, reuse, interference, running out) and
 * packing through the ISA encoder, checked by decoding the words back.
 */
#include <stdio.h>
#include <string.h>

#include "util/ralloc.h"
#include "weft_ir.h"

static int passed, failed;

#define CHECK(cond)                                                            \
   do {                                                                        \
      if (cond) {                                                              \
         passed++;                                                             \
      } else {                                                                 \
         failed++;                                                             \
         fprintf(stderr, "%s:%d: %s: FAILED: %s\n", __FILE__, __LINE__,        \
                 __func__, #cond);                                             \
      }                                                                        \
   } while (0)

static struct weft_ir_instr *
emit2(struct weft_ir *ir, unsigned op, unsigned t, uint32_t d, uint32_t a, uint32_t b)
{
   struct weft_ir_instr *I = weft_ir_emit(ir, op, t, 0);
   weft_ir_set(I, WEFT_IR_D, d);
   weft_ir_set(I, WEFT_IR_A, a);
   if (b)
      weft_ir_set(I, WEFT_IR_B, b);
   return I;
}

static uint32_t
mov_imm(struct weft_ir *ir, unsigned bits, uint64_t v)
{
   uint32_t d = weft_ir_vreg(ir, bits);
   struct weft_ir_instr *I = weft_ir_emit(ir, WEFT_OP_MOV, bits == 64 ? WEFT_TYPE_U64 : WEFT_TYPE_U32, 0);
   weft_ir_set(I, WEFT_IR_D, d);
   weft_ir_set_imm(I, v);
   return d;
}

static void
store(struct weft_ir *ir, uint32_t addr, uint32_t v, unsigned t)
{
   struct weft_ir_instr *I = weft_ir_emit(ir, WEFT_OP_ST_GLOBAL, t, 0);
   weft_ir_set(I, WEFT_IR_A, addr);
   weft_ir_set(I, WEFT_IR_D, v);
}

static void
test_validate_catches_errors(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t a = weft_ir_vreg(ir, 32), d = weft_ir_vreg(ir, 32);

   /* a used before its definition, and no end */
   emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U32, d, a, a);
   fprintf(stderr, "(expected errors follow)\n");
   CHECK(!weft_ir_validate(ir, "test"));
   ralloc_free(ir);

   ir = weft_ir_create(NULL);
   uint32_t w = weft_ir_vreg(ir, 64);
   /* a 64-bit value where the operand is 32-bit */
   struct weft_ir_instr *I = weft_ir_emit(ir, WEFT_OP_MOV, WEFT_TYPE_U32, 0);
   weft_ir_set(I, WEFT_IR_D, w);
   weft_ir_set_imm(I, 1);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(!weft_ir_validate(ir, "test"));
   ralloc_free(ir);
   fprintf(stderr, "(end of expected errors)\n");
}

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
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t addr = mov_imm(ir, 64, 0x300000);
   uint32_t v[40];

   for (unsigned i = 0; i < 40; i++)
      v[i] = mov_imm(ir, 32, i);
   for (unsigned i = 0; i < 40; i++)
      store(ir, addr, v[i], WEFT_TYPE_U32);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
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
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t addr = mov_imm(ir, 64, 0x300000);
   uint32_t v[300];

   for (unsigned i = 0; i < 300; i++)
      v[i] = mov_imm(ir, 32, i);
   for (unsigned i = 0; i < 300; i++)
      store(ir, addr, v[i], WEFT_TYPE_U32);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   fprintf(stderr, "(expected error follows)\n");
   CHECK(!weft_ir_ra(ir));
   ralloc_free(ir);
}

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
   for (unsigned i = 0; w && i < n;) {
      struct weft_inst in;
      int k = weft_isa_decode(&w[i], n - i, &in);
      if (k <= 0)
         break;
      if (in.op == WEFT_OP_ST_LOCAL && in.imm == 4)
         ops |= 1;
      if (in.op == WEFT_OP_BAR)
         ops |= 2;
      if (in.op == WEFT_OP_FENCE_DEV)
         ops |= 4;
      if (in.op == WEFT_OP_ATOM_LOCAL_ADD)
         ops |= 8;
      if (in.op == WEFT_OP_ATOM_GLOBAL_CMPXCHG)
         ops |= 16;
      if (in.op == WEFT_OP_LD_LOCAL)
         ops |= 32;
      i += k;
   }
   CHECK(ops == 31);
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
   for (unsigned i = 0; w && i < n;) {
      struct weft_inst in;
      int k = weft_isa_decode(&w[i], n - i, &in);
      if (k <= 0)
         break;
      if (in.op == WEFT_OP_SHFL_XOR && in.has_imm && in.imm == 1)
         seen |= 1;
      if (in.op == WEFT_OP_BCAST && !in.has_imm)
         seen |= 2;
      if (in.op == WEFT_OP_RED_MIN && in.t == WEFT_TYPE_S32)
         seen |= 4;
      if (in.op == WEFT_OP_ISCAN_ADD && in.t == WEFT_TYPE_U64)
         seen |= 8;
      if (in.op == WEFT_OP_ESCAN_MAX && in.t == WEFT_TYPE_F32)
         seen |= 16;
      if (in.op == WEFT_OP_VOTE_ALL)
         seen |= 32;
      i += k;
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
   for (unsigned i = 0; w && i < n;) {
      struct weft_inst in;
      int k = weft_isa_decode(&w[i], n - i, &in);
      if (k <= 0)
         break;
      if (in.op == WEFT_OP_ST_SCRATCH)
         seen |= 1;
      if (in.op == WEFT_OP_LD_SCRATCH && in.t == WEFT_TYPE_U8 && in.imm == 3)
         seen |= 2;
      i += k;
   }
   CHECK(seen == 3);
   ralloc_free(ir);
}

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

   unsigned n, ld = 0, st = 0;
   uint64_t *w = weft_ir_pack(ir, ir, &n);
   for (unsigned i = 0; w && i < n;) {
      struct weft_inst in;
      int k = weft_isa_decode(&w[i], n - i, &in);
      if (k <= 0)
         break;
      ld += in.op == WEFT_OP_LD_SCRATCH;
      st += in.op == WEFT_OP_ST_SCRATCH;
      i += k;
   }
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

int
main(void)
{
   test_validate_catches_errors();
   test_dce();
   test_ra_pairs_and_reuse();
   test_ra_interference();
   test_ra_out_of_registers();
   test_pack_roundtrip();
   test_ra_loop_extends_liveness();
   test_dce_keeps_memory_and_sync();
   test_xlane_pack();
   test_scratch();
   test_spill();
   test_spill_loop_variable();
   printf("%d passed, %d failed\n", passed, failed);
   return failed ? 1 : 0;
}
