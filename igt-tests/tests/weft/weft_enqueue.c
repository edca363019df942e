// SPDX-License-Identifier: MIT
/*
 * Copyright (C) 2026 The Weft authors
 *
 * DRAIN_QUEUE, the batch command behind device-side enqueue, through the
 * driver: a device queue's records run and complete their events before the
 * batch goes on; a malformed queue fails its job with -EIO (a fault with
 * -EFAULT), a child kernel that faults fails it with -EFAULT and one that
 * never ends with the job timeout's -ETIMEDOUT; each bans its queue and
 * leaves every other queue running.
 */
#include <string.h>
#include <xf86drm.h>

#include "igt.h"
#include "igt_weft.h"
#include "child_fault.h"	/* weft_child_fault_kernel, kernels/child_fault.s */
#include "child_spin.h"		/* weft_child_spin_kernel, kernels/child_spin.s */

IGT_TEST_DESCRIPTION("Tests for DRAIN_QUEUE, the batch command of "
		     "device-side enqueue.");

#define PAGE WEFT_PAGE_SIZE
#define QUEUE_SIZE 0x800
#define QUEUE_EVENTS 4
#define CL_SUBMITTED 2

static struct drm_weft_device_info info;

/* The shared test context plus a device queue at slot 3. */
struct ctx {
	struct weft_test_ctx t;
	struct weft_bo *dq;
};

static uint32_t *dq_word(struct ctx *c, uint32_t off)
{
	return (uint32_t *)((char *)c->dq->map + off);
}

static uint32_t *dq_event(struct ctx *c, uint32_t slot)
{
	return dq_word(c, WEFT_DEVQ_HEADER_SIZE + QUEUE_SIZE +
		       slot * WEFT_DEVQ_EVENT_SIZE);
}

static void ctx_init(int fd, struct ctx *c)
{
	weft_test_ctx_init(fd, &info, &c->t);
	c->dq = weft_bo_new(fd, PAGE, c->t.vm, weft_test_va(&info, 3), 0);
	memset(c->dq->map, 0, PAGE);
	*dq_word(c, WEFT_DEVQ_SIZE) = QUEUE_SIZE;
	*dq_word(c, WEFT_DEVQ_EVENTS) = QUEUE_EVENTS;
	for (uint32_t i = 0; i < QUEUE_EVENTS; i++)
		*dq_event(c, i) = CL_SUBMITTED;
}

static void ctx_fini(int fd, struct ctx *c)
{
	weft_bo_free(fd, c->dq);
	weft_test_ctx_fini(fd, &c->t);
}

/*
 * Appends a marker record that signals @signal after waiting for @wait (none:
 * -1); returns its offset in the buffer.
 */
static uint32_t put_marker(struct ctx *c, uint32_t signal, int wait)
{
	uint32_t off = *dq_word(c, WEFT_DEVQ_HEAD);
	uint32_t rec = WEFT_DEVQ_HEADER_SIZE + off;

	*dq_word(c, rec + WEFT_DEVQ_REC_LEN) = WEFT_DEVQ_REC_ARGS;
	*dq_word(c, rec + WEFT_DEVQ_REC_KIND) = WEFT_DEVQ_REC_MARKER;
	*dq_word(c, rec + WEFT_DEVQ_REC_SIGNAL) = signal;
	if (wait >= 0) {
		*dq_word(c, rec + WEFT_DEVQ_REC_NUM_WAITS) = 1;
		*dq_word(c, rec + WEFT_DEVQ_REC_WAITS) = wait;
	}
	*dq_word(c, WEFT_DEVQ_HEAD) = off + WEFT_DEVQ_REC_ARGS;
	return rec;
}

/*
 * Appends a kernel record: one work-item at SIMD 8 of the code at @code_va,
 * whose argument buffer (the record's ARGS) holds @arg, signalling
 * @signal; returns its offset in the buffer.
 */
static uint32_t put_kernel(struct ctx *c, uint64_t code_va, uint64_t arg,
			   uint32_t signal)
{
	uint32_t off = *dq_word(c, WEFT_DEVQ_HEAD);
	uint32_t rec = WEFT_DEVQ_HEADER_SIZE + off;
	uint32_t len = WEFT_DEVQ_REC_ARGS + 16;
	uint64_t args_va = c->dq->va + rec + WEFT_DEVQ_REC_ARGS;
	/* code, arguments, SIMD, global and local size, offset, SLM, scratch */
	const uint32_t dispatch[16] = {
		(uint32_t)code_va, (uint32_t)(code_va >> 32),
		(uint32_t)args_va, (uint32_t)(args_va >> 32), 8,
		1, 1, 1, 1, 1, 1,
	};

	*dq_word(c, rec + WEFT_DEVQ_REC_LEN) = len;
	*dq_word(c, rec + WEFT_DEVQ_REC_KIND) = WEFT_DEVQ_REC_KERNEL;
	*dq_word(c, rec + WEFT_DEVQ_REC_SIGNAL) = signal;
	memcpy(dq_word(c, rec + WEFT_DEVQ_REC_DISPATCH), dispatch,
	       sizeof(dispatch));
	memcpy(dq_word(c, rec + WEFT_DEVQ_REC_ARGS), &arg, sizeof(arg));
	*dq_word(c, WEFT_DEVQ_HEAD) = off + len;
	return rec;
}

/* @code in a read-only executable buffer at VA slot 4. */
static struct weft_bo *code_bo(int fd, struct ctx *c, const uint32_t *code,
			       size_t size)
{
	struct weft_bo *bo = weft_bo_new(fd, PAGE, c->t.vm,
					 weft_test_va(&info, 4),
					 DRM_WEFT_VM_BIND_OP_MAP_READONLY |
					 DRM_WEFT_VM_BIND_OP_MAP_EXEC);

	memcpy(bo->map, code, size);
	return bo;
}

/*
 * In page @page of the batch buffer: DRAIN_QUEUE of @dq_va, then a
 * WRITE_DATA of 0x600d into the data page (which shows that the batch went
 * on after the drain).
 */
static uint64_t drain_batch(struct ctx *c, unsigned int page, uint64_t dq_va,
			    uint32_t *size)
{
	struct weft_batch batch;

	weft_batch_init(&batch, (char *)c->t.batch->map + page * PAGE, PAGE);
	weft_batch_emit(&batch, WEFT_BATCH_HEADER(WEFT_BATCH_DRAIN_QUEUE,
						  WEFT_BATCH_DRAIN_QUEUE_LEN));
	weft_batch_emit(&batch, (uint32_t)dq_va);
	weft_batch_emit(&batch, (uint32_t)(dq_va >> 32));
	weft_batch_write_data(&batch, c->t.data->va, 0x600d);
	weft_batch_end(&batch);
	*size = weft_batch_size(&batch);
	return c->t.batch->va + page * PAGE;
}

static int drain(int fd, struct ctx *c, uint32_t queue, uint64_t dq_va)
{
	uint32_t size;
	uint64_t batch = drain_batch(c, 0, dq_va, &size);

	return weft_submit_and_wait(fd, queue, batch, size);
}

/* The same VM's other queue drains a good device queue; the device lives. */
static void expect_other_queue_drains(int fd, struct ctx *c)
{
	uint32_t other = weft_queue_create(fd, c->t.vm,
					   DRM_WEFT_QUEUE_PRIORITY_NORMAL);

	memset(dq_word(c, WEFT_DEVQ_HEADER_SIZE), 0, QUEUE_SIZE);
	*dq_word(c, WEFT_DEVQ_HEAD) = 0;
	put_marker(c, 0, -1);
	igt_assert_eq(drain(fd, c, other, c->dq->va), 0);
	igt_assert_eq_u32(*dq_event(c, 0), 0);
	igt_assert_eq_u64(*(uint64_t *)c->t.data->map, 0x600d);
	weft_queue_destroy(fd, other);
	weft_assert_device_alive(fd);
}

/*
 * A bad drain on the test queue: @err, @status in the device queue's
 * header, the queue banned; another queue drains.  Returns the header's
 * ERROR_RECORD as the bad drain left it.
 */
static uint64_t expect_bad_drain(int fd, struct ctx *c, uint64_t dq_va,
				 int err, uint32_t status)
{
	uint64_t error_record;

	igt_assert_eq(drain(fd, c, c->t.queue, dq_va), err);
	igt_assert_eq_u64(*(uint64_t *)c->t.data->map, 0);
	igt_assert_eq_u32(*dq_word(c, WEFT_DEVQ_STATUS), status);
	error_record = *(uint64_t *)dq_word(c, WEFT_DEVQ_ERROR_RECORD);
	weft_assert_queue_banned(fd, c->t.queue);
	expect_other_queue_drains(fd, c);
	return error_record;
}

igt_main
{
	struct ctx c;
	int fd = -1;

	igt_fixture {
		fd = drm_open_driver(DRIVER_WEFT);
		weft_query_device_info(fd, &info);
	}

	igt_describe("Check that DRAIN_QUEUE runs a device queue's records in "
		     "event order, completes their events, empties the queue "
		     "and lets the batch go on.");
	igt_subtest("drain-markers") {
		uint32_t first, second;

		ctx_init(fd, &c);
		/* Reserved first, run second: it waits for the other's event. */
		first = put_marker(&c, 1, 0);
		second = put_marker(&c, 0, -1);
		igt_assert_eq(drain(fd, &c, c.t.queue, c.dq->va), 0);
		igt_assert_eq_u32(*dq_event(&c, 0), 0);
		igt_assert_eq_u32(*dq_event(&c, 1), 0);
		igt_assert_eq_u32(*dq_event(&c, 2), CL_SUBMITTED);
		igt_assert_eq_u32(*dq_word(&c, first + WEFT_DEVQ_REC_STATE),
				  WEFT_DEVQ_REC_STATE_DONE);
		igt_assert_eq_u32(*dq_word(&c, second + WEFT_DEVQ_REC_STATE),
				  WEFT_DEVQ_REC_STATE_DONE);
		igt_assert_eq_u32(*dq_word(&c, WEFT_DEVQ_HEAD), 0);
		igt_assert_eq_u32(*dq_word(&c, WEFT_DEVQ_STATUS), 0);
		igt_assert_eq_u64(*(uint64_t *)c.t.data->map, 0x600d);
		ctx_fini(fd, &c);
	}

	igt_describe("Check that a malformed record fails the job with -EIO, "
		     "says so in the device queue's header, bans the queue "
		     "and leaves the other queues running.");
	igt_subtest("drain-bad-record") {
		uint32_t rec;

		ctx_init(fd, &c);
		rec = put_marker(&c, 0, -1);
		*dq_word(&c, rec + WEFT_DEVQ_REC_KIND) = 0;	/* never written */
		expect_bad_drain(fd, &c, c.dq->va, -EIO, WEFT_DEVQ_ERR_BAD_QUEUE);
		ctx_fini(fd, &c);
	}

	igt_describe("Check that records whose wait lists can never complete "
		     "fail the job with -EIO and that the header tells why.");
	igt_subtest("drain-wait-never-completes") {
		ctx_init(fd, &c);
		put_marker(&c, 1, 2);
		igt_assert_eq(drain(fd, &c, c.t.queue, c.dq->va), -EIO);
		igt_assert_eq_u32(*dq_word(&c, WEFT_DEVQ_STATUS),
				  WEFT_DEVQ_ERR_BAD_QUEUE);
		weft_assert_queue_banned(fd, c.t.queue);
		ctx_fini(fd, &c);
	}

	igt_describe("Check that DRAIN_QUEUE of a misaligned device queue fails "
		     "the job with -EIO.");
	igt_subtest("drain-misaligned") {
		ctx_init(fd, &c);
		expect_bad_drain(fd, &c, c.dq->va + 32, -EIO, 0);
		ctx_fini(fd, &c);
	}

	igt_describe("Check that DRAIN_QUEUE of an unmapped device queue "
		     "faults with -EFAULT.");
	igt_subtest("drain-unmapped") {
		ctx_init(fd, &c);
		expect_bad_drain(fd, &c, weft_test_va(&info, 5), -EFAULT, 0);
		ctx_fini(fd, &c);
	}

	igt_describe("Check that a child kernel that faults fails the parent's "
		     "job with -EFAULT, that the device queue's header names "
		     "the fault and the record, that the child's event never "
		     "completes, and that the other queues keep running.");
	igt_subtest("child-fault") {
		struct weft_bo *code;
		uint32_t rec;

		ctx_init(fd, &c);
		code = code_bo(fd, &c, weft_child_fault_kernel,
			       sizeof(weft_child_fault_kernel));
		rec = put_kernel(&c, code->va, weft_test_va(&info, 5), 1);
		igt_assert_eq_u64(expect_bad_drain(fd, &c, c.dq->va, -EFAULT,
						   WEFT_DEVQ_ERR_MMU_FAULT),
				  c.dq->va + rec);
		igt_assert_eq_u32(*dq_event(&c, 1), CL_SUBMITTED);
		weft_bo_free(fd, code);
		ctx_fini(fd, &c);
	}

	igt_describe("Check that a child kernel that never ends is stopped by "
		     "the job timeout: the parent's job fails with -ETIMEDOUT, "
		     "its queue is banned, the child's event never completes, "
		     "and other queues and the device keep running.");
	igt_subtest("child-hang") {
		struct weft_bo *code;
		uint32_t size, so;
		uint64_t batch;
		double start;

		igt_require_f(weft_job_timeout_ms() <= 5000,
			      "load weft.ko with job_timeout_ms <= 5000\n");
		ctx_init(fd, &c);
		code = code_bo(fd, &c, weft_child_spin_kernel,
			       sizeof(weft_child_spin_kernel));
		put_kernel(&c, code->va, 0, 1);
		batch = drain_batch(&c, 0, c.dq->va, &size);
		start = weft_now_s();
		so = weft_submit_nowait(fd, c.t.queue, batch, size);
		igt_assert_eq(weft_wait_hang(fd, so, start), -ETIMEDOUT);
		drmSyncobjDestroy(fd, so);
		igt_assert_eq_u64(*(uint64_t *)c.t.data->map, 0);
		igt_assert_eq_u32(*dq_event(&c, 1), CL_SUBMITTED);
		weft_assert_queue_banned(fd, c.t.queue);
		expect_other_queue_drains(fd, &c);
		weft_bo_free(fd, code);
		ctx_fini(fd, &c);
	}

	igt_fixture {
		drm_close_driver(fd);
	}
}
