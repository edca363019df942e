/* SPDX-License-Identifier: MIT */
/*
 * Immediate offsets folded into addresses: an add of a register holding a
 * constant first becomes an add of an immediate; then a memory access at
 * [d+off] where d = a + imm (one definition, a register plus an immediate)
 * becomes
 * [a+off+imm] while the sum fits the access's signed 32-bit offset. NIR
 * splits a vector access into one access per component, each after its own
 * address add; folded, they share one base and the adds die (DCE).
 *
 * A base d = a + b (two registers) with b = c + imm is reassociated: the
 * access goes to [t+off+imm] with t = a + c, when d serves only as an
 * address. Neighbouring accesses (in[i - 1], in[i], in[i + 1]) then have
 * the same t, which CSE (weft_opt_cse.c) computes once.
 *
 * Rows of a 2D grid come as a + ((x + y) << k) and a + ((x - y) << k)
 * (in[i + n], in[i - n] beside in[i] at a + (x << k)): when x << k is
 * computed already, in the same or an enclosing body, the add becomes
 * (a + (x << k)) + (y << k), or - (y << k), since a left shift distributes
 * over addition modulo 2^64. CSE then shares a + (x << k) with the access
 * to the row itself and y << k between the two neighbours: three
 * instructions where there were seven.
 */
#include "util/ralloc.h"

#include "weft_ir.h"

/* The field of @I's [rA+imm] operand, or -1. */
static int
weft_mem_field(const struct weft_ir_instr *I)
{
   const struct weft_op_info *oi = &weft_isa_ops[I->in.op];

   for (unsigned i = 0; i < oi->nopnd; i++) {
      if (oi->opnd[i].role == WEFT_ROLE_MEM)
         return oi->opnd[i].field;
   }
   return -1;
}

/* The immediate or literal operand of @I, as the hardware extends it: by
 * the type's signedness. */
static bool
weft_srci_value(const struct weft_ir_instr *I, uint64_t *value)
{
   if (I->in.has_lit)
      *value = I->in.lit;
   else if (I->in.has_imm)
      *value = weft_isa_types[I->in.t].kind == 's' ? (uint64_t)(int64_t)(int32_t)I->in.imm
                                                    : (uint64_t)I->in.imm;
   else
      return false;
   return true;
}

/* The immediate @I adds to its register, if it is such an add. */
static bool
weft_add_imm(const struct weft_ir_instr *I, int64_t *imm)
{
   unsigned bits = weft_isa_type_bits(I->in.t);
   uint64_t value;

   if (I->in.op != WEFT_OP_ADD || !I->vreg[WEFT_IR_A] || (bits != 32 && bits != 64) ||
       !weft_srci_value(I, &value))
      return false;
   *imm = (int64_t)value;
   /* A 32-bit address wraps at 4 GiB: only offsets that cannot wrap. */
   return bits == 64 || (*imm >= 0 && *imm <= INT32_MAX);
}

/* The value of @I if it is a mov of an immediate. */
static bool
weft_mov_imm_value(const struct weft_ir_instr *I, uint64_t *value)
{
   return I && I->in.op == WEFT_OP_MOV && !I->vreg[WEFT_IR_B] && weft_srci_value(I, value);
}

/* a + r with r = mov imm (NIR puts a constant first as often as last)
 * becomes a + imm, which the folding then takes into the address. */
static bool
weft_add_const_operand(struct weft_ir_instr **def, struct weft_ir_instr *I)
{
   uint64_t value;

   if (I->in.op != WEFT_OP_ADD || I->in.has_imm || I->in.has_lit || !I->vreg[WEFT_IR_A] ||
       !I->vreg[WEFT_IR_B])
      return false;
   for (enum weft_ir_field f = WEFT_IR_A; f <= WEFT_IR_B; f++) {
      struct weft_ir_instr *M = def[I->vreg[f]];

      if (weft_mov_imm_value(M, &value) &&
          weft_isa_type_bits(M->in.t) == weft_isa_type_bits(I->in.t)) {
         if (f == WEFT_IR_A)
            I->vreg[WEFT_IR_A] = I->vreg[WEFT_IR_B];
         weft_ir_set_imm(I, value);
         return true;
      }
   }
   return false;
}

/* The register + register add that defines @base, read only as an address,
 * with a source (its field in *@field) that is c + imm: c in *@c. */
static struct weft_ir_instr *
weft_reassociable(struct weft_ir *ir, struct weft_ir_instr **def, const unsigned *reads,
                  const unsigned *address_reads, uint32_t base, enum weft_ir_field *field,
                  uint32_t *c, int64_t *imm)
{
   struct weft_ir_instr *R = def[base];

   if (!R || R->in.op != WEFT_OP_ADD || R->in.has_imm || R->in.has_lit ||
       !R->vreg[WEFT_IR_A] || !R->vreg[WEFT_IR_B] || reads[base] != address_reads[base] ||
       ir->vreg_multi[R->vreg[WEFT_IR_A]] || ir->vreg_multi[R->vreg[WEFT_IR_B]])
      return NULL;
   for (enum weft_ir_field f = WEFT_IR_A; f <= WEFT_IR_B; f++) {
      struct weft_ir_instr *S = def[R->vreg[f]];

      if (S && weft_add_imm(S, imm) &&
          weft_isa_type_bits(S->in.t) == weft_isa_type_bits(R->in.t) &&
          !ir->vreg_multi[S->vreg[WEFT_IR_A]]) {
         *field = f;
         *c = S->vreg[WEFT_IR_A];
         return R;
      }
   }
   return NULL;
}

/* The single definition of each value (vregs written once), and how often
 * each is read, and read as an address: arrays of ir->num_vregs + 1 on
 * @mem_ctx. */
static struct weft_ir_instr **
weft_offsets_defs(struct weft_ir *ir, void *mem_ctx, unsigned **reads, unsigned **address_reads)
{
   struct weft_ir_instr **def = rzalloc_array(mem_ctx, struct weft_ir_instr *, ir->num_vregs + 1);

   *reads = rzalloc_array(def, unsigned, ir->num_vregs + 1);
   *address_reads = rzalloc_array(def, unsigned, ir->num_vregs + 1);
   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      int f = weft_mem_field(I);

      weft_ir_foreach_reg(I, od, is_def) {
         uint32_t d = I->vreg[od->field];

         if (is_def && d && !ir->vreg_multi[d] && !weft_ir_vreg_is_part(ir, d))
            def[d] = I;
         else if (!is_def)
            (*reads)[d]++;
      }
      if (f >= 0)
         (*address_reads)[I->vreg[f]]++;
   }
   return def;
}

static bool
weft_is_int64_type(unsigned t)
{
   return t == WEFT_TYPE_U64 || t == WEFT_TYPE_S64;
}

/* @v's definition when it is a 64-bit @op read once (here), else NULL. */
static struct weft_ir_instr *
weft_single_use_def(const struct weft_ir *ir, struct weft_ir_instr **def, const unsigned *reads,
                    unsigned nvregs, uint32_t v, unsigned op)
{
   struct weft_ir_instr *D = v && v < nvregs ? def[v] : NULL;

   if (!D || D->in.op != op || !weft_is_int64_type(D->in.t) || reads[v] != 1)
      return NULL;
   for (unsigned f = WEFT_IR_A; f <= WEFT_IR_B; f++) {
      if (D->vreg[f] && ir->vreg_multi[D->vreg[f]])
         return NULL;
   }
   return D;
}

/* A 64-bit shl of a register by an immediate. */
static bool
weft_is_shl_imm64(const struct weft_ir *ir, const struct weft_ir_instr *I)
{
   return I->in.op == WEFT_OP_SHL && weft_is_int64_type(I->in.t) && I->vreg[WEFT_IR_A] &&
          !I->vreg[WEFT_IR_B] && I->in.has_imm && !ir->vreg_multi[I->vreg[WEFT_IR_D]] &&
          !ir->vreg_multi[I->vreg[WEFT_IR_A]];
}

/* The shift of @x by @k among the @n available ones, or NULL. */
static struct weft_ir_instr *
weft_available_shl(struct weft_ir_instr **avail, unsigned n, uint32_t x, uint32_t k)
{
   for (unsigned i = n; i-- > 0;) {
      if (avail[i] && avail[i]->vreg[WEFT_IR_A] == x && avail[i]->in.imm == k)
         return avail[i];
   }
   return NULL;
}

/* I: d = a + ((x + y) << k), or with y = -z; X: an available x << k.
 * Emits before I: a + (x << k) and y (or z) << k, and I adds (subtracts)
 * them. The old sum, shift and negation are read only by what is
 * replaced: DCE removes them. */
static void
weft_distribute(struct weft_ir *ir, struct weft_ir_instr *I, uint32_t base,
                struct weft_ir_instr *X, uint32_t y, struct weft_ir_instr *neg)
{
   uint32_t row = weft_ir_vreg(ir, 64), shifted = weft_ir_vreg(ir, 64);
   struct weft_ir_instr *R = weft_ir_emit_at(ir, I, false, WEFT_OP_ADD, I->in.t);
   struct weft_ir_instr *S = weft_ir_emit_at(ir, I, false, WEFT_OP_SHL, X->in.t);

   weft_ir_set(R, WEFT_IR_D, row);
   weft_ir_set(R, WEFT_IR_A, base);
   weft_ir_set(R, WEFT_IR_B, X->vreg[WEFT_IR_D]);
   weft_ir_set(S, WEFT_IR_D, shifted);
   weft_ir_set(S, WEFT_IR_A, neg ? neg->vreg[WEFT_IR_A] : y);
   weft_ir_set_imm(S, X->in.imm);
   I->in.op = neg ? WEFT_OP_SUB : WEFT_OP_ADD;
   weft_ir_set(I, WEFT_IR_A, row);
   weft_ir_set(I, WEFT_IR_B, shifted);
}

/* I: d = a + ((x +- y) << k) with x << k among the @n available shifts:
 * distributed. */
static bool
weft_distribute_add(struct weft_ir *ir, struct weft_ir_instr *I, struct weft_ir_instr **def,
                    const unsigned *reads, unsigned nvregs, struct weft_ir_instr **avail,
                    unsigned n)
{
   if (I->in.op != WEFT_OP_ADD || !weft_is_int64_type(I->in.t) || I->in.has_imm ||
       I->in.has_lit || !I->vreg[WEFT_IR_D] || ir->vreg_multi[I->vreg[WEFT_IR_D]])
      return false;
   for (enum weft_ir_field f = WEFT_IR_A; f <= WEFT_IR_B; f++) {
      uint32_t base = I->vreg[f == WEFT_IR_A ? WEFT_IR_B : WEFT_IR_A];
      struct weft_ir_instr *S =
         weft_single_use_def(ir, def, reads, nvregs, I->vreg[f], WEFT_OP_SHL);
      struct weft_ir_instr *T =
         S && weft_is_shl_imm64(ir, S)
            ? weft_single_use_def(ir, def, reads, nvregs, S->vreg[WEFT_IR_A], WEFT_OP_ADD)
            : NULL;

      if (!base || ir->vreg_multi[base] || !T || T->in.has_imm || T->in.has_lit)
         continue;
      for (enum weft_ir_field xf = WEFT_IR_A; xf <= WEFT_IR_B; xf++) {
         uint32_t x = T->vreg[xf], y = T->vreg[xf == WEFT_IR_A ? WEFT_IR_B : WEFT_IR_A];
         struct weft_ir_instr *X = weft_available_shl(avail, n, x, S->in.imm);

         if (X) {
            weft_distribute(ir, I, base, X, y,
                            weft_single_use_def(ir, def, reads, nvregs, y, WEFT_OP_NEG));
            return true;
         }
      }
   }
   return false;
}

/* a + ((x +- y) << k) as (a + (x << k)) +- (y << k) where x << k is
 * available: computed before, in the same or an enclosing body. */
static bool
weft_distribute_shifts(struct weft_ir *ir)
{
   void *mem = ralloc_context(NULL);
   unsigned nvregs = ir->num_vregs + 1, *reads, *address_reads;
   struct weft_ir_instr **def = weft_offsets_defs(ir, mem, &reads, &address_reads);
   /* The shifts seen, each with the depth of its body; a body's end
    * removes its own. */
   struct weft_ir_instr **avail = ralloc_array(mem, struct weft_ir_instr *, 16);
   unsigned *avail_depth = ralloc_array(mem, unsigned, 16);
   unsigned n = 0, cap = 16, depth = 0, ended;
   bool progress = false;

   list_for_each_entry_safe(struct weft_ir_instr, I, &ir->instrs, link) {
      enum weft_ir_body body = weft_ir_body_step(I, &depth, &ended);

      while (body == WEFT_IR_BODY_ENDS && n && avail_depth[n - 1] >= ended)
         n--;
      if (body != WEFT_IR_BODY_NONE)
         continue;
      if (weft_is_shl_imm64(ir, I)) {
         if (n == cap) {
            cap *= 2;
            avail = reralloc(mem, avail, struct weft_ir_instr *, cap);
            avail_depth = reralloc(mem, avail_depth, unsigned, cap);
         }
         avail[n] = I;
         avail_depth[n++] = depth;
         continue;
      }
      progress |= weft_distribute_add(ir, I, def, reads, nvregs, avail, n);
   }
   ralloc_free(mem);
   return progress;
}

bool
weft_ir_opt_fold_offsets(struct weft_ir *ir)
{
   bool progress = weft_distribute_shifts(ir);
   /* The vregs made here (num_vregs grows) have no entry: not defined by
    * an add of an immediate as far as the chain below is concerned. */
   unsigned nvregs = ir->num_vregs + 1, *reads, *address_reads;
   struct weft_ir_instr **def = weft_offsets_defs(ir, NULL, &reads, &address_reads);
   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link)
      progress |= weft_add_const_operand(def, I);
   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      int f = weft_mem_field(I);
      struct weft_ir_instr *A, *R;
      enum weft_ir_field rf;
      uint32_t c;
      int64_t imm;

      if (f >= 0 && I->vreg[f] < nvregs && (R = weft_reassociable(ir, def, reads, address_reads, I->vreg[f], &rf,
                                           &c, &imm))) {
         int64_t off = (int64_t)(int32_t)I->in.imm + imm;

         if (off >= INT32_MIN && off <= INT32_MAX) {
            uint32_t t = weft_ir_vreg(ir, weft_isa_type_bits(R->in.t));
            struct weft_ir_instr *T = weft_ir_emit_at(ir, I, false, WEFT_OP_ADD, R->in.t);

            weft_ir_set(T, WEFT_IR_D, t);
            weft_ir_set(T, WEFT_IR_A, rf == WEFT_IR_A ? c : R->vreg[WEFT_IR_A]);
            weft_ir_set(T, WEFT_IR_B, rf == WEFT_IR_B ? c : R->vreg[WEFT_IR_B]);
            I->vreg[f] = t;
            I->in.imm = (uint32_t)(int32_t)off;
            progress = true;
         }
      }

      /* Down a chain of adds as far as the offset stays in range. */
      while (f >= 0 && I->vreg[f] < nvregs && (A = def[I->vreg[f]]) && weft_add_imm(A, &imm) &&
             !ir->vreg_multi[A->vreg[WEFT_IR_A]]) {
         int64_t off = (int64_t)(int32_t)I->in.imm + imm;

         if (off < INT32_MIN || off > INT32_MAX)
            break;
         I->vreg[f] = A->vreg[WEFT_IR_A];
         I->in.imm = (uint32_t)(int32_t)off;
         progress = true;
      }
   }
   ralloc_free(def);
   return progress;
}
