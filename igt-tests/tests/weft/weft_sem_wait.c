// SPDX-License-Identifier: MIT
/*
 * Copyright (C) 2026 The Weft authors
 *
 * SEM_WAIT, the batch command that waits until a 64-bit value in the VM
 * compares true against an operand: one queue waits for another queue's
 * WRITE_DATA (or for the CPU) and completes only after it, while the other
 * queues run on; a wait that is never satisfied is ended by weft.ko's job
 * timeout (-ETIMEDOUT, the queue banned) and the device keeps serving.
 *
 * The waiting and the signalling queue have different priorities: queues of
 * one priority share a hardware queue, which runs their jobs in order.
 */
#include <xf86drm.h>

#include "igt.h"
#include "igt_weft.h"

IGT_TEST_DESCRIPTION("Tests for the Weft SEM_WAIT batch command.");

#define PAGE WEFT_PAGE_SIZE

/* "end": the kernel does nothing (weft-asm of hw/isa, one instruction). */
static const uint32_t end_kernel[] = { 0x00000001, 0x00000000 };

static struct drm_weft_device_info info;

/* data[] slots */
#define SEM	0	/* the value waited for */
#define MARK	1	/* written by the waiting batch after its wait */
#define OTHER	2	/* written by another queue's batch */

struct ctx {
	uint32_t vm;
	struct weft_bo *batch;	/* one page per batch */
	struct weft_bo *code;
	struct weft_bo *data;
	uint64_t *d;
};

static void ctx_init(int fd, struct ctx *c)
{
	c->vm = weft_vm_create(fd);
	c->batch = weft_bo_new(fd, 4 * PAGE, c->vm, weft_test_va(&info, 0),
			       DRM_WEFT_VM_BIND_OP_MAP_READONLY);
	c->code = weft_bo_new(fd, PAGE, c->vm, weft_test_va(&info, 1),
			      DRM_WEFT_VM_BIND_OP_MAP_READONLY |
			      DRM_WEFT_VM_BIND_OP_MAP_EXEC);
	c->data = weft_bo_new(fd, PAGE, c->vm, weft_test_va(&info, 2), 0);
	memcpy(c->code->map, end_kernel, sizeof(end_kernel));
	c->d = c->data->map;
	memset(c->d, 0, PAGE);
}

static void ctx_fini(int fd, struct ctx *c)
{
	weft_bo_free(fd, c->data);
	weft_bo_free(fd, c->code);
	weft_bo_free(fd, c->batch);
	weft_vm_destroy(fd, c->vm);
}

static uint64_t data_va(struct ctx *c, unsigned int slot)
{
	return c->data->va + 8 * slot;
}

/* Batch page @page: SEM_WAIT(SEM, @value, @op), WRITE_DATA(MARK, @mark). */
static uint32_t wait_batch(struct ctx *c, unsigned int page, uint64_t value,
			   uint32_t op, uint64_t mark)
{
	struct weft_batch b;

	weft_batch_init(&b, (char *)c->batch->map + page * PAGE, PAGE);
	weft_batch_sem_wait(&b, data_va(c, SEM), value, op);
	weft_batch_write_data(&b, data_va(c, MARK), mark);
	weft_batch_end(&b);
	return weft_batch_size(&b);
}

/* Batch page @page: WRITE_DATA(@slot, @value). */
static uint32_t write_batch(struct ctx *c, unsigned int page,
			    unsigned int slot, uint64_t value)
{
	struct weft_batch b;

	weft_batch_init(&b, (char *)c->batch->map + page * PAGE, PAGE);
	weft_batch_write_data(&b, data_va(c, slot), value);
	weft_batch_end(&b);
	return weft_batch_size(&b);
}

static uint64_t page_va(struct ctx *c, unsigned int page)
{
	return c->batch->va + page * PAGE;
}

/* The job of @so is still running: its fence has not signalled. */
static void assert_pending(int fd, uint32_t so, uint64_t ms)
{
	igt_assert_eq(weft_syncobj_wait(fd, so, ms * 1000000ull), -ETIME);
}

igt_main
{
	int fd = -1;

	igt_fixture {
		fd = drm_open_driver(DRIVER_WEFT);
		weft_query_device_info(fd, &info);
	}

	igt_describe("Check that a batch waiting on a LOW queue for a value "
		     "completes only after a NORMAL queue's WRITE_DATA wrote "
		     "it, and that the wait holds up no other queue.");
	igt_subtest("wait-other-queue") {
		struct ctx c;
		uint32_t qwait, qsig, so_wait, so_sig;
		uint32_t wsize, ssize, osize;

		ctx_init(fd, &c);
		qwait = weft_queue_create(fd, c.vm,
					  DRM_WEFT_QUEUE_PRIORITY_LOW);
		qsig = weft_queue_create(fd, c.vm,
					 DRM_WEFT_QUEUE_PRIORITY_NORMAL);
		wsize = wait_batch(&c, 0, 1, WEFT_BATCH_SEM_WAIT_GTE, 0x600d);
		ssize = write_batch(&c, 1, SEM, 1);
		osize = write_batch(&c, 2, OTHER, 0x0123);

		so_wait = weft_submit_nowait(fd, qwait, page_va(&c, 0), wsize);
		assert_pending(fd, so_wait, 300);
		igt_assert_eq_u64(c.d[MARK], 0);

		/* Another queue runs while the first waits ... */
		igt_assert_eq(weft_submit_and_wait(fd, qsig, page_va(&c, 2),
						   osize), 0);
		igt_assert_eq_u64(c.d[OTHER], 0x0123);
		assert_pending(fd, so_wait, 100);
		igt_assert_eq_u64(c.d[MARK], 0);

		/* ... and its WRITE_DATA releases the wait. */
		so_sig = weft_submit_nowait(fd, qsig, page_va(&c, 1), ssize);
		igt_assert_eq(weft_syncobj_wait_status(fd, so_sig), 1);
		igt_assert_eq(weft_syncobj_wait_status(fd, so_wait), 1);
		igt_assert_eq_u64(c.d[SEM], 1);
		igt_assert_eq_u64(c.d[MARK], 0x600d);

		drmSyncobjDestroy(fd, so_sig);
		drmSyncobjDestroy(fd, so_wait);
		weft_queue_destroy(fd, qsig);
		weft_queue_destroy(fd, qwait);
		ctx_fini(fd, &c);
	}

	igt_describe("Check that an EQ wait passes only on the exact value, "
		     "written by the CPU.");
	igt_subtest("wait-cpu-eq") {
		struct ctx c;
		uint32_t q, so, size;

		ctx_init(fd, &c);
		q = weft_queue_create(fd, c.vm, DRM_WEFT_QUEUE_PRIORITY_NORMAL);
		c.d[SEM] = 5;
		size = wait_batch(&c, 0, 7, WEFT_BATCH_SEM_WAIT_EQ, 0x600d);
		so = weft_submit_nowait(fd, q, page_va(&c, 0), size);
		assert_pending(fd, so, 200);
		__atomic_store_n(&c.d[SEM], 8, __ATOMIC_SEQ_CST);
		assert_pending(fd, so, 200);
		igt_assert_eq_u64(c.d[MARK], 0);
		__atomic_store_n(&c.d[SEM], 7, __ATOMIC_SEQ_CST);
		igt_assert_eq(weft_syncobj_wait_status(fd, so), 1);
		igt_assert_eq_u64(c.d[MARK], 0x600d);

		/* A value that already compares true passes at once. */
		igt_assert_eq(weft_submit_and_wait(fd, q, page_va(&c, 0), size),
			      0);
		drmSyncobjDestroy(fd, so);
		weft_queue_destroy(fd, q);
		ctx_fini(fd, &c);
	}

	igt_describe("Check that a wait never satisfied is ended by the job "
		     "timeout with -ETIMEDOUT, and that the device then still "
		     "runs a dispatch on the same hardware queue.");
	igt_subtest("wait-never-satisfied") {
		struct weft_dispatch d = {
			.simd = 8,
			.global_size = { 64, 1, 1 },
			.local_size = { 8, 1, 1 },
		};
		struct weft_batch b;
		struct ctx c;
		uint32_t q, q2, so, size;
		double start;

		igt_require_f(weft_job_timeout_ms() <= 5000,
			      "load weft.ko with job_timeout_ms <= 5000\n");
		ctx_init(fd, &c);
		q = weft_queue_create(fd, c.vm, DRM_WEFT_QUEUE_PRIORITY_LOW);
		size = wait_batch(&c, 0, 1, WEFT_BATCH_SEM_WAIT_GTE, 0x600d);

		start = weft_now_s();
		so = weft_submit_nowait(fd, q, page_va(&c, 0), size);
		igt_assert_eq(weft_wait_hang(fd, so, start), -ETIMEDOUT);
		igt_assert_eq_u64(c.d[MARK], 0);
		weft_assert_queue_banned(fd, q);

		/* A dispatch on a fresh queue of the same hardware queue. */
		q2 = weft_queue_create(fd, c.vm, DRM_WEFT_QUEUE_PRIORITY_LOW);
		d.code_va = c.code->va;
		d.args_va = c.data->va;
		weft_batch_init(&b, (char *)c.batch->map + PAGE, PAGE);
		weft_batch_dispatch(&b, &d);
		weft_batch_write_data(&b, data_va(&c, OTHER), 0xd15);
		weft_batch_end(&b);
		igt_assert_eq(weft_submit_and_wait(fd, q2, page_va(&c, 1),
						   weft_batch_size(&b)), 0);
		igt_assert_eq_u64(c.d[OTHER], 0xd15);
		/* The dropped wait does not come back when its value appears. */
		__atomic_store_n(&c.d[SEM], 1, __ATOMIC_SEQ_CST);
		usleep(100000);
		igt_assert_eq_u64(c.d[MARK], 0);
		weft_assert_device_alive(fd);

		drmSyncobjDestroy(fd, so);
		weft_queue_destroy(fd, q2);
		weft_queue_destroy(fd, q);
		ctx_fini(fd, &c);
	}

	igt_fixture {
		drm_close_driver(fd);
	}
}
