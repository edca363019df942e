/* SPDX-License-Identifier: MIT */
/*
 * The SIMD width of a kernel that does not fix its sub-group size: the
 * width with the lowest estimated cost per work-item.
 *
 * A Weft lane has its 256 registers at every width, so the code, its
 * registers and its spills are the same at SIMD 8, 16 and 32, and the
 * compiler builds it once. What changes with the width is what the device
 * does per sub-group (execution.rst, "The translator"): each instruction
 * runs once per sub-group, so its cost per work-item falls as the width
 * grows, but a global access takes the cheap path (one vector access of
 * the whole sub-group, or one scalar load for all lanes) only when every
 * lane's address follows the previous lane's, and otherwise looks each
 * lane's page up, a cost per work-item that no width saves. A kernel that
 * reads a y or z id runs in work-groups of several rows: a sub-group wider
 * than a row spans two of them, and its accesses along the row lose the
 * cheap path.
 *
 * So each address is classified by how it varies across the lanes of a
 * sub-group (the same in all, the same within a row, a step per lane, or
 * anything), and the cost of each access is taken at each width.
 */
#include <stdlib.h>

#include "util/macros.h"
#include "util/ralloc.h"

#include "weft_ir.h"

enum weft_lanes_kind {
   WEFT_LANES_UNSET,   /* not defined yet in the walk (loop-carried values) */
   WEFT_LANES_UNIFORM, /* the same in every lane (or in every lane of a row) */
   WEFT_LANES_STEP,    /* base + step * (lane), the base as UNIFORM's */
   WEFT_LANES_ANY,
};

struct weft_lanes {
   uint8_t kind;
   /* Only within a row of the work-group: a y or z id is in it, or for a
    * STEP, the step is along the x id of a kernel that has rows. */
   bool rows;
   bool is_const;
   int64_t step;  /* STEP: bytes (or units) per lane */
   uint64_t value; /* is_const */
};

/* Costs per sub-group, in units of a quarter of an ALU instruction: a
 * vector access of the whole sub-group costs about two instructions, a
 * lane's page lookup about eight, and running a sub-group at all (its
 * turn, its local ids) about sixteen. The lookup was fitted to what a
 * sub-group spanning two rows of a 16 x 16 work-group costs in the 2D
 * kernels of bench/opencl (4096 x 4096), where the device's row variant
 * ("Known lanes", execution.rst) leaves the access along the row one
 * vector access at SIMD 16 and looks its 32 lanes up at SIMD 32. The
 * stencil ran 0.89 ns per work-item slower at SIMD 8 than at 16: a
 * sub-group of 16 cost 14.2 ns more than its lanes, for an estimate of
 * 308 units, about 0.046 ns per unit. Against
 * that, a lane's lookup cost 0.86 ns (19 units) in each of the stencil's
 * six accesses, 2.4 ns (52) in each of the local transpose's two and
 * 2.7 ns (59) in the naive transpose's load: 32 lies among them. */
#define WEFT_SIMD_COST_INSTR       4
#define WEFT_SIMD_COST_VECTOR      8
#define WEFT_SIMD_COST_LANE        32 /* per lane: a page lookup */
#define WEFT_SIMD_COST_LANE_GATHER 1 /* per lane: a gather inside one page */
#define WEFT_SIMD_COST_SUBGROUP    64
#define WEFT_SIMD_LOOP_WEIGHT      8 /* iterations a loop body is counted for */
#define WEFT_SIMD_PAGE            4096

static const struct weft_lanes weft_lanes_any = { .kind = WEFT_LANES_ANY };

static struct weft_lanes
weft_lanes_const(uint64_t value)
{
   return (struct weft_lanes){ .kind = WEFT_LANES_UNIFORM, .is_const = true, .value = value };
}

static struct weft_lanes
weft_lanes_step(int64_t step, bool rows)
{
   if (step == 0)
      return (struct weft_lanes){ .kind = WEFT_LANES_UNIFORM, .rows = rows };
   return (struct weft_lanes){ .kind = WEFT_LANES_STEP, .rows = rows, .step = step };
}

/* Special registers: the x ids step by one lane (along a row when the
 * kernel has rows), the other ids are the same within a row, the rest the
 * same in the whole sub-group. */
static struct weft_lanes
weft_lanes_sreg(unsigned sreg, bool has_rows)
{
   switch (sreg) {
   case WEFT_SR_LANE_ID:
   case WEFT_SR_LOCAL_LINEAR_ID:
      return weft_lanes_step(1, false);
   case WEFT_SR_LOCAL_ID_X:
   case WEFT_SR_GLOBAL_ID_X:
      return weft_lanes_step(1, has_rows);
   case WEFT_SR_LOCAL_ID_Y:
   case WEFT_SR_LOCAL_ID_Z:
   case WEFT_SR_GLOBAL_ID_Y:
   case WEFT_SR_GLOBAL_ID_Z:
      return (struct weft_lanes){ .kind = WEFT_LANES_UNIFORM, .rows = true };
   default:
      return (struct weft_lanes){ .kind = WEFT_LANES_UNIFORM };
   }
}

static bool
weft_sreg_is_row(unsigned sreg)
{
   return sreg == WEFT_SR_LOCAL_ID_Y || sreg == WEFT_SR_LOCAL_ID_Z ||
          sreg == WEFT_SR_GLOBAL_ID_Y || sreg == WEFT_SR_GLOBAL_ID_Z;
}

/* a + sign * b. */
static struct weft_lanes
weft_lanes_add(struct weft_lanes a, struct weft_lanes b, int sign)
{
   if (a.kind == WEFT_LANES_ANY || b.kind == WEFT_LANES_ANY)
      return weft_lanes_any;
   if (a.is_const && b.is_const)
      return weft_lanes_const(a.value + (sign > 0 ? b.value : -b.value));
   return weft_lanes_step((a.kind == WEFT_LANES_STEP ? a.step : 0) +
                             sign * (b.kind == WEFT_LANES_STEP ? b.step : 0),
                          a.rows || b.rows);
}

/* a * 2^shift or a * factor of a constant factor. */
static struct weft_lanes
weft_lanes_scale(struct weft_lanes a, struct weft_lanes factor)
{
   if (a.kind == WEFT_LANES_UNIFORM && factor.kind == WEFT_LANES_UNIFORM) {
      if (a.is_const && factor.is_const)
         return weft_lanes_const(a.value * factor.value);
      return (struct weft_lanes){ .kind = WEFT_LANES_UNIFORM, .rows = a.rows || factor.rows };
   }
   if (a.kind == WEFT_LANES_STEP && factor.is_const)
      return weft_lanes_step(a.step * (int64_t)factor.value, a.rows);
   return weft_lanes_any;
}

/* Any other operation: uniform when its operands are. */
static struct weft_lanes
weft_lanes_other(const struct weft_lanes *src, unsigned n)
{
   struct weft_lanes r = { .kind = WEFT_LANES_UNIFORM };

   for (unsigned i = 0; i < n; i++) {
      if (src[i].kind == WEFT_LANES_STEP || src[i].kind == WEFT_LANES_ANY)
         return weft_lanes_any;
      r.rows |= src[i].rows;
   }
   return r;
}

/* Where two definitions of a value written more than once meet. */
static struct weft_lanes
weft_lanes_join(struct weft_lanes a, struct weft_lanes b)
{
   if (a.kind == WEFT_LANES_UNSET)
      return b;
   if (b.kind == WEFT_LANES_UNSET)
      return a;
   if (a.kind != b.kind || a.kind == WEFT_LANES_ANY ||
       (a.kind == WEFT_LANES_STEP && a.step != b.step))
      return weft_lanes_any;
   a.rows |= b.rows;
   if (!b.is_const || a.value != b.value)
      a.is_const = false;
   return a;
}

static bool
weft_lanes_equal(struct weft_lanes a, struct weft_lanes b)
{
   return a.kind == b.kind && a.rows == b.rows && a.is_const == b.is_const &&
          a.step == b.step && a.value == b.value;
}

struct weft_simd_walk {
   const struct weft_ir *ir;
   struct weft_lanes *lanes; /* per vreg */
   bool has_rows;
};

static struct weft_lanes
weft_simd_src(const struct weft_simd_walk *w, const struct weft_ir_instr *I,
              enum weft_ir_field f)
{
   uint32_t v = I->vreg[f];

   if (v) {
      /* A part of a vector is defined by the vector's load. */
      if (w->lanes[v].kind == WEFT_LANES_UNSET && w->ir->vreg_vector[v])
         return w->lanes[w->ir->vreg_vector[v]];
      return w->lanes[v];
   }
   if (f == WEFT_IR_B && (I->in.has_imm || I->in.has_lit))
      return weft_lanes_const(I->in.has_lit ? I->in.lit : I->in.imm);
   return weft_lanes_const(0);
}

static bool
weft_op_is_memory(unsigned op)
{
   switch (weft_isa_ops[op].cls) {
   case WEFT_CLASS_LD: case WEFT_CLASS_ST: case WEFT_CLASS_LDX: case WEFT_CLASS_STX:
   case WEFT_CLASS_ATOM:
      return true;
   default:
      return false;
   }
}

static bool
weft_op_is_cross_lane_uniform(unsigned op)
{
   switch (op) {
   case WEFT_OP_RED_ADD: case WEFT_OP_RED_AND: case WEFT_OP_RED_MAX: case WEFT_OP_RED_MIN:
   case WEFT_OP_RED_MUL: case WEFT_OP_RED_OR: case WEFT_OP_RED_XOR:
   case WEFT_OP_BCAST: case WEFT_OP_BALLOT: case WEFT_OP_VOTE_ALL: case WEFT_OP_VOTE_ANY:
   case WEFT_OP_VOTE_EQ:
      return true;
   default:
      return false;
   }
}

/* How the result of @I varies across the lanes. */
static struct weft_lanes
weft_simd_transfer(const struct weft_simd_walk *w, const struct weft_ir_instr *I)
{
   const struct weft_op_info *oi = &weft_isa_ops[I->in.op];
   struct weft_lanes a = weft_simd_src(w, I, WEFT_IR_A);
   struct weft_lanes b = weft_simd_src(w, I, WEFT_IR_B);
   struct weft_lanes srcs[3];
   unsigned n = 0;

   if (I->in.op == WEFT_OP_S2R)
      return weft_lanes_sreg(I->in.mod, w->has_rows);
   if (weft_op_is_cross_lane_uniform(I->in.op))
      return (struct weft_lanes){ .kind = WEFT_LANES_UNIFORM };
   switch (I->in.op) {
   case WEFT_OP_MOV:
      return b;
   case WEFT_OP_CVT:
      /* Integer widening and narrowing keep a step (ids and offsets). */
      return I->vreg[WEFT_IR_A] ? a : b;
   case WEFT_OP_ADD:
      return weft_lanes_add(a, b, 1);
   case WEFT_OP_SUB:
      return weft_lanes_add(a, b, -1);
   case WEFT_OP_MUL:
      return b.kind == WEFT_LANES_STEP ? weft_lanes_scale(b, a) : weft_lanes_scale(a, b);
   case WEFT_OP_SHL:
      if (b.is_const && b.value < 64)
         return weft_lanes_scale(a, weft_lanes_const(1ull << b.value));
      break;
   default:
      break;
   }
   if (weft_op_is_memory(I->in.op) && oi->cls != WEFT_CLASS_ATOM) {
      /* A load from one address, in every lane or in every lane of a row. */
      return a.kind == WEFT_LANES_UNIFORM
                ? (struct weft_lanes){ .kind = WEFT_LANES_UNIFORM, .rows = a.rows }
                : weft_lanes_any;
   }
   for (unsigned i = 0; i < oi->nopnd; i++) {
      const struct weft_operand_desc *od = &oi->opnd[i];

      if (od->role == WEFT_ROLE_DST || od->role == WEFT_ROLE_TARGET || od->role == WEFT_ROLE_SREG)
         continue;
      if (od->field < WEFT_IR_NUM_FIELDS && n < ARRAY_SIZE(srcs))
         srcs[n++] = weft_simd_src(w, I, od->field);
   }
   return weft_lanes_other(srcs, n);
}

enum weft_access {
   WEFT_ACCESS_VECTOR,    /* one access for the whole sub-group */
   WEFT_ACCESS_GATHER,    /* lane by lane inside one page */
   WEFT_ACCESS_LOOKUP,    /* a page lookup per lane */
};

/* The path a global access with address @addr and @bytes per lane takes
 * at @simd, in work-groups @row_width wide. */
static enum weft_access
weft_simd_global_access(struct weft_lanes addr, unsigned bytes, unsigned simd,
                        unsigned row_width)
{
   bool one_row = !addr.rows || simd <= row_width;

   if (addr.kind == WEFT_LANES_UNIFORM)
      return one_row ? WEFT_ACCESS_VECTOR : WEFT_ACCESS_LOOKUP;
   if (addr.kind != WEFT_LANES_STEP || !one_row)
      return WEFT_ACCESS_LOOKUP;
   if (addr.step == (int64_t)bytes)
      return WEFT_ACCESS_VECTOR;
   return (uint64_t)llabs(addr.step) * simd <= WEFT_SIMD_PAGE ? WEFT_ACCESS_GATHER
                                                               : WEFT_ACCESS_LOOKUP;
}

static unsigned
weft_access_cost(enum weft_access access, unsigned simd)
{
   switch (access) {
   case WEFT_ACCESS_VECTOR: return WEFT_SIMD_COST_VECTOR;
   case WEFT_ACCESS_GATHER: return WEFT_SIMD_COST_INSTR + WEFT_SIMD_COST_LANE_GATHER * simd;
   default: return WEFT_SIMD_COST_LANE * simd;
   }
}

static bool
weft_op_is_global_access(unsigned op)
{
   switch (op) {
   case WEFT_OP_LD_GLOBAL: case WEFT_OP_LD_GLOBAL_V2: case WEFT_OP_LD_GLOBAL_V4:
   case WEFT_OP_ST_GLOBAL: case WEFT_OP_ST_GLOBAL_V2: case WEFT_OP_ST_GLOBAL_V4:
      return true;
   default:
      return false;
   }
}

static bool
weft_op_is_block_access(unsigned op)
{
   switch (op) {
   case WEFT_OP_LD_BLOCK: case WEFT_OP_LD_BLOCK2: case WEFT_OP_LD_BLOCK4: case WEFT_OP_LD_BLOCK8:
   case WEFT_OP_ST_BLOCK: case WEFT_OP_ST_BLOCK2: case WEFT_OP_ST_BLOCK4: case WEFT_OP_ST_BLOCK8:
      return true;
   default:
      return false;
   }
}

/* The cost of @I for one sub-group of @simd lanes. */
static unsigned
weft_simd_instr_cost(const struct weft_simd_walk *w, const struct weft_ir_instr *I,
                     unsigned simd, unsigned row_width)
{
   const struct weft_op_info *oi = &weft_isa_ops[I->in.op];

   if (weft_op_is_global_access(I->in.op)) {
      unsigned bytes = weft_isa_type_bits(I->in.t) / 8 * MAX2(oi->vec, 1);

      return weft_access_cost(weft_simd_global_access(weft_simd_src(w, I, WEFT_IR_A), bytes,
                                                      simd, row_width), simd);
   }
   if (weft_op_is_block_access(I->in.op))
      return WEFT_SIMD_COST_VECTOR * MAX2(oi->vec, 1);
   /* Local and private memory go lane by lane; atomics and images call
    * the interpreter's handler, which goes lane by lane. */
   if (weft_op_is_memory(I->in.op))
      return weft_access_cost(WEFT_ACCESS_GATHER, simd);
   return WEFT_SIMD_COST_INSTR;
}

/* Walks @ir once: the lanes of each value defined (joined with what the
 * value had), true when one changed. */
static bool
weft_simd_classify(struct weft_simd_walk *w)
{
   /* A value written more than once under a condition that may differ
    * between lanes differs between lanes after it: from the depth of the
    * outermost such if on. */
   unsigned depth = 0, ended = 0, varying_from = ~0u;
   bool progress = false;

   list_for_each_entry(struct weft_ir_instr, I, &w->ir->instrs, link) {
      enum weft_ir_body step = weft_ir_body_step(I, &depth, &ended);

      if (step == WEFT_IR_BODY_ENDS && I->in.op != WEFT_OP_ELSE && depth < varying_from)
         varying_from = ~0u;
      if (step == WEFT_IR_BODY_OPENS && I->in.op == WEFT_OP_IF && varying_from == ~0u &&
          weft_simd_src(w, I, WEFT_IR_A).kind != WEFT_LANES_UNIFORM)
         varying_from = depth;
      uint32_t d = I->vreg[WEFT_IR_D];
      const struct weft_op_info *oi = &weft_isa_ops[I->in.op];
      if (!d || !oi->nopnd || oi->opnd[0].role != WEFT_ROLE_DST)
         continue;
      struct weft_lanes value = weft_simd_transfer(w, I);
      if (w->ir->vreg_multi[d]) {
         value = varying_from != ~0u ? weft_lanes_any : weft_lanes_join(w->lanes[d], value);
      }
      if (!weft_lanes_equal(value, w->lanes[d])) {
         w->lanes[d] = value;
         progress = true;
      }
   }
   return progress;
}

unsigned
weft_ir_choose_simd(const struct weft_ir *ir, unsigned row_width, uint64_t cost[3])
{
   static const unsigned widths[3] = { 8, 16, 32 };
   void *mem = ralloc_context(NULL);
   struct weft_simd_walk w = {
      .ir = ir,
      .lanes = rzalloc_array(mem, struct weft_lanes, ir->num_vregs + 1),
   };
   unsigned best = 1;

   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      if (I->in.op == WEFT_OP_S2R && weft_sreg_is_row(I->in.mod))
         w.has_rows = true;
   }
   /* Loop-carried values settle in a few walks; the ones that do not keep
    * what they have, which only makes the estimate rougher. */
   for (unsigned i = 0; i < 8 && weft_simd_classify(&w); i++)
      ;

   for (unsigned k = 0; k < 3; k++) {
      unsigned depth = 0, ended = 0, loops = 0;
      uint64_t weight = 1, sum = WEFT_SIMD_COST_SUBGROUP;

      list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
         if (I->in.op == WEFT_OP_LOOP && loops++ < 4)
            weight *= WEFT_SIMD_LOOP_WEIGHT;
         if (I->in.op == WEFT_OP_ENDLOOP && loops && --loops < 4)
            weight /= WEFT_SIMD_LOOP_WEIGHT;
         weft_ir_body_step(I, &depth, &ended);
         sum += weight * weft_simd_instr_cost(&w, I, widths[k], row_width);
      }
      /* Per work-item, in 1/32 of the units. */
      cost[k] = sum * 32 / widths[k];
   }
   /* SIMD 16 unless another width is cheaper. */
   if (cost[2] < cost[best])
      best = 2;
   if (cost[0] < cost[best])
      best = 0;
   ralloc_free(mem);
   return widths[best];
}
