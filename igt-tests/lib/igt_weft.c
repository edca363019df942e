// SPDX-License-Identifier: MIT
/*
 * Copyright (C) 2026 The Weft authors
 */
#include <dirent.h>
#include <fcntl.h>
#include <linux/sync_file.h>
#include <sys/mount.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <xf86drm.h>

#include "igt.h"
#include "igt_weft.h"

static int weft_ioctl(int fd, unsigned long request, void *arg)
{
	int err = 0;

	if (igt_ioctl(fd, request, arg))
		err = -errno;
	errno = 0;
	return err;
}

int __weft_query(int fd, struct drm_weft_query *query)
{
	return weft_ioctl(fd, DRM_IOCTL_WEFT_QUERY, query);
}

void weft_query_device_info(int fd, struct drm_weft_device_info *info)
{
	struct drm_weft_query query = {
		.type = DRM_WEFT_QUERY_DEVICE_INFO,
		.size = sizeof(*info),
		.pointer = to_user_pointer(info),
	};

	memset(info, 0, sizeof(*info));
	igt_assert_eq(__weft_query(fd, &query), 0);
	igt_assert_eq_u32(query.size, sizeof(*info));
}

int __weft_bo_create(int fd, struct drm_weft_bo_create *create)
{
	return weft_ioctl(fd, DRM_IOCTL_WEFT_BO_CREATE, create);
}

uint32_t weft_bo_create(int fd, uint64_t size)
{
	struct drm_weft_bo_create create = { .size = size };

	igt_assert_eq(__weft_bo_create(fd, &create), 0);
	igt_assert_neq_u32(create.handle, 0);
	return create.handle;
}

int __weft_bo_mmap_offset(int fd, struct drm_weft_bo_mmap_offset *arg)
{
	return weft_ioctl(fd, DRM_IOCTL_WEFT_BO_MMAP_OFFSET, arg);
}

uint64_t weft_bo_mmap_offset(int fd, uint32_t handle)
{
	struct drm_weft_bo_mmap_offset arg = { .handle = handle };

	igt_assert_eq(__weft_bo_mmap_offset(fd, &arg), 0);
	return arg.offset;
}

void *weft_bo_mmap(int fd, uint32_t handle, uint64_t size, int prot)
{
	uint64_t offset = weft_bo_mmap_offset(fd, handle);
	void *ptr;

	ptr = mmap(NULL, size, prot, MAP_SHARED, fd, offset);
	igt_assert_f(ptr != MAP_FAILED, "mmap of handle %u failed\n", handle);
	errno = 0;
	return ptr;
}

uint32_t weft_vm_create(int fd)
{
	struct drm_weft_vm_create create = {};

	igt_assert_eq(weft_ioctl(fd, DRM_IOCTL_WEFT_VM_CREATE, &create), 0);
	igt_assert_neq_u32(create.id, 0);
	return create.id;
}

int __weft_vm_destroy(int fd, uint32_t vm_id)
{
	struct drm_weft_vm_destroy destroy = { .id = vm_id };

	return weft_ioctl(fd, DRM_IOCTL_WEFT_VM_DESTROY, &destroy);
}

void weft_vm_destroy(int fd, uint32_t vm_id)
{
	igt_assert_eq(__weft_vm_destroy(fd, vm_id), 0);
}

int __weft_vm_bind(int fd, struct drm_weft_vm_bind *bind)
{
	return weft_ioctl(fd, DRM_IOCTL_WEFT_VM_BIND, bind);
}

int __weft_vm_bind_op(int fd, uint32_t vm_id,
		      const struct drm_weft_vm_bind_op *op)
{
	struct drm_weft_vm_bind bind = {
		.vm_id = vm_id,
		.ops = DRM_WEFT_OBJ_ARRAY(1, op),
	};

	return __weft_vm_bind(fd, &bind);
}

void weft_vm_bind_map(int fd, uint32_t vm_id, uint32_t handle,
		      uint64_t bo_offset, uint64_t va, uint64_t size,
		      uint32_t flags)
{
	struct drm_weft_vm_bind_op op = {
		.op = DRM_WEFT_VM_BIND_OP_MAP,
		.flags = flags,
		.handle = handle,
		.bo_offset = bo_offset,
		.va = va,
		.size = size,
	};

	igt_assert_eq(__weft_vm_bind_op(fd, vm_id, &op), 0);
}

void weft_vm_bind_unmap(int fd, uint32_t vm_id, uint64_t va, uint64_t size)
{
	struct drm_weft_vm_bind_op op = {
		.op = DRM_WEFT_VM_BIND_OP_UNMAP,
		.va = va,
		.size = size,
	};

	igt_assert_eq(__weft_vm_bind_op(fd, vm_id, &op), 0);
}

int __weft_queue_create(int fd, struct drm_weft_queue_create *create)
{
	return weft_ioctl(fd, DRM_IOCTL_WEFT_QUEUE_CREATE, create);
}

uint32_t weft_queue_create(int fd, uint32_t vm_id, uint32_t priority)
{
	struct drm_weft_queue_create create = {
		.vm_id = vm_id,
		.priority = priority,
	};

	igt_assert_eq(__weft_queue_create(fd, &create), 0);
	igt_assert_neq_u32(create.id, 0);
	return create.id;
}

int __weft_queue_destroy(int fd, uint32_t queue_id)
{
	struct drm_weft_queue_destroy destroy = { .id = queue_id };

	return weft_ioctl(fd, DRM_IOCTL_WEFT_QUEUE_DESTROY, &destroy);
}

void weft_queue_destroy(int fd, uint32_t queue_id)
{
	igt_assert_eq(__weft_queue_destroy(fd, queue_id), 0);
}

int __weft_submit(int fd, struct drm_weft_submit *submit)
{
	return weft_ioctl(fd, DRM_IOCTL_WEFT_SUBMIT, submit);
}

/**
 * weft_bo_new: - creates a buffer, maps it for the CPU and, when @vm_id is
 * not 0, at @va in @vm_id with the DRM_WEFT_VM_BIND_OP_MAP_* @map_flags.
 */
struct weft_bo *weft_bo_new(int fd, uint64_t size, uint32_t vm_id,
			    uint64_t va, uint32_t map_flags)
{
	struct weft_bo *bo = calloc(1, sizeof(*bo));

	igt_assert(bo);
	bo->size = ALIGN(size, WEFT_PAGE_SIZE);
	bo->handle = weft_bo_create(fd, bo->size);
	bo->map = weft_bo_mmap(fd, bo->handle, bo->size,
			       PROT_READ | PROT_WRITE);
	if (vm_id) {
		weft_vm_bind_map(fd, vm_id, bo->handle, 0, va, bo->size,
				 map_flags);
		bo->vm_id = vm_id;
		bo->va = va;
	}
	return bo;
}

void weft_bo_free(int fd, struct weft_bo *bo)
{
	if (!bo)
		return;
	if (bo->vm_id)
		weft_vm_bind_unmap(fd, bo->vm_id, bo->va, bo->size);
	munmap(bo->map, bo->size);
	gem_close(fd, bo->handle);
	free(bo);
}

void weft_batch_init(struct weft_batch *batch, void *map, size_t size)
{
	batch->cs = map;
	batch->len = 0;
	batch->max = size / sizeof(uint32_t);
}

void weft_batch_emit(struct weft_batch *batch, uint32_t dw)
{
	igt_assert_f(batch->len < batch->max, "batch overflow\n");
	batch->cs[batch->len++] = dw;
}

static void emit_u64(struct weft_batch *batch, uint64_t v)
{
	weft_batch_emit(batch, (uint32_t)v);
	weft_batch_emit(batch, (uint32_t)(v >> 32));
}

void weft_batch_nop(struct weft_batch *batch, uint32_t len)
{
	igt_assert(len >= 1);
	weft_batch_emit(batch, WEFT_BATCH_HEADER(WEFT_BATCH_NOP, len));
	for (uint32_t i = 1; i < len; i++)
		weft_batch_emit(batch, 0);
}

void weft_batch_write_data(struct weft_batch *batch, uint64_t va,
			   uint64_t value)
{
	weft_batch_emit(batch, WEFT_BATCH_HEADER(WEFT_BATCH_WRITE_DATA,
						 WEFT_BATCH_WRITE_DATA_LEN));
	emit_u64(batch, va);
	emit_u64(batch, value);
}

/**
 * weft_batch_sem_wait: - the batch waits until the 64-bit value at @va
 * compares true (@op: WEFT_BATCH_SEM_WAIT_GTE or _EQ) against @value.
 */
void weft_batch_sem_wait(struct weft_batch *batch, uint64_t va,
			 uint64_t value, uint32_t op)
{
	weft_batch_emit(batch, WEFT_BATCH_HEADER(WEFT_BATCH_SEM_WAIT,
						 WEFT_BATCH_SEM_WAIT_LEN));
	emit_u64(batch, va);
	emit_u64(batch, value);
	weft_batch_emit(batch, op);
}

void weft_batch_dispatch(struct weft_batch *batch,
			 const struct weft_dispatch *d)
{
	uint32_t start = batch->len;

	weft_batch_emit(batch, WEFT_BATCH_HEADER(WEFT_BATCH_DISPATCH,
						 WEFT_BATCH_DISPATCH_LEN));
	emit_u64(batch, d->code_va);
	emit_u64(batch, d->args_va);
	weft_batch_emit(batch, d->simd);
	for (int i = 0; i < 3; i++)
		weft_batch_emit(batch, d->global_size[i]);
	for (int i = 0; i < 3; i++)
		weft_batch_emit(batch, d->local_size[i]);
	for (int i = 0; i < 3; i++)
		weft_batch_emit(batch, d->global_offset[i]);
	weft_batch_emit(batch, d->slm_size);
	igt_assert_eq_u32(batch->len - start, WEFT_BATCH_DISPATCH_LEN);
}

void weft_batch_end(struct weft_batch *batch)
{
	weft_batch_emit(batch, WEFT_BATCH_HEADER(WEFT_BATCH_END, 1));
}

uint32_t weft_batch_size(const struct weft_batch *batch)
{
	return batch->len * sizeof(uint32_t);
}

/**
 * weft_syncobj_status: - the state of a binary syncobj's fence: 1 when
 * signalled without error, 0 while pending, a negative error code when
 * signalled with an error (or when the syncobj has no fence).
 */
int weft_syncobj_status(int fd, uint32_t syncobj)
{
	struct sync_file_info info = {};
	int sync_fd = -1;
	int ret;

	/* libdrm returns -1 or -errno here, depending on the call. */
	if (drmSyncobjExportSyncFile(fd, syncobj, &sync_fd))
		return -errno;
	ret = ioctl(sync_fd, SYNC_IOC_FILE_INFO, &info);
	if (ret)
		ret = -errno;
	else
		ret = info.status;
	close(sync_fd);
	errno = 0;
	return ret;
}

/**
 * weft_syncobj_wait: - waits up to @timeout_ns for a binary syncobj; 0 once
 * signalled, -ETIME on timeout.
 */
int weft_syncobj_wait(int fd, uint32_t syncobj, uint64_t timeout_ns)
{
	struct timespec ts;
	int64_t deadline;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	deadline = ts.tv_sec * 1000000000ll + ts.tv_nsec + timeout_ns;
	ret = drmSyncobjWait(fd, &syncobj, 1, deadline,
			     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL);
	if (ret)
		ret = -errno;
	errno = 0;
	return ret;
}

/**
 * weft_job_timeout_ms: - weft.ko's job timeout (its job_timeout_ms
 * parameter; the default when the module does not say).
 */
unsigned int weft_job_timeout_ms(void)
{
	unsigned int ms = 10000;
	FILE *f = fopen("/sys/module/weft/parameters/job_timeout_ms", "r");

	if (f) {
		igt_assert_eq(fscanf(f, "%u", &ms), 1);
		fclose(f);
	}
	return ms;
}

/**
 * weft_now_s: - CLOCK_MONOTONIC in seconds.
 */
double weft_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/**
 * weft_wait_hang: - waits for the fence of a job that the job timeout must
 * end (submitted at weft_now_s() @start); returns its status (-ETIMEDOUT
 * expected) and prints the time to recovery.
 */
int weft_wait_hang(int fd, uint32_t syncobj, double start)
{
	uint64_t timeout = (uint64_t)weft_job_timeout_ms() * 1000000ull +
			   WEFT_JOB_TIMEOUT_NS;
	int status;

	igt_assert_eq(weft_syncobj_wait(fd, syncobj, timeout), 0);
	status = weft_syncobj_status(fd, syncobj);
	igt_info("hang to recovery: %.3f s (job_timeout_ms %u), fence %d\n",
		 weft_now_s() - start, weft_job_timeout_ms(), status);
	return status;
}

/**
 * weft_submit_and_wait: - runs one batch on @queue_id and waits for it.
 *
 * The submission itself must succeed and the job must complete within
 * WEFT_JOB_TIMEOUT_NS. Returns 0 when the job's fence signalled without an
 * error, else the (negative) error of the fence.
 */
int weft_submit_and_wait(int fd, uint32_t queue_id, uint64_t batch_va,
			 uint32_t batch_size)
{
	uint32_t out = weft_submit_nowait(fd, queue_id, batch_va, batch_size);
	int status;

	igt_assert_f(weft_syncobj_wait(fd, out, WEFT_JOB_TIMEOUT_NS) == 0,
		     "job on queue %u did not complete in time\n", queue_id);
	status = weft_syncobj_status(fd, out);
	igt_assert_f(status != 0, "signalled fence reported as pending\n");
	igt_assert_eq(drmSyncobjDestroy(fd, out), 0);
	return status == 1 ? 0 : status;
}

/**
 * weft_test_va: - a 16 MiB-aligned, 16 MiB-sized slot of the user VA range
 * for tests to place buffers in.
 */
uint64_t weft_test_va(const struct drm_weft_device_info *info,
		      unsigned int slot)
{
	const uint64_t slot_size = 16ull << 20;
	uint64_t va = ALIGN(info->user_va_start, slot_size) +
		      (uint64_t)slot * slot_size;

	igt_require_f(va + slot_size <= info->user_va_end,
		      "user VA range too small for slot %u\n", slot);
	return va;
}

/**
 * weft_assert_device_alive: - a fresh VM and queue run a WRITE_DATA batch
 * correctly (after an error on another queue, for instance).
 */
void weft_assert_device_alive(int fd)
{
	struct drm_weft_device_info info;
	struct weft_batch batch;
	struct weft_bo *bo;
	uint32_t vm, queue;
	uint64_t *data;

	weft_query_device_info(fd, &info);
	vm = weft_vm_create(fd);
	queue = weft_queue_create(fd, vm, DRM_WEFT_QUEUE_PRIORITY_NORMAL);
	bo = weft_bo_new(fd, 2 * WEFT_PAGE_SIZE, vm, weft_test_va(&info, 0), 0);
	data = (uint64_t *)((char *)bo->map + WEFT_PAGE_SIZE);
	data[0] = 0;

	weft_batch_init(&batch, bo->map, WEFT_PAGE_SIZE);
	weft_batch_write_data(&batch, bo->va + WEFT_PAGE_SIZE,
			      0x0123456789abcdefull);
	weft_batch_end(&batch);
	igt_assert_eq(weft_submit_and_wait(fd, queue, bo->va,
					   weft_batch_size(&batch)), 0);
	igt_assert_eq_u64(data[0], 0x0123456789abcdefull);

	weft_queue_destroy(fd, queue);
	weft_bo_free(fd, bo);
	weft_vm_destroy(fd, vm);
}

/**
 * weft_assert_queue_banned: - SUBMIT on @queue_id fails with -ECANCELED:
 * a job of the queue failed and the queue takes no more jobs.
 */
void weft_assert_queue_banned(int fd, uint32_t queue_id)
{
	struct drm_weft_device_info info;
	struct drm_weft_job job = { .batch_size = 4 };
	struct drm_weft_submit submit = {
		.queue_id = queue_id,
		.jobs = DRM_WEFT_OBJ_ARRAY(1, &job),
	};

	weft_query_device_info(fd, &info);
	job.batch_va = info.user_va_start;
	igt_assert_eq(__weft_submit(fd, &submit), -ECANCELED);
}

/**
 * weft_submit_nowait: - queues one batch on @queue_id and returns a new
 * binary syncobj its job signals; the caller destroys it.
 */
uint32_t weft_submit_nowait(int fd, uint32_t queue_id, uint64_t batch_va,
			    uint32_t batch_size)
{
	struct drm_weft_sync out = {};
	struct drm_weft_job job = {
		.batch_va = batch_va,
		.batch_size = batch_size,
		.out_syncs = DRM_WEFT_OBJ_ARRAY(1, &out),
	};
	struct drm_weft_submit submit = {
		.queue_id = queue_id,
		.jobs = DRM_WEFT_OBJ_ARRAY(1, &job),
	};

	igt_assert_eq(drmSyncobjCreate(fd, 0, &out.handle), 0);
	igt_assert_eq(__weft_submit(fd, &submit), 0);
	return out.handle;
}

/**
 * weft_drm_version: - the driver's major and minor version; 0 or -errno.
 */
int weft_drm_version(int fd, int *major, int *minor)
{
	drmVersionPtr v = drmGetVersion(fd);

	if (!v)
		return -ENODEV;
	*major = v->version_major;
	*minor = v->version_minor;
	drmFreeVersion(v);
	return 0;
}

/**
 * weft_devcoredumps: - counts the Weft devcoredumps (printing each) that
 * contain @expect, all of them if it is NULL; -1 without devcoredump
 * support. With @remove, frees every Weft devcoredump (writing to its data
 * does).
 */
int weft_devcoredumps(const char *expect, bool remove)
{
	DIR *dir = opendir("/sys/class/devcoredump");
	struct dirent *de;
	int count = 0;

	if (!dir)
		return -1;
	while ((de = readdir(dir))) {
		char path[512], *text;
		bool weft;
		int dfd;

		if (strncmp(de->d_name, "devcd", 5))
			continue;
		snprintf(path, sizeof(path), "/sys/class/devcoredump/%s/data",
			 de->d_name);
		text = weft_read_file(path);
		weft = text && !strncmp(text, "weft devcoredump", 16);
		if (weft) {
			igt_info("%s", text);
			count += !expect || strstr(text, expect);
		}
		free(text);
		if (!weft || !remove)
			continue;
		dfd = open(path, O_WRONLY);
		if (dfd >= 0) {
			igt_assert_eq(write(dfd, "1", 1), 1);
			close(dfd);
		}
	}
	closedir(dir);
	return count;
}

/**
 * weft_read_file: - a whole (small) file as a malloc()ed string, or NULL.
 */
char *weft_read_file(const char *path)
{
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	ssize_t n;
	int fd = open(path, O_RDONLY);

	igt_assert(buf);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += n;
		if (len + 1 == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			igt_assert(buf);
		}
	}
	close(fd);
	buf[len] = 0;
	return buf;
}

/**
 * weft_mount_if_needed: - mounts a @type file system on @dir unless
 * @dir/@probe exists; skips when that is not possible.
 */
void weft_mount_if_needed(const char *dir, const char *type,
			  const char *probe)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, probe);
	if (!access(path, F_OK))
		return;
	igt_require(geteuid() == 0);
	igt_require_f(!mount(type, dir, type, 0, NULL), "cannot mount %s\n",
		      type);
}

/**
 * weft_debugfs_read: - the malloc()ed contents of the Weft device's debugfs
 * file @name (weft_rings, weft_queues, weft_vms); mounts debugfs if needed.
 */
char *weft_debugfs_read(const char *name)
{
	char path[512];
	struct dirent *de;
	char *text = NULL;
	DIR *dir;

	weft_mount_if_needed("/sys/kernel/debug", "debugfs", "dri");
	dir = opendir("/sys/kernel/debug/dri");
	igt_require(dir);
	while (!text && (de = readdir(dir))) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%s/%s",
			 de->d_name, name);
		text = weft_read_file(path);
	}
	closedir(dir);
	igt_assert_f(text, "no debugfs file %s\n", name);
	return text;
}

/**
 * weft_test_ctx_init: - a VM, a NORMAL queue on it, a 4-page read-only
 * batch buffer at test slot 0 and a zeroed 1-page data buffer at slot 1.
 */
void weft_test_ctx_init(int fd, const struct drm_weft_device_info *info,
			struct weft_test_ctx *c)
{
	c->vm = weft_vm_create(fd);
	c->queue = weft_queue_create(fd, c->vm, DRM_WEFT_QUEUE_PRIORITY_NORMAL);
	c->batch = weft_bo_new(fd, 4 * WEFT_PAGE_SIZE, c->vm,
			       weft_test_va(info, 0),
			       DRM_WEFT_VM_BIND_OP_MAP_READONLY);
	c->data = weft_bo_new(fd, WEFT_PAGE_SIZE, c->vm, weft_test_va(info, 1),
			      0);
	memset(c->data->map, 0, WEFT_PAGE_SIZE);
}

void weft_test_ctx_fini(int fd, struct weft_test_ctx *c)
{
	weft_queue_destroy(fd, c->queue);
	weft_bo_free(fd, c->data);
	weft_bo_free(fd, c->batch);
	weft_vm_destroy(fd, c->vm);
}

/**
 * weft_test_write_batch: - writes, in page @page of @c's batch buffer, a
 * batch storing @value at @va; returns its VA, its size in @size.
 */
uint64_t weft_test_write_batch(struct weft_test_ctx *c, unsigned int page,
			       uint64_t va, uint64_t value, uint32_t *size)
{
	struct weft_batch batch;

	weft_batch_init(&batch, (char *)c->batch->map + page * WEFT_PAGE_SIZE,
			WEFT_PAGE_SIZE);
	weft_batch_write_data(&batch, va, value);
	weft_batch_end(&batch);
	*size = weft_batch_size(&batch);
	return c->batch->va + page * WEFT_PAGE_SIZE;
}

/**
 * weft_syncobj_wait_status: - waits, failing after WEFT_JOB_TIMEOUT_NS, for
 * a binary syncobj; returns weft_syncobj_status().
 */
int weft_syncobj_wait_status(int fd, uint32_t syncobj)
{
	igt_assert_f(weft_syncobj_wait(fd, syncobj, WEFT_JOB_TIMEOUT_NS) == 0,
		     "syncobj %u did not signal in time\n", syncobj);
	return weft_syncobj_status(fd, syncobj);
}
