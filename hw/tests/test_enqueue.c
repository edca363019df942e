// SPDX-License-Identifier: MIT
/*
 * Host tests of device-side enqueue in the device model: DRAIN_QUEUE and
 * the device queue (Documentation/gpu/weft/device-enqueue.rst).  Kernels
 * written in Weft assembly append records as compiled OpenCL C does; the
 * host writes the malformed ones.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devqueue.h"
#include "harness.h"
#include "modelenv.h"

static struct env *E;

static struct env *fresh(uint64_t watchdog)
{
	E = env_renew(E, watchdog);
	CHECK_EQ(env_ready(E), WEFT_DEVICE_RUNNING);
	return E;
}


static uint32_t *dq_event(struct dq *d, uint32_t slot)
{
	return dq_word(d, WEFT_DQ_HEADER_SIZE + d->size + slot * WEFT_DQ_EVENT_SIZE);
}

/* What the host writes of a record (a parent kernel writes the same). */
struct rec {
	uint32_t kind, signal, num_waits, waits[WEFT_DQ_MAX_WAITS];
	uint64_t code;
	uint32_t simd, gsize, lsize, slm, scratch;
	const void *args;
	uint32_t args_len;
};

/* Appends @r as a parent would; returns the record's offset in the queue. */
static uint32_t dq_put(struct dq *d, const struct rec *r)
{
	uint32_t off = *dq_word(d, WEFT_DQ_HEAD);
	uint32_t len = (WEFT_DQ_REC_ARGS + r->args_len + 15) & ~15u;
	uint8_t *p = d->host + WEFT_DQ_HEADER_SIZE + off;
	uint32_t *w = (uint32_t *)p;
	uint64_t args = d->va + WEFT_DQ_HEADER_SIZE + off + WEFT_DQ_REC_ARGS;

	memset(p, 0, len);
	w[WEFT_DQ_REC_LEN / 4] = len;
	w[WEFT_DQ_REC_KIND / 4] = r->kind ? r->kind : WEFT_DQ_REC_KERNEL;
	w[WEFT_DQ_REC_SIGNAL / 4] = r->signal;
	w[WEFT_DQ_REC_NUM_WAITS / 4] = r->num_waits;
	memcpy(p + WEFT_DQ_REC_WAITS, r->waits, sizeof(r->waits));
	w = (uint32_t *)(p + WEFT_DQ_REC_DISPATCH);
	w[0] = (uint32_t)r->code;
	w[1] = (uint32_t)(r->code >> 32);
	w[2] = (uint32_t)args;
	w[3] = (uint32_t)(args >> 32);
	w[4] = r->simd ? r->simd : 8;
	w[5] = r->gsize ? r->gsize : 1;
	w[6] = w[7] = 1;
	w[8] = r->lsize ? r->lsize : w[5];
	w[9] = w[10] = 1;
	w[14] = r->slm;
	w[15] = r->scratch;
	memcpy(p + WEFT_DQ_REC_ARGS, r->args, r->args_len);
	*dq_word(d, WEFT_DQ_HEAD) = off + len;
	return off;
}


static uint64_t error_addr(struct env *e, unsigned q)
{
	return env_qreg(e, q, WEFT_Q_ERROR_ADDR_LO) |
	       (uint64_t)env_qreg(e, q, WEFT_Q_ERROR_ADDR_HI) << 32;
}

static uint64_t dq_error_record(struct dq *d)
{
	return *(uint64_t *)(d->host + WEFT_DQ_ERROR_RECORD);
}


static void t_nested(void)
{
	static const uint32_t simds[] = { 8, 16, 32 };
	struct env *e = fresh(0);

	for (unsigned s = 0; s < 3; s++) {
		/* 2 work-items, each child 3 work-items, three levels: 2, 6, 18, 54. */
		struct tree t = tree_setup(e, 64, 0);
		uint32_t items = 2;

		CHECK_EQ(tree_run(e, &t, 0, 2, 3, 3, simds[s]), 0);
		for (uint32_t d = 0; d <= 3; d++, items *= 3)
			CHECK(t.cnt[d] == items, "SIMD %u depth %u: %u work-items, want %u", simds[s],
			      d, t.cnt[d], items);
		CHECK_EQ(t.cnt[4], 0);
		CHECK_EQ(t.cnt[CNT_FULL], 0);
		/* Drained: empty for the next parent, depth back to 0. */
		CHECK_EQ(*dq_word(&t.dq, WEFT_DQ_HEAD), 0);
		CHECK_EQ(*dq_word(&t.dq, WEFT_DQ_DEPTH), 0);
		CHECK_EQ(*dq_word(&t.dq, WEFT_DQ_STATUS), 0);
		/* The last record the device ran: depth 3, done. */
		CHECK_EQ(*dq_word(&t.dq, WEFT_DQ_HEADER_SIZE + 25 * TREE_REC_LEN + WEFT_DQ_REC_DEPTH), 3);
		CHECK_EQ(*dq_word(&t.dq, WEFT_DQ_HEADER_SIZE + 25 * TREE_REC_LEN + WEFT_DQ_REC_STATE),
			 WEFT_DQ_REC_STATE_DONE);
		/* The same queue again, without a reset. */
		CHECK_EQ(tree_run(e, &t, 0, 2, 3, 3, simds[s]), 0);
		CHECK_EQ(t.cnt[3], 54);
	}
}

static void t_thousands(void)
{
	struct env *e = fresh(0);
	struct tree t = tree_setup(e, 5000, 0);

	/* 5000 children of 1 work-item each, from one parent. */
	CHECK_EQ(tree_run(e, &t, 1, 5000, 1, 1, 16), 0);
	CHECK_EQ(t.cnt[0], 5000);
	CHECK_EQ(t.cnt[1], 5000);
	CHECK_EQ(t.cnt[CNT_FULL], 0);
	/* A binary tree twelve levels deep: 4095 records. */
	CHECK_EQ(tree_run(e, &t, 1, 1, 12, 2, 8), 0);
	for (uint32_t d = 0; d <= 12; d++)
		CHECK(t.cnt[d] == 1u << d, "depth %u: %u", d, t.cnt[d]);
	CHECK_EQ(*dq_word(&t.dq, WEFT_DQ_HEAD), 0);
}

static void t_full(void)
{
	struct env *e = fresh(0);
	struct tree t = tree_setup(e, 100, 0);

	/* 300 reservations for 100 records: 200 see the queue full. */
	CHECK_EQ(tree_run(e, &t, 2, 300, 1, 1, 32), 0);
	CHECK_EQ(t.cnt[1], 100);
	CHECK_EQ(t.cnt[CNT_FULL], 200);
	CHECK_EQ(t.cnt[CNT_PADS], 0);	/* the records fill it exactly */
	/* A size that is not a multiple of the record: a PAD covers the tail. */
	*dq_word(&t.dq, WEFT_DQ_SIZE) = 10 * TREE_REC_LEN + 64;
	CHECK_EQ(tree_run(e, &t, 2, 15, 1, 1, 8), 0);
	CHECK_EQ(t.cnt[1], 10);
	CHECK_EQ(t.cnt[CNT_FULL], 5);
	CHECK_EQ(t.cnt[CNT_PADS], 1);
	/* Unbounded recursion (a chain) ends at the full queue, drained. */
	*dq_word(&t.dq, WEFT_DQ_SIZE) = 20 * TREE_REC_LEN;
	CHECK_EQ(tree_run(e, &t, 2, 1, 1000, 1, 8), 0);
	CHECK_EQ(t.cnt[20], 1);
	CHECK_EQ(t.cnt[21], 0);
	CHECK_EQ(t.cnt[CNT_FULL], 1);
	CHECK_EQ(*dq_word(&t.dq, WEFT_DQ_HEAD), 0);
}

static void t_depth(void)
{
	struct env *e = fresh(0);
	struct tree t = tree_setup(e, 200, 5);

	/* Five levels pass, the sixth is reported at its record. */
	CHECK_EQ(tree_run(e, &t, 3, 1, 5, 1, 8), 0);
	CHECK_EQ(t.cnt[5], 1);
	CHECK_EQ(tree_run(e, &t, 3, 1, 1000, 1, 8), WEFT_QERR_ENQUEUE_DEPTH);
	CHECK_EQ(t.cnt[5], 1);
	CHECK_EQ(t.cnt[6], 0);
	CHECK_EQ(error_addr(e, 3), dq_rec_va(&t.dq, 5 * TREE_REC_LEN));
	CHECK_EQ(*dq_word(&t.dq, WEFT_DQ_STATUS), WEFT_QERR_ENQUEUE_DEPTH);
	CHECK_EQ(dq_error_record(&t.dq), dq_rec_va(&t.dq, 5 * TREE_REC_LEN));
	env_reset_queue(e, 3);
	/* The default bound: 64 levels. */
	*dq_word(&t.dq, WEFT_DQ_DEPTH_LIMIT) = 0;
	*dq_word(&t.dq, WEFT_DQ_HEAD) = 0;
	*dq_word(&t.dq, WEFT_DQ_DEPTH) = 0;
	CHECK_EQ(tree_run(e, &t, 3, 1, 1000, 1, 8), WEFT_QERR_ENQUEUE_DEPTH);
	CHECK_EQ(t.cnt[WEFT_DQ_DEPTH_DEFAULT], 1);
	CHECK_EQ(error_addr(e, 3), dq_rec_va(&t.dq, WEFT_DQ_DEPTH_DEFAULT * TREE_REC_LEN));
}

/* Appends its id to a log: +0 log VA, +8 id.  The log: count, then ids. */
static const char *log_kernel =
	"\ts2r.u64 r0, sr.args\n"
	"\tld.global.u64 r2, [r0+0]\n"
	"\tld.global.u32 r4, [r0+8]\n"
	"\tmov.u32 r5, 1\n"
	"\tatom.global.add.u32 r6, [r2], r5\n"
	"\tcvt.u64.u32 r8, r6\n"
	"\tshl.u64 r8, r8, 2\n"
	"\tadd.u64 r8, r2, r8\n"
	"\tst.global.u32 [r8+4], r4\n"
	"\tend\n";

struct logged {
	uint64_t log_va;
	uint32_t id, pad;
};

static void t_events(void)
{
	struct env *e = fresh(0);
	struct dq d = dq_create(e, 8192, 8, 0);
	uint64_t code = env_code(e, log_kernel);
	uint32_t *log;
	uint64_t log_va = env_buf(e, 4096, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&log);
	struct logged a[4] = { { log_va, 1 }, { log_va, 2 }, { log_va, 3 }, { log_va, 4 } };
	struct rec r = { .code = code, .args_len = sizeof(a[0]), .signal = WEFT_DQ_SIGNAL_NONE };
	uint32_t off;

	for (uint32_t i = 0; i < 8; i++)
		dq_event(&d, i)[0] = 2;		/* CL_SUBMITTED */
	/* 1 waits for 3's event (slot 0), 2 for a marker that waits for 1 and 3. */
	r.args = &a[0];
	r.num_waits = 1;
	r.waits[0] = 0;
	dq_put(&d, &r);
	r.args = &a[1];
	r.waits[0] = 1;
	dq_put(&d, &r);
	r.args = &a[2];
	r.num_waits = 0;
	r.signal = 0;
	dq_put(&d, &r);
	r.kind = WEFT_DQ_REC_MARKER;
	r.num_waits = 2;
	r.waits[0] = 0;
	r.waits[1] = 2;
	r.signal = 1;
	dq_put(&d, &r);
	r.kind = 0;
	r.args = &a[3];
	r.num_waits = 0;
	r.signal = 2;
	off = dq_put(&d, &r);
	CHECK_EQ(run_drain(e, 0, NULL, d.va), 0);
	CHECK_EQ(log[0], 4);
	/* 3 (signals 0), 1 (waited for 0), 4 (signals 2), the marker (1), 2. */
	CHECK(log[1] == 3 && log[2] == 1 && log[3] == 4 && log[4] == 2,
	      "order %u %u %u %u", log[1], log[2], log[3], log[4]);
	for (uint32_t i = 0; i < 3; i++) {
		uint64_t *t = (uint64_t *)(dq_event(&d, i) + 2);

		CHECK_EQ(dq_event(&d, i)[0], 0);		/* CL_COMPLETE */
		CHECK(t[0] && t[1] >= t[0], "slot %u: times %llu %llu", i,
		      (unsigned long long)t[0], (unsigned long long)t[1]);
	}
	CHECK_EQ(dq_event(&d, 3)[0], 2);
	CHECK_EQ(*dq_word(&d, WEFT_DQ_HEADER_SIZE + off + WEFT_DQ_REC_STATE), WEFT_DQ_REC_STATE_DONE);

	/* A failed event: the records waiting for it do not run, and take its status. */
	memset(log, 0, 64);
	for (uint32_t i = 0; i < 8; i++)
		dq_event(&d, i)[0] = 2;
	dq_event(&d, 5)[0] = (uint32_t)-14;	/* CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST */
	r = (struct rec){ .code = code, .args = &a[0], .args_len = sizeof(a[0]), .num_waits = 2,
			  .waits = { 6, 5 }, .signal = 7 };
	dq_put(&d, &r);
	r = (struct rec){ .code = code, .args = &a[1], .args_len = sizeof(a[0]),
			  .signal = 6 };
	dq_put(&d, &r);
	CHECK_EQ(run_drain(e, 0, NULL, d.va), 0);
	CHECK_EQ(log[0], 1);
	CHECK_EQ(log[1], 2);
	CHECK_EQ(dq_event(&d, 7)[0], (uint32_t)-14);

	/* capture_event_profiling_info: the slot's PROFILE gets the execution time twice. */
	uint64_t *profile;
	uint64_t profile_va = env_buf(e, 4096, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&profile);

	dq_event(&d, 4)[0] = 2;
	memcpy(dq_event(&d, 4) + 6, &profile_va, sizeof(profile_va));
	r = (struct rec){ .code = code, .args = &a[0], .args_len = sizeof(a[0]), .signal = 4 };
	dq_put(&d, &r);
	CHECK_EQ(run_drain(e, 0, NULL, d.va), 0);
	{
		uint64_t *t = (uint64_t *)(dq_event(&d, 4) + 2);

		CHECK(profile[0] && profile[0] == t[1] - t[0] && profile[1] == profile[0],
		      "profile %llu %llu, times %llu %llu", (unsigned long long)profile[0],
		      (unsigned long long)profile[1], (unsigned long long)t[0],
		      (unsigned long long)t[1]);
	}
	/* ... and a PROFILE the VM does not map is a fault at it. */
	memset(dq_event(&d, 4), 0, WEFT_DQ_EVENT_SIZE);
	dq_event(&d, 4)[0] = 2;
	dq_event(&d, 4)[7] = 0x7f;
	r = (struct rec){ .code = code, .args = &a[0], .args_len = sizeof(a[0]), .signal = 4 };
	dq_put(&d, &r);
	CHECK_EQ(run_drain(e, 0, NULL, d.va), WEFT_QERR_MMU_FAULT);
	CHECK_EQ(error_addr(e, 0), 0x7f00000000ull);
	env_reset_queue(e, 0);
	*dq_word(&d, WEFT_DQ_HEAD) = 0;
	*dq_word(&d, WEFT_DQ_DEPTH) = 0;
	memset(dq_event(&d, 4), 0, WEFT_DQ_EVENT_SIZE);

	/* A wait list that can never complete stops the queue at its record. */
	dq_event(&d, 3)[0] = 2;
	r = (struct rec){ .code = code, .args = &a[0], .args_len = sizeof(a[0]), .num_waits = 1,
			  .waits = { 3 }, .signal = WEFT_DQ_SIGNAL_NONE };
	off = dq_put(&d, &r);
	CHECK_EQ(run_drain(e, 0, NULL, d.va), WEFT_QERR_DEVICE_QUEUE);
	CHECK_EQ(error_addr(e, 0), dq_rec_va(&d, off));
	CHECK_EQ(*dq_word(&d, WEFT_DQ_STATUS), WEFT_QERR_DEVICE_QUEUE);
}

/* Queue 1 runs a drain that fails; queue 0's dispatch before and after is unharmed. */
static void expect_isolated(struct env *e, uint32_t code)
{
	static const char *ok_kernel =
		"\ts2r.u64 r0, sr.args\n\tld.global.u64 r2, [r0+0]\n"
		"\ts2r.u32 r4, sr.global_id.x\n\tcvt.u64.u32 r6, r4\n\tshl.u64 r6, r6, 2\n"
		"\tadd.u64 r6, r2, r6\n\tst.global.u32 [r6+0], r4\n\tend\n";
	uint64_t *args;
	uint32_t *out;
	uint64_t args_va = env_buf(e, 4096, WEFT_PTE_VALID, (void **)&args);
	uint64_t out_va = env_buf(e, 4096, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&out);
	struct env_dispatch d = { env_code(e, ok_kernel), args_va, 16, { 100, 1, 1 },
				  { 20, 1, 1 } };

	*args = out_va;
	CHECK(code != 0, "the drain did not fail");
	CHECK_EQ(env_dispatch(e, 0, &d), 0);
	for (uint32_t i = 0; i < 100; i++)
		CHECK(out[i] == i, "queue 0, item %u: %u", i, out[i]);
	CHECK_EQ(env_qreg(e, 0, WEFT_Q_STATUS), WEFT_Q_STATUS_IDLE);
}

static void t_child_fault_hang(void)
{
	struct env *e = fresh(20000);
	struct dq d = dq_create(e, 4096, 0, 0);
	uint64_t bad = env_code(e, "\tmov.u64 r0, 0x7000000000\n\tld.global.u32 r2, [r0+0]\n\tend\n");
	uint64_t hang = env_code(e, "\tloop l\n\tmov.u32 r0, 1\nl:\tendloop\n\tend\n");
	uint64_t code = env_code(e, log_kernel);
	uint32_t *log;
	uint64_t log_va = env_buf(e, 4096, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&log);
	struct logged a = { log_va, 7 };
	struct rec ok = { .code = code, .args = &a, .args_len = sizeof(a),
			  .signal = WEFT_DQ_SIGNAL_NONE };
	struct rec r = ok;
	uint32_t off, err;

	/* A faulting child: the batch fails with the fault; later records never run. */
	dq_put(&d, &ok);
	r.code = bad;
	off = dq_put(&d, &r);
	dq_put(&d, &ok);
	err = run_drain(e, 1, NULL, d.va);
	CHECK_EQ(err, WEFT_QERR_MMU_FAULT);
	CHECK_EQ(error_addr(e, 1), 0x7000000000ull);
	CHECK_EQ(env_reg(e, WEFT_REG_FAULT_ADDR_LO), 0);
	CHECK_EQ(env_reg(e, WEFT_REG_FAULT_ADDR_HI), 0x70);
	CHECK_EQ(*dq_word(&d, WEFT_DQ_STATUS), WEFT_QERR_MMU_FAULT);
	CHECK_EQ(dq_error_record(&d), dq_rec_va(&d, off));
	CHECK_EQ(log[0], 1);
	expect_isolated(e, err);
	env_reset_queue(e, 1);

	/* A hanging child: the watchdog, at its record. */
	memset(log, 0, 64);
	*dq_word(&d, WEFT_DQ_HEAD) = 0;
	r.code = hang;
	off = dq_put(&d, &r);
	dq_put(&d, &ok);
	err = run_drain(e, 1, NULL, d.va);
	CHECK_EQ(err, WEFT_QERR_WATCHDOG);
	CHECK_EQ(error_addr(e, 1), dq_rec_va(&d, off));
	CHECK_EQ(*dq_word(&d, WEFT_DQ_STATUS), WEFT_QERR_WATCHDOG);
	CHECK_EQ(log[0], 0);
	expect_isolated(e, err);
	/* After a reset the queue drains again. */
	env_reset_queue(e, 1);
	*dq_word(&d, WEFT_DQ_HEAD) = 0;
	dq_put(&d, &ok);
	CHECK_EQ(run_drain(e, 1, NULL, d.va), 0);
	CHECK_EQ(log[0], 1);
	CHECK_EQ(*dq_word(&d, WEFT_DQ_STATUS), 0);
}

/* What a bad record or header breaks, and where the error points. */
struct bad_case {
	const char *what;
	uint32_t off, value;	/* the word the host spoils (offset in the queue buffer) */
	uint32_t code;		/* the queue's error */
	int at;			/* ERROR_ADDR: 0 the header, 1 the first record, 2 the second,
				 * -1 the faulting address */
	uint32_t ran;		/* records that ran first */
};

/*
 * Two records of the log kernel, each waiting for event slot 0 (complete:
 * zeroed), and one word spoilt.  The records are checked as they are
 * appended (length, kind, reserved words) and again when they run (wait
 * list, event, dispatch).
 */
static void t_bad_records(void)
{
	const uint32_t r0 = WEFT_DQ_HEADER_SIZE, r1 = r0 + WEFT_DQ_REC_ARGS + 16;
	const struct bad_case cases[] = {
		{ "length not a multiple of 16", r0 + WEFT_DQ_REC_LEN, 0xb8, WEFT_QERR_DEVICE_QUEUE, 1 },
		{ "length 0", r0 + WEFT_DQ_REC_LEN, 0, WEFT_QERR_DEVICE_QUEUE, 1 },
		{ "length below the header", r0 + WEFT_DQ_REC_LEN, 0x90, WEFT_QERR_DEVICE_QUEUE, 1 },
		{ "length past the head", r1 + WEFT_DQ_REC_LEN, 0x1000, WEFT_QERR_DEVICE_QUEUE, 2 },
		{ "kind 0 (unwritten)", r1 + WEFT_DQ_REC_KIND, 0, WEFT_QERR_DEVICE_QUEUE, 2 },
		{ "unknown kind", r0 + WEFT_DQ_REC_KIND, 4, WEFT_QERR_DEVICE_QUEUE, 1 },
		{ "reserved kind bits", r0 + WEFT_DQ_REC_KIND, 0x402, WEFT_QERR_DEVICE_QUEUE, 1 },
		{ "state not 0", r0 + WEFT_DQ_REC_STATE, 1, WEFT_QERR_DEVICE_QUEUE, 1 },
		{ "reserved word", r1 + 0x1c, 5, WEFT_QERR_DEVICE_QUEUE, 2 },
		{ "17 waits", r0 + WEFT_DQ_REC_NUM_WAITS, 17, WEFT_QERR_DEVICE_QUEUE, 1 },
		{ "wait for a slot past the events", r0 + WEFT_DQ_REC_WAITS, 4,
		  WEFT_QERR_DEVICE_QUEUE, 1 },
		{ "signal a slot past the events", r1 + WEFT_DQ_REC_SIGNAL, 4, WEFT_QERR_DEVICE_QUEUE,
		  2, 1 },
		{ "SIMD 7", r1 + WEFT_DQ_REC_DISPATCH + 16, 7, WEFT_QERR_BAD_DISPATCH, 2, 1 },
		{ "local memory past the device's", r1 + WEFT_DQ_REC_DISPATCH + 56, 0x10004,
		  WEFT_QERR_BAD_DISPATCH, 2, 1 },
		{ "code outside the VM", r1 + WEFT_DQ_REC_DISPATCH + 4, 0x7777,
		  WEFT_QERR_MMU_FAULT, -1, 1 },
		{ "misaligned head", WEFT_DQ_HEAD, 0xc8, WEFT_QERR_DEVICE_QUEUE, 0 },
		{ "size not a multiple of 16", WEFT_DQ_SIZE, 1000, WEFT_QERR_DEVICE_QUEUE, 0 },
		{ "size past the maximum", WEFT_DQ_SIZE, WEFT_DQ_SIZE_MAX + 16, WEFT_QERR_DEVICE_QUEUE,
		  0 },
		{ "events past the maximum", WEFT_DQ_EVENTS, WEFT_DQ_EVENTS_MAX + 1,
		  WEFT_QERR_DEVICE_QUEUE, 0 },
		{ "reserved header word", 0x3c, 1, WEFT_QERR_DEVICE_QUEUE, 0 },
		{ "event slots outside the VM", WEFT_DQ_SIZE, WEFT_DQ_SIZE_MAX, WEFT_QERR_MMU_FAULT,
		  -1 },
	};
	struct env *e = fresh(0);
	uint64_t code = env_code(e, log_kernel);
	uint32_t *log;
	uint64_t log_va = env_buf(e, 4096, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&log);
	struct logged a = { log_va, 1 };
	struct rec r = { .code = code, .args = &a, .args_len = sizeof(a), .num_waits = 1,
			 .signal = WEFT_DQ_SIGNAL_NONE };

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bad_case *c = &cases[i];
		struct dq d = dq_create(e, 4096, 4, 0);
		uint64_t want = c->at == 0 ? d.va : dq_rec_va(&d, c->at == 1 ? 0 : r1 - r0);
		uint32_t err;

		dq_put(&d, &r);
		dq_put(&d, &r);
		CHECK_EQ(*dq_word(&d, WEFT_DQ_HEAD), 2 * (r1 - r0));
		*dq_word(&d, c->off) = c->value;
		memset(log, 0, 16);
		err = run_drain(e, 1, NULL, d.va);
		CHECK(err == c->code, "%s: error %u, want %u", c->what, err, c->code);
		if (c->at >= 0)
			CHECK(error_addr(e, 1) == want, "%s: ERROR_ADDR 0x%llx, want 0x%llx", c->what,
			      (unsigned long long)error_addr(e, 1), (unsigned long long)want);
		CHECK(*dq_word(&d, WEFT_DQ_STATUS) == c->code, "%s: status %u", c->what,
		      *dq_word(&d, WEFT_DQ_STATUS));
		CHECK(log[0] == c->ran, "%s: %u records ran, want %u", c->what, log[0], c->ran);
		expect_isolated(e, err);
		env_reset_queue(e, 1);
	}
	/* The same records unspoilt run. */
	{
		struct dq d = dq_create(e, 4096, 4, 0);

		dq_put(&d, &r);
		dq_put(&d, &r);
		memset(log, 0, 16);
		CHECK_EQ(run_drain(e, 1, NULL, d.va), 0);
		CHECK_EQ(log[0], 2);
	}
}

static void t_bad_command(void)
{
	struct env *e = fresh(0);
	struct dq d = dq_create(e, 4096, 0, 0);
	uint32_t *b;
	uint64_t bva = env_buf(e, 4096, WEFT_PTE_VALID, (void **)&b);
	uint64_t ro_va = env_buf(e, 4096, WEFT_PTE_VALID, NULL);

	/* A misaligned queue, a wrong length: BAD_COMMAND at the command. */
	b[0] = CMD(WEFT_CMD_DRAIN_QUEUE, WEFT_CMD_DRAIN_QUEUE_LEN);
	b[1] = (uint32_t)d.va + 32;
	b[2] = (uint32_t)(d.va >> 32);
	env_submit_batch(e, 2, bva, 12, 1);
	CHECK_EQ(env_qreg(e, 2, WEFT_Q_ERROR_CODE), WEFT_QERR_BAD_COMMAND);
	CHECK_EQ(error_addr(e, 2), bva);
	env_reset_queue(e, 2);
	b[0] = CMD(WEFT_CMD_DRAIN_QUEUE, 4);
	b[3] = 0;
	env_submit_batch(e, 2, bva, 16, 2);
	CHECK_EQ(env_qreg(e, 2, WEFT_Q_ERROR_CODE), WEFT_QERR_BAD_COMMAND);
	env_reset_queue(e, 2);
	/* Unmapped: a read fault at the header. */
	CHECK_EQ(run_drain(e, 2, NULL, 0x6000000000ull), WEFT_QERR_MMU_FAULT);
	CHECK_EQ(error_addr(e, 2), 0x6000000000ull);
	env_reset_queue(e, 2);
	/* Read-only: the device cannot write the header (an empty drain resets head). */
	env_wreg(e, WEFT_REG_FAULT_ACK, env_reg(e, WEFT_REG_FAULT_SEQ));
	CHECK_EQ(run_drain(e, 2, NULL, ro_va), WEFT_QERR_MMU_FAULT);
	CHECK_EQ(env_reg(e, WEFT_REG_FAULT_INFO) & 7, WEFT_FAULT_ACCESS_WRITE | WEFT_FAULT_PERMISSION);
	expect_isolated(e, WEFT_QERR_MMU_FAULT);
	env_reset_queue(e, 2);
	/* An empty queue is drained at once. */
	CHECK_EQ(run_drain(e, 2, NULL, d.va), 0);
}

int main(void)
{
	h_run("enqueue: nested children three levels deep, SIMD 8/16/32, the device's depth",
	      t_nested);
	h_run("enqueue: thousands of children, a 4095-record tree", t_thousands);
	h_run("enqueue: full queue, PAD over the tail, unbounded recursion ended by the size",
	      t_full);
	h_run("enqueue: depth bound (given and default) reported at the record", t_depth);
	h_run("enqueue: events order records, markers, failed events, profiling, a wait that never completes",
	      t_events);
	h_run("enqueue: a faulting and a hanging child stop their batch only", t_child_fault_hang);
	h_run("enqueue: malformed records and headers: a clear error, no other queue harmed",
	      t_bad_records);
	h_run("enqueue: DRAIN_QUEUE command errors, unmapped and read-only queues", t_bad_command);
	if (E)
		env_destroy(E);
	return h_summary();
}
