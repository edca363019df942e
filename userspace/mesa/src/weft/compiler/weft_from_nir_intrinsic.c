/* SPDX-License-Identifier: MIT */
/*
 * NIR intrinsics to weft IR: kernel arguments (constant buffer 0), global,
 * local and scratch memory, NIR registers, system values as special
 * registers, atomics and barriers. The cross-lane intrinsics are in
 * weft_from_nir_subgroup.c.
 */
#include <string.h>

#include "util/hash_table.h"
#include "util/ralloc.h"

#include "weft_from_nir.h"

/* A 64-bit address: @addr + @offset (a 32-bit or 64-bit value). */
static uint32_t
weft_add_offset64(struct weft_ctx *ctx, uint32_t addr, nir_src offset)
{
   uint32_t off = weft_src(ctx, offset, 0), off64 = off, d;
   struct weft_ir_instr *I;

   if (offset.ssa->bit_size != 64) {
      off64 = weft_ir_vreg(ctx->ir, 64);
      I = weft_ir_emit(ctx->ir, WEFT_OP_CVT, WEFT_TYPE_U64, WEFT_TYPE_U32);
      weft_ir_set(I, WEFT_IR_D, off64);
      weft_ir_set(I, WEFT_IR_A, off);
   }
   d = weft_ir_vreg(ctx->ir, 64);
   I = weft_ir_emit(ctx->ir, WEFT_OP_ADD, WEFT_TYPE_U64, 0);
   weft_ir_set(I, WEFT_IR_D, d);
   weft_ir_set(I, WEFT_IR_A, addr);
   weft_ir_set(I, WEFT_IR_B, off64);
   return d;
}

static void
weft_emit_loads(struct weft_ctx *ctx, nir_def *def, uint32_t addr, int32_t offset)
{
   unsigned bytes = def->bit_size / 8;

   for (unsigned c = 0; c < def->num_components; c++) {
      struct weft_ir_instr *I =
         weft_ir_emit(ctx->ir, WEFT_OP_LD_GLOBAL, weft_type(def->bit_size, false), 0);

      weft_ir_set(I, WEFT_IR_D, weft_def(ctx, def, c));
      weft_ir_set(I, WEFT_IR_A, addr);
      I->in.imm = offset + c * bytes;
   }
}

/* The ISA's atomic for a NIR atomic op: add..dec in the table's order from
 * the space's base opcode; float forms from their own base. */
static int
weft_atomic_op(nir_atomic_op op, bool local, bool *is_signed)
{
   unsigned base = local ? WEFT_OP_ATOM_LOCAL_ADD : WEFT_OP_ATOM_GLOBAL_ADD;
   unsigned fbase = local ? WEFT_OP_ATOM_LOCAL_FADD : WEFT_OP_ATOM_GLOBAL_FADD;

   *is_signed = false;
   switch (op) {
   case nir_atomic_op_iadd: return base + 0;
   case nir_atomic_op_imin: *is_signed = true; return base + 2;
   case nir_atomic_op_umin: return base + 2;
   case nir_atomic_op_imax: *is_signed = true; return base + 3;
   case nir_atomic_op_umax: return base + 3;
   case nir_atomic_op_iand: return base + 4;
   case nir_atomic_op_ior: return base + 5;
   case nir_atomic_op_ixor: return base + 6;
   case nir_atomic_op_xchg: return base + 7;
   case nir_atomic_op_cmpxchg: return base + 8;
   case nir_atomic_op_fadd: return fbase + 0;
   case nir_atomic_op_fmin: return fbase + 1;
   case nir_atomic_op_fmax: return fbase + 2;
   default: return -1;
   }
}

static void
weft_emit_atomic(struct weft_ctx *ctx, nir_intrinsic_instr *intr, bool local)
{
   nir_atomic_op aop = nir_intrinsic_atomic_op(intr);
   unsigned bits = intr->def.bit_size;
   bool is_signed, is_float = aop == nir_atomic_op_fadd || aop == nir_atomic_op_fmin ||
                              aop == nir_atomic_op_fmax;
   int op = weft_atomic_op(aop, local, &is_signed);
   struct weft_ir_instr *I;
   uint32_t addr;

   if (op < 0 || (bits != 32 && bits != 64)) {
      weft_fail(ctx, "%u-bit atomic op %u", bits, aop);
      return;
   }
   addr = local ? weft_offset32(ctx, intr->src[0]) : weft_src(ctx, intr->src[0], 0);
   if (local && nir_intrinsic_base(intr)) {
      uint32_t t = weft_ir_vreg(ctx->ir, 32);
      I = weft_ir_emit(ctx->ir, WEFT_OP_ADD, WEFT_TYPE_U32, 0);
      weft_ir_set(I, WEFT_IR_D, t);
      weft_ir_set(I, WEFT_IR_A, addr);
      weft_ir_set_imm(I, nir_intrinsic_base(intr));
      addr = t;
   }
   I = weft_ir_emit(ctx->ir, op, weft_type(bits, is_float ? WEFT_KIND_FLOAT : is_signed), 0);
   weft_ir_set(I, WEFT_IR_D, weft_def(ctx, &intr->def, 0));
   weft_ir_set(I, WEFT_IR_A, addr);
   weft_ir_set(I, WEFT_IR_B, weft_src(ctx, intr->src[1], 0));
   if (aop == nir_atomic_op_cmpxchg)
      weft_ir_set(I, WEFT_IR_C, weft_src(ctx, intr->src[2], 0));
}

static void
weft_emit_barrier(struct weft_ctx *ctx, nir_intrinsic_instr *intr)
{
   mesa_scope exec = nir_intrinsic_execution_scope(intr);
   mesa_scope mem = nir_intrinsic_memory_scope(intr);

   /* bar implies fence.wg; a device-scope fence is added for global memory. */
   if (exec >= SCOPE_WORKGROUP)
      weft_ir_emit(ctx->ir, WEFT_OP_BAR, 0, 0);
   if (mem >= SCOPE_QUEUE_FAMILY)
      weft_ir_emit(ctx->ir, WEFT_OP_FENCE_DEV, 0, 0);
   else if (mem == SCOPE_WORKGROUP && exec < SCOPE_WORKGROUP)
      weft_ir_emit(ctx->ir, WEFT_OP_FENCE_WG, 0, 0);
   else if (mem == SCOPE_SUBGROUP && exec < SCOPE_WORKGROUP)
      weft_ir_emit(ctx->ir, WEFT_OP_FENCE_SG, 0, 0);
}

/* One element per lane of a sub-group block read or write (the vectors
 * were split by weft_nir_lower_intel_subgroups). */
static void
weft_emit_block(struct weft_ctx *ctx, nir_intrinsic_instr *intr)
{
   bool store = intr->intrinsic == nir_intrinsic_store_global_block_intel;
   nir_src *data = store ? &intr->src[0] : NULL;
   unsigned bits = store ? nir_src_bit_size(*data) : intr->def.bit_size;
   unsigned comps = store ? nir_src_num_components(*data) : intr->def.num_components;
   struct weft_ir_instr *I;

   if (comps != 1) {
      weft_fail(ctx, "a %u-element sub-group block %s left unsplit", comps,
                store ? "write" : "read");
      return;
   }
   I = weft_ir_emit(ctx->ir, store ? WEFT_OP_ST_BLOCK : WEFT_OP_LD_BLOCK,
                    weft_type(bits, false), 0);
   weft_ir_set(I, WEFT_IR_A, weft_src(ctx, intr->src[store ? 1 : 0], 0));
   weft_ir_set(I, WEFT_IR_D, store ? weft_src(ctx, *data, 0) : weft_def(ctx, &intr->def, 0));
}

/* One row of a sub-group block read or write of a 2D image (the rows were
 * split by weft_nir_lower_intel_subgroups): ld.img / st.img on the
 * descriptor at the argument buffer + the handle, (x, y) as the register
 * pair the instruction takes. */
static void
weft_emit_image_block(struct weft_ctx *ctx, nir_intrinsic_instr *intr)
{
   bool store = intr->intrinsic == nir_intrinsic_bindless_image_store_block_intel;
   nir_src *data = store ? &intr->src[2] : NULL;
   unsigned bits = store ? nir_src_bit_size(*data) : intr->def.bit_size;
   unsigned rows = store ? nir_src_num_components(*data) : intr->def.num_components;
   uint32_t xy = weft_ir_vreg(ctx->ir, 64), desc;
   struct weft_ir_instr *I;

   if (rows != 1 || bits > 32) {
      weft_fail(ctx, "a %u-row sub-group image block %s of %u-bit elements", rows,
                store ? "write" : "read", bits);
      return;
   }
   weft_emit_pack_64(ctx, xy, weft_src(ctx, intr->src[1], 0), weft_src(ctx, intr->src[1], 1));
   desc = weft_add_offset64(ctx, ctx->args, intr->src[0]);
   I = weft_ir_emit(ctx->ir, store ? WEFT_OP_ST_IMG : WEFT_OP_LD_IMG, weft_type(bits, false), 0);
   weft_ir_set(I, WEFT_IR_A, desc);
   weft_ir_set(I, WEFT_IR_B, xy);
   weft_ir_set(I, WEFT_IR_D, store ? weft_src(ctx, *data, 0) : weft_def(ctx, &intr->def, 0));
}

void
weft_emit_intrinsic(struct weft_ctx *ctx, nir_intrinsic_instr *intr)
{
   static const char *const xyz[] = { "x", "y", "z" };
   const char *sysval = NULL;
   char name[64];

   switch (intr->intrinsic) {
   case nir_intrinsic_load_ubo: {
      if (!nir_src_is_const(intr->src[0]) || nir_src_as_uint(intr->src[0]) != 0) {
         weft_fail(ctx, "constant buffers other than 0 (the kernel arguments)");
         return;
      }
      if (nir_src_is_const(intr->src[1]))
         weft_emit_loads(ctx, &intr->def, ctx->args, nir_src_as_uint(intr->src[1]));
      else
         weft_emit_loads(ctx, &intr->def, weft_add_offset64(ctx, ctx->args, intr->src[1]), 0);
      return;
   }
   case nir_intrinsic_load_global:
   case nir_intrinsic_load_global_constant:
      weft_emit_loads(ctx, &intr->def, weft_src(ctx, intr->src[0], 0), 0);
      return;
   case nir_intrinsic_store_global: {
      nir_def *val = intr->src[0].ssa;
      unsigned mask = nir_intrinsic_write_mask(intr);

      for (unsigned c = 0; c < val->num_components; c++) {
         struct weft_ir_instr *I;

         if (!(mask & (1 << c)))
            continue;
         I = weft_ir_emit(ctx->ir, WEFT_OP_ST_GLOBAL, weft_type(val->bit_size, false), 0);
         weft_ir_set(I, WEFT_IR_A, weft_src(ctx, intr->src[1], 0));
         weft_ir_set(I, WEFT_IR_D, weft_src(ctx, intr->src[0], c));
         I->in.imm = c * (val->bit_size / 8);
      }
      return;
   }
   case nir_intrinsic_decl_reg:
      if (nir_intrinsic_num_components(intr) != 1 || nir_intrinsic_num_array_elems(intr)) {
         weft_fail(ctx, "vector or array registers");
         return;
      }
      _mesa_hash_table_insert(ctx->regs, &intr->def,
                              (void *)(uintptr_t)weft_ir_vreg_multi(
                                 ctx->ir, weft_reg_bits(nir_intrinsic_bit_size(intr))));
      return;
   case nir_intrinsic_load_reg:
   case nir_intrinsic_store_reg: {
      bool load = intr->intrinsic == nir_intrinsic_load_reg;
      nir_intrinsic_instr *decl = nir_reg_get_decl(intr->src[load ? 0 : 1].ssa);
      struct hash_entry *e = _mesa_hash_table_search(ctx->regs, &decl->def);
      unsigned bits = weft_reg_bits(nir_intrinsic_bit_size(decl));
      struct weft_ir_instr *I = weft_ir_emit(ctx->ir, WEFT_OP_MOV, weft_type(bits, false), 0);
      uint32_t reg = (uintptr_t)e->data;

      if (load) {
         weft_ir_set(I, WEFT_IR_D, weft_def(ctx, &intr->def, 0));
         weft_ir_set(I, WEFT_IR_B, reg);
      } else {
         weft_ir_set(I, WEFT_IR_D, reg);
         weft_ir_set(I, WEFT_IR_B, weft_src(ctx, intr->src[0], 0));
      }
      return;
   }
   case nir_intrinsic_load_global_invocation_id:
      sysval = "global_id";
      break;
   case nir_intrinsic_load_local_invocation_id:
      sysval = "local_id";
      break;
   case nir_intrinsic_load_workgroup_id:
      sysval = "group_id";
      break;
   case nir_intrinsic_load_num_workgroups:
      sysval = "num_groups";
      break;
   case nir_intrinsic_load_workgroup_size:
      sysval = "local_size";
      break;
   case nir_intrinsic_load_enqueued_workgroup_size:
      sysval = "enqueued_local_size";
      break;
   case nir_intrinsic_load_global_size:
      sysval = "global_size";
      break;
   case nir_intrinsic_load_local_invocation_index:
      weft_emit_s2r(ctx, weft_def(ctx, &intr->def, 0), intr->def.bit_size, "local_linear_id");
      return;
   case nir_intrinsic_load_subgroup_invocation:
      weft_emit_s2r(ctx, weft_def(ctx, &intr->def, 0), intr->def.bit_size, "lane_id");
      return;
   case nir_intrinsic_load_subgroup_id:
      weft_emit_s2r(ctx, weft_def(ctx, &intr->def, 0), intr->def.bit_size, "subgroup_id");
      return;
   case nir_intrinsic_load_num_subgroups:
      weft_emit_s2r(ctx, weft_def(ctx, &intr->def, 0), intr->def.bit_size, "num_subgroups");
      return;
   case nir_intrinsic_load_subgroup_size:
      weft_emit_s2r(ctx, weft_def(ctx, &intr->def, 0), intr->def.bit_size, "subgroup_size");
      return;
   case nir_intrinsic_load_max_subgroup_size:
      weft_emit_s2r(ctx, weft_def(ctx, &intr->def, 0), intr->def.bit_size, "max_subgroup_size");
      return;
   case nir_intrinsic_load_scratch:
   case nir_intrinsic_load_shared: {
      bool scratch = intr->intrinsic == nir_intrinsic_load_scratch;
      uint32_t off = weft_offset32(ctx, intr->src[0]);
      unsigned bytes = intr->def.bit_size / 8;

      for (unsigned c = 0; c < intr->def.num_components; c++) {
         struct weft_ir_instr *I =
            weft_ir_emit(ctx->ir, scratch ? WEFT_OP_LD_SCRATCH : WEFT_OP_LD_LOCAL,
                         weft_type(intr->def.bit_size, false), 0);
         weft_ir_set(I, WEFT_IR_D, weft_def(ctx, &intr->def, c));
         weft_ir_set(I, WEFT_IR_A, off);
         I->in.imm = (nir_intrinsic_has_base(intr) ? nir_intrinsic_base(intr) : 0) + c * bytes;
      }
      return;
   }
   case nir_intrinsic_store_scratch:
   case nir_intrinsic_store_shared: {
      bool scratch = intr->intrinsic == nir_intrinsic_store_scratch;
      nir_def *val = intr->src[0].ssa;
      unsigned mask = nir_intrinsic_write_mask(intr);
      uint32_t off = weft_offset32(ctx, intr->src[1]);

      for (unsigned c = 0; c < val->num_components; c++) {
         struct weft_ir_instr *I;

         if (!(mask & (1 << c)))
            continue;
         I = weft_ir_emit(ctx->ir, scratch ? WEFT_OP_ST_SCRATCH : WEFT_OP_ST_LOCAL,
                          weft_type(val->bit_size, false), 0);
         weft_ir_set(I, WEFT_IR_A, off);
         weft_ir_set(I, WEFT_IR_D, weft_src(ctx, intr->src[0], c));
         I->in.imm = (nir_intrinsic_has_base(intr) ? nir_intrinsic_base(intr) : 0) + c * (val->bit_size / 8);
      }
      return;
   }
   case nir_intrinsic_shared_atomic:
   case nir_intrinsic_shared_atomic_swap:
      weft_emit_atomic(ctx, intr, true);
      return;
   case nir_intrinsic_global_atomic:
   case nir_intrinsic_global_atomic_swap:
      weft_emit_atomic(ctx, intr, false);
      return;
   case nir_intrinsic_barrier:
      weft_emit_barrier(ctx, intr);
      return;
   case nir_intrinsic_reduce:
   case nir_intrinsic_inclusive_scan:
   case nir_intrinsic_exclusive_scan:
   case nir_intrinsic_vote_any:
   case nir_intrinsic_vote_all:
   case nir_intrinsic_ballot:
   case nir_intrinsic_read_invocation:
   case nir_intrinsic_shuffle:
   case nir_intrinsic_shuffle_xor:
   case nir_intrinsic_shuffle_up:
   case nir_intrinsic_shuffle_down:
   case nir_intrinsic_shuffle_up_intel:
   case nir_intrinsic_shuffle_down_intel:
      weft_emit_xlane(ctx, intr);
      return;
   case nir_intrinsic_load_global_block_intel:
   case nir_intrinsic_store_global_block_intel:
      weft_emit_block(ctx, intr);
      return;
   case nir_intrinsic_bindless_image_load_block_intel:
   case nir_intrinsic_bindless_image_store_block_intel:
      weft_emit_image_block(ctx, intr);
      return;
   case nir_intrinsic_enqueue_kernel:
   case nir_intrinsic_load_default_device_queue:
      /* Documentation/gpu/weft/device-enqueue.rst: the lowering onto the
       * device queue needs the queue and the child's code from Rusticl. */
      weft_fail(ctx, "enqueue_kernel or get_default_queue (device-side enqueue): the driver "
                "has no on-device queue yet");
      return;
   default:
      weft_fail(ctx, "intrinsic %s", nir_intrinsic_infos[intr->intrinsic].name);
      return;
   }

   for (unsigned c = 0; c < intr->def.num_components; c++) {
      snprintf(name, sizeof(name), "%s.%s", sysval, xyz[c]);
      weft_emit_s2r(ctx, weft_def(ctx, &intr->def, c), intr->def.bit_size, name);
   }
}
