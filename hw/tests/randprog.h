/* SPDX-License-Identifier: MIT */
/*
 * Random valid programs over the whole ISA table, for robustness and
 * differential tests: registers hold pointers into an argument buffer,
 * small offsets and random values.
 */
#ifndef WEFT_RANDPROG_H
#define WEFT_RANDPROG_H

#include <stdint.h>

/* Fills the 2048-word argument buffer at @va (host view @a): 16 pointers into it, then small values. */
void randprog_fill(uint64_t *a, uint64_t va);
/*
 * Writes a program of at least @len words to @code (room for @len + 1):
 * a prologue loading r0..r63 from the argument buffer, then random valid
 * instructions (destinations r64..r213, branch targets -24..+39 words away).
 * No end: the caller appends its epilogue.  Returns the words written.
 */
unsigned randprog(uint64_t *code, unsigned len);

#endif
