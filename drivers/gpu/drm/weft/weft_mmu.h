/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Copyright (C) 2026 The Weft authors */

#ifndef __WEFT_MMU_H__
#define __WEFT_MMU_H__

#include <linux/mutex.h>
#include <linux/types.h>

#include <linux/dma-resv.h>

#include <drm/drm_gpuvm.h>
#include <drm/gpu_scheduler.h>

struct drm_file;
struct drm_weft_vm_bind_op;
struct weft_device;
struct weft_pt;
struct weft_vm_op_ctx;

/**
 * struct weft_vm - A GPU address space.
 *
 * The GPU VA space is tracked by @base; the page tables the device walks
 * are built in coherent DMA memory as mappings are bound, always from the
 * VM_BIND ioctl, never from the fence-signalling path.
 */
struct weft_vm {
	/** @base: The VA space and the VM's reference count. */
	struct drm_gpuvm base;

	/** @wdev: The device. */
	struct weft_device *wdev;

	/**
	 * @op_lock: Serializes bind operations: protects @base's VA tree
	 * and every page table of the VM.
	 */
	struct mutex op_lock;

	/** @root: The level-0 page table. */
	struct weft_pt *root;

	/**
	 * @bind_entity: Entity of the VM's asynchronous binds, on
	 * &weft_device.bind_sched.
	 */
	struct drm_sched_entity bind_entity;

	/** @ctx_id: Context id given to the device in SET_VM. */
	u32 ctx_id;

	/**
	 * @queue_count: Number of queues using the VM; protected by
	 * &weft_file.lock. VM_DESTROY fails with -EBUSY while it is not 0.
	 */
	u32 queue_count;

	/**
	 * @destroyed: VM_DESTROY ran; further binds fail. Protected by
	 * @op_lock.
	 */
	bool destroyed;
};

/**
 * struct weft_bind_job - An asynchronous VM_BIND: a scheduler job that
 * applies preallocated operations once its dependencies signalled.
 */
struct weft_bind_job {
	/** @base: The scheduler job. */
	struct drm_sched_job base;

	/** @vm: The VM, referenced. */
	struct weft_vm *vm;

	/** @count: Operations in @ops. */
	u32 count;

	/** @has_unmap: One operation is an unmap. */
	bool has_unmap;

	/** @ops: The prepared operations, in order. */
	struct weft_vm_op_ctx **ops;
};

static inline struct weft_vm *to_weft_vm(struct drm_gpuvm *gpuvm)
{
	return container_of(gpuvm, struct weft_vm, base);
}

struct weft_vm *weft_vm_create(struct weft_device *wdev);
void weft_vm_destroy(struct weft_vm *vm);
int weft_vm_bind_op(struct weft_vm *vm, struct drm_file *file,
		    const struct drm_weft_vm_bind_op *op);
u64 weft_vm_root_dma(struct weft_vm *vm);

struct weft_vm_op_ctx *weft_vm_op_prepare(struct weft_vm *vm,
					  struct drm_file *file,
					  const struct drm_weft_vm_bind_op *op);
int weft_vm_op_exec(struct weft_vm *vm, struct weft_vm_op_ctx *ctx);
void weft_vm_op_cleanup(struct weft_vm *vm, struct weft_vm_op_ctx *ctx);
bool weft_vm_op_is_unmap(const struct weft_vm_op_ctx *ctx);
bool weft_vm_op_range_busy(struct weft_vm *vm, struct weft_vm_op_ctx *ctx);
int weft_vm_wait_idle(struct weft_vm *vm, enum dma_resv_usage usage,
		      bool intr);

int weft_vm_bind_sched_init(struct weft_device *wdev);
struct weft_bind_job *weft_bind_job_create(struct weft_vm *vm, u32 count,
					   void *owner);
int weft_bind_job_add_op(struct weft_bind_job *job, struct drm_file *file,
			 const struct drm_weft_vm_bind_op *op);
void weft_bind_job_free_unarmed(struct weft_bind_job *job);
struct seq_file;
void weft_vm_debugfs_show(struct weft_vm *vm, struct seq_file *m);
size_t weft_vm_read(struct weft_vm *vm, u64 va, void *buf, size_t len);
struct dma_resv *weft_vm_resv(struct weft_vm *vm);

static inline struct weft_vm *weft_vm_get(struct weft_vm *vm)
{
	drm_gpuvm_get(&vm->base);
	return vm;
}

static inline void weft_vm_put(struct weft_vm *vm)
{
	if (vm)
		drm_gpuvm_put(&vm->base);
}

#endif /* __WEFT_MMU_H__ */
