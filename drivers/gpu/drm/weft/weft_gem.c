// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Copyright (C) 2026 The Weft authors */

#include <linux/err.h>
#include <linux/slab.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_vma_manager.h>

#include <drm/drm_managed.h>

#include "weft_device.h"
#include "weft_gem.h"

static void weft_gem_free_object(struct drm_gem_object *obj)
{
	struct weft_bo *bo = to_weft_bo(obj);

	mutex_destroy(&bo->gpuva_list_lock);
	drm_gem_shmem_free(&bo->base);
}

static const struct drm_gem_object_funcs weft_gem_funcs = {
	.free = weft_gem_free_object,
	.print_info = drm_gem_shmem_object_print_info,
	.pin = drm_gem_shmem_object_pin,
	.unpin = drm_gem_shmem_object_unpin,
	.get_sg_table = drm_gem_shmem_object_get_sg_table,
	.vmap = drm_gem_shmem_object_vmap,
	.vunmap = drm_gem_shmem_object_vunmap,
	.mmap = drm_gem_shmem_object_mmap,
	.vm_ops = &drm_gem_shmem_vm_ops,
};

/**
 * weft_gem_create_object() - &drm_driver.gem_create_object for Weft.
 * @ddev: The DRM device.
 * @size: Size of the object.
 *
 * Return: The embedded &drm_gem_object or an ERR_PTR().
 */
struct drm_gem_object *weft_gem_create_object(struct drm_device *ddev,
					      size_t size)
{
	struct weft_bo *bo;

	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo)
		return ERR_PTR(-ENOMEM);

	/*
	 * The GPU is cache coherent with the CPU (it is system memory
	 * shared with the device), so CPU mappings stay cached.
	 */
	bo->base.map_wc = false;
	bo->base.base.funcs = &weft_gem_funcs;
	mutex_init(&bo->gpuva_list_lock);
	drm_gem_gpuva_set_lock(&bo->base.base, &bo->gpuva_list_lock);
	return &bo->base.base;
}

/**
 * weft_gem_create_with_handle() - Create a buffer and a handle to it.
 * @file: The file the handle belongs to.
 * @ddev: The DRM device.
 * @size: Size in bytes, already rounded up to pages.
 * @handle: Out: the GEM handle.
 *
 * Return: 0 or a negative error code.
 */
int weft_gem_create_with_handle(struct drm_file *file, struct drm_device *ddev,
				u64 size, u32 *handle)
{
	struct drm_gem_shmem_object *shmem;
	int ret;

	shmem = drm_gem_shmem_create(ddev, size);
	if (IS_ERR(shmem))
		return PTR_ERR(shmem);

	ret = drm_gem_handle_create(file, &shmem->base, handle);
	/* The handle holds the reference now, or creation failed. */
	drm_gem_object_put(&shmem->base);
	return ret;
}

/**
 * weft_gem_mmap_offset() - The fake offset to mmap() a buffer.
 * @file: The file that owns @handle.
 * @handle: GEM handle.
 * @offset: Out: the offset.
 *
 * Return: 0, -ENOENT for an unknown handle or another negative error code.
 */
int weft_gem_mmap_offset(struct drm_file *file, u32 handle, u64 *offset)
{
	struct drm_gem_object *obj;
	int ret;

	obj = drm_gem_object_lookup(file, handle);
	if (!obj)
		return -ENOENT;

	ret = drm_gem_create_mmap_offset(obj);
	if (!ret)
		*offset = drm_vma_node_offset_addr(&obj->vma_node);

	drm_gem_object_put(obj);
	return ret;
}

static void weft_gem_put_work(struct work_struct *work)
{
	struct weft_device *wdev = container_of(work, struct weft_device,
						put_work);
	struct llist_node *list = llist_del_all(&wdev->deferred_puts);
	struct weft_bo *bo, *tmp;

	llist_for_each_entry_safe(bo, tmp, list, put_node)
		drm_gem_object_put(&bo->base.base);
}

static void weft_gem_puts_fini(struct drm_device *ddev, void *data)
{
	struct weft_device *wdev = data;

	cancel_work_sync(&wdev->put_work);
	weft_gem_put_work(&wdev->put_work);
}

/**
 * weft_gem_init() - Set up the deferred buffer puts of a device.
 * @wdev: The device.
 *
 * Return: 0 or a negative error code.
 */
int weft_gem_init(struct weft_device *wdev)
{
	init_llist_head(&wdev->deferred_puts);
	INIT_WORK(&wdev->put_work, weft_gem_put_work);
	return drmm_add_action_or_reset(&wdev->base, weft_gem_puts_fini, wdev);
}

/**
 * weft_gem_put_deferred() - Drop a buffer reference from the
 * fence-signalling path.
 * @obj: The buffer.
 *
 * A reference that is not the last is dropped at once. The last one is
 * dropped by a worker: freeing a shmem buffer takes its reservation lock,
 * which must not be taken where a fence is about to be signalled.
 */
void weft_gem_put_deferred(struct drm_gem_object *obj)
{
	struct weft_device *wdev = to_weft_device(obj->dev);

	if (refcount_dec_not_one(&obj->refcount.refcount))
		return;
	llist_add(&to_weft_bo(obj)->put_node, &wdev->deferred_puts);
	queue_work(system_unbound_wq, &wdev->put_work);
}
