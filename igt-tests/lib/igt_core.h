/* SPDX-License-Identifier: MIT */
/*
 * Copyright (C) 2026 The Weft authors
 *
 * A small, source-compatible subset of IGT GPU Tools' lib/igt_core.h: the
 * subtest machinery (igt_main, igt_fixture, igt_subtest, igt_subtest_f,
 * igt_subtest_group, igt_describe), requirements and skips, assertions,
 * logging and igt_fork. Tests written against it build unchanged in an
 * upstream IGT tree.
 *
 * Semantics follow IGT: a failed assertion or a skip inside a subtest
 * longjmps back to the subtest's block, prints "Subtest NAME: FAIL|SKIP
 * (time)" and continues with the next one; a skip or failure in an
 * igt_fixture skips or fails every later subtest of its group. Exit codes
 * are IGT's: 0 success, 77 skip (nothing passed, nothing failed), 79
 * invalid subtest, 98 failure.
 */
#ifndef IGT_CORE_H
#define IGT_CORE_H

#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IGT_EXIT_SUCCESS	0
#define IGT_EXIT_SKIP		77
#define IGT_EXIT_TIMEOUT	78
#define IGT_EXIT_INVALID	79
#define IGT_EXIT_FAILURE	98
#define IGT_EXIT_ABORT		112

#ifndef IGT_LOG_DOMAIN
#define IGT_LOG_DOMAIN (NULL)
#endif

#define __igt_tokencat2(x, y) x ## y
#define igt_tokencat(x, y) __igt_tokencat2(x, y)

extern const char *__igt_test_description __attribute__((weak));

/**
 * IGT_TEST_DESCRIPTION: - one line describing the whole test binary.
 */
#define IGT_TEST_DESCRIPTION(str) const char *__igt_test_description = str

extern sigjmp_buf igt_subtest_jmpbuf;

int igt_subtest_init_parse_opts(int *argc, char **argv);
bool __igt_run_subtest(const char *name, const char *file, int line);
bool __igt_fixture(void);
void __igt_fixture_complete(void);
void __igt_fixture_end(void) __attribute__((noreturn));
void __igt_subtest_group_save(int *save, int *desc);
void __igt_subtest_group_restore(int save, int desc);
const char *igt_subtest_name(void);
bool igt_only_list_subtests(void);
const char *igt_test_name(void);

/**
 * igt_main: - replaces main() in a test with subtests.
 */
#define igt_main \
	static void igt_tokencat(__real_main, __LINE__)(void); \
	int main(int argc, char **argv) \
	{ \
		igt_subtest_init_parse_opts(&argc, argv); \
		igt_tokencat(__real_main, __LINE__)(); \
		igt_exit(); \
	} \
	static void igt_tokencat(__real_main, __LINE__)(void)

/**
 * igt_fixture: - setup or teardown code shared by the subtests that follow;
 * not run when only listing subtests, nor after an earlier fixture of the
 * group skipped or failed.
 */
#define igt_fixture \
	for (volatile int igt_tokencat(__tmpint, __LINE__) = 0; \
	     igt_tokencat(__tmpint, __LINE__) < 1 && __igt_fixture() && \
	     sigsetjmp(igt_subtest_jmpbuf, 1) == 0; \
	     igt_tokencat(__tmpint, __LINE__)++, __igt_fixture_complete())

/**
 * igt_subtest: - a subtest block, run when selected by --run-subtest (or
 * always without it). igt_skip() and failures only leave the block.
 */
#define igt_subtest(name) \
	for (; __igt_run_subtest((name), __FILE__, __LINE__) && \
	     sigsetjmp(igt_subtest_jmpbuf, 1) == 0; \
	     igt_success())

#define __igt_subtest_f(tmp, format...) \
	for (char tmp[256]; \
	     snprintf(tmp, sizeof(tmp), format), \
	     __igt_run_subtest(tmp, __FILE__, __LINE__) && \
	     sigsetjmp(igt_subtest_jmpbuf, 1) == 0; \
	     igt_success())

/**
 * igt_subtest_f: - igt_subtest() with a printf-style name.
 */
#define igt_subtest_f(f...) \
	__igt_subtest_f(igt_tokencat(__tmpchar, __LINE__), f)

/**
 * igt_subtest_group: - scopes the effect of a fixture's skip or failure.
 */
#define igt_subtest_group \
	for (int igt_tokencat(__tmpint, __LINE__) = 0, \
	     igt_tokencat(__save, __LINE__) = 0, \
	     igt_tokencat(__desc, __LINE__) = 0; \
	     igt_tokencat(__tmpint, __LINE__) < 1 && \
	     (__igt_subtest_group_save(&igt_tokencat(__save, __LINE__), \
				       &igt_tokencat(__desc, __LINE__)), true); \
	     igt_tokencat(__tmpint, __LINE__)++, \
	     __igt_subtest_group_restore(igt_tokencat(__save, __LINE__), \
					 igt_tokencat(__desc, __LINE__)))

__attribute__((format(printf, 1, 2)))
void igt_describe_f(const char *fmt, ...);

/**
 * igt_describe: - describes the next subtest (printed by --describe).
 */
#define igt_describe(dsc) igt_describe_f("%s", dsc)

__attribute__((format(printf, 1, 2)))
void igt_skip(const char *f, ...) __attribute__((noreturn));
__attribute__((format(printf, 5, 6)))
void __igt_skip_check(const char *file, int line, const char *func,
		      const char *check, const char *format, ...)
	__attribute__((noreturn));
void igt_success(void);
void igt_fail(int exitcode) __attribute__((noreturn));
__attribute__((format(printf, 6, 7)))
void __igt_fail_assert(const char *domain, const char *file, int line,
		       const char *func, const char *assertion,
		       const char *format, ...) __attribute__((noreturn));
void igt_exit(void) __attribute__((noreturn));

/* Logging. */
enum igt_log_level {
	IGT_LOG_DEBUG,
	IGT_LOG_INFO,
	IGT_LOG_WARN,
	IGT_LOG_CRITICAL,
	IGT_LOG_NONE,
};

__attribute__((format(printf, 3, 4)))
void igt_log(const char *domain, enum igt_log_level level,
	     const char *format, ...);
__attribute__((format(printf, 3, 0)))
void igt_vlog(const char *domain, enum igt_log_level level,
	      const char *format, va_list args);

#define igt_debug(f...) igt_log(IGT_LOG_DOMAIN, IGT_LOG_DEBUG, f)
#define igt_info(f...) igt_log(IGT_LOG_DOMAIN, IGT_LOG_INFO, f)
#define igt_warn(f...) igt_log(IGT_LOG_DOMAIN, IGT_LOG_WARN, f)
#define igt_critical(f...) igt_log(IGT_LOG_DOMAIN, IGT_LOG_CRITICAL, f)

/* Assertions. */
#define igt_assert(expr) \
	do { \
		if (!(expr)) \
			__igt_fail_assert(IGT_LOG_DOMAIN, __FILE__, __LINE__, \
					  __func__, #expr, NULL); \
	} while (0)

#define igt_assert_f(expr, f...) \
	do { \
		if (!(expr)) \
			__igt_fail_assert(IGT_LOG_DOMAIN, __FILE__, __LINE__, \
					  __func__, #expr, f); \
	} while (0)

#define igt_fail_on(expr) igt_assert(!(expr))
#define igt_fail_on_f(expr, f...) igt_assert_f(!(expr), f)

#define __igt_assert_cmp(type, fmt, n1, cmp, ncmp, n2) \
	do { \
		type __n1 = (n1), __n2 = (n2); \
		if (!(__n1 cmp __n2)) \
			__igt_fail_assert(IGT_LOG_DOMAIN, __FILE__, __LINE__, \
					  __func__, #n1 " " #cmp " " #n2, \
					  "error: " fmt " " #ncmp " " fmt "\n", \
					  __n1, __n2); \
	} while (0)

#define igt_assert_cmpint(n1, cmp, ncmp, n2) \
	__igt_assert_cmp(int, "%d", n1, cmp, ncmp, n2)
#define igt_assert_cmpuint(n1, cmp, ncmp, n2) \
	__igt_assert_cmp(uint32_t, "%#x", n1, cmp, ncmp, n2)
#define igt_assert_cmps64(n1, cmp, ncmp, n2) \
	__igt_assert_cmp(int64_t, "%" PRId64, n1, cmp, ncmp, n2)
#define igt_assert_cmpu64(n1, cmp, ncmp, n2) \
	__igt_assert_cmp(uint64_t, "%#" PRIx64, n1, cmp, ncmp, n2)

#define igt_assert_eq(n1, n2) igt_assert_cmpint(n1, ==, !=, n2)
#define igt_assert_neq(n1, n2) igt_assert_cmpint(n1, !=, ==, n2)
#define igt_assert_lt(n1, n2) igt_assert_cmpint(n1, <, >=, n2)
#define igt_assert_lte(n1, n2) igt_assert_cmpint(n1, <=, >, n2)
#define igt_assert_eq_u32(n1, n2) igt_assert_cmpuint(n1, ==, !=, n2)
#define igt_assert_neq_u32(n1, n2) igt_assert_cmpuint(n1, !=, ==, n2)
#define igt_assert_eq_s64(n1, n2) igt_assert_cmps64(n1, ==, !=, n2)
#define igt_assert_eq_u64(n1, n2) igt_assert_cmpu64(n1, ==, !=, n2)
#define igt_assert_neq_u64(n1, n2) igt_assert_cmpu64(n1, !=, ==, n2)
#define igt_assert_lt_u64(n1, n2) igt_assert_cmpu64(n1, <, >=, n2)
#define igt_assert_lte_u64(n1, n2) igt_assert_cmpu64(n1, <=, >, n2)
#define igt_assert_fd(fd) \
	igt_assert_f((fd) >= 0, "file descriptor " #fd " failed\n")

/* Requirements. */
#define igt_require(expr) \
	do { \
		if (!(expr)) \
			__igt_skip_check(__FILE__, __LINE__, __func__, #expr, \
					 NULL); \
	} while (0)

#define igt_require_f(expr, f...) \
	do { \
		if (!(expr)) \
			__igt_skip_check(__FILE__, __LINE__, __func__, #expr, \
					 f); \
	} while (0)

#define igt_skip_on(expr) igt_require(!(expr))
#define igt_skip_on_f(expr, f...) igt_require_f(!(expr), f)

/* Forked helpers: a failing child fails the subtest in igt_waitchildren(). */
bool __igt_fork(void);
#define igt_fork(child, num_children) \
	for (int child = 0; child < (num_children); child++) \
		for (; __igt_fork(); exit(0))
void igt_waitchildren(void);

#endif /* IGT_CORE_H */
