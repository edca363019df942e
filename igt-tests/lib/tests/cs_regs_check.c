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
static_assert(WEFT_BATCH_DRAIN_QUEUE == WEFT_CMD_DRAIN_QUEUE, "DRAIN_QUEUE");
static_assert(WEFT_BATCH_DRAIN_QUEUE_LEN == WEFT_CMD_DRAIN_QUEUE_LEN,
	      "DRAIN_QUEUE length");
static_assert(WEFT_DEVQ_HEAD == WEFT_DQ_HEAD, "device queue head");
static_assert(WEFT_DEVQ_SIZE == WEFT_DQ_SIZE, "device queue size");
static_assert(WEFT_DEVQ_EVENTS == WEFT_DQ_EVENTS, "device queue events");
static_assert(WEFT_DEVQ_STATUS == WEFT_DQ_STATUS, "device queue status");
static_assert(WEFT_DEVQ_HEADER_SIZE == WEFT_DQ_HEADER_SIZE, "device queue header size");
static_assert(WEFT_DEVQ_REC_LEN == WEFT_DQ_REC_LEN, "device queue rec len");
static_assert(WEFT_DEVQ_REC_KIND == WEFT_DQ_REC_KIND, "device queue rec kind");
static_assert(WEFT_DEVQ_REC_SIGNAL == WEFT_DQ_REC_SIGNAL, "device queue rec signal");
static_assert(WEFT_DEVQ_REC_NUM_WAITS == WEFT_DQ_REC_NUM_WAITS, "device queue rec num waits");
static_assert(WEFT_DEVQ_REC_STATE == WEFT_DQ_REC_STATE, "device queue rec state");
static_assert(WEFT_DEVQ_REC_WAITS == WEFT_DQ_REC_WAITS, "device queue rec waits");
static_assert(WEFT_DEVQ_REC_ARGS == WEFT_DQ_REC_ARGS, "device queue rec args");
static_assert(WEFT_DEVQ_REC_MARKER == WEFT_DQ_REC_MARKER, "device queue rec marker");
static_assert(WEFT_DEVQ_REC_STATE_DONE == WEFT_DQ_REC_STATE_DONE, "device queue rec state done");
static_assert(WEFT_DEVQ_EVENT_SIZE == WEFT_DQ_EVENT_SIZE, "device queue event size");
static_assert(WEFT_DEVQ_ERR_BAD_QUEUE == WEFT_QERR_DEVICE_QUEUE, "device queue error");
static_assert(WEFT_RING_FENCE == WEFT_CMD_FENCE, "FENCE");
static_assert(WEFT_RING_FENCE_LEN == WEFT_CMD_FENCE_LEN, "FENCE length");
static_assert(WEFT_RING_FENCE & WEFT_CMD_PRIVILEGED, "FENCE is privileged");
static_assert(WEFT_BATCH_HEADER(WEFT_BATCH_DISPATCH, 16) ==
	      WEFT_CMD_HEADER(WEFT_CMD_DISPATCH, 16), "header layout");
static_assert(WEFT_SIGNATURE_WEFT == WEFT_SIGNATURE, "signature");
static_assert(WEFT_PAGE_SIZE == 4096, "page size");
