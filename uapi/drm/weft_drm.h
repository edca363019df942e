/* SPDX-License-Identifier: MIT */
/*
 * Copyright (C) 2026 The Weft authors
 */
#ifndef _WEFT_DRM_H_
#define _WEFT_DRM_H_

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

/**
 * DOC: Introduction
 *
 * This is the uAPI of weft.ko, the DRM driver of the Weft compute GPU.
 *
 * Rules every structure follows:
 *
 * - Structures are 64-bit aligned and sized; padding is explicit, named
 *   ``pad``, and must be zero or the ioctl fails with -EINVAL.
 * - There are no unions. Fields and flags are only ever appended; zero in a
 *   new field keeps the old behaviour. Unknown flags fail with -EINVAL.
 * - Arrays are passed as a &struct drm_weft_obj_array: element stride,
 *   element count and a user pointer. The kernel reads min(stride, its own
 *   element size) bytes of each element and requires any further bytes the
 *   caller passes to be zero, so old and new userspace and kernels mix.
 * - Queries are {type, size, pointer}: the kernel copies min(size, its own
 *   size) bytes, zero-fills the rest of the caller's buffer and writes back
 *   its own size; a zero pointer only asks for the size.
 * - Every addition bumps the driver's minor version.
 *
 * Versions (DRM_IOCTL_VERSION's major.minor):
 *
 * - 1.0: the first version.
 * - 1.1: &drm_weft_vm_bind.in_syncs, &drm_weft_vm_bind.out_syncs and
 *   %DRM_WEFT_VM_BIND_ASYNC; a queue whose job failed is banned and
 *   SUBMIT on it fails with -ECANCELED.
 */

/* Ioctl numbers, relative to DRM_COMMAND_BASE. Append only. */
#define DRM_WEFT_QUERY			0x00
#define DRM_WEFT_BO_CREATE		0x01
#define DRM_WEFT_BO_MMAP_OFFSET		0x02
#define DRM_WEFT_VM_CREATE		0x03
#define DRM_WEFT_VM_DESTROY		0x04
#define DRM_WEFT_VM_BIND		0x05
#define DRM_WEFT_QUEUE_CREATE		0x06
#define DRM_WEFT_QUEUE_DESTROY		0x07
#define DRM_WEFT_SUBMIT			0x08

/**
 * struct drm_weft_obj_array - An array of structures passed to the kernel.
 */
struct drm_weft_obj_array {
	/** @stride: Size in bytes of one element. */
	__u32 stride;

	/** @count: Number of elements. */
	__u32 count;

	/** @array: User pointer to the first element. */
	__u64 array;
};

/**
 * DRM_WEFT_OBJ_ARRAY() - Initialize a &struct drm_weft_obj_array.
 * @cnt: Number of elements.
 * @ptr: Pointer to the first element.
 */
#define DRM_WEFT_OBJ_ARRAY(cnt, ptr) \
	{ .stride = sizeof((ptr)[0]), .count = (cnt), .array = (__u64)(uintptr_t)(ptr) }

/**
 * enum drm_weft_query_type - What DRM_IOCTL_WEFT_QUERY returns.
 */
enum drm_weft_query_type {
	/** @DRM_WEFT_QUERY_DEVICE_INFO: A &struct drm_weft_device_info. */
	DRM_WEFT_QUERY_DEVICE_INFO = 0,
};

/**
 * struct drm_weft_query - Argument of DRM_IOCTL_WEFT_QUERY.
 */
struct drm_weft_query {
	/** @type: One of &enum drm_weft_query_type. */
	__u32 type;

	/**
	 * @size: In: size of the buffer at @pointer. Out: size of the
	 * kernel's structure for @type.
	 */
	__u32 size;

	/** @pointer: User pointer to the result buffer, or 0 for the size. */
	__u64 pointer;
};

/**
 * struct drm_weft_device_info - The device, as DRM_WEFT_QUERY_DEVICE_INFO
 * reports it.
 */
struct drm_weft_device_info {
	/** @signature: The device's signature register, "WEFT". */
	__u32 signature;

	/** @hw_version: Hardware version, major << 16 | minor. */
	__u32 hw_version;

	/**
	 * @simd_widths: Supported sub-group sizes as a mask: bit n set
	 * means SIMD width 1 << n (so 8, 16 and 32 give 0x38).
	 */
	__u32 simd_widths;

	/** @max_wg_size: Maximum work-items in one work-group. */
	__u32 max_wg_size;

	/** @slm_size: Shared local memory per work-group, in bytes. */
	__u32 slm_size;

	/** @va_bits: Width of a GPU virtual address. */
	__u32 va_bits;

	/** @num_queues: Hardware queues. */
	__u32 num_queues;

	/** @num_cores: Work-groups the device runs at once. */
	__u32 num_cores;

	/** @user_va_start: First GPU VA userspace may bind. */
	__u64 user_va_start;

	/** @user_va_end: End (exclusive) of the VA userspace may bind. */
	__u64 user_va_end;
};

/**
 * struct drm_weft_bo_create - Argument of DRM_IOCTL_WEFT_BO_CREATE.
 *
 * Creates a GEM buffer of system memory.
 */
struct drm_weft_bo_create {
	/** @size: In: size in bytes, > 0. Out: size rounded up to pages. */
	__u64 size;

	/** @flags: Must be zero. */
	__u32 flags;

	/** @handle: Out: the GEM handle. */
	__u32 handle;
};

/**
 * struct drm_weft_bo_mmap_offset - Argument of DRM_IOCTL_WEFT_BO_MMAP_OFFSET.
 */
struct drm_weft_bo_mmap_offset {
	/** @handle: GEM handle. */
	__u32 handle;

	/** @pad: Must be zero. */
	__u32 pad;

	/** @offset: Out: the fake offset to pass to mmap() on the DRM fd. */
	__u64 offset;
};

/**
 * struct drm_weft_vm_create - Argument of DRM_IOCTL_WEFT_VM_CREATE.
 */
struct drm_weft_vm_create {
	/** @flags: Must be zero. */
	__u32 flags;

	/** @id: Out: the VM's id, valid for this file only, never 0. */
	__u32 id;
};

/**
 * struct drm_weft_vm_destroy - Argument of DRM_IOCTL_WEFT_VM_DESTROY.
 *
 * Fails with -EBUSY while a queue uses the VM.
 */
struct drm_weft_vm_destroy {
	/** @id: The VM to destroy. */
	__u32 id;

	/** @pad: Must be zero. */
	__u32 pad;
};

/**
 * enum drm_weft_vm_bind_op_type - What a &struct drm_weft_vm_bind_op does.
 */
enum drm_weft_vm_bind_op_type {
	/**
	 * @DRM_WEFT_VM_BIND_OP_MAP: Map @size bytes of the buffer @handle,
	 * from @bo_offset, at @va. The range must be free.
	 */
	DRM_WEFT_VM_BIND_OP_MAP = 0,

	/**
	 * @DRM_WEFT_VM_BIND_OP_UNMAP: Unmap [@va, @va + @size). @handle,
	 * @bo_offset and @flags must be zero.
	 */
	DRM_WEFT_VM_BIND_OP_UNMAP = 1,
};

/* Map read-only for the GPU. */
#define DRM_WEFT_VM_BIND_OP_MAP_READONLY	0x00000001
/* Map executable: kernels' code must be in such mappings. */
#define DRM_WEFT_VM_BIND_OP_MAP_EXEC		0x00000002

/**
 * struct drm_weft_vm_bind_op - One mapping change.
 *
 * @va, @size and @bo_offset must be multiples of 4096, @size > 0, the
 * range inside [user_va_start, user_va_end) of &struct
 * drm_weft_device_info and, for a map, inside the buffer.
 */
struct drm_weft_vm_bind_op {
	/** @op: One of &enum drm_weft_vm_bind_op_type. */
	__u32 op;

	/** @flags: DRM_WEFT_VM_BIND_OP_MAP_* flags. */
	__u32 flags;

	/** @handle: GEM handle of the buffer to map. */
	__u32 handle;

	/** @pad: Must be zero. */
	__u32 pad;

	/** @bo_offset: Offset in the buffer of the first mapped byte. */
	__u64 bo_offset;

	/** @va: GPU virtual address. */
	__u64 va;

	/** @size: Size of the range in bytes. */
	__u64 size;
};

/*
 * Apply the operations asynchronously (since 1.1): the ioctl checks them,
 * looks the buffers up and allocates everything, then returns; the
 * operations run, in order with the VM's other asynchronous binds, once
 * every in-sync signalled and, for an unmap, every job already submitted
 * to the VM finished. The out-syncs then signal, with an error if an
 * operation failed (-EBUSY for a map over an existing mapping), in which
 * case the operations before it stay applied. Jobs submitted to the VM
 * after the ioctl wait for the bind.
 */
#define DRM_WEFT_VM_BIND_ASYNC		0x00000001

/**
 * struct drm_weft_vm_bind - Argument of DRM_IOCTL_WEFT_VM_BIND.
 *
 * Without %DRM_WEFT_VM_BIND_ASYNC, applies the operations in order,
 * synchronously: the ioctl first waits for @in_syncs and for the VM's
 * pending asynchronous binds; when it returns the GPU sees the new
 * mappings and @out_syncs hold a signalled fence. If one operation fails,
 * the ones before it stay applied, the ioctl returns its error and
 * @out_syncs are left alone.
 */
struct drm_weft_vm_bind {
	/** @vm_id: The VM. */
	__u32 vm_id;

	/** @flags: DRM_WEFT_VM_BIND_* flags. */
	__u32 flags;

	/** @ops: Array of &struct drm_weft_vm_bind_op. */
	struct drm_weft_obj_array ops;

	/**
	 * @in_syncs: &struct drm_weft_sync array the bind waits for
	 * (since 1.1).
	 */
	struct drm_weft_obj_array in_syncs;

	/**
	 * @out_syncs: &struct drm_weft_sync array signalled once the
	 * operations are applied (since 1.1).
	 */
	struct drm_weft_obj_array out_syncs;
};

/**
 * enum drm_weft_queue_priority - Scheduling priority of a queue.
 */
enum drm_weft_queue_priority {
	/** @DRM_WEFT_QUEUE_PRIORITY_LOW: Low. */
	DRM_WEFT_QUEUE_PRIORITY_LOW = 0,

	/** @DRM_WEFT_QUEUE_PRIORITY_NORMAL: Normal. */
	DRM_WEFT_QUEUE_PRIORITY_NORMAL = 1,

	/** @DRM_WEFT_QUEUE_PRIORITY_HIGH: High, CAP_SYS_NICE only. */
	DRM_WEFT_QUEUE_PRIORITY_HIGH = 2,
};

/**
 * struct drm_weft_queue_create - Argument of DRM_IOCTL_WEFT_QUEUE_CREATE.
 */
struct drm_weft_queue_create {
	/** @vm_id: The VM the queue's batches run in. */
	__u32 vm_id;

	/** @priority: One of &enum drm_weft_queue_priority. */
	__u32 priority;

	/** @flags: Must be zero. */
	__u32 flags;

	/** @id: Out: the queue's id, valid for this file only, never 0. */
	__u32 id;
};

/**
 * struct drm_weft_queue_destroy - Argument of DRM_IOCTL_WEFT_QUEUE_DESTROY.
 */
struct drm_weft_queue_destroy {
	/** @id: The queue to destroy. */
	__u32 id;

	/** @pad: Must be zero. */
	__u32 pad;
};

/* The sync object is a timeline; &drm_weft_sync.point is used. */
#define DRM_WEFT_SYNC_TIMELINE		0x00000001

/**
 * struct drm_weft_sync - A sync object a job waits on or signals.
 */
struct drm_weft_sync {
	/** @flags: DRM_WEFT_SYNC_* flags. */
	__u32 flags;

	/** @handle: The syncobj handle. */
	__u32 handle;

	/** @point: Timeline point; must be 0 for a binary syncobj. */
	__u64 point;
};

/**
 * struct drm_weft_job - One batch to run on a queue.
 */
struct drm_weft_job {
	/** @batch_va: GPU VA of the batch, 4-byte aligned. */
	__u64 batch_va;

	/** @batch_size: Size of the batch in bytes, a multiple of 4, > 0. */
	__u32 batch_size;

	/** @pad: Must be zero. */
	__u32 pad;

	/** @in_syncs: &struct drm_weft_sync array the job waits for. */
	struct drm_weft_obj_array in_syncs;

	/** @out_syncs: &struct drm_weft_sync array signalled at its end. */
	struct drm_weft_obj_array out_syncs;
};

/**
 * struct drm_weft_submit - Argument of DRM_IOCTL_WEFT_SUBMIT.
 *
 * Queues the jobs in order. Either all are queued or none is. A job also
 * waits for the asynchronous binds of its VM submitted before it.
 *
 * A job that faults, runs an invalid command or instruction, or runs
 * longer than the driver's job timeout (module parameter job_timeout_ms)
 * signals its out-syncs with an error (-EFAULT for a GPU page fault,
 * -ETIMEDOUT for a timeout, -EIO for others) and gets its queue banned
 * (since 1.1): the queue's other pending jobs signal -ECANCELED and
 * SUBMIT on it fails with -ECANCELED. Other queues, also of the same file
 * and VM, keep running. Destroy the queue and create a new one to go on.
 */
struct drm_weft_submit {
	/** @queue_id: The queue. */
	__u32 queue_id;

	/** @flags: Must be zero. */
	__u32 flags;

	/** @jobs: Array of &struct drm_weft_job. */
	struct drm_weft_obj_array jobs;
};

#define DRM_IOCTL_WEFT(dir, name, type) \
	DRM_IO##dir(DRM_COMMAND_BASE + DRM_WEFT_##name, struct drm_weft_##type)

#define DRM_IOCTL_WEFT_QUERY		DRM_IOCTL_WEFT(WR, QUERY, query)
#define DRM_IOCTL_WEFT_BO_CREATE	DRM_IOCTL_WEFT(WR, BO_CREATE, bo_create)
#define DRM_IOCTL_WEFT_BO_MMAP_OFFSET	DRM_IOCTL_WEFT(WR, BO_MMAP_OFFSET, bo_mmap_offset)
#define DRM_IOCTL_WEFT_VM_CREATE	DRM_IOCTL_WEFT(WR, VM_CREATE, vm_create)
#define DRM_IOCTL_WEFT_VM_DESTROY	DRM_IOCTL_WEFT(WR, VM_DESTROY, vm_destroy)
#define DRM_IOCTL_WEFT_VM_BIND		DRM_IOCTL_WEFT(WR, VM_BIND, vm_bind)
#define DRM_IOCTL_WEFT_QUEUE_CREATE	DRM_IOCTL_WEFT(WR, QUEUE_CREATE, queue_create)
#define DRM_IOCTL_WEFT_QUEUE_DESTROY	DRM_IOCTL_WEFT(WR, QUEUE_DESTROY, queue_destroy)
#define DRM_IOCTL_WEFT_SUBMIT		DRM_IOCTL_WEFT(WR, SUBMIT, submit)

#if defined(__cplusplus)
}
#endif

#endif /* _WEFT_DRM_H_ */
