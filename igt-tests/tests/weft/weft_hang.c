// SPDX-License-Identifier: MIT
/*
 * Copyright (C) 2026 The Weft authors
 *
 * Job timeouts: a job that runs past weft.ko's job_timeout_ms is stopped
 * by a queue reset, its fence signals -ETIMEDOUT, its queue is banned
 * (SUBMIT fails with -ECANCELED, its other pending jobs signal
 * -ECANCELED), a devcoredump describes it, and every other queue, file
 * and process keeps running.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <xf86drm.h>

#include "igt.h"
#include "igt_weft.h"

IGT_TEST_DESCRIPTION("Tests for Weft job timeouts, queue resets and bans.");

#define PAGE WEFT_PAGE_SIZE

/* "end": the kernel does nothing (weft-asm of hw/isa, one instruction). */
static const uint32_t end_kernel[] = { 0x00000001, 0x00000000 };

static struct drm_weft_device_info info;

struct spin {
	uint32_t vm;
	uint32_t queue;
	struct weft_bo *batch;
	struct weft_bo *code;
	uint64_t spin_va;	/* a batch running far longer than a timeout */
	uint32_t spin_size;
	uint64_t ok_va;		/* a batch writing ok_value to data */
	uint32_t ok_size;
	struct weft_bo *data;
};

static void spin_init(int fd, struct spin *s, uint32_t priority)
{
	/* 2^48 empty work-groups: hours of work for the device. */
	struct weft_dispatch d = {
		.simd = 8,
		.global_size = { 0xffffffffu, 0x10000, 1 },
		.local_size = { 1, 1, 1 },
	};
	struct weft_batch batch;

	s->vm = weft_vm_create(fd);
	s->queue = weft_queue_create(fd, s->vm, priority);
	s->batch = weft_bo_new(fd, 2 * PAGE, s->vm, weft_test_va(&info, 0),
			       DRM_WEFT_VM_BIND_OP_MAP_READONLY);
	s->code = weft_bo_new(fd, PAGE, s->vm, weft_test_va(&info, 1),
			      DRM_WEFT_VM_BIND_OP_MAP_READONLY |
			      DRM_WEFT_VM_BIND_OP_MAP_EXEC);
	s->data = weft_bo_new(fd, PAGE, s->vm, weft_test_va(&info, 2), 0);
	memcpy(s->code->map, end_kernel, sizeof(end_kernel));

	d.code_va = s->code->va;
	d.args_va = s->data->va;
	weft_batch_init(&batch, s->batch->map, PAGE);
	weft_batch_dispatch(&batch, &d);
	weft_batch_end(&batch);
	s->spin_va = s->batch->va;
	s->spin_size = weft_batch_size(&batch);

	weft_batch_init(&batch, (char *)s->batch->map + PAGE, PAGE);
	weft_batch_write_data(&batch, s->data->va, 0x600d);
	weft_batch_end(&batch);
	s->ok_va = s->batch->va + PAGE;
	s->ok_size = weft_batch_size(&batch);
}

static void spin_fini(int fd, struct spin *s)
{
	weft_queue_destroy(fd, s->queue);
	weft_bo_free(fd, s->data);
	weft_bo_free(fd, s->code);
	weft_bo_free(fd, s->batch);
	weft_vm_destroy(fd, s->vm);
}

igt_main
{
	int fd = -1;

	igt_fixture {
		fd = drm_open_driver(DRIVER_WEFT);
		weft_query_device_info(fd, &info);
		igt_require_f(weft_job_timeout_ms() <= 5000,
			      "load weft.ko with job_timeout_ms <= 5000\n");
	}

	igt_describe("Check that a job running past the timeout fails with "
		     "-ETIMEDOUT, its queue is banned, and the device keeps "
		     "working.");
	igt_subtest("hang-recovery") {
		struct spin s;
		uint32_t so;
		double start;

		spin_init(fd, &s, DRM_WEFT_QUEUE_PRIORITY_NORMAL);
		start = weft_now_s();
		so = weft_submit_nowait(fd, s.queue, s.spin_va, s.spin_size);
		igt_assert_eq(weft_wait_hang(fd, so, start), -ETIMEDOUT);
		weft_assert_queue_banned(fd, s.queue);
		weft_assert_device_alive(fd);
		drmSyncobjDestroy(fd, so);
		spin_fini(fd, &s);
	}

	igt_describe("Check that the jobs queued behind a hanging job on its "
		     "queue signal -ECANCELED.");
	igt_subtest("hang-cancels-queue") {
		struct spin s;
		uint32_t so, next[3];
		uint64_t *data;

		spin_init(fd, &s, DRM_WEFT_QUEUE_PRIORITY_NORMAL);
		data = s.data->map;
		data[0] = 0;
		so = weft_submit_nowait(fd, s.queue, s.spin_va, s.spin_size);
		for (int i = 0; i < 3; i++)
			next[i] = weft_submit_nowait(fd, s.queue, s.ok_va,
						     s.ok_size);
		igt_assert_eq(weft_wait_hang(fd, so, weft_now_s()), -ETIMEDOUT);
		for (int i = 0; i < 3; i++) {
			igt_assert_eq(weft_syncobj_wait_status(fd, next[i]),
				      -ECANCELED);
			drmSyncobjDestroy(fd, next[i]);
		}
		igt_assert_eq_u64(data[0], 0);
		drmSyncobjDestroy(fd, so);
		spin_fini(fd, &s);
	}

	igt_describe("Check that another queue of the same file, submitted "
		     "behind the hang on the same hardware queue, completes.");
	igt_subtest("hang-other-queue-survives") {
		struct spin s, t;
		uint32_t so, ok;
		uint64_t *data;

		spin_init(fd, &s, DRM_WEFT_QUEUE_PRIORITY_NORMAL);
		spin_init(fd, &t, DRM_WEFT_QUEUE_PRIORITY_NORMAL);
		data = t.data->map;
		data[0] = 0;
		so = weft_submit_nowait(fd, s.queue, s.spin_va, s.spin_size);
		ok = weft_submit_nowait(fd, t.queue, t.ok_va, t.ok_size);
		igt_assert_eq(weft_wait_hang(fd, so, weft_now_s()), -ETIMEDOUT);
		igt_assert_eq(weft_syncobj_wait_status(fd, ok), 1);
		igt_assert_eq_u64(data[0], 0x600d);
		igt_assert_eq(weft_submit_and_wait(fd, t.queue, t.ok_va,
						   t.ok_size), 0);
		drmSyncobjDestroy(fd, so);
		drmSyncobjDestroy(fd, ok);
		spin_fini(fd, &t);
		spin_fini(fd, &s);
	}

	igt_describe("Check that jobs of the other priorities' hardware "
		     "queues, stalled while the device runs the hang, are not "
		     "blamed for it: they complete after the reset.");
	igt_subtest("hang-other-priorities-survive") {
		uint32_t max = geteuid() == 0 ? DRM_WEFT_QUEUE_PRIORITY_HIGH :
			       DRM_WEFT_QUEUE_PRIORITY_NORMAL;
		struct spin s, t[3];
		uint32_t so, ok[3];

		spin_init(fd, &s, DRM_WEFT_QUEUE_PRIORITY_NORMAL);
		so = weft_submit_nowait(fd, s.queue, s.spin_va, s.spin_size);
		usleep(100000);
		for (uint32_t p = 0; p <= max; p++) {
			spin_init(fd, &t[p], p);
			ok[p] = weft_submit_nowait(fd, t[p].queue, t[p].ok_va,
						   t[p].ok_size);
		}
		igt_assert_eq(weft_wait_hang(fd, so, weft_now_s()), -ETIMEDOUT);
		for (uint32_t p = 0; p <= max; p++) {
			uint64_t *data = t[p].data->map;
			int status = weft_syncobj_wait_status(fd, ok[p]);

			igt_info("priority %u job: %d\n", p, status);
			/* The NORMAL one shares the hang's queue: replayed. */
			igt_assert_eq(status, 1);
			igt_assert_eq_u64(data[0], 0x600d);
			drmSyncobjDestroy(fd, ok[p]);
			spin_fini(fd, &t[p]);
		}
		drmSyncobjDestroy(fd, so);
		spin_fini(fd, &s);
	}

	igt_describe("Check that another process keeps running its jobs "
		     "while and after a hang is recovered.");
	igt_subtest("hang-other-process-survives") {
		struct spin s;
		uint32_t so;

		spin_init(fd, &s, DRM_WEFT_QUEUE_PRIORITY_NORMAL);
		so = weft_submit_nowait(fd, s.queue, s.spin_va, s.spin_size);
		igt_fork(child, 1) {
			int fd2 = drm_open_driver(DRIVER_WEFT);

			for (int i = 0; i < 4; i++)
				weft_assert_device_alive(fd2);
			drm_close_driver(fd2);
		}
		igt_waitchildren();
		igt_assert_eq(weft_wait_hang(fd, so, weft_now_s()), -ETIMEDOUT);
		drmSyncobjDestroy(fd, so);
		spin_fini(fd, &s);
	}

	igt_describe("Check that after a hang, a new queue on the hung "
		     "queue's VM runs correctly, and so does a process opening "
		     "the device after the recovery.");
	igt_subtest("hang-then-new-queue") {
		struct spin s;
		uint32_t so, queue;
		uint64_t *data;

		spin_init(fd, &s, DRM_WEFT_QUEUE_PRIORITY_NORMAL);
		data = s.data->map;
		data[0] = 0;
		so = weft_submit_nowait(fd, s.queue, s.spin_va, s.spin_size);
		igt_assert_eq(weft_wait_hang(fd, so, weft_now_s()), -ETIMEDOUT);
		weft_assert_queue_banned(fd, s.queue);
		queue = weft_queue_create(fd, s.vm,
					  DRM_WEFT_QUEUE_PRIORITY_NORMAL);
		igt_assert_eq(weft_submit_and_wait(fd, queue, s.ok_va,
						   s.ok_size), 0);
		igt_assert_eq_u64(data[0], 0x600d);
		igt_fork(child, 1) {
			int fd2 = drm_open_driver(DRIVER_WEFT);

			weft_assert_device_alive(fd2);
			drm_close_driver(fd2);
		}
		igt_waitchildren();
		weft_queue_destroy(fd, queue);
		drmSyncobjDestroy(fd, so);
		spin_fini(fd, &s);
	}

	igt_describe("Check that a hang leaves a devcoredump describing the "
		     "failing job.");
	igt_subtest("hang-devcoredump") {
		struct spin s;
		uint32_t so;
		int count = -1;

		igt_require(weft_devcoredumps(NULL, true) >= 0);
		spin_init(fd, &s, DRM_WEFT_QUEUE_PRIORITY_NORMAL);
		so = weft_submit_nowait(fd, s.queue, s.spin_va, s.spin_size);
		igt_assert_eq(weft_wait_hang(fd, so, weft_now_s()), -ETIMEDOUT);
		for (int i = 0; i < 50 && count <= 0; i++) {
			usleep(20000);
			count = weft_devcoredumps(NULL, false);
		}
		igt_assert_lt(0, count);
		/* The culprit and its batch: a DISPATCH header first. */
		igt_assert_eq(weft_devcoredumps("culprit: ctx ", false), count);
		igt_assert_eq(weft_devcoredumps("batch[0]: 0x02000010", true),
			      count);
		drmSyncobjDestroy(fd, so);
		spin_fini(fd, &s);
	}

	igt_describe("Check that a process killed with a hanging job in "
		     "flight is cleaned up and the device keeps working.");
	igt_subtest("hang-kill-in-flight") {
		pid_t pid = fork();
		char *text;
		int status;

		igt_assert(pid >= 0);
		if (pid == 0) {
			int fd2 = drm_open_driver(DRIVER_WEFT);
			struct spin s;

			spin_init(fd2, &s, DRM_WEFT_QUEUE_PRIORITY_NORMAL);
			weft_submit_nowait(fd2, s.queue, s.spin_va,
					   s.spin_size);
			weft_submit_nowait(fd2, s.queue, s.ok_va, s.ok_size);
			pause();
			_exit(0);
		}
		usleep(300000);
		kill(pid, SIGKILL);
		igt_assert_eq(waitpid(pid, &status, 0), pid);
		weft_assert_device_alive(fd);

		/* Nothing of the killed process is left: no queue, no VM. */
		text = weft_debugfs_read("weft_queues");
		igt_assert_f(!*text, "queues left:\n%s", text);
		free(text);
		/* Jobs drop their VM references as the scheduler frees them. */
		for (int i = 0; i < 100; i++) {
			text = weft_debugfs_read("weft_vms");
			if (!*text)
				break;
			free(text);
			text = NULL;
			usleep(20000);
		}
		igt_assert_f(text, "VMs left after the kill\n");
		free(text);
	}

	igt_fixture {
		drm_close_driver(fd);
	}
}
