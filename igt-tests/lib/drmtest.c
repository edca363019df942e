// SPDX-License-Identifier: MIT
/*
 * Copyright (C) 2026 The Weft authors
 *
 * Opens the first /dev/dri node whose driver matches the requested
 * chipset flags. As in IGT, drm_open_driver() skips (in a fixture: every
 * following subtest) when there is no such device.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>

#include "drmtest.h"

/*
 * @modprobe: load the module when no device is found, as IGT does; not
 * weft.ko, which the tests load from the tree they test.
 */
static const struct {
	int chipset;
	const char *name;
	bool modprobe;
} modules[] = {
	{ DRIVER_WEFT, "weft", false },
	{ DRIVER_VGEM, "vgem", true },
};

static bool load_modules(int chipset)
{
	char cmd[64];
	bool loaded = false;

	if (geteuid())
		return false;
	for (unsigned int i = 0; i < ARRAY_SIZE(modules); i++) {
		if (!(chipset & modules[i].chipset) || !modules[i].modprobe)
			continue;
		snprintf(cmd, sizeof(cmd), "modprobe %s 2>/dev/null",
			 modules[i].name);
		loaded |= system(cmd) == 0;
	}
	return loaded;
}

static bool driver_matches(int fd, int chipset)
{
	drmVersionPtr version = drmGetVersion(fd);
	bool match = false;

	if (!version)
		return false;
	for (unsigned int i = 0; i < ARRAY_SIZE(modules); i++) {
		if ((chipset & modules[i].chipset) &&
		    strcmp(version->name, modules[i].name) == 0)
			match = true;
	}
	drmFreeVersion(version);
	return match;
}

static int open_node(const char *fmt, int first, int chipset)
{
	char path[64];

	for (int i = first; i < first + 16; i++) {
		int fd;

		snprintf(path, sizeof(path), fmt, i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (driver_matches(fd, chipset)) {
			igt_debug("opened %s\n", path);
			return fd;
		}
		close(fd);
	}
	return -1;
}

int __drm_open_driver(int chipset)
{
	int fd = open_node("/dev/dri/card%d", 0, chipset);

	if (fd < 0 && load_modules(chipset))
		fd = open_node("/dev/dri/card%d", 0, chipset);
	return fd;
}

int __drm_open_driver_render(int chipset)
{
	int fd = open_node("/dev/dri/renderD%d", 128, chipset);

	if (fd < 0 && load_modules(chipset))
		fd = open_node("/dev/dri/renderD%d", 128, chipset);
	return fd;
}

static const char *chipset_name(int chipset)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(modules); i++)
		if (chipset == modules[i].chipset)
			return modules[i].name;
	return "any";
}

int drm_open_driver(int chipset)
{
	int fd = __drm_open_driver(chipset);

	if (fd < 0)
		fd = __drm_open_driver_render(chipset);
	igt_skip_on_f(fd < 0, "No known gpu found for chipset flags %#x (%s)\n",
		      chipset, chipset_name(chipset));
	return fd;
}

int drm_open_driver_render(int chipset)
{
	int fd = __drm_open_driver_render(chipset);

	igt_skip_on_f(fd < 0, "No render node found for chipset flags %#x (%s)\n",
		      chipset, chipset_name(chipset));
	return fd;
}

int drm_close_driver(int fd)
{
	return close(fd);
}

bool is_weft_device(int fd)
{
	return driver_matches(fd, DRIVER_WEFT);
}
