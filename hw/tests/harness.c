// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>

#include "harness.h"

static int passed, failed, cur_failures;

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

void h_run(const char *name, void (*fn)(void))
{
	cur_failures = 0;
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

int h_summary(void)
{
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

uint64_t h_rand(void)
{
	static uint64_t x = 88172645463325252ull;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}
