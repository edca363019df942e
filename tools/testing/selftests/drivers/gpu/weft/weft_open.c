// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (C) 2026 The Weft authors
 *
 * The Weft device opened and closed by many processes and threads at
 * once, and left without cleanup by processes that exit or are killed
 * with buffers, VMs and queues: every file works on its own, and when
 * they are gone the device lists no client they left behind.
 */
#include <pthread.h>
#include <signal.h>

#include "kselftest_harness.h"
#include "weft_ksft.h"

#define PROCESSES	32
#define ROUNDS		20
#define THREADS		16
#define FILES		256

FIXTURE(open) {
	int unused;
};

FIXTURE_SETUP(open)
{
	int fd = weft_open();

	ASSERT_LE(0, fd) {
		TH_LOG("no weft render node: is weft.ko loaded?");
	}
	close(fd);
}

FIXTURE_TEARDOWN(open)
{
}

/* One round: open, check the driver, use the device, close. */
static int open_use_close(void)
{
	char name[16];
	int fd, ret;

	fd = weft_open();
	if (fd < 0)
		return fd;
	ret = drm_driver_name(fd, name, sizeof(name));
	if (!ret && strcmp(name, WEFT_MODULE_NAME))
		ret = -ENODEV;
	if (!ret)
		ret = weft_device_works(fd);
	if (close(fd))
		ret = ret ? ret : -errno;
	return ret;
}

/* A start line, so that the processes open the device together. */
static void wait_for_start(int start)
{
	char byte;

	if (read(start, &byte, 1) != 0)
		_exit(100);
}

TEST_F_TIMEOUT(open, many_processes_open_close, 300)
{
	pid_t pids[PROCESSES];
	int start[2], status, i, r;

	ASSERT_EQ(0, pipe(start));
	for (i = 0; i < PROCESSES; i++) {
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (!pids[i]) {
			close(start[1]);
			wait_for_start(start[0]);
			for (r = 0; r < ROUNDS; r++)
				if (open_use_close())
					_exit(1 + r);
			_exit(0);
		}
	}
	close(start[0]);
	close(start[1]);
	for (i = 0; i < PROCESSES; i++) {
		status = wait_child(pids[i]);
		EXPECT_EQ(0, status) {
			TH_LOG("process %d failed in round %d", i, status - 1);
		}
	}
}

static void *thread_rounds(void *arg)
{
	intptr_t failures = 0;
	int r;

	(void)arg;
	for (r = 0; r < ROUNDS; r++)
		failures += open_use_close() != 0;
	return (void *)failures;
}

TEST_F_TIMEOUT(open, many_threads_open_close, 300)
{
	pthread_t threads[THREADS];
	void *failures;
	int i;

	for (i = 0; i < THREADS; i++)
		ASSERT_EQ(0, pthread_create(&threads[i], NULL, thread_rounds,
					    NULL));
	for (i = 0; i < THREADS; i++) {
		ASSERT_EQ(0, pthread_join(threads[i], &failures));
		EXPECT_EQ(0, (intptr_t)failures);
	}
}

TEST_F_TIMEOUT(open, many_files_one_process, 120)
{
	static int fds[FILES];
	static uint32_t handles[FILES];
	static uint32_t *maps[FILES];
	int i;

	for (i = 0; i < FILES; i++) {
		fds[i] = weft_open();
		ASSERT_LE(0, fds[i]);
		ASSERT_EQ(0, weft_bo_create(fds[i], WEFT_PAGE_SIZE,
					    &handles[i]));
		maps[i] = weft_bo_map(fds[i], handles[i], WEFT_PAGE_SIZE);
		ASSERT_NE(NULL, maps[i]);
		pattern_fill(maps[i], WEFT_PAGE_SIZE, i);
	}
	/* Each file's buffer is its own, whatever its handle number. */
	for (i = 0; i < FILES; i++) {
		EXPECT_EQ(-1, pattern_mismatch(maps[i], WEFT_PAGE_SIZE, i));
		munmap(maps[i], WEFT_PAGE_SIZE);
		EXPECT_EQ(0, close(fds[i]));
	}
}

/* The number of clients the device's debugfs "clients" file lists. */
static int debugfs_clients(void)
{
	char path[64], line[256];
	int minor, count = -1;
	FILE *f;

	/* The render node's debugfs directory is the primary node's. */
	for (minor = 0; minor < 64 && count < 0; minor++) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/name",
			 minor);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(line, sizeof(line), f) ||
		    strncmp(line, WEFT_MODULE_NAME " ", 5)) {
			fclose(f);
			continue;
		}
		fclose(f);
		snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%d/clients",
			 minor);
		f = fopen(path, "r");
		if (!f)
			return -errno;
		/* A header line, then one line per open file. */
		for (count = -1; fgets(line, sizeof(line), f); count++)
			;
		fclose(f);
	}
	return count;
}

/*
 * Child of exit_without_cleanup: a VM, a queue and mapped buffers; then,
 * when @go closes, an exit without closing anything (unless SIGKILL from
 * the parent came first).
 */
static int busy_user(int ready, int go)
{
	char byte;
	struct drm_weft_vm_create vm = { 0 };
	struct drm_weft_queue_create queue = { 0 };
	struct drm_weft_device_info info;
	uint32_t handle;
	int fd, i;

	fd = weft_open();
	if (fd < 0 || weft_query_info(fd, &info))
		return 1;
	if (weft_ioctl(fd, DRM_IOCTL_WEFT_VM_CREATE, &vm))
		return 2;
	queue.vm_id = vm.id;
	queue.priority = DRM_WEFT_QUEUE_PRIORITY_NORMAL;
	if (weft_ioctl(fd, DRM_IOCTL_WEFT_QUEUE_CREATE, &queue))
		return 3;
	for (i = 0; i < 4; i++) {
		struct drm_weft_vm_bind_op op = {
			.op = DRM_WEFT_VM_BIND_OP_MAP,
			.va = info.user_va_start + i * 16 * WEFT_PAGE_SIZE,
			.size = 16 * WEFT_PAGE_SIZE,
		};
		struct drm_weft_vm_bind bind = {
			.vm_id = vm.id,
			.ops = {
				.stride = sizeof(op),
				.count = 1,
				.array = (uintptr_t)&op,
			},
		};

		if (weft_bo_create(fd, 16 * WEFT_PAGE_SIZE, &handle))
			return 4;
		op.handle = handle;
		if (weft_ioctl(fd, DRM_IOCTL_WEFT_VM_BIND, &bind))
			return 5;
		if (!weft_bo_map(fd, handle, 16 * WEFT_PAGE_SIZE))
			return 6;
	}
	if (write(ready, "r", 1) != 1)
		return 7;
	return read(go, &byte, 1) ? 8 : 0;
}

TEST_F_TIMEOUT(open, exit_without_cleanup, 120)
{
	pid_t pids[PROCESSES / 2];
	int ready[2], go[2], before, i;
	double end;
	char byte;

	before = debugfs_clients();
	ASSERT_LE(0, before) {
		TH_LOG("no clients file of weft in /sys/kernel/debug/dri");
	}
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	for (i = 0; i < PROCESSES / 2; i++) {
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (!pids[i]) {
			close(go[1]);
			_exit(busy_user(ready[1], go[0]));
		}
	}
	for (i = 0; i < PROCESSES / 2; i++)
		ASSERT_EQ(1, read(ready[0], &byte, 1));
	EXPECT_EQ(before + PROCESSES / 2, debugfs_clients());

	/* Half are killed, half exit by themselves. */
	for (i = 1; i < PROCESSES / 2; i += 2)
		kill(pids[i], SIGKILL);
	close(go[1]);
	for (i = 0; i < PROCESSES / 2; i++)
		EXPECT_EQ(i % 2 ? 128 + SIGKILL : 0, wait_child(pids[i]));

	/* Files of killed processes may close a moment after the wait. */
	for (end = now_s() + 5; debugfs_clients() != before && now_s() < end;)
		usleep(10000);
	EXPECT_EQ(before, debugfs_clients());
	EXPECT_EQ(0, open_use_close());
}

TEST_HARNESS_MAIN
