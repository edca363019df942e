/* SPDX-License-Identifier: MIT */
/*
 * What the unit tests of the passes share: the counts, CHECK (which clears
 * the test's `ok`), and the one line per test.
 */
#ifndef WEFT_NIR_PASS_TEST_H
#define WEFT_NIR_PASS_TEST_H

#include <stdbool.h>
#include <stdio.h>

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

#endif
