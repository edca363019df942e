// SPDX-License-Identifier: MIT
/*
 * Copyright (C) 2026 The Weft authors
 *
 * DRM_IOCTL_WEFT_SUBMIT: batches, sync objects, WRITE_DATA and DISPATCH.
 *
 * Error codes this test expects (weft.ko must match):
 *  - nonzero submit flags, nonzero job pad:                  -EINVAL
 *  - batch_va not 4-byte aligned, batch_size 0 or not a
 *    multiple of 4:                                          -EINVAL
 *  - batch range not inside [user_va_start, user_va_end)
 *    or wrapping around:                                     -EINVAL
 *  - unknown sync flags, nonzero point on a binary syncobj:  -EINVAL
 *  - stride smaller than the kernel's struct, or nonzero
 *    bytes past it (jobs, in_syncs, out_syncs):              -EINVAL
 *  - count above the driver's limit (0xffffffff is):         -EINVAL
 *  - an array pointer that is not readable:                  -EFAULT
 *  - unknown queue id:                                       -ENOENT
 *  - unknown syncobj handle (in or out):                     -ENOENT
 * Behaviour this test expects:
 *  - jobs.count 0 is a successful no-op;
 *  - a failing submit queues none of its jobs;
 *  - a batch in the user range but not mapped, a privileged (ring)
 *    command, an unknown opcode, a wrong length, an invalid dispatch, an
 *    undefined instruction or kernel code outside executable pages make
 *    the job's fence signal with an error, and the device keeps working.
 */
#include <sys/mman.h>
#include <time.h>
#include <xf86drm.h>

#include "igt.h"
#include "igt_weft.h"
#include "write_ids.h"	/* weft_write_ids_kernel, from kernels/write_ids.s */

IGT_TEST_DESCRIPTION("Tests for submitting Weft batches: sync objects, "
		     "commands and compute dispatches.");

#define PAGE WEFT_PAGE_SIZE
#define SENTINEL 0xdeadbeefu

static struct drm_weft_device_info info;

/* A job and a sync as a newer userspace passes them: 16 more bytes each. */
struct job_ext {
	struct drm_weft_job job;
	uint8_t ext[16];
};

struct sync_ext {
	struct drm_weft_sync sync;
	uint8_t ext[16];
};

/* A VM, a queue and a batch buffer mapped at slot 0. */
struct ctx {
	uint32_t vm;
	uint32_t queue;
	struct weft_bo *batch;
	struct weft_bo *data;	/* 4 pages at slot 1 */
};

static void ctx_init(int fd, struct ctx *ctx)
{
	ctx->vm = weft_vm_create(fd);
	ctx->queue = weft_queue_create(fd, ctx->vm,
				       DRM_WEFT_QUEUE_PRIORITY_NORMAL);
	ctx->batch = weft_bo_new(fd, 4 * PAGE, ctx->vm, weft_test_va(&info, 0),
				 DRM_WEFT_VM_BIND_OP_MAP_READONLY);
	ctx->data = weft_bo_new(fd, 4 * PAGE, ctx->vm, weft_test_va(&info, 1),
				0);
}

static void ctx_fini(int fd, struct ctx *ctx)
{
	weft_queue_destroy(fd, ctx->queue);
	weft_bo_free(fd, ctx->data);
	weft_bo_free(fd, ctx->batch);
	weft_vm_destroy(fd, ctx->vm);
}

static uint64_t *data_u64(struct ctx *ctx, uint64_t offset)
{
	return (uint64_t *)((char *)ctx->data->map + offset);
}

/* Builds a batch at byte @offset of the batch buffer. */
static void batch_at(struct ctx *ctx, struct weft_batch *batch,
		     uint64_t offset)
{
	weft_batch_init(batch, (char *)ctx->batch->map + offset, PAGE);
}

static int run_batch(int fd, struct ctx *ctx, struct weft_batch *batch)
{
	uint64_t offset = (char *)batch->cs - (char *)ctx->batch->map;

	return weft_submit_and_wait(fd, ctx->queue, ctx->batch->va + offset,
				    weft_batch_size(batch));
}

/* An END-only batch at @offset; returns its VA. */
static uint64_t end_batch(struct ctx *ctx, uint64_t offset)
{
	struct weft_batch batch;

	batch_at(ctx, &batch, offset);
	weft_batch_end(&batch);
	return ctx->batch->va + offset;
}

static int submit(int fd, uint32_t queue, struct drm_weft_job *jobs,
		  uint32_t count)
{
	struct drm_weft_submit submit = {
		.queue_id = queue,
		.jobs = DRM_WEFT_OBJ_ARRAY(count, jobs),
	};

	return __weft_submit(fd, &submit);
}

static void wait_ok(int fd, uint32_t syncobj)
{
	igt_assert_eq(weft_syncobj_wait(fd, syncobj, WEFT_JOB_TIMEOUT_NS), 0);
	igt_assert_eq(weft_syncobj_status(fd, syncobj), 1);
}

/* A job whose batch is END only. */
static struct drm_weft_job empty_job(struct ctx *ctx)
{
	return (struct drm_weft_job) {
		.batch_va = end_batch(ctx, 0),
		.batch_size = 4,
	};
}

/* Submits one job with @out as its only out-sync; expects @err. */
static void submit_sync_err(int fd, struct ctx *ctx, struct drm_weft_sync *in,
			    struct drm_weft_sync *out, int err)
{
	struct drm_weft_job job = empty_job(ctx);

	if (in)
		job.in_syncs = (struct drm_weft_obj_array)
			DRM_WEFT_OBJ_ARRAY(1, in);
	if (out)
		job.out_syncs = (struct drm_weft_obj_array)
			DRM_WEFT_OBJ_ARRAY(1, out);
	igt_assert_eq(submit(fd, ctx->queue, &job, 1), -err);
}

static void submit_job_err(int fd, struct ctx *ctx, struct drm_weft_job job,
			   int err)
{
	igt_assert_eq(submit(fd, ctx->queue, &job, 1), -err);
}

/* Runs a batch that must fail, then checks the device still works. */
static void expect_job_error(int fd, struct ctx *ctx,
			     struct weft_batch *batch)
{
	int status = run_batch(fd, ctx, batch);

	igt_info("job fence error: %d (%s)\n", status, strerror(-status));
	igt_assert_lt(status, 0);
	weft_assert_device_alive(fd);

	/* The guilty queue is banned: it takes no more jobs. */
	weft_assert_queue_banned(fd, ctx->queue);
	weft_queue_destroy(fd, ctx->queue);
	ctx->queue = weft_queue_create(fd, ctx->vm,
				       DRM_WEFT_QUEUE_PRIORITY_NORMAL);
}

/* A ctx that runs the write_ids kernel: its code and argument buffers. */
struct write_ids {
	struct ctx ctx;
	struct weft_bo *code;
	struct weft_bo *args;
	struct weft_batch batch;
};

/*
 * Sets up a batch with one DISPATCH of write_ids over a 1-D range, writing
 * to @out_va (in the ctx's VM when @out_size is nonzero, in ctx.data
 * otherwise), its code mapped with @code_flags.
 */
static struct weft_bo *write_ids_init(int fd, struct write_ids *w,
				      uint32_t simd, uint32_t local,
				      uint32_t global, uint32_t code_flags,
				      uint64_t out_size)
{
	struct weft_dispatch d = {
		.simd = simd,
		.global_size = { global, 1, 1 },
		.local_size = { local, 1, 1 },
	};
	struct weft_bo *out;

	ctx_init(fd, &w->ctx);
	w->code = weft_bo_new(fd, sizeof(weft_write_ids_kernel), w->ctx.vm,
			      weft_test_va(&info, 2), code_flags);
	memcpy(w->code->map, weft_write_ids_kernel,
	       sizeof(weft_write_ids_kernel));
	w->args = weft_bo_new(fd, PAGE, w->ctx.vm, weft_test_va(&info, 3),
			      DRM_WEFT_VM_BIND_OP_MAP_READONLY);
	out = out_size ? weft_bo_new(fd, out_size, w->ctx.vm,
				     weft_test_va(&info, 4), 0) : w->ctx.data;
	*(uint64_t *)w->args->map = out->va;

	d.code_va = w->code->va;
	d.args_va = w->args->va;
	batch_at(&w->ctx, &w->batch, 0);
	weft_batch_dispatch(&w->batch, &d);
	weft_batch_end(&w->batch);
	return out;
}

static void write_ids_fini(int fd, struct write_ids *w)
{
	weft_bo_free(fd, w->args);
	weft_bo_free(fd, w->code);
	ctx_fini(fd, &w->ctx);
}

/*
 * The write_ids kernel stores, for each work-item,
 * {global_id.x, group_id.x, subgroup_id, lane_id} at out + global_id.x * 16.
 * Checks every word against a reference, and that no word past the global
 * size was written.
 */
static void dispatch_write_ids(int fd, uint32_t simd, uint32_t local,
			       uint32_t global)
{
	const uint64_t out_size = ALIGN((uint64_t)(global + 64) * 16, PAGE);
	struct write_ids w;
	struct weft_bo *out;
	uint32_t *words;
	uint32_t bad = 0;

	igt_require(info.simd_widths & simd);
	igt_require_f(local <= info.max_wg_size,
		      "local size %u > max_wg_size %u\n", local,
		      info.max_wg_size);
	igt_info("simd %u, local size %u, global size %u\n", simd, local,
		 global);

	out = write_ids_init(fd, &w, simd, local, global,
			     DRM_WEFT_VM_BIND_OP_MAP_EXEC |
			     DRM_WEFT_VM_BIND_OP_MAP_READONLY, out_size);
	words = out->map;
	for (uint64_t i = 0; i < out_size / 4; i++)
		words[i] = SENTINEL;
	igt_assert_eq(run_batch(fd, &w.ctx, &w.batch), 0);

	for (uint32_t gid = 0; gid < global; gid++) {
		const uint32_t lid = gid % local;
		const uint32_t expect[4] = {
			gid, gid / local, lid / simd, lid % simd,
		};

		for (int i = 0; i < 4; i++) {
			uint32_t got = words[gid * 4 + i];

			if (got == expect[i])
				continue;
			if (bad++ < 16)
				igt_warn("work-item %u word %d: got %#x, "
					 "expected %#x\n", gid, i, got,
					 expect[i]);
		}
	}
	for (uint64_t i = (uint64_t)global * 4; i < out_size / 4; i++) {
		if (words[i] == SENTINEL)
			continue;
		if (bad++ < 16)
			igt_warn("word %" PRIu64 " past the global size "
				 "written: %#x\n", i, words[i]);
	}
	igt_assert_f(bad == 0, "%u wrong words\n", bad);

	weft_bo_free(fd, out);
	write_ids_fini(fd, &w);
}

/* A DISPATCH of write_ids with bad parameters must fail the job. */
static void dispatch_bad(int fd, uint32_t simd, uint32_t local,
			 uint32_t global, uint32_t code_flags)
{
	struct write_ids w;

	write_ids_init(fd, &w, simd, local, global, code_flags, 0);
	expect_job_error(fd, &w.ctx, &w.batch);
	write_ids_fini(fd, &w);
}

static void bad_stride(int fd, struct ctx *ctx, struct drm_weft_job *job,
		       struct drm_weft_obj_array *array, uint32_t min)
{
	const uint32_t strides[] = { 0, 4, 8, min - 8, min - 1 };

	for (unsigned int i = 0; i < ARRAY_SIZE(strides); i++) {
		array->stride = strides[i];
		igt_assert_eq(submit(fd, ctx->queue, job, 1), -EINVAL);
	}
}

igt_main
{
	struct ctx ctx = {};
	int fd = -1;

	igt_fixture {
		fd = drm_open_driver(DRIVER_WEFT);
		weft_query_device_info(fd, &info);
		ctx_init(fd, &ctx);
	}

	igt_describe("Check that an empty batch (END only) completes and "
		     "signals its out-sync.");
	igt_subtest("empty-batch") {
		struct weft_batch batch;

		batch_at(&ctx, &batch, 0);
		weft_batch_end(&batch);
		igt_assert_eq(run_batch(fd, &ctx, &batch), 0);
	}

	igt_describe("Check that NOP commands of any length are skipped.");
	igt_subtest("nop-batch") {
		struct weft_batch batch;

		batch_at(&ctx, &batch, 0);
		for (uint32_t len = 1; len <= 9; len++)
			weft_batch_nop(&batch, len);
		weft_batch_end(&batch);
		igt_assert_eq(run_batch(fd, &ctx, &batch), 0);
	}

	igt_describe("Check that WRITE_DATA writes its 64-bit value.");
	igt_subtest("write-data") {
		struct weft_batch batch;

		memset(ctx.data->map, 0, ctx.data->size);
		batch_at(&ctx, &batch, 0);
		weft_batch_write_data(&batch, ctx.data->va + 8,
				      0x8877665544332211ull);
		weft_batch_end(&batch);
		igt_assert_eq(run_batch(fd, &ctx, &batch), 0);
		igt_assert_eq_u64(*data_u64(&ctx, 0), 0);
		igt_assert_eq_u64(*data_u64(&ctx, 8), 0x8877665544332211ull);
		igt_assert_eq_u64(*data_u64(&ctx, 16), 0);
	}

	igt_describe("Check that the commands of a batch run in order.");
	igt_subtest("write-data-ordered") {
		struct weft_batch batch;

		memset(ctx.data->map, 0, ctx.data->size);
		batch_at(&ctx, &batch, 0);
		for (uint64_t i = 0; i < 64; i++) {
			weft_batch_write_data(&batch, ctx.data->va, i);
			weft_batch_write_data(&batch, ctx.data->va + 8 * (i + 1),
					      ~i);
		}
		weft_batch_end(&batch);
		igt_assert_eq(run_batch(fd, &ctx, &batch), 0);
		igt_assert_eq_u64(*data_u64(&ctx, 0), 63);
		for (uint64_t i = 0; i < 64; i++)
			igt_assert_eq_u64(*data_u64(&ctx, 8 * (i + 1)), ~i);
	}

	igt_describe("Check that several jobs in one submission all run, in "
		     "order, and signal their own out-syncs.");
	igt_subtest("multi-job") {
		struct drm_weft_sync outs[4] = {};
		struct drm_weft_job jobs[4] = {};
		struct weft_batch batch;

		memset(ctx.data->map, 0, ctx.data->size);
		for (int i = 0; i < 4; i++) {
			/* Its own word, and a word all jobs write in turn. */
			batch_at(&ctx, &batch, i * 256);
			weft_batch_write_data(&batch, ctx.data->va + 8 * i,
					      i + 1);
			weft_batch_write_data(&batch, ctx.data->va + 64, i + 1);
			weft_batch_end(&batch);
			igt_assert_eq(drmSyncobjCreate(fd, 0, &outs[i].handle),
				      0);
			jobs[i].batch_va = ctx.batch->va + i * 256;
			jobs[i].batch_size = weft_batch_size(&batch);
			jobs[i].out_syncs = (struct drm_weft_obj_array)
				DRM_WEFT_OBJ_ARRAY(1, &outs[i]);
		}
		igt_assert_eq(submit(fd, ctx.queue, jobs, 4), 0);
		for (int i = 0; i < 4; i++) {
			wait_ok(fd, outs[i].handle);
			igt_assert_eq_u64(*data_u64(&ctx, 8 * i), i + 1);
			drmSyncobjDestroy(fd, outs[i].handle);
		}
		/* The jobs of a queue run in order: the last one wrote last. */
		igt_assert_eq_u64(*data_u64(&ctx, 64), 4);
	}

	igt_describe("Check that a job signals several out-syncs.");
	igt_subtest("multi-out-sync") {
		struct drm_weft_sync outs[3] = {};
		struct drm_weft_job job = {
			.batch_va = end_batch(&ctx, 0),
			.batch_size = 4,
			.out_syncs = DRM_WEFT_OBJ_ARRAY(3, outs),
		};

		for (int i = 0; i < 3; i++)
			igt_assert_eq(drmSyncobjCreate(fd, 0, &outs[i].handle),
				      0);
		igt_assert_eq(submit(fd, ctx.queue, &job, 1), 0);
		for (int i = 0; i < 3; i++) {
			wait_ok(fd, outs[i].handle);
			drmSyncobjDestroy(fd, outs[i].handle);
		}
	}

	igt_describe("Check that a job waits for its in-syncs: a job on "
		     "another queue that waits for this one completes after "
		     "it.");
	igt_subtest("in-sync-chain") {
		uint32_t queue2 = weft_queue_create(fd, ctx.vm,
					DRM_WEFT_QUEUE_PRIORITY_NORMAL);
		struct drm_weft_sync a = {}, b = {};
		struct drm_weft_job job_a = {
			.batch_size = 4,
			.out_syncs = DRM_WEFT_OBJ_ARRAY(1, &a),
		};
		struct drm_weft_job job_b = {
			.batch_size = 4,
			.in_syncs = DRM_WEFT_OBJ_ARRAY(1, &a),
			.out_syncs = DRM_WEFT_OBJ_ARRAY(1, &b),
		};
		struct weft_batch batch;

		memset(ctx.data->map, 0, ctx.data->size);
		/* A: 200 writes; B: one write. */
		batch_at(&ctx, &batch, 0);
		for (int i = 0; i < 200; i++)
			weft_batch_write_data(&batch, ctx.data->va, i);
		weft_batch_end(&batch);
		job_a.batch_va = ctx.batch->va;
		job_a.batch_size = weft_batch_size(&batch);
		batch_at(&ctx, &batch, 2 * PAGE);
		weft_batch_write_data(&batch, ctx.data->va + 8, 1);
		weft_batch_end(&batch);
		job_b.batch_va = ctx.batch->va + 2 * PAGE;
		job_b.batch_size = weft_batch_size(&batch);

		igt_assert_eq(drmSyncobjCreate(fd, 0, &a.handle), 0);
		igt_assert_eq(drmSyncobjCreate(fd, 0, &b.handle), 0);
		igt_assert_eq(submit(fd, ctx.queue, &job_a, 1), 0);
		igt_assert_eq(submit(fd, queue2, &job_b, 1), 0);
		wait_ok(fd, b.handle);
		/* B done implies A done, without waiting for A. */
		igt_assert_eq(weft_syncobj_status(fd, a.handle), 1);
		igt_assert_eq_u64(*data_u64(&ctx, 0), 199);
		igt_assert_eq_u64(*data_u64(&ctx, 8), 1);
		drmSyncobjDestroy(fd, a.handle);
		drmSyncobjDestroy(fd, b.handle);
		weft_queue_destroy(fd, queue2);
	}

	igt_describe("Check that an already signalled in-sync lets the job "
		     "run.");
	igt_subtest("in-sync-signaled") {
		struct drm_weft_sync in = {}, out = {};

		igt_assert_eq(drmSyncobjCreate(fd, DRM_SYNCOBJ_CREATE_SIGNALED,
					       &in.handle), 0);
		igt_assert_eq(drmSyncobjCreate(fd, 0, &out.handle), 0);
		submit_sync_err(fd, &ctx, &in, &out, 0);
		wait_ok(fd, out.handle);
		drmSyncobjDestroy(fd, in.handle);
		drmSyncobjDestroy(fd, out.handle);
	}

	igt_describe("Check timeline sync objects: a job signals a point and "
		     "waits for one.");
	igt_subtest("timeline-sync") {
		struct drm_weft_sync in = { .flags = DRM_WEFT_SYNC_TIMELINE,
					    .point = 3 };
		struct drm_weft_sync out = { .flags = DRM_WEFT_SYNC_TIMELINE,
					     .point = 7 };
		uint64_t in_point = 3, point = 7, value = 0;
		struct timespec ts;

		igt_assert_eq(drmSyncobjCreate(fd, 0, &in.handle), 0);
		igt_assert_eq(drmSyncobjCreate(fd, 0, &out.handle), 0);
		igt_assert_eq(drmSyncobjTimelineSignal(fd, &in.handle,
						       &in_point, 1), 0);
		submit_sync_err(fd, &ctx, &in, &out, 0);

		clock_gettime(CLOCK_MONOTONIC, &ts);
		igt_assert_eq(drmSyncobjTimelineWait(fd, &out.handle, &point, 1,
				ts.tv_sec * 1000000000ll + ts.tv_nsec +
				WEFT_JOB_TIMEOUT_NS,
				DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL),
			      0);
		igt_assert_eq(drmSyncobjQuery(fd, &out.handle, &value, 1), 0);
		igt_assert_eq_u64(value, 7);
		drmSyncobjDestroy(fd, in.handle);
		drmSyncobjDestroy(fd, out.handle);
	}

	igt_describe("Check that a submission without jobs succeeds.");
	igt_subtest("submit-zero-jobs") {
		struct drm_weft_submit s = {
			.queue_id = ctx.queue,
			.jobs = { .stride = sizeof(struct drm_weft_job) },
		};

		do_ioctl(fd, DRM_IOCTL_WEFT_SUBMIT, &s);
	}

	igt_describe("Check that a submission with one bad job queues none of "
		     "its jobs.");
	igt_subtest("submit-all-or-nothing") {
		struct drm_weft_job jobs[2] = {};
		struct weft_batch batch;

		memset(ctx.data->map, 0, ctx.data->size);
		batch_at(&ctx, &batch, 0);
		weft_batch_write_data(&batch, ctx.data->va, 0x1234);
		weft_batch_end(&batch);
		jobs[0].batch_va = ctx.batch->va;
		jobs[0].batch_size = weft_batch_size(&batch);
		jobs[1].batch_va = end_batch(&ctx, 2 * PAGE);
		jobs[1].batch_size = 0; /* invalid */
		igt_assert_eq(submit(fd, ctx.queue, jobs, 2), -EINVAL);

		/* Everything queued before this job has run. */
		batch_at(&ctx, &batch, 2 * PAGE);
		weft_batch_end(&batch);
		igt_assert_eq(run_batch(fd, &ctx, &batch), 0);
		igt_assert_eq_u64(*data_u64(&ctx, 0), 0);
	}

	igt_describe("Check that elements larger than the kernel's structs "
		     "are accepted when the extra bytes are zero.");
	igt_subtest("submit-stride-larger") {
		struct job_ext job = {};
		struct sync_ext out = {};
		struct drm_weft_submit s = {
			.queue_id = ctx.queue,
			.jobs = DRM_WEFT_OBJ_ARRAY(1, &job),
		};

		igt_assert_eq(drmSyncobjCreate(fd, 0, &out.sync.handle), 0);
		job.job.batch_va = end_batch(&ctx, 0);
		job.job.batch_size = 4;
		job.job.out_syncs = (struct drm_weft_obj_array)
			DRM_WEFT_OBJ_ARRAY(1, &out);
		do_ioctl(fd, DRM_IOCTL_WEFT_SUBMIT, &s);
		wait_ok(fd, out.sync.handle);
		drmSyncobjDestroy(fd, out.sync.handle);
	}

	igt_describe("Make sure unknown submit flags are rejected.");
	igt_subtest("bad-flags") {
		struct drm_weft_job job = empty_job(&ctx);
		struct drm_weft_submit s = {
			.queue_id = ctx.queue,
			.jobs = DRM_WEFT_OBJ_ARRAY(1, &job),
		};

		for (int bit = 0; bit < 32; bit++) {
			s.flags = 1u << bit;
			do_ioctl_err(fd, DRM_IOCTL_WEFT_SUBMIT, &s, EINVAL);
		}
	}

	igt_describe("Make sure submitting to an unknown queue fails.");
	igt_subtest("bad-queue-id") {
		uint32_t queue2 = weft_queue_create(fd, ctx.vm,
					DRM_WEFT_QUEUE_PRIORITY_NORMAL);
		struct drm_weft_job job = empty_job(&ctx);

		weft_queue_destroy(fd, queue2);
		igt_assert_eq(submit(fd, 0, &job, 1), -ENOENT);
		igt_assert_eq(submit(fd, 0xdeadbeef, &job, 1), -ENOENT);
		igt_assert_eq(submit(fd, queue2, &job, 1), -ENOENT);
	}

	igt_describe("Make sure a nonzero pad in a job is rejected.");
	igt_subtest("bad-pad") {
		struct drm_weft_job job = {
			.batch_va = end_batch(&ctx, 0),
			.batch_size = 4,
			.pad = 1,
		};

		submit_job_err(fd, &ctx, job, EINVAL);
		job.pad = 0x80000000;
		submit_job_err(fd, &ctx, job, EINVAL);
	}

	igt_describe("Make sure a batch address that is not 4-byte aligned is "
		     "rejected.");
	igt_subtest("bad-batch-unaligned-va") {
		struct drm_weft_job job = { .batch_size = 4 };

		for (int off = 1; off < 4; off++) {
			job.batch_va = end_batch(&ctx, 0) + off;
			submit_job_err(fd, &ctx, job, EINVAL);
		}
	}

	igt_describe("Make sure a batch size that is not a multiple of 4 is "
		     "rejected.");
	igt_subtest("bad-batch-unaligned-size") {
		struct drm_weft_job job = { .batch_va = end_batch(&ctx, 0) };
		const uint32_t sizes[] = { 1, 2, 3, 5, 6, 7, 4095 };

		for (unsigned int i = 0; i < ARRAY_SIZE(sizes); i++) {
			job.batch_size = sizes[i];
			submit_job_err(fd, &ctx, job, EINVAL);
		}
	}

	igt_describe("Make sure an empty batch size is rejected.");
	igt_subtest("bad-batch-size-zero") {
		struct drm_weft_job job = { .batch_va = end_batch(&ctx, 0) };

		submit_job_err(fd, &ctx, job, EINVAL);
	}

	igt_describe("Make sure a batch outside the VM's user range is "
		     "rejected.");
	igt_subtest("bad-batch-out-of-range") {
		struct drm_weft_job job = { .batch_size = 4 };

		job.batch_va = info.user_va_end;
		submit_job_err(fd, &ctx, job, EINVAL);
		job.batch_va = info.user_va_end - 4;
		job.batch_size = 8;
		submit_job_err(fd, &ctx, job, EINVAL);
		job.batch_va = 1ull << 48;
		job.batch_size = 4;
		submit_job_err(fd, &ctx, job, EINVAL);
		job.batch_va = ~3ull;
		job.batch_size = 8;
		submit_job_err(fd, &ctx, job, EINVAL);
		if (info.user_va_start >= PAGE) {
			job.batch_va = info.user_va_start - 4;
			job.batch_size = 4;
			submit_job_err(fd, &ctx, job, EINVAL);
		}
	}

	igt_describe("Make sure unknown sync object handles are rejected.");
	igt_subtest("bad-sync-handle") {
		struct drm_weft_sync sync = { .handle = 0 };

		submit_sync_err(fd, &ctx, &sync, NULL, ENOENT);
		submit_sync_err(fd, &ctx, NULL, &sync, ENOENT);
		sync.handle = 0xdeadbeef;
		submit_sync_err(fd, &ctx, &sync, NULL, ENOENT);
		submit_sync_err(fd, &ctx, NULL, &sync, ENOENT);
	}

	igt_describe("Make sure unknown sync flags are rejected.");
	igt_subtest("bad-sync-flags") {
		struct drm_weft_sync sync = {};

		igt_assert_eq(drmSyncobjCreate(fd, DRM_SYNCOBJ_CREATE_SIGNALED,
					       &sync.handle), 0);
		for (int bit = 1; bit < 32; bit++) {
			sync.flags = 1u << bit;
			submit_sync_err(fd, &ctx, &sync, NULL, EINVAL);
			submit_sync_err(fd, &ctx, NULL, &sync, EINVAL);
		}
		drmSyncobjDestroy(fd, sync.handle);
	}

	igt_describe("Make sure a timeline point on a binary sync is "
		     "rejected.");
	igt_subtest("bad-sync-point") {
		struct drm_weft_sync sync = { .point = 1 };

		igt_assert_eq(drmSyncobjCreate(fd, DRM_SYNCOBJ_CREATE_SIGNALED,
					       &sync.handle), 0);
		submit_sync_err(fd, &ctx, &sync, NULL, EINVAL);
		submit_sync_err(fd, &ctx, NULL, &sync, EINVAL);
		drmSyncobjDestroy(fd, sync.handle);
	}

	igt_describe("Make sure array strides smaller than the kernel's "
		     "structs are rejected.");
	igt_subtest("bad-stride") {
		struct drm_weft_sync sync = {};
		struct drm_weft_job job = empty_job(&ctx);
		struct drm_weft_submit s = {
			.queue_id = ctx.queue,
			.jobs = DRM_WEFT_OBJ_ARRAY(1, &job),
		};
		const uint32_t strides[] = { 0, 4, 8, sizeof(job) - 8,
					     sizeof(job) - 1 };

		igt_assert_eq(drmSyncobjCreate(fd, DRM_SYNCOBJ_CREATE_SIGNALED,
					       &sync.handle), 0);
		for (unsigned int i = 0; i < ARRAY_SIZE(strides); i++) {
			s.jobs.stride = strides[i];
			do_ioctl_err(fd, DRM_IOCTL_WEFT_SUBMIT, &s, EINVAL);
		}

		job.in_syncs = (struct drm_weft_obj_array)
			DRM_WEFT_OBJ_ARRAY(1, &sync);
		bad_stride(fd, &ctx, &job, &job.in_syncs, sizeof(sync));
		job.in_syncs = (struct drm_weft_obj_array) {};
		job.out_syncs = (struct drm_weft_obj_array)
			DRM_WEFT_OBJ_ARRAY(1, &sync);
		bad_stride(fd, &ctx, &job, &job.out_syncs, sizeof(sync));
		drmSyncobjDestroy(fd, sync.handle);
	}

	igt_describe("Make sure nonzero bytes past the kernel's structs in "
		     "larger elements are rejected.");
	igt_subtest("bad-stride-tail") {
		struct job_ext job = {};
		struct sync_ext sync = {};
		struct drm_weft_submit s = {
			.queue_id = ctx.queue,
			.jobs = DRM_WEFT_OBJ_ARRAY(1, &job),
		};

		igt_assert_eq(drmSyncobjCreate(fd, DRM_SYNCOBJ_CREATE_SIGNALED,
					       &sync.sync.handle), 0);
		job.job.batch_va = end_batch(&ctx, 0);
		job.job.batch_size = 4;
		for (unsigned int i = 0; i < sizeof(job.ext); i++) {
			memset(job.ext, 0, sizeof(job.ext));
			job.ext[i] = 1;
			do_ioctl_err(fd, DRM_IOCTL_WEFT_SUBMIT, &s, EINVAL);
		}
		memset(job.ext, 0, sizeof(job.ext));

		for (int dir = 0; dir < 2; dir++) {
			struct drm_weft_obj_array *a = dir ?
				&job.job.out_syncs : &job.job.in_syncs;

			job.job.in_syncs = (struct drm_weft_obj_array) {};
			job.job.out_syncs = (struct drm_weft_obj_array) {};
			*a = (struct drm_weft_obj_array)
				DRM_WEFT_OBJ_ARRAY(1, &sync);
			for (unsigned int i = 0; i < sizeof(sync.ext); i++) {
				memset(sync.ext, 0, sizeof(sync.ext));
				sync.ext[i] = 0x80;
				do_ioctl_err(fd, DRM_IOCTL_WEFT_SUBMIT, &s,
					     EINVAL);
			}
			memset(sync.ext, 0, sizeof(sync.ext));
		}
		drmSyncobjDestroy(fd, sync.sync.handle);
	}

	igt_describe("Make sure absurd job and sync counts are rejected.");
	igt_subtest("bad-count") {
		struct drm_weft_sync sync = {};
		struct drm_weft_job job = {
			.batch_va = end_batch(&ctx, 0),
			.batch_size = 4,
			.in_syncs = DRM_WEFT_OBJ_ARRAY(1, &sync),
		};
		struct drm_weft_submit s = {
			.queue_id = ctx.queue,
			.jobs = DRM_WEFT_OBJ_ARRAY(1, &job),
		};

		igt_assert_eq(drmSyncobjCreate(fd, DRM_SYNCOBJ_CREATE_SIGNALED,
					       &sync.handle), 0);
		s.jobs.count = 0xffffffff;
		do_ioctl_err(fd, DRM_IOCTL_WEFT_SUBMIT, &s, EINVAL);
		s.jobs.count = 1;
		job.in_syncs.count = 0xffffffff;
		do_ioctl_err(fd, DRM_IOCTL_WEFT_SUBMIT, &s, EINVAL);
		job.in_syncs.count = 0;
		job.out_syncs = job.in_syncs;
		job.out_syncs.count = 0xffffffff;
		do_ioctl_err(fd, DRM_IOCTL_WEFT_SUBMIT, &s, EINVAL);
		drmSyncobjDestroy(fd, sync.handle);
	}

	igt_describe("Make sure unreadable job and sync arrays are rejected.");
	igt_subtest("bad-array-pointer") {
		struct drm_weft_job job = empty_job(&ctx);
		struct drm_weft_submit s = {
			.queue_id = ctx.queue,
			.jobs = DRM_WEFT_OBJ_ARRAY(1, &job),
		};

		s.jobs.array = 8;
		do_ioctl_err(fd, DRM_IOCTL_WEFT_SUBMIT, &s, EFAULT);
		s.jobs.array = to_user_pointer(&job);
		job.in_syncs = (struct drm_weft_obj_array) {
			.stride = sizeof(struct drm_weft_sync),
			.count = 1,
			.array = 8,
		};
		do_ioctl_err(fd, DRM_IOCTL_WEFT_SUBMIT, &s, EFAULT);
		job.out_syncs = job.in_syncs;
		job.in_syncs = (struct drm_weft_obj_array) {};
		do_ioctl_err(fd, DRM_IOCTL_WEFT_SUBMIT, &s, EFAULT);
	}

	igt_describe("Check that a batch at an unmapped address fails its job "
		     "and the device keeps working.");
	igt_subtest("batch-unmapped") {
		struct ctx c;

		ctx_init(fd, &c);
		igt_assert_lt(weft_submit_and_wait(fd, c.queue,
						   weft_test_va(&info, 5), 64),
			      0);
		weft_assert_device_alive(fd);
		ctx_fini(fd, &c);
	}

	igt_describe("Check that a privileged (ring) command in a batch fails "
		     "the job and the device keeps working.");
	igt_subtest("batch-privileged-command") {
		struct weft_batch batch;
		struct ctx c;

		ctx_init(fd, &c);
		memset(c.data->map, 0, c.data->size);
		batch_at(&c, &batch, 0);
		weft_batch_emit(&batch, WEFT_BATCH_HEADER(WEFT_RING_FENCE,
							  WEFT_RING_FENCE_LEN));
		weft_batch_emit(&batch, 0x1000);	/* physical address */
		weft_batch_emit(&batch, 0);
		weft_batch_emit(&batch, 0x5a5a5a5a);
		weft_batch_emit(&batch, 0);
		weft_batch_emit(&batch, 0);
		weft_batch_write_data(&batch, c.data->va, 1);
		weft_batch_end(&batch);
		expect_job_error(fd, &c, &batch);
		/* The queue stopped at the bad command. */
		igt_assert_eq_u64(*(uint64_t *)c.data->map, 0);
		ctx_fini(fd, &c);
	}

	igt_describe("Check that an unknown opcode fails the job and the "
		     "device keeps working.");
	igt_subtest("batch-bad-opcode") {
		struct weft_batch batch;
		struct ctx c;

		ctx_init(fd, &c);
		batch_at(&c, &batch, 0);
		weft_batch_emit(&batch, WEFT_BATCH_HEADER(0x7f, 1));
		weft_batch_end(&batch);
		expect_job_error(fd, &c, &batch);
		ctx_fini(fd, &c);
	}

	igt_describe("Check that a command with a wrong length or nonzero "
		     "reserved bits fails the job.");
	igt_subtest("batch-bad-length") {
		struct weft_batch batch;
		struct ctx c;

		ctx_init(fd, &c);
		batch_at(&c, &batch, 0);
		weft_batch_emit(&batch, WEFT_BATCH_HEADER(WEFT_BATCH_WRITE_DATA,
					WEFT_BATCH_WRITE_DATA_LEN - 1));
		weft_batch_emit(&batch, (uint32_t)c.data->va);
		weft_batch_emit(&batch, (uint32_t)(c.data->va >> 32));
		weft_batch_emit(&batch, 0);
		weft_batch_end(&batch);
		expect_job_error(fd, &c, &batch);

		batch_at(&c, &batch, 0);
		weft_batch_emit(&batch, WEFT_BATCH_HEADER(WEFT_BATCH_END, 1) |
					0x00010000);
		expect_job_error(fd, &c, &batch);
		ctx_fini(fd, &c);
	}

	for (uint32_t simd = 8; simd <= 32; simd *= 2) {
		const uint32_t locals[] = { simd, 4 * simd, 7, 20, 33 };

		for (unsigned int i = 0; i < ARRAY_SIZE(locals); i++) {
			const uint32_t local = locals[i];

			igt_describe("Dispatch a kernel that writes each "
				     "work-item's global id, group id, "
				     "sub-group id and lane, with a partial "
				     "last work-group, and check every word.");
			igt_subtest_f("dispatch-simd%u-local%u", simd, local)
				dispatch_write_ids(fd, simd, local,
						   3 * local + (local + 1) / 2);
		}

		igt_describe("Dispatch fewer work-items than one work-group.");
		igt_subtest_f("dispatch-simd%u-small-global", simd)
			dispatch_write_ids(fd, simd, 33, 5);
	}

	igt_describe("Check that kernel code outside executable pages fails "
		     "the job and the device keeps working.");
	igt_subtest("dispatch-code-not-exec")
		dispatch_bad(fd, 16, 16, 32, DRM_WEFT_VM_BIND_OP_MAP_READONLY);

	igt_describe("Check that an undefined instruction fails the job and "
		     "the device keeps working.");
	igt_subtest("dispatch-bad-instruction") {
		struct write_ids w;

		write_ids_init(fd, &w, 16, 16, 32,
			       DRM_WEFT_VM_BIND_OP_MAP_EXEC |
			       DRM_WEFT_VM_BIND_OP_MAP_READONLY, 0);
		memset(w.code->map, 0xff, w.code->size);
		expect_job_error(fd, &w.ctx, &w.batch);
		write_ids_fini(fd, &w);
	}

	igt_describe("Check that an unsupported SIMD width fails the job and "
		     "the device keeps working.");
	igt_subtest("dispatch-bad-simd") {
		dispatch_bad(fd, 4, 16, 32, DRM_WEFT_VM_BIND_OP_MAP_EXEC);
		dispatch_bad(fd, 64, 64, 64, DRM_WEFT_VM_BIND_OP_MAP_EXEC);
		dispatch_bad(fd, 0, 16, 32, DRM_WEFT_VM_BIND_OP_MAP_EXEC);
	}

	igt_describe("Check that a zero or too large work-group size fails "
		     "the job and the device keeps working.");
	igt_subtest("dispatch-bad-local-size") {
		dispatch_bad(fd, 16, 0, 32, DRM_WEFT_VM_BIND_OP_MAP_EXEC);
		dispatch_bad(fd, 16, info.max_wg_size + 1, 32,
			     DRM_WEFT_VM_BIND_OP_MAP_EXEC);
	}

	igt_describe("Check that a zero global size fails the job.");
	igt_subtest("dispatch-bad-global-size")
		dispatch_bad(fd, 16, 16, 0, DRM_WEFT_VM_BIND_OP_MAP_EXEC);

	igt_fixture {
		ctx_fini(fd, &ctx);
		drm_close_driver(fd);
	}
}
