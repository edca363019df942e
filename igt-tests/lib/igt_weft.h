/* SPDX-License-Identifier: MIT */
/*
 * Copyright (C) 2026 The Weft authors
 *
 * Helpers for the Weft tests: thin wrappers of the uAPI (the __ variants
 * return 0 or -errno, the others assert success), a batch builder and
 * submission with a sync object.
 */
#ifndef IGT_WEFT_H
#define IGT_WEFT_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "weft_drm.h"

/*
 * Batch commands, as the hardware contract's weft_cs_regs.h (generated from
 * hw/regs) defines them. It is not part of the uAPI, so IGT keeps its own
 * copy; `make check` asserts that the two agree.
 */
#define WEFT_BATCH_HEADER(op, len)	(((uint32_t)(op) << 24) | (len))
#define WEFT_BATCH_NOP			0x00
#define WEFT_BATCH_END			0x01
#define WEFT_BATCH_DISPATCH		0x02
#define WEFT_BATCH_DISPATCH_LEN		16
#define WEFT_BATCH_WRITE_DATA		0x03
#define WEFT_BATCH_WRITE_DATA_LEN	5
#define WEFT_BATCH_SEM_WAIT		0x05
#define WEFT_BATCH_SEM_WAIT_LEN		6
#define WEFT_BATCH_SEM_WAIT_GTE		0	/* value >= operand */
#define WEFT_BATCH_SEM_WAIT_EQ		1	/* value == operand */
/*
 * DRAIN_QUEUE runs the records of a device queue (device-side enqueue):
 * the header's fields, a record's and an event slot's, as far as the tests
 * use them.
 */
#define WEFT_BATCH_DRAIN_QUEUE		0x06
#define WEFT_BATCH_DRAIN_QUEUE_LEN	3
#define WEFT_DEVQ_HEAD			0x00
#define WEFT_DEVQ_SIZE			0x04
#define WEFT_DEVQ_EVENTS		0x0c
#define WEFT_DEVQ_STATUS		0x14
#define WEFT_DEVQ_ERROR_RECORD		0x18	/* u64: the failing record's VA */
#define WEFT_DEVQ_HEADER_SIZE		0x40
#define WEFT_DEVQ_REC_LEN		0x00
#define WEFT_DEVQ_REC_KIND		0x04
#define WEFT_DEVQ_REC_SIGNAL		0x0c
#define WEFT_DEVQ_REC_NUM_WAITS		0x10
#define WEFT_DEVQ_REC_STATE		0x14
#define WEFT_DEVQ_REC_DISPATCH		0x20	/* the DISPATCH_SCRATCH payload */
#define WEFT_DEVQ_REC_WAITS		0x60
#define WEFT_DEVQ_REC_ARGS		0xa0	/* the smallest record but PAD */
#define WEFT_DEVQ_REC_KERNEL		0x2
#define WEFT_DEVQ_REC_MARKER		0x3
#define WEFT_DEVQ_REC_STATE_DONE	0x1
#define WEFT_DEVQ_EVENT_SIZE		0x20
#define WEFT_DEVQ_ERR_MMU_FAULT		3
#define WEFT_DEVQ_ERR_BAD_QUEUE		8
/* A ring-only command: must not appear in a batch. */
#define WEFT_RING_FENCE			0x82
#define WEFT_RING_FENCE_LEN		6

#define WEFT_SIGNATURE_WEFT		0x54464557	/* "WEFT" */
#define WEFT_PAGE_SIZE			4096ull

/* Default timeout of a job, generous for a device model under TCG. */
#define WEFT_JOB_TIMEOUT_NS		(30ull * 1000 * 1000 * 1000)

int __weft_query(int fd, struct drm_weft_query *query);
void weft_query_device_info(int fd, struct drm_weft_device_info *info);

int __weft_bo_create(int fd, struct drm_weft_bo_create *create);
uint32_t weft_bo_create(int fd, uint64_t size);
int __weft_bo_mmap_offset(int fd, struct drm_weft_bo_mmap_offset *arg);
uint64_t weft_bo_mmap_offset(int fd, uint32_t handle);
void *weft_bo_mmap(int fd, uint32_t handle, uint64_t size, int prot);

uint32_t weft_vm_create(int fd);
int __weft_vm_destroy(int fd, uint32_t vm_id);
void weft_vm_destroy(int fd, uint32_t vm_id);
int __weft_vm_bind(int fd, struct drm_weft_vm_bind *bind);
int __weft_vm_bind_op(int fd, uint32_t vm_id,
		      const struct drm_weft_vm_bind_op *op);
void weft_vm_bind_map(int fd, uint32_t vm_id, uint32_t handle,
		      uint64_t bo_offset, uint64_t va, uint64_t size,
		      uint32_t flags);
void weft_vm_bind_unmap(int fd, uint32_t vm_id, uint64_t va, uint64_t size);

int __weft_queue_create(int fd, struct drm_weft_queue_create *create);
uint32_t weft_queue_create(int fd, uint32_t vm_id, uint32_t priority);
int __weft_queue_destroy(int fd, uint32_t queue_id);
void weft_queue_destroy(int fd, uint32_t queue_id);

int __weft_submit(int fd, struct drm_weft_submit *submit);

/**
 * struct weft_bo - a buffer, its CPU mapping and its GPU mapping.
 * @handle: GEM handle.
 * @size: size in bytes (a multiple of the page size).
 * @map: CPU mapping of the whole buffer.
 * @vm_id: the VM it is mapped in, 0 if none.
 * @va: its GPU address in @vm_id.
 */
struct weft_bo {
	uint32_t handle;
	uint64_t size;
	void *map;
	uint32_t vm_id;
	uint64_t va;
};

struct weft_bo *weft_bo_new(int fd, uint64_t size, uint32_t vm_id,
			    uint64_t va, uint32_t map_flags);
void weft_bo_free(int fd, struct weft_bo *bo);

/**
 * struct weft_batch - builds a batch in a CPU-mapped buffer.
 */
struct weft_batch {
	uint32_t *cs;
	uint32_t len;
	uint32_t max;
};

/**
 * struct weft_dispatch - the fields of a DISPATCH command.
 */
struct weft_dispatch {
	uint64_t code_va;
	uint64_t args_va;
	uint32_t simd;
	uint32_t global_size[3];
	uint32_t local_size[3];
	uint32_t global_offset[3];
	uint32_t slm_size;
};

void weft_batch_init(struct weft_batch *batch, void *map, size_t size);
void weft_batch_emit(struct weft_batch *batch, uint32_t dw);
void weft_batch_nop(struct weft_batch *batch, uint32_t len);
void weft_batch_write_data(struct weft_batch *batch, uint64_t va,
			   uint64_t value);
void weft_batch_sem_wait(struct weft_batch *batch, uint64_t va,
			 uint64_t value, uint32_t op);
void weft_batch_dispatch(struct weft_batch *batch,
			 const struct weft_dispatch *dispatch);
void weft_batch_end(struct weft_batch *batch);
uint32_t weft_batch_size(const struct weft_batch *batch);

int weft_syncobj_status(int fd, uint32_t syncobj);
int weft_syncobj_wait(int fd, uint32_t syncobj, uint64_t timeout_ns);
int weft_syncobj_wait_status(int fd, uint32_t syncobj);
int weft_submit_and_wait(int fd, uint32_t queue_id, uint64_t batch_va,
			 uint32_t batch_size);

unsigned int weft_job_timeout_ms(void);
double weft_now_s(void);
int weft_wait_hang(int fd, uint32_t syncobj, double start);
uint64_t weft_test_va(const struct drm_weft_device_info *info,
		      unsigned int slot);
void weft_assert_device_alive(int fd);

/* Since uAPI 1.1: banned queues, asynchronous binds. */
void weft_assert_queue_banned(int fd, uint32_t queue_id);
uint32_t weft_submit_nowait(int fd, uint32_t queue_id, uint64_t batch_va,
			    uint32_t batch_size);
int weft_drm_version(int fd, int *major, int *minor);
char *weft_read_file(const char *path);
int weft_devcoredumps(const char *expect, bool remove);
void weft_mount_if_needed(const char *dir, const char *type,
			  const char *probe);
char *weft_debugfs_read(const char *name);

/**
 * struct weft_test_ctx - a VM and queue with a batch and a data buffer.
 * @vm: the VM.
 * @queue: a NORMAL-priority queue on @vm.
 * @batch: 4 read-only pages at weft_test_va() slot 0.
 * @data: 1 page at slot 1.
 */
struct weft_test_ctx {
	uint32_t vm;
	uint32_t queue;
	struct weft_bo *batch;
	struct weft_bo *data;
};

void weft_test_ctx_init(int fd, const struct drm_weft_device_info *info,
			struct weft_test_ctx *c);
void weft_test_ctx_fini(int fd, struct weft_test_ctx *c);
uint64_t weft_test_write_batch(struct weft_test_ctx *c, unsigned int page,
			       uint64_t va, uint64_t value, uint32_t *size);

#endif /* IGT_WEFT_H */
