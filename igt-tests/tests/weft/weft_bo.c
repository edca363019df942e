// SPDX-License-Identifier: MIT
/*
 * Copyright (C) 2026 The Weft authors
 *
 * DRM_IOCTL_WEFT_BO_CREATE, DRM_IOCTL_WEFT_BO_MMAP_OFFSET and GEM_CLOSE.
 *
 * Error codes this test expects (weft.ko must match):
 *  - BO_CREATE size 0:                          -EINVAL
 *  - BO_CREATE size that overflows when rounded
 *    up to pages:                               -EINVAL
 *  - BO_CREATE nonzero flags:                   -EINVAL
 *  - BO_MMAP_OFFSET nonzero pad:                -EINVAL
 *  - BO_MMAP_OFFSET unknown or closed handle:   -ENOENT
 *  - GEM_CLOSE unknown handle:                  -EINVAL (DRM core)
 *  - mmap() at an offset no buffer owns:        -EINVAL (DRM core)
 */
#include <sys/mman.h>

#include "igt.h"
#include "igt_weft.h"

IGT_TEST_DESCRIPTION("Tests for creating, mapping and closing Weft buffers.");

static void create_close(int fd, uint64_t size, uint64_t expect)
{
	struct drm_weft_bo_create create = { .size = size };

	do_ioctl(fd, DRM_IOCTL_WEFT_BO_CREATE, &create);
	igt_assert_neq_u32(create.handle, 0);
	igt_assert_eq_u64(create.size, expect);
	gem_close(fd, create.handle);
}

static void mmap_write_read(int fd, uint64_t size)
{
	uint32_t handle = weft_bo_create(fd, size);
	uint32_t *map;

	map = weft_bo_mmap(fd, handle, size, PROT_READ | PROT_WRITE);
	for (uint64_t i = 0; i < size / 4; i++)
		igt_assert_f(map[i] == 0, "new buffer not zeroed at %" PRIu64
			     "\n", i * 4);
	for (uint64_t i = 0; i < size / 4; i++)
		map[i] = 0xc0de0000u ^ (uint32_t)i;
	munmap(map, size);

	/* A second mapping sees what the first wrote. */
	map = weft_bo_mmap(fd, handle, size, PROT_READ);
	for (uint64_t i = 0; i < size / 4; i++)
		igt_assert_eq_u32(map[i], 0xc0de0000u ^ (uint32_t)i);
	munmap(map, size);

	gem_close(fd, handle);
}

igt_main
{
	int fd = -1;

	igt_fixture
		fd = drm_open_driver(DRIVER_WEFT);

	igt_describe("Create and close buffers of a page and of many pages.");
	igt_subtest("create-close") {
		create_close(fd, 4096, 4096);
		create_close(fd, 16 * 4096, 16 * 4096);
		create_close(fd, 4 << 20, 4 << 20);
	}

	igt_describe("Check that the size is rounded up to whole pages.");
	igt_subtest("create-size-rounded") {
		create_close(fd, 1, 4096);
		create_close(fd, 4095, 4096);
		create_close(fd, 4097, 8192);
	}

	igt_describe("Check that each buffer gets its own handle.");
	igt_subtest("create-unique-handles") {
		uint32_t handles[16];

		for (int i = 0; i < 16; i++) {
			handles[i] = weft_bo_create(fd, 4096);
			for (int j = 0; j < i; j++)
				igt_assert_neq_u32(handles[i], handles[j]);
		}
		for (int i = 0; i < 16; i++)
			gem_close(fd, handles[i]);
	}

	igt_describe("Map a new buffer: it is zeroed, and what the CPU writes "
		     "through one mapping it reads through another.");
	igt_subtest("mmap-write-read") {
		mmap_write_read(fd, 4096);
		mmap_write_read(fd, 64 * 4096);
	}

	igt_describe("Check that two buffers do not share their mmap offset or "
		     "their memory.");
	igt_subtest("mmap-separate") {
		uint32_t a = weft_bo_create(fd, 4096);
		uint32_t b = weft_bo_create(fd, 4096);
		uint32_t *ma, *mb;

		igt_assert_neq_u64(weft_bo_mmap_offset(fd, a),
				   weft_bo_mmap_offset(fd, b));
		ma = weft_bo_mmap(fd, a, 4096, PROT_READ | PROT_WRITE);
		mb = weft_bo_mmap(fd, b, 4096, PROT_READ | PROT_WRITE);
		ma[0] = 0x11111111;
		mb[0] = 0x22222222;
		igt_assert_eq_u32(ma[0], 0x11111111);
		igt_assert_eq_u32(mb[0], 0x22222222);
		munmap(ma, 4096);
		munmap(mb, 4096);
		gem_close(fd, a);
		gem_close(fd, b);
	}

	igt_describe("Check that a mapping stays valid after the handle is "
		     "closed.");
	igt_subtest("mmap-after-close") {
		uint32_t handle = weft_bo_create(fd, 4096);
		uint32_t *map = weft_bo_mmap(fd, handle, 4096,
					     PROT_READ | PROT_WRITE);

		gem_close(fd, handle);
		map[0] = 0xdeadbeef;
		igt_assert_eq_u32(map[0], 0xdeadbeef);
		munmap(map, 4096);
	}

	igt_describe("Make sure a zero-sized buffer is rejected.");
	igt_subtest("bad-size-zero") {
		struct drm_weft_bo_create create = { .size = 0 };

		do_ioctl_err(fd, DRM_IOCTL_WEFT_BO_CREATE, &create, EINVAL);
	}

	igt_describe("Make sure a size that overflows when rounded up to pages "
		     "is rejected.");
	igt_subtest("bad-size-overflow") {
		struct drm_weft_bo_create create = { .size = ~0ull };

		do_ioctl_err(fd, DRM_IOCTL_WEFT_BO_CREATE, &create, EINVAL);
		create.size = ~0ull - 4094;
		do_ioctl_err(fd, DRM_IOCTL_WEFT_BO_CREATE, &create, EINVAL);
	}

	igt_describe("Make sure unknown creation flags are rejected.");
	igt_subtest("bad-flags") {
		struct drm_weft_bo_create create = { .size = 4096 };

		for (int bit = 0; bit < 32; bit++) {
			create.flags = 1u << bit;
			do_ioctl_err(fd, DRM_IOCTL_WEFT_BO_CREATE, &create,
				     EINVAL);
		}
	}

	igt_describe("Make sure a nonzero pad in the mmap-offset request is "
		     "rejected.");
	igt_subtest("bad-pad") {
		struct drm_weft_bo_mmap_offset arg = {
			.handle = weft_bo_create(fd, 4096),
			.pad = 1,
		};

		do_ioctl_err(fd, DRM_IOCTL_WEFT_BO_MMAP_OFFSET, &arg, EINVAL);
		arg.pad = 0x80000000;
		do_ioctl_err(fd, DRM_IOCTL_WEFT_BO_MMAP_OFFSET, &arg, EINVAL);
		gem_close(fd, arg.handle);
	}

	igt_describe("Make sure mmap-offset of an unknown handle fails.");
	igt_subtest("bad-handle") {
		struct drm_weft_bo_mmap_offset arg = { .handle = 0 };

		do_ioctl_err(fd, DRM_IOCTL_WEFT_BO_MMAP_OFFSET, &arg, ENOENT);
		arg.handle = 0xdeadbeef;
		do_ioctl_err(fd, DRM_IOCTL_WEFT_BO_MMAP_OFFSET, &arg, ENOENT);
	}

	igt_describe("Make sure mmap-offset of a closed handle fails.");
	igt_subtest("bad-handle-closed") {
		struct drm_weft_bo_mmap_offset arg = {
			.handle = weft_bo_create(fd, 4096),
		};

		gem_close(fd, arg.handle);
		do_ioctl_err(fd, DRM_IOCTL_WEFT_BO_MMAP_OFFSET, &arg, ENOENT);
	}

	igt_describe("Make sure a handle is only valid in the file that "
		     "created it.");
	igt_subtest("bad-handle-other-file") {
		int fd2 = drm_open_driver(DRIVER_WEFT);
		struct drm_weft_bo_mmap_offset arg = {
			.handle = weft_bo_create(fd2, 4096),
		};

		/* fd holds no buffer with that handle. */
		do_ioctl_err(fd, DRM_IOCTL_WEFT_BO_MMAP_OFFSET, &arg, ENOENT);
		gem_close(fd2, arg.handle);
		drm_close_driver(fd2);
	}

	igt_describe("Make sure closing a handle twice fails the second time.");
	igt_subtest("bad-close") {
		uint32_t handle = weft_bo_create(fd, 4096);

		gem_close(fd, handle);
		igt_assert_eq(__gem_close(fd, handle), -EINVAL);
		igt_assert_eq(__gem_close(fd, 0xdeadbeef), -EINVAL);
	}

	igt_describe("Make sure mmap() at an offset that no buffer owns "
		     "fails.");
	igt_subtest("bad-mmap-offset") {
		uint32_t handle = weft_bo_create(fd, 4096);
		uint64_t offset = weft_bo_mmap_offset(fd, handle);
		void *ptr;

		gem_close(fd, handle);
		ptr = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, offset);
		igt_assert(ptr == MAP_FAILED);
		igt_assert_eq(errno, EINVAL);
		errno = 0;
	}

	igt_fixture
		drm_close_driver(fd);
}
