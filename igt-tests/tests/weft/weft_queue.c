// SPDX-License-Identifier: MIT
/*
 * Copyright (C) 2026 The Weft authors
 *
 * DRM_IOCTL_WEFT_QUEUE_CREATE and DRM_IOCTL_WEFT_QUEUE_DESTROY.
 *
 * Error codes this test expects (weft.ko must match):
 *  - QUEUE_CREATE nonzero flags:                    -EINVAL
 *  - QUEUE_CREATE unknown priority:                 -EINVAL
 *  - QUEUE_CREATE unknown VM id:                    -ENOENT
 *  - QUEUE_CREATE HIGH priority without
 *    CAP_SYS_NICE:                                  -EACCES
 *  - QUEUE_DESTROY nonzero pad:                     -EINVAL
 *  - QUEUE_DESTROY unknown id (also another file's
 *    or already destroyed):                         -ENOENT
 *  - VM_DESTROY while a queue uses the VM:          -EBUSY (uAPI header)
 * Behaviour this test expects: destroying a queue with a job in flight,
 * or closing the file with queues alive, still signals the job's fence
 * (with or without an error) and leaves the device working.
 */
#include <sys/mman.h>
#include <xf86drm.h>

#include "igt.h"
#include "igt_weft.h"

IGT_TEST_DESCRIPTION("Tests for creating and destroying Weft queues.");

#define PAGE WEFT_PAGE_SIZE

static struct drm_weft_device_info info;

static void create_err(int fd, uint32_t vm, uint32_t priority, uint32_t flags,
		       int err)
{
	struct drm_weft_queue_create create = {
		.vm_id = vm,
		.priority = priority,
		.flags = flags,
	};

	do_ioctl_err(fd, DRM_IOCTL_WEFT_QUEUE_CREATE, &create, err);
}

/* Submits a WRITE_DATA job on @queue without waiting; returns its syncobj. */
static uint32_t submit_write(int fd, uint32_t queue, struct weft_bo *batch_bo,
			     uint64_t va, uint64_t value)
{
	struct weft_batch batch;
	struct drm_weft_sync out = {};
	struct drm_weft_job job = {
		.batch_va = batch_bo->va,
		.out_syncs = DRM_WEFT_OBJ_ARRAY(1, &out),
	};
	struct drm_weft_submit submit = {
		.queue_id = queue,
		.jobs = DRM_WEFT_OBJ_ARRAY(1, &job),
	};

	weft_batch_init(&batch, batch_bo->map, batch_bo->size);
	weft_batch_write_data(&batch, va, value);
	weft_batch_end(&batch);
	job.batch_size = weft_batch_size(&batch);

	igt_assert_eq(drmSyncobjCreate(fd, 0, &out.handle), 0);
	igt_assert_eq(__weft_submit(fd, &submit), 0);
	return out.handle;
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

	igt_describe("Create and destroy queues of low and normal priority.");
	igt_subtest("create-destroy") {
		uint32_t low = weft_queue_create(fd, vm,
						 DRM_WEFT_QUEUE_PRIORITY_LOW);
		uint32_t normal = weft_queue_create(fd, vm,
					DRM_WEFT_QUEUE_PRIORITY_NORMAL);

		igt_assert_neq_u32(low, normal);
		weft_queue_destroy(fd, low);
		weft_queue_destroy(fd, normal);
	}

	igt_describe("Create a high-priority queue with CAP_SYS_NICE.");
	igt_subtest("create-high-priority") {
		igt_require(geteuid() == 0);
		weft_queue_destroy(fd, weft_queue_create(fd, vm,
					DRM_WEFT_QUEUE_PRIORITY_HIGH));
	}

	igt_describe("Create more queues than the hardware has; each gets its "
		     "own id.");
	igt_subtest("create-many") {
		uint32_t n = info.num_queues * 2 + 2;
		uint32_t *ids = calloc(n, sizeof(*ids));

		igt_assert(ids);
		for (uint32_t i = 0; i < n; i++) {
			ids[i] = weft_queue_create(fd, vm,
					DRM_WEFT_QUEUE_PRIORITY_NORMAL);
			for (uint32_t j = 0; j < i; j++)
				igt_assert_neq_u32(ids[i], ids[j]);
		}
		for (uint32_t i = 0; i < n; i++)
			weft_queue_destroy(fd, ids[i]);
		free(ids);
	}

	igt_describe("Check that queues in different VMs and in the same VM "
		     "all run their jobs.");
	igt_subtest("queues-run") {
		uint32_t vm2 = weft_vm_create(fd);
		uint32_t queues[3] = {
			weft_queue_create(fd, vm, DRM_WEFT_QUEUE_PRIORITY_LOW),
			weft_queue_create(fd, vm,
					  DRM_WEFT_QUEUE_PRIORITY_NORMAL),
			weft_queue_create(fd, vm2,
					  DRM_WEFT_QUEUE_PRIORITY_NORMAL),
		};
		uint32_t vms[3] = { vm, vm, vm2 };
		struct weft_bo *bos[3];
		uint32_t syncs[3];

		for (int i = 0; i < 3; i++) {
			bos[i] = weft_bo_new(fd, 2 * PAGE, vms[i],
					     weft_test_va(&info, 1 + i), 0);
			memset(bos[i]->map, 0, bos[i]->size);
		}
		for (int i = 0; i < 3; i++)
			syncs[i] = submit_write(fd, queues[i], bos[i],
						bos[i]->va + PAGE, 100 + i);
		for (int i = 0; i < 3; i++) {
			igt_assert_eq(weft_syncobj_wait(fd, syncs[i],
							WEFT_JOB_TIMEOUT_NS),
				      0);
			igt_assert_eq(weft_syncobj_status(fd, syncs[i]), 1);
			igt_assert_eq_u64(*(uint64_t *)((char *)bos[i]->map +
							PAGE), 100 + i);
			drmSyncobjDestroy(fd, syncs[i]);
			weft_queue_destroy(fd, queues[i]);
			weft_bo_free(fd, bos[i]);
		}
		weft_vm_destroy(fd, vm2);
	}

	igt_describe("Check that destroying a queue with a job in flight still "
		     "signals the job's fence.");
	igt_subtest("destroy-busy") {
		uint32_t queue = weft_queue_create(fd, vm,
					DRM_WEFT_QUEUE_PRIORITY_NORMAL);
		struct weft_bo *bo = weft_bo_new(fd, 2 * PAGE, vm,
						 weft_test_va(&info, 1), 0);
		uint32_t sync = submit_write(fd, queue, bo, bo->va + PAGE, 1);

		weft_queue_destroy(fd, queue);
		igt_assert_eq(weft_syncobj_wait(fd, sync, WEFT_JOB_TIMEOUT_NS),
			      0);
		igt_assert_neq(weft_syncobj_status(fd, sync), 0);
		drmSyncobjDestroy(fd, sync);
		weft_bo_free(fd, bo);
		weft_assert_device_alive(fd);
	}

	igt_describe("Check that closing a file with queues and jobs alive "
		     "leaves the device working.");
	igt_subtest("close-busy") {
		int fd2 = drm_open_driver(DRIVER_WEFT);
		uint32_t vm2 = weft_vm_create(fd2);
		uint32_t queue = weft_queue_create(fd2, vm2,
					DRM_WEFT_QUEUE_PRIORITY_NORMAL);
		struct weft_bo *bo = weft_bo_new(fd2, 2 * PAGE, vm2,
						 weft_test_va(&info, 1), 0);

		submit_write(fd2, queue, bo, bo->va + PAGE, 1);
		munmap(bo->map, bo->size);
		free(bo);
		drm_close_driver(fd2);
		weft_assert_device_alive(fd);
	}

	igt_describe("Make sure a VM cannot be destroyed while a queue uses "
		     "it.");
	igt_subtest("bad-vm-destroy-busy") {
		uint32_t vm2 = weft_vm_create(fd);
		uint32_t queue = weft_queue_create(fd, vm2,
					DRM_WEFT_QUEUE_PRIORITY_NORMAL);

		igt_assert_eq(__weft_vm_destroy(fd, vm2), -EBUSY);
		weft_queue_destroy(fd, queue);
		weft_vm_destroy(fd, vm2);
	}

	igt_describe("Make sure a high-priority queue needs CAP_SYS_NICE.");
	igt_subtest("bad-priority-unprivileged") {
		igt_require(geteuid() == 0);
		igt_fork(child, 1) {
			igt_assert_eq(setgid(65534), 0);
			igt_assert_eq(setuid(65534), 0);
			create_err(fd, vm, DRM_WEFT_QUEUE_PRIORITY_HIGH, 0,
				   EACCES);
			/* Lower priorities stay allowed. */
			weft_queue_destroy(fd, weft_queue_create(fd, vm,
					DRM_WEFT_QUEUE_PRIORITY_NORMAL));
		}
		igt_waitchildren();
	}

	igt_describe("Make sure unknown queue creation flags are rejected.");
	igt_subtest("bad-flags") {
		for (int bit = 0; bit < 32; bit++)
			create_err(fd, vm, DRM_WEFT_QUEUE_PRIORITY_NORMAL,
				   1u << bit, EINVAL);
	}

	igt_describe("Make sure an unknown priority is rejected.");
	igt_subtest("bad-priority") {
		create_err(fd, vm, DRM_WEFT_QUEUE_PRIORITY_HIGH + 1, 0, EINVAL);
		create_err(fd, vm, 0x80000000, 0, EINVAL);
		create_err(fd, vm, 0xffffffff, 0, EINVAL);
	}

	igt_describe("Make sure a queue cannot be created in an unknown VM.");
	igt_subtest("bad-vm-id") {
		uint32_t vm2 = weft_vm_create(fd);

		weft_vm_destroy(fd, vm2);
		create_err(fd, 0, DRM_WEFT_QUEUE_PRIORITY_NORMAL, 0, ENOENT);
		create_err(fd, 0xdeadbeef, DRM_WEFT_QUEUE_PRIORITY_NORMAL, 0,
			   ENOENT);
		create_err(fd, vm2, DRM_WEFT_QUEUE_PRIORITY_NORMAL, 0, ENOENT);
	}

	igt_describe("Make sure destroying an unknown queue fails.");
	igt_subtest("bad-destroy-id") {
		uint32_t queue = weft_queue_create(fd, vm,
					DRM_WEFT_QUEUE_PRIORITY_NORMAL);

		igt_assert_eq(__weft_queue_destroy(fd, 0), -ENOENT);
		igt_assert_eq(__weft_queue_destroy(fd, 0xdeadbeef), -ENOENT);
		weft_queue_destroy(fd, queue);
		igt_assert_eq(__weft_queue_destroy(fd, queue), -ENOENT);
	}

	igt_describe("Make sure a nonzero pad in queue destruction is "
		     "rejected.");
	igt_subtest("bad-destroy-pad") {
		struct drm_weft_queue_destroy destroy = {
			.id = weft_queue_create(fd, vm,
					DRM_WEFT_QUEUE_PRIORITY_NORMAL),
			.pad = 1,
		};

		do_ioctl_err(fd, DRM_IOCTL_WEFT_QUEUE_DESTROY, &destroy,
			     EINVAL);
		weft_queue_destroy(fd, destroy.id);
	}

	igt_describe("Make sure a queue id is only valid in the file that "
		     "created it.");
	igt_subtest("bad-queue-other-file") {
		int fd2 = drm_open_driver(DRIVER_WEFT);
		int fd3 = drm_open_driver(DRIVER_WEFT);
		uint32_t vm2 = weft_vm_create(fd2);
		uint32_t queue = weft_queue_create(fd2, vm2,
					DRM_WEFT_QUEUE_PRIORITY_NORMAL);

		/* fd3 has no queue at all. */
		igt_assert_eq(__weft_queue_destroy(fd3, queue), -ENOENT);
		weft_queue_destroy(fd2, queue);
		weft_vm_destroy(fd2, vm2);
		drm_close_driver(fd3);
		drm_close_driver(fd2);
	}

	igt_fixture {
		weft_vm_destroy(fd, vm);
		drm_close_driver(fd);
	}
}
