// SPDX-License-Identifier: MIT
/*
 * The Weft command processor: handshake, queue resets, ring and batch
 * command execution, errors, faults and interrupts.  A control thread,
 * woken by the doorbell, handles the handshake and wakes one command-streamer
 * thread per queue; queues run independently (their dispatches share the
 * worker pool).  Everything read from the register file and guest memory is
 * treated as hostile.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "weft_model_priv.h"

#define QREG(n, r) WEFT_QUEUE_REG(n, r)

/* A queue in SEM_WAIT re-reads its value at least this often (ns). */
#define SEM_POLL_NS	1000000

void weft_model_init_regs(void *regs, uint32_t doorbell_peer, unsigned threads)
{
	uint32_t *r = regs;

	memset(regs, 0, WEFT_REGS_SIZE);
	r[WEFT_REG_VERSION / 4] = WEFT_HW_VERSION_MAJOR << 16 | WEFT_HW_VERSION_MINOR;
	r[WEFT_REG_CAPS / 4] = WEFT_CAP_SIMD8 | WEFT_CAP_SIMD16 | WEFT_CAP_SIMD32;
	r[WEFT_REG_NUM_QUEUES / 4] = WEFT_MODEL_NUM_QUEUES;
	r[WEFT_REG_DOORBELL_PEER / 4] = doorbell_peer;
	r[WEFT_REG_MAX_WG_SIZE / 4] = WEFT_MODEL_MAX_WG_SIZE;
	r[WEFT_REG_SLM_SIZE / 4] = WEFT_MODEL_SLM_SIZE;
	r[WEFT_REG_VA_BITS / 4] = WEFT_MMU_VA_BITS;
	r[WEFT_REG_NUM_CORES / 4] = threads;
	r[WEFT_REG_NUM_VECTORS / 4] = 1;
	r[WEFT_REG_DEVICE_STATUS / 4] = WEFT_DEVICE_STOPPED;
	/* The signature last: it says the block is valid. */
	__atomic_store_n(&r[WEFT_REG_SIGNATURE / 4], WEFT_SIGNATURE, __ATOMIC_RELEASE);
}

static void raise_irq_locked(struct weft_model *m)
{
	if (!atomic_load(&m->running))
		return;
	weft_reg_write(m, WEFT_REG_IRQ_SEQ, ++m->irq_seq);
	if (m->cfg.irq)
		m->cfg.irq(m->cfg.irq_ctx, 0);
}

static void raise_irq(struct weft_model *m)
{
	pthread_mutex_lock(&m->irq_lock);
	raise_irq_locked(m);
	pthread_mutex_unlock(&m->irq_lock);
}

static void set_status(struct weft_model *m, unsigned n, uint32_t st)
{
	weft_reg_write(m, QREG(n, WEFT_Q_STATUS), st);
}

static void queue_error(struct weft_model *m, unsigned n, uint32_t code, uint64_t addr,
			const struct weft_fault *f)
{
	struct weft_queue *q = &m->q[n];

	pthread_mutex_lock(&m->irq_lock);
	if (f && weft_reg_read(m, WEFT_REG_FAULT_ACK) == m->fault_seq) {
		weft_reg_write(m, WEFT_REG_FAULT_ADDR_LO, (uint32_t)f->va);
		weft_reg_write(m, WEFT_REG_FAULT_ADDR_HI, (uint32_t)(f->va >> 32));
		weft_reg_write(m, WEFT_REG_FAULT_INFO, f->info | n << WEFT_FAULT_QUEUE_SHIFT);
		weft_reg_write(m, WEFT_REG_FAULT_SEQ, ++m->fault_seq);
	}
	q->cs.error = true;
	q->cs.in_batch = false;
	q->cs.sem_wait = false;
	weft_reg_write(m, QREG(n, WEFT_Q_ERROR_CODE), code);
	weft_reg_write(m, QREG(n, WEFT_Q_ERROR_ADDR_LO), (uint32_t)addr);
	weft_reg_write(m, QREG(n, WEFT_Q_ERROR_ADDR_HI), (uint32_t)(addr >> 32));
	weft_reg_write(m, QREG(n, WEFT_Q_ERROR_SEQ), ++q->error_seq);
	set_status(m, n, WEFT_Q_STATUS_ERROR);
	raise_irq_locked(m);
	pthread_mutex_unlock(&m->irq_lock);
}

/* Forgets everything about queue @n: HEAD catches up with TAIL. */
static void queue_clear(struct weft_model *m, unsigned n)
{
	struct weft_qstate *q = &m->q[n].cs;

	memset(q, 0, sizeof(*q));
	q->head = weft_reg_read(m, QREG(n, WEFT_Q_TAIL));
	q->reset_ack = weft_reg_read(m, QREG(n, WEFT_Q_RESET_REQ));
	weft_reg_write(m, QREG(n, WEFT_Q_HEAD), q->head);
	weft_reg_write(m, QREG(n, WEFT_Q_ERROR_CODE), WEFT_QERR_NONE);
	weft_reg_write(m, QREG(n, WEFT_Q_ERROR_ADDR_LO), 0);
	weft_reg_write(m, QREG(n, WEFT_Q_ERROR_ADDR_HI), 0);
	set_status(m, n, WEFT_Q_STATUS_IDLE);
	weft_reg_write(m, QREG(n, WEFT_Q_RESET_ACK), q->reset_ack);
}

static void complete_ring_cmd(struct weft_model *m, unsigned n, uint32_t len)
{
	struct weft_qstate *q = &m->q[n].cs;

	q->head += len;
	weft_reg_write(m, QREG(n, WEFT_Q_HEAD), q->head);
}

/*
 * Queue @self wrote guest memory: the queues in a SEM_WAIT (or about to be:
 * those running now) look at their value again.
 */
static void kick_waiters(struct weft_model *m, unsigned self)
{
	bool any = false;

	pthread_mutex_lock(&m->lock);
	for (unsigned n = 0; n < WEFT_MODEL_NUM_QUEUES; n++) {
		if (n != self && (m->q[n].waiting || m->q[n].busy)) {
			m->q[n].poke = true;
			any = true;
		}
	}
	if (any)
		pthread_cond_broadcast(&m->queue_cond);
	pthread_mutex_unlock(&m->lock);
}

struct abort_ctx {
	struct weft_model *m;
	unsigned n;
};

static bool dispatch_should_abort(void *p)
{
	struct abort_ctx *c = p;
	struct weft_model *m = c->m;
	bool quit;

	pthread_mutex_lock(&m->lock);
	quit = m->quit;
	pthread_mutex_unlock(&m->lock);
	return quit || !atomic_load(&m->running) ||
	       !(weft_reg_read(m, WEFT_REG_DRIVER_READY) & WEFT_DRIVER_READY) ||
	       weft_reg_read(m, QREG(c->n, WEFT_Q_RESET_REQ)) != m->q[c->n].cs.reset_ack;
}

/*
 * DISPATCH / DISPATCH_SCRATCH: @p is the 15 (16) payload dwords, @scratch the
 * private bytes per work-item. Returns false if the queue stopped.
 */
static bool cmd_dispatch(struct weft_model *m, unsigned n, const uint32_t *p, uint64_t cmd_va,
			 uint32_t scratch)
{
	struct weft_dispatch_params dp;
	struct weft_dispatch_result res;
	struct abort_ctx ac = { m, n };
	uint64_t wg = 1;

	memset(&dp, 0, sizeof(dp));
	dp.code = p[0] | (uint64_t)p[1] << 32;
	dp.args = p[2] | (uint64_t)p[3] << 32;
	dp.simd = p[4];
	for (int i = 0; i < 3; i++) {
		dp.gsize[i] = p[5 + i];
		dp.lsize[i] = p[8 + i];
		dp.goff[i] = p[11 + i];
		/* Each factor <= the maximum first: the product cannot wrap. */
		if (!dp.gsize[i] || !dp.lsize[i] || dp.lsize[i] > WEFT_MODEL_MAX_WG_SIZE ||
		    wg > WEFT_MODEL_MAX_WG_SIZE)
			wg = UINT64_MAX;
		else
			wg *= dp.lsize[i];
	}
	dp.slm = p[14];
	dp.scratch = scratch;
	dp.root = m->q[n].cs.vm_root;
	if ((dp.simd != 8 && dp.simd != 16 && dp.simd != 32) || wg > WEFT_MODEL_MAX_WG_SIZE ||
	    dp.slm > WEFT_MODEL_SLM_SIZE || dp.scratch > WEFT_MODEL_SCRATCH_SIZE || (dp.code & 7)) {
		queue_error(m, n, WEFT_QERR_BAD_DISPATCH, cmd_va, NULL);
		return false;
	}
	weft_pool_dispatch(m->pool, n, &dp, m->watchdog, dispatch_should_abort, &ac, &res);
	kick_waiters(m, n);
	if (res.code < 0)
		return false;	/* aborted: the reset / stop path takes over */
	if (res.code == WEFT_QERR_MMU_FAULT) {
		queue_error(m, n, res.code, res.fault.va, &res.fault);
		return false;
	}
	if (res.code) {
		queue_error(m, n, res.code, res.code == WEFT_QERR_WATCHDOG ? cmd_va : res.addr, NULL);
		return false;
	}
	return true;
}

/*
 * The SEM_WAIT at batch_pos, decoded into q->sem_*: reads its value.
 * Returns true on progress (it compared true and the batch goes on, or the
 * queue stopped on a fault), false while it waits.
 */
static bool sem_wait_step(struct weft_model *m, unsigned n)
{
	struct weft_qstate *q = &m->q[n].cs;
	struct weft_fault f;
	uint8_t *p = weft_mmu_translate(&m->q[n].mmu, q->sem_va, WEFT_ACC_READ, &f);
	uint64_t v;
	bool ok;

	if (!p) {
		queue_error(m, n, WEFT_QERR_MMU_FAULT, f.va, &f);
		return true;
	}
	v = __atomic_load_n((uint64_t *)p, __ATOMIC_ACQUIRE);
	ok = q->sem_op == WEFT_SEM_WAIT_OP_EQ ? v == q->sem_val : v >= q->sem_val;
	q->sem_wait = !ok;
	if (ok)
		q->batch_pos += 4 * WEFT_CMD_SEM_WAIT_LEN;
	return ok;
}

/* The payload of the @len-dword batch command at @va; false if the queue stopped (fault). */
static bool read_payload(struct weft_model *m, unsigned n, uint64_t va, uint32_t *p, uint32_t len)
{
	struct weft_fault f;

	if (!weft_mmu_read(&m->q[n].mmu, va + 4, p, 4 * (len - 1), WEFT_ACC_READ, &f))
		return true;
	queue_error(m, n, WEFT_QERR_MMU_FAULT, f.va, &f);
	return false;
}

/* One batch command. Returns true on progress. */
static bool batch_step(struct weft_model *m, unsigned n)
{
	struct weft_qstate *q = &m->q[n].cs;
	struct weft_mmu *mmu = &m->q[n].mmu;
	uint64_t va = q->batch_pos;
	struct weft_fault f;
	uint32_t hdr, op, len, p[WEFT_CMD_DISPATCH_SCRATCH_LEN - 1];

	if (q->sem_wait)
		return sem_wait_step(m, n);
	if (va >= q->batch_end) {
		q->in_batch = false;
		complete_ring_cmd(m, n, q->batch_cmd_len);
		return true;
	}
	if (q->batch_end - va < 4) {
		queue_error(m, n, WEFT_QERR_BAD_COMMAND, va, NULL);
		return true;
	}
	if (weft_mmu_read(mmu, va, &hdr, 4, WEFT_ACC_READ, &f)) {
		queue_error(m, n, WEFT_QERR_MMU_FAULT, f.va, &f);
		return true;
	}
	op = hdr >> WEFT_CMD_OPCODE_SHIFT;
	len = hdr & WEFT_CMD_LEN_MASK;
	if (op & WEFT_CMD_PRIVILEGED) {
		queue_error(m, n, WEFT_QERR_PRIVILEGED_IN_BATCH, va, NULL);
		return true;
	}
	if ((hdr & WEFT_CMD_RSVD_MASK) || !len || (uint64_t)len * 4 > q->batch_end - va) {
		queue_error(m, n, WEFT_QERR_BAD_COMMAND, va, NULL);
		return true;
	}
	switch (op) {
	case WEFT_CMD_NOP:
		break;
	case WEFT_CMD_END:
		if (len != 1)
			goto bad;
		q->batch_pos = q->batch_end;
		return true;
	case WEFT_CMD_DISPATCH:
		if (len != WEFT_CMD_DISPATCH_LEN)
			goto bad;
		if (!read_payload(m, n, va, p, len))
			return true;
		if (!cmd_dispatch(m, n, p, va, 0))
			return true;
		break;
	case WEFT_CMD_DISPATCH_SCRATCH:
		if (len != WEFT_CMD_DISPATCH_SCRATCH_LEN)
			goto bad;
		if (!read_payload(m, n, va, p, len))
			return true;
		if (!cmd_dispatch(m, n, p, va, p[15]))
			return true;
		break;
	case WEFT_CMD_WRITE_DATA: {
		uint64_t dst;
		uint8_t *h;

		if (len != WEFT_CMD_WRITE_DATA_LEN)
			goto bad;
		if (!read_payload(m, n, va, p, len))
			return true;
		dst = p[0] | (uint64_t)p[1] << 32;
		if (dst & 7)
			goto bad;
		/* One aligned store, as a SEM_WAIT of another queue reads it. */
		h = weft_mmu_translate(mmu, dst, WEFT_ACC_WRITE, &f);
		if (!h) {
			queue_error(m, n, WEFT_QERR_MMU_FAULT, f.va, &f);
			return true;
		}
		__atomic_store_n((uint64_t *)h, p[2] | (uint64_t)p[3] << 32, __ATOMIC_RELEASE);
		kick_waiters(m, n);
		break;
	}
	case WEFT_CMD_SEM_WAIT:
		if (len != WEFT_CMD_SEM_WAIT_LEN)
			goto bad;
		if (!read_payload(m, n, va, p, len))
			return true;
		q->sem_va = p[0] | (uint64_t)p[1] << 32;
		q->sem_val = p[2] | (uint64_t)p[3] << 32;
		q->sem_op = p[4] & WEFT_SEM_WAIT_OP_MASK;
		if ((q->sem_va & 7) || (p[4] & WEFT_SEM_WAIT_RSVD_MASK) ||
		    (q->sem_op != WEFT_SEM_WAIT_OP_GTE && q->sem_op != WEFT_SEM_WAIT_OP_EQ))
			goto bad;
		return sem_wait_step(m, n);
	default:
		goto bad;
	}
	q->batch_pos = va + 4ull * len;
	return true;
bad:
	queue_error(m, n, WEFT_QERR_BAD_COMMAND, va, NULL);
	return true;
}

static uint32_t ring_dword(uint8_t *ring, uint32_t dwords, uint32_t idx)
{
	return __atomic_load_n((uint32_t *)(ring + 4ull * (idx & (dwords - 1))), __ATOMIC_ACQUIRE);
}

/* One ring command (or one batch command). Returns true on progress. */
static bool queue_step(struct weft_model *m, unsigned n)
{
	struct weft_qstate *q = &m->q[n].cs;
	uint32_t req = weft_reg_read(m, QREG(n, WEFT_Q_RESET_REQ));
	uint64_t base, size, cmd_gpa;
	uint32_t tail, avail, dwords, hdr, op, len, p[WEFT_CMD_FENCE_LEN];
	uint8_t *ring;

	if (req != q->reset_ack) {
		queue_clear(m, n);
		raise_irq(m);
		return true;
	}
	if (q->error || !(weft_reg_read(m, QREG(n, WEFT_Q_ENABLE)) & 1))
		return false;
	if (q->in_batch) {
		set_status(m, n, WEFT_Q_STATUS_BUSY);
		return batch_step(m, n);
	}
	tail = weft_reg_read(m, QREG(n, WEFT_Q_TAIL));
	if (tail == q->head) {
		set_status(m, n, WEFT_Q_STATUS_IDLE);
		return false;
	}
	base = weft_reg_read(m, QREG(n, WEFT_Q_RING_BASE_LO)) |
	       (uint64_t)weft_reg_read(m, QREG(n, WEFT_Q_RING_BASE_HI)) << 32;
	size = weft_reg_read(m, QREG(n, WEFT_Q_RING_SIZE));
	ring = weft_gpa(m->mem, m->mem_size, base, size);
	if (size < 16 || (size & (size - 1)) || (base & 3) || !ring) {
		queue_error(m, n, WEFT_QERR_BAD_COMMAND, base, NULL);
		return true;
	}
	dwords = size / 4;
	avail = tail - q->head;
	cmd_gpa = base + 4ull * (q->head & (dwords - 1));
	if (avail > dwords) {
		queue_error(m, n, WEFT_QERR_BAD_COMMAND, cmd_gpa, NULL);
		return true;
	}
	hdr = ring_dword(ring, dwords, q->head);
	op = hdr >> WEFT_CMD_OPCODE_SHIFT;
	len = hdr & WEFT_CMD_LEN_MASK;
	if ((hdr & WEFT_CMD_RSVD_MASK) || !len || len > dwords)
		goto bad;
	set_status(m, n, WEFT_Q_STATUS_BUSY);
	if (len > avail)
		return false;	/* not all of it published yet */
	for (uint32_t i = 1; i < len && i < WEFT_CMD_FENCE_LEN; i++)
		p[i] = ring_dword(ring, dwords, q->head + i);
	switch (op) {
	case WEFT_CMD_NOP:
		break;
	case WEFT_CMD_SET_VM:
		if (len != WEFT_CMD_SET_VM_LEN)
			goto bad;
		q->vm_root = p[1] | (uint64_t)p[2] << 32;
		q->ctx_id = p[3];
		if ((q->vm_root & ~WEFT_PTE_ADDR_MASK) ||
		    !weft_gpa(m->mem, m->mem_size, q->vm_root, WEFT_MMU_PAGE_SIZE))
			goto bad;
		q->has_vm = true;
		break;
	case WEFT_CMD_BATCH: {
		uint64_t va = p[1] | (uint64_t)p[2] << 32;

		if (len != WEFT_CMD_BATCH_LEN || !q->has_vm || (p[3] & 3) || (va & 3))
			goto bad;
		q->in_batch = true;
		q->batch_pos = va;
		q->batch_end = va + p[3];
		q->batch_cmd_len = len;
		/* A fresh TLB per batch: the driver may have changed the tables. */
		weft_mmu_init(&m->q[n].mmu, m->mem, m->mem_size, q->vm_root);
		return true;
	}
	case WEFT_CMD_FENCE: {
		uint64_t addr = p[1] | (uint64_t)p[2] << 32;
		uint64_t val = p[3] | (uint64_t)p[4] << 32;
		uint8_t *dst = weft_gpa(m->mem, m->mem_size, addr, 8);

		if (len != WEFT_CMD_FENCE_LEN || (addr & 7) || !dst || (p[5] & ~WEFT_FENCE_FLAG_IRQ))
			goto bad;
		__atomic_store_n((uint64_t *)dst, val, __ATOMIC_RELEASE);
		complete_ring_cmd(m, n, len);
		kick_waiters(m, n);
		if (p[5] & WEFT_FENCE_FLAG_IRQ)
			raise_irq(m);
		return true;
	}
	default:
		goto bad;
	}
	complete_ring_cmd(m, n, len);
	return true;
bad:
	queue_error(m, n, WEFT_QERR_BAD_COMMAND, cmd_gpa, NULL);
	return true;
}

/* DRIVER_READY: start or stop the device (control thread). */
static void handshake(struct weft_model *m)
{
	bool ready = weft_reg_read(m, WEFT_REG_DRIVER_READY) & WEFT_DRIVER_READY;

	if (!atomic_load(&m->running) && ready) {
		for (unsigned n = 0; n < WEFT_MODEL_NUM_QUEUES; n++)
			queue_clear(m, n);
		pthread_mutex_lock(&m->irq_lock);
		m->irq_seq = weft_reg_read(m, WEFT_REG_IRQ_SEQ);
		/* Faults are recorded while FAULT_ACK == FAULT_SEQ: start there. */
		m->fault_seq = weft_reg_read(m, WEFT_REG_FAULT_ACK);
		weft_reg_write(m, WEFT_REG_FAULT_SEQ, m->fault_seq);
		atomic_store(&m->running, true);
		pthread_mutex_unlock(&m->irq_lock);
		weft_reg_write(m, WEFT_REG_DEVICE_STATUS, WEFT_DEVICE_RUNNING);
	} else if (atomic_load(&m->running) && !ready) {
		/* Streamers see running == false, abandon their work and go idle. */
		atomic_store(&m->running, false);
		pthread_mutex_lock(&m->lock);
		for (unsigned n = 0; n < m->nqthreads; n++)
			while (m->q[n].busy && !m->quit)
				pthread_cond_wait(&m->idle_cond, &m->lock);
		pthread_mutex_unlock(&m->lock);
		for (unsigned n = 0; n < WEFT_MODEL_NUM_QUEUES; n++)
			queue_clear(m, n);
		weft_reg_write(m, WEFT_REG_DEVICE_STATUS, WEFT_DEVICE_STOPPED);
	}
}

/* The control thread: handshake on every doorbell, then wake the streamers. */
static void *cp_thread(void *arg)
{
	struct weft_model *m = arg;
	uint64_t seen = 0;

	pthread_mutex_lock(&m->lock);
	while (!m->quit) {
		if (seen == m->kicks) {
			m->cp_done = seen;
			pthread_cond_broadcast(&m->idle_cond);
			pthread_cond_wait(&m->kick_cond, &m->lock);
			continue;
		}
		seen = m->kicks;
		pthread_mutex_unlock(&m->lock);
		handshake(m);
		pthread_mutex_lock(&m->lock);
		for (unsigned n = 0; n < WEFT_MODEL_NUM_QUEUES; n++) {
			m->q[n].gen = seen;
			if (!atomic_load(&m->running) && !m->q[n].busy)
				m->q[n].done = seen;	/* nothing to do while stopped */
		}
		pthread_cond_broadcast(&m->queue_cond);
	}
	m->cp_done = m->kicks;
	pthread_cond_broadcast(&m->idle_cond);
	pthread_mutex_unlock(&m->lock);
	return NULL;
}

/*
 * A queue in a SEM_WAIT sleeps until a wake-up or for SEM_POLL_NS, then
 * looks at its value again: the CPU may write it too (m->lock held).
 */
static void poll_wait(struct weft_model *m, struct weft_queue *q)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += SEM_POLL_NS;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	if (pthread_cond_timedwait(&m->queue_cond, &m->lock, &ts) == ETIMEDOUT)
		q->poke = true;
}

/* A queue's command streamer: runs the queue until it cannot progress. */
static void *queue_thread(void *arg)
{
	struct weft_queue *q = arg;
	struct weft_model *m = (struct weft_model *)((char *)(q - q->idx) -
						     offsetof(struct weft_model, q));

	pthread_mutex_lock(&m->lock);
	while (!m->quit) {
		uint64_t gen;

		if (q->done == q->gen && !q->poke) {
			if (q->waiting)
				poll_wait(m, q);
			else
				pthread_cond_wait(&m->queue_cond, &m->lock);
			continue;
		}
		gen = q->gen;
		q->poke = false;
		q->busy = true;
		pthread_mutex_unlock(&m->lock);
		while (atomic_load(&m->running) && queue_step(m, q->idx)) {
			bool quit;

			pthread_mutex_lock(&m->lock);
			quit = m->quit;
			pthread_mutex_unlock(&m->lock);
			if (quit)
				break;
		}
		pthread_mutex_lock(&m->lock);
		/* Stopped: the state is the handshake's, and a SEM_WAIT is over. */
		q->waiting = atomic_load(&m->running) && q->cs.sem_wait;
		q->busy = false;
		q->done = gen;
		pthread_cond_broadcast(&m->idle_cond);
	}
	pthread_mutex_unlock(&m->lock);
	return NULL;
}

static void stop_threads(struct weft_model *m, bool cp)
{
	pthread_mutex_lock(&m->lock);
	m->quit = true;
	pthread_cond_broadcast(&m->kick_cond);
	pthread_cond_broadcast(&m->queue_cond);
	pthread_cond_broadcast(&m->idle_cond);
	pthread_mutex_unlock(&m->lock);
	if (cp)
		pthread_join(m->cp, NULL);
	for (unsigned n = 0; n < m->nqthreads; n++)
		pthread_join(m->q[n].th, NULL);
}

static void free_model(struct weft_model *m)
{
	if (m->pool)
		weft_pool_destroy(m->pool);
	pthread_cond_destroy(&m->kick_cond);
	pthread_cond_destroy(&m->idle_cond);
	pthread_cond_destroy(&m->queue_cond);
	pthread_mutex_destroy(&m->lock);
	pthread_mutex_destroy(&m->irq_lock);
	free(m);
}

struct weft_model *weft_model_create(const struct weft_model_config *cfg)
{
	struct weft_model *m;
	unsigned threads = cfg->threads;
	int err;

	if (!cfg->regs || (!cfg->mem && cfg->mem_size)) {
		errno = EINVAL;
		return NULL;
	}
	if (!threads) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		threads = c > 0 ? (unsigned)c : 1;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->cfg = *cfg;
	m->cfg.threads = threads;
	m->regs = cfg->regs;
	m->mem = cfg->mem;
	m->mem_size = cfg->mem_size;
	m->watchdog = cfg->watchdog ? cfg->watchdog : WEFT_MODEL_WATCHDOG_DEFAULT;
	weft_model_init_regs(m->regs, cfg->doorbell_peer, threads);
	pthread_mutex_init(&m->lock, NULL);
	pthread_mutex_init(&m->irq_lock, NULL);
	pthread_cond_init(&m->kick_cond, NULL);
	pthread_cond_init(&m->idle_cond, NULL);
	pthread_cond_init(&m->queue_cond, NULL);
	m->pool = weft_pool_create(m, threads);
	if (!m->pool) {
		free_model(m);
		return NULL;
	}
	for (unsigned n = 0; n < WEFT_MODEL_NUM_QUEUES; n++) {
		m->q[n].idx = n;
		weft_mmu_init(&m->q[n].mmu, m->mem, m->mem_size, 0);
		err = pthread_create(&m->q[n].th, NULL, queue_thread, &m->q[n]);
		if (err)
			goto fail;
		m->nqthreads++;
	}
	err = pthread_create(&m->cp, NULL, cp_thread, m);
	if (err)
		goto fail;
	return m;
fail:
	stop_threads(m, false);
	free_model(m);
	errno = err;
	return NULL;
}

void weft_model_destroy(struct weft_model *m)
{
	if (!m)
		return;
	stop_threads(m, true);
	free_model(m);
}

void weft_model_doorbell(struct weft_model *m)
{
	pthread_mutex_lock(&m->lock);
	m->kicks++;
	pthread_cond_signal(&m->kick_cond);
	pthread_mutex_unlock(&m->lock);
}

static bool idle_for(struct weft_model *m, uint64_t target)
{
	if (m->cp_done < target)
		return false;
	for (unsigned n = 0; n < m->nqthreads; n++)
		if (m->q[n].done < target || m->q[n].busy || m->q[n].poke)
			return false;
	return true;
}

void weft_model_set_guest_mem(struct weft_model *m, void *mem, uint64_t mem_size)
{
	weft_model_wait_idle(m);
	pthread_mutex_lock(&m->lock);
	m->mem = mem;
	m->mem_size = mem ? mem_size : 0;
	for (unsigned n = 0; n < WEFT_MODEL_NUM_QUEUES; n++)
		weft_mmu_init(&m->q[n].mmu, m->mem, m->mem_size, 0);
	pthread_mutex_unlock(&m->lock);
}

void weft_model_wait_idle(struct weft_model *m)
{
	pthread_mutex_lock(&m->lock);
	uint64_t target = m->kicks;

	while (!idle_for(m, target) && !m->quit)
		pthread_cond_wait(&m->idle_cond, &m->lock);
	pthread_mutex_unlock(&m->lock);
}

void weft_model_jit_stats(struct weft_model *m, struct weft_model_jit_stats *st)
{
	weft_pool_jit_stats(m->pool, st);
}
