/* SPDX-License-Identifier: MIT */
/*
 * Copy propagation and common-subexpression elimination on the structured
 * program. A pure instruction (ALU, conversion, special register) equal to
 * one that dominates it goes, and its readers read the earlier value; a
 * mov of a register goes, and its readers read the register. Domination
 * follows the structure: an instruction dominates what follows it in its
 * own if, else or loop body and in the bodies nested in it, never what
 * follows the end of its body (nor the else of its then). Values written
 * more than once (NIR registers) take no part. Cross-lane instructions are
 * not pure in this sense: their result depends on the lanes active.
 */
#include "util/hash_table.h"
#include "util/ralloc.h"

#include "weft_ir.h"

static bool
weft_cse_candidate(const struct weft_ir *ir, const struct weft_ir_instr *I)
{
   unsigned cls = weft_isa_ops[I->in.op].cls;

   if (cls != WEFT_CLASS_ALU && cls != WEFT_CLASS_CVT && cls != WEFT_CLASS_CVTF &&
       cls != WEFT_CLASS_S2R)
      return false;
   for (unsigned f = 0; f < WEFT_IR_NUM_FIELDS; f++) {
      if (I->vreg[f] && (ir->vreg_multi[I->vreg[f]] || weft_ir_vreg_is_part(ir, I->vreg[f])))
         return false;
   }
   return I->vreg[WEFT_IR_D] != 0;
}

static uint32_t
weft_cse_hash(const void *key)
{
   const struct weft_ir_instr *I = key;
   uint32_t h = I->in.op * 31u + I->in.t * 7u + I->in.t2 + I->in.mod * 131u;

   h = h * 33u + I->in.has_imm * 3u + I->in.has_lit;
   h = h * 33u + I->in.imm;
   h = h * 33u + (uint32_t)I->in.lit + (uint32_t)(I->in.lit >> 32);
   for (unsigned f = WEFT_IR_A; f < WEFT_IR_NUM_FIELDS; f++)
      h = h * 33u + I->vreg[f];
   return h;
}

static bool
weft_cse_equal(const void *a, const void *b)
{
   const struct weft_ir_instr *X = a, *Y = b;

   return X->in.op == Y->in.op && X->in.t == Y->in.t && X->in.t2 == Y->in.t2 &&
          X->in.mod == Y->in.mod && X->in.has_imm == Y->in.has_imm &&
          X->in.has_lit == Y->in.has_lit && X->in.imm == Y->in.imm && X->in.lit == Y->in.lit &&
          X->vreg[WEFT_IR_A] == Y->vreg[WEFT_IR_A] && X->vreg[WEFT_IR_B] == Y->vreg[WEFT_IR_B] &&
          X->vreg[WEFT_IR_C] == Y->vreg[WEFT_IR_C];
}

/* A mov of a register of its own size: a copy. */
static bool
weft_is_copy(const struct weft_ir *ir, const struct weft_ir_instr *I)
{
   uint32_t d = I->vreg[WEFT_IR_D], s = I->vreg[WEFT_IR_B];

   return I->in.op == WEFT_OP_MOV && !I->in.has_imm && !I->in.has_lit && d && s &&
          !ir->vreg_multi[d] && !ir->vreg_multi[s] && !weft_ir_vreg_is_part(ir, d) &&
          !weft_ir_vreg_is_part(ir, s) && ir->vreg_regs[d] == ir->vreg_regs[s];
}

bool
weft_ir_opt_cse(struct weft_ir *ir)
{
   void *mem = ralloc_context(NULL);
   uint32_t *repl = rzalloc_array(mem, uint32_t, ir->num_vregs + 1);
   struct hash_table *avail = _mesa_hash_table_create(mem, weft_cse_hash, weft_cse_equal);
   /* The instructions made available in each open body, innermost last. */
   struct weft_cse_scope { struct weft_ir_instr **v; unsigned n, cap; } *scopes;
   unsigned depth = 0, ended, max_depth = 1;
   bool progress = false;

   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      if (I->in.op == WEFT_OP_IF || I->in.op == WEFT_OP_LOOP)
         max_depth++;
   }
   scopes = rzalloc_array(mem, struct weft_cse_scope, max_depth + 1);

   list_for_each_entry_safe(struct weft_ir_instr, I, &ir->instrs, link) {
      unsigned op = I->in.op;

      weft_ir_foreach_reg(I, od, is_def) {
         uint32_t v = I->vreg[od->field];

         if (!is_def && v && repl[v])
            I->vreg[od->field] = repl[v];
      }
      enum weft_ir_body body = weft_ir_body_step(I, &depth, &ended);

      if (body == WEFT_IR_BODY_ENDS) {
         struct weft_cse_scope *s = &scopes[ended];

         for (unsigned i = 0; i < s->n; i++)
            _mesa_hash_table_remove_key(avail, s->v[i]);
         s->n = 0;
      }
      if (body != WEFT_IR_BODY_NONE)
         continue;
      if (weft_is_copy(ir, I)) {
         repl[I->vreg[WEFT_IR_D]] = I->vreg[WEFT_IR_B];
         list_del(&I->link);
         progress = true;
         continue;
      }
      if (!weft_cse_candidate(ir, I))
         continue;
      if (weft_ir_op_commutes(op) && I->vreg[WEFT_IR_B] && I->vreg[WEFT_IR_B] < I->vreg[WEFT_IR_A]) {
         uint32_t a = I->vreg[WEFT_IR_A];

         I->vreg[WEFT_IR_A] = I->vreg[WEFT_IR_B];
         I->vreg[WEFT_IR_B] = a;
      }
      struct hash_entry *e = _mesa_hash_table_search(avail, I);
      if (e) {
         const struct weft_ir_instr *E = e->key;

         repl[I->vreg[WEFT_IR_D]] = E->vreg[WEFT_IR_D];
         list_del(&I->link);
         progress = true;
         continue;
      }
      _mesa_hash_table_insert(avail, I, I);
      struct weft_cse_scope *s = &scopes[depth];
      if (s->n == s->cap) {
         s->cap = s->cap ? s->cap * 2 : 16;
         s->v = reralloc(mem, s->v, struct weft_ir_instr *, s->cap);
      }
      s->v[s->n++] = I;
   }
   ralloc_free(mem);
   return progress;
}
