/* SPDX-License-Identifier: MIT */
/*
 * libweft: the Weft winsys over libdrm.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/sync_file.h>
#include <xf86drm.h>

#include "libweft.h"

struct weft_device {
	int fd;
	struct drm_weft_device_info info;
};

static int weft_ioctl(const struct weft_device *dev, unsigned long request,
		      void *arg)
{
	return drmIoctl(dev->fd, request, arg) ? -errno : 0;
}

static int weft_device_init(struct weft_device *dev)
{
	struct drm_weft_query query = {
		.type = DRM_WEFT_QUERY_DEVICE_INFO,
		.size = sizeof(dev->info),
		.pointer = (uintptr_t)&dev->info,
	};
	drmVersionPtr version = drmGetVersion(dev->fd);
	int is_weft;

	if (!version)
		return -errno ? -errno : -ENODEV;
	is_weft = !strcmp(version->name, "weft");
	drmFreeVersion(version);
	if (!is_weft)
		return -ENODEV;
	return weft_ioctl(dev, DRM_IOCTL_WEFT_QUERY, &query);
}

/* Takes ownership of @fd: it is closed on failure. */
static int weft_device_adopt(int fd, struct weft_device **out)
{
	struct weft_device *dev;
	int ret;

	if (fd < 0)
		return -errno;
	dev = calloc(1, sizeof(*dev));
	if (!dev) {
		close(fd);
		return -ENOMEM;
	}
	dev->fd = fd;
	ret = weft_device_init(dev);
	if (ret) {
		close(fd);
		free(dev);
		return ret;
	}
	*out = dev;
	return 0;
}

static int weft_device_try(const char *path, struct weft_device **out)
{
	return weft_device_adopt(open(path, O_RDWR | O_CLOEXEC), out);
}

int weft_device_open(const char *path, struct weft_device **out)
{
	drmDevicePtr devices[64];
	int count, i, ret = -ENODEV;

	if (path)
		return weft_device_try(path, out);

	count = drmGetDevices2(0, devices, 64);
	if (count < 0)
		return count;
	for (i = 0; i < count && ret; i++) {
		if (devices[i]->available_nodes & (1 << DRM_NODE_RENDER))
			ret = weft_device_try(devices[i]->nodes[DRM_NODE_RENDER], out);
	}
	drmFreeDevices(devices, count);
	return ret ? -ENODEV : 0;
}

int weft_device_open_fd(int fd, struct weft_device **out)
{
	return weft_device_adopt(fcntl(fd, F_DUPFD_CLOEXEC, 3), out);
}

int weft_device_reopen(struct weft_device *dev, const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (dup3(fd, dev->fd, O_CLOEXEC) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

void weft_device_close(struct weft_device *dev)
{
	if (!dev)
		return;
	close(dev->fd);
	free(dev);
}

int weft_device_fd(const struct weft_device *dev)
{
	return dev->fd;
}

const struct drm_weft_device_info *weft_device_info(const struct weft_device *dev)
{
	return &dev->info;
}

int weft_buffer_create(struct weft_device *dev, uint64_t size,
		       struct weft_buffer *out)
{
	struct drm_weft_bo_create create = { .size = size };
	int ret = weft_ioctl(dev, DRM_IOCTL_WEFT_BO_CREATE, &create);

	if (ret)
		return ret;
	*out = (struct weft_buffer){ .handle = create.handle, .size = create.size };
	return 0;
}

int weft_buffer_map(struct weft_device *dev, struct weft_buffer *bo)
{
	struct drm_weft_bo_mmap_offset arg = { .handle = bo->handle };
	void *map;
	int ret;

	if (bo->map)
		return 0;
	ret = weft_ioctl(dev, DRM_IOCTL_WEFT_BO_MMAP_OFFSET, &arg);
	if (ret)
		return ret;
	map = mmap(NULL, bo->size, PROT_READ | PROT_WRITE, MAP_SHARED, dev->fd,
		   arg.offset);
	if (map == MAP_FAILED)
		return -errno;
	bo->map = map;
	return 0;
}

void weft_buffer_destroy(struct weft_device *dev, struct weft_buffer *bo)
{
	struct drm_gem_close close_arg = { .handle = bo->handle };

	if (bo->map)
		munmap(bo->map, bo->size);
	weft_ioctl(dev, DRM_IOCTL_GEM_CLOSE, &close_arg);
	*bo = (struct weft_buffer){ 0 };
}

int weft_vm_create(struct weft_device *dev, uint32_t *vm_id)
{
	struct drm_weft_vm_create create = { 0 };
	int ret = weft_ioctl(dev, DRM_IOCTL_WEFT_VM_CREATE, &create);

	if (!ret)
		*vm_id = create.id;
	return ret;
}

int weft_vm_destroy(struct weft_device *dev, uint32_t vm_id)
{
	struct drm_weft_vm_destroy destroy = { .id = vm_id };

	return weft_ioctl(dev, DRM_IOCTL_WEFT_VM_DESTROY, &destroy);
}

static int weft_vm_bind_one(struct weft_device *dev, uint32_t vm_id,
			    const struct drm_weft_vm_bind_op *op)
{
	struct drm_weft_vm_bind bind = {
		.vm_id = vm_id,
		.ops = DRM_WEFT_OBJ_ARRAY(1, op),
	};

	return weft_ioctl(dev, DRM_IOCTL_WEFT_VM_BIND, &bind);
}

int weft_vm_map(struct weft_device *dev, uint32_t vm_id,
		const struct weft_buffer *bo, uint64_t bo_offset,
		uint64_t va, uint64_t size, uint32_t flags)
{
	struct drm_weft_vm_bind_op op = {
		.op = DRM_WEFT_VM_BIND_OP_MAP,
		.flags = flags,
		.handle = bo->handle,
		.bo_offset = bo_offset,
		.va = va,
		.size = size,
	};

	return weft_vm_bind_one(dev, vm_id, &op);
}

int weft_vm_unmap(struct weft_device *dev, uint32_t vm_id, uint64_t va,
		  uint64_t size)
{
	struct drm_weft_vm_bind_op op = {
		.op = DRM_WEFT_VM_BIND_OP_UNMAP,
		.va = va,
		.size = size,
	};

	return weft_vm_bind_one(dev, vm_id, &op);
}

int weft_queue_create(struct weft_device *dev, uint32_t vm_id,
		      enum drm_weft_queue_priority priority, uint32_t *queue_id)
{
	struct drm_weft_queue_create create = {
		.vm_id = vm_id,
		.priority = priority,
	};
	int ret = weft_ioctl(dev, DRM_IOCTL_WEFT_QUEUE_CREATE, &create);

	if (!ret)
		*queue_id = create.id;
	return ret;
}

int weft_queue_destroy(struct weft_device *dev, uint32_t queue_id)
{
	struct drm_weft_queue_destroy destroy = { .id = queue_id };

	return weft_ioctl(dev, DRM_IOCTL_WEFT_QUEUE_DESTROY, &destroy);
}

int weft_syncobj_create(struct weft_device *dev, uint32_t *handle)
{
	return drmSyncobjCreate(dev->fd, 0, handle) ? -errno : 0;
}

void weft_syncobj_destroy(struct weft_device *dev, uint32_t handle)
{
	drmSyncobjDestroy(dev->fd, handle);
}

int weft_syncobj_wait(struct weft_device *dev, uint32_t handle,
		      uint64_t timeout_ns)
{
	struct sync_file_info info = { 0 };
	int64_t deadline;
	struct timespec now;
	int sync_file, ret;

	/* drmSyncobjWait() wants an absolute CLOCK_MONOTONIC deadline. */
	clock_gettime(CLOCK_MONOTONIC, &now);
	deadline = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec + (int64_t)timeout_ns;
	if (drmSyncobjWait(dev->fd, &handle, 1, deadline,
			   DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL))
		return -errno;

	/* The syncobj wait does not report a failed job: its sync file does. */
	if (drmSyncobjExportSyncFile(dev->fd, handle, &sync_file))
		return -errno;
	ret = ioctl(sync_file, SYNC_IOC_FILE_INFO, &info) ? -errno : 0;
	close(sync_file);
	if (ret)
		return ret;
	return info.status < 0 ? info.status : 0;
}

int weft_submit(struct weft_device *dev, uint32_t queue_id, uint64_t batch_va,
		uint32_t batch_size, uint32_t in_syncobj, uint32_t out_syncobj)
{
	struct drm_weft_sync in = { .handle = in_syncobj };
	struct drm_weft_sync out = { .handle = out_syncobj };
	struct drm_weft_job job = {
		.batch_va = batch_va,
		.batch_size = batch_size,
		.in_syncs = DRM_WEFT_OBJ_ARRAY(in_syncobj ? 1 : 0, &in),
		.out_syncs = DRM_WEFT_OBJ_ARRAY(out_syncobj ? 1 : 0, &out),
	};
	struct drm_weft_submit submit = {
		.queue_id = queue_id,
		.jobs = DRM_WEFT_OBJ_ARRAY(1, &job),
	};

	return weft_ioctl(dev, DRM_IOCTL_WEFT_SUBMIT, &submit);
}
