/* SPDX-License-Identifier: MIT */
/*
 * Vector memory access: NIR splits a float4 load or store into four
 * scalar accesses at [a+off], [a+off+4], ...; adjacent in the program, on
 * one base, at consecutive offsets, they become one ld/st.global.v4 (or
 * .v2; ld/st.local likewise), which need no alignment (isa.rst). Loads
 * need not be adjacent: the later ones move up to the first past other
 * loads and arithmetic (an unrolled sgemm's row of a local tile,
 * at[ty][k], read between the column's loads and the ffmas). The data
 * operand of a vector access names consecutive registers: a vector vreg
 * whose parts are the scalar values (weft_ir.h), placed in it by register
 * allocation. A store's values become the parts of a new vector unless
 * they are already the parts of one, in order; a value that is already a
 * part of another vector, or written more than once, keeps the store
 * scalar.
 */
#include "util/ralloc.h"

#include "weft_ir.h"

/* Instructions a load may move past: a bound on the search, wide enough
 * for a 16-step unrolled loop's two loads and ffma per step. */
#define WEFT_VEC_MAX_PASSED 64

struct weft_vec_ops {
   unsigned scalar, v2, v4;
   bool store;
};

static const struct weft_vec_ops weft_vec_ops[] = {
   { WEFT_OP_LD_GLOBAL, WEFT_OP_LD_GLOBAL_V2, WEFT_OP_LD_GLOBAL_V4, false },
   { WEFT_OP_ST_GLOBAL, WEFT_OP_ST_GLOBAL_V2, WEFT_OP_ST_GLOBAL_V4, true },
   { WEFT_OP_LD_LOCAL, WEFT_OP_LD_LOCAL_V2, WEFT_OP_LD_LOCAL_V4, false },
   { WEFT_OP_ST_LOCAL, WEFT_OP_ST_LOCAL_V2, WEFT_OP_ST_LOCAL_V4, true },
};

static const struct weft_vec_ops *
weft_vec_lookup(unsigned op)
{
   for (unsigned i = 0; i < ARRAY_SIZE(weft_vec_ops); i++) {
      if (weft_vec_ops[i].scalar == op)
         return &weft_vec_ops[i];
   }
   return NULL;
}

/* The vector types: u32 and u64 (the ISA's), with s32/s64 the same bits. */
static unsigned
weft_vec_type(unsigned t)
{
   switch (t) {
   case WEFT_TYPE_U32: case WEFT_TYPE_S32: return WEFT_TYPE_U32;
   case WEFT_TYPE_U64: case WEFT_TYPE_S64: return WEFT_TYPE_U64;
   default: return 0;
   }
}

/* Whether @J continues the run that @I starts as its element @n. */
static bool
weft_vec_continues(const struct weft_ir *ir, const struct weft_ir_instr *I,
                   const struct weft_ir_instr *J, unsigned n)
{
   unsigned bytes = weft_isa_type_bits(weft_vec_type(I->in.t)) / 8;
   uint32_t v = J->vreg[WEFT_IR_D];

   return J->in.op == I->in.op && weft_vec_type(J->in.t) == weft_vec_type(I->in.t) &&
          J->vreg[WEFT_IR_A] == I->vreg[WEFT_IR_A] &&
          J->in.imm == I->in.imm + n * bytes && v && !ir->vreg_multi[v];
}

/* Whether the loads after @J that continue @I's run may move up to @I,
 * past @J: it neither writes memory nor branches (so it neither changes
 * what they read nor the lanes that read it), nor writes their base. A
 * later load's value is defined once, so nothing before it reads it. */
static bool
weft_vec_load_may_pass(const struct weft_ir *ir, const struct weft_ir_instr *I,
                       const struct weft_ir_instr *J)
{
   uint32_t d = J->vreg[WEFT_IR_D];

   return !weft_ir_has_side_effects(J) && !weft_ir_op_has_target(J->in.op) &&
          (!d || weft_ir_vreg_alloc(ir, d) != weft_ir_vreg_alloc(ir, I->vreg[WEFT_IR_A]));
}

/* The vector of a store's values @v[0..n): the one they are the parts of,
 * in order, or a new one they become the parts of; 0 when neither. */
static uint32_t
weft_vec_store_data(struct weft_ir *ir, const uint32_t *v, unsigned n, unsigned regs)
{
   uint32_t vector = ir->vreg_vector[v[0]];
   bool in_order = vector && ir->vreg_regs[vector] == n * regs;

   for (unsigned i = 0; i < n && in_order; i++)
      in_order = ir->vreg_vector[v[i]] == vector && ir->vreg_offset[v[i]] == i * regs;
   if (in_order)
      return vector;
   for (unsigned i = 0; i < n; i++) {
      if (ir->vreg_vector[v[i]])
         return 0;
      for (unsigned j = 0; j < i; j++) {
         if (v[i] == v[j])
            return 0;
      }
   }
   vector = weft_ir_vreg_vector(ir, n * regs);
   for (unsigned i = 0; i < n; i++)
      weft_ir_vreg_set_part(ir, v[i], vector, i * regs);
   return vector;
}

bool
weft_ir_opt_vectorize(struct weft_ir *ir)
{
   bool progress = false;

   /* By hand: the accesses merged into I, after it, leave the list. */
   for (struct list_head *link = ir->instrs.next; link != &ir->instrs; link = link->next) {
      struct weft_ir_instr *I = list_entry(link, struct weft_ir_instr, link);
      const struct weft_vec_ops *ops = weft_vec_lookup(I->in.op);
      struct weft_ir_instr *run[8] = { I };
      unsigned t, regs, max, n = 1;
      uint32_t data[8], vector;

      if (!ops || !(t = weft_vec_type(I->in.t)) || !I->vreg[WEFT_IR_D] ||
          ir->vreg_multi[I->vreg[WEFT_IR_D]])
         continue;
      /* A load whose value is a vector's part already is left alone. */
      if (!ops->store && ir->vreg_vector[I->vreg[WEFT_IR_D]])
         continue;
      max = t == WEFT_TYPE_U32 ? 8 : 4;
      unsigned passed = 0;
      for (struct weft_ir_instr *J = I; n < max && J->link.next != &ir->instrs;) {
         J = list_entry(J->link.next, struct weft_ir_instr, link);
         if (weft_vec_continues(ir, I, J, n) &&
             (ops->store || !ir->vreg_vector[J->vreg[WEFT_IR_D]])) {
            run[n++] = J;
            continue;
         }
         if (ops->store || ++passed > WEFT_VEC_MAX_PASSED || !weft_vec_load_may_pass(ir, I, J))
            break;
      }
      if (n > 4 && n < 8)
         n = 4;
      if (n == 3)
         n = 2;
      if (n < 2)
         continue;
      regs = t == WEFT_TYPE_U64 ? 2 : 1;
      if (n == 8)
         t = WEFT_TYPE_U64;
      for (unsigned i = 0; i < n; i++)
         data[i] = run[i]->vreg[WEFT_IR_D];
      if (ops->store) {
         vector = weft_vec_store_data(ir, data, n, regs);
         if (!vector)
            continue;
      } else {
         vector = weft_ir_vreg_vector(ir, n * regs);
         for (unsigned i = 0; i < n; i++)
            weft_ir_vreg_set_part(ir, data[i], vector, i * regs);
      }
      I->in.op = n >= 4 ? ops->v4 : ops->v2;
      I->in.t = t;
      weft_ir_set(I, WEFT_IR_D, vector);
      for (unsigned i = 1; i < n; i++)
         list_del(&run[i]->link);
      progress = true;
   }
   return progress;
}
