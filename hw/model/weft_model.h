/* SPDX-License-Identifier: MIT */
/*
 * libweftmodel: the functional model of the Weft GPU.
 *
 * The caller owns two buffers: the register file (WEFT_REGS_SIZE bytes, laid
 * out per weft_regs.h, generated from hw/regs like the driver's copy) and the
 * guest memory (GPA = offset into it).  The model runs a control thread,
 * one command-streamer thread per queue and a pool of worker threads; the
 * caller rings the doorbell and receives interrupts through a callback.
 */
#ifndef WEFT_MODEL_H
#define WEFT_MODEL_H

#include <stddef.h>
#include <stdint.h>

struct weft_model;

struct weft_model_config {
	void *regs;		/* register file, WEFT_REGS_SIZE bytes */
	void *mem;		/* guest memory: GPA 0 .. mem_size - 1 */
	uint64_t mem_size;
	unsigned threads;	/* worker threads; 0: number of online CPUs */
	uint32_t doorbell_peer;	/* published in WEFT_REG_DOORBELL_PEER */
	uint64_t watchdog;	/* sub-group instructions per dispatch; 0: default */
	/*
	 * Called from a command-streamer thread (calls are serialized), after
	 * IRQ_SEQ was incremented.  It may call weft_model_doorbell() but nothing that
	 * waits for the model (weft_model_wait_idle / set_guest_mem / destroy).
	 */
	void (*irq)(void *ctx, unsigned vector);
	void *irq_ctx;
};

#define WEFT_MODEL_NUM_QUEUES		4
#define WEFT_MODEL_WATCHDOG_DEFAULT	(1ull << 32)

/*
 * Fills the identification block of @regs (signature, version, caps, ...)
 * and zeroes the rest.  weft_model_create() does this too; the server calls
 * it early so the register file is valid before the model exists.
 */
void weft_model_init_regs(void *regs, uint32_t doorbell_peer, unsigned threads);

/* Returns NULL on failure (errno set). */
struct weft_model *weft_model_create(const struct weft_model_config *cfg);
/*
 * Replaces the guest-memory view (for a server that can only map guest RAM
 * once the guest runs).  Waits until the model is idle first; call it before
 * the doorbell that should see the new memory.
 */
void weft_model_set_guest_mem(struct weft_model *m, void *mem, uint64_t mem_size);

/* Stops all threads (aborting a running dispatch) and frees the model. */
void weft_model_destroy(struct weft_model *m);

/*
 * The doorbell: wakes the control thread, which checks the handshake
 * registers and then wakes every queue's streamer (reset requests, TAIL
 * against HEAD).  Never blocks.
 */
void weft_model_doorbell(struct weft_model *m);

/*
 * Waits until every doorbell rung before the call has been processed and
 * no queue can make progress (all idle, stopped in error, disabled,
 * waiting for a complete command or in a SEM_WAIT whose value does not
 * compare true; such a queue goes on by itself when the value changes).
 * For in-process users and tests.
 */
void weft_model_wait_idle(struct weft_model *m);

/*
 * The translator's counters since the model was created (all 0 while it
 * does not run: WEFT_MODEL_JIT=0, or no usable LLVM target); execution.rst,
 * "The translator".
 */
struct weft_model_jit_stats {
	uint64_t translated;	/* kernels translated */
	uint64_t optimized;	/* ... of them by the optimizing tier */
	uint64_t cache_hits;	/* dispatches that found their translation */
	uint64_t interpreted;	/* dispatches of a kernel that cannot be translated */
	uint64_t native;	/* instructions of translated kernels that became host vector code */
	uint64_t helper;	/* ... that became a call of the interpreter's handler */
	uint64_t translate_ns;	/* CPU time spent translating (building, optimizing, compiling) */
	uint64_t evicted;	/* translations freed to make room (WEFT_MODEL_JIT_CACHE) */
	uint64_t cached;	/* translations held now */
	uint64_t split;		/* vector accesses of a sub-group run element by element: a lane's crossed a page */
	uint64_t cf_calls;	/* control flow of a sub-group run by the interpreter's mask-stack code */
	uint64_t run_calls;	/* turns of a run that went on through the core's code at end or bar */
};
void weft_model_jit_stats(struct weft_model *m, struct weft_model_jit_stats *st);

#endif
