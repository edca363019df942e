// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Copyright (C) 2026 The Weft authors */

#include <linux/devcoredump.h>
#include <linux/dma-fence.h>
#include <linux/dma-mapping.h>
#include <linux/iopoll.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <drm/drm_managed.h>
#include <drm/drm_print.h>
#include <drm/weft_drm.h>

#include "weft_cs_regs.h"
#include "weft_device.h"
#include "weft_mmu.h"
#include "weft_regs.h"
#include "weft_sched.h"

#define CREATE_TRACE_POINTS
#include "weft_trace.h"

/* Ring size: 64 KiB, 16384 dwords. */
#define WEFT_RING_SIZE			SZ_64K

/* Dwords one job takes in the ring: SET_VM + BATCH + FENCE. */
#define WEFT_JOB_DWORDS			(WEFT_CMD_SET_VM_LEN + WEFT_CMD_BATCH_LEN + \
					 WEFT_CMD_FENCE_LEN)

/* How long the device may take to acknowledge a queue reset. */
#define WEFT_RESET_TIMEOUT_US		(1 * USEC_PER_SEC)

static unsigned int weft_job_timeout_ms = 10000;
module_param_named(job_timeout_ms, weft_job_timeout_ms, uint, 0444);
MODULE_PARM_DESC(job_timeout_ms,
		 "Time a job may run before its queue is reset (default 10000)");

static struct weft_job *to_weft_job(struct drm_sched_job *sched_job)
{
	return container_of(sched_job, struct weft_job, base);
}

static const char *weft_fence_get_driver_name(struct dma_fence *fence)
{
	return "weft";
}

static const char *weft_fence_get_timeline_name(struct dma_fence *fence)
{
	return "weft-hwq";
}

static const struct dma_fence_ops weft_fence_ops = {
	.get_driver_name = weft_fence_get_driver_name,
	.get_timeline_name = weft_fence_get_timeline_name,
};

static void weft_hwq_write_reg(struct weft_hwq *hwq, u32 reg, u32 val)
{
	weft_write(hwq->wdev, WEFT_QUEUE_REG(hwq->idx, reg), val);
}

static u32 weft_hwq_read_reg(struct weft_hwq *hwq, u32 reg)
{
	return weft_read(hwq->wdev, WEFT_QUEUE_REG(hwq->idx, reg));
}

static void weft_ring_put(struct weft_hwq *hwq, u32 dword)
{
	hwq->ring[hwq->tail & (hwq->ring_dwords - 1)] = dword;
	hwq->tail++;
}

static void weft_ring_put64(struct weft_hwq *hwq, u64 val)
{
	weft_ring_put(hwq, lower_32_bits(val));
	weft_ring_put(hwq, upper_32_bits(val));
}

/* Writes SET_VM + BATCH + FENCE for @job at the ring's tail. */
static void weft_hwq_emit_job(struct weft_hwq *hwq, struct weft_job *job)
{
	weft_ring_put(hwq, WEFT_CMD_HEADER(WEFT_CMD_SET_VM, WEFT_CMD_SET_VM_LEN));
	weft_ring_put64(hwq, weft_vm_root_dma(job->vm));
	weft_ring_put(hwq, job->vm->ctx_id);

	weft_ring_put(hwq, WEFT_CMD_HEADER(WEFT_CMD_BATCH, WEFT_CMD_BATCH_LEN));
	weft_ring_put64(hwq, job->batch_va);
	weft_ring_put(hwq, job->batch_size);

	weft_ring_put(hwq, WEFT_CMD_HEADER(WEFT_CMD_FENCE, WEFT_CMD_FENCE_LEN));
	weft_ring_put64(hwq, hwq->fence_dma);
	weft_ring_put64(hwq, job->seqno);
	weft_ring_put(hwq, WEFT_FENCE_FLAG_IRQ);
}

/* Publishes the tail and rings the doorbell. */
static void weft_hwq_kick(struct weft_hwq *hwq)
{
	/* The ring words must be visible before the new TAIL. */
	wmb();
	weft_hwq_write_reg(hwq, WEFT_Q_TAIL, hwq->tail);
	weft_device_ring_doorbell(hwq->wdev);
}

/* Adds the GPU time of @job, completing now, to its queue. */
static void weft_job_account(struct weft_job *job)
{
	struct weft_hwq *hwq = job->hwq;
	u64 now = ktime_get_ns(), start;
	unsigned long flags;

	spin_lock_irqsave(&hwq->fence_lock, flags);
	start = max(job->start_ns, hwq->last_done_ns);
	hwq->last_done_ns = now;
	spin_unlock_irqrestore(&hwq->fence_lock, flags);

	if (now > start)
		atomic64_add(now - start, &job->queue->busy_ns);
	atomic64_inc(&job->queue->jobs_done);
}

/*
 * Signals, with @error if nonzero, the jobs of @list and drops them. Once
 * its fence signalled, a job may be freed by the scheduler's free_job() on
 * another CPU: only the fence, whose reference is ours, is used after.
 */
static void weft_hwq_signal_list(struct list_head *list, int error)
{
	struct weft_job *job, *tmp;

	list_for_each_entry_safe(job, tmp, list, node) {
		struct dma_fence *fence = job->done_fence;

		list_del_init(&job->node);
		weft_job_account(job);
		trace_weft_job_complete(job->hwq->idx, job->vm->ctx_id,
					job->seqno, error);
		if (error)
			dma_fence_set_error(fence, error);
		dma_fence_signal(fence);
		dma_fence_put(fence);
	}
}

/* Signals every job whose seqno the device wrote to the fence page. */
static void weft_hwq_signal_done(struct weft_hwq *hwq)
{
	u64 done = READ_ONCE(*hwq->fence_cpu);
	struct weft_job *job, *tmp;
	unsigned long flags;
	LIST_HEAD(list);

	spin_lock_irqsave(&hwq->fence_lock, flags);
	list_for_each_entry_safe(job, tmp, &hwq->pending, node) {
		if (job->seqno > done)
			break;
		list_move_tail(&job->node, &list);
	}
	spin_unlock_irqrestore(&hwq->fence_lock, flags);

	weft_hwq_signal_list(&list, 0);
}

/* Takes the oldest job still in the ring off the pending list. */
static struct weft_job *weft_hwq_take_oldest(struct weft_hwq *hwq)
{
	struct weft_job *job;
	unsigned long flags;

	spin_lock_irqsave(&hwq->fence_lock, flags);
	job = list_first_entry_or_null(&hwq->pending, struct weft_job, node);
	if (job)
		list_del_init(&job->node);
	spin_unlock_irqrestore(&hwq->fence_lock, flags);
	return job;
}

static void weft_hwq_fail_all(struct weft_hwq *hwq, int error)
{
	unsigned long flags;
	LIST_HEAD(list);

	spin_lock_irqsave(&hwq->fence_lock, flags);
	list_splice_init(&hwq->pending, &list);
	spin_unlock_irqrestore(&hwq->fence_lock, flags);

	weft_hwq_signal_list(&list, error);
}

static int weft_qerr_to_errno(u32 code)
{
	switch (code) {
	case WEFT_QERR_MMU_FAULT:
		return -EFAULT;
	case WEFT_QERR_WATCHDOG:
		return -ETIMEDOUT;
	default:
		return -EIO;
	}
}

static const char *weft_qerr_name(u32 code)
{
	switch (code) {
	case WEFT_QERR_BAD_COMMAND:
		return "bad command";
	case WEFT_QERR_PRIVILEGED_IN_BATCH:
		return "privileged command in batch";
	case WEFT_QERR_MMU_FAULT:
		return "MMU fault";
	case WEFT_QERR_BAD_INSTRUCTION:
		return "bad instruction";
	case WEFT_QERR_BAD_DISPATCH:
		return "bad dispatch";
	case WEFT_QERR_WATCHDOG:
		return "watchdog";
	case WEFT_QERR_BAD_ACCESS:
		return "bad local or scratch access";
	case WEFT_QERR_DEVICE_QUEUE:
		return "bad device queue";
	case WEFT_QERR_ENQUEUE_DEPTH:
		return "device enqueue too deep";
	default:
		return "unknown error";
	}
}

/*
 * Resets the queue and writes the jobs still pending to the ring again,
 * starting at the device's HEAD. Called with @ring_lock held.
 */
static int weft_hwq_reset_and_replay(struct weft_hwq *hwq)
{
	struct weft_device *wdev = hwq->wdev;
	struct weft_job *job;
	unsigned long flags;
	u32 ack;
	int ret;

	weft_hwq_write_reg(hwq, WEFT_Q_ENABLE, 0);
	weft_hwq_write_reg(hwq, WEFT_Q_RESET_REQ, ++hwq->reset_seq);
	weft_device_ring_doorbell(wdev);

	ret = readl_poll_timeout(wdev->regs +
				 WEFT_QUEUE_REG(hwq->idx, WEFT_Q_RESET_ACK),
				 ack, ack == hwq->reset_seq, 100,
				 WEFT_RESET_TIMEOUT_US);
	if (ret) {
		drm_err(&wdev->base, "queue %u: reset not acknowledged\n",
			hwq->idx);
		return ret;
	}

	/* Errors reported before the reset are handled by it. */
	hwq->error_seq = weft_hwq_read_reg(hwq, WEFT_Q_ERROR_SEQ);

	/* The ring is empty now: continue at the device's HEAD. */
	hwq->tail = weft_hwq_read_reg(hwq, WEFT_Q_HEAD);
	weft_hwq_write_reg(hwq, WEFT_Q_TAIL, hwq->tail);

	spin_lock_irqsave(&hwq->fence_lock, flags);
	list_for_each_entry(job, &hwq->pending, node) {
		job->ring_pos = hwq->tail;
		weft_hwq_emit_job(hwq, job);
	}
	spin_unlock_irqrestore(&hwq->fence_lock, flags);

	weft_hwq_write_reg(hwq, WEFT_Q_ENABLE, 1);
	weft_hwq_kick(hwq);
	return 0;
}

/* Appends printf-style text to the capture buffer; never allocates. */
static __printf(2, 3) void weft_capture_printf(struct weft_hwq *hwq,
					       const char *fmt, ...)
{
	size_t left = WEFT_CAPTURE_SIZE - hwq->capture_len;
	va_list args;

	if (left <= 1)
		return;
	va_start(args, fmt);
	hwq->capture_len += vscnprintf(hwq->capture + hwq->capture_len, left,
				       fmt, args);
	va_end(args);
}

/* Dwords of the culprit's batch a capture shows. */
#define WEFT_CAPTURE_BATCH_DWORDS	64

/* Appends the first dwords of @job's batch, read through its VM. */
static void weft_capture_batch(struct weft_hwq *hwq, struct weft_job *job)
{
	u32 dw[WEFT_CAPTURE_BATCH_DWORDS];
	u32 want = min_t(u32, job->batch_size, sizeof(dw));
	size_t got = 0, n;
	u32 i;

	while (got < want) {
		n = weft_vm_read(job->vm, job->batch_va + got, (u8 *)dw + got,
				 want - got);
		if (!n)
			break;
		got += n;
	}
	if (got < want)
		weft_capture_printf(hwq,
				    "batch: unreadable (unmapped or imported) at 0x%llx\n",
				    job->batch_va + got);
	for (i = 0; i < got / 4; i++)
		weft_capture_printf(hwq, "batch[%u]: 0x%08x\n", i, dw[i]);
}

/*
 * Writes what is known of a failing job to @capture: the error, the
 * fault block, the culprit and the ring around the device's HEAD. Called
 * with @ring_lock held, before the reset changes HEAD.
 */
static void weft_hwq_capture(struct weft_hwq *hwq, struct weft_job *culprit,
			     int error, u32 code, u64 addr)
{
	struct weft_device *wdev = hwq->wdev;
	u32 head = weft_hwq_read_reg(hwq, WEFT_Q_HEAD);
	struct weft_job *job;
	unsigned long flags;
	u32 i;

	hwq->capture_len = 0;
	weft_capture_printf(hwq, "weft devcoredump\n");
	weft_capture_printf(hwq, "hwq: %u\nerror: %d\n", hwq->idx, error);
	weft_capture_printf(hwq, "queue_error: %s (%u)\nerror_addr: 0x%llx\n",
			    code ? weft_qerr_name(code) : "timeout", code,
			    addr);
	spin_lock_irqsave(&wdev->fault.lock, flags);
	weft_capture_printf(hwq, "fault_seq: %u\nfault_addr: 0x%llx\nfault_info: 0x%x\n",
			    wdev->fault.seq, wdev->fault.addr,
			    wdev->fault.info);
	spin_unlock_irqrestore(&wdev->fault.lock, flags);
	if (culprit) {
		weft_capture_printf(hwq,
				    "culprit: ctx %u queue %u seqno %llu batch 0x%llx size %u\n",
				    culprit->vm->ctx_id, culprit->queue->id,
				    culprit->seqno, culprit->batch_va,
				    culprit->batch_size);
		weft_capture_batch(hwq, culprit);
	}
	weft_capture_printf(hwq, "ring: 0x%llx head %u tail %u status %u fence %llu\n",
			    (u64)hwq->ring_dma, head, hwq->tail,
			    weft_hwq_read_reg(hwq, WEFT_Q_STATUS),
			    READ_ONCE(*hwq->fence_cpu));
	for (i = 0; i < 32 && head + i != hwq->tail; i++)
		weft_capture_printf(hwq, "ring[%u]: 0x%08x\n", head + i,
				    hwq->ring[(head + i) & (hwq->ring_dwords - 1)]);
	spin_lock_irqsave(&hwq->fence_lock, flags);
	list_for_each_entry(job, &hwq->pending, node)
		weft_capture_printf(hwq, "pending: ctx %u seqno %llu batch 0x%llx size %u\n",
				    job->vm->ctx_id, job->seqno, job->batch_va,
				    job->batch_size);
	spin_unlock_irqrestore(&hwq->fence_lock, flags);
	queue_work(system_unbound_wq, &hwq->capture_work);
}

/* Emits the capture as a devcoredump, outside the fence-signalling path. */
static void weft_hwq_capture_work(struct work_struct *work)
{
	struct weft_hwq *hwq = container_of(work, struct weft_hwq,
					    capture_work);
	size_t len;
	void *data;

	data = vmalloc(WEFT_CAPTURE_SIZE);
	if (!data)
		return;
	mutex_lock(&hwq->ring_lock);
	len = hwq->capture_len;
	memcpy(data, hwq->capture, len);
	mutex_unlock(&hwq->ring_lock);

	/* Frees @data; keeps only the first dump until it is read. */
	dev_coredumpv(hwq->wdev->base.dev, data, len, GFP_KERNEL);
}

/**
 * weft_hwq_flush_capture() - Wait for a pending devcoredump.
 * @hwq: The queue.
 */
void weft_hwq_flush_capture(struct weft_hwq *hwq)
{
	flush_work(&hwq->capture_work);
}

/*
 * Bans the culprit's queue and moves its other jobs still in the ring to
 * @cancel. Called with @ring_lock held.
 */
static void weft_hwq_ban(struct weft_hwq *hwq, struct weft_job *culprit,
			 int error, struct list_head *cancel)
{
	struct weft_queue *queue = culprit->queue;
	struct weft_job *job, *tmp;
	unsigned long flags;

	if (!READ_ONCE(queue->error))
		WRITE_ONCE(queue->error, error);

	spin_lock_irqsave(&hwq->fence_lock, flags);
	list_for_each_entry_safe(job, tmp, &hwq->pending, node) {
		if (job->queue == queue)
			list_move_tail(&job->node, cancel);
	}
	spin_unlock_irqrestore(&hwq->fence_lock, flags);
}

/*
 * Recovers the queue after a queue error (@bad NULL) or a timeout of @bad:
 * the culprit, the oldest job in the ring or @bad, fails with @error and
 * its queue is banned (its other jobs fail with -ECANCELED); the hardware
 * queue is reset and the other jobs in the ring are written again, so the
 * jobs of other queues sharing the ring are not disturbed and the
 * scheduler keeps its hardware-fence callbacks. Runs on @reset_wq only.
 */
static void weft_hwq_recover(struct weft_hwq *hwq, struct weft_job *bad,
			     int error, u32 code, u64 addr)
{
	struct weft_job *culprit = NULL;
	unsigned long flags;
	LIST_HEAD(cancel);
	LIST_HEAD(list);

	mutex_lock(&hwq->ring_lock);
	weft_hwq_signal_done(hwq);

	if (hwq->dead || (bad && dma_fence_is_signaled(bad->done_fence))) {
		mutex_unlock(&hwq->ring_lock);
		return;
	}

	if (bad) {
		spin_lock_irqsave(&hwq->fence_lock, flags);
		if (!list_empty(&bad->node)) {
			list_del_init(&bad->node);
			culprit = bad;
		}
		spin_unlock_irqrestore(&hwq->fence_lock, flags);
	} else {
		culprit = weft_hwq_take_oldest(hwq);
	}

	weft_hwq_capture(hwq, culprit, error, code, addr);
	if (culprit) {
		weft_hwq_ban(hwq, culprit, error, &cancel);
		trace_weft_reset(hwq->idx, culprit->vm->ctx_id, culprit->seqno,
				 error);
	} else {
		trace_weft_reset(hwq->idx, 0, 0, error);
	}
	hwq->resets++;
	WRITE_ONCE(hwq->wdev->last_reset_ns, ktime_get_ns());

	if (weft_hwq_reset_and_replay(hwq)) {
		hwq->dead = true;
		weft_hwq_fail_all(hwq, -EIO);
	}
	mutex_unlock(&hwq->ring_lock);

	if (culprit) {
		list_add(&culprit->node, &list);
		weft_hwq_signal_list(&list, error);
	}
	weft_hwq_signal_list(&cancel, -ECANCELED);
}

static void weft_hwq_error_work(struct work_struct *work)
{
	struct weft_hwq *hwq = container_of(work, struct weft_hwq, error_work);
	u32 seq, code;
	u64 addr;

	mutex_lock(&hwq->ring_lock);
	seq = weft_hwq_read_reg(hwq, WEFT_Q_ERROR_SEQ);
	code = weft_hwq_read_reg(hwq, WEFT_Q_ERROR_CODE);
	addr = weft_hwq_read_reg(hwq, WEFT_Q_ERROR_ADDR_LO) |
	       (u64)weft_hwq_read_reg(hwq, WEFT_Q_ERROR_ADDR_HI) << 32;
	if (hwq->dead || seq == hwq->error_seq) {
		mutex_unlock(&hwq->ring_lock);
		return;
	}
	mutex_unlock(&hwq->ring_lock);

	drm_dbg_driver(&hwq->wdev->base,
		       "queue %u: %s at 0x%llx (ring 0x%llx, head %u, tail %u)\n",
		       hwq->idx, weft_qerr_name(code), addr,
		       (u64)hwq->ring_dma,
		       weft_hwq_read_reg(hwq, WEFT_Q_HEAD), hwq->tail);
	weft_hwq_recover(hwq, NULL, weft_qerr_to_errno(code), code, addr);
}

/**
 * weft_hwq_irq() - Interrupt work of a hardware queue.
 * @hwq: The queue.
 *
 * Called from the threaded interrupt handler: signals the completed jobs
 * and hands a reported queue error to the recovery worker.
 */
void weft_hwq_irq(struct weft_hwq *hwq)
{
	if (weft_hwq_read_reg(hwq, WEFT_Q_ERROR_SEQ) != READ_ONCE(hwq->error_seq))
		queue_work(hwq->reset_wq, &hwq->error_work);

	weft_hwq_signal_done(hwq);
}

static struct dma_fence *weft_sched_run_job(struct drm_sched_job *sched_job)
{
	struct weft_job *job = to_weft_job(sched_job);
	struct weft_hwq *hwq = job->hwq;
	unsigned long flags;

	/* A dependency failed or the entity was killed. */
	if (unlikely(job->base.s_fence->finished.error))
		return NULL;

	mutex_lock(&hwq->ring_lock);
	if (hwq->dead) {
		mutex_unlock(&hwq->ring_lock);
		return ERR_PTR(-ENODEV);
	}

	/*
	 * The queue was banned after this job was queued. Checked under
	 * @ring_lock, which the ban holds, so no job of a banned queue
	 * enters the ring.
	 */
	if (unlikely(READ_ONCE(job->queue->error))) {
		mutex_unlock(&hwq->ring_lock);
		return ERR_PTR(-ECANCELED);
	}

	job->seqno = ++hwq->seqno;
	job->start_ns = ktime_get_ns();
	job->watch_ns = job->start_ns;
	job->ring_pos = hwq->tail;
	trace_weft_job_submit(hwq->idx, job->vm->ctx_id, job->seqno,
			      job->batch_va, job->batch_size);
	dma_fence_init(job->done_fence, &weft_fence_ops, &hwq->fence_lock,
		       hwq->fence_ctx, job->seqno);
	job->fence_inited = true;

	/* The pending list's reference. */
	dma_fence_get(job->done_fence);
	spin_lock_irqsave(&hwq->fence_lock, flags);
	list_add_tail(&job->node, &hwq->pending);
	spin_unlock_irqrestore(&hwq->fence_lock, flags);

	weft_hwq_emit_job(hwq, job);
	weft_hwq_kick(hwq);
	mutex_unlock(&hwq->ring_lock);

	return dma_fence_get(job->done_fence);
}

/*
 * Whether a timed-out job is not to blame (yet): the device has not
 * consumed its first command, or another hardware queue was reset since
 * its window began (a hang slows the whole device down). Such a job gets a
 * new window, a bounded number of times, in case the device lost track.
 */
static bool weft_job_gets_grace(struct weft_job *job)
{
	struct weft_hwq *hwq = job->hwq;
	bool grace;
	u32 head;

	if (job->graces >= WEFT_JOB_GRACES)
		return false;

	mutex_lock(&hwq->ring_lock);
	head = weft_hwq_read_reg(hwq, WEFT_Q_HEAD);
	grace = (s32)(head - job->ring_pos) <= 0 ||
		READ_ONCE(hwq->wdev->last_reset_ns) > job->watch_ns;
	if (grace) {
		job->graces++;
		job->watch_ns = ktime_get_ns();
	}
	mutex_unlock(&hwq->ring_lock);
	return grace;
}

static enum drm_gpu_sched_stat
weft_sched_timedout_job(struct drm_sched_job *sched_job)
{
	struct weft_job *job = to_weft_job(sched_job);
	struct weft_hwq *hwq = job->hwq;
	struct drm_gpu_scheduler *sched = &hwq->sched;

	/*
	 * The scheduler took the job off its pending list so it cannot be
	 * freed under us. Put it back at the head, where it was, before its
	 * hardware fence signals: the normal completion path then frees it,
	 * and the other jobs in the ring keep running. Back on the list, a
	 * job that has just finished could be freed by free_job() while we
	 * still use it: the scheduler's work stays stopped until we are done,
	 * as drm_sched_stop() does.
	 */
	drm_sched_wqueue_stop(sched);
	spin_lock(&sched->job_list_lock);
	list_add(&sched_job->list, &sched->pending_list);
	spin_unlock(&sched->job_list_lock);

	if (!job->fence_inited) {
		/* run_job() failed it: there is nothing in the ring. */
	} else if (weft_job_gets_grace(job)) {
		/* The scheduler restarts the timer for it. */
	} else {
		if (!dma_fence_is_signaled(job->done_fence))
			drm_dbg_driver(&hwq->wdev->base,
				       "queue %u: job %llu timed out\n",
				       hwq->idx, job->seqno);
		weft_hwq_recover(hwq, job, -ETIMEDOUT, 0, 0);
	}
	drm_sched_wqueue_start(sched);
	return DRM_GPU_SCHED_STAT_NOMINAL;
}

static void weft_queue_free(struct kref *kref)
{
	kfree(container_of(kref, struct weft_queue, mem_ref));
}

static void weft_job_release(struct weft_job *job)
{
	if (job->fence_inited)
		dma_fence_put(job->done_fence);
	else
		kfree(job->done_fence);
	weft_vm_put(job->vm);
	kref_put(&job->queue->mem_ref, weft_queue_free);
	kfree(job);
}

static void weft_sched_free_job(struct drm_sched_job *sched_job)
{
	struct weft_job *job = to_weft_job(sched_job);

	drm_sched_job_cleanup(sched_job);
	weft_job_release(job);
}

static const struct drm_sched_backend_ops weft_sched_ops = {
	.run_job = weft_sched_run_job,
	.timedout_job = weft_sched_timedout_job,
	.free_job = weft_sched_free_job,
};

static void weft_hwq_release(struct drm_device *ddev, void *data)
{
	struct weft_hwq *hwq = data;
	struct device *dev = ddev->dev;

	drm_sched_fini(&hwq->sched);
	destroy_workqueue(hwq->reset_wq);
	cancel_work_sync(&hwq->capture_work);
	kfree(hwq->capture);
	dma_free_coherent(dev, WEFT_RING_SIZE, hwq->ring, hwq->ring_dma);
	dma_free_coherent(dev, PAGE_SIZE, hwq->fence_cpu, hwq->fence_dma);
	mutex_destroy(&hwq->ring_lock);
	kfree(hwq);
}

/**
 * weft_hwq_create() - Allocate a hardware queue and its scheduler.
 * @wdev: The device.
 * @idx: Index of the queue's register block.
 *
 * The queue is freed with the DRM device.
 *
 * Return: The queue or an ERR_PTR().
 */
struct weft_hwq *weft_hwq_create(struct weft_device *wdev, u32 idx)
{
	struct device *dev = wdev->base.dev;
	struct weft_hwq *hwq;
	int ret;

	hwq = kzalloc(sizeof(*hwq), GFP_KERNEL);
	if (!hwq)
		return ERR_PTR(-ENOMEM);

	hwq->wdev = wdev;
	hwq->idx = idx;
	hwq->ring_dwords = WEFT_RING_SIZE / sizeof(u32);
	mutex_init(&hwq->ring_lock);
	spin_lock_init(&hwq->fence_lock);
	INIT_LIST_HEAD(&hwq->pending);
	INIT_WORK(&hwq->error_work, weft_hwq_error_work);
	INIT_WORK(&hwq->capture_work, weft_hwq_capture_work);
	hwq->fence_ctx = dma_fence_context_alloc(1);

	hwq->capture = kzalloc(WEFT_CAPTURE_SIZE, GFP_KERNEL);
	if (!hwq->capture) {
		ret = -ENOMEM;
		goto err_free;
	}

	hwq->ring = dma_alloc_coherent(dev, WEFT_RING_SIZE, &hwq->ring_dma,
				       GFP_KERNEL);
	if (!hwq->ring) {
		ret = -ENOMEM;
		goto err_free;
	}

	hwq->fence_cpu = dma_alloc_coherent(dev, PAGE_SIZE, &hwq->fence_dma,
					    GFP_KERNEL);
	if (!hwq->fence_cpu) {
		ret = -ENOMEM;
		goto err_free_ring;
	}

	hwq->reset_wq = alloc_ordered_workqueue("weft-reset%u", 0, idx);
	if (!hwq->reset_wq) {
		ret = -ENOMEM;
		goto err_free_fence;
	}

	/* One credit per job; a job never wraps onto an unfinished one. */
	ret = drm_sched_init(&hwq->sched, &weft_sched_ops, NULL,
			     DRM_SCHED_PRIORITY_COUNT,
			     hwq->ring_dwords / WEFT_JOB_DWORDS - 1, 0,
			     msecs_to_jiffies(weft_job_timeout_ms),
			     hwq->reset_wq, NULL, "weft-hwq", dev);
	if (ret)
		goto err_destroy_wq;

	ret = drmm_add_action_or_reset(&wdev->base, weft_hwq_release, hwq);
	if (ret)
		return ERR_PTR(ret);
	return hwq;

err_destroy_wq:
	destroy_workqueue(hwq->reset_wq);
err_free_fence:
	dma_free_coherent(dev, PAGE_SIZE, hwq->fence_cpu, hwq->fence_dma);
err_free_ring:
	dma_free_coherent(dev, WEFT_RING_SIZE, hwq->ring, hwq->ring_dma);
err_free:
	kfree(hwq->capture);
	mutex_destroy(&hwq->ring_lock);
	kfree(hwq);
	return ERR_PTR(ret);
}

/**
 * weft_hwq_start() - Program the queue's registers and enable it.
 * @hwq: The queue; the device answered the handshake.
 */
void weft_hwq_start(struct weft_hwq *hwq)
{
	mutex_lock(&hwq->ring_lock);
	WRITE_ONCE(*hwq->fence_cpu, 0);
	hwq->seqno = 0;
	hwq->reset_seq = weft_hwq_read_reg(hwq, WEFT_Q_RESET_REQ);
	hwq->error_seq = weft_hwq_read_reg(hwq, WEFT_Q_ERROR_SEQ);

	weft_hwq_write_reg(hwq, WEFT_Q_ENABLE, 0);
	weft_hwq_write_reg(hwq, WEFT_Q_RING_BASE_LO, lower_32_bits(hwq->ring_dma));
	weft_hwq_write_reg(hwq, WEFT_Q_RING_BASE_HI, upper_32_bits(hwq->ring_dma));
	weft_hwq_write_reg(hwq, WEFT_Q_RING_SIZE, WEFT_RING_SIZE);
	hwq->tail = weft_hwq_read_reg(hwq, WEFT_Q_HEAD);
	weft_hwq_write_reg(hwq, WEFT_Q_TAIL, hwq->tail);
	weft_hwq_write_reg(hwq, WEFT_Q_ENABLE, 1);
	weft_device_ring_doorbell(hwq->wdev);
	mutex_unlock(&hwq->ring_lock);
}

/**
 * weft_hwq_stop() - Stop feeding the queue: the device goes away.
 * @hwq: The queue.
 *
 * Every job in the ring fails with -ENODEV and so does every later one.
 */
void weft_hwq_stop(struct weft_hwq *hwq)
{
	cancel_work_sync(&hwq->error_work);

	mutex_lock(&hwq->ring_lock);
	hwq->dead = true;
	weft_hwq_write_reg(hwq, WEFT_Q_ENABLE, 0);
	mutex_unlock(&hwq->ring_lock);

	weft_hwq_fail_all(hwq, -ENODEV);
}

/**
 * weft_queue_create() - Create a queue: a scheduler entity on a hardware
 * queue.
 * @wdev: The device.
 * @vm: The VM its jobs run in; the queue takes a reference.
 * @priority: One of &enum drm_weft_queue_priority, already checked.
 *
 * Return: The queue with one reference, or an ERR_PTR().
 */
struct weft_queue *weft_queue_create(struct weft_device *wdev,
				     struct weft_vm *vm, u32 priority)
{
	static const enum drm_sched_priority prio_map[] = {
		[DRM_WEFT_QUEUE_PRIORITY_LOW] = DRM_SCHED_PRIORITY_LOW,
		[DRM_WEFT_QUEUE_PRIORITY_NORMAL] = DRM_SCHED_PRIORITY_NORMAL,
		[DRM_WEFT_QUEUE_PRIORITY_HIGH] = DRM_SCHED_PRIORITY_HIGH,
	};
	struct drm_gpu_scheduler *sched;
	struct weft_queue *queue;
	int ret;

	queue = kzalloc(sizeof(*queue), GFP_KERNEL);
	if (!queue)
		return ERR_PTR(-ENOMEM);

	kref_init(&queue->refcount);
	kref_init(&queue->mem_ref);
	mutex_init(&queue->submit_lock);
	INIT_LIST_HEAD(&queue->node);
	queue->priority = priority;
	/*
	 * One hardware queue per priority, high first: the device gives the
	 * dispatches of queue 0 the largest share of its cores.
	 */
	queue->hwq = wdev->hwq[min(DRM_WEFT_QUEUE_PRIORITY_HIGH - priority,
				   wdev->num_hwq - 1)];
	sched = &queue->hwq->sched;

	ret = drm_sched_entity_init(&queue->entity, prio_map[priority],
				    &sched, 1, NULL);
	if (ret) {
		mutex_destroy(&queue->submit_lock);
		kfree(queue);
		return ERR_PTR(ret);
	}

	queue->vm = weft_vm_get(vm);
	mutex_lock(&wdev->queues_lock);
	list_add_tail(&queue->node, &wdev->queues);
	mutex_unlock(&wdev->queues_lock);
	return queue;
}

static void weft_queue_release(struct kref *kref)
{
	struct weft_queue *queue = container_of(kref, struct weft_queue,
						refcount);
	struct weft_device *wdev = queue->hwq->wdev;

	mutex_lock(&wdev->queues_lock);
	list_del_init(&queue->node);
	mutex_unlock(&wdev->queues_lock);

	/* Waits (bounded) for the queued jobs, then kills the rest. */
	drm_sched_entity_destroy(&queue->entity);
	if (queue->wfile)
		atomic64_add(atomic64_read(&queue->busy_ns),
			     &queue->wfile->retired_busy_ns);
	weft_vm_put(queue->vm);
	mutex_destroy(&queue->submit_lock);
	kref_put(&queue->mem_ref, weft_queue_free);
}

/**
 * weft_queue_put() - Drop a reference to a queue.
 * @queue: The queue, or NULL.
 */
void weft_queue_put(struct weft_queue *queue)
{
	if (queue)
		kref_put(&queue->refcount, weft_queue_release);
}

/**
 * weft_queue_error() - Whether a queue is banned.
 * @queue: The queue.
 *
 * Return: 0, or the error of the job that got the queue banned.
 */
int weft_queue_error(struct weft_queue *queue)
{
	return READ_ONCE(queue->error);
}

/**
 * weft_queue_busy_ns() - GPU time of a queue's completed jobs.
 * @queue: The queue.
 *
 * Return: Nanoseconds.
 */
u64 weft_queue_busy_ns(struct weft_queue *queue)
{
	return atomic64_read(&queue->busy_ns);
}

/**
 * weft_hwq_debugfs_show() - Print a hardware queue's state.
 * @hwq: The queue.
 * @m: The debugfs file.
 */
void weft_hwq_debugfs_show(struct weft_hwq *hwq, struct seq_file *m)
{
	struct weft_job *job;
	unsigned int pending = 0;
	unsigned long flags;

	mutex_lock(&hwq->ring_lock);
	spin_lock_irqsave(&hwq->fence_lock, flags);
	list_for_each_entry(job, &hwq->pending, node)
		pending++;
	spin_unlock_irqrestore(&hwq->fence_lock, flags);
	seq_printf(m, "hwq %u: ring 0x%llx size %u head %u tail %u status %u enable %u\n",
		   hwq->idx, (u64)hwq->ring_dma, WEFT_RING_SIZE,
		   weft_hwq_read_reg(hwq, WEFT_Q_HEAD), hwq->tail,
		   weft_hwq_read_reg(hwq, WEFT_Q_STATUS),
		   weft_hwq_read_reg(hwq, WEFT_Q_ENABLE));
	seq_printf(m, "  seqno %llu fence %llu pending %u resets %u errors %u%s\n",
		   hwq->seqno, READ_ONCE(*hwq->fence_cpu), pending,
		   hwq->resets, weft_hwq_read_reg(hwq, WEFT_Q_ERROR_SEQ),
		   hwq->dead ? " dead" : "");
	mutex_unlock(&hwq->ring_lock);
}

/**
 * weft_queue_debugfs_show() - Print a queue's state.
 * @queue: The queue.
 * @m: The debugfs file.
 */
void weft_queue_debugfs_show(struct weft_queue *queue, struct seq_file *m)
{
	seq_printf(m, "queue %u: hwq %u ctx %u priority %u jobs %lld busy %lld ns error %d\n",
		   queue->id, queue->hwq->idx, queue->vm->ctx_id,
		   queue->priority, atomic64_read(&queue->jobs_done),
		   atomic64_read(&queue->busy_ns), READ_ONCE(queue->error));
}

/**
 * weft_job_create() - Create a job, not yet armed.
 * @queue: The queue.
 * @batch_va: GPU VA of the batch, checked.
 * @batch_size: Size of the batch, checked.
 * @owner: The submitting file, for the scheduler's accounting.
 *
 * Return: The job or an ERR_PTR().
 */
struct weft_job *weft_job_create(struct weft_queue *queue, u64 batch_va,
				 u32 batch_size, void *owner)
{
	struct weft_job *job;
	int ret;

	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job)
		return ERR_PTR(-ENOMEM);

	job->done_fence = kzalloc(sizeof(*job->done_fence), GFP_KERNEL);
	if (!job->done_fence) {
		kfree(job);
		return ERR_PTR(-ENOMEM);
	}

	INIT_LIST_HEAD(&job->node);
	job->hwq = queue->hwq;
	job->queue = queue;
	kref_get(&queue->mem_ref);
	job->vm = weft_vm_get(queue->vm);
	job->batch_va = batch_va;
	job->batch_size = batch_size;

	ret = drm_sched_job_init(&job->base, &queue->entity, 1, owner);
	if (ret) {
		weft_job_release(job);
		return ERR_PTR(ret);
	}
	return job;
}

/**
 * weft_job_add_dependency() - Make the job wait for a fence.
 * @job: The job, not yet armed.
 * @fence: The fence; the reference is consumed, even on error.
 *
 * Return: 0 or a negative error code.
 */
int weft_job_add_dependency(struct weft_job *job, struct dma_fence *fence)
{
	return drm_sched_job_add_dependency(&job->base, fence);
}

/**
 * weft_job_arm() - Arm a job; it can no longer fail.
 * @job: The job.
 *
 * Return: A reference to the job's finished fence.
 */
struct dma_fence *weft_job_arm(struct weft_job *job)
{
	drm_sched_job_arm(&job->base);
	return dma_fence_get(&job->base.s_fence->finished);
}

/**
 * weft_job_push() - Queue an armed job on its entity.
 * @job: The job; the scheduler owns it from now on.
 */
void weft_job_push(struct weft_job *job)
{
	drm_sched_entity_push_job(&job->base);
}

/**
 * weft_job_free_unarmed() - Free a job that was never armed.
 * @job: The job, or NULL.
 */
void weft_job_free_unarmed(struct weft_job *job)
{
	if (!job)
		return;
	drm_sched_job_cleanup(&job->base);
	weft_job_release(job);
}
