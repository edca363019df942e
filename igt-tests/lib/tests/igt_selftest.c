// SPDX-License-Identifier: MIT
/*
 * Copyright (C) 2026 The Weft authors
 *
 * The subject of the library's self-test: subtests that pass, fail and skip
 * in every way the library supports. check_igt runs it and checks the exit
 * codes and the result lines. SELFTEST_HANG=1 makes "hang" sleep and
 * SELFTEST_CRASH=1 (9) makes "crash" die of SIGSEGV (SIGKILL), for the
 * runner's tests;
 * SELFTEST_FIXTURE_FAIL=1 makes a fixture fail (which, as in IGT, fails the
 * whole run, whichever subtests are selected).
 */
#include <fcntl.h>
#include <signal.h>

#include "igt.h"

IGT_TEST_DESCRIPTION("Self-test of the IGT compatibility library.");

igt_main
{
	int null_fd = -1;

	igt_fixture
		null_fd = open("/dev/null", O_RDWR);

	igt_describe("Passes.");
	igt_subtest("pass")
		igt_assert(null_fd >= 0);

	igt_describe("Fails an igt_assert.");
	igt_subtest("fail-assert")
		igt_assert(1 == 2);

	igt_describe("Fails an igt_assert_eq.");
	igt_subtest("fail-eq")
		igt_assert_eq(1, 2);

	igt_describe("Fails an igt_assert_eq_u64.");
	igt_subtest("fail-eq-u64")
		igt_assert_eq_u64(1ull << 40, 1ull << 41);

	igt_describe("Skips on igt_require.");
	igt_subtest("skip-require")
		igt_require(null_fd < 0);

	igt_describe("Skips with igt_skip.");
	igt_subtest("skip-explicit")
		igt_skip("explicit skip\n");

	igt_describe("Expects the error an ioctl returns.");
	igt_subtest("ioctl-err") {
		struct drm_version v = {};

		do_ioctl_err(null_fd, DRM_IOCTL_VERSION, &v, ENOTTY);
	}

	igt_describe("Expects an error an ioctl does not return.");
	igt_subtest("ioctl-err-mismatch") {
		struct drm_version v = {};

		do_ioctl_err(null_fd, DRM_IOCTL_VERSION, &v, EINVAL);
	}

	igt_describe("Expects success from a failing ioctl.");
	igt_subtest("ioctl-fail") {
		struct drm_version v = {};

		do_ioctl(null_fd, DRM_IOCTL_VERSION, &v);
	}

	igt_describe("Forks children that pass.");
	igt_subtest("fork-pass") {
		igt_fork(child, 3)
			igt_assert(child < 3);
		igt_waitchildren();
	}

	igt_describe("Forks children, one of which fails.");
	igt_subtest("fork-fail") {
		igt_fork(child, 3)
			igt_assert(child != 1);
		igt_waitchildren();
	}

	igt_subtest_group {
		igt_fixture
			igt_require_f(false, "group requirement\n");

		igt_describe("Skipped by its group's fixture.");
		igt_subtest("group-skipped")
			igt_assert(false);
	}

	igt_subtest_group {
		igt_fixture
			igt_assert_f(!getenv("SELFTEST_FIXTURE_FAIL"),
				     "group fixture fails\n");

		igt_describe("Failed by its group's fixture with "
			     "SELFTEST_FIXTURE_FAIL=1.");
		igt_subtest("group-failed")
			igt_assert(true);
	}

	igt_describe("Runs after the groups.");
	igt_subtest("after-groups")
		igt_assert(null_fd >= 0);

	for (int i = 1; i <= 2; i++) {
		igt_describe("A formatted name.");
		igt_subtest_f("formatted-%d", i * 21)
			igt_assert_eq(i * 21 % 21, 0);
	}

	igt_subtest("undocumented")
		igt_assert(true);

	igt_describe("Sleeps with SELFTEST_HANG=1.");
	igt_subtest("hang") {
		if (getenv("SELFTEST_HANG"))
			sleep(100);
	}

	igt_describe("Dies of SIGSEGV with SELFTEST_CRASH=1, of SIGKILL with "
		     "SELFTEST_CRASH=9.");
	igt_subtest("crash") {
		const char *crash = getenv("SELFTEST_CRASH");

		if (crash)
			raise(atoi(crash) == 9 ? SIGKILL : SIGSEGV);
	}

	igt_subtest_group {
		int fd = -1;

		igt_fixture
			fd = drm_open_driver(DRIVER_WEFT);

		igt_describe("Runs only with a weft device.");
		igt_subtest("weft-device")
			igt_assert(is_weft_device(fd));
	}

	igt_fixture
		close(null_fd);
}
