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
	bool lid_valid;		/* lid[] computed for this sub-group */
	uint32_t lid[3][WEFT_MAX_LANES];
};

/* A running dispatch. */
struct weft_job {
	const struct weft_dispatch_params *dp;
	unsigned slot;			/* its queue */
	uint64_t id;
	uint64_t ngroups[3], total, watchdog;
	_Atomic uint64_t next, insts;
	_Atomic int abort;
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
};

struct weft_worker {
	struct weft_pool *pool;
	pthread_t th;
	struct weft_job *job;		/* being run */
	struct worker_slot *slot;
	struct worker_slot slots[WEFT_MODEL_NUM_QUEUES];
	uint64_t regs_job;		/* the job whose data the registers may hold */
	uint64_t pending;		/* executed instructions not yet accounted */
	unsigned rr;
	uint32_t (*R)[WEFT_MAX_LANES];
	uint32_t M[WEFT_MAX_LANES];
};

struct weft_pool {
	struct weft_model *m;
	unsigned n;
	struct weft_worker *w;
	pthread_mutex_t lock;
	pthread_cond_t work;
	struct weft_job *jobs[WEFT_MODEL_NUM_QUEUES];
	uint64_t next_id;
	bool quit;
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

static const struct dc_entry *fetch(struct weft_worker *w, uint64_t pc)
{
	struct worker_slot *ws = w->slot;
	struct dc_entry *e = &ws->dc[(pc >> 3) & (DC_SIZE - 1)];
	struct weft_fault f;
	uint64_t word[2];
	size_t n = 1;

	if (e->gen == ws->dc_gen && e->pc == pc)
		return e;
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

/* Local ids of the sub-group's lanes: one division, then counting. */
static void compute_lids(struct sg_ctx *c)
{
	uint32_t simd = c->dp->simd, lin = c->sg * simd;
	uint32_t x = lin % c->lsz[0], y = (lin / c->lsz[0]) % c->lsz[1];
	uint32_t z = lin / (c->lsz[0] * c->lsz[1]);

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
			compute_lids(c);
		for (unsigned l = 0; l < NL; l++)
			v[l] = c->lid[sr - WEFT_SR_LOCAL_ID_X][l];
		break;
	case WEFT_SR_GLOBAL_ID_X ... WEFT_SR_GLOBAL_ID_Z: {
		uint64_t base;

		if (!c->lid_valid)
			compute_lids(c);
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
static inline bool mem_block(struct weft_worker *w, const struct weft_inst *in, bool store,
			     uint32_t (*R)[WEFT_MAX_LANES], const uint32_t *M, unsigned NL,
			     unsigned size, int *ret)
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
			memcpy(p, R[in->d], NL * 4);
		else
			memcpy(R[in->d], p, NL * 4);
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

static int exec_mem(struct weft_worker *w, const struct weft_inst *in, bool store,
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

static inline __attribute__((always_inline)) int
exec_sg(struct weft_worker *w, struct sg_ctx *c, const unsigned NL)
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
			if (account(w->job, count))
				return -1;
			count = 0;
		}
		switch (e->cls) {
		case WEFT_CLASS_END:
			/* Sub-groups are short: account in batches, not per sub-group. */
			w->pending += count;
			if (w->pending >= ACCOUNT_EVERY) {
				count = w->pending;
				w->pending = 0;
				return account(w->job, count);
			}
			return 0;
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
			set_error(w->job, WEFT_QERR_BAD_INSTRUCTION, pc, NULL);
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

EXEC_CLONES static int exec_sg8(struct weft_worker *w, struct sg_ctx *c)
{
	return exec_sg(w, c, 8);
}

EXEC_CLONES static int exec_sg16(struct weft_worker *w, struct sg_ctx *c)
{
	return exec_sg(w, c, 16);
}

EXEC_CLONES static int exec_sg32(struct weft_worker *w, struct sg_ctx *c)
{
	return exec_sg(w, c, 32);
}

static int run_group(struct weft_worker *w, uint64_t g)
{
	struct weft_job *p = w->job;
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

		c.lid_valid = false;
		for (unsigned l = 0; l < WEFT_MAX_LANES; l++)
			w->M[l] = (l < dp->simd && c.sg * dp->simd + l < c.nitems) ? ~0u : 0;
		r = dp->simd == 8 ? exec_sg8(w, &c) : dp->simd == 16 ? exec_sg16(w, &c) : exec_sg32(w, &c);
		if (r)
			return r;
	}
	return 0;
}

#define GROUPS_PER_PICK	4	/* work-groups run per visit to the job list */

static bool job_exhausted(struct weft_job *j)
{
	return atomic_load(&j->abort) || atomic_load(&j->next) >= j->total;
}

/* The next job with work, round-robin over the queues (pool lock held). */
static struct weft_job *pick(struct weft_pool *p, struct weft_worker *w)
{
	for (unsigned i = 0; i < WEFT_MODEL_NUM_QUEUES; i++) {
		unsigned s = (w->rr + i) % WEFT_MODEL_NUM_QUEUES;
		struct weft_job *j = p->jobs[s];

		if (j && !job_exhausted(j)) {
			w->rr = s + 1;
			return j;
		}
	}
	return NULL;
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
	}
	if (w->regs_job != j->id) {
		/* No register contents leak from another dispatch (another context). */
		memset(w->R, 0, NUM_ROWS * sizeof(*w->R));
		w->regs_job = j->id;
	}
	for (int k = 0; k < GROUPS_PER_PICK && !atomic_load(&j->abort); k++) {
		uint64_t g = atomic_fetch_add(&j->next, 1);

		if (g >= j->total || run_group(w, g))
			break;
	}
	account(j, w->pending);
	w->pending = 0;
}

static void *worker_main(void *arg)
{
	struct weft_worker *w = arg;
	struct weft_pool *p = w->pool;

	pthread_mutex_lock(&p->lock);
	while (!p->quit) {
		struct weft_job *j = pick(p, w);

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
	free(w->R);
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
	pthread_cond_init(&p->work, NULL);
	for (unsigned i = 0; i < threads; i++) {
		struct weft_worker *w = &p->w[i];
		bool ok = true;

		w->pool = p;
		for (unsigned s = 0; s < WEFT_MODEL_NUM_QUEUES; s++) {
			w->slots[s].dc = calloc(DC_SIZE, sizeof(*w->slots[s].dc));
			ok &= w->slots[s].dc != NULL;
		}
		w->R = aligned_alloc(64, NUM_ROWS * sizeof(*w->R));
		if (!ok || !w->R || pthread_create(&w->th, NULL, worker_main, w)) {
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
	free(p);
}

void weft_pool_dispatch(struct weft_pool *p, unsigned slot, const struct weft_dispatch_params *dp,
			uint64_t watchdog, bool (*should_abort)(void *), void *ctx,
			struct weft_dispatch_result *res)
{
	struct weft_job j = { .dp = dp, .slot = slot % WEFT_MODEL_NUM_QUEUES, .total = 1,
			      .watchdog = watchdog };
	bool aborted = false;

	for (int i = 0; i < 3; i++) {
		j.ngroups[i] = ((uint64_t)dp->gsize[i] + dp->lsize[i] - 1) / dp->lsize[i];
		if (__builtin_mul_overflow(j.total, j.ngroups[i], &j.total))
			j.total = UINT64_MAX;
	}
	atomic_init(&j.next, 0);
	atomic_init(&j.insts, 0);
	atomic_init(&j.abort, 0);
	pthread_cond_init(&j.done, NULL);
	pthread_mutex_init(&j.err_lock, NULL);

	pthread_mutex_lock(&p->lock);
	j.id = ++p->next_id;
	p->jobs[j.slot] = &j;
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
	pthread_mutex_unlock(&p->lock);
	pthread_cond_destroy(&j.done);
	pthread_mutex_destroy(&j.err_lock);
	*res = j.res;
	if (aborted)
		res->code = -1;
}
