/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of weft_nir_flush_denorms: float operations on values loaded
 * from memory, flushed by the pass, then computed by NIR's constant
 * folding (IEEE arithmetic, denormals kept, as the ALU) once the loads
 * are replaced by constants: a denormal result is a zero of its sign,
 * every other result (normals, zeros, infinities, NaN) is unchanged,
 * scalars and vectors.  Without the flush in the shader's float controls
 * the pass changes nothing.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "weft_nir_passes.h"
#include "weft_nir_test.h"

static const nir_shader_compiler_options options = { 0 };

/* Pairs whose sum, product and difference cover denormal results of
 * either sign, the smallest normals, zeros, infinities and NaN. */
static const float pairs[][2] = {
   {0x1.8p-126f, -0x1p-126f}, {-0x1.8p-126f, 0x1p-126f}, {0x1p-126f, 0.5f},
   {0x1p-149f, 0.0f},         {0x1p-127f, 0x1p-127f},    {1.0f, 0x1p-140f},
   {0x1p-100f, 0x1p-40f},     {-0x1p-100f, 0x1p-30f},    {INFINITY, 0x1p-149f},
   {NAN, 1.0f},               {-0.0f, 0.0f},             {3.0f, -3.0f},
};
#define NUM_PAIRS (sizeof(pairs) / sizeof(pairs[0]))

static uint32_t
bits_of(float f)
{
   uint32_t u;
   memcpy(&u, &f, 4);
   return u;
}

static float
float_of(uint32_t u)
{
   float f;
   memcpy(&f, &u, 4);
   return f;
}

/* The IEEE result of @op, flushed when @flush. */
static float
reference(nir_op op, float x, float y, bool flush)
{
   float r = op == nir_op_fadd ? x + y : op == nir_op_fmul ? x * y : fmaf(x, y, -x);

   if (flush && r != 0 && fabsf(r) < FLT_MIN)
      r = copysignf(0.0f, r);
   return r;
}

static nir_def *
build_op(nir_builder *b, nir_op op, nir_def *x, nir_def *y)
{
   if (op == nir_op_ffma)
      return nir_ffma(b, x, y, nir_fneg(b, x));
   return nir_build_alu2(b, op, x, y);
}

/* @op on pairs [@first, @first + @comps) as one vector; false and a line
 * on a mismatch. */
static bool
check(nir_op op, unsigned first, unsigned comps, bool flush)
{
   nir_builder b = weft_nir_test_kernel(&options, "flush");
   nir_def *x = nir_load_global(&b, nir_imm_int64(&b, 0x10000), 4, comps, 32);
   nir_def *y = nir_load_global(&b, nir_imm_int64(&b, 0x20000), 4, comps, 32);
   nir_store_global(&b, nir_imm_int64(&b, 0x30000), 4, build_op(&b, op, x, y),
                    (1u << comps) - 1);
   bool ok = true;

   b.shader->info.float_controls_execution_mode =
      flush ? FLOAT_CONTROLS_DENORM_FLUSH_TO_ZERO_FP32 : FLOAT_CONTROLS_DENORM_PRESERVE_FP32;
   nir_validate_shader(b.shader, "before");
   bool progress = weft_nir_flush_denorms(b.shader);
   nir_validate_shader(b.shader, "after weft_nir_flush_denorms");
   WEFT_NIR_CHECK(ok, progress == flush, "progress %d with the flush %s", progress,
                  flush ? "asked" : "not asked");

   /* Constant folding then computes as the ALU (denormals kept), and no
    * inexact transform changes the operation first. */
   b.shader->info.float_controls_execution_mode =
      FLOAT_CONTROLS_DENORM_PRESERVE_FP32 | FLOAT_CONTROLS_SIGNED_ZERO_INF_NAN_PRESERVE_FP32;
   nir_def *xs[NIR_MAX_VEC_COMPONENTS], *ys[NIR_MAX_VEC_COMPONENTS];
   b.cursor = nir_after_instr(y->parent_instr);
   for (unsigned c = 0; c < comps; c++) {
      xs[c] = nir_imm_float(&b, pairs[first + c][0]);
      ys[c] = nir_imm_float(&b, pairs[first + c][1]);
   }
   nir_def_rewrite_uses(x, nir_vec(&b, xs, comps));
   nir_def_rewrite_uses(y, nir_vec(&b, ys, comps));
   weft_nir_test_fold(b.shader);

   nir_foreach_block(block, nir_shader_get_entrypoint(b.shader)) {
      nir_foreach_instr(instr, block) {
         if (instr->type != nir_instr_type_intrinsic ||
             nir_instr_as_intrinsic(instr)->intrinsic != nir_intrinsic_store_global ||
             nir_src_as_uint(nir_instr_as_intrinsic(instr)->src[1]) != 0x30000)
            continue;
         nir_src *value = &nir_instr_as_intrinsic(instr)->src[0];
         WEFT_NIR_CHECK(ok, nir_src_is_const(*value), "the result does not fold");
         if (!nir_src_is_const(*value))
            continue;
         for (unsigned c = 0; c < comps; c++) {
            const float *p = pairs[first + c];
            uint32_t got = (uint32_t)nir_src_comp_as_uint(*value, c);
            float want = reference(op, p[0], p[1], flush);
            WEFT_NIR_CHECK(ok, isnan(want) ? isnan(float_of(got)) : got == bits_of(want),
                           "%s(%a, %a) = %a, want %a", nir_op_infos[op].name, p[0], p[1],
                           float_of(got), want);
         }
      }
   }
   ralloc_free(b.shader);
   return ok;
}

int
main(void)
{
   static const nir_op ops[] = {nir_op_fadd, nir_op_fmul, nir_op_ffma};

   weft_nir_test_begin();
   for (unsigned flush = 0; flush < 2; flush++) {
      for (unsigned o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
         bool scalar_ok = true, vector_ok = true;
         char name[64];

         for (unsigned i = 0; i < NUM_PAIRS; i++)
            scalar_ok &= check(ops[o], i, 1, flush);
         for (unsigned i = 0; i + 4 <= NUM_PAIRS; i += 4)
            vector_ok &= check(ops[o], i, 4, flush);
         snprintf(name, sizeof(name), "%s-%s-scalar", nir_op_infos[ops[o]].name,
                  flush ? "flushed" : "kept");
         weft_nir_test_report(scalar_ok, name);
         snprintf(name, sizeof(name), "%s-%s-vec4", nir_op_infos[ops[o]].name,
                  flush ? "flushed" : "kept");
         weft_nir_test_report(vector_ok, name);
      }
   }
   return weft_nir_test_end();
}
