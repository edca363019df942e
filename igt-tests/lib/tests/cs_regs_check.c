// SPDX-License-Identifier: MIT
/*
 * Copyright (C) 2026 The Weft authors
 *
 * Compile-time check that igt_weft.h's copy of the batch command format
 * matches the kernel's weft_cs_regs.h (built by `make check` only: an
 * upstream IGT tree has no kernel-internal headers).
 */
#include <assert.h>

#include "igt_weft.h"
#include "weft_cs_regs.h"
#include "weft_regs.h"

static_assert(WEFT_BATCH_NOP == WEFT_CMD_NOP, "NOP");
static_assert(WEFT_BATCH_END == WEFT_CMD_END, "END");
static_assert(WEFT_BATCH_DISPATCH == WEFT_CMD_DISPATCH, "DISPATCH");
static_assert(WEFT_BATCH_DISPATCH_LEN == WEFT_CMD_DISPATCH_LEN,
	      "DISPATCH length");
static_assert(WEFT_BATCH_WRITE_DATA == WEFT_CMD_WRITE_DATA, "WRITE_DATA");
static_assert(WEFT_BATCH_WRITE_DATA_LEN == WEFT_CMD_WRITE_DATA_LEN,
	      "WRITE_DATA length");
static_assert(WEFT_BATCH_SEM_WAIT == WEFT_CMD_SEM_WAIT, "SEM_WAIT");
static_assert(WEFT_BATCH_SEM_WAIT_LEN == WEFT_CMD_SEM_WAIT_LEN,
	      "SEM_WAIT length");
static_assert(WEFT_BATCH_SEM_WAIT_GTE == WEFT_SEM_WAIT_OP_GTE, "SEM_WAIT GTE");
static_assert(WEFT_BATCH_SEM_WAIT_EQ == WEFT_SEM_WAIT_OP_EQ, "SEM_WAIT EQ");
static_assert(WEFT_RING_FENCE == WEFT_CMD_FENCE, "FENCE");
static_assert(WEFT_RING_FENCE_LEN == WEFT_CMD_FENCE_LEN, "FENCE length");
static_assert(WEFT_RING_FENCE & WEFT_CMD_PRIVILEGED, "FENCE is privileged");
static_assert(WEFT_BATCH_HEADER(WEFT_BATCH_DISPATCH, 16) ==
	      WEFT_CMD_HEADER(WEFT_CMD_DISPATCH, 16), "header layout");
static_assert(WEFT_SIGNATURE_WEFT == WEFT_SIGNATURE, "signature");
static_assert(WEFT_PAGE_SIZE == 4096, "page size");
