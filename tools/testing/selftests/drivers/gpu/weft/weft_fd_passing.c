// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (C) 2026 The Weft authors
 *
 * Weft file descriptors and Weft dma-bufs passed over a unix socket
 * (SCM_RIGHTS): a passed DRM file is the same file, with the same GEM
 * handles, in the receiver; it outlives the sender; several buffers
 * travel in one message and arrive each with its own contents.
 */
#include <linux/kcmp.h>

#include "kselftest_harness.h"
#include "weft_ksft.h"

#define SIZE	(8 * WEFT_PAGE_SIZE)
#define BUFFERS	16
#define SEED	0x4a4d

FIXTURE(pass) {
	int sv[2];
};

FIXTURE_SETUP(pass)
{
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
				self->sv));
}

FIXTURE_TEARDOWN(pass)
{
	close(self->sv[0]);
	close(self->sv[1]);
}

/* Forks a child that exits with @child(@sock). */
static pid_t start_child(struct __test_metadata *_metadata,
			 int (*child)(int sock), int sock)
{
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (!pid)
		_exit(child(sock));
	return pid;
}

/*
 * Child of drm_file_shares_handles: the received file knows the sender's
 * handle; the child checks and rewrites its contents, and makes a buffer
 * of its own in the same file, whose handle it sends back.
 */
static int handle_user(int sock)
{
	uint32_t handle, mine;
	void *map;
	int fd;

	fd = recv_fd(sock, &handle);
	if (fd < 0)
		return 1;
	map = weft_bo_map(fd, handle, SIZE);
	if (!map)
		return 2;
	if (pattern_mismatch(map, SIZE, SEED) >= 0)
		return 3;
	pattern_fill(map, SIZE, SEED + 1);
	if (!weft_bo_new_filled(fd, SIZE, SEED + 2, &mine))
		return 4;
	if (write(sock, &mine, sizeof(mine)) != sizeof(mine))
		return 6;
	return 0;
}

TEST_F(pass, drm_file_shares_handles)
{
	uint32_t handle, theirs;
	void *map;
	pid_t pid;
	int fd;

	pid = start_child(_metadata, handle_user, self->sv[1]);

	fd = weft_open();
	ASSERT_LE(0, fd);
	map = weft_bo_new_filled(fd, SIZE, SEED, &handle);
	ASSERT_NE(NULL, map);
	ASSERT_EQ(0, send_fd(self->sv[0], fd, handle));
	ASSERT_EQ((ssize_t)sizeof(theirs),
		  read(self->sv[0], &theirs, sizeof(theirs)));
	ASSERT_EQ(0, wait_child(pid));

	EXPECT_EQ(-1, pattern_mismatch(map, SIZE, SEED + 1));
	munmap(map, SIZE);
	/* The buffer the child made in the shared file is in ours. */
	EXPECT_NE(handle, theirs);
	map = weft_bo_map(fd, theirs, SIZE);
	ASSERT_NE(NULL, map);
	EXPECT_EQ(-1, pattern_mismatch(map, SIZE, SEED + 2));
	munmap(map, SIZE);
	EXPECT_EQ(0, gem_close(fd, theirs));
	close(fd);
}

/* Child of drm_file_outlives_sender: sends a file with a buffer, exits. */
static int sending_user(int sock)
{
	uint32_t handle;
	int fd;

	fd = weft_open();
	if (fd < 0)
		return 1;
	if (!weft_bo_new_filled(fd, SIZE, 0x5e4d, &handle))
		return 2;
	return send_fd(sock, fd, handle) ? 3 : 0;
}

TEST_F(pass, drm_file_outlives_sender)
{
	uint32_t handle;
	void *map;
	pid_t pid;
	int fd;

	pid = start_child(_metadata, sending_user, self->sv[1]);
	/* The sender is gone before the file is received. */
	ASSERT_EQ(0, wait_child(pid));

	fd = recv_fd(self->sv[0], &handle);
	ASSERT_LE(0, fd);
	map = weft_bo_map(fd, handle, SIZE);
	ASSERT_NE(NULL, map);
	EXPECT_EQ(-1, pattern_mismatch(map, SIZE, 0x5e4d));
	munmap(map, SIZE);
	close(fd);
}

/* Child of many_dmabufs_one_message: imports each buffer and checks it. */
static int many_importer(int sock)
{
	int fds[BUFFERS], count, fd, i;
	uint32_t handle, seed;
	void *map;

	fd = weft_open();
	count = recv_fds(sock, fds, BUFFERS, &seed);
	if (fd < 0 || count != BUFFERS)
		return 1;
	for (i = 0; i < count; i++) {
		if (prime_import(fd, fds[i], &handle))
			return 2;
		close(fds[i]);
		map = weft_bo_map(fd, handle, SIZE);
		if (!map)
			return 3;
		if (pattern_mismatch(map, SIZE, seed + i) >= 0)
			return 4;
		munmap(map, SIZE);
	}
	return 0;
}

TEST_F(pass, many_dmabufs_one_message)
{
	int fds[BUFFERS], fd, i;
	uint32_t handle;
	void *map;
	pid_t pid;

	pid = start_child(_metadata, many_importer, self->sv[1]);

	fd = weft_open();
	ASSERT_LE(0, fd);
	for (i = 0; i < BUFFERS; i++) {
		map = weft_bo_new_filled(fd, SIZE, 100 + i, &handle);
		ASSERT_NE(NULL, map);
		munmap(map, SIZE);
		fds[i] = prime_export(fd, handle, DRM_CLOEXEC | DRM_RDWR);
		ASSERT_LE(0, fds[i]);
	}
	/* The sender closes everything before the child has received it. */
	ASSERT_EQ(0, send_fds(self->sv[0], fds, BUFFERS, 100));
	for (i = 0; i < BUFFERS; i++)
		close(fds[i]);
	close(fd);
	EXPECT_EQ(0, wait_child(pid));
}

TEST_F(pass, received_fd_is_a_weft_file)
{
	char name[16];
	uint32_t data;
	int fd, received;

	fd = weft_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, send_fd(self->sv[0], fd, 0));
	received = recv_fd(self->sv[1], &data);
	ASSERT_LE(0, received);
	/* A new descriptor of the same open file. */
	EXPECT_NE(fd, received);
	EXPECT_EQ(0, syscall(SYS_kcmp, getpid(), getpid(), KCMP_FILE, fd,
			     received));
	ASSERT_EQ(0, drm_driver_name(received, name, sizeof(name)));
	EXPECT_STREQ(WEFT_MODULE_NAME, name);
	/* SCM_RIGHTS with MSG_CMSG_CLOEXEC: close-on-exec is set. */
	EXPECT_EQ(FD_CLOEXEC, fcntl(received, F_GETFD) & FD_CLOEXEC);
	close(fd);
	close(received);
}

TEST_HARNESS_MAIN
