// SPDX-License-Identifier: MIT
/*
 * Copyright (C) 2026 The Weft authors
 *
 * Module unload: refused (EBUSY or EWOULDBLOCK) while a file is open,
 * clean once every file is closed, also after a process with jobs in
 * flight was killed. The module is loaded again from $WEFT_MODULE (the
 * path of weft.ko), with the parameters it had, so later tests find it.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <xf86drm.h>

#include "igt.h"
#include "igt_weft.h"

IGT_TEST_DESCRIPTION("Tests for unloading weft.ko.");

static int unload(void)
{
	return syscall(SYS_delete_module, "weft", O_NONBLOCK) ? -errno : 0;
}

static void reload(void)
{
	const char *ko = getenv("WEFT_MODULE");
	char cmd[1024];
	unsigned int ms = 10000;
	FILE *f;

	igt_assert_f(ko, "WEFT_MODULE not set\n");
	f = fopen("/tmp/weft-unload-timeout", "r");
	if (f) {
		igt_assert_eq(fscanf(f, "%u", &ms), 1);
		fclose(f);
	}
	snprintf(cmd, sizeof(cmd), "insmod %s job_timeout_ms=%u", ko, ms);
	igt_assert_eq(system(cmd), 0);
	/* udev may take a moment to create the nodes. */
	for (int i = 0; i < 100; i++) {
		int fd = __drm_open_driver(DRIVER_WEFT);

		if (fd >= 0) {
			close(fd);
			return;
		}
		usleep(20000);
	}
	igt_assert_f(false, "no weft device after reload\n");
}

static void remember_timeout(void)
{
	FILE *in = fopen("/sys/module/weft/parameters/job_timeout_ms", "r");
	FILE *out;
	unsigned int ms;

	igt_assert(in);
	igt_assert_eq(fscanf(in, "%u", &ms), 1);
	fclose(in);
	out = fopen("/tmp/weft-unload-timeout", "w");
	igt_assert(out);
	fprintf(out, "%u\n", ms);
	fclose(out);
}

static void unload_reload(void)
{
	int ret = -EBUSY;

	/* Files of earlier processes are released asynchronously. */
	for (int i = 0; i < 200 && ret; i++) {
		ret = unload();
		if (ret)
			usleep(50000);
	}
	igt_assert_eq(ret, 0);
	reload();
}

igt_main
{
	igt_fixture {
		int fd = drm_open_driver(DRIVER_WEFT);

		igt_require_f(getenv("WEFT_MODULE") &&
			      !access(getenv("WEFT_MODULE"), R_OK),
			      "set WEFT_MODULE to the path of weft.ko\n");
		igt_require(geteuid() == 0);
		remember_timeout();
		drm_close_driver(fd);
	}

	igt_describe("Check that the module cannot be unloaded while a file "
		     "is open.");
	igt_subtest("unload-busy") {
		int fd = drm_open_driver(DRIVER_WEFT);
		int ret = unload();

		igt_assert_f(ret == -EBUSY || ret == -EWOULDBLOCK,
			     "unload with an open file: %d\n", ret);
		weft_assert_device_alive(fd);
		drm_close_driver(fd);
	}

	igt_describe("Check that the module unloads and loads again cleanly "
		     "once idle, and the device works after.");
	igt_subtest("unload-reload") {
		int fd;

		unload_reload();
		fd = drm_open_driver(DRIVER_WEFT);
		weft_assert_device_alive(fd);
		drm_close_driver(fd);
	}

	igt_describe("Check that after a process with jobs in flight is "
		     "killed, the module unloads and loads again.");
	igt_subtest("unload-after-kill") {
		pid_t pid = fork();
		int status, fd;

		igt_assert(pid >= 0);
		if (pid == 0) {
			fd = drm_open_driver(DRIVER_WEFT);
			for (;;)
				weft_assert_device_alive(fd);
		}
		usleep(300000);
		kill(pid, SIGKILL);
		igt_assert_eq(waitpid(pid, &status, 0), pid);
		unload_reload();
		fd = drm_open_driver(DRIVER_WEFT);
		weft_assert_device_alive(fd);
		drm_close_driver(fd);
	}
}
