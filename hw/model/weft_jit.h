/* SPDX-License-Identifier: MIT */
/*
 * The translator: a kernel binary becomes one host function per SIMD width
 * (LLVM ORC through LLVM's C API), cached by the binary's contents.  The
 * interpreter (weft_exec.c) stays the reference; execution.rst ("The
 * translator") says when each one runs.
 */
#ifndef WEFT_JIT_H
#define WEFT_JIT_H

#include <stdbool.h>
#include <stdint.h>

#include "weft_isa.h"
#include "weft_model.h"

struct weft_mmu;
struct sg_ctx;

/*
 * What translated code sees of a sub-group's turn.  The register file and
 * the lane masks are the interpreter's, so either one can go on where the
 * other stopped.
 */
struct weft_jit_ctx {
	uint32_t (*R)[WEFT_MAX_LANES];	/* register rows */
	uint32_t *M;			/* lane masks (0 or ~0) of the active lanes */
	uint32_t *mask;			/* the active mask (bit per lane) */
	uint64_t *pc;			/* in: where the turn starts; out: where it stopped */
	uint64_t base;			/* VA of the kernel's first instruction */
	uint64_t args;			/* the dispatch's argument pointer (sr.args) */
	uint64_t count;			/* out: instructions executed in the turn */
	struct weft_mmu *mmu;		/* the worker's, for inline TLB lookups */
	uint8_t *slm;			/* the work-group's shared local memory */
	uint8_t *scratch;		/* the private memory of the sub-group's slot */
	void *w, *s;			/* worker, sub-group: for the helpers */
	struct sg_ctx *c;		/* the sub-group's place in the dispatch (s2r) */
	/* The worker's instructions not yet accounted and live sub-groups:
	 * a run goes on with a whole next sub-group without a call
	 * (execution.rst, "A run of sub-groups"). */
	uint64_t *pending;
	unsigned *live;
	/* The worker's sub-groups at a barrier, register files, slots in use
	 * and slots used since the files were zeroed: a run goes on with a
	 * sub-group that started, or at a bar with one that has not, without
	 * a call too. */
	unsigned *at_barrier;
	uint32_t (**rf)[WEFT_MAX_LANES];
	bool *slot_used;
	unsigned *rf_dirty;
	/* Whole 64-byte lines of global stores go past the host's caches
	 * (execution.rst, "Streaming stores"); the caller fences them. */
	bool stream;
};

/* Instructions between two checks of the watchdog and a reset (weft_exec.c). */
#define WEFT_JIT_ACCOUNT_EVERY	4096

/*
 * What translated code returns: the interpreter's SG_* codes (weft_exec.c),
 * or WEFT_JIT_INTERPRET: go on in the interpreter from *pc (a jump to an
 * address the translation does not know, which only a malformed program
 * makes).
 */
#define WEFT_JIT_INTERPRET	3

typedef int (*weft_jit_fn)(struct weft_jit_ctx *x);

/* Helpers translated code calls (weft_exec.c): what the interpreter does. */
int weft_jit_exec(struct weft_jit_ctx *x, const struct weft_inst *in, uint64_t pc, unsigned simd);
/* Returns CF_BAD (error set), CF_NEXT or CF_JUMP with *target. */
int weft_jit_cf(struct weft_jit_ctx *x, const struct weft_inst *in, uint64_t pc, unsigned simd,
		uint64_t *target);

/*
 * At a translated end: 2 (every lane on, the same register-file slot) or
 * 1 when the call goes on with the work-group's next sub-group, which the
 * context then describes (its first turn starts at *pc); 0 when the turn
 * ends here (execution.rst, "A run of sub-groups").
 */
int weft_jit_next_sg(struct weft_jit_ctx *x);
/*
 * At a translated bar, with the rows in the file and *pc after the bar: 1
 * when the call goes on with the next turn of the work-group's pass, which
 * the context then describes (it starts at *pc); 0 when the turn ends here.
 */
int weft_jit_next_at_bar(struct weft_jit_ctx *x);

/* When the model translates (WEFT_MODEL_JIT, execution.rst). */
enum weft_jit_mode {
	WEFT_JIT_OFF,		/* "0": the interpreter only */
	WEFT_JIT_AUTO,		/* unset: kernels dispatched with WEFT_JIT_MIN_ITEMS work-items in all */
	WEFT_JIT_ALWAYS,	/* "1": every dispatch */
};
#define WEFT_JIT_MIN_ITEMS	65536
/*
 * Work-items of a kernel's dispatches in all from which its translation
 * is compiled by the optimizing tier (WEFT_MODEL_JIT_OPT_ITEMS sets
 * another count; execution.rst).
 */
#define WEFT_JIT_OPT_ITEMS	(1ull << 24)
/*
 * Or sub-group instructions its earlier dispatches executed in all
 * (WEFT_MODEL_JIT_OPT_INSTS): a kernel with much work per item (SGEMM)
 * pays for the slower translation long before its items count does.
 */
#define WEFT_JIT_OPT_INSTS	(1ull << 24)
/*
 * Work-items of one dispatch from which its translated global stores of
 * whole lines stream (WEFT_MODEL_STREAM_ITEMS sets another count;
 * execution.rst, "Streaming stores"): 32 MiB at 4 bytes an item.
 */
#define WEFT_JIT_STREAM_ITEMS	(1ull << 23)

struct weft_jit;

/* The mode from the environment. */
enum weft_jit_mode weft_jit_mode_from_env(void);
/* WEFT_MODEL_JIT_OPT_ITEMS, else WEFT_JIT_OPT_ITEMS. */
uint64_t weft_jit_opt_items_from_env(void);
/* WEFT_MODEL_JIT_OPT_INSTS, else WEFT_JIT_OPT_INSTS. */
uint64_t weft_jit_opt_insts_from_env(void);
/* WEFT_MODEL_STREAM_ITEMS, else WEFT_JIT_STREAM_ITEMS. */
uint64_t weft_jit_stream_items_from_env(void);
/* NULL when the host has no usable LLVM target (then everything interprets). */
struct weft_jit *weft_jit_create(void);
void weft_jit_destroy(struct weft_jit *j);

struct weft_jit_kernel;

/*
 * The kernel at @code for @simd lanes, read through @mmu (EXEC access),
 * found by its instructions (every word reachable from the entry) wherever
 * they lie, so that a kernel loaded at another address is the same one and
 * another kernel loaded where it was is not.  A dispatch of @items
 * work-items is counted to it: *@all_items are its dispatches' work-items,
 * this one's included, *@all_insts the sub-group instructions of those
 * that ended.  NULL: run it on the interpreter (code that does not fetch
 * or decode, which the interpreter then reports where it meets it, or a
 * kernel too large).  Else it is kept, counts and translations, until
 * weft_jit_release().  Thread-safe.
 */
struct weft_jit_kernel *weft_jit_find(struct weft_jit *j, struct weft_mmu *mmu, uint64_t code,
				      unsigned simd, uint64_t items, uint64_t *all_items,
				      uint64_t *all_insts);
/*
 * The translation of @k by the fast tier or (@optimize) the optimizing
 * one: translated at its first use.  NULL: run it on the interpreter (the
 * translation failed; the next dispatch tries again).
 */
weft_jit_fn weft_jit_translation(struct weft_jit *j, struct weft_jit_kernel *k, bool optimize);
/* A dispatch of @k (NULL: nothing) ended, having executed @insts sub-group instructions. */
void weft_jit_release(struct weft_jit *j, struct weft_jit_kernel *k, uint64_t insts);

/* Counters since weft_jit_create() (weft_model.h). */
void weft_jit_get_stats(struct weft_jit *j, struct weft_model_jit_stats *st);
/* Whether the translator emits host vector code for @in (else a helper call). */
bool weft_jit_native(const struct weft_inst *in);

#endif
