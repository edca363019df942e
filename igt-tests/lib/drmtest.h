/* SPDX-License-Identifier: MIT */
/*
 * Copyright (C) 2026 The Weft authors
 *
 * The subset of IGT's lib/drmtest.h the Weft tests use: opening a DRM
 * device by driver, skipping when there is none.
 */
#ifndef DRMTEST_H
#define DRMTEST_H

#include <stdbool.h>
#include <stdint.h>
#include <xf86drm.h>

#include "igt_core.h"

#define DRIVER_VGEM	(1 << 6)
#define DRIVER_WEFT	(1 << 20)
#define DRIVER_ANY	(~0)

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(arr) (sizeof(arr) / sizeof((arr)[0]))
#endif

#ifndef ALIGN
#define ALIGN(v, a) (((v) + (a) - 1) & ~((__typeof__(v))(a) - 1))
#endif

int __drm_open_driver(int chipset);
int __drm_open_driver_render(int chipset);
int drm_open_driver(int chipset);
int drm_open_driver_render(int chipset);
int drm_close_driver(int fd);
bool is_weft_device(int fd);

#endif /* DRMTEST_H */
