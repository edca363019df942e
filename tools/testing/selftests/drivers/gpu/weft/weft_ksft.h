/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Copyright (C) 2026 The Weft authors
 *
 * What the weft kselftests share: finding a DRM device by driver name,
 * Weft buffers, PRIME, passing file descriptors over a unix socket and
 * loading and unloading weft.ko. Every helper returns 0 or -errno (or a
 * file descriptor / pointer) and leaves the asserting to the tests.
 */
#ifndef WEFT_KSFT_H
#define WEFT_KSFT_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <drm/weft_drm.h>
#include <linux/dma-buf.h>

#define WEFT_PAGE_SIZE		4096ul
#define WEFT_MODULE_NAME	"weft"

static inline int weft_ioctl(int fd, unsigned long request, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, request, arg);
	} while (ret == -1 && (errno == EINTR || errno == EAGAIN));
	return ret ? -errno : 0;
}

/* The DRM driver name behind @fd, in @name (at most @len bytes). */
static inline int drm_driver_name(int fd, char *name, size_t len)
{
	struct drm_version version = {
		.name = name,
		.name_len = len - 1,
	};
	int ret;

	memset(name, 0, len);
	ret = weft_ioctl(fd, DRM_IOCTL_VERSION, &version);
	if (!ret)
		name[version.name_len < len ? version.name_len : len - 1] = 0;
	return ret;
}

/*
 * Opens the first /dev/dri node whose name starts with @prefix ("renderD"
 * or "card") and whose driver is @driver; -ENODEV when there is none.
 */
static inline int drm_open_driver_node(const char *driver, const char *prefix)
{
	struct dirent *entry;
	char path[300], name[64];
	int fd = -ENODEV;
	DIR *dir;

	dir = opendir("/dev/dri");
	if (!dir)
		return -ENODEV;
	while ((entry = readdir(dir))) {
		if (strncmp(entry->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(path, sizeof(path), "/dev/dri/%s", entry->d_name);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			fd = -errno;
			continue;
		}
		if (!drm_driver_name(fd, name, sizeof(name)) &&
		    !strcmp(name, driver))
			break;
		close(fd);
		fd = -ENODEV;
	}
	closedir(dir);
	return fd;
}

static inline int weft_open(void)
{
	return drm_open_driver_node(WEFT_MODULE_NAME, "renderD");
}

static inline int weft_query_info(int fd, struct drm_weft_device_info *info)
{
	struct drm_weft_query query = {
		.type = DRM_WEFT_QUERY_DEVICE_INFO,
		.size = sizeof(*info),
		.pointer = (uintptr_t)info,
	};
	int ret;

	memset(info, 0, sizeof(*info));
	ret = weft_ioctl(fd, DRM_IOCTL_WEFT_QUERY, &query);
	if (!ret && info->signature != 0x54464557) /* "WEFT" */
		ret = -EPROTO;
	return ret;
}

/* Creates a buffer of @size bytes; its handle in @handle. */
static inline int weft_bo_create(int fd, uint64_t size, uint32_t *handle)
{
	struct drm_weft_bo_create create = { .size = size };
	int ret;

	ret = weft_ioctl(fd, DRM_IOCTL_WEFT_BO_CREATE, &create);
	*handle = create.handle;
	return ret;
}

/* Maps buffer @handle of file @fd, or returns NULL with errno set. */
static inline void *weft_bo_map(int fd, uint32_t handle, size_t size)
{
	struct drm_weft_bo_mmap_offset arg = { .handle = handle };
	void *map;
	int ret;

	ret = weft_ioctl(fd, DRM_IOCTL_WEFT_BO_MMAP_OFFSET, &arg);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   arg.offset);
	return map == MAP_FAILED ? NULL : map;
}

static inline int gem_close(int fd, uint32_t handle)
{
	struct drm_gem_close arg = { .handle = handle };

	return weft_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &arg);
}

/* Exports @handle as a dma-buf: its fd, or -errno. */
static inline int prime_export(int fd, uint32_t handle, uint32_t flags)
{
	struct drm_prime_handle arg = { .handle = handle, .flags = flags };
	int ret;

	ret = weft_ioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &arg);
	return ret ? ret : arg.fd;
}

static inline int prime_import(int fd, int dmabuf, uint32_t *handle)
{
	struct drm_prime_handle arg = { .fd = dmabuf };
	int ret;

	ret = weft_ioctl(fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &arg);
	*handle = arg.handle;
	return ret;
}

static inline void *dmabuf_map(int dmabuf, size_t size)
{
	void *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
			 dmabuf, 0);

	return map == MAP_FAILED ? NULL : map;
}

/* The word a pattern @seed puts at index @i: no two seeds nor indices alike. */
static inline uint32_t pattern_word(uint32_t seed, size_t i)
{
	return (seed * 0x9e3779b9u) ^ (uint32_t)(i * 0x85ebca6bu) ^ (uint32_t)i;
}

static inline void pattern_fill(void *map, size_t size, uint32_t seed)
{
	uint32_t *words = map;
	size_t i;

	for (i = 0; i < size / 4; i++)
		words[i] = pattern_word(seed, i);
}

/* The byte offset of the first word that differs from pattern @seed, or -1. */
static inline long pattern_mismatch(const void *map, size_t size,
				    uint32_t seed)
{
	const volatile uint32_t *words = map;
	size_t i;

	for (i = 0; i < size / 4; i++)
		if (words[i] != pattern_word(seed, i))
			return (long)(i * 4);
	return -1;
}

/*
 * A new buffer of @size bytes filled with pattern @seed: its mapping (NULL
 * with errno set on failure), its handle in @handle.
 */
static inline void *weft_bo_new_filled(int fd, size_t size, uint32_t seed,
				       uint32_t *handle)
{
	void *map;
	int ret;

	ret = weft_bo_create(fd, size, handle);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	map = weft_bo_map(fd, *handle, size);
	if (map)
		pattern_fill(map, size, seed);
	return map;
}

/*
 * File @fd works: a query, a new buffer, which the CPU writes and reads
 * back through a mapping, and its handle closed again.
 */
static inline int weft_device_works(int fd)
{
	struct drm_weft_device_info info;
	uint32_t handle;
	long mismatch;
	void *map;
	int ret;

	ret = weft_query_info(fd, &info);
	if (ret)
		return ret;
	map = weft_bo_new_filled(fd, WEFT_PAGE_SIZE, fd ^ getpid(), &handle);
	if (!map)
		return -errno;
	mismatch = pattern_mismatch(map, WEFT_PAGE_SIZE, fd ^ getpid());
	munmap(map, WEFT_PAGE_SIZE);
	ret = gem_close(fd, handle);
	return mismatch >= 0 ? -EIO : ret;
}

/* Sends @count file descriptors and a word of data in one message. */
static inline int send_fds(int sock, const int *fds, unsigned int count,
			   uint32_t data)
{
	char control[CMSG_SPACE(16 * sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = &data, .iov_len = sizeof(data) };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = control,
		.msg_controllen = CMSG_SPACE(count * sizeof(int)),
	};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);

	if (count > 16)
		return -EINVAL;
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(count * sizeof(int));
	memcpy(CMSG_DATA(cmsg), fds, count * sizeof(int));
	return sendmsg(sock, &msg, 0) == sizeof(data) ? 0 : -errno;
}

/*
 * Receives a message of send_fds(): its descriptors in @fds (at most @max),
 * their number as the return value, the word in @data; -errno on error,
 * -EPROTO if the message carried no descriptors.
 */
static inline int recv_fds(int sock, int *fds, unsigned int max,
			   uint32_t *data)
{
	char control[CMSG_SPACE(16 * sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = data, .iov_len = sizeof(*data) };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = control,
		.msg_controllen = sizeof(control),
	};
	struct cmsghdr *cmsg;
	unsigned int count;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != sizeof(*data))
		return errno ? -errno : -EPROTO;
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg || cmsg->cmsg_type != SCM_RIGHTS)
		return -EPROTO;
	count = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
	if (count > max)
		return -E2BIG;
	memcpy(fds, CMSG_DATA(cmsg), count * sizeof(int));
	return count;
}

static inline int send_fd(int sock, int fd, uint32_t data)
{
	return send_fds(sock, &fd, 1, data);
}

static inline int recv_fd(int sock, uint32_t *data)
{
	int fd, ret;

	ret = recv_fds(sock, &fd, 1, data);
	return ret == 1 ? fd : (ret < 0 ? ret : -EPROTO);
}

/*
 * Waits for child @pid: 0 if it exited with status 0, else its exit
 * status or 128 + the signal that ended it.
 */
static inline int wait_child(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline bool weft_module_loaded(void)
{
	return access("/sys/module/" WEFT_MODULE_NAME, F_OK) == 0;
}

/*
 * Unloads weft.ko without waiting: -EWOULDBLOCK (or -EBUSY) while anything
 * holds a reference to it.
 */
static inline int weft_module_unload(void)
{
	return syscall(SYS_delete_module, WEFT_MODULE_NAME, O_NONBLOCK) ?
	       -errno : 0;
}

/* Unloads weft.ko, retrying for up to @timeout_s while it is busy. */
static inline int weft_module_unload_within(double timeout_s)
{
	double end = now_s() + timeout_s;
	int ret;

	while ((ret = weft_module_unload()) == -EWOULDBLOCK ||
	       ret == -EBUSY) {
		if (now_s() > end)
			break;
		usleep(2000);
	}
	return ret;
}

/*
 * Loads weft.ko with @params: from $WEFT_MODULE (a path to weft.ko) when
 * set, else by modprobe (an installed module). Then waits up to 10 s for
 * its render node to open.
 */
static inline int weft_module_load(const char *params)
{
	const char *path = getenv("WEFT_MODULE");
	char cmd[512];
	double end;
	int fd, ret;

	if (path) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
		close(fd);
	} else {
		snprintf(cmd, sizeof(cmd), "modprobe %s %s", WEFT_MODULE_NAME,
			 params);
		ret = system(cmd) ? -ENOENT : 0;
	}
	if (ret)
		return ret;

	for (end = now_s() + 10; now_s() < end; usleep(10000)) {
		fd = weft_open();
		if (fd >= 0) {
			close(fd);
			return 0;
		}
	}
	return -ENODEV;
}

#endif /* WEFT_KSFT_H */
