/* SPDX-License-Identifier: MIT */
/*
 * 32-bit ids where 32 bits suffice. OpenCL's ids are size_t: NIR widens
 * the 32-bit special registers to 64 bits, computes, and takes the low
 * half back where a 32-bit value is wanted (an SLM offset, a uint). The
 * low half of add, sub, mul, and, or, xor, not, neg and shl by less than 32
 * depends only on the low halves of their sources, so cvt.u32.u64 of such
 * a tree whose leaves are 32-bit values widened (cvt.u64.u32 / s32) or
 * immediates is the same tree in 32 bits. Only 64-bit values read once,
 * by the tree, are narrowed, so the 64-bit instructions die and nothing is
 * computed twice; the 32-bit results often equal values the kernel already
 * has (copy propagation and CSE merge them).
 *
 * Compares of zero-extended 32-bit values are 32-bit compares: zero
 * extension keeps the order, and its values are non-negative as s64 too,
 * so set.{eq,ne,lt,le,gt,ge}.{u64,s64} of two cvt.u64.u32 (or of such a
 * value and an immediate below 2^32) is the set.*.u32 of their sources.
 * The same holds through min and max, whose 64-bit result is the zero
 * extension of the 32-bit min or max: the stencil's border test,
 * x == 0 || y == 0, is min.u64 of the ids then set.ne.u64 with 0, and
 * becomes min.u32 and set.ne.u32 of the 32-bit ids.
 */
#include "util/ralloc.h"

#include "weft_ir.h"

struct weft_narrow {
   struct weft_ir *ir;
   struct weft_ir_instr **def;
   unsigned *reads;
};

static bool
weft_is_int64(unsigned t)
{
   return t == WEFT_TYPE_U64 || t == WEFT_TYPE_S64;
}

static bool
weft_is_int32(unsigned t)
{
   return t == WEFT_TYPE_U32 || t == WEFT_TYPE_S32;
}

/* A 32-bit source of the same value as the low half of @v, if @v is a
 * widened 32-bit value. */
static uint32_t
weft_narrow_leaf(struct weft_narrow *n, uint32_t v)
{
   struct weft_ir_instr *D = n->def[v];

   if (D && D->in.op == WEFT_OP_CVT && weft_is_int64(D->in.t) && weft_is_int32(D->in.t2))
      return D->vreg[WEFT_IR_A];
   return 0;
}

static bool
weft_narrow_op(unsigned op)
{
   switch (op) {
   case WEFT_OP_ADD: case WEFT_OP_SUB: case WEFT_OP_MUL: case WEFT_OP_AND:
   case WEFT_OP_OR: case WEFT_OP_XOR: case WEFT_OP_NOT: case WEFT_OP_NEG:
   case WEFT_OP_SHL: case WEFT_OP_MOV:
      return true;
   default:
      return false;
   }
}

/* Whether the low half of @v can be computed in 32 bits: a leaf, or an
 * operation above of 64-bit values read only here whose sources can. */
static bool
weft_can_narrow(struct weft_narrow *n, uint32_t v, unsigned depth)
{
   struct weft_ir_instr *D = n->def[v];

   if (weft_narrow_leaf(n, v))
      return true;
   if (!D || depth > 8 || n->reads[v] != 1 || !weft_narrow_op(D->in.op) ||
       !weft_is_int64(D->in.t))
      return false;
   if (D->in.op == WEFT_OP_SHL &&
       (D->vreg[WEFT_IR_B] || !D->in.has_imm || D->in.imm >= 32))
      return false;
   for (unsigned f = WEFT_IR_A; f <= WEFT_IR_B; f++) {
      uint32_t s = D->vreg[f];

      if (D->in.op == WEFT_OP_SHL && f == WEFT_IR_B)
         continue;
      if (s && (n->ir->vreg_regs[s] != 2 || !weft_can_narrow(n, s, depth + 1)))
         return false;
   }
   return true;
}

/* Emits the 32-bit computation of the low half of @v before @at. */
static uint32_t
weft_narrow(struct weft_narrow *n, uint32_t v, struct weft_ir_instr *at)
{
   struct weft_ir_instr *D = n->def[v], *N;
   uint32_t leaf = weft_narrow_leaf(n, v), d;

   if (leaf)
      return leaf;
   d = weft_ir_vreg(n->ir, 32);
   N = weft_ir_emit_at(n->ir, at, false, D->in.op, WEFT_TYPE_U32);
   weft_ir_set(N, WEFT_IR_D, d);
   for (unsigned f = WEFT_IR_A; f <= WEFT_IR_B; f++) {
      uint32_t s = D->vreg[f];

      if (s && !(D->in.op == WEFT_OP_SHL && f == WEFT_IR_B))
         weft_ir_set(N, f, weft_narrow(n, s, N));
   }
   if (D->in.has_imm || D->in.has_lit)
      weft_ir_set_imm(N, (uint32_t)(D->in.has_lit ? D->in.lit : D->in.imm));
   return d;
}

/* The 64-bit immediate operand of @I, as a 32-bit value when its
 * zero extension is that immediate. */
static bool
weft_zext_imm(const struct weft_ir_instr *I, uint32_t *imm)
{
   uint64_t value;

   if (I->in.has_lit)
      value = I->in.lit;
   else if (weft_isa_types[I->in.t].kind == 's')
      value = (uint64_t)(int64_t)(int32_t)I->in.imm;
   else
      value = I->in.imm;
   *imm = (uint32_t)value;
   return value <= UINT32_MAX;
}

static bool
weft_is_min_max(unsigned op)
{
   return op == WEFT_OP_MIN || op == WEFT_OP_MAX;
}

static bool
weft_is_set(unsigned op)
{
   return op >= WEFT_OP_SET_EQ && op <= WEFT_OP_SET_GE;
}

/* Whether @v is the zero extension of a 32-bit value: a cvt.u64.u32, or a
 * 64-bit min or max read only here of such values (or an immediate). */
static bool
weft_is_zext(struct weft_narrow *n, uint32_t v, unsigned depth)
{
   struct weft_ir_instr *D = n->def[v];
   uint32_t imm;

   if (!D || depth > 8 || !weft_is_int64(D->in.t))
      return false;
   /* The compare reads the source later than the cvt did. */
   if (D->in.op == WEFT_OP_CVT)
      return D->in.t2 == WEFT_TYPE_U32 && !n->ir->vreg_multi[D->vreg[WEFT_IR_A]];
   if (!weft_is_min_max(D->in.op) || n->reads[v] != 1)
      return false;
   if ((D->in.has_imm || D->in.has_lit) && !weft_zext_imm(D, &imm))
      return false;
   for (unsigned f = WEFT_IR_A; f <= WEFT_IR_B; f++) {
      if (D->vreg[f] && !weft_is_zext(n, D->vreg[f], depth + 1))
         return false;
   }
   return true;
}

/* The 32-bit value that @v (weft_is_zext()) zero-extends, computed
 * before @at. */
static uint32_t
weft_zext_source(struct weft_narrow *n, uint32_t v, struct weft_ir_instr *at)
{
   struct weft_ir_instr *D = n->def[v], *N;
   uint32_t d, imm;

   if (D->in.op == WEFT_OP_CVT)
      return D->vreg[WEFT_IR_A];
   d = weft_ir_vreg(n->ir, 32);
   N = weft_ir_emit_at(n->ir, at, false, D->in.op, WEFT_TYPE_U32);
   weft_ir_set(N, WEFT_IR_D, d);
   for (unsigned f = WEFT_IR_A; f <= WEFT_IR_B; f++) {
      if (D->vreg[f])
         weft_ir_set(N, f, weft_zext_source(n, D->vreg[f], N));
   }
   if ((D->in.has_imm || D->in.has_lit) && weft_zext_imm(D, &imm))
      weft_ir_set_imm(N, imm);
   return d;
}

/* set.*.{u64,s64} @I of zero-extended 32-bit values as set.*.u32. */
static bool
weft_narrow_compare(struct weft_narrow *n, struct weft_ir_instr *I)
{
   bool has_imm = I->in.has_imm || I->in.has_lit;
   uint32_t a = I->vreg[WEFT_IR_A], b = I->vreg[WEFT_IR_B], imm = 0;

   if (!weft_is_set(I->in.op) || !weft_is_int64(I->in.t) || !a || !weft_is_zext(n, a, 0))
      return false;
   if (has_imm ? !weft_zext_imm(I, &imm) : !b || !weft_is_zext(n, b, 0))
      return false;
   weft_ir_set(I, WEFT_IR_A, weft_zext_source(n, a, I));
   if (!has_imm)
      weft_ir_set(I, WEFT_IR_B, weft_zext_source(n, b, I));
   I->in.t = WEFT_TYPE_U32;
   if (has_imm) {
      I->in.has_lit = 0;
      I->in.nwords = 1;
      weft_ir_set_imm(I, imm);
   }
   return true;
}

bool
weft_ir_opt_narrow(struct weft_ir *ir)
{
   struct weft_narrow n = { .ir = ir };
   bool progress = false;

   n.def = rzalloc_array(NULL, struct weft_ir_instr *, ir->num_vregs + 1);
   n.reads = rzalloc_array(n.def, unsigned, ir->num_vregs + 1);
   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      weft_ir_foreach_reg(I, od, is_def) {
         uint32_t v = I->vreg[od->field];

         if (is_def && !ir->vreg_multi[v] && !weft_ir_vreg_is_part(ir, v))
            n.def[v] = I;
         else if (!is_def)
            n.reads[v]++;
      }
   }
   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      uint32_t src = I->vreg[WEFT_IR_A];

      if (weft_narrow_compare(&n, I)) {
         progress = true;
         continue;
      }
      if (I->in.op != WEFT_OP_CVT || !weft_is_int32(I->in.t) || !weft_is_int64(I->in.t2) ||
          !n.def[src] || weft_narrow_leaf(&n, src))
         continue;
      /* The cvt is the one reader the tree's root may have. */
      if (!weft_can_narrow(&n, src, 0))
         continue;
      uint32_t low = weft_narrow(&n, src, I);

      /* The cvt becomes a copy of the 32-bit result. */
      I->in.op = WEFT_OP_MOV;
      I->in.t = WEFT_TYPE_U32;
      I->in.t2 = 0;
      I->vreg[WEFT_IR_A] = 0;
      weft_ir_set(I, WEFT_IR_B, low);
      progress = true;
   }
   ralloc_free(n.def);
   return progress;
}
