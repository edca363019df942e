/* SPDX-License-Identifier: MIT */
/*
 * libweft: the Weft winsys over libdrm. Buffers, VMs, queues, submits and
 * sync objects of weft.ko, for the Mesa driver and the tools.
 *
 * Every function that can fail returns 0 or a negative errno, and leaves
 * its out-parameters untouched on failure.
 */
#ifndef LIBWEFT_H
#define LIBWEFT_H

#include <stddef.h>
#include <stdint.h>

#include "weft_drm.h"

struct weft_device;

/**
 * struct weft_buffer - a GEM buffer and its CPU mapping.
 * @handle: GEM handle.
 * @size: size in bytes, a multiple of the page size.
 * @map: CPU mapping of the whole buffer, or NULL until weft_buffer_map().
 */
struct weft_buffer {
	uint32_t handle;
	uint64_t size;
	void *map;
};

/*
 * Opens @path, or the first DRM render node driven by weft.ko when @path is
 * NULL. -ENODEV when there is none.
 */
int weft_device_open(const char *path, struct weft_device **out);
/*
 * Wraps @fd, an open DRM file of weft.ko (the caller's, e.g. from Mesa's
 * pipe-loader): the device dup()s it and closes only its own copy.
 * -ENODEV when @fd is not driven by weft.ko.
 */
int weft_device_open_fd(int fd, struct weft_device **out);
/*
 * Replaces the DRM file of @dev by a new open of the render node @path,
 * under the same fd number. A child of fork() shares its parent's file, and
 * with it the parent's GEM handles, VMs and queues; reopened, it has a file
 * of its own, as any other process has. The objects made on the old file
 * are not valid on the new one. Only system calls: usable in an atfork
 * child handler.
 */
int weft_device_reopen(struct weft_device *dev, const char *path);
void weft_device_close(struct weft_device *dev);
int weft_device_fd(const struct weft_device *dev);
const struct drm_weft_device_info *weft_device_info(const struct weft_device *dev);

int weft_buffer_create(struct weft_device *dev, uint64_t size,
		       struct weft_buffer *out);
int weft_buffer_map(struct weft_device *dev, struct weft_buffer *bo);
void weft_buffer_destroy(struct weft_device *dev, struct weft_buffer *bo);

int weft_vm_create(struct weft_device *dev, uint32_t *vm_id);
int weft_vm_destroy(struct weft_device *dev, uint32_t vm_id);
/* @flags: DRM_WEFT_VM_BIND_OP_MAP_* */
int weft_vm_map(struct weft_device *dev, uint32_t vm_id,
		const struct weft_buffer *bo, uint64_t bo_offset,
		uint64_t va, uint64_t size, uint32_t flags);
int weft_vm_unmap(struct weft_device *dev, uint32_t vm_id, uint64_t va,
		  uint64_t size);

int weft_queue_create(struct weft_device *dev, uint32_t vm_id,
		      enum drm_weft_queue_priority priority, uint32_t *queue_id);
int weft_queue_destroy(struct weft_device *dev, uint32_t queue_id);

int weft_syncobj_create(struct weft_device *dev, uint32_t *handle);
void weft_syncobj_destroy(struct weft_device *dev, uint32_t handle);
/*
 * Waits until @handle signals, for at most @timeout_ns. 0 when it signalled
 * without error, -ETIME on timeout, the job's error (e.g. -EIO, -EFAULT) when
 * the job failed.
 */
int weft_syncobj_wait(struct weft_device *dev, uint32_t handle,
		      uint64_t timeout_ns);

/*
 * Queues the batch of @batch_size bytes at @batch_va on @queue_id. It
 * waits for @in_syncobj and signals @out_syncobj; 0 means none.
 */
int weft_submit(struct weft_device *dev, uint32_t queue_id, uint64_t batch_va,
		uint32_t batch_size, uint32_t in_syncobj, uint32_t out_syncobj);

#endif /* LIBWEFT_H */
