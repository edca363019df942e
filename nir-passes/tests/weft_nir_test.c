/* SPDX-License-Identifier: MIT */
#include "weft_nir_test.h"

static int passed, failed;

void
weft_nir_test_begin(void)
{
   glsl_type_singleton_init_or_ref();
}

int
weft_nir_test_end(void)
{
   glsl_type_singleton_decref();
   printf("%d passed, %d failed\n", passed, failed);
   return failed ? 1 : 0;
}

nir_builder
weft_nir_test_kernel(const nir_shader_compiler_options *options, const char *name)
{
   return nir_builder_init_simple_shader(MESA_SHADER_KERNEL, options, "%s", name);
}

void
weft_nir_test_foreach_intrinsic(nir_shader *nir,
                                void (*fn)(nir_intrinsic_instr *intr, void *data), void *data)
{
   nir_foreach_function_impl(impl, nir) {
      nir_foreach_block(block, impl) {
         nir_foreach_instr(instr, block) {
            if (instr->type == nir_instr_type_intrinsic)
               fn(nir_instr_as_intrinsic(instr), data);
         }
      }
   }
}

void
weft_nir_test_fold(nir_shader *nir)
{
   bool progress;

   do {
      progress = false;
      NIR_PASS(progress, nir, nir_opt_algebraic);
      NIR_PASS(progress, nir, nir_opt_constant_folding);
      NIR_PASS(progress, nir, nir_copy_prop);
      NIR_PASS(progress, nir, nir_opt_dce);
   } while (progress);
}

unsigned
weft_nir_test_count_loops(nir_shader *nir)
{
   unsigned loops = 0;

   nir_foreach_function_impl(impl, nir) {
      nir_foreach_block(block, impl) {
         nir_cf_node *parent = block->cf_node.parent;

         if (parent->type == nir_cf_node_loop &&
             nir_loop_first_block(nir_cf_node_as_loop(parent)) == block)
            loops++;
      }
   }
   return loops;
}

void
weft_nir_test_report(bool ok, const char *name)
{
   printf("%-7s %s\n", ok ? "ok" : "FAILED", name);
   if (ok)
      passed++;
   else
      failed++;
}
