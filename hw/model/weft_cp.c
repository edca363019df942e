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

/*
 * A drain stopped: the device queue's header says why and at which record,
 * for the host, which sees only the queue's error otherwise.  Best effort:
 * the header may be what faulted.
 */
static void dq_report(struct weft_model *m, unsigned n, uint32_t code)
{
	struct weft_qstate *q = &m->q[n].cs;
	struct weft_fault f;

	weft_mmu_write(&m->q[n].mmu, q->dq_va + WEFT_DQ_ERROR_RECORD, &q->dq_record,
		       sizeof(q->dq_record), &f);
	weft_mmu_write(&m->q[n].mmu, q->dq_va + WEFT_DQ_STATUS, &code, sizeof(code), &f);
}

static void queue_error(struct weft_model *m, unsigned n, uint32_t code, uint64_t addr,
			const struct weft_fault *f)
{
	struct weft_queue *q = &m->q[n];

	if (q->cs.draining)
		dq_report(m, n, code);
	q->cs.draining = false;
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
	/* SLM is allocated in granules: the work-group may access all of its
	 * last one (a size over the maximum stays as it is, and fails below). */
	_Static_assert(WEFT_MODEL_SLM_SIZE % WEFT_CMD_DISPATCH_SLM_GRANULE == 0,
		       "the SLM is a whole number of granules");
	dp.slm = p[14] > WEFT_MODEL_SLM_SIZE ? p[14] :
		 (p[14] + WEFT_CMD_DISPATCH_SLM_GRANULE - 1) & ~(WEFT_CMD_DISPATCH_SLM_GRANULE - 1u);
	dp.scratch = scratch;
	dp.root = m->q[n].cs.vm_root;
	if ((dp.simd != 8 && dp.simd != 16 && dp.simd != 32) || wg > WEFT_MODEL_MAX_WG_SIZE ||
	    dp.slm > WEFT_MODEL_SLM_SIZE || dp.scratch > WEFT_MODEL_SCRATCH_SIZE || (dp.code & 7)) {
		queue_error(m, n, WEFT_QERR_BAD_DISPATCH, cmd_va, NULL);
		return false;
	}
	weft_pool_dispatch(m->pool, n, &m->q[n].mmu, &dp, m->watchdog, dispatch_should_abort, &ac,
			   &res);
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

/* Reads @len bytes at @va of the queue's VM; false if the queue stopped (fault). */
static bool guest_read(struct weft_model *m, unsigned n, uint64_t va, void *dst, size_t len)
{
	struct weft_fault f;

	if (!weft_mmu_read(&m->q[n].mmu, va, dst, len, WEFT_ACC_READ, &f))
		return true;
	queue_error(m, n, WEFT_QERR_MMU_FAULT, f.va, &f);
	return false;
}

static bool guest_write(struct weft_model *m, unsigned n, uint64_t va, const void *src, size_t len)
{
	struct weft_fault f;

	if (!weft_mmu_write(&m->q[n].mmu, va, src, len, &f))
		return true;
	queue_error(m, n, WEFT_QERR_MMU_FAULT, f.va, &f);
	return false;
}

/* The payload of the @len-dword batch command at @va; false if the queue stopped (fault). */
static bool read_payload(struct weft_model *m, unsigned n, uint64_t va, uint32_t *p, uint32_t len)
{
	return guest_read(m, n, va + 4, p, 4 * (len - 1));
}

/*
 * Device-side enqueue (device-enqueue.rst): DRAIN_QUEUE runs the records of
 * a device queue, one per queue_step, so that a reset or a stop ends a long
 * drain between two records as it ends a batch between two commands.
 */
struct dq_record {
	uint32_t len, kind, depth, signal, num_waits, state, reserved[2];
	uint32_t dispatch[WEFT_CMD_DISPATCH_SCRATCH_LEN - 1];
	uint32_t waits[WEFT_DQ_MAX_WAITS];
};
_Static_assert(offsetof(struct dq_record, dispatch) == WEFT_DQ_REC_DISPATCH, "record layout");
_Static_assert(offsetof(struct dq_record, waits) == WEFT_DQ_REC_WAITS, "record layout");
_Static_assert(sizeof(struct dq_record) == WEFT_DQ_REC_ARGS, "record layout");

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static uint64_t dq_record_va(const struct weft_qstate *q, uint32_t off)
{
	return q->dq_va + WEFT_DQ_HEADER_SIZE + off;
}

static uint64_t dq_event_va(const struct weft_qstate *q, uint32_t slot)
{
	return q->dq_va + WEFT_DQ_HEADER_SIZE + q->dq_size + (uint64_t)slot * WEFT_DQ_EVENT_SIZE;
}

/* Stops the queue on the record at q->dq_record (or the header: 0). */
static bool dq_bad(struct weft_model *m, unsigned n, uint32_t code)
{
	struct weft_qstate *q = &m->q[n].cs;

	queue_error(m, n, code, q->dq_record ? q->dq_record : q->dq_va, NULL);
	return true;
}

/* DRAIN_QUEUE at @cmd_va: checks the header; the records run in later steps. */
static bool drain_begin(struct weft_model *m, unsigned n, uint64_t dq_va, uint64_t cmd_va)
{
	struct weft_qstate *q = &m->q[n].cs;
	uint32_t h[WEFT_DQ_HEADER_SIZE / 4];
	uint64_t bytes, none = 0;
	bool ok;

	if (dq_va & (WEFT_DQ_HEADER_SIZE - 1)) {
		queue_error(m, n, WEFT_QERR_BAD_COMMAND, cmd_va, NULL);
		return true;
	}
	q->draining = true;
	q->dq_va = dq_va;
	q->dq_record = 0;
	if (!guest_read(m, n, dq_va, h, sizeof(h)))
		return true;
	q->dq_size = h[WEFT_DQ_SIZE / 4];
	q->dq_events = h[WEFT_DQ_EVENTS / 4];
	q->dq_depth_limit = h[WEFT_DQ_DEPTH_LIMIT / 4] ? h[WEFT_DQ_DEPTH_LIMIT / 4] :
			    WEFT_DQ_DEPTH_DEFAULT;
	q->dq_pending = q->dq_stamped = q->dq_depth = 0;
	bytes = WEFT_DQ_HEADER_SIZE + (uint64_t)q->dq_size +
		(uint64_t)q->dq_events * WEFT_DQ_EVENT_SIZE;
	ok = !(q->dq_size & 15) && q->dq_size <= WEFT_DQ_SIZE_MAX &&
	     q->dq_events <= WEFT_DQ_EVENTS_MAX && dq_va + bytes <= 1ull << WEFT_MMU_VA_BITS;
	/* The words after ERROR_RECORD are reserved. */
	for (unsigned i = WEFT_DQ_ERROR_RECORD / 4 + 2; i < WEFT_DQ_HEADER_SIZE / 4; i++)
		ok = ok && !h[i];
	if (!ok)
		return dq_bad(m, n, WEFT_QERR_DEVICE_QUEUE);
	if (guest_write(m, n, dq_va + WEFT_DQ_ERROR_RECORD, &none, sizeof(none)))
		guest_write(m, n, dq_va + WEFT_DQ_STATUS, &none, 4);
	return true;
}

/*
 * The records appended since the last look get their depth: one more than
 * the kernel that ran last, which appended them.  Returns false if the
 * queue stopped.
 */
static bool dq_stamp(struct weft_model *m, unsigned n, uint32_t end)
{
	struct weft_qstate *q = &m->q[n].cs;

	while (q->dq_stamped < end) {
		uint32_t r[WEFT_DQ_REC_DISPATCH / 4], kind, depth = q->dq_depth + 1;

		q->dq_record = dq_record_va(q, q->dq_stamped);
		memset(r, 0, sizeof(r));
		if (!guest_read(m, n, q->dq_record, r, 8))
			return false;
		kind = r[1] & WEFT_DQ_REC_KIND_MASK;
		/* A PAD may be 16 bytes at the end of the mapping: read no more of it. */
		if (kind != WEFT_DQ_REC_PAD && r[0] >= sizeof(r) && r[0] <= end - q->dq_stamped &&
		    !guest_read(m, n, q->dq_record, r, sizeof(r)))
			return false;
		if ((r[0] & 15) || r[0] < (kind == WEFT_DQ_REC_PAD ? 16 : WEFT_DQ_REC_ARGS) ||
		    r[0] > end - q->dq_stamped || kind < WEFT_DQ_REC_PAD || kind > WEFT_DQ_REC_MARKER ||
		    (r[1] & ~(WEFT_DQ_REC_KIND_MASK | WEFT_DQ_REC_FLAGS_MASK)) ||
		    (kind != WEFT_DQ_REC_PAD && (r[WEFT_DQ_REC_STATE / 4] || r[6] || r[7]))) {
			dq_bad(m, n, WEFT_QERR_DEVICE_QUEUE);
			return false;
		}
		if (kind != WEFT_DQ_REC_PAD) {
			if (depth > q->dq_depth_limit) {
				dq_bad(m, n, WEFT_QERR_ENQUEUE_DEPTH);
				return false;
			}
			if (!guest_write(m, n, q->dq_record + WEFT_DQ_REC_DEPTH, &depth, 4))
				return false;
		}
		q->dq_stamped += r[0];
	}
	return true;
}

/*
 * 1 if record @r may run (every event it waits for is complete; *status:
 * the first failed one's status, else 0), 0 if it must wait, -1 if the
 * queue stopped.
 */
static int dq_ready(struct weft_model *m, unsigned n, const struct dq_record *r, int32_t *status)
{
	struct weft_qstate *q = &m->q[n].cs;

	*status = 0;
	for (uint32_t i = 0; i < r->num_waits; i++) {
		int32_t st;

		if (r->waits[i] >= q->dq_events) {
			dq_bad(m, n, WEFT_QERR_DEVICE_QUEUE);
			return -1;
		}
		if (!guest_read(m, n, dq_event_va(q, r->waits[i]) + WEFT_DQ_EVENT_STATUS, &st, 4))
			return -1;
		if (st > 0)
			return 0;
		if (st < 0 && !*status)
			*status = st;
	}
	return 1;
}

/*
 * capture_event_profiling_info on an event not complete yet leaves in its
 * slot where its execution time goes (CLK_PROFILING_COMMAND_EXEC_TIME: two
 * u64, the command's and the command's with its children, which complete
 * as records of their own).
 */
static bool dq_profile(struct weft_model *m, unsigned n, uint64_t ev, uint64_t ns)
{
	uint64_t va, times[2] = { ns, ns };

	if (!guest_read(m, n, ev + WEFT_DQ_EVENT_PROFILE, &va, sizeof(va)))
		return false;
	return !va || guest_write(m, n, va, times, sizeof(times));
}

/*
 * Runs record @r at offset @off (q->dq_record): its kernel, unless an event
 * it waited for failed, whose status its own event then takes.
 */
static bool dq_run(struct weft_model *m, unsigned n, uint32_t off, const struct dq_record *r,
		   int32_t status)
{
	struct weft_qstate *q = &m->q[n].cs;
	uint32_t done = WEFT_DQ_REC_STATE_DONE;
	uint64_t times[2] = { now_ns(), 0 };

	if (!guest_write(m, n, q->dq_va + WEFT_DQ_DEPTH, &r->depth, 4))
		return true;
	if (!status && (r->kind & WEFT_DQ_REC_KIND_MASK) == WEFT_DQ_REC_KERNEL &&
	    !cmd_dispatch(m, n, r->dispatch, q->dq_record, r->dispatch[15]))
		return true;
	q->dq_depth = r->depth;
	if (!guest_write(m, n, q->dq_record + WEFT_DQ_REC_STATE, &done, 4))
		return true;
	if (r->signal != WEFT_DQ_SIGNAL_NONE) {
		uint64_t ev = dq_event_va(q, r->signal);

		times[1] = now_ns();
		/* The status last: it is what the records waiting for it look at. */
		if (!guest_write(m, n, ev + WEFT_DQ_EVENT_START, times, sizeof(times)) ||
		    !guest_write(m, n, ev + WEFT_DQ_EVENT_STATUS, &status, 4) ||
		    !dq_profile(m, n, ev, times[1] - times[0]))
			return true;
	}
	if (off == q->dq_pending)
		q->dq_pending += r->len;
	return true;
}

/* The drain's end: the queue is empty again for the next parent. */
static bool drain_end(struct weft_model *m, unsigned n)
{
	struct weft_qstate *q = &m->q[n].cs;
	uint32_t zero = 0;

	if (guest_write(m, n, q->dq_va + WEFT_DQ_DEPTH, &zero, 4) &&
	    guest_write(m, n, q->dq_va + WEFT_DQ_HEAD, &zero, 4)) {
		q->draining = false;
		q->batch_pos += 4 * WEFT_CMD_DRAIN_QUEUE_LEN;
	}
	return true;
}

/*
 * One record of the drain: the first pending record, in reservation order,
 * whose wait list is complete.  None left: the drain is over; none ready:
 * their wait lists can never complete.
 */
static bool drain_step(struct weft_model *m, unsigned n)
{
	struct weft_qstate *q = &m->q[n].cs;
	struct weft_fault f;
	uint8_t *head = weft_mmu_translate(&m->q[n].mmu, q->dq_va + WEFT_DQ_HEAD, WEFT_ACC_READ, &f);
	uint32_t end, off, blocked = UINT32_MAX;
	struct dq_record r;
	int32_t status = 0;

	if (!head) {
		queue_error(m, n, WEFT_QERR_MMU_FAULT, f.va, &f);
		return true;
	}
	end = __atomic_load_n((uint32_t *)head, __ATOMIC_ACQUIRE);
	q->dq_record = 0;
	if (end & 15)
		return dq_bad(m, n, WEFT_QERR_DEVICE_QUEUE);
	/* Past the size: a reservation failed (CLK_DEVICE_QUEUE_FULL). */
	end = end < q->dq_size ? end : q->dq_size;
	if (!dq_stamp(m, n, end))
		return true;
	for (off = q->dq_pending; off < end; off += r.len) {
		uint32_t kind;
		int ready;

		q->dq_record = dq_record_va(q, off);
		if (!guest_read(m, n, q->dq_record, &r, sizeof(r.len) + sizeof(r.kind)))
			return true;
		kind = r.kind & WEFT_DQ_REC_KIND_MASK;
		/* Rewritten since it was stamped? */
		if ((r.len & 15) || r.len < 16 || r.len > end - off ||
		    (kind != WEFT_DQ_REC_PAD && r.len < WEFT_DQ_REC_ARGS))
			return dq_bad(m, n, WEFT_QERR_DEVICE_QUEUE);
		if (kind != WEFT_DQ_REC_PAD && !guest_read(m, n, q->dq_record, &r, sizeof(r)))
			return true;
		if (kind == WEFT_DQ_REC_PAD || r.state == WEFT_DQ_REC_STATE_DONE) {
			if (off == q->dq_pending)
				q->dq_pending += r.len;
			continue;
		}
		if ((kind != WEFT_DQ_REC_KERNEL && kind != WEFT_DQ_REC_MARKER) ||
		    r.num_waits > WEFT_DQ_MAX_WAITS || !r.depth || r.depth > q->dq_depth_limit ||
		    (r.signal != WEFT_DQ_SIGNAL_NONE && r.signal >= q->dq_events))
			return dq_bad(m, n, WEFT_QERR_DEVICE_QUEUE);
		ready = dq_ready(m, n, &r, &status);
		if (ready < 0)
			return true;
		if (ready)
			return dq_run(m, n, off, &r, status);
		if (blocked == UINT32_MAX)
			blocked = off;
	}
	if (blocked == UINT32_MAX)
		return drain_end(m, n);
	q->dq_record = dq_record_va(q, blocked);
	return dq_bad(m, n, WEFT_QERR_DEVICE_QUEUE);
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
	if (q->draining)
		return drain_step(m, n);
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
	case WEFT_CMD_DRAIN_QUEUE:
		if (len != WEFT_CMD_DRAIN_QUEUE_LEN)
			goto bad;
		if (!read_payload(m, n, va, p, len))
			return true;
		return drain_begin(m, n, p[0] | (uint64_t)p[1] << 32, va);
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
