// SPDX-License-Identifier: MIT
/*
 * Dispatch execution: a pool of host threads runs work-groups; each
 * work-group runs as sub-groups of SIMD 8, 16 or 32 lanes with a lane mask.
 * Registers are laid out R[reg][lane] so that the per-lane loops of the
 * generated ALU semantics (weft_isa_alu.h) vectorize; the interpreter is
 * instantiated once per SIMD width with a constant lane count.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#define HAVE_STREAMING_STORES 1
#endif

#include "weft_isa.h"
#include "weft_isa_alu.h"
#include "weft_jit.h"
#include "weft_model_priv.h"

/* The handlers of the hot instruction classes are built into each per-width
 * interpreter, so that their lane loops have a constant trip count. */
#define HOT static inline __attribute__((always_inline))

#define DC_SIZE		4096		/* decoded-instruction cache entries */
#define NUM_ROWS	WEFT_NUM_REGS
#define MAX_SLOTS	(WEFT_MODEL_MAX_WG_SIZE / 8)	/* sub-groups of a work-group */
#define ACCOUNT_EVERY	WEFT_JIT_ACCOUNT_EVERY
/*
 * A sub-group's turn ends at the first backward jump after this many
 * instructions (execution.rst, "Forward progress"): the core then runs the
 * next runnable sub-group of the work-group.
 */
#define SG_QUANTUM	4096

/* What exec_sg() returns. */
#define SG_ERROR	-1	/* the dispatch stops (error set, or abort) */
#define SG_ENDED	0
#define SG_AT_BARRIER	1
#define SG_YIELDED	2	/* its quantum is used: it goes on at its next turn */

struct dc_entry {
	uint64_t pc;
	uint64_t gen;
	struct weft_inst in;
	uint8_t cls;
};

struct sg_state;

/* A running dispatch. */
struct weft_job {
	const struct weft_dispatch_params *dp;
	unsigned slot;			/* its queue */
	uint64_t id;
	uint64_t ngroups[3], total, watchdog;
	uint64_t alone_claim;		/* work-groups a core claims while it runs alone */
	/* The size of every work-group but the last along a dimension whose
	 * global size the local size does not divide (partial_dims). */
	uint32_t whole_items, whole_subs;
	uint64_t whole_lsz_recip[2];
	unsigned partial_dims;
	/* Each on its own cache line: the cores add to next and insts while
	 * they poll abort at every work-group. */
	_Alignas(64) _Atomic uint64_t next;
	_Alignas(64) _Atomic uint64_t insts;
	_Alignas(64) _Atomic int abort;
	struct weft_jit_kernel *kernel;	/* as the translator keeps it (use_translator()), or NULL */
	weft_jit_fn fn;			/* its translation, NULL: interpreted */
	bool stream;			/* ... streaming its stores of whole lines */
	unsigned workers_in;		/* workers running its groups (pool lock) */
	pthread_cond_t done;
	pthread_mutex_t err_lock;
	struct weft_dispatch_result res;
};

/* A worker's translation and decode state for one queue's dispatches. */
struct worker_slot {
	uint64_t job_id;
	uint64_t dc_gen;
	struct dc_entry *dc;
	struct weft_mmu mmu;
	weft_jit_fn jit;		/* the dispatch's translation, NULL: interpret */
};

struct weft_worker {
	struct weft_pool *pool;
	pthread_t th;
	struct weft_job *job;		/* being run */
	struct worker_slot *slot;
	struct worker_slot slots[WEFT_MODEL_NUM_QUEUES];
	uint64_t regs_job;		/* the job whose data the registers may hold */
	uint64_t pending;		/* executed instructions not yet accounted */
	bool streamed;			/* streaming stores not yet fenced (store_row()) */
	uint32_t (*R)[WEFT_MAX_LANES];	/* the running sub-group's registers */
	uint32_t M[WEFT_MAX_LANES];
	/* M holds the lane masks of M_mask at width M_simd (0: unknown), as
	 * every translated turn leaves them, from one work-group and dispatch
	 * to the next: a turn of the same mask need not store them (at every
	 * work-group's start, 3 % of an int copy's samples).  The interpreter
	 * changes them unrecorded. */
	uint32_t M_mask;
	unsigned M_simd;
	/* Per-slot register files: a work-group's sub-groups that wait at a
	 * barrier keep theirs (slot 0 is reused while none waits). */
	uint32_t (*rf[MAX_SLOTS])[WEFT_MAX_LANES];
	unsigned rf_dirty;		/* slots used since the registers were zeroed */
	bool slot_used[MAX_SLOTS];
	struct sg_state *sgs;		/* MAX_SLOTS sub-group states */
	/* Of the running work-group: sub-groups not ended, and of them the ones at a barrier. */
	unsigned live, at_barrier;
	/* Turns of a translated run that went on through weft_jit_next_sg() or
	 * weft_jit_next_at_bar() (weft_model_jit_stats.run_calls): written by
	 * this thread only. */
	_Atomic uint64_t run_calls;
	/* The running work-group's place: kept from one work-group of a
	 * dispatch to the next for its lid cache (weft_sg_compute_lids()). */
	struct sg_ctx ctx;
	uint8_t *slm;			/* the work-group's shared local memory */
	uint8_t *scratch;		/* private memory: MAX_SLOTS * 32 lanes * per-item size */
	size_t scratch_size;
	size_t scratch_used;		/* bytes that may hold data since the last zeroing */
};

struct weft_pool {
	struct weft_model *m;
	unsigned n;
	struct weft_worker *w;
	pthread_mutex_t lock;
	pthread_cond_t work;
	struct weft_job *jobs[WEFT_MODEL_NUM_QUEUES];
	_Atomic unsigned running;		/* jobs[] that are set (see run_some()) */
	uint64_t pass[WEFT_MODEL_NUM_QUEUES];	/* see pick() */
	uint64_t vtime;				/* the pass of the last pick */
	uint64_t next_id;
	bool quit;
	enum weft_jit_mode jit_mode;
	uint64_t jit_opt_items;		/* work-items from which the optimizing tier translates */
	uint64_t jit_opt_insts;		/* ... or executed sub-group instructions */
	uint64_t stream_items;		/* work-items from which a dispatch's stores stream */
	struct weft_jit *jit;		/* NULL: the interpreter only */
};

static void set_error(struct weft_job *j, int code, uint64_t addr, const struct weft_fault *f)
{
	pthread_mutex_lock(&j->err_lock);
	if (!j->res.code) {
		j->res.code = code;
		j->res.addr = addr;
		if (f)
			j->res.fault = *f;
	}
	pthread_mutex_unlock(&j->err_lock);
	atomic_store(&j->abort, 1);
}

/* Adds @n executed instructions; nonzero when the sub-group must stop. */
static int account(struct weft_job *j, uint64_t n)
{
	uint64_t total = atomic_fetch_add(&j->insts, n) + n;

	if (total > j->watchdog) {
		set_error(j, WEFT_QERR_WATCHDOG, 0, NULL);
		return -1;
	}
	return atomic_load_explicit(&j->abort, memory_order_relaxed) ? -1 : 0;
}

/* Decodes the instruction at @pc into its decode-cache entry. */
static __attribute__((noinline)) const struct dc_entry *decode_at(struct weft_worker *w, uint64_t pc)
{
	struct worker_slot *ws = w->slot;
	struct dc_entry *e = &ws->dc[(pc >> 3) & (DC_SIZE - 1)];
	struct weft_fault f;
	uint64_t word[2];
	size_t n = 1;

	if (weft_mmu_read(&ws->mmu, pc, &word[0], 8, WEFT_ACC_EXEC, &f) ||
	    /* A literal word follows: fetch it too. */
	    ((word[0] >> WEFT_ENC_LIT_SHIFT & 1) &&
	     weft_mmu_read(&ws->mmu, pc + 8, &word[n++], 8, WEFT_ACC_EXEC, &f))) {
		set_error(w->job, WEFT_QERR_MMU_FAULT, f.va, &f);
		return NULL;
	}
	if (weft_isa_decode(word, n, &e->in) < 0) {
		e->gen = 0;
		set_error(w->job, WEFT_QERR_BAD_INSTRUCTION, pc, NULL);
		return NULL;
	}
	e->cls = weft_isa_ops[e->in.op].cls;
	e->pc = pc;
	e->gen = ws->dc_gen;
	return e;
}

/* The decoded instruction at @pc: from the cache when it holds it. */
static inline const struct dc_entry *fetch(struct weft_worker *w, const struct dc_entry *dc,
					   uint64_t gen, uint64_t pc)
{
	const struct dc_entry *e = &dc[(pc >> 3) & (DC_SIZE - 1)];

	if (__builtin_expect(e->pc == pc && e->gen == gen, 1))
		return e;
	return decode_at(w, pc);
}

/*
 * Local ids of the sub-group's lanes: a division (none in a one-dimensional
 * work-group), then counting.  Every sub-group of a kernel that reads an id
 * computes them, so the common case of lanes in one row fills all
 * WEFT_MAX_LANES lanes (a constant trip count vectorizes; lanes past the
 * width are never read), and rewrites the y and z rows only when they
 * change: never in a one-dimensional work-group.
 */
void weft_sg_compute_lids(struct sg_ctx *c)
{
	uint32_t simd = c->dp->simd, lin = c->sg * simd, x, y, z;

	if (c->lsz[1] == 1 && c->lsz[2] == 1) {
		x = lin;
		y = z = 0;
	} else {
		x = lin % c->lsz[0];
		y = (lin / c->lsz[0]) % c->lsz[1];
		z = lin / (c->lsz[0] * c->lsz[1]);
	}
	if (x + simd <= c->lsz[0]) {
		for (uint32_t l = 0; l < WEFT_MAX_LANES; l++)
			c->lid[0][l] = x + l;
		if (!c->lid_yz_uniform || c->lid_y != y || c->lid_z != z) {
			for (uint32_t l = 0; l < WEFT_MAX_LANES; l++) {
				c->lid[1][l] = y;
				c->lid[2][l] = z;
			}
			c->lid_y = y;
			c->lid_z = z;
			c->lid_yz_uniform = true;
		}
		c->lid_valid = true;
		return;
	}
	c->lid_yz_uniform = false;
	for (uint32_t l = 0; l < simd; l++) {
		c->lid[0][l] = x;
		c->lid[1][l] = y;
		c->lid[2][l] = z;
		if (++x == c->lsz[0]) {
			x = 0;
			if (++y == c->lsz[1]) {
				y = 0;
				z++;
			}
		}
	}
	c->lid_valid = true;
}

/* The value of a sub-group-uniform special register. */
static uint64_t sreg_uniform(const struct sg_ctx *c, unsigned sr)
{
	const struct weft_dispatch_params *dp = c->dp;

	switch (sr) {
	case WEFT_SR_SUBGROUP_ID: return c->sg;
	case WEFT_SR_SUBGROUP_SIZE: {
		uint32_t left = c->nitems - c->sg * dp->simd;

		return left < dp->simd ? left : dp->simd;
	}
	case WEFT_SR_NUM_SUBGROUPS: return c->nsub;
	case WEFT_SR_GROUP_ID_X ... WEFT_SR_GROUP_ID_Z: return c->gid[sr - WEFT_SR_GROUP_ID_X];
	case WEFT_SR_LOCAL_SIZE_X ... WEFT_SR_LOCAL_SIZE_Z: return c->lsz[sr - WEFT_SR_LOCAL_SIZE_X];
	case WEFT_SR_GLOBAL_SIZE_X ... WEFT_SR_GLOBAL_SIZE_Z: return dp->gsize[sr - WEFT_SR_GLOBAL_SIZE_X];
	case WEFT_SR_NUM_GROUPS_X ... WEFT_SR_NUM_GROUPS_Z: return c->ngroups[sr - WEFT_SR_NUM_GROUPS_X];
	case WEFT_SR_GLOBAL_OFFSET_X ... WEFT_SR_GLOBAL_OFFSET_Z:
		return dp->goff[sr - WEFT_SR_GLOBAL_OFFSET_X];
	case WEFT_SR_MAX_SUBGROUP_SIZE: return dp->simd;
	case WEFT_SR_ENQUEUED_LOCAL_SIZE_X ... WEFT_SR_ENQUEUED_LOCAL_SIZE_Z:
		return dp->lsize[sr - WEFT_SR_ENQUEUED_LOCAL_SIZE_X];
	case WEFT_SR_ARGS: return dp->args;
	default: return 0;
	}
}

static inline void write_lane(uint32_t (*R)[WEFT_MAX_LANES], unsigned d, unsigned bits,
			      unsigned l, uint64_t v)
{
	R[d][l] = (uint32_t)v;
	if (bits == 64)
		R[d + 1][l] = (uint32_t)(v >> 32);
}

static inline uint64_t read_lane(uint32_t (*R)[WEFT_MAX_LANES], unsigned r, unsigned bits,
				 unsigned l)
{
	uint64_t v = R[r][l];

	return bits == 64 ? v | (uint64_t)R[r + 1][l] << 32 : v;
}

/* Truncates @v to @bits and extends it by @kind (to 64 bits). */
static inline uint64_t extend(uint64_t v, unsigned bits, char kind)
{
	uint64_t mask;

	if (bits >= 64)
		return v;
	mask = (1ull << bits) - 1;
	v &= mask;
	if (kind == 's' && (v >> (bits - 1)) & 1)
		v |= ~mask;
	return v;
}

static void exec_cvt(const struct weft_inst *in, uint32_t (*R)[WEFT_MAX_LANES],
		     const uint32_t *M, unsigned NL)
{
	unsigned sb = weft_isa_type_bits(in->t2), db = weft_isa_type_bits(in->t);
	char sk = weft_isa_types[in->t2].kind, dk = weft_isa_types[in->t].kind;

	for (unsigned l = 0; l < NL; l++) {
		uint64_t v;

		if (!M[l])
			continue;
		v = extend(read_lane(R, in->a, sb, l), sb, sk);
		write_lane(R, in->d, db, l, extend(v, db < 32 ? db : 64, dk));
	}
}

static void exec_s2r(struct sg_ctx *c, const struct weft_inst *in,
		     uint32_t (*R)[WEFT_MAX_LANES], const uint32_t *M, unsigned NL)
{
	const struct weft_dispatch_params *dp = c->dp;
	uint64_t v[WEFT_MAX_LANES];
	unsigned sr = in->mod, i;
	uint32_t lin0 = c->sg * dp->simd;

	switch (sr) {
	case WEFT_SR_LANE_ID:
		for (unsigned l = 0; l < NL; l++)
			v[l] = l;
		break;
	case WEFT_SR_LOCAL_LINEAR_ID:
		for (unsigned l = 0; l < NL; l++)
			v[l] = lin0 + l;
		break;
	case WEFT_SR_LOCAL_ID_X ... WEFT_SR_LOCAL_ID_Z:
		if (!c->lid_valid)
			weft_sg_compute_lids(c);
		for (unsigned l = 0; l < NL; l++)
			v[l] = c->lid[sr - WEFT_SR_LOCAL_ID_X][l];
		break;
	case WEFT_SR_GLOBAL_ID_X ... WEFT_SR_GLOBAL_ID_Z: {
		uint64_t base;

		if (!c->lid_valid)
			weft_sg_compute_lids(c);
		i = sr - WEFT_SR_GLOBAL_ID_X;
		base = (uint64_t)c->gid[i] * dp->lsize[i] + dp->goff[i];
		for (unsigned l = 0; l < NL; l++)
			v[l] = base + c->lid[i][l];
		break;
	}
	default: {
		uint64_t u = sreg_uniform(c, sr);

		for (unsigned l = 0; l < NL; l++)
			v[l] = u;
	}
	}
	for (unsigned l = 0; l < NL; l++) {
		R[in->d][l] = (R[in->d][l] & ~M[l]) | ((uint32_t)v[l] & M[l]);
		if (in->t == WEFT_TYPE_U64)
			R[in->d + 1][l] = (R[in->d + 1][l] & ~M[l]) | ((uint32_t)(v[l] >> 32) & M[l]);
	}
}

/*
 * Copies @NL 32-bit lanes between a register row and memory (either may be
 * unaligned) in 32-byte vectors: register rows are read back as whole
 * vectors, and a row written as 16-byte pieces (what memcpy expands to)
 * cannot be forwarded to such a read, which then waits for the stores.
 */
typedef uint32_t lanes8 __attribute__((vector_size(32), aligned(4), may_alias));

static inline void copy_lanes(void *dst, const void *src, unsigned NL)
{
	for (unsigned i = 0; i < NL; i += 8)
		((lanes8 *)dst)[i / 8] = ((const lanes8 *)src)[i / 8];
}

/*
 * A row of a sub-group block or image write: written once and whole, it
 * goes out with streaming (non-temporal) stores when it fills whole 64-byte
 * lines, so the lines are not read into the cache first (a transpose's rows
 * each land on a line no other access touches).  Streaming stores are
 * weakly ordered: fence_streams() orders them before an atomic, a fence
 * instruction and the end of the worker's work-groups, where other threads
 * may look.  The worker's own later loads see them (x86 keeps a core's loads
 * ordered after its stores to the same address).
 */
static inline void store_row(struct weft_worker *w, uint8_t *p, const uint32_t *row, unsigned NL)
{
#ifdef HAVE_STREAMING_STORES
	if (!((uintptr_t)p & 63) && !((NL * 4) & 63)) {
		for (unsigned i = 0; i < NL; i += 4)
			_mm_stream_si128((__m128i *)(p + 4 * i),
					 _mm_loadu_si128((const __m128i *)(row + i)));
		w->streamed = true;
		return;
	}
#else
	(void)w;
#endif
	copy_lanes(p, row, NL);
}

static inline void fence_streams(struct weft_worker *w)
{
#ifdef HAVE_STREAMING_STORES
	if (w->streamed) {
		_mm_sfence();
		w->streamed = false;
	}
#else
	(void)w;
#endif
}

static inline uint64_t load_le(const uint8_t *p, unsigned size)
{
	uint64_t v = 0;

	switch (size) {
	case 1: v = *p; break;
	case 2: { uint16_t x; memcpy(&x, p, 2); v = x; break; }
	case 4: { uint32_t x; memcpy(&x, p, 4); v = x; break; }
	default: memcpy(&v, p, 8); break;
	}
	return v;
}

static inline void store_le(uint8_t *p, unsigned size, uint64_t v)
{
	switch (size) {
	case 1: *p = (uint8_t)v; break;
	case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
	default: memcpy(p, &v, 8); break;
	}
}

/*
 * Per active lane, in lane order.  The page of the previous lane is reused
 * while lanes stay in it (one translation per page per instruction);
 * accesses crossing a page boundary take the byte-exact slow path.
 */
/*
 * The common case: every lane active, lane l at base + l * size, all in one
 * page.  Then the access is one block copy.  Returns false if not applicable.
 */
HOT bool mem_block(struct weft_worker *w, const struct weft_inst *in, bool store,
		   uint32_t (*R)[WEFT_MAX_LANES], const uint32_t *M, unsigned NL, unsigned size,
		   int *ret)
{
	uint64_t base = read_lane(R, in->a, 64, 0) + (uint64_t)(int64_t)(int32_t)in->imm;
	uint32_t ok = ~0u, uni = ~0u;
	struct weft_fault f;
	uint8_t *p;

	for (unsigned l = 0; l < NL; l++) {
		uint64_t a = ((uint64_t)R[in->a][l] | (uint64_t)R[in->a + 1][l] << 32) +
			     (uint64_t)(int64_t)(int32_t)in->imm;

		ok &= M[l] & (a == base + (uint64_t)l * size ? ~0u : 0);
		uni &= M[l] & (a == base ? ~0u : 0);
	}
	if (uni && !store && (base & (WEFT_MMU_PAGE_SIZE - 1)) + size <= WEFT_MMU_PAGE_SIZE) {
		/* A uniform load (an argument, say): one access, broadcast. */
		uint64_t v;

		p = weft_mmu_translate(&w->slot->mmu, base, WEFT_ACC_READ, &f);
		if (!p) {
			set_error(w->job, WEFT_QERR_MMU_FAULT, f.va, &f);
			*ret = -1;
			return true;
		}
		v = extend(load_le(p, size), size < 4 ? size * 8 : 64,
			   weft_isa_types[in->t < WEFT_TYPE_COUNT ? in->t : 0].kind);
		for (unsigned l = 0; l < NL; l++)
			R[in->d][l] = (uint32_t)v;
		if (size == 8)
			for (unsigned l = 0; l < NL; l++)
				R[in->d + 1][l] = (uint32_t)(v >> 32);
		*ret = 0;
		return true;
	}
	if (!ok || (base & (WEFT_MMU_PAGE_SIZE - 1)) + (uint64_t)NL * size > WEFT_MMU_PAGE_SIZE)
		return false;
	p = weft_mmu_translate(&w->slot->mmu, base, store ? WEFT_ACC_WRITE : WEFT_ACC_READ, &f);
	if (!p) {
		set_error(w->job, WEFT_QERR_MMU_FAULT, f.va, &f);
		*ret = -1;
		return true;
	}
	if (size < 4)
		return false;
	*ret = 0;
	if (size == 4) {
		if (store)
			copy_lanes(p, R[in->d], NL);
		else
			copy_lanes(R[in->d], p, NL);
		return true;
	}
	if (size == 8) {
		uint32_t *lo = R[in->d], *hi = R[in->d + 1];

		if (store) {
			for (unsigned l = 0; l < NL; l++) {
				uint64_t v = (uint64_t)lo[l] | (uint64_t)hi[l] << 32;

				memcpy(p + 8 * l, &v, 8);
			}
		} else {
			for (unsigned l = 0; l < NL; l++) {
				uint64_t v;

				memcpy(&v, p + 8 * l, 8);
				lo[l] = (uint32_t)v;
				hi[l] = (uint32_t)(v >> 32);
			}
		}
		return true;
	}
	return false;	/* 8/16-bit: the per-lane path */
}

HOT int exec_mem(struct weft_worker *w, const struct weft_inst *in, bool store,
		    uint32_t (*R)[WEFT_MAX_LANES], const uint32_t *M, unsigned NL)
{
	unsigned bits = weft_isa_type_bits(in->t);
	char kind = in->t < WEFT_TYPE_COUNT ? weft_isa_types[in->t].kind : 'u';
	unsigned size = bits / 8;
	int64_t off = (int32_t)in->imm;
	enum weft_access acc = store ? WEFT_ACC_WRITE : WEFT_ACC_READ;
	uint64_t cur_vpn = UINT64_MAX;
	uint8_t *cur_page = NULL;
	struct weft_fault f;
	int ret;

	if (mem_block(w, in, store, R, M, NL, size, &ret))
		return ret;
	for (unsigned l = 0; l < NL; l++) {
		uint64_t addr, v = 0;
		unsigned po;
		uint8_t *p;

		if (!M[l])
			continue;
		addr = read_lane(R, in->a, 64, l) + (uint64_t)off;
		po = addr & (WEFT_MMU_PAGE_SIZE - 1);
		if (po + size > WEFT_MMU_PAGE_SIZE) {
			if (store) {
				v = read_lane(R, in->d, bits, l);
				if (weft_mmu_write(&w->slot->mmu, addr, &v, size, &f))
					goto fault;
			} else {
				if (weft_mmu_read(&w->slot->mmu, addr, &v, size, WEFT_ACC_READ, &f))
					goto fault;
				write_lane(R, in->d, bits, l, extend(v, bits < 32 ? bits : 64, kind));
			}
			continue;
		}
		if (addr >> WEFT_MMU_PAGE_SHIFT != cur_vpn) {
			p = weft_mmu_translate(&w->slot->mmu, addr, acc, &f);
			if (!p)
				goto fault;
			cur_vpn = addr >> WEFT_MMU_PAGE_SHIFT;
			cur_page = p - po;
		}
		p = cur_page + po;
		if (store) {
			store_le(p, size, read_lane(R, in->d, bits, l));
		} else {
			v = load_le(p, size);
			write_lane(R, in->d, bits, l, extend(v, bits < 32 ? bits : 64, kind));
		}
	}
	return 0;
fault:
	set_error(w->job, WEFT_QERR_MMU_FAULT, f.va, &f);
	return -1;
}

/*
 * Structured control flow: the per-sub-group mask stack.  Each entry is an
 * open if/else or loop; @target is where the sub-group continues when no
 * lane is left active inside it (its else / endif / endloop).
 */
static inline char tkind(unsigned t)
{
	return t < WEFT_TYPE_COUNT ? weft_isa_types[t].kind : 'u';
}

/* Lane l's bit: a shift by the lane number would not vectorize without AVX2. */
static const uint32_t lane_bit[WEFT_MAX_LANES] = {
	1u << 0, 1u << 1, 1u << 2, 1u << 3, 1u << 4, 1u << 5, 1u << 6, 1u << 7,
	1u << 8, 1u << 9, 1u << 10, 1u << 11, 1u << 12, 1u << 13, 1u << 14, 1u << 15,
	1u << 16, 1u << 17, 1u << 18, 1u << 19, 1u << 20, 1u << 21, 1u << 22, 1u << 23,
	1u << 24, 1u << 25, 1u << 26, 1u << 27, 1u << 28, 1u << 29, 1u << 30, 1u << 31,
};

/* The mask of every lane of a sub-group of @simd lanes. */
static inline uint32_t lanes_whole(unsigned simd)
{
	return simd == 32 ? ~0u : (1u << simd) - 1;
}

static inline void set_mask(struct sg_state *s, uint32_t *M, uint32_t mask, unsigned NL)
{
	s->mask = mask;
	for (unsigned l = 0; l < NL; l++)
		M[l] = 0u - ((mask & lane_bit[l]) != 0);
}

static inline uint32_t lanes_true(uint32_t (*R)[WEFT_MAX_LANES], unsigned r, uint32_t mask,
				  unsigned NL)
{
	uint32_t m = 0;

	for (unsigned l = 0; l < NL; l++)
		m |= (uint32_t)(R[r][l] != 0) << l;
	return m & mask;
}

/* Lanes @x leave (break / continue): remove them up to the innermost loop. */
static struct cf_entry *cf_leave(struct sg_state *s, uint32_t x)
{
	for (unsigned i = s->sp; i-- > 0;) {
		struct cf_entry *e = &s->stack[i];

		if (e->kind == CF_LOOP)
			return e;
		e->saved &= ~x;
		e->alt &= ~x;
	}
	return NULL;
}

/* Normalizes a value of type @t (8/16-bit: extended; f16: 16 bits). */
static inline uint64_t norm(uint64_t v, unsigned t)
{
	unsigned bits = weft_isa_type_bits(t);
	char k = tkind(t);

	if (k == 'f')
		return bits == 16 ? v & 0xffff : bits == 32 ? v & 0xffffffff : v;
	return extend(v, bits, k);
}

static inline void write_lane_t(uint32_t (*R)[WEFT_MAX_LANES], unsigned d, unsigned t, unsigned l,
				uint64_t v)
{
	write_lane(R, d, weft_isa_type_bits(t), l, norm(v, t));
}

#define RED_ADD 0
#define RED_MUL 1
#define RED_MIN 2
#define RED_MAX 3
#define RED_AND 4
#define RED_OR  5
#define RED_XOR 6

static uint64_t red_identity(unsigned op, unsigned t)
{
	unsigned bits = weft_isa_type_bits(t);
	char k = tkind(t);

	switch (op) {
	case RED_ADD: case RED_OR: case RED_XOR: return 0;
	case RED_AND: return ~0ull;
	case RED_MUL:
		if (k != 'f')
			return 1;
		return bits == 16 ? 0x3c00 : bits == 32 ? 0x3f800000 : 0x3ff0000000000000ull;
	case RED_MIN:
		if (k == 'f')
			return bits == 16 ? 0x7c00 : bits == 32 ? 0x7f800000 : 0x7ff0000000000000ull;
		return k == 's' ? (bits == 64 ? (uint64_t)INT64_MAX : (1ull << (bits - 1)) - 1) : ~0ull;
	default:
		if (k == 'f')
			return bits == 16 ? 0xfc00 : bits == 32 ? 0xff800000 : 0xfff0000000000000ull;
		return k == 's' ? (uint64_t)(bits == 64 ? INT64_MIN : -(1ll << (bits - 1))) : 0;
	}
}

static uint64_t red_combine(unsigned op, unsigned t, uint64_t x, uint64_t y)
{
	unsigned bits = weft_isa_type_bits(t);
	char k = tkind(t);

	if (k == 'f') {
		if (bits == 16) {
			_Float16 a = weft_f16_from_bits((uint32_t)x), b = weft_f16_from_bits((uint32_t)y), r;

			switch (op) {
			case RED_ADD: r = a + b; break;
			case RED_MUL: r = a * b; break;
			case RED_MIN: r = weft_fmin_f16(a, b); break;
			default: r = weft_fmax_f16(a, b); break;
			}
			return weft_result_f16(r);
		}
		if (bits == 32) {
			float a = weft_f32_from_bits((uint32_t)x), b = weft_f32_from_bits((uint32_t)y), r;

			switch (op) {
			case RED_ADD: r = a + b; break;
			case RED_MUL: r = a * b; break;
			case RED_MIN: r = weft_fmin_f32(a, b); break;
			default: r = weft_fmax_f32(a, b); break;
			}
			return weft_result_f32(r);
		}
		{
			double a = weft_f64_from_bits(x), b = weft_f64_from_bits(y), r;

			switch (op) {
			case RED_ADD: r = a + b; break;
			case RED_MUL: r = a * b; break;
			case RED_MIN: r = weft_fmin_f64(a, b); break;
			default: r = weft_fmax_f64(a, b); break;
			}
			return weft_result_f64(r);
		}
	}
	switch (op) {
	case RED_ADD: return x + y;
	case RED_MUL: return x * y;
	case RED_AND: return x & y;
	case RED_OR: return x | y;
	case RED_XOR: return x ^ y;
	case RED_MIN: return k == 's' ? ((int64_t)x < (int64_t)y ? x : y) : (x < y ? x : y);
	default: return k == 's' ? ((int64_t)x > (int64_t)y ? x : y) : (x > y ? x : y);
	}
}

/* Source lane of each lane for a shuffle or broadcast (wrapping at @NL). */
HOT void shuffle_sources(const struct weft_inst *in, uint32_t (*R)[WEFT_MAX_LANES],
			 unsigned first, uint32_t *src, unsigned NL)
{
	const uint32_t *rb = R[in->b];
	unsigned op = in->op;
	uint32_t b = in->imm;

	if (op == WEFT_OP_BCAST || (in->has_imm && op == WEFT_OP_SHFL_IDX)) {
		b = in->has_imm ? b : rb[first];
		for (unsigned l = 0; l < NL; l++)
			src[l] = b & (NL - 1);
	} else if (in->has_imm && op == WEFT_OP_SHFL_XOR) {
		for (unsigned l = 0; l < NL; l++)
			src[l] = (l ^ b) & (NL - 1);
	} else if (in->has_imm) {
		b = op == WEFT_OP_SHFL_UP ? 0u - b : b;
		for (unsigned l = 0; l < NL; l++)
			src[l] = (l + b) & (NL - 1);
	} else if (op == WEFT_OP_SHFL_XOR) {
		for (unsigned l = 0; l < NL; l++)
			src[l] = (l ^ rb[l]) & (NL - 1);
	} else if (op == WEFT_OP_SHFL_UP) {
		for (unsigned l = 0; l < NL; l++)
			src[l] = (l - rb[l]) & (NL - 1);
	} else if (op == WEFT_OP_SHFL_DOWN) {
		for (unsigned l = 0; l < NL; l++)
			src[l] = (l + rb[l]) & (NL - 1);
	} else {
		for (unsigned l = 0; l < NL; l++)
			src[l] = rb[l] & (NL - 1);
	}
}

/* 32-bit integer add, min and max: reduce (kind 0), inclusive (1), exclusive (2) scan. */
HOT void scan_int32(uint32_t *out, const uint32_t *ra, uint32_t mask, unsigned rop, bool sgn,
		    unsigned kind, unsigned NL)
{
	uint32_t id = rop == RED_ADD ? 0 : rop == RED_MIN ? (sgn ? INT32_MAX : UINT32_MAX) :
		      (sgn ? (uint32_t)INT32_MIN : 0);
	uint32_t v[WEFT_MAX_LANES], acc = id;

	/* Inactive lanes contribute the identity. */
	for (unsigned l = 0; l < NL; l++)
		v[l] = (mask >> l) & 1 ? ra[l] : id;
	for (unsigned l = 0; l < NL; l++) {
		uint32_t x = v[l];

		if (kind == 2)
			out[l] = acc;
		if (rop == RED_ADD)
			acc += x;
		else if (sgn)
			acc = (rop == RED_MIN) == ((int32_t)x < (int32_t)acc) ? x : acc;
		else
			acc = (rop == RED_MIN) == (x < acc) ? x : acc;
		if (kind == 1)
			out[l] = acc;
	}
	if (kind == 0)
		for (unsigned l = 0; l < NL; l++)
			out[l] = acc;
}

HOT void exec_xlane(const struct weft_inst *in, uint32_t (*R)[WEFT_MAX_LANES], const uint32_t *M,
		    uint32_t mask, unsigned NL)
{
	unsigned t = in->t ? in->t : WEFT_TYPE_U32, bits = weft_isa_type_bits(t);
	uint64_t va[WEFT_MAX_LANES], vc[WEFT_MAX_LANES], out[WEFT_MAX_LANES];
	uint32_t idx[WEFT_MAX_LANES];
	unsigned op = in->op, first = mask ? (unsigned)__builtin_ctz(mask) : 0;
	char k = tkind(t);

	/* Fast paths: 32- and 64-bit shuffles and 32-bit integer add, min, max
	 * reductions and scans (what the OpenCL builtins use most). */
	if ((bits == 32 || bits == 64) && op <= WEFT_OP_BCAST && op != WEFT_OP_SHFL_UP2 &&
	    op != WEFT_OP_SHFL_DOWN2) {
		unsigned rows = bits / 32;
		uint32_t o32[2][WEFT_MAX_LANES];

		shuffle_sources(in, R, first, idx, NL);
		for (unsigned r = 0; r < rows; r++)
			for (unsigned l = 0; l < NL; l++)
				o32[r][l] = R[in->a + r][idx[l]];
		for (unsigned r = 0; r < rows; r++)
			for (unsigned l = 0; l < NL; l++)
				R[in->d + r][l] = (R[in->d + r][l] & ~M[l]) | (o32[r][l] & M[l]);
		return;
	}
	if (bits == 32 && k != 'f' && op >= 0x0d0 && op < 0x0e8 && ((op - 0x0d0) & 7) <= RED_MAX &&
	    ((op - 0x0d0) & 7) != RED_MUL) {
		uint32_t o32[WEFT_MAX_LANES], *rd = R[in->d];

		scan_int32(o32, R[in->a], mask, (op - 0x0d0) & 7, k == 's', (op - 0x0d0) >> 3, NL);
		for (unsigned l = 0; l < NL; l++)
			rd[l] = (rd[l] & ~M[l]) | (o32[l] & M[l]);
		return;
	}
	for (unsigned l = 0; l < NL; l++)
		va[l] = norm(read_lane(R, in->a, bits, l), t);
	switch (op) {
	case WEFT_OP_SHFL_IDX: case WEFT_OP_SHFL_XOR: case WEFT_OP_SHFL_UP: case WEFT_OP_SHFL_DOWN:
	case WEFT_OP_BCAST:
		shuffle_sources(in, R, first, idx, NL);
		for (unsigned l = 0; l < NL; l++)
			out[l] = va[idx[l]];
		break;
	case WEFT_OP_SHFL_UP2: case WEFT_OP_SHFL_DOWN2:
		for (unsigned l = 0; l < NL; l++)
			vc[l] = norm(read_lane(R, in->c, bits, l), t);
		for (unsigned l = 0; l < NL; l++) {
			int64_t j = op == WEFT_OP_SHFL_UP2 ? (int64_t)l - R[in->b][l] :
				    (int64_t)l + R[in->b][l];

			if (j >= 0 && j < (int64_t)NL)
				out[l] = va[j];
			else if (op == WEFT_OP_SHFL_UP2 && j + (int64_t)NL >= 0)
				out[l] = vc[j + NL];
			else if (op == WEFT_OP_SHFL_DOWN2 && j - (int64_t)NL < (int64_t)NL)
				out[l] = vc[j - NL];
			else
				out[l] = 0;
		}
		break;
	case WEFT_OP_VOTE_ANY: case WEFT_OP_VOTE_ALL: case WEFT_OP_BALLOT: {
		uint32_t m = 0;

		for (unsigned l = 0; l < NL; l++)
			m |= (uint32_t)(va[l] != 0) << l;
		m &= mask;
		for (unsigned l = 0; l < NL; l++)
			out[l] = op == WEFT_OP_BALLOT ? m : op == WEFT_OP_VOTE_ANY ? (m ? 0xffffffffu : 0) :
				 (m == mask ? 0xffffffffu : 0);
		t = WEFT_TYPE_U32;
		bits = 32;
		break;
	}
	case WEFT_OP_VOTE_EQ: {
		bool eq = true;

		for (unsigned l = 0; l < NL; l++)
			if ((mask >> l) & 1)
				eq &= va[l] == va[first];
		for (unsigned l = 0; l < NL; l++)
			out[l] = eq ? 0xffffffffu : 0;
		t = WEFT_TYPE_U32;
		bits = 32;
		break;
	}
	default: {
		/* red / iscan / escan: 0x0d0 + k, 0x0d8 + k, 0x0e0 + k. */
		unsigned rop = (op - 0x0d0) & 7, kind = (op - 0x0d0) >> 3;
		uint64_t acc = red_identity(rop, t);
		bool any = false;

		for (unsigned l = 0; l < NL; l++) {
			if (!((mask >> l) & 1))
				continue;
			if (kind == 2)
				out[l] = acc;
			acc = any ? red_combine(rop, t, acc, va[l]) : va[l];
			any = true;
			if (kind == 1)
				out[l] = acc;
		}
		if (kind == 0)
			for (unsigned l = 0; l < NL; l++)
				out[l] = acc;
	}
	}
	for (unsigned l = 0; l < NL; l++)
		if ((mask >> l) & 1)
			write_lane_t(R, in->d, t, l, out[l]);
}

/* Global memory access of @n bytes (any alignment, may cross pages). */
static inline int gmem(struct weft_worker *w, uint64_t va, void *buf, unsigned n, bool store)
{
	struct weft_fault f;
	uint8_t *p;

	if ((va & (WEFT_MMU_PAGE_SIZE - 1)) + n <= WEFT_MMU_PAGE_SIZE) {
		p = weft_mmu_translate(&w->slot->mmu, va, store ? WEFT_ACC_WRITE : WEFT_ACC_READ, &f);
		if (!p)
			goto fault;
		if (store)
			memcpy(p, buf, n);
		else
			memcpy(buf, p, n);
		return 0;
	}
	if (store ? weft_mmu_write(&w->slot->mmu, va, buf, n, &f) :
		    weft_mmu_read(&w->slot->mmu, va, buf, n, WEFT_ACC_READ, &f))
		goto fault;
	return 0;
fault:
	set_error(w->job, WEFT_QERR_MMU_FAULT, f.va, &f);
	return -1;
}

static inline unsigned elem_regs(unsigned bits)
{
	return bits == 64 ? 2 : 1;
}

/*
 * Loads and stores of the ldx / stx classes: SLM, scratch, vectors, sub-group
 * blocks and image blocks.
 */
HOT int exec_ldst(struct weft_worker *w, struct sg_state *s, const struct weft_inst *in,
		     bool store, uint32_t (*R)[WEFT_MAX_LANES], unsigned NL, uint64_t pc)
{
	const struct weft_op_info *oi = &weft_isa_ops[in->op];
	unsigned t = in->t, bits = weft_isa_type_bits(t), size = bits / 8, vec = oi->vec;
	char kind = tkind(t);
	unsigned er = elem_regs(bits);
	uint32_t mask = s->mask;
	unsigned first;

	if (!mask)	/* only a malformed program gets here with no lane active */
		return 0;
	first = __builtin_ctz(mask);
	int64_t off = (int32_t)in->imm;
	uint8_t tmp[8 * 32 * 8];
	unsigned op = in->op;

	switch (op) {
	case WEFT_OP_LD_LOCAL: case WEFT_OP_ST_LOCAL: case WEFT_OP_LD_LOCAL_V2:
	case WEFT_OP_LD_LOCAL_V4: case WEFT_OP_ST_LOCAL_V2: case WEFT_OP_ST_LOCAL_V4:
	case WEFT_OP_LD_SCRATCH: case WEFT_OP_ST_SCRATCH: case WEFT_OP_LD_SCRATCH_V4:
	case WEFT_OP_ST_SCRATCH_V4: {
		bool local = !(op == WEFT_OP_LD_SCRATCH || op == WEFT_OP_ST_SCRATCH ||
			       op == WEFT_OP_LD_SCRATCH_V4 || op == WEFT_OP_ST_SCRATCH_V4);
		uint64_t limit = local ? w->job->dp->slm : w->job->dp->scratch;
		uint64_t n = (uint64_t)size * vec;

		for (unsigned l = 0; l < NL; l++) {
			uint32_t a;
			uint8_t *p;

			if (!((mask >> l) & 1))
				continue;
			a = R[in->a][l] + (uint32_t)off;
			if ((uint64_t)a + n > limit) {
				set_error(w->job, WEFT_QERR_BAD_ACCESS, pc, NULL);
				return -1;
			}
			/* Scratch: lane l of the sub-group in slot k owns bytes
			 * [(k * 32 + l) * limit, + limit) of the worker's private store
			 * (allocated: limit > 0 here). */
			p = local ? w->slm + a :
			    w->scratch + ((uint64_t)s->slot * WEFT_MAX_LANES + l) * limit + a;
			for (unsigned j = 0; j < vec; j++) {
				if (store)
					store_le(p + j * size, size, read_lane(R, in->d + j * er, bits, l));
				else
					write_lane(R, in->d + j * er, bits, l,
						   extend(load_le(p + j * size, size), bits < 32 ? bits : 64, kind));
			}
		}
		return 0;
	}
	case WEFT_OP_LD_GLOBAL_V2: case WEFT_OP_LD_GLOBAL_V4:
	case WEFT_OP_ST_GLOBAL_V2: case WEFT_OP_ST_GLOBAL_V4:
		for (unsigned l = 0; l < NL; l++) {
			uint64_t a;

			if (!((mask >> l) & 1))
				continue;
			a = read_lane(R, in->a, 64, l) + (uint64_t)off;
			if (store)
				for (unsigned j = 0; j < vec; j++)
					store_le(tmp + j * size, size, read_lane(R, in->d + j * er, bits, l));
			if (gmem(w, a, tmp, size * vec, store))
				return -1;
			if (!store)
				for (unsigned j = 0; j < vec; j++)
					write_lane(R, in->d + j * er, bits, l, load_le(tmp + j * size, size));
		}
		return 0;
	case WEFT_OP_LD_BLOCK ... WEFT_OP_ST_BLOCK8: {
		uint64_t base = read_lane(R, in->a, 64, first) + (uint64_t)off;
		bool full = mask == (NL == 32 ? ~0u : (1u << NL) - 1);
		enum weft_access acc = store ? WEFT_ACC_WRITE : WEFT_ACC_READ;
		uint8_t *block = NULL;	/* the whole block, when it is in one page */
		struct weft_fault f;

		if (full && (base & (WEFT_MMU_PAGE_SIZE - 1)) + (uint64_t)vec * NL * size <=
			    WEFT_MMU_PAGE_SIZE) {
			block = weft_mmu_translate(&w->slot->mmu, base, acc, &f);
			if (!block) {
				set_error(w->job, WEFT_QERR_MMU_FAULT, f.va, &f);
				return -1;
			}
		}
		for (unsigned i = 0; i < vec; i++) {
			uint64_t row = base + (uint64_t)i * NL * size;
			uint32_t *lo = R[in->d + i * er], *hi = R[(in->d + i * er + 1) & (NUM_ROWS - 1)];

			if (full && (row & (WEFT_MMU_PAGE_SIZE - 1)) + NL * size <= WEFT_MMU_PAGE_SIZE) {
				/* The whole row in one page: straight between page and registers. */
				uint8_t *p = block ? block + (size_t)i * NL * size :
					     weft_mmu_translate(&w->slot->mmu, row, acc, &f);

				if (!p) {
					set_error(w->job, WEFT_QERR_MMU_FAULT, f.va, &f);
					return -1;
				}
				switch (size) {
				case 4:
					if (store)
						store_row(w, p, lo, NL);
					else
						copy_lanes(lo, p, NL);
					break;
				case 2: {
					uint16_t h[WEFT_MAX_LANES];

					if (store) {
						for (unsigned l = 0; l < NL; l++)
							h[l] = (uint16_t)lo[l];
						memcpy(p, h, NL * 2);
					} else {
						memcpy(h, p, NL * 2);
						for (unsigned l = 0; l < NL; l++)
							lo[l] = h[l];
					}
					break;
				}
				case 1:
					if (store)
						for (unsigned l = 0; l < NL; l++)
							p[l] = (uint8_t)lo[l];
					else
						for (unsigned l = 0; l < NL; l++)
							lo[l] = p[l];
					break;
				default:
					for (unsigned l = 0; l < NL; l++) {
						uint64_t v;

						if (store) {
							v = (uint64_t)lo[l] | (uint64_t)hi[l] << 32;
							memcpy(p + 8 * l, &v, 8);
						} else {
							memcpy(&v, p + 8 * l, 8);
							lo[l] = (uint32_t)v;
							hi[l] = (uint32_t)(v >> 32);
						}
					}
				}
				continue;
			}
			if (full) {
				if (store)
					for (unsigned l = 0; l < NL; l++)
						store_le(tmp + l * size, size, read_lane(R, in->d + i * er, bits, l));
				if (gmem(w, row, tmp, NL * size, store))
					return -1;
				if (!store)
					for (unsigned l = 0; l < NL; l++)
						write_lane(R, in->d + i * er, bits, l, load_le(tmp + l * size, size));
				continue;
			}
			for (unsigned l = 0; l < NL; l++) {
				if (!((mask >> l) & 1))
					continue;
				if (store)
					store_le(tmp, size, read_lane(R, in->d + i * er, bits, l));
				if (gmem(w, row + (uint64_t)l * size, tmp, size, store))
					return -1;
				if (!store)
					write_lane(R, in->d + i * er, bits, l, load_le(tmp, size));
			}
		}
		return 0;
	}
	case WEFT_OP_LD_IMG ... WEFT_OP_ST_IMG8: {
		/* Descriptor: u64 base VA, u32 width in bytes, u32 height, u32 pitch, u32 0. */
		uint32_t desc[6];
		uint64_t ibase;
		int64_t x = (int32_t)R[in->b][first], y = (int32_t)R[in->b + 1][first];

		if (gmem(w, read_lane(R, in->a, 64, first), desc, sizeof(desc), false))
			return -1;
		ibase = desc[0] | (uint64_t)desc[1] << 32;
#define WHOLE_ROW(yy, row) \
	(size == 4 && mask == (NL == 32 ? ~0u : (1u << NL) - 1) && (yy) >= 0 && \
	 (yy) < desc[3] && x >= 0 && x + (int64_t)NL * 4 <= desc[2] && \
	 ((row) & (WEFT_MMU_PAGE_SIZE - 1)) + NL * 4 <= WEFT_MMU_PAGE_SIZE)
		/* A read: every row's lines are on their way before the first is copied. */
		for (unsigned i = 0; !store && i < vec; i++) {
			int64_t yy = y + i;
			uint64_t row = ibase + (uint64_t)yy * desc[4] + (uint64_t)x;
			struct weft_fault f;
			uint8_t *p;

			if (!WHOLE_ROW(yy, row))
				continue;
			p = weft_mmu_translate(&w->slot->mmu, row, WEFT_ACC_READ, &f);
			if (!p)
				break;	/* the copy below reports it, in row order */
			for (unsigned o = 0; o < NL * 4; o += 64)
				__builtin_prefetch(p + o);
		}
		for (unsigned i = 0; i < vec; i++) {
			int64_t yy = y + i;
			uint64_t row = ibase + (uint64_t)yy * desc[4] + (uint64_t)x;

			if (WHOLE_ROW(yy, row)) {
				/* A whole 32-bit row inside the image and one page. */
				struct weft_fault f;
				uint8_t *p = weft_mmu_translate(&w->slot->mmu, row, store ?
								WEFT_ACC_WRITE : WEFT_ACC_READ, &f);

				if (!p) {
					set_error(w->job, WEFT_QERR_MMU_FAULT, f.va, &f);
					return -1;
				}
				if (store)
					store_row(w, p, R[in->d + i], NL);
				else
					copy_lanes(R[in->d + i], p, NL);
				continue;
			}
			for (unsigned l = 0; l < NL; l++) {
				int64_t xx = x + (int64_t)l * size, ry = yy;
				bool in_img = yy >= 0 && yy < desc[3] && xx >= 0 && xx + size <= desc[2];

				if (!((mask >> l) & 1))
					continue;
				if (store) {
					if (!in_img)
						continue;
					store_le(tmp, size, read_lane(R, in->d + i * er, bits, l));
				}
				if (!in_img) {
					/* Outside: the edge element, clamped in units of T. */
					if (desc[2] < size || !desc[3]) {
						write_lane(R, in->d + i * er, bits, l, 0);
						continue;
					}
					xx = xx < 0 ? 0 : xx > desc[2] - size ? desc[2] - size : xx;
					ry = ry < 0 ? 0 : ry >= desc[3] ? desc[3] - 1 : ry;
				}
				if (gmem(w, ibase + (uint64_t)ry * desc[4] + xx, tmp, size, store))
					return -1;
				if (!store)
					write_lane(R, in->d + i * er, bits, l, load_le(tmp, size));
			}
		}
#undef WHOLE_ROW
		return 0;
	}
	default:
		set_error(w->job, WEFT_QERR_BAD_INSTRUCTION, pc, NULL);
		return -1;
	}
}

/* One atomic read-modify-write on host memory; returns the old value. */
static uint64_t atomic_rmw(unsigned k, unsigned bits, bool sgn, void *p, uint64_t b, uint64_t c)
{
#define RMW(T) do { \
		T *q = p, bb = (T)b, cc = (T)c, old, nv; \
		switch (k) { \
		case 0: return (uint64_t)__atomic_fetch_add(q, bb, __ATOMIC_SEQ_CST); \
		case 1: return (uint64_t)__atomic_fetch_sub(q, bb, __ATOMIC_SEQ_CST); \
		case 4: return (uint64_t)__atomic_fetch_and(q, bb, __ATOMIC_SEQ_CST); \
		case 5: return (uint64_t)__atomic_fetch_or(q, bb, __ATOMIC_SEQ_CST); \
		case 6: return (uint64_t)__atomic_fetch_xor(q, bb, __ATOMIC_SEQ_CST); \
		case 7: return (uint64_t)__atomic_exchange_n(q, bb, __ATOMIC_SEQ_CST); \
		case 8: \
			old = bb; \
			__atomic_compare_exchange_n(q, &old, cc, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
			return (uint64_t)old; \
		case 9: return (uint64_t)__atomic_fetch_add(q, (T)1, __ATOMIC_SEQ_CST); \
		case 10: return (uint64_t)__atomic_fetch_sub(q, (T)1, __ATOMIC_SEQ_CST); \
		default: \
			old = __atomic_load_n(q, __ATOMIC_SEQ_CST); \
			do { \
				bool lt = sgn ? (bits == 64 ? (int64_t)old < (int64_t)bb : \
						 (int32_t)old < (int32_t)bb) : old < bb; \
				nv = (k == 2) == lt ? old : bb; \
			} while (!__atomic_compare_exchange_n(q, &old, nv, true, __ATOMIC_SEQ_CST, \
							      __ATOMIC_SEQ_CST)); \
			return (uint64_t)old; \
		} \
	} while (0)
	if (bits == 64)
		RMW(uint64_t);
	RMW(uint32_t);
#undef RMW
}

/* Float atomics by compare-and-swap: 0 add, 1 min, 2 max. */
static uint64_t atomic_frmw(unsigned k, unsigned bits, void *p, uint64_t b)
{
	if (bits == 64) {
		uint64_t *q = p, old = __atomic_load_n(q, __ATOMIC_SEQ_CST), nv;
		double y = weft_f64_from_bits(b);

		do {
			double x = weft_f64_from_bits(old);

			nv = weft_result_f64(k == 0 ? x + y : k == 1 ? weft_fmin_f64(x, y) : weft_fmax_f64(x, y));
		} while (!__atomic_compare_exchange_n(q, &old, nv, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
		return old;
	} else {
		uint32_t *q = p, old = __atomic_load_n(q, __ATOMIC_SEQ_CST), nv;
		float y = weft_f32_from_bits((uint32_t)b);

		do {
			float x = weft_f32_from_bits(old);

			nv = weft_result_f32(k == 0 ? x + y : k == 1 ? weft_fmin_f32(x, y) : weft_fmax_f32(x, y));
		} while (!__atomic_compare_exchange_n(q, &old, nv, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
		return old;
	}
}

static int exec_atom(struct weft_worker *w, const struct weft_inst *in,
		     uint32_t (*R)[WEFT_MAX_LANES], uint32_t mask, unsigned NL, uint64_t pc)
{
	bool global = in->op < 0x160;
	unsigned k = in->op - (global ? 0x140 : 0x160);
	unsigned bits = weft_isa_type_bits(in->t), size = bits / 8;
	bool sgn = tkind(in->t) == 's';
	uint64_t old[WEFT_MAX_LANES];
	struct weft_fault f;

	fence_streams(w);
	for (unsigned l = 0; l < NL; l++) {
		uint64_t a, b = 0, c = 0;
		uint8_t *p;

		if (!((mask >> l) & 1))
			continue;
		a = global ? read_lane(R, in->a, 64, l) : R[in->a][l];
		if (k < 9 || k >= 11)
			b = read_lane(R, in->b, bits, l);
		if (k == 8)
			c = read_lane(R, in->c, bits, l);
		if (a & (size - 1))
			goto bad;
		if (global) {
			p = weft_mmu_translate(&w->slot->mmu, a, WEFT_ACC_WRITE, &f);
			if (!p) {
				set_error(w->job, WEFT_QERR_MMU_FAULT, f.va, &f);
				return -1;
			}
		} else {
			if (a + size > w->job->dp->slm)
				goto bad;
			p = w->slm + a;
		}
		old[l] = k >= 11 ? atomic_frmw(k - 11, bits, p, b) : atomic_rmw(k, bits, sgn, p, b, c);
	}
	for (unsigned l = 0; l < NL; l++)
		if ((mask >> l) & 1)
			write_lane(R, in->d, bits, l, old[l]);
	return 0;
bad:
	set_error(w->job, WEFT_QERR_BAD_ACCESS, pc, NULL);
	return -1;
}

/* Steps a float bit pattern by one ulp, toward +inf (@up) or -inf. */
static uint64_t fstep(uint64_t u, unsigned bits, int up)
{
	uint64_t sign = 1ull << (bits - 1);

	if (!(u & ~sign))
		return up ? 1 : sign | 1;
	if (!(u & sign) == !!up)
		return u + 1;
	return u - 1;
}

/* Rounds @x to a float of @bits by rounding mode @rm (0 rte, 1 rtz, 2 rtp, 3 rtn). */
static uint64_t ld_to_float(long double x, unsigned bits, unsigned rm)
{
	uint64_t u;
	long double back;

	if (isnan(x))
		return bits == 16 ? WEFT_NAN_F16 : bits == 32 ? WEFT_NAN_F32 : WEFT_NAN_F64;
	if (bits == 16) {
		_Float16 r = (_Float16)x;

		u = weft_bits_f16(r);
		back = r;
	} else if (bits == 32) {
		float r = (float)x;

		u = weft_bits_f32(r);
		back = r;
	} else {
		double r = (double)x;

		u = weft_bits_f64(r);
		back = r;
	}
	if (back == x || rm == 0)
		return u;
	if (rm == 1) {
		if (fabsl(back) > fabsl(x))
			u = fstep(u, bits, x < 0);
	} else if (rm == 2) {
		if (back < x)
			u = fstep(u, bits, 1);
	} else if (back > x) {
		u = fstep(u, bits, 0);
	}
	return u;
}

static long double float_value(uint64_t v, unsigned bits)
{
	return bits == 16 ? (long double)weft_f16_from_bits((uint32_t)v) :
	       bits == 32 ? (long double)weft_f32_from_bits((uint32_t)v) :
			    (long double)weft_f64_from_bits(v);
}

uint64_t weft_model_cvt(uint64_t v, unsigned dt, unsigned st, unsigned rm, bool sat);
uint64_t weft_model_cvt(uint64_t v, unsigned dt, unsigned st, unsigned rm, bool sat)
{
	unsigned sb = weft_isa_type_bits(st), db = weft_isa_type_bits(dt);
	char sk = tkind(st), dk = tkind(dt);
	long double x;

	if (sk != 'f')
		v = extend(v, sb, sk);
	if (sk != 'f' && dk != 'f') {
		__int128 val = sk == 's' ? (__int128)(int64_t)v : (__int128)v, lo, hi;

		if (!sat)
			return norm(v, dt);
		lo = dk == 's' ? -((__int128)1 << (db - 1)) : 0;
		hi = dk == 's' ? ((__int128)1 << (db - 1)) - 1 : ((__int128)1 << db) - 1;
		val = val < lo ? lo : val > hi ? hi : val;
		return norm((uint64_t)val, dt);
	}
	x = sk == 'f' ? float_value(v, sb) : sk == 's' ? (long double)(int64_t)v : (long double)v;
	if (dk == 'f')
		return ld_to_float(x, db, rm);
	{
		long double lo = dk == 's' ? -ldexpl(1, db - 1) : 0;
		long double hi = dk == 's' ? ldexpl(1, db - 1) - 1 : ldexpl(1, db) - 1;

		if (isnan(x))
			return 0;
		x = rm == 0 ? nearbyintl(x) : rm == 1 ? truncl(x) : rm == 2 ? ceill(x) : floorl(x);
		if (x < lo)
			x = lo;
		if (x > hi)
			x = hi;
		return norm(dk == 's' ? (uint64_t)(int64_t)x : (uint64_t)x, dt);
	}
}

static void exec_cvtf(const struct weft_inst *in, uint32_t (*R)[WEFT_MAX_LANES], uint32_t mask,
		      unsigned NL)
{
	unsigned k = in->op - WEFT_OP_CVT_RTE, sb = weft_isa_type_bits(in->t2);

	for (unsigned l = 0; l < NL; l++)
		if ((mask >> l) & 1)
			write_lane_t(R, in->d, in->t, l,
				     weft_model_cvt(read_lane(R, in->a, sb, l), in->t, in->t2, k & 3, k >= 4));
}

/*
 * The handlers of the lane-parallel classes, one per SIMD width (constant
 * trip counts), each built for baseline x86-64 and for x86-64-v3 (AVX2:
 * per-lane variable shifts, 64-bit compares and min/max vectorize), picked at
 * load time.  They stay out of line so that the dispatch loop keeps its state
 * in registers.
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(WEFT_NO_CLONES)
#define EXEC_CLONES __attribute__((target_clones("default", "arch=x86-64-v3"), noinline))
#else
#define EXEC_CLONES __attribute__((noinline))
#endif

/*
 * An ALU instruction computes every lane into result rows, which then go to
 * the destination: whole when every lane is active (so the instruction does
 * not wait for the destination's old value), else under the lane mask.
 */
HOT void exec_alu(const struct weft_inst *in, uint32_t (*R)[WEFT_MAX_LANES], const uint32_t *M,
		  uint32_t mask, unsigned NL)
{
	uint32_t res[2][WEFT_MAX_LANES] __attribute__((aligned(32)));
	int rows = weft_isa_exec_alu(in, (const uint32_t (*)[WEFT_MAX_LANES])R, res, NL);
	bool full = mask == (NL == 32 ? ~0u : (1u << NL) - 1);

	for (int r = 0; r < rows; r++) {
		uint32_t *rd = R[in->d + r];

		if (full) {
			copy_lanes(rd, res[r], NL);
			continue;
		}
		for (unsigned l = 0; l < NL; l++)
			rd[l] = (rd[l] & ~M[l]) | (res[r][l] & M[l]);
	}
}

#define LANE_HANDLERS(NL)								\
EXEC_CLONES static void alu##NL(const struct weft_inst *in, uint32_t (*R)[WEFT_MAX_LANES],	\
				const uint32_t *M, uint32_t mask)			\
{											\
	exec_alu(in, R, M, mask, NL);							\
}											\
EXEC_CLONES static void xlane##NL(const struct weft_inst *in, uint32_t (*R)[WEFT_MAX_LANES],	\
				  const uint32_t *M, uint32_t mask)			\
{											\
	exec_xlane(in, R, M, mask, NL);							\
}											\
EXEC_CLONES static int mem##NL(struct weft_worker *w, const struct weft_inst *in, bool store,	\
			       uint32_t (*R)[WEFT_MAX_LANES], const uint32_t *M)		\
{											\
	return exec_mem(w, in, store, R, M, NL);					\
}											\
EXEC_CLONES static int ldst##NL(struct weft_worker *w, struct sg_state *s,			\
				const struct weft_inst *in, bool store,			\
				uint32_t (*R)[WEFT_MAX_LANES], uint64_t pc)		\
{											\
	return exec_ldst(w, s, in, store, R, NL, pc);					\
}

LANE_HANDLERS(8)
LANE_HANDLERS(16)
LANE_HANDLERS(32)

#define BY_WIDTH(NL, fn, ...) \
	((NL) == 8 ? fn##8(__VA_ARGS__) : (NL) == 16 ? fn##16(__VA_ARGS__) : fn##32(__VA_ARGS__))

/*
 * Ends a turn at end or bar.  Sub-groups are short: their instructions are
 * accounted in batches, not per turn; a loop around a barrier still meets the
 * watchdog.
 */
static int end_turn(struct weft_worker *w, uint64_t count, int why)
{
	w->pending += count;
	if (w->pending >= ACCOUNT_EVERY) {
		count = w->pending;
		w->pending = 0;
		if (account(w->job, count))
			return SG_ERROR;
	}
	return why;
}

/* What exec_cf() asks for. */
#define CF_BAD		-1	/* malformed: WEFT_QERR_BAD_INSTRUCTION */
#define CF_NEXT		0	/* the next instruction */
#define CF_JUMP		1	/* the target it returned */

/* A control-flow instruction on the sub-group's mask stack. */
HOT int exec_cf(struct sg_state *s, uint32_t *M, const struct weft_inst *in,
		uint32_t (*R)[WEFT_MAX_LANES], uint64_t pc, uint64_t *target, const unsigned NL)
{
	uint64_t tgt = pc + (uint64_t)(int64_t)(int32_t)in->imm;
	struct cf_entry *top = s->sp ? &s->stack[s->sp - 1] : NULL;
	uint32_t x;

	switch (in->op) {
	case WEFT_OP_BRA:
		*target = tgt;
		return CF_JUMP;
	case WEFT_OP_BRA_ANY:
	case WEFT_OP_BRA_ALL:
	case WEFT_OP_BRA_NONE:
		x = lanes_true(R, in->a, s->mask, NL);
		if (in->op == WEFT_OP_BRA_ANY ? x != 0 :
		    in->op == WEFT_OP_BRA_ALL ? x == s->mask : x == 0) {
			*target = tgt;
			return CF_JUMP;
		}
		return CF_NEXT;
	case WEFT_OP_IF:
		if (s->sp == CF_DEPTH)
			return CF_BAD;
		x = lanes_true(R, in->a, s->mask, NL);
		s->stack[s->sp++] = (struct cf_entry){ CF_IF, s->mask, s->mask & ~x, tgt, 0 };
		set_mask(s, M, x, NL);
		break;
	case WEFT_OP_ELSE:
		if (!top || top->kind != CF_IF)
			return CF_BAD;
		top->kind = CF_ELSE;
		top->target = tgt;
		set_mask(s, M, top->alt, NL);
		break;
	case WEFT_OP_ENDIF:
		if (!top || (top->kind != CF_IF && top->kind != CF_ELSE))
			return CF_BAD;
		set_mask(s, M, top->saved, NL);
		s->sp--;
		break;
	case WEFT_OP_LOOP:
		if (s->sp == CF_DEPTH)
			return CF_BAD;
		s->stack[s->sp++] = (struct cf_entry){ CF_LOOP, s->mask, 0, tgt, pc + 8 };
		break;
	case WEFT_OP_BREAK:
	case WEFT_OP_CONT: {
		struct cf_entry *lp;

		x = lanes_true(R, in->a, s->mask, NL);
		lp = cf_leave(s, x);
		if (!lp)
			return CF_BAD;
		if (in->op == WEFT_OP_CONT)
			lp->alt |= x;
		set_mask(s, M, s->mask & ~x, NL);
		break;
	}
	case WEFT_OP_ENDLOOP:
		if (!top || top->kind != CF_LOOP)
			return CF_BAD;
		x = s->mask | top->alt;
		top->alt = 0;
		if (x) {
			set_mask(s, M, x, NL);
			*target = top->start;
			return CF_JUMP;
		}
		set_mask(s, M, top->saved, NL);
		s->sp--;
		break;
	default:
		return CF_BAD;
	}
	/* No lane left active: continue where the innermost construct resumes
	 * (backward only in a malformed program, which must still meet the
	 * watchdog: the caller treats it as any other jump). */
	if (!s->mask) {
		if (!s->sp)
			return CF_BAD;
		*target = s->stack[s->sp - 1].target;
		return CF_JUMP;
	}
	return CF_NEXT;
}

/*
 * One instruction of a class that neither ends the turn nor jumps.  Returns
 * 0, or -1 with the dispatch's error set.
 */
HOT int exec_one(struct weft_worker *w, struct sg_ctx *c, struct sg_state *s,
		 const struct weft_inst *in, unsigned cls, uint32_t (*R)[WEFT_MAX_LANES],
		 const uint32_t *M, uint64_t pc, const unsigned NL)
{
	switch (cls) {
	case WEFT_CLASS_NOP:
		return 0;
	case WEFT_CLASS_ALU:
		BY_WIDTH(NL, alu, in, R, M, s->mask);
		return 0;
	case WEFT_CLASS_CVT:
		exec_cvt(in, R, M, NL);
		return 0;
	case WEFT_CLASS_S2R:
		exec_s2r(c, in, R, M, NL);
		return 0;
	case WEFT_CLASS_LD:
	case WEFT_CLASS_ST:
		return BY_WIDTH(NL, mem, w, in, cls == WEFT_CLASS_ST, R, M);
	case WEFT_CLASS_LDX:
	case WEFT_CLASS_STX:
		return BY_WIDTH(NL, ldst, w, s, in, cls == WEFT_CLASS_STX, R, pc);
	case WEFT_CLASS_XLANE:
		BY_WIDTH(NL, xlane, in, R, M, s->mask);
		return 0;
	case WEFT_CLASS_ATOM:
		return exec_atom(w, in, R, s->mask, NL, pc);
	case WEFT_CLASS_CVTF:
		exec_cvtf(in, R, s->mask, NL);
		return 0;
	case WEFT_CLASS_FENCE:
		fence_streams(w);
		if (in->op == WEFT_OP_FENCE_DEV)
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
		return 0;
	default:
		set_error(w->job, WEFT_QERR_BAD_INSTRUCTION, pc, NULL);
		return -1;
	}
}

/*
 * The sub-group's turn ends here at the backward jump to @tgt: it has used
 * its quantum.  Accounts its instructions (watchdog, abort).
 */
static int yield_at(struct weft_worker *w, struct sg_state *s, uint64_t tgt, uint64_t count)
{
	s->pc = tgt;
	return account(w->job, count) ? SG_ERROR : SG_YIELDED;
}

/* Runs the sub-group's turn: returns SG_ENDED, SG_AT_BARRIER, SG_YIELDED or SG_ERROR. */
HOT int exec_sg(struct weft_worker *w, struct sg_ctx *c, struct sg_state *s, const unsigned NL)
{
	uint32_t (*R)[WEFT_MAX_LANES] = w->R;
	uint32_t *M = w->M;
	const struct dc_entry *dc = w->slot->dc;
	const uint64_t gen = w->slot->dc_gen;
	uint64_t pc = s->pc;
	uint64_t count = 0;

	set_mask(s, M, s->mask, NL);
	for (;;) {
		const struct dc_entry *e = fetch(w, dc, gen, pc);
		const struct weft_inst *in;
		uint64_t tgt;

		if (!e)
			return SG_ERROR;
		in = &e->in;
		count++;
		switch (e->cls) {
		case WEFT_CLASS_END:
			return end_turn(w, count, SG_ENDED);
		case WEFT_CLASS_BAR:
			s->pc = pc + 8;
			return end_turn(w, count, SG_AT_BARRIER);
		case WEFT_CLASS_CF:
			switch (exec_cf(s, M, in, R, pc, &tgt, NL)) {
			case CF_JUMP:
				/*
				 * Every loop, well-formed or not, jumps backward
				 * somewhere: that is where a sub-group that has used
				 * its quantum yields, so the hot path pays one compare
				 * per taken jump and none per instruction.
				 */
				if (__builtin_expect(tgt <= pc && count >= SG_QUANTUM, 0))
					return yield_at(w, s, tgt, count);
				pc = tgt;
				continue;
			case CF_BAD:
				set_error(w->job, WEFT_QERR_BAD_INSTRUCTION, pc, NULL);
				return SG_ERROR;
			}
			break;
		default:
			if (exec_one(w, c, s, in, e->cls, R, M, pc, NL))
				return SG_ERROR;
		}
		/* A branch, not an add of the loaded length: the next fetch's
		 * address must not wait for this entry to load. */
		pc += 8;
		if (__builtin_expect(in->nwords != 1, 0))
			pc += 8;
	}
}

static int exec_sg8(struct weft_worker *w, struct sg_ctx *c, struct sg_state *s)
{
	return exec_sg(w, c, s, 8);
}

static int exec_sg16(struct weft_worker *w, struct sg_ctx *c, struct sg_state *s)
{
	return exec_sg(w, c, s, 16);
}

static int exec_sg32(struct weft_worker *w, struct sg_ctx *c, struct sg_state *s)
{
	return exec_sg(w, c, s, 32);
}

static int interpret(struct weft_worker *w, struct sg_ctx *c, struct sg_state *s)
{
	unsigned simd = c->dp->simd;

	return simd == 8 ? exec_sg8(w, c, s) : simd == 16 ? exec_sg16(w, c, s) : exec_sg32(w, c, s);
}

int weft_jit_exec(struct weft_jit_ctx *x, const struct weft_inst *in, uint64_t pc, unsigned simd)
{
	unsigned cls = weft_isa_ops[in->op].cls;

	return simd == 8 ? exec_one(x->w, x->c, x->s, in, cls, x->R, x->M, pc, 8) :
	       simd == 16 ? exec_one(x->w, x->c, x->s, in, cls, x->R, x->M, pc, 16) :
	       exec_one(x->w, x->c, x->s, in, cls, x->R, x->M, pc, 32);
}

int weft_jit_cf(struct weft_jit_ctx *x, const struct weft_inst *in, uint64_t pc, unsigned simd,
		uint64_t *target)
{
	int r = simd == 8 ? exec_cf(x->s, x->M, in, x->R, pc, target, 8) :
		simd == 16 ? exec_cf(x->s, x->M, in, x->R, pc, target, 16) :
		exec_cf(x->s, x->M, in, x->R, pc, target, 32);

	if (r == CF_BAD)
		set_error(((struct weft_worker *)x->w)->job, WEFT_QERR_BAD_INSTRUCTION, pc, NULL);
	return r;
}

/* The private memory of register-file slot @slot (NULL: the dispatch has none). */
static uint8_t *slot_scratch(struct weft_worker *w, const struct sg_ctx *c, int slot)
{
	return w->scratch ? w->scratch + (uint64_t)slot * WEFT_MAX_LANES * c->dp->scratch : NULL;
}

/* The sub-group's turn in its translation: the same ends as the interpreter's. */
static int run_translated(struct weft_worker *w, struct sg_ctx *c, struct sg_state *s)
{
	/* Every field named: with one left out the compiler zeroes the
	 * whole context first, a rep stos that took 2 % of a copy kernel's
	 * time at one call per work-group. */
	struct weft_jit_ctx x = { .R = w->R, .M = w->M, .mask = &s->mask, .pc = &s->pc,
				  .base = c->dp->code, .args = c->dp->args, .count = 0,
				  .mmu = &w->slot->mmu, .slm = w->slm,
				  .scratch = slot_scratch(w, c, s->slot), .w = w, .s = s, .c = c,
				  .pending = &w->pending, .live = &w->live,
				  .at_barrier = &w->at_barrier, .rf = w->rf, .slot_used = w->slot_used,
				  .rf_dirty = &w->rf_dirty, .stream = w->job->stream };
	int r;

	if (s->mask != w->M_mask || c->dp->simd != w->M_simd)
		set_mask(s, w->M, s->mask, c->dp->simd);
	/* Before the call: the helpers it calls fence what it streamed. */
	w->streamed |= x.stream;
	r = w->slot->jit(&x);
	/* The call may have gone on with later sub-groups' turns (weft_jit_next_sg(),
	 * weft_jit_next_at_bar(), or without a call: then only the context
	 * has the last one's register file). */
	s = x.s;
	w->R = x.R;
	/* Translated code and the helpers it calls change M with the mask. */
	w->M_mask = s->mask;
	w->M_simd = c->dp->simd;
	switch (r) {
	case SG_ENDED:
	case SG_AT_BARRIER:
		return end_turn(w, x.count, r);
	case SG_YIELDED:
		return account(w->job, x.count) ? SG_ERROR : SG_YIELDED;
	case WEFT_JIT_INTERPRET:
		w->pending += x.count;
		/* The interpreter changes M with the mask too, unrecorded. */
		w->M_simd = 0;
		return interpret(w, c, s);
	default:
		return SG_ERROR;
	}
}

/* A register file (and scratch) slot for a starting sub-group. */
static int get_slot(struct weft_worker *w)
{
	for (int k = 0; k < MAX_SLOTS; k++) {
		if (w->slot_used[k])
			continue;
		if (!w->rf[k]) {
			w->rf[k] = aligned_alloc(64, NUM_ROWS * sizeof(*w->rf[k]));
			if (!w->rf[k])
				return -1;
			memset(w->rf[k], 0, NUM_ROWS * sizeof(*w->rf[k]));
		}
		if ((unsigned)k >= w->rf_dirty)
			w->rf_dirty = k + 1;
		w->slot_used[k] = true;
		return k;
	}
	return -1;
}

/* Sub-group @sg at its entry: its items' lanes on, an empty mask stack. */
static void enter_sg(const struct sg_ctx *c, unsigned sg, struct sg_state *s)
{
	unsigned simd = c->dp->simd;
	uint32_t left = c->nitems - sg * simd;

	s->pc = c->dp->code;
	s->sp = 0;
	s->mask = left >= simd ? lanes_whole(simd) : (1u << left) - 1;
}

/* Sub-group @sg's first turn: a slot, its entry and its mask. */
static int start_sg(struct weft_worker *w, const struct sg_ctx *c, unsigned sg, struct sg_state *s)
{
	s->slot = get_slot(w);
	if (s->slot < 0) {
		set_error(w->job, WEFT_QERR_BAD_DISPATCH, c->dp->code, NULL);
		return -1;
	}
	enter_sg(c, sg, s);
	return 0;
}

/*
 * The translated call goes on with sub-group @k, started, whose state is
 * @next: the turn that ends is accounted, and the context is set up as
 * run_group() and run_translated() would set it up for @k's turn.
 */
static void go_on_with(struct weft_jit_ctx *x, unsigned k, struct sg_state *next)
{
	struct weft_worker *w = x->w;
	struct sg_ctx *c = x->c;
	const struct sg_state *s = x->s;

	w->pending += x->count;
	x->count = 0;
	if (next->mask != s->mask)
		set_mask(next, w->M, next->mask, c->dp->simd);
	c->sg = k;
	c->lid_valid = false;
	w->R = w->rf[next->slot];
	x->R = w->R;
	x->scratch = slot_scratch(w, c, next->slot);
	x->s = next;
	x->mask = &next->mask;
	x->pc = &next->pc;
}

/*
 * Every sub-group of the work-group goes on from the barrier where all the
 * live ones wait.  Returns the first live one (c->nsub: none), found on the
 * way: a scan after the release would load the flags just stored.
 */
static unsigned release_barrier(struct weft_worker *w, const struct sg_ctx *c)
{
	unsigned first = c->nsub;

	for (unsigned k = c->nsub; k-- > 0;) {
		w->sgs[k].at_barrier = false;
		if (!w->sgs[k].done)
			first = k;
	}
	w->at_barrier = 0;
	return first;
}

static bool gets_no_turn(const struct sg_state *s)
{
	return s->done || s->at_barrier;
}

/*
 * The sub-group run_group() gives the next turn after c->sg's, which has
 * ended or reached a barrier (recorded): the next one of the pass, else
 * the first one of the next pass, after the barrier's release when every
 * live sub-group waits at it.  c->nsub when no sub-group of the
 * work-group is live.
 */
static unsigned next_turn(struct weft_worker *w, const struct sg_ctx *c)
{
	unsigned k = c->sg + 1;

	while (k < c->nsub && gets_no_turn(&w->sgs[k]))
		k++;
	if (k < c->nsub || !w->live)
		return k;
	if (w->at_barrier == w->live)
		return release_barrier(w, c);
	for (k = 0; k < c->nsub && gets_no_turn(&w->sgs[k]); k++)
		;
	return k;
}

static void count_run_call(struct weft_worker *w)
{
	atomic_store_explicit(&w->run_calls, atomic_load_explicit(&w->run_calls, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

/*
 * A run of sub-groups (execution.rst): the translated turn of sub-group
 * c->sg ended, and the call goes on with the turn run_group() would give
 * next (next_turn()), with nothing accounted in between, set up as
 * run_group() and run_translated() would set it up: the first turn of the
 * next sub-group in the work-group's first pass, on the slot just freed,
 * or, in a later pass, another sub-group's turn from where its last one
 * stopped.  The turns, their order, the slots and the points where the
 * watchdog and a reset are checked stay the same.  0 when the turn ends
 * here (the work-group's last live sub-group ended, or the watchdog's
 * batch is full).  next_whole_sub_group() of weft_jit.c does what this,
 * enter_sg() and go_on_with() do, inline, for a whole next sub-group of
 * the first pass, next_started_turn() for one that started: a state they
 * set up is set up there too.
 */
int weft_jit_next_sg(struct weft_jit_ctx *x)
{
	struct weft_worker *w = x->w;
	struct sg_ctx *c = x->c;
	struct sg_state *s = x->s, *next;
	unsigned simd = c->dp->simd, k;

	count_run_call(w);
	if (w->live == 1 || w->pending + x->count >= ACCOUNT_EVERY)
		return 0;
	s->done = true;
	w->live--;
	k = next_turn(w, c);
	next = &w->sgs[k];
	if (next->slot >= 0) {
		w->slot_used[s->slot] = false;
		go_on_with(x, k, next);
		return 1;
	}
	/*
	 * One not started means this is the first pass of the work-group
	 * (round-robin would have started it after a yield or a barrier),
	 * where the held slots are always the lowest ones: each sub-group
	 * took the lowest free slot, and one that ended freed it for the
	 * next.  So get_slot() would give the next one the slot this one
	 * frees, whose register file and private memory the context holds.
	 */
	next->slot = s->slot;
	enter_sg(c, k, next);
	go_on_with(x, k, next);
	/*
	 * 2 lets the translation skip storing, into the file it leaves, the
	 * rows the next sub-group overwrites first: right since that is the
	 * next sub-group's file (above).
	 */
	return next->mask == lanes_whole(simd) ? 2 : 1;
}

/*
 * At a translated bar (execution.rst, "A run of sub-groups"): 1 when the
 * call goes on with the turn run_group() would give next (next_turn(),
 * started now if it has not started), with nothing accounted in between;
 * then the context describes that sub-group, whose turn starts at *pc.
 * 0 when the turn ends here (the watchdog's batch is full).
 * next_started_turn() of weft_jit.c does what this does, inline, when the
 * next sub-group in order has started and gets the turn,
 * next_first_turn_at_bar() when it has not: a state this sets up is set
 * up there too.
 */
int weft_jit_next_at_bar(struct weft_jit_ctx *x)
{
	struct weft_worker *w = x->w;
	struct sg_ctx *c = x->c;
	struct sg_state *s = x->s, *next;
	unsigned k;

	count_run_call(w);
	if (w->pending + x->count >= ACCOUNT_EVERY)
		return 0;
	s->at_barrier = true;
	w->at_barrier++;
	k = next_turn(w, c);
	next = &w->sgs[k];
	/* On an error (set), the turn ends here, and run_group() meets it again. */
	if (next->slot < 0 && start_sg(w, c, k, next)) {
		s->at_barrier = false;
		w->at_barrier--;
		return 0;
	}
	go_on_with(x, k, next);
	return 1;
}

/* sg_ctx.lsz_recip of a work-group of @lsz items along each dimension. */
static void size_recips(const uint32_t lsz[3], uint64_t recip[2])
{
	_Static_assert(WEFT_MODEL_MAX_WG_SIZE < 1 << 16, "sg_ctx.lsz_recip is exact below 2^16");
	recip[0] = ((1ull << 32) + lsz[0] - 1) / lsz[0];
	recip[1] = ((1ull << 32) + lsz[0] * lsz[1] - 1) / (lsz[0] * lsz[1]);
}

static bool group_is_whole(const struct weft_job *j, const uint32_t gid[3])
{
	for (int i = 0; i < 3; i++)
		if ((j->partial_dims & 1u << i) && gid[i] == j->ngroups[i] - 1)
			return false;
	return true;
}

/*
 * A work-group: its sub-groups run as coroutines on this host thread,
 * round-robin.  A turn ends when the sub-group ends, reaches a barrier or
 * has used its quantum (SG_QUANTUM, at a backward jump), so a sub-group that
 * spins on a value another sub-group of the work-group writes lets that one
 * run: independent forward progress.  A sub-group at a barrier gets no turn
 * until every live sub-group has reached one (a sub-group that ends no
 * longer takes part); then all of them go on.
 */
static int run_group(struct weft_worker *w)
{
	struct weft_job *p = w->job;
	const struct weft_dispatch_params *dp = p->dp;
	struct sg_ctx *c = &w->ctx;

	if (group_is_whole(p, c->gid)) {
		memcpy(c->lsz, dp->lsize, sizeof(c->lsz));
		memcpy(c->lsz_recip, p->whole_lsz_recip, sizeof(c->lsz_recip));
		c->nitems = p->whole_items;
		c->nsub = p->whole_subs;
	} else {
		c->nitems = 1;
		for (int i = 0; i < 3; i++) {
			uint64_t start = (uint64_t)c->gid[i] * dp->lsize[i];

			c->lsz[i] = dp->gsize[i] - start < dp->lsize[i] ? (uint32_t)(dp->gsize[i] - start)
								       : dp->lsize[i];
			c->nitems *= c->lsz[i];
		}
		c->nsub = (c->nitems + dp->simd - 1) / dp->simd;
		size_recips(c->lsz, c->lsz_recip);
	}
	for (unsigned k = 0; k < c->nsub; k++) {
		w->sgs[k].slot = -1;
		w->sgs[k].done = false;
		w->sgs[k].at_barrier = false;
	}
	w->live = c->nsub;
	w->at_barrier = 0;
	while (w->live) {
		for (c->sg = 0; c->sg < c->nsub; c->sg++) {
			struct sg_state *s = &w->sgs[c->sg];
			int r;

			if (s->done || s->at_barrier)
				continue;
			if (s->slot < 0 && start_sg(w, c, c->sg, s))
				goto fail;
			c->lid_valid = false;
			w->R = w->rf[s->slot];
			if (w->slot->jit) {
				r = run_translated(w, c, s);
				/* The turn that ended the call: c->sg's. */
				s = &w->sgs[c->sg];
			} else {
				r = interpret(w, c, s);
				w->M_simd = 0;	/* the interpreter changes M, unrecorded */
			}
			if (r == SG_ERROR)
				goto fail;
			if (r == SG_ENDED) {
				s->done = true;
				w->slot_used[s->slot] = false;
				w->live--;
			} else if (r == SG_AT_BARRIER) {
				s->at_barrier = true;
				w->at_barrier++;
			}
		}
		if (w->live && w->at_barrier == w->live)
			release_barrier(w, c);
	}
	return 0;
fail:
	/* The slots its sub-groups hold: the next work-group finds every one free. */
	memset(w->slot_used, 0, sizeof(w->slot_used));
	return -1;
}

/* The ids of work-group @g of @j (x first). */
static void group_ids(const struct weft_job *j, uint64_t g, uint32_t gid[3])
{
	for (int i = 0; i < 3; i++) {
		/* No division in the last dimension with more than one group. */
		if (g < j->ngroups[i]) {
			gid[i] = (uint32_t)g;
			g = 0;
		} else {
			gid[i] = (uint32_t)(g % j->ngroups[i]);
			g /= j->ngroups[i];
		}
	}
}

/* From the ids of a work-group to the next one's, with no division. */
static void next_group_ids(const struct weft_job *j, uint32_t gid[3])
{
	for (int i = 0; i < 3; i++) {
		if (++gid[i] < j->ngroups[i])
			return;
		gid[i] = 0;
	}
}

#define GROUPS_PER_PICK	4	/* work-groups claimed at a time while dispatches share the cores */
#define MAX_ALONE_CLAIM	256	/* ... at most while a dispatch runs alone */
#define CLAIMS_PER_CORE	64	/* ... at least, by each core, of a dispatch running alone */

static bool job_exhausted(struct weft_job *j)
{
	return atomic_load(&j->abort) || atomic_load(&j->next) >= j->total;
}

/*
 * Queue priority: the cores take work-groups from the queues with dispatches
 * in proportion 8:4:2:1 (queue 0 first), by stride scheduling: a queue's pass
 * advances by its stride at every pick, and the least pass goes next.  No
 * queue starves.
 */
static const unsigned queue_stride[WEFT_MODEL_NUM_QUEUES] = { 1, 2, 4, 8 };

/* The next job with work (pool lock held). */
static struct weft_job *pick(struct weft_pool *p)
{
	struct weft_job *best = NULL;
	unsigned bs = 0;

	for (unsigned s = 0; s < WEFT_MODEL_NUM_QUEUES; s++) {
		struct weft_job *j = p->jobs[s];

		if (j && !job_exhausted(j) && (!best || p->pass[s] < p->pass[bs])) {
			best = j;
			bs = s;
		}
	}
	if (best) {
		p->vtime = p->pass[bs];
		p->pass[bs] += queue_stride[bs];
	}
	return best;
}

/*
 * Whether a dispatch runs translated (execution.rst, "The translator"):
 * always, or in the default mode once its kernel (its instructions,
 * wherever they lie) has been dispatched with WEFT_JIT_MIN_ITEMS
 * work-items in all, this dispatch's included, so that the many tiny
 * dispatches of a test suite do not pay for translations they would
 * never repay; by the optimizing tier once it has been dispatched with
 * jit_opt_items (WEFT_JIT_OPT_ITEMS) in all, or its earlier dispatches
 * executed jit_opt_insts (WEFT_JIT_OPT_INSTS) instructions, where the
 * slower translation pays for itself.  @mmu reads the kernel.
 */
static void use_translator(struct weft_pool *p, struct weft_mmu *mmu,
			   const struct weft_dispatch_params *dp, struct weft_job *j)
{
	uint64_t items = (uint64_t)dp->gsize[0] * dp->gsize[1] * dp->gsize[2];
	uint64_t all_items, all_insts;

	j->kernel = NULL;
	j->fn = NULL;
	j->stream = items >= p->stream_items;
	if (!p->jit)
		return;
	j->kernel = weft_jit_find(p->jit, mmu, dp->code, dp->simd, items, &all_items, &all_insts);
	if (j->kernel && (p->jit_mode == WEFT_JIT_ALWAYS || all_items >= WEFT_JIT_MIN_ITEMS))
		j->fn = weft_jit_translation(p->jit, j->kernel,
					     all_items >= p->jit_opt_items ||
					     all_insts >= p->jit_opt_insts);
}

static void run_some(struct weft_worker *w, struct weft_job *j)
{
	struct worker_slot *ws = &w->slots[j->slot];

	w->job = j;
	w->slot = ws;
	if (ws->job_id != j->id) {
		/* A new dispatch: fresh TLB and decode cache. */
		ws->job_id = j->id;
		weft_mmu_init(&ws->mmu, w->pool->m->mem, w->pool->m->mem_size, j->dp->root);
		if (!++ws->dc_gen)
			ws->dc_gen = 1;
		ws->jit = j->fn;
	}
	if (w->regs_job != j->id) {
		/* No register, SLM or scratch contents leak from another dispatch
		 * (another context). */
		for (unsigned k = 0; k < w->rf_dirty; k++)
			memset(w->rf[k], 0, NUM_ROWS * sizeof(*w->rf[k]));
		w->rf_dirty = 0;
		memset(w->slm, 0, WEFT_MODEL_SLM_SIZE);
		if (w->scratch_used)
			memset(w->scratch, 0, w->scratch_used);
		w->scratch_used = 0;
		w->regs_job = j->id;
	}
	if (j->dp->scratch) {
		/* The slots a work-group of this dispatch can use, 32 lanes each. */
		uint64_t items = (uint64_t)j->dp->lsize[0] * j->dp->lsize[1] * j->dp->lsize[2];
		size_t n = (size_t)((items + j->dp->simd - 1) / j->dp->simd) * WEFT_MAX_LANES *
			   j->dp->scratch;

		if (n > w->scratch_size) {
			uint8_t *ns = realloc(w->scratch, n);

			if (!ns) {
				set_error(j, WEFT_QERR_BAD_DISPATCH, j->dp->code, NULL);
				return;
			}
			memset(ns + w->scratch_size, 0, n - w->scratch_size);
			w->scratch = ns;
			w->scratch_size = n;
		}
		if (n > w->scratch_used)
			w->scratch_used = n;
	}
	w->ctx.dp = j->dp;
	w->ctx.ngroups = j->ngroups;
	/*
	 * The pick's work-groups are claimed at once (next may pass total).
	 * While this dispatch is the only one running, the choice of a queue
	 * after them would pick it again: the core claims the next ones
	 * without it, until another dispatch starts, and in larger runs
	 * (alone_claim).  The claim itself finds the dispatch exhausted:
	 * reading next again would cost each pick a second transfer of the
	 * cache line the other cores write.
	 */
	do {
		uint64_t n = atomic_load_explicit(&w->pool->running, memory_order_relaxed) == 1 ?
			     j->alone_claim : GROUPS_PER_PICK;
		uint64_t g = atomic_fetch_add(&j->next, n);
		uint64_t end = g + n;

		if (end > j->total || end < g)
			end = j->total;
		if (g >= end)
			break;
		group_ids(j, g, w->ctx.gid);
		for (; g < end && !atomic_load(&j->abort); g++) {
			if (run_group(w))
				goto stop;
			next_group_ids(j, w->ctx.gid);
		}
	} while (atomic_load_explicit(&w->pool->running, memory_order_relaxed) == 1 &&
		 !atomic_load(&j->abort));
stop:
	fence_streams(w);
	account(j, w->pending);
	w->pending = 0;
}

static void *worker_main(void *arg)
{
	struct weft_worker *w = arg;
	struct weft_pool *p = w->pool;

	pthread_mutex_lock(&p->lock);
	while (!p->quit) {
		struct weft_job *j = pick(p);

		if (!j) {
			pthread_cond_wait(&p->work, &p->lock);
			continue;
		}
		j->workers_in++;
		pthread_mutex_unlock(&p->lock);
		run_some(w, j);
		pthread_mutex_lock(&p->lock);
		if (--j->workers_in == 0 && job_exhausted(j))
			pthread_cond_broadcast(&j->done);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static void free_worker(struct weft_worker *w)
{
	for (unsigned s = 0; s < WEFT_MODEL_NUM_QUEUES; s++)
		free(w->slots[s].dc);
	for (unsigned k = 0; k < MAX_SLOTS; k++)
		free(w->rf[k]);
	free(w->sgs);
	free(w->slm);
	free(w->scratch);
}

struct weft_pool *weft_pool_create(struct weft_model *m, unsigned threads)
{
	struct weft_pool *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->m = m;
	p->jit_mode = weft_jit_mode_from_env();
	p->jit_opt_items = weft_jit_opt_items_from_env();
	p->jit_opt_insts = weft_jit_opt_insts_from_env();
	p->stream_items = weft_jit_stream_items_from_env();
	if (p->jit_mode != WEFT_JIT_OFF)
		p->jit = weft_jit_create();
	p->w = calloc(threads, sizeof(*p->w));
	if (!p->w) {
		weft_jit_destroy(p->jit);
		free(p);
		return NULL;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	for (unsigned i = 0; i < threads; i++) {
		struct weft_worker *w = &p->w[i];
		bool ok = true;

		w->pool = p;
		for (unsigned s = 0; s < WEFT_MODEL_NUM_QUEUES; s++) {
			w->slots[s].dc = calloc(DC_SIZE, sizeof(*w->slots[s].dc));
			ok &= w->slots[s].dc != NULL;
		}
		w->sgs = calloc(MAX_SLOTS, sizeof(*w->sgs));
		w->slm = aligned_alloc(64, WEFT_MODEL_SLM_SIZE);
		if (!ok || !w->sgs || !w->slm || pthread_create(&w->th, NULL, worker_main, w)) {
			free_worker(w);
			break;
		}
		p->n++;
	}
	if (p->n != threads) {
		weft_pool_destroy(p);
		errno = ENOMEM;
		return NULL;
	}
	return p;
}

void weft_pool_destroy(struct weft_pool *p)
{
	pthread_mutex_lock(&p->lock);
	p->quit = true;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < p->n; i++) {
		pthread_join(p->w[i].th, NULL);
		free_worker(&p->w[i]);
	}
	pthread_cond_destroy(&p->work);
	pthread_mutex_destroy(&p->lock);
	free(p->w);
	weft_jit_destroy(p->jit);
	free(p);
}

void weft_pool_dispatch(struct weft_pool *p, unsigned slot, struct weft_mmu *mmu,
			const struct weft_dispatch_params *dp, uint64_t watchdog,
			bool (*should_abort)(void *), void *ctx, struct weft_dispatch_result *res)
{
	struct weft_job j = { .dp = dp, .slot = slot % WEFT_MODEL_NUM_QUEUES, .total = 1,
			      .watchdog = watchdog };
	bool aborted = false;

	j.whole_items = 1;
	for (int i = 0; i < 3; i++) {
		j.ngroups[i] = ((uint64_t)dp->gsize[i] + dp->lsize[i] - 1) / dp->lsize[i];
		if (__builtin_mul_overflow(j.total, j.ngroups[i], &j.total))
			j.total = UINT64_MAX;
		if (dp->gsize[i] % dp->lsize[i])
			j.partial_dims |= 1u << i;
		j.whole_items *= dp->lsize[i];
	}
	j.whole_subs = (j.whole_items + dp->simd - 1) / dp->simd;
	size_recips(dp->lsize, j.whole_lsz_recip);
	/*
	 * Cores that take turns at a few work-groups each slow each other
	 * down, more than the second core gains (two of them copied an int
	 * array slower than one, which ran them in turns): a dispatch
	 * running alone is claimed in runs as long as each core still makes
	 * CLAIMS_PER_CORE claims, so that they end close together.
	 */
	j.alone_claim = j.total / ((uint64_t)p->n * CLAIMS_PER_CORE);
	if (j.alone_claim < GROUPS_PER_PICK)
		j.alone_claim = GROUPS_PER_PICK;
	if (j.alone_claim > MAX_ALONE_CLAIM)
		j.alone_claim = MAX_ALONE_CLAIM;
	atomic_init(&j.next, 0);
	atomic_init(&j.insts, 0);
	atomic_init(&j.abort, 0);
	pthread_cond_init(&j.done, NULL);
	pthread_mutex_init(&j.err_lock, NULL);

	use_translator(p, mmu, dp, &j);
	pthread_mutex_lock(&p->lock);
	j.id = ++p->next_id;
	p->jobs[j.slot] = &j;
	atomic_fetch_add(&p->running, 1);
	/* A queue that was idle neither saved up turns nor lost them. */
	if (p->pass[j.slot] < p->vtime)
		p->pass[j.slot] = p->vtime;
	pthread_cond_broadcast(&p->work);
	while (!(job_exhausted(&j) && j.workers_in == 0)) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 2000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&j.done, &p->lock, &ts);
		if (!aborted && !(job_exhausted(&j) && j.workers_in == 0)) {
			pthread_mutex_unlock(&p->lock);
			if (should_abort(ctx)) {
				aborted = true;
				atomic_store(&j.abort, 1);
			}
			pthread_mutex_lock(&p->lock);
		}
	}
	p->jobs[j.slot] = NULL;
	atomic_fetch_sub(&p->running, 1);
	pthread_mutex_unlock(&p->lock);
	weft_jit_release(p->jit, j.kernel, atomic_load(&j.insts));
	pthread_cond_destroy(&j.done);
	pthread_mutex_destroy(&j.err_lock);
	*res = j.res;
	if (aborted)
		res->code = -1;
}

void weft_pool_jit_stats(struct weft_pool *p, struct weft_model_jit_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (p->jit)
		weft_jit_get_stats(p->jit, st);
	for (unsigned i = 0; i < p->n; i++)
		st->run_calls += atomic_load_explicit(&p->w[i].run_calls, memory_order_relaxed);
}
