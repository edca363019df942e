// SPDX-License-Identifier: MIT
/*
 * Copyright (C) 2026 The Weft authors
 *
 * Sync objects: binary and timeline in- and out-syncs of SUBMIT, and of
 * VM_BIND (uAPI 1.1), synchronous and asynchronous
 * (DRM_WEFT_VM_BIND_ASYNC).
 *
 * Error codes this test expects (weft.ko must match):
 *  - VM_BIND unknown flags:                              -EINVAL
 *  - VM_BIND in/out sync unknown flags, nonzero point
 *    on a binary syncobj, stride too small:              -EINVAL
 *  - VM_BIND in/out sync unknown handle:                 -ENOENT
 *  - VM_BIND in-sync binary syncobj without a fence:     -EINVAL
 *  - asynchronous map over an existing mapping: the
 *    out-sync signals -EBUSY.
 */
#include <sys/mman.h>
#include <xf86drm.h>

#include "igt.h"
#include "igt_weft.h"

IGT_TEST_DESCRIPTION("Tests for Weft sync objects: timelines, and "
		     "synchronous and asynchronous VM_BIND.");

#define PAGE WEFT_PAGE_SIZE

static struct drm_weft_device_info info;

static int submit_syncs(int fd, uint32_t queue, uint64_t va, uint32_t size,
			struct drm_weft_sync *in, uint32_t nin,
			struct drm_weft_sync *out, uint32_t nout)
{
	struct drm_weft_job job = {
		.batch_va = va,
		.batch_size = size,
		.in_syncs = DRM_WEFT_OBJ_ARRAY(nin, in),
		.out_syncs = DRM_WEFT_OBJ_ARRAY(nout, out),
	};
	struct drm_weft_submit submit = {
		.queue_id = queue,
		.jobs = DRM_WEFT_OBJ_ARRAY(1, &job),
	};

	return __weft_submit(fd, &submit);
}

static int bind(int fd, uint32_t vm, uint32_t flags,
		struct drm_weft_vm_bind_op *op, uint32_t nops,
		struct drm_weft_sync *in, uint32_t nin,
		struct drm_weft_sync *out, uint32_t nout)
{
	struct drm_weft_vm_bind b = {
		.vm_id = vm,
		.flags = flags,
		.ops = DRM_WEFT_OBJ_ARRAY(nops, op),
		.in_syncs = DRM_WEFT_OBJ_ARRAY(nin, in),
		.out_syncs = DRM_WEFT_OBJ_ARRAY(nout, out),
	};

	return __weft_vm_bind(fd, &b);
}

static int timeline_wait(int fd, uint32_t handle, uint64_t point)
{
	int ret = drmSyncobjTimelineWait(fd, &handle, &point, 1, INT64_MAX,
					 DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
					 NULL);

	return ret ? -errno : 0;
}

static uint32_t syncobj(int fd)
{
	uint32_t h;

	igt_assert_eq(drmSyncobjCreate(fd, 0, &h), 0);
	return h;
}

/* A new unmapped page and an op mapping it at test slot 4. */
static struct weft_bo *map_op_new(int fd, struct drm_weft_vm_bind_op *op)
{
	struct weft_bo *bo = weft_bo_new(fd, PAGE, 0, 0, 0);

	*op = (struct drm_weft_vm_bind_op) {
		.op = DRM_WEFT_VM_BIND_OP_MAP,
		.handle = bo->handle,
		.va = weft_test_va(&info, 4),
		.size = PAGE,
	};
	return bo;
}

/* Bad in-syncs (@out false) or out-syncs of VM_BIND, both modes. */
static void bad_vm_bind_syncs(int fd, uint32_t vm, bool out)
{
	for (uint32_t async = 0; async <= DRM_WEFT_VM_BIND_ASYNC;
	     async += DRM_WEFT_VM_BIND_ASYNC) {
		struct drm_weft_sync s = { .handle = syncobj(fd) };
		struct drm_weft_vm_bind b = { .vm_id = vm, .flags = async };
		struct drm_weft_obj_array *arr = out ? &b.out_syncs :
						 &b.in_syncs;

		*arr = (struct drm_weft_obj_array)DRM_WEFT_OBJ_ARRAY(1, &s);
		s.flags = 2;
		igt_assert_eq(__weft_vm_bind(fd, &b), -EINVAL);
		s.flags = 0;
		s.point = 1;
		igt_assert_eq(__weft_vm_bind(fd, &b), -EINVAL);
		s.point = 0;
		/* In: a binary syncobj without a fence. Out: valid. */
		igt_assert_eq(__weft_vm_bind(fd, &b), out ? 0 : -EINVAL);
		drmSyncobjDestroy(fd, s.handle);
		igt_assert_eq(__weft_vm_bind(fd, &b), -ENOENT);
		arr->stride = 4;
		igt_assert_eq(__weft_vm_bind(fd, &b), -EINVAL);
		arr->stride = sizeof(s);
		arr->array = 8;
		igt_assert_eq(__weft_vm_bind(fd, &b), -EFAULT);
	}
}

igt_main
{
	struct weft_test_ctx c;
	int fd = -1;

	igt_fixture {
		int major, minor;

		fd = drm_open_driver(DRIVER_WEFT);
		weft_query_device_info(fd, &info);
		igt_assert_eq(weft_drm_version(fd, &major, &minor), 0);
		igt_require_f(major == 1 && minor >= 1, "needs uAPI 1.1\n");
		weft_test_ctx_init(fd, &info, &c);
	}

	igt_describe("Check that a job signals a timeline point.");
	igt_subtest("timeline-out-point") {
		struct drm_weft_sync out = { .flags = DRM_WEFT_SYNC_TIMELINE,
					     .point = 7 };
		uint32_t size;
		uint64_t value, va = weft_test_write_batch(&c, 0, c.data->va, 1,
							   &size);

		out.handle = syncobj(fd);
		igt_assert_eq(submit_syncs(fd, c.queue, va, size, NULL, 0,
					   &out, 1), 0);
		igt_assert_eq(timeline_wait(fd, out.handle, 7), 0);
		igt_assert_eq(drmSyncobjQuery(fd, &out.handle, &value, 1), 0);
		igt_assert_eq_u64(value, 7);
		drmSyncobjDestroy(fd, out.handle);
	}

	igt_describe("Check that jobs chain through timeline points across "
		     "queues: each waits for the point the previous signals.");
	igt_subtest("timeline-chain") {
		uint32_t q2 = weft_queue_create(fd, c.vm,
						DRM_WEFT_QUEUE_PRIORITY_LOW);
		uint32_t t = syncobj(fd), size;
		uint64_t *d = c.data->map;

		for (uint64_t i = 0; i < 8; i++) {
			struct drm_weft_sync in = {
				DRM_WEFT_SYNC_TIMELINE, t, i
			};
			struct drm_weft_sync out = { DRM_WEFT_SYNC_TIMELINE, t,
						     i + 1 };
			uint64_t va = weft_test_write_batch(&c, i % 4,
							    c.data->va, i + 1,
							    &size);

			igt_assert_eq(submit_syncs(fd, i & 1 ? q2 : c.queue, va,
						   size, i ? &in : NULL, !!i,
						   &out, 1), 0);
			igt_assert_eq(timeline_wait(fd, t, i + 1), 0);
			igt_assert_eq_u64(d[0], i + 1);
		}
		drmSyncobjDestroy(fd, t);
		weft_queue_destroy(fd, q2);
	}

	igt_describe("Check that a job waits for its binary in-sync, "
		     "signalled from the CPU.");
	igt_subtest("in-sync-cpu-signal") {
		struct drm_weft_sync in = {}, out = {};
		uint32_t size;
		uint64_t va = weft_test_write_batch(&c, 0, c.data->va, 42,
						    &size);
		uint64_t point = 1;

		/* A timeline point that is not there yet, then a signal. */
		in.flags = DRM_WEFT_SYNC_TIMELINE;
		in.handle = syncobj(fd);
		in.point = 1;
		out.handle = syncobj(fd);
		igt_assert_eq(drmSyncobjTimelineSignal(fd, &in.handle, &point,
						       1), 0);
		igt_assert_eq(submit_syncs(fd, c.queue, va, size, &in, 1,
					   &out, 1), 0);
		igt_assert_eq(weft_syncobj_wait(fd, out.handle,
						WEFT_JOB_TIMEOUT_NS), 0);
		igt_assert_eq_u64(*(uint64_t *)c.data->map, 42);
		drmSyncobjDestroy(fd, in.handle);
		drmSyncobjDestroy(fd, out.handle);
	}

	igt_describe("Check that an asynchronous map signals its out-sync "
		     "and a job waiting on it sees the mapping.");
	igt_subtest("vm-bind-async-map") {
		struct drm_weft_vm_bind_op op;
		struct weft_bo *bo = map_op_new(fd, &op);
		struct drm_weft_sync s = { .handle = syncobj(fd) };
		uint32_t size;
		uint64_t va = weft_test_write_batch(&c, 0, op.va + 8, 0x600d,
						    &size);

		memset(bo->map, 0, PAGE);
		igt_assert_eq(bind(fd, c.vm, DRM_WEFT_VM_BIND_ASYNC, &op, 1,
				   NULL, 0, &s, 1), 0);
		igt_assert_eq(submit_syncs(fd, c.queue, va, size, &s, 1, NULL,
					   0), 0);
		igt_assert_eq(weft_syncobj_wait_status(fd, s.handle), 1);
		/* SUBMIT after an asynchronous bind waits for it anyway. */
		igt_assert_eq(weft_submit_and_wait(fd, c.queue, va, size), 0);
		igt_assert_eq_u64(((uint64_t *)bo->map)[1], 0x600d);
		weft_vm_bind_unmap(fd, c.vm, op.va, PAGE);
		drmSyncobjDestroy(fd, s.handle);
		weft_bo_free(fd, bo);
	}

	igt_describe("Check that an asynchronous bind waits for its in-sync, "
		     "the out-sync of a long job still running.");
	igt_subtest("vm-bind-async-in-sync") {
		const uint32_t long_size = 16u << 20;
		struct weft_bo *bo = weft_bo_new(fd, PAGE, 0, 0, 0);
		struct weft_bo *lb = weft_bo_new(fd, long_size, c.vm,
						 weft_test_va(&info, 5),
					DRM_WEFT_VM_BIND_OP_MAP_READONLY);
		struct drm_weft_vm_bind_op op = {
			.op = DRM_WEFT_VM_BIND_OP_MAP,
			.handle = bo->handle,
			.va = weft_test_va(&info, 4),
			.size = PAGE,
		};
		struct drm_weft_sync in = {}, out = {};
		uint32_t *cs = lb->map;
		int before;

		/* 4 M one-dword NOPs: a job long enough to watch. */
		for (uint32_t i = 0; i < long_size / 4 - 1; i++)
			cs[i] = WEFT_BATCH_HEADER(WEFT_BATCH_NOP, 1);
		cs[long_size / 4 - 1] = WEFT_BATCH_HEADER(WEFT_BATCH_END, 1);
		in.handle = weft_submit_nowait(fd, c.queue, lb->va, long_size);
		out.handle = syncobj(fd);
		igt_assert_eq(bind(fd, c.vm, DRM_WEFT_VM_BIND_ASYNC, &op, 1,
				   &in, 1, &out, 1), 0);
		before = weft_syncobj_status(fd, in.handle) == 0 ?
			 weft_syncobj_status(fd, out.handle) : -1;
		igt_assert_eq(weft_syncobj_wait(fd, out.handle,
						WEFT_JOB_TIMEOUT_NS), 0);
		igt_assert_eq(weft_syncobj_status(fd, in.handle), 1);
		igt_assert_eq(weft_syncobj_status(fd, out.handle), 1);
		/* The bind was pending while the job ran (if we saw it run). */
		igt_assert(before == 0 || before == -1);
		weft_vm_bind_unmap(fd, c.vm, op.va, PAGE);
		drmSyncobjDestroy(fd, in.handle);
		drmSyncobjDestroy(fd, out.handle);
		weft_bo_free(fd, lb);
		weft_bo_free(fd, bo);
	}

	igt_describe("Check that an asynchronous map over an existing "
		     "mapping signals -EBUSY and an asynchronous unmap works.");
	igt_subtest("vm-bind-async-overlap-unmap") {
		struct drm_weft_vm_bind_op op = {
			.op = DRM_WEFT_VM_BIND_OP_MAP,
			.handle = c.data->handle,
			.va = c.data->va,
			.size = PAGE,
		};
		struct drm_weft_sync s = { .handle = syncobj(fd) };

		igt_assert_eq(bind(fd, c.vm, DRM_WEFT_VM_BIND_ASYNC, &op, 1,
				   NULL, 0, &s, 1), 0);
		igt_assert_eq(weft_syncobj_wait_status(fd, s.handle), -EBUSY);

		op = (struct drm_weft_vm_bind_op) {
			.op = DRM_WEFT_VM_BIND_OP_UNMAP,
			.va = c.data->va,
			.size = PAGE,
		};
		igt_assert_eq(bind(fd, c.vm, DRM_WEFT_VM_BIND_ASYNC, &op, 1,
				   NULL, 0, &s, 1), 0);
		igt_assert_eq(weft_syncobj_wait_status(fd, s.handle), 1);
		/* Mapped again synchronously for ctx_fini. */
		weft_vm_bind_map(fd, c.vm, c.data->handle, 0, c.data->va, PAGE,
				 0);
		drmSyncobjDestroy(fd, s.handle);
	}

	igt_describe("Check that a synchronous bind signals its out-sync "
		     "before returning.");
	igt_subtest("vm-bind-sync-out-sync") {
		struct drm_weft_vm_bind_op op;
		struct weft_bo *bo = map_op_new(fd, &op);
		struct drm_weft_sync s = { .handle = syncobj(fd) };

		igt_assert_eq(bind(fd, c.vm, 0, &op, 1, NULL, 0, &s, 1), 0);
		igt_assert_eq(weft_syncobj_status(fd, s.handle), 1);
		weft_vm_bind_unmap(fd, c.vm, op.va, PAGE);
		drmSyncobjDestroy(fd, s.handle);
		weft_bo_free(fd, bo);
	}

	igt_describe("Check that an asynchronous unmap waits for the jobs "
		     "already submitted to the VM.");
	igt_subtest("vm-bind-async-unmap-waits") {
		struct weft_bo *bo = weft_bo_new(fd, PAGE, c.vm,
						 weft_test_va(&info, 4), 0);
		struct drm_weft_vm_bind_op op = {
			.op = DRM_WEFT_VM_BIND_OP_UNMAP,
			.va = bo->va,
			.size = PAGE,
		};
		struct drm_weft_sync s = { .handle = syncobj(fd) };
		uint32_t size, job;
		uint64_t va = weft_test_write_batch(&c, 0, bo->va, 0x600d,
						    &size);

		memset(bo->map, 0, PAGE);
		job = weft_submit_nowait(fd, c.queue, va, size);
		igt_assert_eq(bind(fd, c.vm, DRM_WEFT_VM_BIND_ASYNC, &op, 1,
				   NULL, 0, &s, 1), 0);
		igt_assert_eq(weft_syncobj_wait(fd, s.handle,
						WEFT_JOB_TIMEOUT_NS), 0);
		/* The job ran, on the mapping, before the unmap. */
		igt_assert_eq(weft_syncobj_status(fd, job), 1);
		igt_assert_eq_u64(*(uint64_t *)bo->map, 0x600d);
		bo->vm_id = 0;
		weft_bo_free(fd, bo);
		drmSyncobjDestroy(fd, s.handle);
		drmSyncobjDestroy(fd, job);
	}

	igt_describe("Make sure unknown VM_BIND flags are rejected.");
	igt_subtest("bad-vm-bind-flags") {
		for (int bit = 1; bit < 32; bit++)
			igt_assert_eq(bind(fd, c.vm, 1u << bit, NULL, 0, NULL,
					   0, NULL, 0), -EINVAL);
	}

	igt_describe("Check that a VM_BIND argument of uAPI 1.0's size (no "
		     "in_syncs or out_syncs) still binds synchronously.");
	igt_subtest("vm-bind-v1-0-struct") {
		/* struct drm_weft_vm_bind as uAPI 1.0 had it. */
		struct vm_bind_v1_0 {
			uint32_t vm_id;
			uint32_t flags;
			struct drm_weft_obj_array ops;
		};
		struct drm_weft_vm_bind_op op;
		struct weft_bo *bo = map_op_new(fd, &op);
		struct vm_bind_v1_0 b = {
			.vm_id = c.vm,
			.ops = DRM_WEFT_OBJ_ARRAY(1, &op),
		};
		unsigned long req =
			DRM_IOWR(DRM_COMMAND_BASE + DRM_WEFT_VM_BIND,
				 struct vm_bind_v1_0);
		uint32_t size;
		uint64_t va = weft_test_write_batch(&c, 0, op.va, 0x600d,
						    &size);

		igt_assert_eq(sizeof(b), 24);
		do_ioctl(fd, req, &b);
		igt_assert_eq(weft_submit_and_wait(fd, c.queue, va, size), 0);
		igt_assert_eq_u64(*(uint64_t *)bo->map, 0x600d);
		op = (struct drm_weft_vm_bind_op) {
			.op = DRM_WEFT_VM_BIND_OP_UNMAP,
			.va = op.va,
			.size = PAGE,
		};
		do_ioctl(fd, req, &b);
		/* Unmapped: mapping it again works. */
		weft_vm_bind_map(fd, c.vm, bo->handle, 0, op.va, PAGE, 0);
		weft_vm_bind_unmap(fd, c.vm, op.va, PAGE);
		weft_bo_free(fd, bo);
	}

	igt_describe("Check that an asynchronous bind with no operation is a "
		     "barrier: its out-sync signals after its in-sync.");
	igt_subtest("vm-bind-async-empty") {
		struct drm_weft_sync in = { DRM_WEFT_SYNC_TIMELINE, 0, 3 };
		struct drm_weft_sync out = { DRM_WEFT_SYNC_TIMELINE, 0, 4 };
		uint64_t point = 3;

		in.handle = out.handle = syncobj(fd);
		igt_assert_eq(drmSyncobjTimelineSignal(fd, &in.handle, &point,
						       1), 0);
		igt_assert_eq(bind(fd, c.vm, DRM_WEFT_VM_BIND_ASYNC, NULL, 0,
				   &in, 1, &out, 1), 0);
		igt_assert_eq(timeline_wait(fd, out.handle, 4), 0);
		drmSyncobjDestroy(fd, in.handle);
	}

	igt_describe("Check that asynchronous binds of a VM apply in order: "
		     "map, unmap, map again at the same address, from another "
		     "buffer offset (a remap).");
	igt_subtest("vm-bind-async-ordered") {
		struct weft_bo *bo = weft_bo_new(fd, 2 * PAGE, 0, 0, 0);
		uint64_t va0 = weft_test_va(&info, 4);
		struct drm_weft_vm_bind_op ops[3] = {
			{ .op = DRM_WEFT_VM_BIND_OP_MAP, .handle = bo->handle,
			  .va = va0, .size = 2 * PAGE },
			{ .op = DRM_WEFT_VM_BIND_OP_UNMAP, .va = va0,
			  .size = PAGE },
			{ .op = DRM_WEFT_VM_BIND_OP_MAP, .handle = bo->handle,
			  .bo_offset = PAGE, .va = va0, .size = PAGE },
		};
		struct drm_weft_sync s = { .handle = syncobj(fd) };
		uint32_t size;
		uint64_t va = weft_test_write_batch(&c, 0, va0, 0x600d, &size);

		memset(bo->map, 0, 2 * PAGE);
		/* Three separate asynchronous binds, then one job. */
		for (int i = 0; i < 3; i++)
			igt_assert_eq(bind(fd, c.vm, DRM_WEFT_VM_BIND_ASYNC,
					   &ops[i], 1, NULL, 0,
					   i == 2 ? &s : NULL, i == 2), 0);
		igt_assert_eq(weft_submit_and_wait(fd, c.queue, va, size), 0);
		igt_assert_eq(weft_syncobj_status(fd, s.handle), 1);
		/* va0 now maps the buffer's second page. */
		igt_assert_eq_u64(((uint64_t *)bo->map)[0], 0);
		igt_assert_eq_u64(((uint64_t *)bo->map)[PAGE / 8], 0x600d);
		weft_vm_bind_unmap(fd, c.vm, va0, 2 * PAGE);
		drmSyncobjDestroy(fd, s.handle);
		weft_bo_free(fd, bo);
	}

	igt_describe("Check that a SUBMIT on a banned queue fails with "
		     "-ECANCELED, even with no job.");
	igt_subtest("bad-submit-banned-queue") {
		uint32_t q = weft_queue_create(fd, c.vm,
					       DRM_WEFT_QUEUE_PRIORITY_NORMAL);
		struct drm_weft_submit submit = { .queue_id = q };
		uint32_t size;
		uint64_t unmapped = weft_test_va(&info, 6);
		uint64_t va = weft_test_write_batch(&c, 0, unmapped, 1,
					  &size);

		igt_assert_eq(weft_submit_and_wait(fd, q, va, size), -EFAULT);
		do_ioctl_err(fd, DRM_IOCTL_WEFT_SUBMIT, &submit, ECANCELED);
		weft_assert_queue_banned(fd, q);
		weft_queue_destroy(fd, q);
	}

	for (int dir = 0; dir < 2; dir++) {
		igt_describe("Make sure bad VM_BIND in- or out-syncs are "
			     "rejected, synchronous and asynchronous: unknown "
			     "flags, a point on a binary syncobj, an unknown "
			     "handle, a small stride, a bad pointer and (in) no "
			     "fence.");
		igt_subtest_f("bad-vm-bind-%s-syncs", dir ? "out" : "in")
			bad_vm_bind_syncs(fd, c.vm, dir);
	}

	igt_fixture {
		weft_test_ctx_fini(fd, &c);
		drm_close_driver(fd);
	}
}
