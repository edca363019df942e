// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Copyright (C) 2026 The Weft authors */

#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
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
};

/**
 * struct weft_vm_op_ctx - State of one VM_BIND operation.
 *
 * Everything a step may need is allocated before the VA tree changes, so
 * the gpuvm steps only fail on page-table allocation during a map, which
 * happens before the tree is touched.
 */
struct weft_vm_op_ctx {
	/** @vm_bo: The buffer's VM binding (map only). */
	struct drm_gpuvm_bo *vm_bo;

	/** @sgt: The buffer's pages (map only). */
	struct sg_table *sgt;

	/** @pte_flags: WEFT_PTE_* bits of the new leaf entries (map only). */
	u64 pte_flags;

	/** @new_va: Up to three preallocated &drm_gpuva: map, prev, next. */
	struct drm_gpuva *new_va[3];
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

/* Returns the level-3 table covering @va, allocating tables if @alloc. */
static struct weft_pt *weft_pt_walk(struct weft_vm *vm, u64 va, bool alloc)
{
	struct weft_pt *pt = vm->root;
	unsigned int level;

	for (level = 0; level < WEFT_MMU_LEVELS - 1; level++) {
		unsigned int idx = weft_pt_index(va, level);
		struct weft_pt *child = pt->children[idx];

		if (!child) {
			if (!alloc)
				return NULL;
			child = weft_pt_alloc(vm, level + 1);
			if (!child)
				return ERR_PTR(-ENOMEM);
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
		struct weft_pt *pt = weft_pt_walk(vm, va, false);
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

static int weft_vm_map_pages(struct weft_vm *vm, u64 va, struct sg_table *sgt,
			     u64 offset, u64 size, u64 pte_flags)
{
	struct sg_dma_page_iter iter;
	u64 start = va, end = va + size;
	struct weft_pt *pt = NULL;

	for_each_sgtable_dma_page(sgt, &iter, offset >> WEFT_MMU_PAGE_SHIFT) {
		dma_addr_t addr = sg_page_iter_dma_address(&iter);

		if (va >= end)
			break;

		if (!pt || !weft_pt_index(va, 3)) {
			pt = weft_pt_walk(vm, va, true);
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

	ret = weft_vm_map_pages(vm, op->map.va.addr, ctx->sgt,
				op->map.gem.offset, op->map.va.range,
				ctx->pte_flags);
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

	/* Keep the buffer, and so its lock, alive until we unlocked it. */
	drm_gem_object_get(obj);
	mutex_lock(&to_weft_bo(obj)->gpuva_list_lock);
	drm_gpuva_unlink(va);
	mutex_unlock(&to_weft_bo(obj)->gpuva_list_lock);
	drm_gem_object_put(obj);
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

static int weft_vm_wait_idle(struct weft_vm *vm, bool intr)
{
	long ret;

	ret = dma_resv_wait_timeout(weft_vm_resv(vm), DMA_RESV_USAGE_BOOKKEEP,
				    intr, MAX_SCHEDULE_TIMEOUT);
	return ret < 0 ? ret : 0;
}

static int weft_vm_map(struct weft_vm *vm, struct drm_file *file,
		       const struct drm_weft_vm_bind_op *op)
{
	struct weft_vm_op_ctx ctx = {};
	struct drm_gem_object *obj;
	struct sg_table *sgt;
	int ret;

	obj = drm_gem_object_lookup(file, op->handle);
	if (!obj)
		return -ENOENT;

	if (op->bo_offset > obj->size || op->size > obj->size - op->bo_offset) {
		ret = -EINVAL;
		goto out_put_obj;
	}

	/* Pins the pages for the buffer's lifetime and maps them for DMA. */
	sgt = drm_gem_shmem_get_pages_sgt(to_drm_gem_shmem_obj(obj));
	if (IS_ERR(sgt)) {
		ret = PTR_ERR(sgt);
		goto out_put_obj;
	}

	ctx.sgt = sgt;
	ctx.pte_flags = WEFT_PTE_VALID;
	if (!(op->flags & DRM_WEFT_VM_BIND_OP_MAP_READONLY))
		ctx.pte_flags |= WEFT_PTE_WRITE;
	if (op->flags & DRM_WEFT_VM_BIND_OP_MAP_EXEC)
		ctx.pte_flags |= WEFT_PTE_EXEC;

	ctx.new_va[0] = kzalloc(sizeof(*ctx.new_va[0]), GFP_KERNEL);
	if (!ctx.new_va[0]) {
		ret = -ENOMEM;
		goto out_put_obj;
	}

	mutex_lock(&to_weft_bo(obj)->gpuva_list_lock);
	ctx.vm_bo = drm_gpuvm_bo_obtain(&vm->base, obj);
	mutex_unlock(&to_weft_bo(obj)->gpuva_list_lock);
	if (IS_ERR(ctx.vm_bo)) {
		ret = PTR_ERR(ctx.vm_bo);
		goto out_free_va;
	}

	mutex_lock(&vm->op_lock);
	/* A map never replaces an existing mapping. */
	if (vm->destroyed)
		ret = -ENOENT;
	else if (!drm_gpuvm_interval_empty(&vm->base, op->va, op->size))
		ret = -EBUSY;
	else
		ret = drm_gpuvm_sm_map(&vm->base, &ctx, op->va, op->size, obj,
				       op->bo_offset);
	mutex_unlock(&vm->op_lock);

	mutex_lock(&to_weft_bo(obj)->gpuva_list_lock);
	drm_gpuvm_bo_put(ctx.vm_bo);
	mutex_unlock(&to_weft_bo(obj)->gpuva_list_lock);

out_free_va:
	kfree(ctx.new_va[0]);
out_put_obj:
	drm_gem_object_put(obj);
	return ret;
}

static int weft_vm_unmap(struct weft_vm *vm, u64 va, u64 size, bool intr)
{
	struct weft_vm_op_ctx ctx = {};
	unsigned int i;
	int ret;

	/* A remap at either end of the range needs at most two new VAs. */
	for (i = 0; i < 2; i++) {
		ctx.new_va[i] = kzalloc(sizeof(*ctx.new_va[i]),
					GFP_KERNEL | (intr ? 0 : __GFP_NOFAIL));
		if (!ctx.new_va[i]) {
			ret = -ENOMEM;
			goto out_free;
		}
	}

	mutex_lock(&vm->op_lock);
	/*
	 * Jobs that may still access the pages finish first: the buffer
	 * may be freed as soon as its last mapping is gone.
	 */
	ret = drm_gpuvm_interval_empty(&vm->base, va, size) ? 0 :
	      weft_vm_wait_idle(vm, intr);
	if (!ret)
		ret = drm_gpuvm_sm_unmap(&vm->base, &ctx, va, size);
	mutex_unlock(&vm->op_lock);

out_free:
	for (i = 0; i < ARRAY_SIZE(ctx.new_va); i++)
		kfree(ctx.new_va[i]);
	return ret;
}

/**
 * weft_vm_bind_op() - Apply one checked &struct drm_weft_vm_bind_op.
 * @vm: The VM.
 * @file: The file that owns the buffer handle.
 * @op: The operation; its flags, alignment and range were checked.
 *
 * Return: 0, -ENOENT for an unknown buffer handle, -EINVAL for a range
 * outside the buffer, -EBUSY if a map overlaps an existing mapping,
 * -ENOMEM, or -ERESTARTSYS if a signal interrupted the wait for the jobs
 * using the pages being unmapped.
 */
int weft_vm_bind_op(struct weft_vm *vm, struct drm_file *file,
		    const struct drm_weft_vm_bind_op *op)
{
	switch (op->op) {
	case DRM_WEFT_VM_BIND_OP_MAP:
		return weft_vm_map(vm, file, op);
	case DRM_WEFT_VM_BIND_OP_UNMAP:
		return weft_vm_unmap(vm, op->va, op->size, true);
	default:
		return -EINVAL;
	}
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
	int ret;

	mutex_lock(&vm->op_lock);
	vm->destroyed = true;
	mutex_unlock(&vm->op_lock);

	ret = weft_vm_unmap(vm, wdev->info.user_va_start,
			    wdev->info.user_va_end - wdev->info.user_va_start,
			    false);
	if (ret)
		drm_err(&wdev->base, "VM teardown failed: %d\n", ret);
	weft_vm_put(vm);
}
