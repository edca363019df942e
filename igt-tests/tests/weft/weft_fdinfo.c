// SPDX-License-Identifier: MIT
/*
 * Copyright (C) 2026 The Weft authors
 *
 * Observability: fdinfo, per Documentation/gpu/drm-usage-stats.rst
 * (drm-driver, drm-client-id, drm-engine-compute in ns of GPU time of the
 * file's jobs, the drm-*-memory keys of drm_show_memory_stats()), the
 * debugfs files weft_rings, weft_queues and weft_vms, and the weft
 * tracepoints. debugfs and tracefs are mounted if they are not.
 */
#include <fcntl.h>
#include <xf86drm.h>

#include "igt.h"
#include "igt_weft.h"

IGT_TEST_DESCRIPTION("Tests for the Weft DRM fdinfo usage statistics.");

#define PAGE WEFT_PAGE_SIZE

static struct drm_weft_device_info info;

/* The value of @key in the fdinfo of @fd, as text; false if absent. */
static bool fdinfo_get(int fd, const char *key, char *val, size_t len)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	igt_assert(f);
	while (fgets(line, sizeof(line), f)) {
		char *p = line + klen;

		if (strncmp(line, key, klen) || *p != ':')
			continue;
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		p[strcspn(p, "\n")] = 0;
		snprintf(val, len, "%s", p);
		found = true;
	}
	fclose(f);
	return found;
}

static uint64_t fdinfo_u64(int fd, const char *key)
{
	char val[128];
	uint64_t v;
	char unit[16] = "";

	igt_assert_f(fdinfo_get(fd, key, val, sizeof(val)),
		     "no %s in fdinfo\n", key);
	igt_assert(sscanf(val, "%" SCNu64 " %15s", &v, unit) >= 1);
	if (!strcmp(unit, "KiB"))
		v <<= 10;
	else if (!strcmp(unit, "MiB"))
		v <<= 20;
	return v;
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_TRUNC);

	igt_assert_f(fd >= 0, "cannot open %s\n", path);
	igt_assert_eq(write(fd, text, strlen(text)), (int)strlen(text));
	close(fd);
}

igt_main
{
	int fd = -1;

	igt_fixture {
		fd = drm_open_driver(DRIVER_WEFT);
		weft_query_device_info(fd, &info);
	}

	igt_describe("Check the mandatory keys: drm-driver is weft and "
		     "drm-client-id is there.");
	igt_subtest("basic-keys") {
		char val[128];

		igt_assert(fdinfo_get(fd, "drm-driver", val, sizeof(val)));
		igt_assert_eq(strcmp(val, "weft"), 0);
		igt_assert(fdinfo_get(fd, "drm-client-id", val, sizeof(val)));
		igt_assert(fdinfo_get(fd, "drm-engine-compute", val,
				      sizeof(val)));
		igt_assert(strstr(val, " ns"));
		igt_assert(fdinfo_get(fd, "drm-total-memory", val,
				      sizeof(val)));
	}

	igt_describe("Check that two files have different client ids.");
	igt_subtest("client-id-unique") {
		int fd2 = drm_open_driver(DRIVER_WEFT);

		igt_assert_neq_u64(fdinfo_u64(fd, "drm-client-id"),
				   fdinfo_u64(fd2, "drm-client-id"));
		drm_close_driver(fd2);
	}

	igt_describe("Check that drm-total-memory counts a new buffer.");
	igt_subtest("memory-total") {
		uint64_t before = fdinfo_u64(fd, "drm-total-memory");
		uint32_t h = weft_bo_create(fd, 1 << 20);

		igt_assert_lte_u64(before + (1 << 20),
				   fdinfo_u64(fd, "drm-total-memory"));
		gem_close(fd, h);
		igt_assert_eq_u64(fdinfo_u64(fd, "drm-total-memory"), before);
	}

	igt_describe("Check that drm-engine-compute grows with the file's "
		     "jobs and not with another file's.");
	igt_subtest("engine-time") {
		int fd2 = drm_open_driver(DRIVER_WEFT);
		uint64_t before = fdinfo_u64(fd, "drm-engine-compute");
		uint64_t other = fdinfo_u64(fd2, "drm-engine-compute");

		for (int i = 0; i < 4; i++)
			weft_assert_device_alive(fd);
		igt_assert_lt_u64(before, fdinfo_u64(fd, "drm-engine-compute"));
		igt_assert_eq_u64(other, fdinfo_u64(fd2, "drm-engine-compute"));
		drm_close_driver(fd2);
	}

	igt_describe("Check that drm-engine-compute keeps the time of "
		     "destroyed queues.");
	igt_subtest("engine-time-after-queue-destroy") {
		uint64_t before = fdinfo_u64(fd, "drm-engine-compute");

		/* Creates, uses and destroys its own queue. */
		weft_assert_device_alive(fd);
		igt_assert_lt_u64(before, fdinfo_u64(fd, "drm-engine-compute"));
	}

	igt_describe("Check that debugfs weft_rings lists every hardware "
		     "queue with its HEAD, TAIL and fence value, and that a "
		     "job advances them.");
	igt_subtest("debugfs-rings") {
		char *before = weft_debugfs_read("weft_rings"), *after;

		igt_assert(strstr(before, "hwq 0: ring 0x"));
		igt_assert(strstr(before, " fence "));
		weft_assert_device_alive(fd);
		after = weft_debugfs_read("weft_rings");
		igt_info("%s", after);
		igt_assert(strcmp(before, after));
		free(before);
		free(after);
	}

	igt_describe("Check that debugfs weft_queues shows a new queue with "
		     "its priority, and forgets it once destroyed.");
	igt_subtest("debugfs-queues") {
		uint32_t vm = weft_vm_create(fd);
		uint32_t q = weft_queue_create(fd, vm,
					       DRM_WEFT_QUEUE_PRIORITY_LOW);
		char *text = weft_debugfs_read("weft_queues"), line[64];

		snprintf(line, sizeof(line), "queue %u: hwq ", q);
		igt_assert(strstr(text, line));
		igt_assert(strstr(text, "priority 0 "));
		free(text);
		weft_queue_destroy(fd, q);
		weft_vm_destroy(fd, vm);
	}

	igt_describe("Check that debugfs weft_vms shows a VM's mappings.");
	igt_subtest("debugfs-vms") {
		uint32_t vm = weft_vm_create(fd);
		struct weft_bo *bo = weft_bo_new(fd, 3 * PAGE, vm,
						 weft_test_va(&info, 7), 0);
		char *text = weft_debugfs_read("weft_vms"), range[80];

		snprintf(range, sizeof(range), "0x%016" PRIx64 "-0x%016" PRIx64,
			 (uint64_t)bo->va, (uint64_t)(bo->va + 3 * PAGE));
		igt_assert_f(strstr(text, range), "%s not in:\n%s", range,
			     text);
		free(text);
		weft_bo_free(fd, bo);
		weft_vm_destroy(fd, vm);
	}

	igt_describe("Check that the weft_job_submit and weft_job_complete "
		     "tracepoints fire for a job.");
	igt_subtest("tracepoints") {
		const char *t = "/sys/kernel/tracing";
		char path[256], *trace;

		weft_mount_if_needed(t, "tracefs", "events");
		snprintf(path, sizeof(path), "%s/events/weft/enable", t);
		igt_require_f(!access(path, W_OK), "no weft trace events\n");
		snprintf(path, sizeof(path), "%s/trace", t);
		write_file(path, "");
		snprintf(path, sizeof(path), "%s/events/weft/enable", t);
		write_file(path, "1");
		weft_assert_device_alive(fd);
		write_file(path, "0");
		snprintf(path, sizeof(path), "%s/trace", t);
		trace = weft_read_file(path);
		igt_assert(trace);
		igt_assert(strstr(trace, "weft_job_submit:"));
		igt_assert(strstr(trace, "weft_job_complete:"));
		free(trace);
	}

	igt_fixture {
		drm_close_driver(fd);
	}
}
