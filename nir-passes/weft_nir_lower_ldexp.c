/* SPDX-License-Identifier: MIT */
/*
 * ldexp(x, n) = x * 2^n, correctly rounded as OpenCL C requires, for the
 * weft backend, which has no scaling instruction, as a
 * nir_shader_alu_pass callback.
 *
 * A multiplication by a power of two is exact unless its result leaves
 * the normal range, so the product must round at most once:
 *
 * - half and float: x widened to float (double) is exact, as is its
 *   product with any power of two the narrow type's results can need
 *   (|n| <= 64 and 512: every product stays a normal of the wider type);
 *   the one rounding is the conversion back.
 * - double: two steps of 2^1023 or 2^-969 while n is out of the range of
 *   one power of two, then 2^n.  A step up only leaves the normal range by
 *   overflowing, which the result would too.  A step down is followed by
 *   at least 2^-54, so when it rounds into the denormals (|x| < 2^-53) the
 *   result, and the exact one, are below half the smallest denormal: 0.
 *
 * NaN, infinities and zeros go through the multiplications unchanged.
 * NIR's own lowering (lower_ldexp) rounds twice in the denormals, and
 * libclc's double ldexp makes an infinity of a NaN.
 */
#include "compiler/nir/nir_builder.h"

#include "weft_nir_passes.h"

/* 2^n for n in the normal exponent range of @bits (32 or 64). */
static nir_def *
power_of_two(nir_builder *b, nir_def *n, unsigned bits)
{
   if (bits == 32)
      return nir_ishl_imm(b, nir_iadd_imm(b, n, 127), 23);
   return nir_pack_64_2x32_split(b, nir_imm_zero(b, n->num_components, 32),
                                 nir_ishl_imm(b, nir_iadd_imm(b, n, 1023), 20));
}

static nir_def *
imm_float(nir_builder *b, double v, unsigned bits, unsigned num_components)
{
   return nir_replicate(b, nir_imm_floatN_t(b, v, bits), num_components);
}

/* One step of 2^1023 up or 2^-969 down while n is beyond one power of two. */
static nir_def *
scale_double_step(nir_builder *b, nir_def *x, nir_def **n)
{
   unsigned nc = x->num_components;
   nir_def *up = nir_igt_imm(b, *n, 1023), *down = nir_ilt_imm(b, *n, -1022);
   nir_def *scale = nir_bcsel(b, up, imm_float(b, 0x1p1023, 64, nc),
                              nir_bcsel(b, down, imm_float(b, 0x1p-969, 64, nc),
                                        imm_float(b, 1.0, 64, nc)));

   *n = nir_bcsel(b, up, nir_iadd_imm(b, *n, -1023),
                  nir_bcsel(b, down, nir_iadd_imm(b, *n, 969), *n));
   return nir_fmul(b, x, scale);
}

static nir_def *
build_ldexp(nir_builder *b, nir_def *x, nir_def *n)
{
   switch (x->bit_size) {
   case 16:
      n = nir_imin_imm(b, nir_imax_imm(b, n, -64), 64);
      return nir_f2f16_rtne(b, nir_fmul(b, nir_f2f32(b, x), power_of_two(b, n, 32)));
   case 32:
      n = nir_imin_imm(b, nir_imax_imm(b, n, -512), 512);
      return nir_f2f32(b, nir_fmul(b, nir_f2f64(b, x), power_of_two(b, n, 64)));
   default:
      /* From the smallest denormal to an overflow and back: 2098 and 2099. */
      n = nir_imin_imm(b, nir_imax_imm(b, n, -2200), 2200);
      x = scale_double_step(b, x, &n);
      x = scale_double_step(b, x, &n);
      return nir_fmul(b, x, power_of_two(b, n, 64));
   }
}

static bool
lower_ldexp(nir_builder *b, nir_alu_instr *alu, UNUSED void *data)
{
   if (alu->op != nir_op_ldexp)
      return false;
   b->cursor = nir_before_instr(&alu->instr);
   nir_def *x = nir_ssa_for_alu_src(b, alu, 0), *n = nir_ssa_for_alu_src(b, alu, 1);

   /* The steps must stay apart: nir_opt_algebraic would otherwise fold
    * x * 2^1023 * 2 into x * inf. */
   bool exact = b->exact;
   b->exact = true;
   nir_def_replace(&alu->def, build_ldexp(b, x, n));
   b->exact = exact;
   return true;
}

bool
weft_nir_lower_ldexp(nir_shader *nir)
{
   return nir_shader_alu_pass(nir, lower_ldexp, nir_metadata_control_flow, NULL);
}
