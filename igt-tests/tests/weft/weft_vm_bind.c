// SPDX-License-Identifier: MIT
/*
 * Copyright (C) 2026 The Weft authors
 *
 * DRM_IOCTL_WEFT_VM_CREATE, DRM_IOCTL_WEFT_VM_DESTROY and
 * DRM_IOCTL_WEFT_VM_BIND, and what the GPU sees through the mappings.
 *
 * Error codes this test expects (weft.ko must match):
 *  - nonzero flags (VM_CREATE, VM_BIND), nonzero pad (VM_DESTROY, bind
 *    op), unknown op, unknown map flags, any flags/handle/bo_offset on
 *    an unmap:                                               -EINVAL
 *  - va, size or bo_offset not a multiple of 4096, size 0:   -EINVAL
 *  - range outside [user_va_start, user_va_end) or wrapping: -EINVAL
 *  - map range past the end of the buffer (or wrapping):     -EINVAL
 *  - ops.stride smaller than struct drm_weft_vm_bind_op, or
 *    nonzero bytes past it in a larger stride:               -EINVAL
 *  - ops.count above the driver's limit (0xffffffff is):     -EINVAL
 *  - ops.array not readable:                                 -EFAULT
 *  - unknown VM id (also another file's):                    -ENOENT
 *  - unknown buffer handle in a map:                         -ENOENT
 *  - map over any already mapped page:                       -EBUSY
 * Behaviour this test expects:
 *  - ops.count 0 is a successful no-op;
 *  - unmapping a range with nothing mapped in it succeeds;
 *  - unmapping part of a mapping keeps the rest mapped;
 *  - a GPU access to an unmapped page, or a write to a read-only one,
 *    makes the job's fence signal with an error; other queues keep
 *    working.
 */
#include <sys/mman.h>
#include <xf86drm.h>

#include "igt.h"
#include "igt_weft.h"

IGT_TEST_DESCRIPTION("Tests for Weft GPU virtual memory: VM creation and "
		     "destruction, mapping and unmapping buffers.");

#define PAGE WEFT_PAGE_SIZE

static struct drm_weft_device_info info;

/* A bind op as a newer userspace passes it: 16 more bytes. */
struct op_ext {
	struct drm_weft_vm_bind_op op;
	uint8_t ext[16];
};

/* A VM with a queue and a batch buffer mapped at slot 0. */
struct ctx {
	uint32_t vm;
	uint32_t queue;
	struct weft_bo *batch;
};

static void ctx_init(int fd, struct ctx *ctx)
{
	ctx->vm = weft_vm_create(fd);
	ctx->queue = weft_queue_create(fd, ctx->vm,
				       DRM_WEFT_QUEUE_PRIORITY_NORMAL);
	ctx->batch = weft_bo_new(fd, PAGE, ctx->vm, weft_test_va(&info, 0),
				 DRM_WEFT_VM_BIND_OP_MAP_READONLY);
}

static void ctx_fini(int fd, struct ctx *ctx)
{
	weft_queue_destroy(fd, ctx->queue);
	weft_bo_free(fd, ctx->batch);
	weft_vm_destroy(fd, ctx->vm);
}

/* Runs one WRITE_DATA of @value to @va; returns the job's fence status. */
static int gpu_write(int fd, struct ctx *ctx, uint64_t va, uint64_t value)
{
	struct weft_batch batch;

	weft_batch_init(&batch, ctx->batch->map, PAGE);
	weft_batch_write_data(&batch, va, value);
	weft_batch_end(&batch);
	return weft_submit_and_wait(fd, ctx->queue, ctx->batch->va,
				    weft_batch_size(&batch));
}

static uint64_t *u64_at(struct weft_bo *bo, uint64_t offset)
{
	return (uint64_t *)((char *)bo->map + offset);
}

/* A GPU write to @va must succeed and land at @offset of @bo. */
static void write_ok(int fd, struct ctx *ctx, uint64_t va, uint64_t value,
		     struct weft_bo *bo, uint64_t offset)
{
	igt_assert_eq(gpu_write(fd, ctx, va, value), 0);
	igt_assert_eq_u64(*u64_at(bo, offset), value);
}

/*
 * A GPU write to @va must fail its job and leave @offset of @bo untouched;
 * the device must keep working.
 */
static void write_faults(int fd, struct ctx *ctx, uint64_t va,
			 struct weft_bo *bo, uint64_t offset)
{
	uint64_t before = *u64_at(bo, offset);
	int status = gpu_write(fd, ctx, va, ~before);

	igt_info("job fence error: %d (%s)\n", status, strerror(-status));
	igt_assert_lt(status, 0);
	igt_assert_eq_u64(*u64_at(bo, offset), before);
	weft_assert_device_alive(fd);
}

static struct drm_weft_vm_bind_op map_op(uint32_t handle, uint64_t bo_offset,
					 uint64_t va, uint64_t size)
{
	return (struct drm_weft_vm_bind_op) {
		.op = DRM_WEFT_VM_BIND_OP_MAP,
		.handle = handle,
		.bo_offset = bo_offset,
		.va = va,
		.size = size,
	};
}

static struct drm_weft_vm_bind_op unmap_op(uint64_t va, uint64_t size)
{
	return (struct drm_weft_vm_bind_op) {
		.op = DRM_WEFT_VM_BIND_OP_UNMAP,
		.va = va,
		.size = size,
	};
}

static void bind_op_err(int fd, uint32_t vm, struct drm_weft_vm_bind_op op,
			int err)
{
	struct drm_weft_vm_bind bind = {
		.vm_id = vm,
		.ops = DRM_WEFT_OBJ_ARRAY(1, &op),
	};

	do_ioctl_err(fd, DRM_IOCTL_WEFT_VM_BIND, &bind, err);
}

igt_main
{
	struct weft_bo *bo = NULL;
	uint32_t vm = 0;
	uint64_t va = 0;
	int fd = -1;

	igt_fixture {
		fd = drm_open_driver(DRIVER_WEFT);
		weft_query_device_info(fd, &info);
		vm = weft_vm_create(fd);
		/* A 4-page buffer, not mapped; va is a free slot for it. */
		bo = weft_bo_new(fd, 4 * PAGE, 0, 0, 0);
		va = weft_test_va(&info, 1);
	}

	igt_describe("Create and destroy VMs; each gets its own nonzero id.");
	igt_subtest("vm-create-destroy") {
		uint32_t ids[8];

		for (int i = 0; i < 8; i++) {
			ids[i] = weft_vm_create(fd);
			for (int j = 0; j < i; j++)
				igt_assert_neq_u32(ids[i], ids[j]);
		}
		for (int i = 0; i < 8; i++)
			weft_vm_destroy(fd, ids[i]);
	}

	igt_describe("Check that a VM with mappings can be destroyed.");
	igt_subtest("vm-destroy-mapped") {
		uint32_t vm2 = weft_vm_create(fd);

		weft_vm_bind_map(fd, vm2, bo->handle, 0, va, bo->size, 0);
		weft_vm_destroy(fd, vm2);
	}

	igt_describe("Make sure unknown VM creation flags are rejected.");
	igt_subtest("bad-vm-create-flags") {
		struct drm_weft_vm_create create = {};

		for (int bit = 0; bit < 32; bit++) {
			create.flags = 1u << bit;
			do_ioctl_err(fd, DRM_IOCTL_WEFT_VM_CREATE, &create,
				     EINVAL);
		}
	}

	igt_describe("Make sure destroying an unknown VM fails.");
	igt_subtest("bad-vm-destroy-id") {
		uint32_t vm2 = weft_vm_create(fd);

		igt_assert_eq(__weft_vm_destroy(fd, 0), -ENOENT);
		igt_assert_eq(__weft_vm_destroy(fd, 0xdeadbeef), -ENOENT);
		weft_vm_destroy(fd, vm2);
		igt_assert_eq(__weft_vm_destroy(fd, vm2), -ENOENT);
	}

	igt_describe("Make sure a nonzero pad in VM destruction is rejected.");
	igt_subtest("bad-vm-destroy-pad") {
		struct drm_weft_vm_destroy destroy = { .id = vm, .pad = 1 };

		do_ioctl_err(fd, DRM_IOCTL_WEFT_VM_DESTROY, &destroy, EINVAL);
	}

	igt_describe("Make sure a VM id is only valid in the file that "
		     "created it.");
	igt_subtest("bad-vm-other-file") {
		int fd2 = drm_open_driver(DRIVER_WEFT);
		int fd3 = drm_open_driver(DRIVER_WEFT);
		uint32_t vm2 = weft_vm_create(fd2);
		uint32_t handle = weft_bo_create(fd3, PAGE);

		/* fd3 has no VM at all. */
		bind_op_err(fd3, vm2, map_op(handle, 0, va, PAGE), ENOENT);
		igt_assert_eq(__weft_vm_destroy(fd3, vm2), -ENOENT);
		weft_vm_destroy(fd2, vm2);
		drm_close_driver(fd3);
		drm_close_driver(fd2);
	}

	igt_describe("Map and unmap a buffer, whole and in parts, with every "
		     "map flag.");
	igt_subtest("map-unmap") {
		const uint32_t flags[] = {
			0,
			DRM_WEFT_VM_BIND_OP_MAP_READONLY,
			DRM_WEFT_VM_BIND_OP_MAP_EXEC,
			DRM_WEFT_VM_BIND_OP_MAP_READONLY |
				DRM_WEFT_VM_BIND_OP_MAP_EXEC,
		};

		for (unsigned int i = 0; i < ARRAY_SIZE(flags); i++) {
			weft_vm_bind_map(fd, vm, bo->handle, 0, va, bo->size,
					 flags[i]);
			weft_vm_bind_unmap(fd, vm, va, bo->size);
		}
		weft_vm_bind_map(fd, vm, bo->handle, PAGE, va + PAGE, 2 * PAGE,
				 0);
		weft_vm_bind_unmap(fd, vm, va + PAGE, 2 * PAGE);
	}

	igt_describe("Check that a range is free again once unmapped.");
	igt_subtest("map-after-unmap") {
		for (int i = 0; i < 4; i++) {
			weft_vm_bind_map(fd, vm, bo->handle, 0, va, bo->size,
					 0);
			weft_vm_bind_unmap(fd, vm, va, bo->size);
		}
	}

	igt_describe("Map one buffer at several addresses and in several "
		     "VMs.");
	igt_subtest("map-aliased") {
		uint32_t vm2 = weft_vm_create(fd);

		weft_vm_bind_map(fd, vm, bo->handle, 0, va, bo->size, 0);
		weft_vm_bind_map(fd, vm, bo->handle, 0, va + bo->size,
				 bo->size, 0);
		weft_vm_bind_map(fd, vm2, bo->handle, 0, va, bo->size, 0);
		weft_vm_bind_unmap(fd, vm, va, 2 * bo->size);
		weft_vm_destroy(fd, vm2);
	}

	igt_describe("Apply several operations in one call, in order.");
	igt_subtest("bind-many-ops") {
		struct drm_weft_vm_bind_op ops[] = {
			map_op(bo->handle, 0, va, PAGE),
			map_op(bo->handle, PAGE, va + PAGE, 3 * PAGE),
			unmap_op(va, 4 * PAGE),
			map_op(bo->handle, 0, va, 4 * PAGE),
		};
		struct drm_weft_vm_bind bind = {
			.vm_id = vm,
			.ops = DRM_WEFT_OBJ_ARRAY(ARRAY_SIZE(ops), ops),
		};

		do_ioctl(fd, DRM_IOCTL_WEFT_VM_BIND, &bind);
		weft_vm_bind_unmap(fd, vm, va, 4 * PAGE);
	}

	igt_describe("Check that a call without operations does nothing and "
		     "succeeds.");
	igt_subtest("bind-zero-ops") {
		struct drm_weft_vm_bind bind = {
			.vm_id = vm,
			.ops = {
				.stride = sizeof(struct drm_weft_vm_bind_op),
			},
		};

		do_ioctl(fd, DRM_IOCTL_WEFT_VM_BIND, &bind);
	}

	igt_describe("Check that elements larger than the kernel's struct are "
		     "accepted when the extra bytes are zero.");
	igt_subtest("bind-stride-larger") {
		struct op_ext ops[2] = {
			{ .op = map_op(bo->handle, 0, va, PAGE) },
			{ .op = unmap_op(va, PAGE) },
		};
		struct drm_weft_vm_bind bind = {
			.vm_id = vm,
			.ops = DRM_WEFT_OBJ_ARRAY(2, ops),
		};

		igt_assert_eq_u32(bind.ops.stride,
				  sizeof(struct drm_weft_vm_bind_op) + 16);
		do_ioctl(fd, DRM_IOCTL_WEFT_VM_BIND, &bind);
	}

	igt_describe("Check that when one operation fails, the ones before it "
		     "stay applied.");
	igt_subtest("bind-partial-failure") {
		struct drm_weft_vm_bind_op ops[] = {
			map_op(bo->handle, 0, va, PAGE),
			map_op(bo->handle, 0, va + PAGE, PAGE),
			map_op(bo->handle, 0, va, PAGE),	/* overlaps */
			map_op(bo->handle, 0, va + 2 * PAGE, PAGE),
		};
		struct drm_weft_vm_bind bind = {
			.vm_id = vm,
			.ops = DRM_WEFT_OBJ_ARRAY(ARRAY_SIZE(ops), ops),
		};

		do_ioctl_err(fd, DRM_IOCTL_WEFT_VM_BIND, &bind, EBUSY);
		/* The first two maps are in place: mapping over is refused. */
		bind_op_err(fd, vm, map_op(bo->handle, 0, va, PAGE), EBUSY);
		bind_op_err(fd, vm, map_op(bo->handle, 0, va + PAGE, PAGE),
			    EBUSY);
		/* The last one was not applied. */
		weft_vm_bind_map(fd, vm, bo->handle, 0, va + 2 * PAGE, PAGE, 0);
		weft_vm_bind_unmap(fd, vm, va, 3 * PAGE);
	}

	igt_describe("Check that unmapping a range where nothing is mapped "
		     "succeeds.");
	igt_subtest("unmap-unmapped") {
		weft_vm_bind_unmap(fd, vm, va, PAGE);
		weft_vm_bind_unmap(fd, vm, va, bo->size);
	}

	igt_describe("Make sure unknown bind flags are rejected.");
	igt_subtest("bad-flags") {
		struct drm_weft_vm_bind_op op = map_op(bo->handle, 0, va, PAGE);
		struct drm_weft_vm_bind bind = {
			.vm_id = vm,
			.ops = DRM_WEFT_OBJ_ARRAY(1, &op),
		};

		/* Bit 0 is DRM_WEFT_VM_BIND_ASYNC (uAPI 1.1). */
		for (int bit = 1; bit < 32; bit++) {
			bind.flags = 1u << bit;
			do_ioctl_err(fd, DRM_IOCTL_WEFT_VM_BIND, &bind, EINVAL);
		}
	}

	igt_describe("Make sure binding in an unknown VM fails.");
	igt_subtest("bad-vm-id") {
		uint32_t vm2 = weft_vm_create(fd);

		weft_vm_destroy(fd, vm2);
		bind_op_err(fd, 0, map_op(bo->handle, 0, va, PAGE), ENOENT);
		bind_op_err(fd, 0xdeadbeef, map_op(bo->handle, 0, va, PAGE),
			    ENOENT);
		bind_op_err(fd, vm2, map_op(bo->handle, 0, va, PAGE), ENOENT);
	}

	igt_describe("Make sure an unknown operation is rejected.");
	igt_subtest("bad-op") {
		struct drm_weft_vm_bind_op op = map_op(bo->handle, 0, va, PAGE);

		op.op = DRM_WEFT_VM_BIND_OP_UNMAP + 1;
		bind_op_err(fd, vm, op, EINVAL);
		op.op = 0xffffffff;
		bind_op_err(fd, vm, op, EINVAL);
	}

	igt_describe("Make sure unknown map flags, and any flag on an unmap, "
		     "are rejected.");
	igt_subtest("bad-op-flags") {
		struct drm_weft_vm_bind_op op = map_op(bo->handle, 0, va, PAGE);

		for (int bit = 2; bit < 32; bit++) {
			op.flags = 1u << bit;
			bind_op_err(fd, vm, op, EINVAL);
		}
		op = unmap_op(va, PAGE);
		for (int bit = 0; bit < 32; bit++) {
			op.flags = 1u << bit;
			bind_op_err(fd, vm, op, EINVAL);
		}
	}

	igt_describe("Make sure a nonzero pad in a bind operation is "
		     "rejected.");
	igt_subtest("bad-pad") {
		struct drm_weft_vm_bind_op op = map_op(bo->handle, 0, va, PAGE);

		op.pad = 1;
		bind_op_err(fd, vm, op, EINVAL);
		op = unmap_op(va, PAGE);
		op.pad = 0x80000000;
		bind_op_err(fd, vm, op, EINVAL);
	}

	igt_describe("Make sure mapping an unknown buffer handle fails.");
	igt_subtest("bad-handle") {
		uint32_t handle = weft_bo_create(fd, PAGE);

		gem_close(fd, handle);
		bind_op_err(fd, vm, map_op(0, 0, va, PAGE), ENOENT);
		bind_op_err(fd, vm, map_op(0xdeadbeef, 0, va, PAGE), ENOENT);
		bind_op_err(fd, vm, map_op(handle, 0, va, PAGE), ENOENT);
	}

	igt_describe("Make sure an unmap with a handle or a buffer offset is "
		     "rejected.");
	igt_subtest("bad-unmap-fields") {
		struct drm_weft_vm_bind_op op = unmap_op(va, PAGE);

		op.handle = bo->handle;
		bind_op_err(fd, vm, op, EINVAL);
		op.handle = 0;
		op.bo_offset = PAGE;
		bind_op_err(fd, vm, op, EINVAL);
	}

	igt_describe("Make sure a GPU address that is not page aligned is "
		     "rejected.");
	igt_subtest("bad-unaligned-va") {
		for (uint64_t off = 1; off < PAGE; off <<= 1) {
			bind_op_err(fd, vm, map_op(bo->handle, 0, va + off,
						   PAGE), EINVAL);
			bind_op_err(fd, vm, unmap_op(va + off, PAGE), EINVAL);
		}
	}

	igt_describe("Make sure a size that is not a multiple of the page "
		     "size is rejected.");
	igt_subtest("bad-unaligned-size") {
		const uint64_t sizes[] = { 1, 8, PAGE - 1, PAGE + 1,
					   PAGE + PAGE / 2 };

		for (unsigned int i = 0; i < ARRAY_SIZE(sizes); i++) {
			bind_op_err(fd, vm, map_op(bo->handle, 0, va, sizes[i]),
				    EINVAL);
			bind_op_err(fd, vm, unmap_op(va, sizes[i]), EINVAL);
		}
	}

	igt_describe("Make sure a buffer offset that is not page aligned is "
		     "rejected.");
	igt_subtest("bad-unaligned-offset") {
		for (uint64_t off = 1; off < PAGE; off <<= 1)
			bind_op_err(fd, vm, map_op(bo->handle, off, va, PAGE),
				    EINVAL);
	}

	igt_describe("Make sure a zero-sized range is rejected.");
	igt_subtest("bad-zero-size") {
		bind_op_err(fd, vm, map_op(bo->handle, 0, va, 0), EINVAL);
		bind_op_err(fd, vm, unmap_op(va, 0), EINVAL);
	}

	igt_describe("Make sure ranges outside the user VA range, or wrapping "
		     "around, are rejected.");
	igt_subtest("bad-va-range") {
		const uint64_t end = info.user_va_end;

		if (info.user_va_start >= PAGE) {
			bind_op_err(fd, vm, map_op(bo->handle, 0,
						   info.user_va_start - PAGE,
						   PAGE), EINVAL);
			bind_op_err(fd, vm, map_op(bo->handle, 0,
						   info.user_va_start - PAGE,
						   2 * PAGE), EINVAL);
			bind_op_err(fd, vm, unmap_op(info.user_va_start - PAGE,
						     PAGE), EINVAL);
		}
		bind_op_err(fd, vm, map_op(bo->handle, 0, end, PAGE), EINVAL);
		bind_op_err(fd, vm, map_op(bo->handle, 0, end - PAGE,
					   2 * PAGE), EINVAL);
		bind_op_err(fd, vm, map_op(bo->handle, 0, 1ull << 48, PAGE),
			    EINVAL);
		bind_op_err(fd, vm, map_op(bo->handle, 0, -PAGE, 2 * PAGE),
			    EINVAL);
		bind_op_err(fd, vm, map_op(bo->handle, 0, va, -PAGE), EINVAL);
		bind_op_err(fd, vm, unmap_op(end, PAGE), EINVAL);
		bind_op_err(fd, vm, unmap_op(-PAGE, 2 * PAGE), EINVAL);
		bind_op_err(fd, vm, unmap_op(va, -PAGE), EINVAL);
	}

	igt_describe("Make sure a map that reaches past the end of the buffer "
		     "is rejected.");
	igt_subtest("bad-bo-range") {
		bind_op_err(fd, vm, map_op(bo->handle, 0, va, bo->size + PAGE),
			    EINVAL);
		bind_op_err(fd, vm, map_op(bo->handle, PAGE, va, bo->size),
			    EINVAL);
		bind_op_err(fd, vm, map_op(bo->handle, bo->size, va, PAGE),
			    EINVAL);
		bind_op_err(fd, vm, map_op(bo->handle, -PAGE, va, 2 * PAGE),
			    EINVAL);
	}

	igt_describe("Make sure mapping over an existing mapping, fully or in "
		     "part, is refused.");
	igt_subtest("bad-overlap") {
		weft_vm_bind_map(fd, vm, bo->handle, 0, va + PAGE, 2 * PAGE,
				 0);
		/* Same range, the front, the back, inside, around. */
		bind_op_err(fd, vm, map_op(bo->handle, 0, va + PAGE, 2 * PAGE),
			    EBUSY);
		bind_op_err(fd, vm, map_op(bo->handle, 0, va, 2 * PAGE),
			    EBUSY);
		bind_op_err(fd, vm, map_op(bo->handle, 0, va + 2 * PAGE,
					   2 * PAGE), EBUSY);
		bind_op_err(fd, vm, map_op(bo->handle, 0, va + 2 * PAGE, PAGE),
			    EBUSY);
		bind_op_err(fd, vm, map_op(bo->handle, 0, va, 4 * PAGE),
			    EBUSY);
		/* Next to it is fine. */
		weft_vm_bind_map(fd, vm, bo->handle, 0, va, PAGE, 0);
		weft_vm_bind_map(fd, vm, bo->handle, 0, va + 3 * PAGE, PAGE, 0);
		weft_vm_bind_unmap(fd, vm, va, 4 * PAGE);
	}

	igt_describe("Make sure an element stride smaller than the kernel's "
		     "struct is rejected.");
	igt_subtest("bad-stride") {
		struct drm_weft_vm_bind_op op = map_op(bo->handle, 0, va, PAGE);
		struct drm_weft_vm_bind bind = {
			.vm_id = vm,
			.ops = DRM_WEFT_OBJ_ARRAY(1, &op),
		};
		const uint32_t strides[] = { 0, 4, 8, sizeof(op) - 8,
					     sizeof(op) - 1 };

		for (unsigned int i = 0; i < ARRAY_SIZE(strides); i++) {
			bind.ops.stride = strides[i];
			do_ioctl_err(fd, DRM_IOCTL_WEFT_VM_BIND, &bind, EINVAL);
		}
	}

	igt_describe("Make sure nonzero bytes past the kernel's struct in a "
		     "larger element are rejected.");
	igt_subtest("bad-stride-tail") {
		struct op_ext elem = { .op = map_op(bo->handle, 0, va, PAGE) };
		struct drm_weft_vm_bind bind = {
			.vm_id = vm,
			.ops = DRM_WEFT_OBJ_ARRAY(1, &elem),
		};

		for (unsigned int i = 0; i < sizeof(elem.ext); i++) {
			memset(elem.ext, 0, sizeof(elem.ext));
			elem.ext[i] = 1;
			do_ioctl_err(fd, DRM_IOCTL_WEFT_VM_BIND, &bind, EINVAL);
		}
		/* Nothing got mapped. */
		weft_vm_bind_map(fd, vm, bo->handle, 0, va, PAGE, 0);
		weft_vm_bind_unmap(fd, vm, va, PAGE);
	}

	igt_describe("Make sure an absurd operation count is rejected.");
	igt_subtest("bad-count") {
		struct drm_weft_vm_bind_op op = map_op(bo->handle, 0, va, PAGE);
		struct drm_weft_vm_bind bind = {
			.vm_id = vm,
			.ops = DRM_WEFT_OBJ_ARRAY(1, &op),
		};

		bind.ops.count = 0xffffffff;
		do_ioctl_err(fd, DRM_IOCTL_WEFT_VM_BIND, &bind, EINVAL);
	}

	igt_describe("Make sure an unreadable operation array is rejected.");
	igt_subtest("bad-array-pointer") {
		struct drm_weft_vm_bind bind = {
			.vm_id = vm,
			.ops = {
				.stride = sizeof(struct drm_weft_vm_bind_op),
				.count = 1,
				.array = 8,
			},
		};

		do_ioctl_err(fd, DRM_IOCTL_WEFT_VM_BIND, &bind, EFAULT);
	}

	igt_describe("Check that a GPU write lands in the buffer through its "
		     "mapping.");
	igt_subtest("gpu-write") {
		struct ctx ctx;

		ctx_init(fd, &ctx);
		memset(bo->map, 0, bo->size);
		weft_vm_bind_map(fd, ctx.vm, bo->handle, 0, va, bo->size, 0);
		write_ok(fd, &ctx, va, 0x1122334455667788ull, bo, 0);
		write_ok(fd, &ctx, va + 3 * PAGE + 8, 0xfeedfacecafef00dull, bo,
			 3 * PAGE + 8);
		igt_assert_eq_u64(*u64_at(bo, 8), 0);
		ctx_fini(fd, &ctx);
	}

	igt_describe("Check that a mapping at a buffer offset reaches the "
		     "right pages of the buffer.");
	igt_subtest("gpu-write-bo-offset") {
		struct ctx ctx;

		ctx_init(fd, &ctx);
		memset(bo->map, 0, bo->size);
		/* Buffer pages 2 and 3 at va, page 1 at va + 2 pages. */
		weft_vm_bind_map(fd, ctx.vm, bo->handle, 2 * PAGE, va, 2 * PAGE,
				 0);
		weft_vm_bind_map(fd, ctx.vm, bo->handle, PAGE, va + 2 * PAGE,
				 PAGE, 0);
		write_ok(fd, &ctx, va + 16, 1, bo, 2 * PAGE + 16);
		write_ok(fd, &ctx, va + PAGE + 24, 2, bo, 3 * PAGE + 24);
		write_ok(fd, &ctx, va + 2 * PAGE + 32, 3, bo, PAGE + 32);
		igt_assert_eq_u64(*u64_at(bo, 16), 0);
		ctx_fini(fd, &ctx);
	}

	igt_describe("Check that writes through two aliases of a page land "
		     "in the same memory.");
	igt_subtest("gpu-write-aliased") {
		struct ctx ctx;

		ctx_init(fd, &ctx);
		weft_vm_bind_map(fd, ctx.vm, bo->handle, 0, va, PAGE, 0);
		weft_vm_bind_map(fd, ctx.vm, bo->handle, 0,
				 weft_test_va(&info, 2), PAGE, 0);
		write_ok(fd, &ctx, va + 8, 0xaaaa, bo, 8);
		write_ok(fd, &ctx, weft_test_va(&info, 2) + 16, 0xbbbb, bo, 16);
		ctx_fini(fd, &ctx);
	}

	igt_describe("Check GPU writes through a mapping that crosses page "
		     "table boundaries (2 MiB and 1 GiB).");
	igt_subtest("gpu-write-pt-boundaries") {
		const uint64_t size = 4ull << 20;
		/* 1 MiB below a 1 GiB boundary, so 2 MiB boundaries too. */
		const uint64_t big_va = ALIGN(info.user_va_start + (1ull << 30),
					      1ull << 30) - (1ull << 20);
		struct weft_bo *big;
		struct ctx ctx;

		igt_require(big_va + size <= info.user_va_end);
		ctx_init(fd, &ctx);
		big = weft_bo_new(fd, size, ctx.vm, big_va, 0);
		for (uint64_t off = 0; off < size; off += 512 * 1024) {
			write_ok(fd, &ctx, big_va + off, off | 1, big, off);
			write_ok(fd, &ctx, big_va + off + 512 * 1024 - 8,
				 off | 2, big, off + 512 * 1024 - 8);
		}
		weft_bo_free(fd, big);
		ctx_fini(fd, &ctx);
	}

	igt_describe("Check that a GPU write to an unmapped address faults: "
		     "the job fails, the buffer is untouched and the device "
		     "keeps working.");
	igt_subtest("unmap-fault") {
		struct ctx ctx;

		ctx_init(fd, &ctx);
		weft_vm_bind_map(fd, ctx.vm, bo->handle, 0, va, bo->size, 0);
		write_ok(fd, &ctx, va + 8, 1, bo, 8);
		weft_vm_bind_unmap(fd, ctx.vm, va, bo->size);
		write_faults(fd, &ctx, va + 8, bo, 8);
		ctx_fini(fd, &ctx);
	}

	igt_describe("Check that unmapping part of a mapping keeps the rest "
		     "mapped and makes the unmapped part fault.");
	igt_subtest("unmap-partial") {
		struct ctx ctx;

		ctx_init(fd, &ctx);
		weft_vm_bind_map(fd, ctx.vm, bo->handle, 0, va, 3 * PAGE, 0);
		weft_vm_bind_unmap(fd, ctx.vm, va + PAGE, PAGE);
		write_ok(fd, &ctx, va, 1, bo, 0);
		write_ok(fd, &ctx, va + 2 * PAGE, 3, bo, 2 * PAGE);
		write_faults(fd, &ctx, va + PAGE, bo, PAGE);
		ctx_fini(fd, &ctx);
	}

	igt_describe("Check that a GPU write to a read-only mapping faults "
		     "and leaves the buffer untouched.");
	igt_subtest("readonly-fault") {
		struct ctx ctx;

		ctx_init(fd, &ctx);
		weft_vm_bind_map(fd, ctx.vm, bo->handle, 0, va, bo->size,
				 DRM_WEFT_VM_BIND_OP_MAP_READONLY);
		write_faults(fd, &ctx, va + 8, bo, 8);
		ctx_fini(fd, &ctx);
	}

	igt_describe("Check that a fault in one VM does not disturb a queue "
		     "of another VM.");
	igt_subtest("fault-isolation") {
		struct ctx good, bad;

		ctx_init(fd, &good);
		ctx_init(fd, &bad);
		weft_vm_bind_map(fd, good.vm, bo->handle, 0, va, bo->size, 0);
		/* Nothing is mapped at va in the bad VM. */
		igt_assert_lt(gpu_write(fd, &bad, va, 1), 0);
		write_ok(fd, &good, va + 8, 2, bo, 8);
		ctx_fini(fd, &bad);
		ctx_fini(fd, &good);
	}

	igt_fixture {
		weft_bo_free(fd, bo);
		weft_vm_destroy(fd, vm);
		drm_close_driver(fd);
	}
}
