/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the compiler driver (weft_compile.c) on NIR built here: a
 * kernel the backend cannot compile gives NULL and a message naming what
 * it lacks, never an abort, and the next kernel compiles as before.
 */
#include "compiler/glsl_types.h"
#include "compiler/nir/nir_builder.h"

#include "weft_compile.h"
#include "weft_test.h"

/* A kernel that loads a float from 0x1000, applies @op and stores it back. */
static nir_shader *
build_kernel(const char *name, nir_def *(*op)(nir_builder *b, nir_def *x))
{
   nir_builder b = nir_builder_init_simple_shader(MESA_SHADER_KERNEL, &weft_nir_options, "%s",
                                                  name);
   nir_def *addr = nir_imm_int64(&b, 0x1000);
   nir_def *x = nir_load_global(&b, addr, 4, 1, 32);

   nir_store_global(&b, addr, 4, op(&b, x), 1);
   return b.shader;
}

static nir_def *
op_fmul(nir_builder *b, nir_def *x)
{
   return nir_fmul(b, x, x);
}

/* An AMD-only operation: OpenCL C never produces it. */
static nir_def *
op_fsin_amd(nir_builder *b, nir_def *x)
{
   return nir_fsin_amd(b, x);
}

/* An intrinsic of fragment shaders. */
static nir_def *
op_sample_id(nir_builder *b, nir_def *x)
{
   return nir_iadd(b, x, nir_load_sample_id(b));
}

/* Compiles @nir: NULL and an error containing @want, or a shader when
 * @want is NULL. */
static bool
compiles_as_expected(nir_shader *nir, const char *want)
{
   char *error = NULL;
   struct weft_shader *shader = weft_compile_nir(nir, &error);
   bool ok;

   if (want) {
      ok = !shader && error && strstr(error, want) &&
           strstr(error, "the weft backend does not support");
      if (!ok)
         fprintf(stderr, "expected an error naming %s, got %s\n", want,
                 error ? error : shader ? "a shader" : "no message");
   } else {
      ok = shader && !error && shader->size >= 8 && shader->code;
      if (!ok)
         fprintf(stderr, "expected a shader, got %s\n", error ? error : "nothing");
   }
   weft_shader_destroy(shader);
   free(error);
   ralloc_free(nir);
   return ok;
}

static void
test_compile_control(void)
{
   CHECK(compiles_as_expected(build_kernel("fmul", op_fmul), NULL));
}

static void
test_unsupported_alu(void)
{
   CHECK(compiles_as_expected(build_kernel("fsin_amd", op_fsin_amd), "ALU operation fsin_amd"));
}

static void
test_unsupported_intrinsic(void)
{
   CHECK(compiles_as_expected(build_kernel("sample_id", op_sample_id),
                              "intrinsic load_sample_id"));
}

/* More private memory than scratch holds. */
static void
test_too_much_private_memory(void)
{
   nir_shader *nir = build_kernel("private", op_fmul);

   nir->scratch_size = 0x8000;
   CHECK(compiles_as_expected(nir, "32768 bytes of private memory"));
}

/* The failures above left nothing behind: the same kernel compiles again,
 * and no message is asked for when the caller passes no pointer. */
static void
test_after_failures(void)
{
   CHECK(compiles_as_expected(build_kernel("fmul", op_fmul), NULL));

   nir_shader *nir = build_kernel("fsin_amd", op_fsin_amd);
   CHECK(weft_compile_nir(nir, NULL) == NULL);
   ralloc_free(nir);
}

int
main(void)
{
   glsl_type_singleton_init_or_ref();
   RUN(test_compile_control);
   RUN(test_unsupported_alu);
   RUN(test_unsupported_intrinsic);
   RUN(test_too_much_private_memory);
   RUN(test_after_failures);
   glsl_type_singleton_decref();
   return weft_test_summary();
}
