// SPDX-License-Identifier: MIT
/*
 * Copyright (C) 2026 The Weft authors
 *
 * GPU page faults: a job touching an unmapped page, writing a read-only
 * page or running code from a page that is not executable signals
 * -EFAULT; its queue is banned (SUBMIT fails with -ECANCELED, its other
 * pending jobs signal -ECANCELED) and every other queue keeps running.
 */
#include <xf86drm.h>

#include "igt.h"
#include "igt_weft.h"

IGT_TEST_DESCRIPTION("Tests for Weft GPU page faults and the ban of the "
		     "faulting queue.");

#define PAGE WEFT_PAGE_SIZE

static struct drm_weft_device_info info;

/* The shared test context plus a read-only page at slot 2. */
struct ctx {
	struct weft_test_ctx t;
	struct weft_bo *ro;
};

static void ctx_init(int fd, struct ctx *c)
{
	weft_test_ctx_init(fd, &info, &c->t);
	c->ro = weft_bo_new(fd, PAGE, c->t.vm, weft_test_va(&info, 2),
			    DRM_WEFT_VM_BIND_OP_MAP_READONLY);
	memset(c->ro->map, 0, PAGE);
}

static void ctx_fini(int fd, struct ctx *c)
{
	weft_bo_free(fd, c->ro);
	weft_test_ctx_fini(fd, &c->t);
}

static uint64_t write_batch(struct ctx *c, unsigned int page, uint64_t va,
			    uint64_t value, uint32_t *size)
{
	return weft_test_write_batch(&c->t, page, va, value, size);
}

static void expect_fault(int fd, struct ctx *c, uint64_t va)
{
	uint32_t size;
	uint64_t batch = write_batch(c, 0, va, 0xbad, &size);

	igt_assert_eq(weft_submit_and_wait(fd, c->t.queue, batch, size),
		      -EFAULT);
	weft_assert_queue_banned(fd, c->t.queue);
}

igt_main
{
	struct ctx c;
	int fd = -1;

	igt_fixture {
		fd = drm_open_driver(DRIVER_WEFT);
		weft_query_device_info(fd, &info);
	}

	igt_describe("Check that a write to an unmapped page faults with "
		     "-EFAULT and bans the queue.");
	igt_subtest("fault-unmapped-write") {
		ctx_init(fd, &c);
		expect_fault(fd, &c, weft_test_va(&info, 5));
		weft_assert_device_alive(fd);
		ctx_fini(fd, &c);
	}

	igt_describe("Check that a write to a read-only page faults and "
		     "leaves the page unchanged.");
	igt_subtest("fault-readonly-write") {
		ctx_init(fd, &c);
		expect_fault(fd, &c, c.ro->va);
		igt_assert_eq_u64(*(uint64_t *)c.ro->map, 0);
		ctx_fini(fd, &c);
	}

	igt_describe("Check that a batch in an unmapped page faults.");
	igt_subtest("fault-unmapped-batch") {
		ctx_init(fd, &c);
		igt_assert_eq(weft_submit_and_wait(fd, c.t.queue,
						   weft_test_va(&info, 6), 64),
			      -EFAULT);
		weft_assert_queue_banned(fd, c.t.queue);
		ctx_fini(fd, &c);
	}

	igt_describe("Check that a write just past the end of a mapping "
		     "faults.");
	igt_subtest("fault-past-mapping") {
		ctx_init(fd, &c);
		expect_fault(fd, &c, c.t.data->va + PAGE);
		ctx_fini(fd, &c);
	}

	igt_describe("Check that the jobs queued behind a faulting job on its "
		     "queue signal -ECANCELED and do not run.");
	igt_subtest("fault-cancels-queue") {
		/*
		 * One SUBMIT queues all four jobs before the first can fault:
		 * with separate SUBMITs the fault may ban the queue first, and
		 * the later SUBMITs fail instead of queueing.
		 */
		struct drm_weft_sync out[4] = {};
		struct drm_weft_job jobs[4] = {};
		struct drm_weft_submit submit = {
			.jobs = DRM_WEFT_OBJ_ARRAY(4, jobs),
		};
		uint32_t size;

		ctx_init(fd, &c);
		submit.queue_id = c.t.queue;
		jobs[0].batch_va = write_batch(&c, 0, weft_test_va(&info, 5), 1,
					       &size);
		jobs[0].batch_size = size;
		jobs[1].batch_va = write_batch(&c, 1, c.t.data->va, 0x600d, &size);
		jobs[1].batch_size = size;
		jobs[3] = jobs[2] = jobs[1];
		for (int i = 0; i < 4; i++) {
			igt_assert_eq(drmSyncobjCreate(fd, 0, &out[i].handle), 0);
			jobs[i].out_syncs = (struct drm_weft_obj_array)
				DRM_WEFT_OBJ_ARRAY(1, &out[i]);
		}
		igt_assert_eq(__weft_submit(fd, &submit), 0);

		igt_assert_eq(weft_syncobj_wait_status(fd, out[0].handle), -EFAULT);
		for (int i = 1; i < 4; i++)
			igt_assert_eq(weft_syncobj_wait_status(fd, out[i].handle),
				      -ECANCELED);
		igt_assert_eq_u64(*(uint64_t *)c.t.data->map, 0);
		for (int i = 0; i < 4; i++)
			drmSyncobjDestroy(fd, out[i].handle);
		ctx_fini(fd, &c);
	}

	igt_describe("Check that another queue on the same VM keeps running "
		     "after a fault, and that a new queue replaces the banned "
		     "one.");
	igt_subtest("fault-other-queue-survives") {
		uint32_t other, size;
		uint64_t va;

		ctx_init(fd, &c);
		other = weft_queue_create(fd, c.t.vm,
					  DRM_WEFT_QUEUE_PRIORITY_NORMAL);
		expect_fault(fd, &c, weft_test_va(&info, 5));
		va = write_batch(&c, 1, c.t.data->va, 0x600d, &size);
		igt_assert_eq(weft_submit_and_wait(fd, other, va, size), 0);
		igt_assert_eq_u64(*(uint64_t *)c.t.data->map, 0x600d);

		weft_queue_destroy(fd, c.t.queue);
		c.t.queue = weft_queue_create(fd, c.t.vm,
					    DRM_WEFT_QUEUE_PRIORITY_NORMAL);
		igt_assert_eq(weft_submit_and_wait(fd, c.t.queue, va, size), 0);
		weft_queue_destroy(fd, other);
		ctx_fini(fd, &c);
	}

	igt_describe("Check that faults on every priority's queue are "
		     "recovered, one after the other.");
	igt_subtest("fault-every-priority") {
		uint32_t prio_max = geteuid() == 0 ?
			DRM_WEFT_QUEUE_PRIORITY_HIGH :
			DRM_WEFT_QUEUE_PRIORITY_NORMAL;

		for (uint32_t p = 0; p <= prio_max; p++) {
			ctx_init(fd, &c);
			weft_queue_destroy(fd, c.t.queue);
			c.t.queue = weft_queue_create(fd, c.t.vm, p);
			expect_fault(fd, &c, weft_test_va(&info, 5));
			ctx_fini(fd, &c);
		}
		weft_assert_device_alive(fd);
	}

	igt_describe("Check that a fault in one process does not disturb "
		     "another process.");
	igt_subtest("fault-other-process") {
		igt_fork(child, 1) {
			int fd2 = drm_open_driver(DRIVER_WEFT);
			struct ctx c2;

			ctx_init(fd2, &c2);
			expect_fault(fd2, &c2, weft_test_va(&info, 5));
			ctx_fini(fd2, &c2);
			drm_close_driver(fd2);
		}
		for (int i = 0; i < 4; i++)
			weft_assert_device_alive(fd);
		igt_waitchildren();
	}

	igt_fixture {
		drm_close_driver(fd);
	}
}
