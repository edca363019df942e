/* SPDX-License-Identifier: MIT */
/*
 * Copyright (C) 2026 The Weft authors
 *
 * The one header tests include, as in IGT.
 */
#ifndef IGT_H
#define IGT_H

#include "drmtest.h"
#include "igt_core.h"
#include "ioctl_wrappers.h"

#endif /* IGT_H */
