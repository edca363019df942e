// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "weft_isa.h"
#include "modelenv.h"

static void irq_cb(void *ctx, unsigned vector)
{
	struct env *e = ctx;

	(void)vector;
	atomic_fetch_add(&e->irqs, 1);
}

uint32_t env_reg(struct env *e, uint32_t off)
{
	return __atomic_load_n(&e->regs[off / 4], __ATOMIC_ACQUIRE);
}

void env_wreg(struct env *e, uint32_t off, uint32_t v)
{
	__atomic_store_n(&e->regs[off / 4], v, __ATOMIC_RELEASE);
}

uint32_t env_qreg(struct env *e, unsigned q, uint32_t reg)
{
	return env_reg(e, WEFT_QUEUE_REG(q, reg));
}

void env_wqreg(struct env *e, unsigned q, uint32_t reg, uint32_t v)
{
	env_wreg(e, WEFT_QUEUE_REG(q, reg), v);
}

uint64_t env_alloc(struct env *e, uint64_t bytes)
{
	uint64_t gpa = e->next_gpa;

	bytes = (bytes + WEFT_MMU_PAGE_SIZE - 1) & ~(uint64_t)(WEFT_MMU_PAGE_SIZE - 1);
	if (gpa + bytes > e->mem_size) {
		fprintf(stderr, "modelenv: out of guest memory\n");
		abort();
	}
	e->next_gpa += bytes;
	memset(e->mem + gpa, 0, bytes);
	return gpa;
}

void *env_host(struct env *e, uint64_t gpa)
{
	return e->mem + gpa;
}

uint64_t *env_pte(struct env *e, uint64_t va, int level)
{
	uint64_t table = e->root;

	for (int l = 0; l < level; l++) {
		uint64_t *pte = (uint64_t *)(e->mem + table) + ((va >> (12 + 9 * (3 - l))) & 511);

		if (!(*pte & WEFT_PTE_VALID))
			*pte = env_alloc(e, WEFT_MMU_PAGE_SIZE) | WEFT_PTE_VALID;
		table = *pte & WEFT_PTE_ADDR_MASK;
	}
	return (uint64_t *)(e->mem + table) + ((va >> (12 + 9 * (3 - level))) & 511);
}

uint64_t env_alloc_huge(struct env *e)
{
	e->next_gpa = (e->next_gpa + ENV_HUGE_SIZE - 1) & ~(uint64_t)(ENV_HUGE_SIZE - 1);
	return env_alloc(e, ENV_HUGE_SIZE);
}

void env_map_huge(struct env *e, uint64_t va, uint64_t gpa, uint64_t flags)
{
	*env_pte(e, va, 2) = (gpa & WEFT_PTE_ADDR_MASK) | flags | WEFT_PTE_HUGE;
}

void env_map(struct env *e, uint64_t va, uint64_t gpa, uint64_t bytes, uint64_t flags)
{
	for (uint64_t off = 0; off < bytes; off += WEFT_MMU_PAGE_SIZE)
		*env_pte(e, va + off, 3) = ((gpa + off) & WEFT_PTE_ADDR_MASK) | flags;
}

uint64_t env_buf(struct env *e, uint64_t bytes, uint64_t flags, void **host)
{
	uint64_t gpa = env_alloc(e, bytes), va = e->next_va;

	env_map(e, va, gpa, bytes ? bytes : 1, flags);
	e->next_va += ((bytes + 0xfff) & ~0xfffull) + 0x10000;	/* unmapped guard gap */
	if (host)
		*host = e->mem + gpa;
	return va;
}

struct env *env_create(unsigned threads, uint64_t watchdog)
{
	return env_create_mem(threads, watchdog, ENV_MEM_SIZE);
}

struct env *env_create_mem(unsigned threads, uint64_t watchdog, uint64_t mem_size)
{
	struct env *e = calloc(1, sizeof(*e));
	struct weft_model_config cfg = { 0 };

	e->regs = aligned_alloc(4096, WEFT_REGS_SIZE);
	e->mem_size = mem_size;
	e->mem = mmap(NULL, e->mem_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!e->regs || e->mem == MAP_FAILED)
		abort();
	e->next_gpa = 0x10000;	/* keep GPA 0 unused */
	e->root = env_alloc(e, 4096);
	e->fence_gpa = env_alloc(e, 4096);
	e->next_va = 0x100000000ull;
	cfg.regs = e->regs;
	cfg.mem = e->mem;
	cfg.mem_size = e->mem_size;
	cfg.threads = threads;
	cfg.watchdog = watchdog;
	cfg.irq = irq_cb;
	cfg.irq_ctx = e;
	e->m = weft_model_create(&cfg);
	if (!e->m)
		abort();
	for (unsigned q = 0; q < 4; q++) {
		e->ring[q] = env_alloc(e, ENV_RING_SIZE);
		env_wqreg(e, q, WEFT_Q_RING_BASE_LO, (uint32_t)e->ring[q]);
		env_wqreg(e, q, WEFT_Q_RING_BASE_HI, (uint32_t)(e->ring[q] >> 32));
		env_wqreg(e, q, WEFT_Q_RING_SIZE, ENV_RING_SIZE);
		env_wqreg(e, q, WEFT_Q_ENABLE, 1);
	}
	return e;
}

void env_destroy(struct env *e)
{
	weft_model_destroy(e->m);
	munmap(e->mem, e->mem_size);
	free(e->regs);
	free(e);
}

uint32_t env_ready(struct env *e)
{
	env_wreg(e, WEFT_REG_DRIVER_READY, WEFT_DRIVER_READY);
	weft_model_doorbell(e->m);
	weft_model_wait_idle(e->m);
	return env_reg(e, WEFT_REG_DEVICE_STATUS);
}

void env_ring_emit(struct env *e, unsigned q, const uint32_t *dw, unsigned n)
{
	uint32_t *ring = (uint32_t *)(e->mem + e->ring[q]);

	for (unsigned i = 0; i < n; i++)
		ring[e->tail[q]++ % (ENV_RING_SIZE / 4)] = dw[i];
}

void env_kick(struct env *e, unsigned q)
{
	env_wqreg(e, q, WEFT_Q_TAIL, e->tail[q]);
	weft_model_doorbell(e->m);
	weft_model_wait_idle(e->m);
}

void env_submit_batch(struct env *e, unsigned q, uint64_t batch_va, uint32_t bytes, uint64_t fence)
{
	uint32_t cmds[] = {
		CMD(WEFT_CMD_SET_VM, 4), (uint32_t)e->root, (uint32_t)(e->root >> 32), 7,
		CMD(WEFT_CMD_BATCH, 4), (uint32_t)batch_va, (uint32_t)(batch_va >> 32), bytes,
		CMD(WEFT_CMD_FENCE, 6), (uint32_t)e->fence_gpa, (uint32_t)(e->fence_gpa >> 32),
		(uint32_t)fence, (uint32_t)(fence >> 32), WEFT_FENCE_FLAG_IRQ,
	};

	env_ring_emit(e, q, cmds, sizeof(cmds) / 4);
	env_kick(e, q);
}

uint64_t env_fence(struct env *e)
{
	return *(volatile uint64_t *)(e->mem + e->fence_gpa);
}

uint64_t env_code(struct env *e, const char *src)
{
	uint64_t *words, va;
	size_t n;
	char err[256];
	void *host;

	if (weft_asm(src, "<test>", &words, &n, err, sizeof(err))) {
		printf("    assembler: %s\n", err);
		return 0;
	}
	va = env_buf(e, n * 8, WEFT_PTE_VALID | WEFT_PTE_EXEC, &host);
	memcpy(host, words, n * 8);
	free(words);
	return va;
}

uint32_t env_dispatch(struct env *e, unsigned q, const struct env_dispatch *d)
{
	uint32_t *b;
	uint64_t va;

	/* The device is idle between dispatches: one batch page serves them all. */
	if (!e->batch)
		e->batch_va = env_buf(e, 4096, WEFT_PTE_VALID, (void **)&e->batch);
	b = e->batch;
	va = e->batch_va;

	unsigned n = d->scratch ? WEFT_CMD_DISPATCH_SCRATCH_LEN : WEFT_CMD_DISPATCH_LEN;

	b[0] = d->scratch ? CMD(WEFT_CMD_DISPATCH_SCRATCH, n) : CMD(WEFT_CMD_DISPATCH, n);
	b[1] = (uint32_t)d->code_va;
	b[2] = (uint32_t)(d->code_va >> 32);
	b[3] = (uint32_t)d->args_va;
	b[4] = (uint32_t)(d->args_va >> 32);
	b[5] = d->simd;
	for (int i = 0; i < 3; i++) {
		b[6 + i] = d->gsize[i];
		b[9 + i] = d->lsize[i];
		b[12 + i] = d->goff[i];
	}
	b[15] = d->slm;
	b[16] = d->scratch;
	b[n] = CMD(WEFT_CMD_END, 1);
	env_submit_batch(e, q, va, (n + 1) * 4, ++e->seq);
	if (env_qreg(e, q, WEFT_Q_STATUS) == WEFT_Q_STATUS_ERROR)
		return env_qreg(e, q, WEFT_Q_ERROR_CODE);
	if (env_fence(e) != e->seq)
		return 0xdead;
	return 0;
}

void env_reset_queue(struct env *e, unsigned q)
{
	uint32_t req = env_qreg(e, q, WEFT_Q_RESET_REQ) + 1;

	env_wqreg(e, q, WEFT_Q_RESET_REQ, req);
	weft_model_doorbell(e->m);
	weft_model_wait_idle(e->m);
	e->tail[q] = env_qreg(e, q, WEFT_Q_HEAD);
}

struct env *env_renew(struct env *old, uint64_t watchdog)
{
	if (old)
		env_destroy(old);
	return env_create(2, watchdog);
}
