/* SPDX-License-Identifier: MIT */
/*
 * ISA coverage of the host tests.  A test calls cov_checked() with the
 * instruction(s) under test once their results on the model matched its C
 * reference; the (opcode, T, T2, SIMD width) tuples are appended to the file
 * named by $WEFT_COVERAGE at exit.  test_coverage then checks, from the ISA
 * table itself, that every declared opcode/type pair was checked on SIMD 8,
 * 16 and 32.
 */
#ifndef WEFT_COVERAGE_H
#define WEFT_COVERAGE_H

/* @text: assembly (no undefined labels); every instruction in it is recorded. */
void cov_checked(const char *text, unsigned simd);
/* The same for the last line of @text only (the lines before it set operands up). */
void cov_checked_last(const char *text, unsigned simd);

#endif
