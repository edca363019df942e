// SPDX-License-Identifier: MIT
/*
 * Copyright (C) 2026 The Weft authors
 *
 * Isolation: a file (another fd of the same process, or another process)
 * cannot reach another file's buffers, VMs or queues by handle, id, mmap
 * offset or GPU address. Unknown ids and handles fail with -ENOENT; a GPU
 * address of another file's VM faults in one's own VM.
 */
#include <sys/mman.h>
#include <xf86drm.h>

#include "igt.h"
#include "igt_weft.h"

IGT_TEST_DESCRIPTION("Tests that Weft files and processes cannot reach "
		     "each other's buffers, VMs and queues.");

#define PAGE WEFT_PAGE_SIZE
#define SECRET 0x5ec4e75ec4e7ull

static struct drm_weft_device_info info;

struct victim {
	uint32_t vm;
	uint32_t queue;
	struct weft_bo *bo;
	uint64_t offset;
};

static void victim_init(int fd, struct victim *v)
{
	v->vm = weft_vm_create(fd);
	v->queue = weft_queue_create(fd, v->vm, DRM_WEFT_QUEUE_PRIORITY_NORMAL);
	v->bo = weft_bo_new(fd, PAGE, v->vm, weft_test_va(&info, 3), 0);
	*(uint64_t *)v->bo->map = SECRET;
	v->offset = weft_bo_mmap_offset(fd, v->bo->handle);
}

/* Everything @fd2 may try with the ids and handles of @v. */
static void attack(int fd2, const struct victim *v)
{
	struct drm_weft_bo_mmap_offset mo = { .handle = v->bo->handle };
	struct drm_weft_vm_bind_op op = {
		.op = DRM_WEFT_VM_BIND_OP_MAP,
		.handle = v->bo->handle,
		.va = weft_test_va(&info, 3),
		.size = PAGE,
	};
	struct drm_weft_queue_create qc = { .vm_id = v->vm };
	struct drm_weft_job job = {
		.batch_va = v->bo->va,
		.batch_size = 4,
	};
	struct drm_weft_submit submit = {
		.queue_id = v->queue,
		.jobs = DRM_WEFT_OBJ_ARRAY(1, &job),
	};
	uint32_t vm2;
	void *ptr;

	/* Before this file has a VM of its own, with the same ids. */
	igt_assert_eq(__weft_bo_mmap_offset(fd2, &mo), -ENOENT);
	igt_assert_eq(__weft_vm_bind_op(fd2, v->vm, &op), -ENOENT);
	igt_assert_eq(__weft_queue_create(fd2, &qc), -ENOENT);
	igt_assert_eq(__weft_submit(fd2, &submit), -ENOENT);
	igt_assert_eq(__weft_queue_destroy(fd2, v->queue), -ENOENT);
	igt_assert_eq(__weft_vm_destroy(fd2, v->vm), -ENOENT);
	igt_assert_eq(__gem_close(fd2, v->bo->handle), -EINVAL);

	/* Its own VM: the victim's handle still names nothing. */
	vm2 = weft_vm_create(fd2);
	igt_assert_eq(__weft_vm_bind_op(fd2, vm2, &op), -ENOENT);

	/* The victim's mmap offset means nothing on this fd. */
	ptr = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd2, v->offset);
	igt_assert(ptr == MAP_FAILED);
	errno = 0;
	weft_vm_destroy(fd2, vm2);
}

/* A job in @fd2's own VM reading the victim's VA faults. */
static void attack_va(int fd2, const struct victim *v)
{
	struct weft_batch batch;
	struct weft_bo *b, *out;
	uint32_t vm2, q2;

	vm2 = weft_vm_create(fd2);
	q2 = weft_queue_create(fd2, vm2, DRM_WEFT_QUEUE_PRIORITY_NORMAL);
	b = weft_bo_new(fd2, PAGE, vm2, weft_test_va(&info, 0),
			DRM_WEFT_VM_BIND_OP_MAP_READONLY);
	out = weft_bo_new(fd2, PAGE, vm2, weft_test_va(&info, 1), 0);
	igt_assert_eq_u64(*(uint64_t *)out->map, 0);

	/* The victim's buffer address: unmapped here. */
	weft_batch_init(&batch, b->map, PAGE);
	weft_batch_write_data(&batch, v->bo->va, 0xbad);
	weft_batch_end(&batch);
	igt_assert_eq(weft_submit_and_wait(fd2, q2, b->va,
					   weft_batch_size(&batch)), -EFAULT);

	weft_queue_destroy(fd2, q2);
	weft_bo_free(fd2, out);
	weft_bo_free(fd2, b);
	weft_vm_destroy(fd2, vm2);
}

igt_main
{
	struct victim v;
	int fd = -1;

	igt_fixture {
		fd = drm_open_driver(DRIVER_WEFT);
		weft_query_device_info(fd, &info);
		victim_init(fd, &v);
	}

	igt_describe("Check that a second fd of the same process cannot use "
		     "the first one's handles, VM ids, queue ids or mmap "
		     "offsets.");
	igt_subtest("second-fd-handles") {
		int fd2 = drm_open_driver(DRIVER_WEFT);

		attack(fd2, &v);
		drm_close_driver(fd2);
		igt_assert_eq_u64(*(uint64_t *)v.bo->map, SECRET);
	}

	igt_describe("Check that a forked process with its own fd cannot use "
		     "the parent's handles, ids or offsets.");
	igt_subtest("fork-handles") {
		igt_fork(child, 1) {
			int fd2 = drm_open_driver(DRIVER_WEFT);

			attack(fd2, &v);
			drm_close_driver(fd2);
		}
		igt_waitchildren();
		igt_assert_eq_u64(*(uint64_t *)v.bo->map, SECRET);
	}

	igt_describe("Check that the GPU address of another file's buffer "
		     "faults in one's own VM, and the buffer is unchanged.");
	igt_subtest("second-fd-gpu-address") {
		int fd2 = drm_open_driver(DRIVER_WEFT);

		attack_va(fd2, &v);
		drm_close_driver(fd2);
		igt_assert_eq_u64(*(uint64_t *)v.bo->map, SECRET);
		weft_assert_device_alive(fd);
	}

	igt_describe("Check that a forked process's jobs cannot reach the "
		     "parent's GPU addresses.");
	igt_subtest("fork-gpu-address") {
		igt_fork(child, 1) {
			int fd2 = drm_open_driver(DRIVER_WEFT);

			attack_va(fd2, &v);
			drm_close_driver(fd2);
		}
		igt_waitchildren();
		igt_assert_eq_u64(*(uint64_t *)v.bo->map, SECRET);
	}

	igt_describe("Check that brute-forcing small handles and ids from "
		     "another fd finds nothing.");
	igt_subtest("second-fd-brute-force") {
		int fd2 = drm_open_driver(DRIVER_WEFT);

		for (uint32_t id = 1; id < 256; id++) {
			struct drm_weft_bo_mmap_offset mo = { .handle = id };
			struct drm_weft_queue_create qc = { .vm_id = id };

			igt_assert_eq(__weft_bo_mmap_offset(fd2, &mo), -ENOENT);
			igt_assert_eq(__weft_queue_create(fd2, &qc), -ENOENT);
			igt_assert_eq(__weft_vm_destroy(fd2, id), -ENOENT);
			igt_assert_eq(__weft_queue_destroy(fd2, id), -ENOENT);
		}
		drm_close_driver(fd2);
	}

	igt_describe("Check that another fd cannot open the first one's "
		     "buffers by guessing global (flink) names: none exist "
		     "unless exported.");
	igt_subtest("second-fd-flink-names") {
		int fd2 = drm_open_driver(DRIVER_WEFT);

		for (uint32_t name = 1; name < 256; name++) {
			struct drm_gem_open o = { .name = name };

			igt_assert_neq(igt_ioctl(fd2, DRM_IOCTL_GEM_OPEN, &o),
				       0);
			igt_assert(errno == ENOENT || errno == EACCES ||
				   errno == EINVAL);
			errno = 0;
		}
		drm_close_driver(fd2);
	}

	igt_describe("Check that a new buffer never shows another file's "
		     "old data.");
	igt_subtest("new-buffer-zeroed") {
		int fd2 = drm_open_driver(DRIVER_WEFT);

		for (int i = 0; i < 16; i++) {
			struct weft_bo *a = weft_bo_new(fd, 16 * PAGE, 0, 0, 0);
			struct weft_bo *b;

			memset(a->map, 0xa5, a->size);
			weft_bo_free(fd, a);
			b = weft_bo_new(fd2, 16 * PAGE, 0, 0, 0);
			for (uint64_t j = 0; j < b->size / 8; j++)
				igt_assert_eq_u64(((uint64_t *)b->map)[j], 0);
			weft_bo_free(fd2, b);
		}
		drm_close_driver(fd2);
	}
}
