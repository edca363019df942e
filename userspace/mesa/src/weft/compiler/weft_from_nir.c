/* SPDX-License-Identifier: MIT */
/*
 * NIR to weft IR. The input is scalar ALU, scalar memory access, 32-bit
 * booleans, one block: what the ISA can run today (integer ALU, s2r,
 * global loads and stores, conversions).
 */
#include <string.h>

#include "util/hash_table.h"
#include "util/ralloc.h"

#include "weft_nir.h"

struct weft_ctx {
   struct weft_ir *ir;
   nir_shader *nir;
   uint32_t (*defs)[NIR_MAX_VEC_COMPONENTS];  /* vreg of each SSA component */
   uint32_t args;                             /* sr.args, 64-bit */
   struct hash_table *regs;                   /* decl_reg def -> vreg */
   bool failed;
};

#define weft_fail(ctx, ...)                                                    \
   do {                                                                        \
      fprintf(stderr, "weft: cannot compile: " __VA_ARGS__);                   \
      fprintf(stderr, "\n");                                                   \
      (ctx)->failed = true;                                                    \
   } while (0)

#define WEFT_KIND_FLOAT 2

static unsigned
weft_type(unsigned bits, int is_signed)
{
   if (is_signed == WEFT_KIND_FLOAT)
      return bits == 64 ? WEFT_TYPE_F64 : bits == 16 ? WEFT_TYPE_F16 : WEFT_TYPE_F32;
   switch (bits) {
   case 8: return is_signed ? WEFT_TYPE_S8 : WEFT_TYPE_U8;
   case 16: return is_signed ? WEFT_TYPE_S16 : WEFT_TYPE_U16;
   case 64: return is_signed ? WEFT_TYPE_S64 : WEFT_TYPE_U64;
   default: return is_signed ? WEFT_TYPE_S32 : WEFT_TYPE_U32;
   }
}

/* Registers hold 8/16-bit values zero- or sign-extended to 32 bits. */
static unsigned
weft_reg_bits(unsigned bits)
{
   return bits == 64 ? 64 : 32;
}

static uint32_t
weft_def(struct weft_ctx *ctx, nir_def *def, unsigned comp)
{
   uint32_t *v = &ctx->defs[def->index][comp];

   if (!*v)
      *v = weft_ir_vreg(ctx->ir, weft_reg_bits(def->bit_size));
   return *v;
}

static uint32_t
weft_src(struct weft_ctx *ctx, nir_src src, unsigned comp)
{
   uint32_t v = ctx->defs[src.ssa->index][comp];

   if (!v)
      weft_fail(ctx, "value %%%u used before its definition", src.ssa->index);
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

static void
weft_emit_s2r(struct weft_ctx *ctx, uint32_t dst, unsigned bits, const char *name)
{
   int sr = weft_sreg(name);
   struct weft_ir_instr *I;

   if (sr < 0) {
      weft_fail(ctx, "the ISA has no special register %s", name);
      return;
   }
   I = weft_ir_emit(ctx->ir, WEFT_OP_S2R, bits == 64 ? WEFT_TYPE_U64 : WEFT_TYPE_U32, 0);
   I->in.mod = sr;
   weft_ir_set(I, WEFT_IR_D, dst);
}

static uint32_t
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

/* A 32-bit SLM byte offset from @src (32-bit, or 64-bit: its low half). */
static uint32_t
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

/* Cross-lane operations on the ISA's native xlane instructions. */
static int
weft_reduce_op(nir_op op, int *kind)
{
   *kind = 0;
   switch (op) {
   case nir_op_iadd: return 0;
   case nir_op_fadd: *kind = WEFT_KIND_FLOAT; return 0;
   case nir_op_imul: return 1;
   case nir_op_fmul: *kind = WEFT_KIND_FLOAT; return 1;
   case nir_op_imin: *kind = 1; return 2;
   case nir_op_umin: return 2;
   case nir_op_fmin: *kind = WEFT_KIND_FLOAT; return 2;
   case nir_op_imax: *kind = 1; return 3;
   case nir_op_umax: return 3;
   case nir_op_fmax: *kind = WEFT_KIND_FLOAT; return 3;
   case nir_op_iand: return 4;
   case nir_op_ior: return 5;
   case nir_op_ixor: return 6;
   default: return -1;
   }
}

static void
weft_emit_xlane(struct weft_ctx *ctx, nir_intrinsic_instr *intr)
{
   unsigned bits = intr->def.bit_size;
   struct weft_ir_instr *I;
   unsigned op;
   int kind = 0;

   switch (intr->intrinsic) {
   case nir_intrinsic_reduce:
   case nir_intrinsic_inclusive_scan:
   case nir_intrinsic_exclusive_scan: {
      int k = weft_reduce_op(nir_intrinsic_reduction_op(intr), &kind);

      if (k < 0 || (intr->intrinsic == nir_intrinsic_reduce &&
                    nir_intrinsic_cluster_size(intr) != 0)) {
         weft_fail(ctx, "clustered or unknown sub-group reduction");
         return;
      }
      op = (intr->intrinsic == nir_intrinsic_reduce ? WEFT_OP_RED_ADD :
            intr->intrinsic == nir_intrinsic_inclusive_scan ? WEFT_OP_ISCAN_ADD :
            WEFT_OP_ESCAN_ADD) + k;
      I = weft_ir_emit(ctx->ir, op, weft_type(bits, kind), 0);
      weft_ir_set(I, WEFT_IR_D, weft_def(ctx, &intr->def, 0));
      weft_ir_set(I, WEFT_IR_A, weft_src(ctx, intr->src[0], 0));
      return;
   }
   case nir_intrinsic_vote_any:
   case nir_intrinsic_vote_all:
   case nir_intrinsic_ballot:
      op = intr->intrinsic == nir_intrinsic_vote_any ? WEFT_OP_VOTE_ANY :
           intr->intrinsic == nir_intrinsic_vote_all ? WEFT_OP_VOTE_ALL : WEFT_OP_BALLOT;
      if (bits != 32 && intr->intrinsic == nir_intrinsic_ballot) {
         weft_fail(ctx, "%u-bit ballot", bits);
         return;
      }
      I = weft_ir_emit(ctx->ir, op, 0, 0);
      weft_ir_set(I, WEFT_IR_D, weft_def(ctx, &intr->def, 0));
      weft_ir_set(I, WEFT_IR_A, weft_src(ctx, intr->src[0], 0));
      return;
   case nir_intrinsic_read_invocation: op = WEFT_OP_BCAST; break;
   case nir_intrinsic_shuffle: op = WEFT_OP_SHFL_IDX; break;
   case nir_intrinsic_shuffle_xor: op = WEFT_OP_SHFL_XOR; break;
   case nir_intrinsic_shuffle_up: op = WEFT_OP_SHFL_UP; break;
   case nir_intrinsic_shuffle_down: op = WEFT_OP_SHFL_DOWN; break;
   default:
      unreachable("not a cross-lane intrinsic");
   }
   I = weft_ir_emit(ctx->ir, op, weft_type(bits, false), 0);
   weft_ir_set(I, WEFT_IR_D, weft_def(ctx, &intr->def, 0));
   weft_ir_set(I, WEFT_IR_A, weft_src(ctx, intr->src[0], 0));
   if (nir_src_is_const(intr->src[1]))
      weft_ir_set_imm(I, nir_src_as_uint(intr->src[1]));
   else
      weft_ir_set(I, WEFT_IR_B, weft_offset32(ctx, intr->src[1]));
}

static void
weft_emit_intrinsic(struct weft_ctx *ctx, nir_intrinsic_instr *intr)
{
   static const char *const xyz[] = { "x", "y", "z" };
   const char *sysval = NULL;
   char name[64];

   switch (intr->intrinsic) {
   case nir_intrinsic_load_ubo: {
      if (!nir_src_is_const(intr->src[0]) || nir_src_as_uint(intr->src[0]) != 0) {
         weft_fail(ctx, "only constant buffer 0 (the kernel arguments)");
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
      sysval = "enqueued_local_size";
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
      weft_emit_xlane(ctx, intr);
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

struct weft_alu_map {
   unsigned op;
   int8_t is_signed;   /* 0 unsigned, 1 signed, 2 float: with the sources' bit size */
};

static bool
weft_alu_lookup(nir_op op, struct weft_alu_map *m)
{
   switch (op) {
#define MAP(nop, wop, s) case nir_op_##nop: *m = (struct weft_alu_map){ WEFT_OP_##wop, s }; return true;
   MAP(iadd, ADD, 0) MAP(isub, SUB, 0) MAP(imul, MUL, 0)
   MAP(imul_high, MUL_HI, 1) MAP(umul_high, MUL_HI, 0)
   MAP(idiv, DIV, 1) MAP(udiv, DIV, 0) MAP(irem, REM, 1) MAP(umod, REM, 0)
   MAP(iand, AND, 0) MAP(ior, OR, 0) MAP(ixor, XOR, 0) MAP(inot, NOT, 0)
   MAP(ineg, NEG, 0) MAP(iabs, ABS, 1)
   MAP(ishl, SHL, 0) MAP(ishr, SAR, 0) MAP(ushr, SHR, 0)
   MAP(imin, MIN, 1) MAP(imax, MAX, 1) MAP(umin, MIN, 0) MAP(umax, MAX, 0)
   MAP(ieq32, SET_EQ, 0) MAP(ine32, SET_NE, 0) MAP(ilt32, SET_LT, 1)
   MAP(ige32, SET_GE, 1) MAP(ult32, SET_LT, 0) MAP(uge32, SET_GE, 0)
   MAP(bit_count, POPC, 0) MAP(uclz, CLZ, 0)
   MAP(mov, MOV, 0)
   MAP(fadd, FADD, 2) MAP(fsub, FSUB, 2) MAP(fmul, FMUL, 2) MAP(ffma, FFMA, 2)
   MAP(fdiv, FDIV, 2) MAP(fsqrt, FSQRT, 2) MAP(fmin, FMIN, 2) MAP(fmax, FMAX, 2)
   MAP(fneg, FNEG, 2) MAP(fabs, FABS, 2) MAP(ffloor, FFLOOR, 2) MAP(fceil, FCEIL, 2)
   MAP(ftrunc, FTRUNC, 2) MAP(fround_even, FRINT, 2) MAP(frcp, FRCP, 2)
   MAP(frsq, FRSQRT, 2) MAP(fexp2, FEXP2, 2) MAP(flog2, FLOG2, 2) MAP(fsin, FSIN, 2)
   MAP(fcos, FCOS, 2)
   MAP(feq32, FSET_EQ, 2) MAP(fneu32, FSET_NEU, 2) MAP(flt32, FSET_LT, 2)
   MAP(fge32, FSET_GE, 2)
#undef MAP
   default:
      return false;
   }
}

static void
weft_emit_cvt(struct weft_ctx *ctx, uint32_t d, unsigned dbits, uint32_t a, unsigned sbits,
              bool is_signed)
{
   struct weft_ir_instr *I =
      weft_ir_emit(ctx->ir, WEFT_OP_CVT, weft_type(dbits, is_signed), weft_type(sbits, is_signed));

   weft_ir_set(I, WEFT_IR_D, d);
   weft_ir_set(I, WEFT_IR_A, a);
}

static void
weft_emit_alu(struct weft_ctx *ctx, nir_alu_instr *alu)
{
   const nir_op_info *info = &nir_op_infos[alu->op];
   unsigned dbits = alu->def.bit_size;
   unsigned sbits = info->num_inputs ? nir_src_bit_size(alu->src[0].src) : dbits;
   struct weft_alu_map m;
   struct weft_ir_instr *I;

   if (alu->def.num_components != 1 && !nir_op_is_vec(alu->op)) {
      weft_fail(ctx, "vector ALU %s", info->name);
      return;
   }

   switch (alu->op) {
   case nir_op_vec2:
   case nir_op_vec3:
   case nir_op_vec4:
      for (unsigned c = 0; c < info->num_inputs; c++)
         ctx->defs[alu->def.index][c] = weft_src(ctx, alu->src[c].src, alu->src[c].swizzle[0]);
      return;
   case nir_op_i2i8: case nir_op_i2i16: case nir_op_i2i32: case nir_op_i2i64:
   case nir_op_u2u8: case nir_op_u2u16: case nir_op_u2u32: case nir_op_u2u64: {
      bool s = alu->op == nir_op_i2i8 || alu->op == nir_op_i2i16 ||
               alu->op == nir_op_i2i32 || alu->op == nir_op_i2i64;
      uint32_t a = weft_src(ctx, alu->src[0].src, alu->src[0].swizzle[0]);

      /* Registers keep 8/16-bit values extended to 32 bits; cvt reads
       * its source as t2 from the register's low bits. */
      uint32_t d = weft_def(ctx, &alu->def, 0);
      if (sbits == 64 && dbits < 32) {
         uint32_t t = weft_ir_vreg(ctx->ir, 32);
         weft_emit_cvt(ctx, t, 32, a, 64, s);
         a = t;
         sbits = 32;
      }
      I = weft_ir_emit(ctx->ir, WEFT_OP_CVT, weft_type(MAX2(dbits, 32), s),
                       weft_type(sbits == 64 ? 64 : MIN2(dbits, sbits), s));
      weft_ir_set(I, WEFT_IR_D, d);
      weft_ir_set(I, WEFT_IR_A, a);
      return;
   }
   case nir_op_f2i32: case nir_op_f2u32: case nir_op_f2i64: case nir_op_f2u64:
   case nir_op_i2f32: case nir_op_u2f32: case nir_op_i2f64: case nir_op_u2f64:
   case nir_op_f2f32: case nir_op_f2f64: {
      nir_alu_type dt = nir_op_infos[alu->op].output_type;
      nir_alu_type st = nir_op_infos[alu->op].input_types[0];
      int dk = (dt & nir_type_float) ? WEFT_KIND_FLOAT : (dt & nir_type_int) ? 1 : 0;
      int sk = (st & nir_type_float) ? WEFT_KIND_FLOAT : (st & nir_type_int) ? 1 : 0;

      if (sbits < 32 || dbits < 32) {
         weft_fail(ctx, "%u-bit conversion %s", MIN2(sbits, dbits), info->name);
         return;
      }
      /* Float to integer truncates (OpenCL's default); the rest rounds to
       * nearest even. */
      I = weft_ir_emit(ctx->ir, sk == WEFT_KIND_FLOAT && dk != WEFT_KIND_FLOAT ?
                                   WEFT_OP_CVT_RTZ : WEFT_OP_CVT_RTE,
                       weft_type(dbits, dk), weft_type(sbits, sk));
      weft_ir_set(I, WEFT_IR_D, weft_def(ctx, &alu->def, 0));
      weft_ir_set(I, WEFT_IR_A, weft_src(ctx, alu->src[0].src, alu->src[0].swizzle[0]));
      return;
   }
   case nir_op_b2i32: {
      I = weft_ir_emit(ctx->ir, WEFT_OP_AND, WEFT_TYPE_U32, 0);
      weft_ir_set(I, WEFT_IR_D, weft_def(ctx, &alu->def, 0));
      weft_ir_set(I, WEFT_IR_A, weft_src(ctx, alu->src[0].src, alu->src[0].swizzle[0]));
      weft_ir_set_imm(I, 1);
      return;
   }
   case nir_op_b32csel: {
      I = weft_ir_emit(ctx->ir, WEFT_OP_SEL, weft_type(dbits, false), 0);
      weft_ir_set(I, WEFT_IR_D, weft_def(ctx, &alu->def, 0));
      weft_ir_set(I, WEFT_IR_A, weft_src(ctx, alu->src[1].src, alu->src[1].swizzle[0]));
      weft_ir_set(I, WEFT_IR_B, weft_src(ctx, alu->src[2].src, alu->src[2].swizzle[0]));
      weft_ir_set(I, WEFT_IR_C, weft_src(ctx, alu->src[0].src, alu->src[0].swizzle[0]));
      return;
   }
   case nir_op_pack_64_2x32_split: {
      uint32_t lo = weft_ir_vreg(ctx->ir, 64), hi = weft_ir_vreg(ctx->ir, 64);
      uint32_t his = weft_ir_vreg(ctx->ir, 64);

      weft_emit_cvt(ctx, lo, 64, weft_src(ctx, alu->src[0].src, alu->src[0].swizzle[0]), 32, false);
      weft_emit_cvt(ctx, hi, 64, weft_src(ctx, alu->src[1].src, alu->src[1].swizzle[0]), 32, false);
      I = weft_ir_emit(ctx->ir, WEFT_OP_SHL, WEFT_TYPE_U64, 0);
      weft_ir_set(I, WEFT_IR_D, his);
      weft_ir_set(I, WEFT_IR_A, hi);
      weft_ir_set_imm(I, 32);
      I = weft_ir_emit(ctx->ir, WEFT_OP_OR, WEFT_TYPE_U64, 0);
      weft_ir_set(I, WEFT_IR_D, weft_def(ctx, &alu->def, 0));
      weft_ir_set(I, WEFT_IR_A, his);
      weft_ir_set(I, WEFT_IR_B, lo);
      return;
   }
   case nir_op_unpack_64_2x32_split_x:
      weft_emit_cvt(ctx, weft_def(ctx, &alu->def, 0), 32,
                    weft_src(ctx, alu->src[0].src, alu->src[0].swizzle[0]), 64, false);
      return;
   case nir_op_unpack_64_2x32_split_y: {
      uint32_t t = weft_ir_vreg(ctx->ir, 64);

      I = weft_ir_emit(ctx->ir, WEFT_OP_SHR, WEFT_TYPE_U64, 0);
      weft_ir_set(I, WEFT_IR_D, t);
      weft_ir_set(I, WEFT_IR_A, weft_src(ctx, alu->src[0].src, alu->src[0].swizzle[0]));
      weft_ir_set_imm(I, 32);
      weft_emit_cvt(ctx, weft_def(ctx, &alu->def, 0), 32, t, 64, false);
      return;
   }
   default:
      break;
   }

   if (!weft_alu_lookup(alu->op, &m)) {
      weft_fail(ctx, "ALU operation %s", info->name);
      return;
   }
   if (sbits < 32 && alu->op != nir_op_mov) {
      weft_fail(ctx, "%u-bit %s", sbits, info->name);
      return;
   }
   unsigned t = weft_type(weft_reg_bits(sbits), m.is_signed);
   if (m.op == WEFT_OP_POPC || m.op == WEFT_OP_CLZ) {
      if (sbits != dbits) {
         weft_fail(ctx, "64-bit %s", info->name);
         return;
      }
   }
   I = weft_ir_emit(ctx->ir, m.op, t, 0);
   weft_ir_set(I, WEFT_IR_D, weft_def(ctx, &alu->def, 0));

   /* Operands in the order of the table: a, b(i), c; mov has only b. */
   static const enum weft_ir_field fields[] = { WEFT_IR_A, WEFT_IR_B, WEFT_IR_C };
   unsigned first = m.op == WEFT_OP_MOV ? 1 : 0;
   for (unsigned i = 0; i < info->num_inputs; i++) {
      enum weft_ir_field f = fields[first + i];
      nir_src src = alu->src[i].src;

      if (f == WEFT_IR_B && weft_ir_op_has_srci(m.op) && nir_src_is_const(src) &&
          m.is_signed != WEFT_KIND_FLOAT) {
         uint64_t v = nir_src_comp_as_uint(src, alu->src[i].swizzle[0]);
         if (src.ssa->bit_size == 1)
            v = v ? 0xffffffffu : 0;
         /* Shift counts are u32 whatever the value's width. */
         weft_ir_set_imm(I, v);
         continue;
      }
      uint32_t v = weft_src(ctx, src, alu->src[i].swizzle[0]);
      /* The shift count operand is 32-bit. */
      if (f == WEFT_IR_B && (m.op == WEFT_OP_SHL || m.op == WEFT_OP_SHR || m.op == WEFT_OP_SAR) &&
          src.ssa->bit_size == 64) {
         uint32_t n = weft_ir_vreg(ctx->ir, 32);
         weft_emit_cvt(ctx, n, 32, v, 64, false);
         /* the cvt went after I: move it before */
         struct weft_ir_instr *C = list_last_entry(&ctx->ir->instrs, struct weft_ir_instr, link);
         list_del(&C->link);
         list_addtail(&C->link, &I->link);
         v = n;
      }
      weft_ir_set(I, f, v);
   }
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
      default:
         weft_fail(ctx, "NIR instruction type %u", instr->type);
      }
      if (ctx->failed)
         return;
   }
}

static void weft_emit_cf_list(struct weft_ctx *ctx, struct exec_list *list);

/* Structured control flow maps onto the ISA's if/else/endif and
 * loop/break/cont/endloop on per-lane masks. */
static void
weft_emit_if(struct weft_ctx *ctx, nir_if *nif)
{
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
weft_from_nir(nir_shader *nir, void *mem_ctx)
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
   if (ctx.failed)
      return NULL;
   weft_ir_emit(ctx.ir, WEFT_OP_END, 0, 0);
   return ctx.ir;
}
