// SPDX-License-Identifier: MIT
/*
 * Copyright (C) 2026 The Weft authors
 *
 * DRM_IOCTL_WEFT_QUERY.
 *
 * Error codes this test expects (weft.ko must match):
 *  - unknown query type:             -EINVAL
 *  - result pointer not writable:    -EFAULT
 * The query struct has no pad field. A size of 0 with a pointer copies
 * nothing and still writes back the kernel's size. simd_widths is checked
 * as 0x38 (bit n means width 1 << n), as the uAPI header now says; 0x118
 * was a typo.
 */
#include "igt.h"
#include "igt_weft.h"

IGT_TEST_DESCRIPTION("Tests for the Weft device query ioctl.");

#define SENTINEL 0xa5

static void query_raw(int fd, void *buf, uint32_t size, uint32_t *size_out)
{
	struct drm_weft_query query = {
		.type = DRM_WEFT_QUERY_DEVICE_INFO,
		.size = size,
		.pointer = to_user_pointer(buf),
	};

	do_ioctl(fd, DRM_IOCTL_WEFT_QUERY, &query);
	*size_out = query.size;
}

static void check_device_info(int fd)
{
	struct drm_weft_device_info info;

	weft_query_device_info(fd, &info);

	igt_info("signature %#x hw_version %#x simd_widths %#x max_wg_size %u "
		 "slm_size %u va_bits %u queues %u cores %u "
		 "user_va [%#llx, %#llx)\n",
		 info.signature, info.hw_version, info.simd_widths,
		 info.max_wg_size, info.slm_size, info.va_bits,
		 info.num_queues, info.num_cores,
		 (unsigned long long)info.user_va_start,
		 (unsigned long long)info.user_va_end);

	igt_assert_eq_u32(info.signature, WEFT_SIGNATURE_WEFT);
	igt_assert_eq_u32(info.hw_version >> 16, 1);
	/* Bit n means SIMD width 1 << n: 8, 16 and 32 give 0x38. */
	igt_assert_eq_u32(info.simd_widths, 8 | 16 | 32);
	igt_assert_lte_u64(32, info.max_wg_size);
	igt_assert_lte_u64(info.max_wg_size, 65536);
	igt_assert_lt_u64(0, info.slm_size);
	igt_assert_eq_u32(info.va_bits, 48);
	igt_assert_lte_u64(1, info.num_queues);
	igt_assert_lte_u64(info.num_queues, 256);
	igt_assert_lte_u64(1, info.num_cores);
	igt_assert_eq_u64(info.user_va_start % WEFT_PAGE_SIZE, 0);
	igt_assert_eq_u64(info.user_va_end % WEFT_PAGE_SIZE, 0);
	igt_assert_lt_u64(info.user_va_start, info.user_va_end);
	igt_assert_lte_u64(info.user_va_end, 1ull << info.va_bits);
	/* Room for the tests' buffers: at least 256 MiB. */
	igt_assert_lte_u64(256ull << 20, info.user_va_end - info.user_va_start);
}

static void check_size_only(int fd)
{
	struct drm_weft_query query = {
		.type = DRM_WEFT_QUERY_DEVICE_INFO,
	};

	do_ioctl(fd, DRM_IOCTL_WEFT_QUERY, &query);
	igt_assert_eq_u32(query.size, sizeof(struct drm_weft_device_info));
	igt_assert_eq_u64(query.pointer, 0);

	/* A size with a NULL pointer is still only a size query. */
	query.size = 4096;
	do_ioctl(fd, DRM_IOCTL_WEFT_QUERY, &query);
	igt_assert_eq_u32(query.size, sizeof(struct drm_weft_device_info));
}

static void check_short_buffer(int fd, uint32_t size)
{
	struct drm_weft_device_info info;
	uint8_t buf[sizeof(info) + 16];
	uint32_t size_out;

	weft_query_device_info(fd, &info);
	memset(buf, SENTINEL, sizeof(buf));
	query_raw(fd, buf, size, &size_out);
	igt_assert_eq_u32(size_out, sizeof(info));

	/* Exactly @size bytes copied, nothing written past them. */
	igt_assert(memcmp(buf, &info, size) == 0);
	for (uint32_t i = size; i < sizeof(buf); i++)
		igt_assert_f(buf[i] == SENTINEL,
			     "byte %u past a %u-byte buffer written\n", i, size);
}

static void check_large_buffer(int fd)
{
	struct drm_weft_device_info info;
	uint8_t buf[sizeof(info) + 256];
	const uint32_t size = sizeof(info) + 128;
	uint32_t size_out;

	weft_query_device_info(fd, &info);
	memset(buf, SENTINEL, sizeof(buf));
	query_raw(fd, buf, size, &size_out);
	igt_assert_eq_u32(size_out, sizeof(info));

	igt_assert(memcmp(buf, &info, sizeof(info)) == 0);
	for (uint32_t i = sizeof(info); i < size; i++)
		igt_assert_f(buf[i] == 0, "byte %u not zero-filled\n", i);
	for (uint32_t i = size; i < sizeof(buf); i++)
		igt_assert_f(buf[i] == SENTINEL,
			     "byte %u past the buffer written\n", i);
}

igt_main
{
	int fd = -1;

	igt_fixture
		fd = drm_open_driver(DRIVER_WEFT);

	igt_describe("Check the device information: signature, SIMD widths "
		     "and sane limits.");
	igt_subtest("device-info")
		check_device_info(fd);

	igt_describe("Check that a query without a buffer returns the size "
		     "of the result.");
	igt_subtest("size-only")
		check_size_only(fd);

	igt_describe("Check that a buffer shorter than the result receives "
		     "exactly its size and nothing more.");
	igt_subtest("short-buffer") {
		check_short_buffer(fd, 4);
		check_short_buffer(fd, 8);
		check_short_buffer(fd, sizeof(struct drm_weft_device_info) - 8);
	}

	igt_describe("Check that a zero-sized buffer receives nothing and the "
		     "size is still written back.");
	igt_subtest("zero-size")
		check_short_buffer(fd, 0);

	igt_describe("Check that a buffer larger than the result is "
		     "zero-filled past the result.");
	igt_subtest("large-buffer")
		check_large_buffer(fd);

	igt_describe("Check that the same query twice gives the same answer.");
	igt_subtest("stable") {
		struct drm_weft_device_info a, b;

		weft_query_device_info(fd, &a);
		weft_query_device_info(fd, &b);
		igt_assert(memcmp(&a, &b, sizeof(a)) == 0);
	}

	igt_describe("Make sure an unknown query type is rejected.");
	igt_subtest("bad-type") {
		struct drm_weft_device_info info;
		struct drm_weft_query query = {
			.size = sizeof(info),
			.pointer = to_user_pointer(&info),
		};

		query.type = DRM_WEFT_QUERY_DEVICE_INFO + 1;
		do_ioctl_err(fd, DRM_IOCTL_WEFT_QUERY, &query, EINVAL);
		query.type = 0xffffffff;
		do_ioctl_err(fd, DRM_IOCTL_WEFT_QUERY, &query, EINVAL);
		query.pointer = 0;
		do_ioctl_err(fd, DRM_IOCTL_WEFT_QUERY, &query, EINVAL);
	}

	igt_describe("Make sure an unwritable result pointer is rejected.");
	igt_subtest("bad-pointer") {
		struct drm_weft_query query = {
			.type = DRM_WEFT_QUERY_DEVICE_INFO,
			.size = sizeof(struct drm_weft_device_info),
			.pointer = 8,
		};

		do_ioctl_err(fd, DRM_IOCTL_WEFT_QUERY, &query, EFAULT);
	}

	igt_fixture
		drm_close_driver(fd);
}
