/* SPDX-License-Identifier: MIT */
/*
 * What the unit tests of the weft backend share: CHECK(), a runner that
 * prints one line per test and the "N passed, M failed" summary, and IR
 * builders for the programs the tests feed to the passes.
 */
#ifndef WEFT_TEST_H
#define WEFT_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/macros.h"
#include "util/ralloc.h"
#include "weft_ir.h"

static int weft_test_passed, weft_test_failed, weft_test_checks_failed;

#define CHECK(cond)                                                            \
   do {                                                                        \
      if (!(cond)) {                                                           \
         weft_test_checks_failed++;                                            \
         fprintf(stderr, "%s:%d: %s: FAILED: %s\n", __FILE__, __LINE__,        \
                 __func__, #cond);                                             \
      }                                                                        \
   } while (0)

/* Runs one test: "ok" when none of its CHECKs failed. */
#define RUN(test) weft_test_run(#test, test)

static inline void
weft_test_run(const char *name, void (*test)(void))
{
   int before = weft_test_checks_failed;

   test();
   fflush(stderr);
   if (weft_test_checks_failed == before) {
      weft_test_passed++;
      printf("ok      %s\n", name);
   } else {
      weft_test_failed++;
      printf("FAILED  %s\n", name);
   }
   fflush(stdout);
}

static inline int
weft_test_summary(void)
{
   printf("%d passed, %d failed\n", weft_test_passed, weft_test_failed);
   return weft_test_failed ? 1 : 0;
}

/* @pass on a valid @ir, then the CSE and DCE it leaves work for, each
 * making progress; valid after. */
static inline void
check_pass_cse_dce(struct weft_ir *ir, bool (*pass)(struct weft_ir *))
{
   CHECK(weft_ir_validate(ir, "test"));
   CHECK(pass(ir));
   CHECK(weft_ir_opt_cse(ir));
   CHECK(weft_ir_opt_dce(ir));
   CHECK(weft_ir_validate(ir, "after the pass, CSE and DCE"));
}

/* d = op(a, b); no b when @b is 0. */
static inline struct weft_ir_instr *
emit2(struct weft_ir *ir, unsigned op, unsigned t, uint32_t d, uint32_t a, uint32_t b)
{
   struct weft_ir_instr *I = weft_ir_emit(ir, op, t, 0);
   weft_ir_set(I, WEFT_IR_D, d);
   weft_ir_set(I, WEFT_IR_A, a);
   if (b)
      weft_ir_set(I, WEFT_IR_B, b);
   return I;
}

static inline uint32_t
mov_imm(struct weft_ir *ir, unsigned bits, uint64_t v)
{
   uint32_t d = weft_ir_vreg(ir, bits);
   struct weft_ir_instr *I = weft_ir_emit(ir, WEFT_OP_MOV, bits == 64 ? WEFT_TYPE_U64 : WEFT_TYPE_U32, 0);
   weft_ir_set(I, WEFT_IR_D, d);
   weft_ir_set_imm(I, v);
   return d;
}

/* s2r of the special register @name: a value no pass knows (u64: args). */
static inline uint32_t
sreg(struct weft_ir *ir, const char *name)
{
   bool wide = !strcmp(name, "args");
   uint32_t d = weft_ir_vreg(ir, wide ? 64 : 32);
   struct weft_ir_instr *I = weft_ir_emit(ir, WEFT_OP_S2R, wide ? WEFT_TYPE_U64 : WEFT_TYPE_U32, 0);

   for (unsigned i = 0; i < WEFT_ISA_NUM_SREGS; i++) {
      if (weft_isa_sregs[i].name && !strcmp(weft_isa_sregs[i].name, name))
         I->in.mod = i;
   }
   weft_ir_set(I, WEFT_IR_D, d);
   return d;
}

static inline void
store(struct weft_ir *ir, uint32_t addr, uint32_t v, unsigned t)
{
   struct weft_ir_instr *I = weft_ir_emit(ir, WEFT_OP_ST_GLOBAL, t, 0);
   weft_ir_set(I, WEFT_IR_A, addr);
   weft_ir_set(I, WEFT_IR_D, v);
}

/* The smallest complete program, allocated: 1 stored to 0x1000. Its first
 * instruction is the mov of the 1. */
static inline struct weft_ir *
build_allocated_store(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t x = mov_imm(ir, 32, 1);

   store(ir, mov_imm(ir, 64, 0x1000), x, WEFT_TYPE_U32);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   weft_ir_ra(ir);
   return ir;
}

/* The @n-th instruction of @ir (from 0). */
static inline struct weft_ir_instr *
nth_instr(struct weft_ir *ir, unsigned n)
{
   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      if (!n--)
         return I;
   }
   return NULL;
}

/* How many instructions of @ir have opcode @op. */
static inline unsigned
count_ops(struct weft_ir *ir, unsigned op)
{
   unsigned n = 0;

   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link)
      n += I->in.op == op;
   return n;
}

/* The packed program @w (@n words) decoded into @out (at most @max
 * instructions, stopping at the first word that does not decode). */
static inline unsigned
decode_all(const uint64_t *w, unsigned n, struct weft_inst *out, unsigned max)
{
   unsigned count = 0;

   for (unsigned i = 0; w && i < n && count < max;) {
      int k = weft_isa_decode(&w[i], n - i, &out[count]);
      if (k <= 0)
         break;
      count++;
      i += k;
   }
   return count;
}

/* How many instructions of opcode @op the packed program decodes to. */
static inline unsigned
count_decoded(const uint64_t *w, unsigned n, unsigned op)
{
   struct weft_inst in[256];
   unsigned count = 0, total = decode_all(w, n, in, ARRAY_SIZE(in));

   for (unsigned i = 0; i < total; i++)
      count += in[i].op == op;
   return count;
}

#endif
