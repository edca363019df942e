/* SPDX-License-Identifier: MIT */
/*
 * What the nir-passes unit tests share: a kernel to build NIR into, a walk
 * over its intrinsics, one line per test and the "N passed, M failed"
 * summary.
 */
#ifndef WEFT_NIR_TEST_H
#define WEFT_NIR_TEST_H

#include <stdbool.h>
#include <stdio.h>

#include "compiler/glsl_types.h"
#include "compiler/nir/nir_builder.h"

/* Inside a test: prints the failed condition and clears @ok. */
#define WEFT_NIR_CHECK(ok, cond, ...)                                          \
   do {                                                                       \
      if (!(cond)) {                                                          \
         printf("        %s:%d: %s: ", __FILE__, __LINE__, #cond);            \
         printf(__VA_ARGS__);                                                 \
         printf("\n");                                                        \
         (ok) = false;                                                        \
      }                                                                       \
   } while (0)

/* Before the first test (GLSL types) and after the last (the summary;
 * returns the exit status). */
void weft_nir_test_begin(void);
int weft_nir_test_end(void);

/* A compute kernel named @name for a driver with @options. */
nir_builder weft_nir_test_kernel(const nir_shader_compiler_options *options, const char *name);

/* Calls @fn for every intrinsic of @nir, in order. */
void weft_nir_test_foreach_intrinsic(nir_shader *nir,
                                     void (*fn)(nir_intrinsic_instr *intr, void *data),
                                     void *data);

/* NIR's algebraic optimizations and constant folding until nothing
 * changes: what a lowering of constants leaves is constants. */
void weft_nir_test_fold(nir_shader *nir);

/* The number of loops in @nir. */
unsigned weft_nir_test_count_loops(nir_shader *nir);

/* One line: "ok" or "FAILED", then @name; counted for the summary. */
void weft_nir_test_report(bool ok, const char *name);

#endif
