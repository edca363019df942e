/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the choice of a kernel's SIMD width (weft_simd.c): the
 * cost per work-item at SIMD 8, 16 and 32 of the memory paths the lanes'
 * addresses take.
 */
#include "weft_test.h"

/* d = a op imm. */
static uint32_t
emit_imm(struct weft_ir *ir, unsigned op, unsigned bits, uint32_t a, uint64_t imm)
{
   uint32_t d = weft_ir_vreg(ir, bits);
   struct weft_ir_instr *I = emit2(ir, op, bits == 64 ? WEFT_TYPE_U64 : WEFT_TYPE_U32, d, a, 0);

   weft_ir_set_imm(I, imm);
   return d;
}

static uint32_t
emit_op(struct weft_ir *ir, unsigned op, unsigned bits, uint32_t a, uint32_t b)
{
   uint32_t d = weft_ir_vreg(ir, bits);

   emit2(ir, op, bits == 64 ? WEFT_TYPE_U64 : WEFT_TYPE_U32, d, a, b);
   return d;
}

static uint32_t
widen(struct weft_ir *ir, uint32_t a)
{
   uint32_t d = weft_ir_vreg(ir, 64);
   struct weft_ir_instr *I = weft_ir_emit(ir, WEFT_OP_CVT, WEFT_TYPE_U64, WEFT_TYPE_U32);

   weft_ir_set(I, WEFT_IR_D, d);
   weft_ir_set(I, WEFT_IR_A, a);
   return d;
}

static uint32_t
load(struct weft_ir *ir, uint32_t addr)
{
   uint32_t d = weft_ir_vreg(ir, 32);

   emit2(ir, WEFT_OP_LD_GLOBAL, WEFT_TYPE_U32, d, addr, 0);
   return d;
}

/* base + (index << 2): the address of a 32-bit element. */
static uint32_t
element(struct weft_ir *ir, uint32_t base, uint32_t index)
{
   return emit_op(ir, WEFT_OP_ADD, 64, base, emit_imm(ir, WEFT_OP_SHL, 64, index, 2));
}

/* out[i] = in[i] + in[i + n] with i = @index (64-bit) and n a kernel
 * argument: two loads and a store on the same base's step. */
static unsigned
choose(struct weft_ir *ir, uint32_t index, unsigned row_width, uint64_t cost[3])
{
   uint32_t args = sreg(ir, "args");
   uint32_t n = widen(ir, load(ir, args)), a = element(ir, args, index);
   uint32_t below = emit_op(ir, WEFT_OP_ADD, 64, a, emit_imm(ir, WEFT_OP_SHL, 64, n, 2));
   uint32_t sum = emit_op(ir, WEFT_OP_ADD, 32, load(ir, a), load(ir, below));

   store(ir, a, sum, WEFT_TYPE_U32);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_validate(ir, "test"));
   return weft_ir_choose_simd(ir, row_width, cost);
}

/* A 1D kernel's consecutive elements: every access is one vector access
 * at every width, so the widest costs least per work-item. */
static void
test_consecutive_1d(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint64_t cost[3];

   CHECK(choose(ir, widen(ir, sreg(ir, "global_id.x")), 16, cost) == 32);
   CHECK(cost[0] > cost[1] && cost[1] > cost[2]);
   CHECK(cost[1] == 2 * cost[2] && cost[0] == 2 * cost[1]);
   ralloc_free(ir);
}

/* A 2D kernel's row, i = y * n + x (the stencil): in 16-wide work-groups a
 * sub-group of 32 spans two rows and looks each lane's page up, so SIMD 16;
 * in 32-wide ones, SIMD 32. */
static void
test_rows_2d(void)
{
   for (unsigned row_width = 16; row_width <= 32; row_width *= 2) {
      struct weft_ir *ir = weft_ir_create(NULL);
      uint32_t n = sreg(ir, "global_size.x");
      uint32_t y = sreg(ir, "global_id.y"), x = sreg(ir, "global_id.x");
      uint32_t i = emit_op(ir, WEFT_OP_ADD, 32, emit_op(ir, WEFT_OP_MUL, 32, y, n), x);
      uint64_t cost[3];

      CHECK(choose(ir, widen(ir, i), row_width, cost) == row_width);
      if (row_width == 16)
         CHECK(cost[2] > cost[1]);
      ralloc_free(ir);
   }
}

/* A naive transpose, out[x * n + y] = in[y * n + x]: the column store
 * looks each lane's page up at every width, the row load only where a
 * sub-group spans two rows. In 16-wide work-groups that load's 32 lookups
 * at SIMD 32 cost more than SIMD 16's second sub-group (measured 0.054 s
 * at SIMD 16, 0.099 s at SIMD 32 on bench/opencl's 4096 x 4096); in 32-wide
 * ones SIMD 32 keeps the load one vector access and wins. */
static void
test_transpose_2d(void)
{
   for (unsigned row_width = 16; row_width <= 32; row_width *= 2) {
      struct weft_ir *ir = weft_ir_create(NULL);
      uint32_t args = sreg(ir, "args"), n = sreg(ir, "global_size.x");
      uint32_t y = sreg(ir, "global_id.y"), x = sreg(ir, "global_id.x");
      uint32_t row = emit_op(ir, WEFT_OP_ADD, 32, emit_op(ir, WEFT_OP_MUL, 32, y, n), x);
      uint32_t column = emit_op(ir, WEFT_OP_ADD, 32, emit_op(ir, WEFT_OP_MUL, 32, x, n), y);
      uint32_t v = load(ir, element(ir, args, widen(ir, row)));
      uint64_t cost[3];

      store(ir, element(ir, args, widen(ir, column)), v, WEFT_TYPE_U32);
      weft_ir_emit(ir, WEFT_OP_END, 0, 0);
      CHECK(weft_ir_validate(ir, "test"));
      CHECK(weft_ir_choose_simd(ir, row_width, cost) == row_width);
      ralloc_free(ir);
   }
}

/* The linear local id steps by one lane across the rows of a 2D kernel,
 * the x id only along a row. */
static void
test_linear_id_ignores_rows(void)
{
   static const char *const ids[2] = { "local_linear_id", "global_id.x" };

   for (unsigned k = 0; k < 2; k++) {
      struct weft_ir *ir = weft_ir_create(NULL);
      uint64_t cost[3];

      sreg(ir, "local_id.y");
      CHECK(choose(ir, widen(ir, sreg(ir, ids[k])), 16, cost) == (k ? 16 : 32));
      ralloc_free(ir);
   }
}

/* A column, i = x * n: a page per lane at every width, the same cost per
 * work-item (3 accesses of 32 per lane); only the instructions per
 * sub-group shrink with the width. */
static void
test_column(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t i = emit_op(ir, WEFT_OP_MUL, 32, sreg(ir, "global_id.x"), sreg(ir, "global_size.x"));
   uint64_t cost[3];

   CHECK(choose(ir, widen(ir, i), 16, cost) == 32);
   /* cost[w] = per_subgroup * 32 / w + per_lane * 32 */
   CHECK(cost[2] - (cost[1] - cost[2]) == 3 * 32 * 32);
   ralloc_free(ir);
}

/* A value written in both ways of an if whose condition differs between
 * lanes differs between lanes after it, even when each way writes one
 * value for all: the access through it looks pages up lane by lane. With a
 * condition the same in all lanes, it stays one access. */
static void
test_divergent_merge(void)
{
   uint64_t cost[2][3];

   for (unsigned uniform = 0; uniform < 2; uniform++) {
      struct weft_ir *ir = weft_ir_create(NULL);
      uint32_t cond = sreg(ir, uniform ? "group_id.x" : "lane_id");
      uint32_t m = weft_ir_vreg_multi(ir, 64);
      struct weft_ir_instr *If = weft_ir_emit(ir, WEFT_OP_IF, 0, 0), *Else, *I;

      weft_ir_set(If, WEFT_IR_A, cond);
      I = emit2(ir, WEFT_OP_MOV, WEFT_TYPE_U64, m, 0, 0);
      weft_ir_set_imm(I, 0x1000);
      Else = weft_ir_emit(ir, WEFT_OP_ELSE, 0, 0);
      I = emit2(ir, WEFT_OP_MOV, WEFT_TYPE_U64, m, 0, 0);
      weft_ir_set_imm(I, 0x2000);
      If->target = Else;
      Else->target = weft_ir_emit(ir, WEFT_OP_ENDIF, 0, 0);
      uint32_t v = load(ir, m);
      store(ir, element(ir, sreg(ir, "args"), widen(ir, sreg(ir, "global_id.x"))), v,
            WEFT_TYPE_U32);
      weft_ir_emit(ir, WEFT_OP_END, 0, 0);
      CHECK(weft_ir_validate(ir, "test"));
      weft_ir_choose_simd(ir, 16, cost[uniform]);
      ralloc_free(ir);
   }
   /* The lane-by-lane load costs 32 per lane, a vector access 8 per
    * sub-group: per work-item, 32 * 32 - 8 * 32 / width more. */
   for (unsigned k = 0; k < 3; k++)
      CHECK(cost[0][k] - cost[1][k] == 32 * 32 - 8 * 32 / (8u << k));
}

/* A loop's counter, written before the loop and in it, stays the same in
 * all lanes: an access at base + counter is one access, and the loop
 * body counts more than the code around it. */
static void
test_loop_counter(void)
{
   struct weft_ir *ir = weft_ir_create(NULL);
   uint32_t base = sreg(ir, "args"), k = weft_ir_vreg_multi(ir, 64);
   struct weft_ir_instr *I = emit2(ir, WEFT_OP_MOV, WEFT_TYPE_U64, k, 0, 0);
   uint64_t cost[3], flat[3];

   weft_ir_set_imm(I, 0);
   struct weft_ir_instr *Loop = weft_ir_emit(ir, WEFT_OP_LOOP, 0, 0);
   uint32_t v = load(ir, emit_op(ir, WEFT_OP_ADD, 64, base, k));
   store(ir, element(ir, base, widen(ir, sreg(ir, "global_id.x"))), v, WEFT_TYPE_U32);
   I = emit2(ir, WEFT_OP_ADD, WEFT_TYPE_U64, k, k, 0);
   weft_ir_set_imm(I, 4);
   Loop->target = weft_ir_emit(ir, WEFT_OP_ENDLOOP, 0, 0);
   weft_ir_emit(ir, WEFT_OP_END, 0, 0);
   CHECK(weft_ir_validate(ir, "test"));
   CHECK(weft_ir_choose_simd(ir, 16, cost) == 32);
   /* Every access of the loop is one vector access: the cost halves. */
   CHECK(cost[1] == 2 * cost[2]);
   ralloc_free(ir);

   ir = weft_ir_create(NULL);
   choose(ir, widen(ir, sreg(ir, "global_id.x")), 16, flat);
   ralloc_free(ir);
   CHECK(cost[2] > flat[2]);
}

int
main(void)
{
   RUN(test_consecutive_1d);
   RUN(test_rows_2d);
   RUN(test_transpose_2d);
   RUN(test_linear_id_ignores_rows);
   RUN(test_column);
   RUN(test_divergent_merge);
   RUN(test_loop_counter);
   return weft_test_summary();
}
