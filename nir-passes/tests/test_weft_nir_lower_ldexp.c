/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of weft_nir_lower_ldexp: ldexp of constants, lowered, then
 * folded by NIR's constant folding (which computes each operation as the
 * device does, in IEEE arithmetic of its bit size), must give libm's
 * ldexp bit for bit: NaN, infinities, zeros, denormals in and out,
 * overflow, and exponents far outside the type's range.  Scalars and
 * vectors of half, float and double.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/half_float.h"

#include "weft_nir_passes.h"
#include "weft_nir_test.h"

static const nir_shader_compiler_options options = { 0 };

static const double inputs[] = {
   0.0, -0.0, 1.0, -1.5, 0x1.fffffep-1, 3.0, 0x1.8p-1000, 0x1.fffffffffffffp+1023,
   0x1p-1074, 0x1.2345p-1050, 0x1.000001p-126, 0x1p-149, 0x1.ffcp+15, 0x1p-24,
   0x1.004p-14, 0x1.23456789abcdep+3, INFINITY, -INFINITY, NAN,
};

static const int exponents[] = {
   0, 1, -1, 7, -7, 30, -30, 64, -65, 126, -127, 150, -150, 300, -300, 600, -600,
   1023, 1024, -1022, -1023, -1074, -1075, 2000, -2000, 2098, -2099, 5000, -5000,
   INT_MAX, INT_MIN,
};

/* @x rounded to the test's type, as bits in a uint64_t. */
static uint64_t
to_bits(double x, unsigned bits)
{
   uint64_t v = 0;

   if (bits == 16) {
      v = _mesa_float_to_float16_rtne((float)x);
   } else if (bits == 32) {
      float f = (float)x;
      memcpy(&v, &f, 4);
   } else {
      memcpy(&v, &x, 8);
   }
   return v;
}

static double
from_bits(uint64_t v, unsigned bits)
{
   if (bits == 16)
      return _mesa_half_to_float((uint16_t)v);
   if (bits == 32) {
      float f;
      uint32_t u = (uint32_t)v;
      memcpy(&f, &u, 4);
      return f;
   }
   double d;
   memcpy(&d, &v, 8);
   return d;
}

/* libm's ldexp of @x (a value of the type), correctly rounded to the type:
 * half and float through the wider type, where the product is exact. */
static uint64_t
reference(double x, int n, unsigned bits)
{
   if (bits == 16)
      return to_bits(ldexpf((float)x, n < -200 ? -200 : n > 200 ? 200 : n), 16);
   if (bits == 32)
      return to_bits(ldexp(x, n < -2000 ? -2000 : n > 2000 ? 2000 : n), 32);
   return to_bits(ldexp(x, n), 64);
}

static bool
same(uint64_t got, uint64_t want, unsigned bits)
{
   return isnan(from_bits(got, bits)) ? isnan(from_bits(want, bits)) : got == want;
}

/* ldexp of @comps values at once; returns false and prints on a mismatch.
 * With @opaque_x, x is a load while NIR optimizes the lowered code (as
 * in a kernel, where n is often a constant and x is not), and becomes
 * the constant only then. */
static bool
check_vector(const uint64_t *x, const int *n, unsigned comps, unsigned bits, bool opaque_x)
{
   nir_builder b = weft_nir_test_kernel(&options, "ldexp");
   nir_def *xs[NIR_MAX_VEC_COMPONENTS], *ns[NIR_MAX_VEC_COMPONENTS];
   bool ok = true;

   for (unsigned c = 0; c < comps; c++) {
      xs[c] = nir_imm_intN_t(&b, x[c], bits);
      ns[c] = nir_imm_int(&b, n[c]);
   }
   nir_def *load = nir_load_global(&b, nir_imm_int64(&b, 0x20000), bits / 8, comps, bits);
   nir_def *r = nir_ldexp(&b, opaque_x ? load : nir_vec(&b, xs, comps), nir_vec(&b, ns, comps));
   nir_store_global(&b, nir_imm_int64(&b, 0x10000), bits / 8, r, (1u << comps) - 1);
   /* The load stays, also where the lowered code no longer uses x. */
   nir_store_global(&b, nir_imm_int64(&b, 0x30000), bits / 8, load, (1u << comps) - 1);

   nir_validate_shader(b.shader, "before");
   ok = weft_nir_lower_ldexp(b.shader);
   nir_validate_shader(b.shader, "after weft_nir_lower_ldexp");
   weft_nir_test_fold(b.shader);
   if (opaque_x) {
      b.cursor = nir_after_instr(load->parent_instr);
      for (unsigned c = 0; c < comps; c++)
         xs[c] = nir_imm_intN_t(&b, x[c], bits);
      nir_def_rewrite_uses(load, nir_vec(&b, xs, comps));
      weft_nir_test_fold(b.shader);
   }

   nir_function_impl *impl = nir_shader_get_entrypoint(b.shader);
   nir_foreach_block(block, impl) {
      nir_foreach_instr(instr, block) {
         if (instr->type == nir_instr_type_alu && nir_instr_as_alu(instr)->op == nir_op_ldexp) {
            printf("        an ldexp is left\n");
            ok = false;
         }
         if (instr->type != nir_instr_type_intrinsic ||
             nir_instr_as_intrinsic(instr)->intrinsic != nir_intrinsic_store_global ||
             nir_src_as_uint(nir_instr_as_intrinsic(instr)->src[1]) != 0x10000)
            continue;
         nir_src *value = &nir_instr_as_intrinsic(instr)->src[0];
         if (!nir_src_is_const(*value)) {
            printf("        the lowering does not fold to a constant\n");
            ok = false;
            continue;
         }
         for (unsigned c = 0; c < comps; c++) {
            uint64_t got = nir_src_comp_as_uint(*value, c), want = reference(from_bits(x[c], bits), n[c], bits);
            if (!same(got, want, bits)) {
               printf("        f%u ldexp(%a, %d) = %a (0x%llx), want %a (0x%llx)\n", bits,
                      from_bits(x[c], bits), n[c], from_bits(got, bits), (unsigned long long)got,
                      from_bits(want, bits), (unsigned long long)want);
               ok = false;
            }
         }
      }
   }
   ralloc_free(b.shader);
   return ok;
}

/* Every input with every exponent, as scalars, then four at a time. */
static void
check_type(unsigned bits)
{
   const unsigned ni = sizeof(inputs) / sizeof(inputs[0]);
   const unsigned ne = sizeof(exponents) / sizeof(exponents[0]);
   bool scalar_ok = true, vector_ok = true;
   uint64_t x[4];
   int n[4];
   unsigned k = 0;

   for (unsigned i = 0; i < ni; i++) {
      for (unsigned e = 0; e < ne; e++) {
         x[0] = to_bits(inputs[i], bits);
         n[0] = exponents[e];
         scalar_ok &= check_vector(x, n, 1, bits, false);
         scalar_ok &= check_vector(x, n, 1, bits, true);

         x[k % 4] = x[0];
         n[k % 4] = n[0];
         if (++k % 4 == 0)
            vector_ok &= check_vector(x, n, 4, bits, true);
      }
   }
   char name[32];

   snprintf(name, sizeof(name), "ldexp-f%u-scalar", bits);
   weft_nir_test_report(scalar_ok, name);
   snprintf(name, sizeof(name), "ldexp-f%u-vec4", bits);
   weft_nir_test_report(vector_ok, name);
}

int
main(void)
{
   weft_nir_test_begin();
   check_type(16);
   check_type(32);
   check_type(64);
   return weft_nir_test_end();
}
