// SPDX-License-Identifier: MIT
/*
 * Copyright (C) 2026 The Weft authors
 *
 * fdinfo, per Documentation/gpu/drm-usage-stats.rst: drm-driver,
 * drm-client-id, drm-engine-compute (ns of GPU time of the file's jobs)
 * and the drm-*-memory keys of drm_show_memory_stats().
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

	igt_fixture {
		drm_close_driver(fd);
	}
}
