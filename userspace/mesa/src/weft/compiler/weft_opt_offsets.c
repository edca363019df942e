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

bool
weft_ir_opt_fold_offsets(struct weft_ir *ir)
{
   /* The vregs made here (num_vregs grows) have no entry: not defined by
    * an add of an immediate as far as the chain below is concerned. */
   unsigned nvregs = ir->num_vregs + 1;
   struct weft_ir_instr **def = rzalloc_array(NULL, struct weft_ir_instr *, nvregs);
   unsigned *reads = rzalloc_array(def, unsigned, ir->num_vregs + 1);
   unsigned *address_reads = rzalloc_array(def, unsigned, ir->num_vregs + 1);
   bool progress = false;

   /* The single definition of each value (vregs written once), and how
    * often each is read, and read as an address. */
   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      int f = weft_mem_field(I);

      weft_ir_foreach_reg(I, od, is_def) {
         uint32_t d = I->vreg[od->field];

         if (is_def && d && !ir->vreg_multi[d] && !weft_ir_vreg_is_part(ir, d))
            def[d] = I;
         else if (!is_def)
            reads[d]++;
      }
      if (f >= 0)
         address_reads[I->vreg[f]]++;
   }
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
