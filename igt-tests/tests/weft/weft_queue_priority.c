// SPDX-License-Identifier: MIT
/*
 * Copyright (C) 2026 The Weft authors
 *
 * Queue priorities. LOW and NORMAL are open to all; HIGH needs
 * CAP_SYS_NICE (-EACCES otherwise); an unknown priority is -EINVAL. Each
 * priority has its own hardware queue, high served first by the device,
 * so a high-priority job is not stuck behind a long low-priority one.
 */
#include <linux/capability.h>
#include <sys/syscall.h>
#include <xf86drm.h>

#include "igt.h"
#include "igt_weft.h"

IGT_TEST_DESCRIPTION("Tests for Weft queue priorities.");

#define PAGE WEFT_PAGE_SIZE
#define LONG_SIZE (16u << 20)

static struct drm_weft_device_info info;

/* Drops every capability of the calling process (CAP_SYS_NICE included). */
static void drop_caps(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};

	igt_assert_eq(syscall(SYS_capset, &hdr, data), 0);
}

igt_main
{
	uint32_t vm = 0;
	int fd = -1;

	igt_fixture {
		fd = drm_open_driver(DRIVER_WEFT);
		weft_query_device_info(fd, &info);
		vm = weft_vm_create(fd);
	}

	igt_describe("Check that a queue of every priority runs jobs.");
	igt_subtest("all-priorities-run") {
		uint32_t max = geteuid() == 0 ? DRM_WEFT_QUEUE_PRIORITY_HIGH :
			       DRM_WEFT_QUEUE_PRIORITY_NORMAL;
		struct weft_bo *b = weft_bo_new(fd, 2 * PAGE, vm,
						weft_test_va(&info, 0), 0);
		struct weft_batch batch;

		for (uint32_t p = 0; p <= max; p++) {
			uint32_t q = weft_queue_create(fd, vm, p);

			weft_batch_init(&batch, b->map, PAGE);
			weft_batch_write_data(&batch, b->va + PAGE, p + 1);
			weft_batch_end(&batch);
			igt_assert_eq(weft_submit_and_wait(fd, q, b->va,
						weft_batch_size(&batch)), 0);
			igt_assert_eq_u64(*(uint64_t *)((char *)b->map + PAGE),
					  p + 1);
			weft_queue_destroy(fd, q);
		}
		weft_bo_free(fd, b);
	}

	igt_describe("Check that an unknown priority is rejected.");
	igt_subtest("bad-priority") {
		struct drm_weft_queue_create c = { .vm_id = vm };

		for (uint32_t p = DRM_WEFT_QUEUE_PRIORITY_HIGH + 1; p < 40;
		     p++) {
			c.priority = p;
			igt_assert_eq(__weft_queue_create(fd, &c), -EINVAL);
		}
		c.priority = 0xffffffffu;
		igt_assert_eq(__weft_queue_create(fd, &c), -EINVAL);
	}

	igt_describe("Check that HIGH priority needs CAP_SYS_NICE: a process "
		     "without capabilities gets -EACCES, LOW and NORMAL work.");
	igt_subtest("high-needs-cap-sys-nice") {
		igt_require(geteuid() == 0);
		igt_fork(child, 1) {
			struct drm_weft_queue_create c = {
				.vm_id = vm,
				.priority = DRM_WEFT_QUEUE_PRIORITY_HIGH,
			};

			drop_caps();
			igt_assert_eq(__weft_queue_create(fd, &c), -EACCES);
			c.priority = DRM_WEFT_QUEUE_PRIORITY_NORMAL;
			igt_assert_eq(__weft_queue_create(fd, &c), 0);
			weft_queue_destroy(fd, c.id);
			c.priority = DRM_WEFT_QUEUE_PRIORITY_LOW;
			igt_assert_eq(__weft_queue_create(fd, &c), 0);
			weft_queue_destroy(fd, c.id);
		}
		igt_waitchildren();
	}

	igt_describe("Check that a short high-priority job completes while a "
		     "long low-priority job still runs.");
	igt_subtest("high-overtakes-low") {
		struct weft_bo *lb, *hb;
		struct weft_batch batch;
		uint32_t low, high, ls, hs;
		uint32_t *cs;
		int lstat;

		igt_require(geteuid() == 0);
		igt_require(info.num_queues >= 2);
		low = weft_queue_create(fd, vm, DRM_WEFT_QUEUE_PRIORITY_LOW);
		high = weft_queue_create(fd, vm, DRM_WEFT_QUEUE_PRIORITY_HIGH);

		/* 4 M one-dword NOPs: long for the command streamer. */
		lb = weft_bo_new(fd, LONG_SIZE, vm, weft_test_va(&info, 2),
				 DRM_WEFT_VM_BIND_OP_MAP_READONLY);
		cs = lb->map;
		for (uint32_t i = 0; i < LONG_SIZE / 4 - 1; i++)
			cs[i] = WEFT_BATCH_HEADER(WEFT_BATCH_NOP, 1);
		cs[LONG_SIZE / 4 - 1] = WEFT_BATCH_HEADER(WEFT_BATCH_END, 1);

		hb = weft_bo_new(fd, 2 * PAGE, vm, weft_test_va(&info, 0), 0);
		weft_batch_init(&batch, hb->map, PAGE);
		weft_batch_write_data(&batch, hb->va + PAGE, 1);
		weft_batch_end(&batch);

		ls = weft_submit_nowait(fd, low, lb->va, LONG_SIZE);
		usleep(10000);
		hs = weft_submit_nowait(fd, high, hb->va,
					weft_batch_size(&batch));
		igt_assert_eq(weft_syncobj_wait_status(fd, hs), 1);
		lstat = weft_syncobj_status(fd, ls);
		igt_info("low-priority job when the high one completed: %s\n",
			 lstat == 0 ? "still running" : "done");
		igt_assert_eq(lstat, 0);
		igt_assert_eq(weft_syncobj_wait_status(fd, ls), 1);

		drmSyncobjDestroy(fd, ls);
		drmSyncobjDestroy(fd, hs);
		weft_queue_destroy(fd, low);
		weft_queue_destroy(fd, high);
		weft_bo_free(fd, hb);
		weft_bo_free(fd, lb);
	}

	igt_fixture {
		weft_vm_destroy(fd, vm);
		drm_close_driver(fd);
	}
}
