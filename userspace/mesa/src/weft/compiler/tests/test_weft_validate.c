/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of IR validation (weft_validate.c): programs that break each
 * rule are rejected, a correct one passes, before and after allocation.
 */
#include "weft_test.h"

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
test_validate_accepts(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t addr = mov_imm(ir, 64, 0x1000), x = mov_imm(ir, 32, 1);
   uint32_t r = weft_ir_vreg_multi(ir, 32);
   struct weft_ir_instr *I = weft_ir_emit(ir, WEFT_OP_IF, 0, 0);

   weft_ir_set(I, WEFT_IR_A, x);
   emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U32, r, x, x);
   I->target = weft_ir_emit(ir, WEFT_OP_ENDIF, 0, 0);
   emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U32, r, r, x);         /* a NIR register: written twice */
   store(ir, addr, r, WEFT_TYPE_U32);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_validate(ir, "test"));
   CHECK(weft_ir_ra(ir));
   CHECK(weft_ir_validate(ir, "after RA"));
   ralloc_free(ir);
}

/* A program breaking one rule: its last instruction is END unless @no_end. */
static bool
validates(void (*build)(struct weft_ir *ir), bool no_end)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   bool ok;

   build(ir);
   if (!no_end)
      weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   ok = weft_ir_validate(ir, "test");
   ralloc_free(ir);
   return ok;
}

static void
build_defined_twice(struct weft_ir *ir)
{
   uint32_t x = mov_imm(ir, 32, 1);
   struct weft_ir_instr *I = weft_ir_emit(ir, WEFT_OP_MOV, WEFT_TYPE_U32, 0);

   weft_ir_set(I, WEFT_IR_D, x);
   weft_ir_set_imm(I, 2);
}

static void
build_unclosed_if(struct weft_ir *ir)
{
   uint32_t x = mov_imm(ir, 32, 1);
   struct weft_ir_instr *I = weft_ir_emit(ir, WEFT_OP_IF, 0, 0);

   weft_ir_set(I, WEFT_IR_A, x);
   I->target = nth_instr(ir, 0);
}

static void
build_unbalanced(struct weft_ir *ir)
{
   weft_ir_emit(ir, WEFT_OP_ENDLOOP, 0, 0);
}

static void
build_no_target(struct weft_ir *ir)
{
   uint32_t x = mov_imm(ir, 32, 1);
   struct weft_ir_instr *I = weft_ir_emit(ir, WEFT_OP_IF, 0, 0);

   weft_ir_set(I, WEFT_IR_A, x);
   weft_ir_emit(ir, WEFT_OP_ENDIF, 0, 0);
}

static void
build_stray_field(struct weft_ir *ir)
{
   uint32_t x = mov_imm(ir, 32, 1);
   struct weft_ir_instr *I = weft_ir_emit(ir, WEFT_OP_NOT, WEFT_TYPE_U32, 0);

   weft_ir_set(I, WEFT_IR_D, weft_ir_vreg(ir, 32));
   weft_ir_set(I, WEFT_IR_A, x);
   weft_ir_set(I, WEFT_IR_C, x);                            /* not has no c */
}

static void
build_undefined_opcode(struct weft_ir *ir)
{
   weft_ir_emit(ir, 0, 0, 0);
}

static void
build_nothing(struct weft_ir *ir)
{
   mov_imm(ir, 32, 1);
}

static void
test_validate_rules(void)
{
   fprintf(stderr, "(expected errors follow)\n");
   CHECK(!validates(build_defined_twice, false));
   CHECK(!validates(build_unclosed_if, false));
   CHECK(!validates(build_unbalanced, false));
   CHECK(!validates(build_no_target, false));
   CHECK(!validates(build_stray_field, false));
   CHECK(!validates(build_undefined_opcode, false));
   CHECK(!validates(build_nothing, true));
   fprintf(stderr, "(end of expected errors)\n");
   CHECK(validates(build_nothing, false));
}

/* After allocation the encoder is the judge: a register out of range fails. */
static void
test_validate_allocated_encodes(void)
{
   struct weft_ir *ir = build_allocated_store();

   CHECK(ir->allocated);
   CHECK(weft_ir_validate(ir, "after RA"));
   nth_instr(ir, 0)->in.d = 0xffff;
   fprintf(stderr, "(expected error follows)\n");
   CHECK(!weft_ir_validate(ir, "after RA"));
   ralloc_free(ir);
}

int
main(void)
{
   RUN(test_validate_catches_errors);
   RUN(test_validate_accepts);
   RUN(test_validate_rules);
   RUN(test_validate_allocated_encodes);
   return weft_test_summary();
}
