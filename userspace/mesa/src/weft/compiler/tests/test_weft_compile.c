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

/* A kernel that loads 32 bits from 0x1000, applies @op and stores the
 * result (of its own size) back. */
static nir_shader *
build_kernel(const char *name, nir_def *(*op)(nir_builder *b, nir_def *x))
{
   nir_builder b = nir_builder_init_simple_shader(MESA_SHADER_KERNEL, &weft_nir_options, "%s",
                                                  name);
   nir_def *addr = nir_imm_int64(&b, 0x1000);
   nir_def *x = nir_load_global(&b, addr, 4, 1, 32);

   nir_def *r = op(&b, x);

   nir_store_global(&b, addr, r->bit_size / 8, r, 1);
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

/* Operations the backend translates itself (weft_from_nir_alu.c), on the
 * loaded 32-bit value x, with an instruction the disassembly must show. */
static nir_def *op_ufind_msb(nir_builder *b, nir_def *x) { return nir_ufind_msb(b, x); }
static nir_def *op_ifind_msb(nir_builder *b, nir_def *x) { return nir_ifind_msb(b, x); }
static nir_def *op_find_lsb(nir_builder *b, nir_def *x) { return nir_find_lsb(b, x); }
static nir_def *op_b2f32(nir_builder *b, nir_def *x) { return nir_b2f32(b, nir_ieq_imm(b, x, 3)); }
static nir_def *op_b2f64(nir_builder *b, nir_def *x) { return nir_b2f64(b, nir_ieq_imm(b, x, 3)); }
static nir_def *op_f2f16(nir_builder *b, nir_def *x) { return nir_f2f16(b, x); }
static nir_def *op_f2f16_rtz(nir_builder *b, nir_def *x) { return nir_f2f16_rtz(b, x); }
static nir_def *op_f2i8(nir_builder *b, nir_def *x) { return nir_f2i8(b, x); }
static nir_def *op_u2f16(nir_builder *b, nir_def *x) { return nir_u2f16(b, x); }
/* Exact, as OpenCL's rounding sequences are: not folded to one f2f64. */
static nir_def *
op_f2f64_16(nir_builder *b, nir_def *x)
{
   b->exact = true;
   return nir_f2f64(b, nir_f2f16(b, x));
}
static nir_def *op_unpack_hi16(nir_builder *b, nir_def *x) { return nir_unpack_32_2x16_split_y(b, x); }

static nir_def *
op_pack_32_2x16(nir_builder *b, nir_def *x)
{
   return nir_pack_32_2x16_split(b, nir_u2u16(b, x), nir_u2u16(b, nir_ushr_imm(b, x, 7)));
}

static nir_def *
op_unpack_32_2x16(nir_builder *b, nir_def *x)
{
   nir_def *v = nir_unpack_32_2x16(b, x);

   return nir_iadd(b, nir_u2u32(b, nir_channel(b, v, 0)), nir_u2u32(b, nir_channel(b, v, 1)));
}

static nir_def *
op_flrp(nir_builder *b, nir_def *x)
{
   return nir_flrp(b, x, nir_fmul_imm(b, x, 3.0), nir_fabs(b, x));
}

static const struct {
   const char *name;
   nir_def *(*op)(nir_builder *b, nir_def *x);
   const char *disasm[2];
} native_ops[] = {
   { "ufind_msb", op_ufind_msb, { "clz.u32", "neg.u32" } },
   /* lowered to ufind_msb in NIR (weft_nir_options) */
   { "ifind_msb", op_ifind_msb, { "clz.u32", "sel.u32" } },
   { "find_lsb", op_find_lsb, { "clz.u32", "and.u32" } },
   { "b2f32", op_b2f32, { "and.u32", "0x3f800000" } },
   { "b2f64", op_b2f64, { "cvt.rte.f64.u32" } },
   { "f2f16", op_f2f16, { "cvt.rte.f16.f32", "st.global.u16" } },
   { "f2f16_rtz", op_f2f16_rtz, { "cvt.rtz.f16.f32" } },
   { "f2i8", op_f2i8, { "cvt.rtz.s8.f32", "st.global.u8" } },
   { "u2f16", op_u2f16, { "cvt.rte.f16.u32" } },
   { "f2f64_16", op_f2f64_16, { "cvt.rte.f16.f32", "cvt.rte.f64.f16" } },
   { "pack_32_2x16_split", op_pack_32_2x16, { "shl.u32", "or.u32" } },
   { "unpack_32_2x16_split_y", op_unpack_hi16, { "shr.u32" } },
   { "unpack_32_2x16", op_unpack_32_2x16, { "and.u32", "shr.u32" } },
   { "flrp", op_flrp, { "fabs.f32" } },
};

/* Each compiles, and the disassembly has the instructions that do it. */
static void
test_native_ops(void)
{
   for (unsigned i = 0; i < ARRAY_SIZE(native_ops); i++) {
      char *error = NULL;
      nir_shader *nir = build_kernel(native_ops[i].name, native_ops[i].op);
      struct weft_shader *shader = weft_compile_nir(nir, &error);

      CHECK(shader != NULL);
      if (!shader) {
         fprintf(stderr, "%s: %s\n", native_ops[i].name, error);
      } else {
         for (unsigned k = 0; k < 2 && native_ops[i].disasm[k]; k++) {
            bool found = strstr(shader->disasm, native_ops[i].disasm[k]) != NULL;
            CHECK(found);
            if (!found)
               fprintf(stderr, "%s: no %s in\n%s", native_ops[i].name, native_ops[i].disasm[k],
                       shader->disasm);
         }
      }
      weft_shader_destroy(shader);
      free(error);
      ralloc_free(nir);
   }
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

static nir_def *
op_fmul_const_first(nir_builder *b, nir_def *x)
{
   return nir_fmul(b, nir_imm_float(b, 3.0f), x);
}

static nir_def *
op_dmul_const_first(nir_builder *b, nir_def *x)
{
   return nir_f2f32(b, nir_fmul(b, nir_imm_double(b, 3.0), nir_f2f64(b, x)));
}

/* The line of @disasm that holds @what, copied into @line. */
static bool
disasm_line(const char *disasm, const char *what, char *line, size_t size)
{
   const char *at = strstr(disasm, what), *start, *end;

   if (!at)
      return false;
   for (start = at; start > disasm && start[-1] != '\n'; start--)
      ;
   end = strchr(at, '\n');
   snprintf(line, size, "%.*s", (int)((end ? end : at + strlen(at)) - start), start);
   return true;
}

/* A constant first operand of fmul becomes its immediate (f32: the bits),
 * without a mov; an f64 constant stays in registers (imm32 would be its
 * high half). */
static void
test_constant_operands(void)
{
   nir_shader *f32 = build_kernel("fmul3", op_fmul_const_first);
   nir_shader *f64 = build_kernel("dmul3", op_dmul_const_first);
   struct weft_shader *shader = weft_compile_nir(f32, NULL);
   char line[256];

   CHECK(shader && disasm_line(shader->disasm, "fmul.f32", line, sizeof(line)) &&
         strstr(line, ", 0x40400000"));
   CHECK(shader && !strstr(shader->disasm, "mov.u32"));
   weft_shader_destroy(shader);

   shader = weft_compile_nir(f64, NULL);
   CHECK(shader && disasm_line(shader->disasm, "fmul.f64", line, sizeof(line)) &&
         !strstr(line, "0x"));
   weft_shader_destroy(shader);
   ralloc_free(f32);
   ralloc_free(f64);
}

/* A loop counting to the value at 0x1000, its exit test @exit_first or
 * last in its body, as OpenCL C's for and do-while loops come. */
static nir_shader *
build_counting_loop(bool exit_first)
{
   nir_builder b = nir_builder_init_simple_shader(MESA_SHADER_KERNEL, &weft_nir_options, "loop");
   nir_def *addr = nir_imm_int64(&b, 0x1000);
   nir_def *n = nir_load_global(&b, addr, 4, 1, 32);
   nir_variable *i = nir_local_variable_create(b.impl, glsl_uint_type(), "i");

   nir_store_var(&b, i, nir_imm_int(&b, 0), 1);
   nir_push_loop(&b);
   {
      nir_def *iv = nir_load_var(&b, i);

      if (exit_first) {
         nir_push_if(&b, nir_uge(&b, iv, n));
         nir_jump(&b, nir_jump_break);
         nir_pop_if(&b, NULL);
      }
      nir_store_global(&b, nir_iadd(&b, addr, nir_u2u64(&b, nir_ishl_imm(&b, iv, 2))), 4, iv, 1);
      nir_store_var(&b, i, nir_iadd_imm(&b, iv, 1), 1);
      if (!exit_first) {
         nir_push_if(&b, nir_uge(&b, nir_load_var(&b, i), n));
         nir_jump(&b, nir_jump_break);
         nir_pop_if(&b, NULL);
      }
   }
   nir_pop_loop(&b, NULL);
   /* The counter in SSA, as the drivers' NIR comes to the backend. */
   nir_lower_vars_to_ssa(b.shader);
   return b.shader;
}

/* A loop's exit test, an if around only a break, is a break of the lanes
 * whose condition holds: no if runs at every pass. */
static void
test_loop_exit_is_a_break(void)
{
   for (unsigned first = 0; first < 2; first++) {
      nir_shader *nir = build_counting_loop(first);
      struct weft_shader *shader = weft_compile_nir(nir, NULL);

      CHECK(shader && strstr(shader->disasm, "break r"));
      CHECK(shader && !strstr(shader->disasm, " if ") && !strstr(shader->disasm, "endif"));
      if (shader && strstr(shader->disasm, "endif"))
         fprintf(stderr, "%s", shader->disasm);
      weft_shader_destroy(shader);
      ralloc_free(nir);
   }
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
   RUN(test_native_ops);
   RUN(test_constant_operands);
   RUN(test_loop_exit_is_a_break);
   glsl_type_singleton_decref();
   return weft_test_summary();
}
