/* SPDX-License-Identifier: MIT */
/*
 * weft IR: building, validation, printing, dead-code elimination, register
 * allocation and packing.
 */
#include <inttypes.h>
#include <string.h>

#include "util/hash_table.h"
#include "util/ralloc.h"
#include "util/macros.h"
#include "util/u_math.h"

#include "weft_ir.h"

struct weft_ir *
weft_ir_create(void *mem_ctx)
{
   struct weft_ir *ir = rzalloc(mem_ctx, struct weft_ir);

   list_inithead(&ir->instrs);
   ir->mem_ctx = ir;
   return ir;
}

uint32_t
weft_ir_vreg(struct weft_ir *ir, unsigned bits)
{
   if (ir->num_vregs + 2 > ir->vreg_cap) {
      ir->vreg_cap = MAX2(64, ir->vreg_cap * 2);
      ir->vreg_regs = reralloc(ir, ir->vreg_regs, uint8_t, ir->vreg_cap);
      ir->vreg_multi = reralloc(ir, ir->vreg_multi, uint8_t, ir->vreg_cap);
   }
   ir->vreg_regs[++ir->num_vregs] = bits == 64 ? 2 : 1;
   ir->vreg_multi[ir->num_vregs] = 0;
   return ir->num_vregs;
}

static const struct weft_operand_desc *
weft_ir_operand(const struct weft_inst *in, unsigned role);

uint32_t
weft_ir_vreg_multi(struct weft_ir *ir, unsigned bits)
{
   uint32_t v = weft_ir_vreg(ir, bits);

   ir->vreg_multi[v] = 1;
   return v;
}

bool
weft_ir_op_has_target(unsigned op)
{
   struct weft_inst in = { .op = op };

   return weft_isa_ops[op].name && weft_ir_operand(&in, WEFT_ROLE_TARGET);
}

struct weft_ir_instr *
weft_ir_emit(struct weft_ir *ir, unsigned op, unsigned t, unsigned t2)
{
   struct weft_ir_instr *I = rzalloc(ir, struct weft_ir_instr);

   I->in.op = op;
   I->in.t = t;
   I->in.t2 = t2;
   I->in.nwords = 1;
   /* Memory operands always carry their (possibly zero) offset. */
   const struct weft_op_info *oi = &weft_isa_ops[op];
   for (unsigned i = 0; i < oi->nopnd; i++) {
      if (oi->opnd[i].role == WEFT_ROLE_MEM || oi->opnd[i].role == WEFT_ROLE_TARGET)
         I->in.has_imm = 1;
   }
   list_addtail(&I->link, &ir->instrs);
   return I;
}

void
weft_ir_set(struct weft_ir_instr *I, enum weft_ir_field f, uint32_t vreg)
{
   I->vreg[f] = vreg;
}

static const struct weft_operand_desc *
weft_ir_operand(const struct weft_inst *in, unsigned role)
{
   const struct weft_op_info *oi = &weft_isa_ops[in->op];

   for (unsigned i = 0; i < oi->nopnd; i++) {
      if (oi->opnd[i].role == role)
         return &oi->opnd[i];
   }
   return NULL;
}

bool
weft_ir_op_has_srci(unsigned op)
{
   struct weft_inst in = { .op = op };

   return weft_isa_ops[op].name && weft_ir_operand(&in, WEFT_ROLE_SRCI);
}

/* The srci operand as an immediate: imm32 when its extension gives @imm,
 * otherwise a 64-bit literal word. */
void
weft_ir_set_imm(struct weft_ir_instr *I, uint64_t imm)
{
   const struct weft_operand_desc *od = weft_ir_operand(&I->in, WEFT_ROLE_SRCI);
   unsigned t = weft_isa_opnd_type(&I->in, od);
   uint64_t ext = weft_isa_types[t].kind == 's' ? (uint64_t)(int64_t)(int32_t)imm
                                                 : (uint32_t)imm;

   I->vreg[od->field] = 0;
   if (weft_isa_type_bits(t) == 64 && ext != imm) {
      I->in.has_lit = 1;
      I->in.has_imm = 0;
      I->in.lit = imm;
      I->in.nwords = 2;
   } else {
      I->in.has_imm = 1;
      I->in.imm = (uint32_t)imm;
   }
}

bool
weft_ir_has_side_effects(const struct weft_ir_instr *I)
{
   unsigned cls = weft_isa_ops[I->in.op].cls;

   return cls == WEFT_CLASS_ST || cls == WEFT_CLASS_STX || cls == WEFT_CLASS_END ||
          cls == WEFT_CLASS_NOP || cls == WEFT_CLASS_BAR || cls == WEFT_CLASS_FENCE ||
          cls == WEFT_CLASS_ATOM || !weft_ir_operand(&I->in, WEFT_ROLE_DST);
}

static uint16_t *
weft_ir_field_ptr(struct weft_inst *in, unsigned field)
{
   switch (field) {
   case WEFT_FIELD_D: return &in->d;
   case WEFT_FIELD_A: return &in->a;
   case WEFT_FIELD_B: return &in->b;
   case WEFT_FIELD_C: return &in->c;
   default: return &in->mod;
   }
}

/* Calls @cb for every register operand of @I. */
#define weft_ir_foreach_reg(I, od, is_def)                                     \
   for (unsigned _i = 0; _i < weft_isa_ops[(I)->in.op].nopnd; _i++)            \
      for (const struct weft_operand_desc *od = &weft_isa_ops[(I)->in.op].opnd[_i]; od; od = NULL) \
         if (od->role != WEFT_ROLE_SREG && od->role != WEFT_ROLE_TARGET &&     \
             !(od->role == WEFT_ROLE_SRCI && ((I)->in.has_imm || (I)->in.has_lit))) \
            for (bool is_def = od->role == WEFT_ROLE_DST, _once = true; _once; _once = false, (void)is_def)

bool
weft_ir_validate(struct weft_ir *ir, const char *when)
{
   uint8_t *defined = rzalloc_array(NULL, uint8_t, ir->num_vregs + 1);
   bool ok = true;
   unsigned idx = 0;

#define FAIL(...)                                                              \
   do {                                                                        \
      fprintf(stderr, "weft: invalid IR %s, instruction %u: ", when, idx);     \
      fprintf(stderr, __VA_ARGS__);                                            \
      fprintf(stderr, "\n");                                                   \
      ok = false;                                                              \
   } while (0)

   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      const struct weft_op_info *oi = &weft_isa_ops[I->in.op];
      bool used[WEFT_IR_NUM_FIELDS] = {0};

      if (I->in.op >= WEFT_ISA_OPCODE_COUNT || !oi->name) {
         FAIL("undefined opcode 0x%x", I->in.op);
         idx++;
         continue;
      }
      weft_ir_foreach_reg(I, od, is_def) {
         unsigned bits = weft_isa_type_bits(weft_isa_opnd_type(&I->in, od));
         uint32_t v = I->vreg[od->field];

         used[od->field] = true;
         if (ir->allocated)
            continue;
         if (!v || v > ir->num_vregs) {
            FAIL("%s: operand %u has no virtual register", oi->name, _i);
            continue;
         }
         if (ir->vreg_regs[v] != (bits == 64 ? 2 : 1))
            FAIL("%s: v%u has %u registers, the operand is %u-bit", oi->name, v,
                 ir->vreg_regs[v], bits);
         if (ir->vreg_multi[v]) {
            defined[v] = 1;
         } else if (is_def) {
            if (defined[v])
               FAIL("%s: v%u defined twice", oi->name, v);
            defined[v] = 1;
         } else if (!defined[v]) {
            FAIL("%s: v%u used before its definition", oi->name, v);
         }
      }
      for (unsigned f = 0; f < WEFT_IR_NUM_FIELDS; f++) {
         if (!used[f] && I->vreg[f])
            FAIL("%s: field %u holds v%u but is no register operand", oi->name, f,
                 I->vreg[f]);
      }
      if (ir->allocated) {
         uint64_t words[2];
         int err = weft_isa_encode(&I->in, words);

         if (err < 0)
            FAIL("%s: does not encode: %s", oi->name, weft_isa_dec_error(err));
      }
      idx++;
   }
   {
      int depth = 0;
      list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
         if (I->in.op == WEFT_OP_IF || I->in.op == WEFT_OP_LOOP)
            depth++;
         else if (I->in.op == WEFT_OP_ENDIF || I->in.op == WEFT_OP_ENDLOOP)
            depth--;
         if (weft_ir_op_has_target(I->in.op) && !I->target)
            FAIL("%s without a target", weft_isa_ops[I->in.op].name);
         if (depth < 0)
            FAIL("unbalanced control flow");
      }
      if (depth)
         FAIL("unclosed if or loop");
   }
   if (list_is_empty(&ir->instrs) ||
       list_last_entry(&ir->instrs, struct weft_ir_instr, link)->in.op != WEFT_OP_END) {
      FAIL("the program does not end with end");
   }
   ralloc_free(defined);
   return ok;
#undef FAIL
}

void
weft_ir_print(struct weft_ir *ir, FILE *fp)
{
   char buf[256];

   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      const struct weft_op_info *oi = &weft_isa_ops[I->in.op];

      if (ir->allocated) {
         weft_isa_print(&I->in, buf, sizeof(buf));
         fprintf(fp, "   %s\n", buf);
         continue;
      }
      fprintf(fp, "   %s", oi->name ? oi->name : "???");
      if (oi->types)
         fprintf(fp, ".%s", weft_isa_types[I->in.t].name);
      if (oi->types2)
         fprintf(fp, ".%s", weft_isa_types[I->in.t2].name);
      for (unsigned i = 0; i < oi->nopnd; i++) {
         const struct weft_operand_desc *od = &oi->opnd[i];

         fprintf(fp, i ? ", " : " ");
         switch (od->role) {
         case WEFT_ROLE_SREG:
            fprintf(fp, "sr.%s", weft_isa_sregs[I->in.mod].name);
            break;
         case WEFT_ROLE_MEM:
            fprintf(fp, "[v%u+%d]", I->vreg[od->field], (int32_t)I->in.imm);
            break;
         case WEFT_ROLE_SRCI:
            if (I->in.has_lit) {
               fprintf(fp, "0x%016" PRIx64, I->in.lit);
               break;
            } else if (I->in.has_imm) {
               fprintf(fp, "0x%x", I->in.imm);
               break;
            }
            __attribute__((fallthrough));
         default:
            fprintf(fp, "v%u", I->vreg[od->field]);
         }
      }
      fprintf(fp, "\n");
   }
}

/* Removes instructions whose result nobody reads. */
bool
weft_ir_opt_dce(struct weft_ir *ir)
{
   bool progress = false, again = true;

   while (again) {
      uint8_t *read = rzalloc_array(NULL, uint8_t, ir->num_vregs + 1);

      again = false;
      list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
         weft_ir_foreach_reg(I, od, is_def) {
            if (!is_def)
               read[I->vreg[od->field]] = 1;
         }
      }
      list_for_each_entry_safe(struct weft_ir_instr, I, &ir->instrs, link) {
         if (!weft_ir_has_side_effects(I) && !read[I->vreg[WEFT_IR_D]]) {
            list_del(&I->link);
            again = progress = true;
         }
      }
      ralloc_free(read);
   }
   return progress;
}

/*
 * Linear-scan register allocation of the straight-line program: a value
 * lives from its definition to its last use; a 64-bit value takes an even
 * register pair. A destination never shares a register with a source of
 * the same instruction. Fails (false) when more than WEFT_NUM_REGS
 * registers are live at once: spilling needs scratch memory.
 */
static bool
weft_ir_instr_reads(struct weft_ir_instr *I, uint32_t v)
{
   for (unsigned f = 0; f < WEFT_IR_NUM_FIELDS; f++) {
      if (I->vreg[f] == v)
         return true;
   }
   return false;
}

bool
weft_ir_ra(struct weft_ir *ir)
{
   unsigned n = ir->num_vregs + 1, idx = 0, count = list_length(&ir->instrs);
   unsigned *first = ralloc_array(NULL, unsigned, n);
   unsigned *last = rzalloc_array(first, unsigned, n);
   uint16_t *phys = rzalloc_array(first, uint16_t, n);
   unsigned *loop_end = rzalloc_array(first, unsigned, count + 1);
   unsigned *stack = rzalloc_array(first, unsigned, count + 1), sp = 0;
   bool busy[WEFT_NUM_REGS] = {0};
   bool *live = rzalloc_array(first, bool, n);
   bool ok = true;

   memset(first, 0xff, n * sizeof(unsigned));
   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      weft_ir_foreach_reg(I, od, is_def) {
         uint32_t v = I->vreg[od->field];
         first[v] = MIN2(first[v], idx);
         last[v] = idx;
      }
      if (I->in.op == WEFT_OP_LOOP)
         stack[sp++] = idx;
      else if (I->in.op == WEFT_OP_ENDLOOP && sp)
         loop_end[stack[--sp]] = idx;
      idx++;
   }
   /* A value live across part of a loop is live in all of it: the loop
    * repeats, and lanes that left it keep their registers. */
   for (bool changed = true; changed;) {
      changed = false;
      for (unsigned l = 0; l < count; l++) {
         if (!loop_end[l])
            continue;
         for (uint32_t v = 1; v < n; v++) {
            if (first[v] == ~0u)
               continue;
            bool inside = last[v] >= l && first[v] <= loop_end[l];
            bool crosses = first[v] < l || last[v] > loop_end[l] || ir->vreg_multi[v];
            if (inside && crosses && (first[v] > l || last[v] < loop_end[l])) {
               first[v] = MIN2(first[v], l);
               last[v] = MAX2(last[v], loop_end[l]);
               changed = true;
            }
         }
      }
   }

   idx = 0;
   ir->num_regs = 0;
   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      uint32_t dying[WEFT_IR_NUM_FIELDS];
      unsigned ndying = 0;

      weft_ir_foreach_reg(I, od, is_def) {
         uint32_t v = I->vreg[od->field];

         if (!live[v]) {
            unsigned size = ir->vreg_regs[v], r;

            unsigned max = ir->max_regs ? MIN2(ir->max_regs, WEFT_NUM_REGS) : WEFT_NUM_REGS;

            for (r = 0; r + size <= max; r += size) {
               if (!busy[r] && (size == 1 || !busy[r + 1]))
                  break;
            }
            if (r + size > max) {
               if (!ir->ra_quiet)
                  fprintf(stderr, "weft: out of registers\n");
               ok = false;
               goto out;
            }
            phys[v] = r;
            live[v] = true;
            for (unsigned i = 0; i < size; i++)
               busy[r + i] = true;
            ir->num_regs = MAX2(ir->num_regs, r + size);
         }
         if (last[v] == idx)
            dying[ndying++] = v;
         *weft_ir_field_ptr(&I->in, od->field) = phys[v];
      }
      for (unsigned i = 0; i < ndying; i++) {
         for (unsigned j = 0; j < ir->vreg_regs[dying[i]]; j++)
            busy[phys[dying[i]] + j] = false;
      }
      /* Loop-extended values die at the endloop, with no operand there. */
      for (uint32_t v = 1; v < n; v++) {
         if (live[v] && last[v] == idx && !weft_ir_instr_reads(I, v)) {
            for (unsigned j = 0; j < ir->vreg_regs[v]; j++)
               busy[phys[v] + j] = false;
         }
      }
      idx++;
   }
   ir->allocated = true;
out:
   ralloc_free(first);
   return ok;
}

/* Inserts a new instruction before (@after false) or after @at. */
static struct weft_ir_instr *
weft_ir_emit_at(struct weft_ir *ir, struct weft_ir_instr *at, bool after, unsigned op,
                unsigned t)
{
   struct weft_ir_instr *N = weft_ir_emit(ir, op, t, 0);

   list_del(&N->link);
   if (after)
      list_add(&N->link, &at->link);
   else
      list_addtail(&N->link, &at->link);
   return N;
}

/* Marks @v as not to be spilled (again); new entries start at 0. */
static void
weft_ir_spill_mark(struct weft_ir *ir, uint32_t v, uint8_t value)
{
   if (ir->spilled_cap < ir->vreg_cap) {
      ir->vreg_spilled = rerzalloc(ir, ir->vreg_spilled, uint8_t, ir->spilled_cap, ir->vreg_cap);
      ir->spilled_cap = ir->vreg_cap;
   }
   if (v)
      ir->vreg_spilled[v] = value;
}

bool
weft_ir_spill(struct weft_ir *ir)
{
   unsigned n = ir->num_vregs + 1, idx = 0, best_len = 0;
   unsigned *first = ralloc_array(NULL, unsigned, n);
   unsigned *last = rzalloc_array(first, unsigned, n);
   uint32_t best = 0;

   weft_ir_spill_mark(ir, 0, 0);
   memset(first, 0xff, n * sizeof(unsigned));
   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      weft_ir_foreach_reg(I, od, is_def) {
         uint32_t v = I->vreg[od->field];
         first[v] = MIN2(first[v], idx);
         last[v] = idx;
      }
      idx++;
   }
   for (uint32_t v = 1; v < n; v++) {
      if (first[v] != ~0u && !ir->vreg_spilled[v] && last[v] - first[v] > best_len) {
         best = v;
         best_len = last[v] - first[v];
      }
   }
   ralloc_free(first);
   if (!best)
      return false;

   unsigned size = ir->vreg_regs[best] * 4, slot = ALIGN(ir->scratch_size, size);
   unsigned t = size == 8 ? WEFT_TYPE_U64 : WEFT_TYPE_U32;

   ir->scratch_size = slot + size;
   weft_ir_spill_mark(ir, best, 1);
   list_for_each_entry_safe(struct weft_ir_instr, I, &ir->instrs, link) {
      bool reads = false, writes = false;

      weft_ir_foreach_reg(I, od, is_def) {
         if (I->vreg[od->field] != best)
            continue;
         if (is_def)
            writes = true;
         else
            reads = true;
      }
      if (reads) {
         uint32_t a = weft_ir_vreg(ir, 32), tmp = weft_ir_vreg(ir, size * 8);
         struct weft_ir_instr *M = weft_ir_emit_at(ir, I, false, WEFT_OP_MOV, WEFT_TYPE_U32);
         struct weft_ir_instr *L = weft_ir_emit_at(ir, I, false, WEFT_OP_LD_SCRATCH, t);

         weft_ir_spill_mark(ir, a, 1);
         weft_ir_spill_mark(ir, tmp, 1);
         weft_ir_set(M, WEFT_IR_D, a);
         weft_ir_set_imm(M, 0);
         weft_ir_set(L, WEFT_IR_D, tmp);
         weft_ir_set(L, WEFT_IR_A, a);
         L->in.imm = slot;
         weft_ir_foreach_reg(I, od, is_def) {
            if (!is_def && I->vreg[od->field] == best)
               I->vreg[od->field] = tmp;
         }
      }
      if (writes) {
         /* The definition goes to a fresh single-assignment temporary: a
          * spilled variable (NIR register) no longer lives across loops. */
         uint32_t a = weft_ir_vreg(ir, 32), def = weft_ir_vreg(ir, size * 8);
         struct weft_ir_instr *S = weft_ir_emit_at(ir, I, true, WEFT_OP_ST_SCRATCH, t);
         struct weft_ir_instr *M = weft_ir_emit_at(ir, I, true, WEFT_OP_MOV, WEFT_TYPE_U32);

         weft_ir_spill_mark(ir, a, 1);
         weft_ir_spill_mark(ir, def, 1);
         weft_ir_foreach_reg(I, od, is_def) {
            if (is_def && I->vreg[od->field] == best)
               I->vreg[od->field] = def;
         }
         weft_ir_set(M, WEFT_IR_D, a);
         weft_ir_set_imm(M, 0);
         weft_ir_set(S, WEFT_IR_A, a);
         weft_ir_set(S, WEFT_IR_D, def);
         S->in.imm = slot;
      }
   }
   return true;
}

uint64_t *
weft_ir_pack(struct weft_ir *ir, void *mem_ctx, unsigned *nwords)
{
   unsigned n = 0, cap = 64, off = 0;
   uint64_t *words = ralloc_array(mem_ctx, uint64_t, cap);
   struct hash_table *offsets = _mesa_pointer_hash_table_create(NULL);

   /* Byte offsets of every instruction, then the branch targets. */
   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      _mesa_hash_table_insert(offsets, I, (void *)(uintptr_t)off);
      off += I->in.nwords * 8;
   }
   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      if (I->target) {
         uint32_t from = (uintptr_t)_mesa_hash_table_search(offsets, I)->data;
         uint32_t to = (uintptr_t)_mesa_hash_table_search(offsets, I->target)->data;
         I->in.imm = (uint32_t)((int32_t)to - (int32_t)from);
      }
   }
   _mesa_hash_table_destroy(offsets, NULL);

   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      uint64_t w[2];
      int k = weft_isa_encode(&I->in, w);

      if (k < 0)
         return NULL;
      if (n + 2 > cap) {
         cap *= 2;
         words = reralloc(mem_ctx, words, uint64_t, cap);
      }
      for (int i = 0; i < k; i++)
         words[n++] = w[i];
   }
   *nwords = n;
   return words;
}
