/* SPDX-License-Identifier: MIT */
/* A tiny test harness: one line per test, then "N passed, M failed". */
#ifndef WEFT_HARNESS_H
#define WEFT_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

void h_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
bool h_failed(void);
/*
 * Runs one test (unless WEFT_TEST_SHARD=K/N gives it to another process:
 * harness.c) and prints its line.
 */
void h_run(const char *name, void (*fn)(void));
/*
 * The same for a test of many independent cases, which WEFT_TEST_SHARD
 * shares out case by case: every process runs the test and prints its line,
 * and takes the cases for which h_case() answers true; each case calls it
 * once, before it draws any number from h_rand().
 */
void h_run_cases(const char *name, void (*fn)(void));
bool h_case(void);
/* A deterministic xorshift64 generator for tests, seeded by h_run from the test's name. */
uint64_t h_rand(void);
/* Prints the summary line; returns the exit status. */
int h_summary(void);

#define CHECK(cond, ...) do { \
		if (!(cond)) \
			h_fail(__FILE__, __LINE__, __VA_ARGS__); \
	} while (0)
#define CHECK_EQ(a, b) do { \
		unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b); \
		if (a_ != b_) \
			h_fail(__FILE__, __LINE__, "%s == 0x%llx, expected %s == 0x%llx", \
			       #a, a_, #b, b_); \
	} while (0)

#endif
