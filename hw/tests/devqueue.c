// SPDX-License-Identifier: MIT
/*
 * Device queues and a kernel that enqueues, for the device-side enqueue
 * tests (test_enqueue.c) and the child-launch benchmark (bench/enqueue.c).
 */
#include <stdio.h>
#include <string.h>

#include "devqueue.h"

uint32_t *dq_word(struct dq *d, uint32_t off)
{
	return (uint32_t *)(d->host + off);
}

struct dq dq_create(struct env *e, uint32_t size, uint32_t events, uint32_t depth_limit)
{
	struct dq d = { 0, NULL, size, events };

	d.va = env_buf(e, WEFT_DQ_HEADER_SIZE + size + events * WEFT_DQ_EVENT_SIZE,
		       WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&d.host);
	*dq_word(&d, WEFT_DQ_SIZE) = size;
	*dq_word(&d, WEFT_DQ_EVENTS) = events;
	*dq_word(&d, WEFT_DQ_DEPTH_LIMIT) = depth_limit;
	return d;
}

uint64_t dq_rec_va(const struct dq *d, uint32_t off)
{
	return d->va + WEFT_DQ_HEADER_SIZE + off;
}

uint32_t run_drain(struct env *e, unsigned q, const struct env_dispatch *parent,
		   uint64_t dq_va)
{
	uint32_t *b, i = 0;

	/* The device is idle between batches: env_dispatch's batch page serves. */
	if (!e->batch)
		e->batch_va = env_buf(e, 4096, WEFT_PTE_VALID, (void **)&e->batch);
	b = e->batch;

	if (parent) {
		b[i++] = CMD(WEFT_CMD_DISPATCH, WEFT_CMD_DISPATCH_LEN);
		b[i++] = (uint32_t)parent->code_va;
		b[i++] = (uint32_t)(parent->code_va >> 32);
		b[i++] = (uint32_t)parent->args_va;
		b[i++] = (uint32_t)(parent->args_va >> 32);
		b[i++] = parent->simd;
		for (int k = 0; k < 3; k++)
			b[i++] = parent->gsize[k];
		for (int k = 0; k < 3; k++)
			b[i++] = parent->lsize[k];
		for (int k = 0; k < 3; k++)
			b[i++] = parent->goff[k];
		b[i++] = parent->slm;
	}
	b[i++] = CMD(WEFT_CMD_DRAIN_QUEUE, WEFT_CMD_DRAIN_QUEUE_LEN);
	b[i++] = (uint32_t)dq_va;
	b[i++] = (uint32_t)(dq_va >> 32);
	b[i++] = CMD(WEFT_CMD_END, 1);
	env_submit_batch(e, q, e->batch_va, i * 4, ++e->seq);
	if (env_qreg(e, q, WEFT_Q_STATUS) == WEFT_Q_STATUS_ERROR)
		return env_qreg(e, q, WEFT_Q_ERROR_CODE);
	return env_fence(e) == e->seq ? 0 : 0xdead;
}

static char tree_src[4096];

const char *tree_kernel(void)
{
	snprintf(tree_src, sizeof(tree_src),
		 "\ts2r.u64 r0, sr.args\n"
		 "\tld.global.u64 r2, [r0+0]\n"
		 "\tld.global.u64 r4, [r0+8]\n"
		 "\tld.global.u64 r6, [r0+16]\n"
		 "\tld.global.u32 r8, [r0+24]\n"
		 "\tld.global.u32 r9, [r0+28]\n"
		 "\tld.global.u32 r10, [r0+32]\n"
		 "\tld.global.u32 r11, [r2+%u]\n"		/* WEFT_DQ_DEPTH */
		 "\tcvt.u64.u32 r12, r11\n"
		 "\tshl.u64 r12, r12, 2\n"
		 "\tadd.u64 r12, r6, r12\n"
		 "\tmov.u32 r14, 1\n"
		 "\tatom.global.add.u32 r15, [r12], r14\n"
		 "\tset.gt.u32 r16, r8, 0\n"
		 "\tif r16, done\n"
		 "\tld.global.u32 r17, [r2+%u]\n"		/* WEFT_DQ_SIZE */
		 "\tmov.u32 r18, %u\n"			/* TREE_REC_LEN */
		 "\tatom.global.add.u32 r19, [r2], r18\n"
		 "\tadd.u32 r20, r19, r18\n"
		 "\tset.le.u32 r21, r20, r17\n"
		 "\tcvt.u64.u32 r22, r19\n"
		 "\tadd.u64 r22, r2, r22\n"
		 "\tadd.u64 r22, r22, %u\n"		/* WEFT_DQ_HEADER_SIZE */
		 "\tif r21, full\n"
		 "\tst.global.u32 [r22+0], r18\n"
		 "\tmov.u32 r24, %u\n"			/* WEFT_DQ_REC_KERNEL */
		 "\tst.global.u32 [r22+4], r24\n"
		 "\tmov.u32 r24, 0\n"
		 "\tst.global.u32 [r22+8], r24\n"
		 "\tst.global.u32 [r22+16], r24\n"
		 "\tst.global.u32 [r22+20], r24\n"
		 "\tst.global.u32 [r22+24], r24\n"
		 "\tst.global.u32 [r22+28], r24\n"
		 "\tmov.u32 r25, 0xffffffff\n"
		 "\tst.global.u32 [r22+12], r25\n"
		 "\tst.global.u64 [r22+32], r4\n"		/* code */
		 "\tadd.u64 r26, r22, %u\n"		/* WEFT_DQ_REC_ARGS */
		 "\tst.global.u64 [r22+40], r26\n"	/* args: the block literal */
		 "\tst.global.u32 [r22+48], r10\n"	/* SIMD */
		 "\tst.global.u32 [r22+52], r9\n"		/* global size */
		 "\tst.global.u32 [r22+56], r14\n"
		 "\tst.global.u32 [r22+60], r14\n"
		 "\tst.global.u32 [r22+64], r9\n"		/* one work-group */
		 "\tst.global.u32 [r22+68], r14\n"
		 "\tst.global.u32 [r22+72], r14\n"
		 "\tst.global.u32 [r22+76], r24\n"
		 "\tst.global.u32 [r22+80], r24\n"
		 "\tst.global.u32 [r22+84], r24\n"
		 "\tst.global.u32 [r22+88], r24\n"
		 "\tst.global.u32 [r22+92], r24\n"
		 "\tst.global.u64 [r26+0], r2\n"
		 "\tst.global.u64 [r26+8], r4\n"
		 "\tst.global.u64 [r26+16], r6\n"
		 "\tsub.u32 r31, r8, 1\n"
		 "\tst.global.u32 [r26+24], r31\n"
		 "\tst.global.u32 [r26+28], r9\n"
		 "\tst.global.u32 [r26+32], r10\n"
		 "full:\telse done2\n"
		 "\tadd.u64 r32, r6, %u\n"			/* CNT_FULL */
		 "\tatom.global.add.u32 r15, [r32], r14\n"
		 "\tset.lt.u32 r28, r19, r17\n"
		 "\tif r28, nopad\n"
		 "\tsub.u32 r29, r17, r19\n"
		 "\tst.global.u32 [r22+0], r29\n"
		 "\tmov.u32 r30, %u\n"			/* WEFT_DQ_REC_PAD */
		 "\tst.global.u32 [r22+4], r30\n"
		 "\tadd.u64 r32, r6, %u\n"			/* CNT_PADS */
		 "\tatom.global.add.u32 r15, [r32], r14\n"
		 "nopad:\tendif\n"
		 "done2:\tendif\n"
		 "done:\tendif\n"
		 "\tend\n",
		 WEFT_DQ_DEPTH, WEFT_DQ_SIZE, TREE_REC_LEN, WEFT_DQ_HEADER_SIZE, WEFT_DQ_REC_KERNEL,
		 WEFT_DQ_REC_ARGS, CNT_FULL * 4, WEFT_DQ_REC_PAD, CNT_PADS * 4);
	return tree_src;
}

struct tree tree_setup(struct env *e, uint32_t records, uint32_t depth_limit)
{
	struct tree t;

	t.dq = dq_create(e, records * TREE_REC_LEN, 0, depth_limit);
	t.code = env_code(e, tree_kernel());
	t.args_va = env_buf(e, 4096, WEFT_PTE_VALID, (void **)&t.args);
	t.cnt_va = env_buf(e, 4096, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&t.cnt);
	return t;
}

/* The parent: @items work-items, @levels levels of children of @child_items each. */
uint32_t tree_run(struct env *e, struct tree *t, unsigned q, uint32_t items,
		  uint32_t levels, uint32_t child_items, uint32_t simd)
{
	struct env_dispatch p = { .code_va = t->code, .args_va = t->args_va, .simd = simd,
				  .gsize = { items, 1, 1 }, .lsize = { items < 64 ? items : 64, 1, 1 } };

	t->args[0] = t->dq.va;
	t->args[1] = t->code;
	t->args[2] = t->cnt_va;
	t->args[3] = levels | (uint64_t)child_items << 32;
	t->args[4] = simd;
	memset(t->cnt, 0, CNT_WORDS * 4);
	return run_drain(e, q, &p, t->dq.va);
}
