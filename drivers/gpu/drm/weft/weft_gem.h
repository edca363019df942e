/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Copyright (C) 2026 The Weft authors */

#ifndef __WEFT_GEM_H__
#define __WEFT_GEM_H__

#include <linux/llist.h>
#include <linux/mutex.h>

#include <drm/drm_gem_shmem_helper.h>

struct drm_device;
struct drm_file;
struct weft_device;

/**
 * struct weft_bo - A Weft buffer object: system memory from shmem.
 */
struct weft_bo {
	/** @base: The shmem GEM object. */
	struct drm_gem_shmem_object base;

	/**
	 * @gpuva_list_lock: Protects the object's list of GPU VA mappings
	 * (&drm_gem_object.gpuva), instead of its dma_resv lock.
	 */
	struct mutex gpuva_list_lock;

	/**
	 * @put_node: Entry in &weft_device.deferred_puts while its last
	 * reference waits to be dropped outside the fence-signalling path.
	 */
	struct llist_node put_node;
};

static inline struct weft_bo *to_weft_bo(struct drm_gem_object *obj)
{
	return container_of(to_drm_gem_shmem_obj(obj), struct weft_bo, base);
}

struct drm_gem_object *weft_gem_create_object(struct drm_device *ddev,
					      size_t size);
int weft_gem_create_with_handle(struct drm_file *file, struct drm_device *ddev,
				u64 size, u32 *handle);
int weft_gem_mmap_offset(struct drm_file *file, u32 handle, u64 *offset);
int weft_gem_init(struct weft_device *wdev);
void weft_gem_put_deferred(struct drm_gem_object *obj);

#endif /* __WEFT_GEM_H__ */
