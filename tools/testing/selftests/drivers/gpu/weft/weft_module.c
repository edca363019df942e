// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (C) 2026 The Weft authors
 *
 * Loading and unloading weft.ko while other processes use the device:
 * whatever keeps a Weft file alive (an open descriptor, a mapping, an
 * exported dma-buf, a descriptor in flight in a unix socket) keeps the
 * module, the users go on working while an unload is refused, and once
 * they are gone the module unloads and loads again. Needs root; reloads
 * weft.ko from $WEFT_MODULE, else with modprobe.
 */
#include <signal.h>

#include "kselftest_harness.h"
#include "weft_ksft.h"

#define USERS	4

FIXTURE(module) {
	char params[128];
};

FIXTURE_SETUP(module)
{
	unsigned int timeout_ms;
	FILE *f;

	if (geteuid())
		SKIP(return, "needs root to load and unload weft.ko");
	ASSERT_TRUE(weft_module_loaded());

	/* Reload with the parameters the module had. */
	self->params[0] = 0;
	f = fopen("/sys/module/weft/parameters/job_timeout_ms", "r");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(1, fscanf(f, "%u", &timeout_ms));
	fclose(f);
	snprintf(self->params, sizeof(self->params), "job_timeout_ms=%u",
		 timeout_ms);
}

FIXTURE_TEARDOWN(module)
{
	/* Whatever the test did, the next one finds the module loaded. */
	if (!weft_module_loaded())
		EXPECT_EQ(0, weft_module_load(self->params));
}

/* Refused now, then unloaded and loaded again with @params. */
static void expect_unload_refused(struct __test_metadata *_metadata)
{
	int ret = weft_module_unload();

	ASSERT_TRUE(ret == -EWOULDBLOCK || ret == -EBUSY) {
		TH_LOG("unload returned %d while the module was in use", ret);
	}
	ASSERT_TRUE(weft_module_loaded());
}

static void unload_and_reload(struct __test_metadata *_metadata,
			      const char *params)
{
	int fd;

	ASSERT_EQ(0, weft_module_unload_within(5));
	ASSERT_FALSE(weft_module_loaded());
	ASSERT_GT(0, weft_open());
	ASSERT_EQ(0, weft_module_load(params));
	fd = weft_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, weft_device_works(fd));
	close(fd);
}

/*
 * Child of unload_refused_while_open: opens the device, fills a buffer,
 * reports ready, waits for the parent's unload attempt and checks the
 * buffer and the device again.
 */
static int open_user(int ready, int go)
{
	uint32_t handle;
	char byte;
	void *map;
	int fd;

	fd = weft_open();
	if (fd < 0)
		return 1;
	map = weft_bo_new_filled(fd, 16 * WEFT_PAGE_SIZE, getpid(), &handle);
	if (!map)
		return 2;
	if (write(ready, "r", 1) != 1 || read(go, &byte, 1) != 1)
		return 3;
	if (pattern_mismatch(map, 16 * WEFT_PAGE_SIZE, getpid()) >= 0)
		return 4;
	if (weft_device_works(fd))
		return 5;
	return 0;
}

TEST_F_TIMEOUT(module, unload_refused_while_open, 120)
{
	int ready[2], go[2], i;
	pid_t pids[USERS];
	char byte;

	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	for (i = 0; i < USERS; i++) {
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (!pids[i])
			_exit(open_user(ready[1], go[0]));
	}
	for (i = 0; i < USERS; i++)
		ASSERT_EQ(1, read(ready[0], &byte, 1));

	expect_unload_refused(_metadata);

	/* The users go on working after the refused unload. */
	for (i = 0; i < USERS; i++)
		ASSERT_EQ(1, write(go[1], "g", 1));
	for (i = 0; i < USERS; i++)
		EXPECT_EQ(0, wait_child(pids[i]));
	unload_and_reload(_metadata, self->params);
}

TEST_F_TIMEOUT(module, unload_refused_while_mapped, 60)
{
	uint32_t handle;
	void *map;
	int fd;

	fd = weft_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, weft_bo_create(fd, 4 * WEFT_PAGE_SIZE, &handle));
	map = weft_bo_map(fd, handle, 4 * WEFT_PAGE_SIZE);
	ASSERT_NE(NULL, map);
	ASSERT_EQ(0, gem_close(fd, handle));
	close(fd);

	/* Only the mapping is left: it holds the file, the file the module. */
	expect_unload_refused(_metadata);
	pattern_fill(map, 4 * WEFT_PAGE_SIZE, 7);
	EXPECT_EQ(-1, pattern_mismatch(map, 4 * WEFT_PAGE_SIZE, 7));
	munmap(map, 4 * WEFT_PAGE_SIZE);
	unload_and_reload(_metadata, self->params);
}

TEST_F_TIMEOUT(module, unload_refused_while_dmabuf_held, 60)
{
	uint32_t handle;
	int fd, dmabuf;
	void *map;

	fd = weft_open();
	ASSERT_LE(0, fd);
	map = weft_bo_new_filled(fd, 4 * WEFT_PAGE_SIZE, 11, &handle);
	ASSERT_NE(NULL, map);
	munmap(map, 4 * WEFT_PAGE_SIZE);
	dmabuf = prime_export(fd, handle, DRM_CLOEXEC | DRM_RDWR);
	ASSERT_LE(0, dmabuf);
	close(fd);

	/* The exported buffer outlives its file, and keeps the module. */
	expect_unload_refused(_metadata);
	map = dmabuf_map(dmabuf, 4 * WEFT_PAGE_SIZE);
	ASSERT_NE(NULL, map);
	EXPECT_EQ(-1, pattern_mismatch(map, 4 * WEFT_PAGE_SIZE, 11));
	munmap(map, 4 * WEFT_PAGE_SIZE);
	close(dmabuf);
	unload_and_reload(_metadata, self->params);
}

TEST_F_TIMEOUT(module, unload_refused_while_fd_in_flight, 60)
{
	int sv[2], fd, received;
	uint32_t data;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	fd = weft_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, send_fd(sv[0], fd, 1));
	close(fd);

	/* Nobody has the file open: it is in the socket's queue. */
	expect_unload_refused(_metadata);
	received = recv_fd(sv[1], &data);
	ASSERT_LE(0, received);
	EXPECT_EQ(0, weft_device_works(received));
	close(received);

	/* Sent again and never received: closing the socket frees it. */
	fd = weft_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, send_fd(sv[0], fd, 2));
	close(fd);
	expect_unload_refused(_metadata);
	close(sv[0]);
	close(sv[1]);
	unload_and_reload(_metadata, self->params);
}

/*
 * Child of load_unload_racing_opens: opens, uses and closes the device
 * until killed. Opening may fail while the module is away; a file that
 * did open must work. Exits nonzero, or -1 from @count, on any failure.
 */
static int racing_user(int report)
{
	unsigned int opened = 0;
	int fd, ret;

	for (;;) {
		fd = weft_open();
		if (fd < 0) {
			if (fd != -ENODEV && fd != -ENOENT && fd != -ENXIO)
				return 1;
			usleep(500);
			continue;
		}
		ret = weft_device_works(fd);
		close(fd);
		if (ret)
			return 2;
		if (!(++opened % 8) && write(report, "o", 1) != 1)
			return 3;
		usleep(1000);
	}
}

TEST_F_TIMEOUT(module, load_unload_racing_opens, 300)
{
	const unsigned int cycles = 5;
	pid_t pids[USERS];
	unsigned int i;
	int report[2];
	char byte;

	ASSERT_EQ(0, pipe(report));
	for (i = 0; i < USERS; i++) {
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (!pids[i])
			_exit(racing_user(report[1]));
	}
	close(report[1]);

	for (i = 0; i < cycles; i++) {
		/* Some users got in since the last load. */
		ASSERT_EQ(1, read(report[0], &byte, 1));
		ASSERT_EQ(0, weft_module_unload_within(60)) {
			TH_LOG("cycle %u: no unload within 60 s of racing opens",
			       i);
		}
		usleep(50000);
		ASSERT_EQ(0, weft_module_load(self->params));
	}

	/* A user that failed has exited by now; the others are killed. */
	for (i = 0; i < USERS; i++) {
		kill(pids[i], SIGKILL);
		EXPECT_EQ(128 + SIGKILL, wait_child(pids[i])) {
			TH_LOG("user %u failed while the module came and went",
			       i);
		}
	}
	close(report[0]);
}

TEST_HARNESS_MAIN
