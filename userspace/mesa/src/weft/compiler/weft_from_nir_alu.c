/* SPDX-License-Identifier: MIT */
/*
 * NIR ALU instructions to weft IR: one ISA instruction for most, short
 * sequences for conversions, booleans, selects and the 64-bit pack and
 * unpack operations.
 */
#include "weft_from_nir.h"

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

/* d = op(a, b) (no b when @b is 0). */
static struct weft_ir_instr *
weft_emit_op(struct weft_ctx *ctx, unsigned op, unsigned t, uint32_t d, uint32_t a, uint32_t b)
{
   struct weft_ir_instr *I = weft_ir_emit(ctx->ir, op, t, 0);

   weft_ir_set(I, WEFT_IR_D, d);
   weft_ir_set(I, WEFT_IR_A, a);
   if (b)
      weft_ir_set(I, WEFT_IR_B, b);
   return I;
}

/* d = op(a, imm). */
static void
weft_emit_op_imm(struct weft_ctx *ctx, unsigned op, unsigned t, uint32_t d, uint32_t a,
                 uint64_t imm)
{
   weft_ir_set_imm(weft_emit_op(ctx, op, t, d, a, 0), imm);
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

/* A 32-bit count (clz, ctz, popc) of a 32- or 64-bit value. */
static void
weft_emit_count(struct weft_ctx *ctx, unsigned op, uint32_t d, uint32_t a, unsigned bits)
{
   uint32_t wide;

   if (bits != 64) {
      weft_emit_op(ctx, op, WEFT_TYPE_U32, d, a, 0);
      return;
   }
   wide = weft_ir_vreg(ctx->ir, 64);
   weft_emit_op(ctx, op, WEFT_TYPE_U64, wide, a, 0);
   weft_emit_cvt(ctx, d, 32, wide, 64, false);
}

/* The index of the highest set bit, -1 for 0: bits - 1 - clz, which the
 * clz of 0 (the width) makes -1 by itself. */
static void
weft_emit_find_msb(struct weft_ctx *ctx, uint32_t d, uint32_t a, unsigned bits)
{
   uint32_t lz = weft_ir_vreg(ctx->ir, 32), neg = weft_ir_vreg(ctx->ir, 32);

   weft_emit_count(ctx, WEFT_OP_CLZ, lz, a, bits);
   weft_emit_op(ctx, WEFT_OP_NEG, WEFT_TYPE_U32, neg, lz, 0);
   weft_emit_op_imm(ctx, WEFT_OP_ADD, WEFT_TYPE_U32, d, neg, bits - 1);
}

static bool
weft_conversion_with_float(nir_op op)
{
   const nir_op_info *info = &nir_op_infos[op];
   nir_alu_type dt = nir_alu_type_get_base_type(info->output_type);
   nir_alu_type st = nir_alu_type_get_base_type(info->input_types[0]);

   return info->is_conversion && (dt == nir_type_float || st == nir_type_float) &&
          dt != nir_type_bool && st != nir_type_bool;
}

/* A conversion from or to a float of any size: one cvt with the rounding
 * mode of the operation (float to integer truncates, OpenCL's default;
 * plain conversions to float round to nearest even). 8- and 16-bit values
 * sit in the low bits of their register, where cvt reads and writes them. */
static void
weft_emit_float_cvt(struct weft_ctx *ctx, nir_alu_instr *alu)
{
   const nir_op_info *info = &nir_op_infos[alu->op];
   nir_alu_type dt = nir_alu_type_get_base_type(info->output_type);
   nir_alu_type st = nir_alu_type_get_base_type(info->input_types[0]);
   int dk = dt == nir_type_float ? WEFT_KIND_FLOAT : dt == nir_type_int;
   int sk = st == nir_type_float ? WEFT_KIND_FLOAT : st == nir_type_int;
   unsigned op = WEFT_OP_CVT_RTE;

   if (alu->op == nir_op_f2f16_rtz || (sk == WEFT_KIND_FLOAT && dk != WEFT_KIND_FLOAT))
      op = WEFT_OP_CVT_RTZ;
   weft_emit_op(ctx, op, weft_type(alu->def.bit_size, dk), weft_def(ctx, &alu->def, 0),
                weft_src(ctx, alu->src[0].src, alu->src[0].swizzle[0]), 0)
      ->in.t2 = weft_type(nir_src_bit_size(alu->src[0].src), sk);
}

/* @dst (64-bit) = @lo | @hi << 32, for 32-bit @lo and @hi. */
void
weft_emit_pack_64(struct weft_ctx *ctx, uint32_t dst, uint32_t lo, uint32_t hi)
{
   uint32_t lo64 = weft_ir_vreg(ctx->ir, 64), hi64 = weft_ir_vreg(ctx->ir, 64);
   uint32_t his = weft_ir_vreg(ctx->ir, 64);
   struct weft_ir_instr *I;

   weft_emit_cvt(ctx, lo64, 64, lo, 32, false);
   weft_emit_cvt(ctx, hi64, 64, hi, 32, false);
   I = weft_ir_emit(ctx->ir, WEFT_OP_SHL, WEFT_TYPE_U64, 0);
   weft_ir_set(I, WEFT_IR_D, his);
   weft_ir_set(I, WEFT_IR_A, hi64);
   weft_ir_set_imm(I, 32);
   I = weft_ir_emit(ctx->ir, WEFT_OP_OR, WEFT_TYPE_U64, 0);
   weft_ir_set(I, WEFT_IR_D, dst);
   weft_ir_set(I, WEFT_IR_A, his);
   weft_ir_set(I, WEFT_IR_B, lo64);
}

void
weft_emit_alu(struct weft_ctx *ctx, nir_alu_instr *alu)
{
   const nir_op_info *info = &nir_op_infos[alu->op];
   unsigned dbits = alu->def.bit_size;
   unsigned sbits = info->num_inputs ? nir_src_bit_size(alu->src[0].src) : dbits;
   struct weft_alu_map m;
   struct weft_ir_instr *I;
   uint32_t a0;

   if (alu->def.num_components != 1 && !nir_op_is_vec(alu->op)) {
      weft_fail(ctx, "vector ALU %s", info->name);
      return;
   }

   a0 = info->num_inputs && !nir_op_is_vec(alu->op) ?
        weft_src(ctx, alu->src[0].src, alu->src[0].swizzle[0]) : 0;
   if (weft_conversion_with_float(alu->op)) {
      weft_emit_float_cvt(ctx, alu);
      return;
   }

   switch (alu->op) {
   case nir_op_vec2:
   case nir_op_vec3:
   case nir_op_vec4:
   case nir_op_vec5:
   case nir_op_vec8:
   case nir_op_vec16:
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
   case nir_op_b2i8: case nir_op_b2i16: case nir_op_b2i32:
      weft_emit_op_imm(ctx, WEFT_OP_AND, WEFT_TYPE_U32, weft_def(ctx, &alu->def, 0), a0, 1);
      return;
   case nir_op_b2f16: case nir_op_b2f32:
      /* Booleans are 0 or ~0: the bits of 1.0 or 0. */
      weft_emit_op_imm(ctx, WEFT_OP_AND, WEFT_TYPE_U32, weft_def(ctx, &alu->def, 0), a0,
                       dbits == 16 ? 0x3c00 : 0x3f800000);
      return;
   case nir_op_b2i64: case nir_op_b2f64: {
      uint32_t one = weft_ir_vreg(ctx->ir, 32);

      weft_emit_op_imm(ctx, WEFT_OP_AND, WEFT_TYPE_U32, one, a0, 1);
      weft_emit_op(ctx, WEFT_OP_CVT_RTE, alu->op == nir_op_b2f64 ? WEFT_TYPE_F64 : WEFT_TYPE_U64,
                   weft_def(ctx, &alu->def, 0), one, 0)->in.t2 = WEFT_TYPE_U32;
      return;
   }
   case nir_op_ufind_msb:
      weft_emit_find_msb(ctx, weft_def(ctx, &alu->def, 0), a0, sbits);
      return;
   case nir_op_uclz:
      weft_emit_count(ctx, WEFT_OP_CLZ, weft_def(ctx, &alu->def, 0), a0, sbits);
      return;
   case nir_op_bit_count:
      weft_emit_count(ctx, WEFT_OP_POPC, weft_def(ctx, &alu->def, 0), a0, sbits);
      return;
   case nir_op_pack_32_2x16_split: {
      uint32_t lo = weft_ir_vreg(ctx->ir, 32), hi = weft_ir_vreg(ctx->ir, 32);

      weft_emit_op_imm(ctx, WEFT_OP_AND, WEFT_TYPE_U32, lo, a0, 0xffff);
      weft_emit_op_imm(ctx, WEFT_OP_SHL, WEFT_TYPE_U32, hi,
                       weft_src(ctx, alu->src[1].src, alu->src[1].swizzle[0]), 16);
      weft_emit_op(ctx, WEFT_OP_OR, WEFT_TYPE_U32, weft_def(ctx, &alu->def, 0), hi, lo);
      return;
   }
   case nir_op_unpack_32_2x16_split_x:
      weft_emit_op_imm(ctx, WEFT_OP_AND, WEFT_TYPE_U32, weft_def(ctx, &alu->def, 0), a0, 0xffff);
      return;
   case nir_op_unpack_32_2x16_split_y:
      weft_emit_op_imm(ctx, WEFT_OP_SHR, WEFT_TYPE_U32, weft_def(ctx, &alu->def, 0), a0, 16);
      return;
   case nir_op_b32csel: {
      I = weft_ir_emit(ctx->ir, WEFT_OP_SEL, weft_type(dbits, false), 0);
      weft_ir_set(I, WEFT_IR_D, weft_def(ctx, &alu->def, 0));
      weft_ir_set(I, WEFT_IR_A, weft_src(ctx, alu->src[1].src, alu->src[1].swizzle[0]));
      weft_ir_set(I, WEFT_IR_B, weft_src(ctx, alu->src[2].src, alu->src[2].swizzle[0]));
      weft_ir_set(I, WEFT_IR_C, weft_src(ctx, alu->src[0].src, alu->src[0].swizzle[0]));
      return;
   }
   case nir_op_pack_64_2x32_split:
      weft_emit_pack_64(ctx, weft_def(ctx, &alu->def, 0),
                        weft_src(ctx, alu->src[0].src, alu->src[0].swizzle[0]),
                        weft_src(ctx, alu->src[1].src, alu->src[1].swizzle[0]));
      return;
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
   I = weft_ir_emit(ctx->ir, m.op, t, 0);
   weft_ir_set(I, WEFT_IR_D, weft_def(ctx, &alu->def, 0));

   /* Operands in the order of the table: a, b(i), c; mov has only b. A
    * constant first operand of an operation that commutes goes second,
    * where it can be an immediate. */
   static const enum weft_ir_field fields[] = { WEFT_IR_A, WEFT_IR_B, WEFT_IR_C };
   unsigned first = m.op == WEFT_OP_MOV ? 1 : 0;
   bool swap = info->num_inputs == 2 && weft_ir_op_commutes(m.op) &&
               nir_src_is_const(alu->src[0].src) && !nir_src_is_const(alu->src[1].src);
   for (unsigned k = 0; k < info->num_inputs; k++) {
      unsigned i = swap ? 1 - k : k;
      enum weft_ir_field f = fields[first + k];
      nir_src src = alu->src[i].src;

      /* A float immediate is the value's bits; f64's imm32 would be its
       * high half (isa.rst), which weft_ir_set_imm does not make. */
      if (f == WEFT_IR_B && weft_ir_op_has_srci(m.op) && nir_src_is_const(src) &&
          (m.is_signed != WEFT_KIND_FLOAT || t == WEFT_TYPE_F32)) {
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
