// SPDX-License-Identifier: MIT
/*
 * Copyright (C) 2026 The Weft authors
 */
#include <string.h>
#include <xf86drm.h>

#include "ioctl_wrappers.h"

/* Restarts on EINTR and EAGAIN, as drmIoctl() does. */
int igt_ioctl(int fd, unsigned long request, void *arg)
{
	return drmIoctl(fd, request, arg);
}

int __gem_close(int fd, uint32_t handle)
{
	struct drm_gem_close close_bo = { .handle = handle };
	int err = 0;

	if (igt_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &close_bo))
		err = -errno;
	errno = 0;
	return err;
}

void gem_close(int fd, uint32_t handle)
{
	igt_assert_eq(__gem_close(fd, handle), 0);
}
