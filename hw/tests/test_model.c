// SPDX-License-Identifier: MIT
/*
 * Host tests of the device model through its register file: handshake,
 * command streamer, errors, MMU faults, reset, watchdog, the dispatch
 * kernel of the IGT test at every SIMD width, and hostile input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "modelenv.h"
#include "weft_isa.h"
#include "weft_model_priv.h"

static struct env *E;

/* A fresh, running device per test. */
static struct env *fresh(uint64_t watchdog)
{
	E = env_renew(E, watchdog);
	CHECK_EQ(env_ready(E), WEFT_DEVICE_RUNNING);
	return E;
}

static void t_identification(void)
{
	struct env *e = env_create(3, 0);

	CHECK_EQ(env_reg(e, WEFT_REG_SIGNATURE), WEFT_SIGNATURE);
	CHECK_EQ(env_reg(e, WEFT_REG_VERSION), WEFT_HW_VERSION_MAJOR << 16 | WEFT_HW_VERSION_MINOR);
	CHECK_EQ(env_reg(e, WEFT_REG_CAPS), WEFT_CAP_SIMD8 | WEFT_CAP_SIMD16 | WEFT_CAP_SIMD32);
	CHECK_EQ(env_reg(e, WEFT_REG_NUM_QUEUES), 4);
	CHECK_EQ(env_reg(e, WEFT_REG_MAX_WG_SIZE), 1024);
	CHECK_EQ(env_reg(e, WEFT_REG_SLM_SIZE), 65536);
	CHECK_EQ(env_reg(e, WEFT_REG_VA_BITS), 48);
	CHECK_EQ(env_reg(e, WEFT_REG_NUM_CORES), 3);
	CHECK_EQ(env_reg(e, WEFT_REG_NUM_VECTORS), 1);
	CHECK_EQ(env_reg(e, WEFT_REG_DEVICE_STATUS), WEFT_DEVICE_STOPPED);
	env_destroy(e);
}

static void t_handshake(void)
{
	struct env *e = env_create(1, 0);
	uint32_t fence[] = { CMD(WEFT_CMD_FENCE, 6), (uint32_t)e->fence_gpa, 0, 5, 0,
			     WEFT_FENCE_FLAG_IRQ };

	/* Before DRIVER_READY nothing runs and no interrupt is sent. */
	env_ring_emit(e, 0, fence, 6);
	env_kick(e, 0);
	CHECK_EQ(env_reg(e, WEFT_REG_DEVICE_STATUS), WEFT_DEVICE_STOPPED);
	CHECK_EQ(env_fence(e), 0);
	CHECK_EQ(atomic_load(&e->irqs), 0);
	/* At the handshake HEAD catches up with TAIL: stale commands are dropped. */
	CHECK_EQ(env_ready(e), WEFT_DEVICE_RUNNING);
	CHECK_EQ(env_qreg(e, 0, WEFT_Q_HEAD), e->tail[0]);
	CHECK_EQ(env_fence(e), 0);
	CHECK_EQ(atomic_load(&e->irqs), 0);
	/* Now a fence runs. */
	env_ring_emit(e, 0, fence, 6);
	env_kick(e, 0);
	CHECK_EQ(env_fence(e), 5);
	CHECK_EQ(atomic_load(&e->irqs), 1);
	CHECK_EQ(env_reg(e, WEFT_REG_IRQ_SEQ), 1);
	CHECK_EQ(env_qreg(e, 0, WEFT_Q_HEAD), e->tail[0]);
	CHECK_EQ(env_qreg(e, 0, WEFT_Q_STATUS), WEFT_Q_STATUS_IDLE);
	/* DRIVER_READY = 0 stops the device. */
	env_wreg(e, WEFT_REG_DRIVER_READY, 0);
	weft_model_doorbell(e->m);
	weft_model_wait_idle(e->m);
	CHECK_EQ(env_reg(e, WEFT_REG_DEVICE_STATUS), WEFT_DEVICE_STOPPED);
	fence[3] = 6;
	env_ring_emit(e, 0, fence, 6);
	env_kick(e, 0);
	CHECK_EQ(env_fence(e), 5);
	env_destroy(e);
}

static void t_fence_nop_irq(void)
{
	struct env *e = fresh(0);
	uint32_t cmds[] = {
		CMD(WEFT_CMD_NOP, 3), 0xdead, 0xbeef,
		CMD(WEFT_CMD_FENCE, 6), (uint32_t)e->fence_gpa, 0, 0x89abcdef, 0x01234567, 0,
		CMD(WEFT_CMD_FENCE, 6), (uint32_t)e->fence_gpa + 8, 0, 1, 0, WEFT_FENCE_FLAG_IRQ,
	};

	env_ring_emit(e, 1, cmds, sizeof(cmds) / 4);
	env_kick(e, 1);
	CHECK_EQ(env_fence(e), 0x0123456789abcdefull);
	CHECK_EQ(*(uint64_t *)env_host(e, e->fence_gpa + 8), 1);
	CHECK_EQ(atomic_load(&e->irqs), 1);
	CHECK_EQ(env_qreg(e, 1, WEFT_Q_HEAD), sizeof(cmds) / 4);
	/* Wrap around the end of the ring. */
	for (int i = 0; i < 300; i++) {
		cmds[6] = i;
		env_ring_emit(e, 1, cmds + 3, 6);
		if (i % 100 == 99)
			env_kick(e, 1);
	}
	CHECK_EQ(env_fence(e), 0x0123456700000000ull + 299);
	CHECK_EQ(env_qreg(e, 1, WEFT_Q_HEAD), e->tail[1]);
	CHECK_EQ(env_qreg(e, 1, WEFT_Q_STATUS), WEFT_Q_STATUS_IDLE);
}

static void t_batch_write_data(void)
{
	struct env *e = fresh(0);
	uint32_t *b;
	uint64_t *dst;
	uint64_t bva = env_buf(e, 4096, WEFT_PTE_VALID, (void **)&b);
	uint64_t dva = env_buf(e, 4096, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&dst);
	uint32_t i = 0;

	b[i++] = CMD(WEFT_CMD_NOP, 2);
	b[i++] = 0;
	b[i++] = CMD(WEFT_CMD_WRITE_DATA, 5);
	b[i++] = (uint32_t)dva + 8;
	b[i++] = (uint32_t)(dva >> 32);
	b[i++] = 0x11223344;
	b[i++] = 0x55667788;
	b[i++] = CMD(WEFT_CMD_END, 1);
	b[i++] = CMD(0x7f, 1);	/* after END: never read */
	env_submit_batch(e, 0, bva, i * 4, 42);
	CHECK_EQ(dst[1], 0x5566778811223344ull);
	CHECK_EQ(env_fence(e), 42);
	CHECK_EQ(env_qreg(e, 0, WEFT_Q_STATUS), WEFT_Q_STATUS_IDLE);
	/* A batch without END ends at its size. */
	b[7] = CMD(WEFT_CMD_NOP, 1);
	b[6] = 0x99;
	env_submit_batch(e, 0, bva, 8 * 4, 43);
	CHECK_EQ(dst[1], 0x0000009911223344ull);
	CHECK_EQ(env_fence(e), 43);
}

/* Submits a batch with one bad command at dword @at; checks the error. */
static void expect_batch_error(const uint32_t *cmds, unsigned n, unsigned at, uint32_t code)
{
	struct env *e = fresh(0);
	uint32_t *b;
	uint64_t bva = env_buf(e, 4096, WEFT_PTE_VALID, (void **)&b);

	memcpy(b, cmds, n * 4);
	env_submit_batch(e, 2, bva, n * 4, 9);
	CHECK_EQ(env_qreg(e, 2, WEFT_Q_STATUS), WEFT_Q_STATUS_ERROR);
	CHECK_EQ(env_qreg(e, 2, WEFT_Q_ERROR_CODE), code);
	CHECK_EQ(env_qreg(e, 2, WEFT_Q_ERROR_SEQ), 1);
	CHECK_EQ(env_qreg(e, 2, WEFT_Q_ERROR_ADDR_LO) |
		 (uint64_t)env_qreg(e, 2, WEFT_Q_ERROR_ADDR_HI) << 32, bva + at * 4);
	CHECK_EQ(env_fence(e), 0);	/* the fence after the batch did not run */
	CHECK(atomic_load(&e->irqs) == 1, "one interrupt for the error, got %u",
	      atomic_load(&e->irqs));
}

static void t_privileged_in_batch(void)
{
	uint32_t c[] = { CMD(WEFT_CMD_NOP, 1), CMD(WEFT_CMD_FENCE, 6), 0, 0, 0, 0, 0 };
	uint32_t c2[] = { CMD(WEFT_CMD_BATCH, 4), 0, 0, 0 };
	uint32_t c3[] = { CMD(WEFT_CMD_SET_VM, 4), 0, 0, 0 };

	expect_batch_error(c, 7, 1, WEFT_QERR_PRIVILEGED_IN_BATCH);
	expect_batch_error(c2, 4, 0, WEFT_QERR_PRIVILEGED_IN_BATCH);
	expect_batch_error(c3, 4, 0, WEFT_QERR_PRIVILEGED_IN_BATCH);
}

static void t_bad_commands(void)
{
	uint32_t unk[] = { CMD(WEFT_CMD_NOP, 1), CMD(0x42, 1) };
	uint32_t len0[] = { CMD(WEFT_CMD_NOP, 0) };
	uint32_t endlen[] = { CMD(WEFT_CMD_END, 2), 0 };
	uint32_t wdlen[] = { CMD(WEFT_CMD_WRITE_DATA, 4), 0, 0, 0 };
	uint32_t rsvd[] = { CMD(WEFT_CMD_NOP, 1) | 0x10000 };
	uint32_t past[] = { CMD(WEFT_CMD_NOP, 1), CMD(WEFT_CMD_NOP, 9) };
	uint32_t dlen[] = { CMD(WEFT_CMD_DISPATCH, 15), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };

	expect_batch_error(unk, 2, 1, WEFT_QERR_BAD_COMMAND);
	expect_batch_error(len0, 1, 0, WEFT_QERR_BAD_COMMAND);
	expect_batch_error(endlen, 2, 0, WEFT_QERR_BAD_COMMAND);
	expect_batch_error(wdlen, 4, 0, WEFT_QERR_BAD_COMMAND);
	expect_batch_error(rsvd, 1, 0, WEFT_QERR_BAD_COMMAND);
	expect_batch_error(past, 2, 1, WEFT_QERR_BAD_COMMAND);
	expect_batch_error(dlen, 15, 0, WEFT_QERR_BAD_COMMAND);
}

static void expect_ring_error(const uint32_t *cmds, unsigned n)
{
	struct env *e = fresh(0);
	uint32_t before = e->tail[3];

	env_ring_emit(e, 3, cmds, n);
	env_kick(e, 3);
	CHECK_EQ(env_qreg(e, 3, WEFT_Q_STATUS), WEFT_Q_STATUS_ERROR);
	CHECK_EQ(env_qreg(e, 3, WEFT_Q_ERROR_CODE), WEFT_QERR_BAD_COMMAND);
	CHECK_EQ(env_qreg(e, 3, WEFT_Q_ERROR_ADDR_LO), e->ring[3] + before * 4);
	CHECK_EQ(env_qreg(e, 3, WEFT_Q_HEAD), before);
}

static void t_bad_ring_commands(void)
{
	struct env *e;
	uint32_t unk[] = { CMD(0x99, 1) };
	uint32_t fence5[] = { CMD(WEFT_CMD_FENCE, 5), 0, 0, 0, 0 };
	uint32_t fence_align[] = { CMD(WEFT_CMD_FENCE, 6), 4, 0, 0, 0, 0 };
	uint32_t fence_oob[] = { CMD(WEFT_CMD_FENCE, 6), 0, 0x100, 0, 0, 0 };
	uint32_t fence_flags[] = { CMD(WEFT_CMD_FENCE, 6), 0x10000, 0, 0, 0, 2 };
	uint32_t batch_novm[] = { CMD(WEFT_CMD_BATCH, 4), 0, 0, 0 };
	uint32_t vm_oob[] = { CMD(WEFT_CMD_SET_VM, 4), 0, 0x1000, 0 };
	uint32_t dispatch_in_ring[] = { CMD(WEFT_CMD_END, 1) };

	expect_ring_error(unk, 1);
	expect_ring_error(fence5, 5);
	expect_ring_error(fence_align, 6);
	expect_ring_error(fence_oob, 6);
	expect_ring_error(fence_flags, 6);
	expect_ring_error(batch_novm, 4);
	expect_ring_error(vm_oob, 4);
	expect_ring_error(dispatch_in_ring, 1);

	/* A ring outside guest memory. */
	e = fresh(0);
	env_wqreg(e, 0, WEFT_Q_RING_BASE_HI, 0x7);
	env_ring_emit(e, 0, unk, 1);
	env_kick(e, 0);
	CHECK_EQ(env_qreg(e, 0, WEFT_Q_ERROR_CODE), WEFT_QERR_BAD_COMMAND);
	/* TAIL further ahead than the ring is long. */
	e = fresh(0);
	env_wqreg(e, 1, WEFT_Q_TAIL, 5000);
	weft_model_doorbell(e->m);
	weft_model_wait_idle(e->m);
	CHECK_EQ(env_qreg(e, 1, WEFT_Q_ERROR_CODE), WEFT_QERR_BAD_COMMAND);
}

static void t_partial_command_waits(void)
{
	struct env *e = fresh(0);
	uint32_t fence[] = { CMD(WEFT_CMD_FENCE, 6), (uint32_t)e->fence_gpa, 0, 3, 0, 0 };

	env_ring_emit(e, 0, fence, 6);
	env_wqreg(e, 0, WEFT_Q_TAIL, e->tail[0] - 2);
	weft_model_doorbell(e->m);
	weft_model_wait_idle(e->m);
	CHECK_EQ(env_fence(e), 0);
	CHECK_EQ(env_qreg(e, 0, WEFT_Q_STATUS), WEFT_Q_STATUS_BUSY);
	env_kick(e, 0);
	CHECK_EQ(env_fence(e), 3);
	CHECK_EQ(env_qreg(e, 0, WEFT_Q_STATUS), WEFT_Q_STATUS_IDLE);
}

static void t_reset_and_isolation(void)
{
	struct env *e = fresh(0);
	uint32_t bad[] = { CMD(0x99, 1) };
	uint32_t fence[] = { CMD(WEFT_CMD_FENCE, 6), (uint32_t)e->fence_gpa, 0, 77, 0,
			     WEFT_FENCE_FLAG_IRQ };
	unsigned irqs;

	env_ring_emit(e, 0, bad, 1);
	env_ring_emit(e, 0, fence, 6);
	env_kick(e, 0);
	CHECK_EQ(env_qreg(e, 0, WEFT_Q_STATUS), WEFT_Q_STATUS_ERROR);
	CHECK_EQ(env_fence(e), 0);
	/* Another queue still runs. */
	env_ring_emit(e, 1, fence, 6);
	env_kick(e, 1);
	CHECK_EQ(env_fence(e), 77);
	CHECK_EQ(env_qreg(e, 1, WEFT_Q_STATUS), WEFT_Q_STATUS_IDLE);
	/* The broken queue stays stopped on a doorbell ... */
	env_kick(e, 0);
	CHECK_EQ(env_qreg(e, 0, WEFT_Q_STATUS), WEFT_Q_STATUS_ERROR);
	/* ... until reset: RESET_ACK follows RESET_REQ, HEAD = TAIL, an interrupt. */
	irqs = atomic_load(&e->irqs);
	env_reset_queue(e, 0);
	CHECK_EQ(env_qreg(e, 0, WEFT_Q_RESET_ACK), env_qreg(e, 0, WEFT_Q_RESET_REQ));
	CHECK_EQ(env_qreg(e, 0, WEFT_Q_STATUS), WEFT_Q_STATUS_IDLE);
	CHECK_EQ(env_qreg(e, 0, WEFT_Q_ERROR_CODE), WEFT_QERR_NONE);
	CHECK_EQ(env_qreg(e, 0, WEFT_Q_HEAD), e->tail[0]);
	CHECK_EQ(atomic_load(&e->irqs), irqs + 1);
	fence[3] = 78;
	env_ring_emit(e, 0, fence, 6);
	env_kick(e, 0);
	CHECK_EQ(env_fence(e), 78);
	CHECK_EQ(env_qreg(e, 0, WEFT_Q_ERROR_SEQ), 1);
}

static const char *dispatch_kernel =
	"\ts2r.u64 r0, sr.args\n"
	"\tld.global.u64 r2, [r0+0]\n"
	"\ts2r.u32 r4, sr.global_id.x\n"
	"\ts2r.u32 r5, sr.group_id.x\n"
	"\ts2r.u32 r6, sr.subgroup_id\n"
	"\ts2r.u32 r7, sr.lane_id\n"
	"\tcvt.u64.u32 r10, r4\n"
	"\tshl.u64 r10, r10, 4\n"
	"\tadd.u64 r10, r2, r10\n"
	"\tst.global.u32 [r10+0], r4\n"
	"\tst.global.u32 [r10+4], r5\n"
	"\tst.global.u32 [r10+8], r6\n"
	"\tst.global.u32 [r10+12], r7\n"
	"\tend\n";

static void t_dispatch_kernel(void)
{
	static const uint32_t simds[] = { 8, 16, 32 };
	static const uint32_t locals[] = { 1, 8, 13, 16, 32, 50, 64, 100, 1024 };
	static const uint32_t globals[] = { 1, 100, 1000, 4099 };
	struct env *e = fresh(0);
	uint64_t code = env_code(e, dispatch_kernel);
	uint64_t *args;
	uint32_t *out;
	uint64_t args_va = env_buf(e, 4096, WEFT_PTE_VALID, (void **)&args);
	uint64_t out_va = env_buf(e, 4100 * 16 + 64, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&out);

	*args = out_va;
	for (unsigned s = 0; s < 3; s++)
	for (unsigned li = 0; li < sizeof(locals) / 4; li++)
	for (unsigned gi = 0; gi < sizeof(globals) / 4; gi++) {
		uint32_t simd = simds[s], lx = locals[li], gx = globals[gi];
		struct env_dispatch d = { code, args_va, simd, { gx, 1, 1 }, { lx, 1, 1 } };
		uint32_t err;

		memset(out, 0xa5, 4100 * 16 + 64);
		err = env_dispatch(e, 0, &d);
		CHECK(err == 0, "simd %u local %u global %u: error %u", simd, lx, gx, err);
		for (uint32_t i = 0; i < gx; i++) {
			uint32_t lid = i % lx;
			uint32_t *o = out + 4 * i;

			if (o[0] != i || o[1] != i / lx || o[2] != lid / simd || o[3] != lid % simd) {
				CHECK(0, "simd %u local %u global %u item %u: got %u %u %u %u", simd,
				      lx, gx, i, o[0], o[1], o[2], o[3]);
				break;
			}
		}
		/* Inactive lanes past the end wrote nothing. */
		for (uint32_t i = gx * 4; i < gx * 4 + 16; i++)
			CHECK(out[i] == 0xa5a5a5a5, "simd %u local %u global %u: write past the end",
			      simd, lx, gx);
	}
}

static void t_dispatch_3d(void)
{
	/* Every work-item writes its ids; check against a C reference. */
	static const char *src =
		"\ts2r.u64 r0, sr.args\n"
		"\tld.global.u64 r2, [r0+0]\n"
		"\ts2r.u32 r4, sr.global_id.x\n"
		"\ts2r.u32 r5, sr.global_id.y\n"
		"\ts2r.u32 r6, sr.global_id.z\n"
		"\ts2r.u32 r7, sr.global_size.x\n"
		"\ts2r.u32 r8, sr.global_size.y\n"
		"\tsub.u32 r9, r6, 100\n"		/* global_offset.z = 100 */
		"\tmul.u32 r9, r9, r8\n"
		"\tadd.u32 r9, r9, r5\n"
		"\tsub.u32 r9, r9, 200\n"		/* global_offset.y = 200 */
		"\tmul.u32 r9, r9, r7\n"
		"\tadd.u32 r9, r9, r4\n"
		"\tcvt.u64.u32 r10, r9\n"
		"\tshl.u64 r10, r10, 5\n"
		"\tadd.u64 r10, r2, r10\n"
		"\ts2r.u32 r12, sr.local_id.x\n"
		"\ts2r.u32 r13, sr.local_id.y\n"
		"\ts2r.u32 r14, sr.local_id.z\n"
		"\ts2r.u32 r15, sr.local_linear_id\n"
		"\ts2r.u32 r16, sr.subgroup_size\n"
		"\ts2r.u32 r17, sr.num_subgroups\n"
		"\ts2r.u32 r18, sr.local_size.x\n"
		"\ts2r.u32 r19, sr.num_groups.y\n"
		"\tst.global.u32 [r10+0], r12\n"
		"\tst.global.u32 [r10+4], r13\n"
		"\tst.global.u32 [r10+8], r14\n"
		"\tst.global.u32 [r10+12], r15\n"
		"\tst.global.u32 [r10+16], r16\n"
		"\tst.global.u32 [r10+20], r17\n"
		"\tst.global.u32 [r10+24], r18\n"
		"\tst.global.u32 [r10+28], r19\n"
		"\tend\n";
	struct env *e = fresh(0);
	uint64_t code = env_code(e, src), *args;
	uint64_t args_va = env_buf(e, 4096, WEFT_PTE_VALID, (void **)&args);
	uint32_t G[3] = { 11, 7, 5 }, L[3] = { 4, 3, 2 }, *out;
	uint64_t out_va = env_buf(e, 11 * 7 * 5 * 32, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&out);

	*args = out_va;
	for (uint32_t simd = 8; simd <= 32; simd *= 2) {
		struct env_dispatch d = { code, args_va, simd, { G[0], G[1], G[2] }, { L[0], L[1], L[2] },
					  { 0, 200, 100 } };

		memset(out, 0, 11 * 7 * 5 * 32);
		CHECK_EQ(env_dispatch(e, 1, &d), 0);
		for (uint32_t z = 0; z < G[2]; z++)
		for (uint32_t y = 0; y < G[1]; y++)
		for (uint32_t x = 0; x < G[0]; x++) {
			uint32_t *o = out + 8 * (x + G[0] * (y + G[1] * z));
			uint32_t ls[3], lid[3] = { x % L[0], y % L[1], z % L[2] };
			uint32_t gid[3] = { x / L[0], y / L[1], z / L[2] }, g[3] = { x, y, z };
			uint32_t n, lin, sub;

			for (int i = 0; i < 3; i++)
				ls[i] = G[i] - gid[i] * L[i] < L[i] ? G[i] - gid[i] * L[i] : L[i];
			(void)g;
			n = ls[0] * ls[1] * ls[2];
			lin = lid[0] + lid[1] * ls[0] + lid[2] * ls[0] * ls[1];
			sub = lin / simd;
			if (o[0] != lid[0] || o[1] != lid[1] || o[2] != lid[2] || o[3] != lin ||
			    o[4] != (n - sub * simd < simd ? n - sub * simd : simd) ||
			    o[5] != (n + simd - 1) / simd || o[6] != ls[0] || o[7] != 3) {
				CHECK(0, "simd %u item %u,%u,%u: %u %u %u %u %u %u %u %u", simd, x, y, z,
				      o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7]);
				break;
			}
		}
	}
}

static void t_bad_dispatch(void)
{
	struct env *e = fresh(0);
	uint64_t code = env_code(e, "end\n");
	struct env_dispatch ok = { code, 0, 8, { 8, 1, 1 }, { 8, 1, 1 } }, d;

	CHECK_EQ(env_dispatch(e, 0, &ok), 0);
#define BAD(field_set) do { \
		d = ok; field_set; \
		CHECK(env_dispatch(e, 0, &d) == WEFT_QERR_BAD_DISPATCH, "%s", #field_set); \
		env_reset_queue(e, 0); \
	} while (0)
	BAD(d.simd = 12);
	BAD(d.simd = 0);
	BAD(d.simd = 64);
	BAD(d.gsize[1] = 0);
	BAD(d.lsize[2] = 0);
	BAD(d.lsize[0] = 1025);
	BAD(d.lsize[0] = 64; d.lsize[1] = 17);
	BAD(d.lsize[0] = 0x10000; d.lsize[1] = 0x10000);
	BAD(d.slm = 65537);
	BAD(d.code_va = code + 4);
#undef BAD
	d = ok;
	d.lsize[0] = 1024;
	d.slm = 65536;
	CHECK_EQ(env_dispatch(e, 0, &d), 0);
}

static uint64_t fault_addr(struct env *e)
{
	return env_reg(e, WEFT_REG_FAULT_ADDR_LO) | (uint64_t)env_reg(e, WEFT_REG_FAULT_ADDR_HI) << 32;
}

static void t_mmu_faults(void)
{
	struct env *e = fresh(0);
	uint64_t *args, ro_va, args_va = env_buf(e, 4096, WEFT_PTE_VALID, (void **)&args);
	void *ro;
	uint64_t st_code = env_code(e, "s2r.u64 r0, sr.args\nld.global.u64 r2, [r0+0]\n"
				       "mov.u32 r4, 7\nst.global.u32 [r2+12], r4\nend\n");
	uint64_t ld_code = env_code(e, "s2r.u64 r0, sr.args\nld.global.u64 r2, [r0+0]\n"
				       "ld.global.u32 r4, [r2-4]\nend\n");
	struct env_dispatch d = { st_code, args_va, 8, { 1, 1, 1 }, { 1, 1, 1 } };

	ro_va = env_buf(e, 4096, WEFT_PTE_VALID, &ro);
	/* Write to a read-only page: permission fault, nothing written. */
	*args = ro_va;
	CHECK_EQ(env_dispatch(e, 2, &d), WEFT_QERR_MMU_FAULT);
	CHECK_EQ(env_reg(e, WEFT_REG_FAULT_SEQ), 1);
	CHECK_EQ(fault_addr(e), ro_va + 12);
	CHECK_EQ(env_reg(e, WEFT_REG_FAULT_INFO),
		 WEFT_FAULT_ACCESS_WRITE | WEFT_FAULT_PERMISSION | 2 << WEFT_FAULT_QUEUE_SHIFT);
	CHECK_EQ(env_qreg(e, 2, WEFT_Q_ERROR_ADDR_LO), (uint32_t)(ro_va + 12));
	CHECK_EQ(((uint32_t *)ro)[3], 0);
	/* A second fault before FAULT_ACK: queue error, fault block unchanged. */
	env_reset_queue(e, 2);
	*args = 0x5000;	/* not mapped */
	d.code_va = ld_code;
	CHECK_EQ(env_dispatch(e, 2, &d), WEFT_QERR_MMU_FAULT);
	CHECK_EQ(env_reg(e, WEFT_REG_FAULT_SEQ), 1);
	CHECK_EQ(fault_addr(e), ro_va + 12);
	CHECK_EQ(env_qreg(e, 2, WEFT_Q_ERROR_ADDR_LO), 0x5000 - 4);
	/* Acknowledge; a read of an unmapped page: not present, READ. */
	env_wreg(e, WEFT_REG_FAULT_ACK, 1);
	env_reset_queue(e, 2);
	CHECK_EQ(env_dispatch(e, 2, &d), WEFT_QERR_MMU_FAULT);
	CHECK_EQ(env_reg(e, WEFT_REG_FAULT_SEQ), 2);
	CHECK_EQ(fault_addr(e), 0x5000 - 4);
	CHECK_EQ(env_reg(e, WEFT_REG_FAULT_INFO),
		 WEFT_FAULT_ACCESS_READ | WEFT_FAULT_NOT_PRESENT | 2 << WEFT_FAULT_QUEUE_SHIFT);
	/* Code in a page without EXEC: permission fault, EXEC. */
	env_wreg(e, WEFT_REG_FAULT_ACK, 2);
	env_reset_queue(e, 2);
	d.code_va = args_va;
	CHECK_EQ(env_dispatch(e, 2, &d), WEFT_QERR_MMU_FAULT);
	CHECK_EQ(fault_addr(e), args_va);
	CHECK_EQ(env_reg(e, WEFT_REG_FAULT_INFO),
		 WEFT_FAULT_ACCESS_EXEC | WEFT_FAULT_PERMISSION | 2 << WEFT_FAULT_QUEUE_SHIFT);
	/* Code not mapped at all (a VA beyond 48 bits too). */
	env_wreg(e, WEFT_REG_FAULT_ACK, 3);
	env_reset_queue(e, 2);
	d.code_va = 0x7ffff000ull;
	CHECK_EQ(env_dispatch(e, 2, &d), WEFT_QERR_MMU_FAULT);
	CHECK_EQ(env_reg(e, WEFT_REG_FAULT_INFO),
		 WEFT_FAULT_ACCESS_EXEC | WEFT_FAULT_NOT_PRESENT | 2 << WEFT_FAULT_QUEUE_SHIFT);
	env_wreg(e, WEFT_REG_FAULT_ACK, 4);
	env_reset_queue(e, 2);
	d.code_va = 1ull << 50;
	CHECK_EQ(env_dispatch(e, 2, &d), WEFT_QERR_MMU_FAULT);
	CHECK_EQ(fault_addr(e), 1ull << 50);
	/* The batch itself unmapped: READ fault at the batch VA. */
	env_wreg(e, WEFT_REG_FAULT_ACK, 5);
	env_reset_queue(e, 2);
	env_submit_batch(e, 2, 0x9000, 64, 1234);
	CHECK_EQ(env_qreg(e, 2, WEFT_Q_ERROR_CODE), WEFT_QERR_MMU_FAULT);
	CHECK_EQ(fault_addr(e), 0x9000);
	CHECK_EQ(env_reg(e, WEFT_REG_FAULT_INFO),
		 WEFT_FAULT_ACCESS_READ | WEFT_FAULT_NOT_PRESENT | 2 << WEFT_FAULT_QUEUE_SHIFT);
	/* A page-table entry pointing outside guest memory reads as not present. */
	env_wreg(e, WEFT_REG_FAULT_ACK, 6);
	env_reset_queue(e, 2);
	env_map(e, 0x40000000, 0x7fff000000ull, 4096, WEFT_PTE_VALID | WEFT_PTE_WRITE);
	*args = 0x40000000;
	d.code_va = st_code;
	CHECK_EQ(env_dispatch(e, 2, &d), WEFT_QERR_MMU_FAULT);
	CHECK_EQ(env_reg(e, WEFT_REG_FAULT_INFO),
		 WEFT_FAULT_ACCESS_WRITE | WEFT_FAULT_NOT_PRESENT | 2 << WEFT_FAULT_QUEUE_SHIFT);
	/* WRITE_DATA to a read-only page. */
	env_wreg(e, WEFT_REG_FAULT_ACK, 7);
	env_reset_queue(e, 2);
	{
		uint32_t *b;
		uint64_t bva = env_buf(e, 4096, WEFT_PTE_VALID, (void **)&b);

		b[0] = CMD(WEFT_CMD_WRITE_DATA, 5);
		b[1] = (uint32_t)ro_va;
		b[2] = (uint32_t)(ro_va >> 32);
		env_submit_batch(e, 2, bva, 20, 1);
		CHECK_EQ(env_qreg(e, 2, WEFT_Q_ERROR_CODE), WEFT_QERR_MMU_FAULT);
		CHECK_EQ(fault_addr(e), ro_va);
	}
	/* Other queues keep working. */
	d.code_va = ld_code;
	*args = ro_va + 8;
	CHECK_EQ(env_dispatch(e, 0, &d), 0);
}

/*
 * Every kind of memory instruction against the MMU: at an unmapped VA
 * (not present), on a read-only page (stores and atomics: a permission
 * fault that writes nothing; loads succeed), across the end of a mapping
 * (the first byte of the unmapped page), and from inactive lanes only
 * (no access, no fault).  r2 holds the address in every lane, r4.. data.
 */
static const struct mmu_form {
	const char *insn;
	int write;		/* 0: READ, 1: WRITE, 2: an atomic (READ or WRITE when not present) */
	unsigned bytes;		/* bytes a lane accesses (0: a block, not run across a page end) */
} mmu_forms[] = {
	{ "ld.global.u32 r4, [r2+0]", 0, 4 },
	{ "ld.global.s16 r4, [r2+0]", 0, 2 },
	{ "ld.global.u64 r4, [r2+0]", 0, 8 },
	{ "st.global.u8 [r2+0], r4", 1, 1 },
	{ "st.global.u64 [r2+0], r4", 1, 8 },
	{ "ld.global.v2.u64 r4, [r2+0]", 0, 16 },
	{ "ld.global.v4.u32 r4, [r2+0]", 0, 16 },
	{ "st.global.v2.u32 [r2+0], r4", 1, 8 },
	{ "st.global.v4.u64 [r2+0], r4", 1, 32 },
	{ "atom.global.add.u32 r4, [r2], r6", 2, 4 },
	{ "atom.global.cmpxchg.u64 r4, [r2], r6, r8", 2, 8 },
	{ "atom.global.inc.s32 r4, [r2]", 2, 4 },
	{ "atom.global.fadd.f64 r4, [r2], r6", 2, 8 },
	{ "ld.block4.u32 r4, [r2+0]", 0, 0 },
	{ "st.block2.u16 [r2+0], r4", 1, 0 },
};

static uint32_t mmu_run(struct env *e, uint64_t args_va, const char *insn, unsigned simd,
			int only_lane0)
{
	char src[1024];
	struct env_dispatch d = { 0, args_va, simd, { 2 * simd + 3, 1, 1 }, { 2 * simd + 3, 1, 1 } };

	/* args[0]: the address; args[1]: a harmless one for the inactive-lanes case */
	snprintf(src, sizeof(src),
		 "\ts2r.u64 r0, sr.args\n"
		 "\tld.global.u64 r2, [r0+0]\n"
		 "\tld.global.u64 r10, [r0+8]\n"
		 "\tmov.u64 r4, 0x0102030405060708\n\tmov.u64 r6, 1\n\tmov.u64 r8, 2\n"
		 "\ts2r.u32 r12, sr.lane_id\n"
		 "\tset.eq.u32 r13, r12, 0\n"
		 "\tmov.u32 r14, 1\n"
		 "\tmov.u32 r15, %d\n"
		 "\tif r15, y\n"		/* only lane 0 active, with the harmless address */
		 "\tsel.u64 r2, r10, r2, r13\n"
		 "\tmov.u32 r14, r13\n"
		 "y:\tendif\n"
		 "\tif r14, x\n"
		 "\t%s\n"
		 "x:\tendif\n"
		 "\tend\n", only_lane0, insn);
	d.code_va = env_code(e, src);
	return env_dispatch(e, 3, &d);
}

static void t_mmu_forms(void)
{
	struct env *e = fresh(0);
	uint64_t *args, args_va = env_buf(e, 4096, WEFT_PTE_VALID, (void **)&args);
	uint8_t *ro, *rw, ro_copy[4096];
	uint64_t ro_va = env_buf(e, 4096, WEFT_PTE_VALID, (void **)&ro);
	uint64_t rw_va = env_buf(e, 4096, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&rw);
	uint32_t seq = env_reg(e, WEFT_REG_FAULT_SEQ);

	for (unsigned i = 0; i < 4096; i++)
		ro[i] = (uint8_t)(i * 7 + 1);
	memcpy(ro_copy, ro, sizeof(ro_copy));
	args[1] = rw_va + 64;
	for (unsigned k = 0; k < sizeof(mmu_forms) / sizeof(mmu_forms[0]); k++)
	for (unsigned si = 0; si < 3; si++) {
		const struct mmu_form *f = &mmu_forms[k];
		unsigned simd = 8 << si;
		/* 0: unmapped, 1: read-only, 2: across the end of rw, 3: inactive lanes only */
		for (unsigned sc = 0; sc < 4; sc++) {
			uint64_t addr = sc == 0 ? 0x100000000000ull + 0x40 : sc == 1 ? ro_va + 32 :
					sc == 2 ? rw_va + 4096 - f->bytes / 2 : 0x100000000000ull;
			int fault = sc == 0 || sc == 2 || (sc == 1 && f->write);
			uint32_t err, info, want_info;

			if (sc == 2 && (f->bytes < 2 || f->write == 2))
				continue;	/* atomics are aligned: they never cross a page */
			args[0] = addr;
			err = mmu_run(e, args_va, f->insn, simd, sc == 3);
			if (!fault) {
				CHECK(err == 0, "'%s' simd %u case %u: error %u", f->insn, simd, sc, err);
				continue;
			}
			info = env_reg(e, WEFT_REG_FAULT_INFO);
			want_info = (sc == 1 ? WEFT_FAULT_PERMISSION : WEFT_FAULT_NOT_PRESENT) |
				    3 << WEFT_FAULT_QUEUE_SHIFT |
				    (f->write == 1 || sc == 1 ? WEFT_FAULT_ACCESS_WRITE : WEFT_FAULT_ACCESS_READ);
			CHECK(err == WEFT_QERR_MMU_FAULT, "'%s' simd %u case %u: error %u", f->insn, simd,
			      sc, err);
			CHECK(env_reg(e, WEFT_REG_FAULT_SEQ) == ++seq, "'%s' simd %u case %u: no fault recorded",
			      f->insn, simd, sc);
			CHECK(fault_addr(e) == (sc == 2 ? rw_va + 4096 : addr),
			      "'%s' simd %u case %u: fault address 0x%llx", f->insn, simd, sc,
			      (unsigned long long)fault_addr(e));
			if (f->write == 2 && sc != 1)	/* an atomic on nothing: READ or WRITE */
				want_info = (want_info & ~WEFT_FAULT_ACCESS_MASK) |
					    (info & WEFT_FAULT_ACCESS_MASK & 1);
			CHECK(info == want_info, "'%s' simd %u case %u: info 0x%x want 0x%x", f->insn, simd,
			      sc, info, want_info);
			CHECK(!memcmp(ro, ro_copy, sizeof(ro_copy)), "'%s' simd %u: read-only page written",
			      f->insn, simd);
			env_wreg(e, WEFT_REG_FAULT_ACK, seq);
			env_reset_queue(e, 3);
		}
	}
	/* The other queues were never disturbed. */
	CHECK_EQ(mmu_run(e, args_va, "nop", 8, 0), 0);
}

/* Whether the TLB of @mmu translates page @vpn to @host. */
static bool tlb_holds(const struct weft_mmu *mmu, uint64_t vpn, const void *host)
{
	const struct weft_tlb_entry *t = weft_tlb_holds(mmu, vpn);

	return t && t->host == host;
}

/*
 * A stream's TLB miss translates the rest of its run of WEFT_TLB_RUN pages
 * (weft_mmu.c).  The run's first page misses alone (the page below is not
 * in the TLB); the second one's miss puts each later page of the run in
 * the TLB with its own translation, except a page not mapped, which still
 * faults, and a read-only page still refuses a write.  In a second run the
 * stream takes every other page (another core takes the rest): the miss
 * of its third page fills the rest of the run, not the second page.
 */
static void t_mmu_stream(void)
{
	enum { HOLE = 9, READ_ONLY = 12, SECOND = 2 * WEFT_TLB_RUN };
	struct env *e = fresh(0);
	struct weft_mmu *mmu = calloc(1, sizeof(*mmu));
	uint64_t va = 0x500000000000ull, vpn = va >> WEFT_MMU_PAGE_SHIFT, gpa[3 * WEFT_TLB_RUN];
	struct weft_fault f = { 0 };

	if (!mmu) {
		CHECK(0, "no memory for an MMU");
		return;
	}
	for (unsigned i = 0; i < 3 * WEFT_TLB_RUN; i++) {
		gpa[i] = env_alloc(e, WEFT_MMU_PAGE_SIZE);
		if (i != HOLE)
			env_map(e, va + i * WEFT_MMU_PAGE_SIZE, gpa[i], WEFT_MMU_PAGE_SIZE,
				WEFT_PTE_VALID | (i == READ_ONLY ? 0 : WEFT_PTE_WRITE));
		for (unsigned j = 0; j < i; j++)
			CHECK(weft_tlb_slot(vpn + i) != weft_tlb_slot(vpn + j),
			      "pages %u and %u share a TLB slot", i, j);
	}
	weft_mmu_init(mmu, e->mem, e->mem_size, e->root);
	for (unsigned i = SECOND; i < SECOND + 3; i += 2)
		CHECK(weft_mmu_translate(mmu, va + i * WEFT_MMU_PAGE_SIZE, WEFT_ACC_READ, &f) ==
		      env_host(e, gpa[i]), "page %u translated elsewhere", i);
	for (unsigned i = SECOND + 1; i < SECOND + WEFT_TLB_RUN; i++)
		CHECK(tlb_holds(mmu, vpn + i, env_host(e, gpa[i])) == (i != SECOND + 1),
		      "page %u %s the TLB after page %u's miss", i, i == SECOND + 1 ? "in" : "not in",
		      SECOND + 2);
	CHECK(weft_mmu_translate(mmu, va + 8, WEFT_ACC_READ, &f) == (uint8_t *)env_host(e, gpa[0]) + 8,
	      "page 0 translated elsewhere");
	for (unsigned i = 1; i < WEFT_TLB_RUN; i++)
		CHECK(!tlb_holds(mmu, vpn + i, env_host(e, gpa[i])), "page %u in the TLB after page 0's miss",
		      i);
	CHECK(weft_mmu_translate(mmu, va + WEFT_MMU_PAGE_SIZE + 100, WEFT_ACC_WRITE, &f) ==
	      (uint8_t *)env_host(e, gpa[1]) + 100, "page 1 translated elsewhere");
	for (unsigned i = 2; i < WEFT_TLB_RUN; i++)
		CHECK(tlb_holds(mmu, vpn + i, env_host(e, gpa[i])) == (i != HOLE),
		      "page %u %s the TLB after page 1's miss", i, i == HOLE ? "in" : "not in");
	CHECK(!weft_mmu_translate(mmu, va + HOLE * WEFT_MMU_PAGE_SIZE, WEFT_ACC_READ, &f) &&
	      f.va == va + HOLE * WEFT_MMU_PAGE_SIZE &&
	      f.info == (WEFT_ACC_READ | WEFT_FAULT_NOT_PRESENT), "the unmapped page: info 0x%x", f.info);
	CHECK(!weft_mmu_translate(mmu, va + READ_ONLY * WEFT_MMU_PAGE_SIZE, WEFT_ACC_WRITE, &f) &&
	      f.info == (WEFT_ACC_WRITE | WEFT_FAULT_PERMISSION), "the read-only page: info 0x%x", f.info);
	CHECK(weft_mmu_translate(mmu, va + READ_ONLY * WEFT_MMU_PAGE_SIZE, WEFT_ACC_READ, &f) ==
	      env_host(e, gpa[READ_ONLY]), "the read-only page translated elsewhere");
	free(mmu);
}

/*
 * 2 MiB pages: a level-2 entry with WEFT_PTE_HUGE.  The main VM, from H:
 *   H       2 MiB RW+EXEC (hz.g[0]), then one 4 KiB RW+EXEC page (hz.nb)
 *   H + 4M  2 MiB read-only, not executable (hz.g[1])
 *   H + 8M  2 MiB RW+EXEC (hz.g[2]), then nothing
 * Every byte of them holds a pattern that differs from page to page, so a
 * translation to the wrong 4 KiB part (or the wrong page) shows.
 */
#define HUGE_SZ		(2ull << 20)
#define HUGE_VA		0x400000000000ull
#define HUGE_RW		(WEFT_PTE_VALID | WEFT_PTE_WRITE | WEFT_PTE_EXEC)

static struct {
	struct env *e;
	uint64_t *args, args_va;
	uint8_t *out;
	uint64_t out_va;
	uint64_t g[3], nb;
	uint32_t seq;
} hz;

static uint8_t huge_pat(unsigned k, uint64_t i)
{
	return (uint8_t)(i * 7 + (i >> 12) * 31 + k * 0x55 + 1);
}

/* CPU view of the test VA @va (NULL outside the layout). */
static uint8_t *huge_host(uint64_t va)
{
	for (unsigned k = 0; k < 3; k++)
		if (va - (HUGE_VA + 4 * k * HUGE_SZ) < HUGE_SZ)
			return env_host(hz.e, hz.g[k] + va - (HUGE_VA + 4 * k * HUGE_SZ));
	if (va - (HUGE_VA + HUGE_SZ) < 4096)
		return env_host(hz.e, hz.nb + va - (HUGE_VA + HUGE_SZ));
	return NULL;
}

/* Bytes [va, va + n) of the layout, little-endian (may cross from one part to
 * the next; a byte outside the layout reads 0). */
static uint64_t huge_val(uint64_t va, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++) {
		uint8_t *p = huge_host(va + i);

		v |= (uint64_t)(p ? *p : 0) << (8 * i);
	}
	return v;
}

/* Runs @body on queue 1, SIMD 8, one full sub-group: r2 = args[0], r10 = out + lane * 64. */
static uint32_t huge_run(uint64_t addr, const char *body)
{
	char src[2048];
	struct env_dispatch d = { 0, hz.args_va, 8, { 8, 1, 1 }, { 8, 1, 1 } };

	snprintf(src, sizeof(src),
		 "\ts2r.u64 r0, sr.args\n"
		 "\tld.global.u64 r2, [r0+0]\n"
		 "\tld.global.u64 r10, [r0+8]\n"
		 "\ts2r.u64 r12, sr.lane_id\n"
		 "\tshl.u64 r12, r12, 6\n"
		 "\tadd.u64 r10, r10, r12\n"
		 "\tmov.u64 r4, 0x0102030405060708\n\tmov.u64 r6, 1\n\tmov.u64 r8, 2\n"
		 "%s\n\tend\n", body);
	hz.args[0] = addr;
	hz.args[1] = hz.out_va;
	memset(hz.out, 0, 8 * 64);
	d.code_va = env_code(hz.e, src);
	return env_dispatch(hz.e, 1, &d);
}

/* The last dispatch faulted with @info at @va; acknowledges and resets queue 1. */
#define HUGE_FAULT(err, va, info, what) do { \
		uint32_t i_ = env_reg(hz.e, WEFT_REG_FAULT_INFO); \
		CHECK((err) == WEFT_QERR_MMU_FAULT, "%s: error %u", what, (err)); \
		CHECK(env_reg(hz.e, WEFT_REG_FAULT_SEQ) == hz.seq + 1, "%s: no fault recorded", what); \
		CHECK(fault_addr(hz.e) == (va), "%s: fault at 0x%llx, want 0x%llx", what, \
		      (unsigned long long)fault_addr(hz.e), (unsigned long long)(va)); \
		CHECK(i_ == ((info) | 1u << WEFT_FAULT_QUEUE_SHIFT), "%s: info 0x%x, want 0x%x", what, \
		      i_, (unsigned)((info) | 1u << WEFT_FAULT_QUEUE_SHIFT)); \
		hz.seq = env_reg(hz.e, WEFT_REG_FAULT_SEQ); \
		env_wreg(hz.e, WEFT_REG_FAULT_ACK, hz.seq); \
		env_reset_queue(hz.e, 1); \
	} while (0)

#define LD64 "\tld.global.u64 r4, [r2+0]\n\tst.global.u64 [r10+0], r4\n"

/* An 8-byte load at @va through the dispatch: 0 and *v, or the error. */
static uint32_t huge_load64(uint64_t va, uint64_t *v)
{
	uint32_t err = huge_run(va, LD64);

	*v = *(uint64_t *)hz.out;
	return err;
}

static void huge_env(struct env *e)
{
	hz.e = e;
	hz.args_va = env_buf(e, 4096, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&hz.args);
	hz.out_va = env_buf(e, 4096, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&hz.out);
	hz.seq = env_reg(e, WEFT_REG_FAULT_SEQ);
}

static void huge_code(uint8_t *host, const char *src, size_t *nwords)
{
	uint64_t *words;
	char err[128];

	*nwords = 0;
	if (weft_asm(src, "huge", &words, nwords, err, sizeof(err))) {
		CHECK(0, "%s", err);
		return;
	}
	memcpy(host, words, *nwords * 8);
	free(words);
}

static void t_mmu_huge(void)
{
	struct env *e = fresh(0);
	const uint64_t H = HUGE_VA, R = H + 4 * HUGE_SZ, U = H + 8 * HUGE_SZ;
	const uint64_t st_val = 0x0102030405060708ull;
	uint32_t err;
	uint64_t v, va;

	huge_env(e);
	for (unsigned k = 0; k < 3; k++) {
		uint8_t *p;

		hz.g[k] = env_alloc_huge(e);
		p = env_host(e, hz.g[k]);
		for (uint64_t i = 0; i < HUGE_SZ; i++)
			p[i] = huge_pat(k, i);
	}
	hz.nb = env_alloc(e, 4096);
	for (unsigned i = 0; i < 4096; i++)
		((uint8_t *)env_host(e, hz.nb))[i] = huge_pat(3, i);
	CHECK_EQ(hz.g[0] & (HUGE_SZ - 1), 0);
	env_map_huge(e, H, hz.g[0], HUGE_RW);
	env_map(e, H + HUGE_SZ, hz.nb, 4096, HUGE_RW);
	env_map_huge(e, R, hz.g[1], WEFT_PTE_VALID);
	env_map_huge(e, U, hz.g[2], HUGE_RW);

	/* Loads: first and last bytes, every 4 KiB part differs, across into the 4 KiB neighbour. */
	{
		const uint64_t at[] = { H, H + 8, H + 0x1000, H + 0x123458, H + HUGE_SZ - 8,
					H + HUGE_SZ - 4, H + HUGE_SZ - 1, H + HUGE_SZ + 8, R, R + HUGE_SZ - 8,
					U + HUGE_SZ - 8 };

		for (unsigned i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
			err = huge_run(at[i], LD64);
			CHECK(err == 0, "load at 0x%llx: error %u", (unsigned long long)at[i], err);
			for (unsigned l = 0; l < 8; l++)
				CHECK(*(uint64_t *)(hz.out + l * 64) == huge_val(at[i], 8),
				      "load at 0x%llx lane %u: 0x%llx want 0x%llx", (unsigned long long)at[i],
				      l, (unsigned long long)*(uint64_t *)(hz.out + l * 64),
				      (unsigned long long)huge_val(at[i], 8));
		}
		/* A vector load of 16 bytes across the end. */
		va = H + HUGE_SZ - 8;
		CHECK_EQ(huge_run(va, "\tld.global.v4.u32 r4, [r2+0]\n\tst.global.v4.u32 [r10+0], r4\n"), 0);
		CHECK_EQ(*(uint64_t *)hz.out, huge_val(va, 8));
		CHECK_EQ(*(uint64_t *)(hz.out + 8), huge_val(va + 8, 8));
	}
	/* Stores: first byte, last bytes, across into the neighbour. */
	{
		const uint64_t at[] = { H, H + 0x1ff000, H + HUGE_SZ - 8, H + HUGE_SZ - 4, U + 0x80000 };

		for (unsigned i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
			uint64_t before = huge_val(at[i] - 8, 8), after = huge_val(at[i] + 8, 8);

			err = huge_run(at[i], "\tst.global.u64 [r2+0], r4\n");
			CHECK(err == 0, "store at 0x%llx: error %u", (unsigned long long)at[i], err);
			CHECK(huge_val(at[i], 8) == st_val, "store at 0x%llx: 0x%llx", (unsigned long long)at[i],
			      (unsigned long long)huge_val(at[i], 8));
			CHECK(huge_val(at[i] - 8, 8) == before && huge_val(at[i] + 8, 8) == after,
			      "store at 0x%llx: neighbouring bytes changed", (unsigned long long)at[i]);
		}
		va = H + HUGE_SZ - 8;
		CHECK_EQ(huge_run(va, "\tst.global.v2.u64 [r2+0], r4\n"), 0);
		CHECK_EQ(huge_val(va, 8), st_val);
		CHECK_EQ(huge_val(va + 8, 8), 1);
	}
	/* Atomics: 8 lanes add 1 at the first and the last 4 bytes; a 64-bit one mid-page. */
	{
		const uint64_t at[] = { H, H + HUGE_SZ - 4, U + 0x1ffffc };

		for (unsigned i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
			uint64_t old = huge_val(at[i], 4);

			err = huge_run(at[i], "\tatom.global.add.u32 r4, [r2], r6\n");
			CHECK(err == 0, "atomic at 0x%llx: error %u", (unsigned long long)at[i], err);
			CHECK(huge_val(at[i], 4) == ((old + 8) & 0xffffffffu), "atomic at 0x%llx: 0x%llx, want 0x%llx",
			      (unsigned long long)at[i], (unsigned long long)huge_val(at[i], 4),
			      (unsigned long long)((old + 8) & 0xffffffffu));
		}
		va = H + 0x145670;
		v = huge_val(va, 8);
		CHECK_EQ(huge_run(va, "\tatom.global.cmpxchg.u64 r4, [r2], r6, r8\n"
				      "\tst.global.u64 [r10+0], r4\n"), 0);
		CHECK_EQ(huge_val(va, 8), v);	/* compared with 1: not equal, unchanged */
		CHECK_EQ(*(uint64_t *)hz.out, v);
	}
	/* Block I/O: 128 bytes ending at the last byte, and across into the neighbour. */
	{
		const uint64_t at[] = { H + HUGE_SZ - 128, H + HUGE_SZ - 64 };

		for (unsigned i = 0; i < 2; i++) {
			CHECK_EQ(huge_run(at[i], "\tld.block4.u32 r4, [r2+0]\n\tst.global.v4.u32 [r10+0], r4\n"), 0);
			for (unsigned l = 0; l < 8; l++)
			for (unsigned k = 0; k < 4; k++)
				CHECK(*(uint32_t *)(hz.out + l * 64 + k * 4) == huge_val(at[i] + (k * 8 + l) * 4, 4),
				      "ld.block4 at 0x%llx lane %u element %u", (unsigned long long)at[i], l, k);
		}
		va = H + HUGE_SZ - 16;
		CHECK_EQ(huge_run(va, "\tst.block2.u16 [r2+0], r4\n"), 0);
		for (unsigned l = 0; l < 8; l++) {
			CHECK_EQ(huge_val(va + l * 2, 2), 0x0708);
			CHECK_EQ(huge_val(va + 16 + l * 2, 2), 0x0304);
		}
	}
	/* Image I/O: a 64 x 2 image whose row 0 ends at the last byte and row 1 is the neighbour's. */
	{
		uint32_t *desc = (uint32_t *)(hz.args + 4);
		uint64_t img = H + HUGE_SZ - 64;

		desc[0] = (uint32_t)img;
		desc[1] = (uint32_t)(img >> 32);
		desc[2] = 64;
		desc[3] = 2;
		desc[4] = 64;
		desc[5] = 0;
		CHECK_EQ(huge_run(hz.args_va + 32, "\tmov.s32 r6, 32\n\tmov.s32 r7, 0\n"
				  "\tld.img2.u32 r4, [r2], r6\n"
				  "\tst.global.u32 [r10+0], r4\n\tst.global.u32 [r10+4], r5\n"), 0);
		for (unsigned l = 0; l < 8; l++) {
			CHECK_EQ(*(uint32_t *)(hz.out + l * 64), huge_val(img + 32 + l * 4, 4));
			CHECK_EQ(*(uint32_t *)(hz.out + l * 64 + 4), huge_val(img + 64 + 32 + l * 4, 4));
		}
		CHECK_EQ(huge_run(hz.args_va + 32, "\tmov.s32 r6, 32\n\tmov.s32 r7, 0\n"
				  "\tst.img2.u32 [r2], r6, r4\n"), 0);
		for (unsigned l = 0; l < 8; l++) {
			CHECK_EQ(huge_val(img + 32 + l * 4, 4), 0x05060708);
			CHECK_EQ(huge_val(img + 64 + 32 + l * 4, 4), 0x01020304);
		}
	}
	/* Instruction fetch: at the first byte; across the end into the neighbour (the
	 * literal of the mov is its first word); into nothing; not executable. */
	{
		struct env_dispatch d = { H, hz.args_va, 8, { 1, 1, 1 }, { 1, 1, 1 } };
		const char *prog = "s2r.u64 r0, sr.args\nld.global.u64 r10, [r0+8]\n"
				   "mov.u64 r4, 0x0123456789abcdef\nst.global.u64 [r10+0], r4\nend\n";
		uint8_t tmp[64];
		size_t n;

		hz.args[1] = hz.out_va;
		huge_code(huge_host(H), prog, &n);
		CHECK_EQ(n, 6);
		*(uint64_t *)hz.out = 0;
		CHECK_EQ(env_dispatch(e, 1, &d), 0);
		CHECK_EQ(*(uint64_t *)hz.out, 0x0123456789abcdefull);
		huge_code(tmp, prog, &n);
		memcpy(huge_host(H + HUGE_SZ - 24), tmp, 24);
		memcpy(huge_host(H + HUGE_SZ), tmp + 24, 24);
		*(uint64_t *)hz.out = 0;
		d.code_va = H + HUGE_SZ - 24;
		CHECK_EQ(env_dispatch(e, 1, &d), 0);
		CHECK_EQ(*(uint64_t *)hz.out, 0x0123456789abcdefull);
		huge_code(huge_host(U + HUGE_SZ - 16), "mov.u32 r1, 1\nmov.u32 r1, 2\n", &n);
		d.code_va = U + HUGE_SZ - 16;
		err = env_dispatch(e, 1, &d);
		HUGE_FAULT(err, U + HUGE_SZ, WEFT_FAULT_ACCESS_EXEC | WEFT_FAULT_NOT_PRESENT, "fetch past the end");
		huge_code(huge_host(R), prog, &n);
		d.code_va = R;
		err = env_dispatch(e, 1, &d);
		HUGE_FAULT(err, R, WEFT_FAULT_ACCESS_EXEC | WEFT_FAULT_PERMISSION, "fetch, no EXEC");
	}
	/* Faults: across the end into nothing (nothing written); read-only. */
	{
		uint64_t last = huge_val(U + HUGE_SZ - 4, 4), ro = huge_val(R + 96, 8);

		err = huge_run(U + HUGE_SZ - 4, LD64);
		HUGE_FAULT(err, U + HUGE_SZ, WEFT_FAULT_ACCESS_READ | WEFT_FAULT_NOT_PRESENT, "load past the end");
		err = huge_run(U + HUGE_SZ - 4, "\tst.global.u64 [r2+0], r4\n");
		HUGE_FAULT(err, U + HUGE_SZ, WEFT_FAULT_ACCESS_WRITE | WEFT_FAULT_NOT_PRESENT, "store past the end");
		CHECK_EQ(huge_val(U + HUGE_SZ - 4, 4), last);
		err = huge_run(U + HUGE_SZ - 16, "\tst.block2.u16 [r2+0], r4\n");
		HUGE_FAULT(err, U + HUGE_SZ, WEFT_FAULT_ACCESS_WRITE | WEFT_FAULT_NOT_PRESENT, "block past the end");
		err = huge_run(U + HUGE_SZ - 8, "\tld.block2.u32 r4, [r2+0]\n");
		HUGE_FAULT(err, U + HUGE_SZ, WEFT_FAULT_ACCESS_READ | WEFT_FAULT_NOT_PRESENT, "block load past the end");
		err = huge_run(R + 100, "\tst.global.u32 [r2+0], r4\n");
		HUGE_FAULT(err, R + 100, WEFT_FAULT_ACCESS_WRITE | WEFT_FAULT_PERMISSION, "store, read-only");
		err = huge_run(R + 96, "\tatom.global.add.u64 r4, [r2], r6\n");
		HUGE_FAULT(err, R + 96, WEFT_FAULT_ACCESS_WRITE | WEFT_FAULT_PERMISSION, "atomic, read-only");
		err = huge_run(R + HUGE_SZ - 8, "\tst.block2.u16 [r2+0], r4\n");
		HUGE_FAULT(err, R + HUGE_SZ - 8, WEFT_FAULT_ACCESS_WRITE | WEFT_FAULT_PERMISSION, "block, read-only");
		CHECK_EQ(huge_val(R + 96, 8), ro);
		CHECK_EQ(huge_val(R + HUGE_SZ - 8, 8), huge_pat(1, HUGE_SZ - 8) | (uint64_t)huge_pat(1, HUGE_SZ - 7) << 8 |
			 (uint64_t)huge_pat(1, HUGE_SZ - 6) << 16 | (uint64_t)huge_pat(1, HUGE_SZ - 5) << 24 |
			 (uint64_t)huge_pat(1, HUGE_SZ - 4) << 32 | (uint64_t)huge_pat(1, HUGE_SZ - 3) << 40 |
			 (uint64_t)huge_pat(1, HUGE_SZ - 2) << 48 | (uint64_t)huge_pat(1, HUGE_SZ - 1) << 56);
	}
	/* Misaligned address (bit 12, bit 20): not present, though the memory is there. */
	{
		va = H + 12 * HUGE_SZ;
		env_map_huge(e, va, hz.g[0] + 0x1000, HUGE_RW);
		err = huge_load64(va + 8, &v);
		HUGE_FAULT(err, va + 8, WEFT_FAULT_ACCESS_READ | WEFT_FAULT_NOT_PRESENT, "misaligned (4 KiB)");
		env_map_huge(e, va, hz.g[0] + 0x100000, HUGE_RW);
		err = huge_run(va + 0x1ff000, "\tst.global.u32 [r2+0], r4\n");
		HUGE_FAULT(err, va + 0x1ff000, WEFT_FAULT_ACCESS_WRITE | WEFT_FAULT_NOT_PRESENT, "misaligned (1 MiB)");
		env_map_huge(e, va, hz.g[0], HUGE_RW);	/* aligned again: the same page as H */
		CHECK_EQ(huge_load64(va + 0x10008, &v), 0);
		CHECK_EQ(v, huge_val(H + 0x10008, 8));
	}
	/* The page-walk cache keeps the huge entry, not a level-3 table: the first
	 * 4 KiB of U hold entries mapping a page of 0xee, and a miss in another
	 * 4 KiB part of U after a walk of U must still read U. */
	{
		uint64_t fake = env_alloc(e, 4096);

		memset(env_host(e, fake), 0xee, 4096);
		for (unsigned i = 0; i < 512; i++)
			((uint64_t *)huge_host(U))[i] = fake | HUGE_RW;
		CHECK_EQ(huge_run(U, "\tld.global.u64 r4, [r2+0]\n\tst.global.u64 [r10+0], r4\n"
				     "\tmov.u64 r14, 0x8008\n\tadd.u64 r14, r2, r14\n"
				     "\tld.global.u64 r4, [r14+0]\n\tst.global.u64 [r10+8], r4\n"
				     "\tmov.u64 r14, 0x1ff000\n\tadd.u64 r14, r2, r14\n"
				     "\tld.global.u64 r4, [r14+0]\n\tst.global.u64 [r10+16], r4\n"), 0);
		CHECK_EQ(*(uint64_t *)hz.out, fake | HUGE_RW);
		CHECK_EQ(*(uint64_t *)(hz.out + 8), huge_val(U + 0x8008, 8));
		CHECK_EQ(*(uint64_t *)(hz.out + 16), huge_val(U + 0x1ff000, 8));
	}
	/* HUGE at level 0 or 1: reserved, the entry reads as not present.  At
	 * level 3: ignored.  WRITE/EXEC of a level-2 table entry: ignored. */
	{
		const uint64_t V0 = 0x600000000000ull, V1 = 0x500000000000ull;
		uint64_t pg = env_alloc(e, 4096), *pte;

		for (unsigned i = 0; i < 4096; i++)
			((uint8_t *)env_host(e, pg))[i] = (uint8_t)(i * 3 + 5);
		env_map(e, V0, pg, 4096, WEFT_PTE_VALID);
		env_map(e, V1, pg, 4096, WEFT_PTE_VALID);
		CHECK_EQ(huge_load64(V0 + 16, &v), 0);
		CHECK_EQ(v, *(uint64_t *)((uint8_t *)env_host(e, pg) + 16));
		CHECK_EQ(huge_load64(V1 + 16, &v), 0);
		CHECK_EQ(v, *(uint64_t *)((uint8_t *)env_host(e, pg) + 16));
		for (int level = 0; level < 2; level++) {
			va = level ? V1 : V0;
			pte = env_pte(e, va, level);
			*pte |= WEFT_PTE_HUGE;
			err = huge_load64(va + 16, &v);
			HUGE_FAULT(err, va + 16, WEFT_FAULT_ACCESS_READ | WEFT_FAULT_NOT_PRESENT,
				   level ? "HUGE at level 1" : "HUGE at level 0");
			*pte &= ~WEFT_PTE_HUGE;
			CHECK_EQ(huge_load64(va + 16, &v), 0);
		}
		/* Level 3: a 4 KiB page, HUGE or not (and the store goes to that page only). */
		va = V1 + 0x3000;
		env_map(e, va, pg, 4096, WEFT_PTE_VALID | WEFT_PTE_WRITE | WEFT_PTE_HUGE);
		CHECK_EQ(huge_load64(va + 24, &v), 0);
		CHECK_EQ(v, *(uint64_t *)((uint8_t *)env_host(e, pg) + 24));
		CHECK_EQ(huge_run(va + 4088, "\tst.global.u64 [r2+0], r4\n"), 0);
		CHECK_EQ(*(uint64_t *)((uint8_t *)env_host(e, pg) + 4088), st_val);
		/* A level-2 table entry with WRITE|EXEC over a read-only, non-exec page. */
		*env_pte(e, V0, 2) |= WEFT_PTE_WRITE | WEFT_PTE_EXEC;
		err = huge_run(V0 + 8, "\tst.global.u32 [r2+0], r4\n");
		HUGE_FAULT(err, V0 + 8, WEFT_FAULT_ACCESS_WRITE | WEFT_FAULT_PERMISSION, "WRITE at level 2 (table)");
		{
			struct env_dispatch d = { V0, hz.args_va, 8, { 1, 1, 1 }, { 1, 1, 1 } };

			err = env_dispatch(e, 1, &d);
			HUGE_FAULT(err, V0, WEFT_FAULT_ACCESS_EXEC | WEFT_FAULT_PERMISSION, "EXEC at level 2 (table)");
		}
	}
	/* Guest memory bounds: a 2 MiB page ending at the end of memory is present;
	 * one beyond it is not. */
	{
		uint64_t top = e->mem_size - HUGE_SZ;

		CHECK(e->next_gpa <= top, "guest memory used up to 0x%llx", (unsigned long long)e->next_gpa);
		*(uint64_t *)env_host(e, e->mem_size - 8) = 0x1122334455667788ull;
		va = H + 14 * HUGE_SZ;
		env_map_huge(e, va, top, WEFT_PTE_VALID);
		CHECK_EQ(huge_load64(va + HUGE_SZ - 8, &v), 0);
		CHECK_EQ(v, 0x1122334455667788ull);
		env_map_huge(e, va, e->mem_size, WEFT_PTE_VALID);
		err = huge_load64(va, &v);
		HUGE_FAULT(err, va, WEFT_FAULT_ACCESS_READ | WEFT_FAULT_NOT_PRESENT, "huge page beyond memory");
	}
	/* A 2 MiB page partly outside guest memory (17 MiB: the page at 16 MiB has
	 * only its first 1 MiB inside) reads as not present, even at its first
	 * byte, which a 4 KiB mapping reaches. */
	{
		struct env *e2 = env_create_mem(2, 0, 17u << 20);

		CHECK_EQ(env_ready(e2), WEFT_DEVICE_RUNNING);
		huge_env(e2);
		*(uint64_t *)env_host(e2, 16u << 20) = 0x5555aaaa5555aaaaull;
		*(uint64_t *)env_host(e2, (16u << 20) - 8) = 0x7777888877778888ull;
		env_map_huge(e2, H, 16u << 20, HUGE_RW);
		env_map_huge(e2, H + HUGE_SZ, 14u << 20, HUGE_RW);
		env_map(e2, H + 4 * HUGE_SZ, 16u << 20, 4096, WEFT_PTE_VALID);
		err = huge_load64(H, &v);
		HUGE_FAULT(err, H, WEFT_FAULT_ACCESS_READ | WEFT_FAULT_NOT_PRESENT, "huge page partly outside memory");
		CHECK_EQ(huge_load64(H + 4 * HUGE_SZ, &v), 0);
		CHECK_EQ(v, 0x5555aaaa5555aaaaull);
		CHECK_EQ(huge_load64(H + 2 * HUGE_SZ - 8, &v), 0);
		CHECK_EQ(v, 0x7777888877778888ull);
		/* Its last 4 KiB part is past the end too. */
		err = huge_run(H + HUGE_SZ - 8, "\tst.global.u64 [r2+0], r4\n");
		HUGE_FAULT(err, H + HUGE_SZ - 8, WEFT_FAULT_ACCESS_WRITE | WEFT_FAULT_NOT_PRESENT, "last part outside memory");
		env_destroy(e2);
		hz.e = NULL;
	}
}

static void t_bad_instruction(void)
{
	struct env *e = fresh(0);
	uint64_t *args, args_va = env_buf(e, 4096, WEFT_PTE_VALID, (void **)&args);
	static const char *bad[] = {
		".dword 0\n",				/* opcode 0: zeroed memory */
		".dword 0x1ff\n",			/* undefined opcode */
		".dword 0x4001\n",			/* end with the literal bit */
		".dword 0x8001\n",			/* end with the reserved bit */
		".dword 0x10001\n",			/* end with a d field */
		".dword 0x00000000030b0e20\n",		/* add.u64 with odd registers */
		".dword 0x0000000000000e03\n",		/* s2r.u64 unknown sreg? (mod 0 ok) */
		".dword 0x7ff0000000000a03\n",		/* s2r.u32 sreg 0x7ff */
		".dword 0x01e0000000000a03\n",		/* s2r.u32 sr.args (64-bit only) */
		".dword 0x0000000000001620\n",		/* add.f32 */
		".dword 0x0000000000000020\n",		/* add without a type */
		".dword 0x0000000000000b00\n",		/* ld.global without offset flag */
		".dword 0x0000000000004a10\n.dword 5\n",	/* mov.u32 with a literal */
		".dword 0x0000000000004e10\n.dword 5\n",	/* a literal imm32 could say */
		".dword 0x0000000000006e10\n.dword 0x500000000\n",	/* literal and imm */
		".dword 0x0000000000004e38\n.dword 0x500000000\n",	/* shl.u64: u32 count */
	};

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char src[128];
		uint64_t code;
		struct env_dispatch d;
		uint32_t err;

		snprintf(src, sizeof(src), "mov.u32 r1, 1\n%send\n", bad[i]);
		code = env_code(e, src);
		d = (struct env_dispatch){ code, args_va, 16, { 20, 1, 1 }, { 10, 1, 1 } };
		err = env_dispatch(e, 3, &d);
		if (i == 6) {	/* s2r.u64 r0, sr.lane_id is valid */
			CHECK_EQ(err, 0);
			continue;
		}
		CHECK(err == WEFT_QERR_BAD_INSTRUCTION, "%s: error %u", bad[i], err);
		if (err != WEFT_QERR_BAD_INSTRUCTION)
			printf("%s\n", src);
		CHECK_EQ(env_qreg(e, 3, WEFT_Q_ERROR_ADDR_LO) |
			 (uint64_t)env_qreg(e, 3, WEFT_Q_ERROR_ADDR_HI) << 32, code + 8);
		env_reset_queue(e, 3);
	}
}

static void t_literal_fetch(void)
{
	struct env *e = fresh(0);
	uint64_t *code, *args, *out;
	uint64_t args_va = env_buf(e, 4096, WEFT_PTE_VALID, (void **)&args);
	uint64_t out_va = env_buf(e, 4096, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&out);
	/* Two adjacent executable pages; the literal of the instruction at the
	 * end of the first sits at the start of the second. */
	uint64_t gpa = env_alloc(e, 8192), cva = 0x30000000;
	uint64_t prog[] = {
		0x01e0000000000e03ull,	/* s2r.u64 r0, sr.args */
		0x0000000000022f00ull,	/* ld.global.u64 r2, [r0+0] */
	};
	struct env_dispatch d = { cva + 4096 - 8 * 3, args_va, 8, { 1, 1, 1 }, { 1, 1, 1 } };
	uint64_t *words;
	size_t n;
	char err[128];

	env_map(e, cva, gpa, 8192, WEFT_PTE_VALID | WEFT_PTE_EXEC);
	code = env_host(e, gpa);
	*args = out_va;
	if (weft_asm("s2r.u64 r0, sr.args\nld.global.u64 r2, [r0+0]\n"
		     "mov.u64 r4, 0x0123456789abcdef\nst.global.u64 [r2+0], r4\nend\n",
		     "lit", &words, &n, err, sizeof(err))) {
		CHECK(0, "%s", err);
		return;
	}
	CHECK_EQ(n, 6);
	CHECK_EQ(words[0], prog[0]);
	memcpy((uint8_t *)code + 4096 - 8 * 3, words, n * 8);	/* literal at the page start */
	CHECK_EQ(env_dispatch(e, 0, &d), 0);
	CHECK_EQ(out[0], 0x0123456789abcdefull);
	/* Without the second page the literal fetch faults (EXEC, at its address). */
	env_map(e, cva + 4096, gpa + 4096, 4096, 0);
	CHECK_EQ(env_dispatch(e, 0, &d), WEFT_QERR_MMU_FAULT);
	CHECK_EQ(env_reg(e, WEFT_REG_FAULT_ADDR_LO), (uint32_t)(cva + 4096));
	CHECK_EQ(env_reg(e, WEFT_REG_FAULT_INFO) & 7, WEFT_FAULT_ACCESS_EXEC | WEFT_FAULT_NOT_PRESENT);
	free(words);
}

static void t_watchdog(void)
{
	struct env *e = fresh(5000);
	uint64_t code = env_code(e, "mov.u32 r0, 1\nmov.u32 r0, 2\nmov.u32 r0, 3\nend\n");
	struct env_dispatch d = { code, 0, 8, { 1000, 1, 1 }, { 8, 1, 1 } };

	/* 125 sub-groups x 4 instructions: within budget. */
	CHECK_EQ(env_dispatch(e, 0, &d), 0);
	/* 100000 / 8 x 4 = 50000 sub-group instructions: over budget. */
	d.gsize[0] = 100000;
	CHECK_EQ(env_dispatch(e, 0, &d), WEFT_QERR_WATCHDOG);
	env_reset_queue(e, 0);
	d.gsize[0] = 16;
	CHECK_EQ(env_dispatch(e, 0, &d), 0);
	/* A huge grid: the watchdog ends it too. */
	d.gsize[0] = d.gsize[1] = d.gsize[2] = 0xffffffff;
	d.lsize[0] = 1;
	CHECK_EQ(env_dispatch(e, 0, &d), WEFT_QERR_WATCHDOG);
}

#define rnd h_rand

static void t_fuzz(void)
{
	struct env *e = fresh(20000);
	uint32_t *b;
	uint64_t bva = env_buf(e, 4096, WEFT_PTE_VALID, (void **)&b);
	uint64_t *code;
	uint64_t cva = env_buf(e, 4096, WEFT_PTE_VALID | WEFT_PTE_EXEC, (void **)&code);
	uint64_t *args, args_va = env_buf(e, 4096, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&args);

	/* Random batches: the model must survive and end idle or in error. */
	for (int iter = 0; iter < 300; iter++) {
		for (int i = 0; i < 1024; i++) {
			uint32_t v = (uint32_t)rnd();

			if (i % 7 == 0)
				v = (v & 0x0300000f) | (rnd() % 3 == 0 ? 0x02000010 : 0);
			b[i] = v;
		}
		if (iter % 2) {	/* a valid dispatch header with random payload pointing at code */
			b[0] = CMD(WEFT_CMD_DISPATCH, 16);
			b[1] = (uint32_t)cva;
			b[2] = (uint32_t)(cva >> 32);
			b[3] = (uint32_t)args_va;
			b[4] = (uint32_t)(args_va >> 32);
			b[5] = 8 << (rnd() % 3);
			for (int i = 6; i < 12; i++)
				b[i] = 1 + rnd() % 40;
			b[15] = 0;
			for (int i = 0; i < 512; i++) {
				uint64_t w = rnd();

				/* Bias toward defined opcodes with small types. */
				w = (w & ~0x1ffull) | (rnd() % 0x50);
				if (rnd() % 2)
					w &= 0xffffffff0000ffffull | (w & 0x0f0f0000);
				code[i] = w;
			}
			for (int i = 0; i < 512; i++)
				args[i] = rnd() % 2 ? args_va + (rnd() % 4096) : rnd();
		}
		env_submit_batch(e, iter % 4, bva, 4096, iter + 1);
		if (env_qreg(e, iter % 4, WEFT_Q_STATUS) == WEFT_Q_STATUS_ERROR) {
			env_wreg(e, WEFT_REG_FAULT_ACK, env_reg(e, WEFT_REG_FAULT_SEQ));
			env_reset_queue(e, iter % 4);
		}
	}
	/* Page tables full of garbage (entries pointing anywhere, also at the
	 * tables themselves and beyond guest memory). */
	for (int iter = 0; iter < 200; iter++) {
		uint64_t root = env_alloc(e, 4 * 4096), *t = env_host(e, root);
		uint64_t va = (rnd() & 0xffffffffff8ull) | (iter % 3 ? 0 : rnd() << 48);
		uint32_t cmds[] = {
			CMD(WEFT_CMD_SET_VM, 4), (uint32_t)root, (uint32_t)(root >> 32), 1,
			CMD(WEFT_CMD_BATCH, 4), (uint32_t)va, (uint32_t)(va >> 32), 64,
			CMD(WEFT_CMD_FENCE, 6), (uint32_t)e->fence_gpa, 0, iter, 0, 0,
		};
		unsigned q = iter % 4;

		for (int i = 0; i < 4 * 512; i++) {
			uint64_t r = rnd();

			switch (r % 4) {
			case 0: t[i] = r; break;
			case 1: t[i] = (root + (r >> 8) % (4 * 4096)) | 7; break;
			case 2: t[i] = (r % e->mem_size) | 7; break;
			default: t[i] = 0; break;
			}
		}
		env_ring_emit(e, q, cmds, sizeof(cmds) / 4);
		env_kick(e, q);
		if (env_qreg(e, q, WEFT_Q_STATUS) == WEFT_Q_STATUS_ERROR) {
			env_wreg(e, WEFT_REG_FAULT_ACK, env_reg(e, WEFT_REG_FAULT_SEQ));
			env_reset_queue(e, q);
		}
	}
	/* Still alive and serving. */
	{
		uint64_t c = env_code(e, "end\n");
		struct env_dispatch d = { c, 0, 8, { 8, 1, 1 }, { 8, 1, 1 } };

		for (unsigned q = 0; q < 4; q++)
			CHECK_EQ(env_dispatch(e, q, &d), 0);
	}
}

static void t_disable_and_stop_during_work(void)
{
	struct env *e = fresh(0);
	uint32_t fence[] = { CMD(WEFT_CMD_FENCE, 6), (uint32_t)e->fence_gpa, 0, 9, 0, 0 };

	env_wqreg(e, 0, WEFT_Q_ENABLE, 0);
	env_ring_emit(e, 0, fence, 6);
	env_kick(e, 0);
	CHECK_EQ(env_fence(e), 0);
	env_wqreg(e, 0, WEFT_Q_ENABLE, 1);
	env_kick(e, 0);
	CHECK_EQ(env_fence(e), 9);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Resets queue q, which must end at once whatever it was doing. */
static void reset_now(struct env *e, unsigned q)
{
	double t = now();

	env_reset_queue(e, q);
	t = now() - t;
	CHECK(t < 1.0, "reset took %.3f s", t);
	CHECK_EQ(env_qreg(e, q, WEFT_Q_RESET_ACK), env_qreg(e, q, WEFT_Q_RESET_REQ));
	CHECK_EQ(env_qreg(e, q, WEFT_Q_STATUS), WEFT_Q_STATUS_IDLE);
}

/* DRIVER_READY = 0: the device must stop at once, whatever its queues do. */
static void stop_device(struct env *e)
{
	double t = now();

	env_wreg(e, WEFT_REG_DRIVER_READY, 0);
	weft_model_doorbell(e->m);
	weft_model_wait_idle(e->m);
	t = now() - t;
	CHECK(t < 1.0, "stop took %.3f s", t);
	CHECK_EQ(env_reg(e, WEFT_REG_DEVICE_STATUS), WEFT_DEVICE_STOPPED);
}

/* Starts a long dispatch on queue 0 without waiting for it. */
static void start_long_dispatch(struct env *e)
{
	static char src[16384];
	uint32_t *b;
	uint64_t bva = env_buf(e, 4096, WEFT_PTE_VALID, (void **)&b), code;
	int n = 0;

	for (int i = 0; i < 500; i++)
		n += sprintf(src + n, "add.u32 r1, r1, %d\n", i);
	sprintf(src + n, "end\n");
	code = env_code(e, src);
	b[0] = CMD(WEFT_CMD_DISPATCH, 16);
	b[1] = (uint32_t)code;
	b[2] = (uint32_t)(code >> 32);
	b[5] = 8;
	b[6] = 0x7fffffff;
	b[7] = b[8] = b[9] = b[10] = b[11] = 1;
	b[16] = CMD(WEFT_CMD_END, 1);
	{
		uint32_t cmds[] = {
			CMD(WEFT_CMD_SET_VM, 4), (uint32_t)e->root, (uint32_t)(e->root >> 32), 0,
			CMD(WEFT_CMD_BATCH, 4), (uint32_t)bva, (uint32_t)(bva >> 32), 17 * 4,
			CMD(WEFT_CMD_FENCE, 6), (uint32_t)e->fence_gpa, 0, 1, 0, 0,
		};

		env_ring_emit(e, 0, cmds, sizeof(cmds) / 4);
	}
	env_wqreg(e, 0, WEFT_Q_TAIL, e->tail[0]);
	weft_model_doorbell(e->m);
	usleep(50000);
}

static void t_reset_running_dispatch(void)
{
	struct env *e = fresh(0);
	uint32_t fence[] = { CMD(WEFT_CMD_FENCE, 6), (uint32_t)e->fence_gpa, 0, 2, 0, 0 };

	start_long_dispatch(e);
	CHECK_EQ(env_qreg(e, 0, WEFT_Q_STATUS), WEFT_Q_STATUS_BUSY);
	reset_now(e, 0);
	CHECK_EQ(env_fence(e), 0);
	env_ring_emit(e, 0, fence, 6);
	env_kick(e, 0);
	CHECK_EQ(env_fence(e), 2);

	/* Queues run independently: while queue 0 is busy, queue 1 completes. */
	start_long_dispatch(e);
	{
		uint32_t f1[] = { CMD(WEFT_CMD_FENCE, 6), (uint32_t)e->fence_gpa + 8, 0, 11, 0, 0 };
		uint64_t c = env_code(e, "end\n");
		struct env_dispatch d = { c, 0, 8, { 64, 1, 1 }, { 8, 1, 1 } };
		uint64_t *f = env_host(e, e->fence_gpa + 8);
		double t0 = now();

		env_ring_emit(e, 1, f1, 6);
		env_wqreg(e, 1, WEFT_Q_TAIL, e->tail[1]);
		weft_model_doorbell(e->m);
		while (__atomic_load_n(f, __ATOMIC_ACQUIRE) != 11 && now() - t0 < 2.0)
			usleep(1000);
		CHECK(__atomic_load_n(f, __ATOMIC_ACQUIRE) == 11, "queue 1 waited for queue 0");
		CHECK_EQ(env_qreg(e, 0, WEFT_Q_STATUS), WEFT_Q_STATUS_BUSY);
		/* A dispatch on queue 2 shares the workers with queue 0's. */
		t0 = now();
		(void)d;
		{
			uint32_t *b;
			uint64_t bva = env_buf(e, 4096, WEFT_PTE_VALID, (void **)&b);
			uint32_t cmds[] = {
				CMD(WEFT_CMD_SET_VM, 4), (uint32_t)e->root, (uint32_t)(e->root >> 32), 0,
				CMD(WEFT_CMD_BATCH, 4), (uint32_t)bva, (uint32_t)(bva >> 32), 17 * 4,
				CMD(WEFT_CMD_FENCE, 6), (uint32_t)e->fence_gpa + 16, 0, 12, 0, 0,
			};
			uint64_t *f2 = env_host(e, e->fence_gpa + 16);

			b[0] = CMD(WEFT_CMD_DISPATCH, 16);
			b[1] = (uint32_t)c;
			b[2] = (uint32_t)(c >> 32);
			b[5] = 8;
			b[6] = 64;
			b[7] = b[8] = 1;
			b[9] = 8;
			b[10] = b[11] = 1;
			b[16] = CMD(WEFT_CMD_END, 1);
			env_ring_emit(e, 2, cmds, sizeof(cmds) / 4);
			env_wqreg(e, 2, WEFT_Q_TAIL, e->tail[2]);
			weft_model_doorbell(e->m);
			while (__atomic_load_n(f2, __ATOMIC_ACQUIRE) != 12 && now() - t0 < 2.0)
				usleep(1000);
			CHECK(__atomic_load_n(f2, __ATOMIC_ACQUIRE) == 12,
			      "queue 2's dispatch waited for queue 0's");
		}
		CHECK_EQ(env_qreg(e, 0, WEFT_Q_STATUS), WEFT_Q_STATUS_BUSY);
		env_reset_queue(e, 0);
		CHECK_EQ(env_qreg(e, 0, WEFT_Q_STATUS), WEFT_Q_STATUS_IDLE);
	}

	/* DRIVER_READY = 0 stops a running dispatch too. */
	start_long_dispatch(e);
	stop_device(e);
	CHECK_EQ(env_fence(e), 2);
	CHECK_EQ(env_ready(e), WEFT_DEVICE_RUNNING);
}

/*
 * Queue priority: long dispatches on queue 0 and queue 3 at once.  Every
 * work-group takes a ticket from one counter shared by both dispatches
 * (atom.add) and records it, so the tickets give the order in which the
 * work-groups of both queues ran, whatever the speed of the machine.  Queue 3
 * starts first and outlasts queue 0.  Within the middle three quarters of
 * queue 0's tickets (the ends are left out: a worker the host preempts while
 * it holds the first or last work-groups of queue 0 would stretch the
 * window while the other runs queue 3 alone) the cores serve both queues,
 * and queue 0 must get the larger share (8:1 documented, so >= 3:1;
 * round-robin gives 1:1) while queue 3 still gets some (no starvation).
 */
#define PRIO_N0	4000u	/* work-groups of the queue 0 dispatch */
#define PRIO_N3	16000u	/* of the queue 3 dispatch: runs before, during and after */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void prio_submit(struct env *e, unsigned q, uint64_t code, uint64_t args_va, uint32_t groups)
{
	uint32_t *b;
	uint64_t bva = env_buf(e, 4096, WEFT_PTE_VALID, (void **)&b);
	uint32_t cmds[] = {
		CMD(WEFT_CMD_SET_VM, 4), (uint32_t)e->root, (uint32_t)(e->root >> 32), 0,
		CMD(WEFT_CMD_BATCH, 4), (uint32_t)bva, (uint32_t)(bva >> 32), 17 * 4,
	};

	b[0] = CMD(WEFT_CMD_DISPATCH, 16);
	b[1] = (uint32_t)code;
	b[2] = (uint32_t)(code >> 32);
	b[3] = (uint32_t)args_va;
	b[4] = (uint32_t)(args_va >> 32);
	b[5] = 8;
	b[6] = groups;		/* one work-item per work-group */
	b[7] = b[8] = b[9] = b[10] = b[11] = 1;
	b[16] = CMD(WEFT_CMD_END, 1);
	env_ring_emit(e, q, cmds, sizeof(cmds) / 4);
	env_wqreg(e, q, WEFT_Q_TAIL, e->tail[q]);
	weft_model_doorbell(e->m);
}

static void t_queue_priority(void)
{
	static char src[16384];
	struct env *e = fresh(0);
	uint64_t *a0, *a3, code;
	uint32_t *counter, *t0, *t3;
	uint64_t a0_va = env_buf(e, 4096, WEFT_PTE_VALID, (void **)&a0);
	uint64_t a3_va = env_buf(e, 4096, WEFT_PTE_VALID, (void **)&a3);
	uint64_t c_va = env_buf(e, 4096, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&counter);
	uint64_t t0_va = env_buf(e, PRIO_N0 * 4, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&t0);
	uint64_t t3_va = env_buf(e, PRIO_N3 * 4, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&t3);
	static uint32_t s0[PRIO_N0];
	uint32_t lo, hi, hi3 = 0, in0 = 0, in3 = 0;
	double t;
	int n;

	n = sprintf(src, "\ts2r.u64 r0, sr.args\n\tld.global.u64 r2, [r0+0]\n"
		    "\tld.global.u64 r4, [r0+8]\n\ts2r.u32 r6, sr.group_id.x\n");
	for (int i = 0; i < 200; i++)	/* some work per group */
		n += sprintf(src + n, "\tadd.u32 r1, r1, %d\n", i);
	sprintf(src + n, "\tmov.u32 r7, 1\n\tatom.global.add.u32 r8, [r2], r7\n"
		"\tcvt.u64.u32 r10, r6\n\tshl.u64 r10, r10, 2\n\tadd.u64 r10, r4, r10\n"
		"\tst.global.u32 [r10+0], r8\n\tend\n");
	code = env_code(e, src);
	a0[0] = a3[0] = c_va;
	a0[1] = t0_va;
	a3[1] = t3_va;
	memset(t0, 0xff, PRIO_N0 * 4);
	memset(t3, 0xff, PRIO_N3 * 4);

	prio_submit(e, 3, code, a3_va, PRIO_N3);
	/* Queue 0 joins once queue 3 runs (the time limit only guards a hang). */
	t = now();
	while (__atomic_load_n(counter, __ATOMIC_ACQUIRE) < 32 && now() - t < 60)
		usleep(100);
	prio_submit(e, 0, code, a0_va, PRIO_N0);
	weft_model_wait_idle(e->m);
	CHECK_EQ(env_qreg(e, 0, WEFT_Q_STATUS), WEFT_Q_STATUS_IDLE);
	CHECK_EQ(env_qreg(e, 3, WEFT_Q_STATUS), WEFT_Q_STATUS_IDLE);
	CHECK_EQ(*counter, PRIO_N0 + PRIO_N3);

	memcpy(s0, t0, sizeof(s0));
	qsort(s0, PRIO_N0, 4, cmp_u32);
	CHECK(s0[PRIO_N0 - 1] < PRIO_N0 + PRIO_N3, "a queue 0 work-group did not run");
	lo = s0[PRIO_N0 / 8];
	hi = s0[PRIO_N0 - PRIO_N0 / 8 - 1];
	in0 = (PRIO_N0 - PRIO_N0 / 8 - 1) - PRIO_N0 / 8 - 1;	/* strictly between */
	for (uint32_t g = 0; g < PRIO_N3; g++) {
		CHECK(t3[g] < PRIO_N0 + PRIO_N3, "queue 3 work-group %u did not run", g);
		hi3 = t3[g] > hi3 ? t3[g] : hi3;
		in3 += t3[g] > lo && t3[g] < hi;
	}
	printf("    while both ran: queue 0 %u work-groups, queue 3 %u (documented 8:1)\n", in0,
	       in3);
	/* Both were running all along: queue 3 started first and ended last. */
	CHECK(s0[0] >= 32 && hi3 > s0[PRIO_N0 - 1], "queue 0 ran from ticket %u to %u, queue 3 until %u",
	      s0[0], s0[PRIO_N0 - 1], hi3);
	CHECK(in0 >= 3 * in3, "queue 0 got %u work-groups while queue 3 got %u: not priority", in0,
	      in3);
	CHECK(in3 >= in0 / 32, "queue 3 got only %u work-groups while queue 0 got %u: starved", in3,
	      in0);
}

#define ALONE_N	65536u	/* work-groups of a dispatch running alone */

/*
 * A dispatch running alone is claimed in runs of consecutive work-groups
 * (execution.rst, "Work-groups on the model's host threads"): with two
 * cores and 65536 work-groups, runs of 256.  Each work-group takes a
 * ticket; inside a run one core takes them one after the other, so the
 * tickets of consecutive work-groups can only descend where a run ends:
 * at most 255 times (claims of 4 descend at about every other claim when
 * the two cores run at once).
 */
static void t_alone_claims(void)
{
	struct env *e = fresh(0);
	uint64_t *args;
	uint32_t *counter, *tickets, descents = 0;
	uint64_t args_va = env_buf(e, 4096, WEFT_PTE_VALID, (void **)&args);
	uint64_t c_va = env_buf(e, 4096, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&counter);
	uint64_t t_va = env_buf(e, ALONE_N * 4, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&tickets);
	uint64_t code = env_code(e, "\ts2r.u64 r0, sr.args\n\tld.global.u64 r2, [r0+0]\n"
				    "\tld.global.u64 r4, [r0+8]\n\ts2r.u32 r6, sr.group_id.x\n"
				    "\tmov.u32 r7, 1\n\tatom.global.add.u32 r8, [r2], r7\n"
				    "\tcvt.u64.u32 r10, r6\n\tshl.u64 r10, r10, 2\n\tadd.u64 r10, r4, r10\n"
				    "\tst.global.u32 [r10+0], r8\n\tend\n");

	args[0] = c_va;
	args[1] = t_va;
	prio_submit(e, 0, code, args_va, ALONE_N);
	weft_model_wait_idle(e->m);
	CHECK_EQ(env_qreg(e, 0, WEFT_Q_STATUS), WEFT_Q_STATUS_IDLE);
	CHECK_EQ(*counter, ALONE_N);
	for (uint32_t g = 1; g < ALONE_N; g++)
		descents += tickets[g] < tickets[g - 1];
	printf("    the tickets of consecutive work-groups descend %u times\n", descents);
	CHECK(descents <= ALONE_N / 256 - 1, "%u descents: claimed in runs shorter than 256", descents);
}

/* A running device with a batch page, a semaphore page and a mark page. */
struct sem_env {
	struct env *e;
	uint32_t *b;
	uint64_t *sem, *mark;
	uint64_t bva, sva, mva;
};

static struct sem_env sem_env(void)
{
	struct sem_env s = { fresh(0) };

	s.bva = env_buf(s.e, 4096, WEFT_PTE_VALID, (void **)&s.b);
	s.sva = env_buf(s.e, 4096, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&s.sem);
	s.mva = env_buf(s.e, 4096, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&s.mark);
	return s;
}

/* SEM_WAIT tests: a batch of SEM_WAIT(va, val, flags), then WRITE_DATA(mark, 1 + q). */
static uint32_t sem_batch(uint32_t *b, uint64_t va, uint64_t val, uint32_t flags, uint64_t mark,
			  unsigned q)
{
	uint32_t i = 0;

	b[i++] = CMD(WEFT_CMD_SEM_WAIT, WEFT_CMD_SEM_WAIT_LEN);
	b[i++] = (uint32_t)va;
	b[i++] = (uint32_t)(va >> 32);
	b[i++] = (uint32_t)val;
	b[i++] = (uint32_t)(val >> 32);
	b[i++] = flags;
	b[i++] = CMD(WEFT_CMD_WRITE_DATA, 5);
	b[i++] = (uint32_t)mark;
	b[i++] = (uint32_t)(mark >> 32);
	b[i++] = 1 + q;
	b[i++] = 0;
	b[i++] = CMD(WEFT_CMD_END, 1);
	return i * 4;
}

/* SET_VM + BATCH + FENCE(@fence at fence_gpa + 8 * q), kick, wait for idle. */
static void sem_submit(struct env *e, unsigned q, uint64_t bva, uint32_t bytes, uint64_t fence)
{
	uint64_t fgpa = e->fence_gpa + 8 * q;
	uint32_t cmds[] = {
		CMD(WEFT_CMD_SET_VM, 4), (uint32_t)e->root, (uint32_t)(e->root >> 32), 7,
		CMD(WEFT_CMD_BATCH, 4), (uint32_t)bva, (uint32_t)(bva >> 32), bytes,
		CMD(WEFT_CMD_FENCE, 6), (uint32_t)fgpa, (uint32_t)(fgpa >> 32),
		(uint32_t)fence, (uint32_t)(fence >> 32), 0,
	};

	env_ring_emit(e, q, cmds, sizeof(cmds) / 4);
	env_kick(e, q);
}

static uint64_t qfence(struct env *e, unsigned q)
{
	return __atomic_load_n((uint64_t *)env_host(e, e->fence_gpa + 8 * q), __ATOMIC_ACQUIRE);
}

/* Waits (up to a hang guard) for queue q's fence to reach @v. */
static bool wait_qfence(struct env *e, unsigned q, uint64_t v)
{
	double t = now();

	while (qfence(e, q) != v && now() - t < 30)
		usleep(200);
	weft_model_wait_idle(e->m);
	return qfence(e, q) == v;
}

/* Queue q stopped in a SEM_WAIT: busy, its batch not done, nothing written after it. */
static void check_waiting(struct env *e, unsigned q, uint64_t fence, const uint64_t *mark)
{
	CHECK(env_qreg(e, q, WEFT_Q_STATUS) == WEFT_Q_STATUS_BUSY, "queue %u: status %u, not waiting",
	      q, env_qreg(e, q, WEFT_Q_STATUS));
	CHECK(qfence(e, q) != fence, "queue %u: the batch completed", q);
	CHECK(*mark == 0, "queue %u: WRITE_DATA after the wait ran", q);
	CHECK(env_qreg(e, q, WEFT_Q_HEAD) != e->tail[q], "queue %u: HEAD reached TAIL", q);
}

static void t_sem_wait(void)
{
	struct sem_env s = sem_env();
	struct env *e = s.e;
	uint64_t *sem = s.sem, *mark = s.mark;
	static const struct {
		uint64_t value, operand;
		uint32_t op;
		bool passes;
	} cases[] = {
		{ 5, 5, WEFT_SEM_WAIT_OP_GTE, true },
		{ 5, 0, WEFT_SEM_WAIT_OP_GTE, true },
		{ 6, 5, WEFT_SEM_WAIT_OP_GTE, true },
		{ 4, 5, WEFT_SEM_WAIT_OP_GTE, false },
		{ 5, 5, WEFT_SEM_WAIT_OP_EQ, true },
		{ 6, 5, WEFT_SEM_WAIT_OP_EQ, false },
		{ 4, 5, WEFT_SEM_WAIT_OP_EQ, false },
		/* 64 bits, unsigned: the high dword counts, the top bit is no sign */
		{ 0xffffffffull, 0x100000000ull, WEFT_SEM_WAIT_OP_GTE, false },
		{ 0x100000000ull, 0xffffffffull, WEFT_SEM_WAIT_OP_GTE, true },
		{ 1ull << 63, 1, WEFT_SEM_WAIT_OP_GTE, true },
		{ 1, 1ull << 63, WEFT_SEM_WAIT_OP_GTE, false },
		{ 0x100000005ull, 5, WEFT_SEM_WAIT_OP_EQ, false },
		{ 0x8000000000000005ull, 0x8000000000000005ull, WEFT_SEM_WAIT_OP_EQ, true },
	};
	uint64_t fence = 0;

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t bytes = sem_batch(s.b, s.sva + 8 * i, cases[i].operand, cases[i].op, s.mva, 0);

		sem[i] = cases[i].value;
		*mark = 0;
		sem_submit(e, 0, s.bva, bytes, ++fence);
		if (cases[i].passes) {
			CHECK(qfence(e, 0) == fence && *mark == 1 &&
			      env_qreg(e, 0, WEFT_Q_STATUS) == WEFT_Q_STATUS_IDLE,
			      "case %u: 0x%llx %s 0x%llx did not pass", i,
			      (unsigned long long)cases[i].value,
			      cases[i].op == WEFT_SEM_WAIT_OP_EQ ? "==" : ">=",
			      (unsigned long long)cases[i].operand);
			continue;
		}
		check_waiting(e, 0, fence, mark);
		/* Still waiting after more doorbells and a while. */
		weft_model_doorbell(e->m);
		weft_model_wait_idle(e->m);
		usleep(5000);
		check_waiting(e, 0, fence, mark);
		/* The CPU writes the value, no doorbell: the queue goes on by itself. */
		__atomic_store_n(&sem[i], cases[i].operand, __ATOMIC_RELEASE);
		CHECK(wait_qfence(e, 0, fence), "case %u: the wait did not end", i);
		CHECK_EQ(*mark, 1);
		CHECK_EQ(env_qreg(e, 0, WEFT_Q_STATUS), WEFT_Q_STATUS_IDLE);
		CHECK_EQ(env_qreg(e, 0, WEFT_Q_HEAD), e->tail[0]);
	}

	/* EQ waits for exactly the operand: passing it does not do. */
	sem[0] = 1;
	*mark = 0;
	sem_submit(e, 1, s.bva, sem_batch(s.b, s.sva, 3, WEFT_SEM_WAIT_OP_EQ, s.mva, 1), ++fence);
	__atomic_store_n(&sem[0], 4, __ATOMIC_RELEASE);
	usleep(5000);
	weft_model_wait_idle(e->m);
	check_waiting(e, 1, fence, mark);
	__atomic_store_n(&sem[0], 3, __ATOMIC_RELEASE);
	CHECK(wait_qfence(e, 1, fence), "EQ: the wait did not end");
	CHECK_EQ(*mark, 2);
	CHECK_EQ(env_qreg(e, 0, WEFT_Q_ERROR_SEQ) + env_qreg(e, 1, WEFT_Q_ERROR_SEQ), 0);
}

/* A wait satisfied by other queues: WRITE_DATA, a dispatch's store, a FENCE. */
static void t_sem_wait_other_queue(void)
{
	struct env *e = fresh(0);
	uint32_t *b2, *b0;
	uint64_t *sem, *mark, *args;
	uint64_t b2va = env_buf(e, 4096, WEFT_PTE_VALID, (void **)&b2);
	uint64_t b0va = env_buf(e, 4096, WEFT_PTE_VALID, (void **)&b0);
	uint64_t sva = env_buf(e, 4096, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&sem);
	uint64_t sgpa = (uint8_t *)sem - e->mem;	/* for FENCE */
	uint64_t mva = env_buf(e, 4096, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&mark);
	uint64_t args_va = env_buf(e, 4096, WEFT_PTE_VALID, (void **)&args);
	uint64_t end = env_code(e, "end\n");
	uint64_t store = env_code(e, "s2r.u64 r0, sr.args\nld.global.u64 r2, [r0+0]\n"
				     "ld.global.u64 r4, [r0+8]\nst.global.u64 [r2+0], r4\nend\n");
	struct env_dispatch d = { end, args_va, 8, { 64, 1, 1 }, { 8, 1, 1 } };
	uint32_t bytes, i;

	/* 1. Queue 2 waits for sem >= 1; queue 0's WRITE_DATA sets it. */
	sem_submit(e, 2, b2va, sem_batch(b2, sva, 1, WEFT_SEM_WAIT_OP_GTE, mva, 2), 1);
	check_waiting(e, 2, 1, mark);
	/* The waiting queue blocks no other: dispatches on 1 and 3 complete. */
	CHECK_EQ(env_dispatch(e, 1, &d), 0);
	CHECK_EQ(env_dispatch(e, 3, &d), 0);
	check_waiting(e, 2, 1, mark);
	i = 0;
	b0[i++] = CMD(WEFT_CMD_WRITE_DATA, 5);
	b0[i++] = (uint32_t)sva;
	b0[i++] = (uint32_t)(sva >> 32);
	b0[i++] = 1;
	b0[i++] = 0;
	b0[i++] = CMD(WEFT_CMD_END, 1);
	/* A write wakes the waiter at once: when the model is idle again, it is done. */
	sem_submit(e, 0, b0va, i * 4, 1);
	CHECK_EQ(qfence(e, 0), 1);
	CHECK_EQ(qfence(e, 2), 1);
	CHECK_EQ(*mark, 3);
	CHECK_EQ(env_qreg(e, 2, WEFT_Q_STATUS), WEFT_Q_STATUS_IDLE);
	CHECK_EQ(env_qreg(e, 2, WEFT_Q_HEAD), e->tail[2]);

	/* 2. Queue 2 waits for sem == 7, which a kernel on queue 3 stores. */
	*mark = 0;
	sem_submit(e, 2, b2va, sem_batch(b2, sva, 7, WEFT_SEM_WAIT_OP_EQ, mva, 2), 2);
	check_waiting(e, 2, 2, mark);
	args[0] = sva;
	args[1] = 7;
	d.code_va = store;
	d.gsize[0] = d.lsize[0] = 1;
	CHECK_EQ(env_dispatch(e, 3, &d), 0);
	CHECK_EQ(qfence(e, 2), 2);
	CHECK_EQ(*mark, 3);

	/* 3. A ring FENCE of queue 1 to the semaphore's physical address. */
	*mark = 0;
	sem_submit(e, 2, b2va, sem_batch(b2, sva, 9, WEFT_SEM_WAIT_OP_GTE, mva, 2), 3);
	check_waiting(e, 2, 3, mark);
	{
		uint32_t f[] = { CMD(WEFT_CMD_FENCE, 6), (uint32_t)sgpa, (uint32_t)(sgpa >> 32), 10, 0,
				 0 };

		env_ring_emit(e, 1, f, 6);
		env_kick(e, 1);
	}
	CHECK_EQ(*sem, 10);
	CHECK_EQ(qfence(e, 2), 3);
	CHECK_EQ(*mark, 3);

	/* 4. Two queues wait on one value; a third releases both. */
	*mark = 0;
	*sem = 0;
	bytes = sem_batch(b2, sva, 1, WEFT_SEM_WAIT_OP_GTE, mva, 2);
	sem_submit(e, 2, b2va, bytes, 4);
	sem_submit(e, 3, b2va, bytes, 4);	/* writes 3 too */
	check_waiting(e, 2, 4, mark);
	check_waiting(e, 3, 4, mark);
	sem_submit(e, 0, b0va, 6 * 4, 2);
	CHECK_EQ(qfence(e, 2), 4);
	CHECK_EQ(qfence(e, 3), 4);
	CHECK_EQ(*mark, 3);
	for (unsigned q = 0; q < 4; q++)
		CHECK_EQ(env_qreg(e, q, WEFT_Q_ERROR_SEQ), 0);
}

/* SEM_WAIT errors: each stops only its queue, at the documented address. */
static void t_sem_wait_errors(void)
{
	uint32_t mis[] = { CMD(WEFT_CMD_NOP, 1), CMD(WEFT_CMD_SEM_WAIT, 6), 0x5004, 0, 0, 0,
			   WEFT_SEM_WAIT_OP_GTE };
	uint32_t rsvd[] = { CMD(WEFT_CMD_SEM_WAIT, 6), 0x5000, 0, 0, 0, 0x10 };
	uint32_t rsvd2[] = { CMD(WEFT_CMD_SEM_WAIT, 6), 0x5000, 0, 0, 0, 0x80000001 };
	uint32_t op2[] = { CMD(WEFT_CMD_SEM_WAIT, 6), 0x5000, 0, 0, 0, 2 };
	uint32_t op15[] = { CMD(WEFT_CMD_SEM_WAIT, 6), 0x5000, 0, 0, 0, 15 };
	uint32_t len5[] = { CMD(WEFT_CMD_SEM_WAIT, 5), 0x5000, 0, 0, 0 };
	uint32_t len7[] = { CMD(WEFT_CMD_SEM_WAIT, 7), 0x5000, 0, 0, 0, 0, 0 };
	uint32_t past[] = { CMD(WEFT_CMD_NOP, 1), CMD(WEFT_CMD_SEM_WAIT, 6), 0x5000, 0, 0 };
	struct sem_env s;
	struct env *e;
	uint32_t *b1;
	uint64_t *mark, ro_va, b1va;
	void *ro;
	struct env_dispatch d;

	const struct {
		const uint32_t *cmds;
		unsigned n, at;		/* dwords, the bad command's dword */
	} bad[] = {
		{ mis, 7, 1 }, { rsvd, 6, 0 }, { rsvd2, 6, 0 }, { op2, 6, 0 }, { op15, 6, 0 },
		{ len5, 5, 0 }, { len7, 7, 0 }, { past, 5, 1 },
	};

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_batch_error(bad[i].cmds, bad[i].n, bad[i].at, WEFT_QERR_BAD_COMMAND);

	/* Unmapped VA: an MMU fault (READ, not present) at the VA; others run on. */
	s = sem_env();
	e = s.e;
	mark = s.mark;
	b1va = env_buf(e, 4096, WEFT_PTE_VALID, (void **)&b1);
	ro_va = env_buf(e, 4096, WEFT_PTE_VALID, &ro);
	d = (struct env_dispatch){ env_code(e, "end\n"), 0, 8, { 64, 1, 1 }, { 8, 1, 1 } };
	/* Queue 1 waits meanwhile; it must be neither woken nor disturbed. */
	sem_submit(e, 1, b1va, sem_batch(b1, s.sva, 1, WEFT_SEM_WAIT_OP_EQ, s.mva, 1), 1);
	check_waiting(e, 1, 1, mark);
	sem_submit(e, 2, s.bva, sem_batch(s.b, 0x5000, 0, WEFT_SEM_WAIT_OP_GTE, s.mva, 2), 1);
	CHECK_EQ(env_qreg(e, 2, WEFT_Q_STATUS), WEFT_Q_STATUS_ERROR);
	CHECK_EQ(env_qreg(e, 2, WEFT_Q_ERROR_CODE), WEFT_QERR_MMU_FAULT);
	CHECK_EQ(env_qreg(e, 2, WEFT_Q_ERROR_ADDR_LO), 0x5000);
	CHECK_EQ(env_qreg(e, 2, WEFT_Q_ERROR_ADDR_HI), 0);
	CHECK_EQ(fault_addr(e), 0x5000);
	CHECK_EQ(env_reg(e, WEFT_REG_FAULT_INFO),
		 WEFT_FAULT_ACCESS_READ | WEFT_FAULT_NOT_PRESENT | 2 << WEFT_FAULT_QUEUE_SHIFT);
	CHECK_EQ(qfence(e, 2), 0);
	CHECK_EQ(*mark, 0);
	check_waiting(e, 1, 1, mark);
	CHECK_EQ(env_dispatch(e, 0, &d), 0);
	CHECK_EQ(env_dispatch(e, 3, &d), 0);
	/* A read-only page is fine to wait on. */
	env_reset_queue(e, 2);
	sem_submit(e, 2, s.bva, sem_batch(s.b, ro_va, 0, WEFT_SEM_WAIT_OP_EQ, s.mva, 2), 2);
	CHECK_EQ(qfence(e, 2), 2);
	CHECK_EQ(*mark, 3);
	/* The waiter is still there and ends as asked. */
	*mark = 0;
	check_waiting(e, 1, 1, mark);
	__atomic_store_n(s.sem, 1, __ATOMIC_RELEASE);
	CHECK(wait_qfence(e, 1, 1), "queue 1's wait did not end");
	CHECK_EQ(*mark, 2);
	CHECK_EQ(env_qreg(e, 1, WEFT_Q_ERROR_SEQ), 0);
}

/* A queue reset and DRIVER_READY = 0 end a wait at once; the device is not spinning. */
static void t_sem_wait_reset(void)
{
	struct sem_env s = sem_env();
	struct env *e = s.e;
	uint64_t *sem = s.sem, *mark = s.mark, bva = s.bva;
	uint32_t bytes = sem_batch(s.b, s.sva, 1, WEFT_SEM_WAIT_OP_GTE, s.mva, 0);
	struct rusage r0, r1;
	double t, cpu;
	unsigned irqs;

	/* Waiting costs no CPU to speak of: it sleeps between looks. */
	sem_submit(e, 0, bva, bytes, 1);
	check_waiting(e, 0, 1, mark);
	getrusage(RUSAGE_SELF, &r0);
	t = now();
	usleep(200000);
	t = now() - t;
	getrusage(RUSAGE_SELF, &r1);
	cpu = (r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) + (r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) +
	      ((r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) +
	       (r1.ru_stime.tv_usec - r0.ru_stime.tv_usec)) * 1e-6;
	CHECK(cpu < t / 4, "a waiting queue used %.3f s of CPU in %.3f s", cpu, t);

	/* Queue reset: the wait ends, nothing after it runs. */
	check_waiting(e, 0, 1, mark);
	irqs = atomic_load(&e->irqs);
	reset_now(e, 0);
	CHECK_EQ(env_qreg(e, 0, WEFT_Q_HEAD), e->tail[0]);
	CHECK_EQ(env_qreg(e, 0, WEFT_Q_ERROR_SEQ), 0);
	CHECK_EQ(atomic_load(&e->irqs), irqs + 1);
	__atomic_store_n(sem, 1, __ATOMIC_RELEASE);
	usleep(10000);
	weft_model_wait_idle(e->m);
	CHECK_EQ(*mark, 0);
	CHECK_EQ(qfence(e, 0), 0);
	/* The queue works again, and waits again. */
	sem_submit(e, 0, bva, bytes, 2);
	CHECK_EQ(qfence(e, 0), 2);
	CHECK_EQ(*mark, 1);
	*mark = 0;
	*sem = 0;
	sem_submit(e, 0, bva, bytes, 3);
	check_waiting(e, 0, 3, mark);

	/* DRIVER_READY = 0: the device stops at once, the wait is dropped. */
	stop_device(e);
	CHECK_EQ(env_qreg(e, 0, WEFT_Q_STATUS), WEFT_Q_STATUS_IDLE);
	__atomic_store_n(sem, 1, __ATOMIC_RELEASE);
	usleep(10000);
	weft_model_wait_idle(e->m);
	CHECK_EQ(*mark, 0);
	CHECK_EQ(qfence(e, 0), 2);
	/* Running again: a fresh wait passes. */
	CHECK_EQ(env_ready(e), WEFT_DEVICE_RUNNING);
	e->tail[0] = env_qreg(e, 0, WEFT_Q_HEAD);
	sem_submit(e, 0, bva, bytes, 4);
	CHECK_EQ(qfence(e, 0), 4);
	CHECK_EQ(*mark, 1);
}

int main(void)
{
	h_run("model: identification block", t_identification);
	h_run("model: handshake, stop, no irq before running", t_handshake);
	h_run("cs: ring NOP, FENCE, IRQ, wrap-around", t_fence_nop_irq);
	h_run("cs: batch NOP, WRITE_DATA, END, implicit end", t_batch_write_data);
	h_run("cs: privileged command in batch", t_privileged_in_batch);
	h_run("cs: bad batch commands (unknown, length, reserved, overrun)", t_bad_commands);
	h_run("cs: bad ring commands", t_bad_ring_commands);
	h_run("cs: partially published command waits", t_partial_command_waits);
	h_run("cs: queue enable", t_disable_and_stop_during_work);
	h_run("cs: error isolation and queue reset", t_reset_and_isolation);
	h_run("exec: IGT dispatch kernel, SIMD 8/16/32, partial groups", t_dispatch_kernel);
	h_run("exec: 3D dispatch, special registers, global offset", t_dispatch_3d);
	h_run("exec: bad dispatch parameters", t_bad_dispatch);
	h_run("exec: undefined instructions", t_bad_instruction);
	h_run("exec: watchdog", t_watchdog);
	h_run("exec: 64-bit literal word across a page boundary", t_literal_fetch);
	h_run("mmu: faults, fault block, FAULT_ACK", t_mmu_faults);
	h_run("mmu: every kind of load, store and atomic: not present, read-only, page end, inactive lanes",
	      t_mmu_forms);
	h_run("mmu: 2 MiB pages: every access kind at their ends and across them, permissions, "
	      "misaligned, outside memory, HUGE at other levels", t_mmu_huge);
	h_run("mmu: a stream's TLB miss translates the rest of its run, holes and permissions kept",
	      t_mmu_stream);
	h_run("reset: queue reset and DRIVER_READY=0 abort a running dispatch; queues run independently",
	      t_reset_running_dispatch);
	h_run("queues: priority, queue 0 gets the larger share, queue 3 still progresses",
	      t_queue_priority);
	h_run("queues: a dispatch running alone is claimed in runs of consecutive work-groups",
	      t_alone_claims);
	h_run("cs: SEM_WAIT, GE and EQ on 64-bit unsigned values, satisfied at once or later by the CPU",
	      t_sem_wait);
	h_run("cs: SEM_WAIT satisfied by other queues (WRITE_DATA, a kernel's store, FENCE); others run meanwhile",
	      t_sem_wait_other_queue);
	h_run("cs: SEM_WAIT errors (alignment, reserved bits, op, length, unmapped VA) stop only their queue",
	      t_sem_wait_errors);
	h_run("cs: SEM_WAIT ended by queue reset and DRIVER_READY=0; waiting does not spin",
	      t_sem_wait_reset);
	h_run("robustness: random batches and code", t_fuzz);
	if (E)
		env_destroy(E);
	return h_summary();
}
