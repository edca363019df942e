// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Copyright (C) 2026 The Weft authors */

#include <linux/capability.h>
#include <linux/dma-fence-chain.h>
#include <linux/dma-resv.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_debugfs.h>
#include <drm/drm_drv.h>
#include <drm/drm_exec.h>
#include <drm/drm_file.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_syncobj.h>
#include <drm/weft_drm.h>

#include "weft_device.h"
#include "weft_gem.h"
#include "weft_mmu.h"
#include "weft_mmu_regs.h"
#include "weft_sched.h"

/* Most elements one &struct drm_weft_obj_array may hold. */
#define WEFT_MAX_ARRAY_COUNT		4096

/* Largest element stride accepted in a &struct drm_weft_obj_array. */
#define WEFT_MAX_ARRAY_STRIDE		PAGE_SIZE

/**
 * weft_copy_array() - Copy a &struct drm_weft_obj_array from userspace.
 * @in: The array descriptor.
 * @obj_size: The kernel's element size; every structure is in its first
 *	version, so it is also the smallest stride accepted.
 * @out: Out: a kvmalloc()ed copy, NULL for an empty array.
 *
 * Copies min(stride, @obj_size) bytes of each element, zero-fills the
 * rest and requires the bytes beyond @obj_size to be zero.
 *
 * Return: 0, -EINVAL for a bad stride, a count above
 * %WEFT_MAX_ARRAY_COUNT or a nonzero tail, -EFAULT or -ENOMEM.
 */
static int weft_copy_array(const struct drm_weft_obj_array *in,
			   size_t obj_size, void **out)
{
	u8 __user *uptr = u64_to_user_ptr(in->array);
	u8 *arr;
	u32 i;
	int ret;

	*out = NULL;
	if (!in->count)
		return 0;

	if (in->stride < obj_size || in->stride > WEFT_MAX_ARRAY_STRIDE ||
	    in->count > WEFT_MAX_ARRAY_COUNT)
		return -EINVAL;

	arr = kvmalloc_array(in->count, obj_size, GFP_KERNEL);
	if (!arr)
		return -ENOMEM;

	if (in->stride == obj_size) {
		if (copy_from_user(arr, uptr, in->count * obj_size)) {
			ret = -EFAULT;
			goto err_free;
		}
	} else {
		for (i = 0; i < in->count; i++) {
			ret = copy_struct_from_user(arr + i * obj_size, obj_size,
						    uptr + (size_t)i * in->stride,
						    in->stride);
			if (ret) {
				/* A nonzero tail gives -E2BIG. */
				if (ret == -E2BIG)
					ret = -EINVAL;
				goto err_free;
			}
		}
	}

	*out = arr;
	return 0;

err_free:
	kvfree(arr);
	return ret;
}

static int weft_ioctl_query(struct drm_device *ddev, void *data,
			    struct drm_file *file)
{
	struct weft_device *wdev = to_weft_device(ddev);
	struct drm_weft_query *args = data;
	struct drm_weft_device_info info = {};
	void __user *uptr = u64_to_user_ptr(args->pointer);
	u32 caps = wdev->info.caps;

	if (args->type != DRM_WEFT_QUERY_DEVICE_INFO)
		return -EINVAL;

	if (!args->pointer) {
		args->size = sizeof(info);
		return 0;
	}

	info.signature = wdev->info.signature;
	info.hw_version = wdev->info.hw_version;
	/* Bit n set means SIMD width 1 << n. */
	if (caps & WEFT_CAP_SIMD8)
		info.simd_widths |= 8;
	if (caps & WEFT_CAP_SIMD16)
		info.simd_widths |= 16;
	if (caps & WEFT_CAP_SIMD32)
		info.simd_widths |= 32;
	info.max_wg_size = wdev->info.max_wg_size;
	info.slm_size = wdev->info.slm_size;
	info.va_bits = wdev->info.va_bits;
	info.num_queues = wdev->info.num_queues;
	info.num_cores = wdev->info.num_cores;
	info.user_va_start = wdev->info.user_va_start;
	info.user_va_end = wdev->info.user_va_end;

	if (copy_to_user(uptr, &info, min_t(u32, args->size, sizeof(info))))
		return -EFAULT;
	if (args->size > sizeof(info) &&
	    clear_user(uptr + sizeof(info), args->size - sizeof(info)))
		return -EFAULT;

	args->size = sizeof(info);
	return 0;
}

static int weft_ioctl_bo_create(struct drm_device *ddev, void *data,
				struct drm_file *file)
{
	struct drm_weft_bo_create *args = data;
	u64 size;
	int ret;

	if (args->flags || !args->size || args->size > U64_MAX - PAGE_SIZE + 1)
		return -EINVAL;

	size = PAGE_ALIGN(args->size);
	/*
	 * A buffer is pinned whole when first bound: one larger than the
	 * machine's memory could only end in the OOM killer.
	 */
	if (size > (u64)totalram_pages() << PAGE_SHIFT)
		return -ENOMEM;

	ret = weft_gem_create_with_handle(file, ddev, size, &args->handle);
	if (!ret)
		args->size = size;
	return ret;
}

static int weft_ioctl_bo_mmap_offset(struct drm_device *ddev, void *data,
				     struct drm_file *file)
{
	struct drm_weft_bo_mmap_offset *args = data;

	if (args->pad)
		return -EINVAL;

	return weft_gem_mmap_offset(file, args->handle, &args->offset);
}

static int weft_ioctl_vm_create(struct drm_device *ddev, void *data,
				struct drm_file *file)
{
	struct weft_file *wfile = file->driver_priv;
	struct drm_weft_vm_create *args = data;
	struct weft_vm *vm;
	int ret;

	if (args->flags)
		return -EINVAL;

	vm = weft_vm_create(to_weft_device(ddev));
	if (IS_ERR(vm))
		return PTR_ERR(vm);

	ret = xa_alloc(&wfile->vms, &args->id, vm, xa_limit_32b, GFP_KERNEL);
	if (ret)
		weft_vm_destroy(vm);
	return ret;
}

static int weft_ioctl_vm_destroy(struct drm_device *ddev, void *data,
				 struct drm_file *file)
{
	struct weft_file *wfile = file->driver_priv;
	struct drm_weft_vm_destroy *args = data;
	struct weft_vm *vm;
	int ret = 0;

	if (args->pad)
		return -EINVAL;

	mutex_lock(&wfile->lock);
	vm = xa_load(&wfile->vms, args->id);
	if (!vm)
		ret = -ENOENT;
	else if (vm->queue_count)
		ret = -EBUSY;
	else
		xa_erase(&wfile->vms, args->id);
	mutex_unlock(&wfile->lock);

	if (!ret)
		weft_vm_destroy(vm);
	return ret;
}

static struct weft_vm *weft_file_get_vm(struct weft_file *wfile, u32 id)
{
	struct weft_vm *vm;

	xa_lock(&wfile->vms);
	vm = xa_load(&wfile->vms, id);
	if (vm)
		weft_vm_get(vm);
	xa_unlock(&wfile->vms);
	return vm;
}

static int weft_check_bind_op(struct weft_device *wdev,
			      const struct drm_weft_vm_bind_op *op)
{
	const u64 mask = WEFT_MMU_PAGE_SIZE - 1;

	if (op->pad)
		return -EINVAL;

	switch (op->op) {
	case DRM_WEFT_VM_BIND_OP_MAP:
		if (op->flags & ~(DRM_WEFT_VM_BIND_OP_MAP_READONLY |
				  DRM_WEFT_VM_BIND_OP_MAP_EXEC))
			return -EINVAL;
		break;
	case DRM_WEFT_VM_BIND_OP_UNMAP:
		if (op->flags || op->handle || op->bo_offset)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}

	if (!op->size || (op->va & mask) || (op->size & mask) ||
	    (op->bo_offset & mask))
		return -EINVAL;

	if (op->va < wdev->info.user_va_start ||
	    op->va >= wdev->info.user_va_end ||
	    op->size > wdev->info.user_va_end - op->va)
		return -EINVAL;

	return 0;
}

static int weft_ioctl_queue_create(struct drm_device *ddev, void *data,
				   struct drm_file *file)
{
	struct weft_file *wfile = file->driver_priv;
	struct drm_weft_queue_create *args = data;
	struct weft_queue *queue;
	struct weft_vm *vm;
	int ret;

	if (args->flags || args->priority > DRM_WEFT_QUEUE_PRIORITY_HIGH)
		return -EINVAL;

	if (args->priority == DRM_WEFT_QUEUE_PRIORITY_HIGH &&
	    !capable(CAP_SYS_NICE))
		return -EACCES;

	mutex_lock(&wfile->lock);
	vm = xa_load(&wfile->vms, args->vm_id);
	if (!vm) {
		ret = -ENOENT;
		goto out_unlock;
	}

	queue = weft_queue_create(to_weft_device(ddev), vm, args->priority);
	if (IS_ERR(queue)) {
		ret = PTR_ERR(queue);
		goto out_unlock;
	}

	ret = xa_alloc(&wfile->queues, &args->id, queue, xa_limit_32b,
		       GFP_KERNEL);
	if (ret) {
		weft_queue_put(queue);
		goto out_unlock;
	}
	queue->id = args->id;
	queue->wfile = wfile;
	vm->queue_count++;

out_unlock:
	mutex_unlock(&wfile->lock);
	return ret;
}

static int weft_ioctl_queue_destroy(struct drm_device *ddev, void *data,
				    struct drm_file *file)
{
	struct weft_file *wfile = file->driver_priv;
	struct drm_weft_queue_destroy *args = data;
	struct weft_queue *queue;

	if (args->pad)
		return -EINVAL;

	mutex_lock(&wfile->lock);
	queue = xa_erase(&wfile->queues, args->id);
	if (queue)
		queue->vm->queue_count--;
	mutex_unlock(&wfile->lock);

	if (!queue)
		return -ENOENT;

	weft_queue_put(queue);
	return 0;
}

/**
 * struct weft_submit_job - One job of a SUBMIT being prepared.
 */
struct weft_submit_job {
	/** @job: The job; NULL once pushed. */
	struct weft_job *job;

	/** @out_count: Number of entries in @out, @syncobjs and @chains. */
	u32 out_count;

	/** @out: The out_syncs array. */
	struct drm_weft_sync *out;

	/** @syncobjs: The syncobjs of @out, referenced. */
	struct drm_syncobj **syncobjs;

	/** @chains: Preallocated chain nodes of timeline points. */
	struct dma_fence_chain **chains;
};

static int weft_check_sync(const struct drm_weft_sync *sync)
{
	if (sync->flags & ~DRM_WEFT_SYNC_TIMELINE)
		return -EINVAL;
	if (!(sync->flags & DRM_WEFT_SYNC_TIMELINE) && sync->point)
		return -EINVAL;
	return 0;
}

static int weft_check_job(struct weft_device *wdev,
			  const struct drm_weft_job *job)
{
	if (job->pad)
		return -EINVAL;

	if (!job->batch_size || job->batch_size % 4 || job->batch_va % 4 ||
	    job->batch_size > WEFT_MAX_BATCH_SIZE)
		return -EINVAL;

	if (job->batch_va < wdev->info.user_va_start ||
	    job->batch_va >= wdev->info.user_va_end ||
	    job->batch_size > wdev->info.user_va_end - job->batch_va)
		return -EINVAL;

	return 0;
}

/*
 * Makes @job depend on the fences of an in_syncs array or, with @job NULL
 * (a synchronous VM_BIND), waits for them, interruptibly.
 */
static int weft_prepare_in_syncs(struct drm_file *file,
				 struct drm_sched_job *job,
				 const struct drm_weft_obj_array *arr)
{
	struct drm_weft_sync *syncs;
	u32 i;
	int ret;

	ret = weft_copy_array(arr, sizeof(*syncs), (void **)&syncs);
	if (ret)
		return ret;

	for (i = 0; i < arr->count; i++) {
		struct dma_fence *fence;
		long wret;

		ret = weft_check_sync(&syncs[i]);
		if (ret)
			break;

		ret = drm_syncobj_find_fence(file, syncs[i].handle,
					     syncs[i].point, 0, &fence);
		if (ret)
			break;

		if (job) {
			/* Consumes the reference, even on error. */
			ret = drm_sched_job_add_dependency(job, fence);
		} else {
			wret = dma_fence_wait(fence, true);
			dma_fence_put(fence);
			ret = wret < 0 ? wret : 0;
		}
		if (ret)
			break;
	}

	kvfree(syncs);
	return ret;
}

static int weft_submit_prepare_out_syncs(struct drm_file *file,
					 struct weft_submit_job *sjob,
					 const struct drm_weft_obj_array *arr)
{
	u32 i;
	int ret;

	ret = weft_copy_array(arr, sizeof(*sjob->out), (void **)&sjob->out);
	if (ret || !arr->count)
		return ret;

	sjob->syncobjs = kvcalloc(arr->count, sizeof(*sjob->syncobjs),
				  GFP_KERNEL);
	sjob->chains = kvcalloc(arr->count, sizeof(*sjob->chains), GFP_KERNEL);
	if (!sjob->syncobjs || !sjob->chains)
		return -ENOMEM;

	for (i = 0; i < arr->count; i++) {
		const struct drm_weft_sync *sync = &sjob->out[i];

		ret = weft_check_sync(sync);
		if (ret)
			return ret;

		sjob->syncobjs[i] = drm_syncobj_find(file, sync->handle);
		sjob->out_count = i + 1;
		if (!sjob->syncobjs[i])
			return -ENOENT;

		if (sync->flags & DRM_WEFT_SYNC_TIMELINE) {
			sjob->chains[i] = dma_fence_chain_alloc();
			if (!sjob->chains[i])
				return -ENOMEM;
		}
	}
	return 0;
}

static void weft_submit_signal_out_syncs(struct weft_submit_job *sjob,
					 struct dma_fence *fence)
{
	u32 i;

	for (i = 0; i < sjob->out_count; i++) {
		if (sjob->chains[i]) {
			drm_syncobj_add_point(sjob->syncobjs[i], sjob->chains[i],
					      fence, sjob->out[i].point);
			sjob->chains[i] = NULL;
		} else {
			drm_syncobj_replace_fence(sjob->syncobjs[i], fence);
		}
	}
}

static void weft_submit_job_cleanup(struct weft_submit_job *sjob)
{
	u32 i;

	weft_job_free_unarmed(sjob->job);
	for (i = 0; i < sjob->out_count; i++) {
		if (sjob->syncobjs[i])
			drm_syncobj_put(sjob->syncobjs[i]);
		dma_fence_chain_free(sjob->chains[i]);
	}
	kvfree(sjob->syncobjs);
	kvfree(sjob->chains);
	kvfree(sjob->out);
}

static int weft_vm_bind_sync(struct drm_device *ddev, struct drm_file *file,
			     struct weft_vm *vm, struct drm_weft_vm_bind *args,
			     const struct drm_weft_vm_bind_op *ops)
{
	struct weft_device *wdev = to_weft_device(ddev);
	struct weft_submit_job sjob = {};
	struct dma_fence *stub;
	u32 i;
	int ret;

	/* Out-syncs are checked before anything is applied. */
	ret = weft_submit_prepare_out_syncs(file, &sjob, &args->out_syncs);
	if (ret)
		goto out;

	ret = weft_prepare_in_syncs(file, NULL, &args->in_syncs);
	if (!ret && args->ops.count)
		ret = weft_vm_wait_idle(vm, DMA_RESV_USAGE_KERNEL, true);
	if (ret)
		goto out;

	for (i = 0; i < args->ops.count; i++) {
		ret = weft_check_bind_op(wdev, &ops[i]);
		if (ret)
			goto out;
		ret = weft_vm_bind_op(vm, file, &ops[i]);
		if (ret)
			goto out;
	}

	stub = dma_fence_get_stub();
	weft_submit_signal_out_syncs(&sjob, stub);
	dma_fence_put(stub);
out:
	weft_submit_job_cleanup(&sjob);
	return ret;
}

static int weft_vm_bind_async(struct drm_device *ddev, struct drm_file *file,
			      struct weft_vm *vm, struct drm_weft_vm_bind *args,
			      const struct drm_weft_vm_bind_op *ops)
{
	struct weft_device *wdev = to_weft_device(ddev);
	struct weft_submit_job sjob = {};
	struct weft_bind_job *job;
	struct dma_resv *resv = weft_vm_resv(vm);
	struct dma_fence *fence;
	struct drm_exec exec;
	u32 i;
	int ret;

	for (i = 0; i < args->ops.count; i++) {
		ret = weft_check_bind_op(wdev, &ops[i]);
		if (ret)
			return ret;
	}

	job = weft_bind_job_create(vm, args->ops.count, file);
	if (IS_ERR(job))
		return PTR_ERR(job);

	/* Everything is allocated here, none of it when the bind runs. */
	for (i = 0; i < args->ops.count; i++) {
		ret = weft_bind_job_add_op(job, file, &ops[i]);
		if (ret)
			goto out;
	}

	ret = weft_prepare_in_syncs(file, &job->base, &args->in_syncs);
	if (ret)
		goto out;
	ret = weft_submit_prepare_out_syncs(file, &sjob, &args->out_syncs);
	if (ret)
		goto out;

	drm_exec_init(&exec, DRM_EXEC_INTERRUPTIBLE_WAIT, 0);
	drm_exec_until_all_locked(&exec) {
		ret = drm_gpuvm_prepare_vm(&vm->base, &exec, 1);
		drm_exec_retry_on_contention(&exec);
		if (ret)
			goto out_unlock;
	}

	/*
	 * An unmap waits for every job already submitted to the VM: the
	 * buffer may be freed once unmapped. Binds of the VM run in order on
	 * its entity, and later jobs wait for the KERNEL fence added here.
	 */
	if (job->has_unmap) {
		ret = drm_sched_job_add_resv_dependencies(&job->base, resv,
							  DMA_RESV_USAGE_BOOKKEEP);
		if (ret)
			goto out_unlock;
	}

	drm_sched_job_arm(&job->base);
	fence = dma_fence_get(&job->base.s_fence->finished);
	drm_sched_entity_push_job(&job->base);
	job = NULL;
	dma_resv_add_fence(resv, fence, DMA_RESV_USAGE_KERNEL);
	weft_submit_signal_out_syncs(&sjob, fence);
	dma_fence_put(fence);

out_unlock:
	drm_exec_fini(&exec);
out:
	weft_bind_job_free_unarmed(job);
	weft_submit_job_cleanup(&sjob);
	return ret;
}

static int weft_ioctl_vm_bind(struct drm_device *ddev, void *data,
			      struct drm_file *file)
{
	struct weft_file *wfile = file->driver_priv;
	struct drm_weft_vm_bind *args = data;
	struct drm_weft_vm_bind_op *ops;
	struct weft_vm *vm;
	int ret;

	if (args->flags & ~DRM_WEFT_VM_BIND_ASYNC)
		return -EINVAL;

	ret = weft_copy_array(&args->ops, sizeof(*ops), (void **)&ops);
	if (ret)
		return ret;

	vm = weft_file_get_vm(wfile, args->vm_id);
	if (!vm) {
		ret = -ENOENT;
		goto out_free;
	}

	if (args->flags & DRM_WEFT_VM_BIND_ASYNC)
		ret = weft_vm_bind_async(ddev, file, vm, args, ops);
	else
		ret = weft_vm_bind_sync(ddev, file, vm, args, ops);

	weft_vm_put(vm);
out_free:
	kvfree(ops);
	return ret;
}

static struct weft_queue *weft_file_get_queue(struct weft_file *wfile, u32 id)
{
	struct weft_queue *queue;

	xa_lock(&wfile->queues);
	queue = xa_load(&wfile->queues, id);
	if (queue)
		kref_get(&queue->refcount);
	xa_unlock(&wfile->queues);
	return queue;
}

static int weft_ioctl_submit(struct drm_device *ddev, void *data,
			     struct drm_file *file)
{
	struct weft_device *wdev = to_weft_device(ddev);
	struct weft_file *wfile = file->driver_priv;
	struct drm_weft_submit *args = data;
	struct weft_submit_job *sjobs = NULL;
	struct drm_weft_job *jobs;
	struct weft_queue *queue;
	struct dma_resv *resv;
	struct drm_exec exec;
	u32 i;
	int ret;

	if (args->flags)
		return -EINVAL;

	ret = weft_copy_array(&args->jobs, sizeof(*jobs), (void **)&jobs);
	if (ret)
		return ret;

	queue = weft_file_get_queue(wfile, args->queue_id);
	if (!queue) {
		ret = -ENOENT;
		goto out_free_jobs;
	}

	/* A banned queue takes no more jobs. */
	if (weft_queue_error(queue)) {
		ret = -ECANCELED;
		goto out_put_queue;
	}

	if (!args->jobs.count)
		goto out_put_queue;

	sjobs = kvcalloc(args->jobs.count, sizeof(*sjobs), GFP_KERNEL);
	if (!sjobs) {
		ret = -ENOMEM;
		goto out_put_queue;
	}

	/* Check and prepare everything: nothing may fail once armed. */
	for (i = 0; i < args->jobs.count; i++) {
		ret = weft_check_job(wdev, &jobs[i]);
		if (ret)
			goto out_cleanup;

		sjobs[i].job = weft_job_create(queue, jobs[i].batch_va,
					       jobs[i].batch_size, file);
		if (IS_ERR(sjobs[i].job)) {
			ret = PTR_ERR(sjobs[i].job);
			sjobs[i].job = NULL;
			goto out_cleanup;
		}

		ret = weft_prepare_in_syncs(file, &sjobs[i].job->base,
					    &jobs[i].in_syncs);
		if (ret)
			goto out_cleanup;

		ret = weft_submit_prepare_out_syncs(file, &sjobs[i],
						    &jobs[i].out_syncs);
		if (ret)
			goto out_cleanup;
	}

	mutex_lock(&queue->submit_lock);
	resv = weft_vm_resv(queue->vm);
	drm_exec_init(&exec, DRM_EXEC_INTERRUPTIBLE_WAIT, 0);
	drm_exec_until_all_locked(&exec) {
		ret = drm_gpuvm_prepare_vm(&queue->vm->base, &exec,
					   args->jobs.count);
		drm_exec_retry_on_contention(&exec);
		if (ret)
			goto out_unlock;
	}

	/* Jobs wait for the VM's pending asynchronous binds. */
	for (i = 0; i < args->jobs.count; i++) {
		ret = drm_sched_job_add_resv_dependencies(&sjobs[i].job->base,
							  resv,
							  DMA_RESV_USAGE_KERNEL);
		if (ret)
			goto out_unlock;
	}

	for (i = 0; i < args->jobs.count; i++) {
		struct dma_fence *fence = weft_job_arm(sjobs[i].job);

		weft_job_push(sjobs[i].job);
		sjobs[i].job = NULL;
		dma_resv_add_fence(resv, fence, DMA_RESV_USAGE_BOOKKEEP);
		weft_submit_signal_out_syncs(&sjobs[i], fence);
		dma_fence_put(fence);
	}

out_unlock:
	drm_exec_fini(&exec);
	mutex_unlock(&queue->submit_lock);
out_cleanup:
	for (i = 0; i < args->jobs.count; i++)
		weft_submit_job_cleanup(&sjobs[i]);
	kvfree(sjobs);
out_put_queue:
	weft_queue_put(queue);
out_free_jobs:
	kvfree(jobs);
	return ret;
}

static int weft_open(struct drm_device *ddev, struct drm_file *file)
{
	struct weft_file *wfile;

	wfile = kzalloc(sizeof(*wfile), GFP_KERNEL);
	if (!wfile)
		return -ENOMEM;

	wfile->wdev = to_weft_device(ddev);
	mutex_init(&wfile->lock);
	xa_init_flags(&wfile->vms, XA_FLAGS_ALLOC1);
	xa_init_flags(&wfile->queues, XA_FLAGS_ALLOC1);
	atomic64_set(&wfile->retired_busy_ns, 0);
	file->driver_priv = wfile;
	return 0;
}

static void weft_postclose(struct drm_device *ddev, struct drm_file *file)
{
	struct weft_file *wfile = file->driver_priv;
	struct weft_queue *queue;
	struct weft_vm *vm;
	unsigned long id;

	/* Queues first: they hold their VMs. */
	xa_for_each(&wfile->queues, id, queue) {
		xa_erase(&wfile->queues, id);
		weft_queue_put(queue);
	}
	xa_for_each(&wfile->vms, id, vm) {
		xa_erase(&wfile->vms, id);
		weft_vm_destroy(vm);
	}

	xa_destroy(&wfile->queues);
	xa_destroy(&wfile->vms);
	mutex_destroy(&wfile->lock);
	kfree(wfile);
}

/*
 * fdinfo, per Documentation/gpu/drm-usage-stats.rst: the core prints
 * drm-driver, drm-client-id and drm-pdev; the file's GPU time is its
 * queues' busy time, its memory the standard GEM statistics.
 */
static void weft_show_fdinfo(struct drm_printer *p, struct drm_file *file)
{
	struct weft_file *wfile = file->driver_priv;
	struct weft_queue *queue;
	unsigned long id;
	u64 busy;

	busy = atomic64_read(&wfile->retired_busy_ns);
	xa_lock(&wfile->queues);
	xa_for_each(&wfile->queues, id, queue)
		busy += weft_queue_busy_ns(queue);
	xa_unlock(&wfile->queues);

	drm_printf(p, "drm-engine-compute:\t%llu ns\n", busy);
	drm_show_memory_stats(p, file);
}

static int weft_debugfs_rings(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct weft_device *wdev = to_weft_device(entry->dev);
	u32 i;

	for (i = 0; i < wdev->num_hwq; i++)
		weft_hwq_debugfs_show(wdev->hwq[i], m);
	return 0;
}

static int weft_debugfs_queues(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct weft_device *wdev = to_weft_device(entry->dev);
	struct weft_queue *queue;

	mutex_lock(&wdev->queues_lock);
	list_for_each_entry(queue, &wdev->queues, node)
		weft_queue_debugfs_show(queue, m);
	mutex_unlock(&wdev->queues_lock);
	return 0;
}

static int weft_debugfs_vms(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct weft_device *wdev = to_weft_device(entry->dev);
	struct weft_vm *vm;
	unsigned long id;

	xa_lock(&wdev->ctx_ids);
	xa_for_each(&wdev->ctx_ids, id, vm) {
		/* Only VMs still alive: a reference is taken under the lock. */
		if (!kref_get_unless_zero(&vm->base.kref))
			continue;
		xa_unlock(&wdev->ctx_ids);
		weft_vm_debugfs_show(vm, m);
		weft_vm_put(vm);
		xa_lock(&wdev->ctx_ids);
	}
	xa_unlock(&wdev->ctx_ids);
	return 0;
}

static const struct drm_debugfs_info weft_debugfs_list[] = {
	{ "weft_rings", weft_debugfs_rings, 0 },
	{ "weft_queues", weft_debugfs_queues, 0 },
	{ "weft_vms", weft_debugfs_vms, 0 },
};

static void weft_debugfs_init(struct drm_minor *minor)
{
	drm_debugfs_add_files(minor->dev, weft_debugfs_list,
			      ARRAY_SIZE(weft_debugfs_list));
}

static const struct drm_ioctl_desc weft_drm_ioctls[] = {
#define WEFT_IOCTL(n, func) \
	DRM_IOCTL_DEF_DRV(WEFT_##n, weft_ioctl_##func, DRM_RENDER_ALLOW)
	WEFT_IOCTL(QUERY, query),
	WEFT_IOCTL(BO_CREATE, bo_create),
	WEFT_IOCTL(BO_MMAP_OFFSET, bo_mmap_offset),
	WEFT_IOCTL(VM_CREATE, vm_create),
	WEFT_IOCTL(VM_DESTROY, vm_destroy),
	WEFT_IOCTL(VM_BIND, vm_bind),
	WEFT_IOCTL(QUEUE_CREATE, queue_create),
	WEFT_IOCTL(QUEUE_DESTROY, queue_destroy),
	WEFT_IOCTL(SUBMIT, submit),
#undef WEFT_IOCTL
};

static const struct file_operations weft_drm_fops = {
	.owner = THIS_MODULE,
	DRM_GEM_FOPS,
	.show_fdinfo = drm_show_fdinfo,
};

static const struct drm_driver weft_drm_driver = {
	.driver_features = DRIVER_RENDER | DRIVER_GEM | DRIVER_GEM_GPUVA |
			   DRIVER_SYNCOBJ | DRIVER_SYNCOBJ_TIMELINE,
	.open = weft_open,
	.postclose = weft_postclose,
	.show_fdinfo = weft_show_fdinfo,
#ifdef CONFIG_DEBUG_FS
	.debugfs_init = weft_debugfs_init,
#endif
	.ioctls = weft_drm_ioctls,
	.num_ioctls = ARRAY_SIZE(weft_drm_ioctls),
	.fops = &weft_drm_fops,
	.name = "weft",
	.desc = "Weft GPU",
	.date = "20261121",
	.major = 1,
	.minor = 1,
	.gem_create_object = weft_gem_create_object,
	.gem_prime_import_sg_table = drm_gem_shmem_prime_import_sg_table,
};

static int weft_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct weft_device *wdev;
	int ret;

	wdev = devm_drm_dev_alloc(&pdev->dev, &weft_drm_driver,
				  struct weft_device, base);
	if (IS_ERR(wdev))
		return PTR_ERR(wdev);

	wdev->pdev = pdev;
	pci_set_drvdata(pdev, wdev);

	ret = weft_device_init(wdev);
	if (ret)
		return ret;

	ret = drm_dev_register(&wdev->base, 0);
	if (ret) {
		weft_device_fini(wdev);
		return ret;
	}
	return 0;
}

static void weft_pci_remove(struct pci_dev *pdev)
{
	struct weft_device *wdev = pci_get_drvdata(pdev);

	drm_dev_unplug(&wdev->base);
	weft_device_fini(wdev);
}

static const struct pci_device_id weft_pci_ids[] = {
	/* QEMU's ivshmem-doorbell; probe checks the Weft signature. */
	{ PCI_DEVICE(PCI_VENDOR_ID_REDHAT_QUMRANET, 0x1110) },
	{ }
};
MODULE_DEVICE_TABLE(pci, weft_pci_ids);

static struct pci_driver weft_pci_driver = {
	.name = "weft",
	.id_table = weft_pci_ids,
	.probe = weft_pci_probe,
	.remove = weft_pci_remove,
};
module_pci_driver(weft_pci_driver);

MODULE_AUTHOR("The Weft authors");
MODULE_DESCRIPTION("DRM driver for the Weft compute GPU");
MODULE_LICENSE("Dual MIT/GPL");
