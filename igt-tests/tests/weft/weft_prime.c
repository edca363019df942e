// SPDX-License-Identifier: MIT
/*
 * Copyright (C) 2026 The Weft authors
 *
 * The GPU on shared buffers (PRIME): a buffer imported from another Weft
 * file or from vgem is bound into a Weft VM like any other; the GPU writes
 * it, runs batches from it, and a job that hangs in it is captured and
 * recovered from. The CPU checks through the exporter's own mapping.
 *
 * Error codes this test expects (weft.ko must match):
 *  - VM_BIND map of an imported buffer past its end:          -EINVAL
 *  - BO_MMAP_OFFSET of an imported handle closed before:      -ENOENT
 * Behaviour this test expects:
 *  - a capture of a job whose batch is in a buffer imported from another
 *    driver says the batch is unreadable: an importer does not read an
 *    exporter's pages behind its back.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <xf86drm.h>
#include <drm/drm_mode.h>

#include "igt.h"
#include "igt_weft.h"

IGT_TEST_DESCRIPTION("Tests for the GPU on buffers shared through dma-buf.");

#define PAGE WEFT_PAGE_SIZE

static struct drm_weft_device_info info;

/* A buffer imported into a Weft file and bound into a VM. */
struct imported {
	uint32_t handle;
	uint64_t va;
	uint64_t size;
};

/* Buffer @handle of @exporter shared through a dma-buf: its handle in @fd. */
static uint32_t prime_share(int fd, int exporter, uint32_t handle)
{
	uint32_t imported;
	int dmabuf;

	igt_assert_eq(drmPrimeHandleToFD(exporter, handle,
					 DRM_CLOEXEC | DRM_RDWR, &dmabuf), 0);
	igt_assert_eq(drmPrimeFDToHandle(fd, dmabuf, &imported), 0);
	close(dmabuf);
	return imported;
}

/* Imports buffer @handle of @exporter into @fd and binds it at @slot. */
static void import_and_bind(int fd, uint32_t vm, int exporter,
			    uint32_t handle, uint64_t size, unsigned int slot,
			    uint32_t flags, struct imported *imp)
{
	imp->handle = prime_share(fd, exporter, handle);
	imp->va = weft_test_va(&info, slot);
	imp->size = size;
	weft_vm_bind_map(fd, vm, imp->handle, 0, imp->va, size, flags);
}

static void imported_fini(int fd, uint32_t vm, struct imported *imp)
{
	weft_vm_bind_unmap(fd, vm, imp->va, imp->size);
	gem_close(fd, imp->handle);
}

/* A vgem buffer of @size bytes, its CPU mapping in @map. */
static uint32_t vgem_create_mapped(int vgem, uint64_t size, void **map)
{
	struct drm_mode_create_dumb create = {
		.width = PAGE / 4,
		.height = size / PAGE,
		.bpp = 32,
	};
	struct drm_mode_map_dumb mmap_arg = { 0 };

	do_ioctl(vgem, DRM_IOCTL_MODE_CREATE_DUMB, &create);
	mmap_arg.handle = create.handle;
	do_ioctl(vgem, DRM_IOCTL_MODE_MAP_DUMB, &mmap_arg);
	*map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, vgem,
		    mmap_arg.offset);
	igt_assert(*map != MAP_FAILED);
	return create.handle;
}

/* A batch in @c's batch buffer writing @value at each page of @imp. */
static void gpu_write_pages(int fd, struct weft_test_ctx *c,
			    const struct imported *imp, uint64_t value)
{
	struct weft_batch batch;

	weft_batch_init(&batch, c->batch->map, PAGE);
	for (uint64_t off = 0; off < imp->size; off += PAGE)
		weft_batch_write_data(&batch, imp->va + off, value + off);
	weft_batch_end(&batch);
	igt_assert_eq(weft_submit_and_wait(fd, c->queue, c->batch->va,
					   weft_batch_size(&batch)), 0);
}

/*
 * Exports buffer @handle of file @exporter (mapped at @map), imports and
 * binds it in @c's VM, lets the GPU write every page and checks through
 * @map.
 */
static void gpu_write_shared(int fd, struct weft_test_ctx *c, int exporter,
			     uint32_t handle, void *map, uint64_t size)
{
	const uint64_t value = 0x5a5a000000000000ull ^ size;
	struct imported imp;

	memset(map, 0, size);
	import_and_bind(fd, c->vm, exporter, handle, size, 2, 0, &imp);

	gpu_write_pages(fd, c, &imp, value);
	for (uint64_t off = 0; off < size; off += PAGE)
		igt_assert_eq_u64(*(const volatile uint64_t *)
				  ((const char *)map + off), value + off);
	imported_fini(fd, c->vm, &imp);
}

igt_main
{
	struct weft_test_ctx c;
	int fd = -1;

	igt_fixture {
		fd = drm_open_driver(DRIVER_WEFT);
		weft_query_device_info(fd, &info);
		weft_test_ctx_init(fd, &info, &c);
	}

	igt_describe("Import a buffer of another Weft file, bind it and let "
		     "the GPU write every page; the exporter reads it.");
	igt_subtest("gpu-write-weft-import") {
		int exporter = drm_open_driver(DRIVER_WEFT);
		uint64_t size = 3 * PAGE;
		uint32_t handle = weft_bo_create(exporter, size);
		void *map = weft_bo_mmap(exporter, handle, size,
					 PROT_READ | PROT_WRITE);

		gpu_write_shared(fd, &c, exporter, handle, map, size);
		munmap(map, size);
		drm_close_driver(exporter);
	}

	igt_describe("Import a vgem buffer, bind it and let the GPU write "
		     "every page; vgem's mapping reads it.");
	igt_subtest("gpu-write-vgem-import") {
		int vgem = drm_open_driver(DRIVER_VGEM);
		uint64_t size = 5 * PAGE;
		uint32_t handle;
		void *map;

		handle = vgem_create_mapped(vgem, size, &map);
		gpu_write_shared(fd, &c, vgem, handle, map, size);
		munmap(map, size);
		drm_close_driver(vgem);
	}

	igt_describe("Run a batch that lives in a buffer imported from vgem.");
	igt_subtest("batch-in-vgem-import") {
		int vgem = drm_open_driver(DRIVER_VGEM);
		struct weft_batch batch;
		struct imported imp;
		uint32_t handle;
		void *map;

		handle = vgem_create_mapped(vgem, PAGE, &map);
		weft_batch_init(&batch, map, PAGE);
		weft_batch_write_data(&batch, c.data->va, 0x600df00d);
		weft_batch_end(&batch);
		import_and_bind(fd, c.vm, vgem, handle, PAGE, 2,
				DRM_WEFT_VM_BIND_OP_MAP_READONLY, &imp);

		*(volatile uint64_t *)c.data->map = 0;
		igt_assert_eq(weft_submit_and_wait(fd, c.queue, imp.va,
						   weft_batch_size(&batch)), 0);
		igt_assert_eq_u64(*(volatile uint64_t *)c.data->map,
				  0x600df00d);

		imported_fini(fd, c.vm, &imp);
		munmap(map, PAGE);
		drm_close_driver(vgem);
	}

	igt_describe("Check that a job hanging in a batch imported from vgem "
		     "times out, leaves a capture that calls the batch "
		     "unreadable, and that the device keeps working.");
	igt_subtest("hang-in-vgem-import") {
		int vgem = drm_open_driver(DRIVER_VGEM);
		struct weft_test_ctx hc;
		struct weft_batch batch;
		struct imported imp;
		uint32_t handle, so;
		int captures = 0;
		void *map;

		igt_require_f(weft_job_timeout_ms() <= 5000,
			      "load weft.ko with job_timeout_ms <= 5000\n");
		igt_require(weft_devcoredumps(NULL, true) >= 0);
		weft_test_ctx_init(fd, &info, &hc);
		handle = vgem_create_mapped(vgem, PAGE, &map);
		weft_batch_init(&batch, map, PAGE);
		/* Waits for a value nobody writes. */
		weft_batch_sem_wait(&batch, hc.data->va, 1,
				    WEFT_BATCH_SEM_WAIT_EQ);
		weft_batch_end(&batch);
		import_and_bind(fd, hc.vm, vgem, handle, PAGE, 2,
				DRM_WEFT_VM_BIND_OP_MAP_READONLY, &imp);

		so = weft_submit_nowait(fd, hc.queue, imp.va,
					weft_batch_size(&batch));
		igt_assert_eq(weft_wait_hang(fd, so, weft_now_s()),
			      -ETIMEDOUT);
		drmSyncobjDestroy(fd, so);
		for (int i = 0; i < 50 && !captures; i++) {
			usleep(20000);
			captures = weft_devcoredumps("batch: unreadable",
						     true);
		}
		igt_assert_eq(captures, 1);
		weft_assert_device_alive(fd);

		imported_fini(fd, hc.vm, &imp);
		weft_test_ctx_fini(fd, &hc);
		munmap(map, PAGE);
		drm_close_driver(vgem);
	}

	igt_describe("Make sure mapping an imported buffer past its end is "
		     "rejected.");
	igt_subtest("bad-bind-import-past-end") {
		int exporter = drm_open_driver(DRIVER_WEFT);
		struct drm_weft_vm_bind_op op = {
			.op = DRM_WEFT_VM_BIND_OP_MAP,
			.va = weft_test_va(&info, 2),
			.size = 2 * PAGE,
		};
		uint32_t handle;

		handle = weft_bo_create(exporter, PAGE);
		op.handle = prime_share(fd, exporter, handle);
		igt_assert_eq(__weft_vm_bind_op(fd, c.vm, &op), -EINVAL);
		op.size = PAGE;
		op.bo_offset = PAGE;
		igt_assert_eq(__weft_vm_bind_op(fd, c.vm, &op), -EINVAL);
		gem_close(fd, op.handle);
		drm_close_driver(exporter);
	}

	igt_describe("Make sure an imported handle, once closed, cannot be "
		     "mapped.");
	igt_subtest("bad-mmap-closed-import") {
		struct drm_weft_bo_mmap_offset arg = { 0 };
		int exporter = drm_open_driver(DRIVER_WEFT);
		uint32_t handle;

		handle = weft_bo_create(exporter, PAGE);
		arg.handle = prime_share(fd, exporter, handle);
		igt_assert_eq(__weft_bo_mmap_offset(fd, &arg), 0);
		gem_close(fd, arg.handle);
		igt_assert_eq(__weft_bo_mmap_offset(fd, &arg), -ENOENT);
		drm_close_driver(exporter);
	}

	igt_fixture {
		weft_test_ctx_fini(fd, &c);
		drm_close_driver(fd);
	}
}
