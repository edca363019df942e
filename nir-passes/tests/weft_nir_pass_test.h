/* SPDX-License-Identifier: MIT */
/*
 * What the unit tests of the passes share: the counts, CHECK (which clears
 * the test's `ok`), the one line per test, and the walk over a shader's
 * intrinsics.
 */
#ifndef WEFT_NIR_PASS_TEST_H
#define WEFT_NIR_PASS_TEST_H

#include <stdbool.h>
#include <stdio.h>

#include "compiler/nir/nir.h"

static int passed, failed;

#define CHECK(cond, ...)                                                      \
   do {                                                                       \
      if (!(cond)) {                                                          \
         printf("        %s:%d: %s: ", __FILE__, __LINE__, #cond);            \
         printf(__VA_ARGS__);                                                 \
         printf("\n");                                                        \
         ok = false;                                                          \
      }                                                                       \
   } while (0)

static inline void
test_result(const char *name, bool ok)
{
   printf("%-7s %s\n", ok ? "ok" : "FAILED", name);
   if (ok)
      passed++;
   else
      failed++;
}

/* Calls @visit on every intrinsic of @nir (what the tests count); returns
 * the number of loops. */
static inline unsigned
weft_test_visit_intrinsics(nir_shader *nir, void (*visit)(nir_intrinsic_instr *, void *),
                           void *data)
{
   unsigned loops = 0;

   nir_foreach_function_impl(impl, nir) {
      nir_foreach_block(block, impl) {
         nir_cf_node *parent = block->cf_node.parent;

         if (parent->type == nir_cf_node_loop &&
             nir_loop_first_block(nir_cf_node_as_loop(parent)) == block)
            loops++;
         nir_foreach_instr(instr, block) {
            if (instr->type == nir_instr_type_intrinsic)
               visit(nir_instr_as_intrinsic(instr), data);
         }
      }
   }
   return loops;
}

#endif
