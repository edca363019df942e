/* SPDX-License-Identifier: MIT */
/* Device queues (device-enqueue.rst) and a kernel that enqueues, on modelenv. */
#ifndef WEFT_DEVQUEUE_H
#define WEFT_DEVQUEUE_H

#include <stdint.h>

#include "modelenv.h"

/* A device queue: header, records, event slots in one writable buffer. */
struct dq {
	uint64_t va;
	uint8_t *host;
	uint32_t size, events;
};

struct dq dq_create(struct env *e, uint32_t size, uint32_t events, uint32_t depth_limit);
uint32_t *dq_word(struct dq *d, uint32_t off);	/* host view of the buffer at @off */
uint64_t dq_rec_va(const struct dq *d, uint32_t off);	/* VA of the record at @off */
/*
 * A batch on queue @q: the dispatch @parent (if any), DRAIN_QUEUE of @dq_va,
 * END; returns ERROR_CODE, 0 once the fence after it passed.
 */
uint32_t run_drain(struct env *e, unsigned q, const struct env_dispatch *parent, uint64_t dq_va);

/*
 * The tree kernel.  Arguments (the block literal):
 *   +0 queue VA, +8 its own code VA, +16 counters VA,
 *   +24 levels left, +28 children's global size, +32 their SIMD width.
 * Every work-item counts itself at counters[depth] (the depth the device
 * says, WEFT_DQ_DEPTH); with levels left, it reserves one record (a child
 * of the same kernel, one level less) with an atomic add on the head, as
 * compiled OpenCL C does.  Past the size it counts counters[FULL], and the
 * one work-item whose reservation crossed the end writes a PAD record over
 * the rest (counters[PADS]).
 */
#define TREE_ARGS	40
#define TREE_REC_LEN	((WEFT_DQ_REC_ARGS + TREE_ARGS + 15) & ~15u)
#define CNT_FULL	100
#define CNT_PADS	101
#define CNT_WORDS	102

const char *tree_kernel(void);

/* The tree kernel's code, arguments and counters, and a queue for @records of its records. */
struct tree {
	struct dq dq;
	uint64_t code, args_va, cnt_va;
	uint64_t *args;
	uint32_t *cnt;
};

struct tree tree_setup(struct env *e, uint32_t records, uint32_t depth_limit);
/* The parent: @items work-items, @levels levels of children of @child_items each. */
uint32_t tree_run(struct env *e, struct tree *t, unsigned q, uint32_t items, uint32_t levels,
		  uint32_t child_items, uint32_t simd);

#endif
