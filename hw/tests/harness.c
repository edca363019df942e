// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

static int passed, failed, cur_failures;
static uint64_t rand_state;

void h_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	/* Report the first few failures of a test only. */
	if (cur_failures++ >= 5)
		return;
	fprintf(stdout, "    %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fprintf(stdout, "\n");
}

bool h_failed(void)
{
	return cur_failures != 0;
}

/*
 * WEFT_TEST_SHARD=K/N: this process runs the tests whose index (0, 1, ...
 * in h_run order) is K-1 modulo N, so that N processes of one test program
 * run all of its tests between them on N cores (hw/tests/run-tests.sh).
 * Unset: every test.  Whether this process runs test number @index.
 */
static bool in_shard(unsigned index)
{
	static unsigned k, n;
	const char *v;

	if (!n) {
		v = getenv("WEFT_TEST_SHARD");
		k = n = 1;
		if (v && *v && (sscanf(v, "%u/%u", &k, &n) != 2 || !n || !k || k > n)) {
			fprintf(stderr, "WEFT_TEST_SHARD=%s: expected K/N with 1 <= K <= N\n", v);
			exit(2);
		}
	}
	return index % n == k - 1;
}

/* A seed of its own for each test, so that a test draws the same numbers in any shard. */
static uint64_t seed_of(const char *name)
{
	uint64_t h = 88172645463325252ull;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 0x100000001b3ull;
	return h ? h : 88172645463325252ull;
}

static uint64_t test_seed;
static unsigned test_index, case_index;

static void run_test(const char *name, void (*fn)(void))
{
	cur_failures = 0;
	case_index = 0;
	test_seed = rand_state = seed_of(name);
	fn();
	if (cur_failures) {
		failed++;
		printf("FAIL %s (%d failed checks)\n", name, cur_failures);
	} else {
		passed++;
		printf("ok   %s\n", name);
	}
	fflush(stdout);
}

void h_run(const char *name, void (*fn)(void))
{
	if (in_shard(test_index++))
		run_test(name, fn);
}

void h_run_cases(const char *name, void (*fn)(void))
{
	test_index++;
	run_test(name, fn);
}

bool h_case(void)
{
	unsigned k = case_index++;

	/* Each case draws the same numbers whichever cases ran before it here. */
	rand_state = (test_seed ^ (k + 1) * 0x9e3779b97f4a7c15ull) | 1;
	return in_shard(k);
}

int h_summary(void)
{
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

uint64_t h_rand(void)
{
	uint64_t x = rand_state ? rand_state : 88172645463325252ull;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	rand_state = x;
	return x;
}
