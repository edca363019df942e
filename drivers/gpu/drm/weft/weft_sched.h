/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Copyright (C) 2026 The Weft authors */

#ifndef __WEFT_SCHED_H__
#define __WEFT_SCHED_H__

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <drm/gpu_scheduler.h>

struct dma_fence;
struct weft_device;
struct weft_file;
struct weft_vm;

/* New timeout windows a job may get before it is blamed anyway. */
#define WEFT_JOB_GRACES			3

/* Largest batch a job may name, in bytes. */
#define WEFT_MAX_BATCH_SIZE		SZ_16M

/**
 * struct weft_hwq - A hardware queue: ring, fence page and scheduler.
 *
 * Every job of every entity feeding @sched goes through @ring in the order
 * run_job() sees it; the device writes the job's seqno to @fence_cpu when
 * it completes.
 */
struct weft_hwq {
	/** @wdev: The device. */
	struct weft_device *wdev;

	/** @idx: Index of the queue's register block. */
	u32 idx;

	/** @ring: CPU view of the ring. */
	u32 *ring;

	/** @ring_dma: Guest physical address of @ring. */
	dma_addr_t ring_dma;

	/** @ring_dwords: Size of @ring in dwords, a power of two. */
	u32 ring_dwords;

	/** @fence_cpu: Fence value the device writes, in @fence_page. */
	u64 *fence_cpu;

	/** @fence_dma: Guest physical address of @fence_cpu. */
	dma_addr_t fence_dma;

	/** @fence_ctx: dma_fence context of the hardware fences. */
	u64 fence_ctx;

	/**
	 * @ring_lock: Protects @tail, @seqno, @reset_seq, @error_seq,
	 * @dead and the ring contents: held by run_job() and by recovery.
	 */
	struct mutex ring_lock;

	/** @tail: Free-running dword count written so far. */
	u32 tail;

	/** @seqno: Seqno of the last job written to the ring. */
	u64 seqno;

	/** @reset_seq: Last value written to RESET_REQ. */
	u32 reset_seq;

	/** @error_seq: Last ERROR_SEQ handled. */
	u32 error_seq;

	/** @dead: The device stopped: run_job() fails jobs. */
	bool dead;

	/**
	 * @fence_lock: Lock of the hardware fences; protects @pending.
	 */
	spinlock_t fence_lock;

	/** @pending: &struct weft_job in the ring, oldest first. */
	struct list_head pending;

	/** @sched: The scheduler feeding the ring. */
	struct drm_gpu_scheduler sched;

	/**
	 * @reset_wq: Ordered workqueue running timeouts and @error_work,
	 * so recoveries never overlap.
	 */
	struct workqueue_struct *reset_wq;

	/** @error_work: Handles a queue error the device reported. */
	struct work_struct error_work;

	/**
	 * @last_done_ns: When the last job of the ring completed, so busy
	 * time is not counted twice for jobs queued back to back. Protected
	 * by @fence_lock.
	 */
	u64 last_done_ns;

	/** @resets: Number of resets of this queue, for debugfs. */
	u32 resets;

	/**
	 * @capture: Text capture of the last failing job, written by the
	 * recovery path under @ring_lock without allocating, turned into a
	 * devcoredump by @capture_work. WEFT_CAPTURE_SIZE bytes.
	 */
	char *capture;

	/** @capture_len: Bytes of @capture in use; under @ring_lock. */
	size_t capture_len;

	/** @capture_work: Emits @capture as a devcoredump. */
	struct work_struct capture_work;
};

/* Size of &weft_hwq.capture. */
#define WEFT_CAPTURE_SIZE		SZ_16K

/**
 * struct weft_queue - A userspace queue: one scheduler entity.
 *
 * A queue whose job failed (a fault, a command error, a timeout) is banned:
 * @error is set, its jobs still in the ring or in the entity fail with
 * -ECANCELED and SUBMIT on it fails with -ECANCELED.
 */
struct weft_queue {
	/**
	 * @refcount: Users: the file's queue table and SUBMIT. The last one
	 * tears the entity down.
	 */
	struct kref refcount;

	/**
	 * @mem_ref: Memory: one for all of @refcount and one per job, which
	 * reads @error and adds to @busy_ns.
	 */
	struct kref mem_ref;

	/** @wfile: The file; valid while @refcount is not zero. */
	struct weft_file *wfile;

	/** @id: The queue's id in its file. */
	u32 id;

	/** @priority: One of &enum drm_weft_queue_priority. */
	u32 priority;

	/** @error: Nonzero once banned: the error of the guilty job. */
	int error;

	/** @busy_ns: GPU time of the queue's completed jobs. */
	atomic64_t busy_ns;

	/** @jobs_done: Completed jobs, for debugfs. */
	atomic64_t jobs_done;

	/** @node: Entry in &weft_device.queues, under its queues_lock. */
	struct list_head node;

	/** @hwq: The hardware queue the entity feeds. */
	struct weft_hwq *hwq;

	/** @vm: The VM the jobs run in; the queue holds a reference. */
	struct weft_vm *vm;

	/** @entity: The scheduler entity. */
	struct drm_sched_entity entity;

	/** @submit_lock: Keeps the jobs of one SUBMIT together and ordered. */
	struct mutex submit_lock;
};

/**
 * struct weft_job - One batch on a queue.
 */
struct weft_job {
	/** @base: The scheduler job. */
	struct drm_sched_job base;

	/** @hwq: The hardware queue. */
	struct weft_hwq *hwq;

	/** @queue: The queue; the job holds &weft_queue.mem_ref. */
	struct weft_queue *queue;

	/** @start_ns: When run_job() wrote the job to the ring. */
	u64 start_ns;

	/**
	 * @ring_pos: Ring dword counter at the job's first command; under
	 * &weft_hwq.ring_lock.
	 */
	u32 ring_pos;

	/**
	 * @watch_ns: Start of the job's current timeout window: a job that
	 * had not started or lost device time to another queue's reset gets
	 * a new window, at most %WEFT_JOB_GRACES times.
	 */
	u64 watch_ns;

	/** @graces: New timeout windows given so far. */
	u32 graces;

	/** @vm: The VM, referenced until the job is freed. */
	struct weft_vm *vm;

	/** @batch_va: GPU VA of the batch. */
	u64 batch_va;

	/** @batch_size: Size of the batch in bytes. */
	u32 batch_size;

	/** @seqno: Value the ring's FENCE writes; set by run_job(). */
	u64 seqno;

	/**
	 * @done_fence: Hardware fence, allocated at creation so run_job()
	 * does not allocate, initialized by run_job().
	 */
	struct dma_fence *done_fence;

	/** @fence_inited: @done_fence was initialized (and is refcounted). */
	bool fence_inited;

	/** @node: Entry in &weft_hwq.pending, under &weft_hwq.fence_lock. */
	struct list_head node;
};

struct weft_hwq *weft_hwq_create(struct weft_device *wdev, u32 idx);
void weft_hwq_start(struct weft_hwq *hwq);
void weft_hwq_stop(struct weft_hwq *hwq);
void weft_hwq_irq(struct weft_hwq *hwq);

struct weft_queue *weft_queue_create(struct weft_device *wdev,
				     struct weft_vm *vm, u32 priority);
void weft_queue_put(struct weft_queue *queue);
int weft_queue_error(struct weft_queue *queue);
u64 weft_queue_busy_ns(struct weft_queue *queue);
void weft_hwq_flush_capture(struct weft_hwq *hwq);

struct seq_file;
void weft_hwq_debugfs_show(struct weft_hwq *hwq, struct seq_file *m);
void weft_queue_debugfs_show(struct weft_queue *queue, struct seq_file *m);

struct weft_job *weft_job_create(struct weft_queue *queue, u64 batch_va,
				 u32 batch_size, void *owner);
int weft_job_add_dependency(struct weft_job *job, struct dma_fence *fence);
struct dma_fence *weft_job_arm(struct weft_job *job);
void weft_job_push(struct weft_job *job);
void weft_job_free_unarmed(struct weft_job *job);

#endif /* __WEFT_SCHED_H__ */
