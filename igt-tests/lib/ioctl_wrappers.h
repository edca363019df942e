/* SPDX-License-Identifier: MIT */
/*
 * Copyright (C) 2026 The Weft authors
 *
 * The subset of IGT's lib/ioctl_wrappers.h the Weft tests use.
 */
#ifndef IOCTL_WRAPPERS_H
#define IOCTL_WRAPPERS_H

#include <errno.h>
#include <stdint.h>

#include "igt_core.h"

int igt_ioctl(int fd, unsigned long request, void *arg);

/**
 * do_ioctl: - the ioctl must succeed.
 */
#define do_ioctl(fd, ioc, ioc_data) \
	do { \
		igt_assert_eq(igt_ioctl((fd), (ioc), (ioc_data)), 0); \
		errno = 0; \
	} while (0)

/**
 * do_ioctl_err: - the ioctl must fail with errno @err.
 */
#define do_ioctl_err(fd, ioc, ioc_data, err) \
	do { \
		igt_assert_eq(igt_ioctl((fd), (ioc), (ioc_data)), -1); \
		igt_assert_eq(errno, (err)); \
		errno = 0; \
	} while (0)

int __gem_close(int fd, uint32_t handle);
void gem_close(int fd, uint32_t handle);

static inline uint64_t to_user_pointer(const void *ptr)
{
	return (uintptr_t)ptr;
}

static inline void *from_user_pointer(uint64_t u64)
{
	return (void *)(uintptr_t)u64;
}

#endif /* IOCTL_WRAPPERS_H */
