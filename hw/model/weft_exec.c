// SPDX-License-Identifier: MIT
/*
 * Dispatch execution: a pool of host threads runs work-groups; each
 * work-group runs as sub-groups of SIMD 8, 16 or 32 lanes with a lane mask.
 * Registers are laid out R[reg][lane] so that the per-lane loops of the
 * generated ALU semantics (weft_isa_alu.h) vectorize; the interpreter is
 * instantiated once per SIMD width with a constant lane count.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "weft_isa.h"
#include "weft_isa_alu.h"
#include "weft_model_priv.h"

#define DC_SIZE		4096		/* decoded-instruction cache entries */
#define NUM_ROWS	WEFT_NUM_REGS
#define ACCOUNT_EVERY	4096		/* instructions between watchdog checks */

struct dc_entry {
	uint64_t pc;
	uint64_t gen;
	struct weft_inst in;
	uint8_t cls;
};

/* What a sub-group knows about its place in the dispatch. */
struct sg_ctx {
	const struct weft_dispatch_params *dp;
	const uint64_t *ngroups;
	uint32_t gid[3];
	uint32_t lsz[3];	/* actual size of this (possibly partial) group */
	uint32_t nitems, nsub, sg;
};

struct weft_worker {
	struct weft_pool *pool;
	pthread_t th;
	uint64_t seq;
	uint64_t dc_gen;
	struct dc_entry *dc;
	uint32_t (*R)[WEFT_MAX_LANES];
	uint32_t M[WEFT_MAX_LANES];
	struct weft_mmu mmu;
};

struct weft_pool {
	struct weft_model *m;
	unsigned n;
	struct weft_worker *w;
	pthread_mutex_t lock;
	pthread_cond_t start, done;
	uint64_t seq;
	unsigned active;
	bool quit;

	const struct weft_dispatch_params *dp;
	uint64_t ngroups[3], total, watchdog;
	_Atomic uint64_t next, insts;
	_Atomic int abort;
	pthread_mutex_t err_lock;
	struct weft_dispatch_result res;
};

static void set_error(struct weft_pool *p, int code, uint64_t addr, const struct weft_fault *f)
{
	pthread_mutex_lock(&p->err_lock);
	if (!p->res.code) {
		p->res.code = code;
		p->res.addr = addr;
		if (f)
			p->res.fault = *f;
	}
	pthread_mutex_unlock(&p->err_lock);
	atomic_store(&p->abort, 1);
}

/* Adds @n executed instructions; nonzero when the sub-group must stop. */
static int account(struct weft_pool *p, uint64_t n)
{
	uint64_t total = atomic_fetch_add(&p->insts, n) + n;

	if (total > p->watchdog) {
		set_error(p, WEFT_QERR_WATCHDOG, 0, NULL);
		return -1;
	}
	return atomic_load_explicit(&p->abort, memory_order_relaxed) ? -1 : 0;
}

static const struct dc_entry *fetch(struct weft_worker *w, uint64_t pc)
{
	struct dc_entry *e = &w->dc[(pc >> 3) & (DC_SIZE - 1)];
	struct weft_fault f;
	uint64_t word[2];
	size_t n = 1;

	if (e->gen == w->dc_gen && e->pc == pc)
		return e;
	if (weft_mmu_read(&w->mmu, pc, &word[0], 8, WEFT_ACC_EXEC, &f) ||
	    /* A literal word follows: fetch it too. */
	    ((word[0] >> WEFT_ENC_LIT_SHIFT & 1) &&
	     weft_mmu_read(&w->mmu, pc + 8, &word[n++], 8, WEFT_ACC_EXEC, &f))) {
		set_error(w->pool, WEFT_QERR_MMU_FAULT, f.va, &f);
		return NULL;
	}
	if (weft_isa_decode(word, n, &e->in) < 0) {
		e->gen = 0;
		set_error(w->pool, WEFT_QERR_BAD_INSTRUCTION, pc, NULL);
		return NULL;
	}
	e->cls = weft_isa_ops[e->in.op].cls;
	e->pc = pc;
	e->gen = w->dc_gen;
	return e;
}

static uint64_t sreg_value(const struct sg_ctx *c, unsigned sr, unsigned lane)
{
	const struct weft_dispatch_params *dp = c->dp;
	uint32_t lin = c->sg * dp->simd + lane;
	uint32_t lid[3];

	lid[0] = lin % c->lsz[0];
	lid[1] = (lin / c->lsz[0]) % c->lsz[1];
	lid[2] = lin / (c->lsz[0] * c->lsz[1]);
	switch (sr) {
	case WEFT_SR_LANE_ID: return lane;
	case WEFT_SR_SUBGROUP_ID: return c->sg;
	case WEFT_SR_SUBGROUP_SIZE: {
		uint32_t left = c->nitems - c->sg * dp->simd;

		return left < dp->simd ? left : dp->simd;
	}
	case WEFT_SR_NUM_SUBGROUPS: return c->nsub;
	case WEFT_SR_LOCAL_ID_X ... WEFT_SR_LOCAL_ID_Z: return lid[sr - WEFT_SR_LOCAL_ID_X];
	case WEFT_SR_GROUP_ID_X ... WEFT_SR_GROUP_ID_Z: return c->gid[sr - WEFT_SR_GROUP_ID_X];
	case WEFT_SR_GLOBAL_ID_X ... WEFT_SR_GLOBAL_ID_Z: {
		unsigned i = sr - WEFT_SR_GLOBAL_ID_X;

		return (uint64_t)c->gid[i] * dp->lsize[i] + lid[i] + dp->goff[i];
	}
	case WEFT_SR_LOCAL_SIZE_X ... WEFT_SR_LOCAL_SIZE_Z: return c->lsz[sr - WEFT_SR_LOCAL_SIZE_X];
	case WEFT_SR_GLOBAL_SIZE_X ... WEFT_SR_GLOBAL_SIZE_Z: return dp->gsize[sr - WEFT_SR_GLOBAL_SIZE_X];
	case WEFT_SR_NUM_GROUPS_X ... WEFT_SR_NUM_GROUPS_Z: return c->ngroups[sr - WEFT_SR_NUM_GROUPS_X];
	case WEFT_SR_GLOBAL_OFFSET_X ... WEFT_SR_GLOBAL_OFFSET_Z:
		return dp->goff[sr - WEFT_SR_GLOBAL_OFFSET_X];
	case WEFT_SR_LOCAL_LINEAR_ID: return lin;
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

static void exec_s2r(const struct sg_ctx *c, const struct weft_inst *in,
		     uint32_t (*R)[WEFT_MAX_LANES], const uint32_t *M, unsigned NL)
{
	unsigned bits = weft_isa_type_bits(in->t);

	for (unsigned l = 0; l < NL; l++)
		if (M[l])
			write_lane(R, in->d, bits, l, sreg_value(c, in->mod, l));
}

static int exec_mem(struct weft_worker *w, const struct weft_inst *in, bool store,
		    uint32_t (*R)[WEFT_MAX_LANES], const uint32_t *M, unsigned NL)
{
	unsigned bits = weft_isa_type_bits(in->t);
	char kind = weft_isa_types[in->t].kind;
	unsigned size = bits / 8;
	int64_t off = (int32_t)in->imm;
	struct weft_fault f;

	for (unsigned l = 0; l < NL; l++) {
		uint64_t addr, v = 0;

		if (!M[l])
			continue;
		addr = read_lane(R, in->a, 64, l) + (uint64_t)off;
		if (store) {
			v = read_lane(R, in->d, bits, l);
			if (weft_mmu_write(&w->mmu, addr, &v, size, &f))
				goto fault;
		} else {
			if (weft_mmu_read(&w->mmu, addr, &v, size, WEFT_ACC_READ, &f))
				goto fault;
			write_lane(R, in->d, bits, l, extend(v, bits < 32 ? bits : 64, kind));
		}
	}
	return 0;
fault:
	set_error(w->pool, WEFT_QERR_MMU_FAULT, f.va, &f);
	return -1;
}

static inline __attribute__((always_inline)) int
exec_sg(struct weft_worker *w, const struct sg_ctx *c, const unsigned NL)
{
	uint32_t (*R)[WEFT_MAX_LANES] = w->R;
	const uint32_t *M = w->M;
	uint64_t pc = c->dp->code;
	uint64_t count = 0;

	for (;;) {
		const struct dc_entry *e = fetch(w, pc);

		if (!e)
			return -1;
		if (++count == ACCOUNT_EVERY) {
			if (account(w->pool, count))
				return -1;
			count = 0;
		}
		switch (e->cls) {
		case WEFT_CLASS_END:
			return account(w->pool, count);
		case WEFT_CLASS_NOP:
			break;
		case WEFT_CLASS_ALU:
			weft_isa_exec_alu(&e->in, R, M, NL);
			break;
		case WEFT_CLASS_CVT:
			exec_cvt(&e->in, R, M, NL);
			break;
		case WEFT_CLASS_S2R:
			exec_s2r(c, &e->in, R, M, NL);
			break;
		case WEFT_CLASS_LD:
		case WEFT_CLASS_ST:
			if (exec_mem(w, &e->in, e->cls == WEFT_CLASS_ST, R, M, NL))
				return -1;
			break;
		default:
			set_error(w->pool, WEFT_QERR_BAD_INSTRUCTION, pc, NULL);
			return -1;
		}
		pc += 8ull * e->in.nwords;
	}
}

/*
 * One interpreter per SIMD width, each built for baseline x86-64 and for
 * x86-64-v3 (AVX2: per-lane variable shifts, 64-bit compares and min/max
 * vectorize), picked at load time.
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(WEFT_NO_CLONES)
#define EXEC_CLONES __attribute__((target_clones("default", "arch=x86-64-v3")))
#else
#define EXEC_CLONES
#endif

EXEC_CLONES static int exec_sg8(struct weft_worker *w, const struct sg_ctx *c)
{
	return exec_sg(w, c, 8);
}

EXEC_CLONES static int exec_sg16(struct weft_worker *w, const struct sg_ctx *c)
{
	return exec_sg(w, c, 16);
}

EXEC_CLONES static int exec_sg32(struct weft_worker *w, const struct sg_ctx *c)
{
	return exec_sg(w, c, 32);
}

static int run_group(struct weft_worker *w, uint64_t g)
{
	struct weft_pool *p = w->pool;
	const struct weft_dispatch_params *dp = p->dp;
	struct sg_ctx c = { .dp = dp, .ngroups = p->ngroups };
	uint64_t rest = g;

	c.nitems = 1;
	for (int i = 0; i < 3; i++) {
		uint64_t start;

		c.gid[i] = (uint32_t)(rest % p->ngroups[i]);
		rest /= p->ngroups[i];
		start = (uint64_t)c.gid[i] * dp->lsize[i];
		c.lsz[i] = dp->gsize[i] - start < dp->lsize[i] ? (uint32_t)(dp->gsize[i] - start)
							      : dp->lsize[i];
		c.nitems *= c.lsz[i];
	}
	c.nsub = (c.nitems + dp->simd - 1) / dp->simd;
	for (c.sg = 0; c.sg < c.nsub; c.sg++) {
		int r;

		for (unsigned l = 0; l < WEFT_MAX_LANES; l++)
			w->M[l] = (l < dp->simd && c.sg * dp->simd + l < c.nitems) ? ~0u : 0;
		r = dp->simd == 8 ? exec_sg8(w, &c) : dp->simd == 16 ? exec_sg16(w, &c) : exec_sg32(w, &c);
		if (r)
			return r;
	}
	return 0;
}

static void run_job(struct weft_worker *w)
{
	struct weft_pool *p = w->pool;

	weft_mmu_init(&w->mmu, p->m->mem, p->m->mem_size, p->dp->root);
	if (!++w->dc_gen)
		w->dc_gen = 1;
	/* No register contents leak from an earlier dispatch (another context). */
	memset(w->R, 0, NUM_ROWS * sizeof(*w->R));
	while (!atomic_load(&p->abort)) {
		uint64_t g = atomic_fetch_add(&p->next, 1);

		if (g >= p->total || run_group(w, g))
			break;
	}
}

static void *worker_main(void *arg)
{
	struct weft_worker *w = arg;
	struct weft_pool *p = w->pool;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->quit && w->seq == p->seq)
			pthread_cond_wait(&p->start, &p->lock);
		if (p->quit)
			break;
		w->seq = p->seq;
		pthread_mutex_unlock(&p->lock);
		run_job(w);
		pthread_mutex_lock(&p->lock);
		if (--p->active == 0)
			pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct weft_pool *weft_pool_create(struct weft_model *m, unsigned threads)
{
	struct weft_pool *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->m = m;
	p->w = calloc(threads, sizeof(*p->w));
	if (!p->w) {
		free(p);
		return NULL;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_mutex_init(&p->err_lock, NULL);
	pthread_cond_init(&p->start, NULL);
	pthread_cond_init(&p->done, NULL);
	for (unsigned i = 0; i < threads; i++) {
		struct weft_worker *w = &p->w[i];

		w->pool = p;
		w->dc = calloc(DC_SIZE, sizeof(*w->dc));
		w->R = aligned_alloc(64, NUM_ROWS * sizeof(*w->R));
		if (!w->dc || !w->R || pthread_create(&w->th, NULL, worker_main, w)) {
			free(w->dc);
			free(w->R);
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
	pthread_cond_broadcast(&p->start);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < p->n; i++) {
		pthread_join(p->w[i].th, NULL);
		free(p->w[i].dc);
		free(p->w[i].R);
	}
	pthread_cond_destroy(&p->start);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->lock);
	pthread_mutex_destroy(&p->err_lock);
	free(p->w);
	free(p);
}

void weft_pool_dispatch(struct weft_pool *p, const struct weft_dispatch_params *dp,
			uint64_t watchdog, bool (*should_abort)(void *), void *ctx,
			struct weft_dispatch_result *res)
{
	bool aborted = false;

	p->dp = dp;
	p->total = 1;
	for (int i = 0; i < 3; i++) {
		p->ngroups[i] = ((uint64_t)dp->gsize[i] + dp->lsize[i] - 1) / dp->lsize[i];
		if (__builtin_mul_overflow(p->total, p->ngroups[i], &p->total))
			p->total = UINT64_MAX;
	}
	p->watchdog = watchdog;
	atomic_store(&p->next, 0);
	atomic_store(&p->insts, 0);
	atomic_store(&p->abort, 0);
	memset(&p->res, 0, sizeof(p->res));

	pthread_mutex_lock(&p->lock);
	p->active = p->n;
	p->seq++;
	pthread_cond_broadcast(&p->start);
	while (p->active) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 2000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&p->done, &p->lock, &ts);
		if (p->active && !aborted) {
			pthread_mutex_unlock(&p->lock);
			if (should_abort(ctx)) {
				aborted = true;
				atomic_store(&p->abort, 1);
			}
			pthread_mutex_lock(&p->lock);
		}
	}
	pthread_mutex_unlock(&p->lock);
	*res = p->res;
	if (aborted)
		res->code = -1;
}
