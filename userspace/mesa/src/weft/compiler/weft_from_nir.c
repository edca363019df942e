/* SPDX-License-Identifier: MIT */
/*
 * NIR to weft IR: values, constants, structured control flow and the entry
 * point. The input is scalar ALU, scalar memory access, 32-bit booleans
 * and structured control flow out of SSA (NIR registers for the values
 * that merge); ALU instructions and intrinsics are translated in
 * weft_from_nir_alu.c and weft_from_nir_intrinsic.c.
 */
#include <string.h>

#include "util/hash_table.h"
#include "util/ralloc.h"

#include "weft_from_nir.h"

uint32_t
weft_def(struct weft_ctx *ctx, nir_def *def, unsigned comp)
{
   uint32_t *v = &ctx->defs[def->index][comp];

   if (!*v)
      *v = weft_ir_vreg(ctx->ir, weft_reg_bits(def->bit_size));
   return *v;
}

uint32_t
weft_src(struct weft_ctx *ctx, nir_src src, unsigned comp)
{
   uint32_t v = ctx->defs[src.ssa->index][comp];

   if (!v)
      weft_fail(ctx, "NIR value %%%u used before its definition", src.ssa->index);
   return v;
}

static int
weft_sreg(const char *name)
{
   for (unsigned i = 0; i < WEFT_ISA_NUM_SREGS; i++) {
      if (weft_isa_sregs[i].name && !strcmp(weft_isa_sregs[i].name, name))
         return i;
   }
   return -1;
}

void
weft_emit_s2r(struct weft_ctx *ctx, uint32_t dst, unsigned bits, const char *name)
{
   int sr = weft_sreg(name);
   struct weft_ir_instr *I;

   if (sr < 0) {
      weft_fail(ctx, "special register %s (the ISA has none)", name);
      return;
   }
   I = weft_ir_emit(ctx->ir, WEFT_OP_S2R, bits == 64 ? WEFT_TYPE_U64 : WEFT_TYPE_U32, 0);
   I->in.mod = sr;
   weft_ir_set(I, WEFT_IR_D, dst);
}

uint32_t
weft_mov_imm(struct weft_ctx *ctx, unsigned bits, uint64_t value)
{
   uint32_t d = weft_ir_vreg(ctx->ir, weft_reg_bits(bits));
   struct weft_ir_instr *I = weft_ir_emit(ctx->ir, WEFT_OP_MOV, weft_type(weft_reg_bits(bits), false), 0);

   weft_ir_set(I, WEFT_IR_D, d);
   weft_ir_set_imm(I, value);
   return d;
}

static void
weft_emit_load_const(struct weft_ctx *ctx, nir_load_const_instr *lc)
{
   for (unsigned c = 0; c < lc->def.num_components; c++) {
      uint64_t v = nir_const_value_as_uint(lc->value[c], lc->def.bit_size);
      uint32_t d = weft_def(ctx, &lc->def, c);
      unsigned bits = weft_reg_bits(lc->def.bit_size);
      struct weft_ir_instr *I = weft_ir_emit(ctx->ir, WEFT_OP_MOV, weft_type(bits, false), 0);

      if (lc->def.bit_size == 1)
         v = v ? 0xffffffffu : 0;
      weft_ir_set(I, WEFT_IR_D, d);
      weft_ir_set_imm(I, v);
   }
}

/* A 32-bit SLM byte offset from @src (32-bit, or 64-bit: its low half). */
uint32_t
weft_offset32(struct weft_ctx *ctx, nir_src src)
{
   uint32_t v = weft_src(ctx, src, 0), t;
   struct weft_ir_instr *I;

   if (src.ssa->bit_size != 64)
      return v;
   t = weft_ir_vreg(ctx->ir, 32);
   I = weft_ir_emit(ctx->ir, WEFT_OP_CVT, WEFT_TYPE_U32, WEFT_TYPE_U64);
   weft_ir_set(I, WEFT_IR_D, t);
   weft_ir_set(I, WEFT_IR_A, v);
   return t;
}

static void
weft_emit_block(struct weft_ctx *ctx, nir_block *block)
{
   nir_foreach_instr(instr, block) {
      switch (instr->type) {
      case nir_instr_type_load_const:
         weft_emit_load_const(ctx, nir_instr_as_load_const(instr));
         break;
      case nir_instr_type_alu:
         weft_emit_alu(ctx, nir_instr_as_alu(instr));
         break;
      case nir_instr_type_intrinsic:
         weft_emit_intrinsic(ctx, nir_instr_as_intrinsic(instr));
         break;
      case nir_instr_type_undef: {
         nir_undef_instr *u = nir_instr_as_undef(instr);
         for (unsigned c = 0; c < u->def.num_components; c++)
            ctx->defs[u->def.index][c] = weft_mov_imm(ctx, u->def.bit_size, 0);
         break;
      }
      case nir_instr_type_jump: {
         nir_jump_instr *j = nir_instr_as_jump(instr);
         uint32_t all = weft_mov_imm(ctx, 32, 0xffffffffu);
         struct weft_ir_instr *I;

         if (j->type == nir_jump_break)
            I = weft_ir_emit(ctx->ir, WEFT_OP_BREAK, 0, 0);
         else if (j->type == nir_jump_continue)
            I = weft_ir_emit(ctx->ir, WEFT_OP_CONT, 0, 0);
         else {
            weft_fail(ctx, "jump type %u", j->type);
            return;
         }
         weft_ir_set(I, WEFT_IR_A, all);
         break;
      }
      case nir_instr_type_tex:
         /* weft_nir_lower_images lowers every image access it can. */
         weft_fail(ctx, "image operation %u (nir_texop), or an image or sampler chosen at "
                   "run time", nir_instr_as_tex(instr)->op);
         break;
      default:
         weft_fail(ctx, "NIR instruction type %u", instr->type);
      }
      if (ctx->failed)
         return;
   }
}

static void weft_emit_cf_list(struct weft_ctx *ctx, struct exec_list *list);

/* The break or continue that is all of @nif's then-block, with nothing
 * in its else-block; NULL otherwise. */
static nir_jump_instr *
weft_if_only_jumps(nir_if *nif)
{
   nir_block *then = nir_if_first_then_block(nif);
   nir_instr *instr = nir_block_first_instr(then);

   if (then != nir_if_last_then_block(nif) || !nir_cf_list_is_empty_block(&nif->else_list) ||
       !instr || instr != nir_block_last_instr(then) || instr->type != nir_instr_type_jump)
      return NULL;
   nir_jump_instr *j = nir_instr_as_jump(instr);
   return j->type == nir_jump_break || j->type == nir_jump_continue ? j : NULL;
}

/* Structured control flow maps onto the ISA's if/else/endif and
 * loop/break/cont/endloop on per-lane masks.  An if around only a break
 * or continue (a loop's exit test) is the break or cont of the lanes
 * whose condition holds: no if and endif to run at every pass. */
static void
weft_emit_if(struct weft_ctx *ctx, nir_if *nif)
{
   nir_jump_instr *jump = weft_if_only_jumps(nif);

   if (jump) {
      struct weft_ir_instr *J =
         weft_ir_emit(ctx->ir, jump->type == nir_jump_break ? WEFT_OP_BREAK : WEFT_OP_CONT, 0, 0);

      weft_ir_set(J, WEFT_IR_A, weft_src(ctx, nif->condition, 0));
      return;
   }

   struct weft_ir_instr *I = weft_ir_emit(ctx->ir, WEFT_OP_IF, 0, 0), *E = NULL, *End;

   weft_ir_set(I, WEFT_IR_A, weft_src(ctx, nif->condition, 0));
   weft_emit_cf_list(ctx, &nif->then_list);
   if (!nir_cf_list_is_empty_block(&nif->else_list)) {
      E = weft_ir_emit(ctx->ir, WEFT_OP_ELSE, 0, 0);
      weft_emit_cf_list(ctx, &nif->else_list);
   }
   End = weft_ir_emit(ctx->ir, WEFT_OP_ENDIF, 0, 0);
   I->target = E ? E : End;
   if (E)
      E->target = End;
}

static void
weft_emit_loop(struct weft_ctx *ctx, nir_loop *loop)
{
   struct weft_ir_instr *L = weft_ir_emit(ctx->ir, WEFT_OP_LOOP, 0, 0);

   weft_emit_cf_list(ctx, &loop->body);
   L->target = weft_ir_emit(ctx->ir, WEFT_OP_ENDLOOP, 0, 0);
}

static void
weft_emit_cf_list(struct weft_ctx *ctx, struct exec_list *list)
{
   foreach_list_typed(nir_cf_node, node, node, list) {
      switch (node->type) {
      case nir_cf_node_block:
         weft_emit_block(ctx, nir_cf_node_as_block(node));
         break;
      case nir_cf_node_if:
         weft_emit_if(ctx, nir_cf_node_as_if(node));
         break;
      case nir_cf_node_loop:
         weft_emit_loop(ctx, nir_cf_node_as_loop(node));
         break;
      default:
         weft_fail(ctx, "control flow node %u", node->type);
      }
      if (ctx->failed)
         return;
   }
}

struct weft_ir *
weft_from_nir(nir_shader *nir, void *mem_ctx, const char **error)
{
   nir_function_impl *impl = nir_shader_get_entrypoint(nir);
   struct weft_ctx ctx = { .nir = nir };

   nir_index_ssa_defs(impl);
   ctx.ir = weft_ir_create(mem_ctx);
   ctx.regs = _mesa_pointer_hash_table_create(ctx.ir);
   ctx.defs = rzalloc_size(ctx.ir, sizeof(*ctx.defs) * impl->ssa_alloc);
   ctx.args = weft_ir_vreg(ctx.ir, 64);
   weft_emit_s2r(&ctx, ctx.args, 64, "args");

   weft_emit_cf_list(&ctx, &impl->body);
   if (ctx.failed) {
      *error = ctx.error;
      return NULL;
   }
   weft_ir_emit(ctx.ir, WEFT_OP_END, 0, 0);
   return ctx.ir;
}
