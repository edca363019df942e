/* SPDX-License-Identifier: MIT */
/* Internal interfaces of libweftmodel. */
#ifndef WEFT_MODEL_PRIV_H
#define WEFT_MODEL_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "weft_isa.h"
#include "weft_model.h"
#include "weft_regs.h"
#include "weft_cs_regs.h"
#include "weft_mmu_regs.h"

#define WEFT_MODEL_MAX_WG_SIZE	1024
#define WEFT_MODEL_SLM_SIZE	65536
#define WEFT_MODEL_SCRATCH_SIZE	WEFT_CMD_DISPATCH_SCRATCH_MAX

/* Access kinds, numerically equal to WEFT_FAULT_ACCESS_*. */
enum weft_access {
	WEFT_ACC_READ = WEFT_FAULT_ACCESS_READ,
	WEFT_ACC_WRITE = WEFT_FAULT_ACCESS_WRITE,
	WEFT_ACC_EXEC = WEFT_FAULT_ACCESS_EXEC,
};

struct weft_fault {
	uint64_t va;
	uint32_t info;		/* access | WEFT_FAULT_PERMISSION */
};

#define WEFT_TLB_BITS 14
#define WEFT_TLB_SIZE (1u << WEFT_TLB_BITS)
/* The pages a stream's TLB miss translates at once, the one missed among them. */
#define WEFT_TLB_RUN 16
#define WEFT_PWC_BITS 9
#define WEFT_PWC_SIZE (1u << WEFT_PWC_BITS)

struct weft_tlb_entry {
	uint64_t vpn;		/* VA >> 12, valid if gen matches */
	uint64_t gen;
	uint8_t *host;		/* host address of the page */
	uint64_t pte;
};

/*
 * Page-walk cache: the last-level table of a 2 MiB region, so that a TLB miss
 * in a region walked before reads one entry instead of four; or, for a region
 * a level-2 WEFT_PTE_HUGE entry maps, that entry, so that a miss reads none.
 */
struct weft_pwc_entry {
	uint64_t region;	/* VA >> 21, valid if gen matches */
	uint64_t gen;
	uint8_t *table;		/* host address of the level-3 table, or of the 2 MiB page */
	uint64_t huge;		/* 0, or the level-2 entry mapping the 2 MiB page */
};

/*
 * The TLB slot of page @vpn, by Fibonacci hashing: buffers allocated a power
 * of two apart, walked in the same pattern (a transpose's source and
 * destination rows), would otherwise share their slots and evict each other
 * at every access.
 */
static inline unsigned weft_tlb_slot(uint64_t vpn)
{
	return (unsigned)((vpn * 0x9e3779b97f4a7c15ull) >> (64 - WEFT_TLB_BITS));
}

/* An MMU context: one VM root plus a private TLB (one per thread). */
struct weft_mmu {
	uint8_t *mem;
	uint64_t mem_size;
	uint64_t root;		/* physical address of the level-0 table */
	uint64_t gen;		/* bump to flush the TLB */
	struct weft_tlb_entry tlb[WEFT_TLB_SIZE];
	struct weft_pwc_entry pwc[WEFT_PWC_SIZE];
};

/* The TLB entry of page @vpn if the TLB of @mmu holds it, else NULL. */
static inline const struct weft_tlb_entry *weft_tlb_holds(const struct weft_mmu *mmu, uint64_t vpn)
{
	const struct weft_tlb_entry *e = &mmu->tlb[weft_tlb_slot(vpn)];

	return e->gen == mmu->gen && e->vpn == vpn ? e : NULL;
}

void weft_mmu_init(struct weft_mmu *mmu, uint8_t *mem, uint64_t mem_size, uint64_t root);
/* Host pointer of @va, valid up to the end of its page; NULL and *f on a fault. */
uint8_t *weft_mmu_translate(struct weft_mmu *mmu, uint64_t va, enum weft_access acc,
			    struct weft_fault *f);
/* Copies across pages; 0 or -1 with *f. */
int weft_mmu_read(struct weft_mmu *mmu, uint64_t va, void *dst, size_t n,
		  enum weft_access acc, struct weft_fault *f);
int weft_mmu_write(struct weft_mmu *mmu, uint64_t va, const void *src, size_t n,
		   struct weft_fault *f);

/* Guest-physical access, bounds-checked: NULL when [gpa, gpa + n) is outside memory. */
static inline uint8_t *weft_gpa(uint8_t *mem, uint64_t mem_size, uint64_t gpa, uint64_t n)
{
	if (gpa > mem_size || n > mem_size - gpa)
		return NULL;
	return mem + gpa;
}

/* Result of a dispatch. */
struct weft_dispatch_result {
	int code;		/* WEFT_QERR_*, or -1: aborted (reset / stop) */
	uint64_t addr;		/* instruction or fault address */
	struct weft_fault fault;
};

struct weft_dispatch_params {
	uint64_t code, args;
	uint32_t simd;
	uint32_t gsize[3], lsize[3], goff[3];
	uint32_t slm;
	uint32_t scratch;	/* private bytes per work-item (DISPATCH_SCRATCH) */
	uint64_t root;
};

#define CF_DEPTH	64
#define CF_IF		1
#define CF_ELSE		2
#define CF_LOOP		3

struct cf_entry {
	uint8_t kind;
	uint32_t saved;		/* mask to restore at endif / loop exit */
	uint32_t alt;		/* IF: lanes for the else; LOOP: lanes that continued */
	uint64_t target;	/* else / endif / endloop */
	uint64_t start;		/* LOOP: first instruction of the body */
};

/* A sub-group's execution state: survives a barrier (translated code runs its mask stack too). */
struct sg_state {
	uint64_t pc;
	uint32_t mask;		/* active lanes */
	unsigned sp;
	int slot;		/* register file / scratch slot, -1 when not started */
	bool done;
	bool at_barrier;	/* waits until every live sub-group reached a bar */
	struct cf_entry stack[CF_DEPTH];
};

/* What a sub-group knows about its place in the dispatch (translated code reads it too). */
struct sg_ctx {
	const struct weft_dispatch_params *dp;
	const uint64_t *ngroups;
	uint32_t gid[3];
	uint32_t lsz[3];	/* actual size of this (possibly partial) group */
	/* 2^32 / lsz[0] and 2^32 / (lsz[0] * lsz[1]), rounded up: the
	 * translation divides the sub-group's first item by these sizes as a
	 * multiplication (exact for any item index below 2^16). */
	uint64_t lsz_recip[2];
	uint32_t nitems, nsub, sg;
	bool lid_valid;		/* lid[] computed for this sub-group */
	uint32_t lid[3][WEFT_MAX_LANES];
	/* lid[1] and lid[2] hold lid_y and lid_z in every lane (zero-initialized: not yet). */
	bool lid_yz_uniform;
	uint32_t lid_y, lid_z;
};

/* Fills c->lid[] for the sub-group c->sg (sets lid_valid). */
void weft_sg_compute_lids(struct sg_ctx *c);

struct weft_pool;
struct weft_pool *weft_pool_create(struct weft_model *m, unsigned threads);
void weft_pool_destroy(struct weft_pool *p);
void weft_pool_jit_stats(struct weft_pool *p, struct weft_model_jit_stats *st);
/*
 * Runs a validated dispatch of queue @slot on the pool (dispatches of
 * different queues share the workers), its kernel read through @mmu (the
 * queue's, mapping the dispatch's page table); @should_abort is polled
 * while it runs (returns true to abort: reset or stop).
 */
void weft_pool_dispatch(struct weft_pool *p, unsigned slot, struct weft_mmu *mmu,
			const struct weft_dispatch_params *dp, uint64_t watchdog,
			bool (*should_abort)(void *), void *ctx, struct weft_dispatch_result *res);

/* Command-stream state of a queue: dropped by a reset. */
struct weft_qstate {
	uint32_t head;
	bool error;
	bool in_batch;
	uint32_t batch_cmd_len;
	uint64_t batch_pos, batch_end;
	bool has_vm;
	uint64_t vm_root;
	uint32_t ctx_id;
	uint32_t reset_ack;
	bool sem_wait;		/* stopped at the SEM_WAIT at batch_pos */
	uint32_t sem_op;
	uint64_t sem_va, sem_val;
	bool draining;		/* running the device queue of the DRAIN_QUEUE at batch_pos */
	uint64_t dq_va;		/* its header */
	uint32_t dq_size, dq_events, dq_depth_limit;
	uint32_t dq_pending;	/* offset of the first record not done */
	uint32_t dq_stamped;	/* records before this offset have their depth */
	uint32_t dq_depth;	/* depth of the record that ran last (0: the parent) */
	uint64_t dq_record;	/* VA of the record running or failing, 0: none */
};

/* A hardware queue: its own command-streamer thread. */
struct weft_queue {
	struct weft_qstate cs;
	uint32_t error_seq;	/* device-lifetime error counter */
	unsigned idx;
	pthread_t th;
	uint64_t gen, done;	/* doorbell generation asked for / processed (m->lock) */
	bool busy;		/* processing (m->lock) */
	bool waiting;		/* in a SEM_WAIT: polls (m->lock) */
	bool poke;		/* run again: memory changed under a SEM_WAIT (m->lock) */
	struct weft_mmu mmu;	/* the streamer's, for batches */
};

struct weft_model {
	struct weft_model_config cfg;
	uint8_t *regs;
	uint8_t *mem;
	uint64_t mem_size;
	uint64_t watchdog;

	pthread_t cp;			/* handshake and queue wake-ups */
	pthread_mutex_t lock;
	pthread_cond_t kick_cond, idle_cond, queue_cond;
	uint64_t kicks, cp_done;
	bool quit;
	unsigned nqthreads;

	atomic_bool running;
	pthread_mutex_t irq_lock;	/* IRQ_SEQ and the fault block */
	uint32_t irq_seq, fault_seq;
	struct weft_queue q[WEFT_MODEL_NUM_QUEUES];
	struct weft_pool *pool;
};

static inline uint32_t weft_reg_read(struct weft_model *m, uint32_t off)
{
	return __atomic_load_n((uint32_t *)(m->regs + off), __ATOMIC_ACQUIRE);
}

static inline void weft_reg_write(struct weft_model *m, uint32_t off, uint32_t v)
{
	__atomic_store_n((uint32_t *)(m->regs + off), v, __ATOMIC_RELEASE);
}

#endif
