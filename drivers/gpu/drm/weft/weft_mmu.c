// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Copyright (C) 2026 The Weft authors */

#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/highmem.h>
#include <linux/scatterlist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_managed.h>
#include <drm/drm_gpuvm.h>
#include <drm/weft_drm.h>

#include "weft_device.h"
#include "weft_gem.h"
#include "weft_mmu.h"
#include "weft_mmu_regs.h"

/**
 * struct weft_pt - One page table: a 4 KiB page of coherent DMA memory.
 */
struct weft_pt {
	/** @entries: CPU view of the 512 entries. */
	u64 *entries;

	/** @dma: Device (guest physical) address of @entries. */
	dma_addr_t dma;

	/** @children: Next-level tables, NULL at level 3. */
	struct weft_pt **children;

	/** @node: Entry in a &weft_vm_op_ctx pool until used. */
	struct list_head node;
};

/**
 * struct weft_vm_op_ctx - State of one VM_BIND operation.
 *
 * Everything a step may need, page tables included, is allocated by
 * weft_vm_op_prepare(), outside the fence-signalling path, so that
 * weft_vm_op_exec() never allocates and an asynchronous bind can run as a
 * scheduler job.
 */
struct weft_vm_op_ctx {
	/** @op: The operation, checked. */
	struct drm_weft_vm_bind_op op;

	/** @obj: The buffer, referenced (map only). */
	struct drm_gem_object *obj;

	/** @vm_bo: The buffer's VM binding, referenced (map only). */
	struct drm_gpuvm_bo *vm_bo;

	/** @sgt: The buffer's pages (map only). */
	struct sg_table *sgt;

	/** @pte_flags: WEFT_PTE_* bits of the new leaf entries (map only). */
	u64 pte_flags;

	/** @new_va: Up to three preallocated &drm_gpuva: map, prev, next. */
	struct drm_gpuva *new_va[3];

	/** @pts_upper: Preallocated level-1 and level-2 tables. */
	struct list_head pts_upper;

	/** @pts_leaf: Preallocated level-3 tables. */
	struct list_head pts_leaf;
};

static struct drm_gpuva *weft_op_ctx_take_va(struct weft_vm_op_ctx *ctx)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ctx->new_va); i++) {
		struct drm_gpuva *va = ctx->new_va[i];

		if (va) {
			ctx->new_va[i] = NULL;
			return va;
		}
	}
	return NULL;
}

static struct device *weft_vm_dev(struct weft_vm *vm)
{
	return vm->wdev->base.dev;
}

static unsigned int weft_pt_index(u64 va, unsigned int level)
{
	unsigned int shift = WEFT_MMU_PAGE_SHIFT +
			     (WEFT_MMU_LEVELS - 1 - level) * WEFT_MMU_LEVEL_BITS;

	return (va >> shift) & (WEFT_MMU_ENTRIES - 1);
}

static struct weft_pt *weft_pt_alloc(struct weft_vm *vm, unsigned int level)
{
	struct weft_pt *pt;

	pt = kzalloc(sizeof(*pt), GFP_KERNEL);
	if (!pt)
		return NULL;

	if (level < WEFT_MMU_LEVELS - 1) {
		pt->children = kcalloc(WEFT_MMU_ENTRIES, sizeof(*pt->children),
				       GFP_KERNEL);
		if (!pt->children)
			goto err_free;
	}

	pt->entries = dma_alloc_coherent(weft_vm_dev(vm), WEFT_MMU_PAGE_SIZE,
					 &pt->dma, GFP_KERNEL);
	if (!pt->entries)
		goto err_free;
	return pt;

err_free:
	kfree(pt->children);
	kfree(pt);
	return NULL;
}

static void weft_pt_free(struct weft_vm *vm, struct weft_pt *pt,
			 unsigned int level)
{
	unsigned int i;

	if (!pt)
		return;

	if (pt->children) {
		for (i = 0; i < WEFT_MMU_ENTRIES; i++)
			weft_pt_free(vm, pt->children[i], level + 1);
		kfree(pt->children);
	}
	dma_free_coherent(weft_vm_dev(vm), WEFT_MMU_PAGE_SIZE, pt->entries,
			  pt->dma);
	kfree(pt);
}

/*
 * Returns the level-3 table covering @va, taking missing tables from the
 * pools of @ctx if not NULL.
 */
static struct weft_pt *weft_pt_walk(struct weft_vm *vm, u64 va,
				    struct weft_vm_op_ctx *ctx)
{
	struct weft_pt *pt = vm->root;
	unsigned int level;

	for (level = 0; level < WEFT_MMU_LEVELS - 1; level++) {
		unsigned int idx = weft_pt_index(va, level);
		struct weft_pt *child = pt->children[idx];

		if (!child) {
			struct list_head *pool;

			if (!ctx)
				return NULL;
			pool = level + 1 < WEFT_MMU_LEVELS - 1 ?
			       &ctx->pts_upper : &ctx->pts_leaf;
			child = list_first_entry_or_null(pool, struct weft_pt,
							 node);
			if (WARN_ON_ONCE(!child))
				return ERR_PTR(-ENOMEM);
			list_del_init(&child->node);
			pt->children[idx] = child;
			WRITE_ONCE(pt->entries[idx],
				   (child->dma & WEFT_PTE_ADDR_MASK) |
				   WEFT_PTE_VALID);
		}
		pt = child;
	}
	return pt;
}

static void weft_vm_unmap_pages(struct weft_vm *vm, u64 va, u64 size)
{
	u64 end = va + size;

	while (va < end) {
		struct weft_pt *pt = weft_pt_walk(vm, va, NULL);
		u64 next = ALIGN(va + 1, 1ULL << (WEFT_MMU_PAGE_SHIFT +
						  WEFT_MMU_LEVEL_BITS));

		next = min(next, end);
		if (pt) {
			for (; va < next; va += WEFT_MMU_PAGE_SIZE)
				WRITE_ONCE(pt->entries[weft_pt_index(va, 3)], 0);
		}
		va = next;
	}
	/* Make the cleared entries visible before anything else. */
	wmb();
}

static int weft_vm_map_pages(struct weft_vm *vm, struct weft_vm_op_ctx *ctx,
			     u64 va, u64 offset, u64 size)
{
	struct sg_table *sgt = ctx->sgt;
	u64 pte_flags = ctx->pte_flags;
	struct sg_dma_page_iter iter;
	u64 start = va, end = va + size;
	struct weft_pt *pt = NULL;

	for_each_sgtable_dma_page(sgt, &iter, offset >> WEFT_MMU_PAGE_SHIFT) {
		dma_addr_t addr = sg_page_iter_dma_address(&iter);

		if (va >= end)
			break;

		if (!pt || !weft_pt_index(va, 3)) {
			pt = weft_pt_walk(vm, va, ctx);
			if (IS_ERR(pt)) {
				weft_vm_unmap_pages(vm, start, va - start);
				return PTR_ERR(pt);
			}
		}
		WRITE_ONCE(pt->entries[weft_pt_index(va, 3)],
			   (addr & WEFT_PTE_ADDR_MASK) | pte_flags);
		va += WEFT_MMU_PAGE_SIZE;
	}

	/* The caller checked the range against the buffer's size. */
	if (WARN_ON_ONCE(va != end)) {
		weft_vm_unmap_pages(vm, start, va - start);
		return -EINVAL;
	}
	/* The entries must be visible before the GPU can use the VA. */
	wmb();
	return 0;
}

static int weft_vm_sm_step_map(struct drm_gpuva_op *op, void *priv)
{
	struct weft_vm_op_ctx *ctx = priv;
	struct weft_vm *vm = to_weft_vm(ctx->vm_bo->vm);
	struct drm_gem_object *obj = op->map.gem.obj;
	struct drm_gpuva *va;
	int ret;

	ret = weft_vm_map_pages(vm, ctx, op->map.va.addr, op->map.gem.offset,
				op->map.va.range);
	if (ret)
		return ret;

	va = weft_op_ctx_take_va(ctx);
	drm_gpuva_map(&vm->base, va, &op->map);

	mutex_lock(&to_weft_bo(obj)->gpuva_list_lock);
	drm_gpuva_link(va, ctx->vm_bo);
	mutex_unlock(&to_weft_bo(obj)->gpuva_list_lock);
	return 0;
}

/* Unlinks and frees @va; the buffer may be freed by this. */
static void weft_vm_release_va(struct drm_gpuva *va)
{
	struct drm_gem_object *obj = va->gem.obj;

	/*
	 * Keep the buffer, and so its lock, alive until we unlocked it; an
	 * asynchronous unmap runs in the fence-signalling path, so the last
	 * reference is dropped by a worker.
	 */
	drm_gem_object_get(obj);
	mutex_lock(&to_weft_bo(obj)->gpuva_list_lock);
	drm_gpuva_unlink(va);
	mutex_unlock(&to_weft_bo(obj)->gpuva_list_lock);
	weft_gem_put_deferred(obj);
	kfree(va);
}

static int weft_vm_sm_step_remap(struct drm_gpuva_op *op, void *priv)
{
	struct weft_vm_op_ctx *ctx = priv;
	struct drm_gpuva *orig = op->remap.unmap->va;
	struct weft_vm *vm = to_weft_vm(orig->vm);
	struct drm_gem_object *obj = orig->gem.obj;
	struct drm_gpuva *prev = NULL, *next = NULL;
	u64 start = orig->va.addr, end = orig->va.addr + orig->va.range;

	if (op->remap.prev) {
		prev = weft_op_ctx_take_va(ctx);
		start = op->remap.prev->va.addr + op->remap.prev->va.range;
	}
	if (op->remap.next) {
		next = weft_op_ctx_take_va(ctx);
		end = op->remap.next->va.addr;
	}

	weft_vm_unmap_pages(vm, start, end - start);
	drm_gpuva_remap(prev, next, &op->remap);

	mutex_lock(&to_weft_bo(obj)->gpuva_list_lock);
	if (prev)
		drm_gpuva_link(prev, orig->vm_bo);
	if (next)
		drm_gpuva_link(next, orig->vm_bo);
	mutex_unlock(&to_weft_bo(obj)->gpuva_list_lock);

	weft_vm_release_va(orig);
	return 0;
}

static int weft_vm_sm_step_unmap(struct drm_gpuva_op *op, void *priv)
{
	struct drm_gpuva *va = op->unmap.va;
	struct weft_vm *vm = to_weft_vm(va->vm);

	weft_vm_unmap_pages(vm, va->va.addr, va->va.range);
	drm_gpuva_unmap(&op->unmap);
	weft_vm_release_va(va);
	return 0;
}

static void weft_vm_free(struct drm_gpuvm *gpuvm)
{
	struct weft_vm *vm = to_weft_vm(gpuvm);

	weft_pt_free(vm, vm->root, 0);
	xa_erase(&vm->wdev->ctx_ids, vm->ctx_id);
	mutex_destroy(&vm->op_lock);
	kfree(vm);
}

static const struct drm_gpuvm_ops weft_gpuvm_ops = {
	.vm_free = weft_vm_free,
	.sm_step_map = weft_vm_sm_step_map,
	.sm_step_remap = weft_vm_sm_step_remap,
	.sm_step_unmap = weft_vm_sm_step_unmap,
};

/**
 * weft_vm_create() - Create an empty VM.
 * @wdev: The device.
 *
 * Return: The VM with one reference, or an ERR_PTR().
 */
struct weft_vm *weft_vm_create(struct weft_device *wdev)
{
	struct drm_gpu_scheduler *sched;
	struct drm_gem_object *r_obj;
	struct weft_vm *vm;
	int ret;

	vm = kzalloc(sizeof(*vm), GFP_KERNEL);
	if (!vm)
		return ERR_PTR(-ENOMEM);

	vm->wdev = wdev;
	mutex_init(&vm->op_lock);

	vm->root = weft_pt_alloc(vm, 0);
	if (!vm->root) {
		ret = -ENOMEM;
		goto err_free;
	}

	ret = xa_alloc(&wdev->ctx_ids, &vm->ctx_id, vm, xa_limit_31b,
		       GFP_KERNEL);
	if (ret)
		goto err_free_pt;

	r_obj = drm_gpuvm_resv_object_alloc(&wdev->base);
	if (!r_obj) {
		ret = -ENOMEM;
		goto err_free_id;
	}

	sched = wdev->bind_sched;
	ret = drm_sched_entity_init(&vm->bind_entity, DRM_SCHED_PRIORITY_NORMAL,
				    &sched, 1, NULL);
	if (ret) {
		drm_gem_object_put(r_obj);
		goto err_free_id;
	}

	drm_gpuvm_init(&vm->base, "weft-vm", 0, &wdev->base, r_obj,
		       wdev->info.user_va_start,
		       wdev->info.user_va_end - wdev->info.user_va_start,
		       0, 0, &weft_gpuvm_ops);
	/* The VM holds its own reference. */
	drm_gem_object_put(r_obj);
	return vm;

err_free_id:
	xa_erase(&wdev->ctx_ids, vm->ctx_id);
err_free_pt:
	weft_pt_free(vm, vm->root, 0);
err_free:
	mutex_destroy(&vm->op_lock);
	kfree(vm);
	return ERR_PTR(ret);
}

/**
 * weft_vm_root_dma() - Address of the VM's level-0 table, for SET_VM.
 * @vm: The VM.
 *
 * Return: The guest physical address of the root table.
 */
u64 weft_vm_root_dma(struct weft_vm *vm)
{
	return vm->root->dma;
}

/**
 * weft_vm_resv() - The reservation object of the VM.
 * @vm: The VM.
 *
 * Every job's finished fence is added to it with DMA_RESV_USAGE_BOOKKEEP,
 * so unmapping waits for the jobs that may still use the pages.
 *
 * Return: The VM's &dma_resv.
 */
struct dma_resv *weft_vm_resv(struct weft_vm *vm)
{
	return drm_gpuvm_resv(&vm->base);
}

/* Number of tables at @level (1-3) a range may need, at most. */
static u64 weft_pt_count(u64 va, u64 size, unsigned int level)
{
	unsigned int shift = WEFT_MMU_PAGE_SHIFT +
			     (WEFT_MMU_LEVELS - level) * WEFT_MMU_LEVEL_BITS;

	return ((va + size - 1) >> shift) - (va >> shift) + 1;
}

static int weft_pt_pool_fill(struct weft_vm *vm, struct list_head *pool,
			     unsigned int level, u64 count)
{
	while (count--) {
		struct weft_pt *pt = weft_pt_alloc(vm, level);

		if (!pt)
			return -ENOMEM;
		list_add(&pt->node, pool);
	}
	return 0;
}

static void weft_pt_pool_free(struct weft_vm *vm, struct list_head *pool,
			      unsigned int level)
{
	struct weft_pt *pt, *tmp;

	list_for_each_entry_safe(pt, tmp, pool, node) {
		list_del(&pt->node);
		weft_pt_free(vm, pt, level);
	}
}

/**
 * weft_vm_op_cleanup() - Release what weft_vm_op_prepare() took.
 * @vm: The VM.
 * @ctx: The operation; may have been executed or not.
 */
void weft_vm_op_cleanup(struct weft_vm *vm, struct weft_vm_op_ctx *ctx)
{
	unsigned int i;

	if (!ctx)
		return;
	if (ctx->vm_bo) {
		mutex_lock(&to_weft_bo(ctx->obj)->gpuva_list_lock);
		drm_gpuvm_bo_put(ctx->vm_bo);
		mutex_unlock(&to_weft_bo(ctx->obj)->gpuva_list_lock);
	}
	if (ctx->obj)
		drm_gem_object_put(ctx->obj);
	for (i = 0; i < ARRAY_SIZE(ctx->new_va); i++)
		kfree(ctx->new_va[i]);
	/* Upper tables have children arrays; level 1 or 2 frees the same. */
	weft_pt_pool_free(vm, &ctx->pts_upper, 1);
	weft_pt_pool_free(vm, &ctx->pts_leaf, WEFT_MMU_LEVELS - 1);
	kfree(ctx);
}

/**
 * weft_vm_op_prepare() - Allocate everything one bind operation needs.
 * @vm: The VM.
 * @file: The file that owns the buffer handle.
 * @op: The operation; its flags, alignment and range were checked.
 *
 * Looks the buffer up, pins its pages, and preallocates the &drm_gpuva
 * and, for a map, every page table the range may need, so that
 * weft_vm_op_exec() does not allocate.
 *
 * Return: The context or an ERR_PTR(): -ENOENT for an unknown buffer
 * handle, -EINVAL for a range outside the buffer, -ENOMEM.
 */
struct weft_vm_op_ctx *weft_vm_op_prepare(struct weft_vm *vm,
					  struct drm_file *file,
					  const struct drm_weft_vm_bind_op *op)
{
	struct weft_vm_op_ctx *ctx;
	struct drm_gpuvm_bo *vm_bo;
	unsigned int i, nva;
	int ret;

	/* Without a file, the VM's teardown: it must not fail. */
	gfp_t gfp = GFP_KERNEL | (file ? 0 : __GFP_NOFAIL);

	ctx = kzalloc(sizeof(*ctx), gfp);
	if (!ctx)
		return ERR_PTR(-ENOMEM);
	ctx->op = *op;
	INIT_LIST_HEAD(&ctx->pts_upper);
	INIT_LIST_HEAD(&ctx->pts_leaf);

	/* A map takes one new VA; an unmap may split one at either end. */
	nva = op->op == DRM_WEFT_VM_BIND_OP_MAP ? 1 : 2;
	for (i = 0; i < nva; i++) {
		ctx->new_va[i] = kzalloc(sizeof(*ctx->new_va[i]), gfp);
		if (!ctx->new_va[i]) {
			ret = -ENOMEM;
			goto err;
		}
	}
	if (op->op != DRM_WEFT_VM_BIND_OP_MAP)
		return ctx;

	ctx->obj = drm_gem_object_lookup(file, op->handle);
	if (!ctx->obj) {
		ret = -ENOENT;
		goto err;
	}
	if (op->bo_offset > ctx->obj->size ||
	    op->size > ctx->obj->size - op->bo_offset) {
		ret = -EINVAL;
		goto err;
	}

	/* Pins the pages for the buffer's lifetime and maps them for DMA. */
	ctx->sgt = drm_gem_shmem_get_pages_sgt(to_drm_gem_shmem_obj(ctx->obj));
	if (IS_ERR(ctx->sgt)) {
		ret = PTR_ERR(ctx->sgt);
		ctx->sgt = NULL;
		goto err;
	}

	ctx->pte_flags = WEFT_PTE_VALID;
	if (!(op->flags & DRM_WEFT_VM_BIND_OP_MAP_READONLY))
		ctx->pte_flags |= WEFT_PTE_WRITE;
	if (op->flags & DRM_WEFT_VM_BIND_OP_MAP_EXEC)
		ctx->pte_flags |= WEFT_PTE_EXEC;

	ret = weft_pt_pool_fill(vm, &ctx->pts_upper, 1,
				weft_pt_count(op->va, op->size, 1) +
				weft_pt_count(op->va, op->size, 2));
	if (!ret)
		ret = weft_pt_pool_fill(vm, &ctx->pts_leaf, 3,
					weft_pt_count(op->va, op->size, 3));
	if (ret)
		goto err;

	vm_bo = drm_gpuvm_bo_create(&vm->base, ctx->obj);
	if (!vm_bo) {
		ret = -ENOMEM;
		goto err;
	}
	mutex_lock(&to_weft_bo(ctx->obj)->gpuva_list_lock);
	ctx->vm_bo = drm_gpuvm_bo_obtain_prealloc(vm_bo);
	mutex_unlock(&to_weft_bo(ctx->obj)->gpuva_list_lock);
	return ctx;

err:
	weft_vm_op_cleanup(vm, ctx);
	return ERR_PTR(ret);
}

/**
 * weft_vm_op_is_unmap() - Whether an operation removes mappings.
 * @ctx: The operation.
 *
 * Return: True for an unmap.
 */
bool weft_vm_op_is_unmap(const struct weft_vm_op_ctx *ctx)
{
	return ctx->op.op == DRM_WEFT_VM_BIND_OP_UNMAP;
}

/**
 * weft_vm_op_exec() - Apply a prepared operation.
 * @vm: The VM.
 * @ctx: The operation.
 *
 * Does not allocate and does not wait: the caller made sure the jobs that
 * may use the pages being unmapped are done. Takes &weft_vm.op_lock.
 *
 * Return: 0, -ENOENT if the VM was destroyed, -EBUSY if a map overlaps an
 * existing mapping.
 */
int weft_vm_op_exec(struct weft_vm *vm, struct weft_vm_op_ctx *ctx)
{
	const struct drm_weft_vm_bind_op *op = &ctx->op;
	int ret;

	mutex_lock(&vm->op_lock);
	if (op->op == DRM_WEFT_VM_BIND_OP_MAP) {
		/* A map never replaces an existing mapping. */
		if (vm->destroyed)
			ret = -ENOENT;
		else if (!drm_gpuvm_interval_empty(&vm->base, op->va, op->size))
			ret = -EBUSY;
		else
			ret = drm_gpuvm_sm_map(&vm->base, ctx, op->va, op->size,
					       ctx->obj, op->bo_offset);
	} else {
		ret = drm_gpuvm_sm_unmap(&vm->base, ctx, op->va, op->size);
	}
	mutex_unlock(&vm->op_lock);
	return ret;
}

/**
 * weft_vm_op_range_busy() - Whether an unmap has anything to remove.
 * @vm: The VM.
 * @ctx: The operation.
 *
 * Return: True if the range holds a mapping.
 */
bool weft_vm_op_range_busy(struct weft_vm *vm, struct weft_vm_op_ctx *ctx)
{
	bool busy;

	mutex_lock(&vm->op_lock);
	busy = !drm_gpuvm_interval_empty(&vm->base, ctx->op.va, ctx->op.size);
	mutex_unlock(&vm->op_lock);
	return busy;
}

/**
 * weft_vm_wait_idle() - Wait for every job and bind of the VM.
 * @vm: The VM.
 * @usage: DMA_RESV_USAGE_KERNEL for the pending binds only,
 *	DMA_RESV_USAGE_BOOKKEEP for the jobs too.
 * @intr: Interruptible.
 *
 * Return: 0 or -ERESTARTSYS.
 */
int weft_vm_wait_idle(struct weft_vm *vm, enum dma_resv_usage usage,
		      bool intr)
{
	long ret;

	ret = dma_resv_wait_timeout(weft_vm_resv(vm), usage, intr,
				    MAX_SCHEDULE_TIMEOUT);
	return ret < 0 ? ret : 0;
}

/**
 * weft_vm_bind_op() - Apply one checked &struct drm_weft_vm_bind_op now.
 * @vm: The VM.
 * @file: The file that owns the buffer handle.
 * @op: The operation; its flags, alignment and range were checked.
 *
 * An unmap first waits for the jobs that may still use the pages: the
 * buffer may be freed as soon as its last mapping is gone.
 *
 * Return: 0, -ENOENT for an unknown buffer handle, -EINVAL for a range
 * outside the buffer, -EBUSY if a map overlaps an existing mapping,
 * -ENOMEM, or -ERESTARTSYS if a signal interrupted the wait for the jobs
 * using the pages being unmapped.
 */
int weft_vm_bind_op(struct weft_vm *vm, struct drm_file *file,
		    const struct drm_weft_vm_bind_op *op)
{
	struct weft_vm_op_ctx *ctx;
	int ret = 0;

	ctx = weft_vm_op_prepare(vm, file, op);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);

	if (weft_vm_op_is_unmap(ctx) && weft_vm_op_range_busy(vm, ctx))
		ret = weft_vm_wait_idle(vm, DMA_RESV_USAGE_BOOKKEEP, true);
	if (!ret)
		ret = weft_vm_op_exec(vm, ctx);
	weft_vm_op_cleanup(vm, ctx);
	return ret;
}

/**
 * weft_vm_read() - Copy GPU memory of a VM, for a capture.
 * @vm: The VM.
 * @va: GPU VA of the first byte.
 * @buf: Where to copy.
 * @len: Bytes wanted; the copy stops at the end of @va's page or mapping.
 *
 * Neither allocates nor waits: the pages of a mapped buffer are pinned.
 * A buffer imported from another driver is not read: its pages are its
 * exporter's, reachable only through dma_buf_vmap(), which may sleep.
 *
 * Return: Bytes copied, 0 if @va is not mapped or maps an imported buffer.
 */
size_t weft_vm_read(struct weft_vm *vm, u64 va, void *buf, size_t len)
{
	struct drm_gem_shmem_object *shmem;
	struct drm_gpuva *gva;
	u64 offset;
	void *vaddr;

	len = min_t(u64, len, PAGE_SIZE - offset_in_page(va));
	mutex_lock(&vm->op_lock);
	gva = drm_gpuva_find_first(&vm->base, va, 1);
	if (!gva || !gva->gem.obj || drm_gem_is_imported(gva->gem.obj)) {
		mutex_unlock(&vm->op_lock);
		return 0;
	}
	len = min_t(u64, len, gva->va.addr + gva->va.range - va);
	offset = va - gva->va.addr + gva->gem.offset;
	shmem = to_drm_gem_shmem_obj(gva->gem.obj);
	vaddr = kmap_local_page(shmem->pages[offset >> PAGE_SHIFT]);
	memcpy(buf, vaddr + offset_in_page(offset), len);
	kunmap_local(vaddr);
	mutex_unlock(&vm->op_lock);
	return len;
}

/**
 * weft_vm_debugfs_show() - Print a VM and its mappings.
 * @vm: The VM, referenced.
 * @m: The debugfs file.
 */
void weft_vm_debugfs_show(struct weft_vm *vm, struct seq_file *m)
{
	struct drm_gpuva *va;

	mutex_lock(&vm->op_lock);
	seq_printf(m, "vm ctx %u: root 0x%llx%s\n", vm->ctx_id,
		   (u64)vm->root->dma, vm->destroyed ? " destroyed" : "");
	drm_gpuvm_for_each_va(va, &vm->base)
		seq_printf(m, "  0x%016llx-0x%016llx bo %p offset 0x%llx\n",
			   va->va.addr, va->va.addr + va->va.range,
			   va->gem.obj, va->gem.offset);
	mutex_unlock(&vm->op_lock);
}

/**
 * weft_vm_destroy() - Unmap everything and drop the creator's reference.
 * @vm: The VM; no queue uses it any more.
 *
 * Waits for the VM's jobs, then removes every mapping, which releases the
 * buffers. Jobs that still hold a reference keep the page tables alive.
 */
void weft_vm_destroy(struct weft_vm *vm)
{
	struct weft_device *wdev = vm->wdev;
	struct drm_weft_vm_bind_op op = {
		.op = DRM_WEFT_VM_BIND_OP_UNMAP,
		.va = wdev->info.user_va_start,
		.size = wdev->info.user_va_end - wdev->info.user_va_start,
	};
	struct weft_vm_op_ctx *ctx;
	int ret;

	/* Runs the pending asynchronous binds first. */
	drm_sched_entity_destroy(&vm->bind_entity);

	mutex_lock(&vm->op_lock);
	vm->destroyed = true;
	mutex_unlock(&vm->op_lock);

	weft_vm_wait_idle(vm, DMA_RESV_USAGE_BOOKKEEP, false);
	ctx = weft_vm_op_prepare(vm, NULL, &op);
	ret = PTR_ERR_OR_ZERO(ctx);
	if (!ret)
		ret = weft_vm_op_exec(vm, ctx);
	if (ret)
		drm_err(&wdev->base, "VM teardown failed: %d\n", ret);
	if (!IS_ERR(ctx))
		weft_vm_op_cleanup(vm, ctx);
	weft_vm_put(vm);
}

static struct weft_bind_job *to_weft_bind_job(struct drm_sched_job *sched_job)
{
	return container_of(sched_job, struct weft_bind_job, base);
}

/* Applies the operations; never allocates, never waits. */
static struct dma_fence *weft_bind_run_job(struct drm_sched_job *sched_job)
{
	struct weft_bind_job *job = to_weft_bind_job(sched_job);
	u32 i;
	int ret;

	/* A dependency failed: apply nothing. */
	if (unlikely(sched_job->s_fence->finished.error))
		return NULL;

	for (i = 0; i < job->count; i++) {
		ret = weft_vm_op_exec(job->vm, job->ops[i]);
		if (ret)
			return ERR_PTR(ret);
	}
	return NULL;
}

static enum drm_gpu_sched_stat
weft_bind_timedout_job(struct drm_sched_job *sched_job)
{
	/* Binds run synchronously in run_job(): there is nothing to time out. */
	return DRM_GPU_SCHED_STAT_NOMINAL;
}

static void weft_bind_job_release(struct weft_bind_job *job)
{
	u32 i;

	for (i = 0; i < job->count; i++)
		weft_vm_op_cleanup(job->vm, job->ops[i]);
	kvfree(job->ops);
	weft_vm_put(job->vm);
	kfree(job);
}

static void weft_bind_free_job(struct drm_sched_job *sched_job)
{
	drm_sched_job_cleanup(sched_job);
	weft_bind_job_release(to_weft_bind_job(sched_job));
}

static const struct drm_sched_backend_ops weft_bind_sched_ops = {
	.run_job = weft_bind_run_job,
	.timedout_job = weft_bind_timedout_job,
	.free_job = weft_bind_free_job,
};

static void weft_bind_sched_release(struct drm_device *ddev, void *data)
{
	struct drm_gpu_scheduler *sched = data;

	drm_sched_fini(sched);
	kfree(sched);
}

/**
 * weft_vm_bind_sched_init() - Create the scheduler of asynchronous binds.
 * @wdev: The device.
 *
 * Every VM has an entity on it, so the binds of one VM run in order. The
 * scheduler lives as long as the DRM device.
 *
 * Return: 0 or a negative error code.
 */
int weft_vm_bind_sched_init(struct weft_device *wdev)
{
	struct drm_gpu_scheduler *sched;
	int ret;

	sched = kzalloc(sizeof(*sched), GFP_KERNEL);
	if (!sched)
		return -ENOMEM;

	ret = drm_sched_init(sched, &weft_bind_sched_ops, NULL, 1, 64, 0,
			     MAX_SCHEDULE_TIMEOUT, NULL, NULL, "weft-bind",
			     wdev->base.dev);
	if (ret) {
		kfree(sched);
		return ret;
	}
	wdev->bind_sched = sched;
	return drmm_add_action_or_reset(&wdev->base, weft_bind_sched_release,
					sched);
}

/**
 * weft_bind_job_create() - Create an asynchronous bind job, not yet armed.
 * @vm: The VM.
 * @count: Number of operations it will hold.
 * @owner: The submitting file, for the scheduler's accounting.
 *
 * Return: The job or an ERR_PTR().
 */
struct weft_bind_job *weft_bind_job_create(struct weft_vm *vm, u32 count,
					   void *owner)
{
	struct weft_bind_job *job;
	int ret;

	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job)
		return ERR_PTR(-ENOMEM);
	job->ops = kvcalloc(count, sizeof(*job->ops), GFP_KERNEL);
	if (!job->ops) {
		kfree(job);
		return ERR_PTR(-ENOMEM);
	}
	job->vm = weft_vm_get(vm);

	ret = drm_sched_job_init(&job->base, &vm->bind_entity, 1, owner);
	if (ret) {
		weft_bind_job_release(job);
		return ERR_PTR(ret);
	}
	return job;
}

/**
 * weft_bind_job_add_op() - Prepare one more operation of a bind job.
 * @job: The job, not yet armed.
 * @file: The file that owns the buffer handle.
 * @op: The operation, checked.
 *
 * Return: 0 or the error of weft_vm_op_prepare().
 */
int weft_bind_job_add_op(struct weft_bind_job *job, struct drm_file *file,
			 const struct drm_weft_vm_bind_op *op)
{
	struct weft_vm_op_ctx *ctx = weft_vm_op_prepare(job->vm, file, op);

	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (weft_vm_op_is_unmap(ctx))
		job->has_unmap = true;
	job->ops[job->count++] = ctx;
	return 0;
}

/**
 * weft_bind_job_free_unarmed() - Free a bind job that was never armed.
 * @job: The job, or NULL.
 */
void weft_bind_job_free_unarmed(struct weft_bind_job *job)
{
	if (!job)
		return;
	drm_sched_job_cleanup(&job->base);
	weft_bind_job_release(job);
}
