/* SPDX-License-Identifier: MIT */
/*
 * The weft IR core: building instructions on virtual registers and the
 * helpers the passes share. Every pass is in its own file, named for it
 * (weft_validate.c, weft_print.c, weft_opt_dce.c, weft_ra.c,
 * weft_spill.c, weft_pack.c), with its unit tests in tests/.
 */
#include <string.h>

#include "util/ralloc.h"
#include "util/macros.h"

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
      ir->vreg_vector = reralloc(ir, ir->vreg_vector, uint32_t, ir->vreg_cap);
      ir->vreg_offset = reralloc(ir, ir->vreg_offset, uint8_t, ir->vreg_cap);
      ir->vreg_vector[0] = 0;
   }
   ir->vreg_regs[++ir->num_vregs] = bits == 64 ? 2 : 1;
   ir->vreg_multi[ir->num_vregs] = 0;
   ir->vreg_vector[ir->num_vregs] = 0;
   ir->vreg_offset[ir->num_vregs] = 0;
   return ir->num_vregs;
}

uint32_t
weft_ir_vreg_vector(struct weft_ir *ir, unsigned regs)
{
   uint32_t v = weft_ir_vreg(ir, 32);

   ir->vreg_regs[v] = regs;
   ir->vreg_vector[v] = v;
   return v;
}

void
weft_ir_vreg_set_part(struct weft_ir *ir, uint32_t v, uint32_t vector, unsigned offset)
{
   ir->vreg_vector[v] = vector;
   ir->vreg_offset[v] = offset;
}

unsigned
weft_ir_operand_regs(const struct weft_inst *in, const struct weft_operand_desc *od,
                     unsigned regs_per_element)
{
   unsigned vec = weft_isa_ops[in->op].vec;

   if (vec > 1 && (od->role == WEFT_ROLE_DST || od->role == WEFT_ROLE_SDATA))
      return regs_per_element * vec;
   return regs_per_element;
}

uint32_t
weft_ir_vreg_multi(struct weft_ir *ir, unsigned bits)
{
   uint32_t v = weft_ir_vreg(ir, bits);

   ir->vreg_multi[v] = 1;
   return v;
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
weft_ir_op_has_target(unsigned op)
{
   struct weft_inst in = { .op = op };

   return weft_isa_ops[op].name && weft_ir_operand(&in, WEFT_ROLE_TARGET);
}

bool
weft_ir_op_commutes(unsigned op)
{
   switch (op) {
   case WEFT_OP_ADD: case WEFT_OP_MUL: case WEFT_OP_MUL_HI: case WEFT_OP_AND:
   case WEFT_OP_OR: case WEFT_OP_XOR: case WEFT_OP_MIN: case WEFT_OP_MAX:
   case WEFT_OP_SET_EQ: case WEFT_OP_SET_NE: case WEFT_OP_FADD: case WEFT_OP_FMUL:
      return true;
   default:
      return false;
   }
}

bool
weft_ir_op_has_srci(unsigned op)
{
   struct weft_inst in = { .op = op };

   return weft_isa_ops[op].name && weft_ir_operand(&in, WEFT_ROLE_SRCI);
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

struct weft_ir_instr *
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

void
weft_ir_set(struct weft_ir_instr *I, enum weft_ir_field f, uint32_t vreg)
{
   I->vreg[f] = vreg;
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

uint16_t *
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

void
weft_ir_live_ranges(struct weft_ir *ir, unsigned *first, unsigned *last)
{
   unsigned idx = 0;

   memset(first, 0xff, (ir->num_vregs + 1) * sizeof(unsigned));
   memset(last, 0, (ir->num_vregs + 1) * sizeof(unsigned));
   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      weft_ir_foreach_reg(I, od, is_def) {
         uint32_t v = weft_ir_vreg_alloc(ir, I->vreg[od->field]);
         first[v] = MIN2(first[v], idx);
         last[v] = idx;
      }
      idx++;
   }
}
