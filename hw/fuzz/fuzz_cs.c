// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the command streamer and everything behind it, through
 * the in-process device model (libweftmodel), as a hostile driver would
 * drive it: registers, rings, batches, dispatches, page tables, kernels and
 * guest memory, all from the fuzzer's bytes.
 *
 * The model must never crash, never hang past its watchdog (libFuzzer's
 * -timeout catches that) and never touch memory outside guest RAM: guest
 * RAM and the register file are heap buffers of exactly their size, so
 * AddressSanitizer reports any access beyond them.
 *
 * The input is a program of small operations (see step()); each input runs
 * on a fresh model so that a reproducer replays on its own.
 *
 * Built with FUZZ_JIT (the fuzz_jit target), each input runs twice, on a
 * model that only interprets and on one that translates every kernel
 * (execution.rst, "The translator"), each with one core and a driver that
 * waits for every submission, so that both run the same work in the same
 * order: guest memory and the register file must end identical.  A valid VM
 * (batch, code, argument, data and read-only buffers, and a 2 MiB page that
 * ends where guest memory ends) is mapped first, so that the fuzzer reaches
 * dispatch execution quickly; the operations then corrupt any part of it.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft_isa.h"
#include "weft_model.h"
#include "weft_regs.h"
#include "weft_cs_regs.h"
#include "weft_mmu_regs.h"

#ifdef FUZZ_JIT
/* The same order of work both ways: no writes while the model runs. */
#define FUZZ_NO_GUEST_RACES
#endif

#define CMD(op, len)	WEFT_CMD_HEADER((uint32_t)(op), (uint32_t)(len))
#define PAGE		WEFT_MMU_PAGE_SIZE

#define MEM_SIZE	(4u << 20)
#define RING_GPA	0x10000u	/* 4 rings of 4 KiB */
#define RING_SIZE	4096u
#define FENCE_GPA	0x14000u
#define PT_GPA		0x20000u	/* page-table pool */
#define PT_END		0x40000u
#define BUF_GPA		0x40000u	/* buffers */
#define HUGE_SZ		(2u << 20)
#define HUGE_GPA	(MEM_SIZE - HUGE_SZ)	/* a 2 MiB page, the last of memory */
#define HUGE_VA		0x40000000ull

/* The VM: VA, pages, PTE flags. */
enum { B_BATCH, B_CODE, B_ARGS, B_DATA, B_RO, B_NBUF };
static const struct {
	uint64_t va;
	unsigned pages;
	uint64_t flags;
} bufs[B_NBUF] = {
	[B_BATCH] = { 0x10000000ull, 2, WEFT_PTE_VALID },
	[B_CODE] = { 0x20000000ull, 2, WEFT_PTE_VALID | WEFT_PTE_EXEC },
	[B_ARGS] = { 0x30000000ull, 1, WEFT_PTE_VALID },
	[B_DATA] = { 0x7ffffff0000ull, 16, WEFT_PTE_VALID | WEFT_PTE_WRITE },
	[B_RO] = { 0xffffffff000ull, 1, WEFT_PTE_VALID },
};

struct fz {
	const uint8_t *p, *end;
	uint32_t *regs;
	uint8_t *mem;
	struct weft_model *m;
	uint64_t pt_next;
	uint64_t root;
	uint64_t buf_gpa[B_NBUF];
	uint32_t tail[WEFT_MODEL_NUM_QUEUES];
	uint32_t bstart, bcur;		/* batch dwords: last submitted, next free */
	uint32_t ccur;			/* code words */
	uint16_t defined[WEFT_ISA_OPCODE_COUNT];
	unsigned ndefined;
};

static uint64_t get(struct fz *f, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < bytes && f->p < f->end; i++)
		v |= (uint64_t)*f->p++ << (8 * i);
	return v;
}
#define get8(f) ((uint8_t)get(f, 1))
#define get16(f) ((uint16_t)get(f, 2))
#define get32(f) ((uint32_t)get(f, 4))
#define get64(f) get(f, 8)

static void wreg(struct fz *f, uint32_t off, uint32_t v)
{
	__atomic_store_n(&f->regs[off / 4], v, __ATOMIC_RELEASE);
}

static void *host(struct fz *f, uint64_t gpa)
{
	return f->mem + gpa;
}

static uint64_t pt_alloc(struct fz *f)
{
	uint64_t gpa = f->pt_next;

	if (gpa >= PT_END)
		abort();	/* the fixed VM must fit the pool */
	f->pt_next += PAGE;
	return gpa;
}

/* The level-@level entry covering @va, allocating the tables above it. */
static uint64_t *pte_at(struct fz *f, uint64_t va, int level)
{
	uint64_t table = f->root;

	for (int l = 0; l < level; l++) {
		uint64_t *pte = (uint64_t *)host(f, table) + ((va >> (12 + 9 * (3 - l))) & 511);

		if (!(*pte & WEFT_PTE_VALID))
			*pte = pt_alloc(f) | WEFT_PTE_VALID;
		table = *pte & WEFT_PTE_ADDR_MASK;
	}
	return (uint64_t *)host(f, table) + ((va >> (12 + 9 * (3 - level))) & 511);
}

static void map(struct fz *f, uint64_t va, uint64_t gpa, unsigned pages, uint64_t flags)
{
	for (unsigned i = 0; i < pages; i++)
		*pte_at(f, va + (uint64_t)i * PAGE, 3) = (gpa + (uint64_t)i * PAGE) | flags;
}

static void ring_emit(struct fz *f, unsigned q, const uint32_t *dw, unsigned n)
{
	uint32_t *ring = host(f, RING_GPA + q * RING_SIZE);

	for (unsigned i = 0; i < n; i++)
		__atomic_store_n(&ring[f->tail[q]++ % (RING_SIZE / 4)], dw[i], __ATOMIC_RELEASE);
}

static void kick(struct fz *f, unsigned q, bool wait)
{
	wreg(f, WEFT_QUEUE_REG(q, WEFT_Q_TAIL), f->tail[q]);
	weft_model_doorbell(f->m);
	if (wait)
		weft_model_wait_idle(f->m);
}

static void batch_emit(struct fz *f, const uint32_t *dw, unsigned n)
{
	uint32_t *b = host(f, f->buf_gpa[B_BATCH]);
	unsigned cap = bufs[B_BATCH].pages * PAGE / 4;

	for (unsigned i = 0; i < n; i++)
		b[f->bcur++ % cap] = dw[i];
}

static void code_emit(struct fz *f, const uint64_t *w, unsigned n)
{
	uint64_t *c = host(f, f->buf_gpa[B_CODE]);
	unsigned cap = bufs[B_CODE].pages * PAGE / 8;

	for (unsigned i = 0; i < n; i++)
		c[f->ccur++ % cap] = w[i];
}

/* A VA the fuzzer picks: mostly inside a buffer, sometimes anywhere. */
static uint64_t pick_va(struct fz *f, unsigned buf, unsigned align)
{
	uint8_t sel = get8(f);
	uint64_t size = (uint64_t)bufs[buf].pages * PAGE;

	switch (sel & 3) {
	case 0: return bufs[buf].va;
	case 1: return bufs[buf].va + (get16(f) % size & ~(uint64_t)(align - 1));
	case 2: return bufs[sel >> 2 & 3].va + (int64_t)(int16_t)get16(f);
	default: return get64(f);
	}
}

static uint32_t pick_size(struct fz *f)
{
	uint8_t sel = get8(f);

	switch (sel & 3) {
	case 0: return 1 + (sel >> 2);
	case 1: return 1 + get8(f);
	case 2: return 1u << (sel >> 2 & 31);
	default: return get32(f);
	}
}

/* A valid instruction built from the ISA table (so new instructions get fuzzed too). */
static unsigned gen_inst(struct fz *f, uint64_t out[2])
{
	struct weft_inst in;
	const struct weft_op_info *oi;
	uint32_t sel = get32(f);
	int n;

	memset(&in, 0, sizeof(in));
	in.op = f->defined[get8(f) % f->ndefined];
	oi = &weft_isa_ops[in.op];
	for (unsigned k = sel & 31, t = 0; oi->types && k < 64; t = (t + 1) % 32)
		if ((oi->types >> t) & 1 && !k--) {
			in.t = t;
			break;
		}
	for (unsigned k = (sel >> 5) & 31, t = 0; oi->types2 && k < 64; t = (t + 1) % 32)
		if ((oi->types2 >> t) & 1 && !k--) {
			in.t2 = t;
			break;
		}
	for (unsigned i = 0; i < oi->nopnd; i++) {
		const struct weft_operand_desc *od = &oi->opnd[i];
		unsigned bits = weft_isa_type_bits(weft_isa_opnd_type(&in, od));
		uint16_t r = get8(f);
		uint16_t *field = od->field == WEFT_FIELD_D ? &in.d : od->field == WEFT_FIELD_A ? &in.a :
				  od->field == WEFT_FIELD_B ? &in.b : od->field == WEFT_FIELD_C ? &in.c :
				  &in.mod;

		/* Registers 0..15 mostly: that is where the prologue's pointers are. */
		if (!(sel >> 10 & 1))
			r %= 16;
		if (bits == 64)
			r &= ~1;
		switch (od->role) {
		case WEFT_ROLE_SREG:
			*field = r % WEFT_ISA_NUM_SREGS;
			if (weft_isa_sregs[*field].bits == 64)
				in.t = WEFT_TYPE_U64;
			break;
		case WEFT_ROLE_SRCI:
			if (sel >> 11 & 1) {
				in.has_imm = 1;
				in.imm = get32(f);
			} else if ((sel >> 12 & 7) == 0 && bits == 64) {
				in.has_lit = 1;
				in.lit = get64(f) | 1ull << 40;
			} else {
				*field = r;
			}
			break;
		case WEFT_ROLE_TARGET:	/* a branch: mostly short, 8-byte multiples */
			in.has_imm = 1;
			in.imm = (sel >> 15 & 1) ? get32(f) & ~7u : (uint32_t)(int32_t)(int8_t)get8(f) * 8;
			break;
		case WEFT_ROLE_ADDR:
			*field = bits == 64 ? (r % 8 & ~1) : r;
			break;
		case WEFT_ROLE_MEM:
			*field = bits == 64 ? (r % 8 & ~1) : r;
			in.has_imm = 1;
			in.imm = (sel >> 15 & 1) ? get32(f) : (uint32_t)(int32_t)(int8_t)get8(f) * 4;
			break;
		default:
			*field = r;
		}
	}
	n = weft_isa_encode(&in, out);
	if (n < 0) {
		out[0] = 0x002;	/* nop */
		return 1;
	}
	return n;
}

/* Loads pointers into r0..r7 from the argument buffer (which holds VAs of every buffer). */
static void prologue(struct fz *f)
{
	static const char src[] =
		"s2r.u64 r250, sr.args\n"
		"ld.global.u64 r0, [r250+0]\n"
		"ld.global.u64 r2, [r250+8]\n"
		"ld.global.u64 r4, [r250+16]\n"
		"ld.global.u64 r6, [r250+24]\n"
		"s2r.u32 r8, sr.global_id.x\n"
		"cvt.u64.u32 r10, r8\n"
		"shl.u64 r10, r10, 2\n"
		"add.u64 r0, r0, r10\n";
	static uint64_t *words;
	static size_t n;
	char err[256];

	if (!words && weft_asm(src, "<prologue>", &words, &n, err, sizeof(err))) {
		fprintf(stderr, "fuzz_cs: prologue: %s\n", err);
		abort();
	}
	code_emit(f, words, n);
}

#ifdef WEFT_CMD_DRAIN_QUEUE
/*
 * DRAIN_QUEUE of a device queue in the data buffer: mostly aligned, with a
 * header the fuzzer chooses and, often, a kernel record of the code buffer
 * that the fuzzer's pokes and kernels then corrupt.
 */
static void drain_queue(struct fz *f)
{
	uint64_t off = get16(f) % (bufs[B_DATA].pages * PAGE - 512) & ~63u;
	uint64_t va = bufs[B_DATA].va + off;
	uint32_t *h = host(f, f->buf_gpa[B_DATA] + off);
	uint8_t sel = get8(f);
	uint32_t c[] = { CMD(WEFT_CMD_DRAIN_QUEUE, WEFT_CMD_DRAIN_QUEUE_LEN), (uint32_t)va,
			 (uint32_t)(va >> 32) };

	if (sel & 1) {
		memset(h, 0, WEFT_DQ_HEADER_SIZE);
		h[WEFT_DQ_SIZE / 4] = get16(f) & ~15u;
		h[WEFT_DQ_EVENTS / 4] = get8(f) % 4;
		h[WEFT_DQ_DEPTH_LIMIT / 4] = get8(f) % 4;
	}
	if (sel & 2) {
		uint32_t *r = h + WEFT_DQ_HEADER_SIZE / 4;
		uint32_t *d = r + WEFT_DQ_REC_DISPATCH / 4;

		memset(r, 0, WEFT_DQ_REC_ARGS + 16);
		r[WEFT_DQ_REC_LEN / 4] = WEFT_DQ_REC_ARGS + 16;
		r[WEFT_DQ_REC_KIND / 4] = sel >> 4 & 3;
		r[WEFT_DQ_REC_SIGNAL / 4] = (sel & 4) ? get8(f) % 4 : WEFT_DQ_SIGNAL_NONE;
		r[WEFT_DQ_REC_NUM_WAITS / 4] = (sel & 8) ? 1 : 0;
		d[0] = (uint32_t)bufs[B_CODE].va;
		d[1] = (uint32_t)(bufs[B_CODE].va >> 32);
		d[2] = (uint32_t)bufs[B_ARGS].va;
		d[3] = (uint32_t)(bufs[B_ARGS].va >> 32);
		d[4] = 8;
		d[5] = 1 + get8(f);
		d[6] = d[7] = d[9] = d[10] = 1;
		d[8] = 8;
		h[WEFT_DQ_HEAD / 4] = r[WEFT_DQ_REC_LEN / 4];
	}
	if (sel & 0x80) {
		va = pick_va(f, B_DATA, 4);
		c[1] = (uint32_t)va;
		c[2] = (uint32_t)(va >> 32);
	}
	batch_emit(f, c, WEFT_CMD_DRAIN_QUEUE_LEN);
}
#endif

static const uint32_t qregs[] = {
	WEFT_Q_RING_BASE_LO, WEFT_Q_RING_BASE_HI, WEFT_Q_RING_SIZE, WEFT_Q_ENABLE,
	WEFT_Q_TAIL, WEFT_Q_RESET_REQ, WEFT_Q_HEAD,
};
static const uint32_t gregs[] = {
	WEFT_REG_DRIVER_READY, WEFT_REG_FAULT_ACK, WEFT_REG_IRQ_SEQ, WEFT_REG_FAULT_SEQ,
};

static void step(struct fz *f)
{
	uint8_t op = get8(f);
	unsigned q = op >> 5 & 3;

	switch (op & 31) {
	case 0: { /* raw ring dwords */
		unsigned n = get8(f) % 32;

		for (unsigned i = 0; i < n; i++) {
			uint32_t dw = get32(f);

			ring_emit(f, q, &dw, 1);
		}
		break;
	}
	case 1: { /* SET_VM */
		uint64_t root = (get8(f) & 7) ? f->root : get64(f);
		uint32_t c[] = { CMD(WEFT_CMD_SET_VM, 4), (uint32_t)root, (uint32_t)(root >> 32), get8(f) };

		ring_emit(f, q, c, 4);
		break;
	}
	case 2: { /* BATCH of what was written since the last one */
		uint64_t va = bufs[B_BATCH].va + 4ull * (f->bstart % (bufs[B_BATCH].pages * PAGE / 4));
		uint32_t bytes = 4 * (f->bcur - f->bstart);
		uint8_t sel = get8(f);
		uint32_t c[4];

		if (sel & 1)
			va = pick_va(f, B_BATCH, 4);
		if (sel & 2)
			bytes = get32(f);
		c[0] = CMD(WEFT_CMD_BATCH, 4);
		c[1] = (uint32_t)va;
		c[2] = (uint32_t)(va >> 32);
		c[3] = bytes;
		ring_emit(f, q, c, 4);
		f->bstart = f->bcur;
		break;
	}
	case 3: { /* FENCE */
		uint8_t sel = get8(f);
		uint64_t addr = (sel & 1) ? get64(f) : FENCE_GPA + 8 * (sel >> 1);
		uint64_t val = get64(f);
		uint32_t c[] = { CMD(WEFT_CMD_FENCE, 6), (uint32_t)addr, (uint32_t)(addr >> 32),
				 (uint32_t)val, (uint32_t)(val >> 32),
				 (sel & 0x80) ? get32(f) : WEFT_FENCE_FLAG_IRQ };

		ring_emit(f, q, c, 6);
		break;
	}
	case 4: { /* raw batch dwords */
		unsigned n = get8(f) % 32;

		for (unsigned i = 0; i < n; i++) {
			uint32_t dw = get32(f);

			batch_emit(f, &dw, 1);
		}
		break;
	}
	case 5: case 6: case 7: { /* DISPATCH */
		uint8_t sel = get8(f);
		uint64_t code = (sel & 1) ? pick_va(f, B_CODE, 8) : bufs[B_CODE].va;
		uint64_t args = (sel & 2) ? pick_va(f, B_ARGS, 8) : bufs[B_ARGS].va;
		static const uint32_t simds[] = { 8, 16, 32, 0 };
		uint32_t c[WEFT_CMD_DISPATCH_LEN] = { CMD(WEFT_CMD_DISPATCH, WEFT_CMD_DISPATCH_LEN),
			(uint32_t)code, (uint32_t)(code >> 32), (uint32_t)args, (uint32_t)(args >> 32),
			simds[sel >> 2 & 3] ? simds[sel >> 2 & 3] : get32(f) };

		for (int i = 0; i < 3; i++) {
			c[6 + i] = i && !(sel & 0x10) ? 1 : pick_size(f);
			c[9 + i] = i && !(sel & 0x10) ? 1 : pick_size(f);
			c[12 + i] = (sel & 0x20) ? get32(f) : 0;
		}
		c[15] = (sel & 0x40) ? get32(f) : get16(f) & 0xfff0;
#ifdef FUZZ_SKIP_KNOWN
		{
			/*
			 * Known bug (crashes/fuzz_cs/asan-wg-size-overflow-heap-write): the
			 * model's work-group size check multiplies the local sizes in 64
			 * bits, which wraps: keep the product representable.
			 */
			uint64_t wg;

			if (__builtin_mul_overflow((uint64_t)c[9] * c[10], (uint64_t)c[11], &wg) ||
			    __builtin_mul_overflow((uint64_t)c[9], (uint64_t)c[10], &wg))
				c[11] = 1;
		}
#endif
#ifdef WEFT_CMD_DISPATCH_SCRATCH
		if (sel & 0x80) {	/* with private memory per work-item */
			uint32_t scratch = get32(f);

			c[0] = CMD(WEFT_CMD_DISPATCH_SCRATCH, WEFT_CMD_DISPATCH_SCRATCH_LEN);
			batch_emit(f, c, WEFT_CMD_DISPATCH_LEN);
			batch_emit(f, &scratch, 1);
			break;
		}
#endif
		batch_emit(f, c, WEFT_CMD_DISPATCH_LEN);
		break;
	}
	case 8: { /* WRITE_DATA; with bit 7 SEM_WAIT (a wait on what it or another queue writes) */
		uint64_t va = pick_va(f, B_DATA, 8), v = get64(f);
		uint32_t c[] = { CMD(WEFT_CMD_WRITE_DATA, 5), (uint32_t)va, (uint32_t)(va >> 32),
				 (uint32_t)v, (uint32_t)(v >> 32), 0 };

#if defined(WEFT_CMD_SEM_WAIT) && !defined(FUZZ_JIT)
		/* (fuzz_jit: a wait that another queue releases runs the two queues at once) */
		if (op & 0x80) {
			uint8_t sel = get8(f);

			c[0] = CMD(WEFT_CMD_SEM_WAIT, WEFT_CMD_SEM_WAIT_LEN);
			c[5] = (sel & 0x80) ? get32(f) : sel & 1;	/* mostly GTE or EQ */
			batch_emit(f, c, WEFT_CMD_SEM_WAIT_LEN);
			break;
		}
#endif
		batch_emit(f, c, 5);
		break;
	}
	case 9: { /* END or NOP of some length; with bit 6 DRAIN_QUEUE */
		uint32_t c;

#ifdef WEFT_CMD_DRAIN_QUEUE
		if (op & 0x40) {
			drain_queue(f);
			break;
		}
#endif
		c = (op & 0x80) ? CMD(WEFT_CMD_END, 1) : CMD(WEFT_CMD_NOP, 1 + get8(f) % 4);

		batch_emit(f, &c, 1);
		for (unsigned i = 1; i < (c & 0xffff); i++)
			batch_emit(f, &(uint32_t){ get32(f) }, 1);
		break;
	}
	case 10: case 11: case 12: case 13: case 14: case 15: { /* a valid instruction */
		uint64_t w[2];
		unsigned n = gen_inst(f, w);

		code_emit(f, w, n);
		break;
	}
	case 16: { /* raw instruction word */
		uint64_t w = get64(f);

		code_emit(f, &w, 1);
		break;
	}
	case 17:
		prologue(f);
		break;
	case 18: { /* end of kernel */
		uint64_t w = 0x001;

		code_emit(f, &w, 1);
		break;
	}
	case 19: { /* code cursor moves (a second kernel, or overwrite) */
		f->ccur = get8(f);
		break;
	}
	case 20: { /* poke a page-table entry */
		uint64_t t = PT_GPA + PAGE * (get8(f) % ((f->pt_next - PT_GPA) / PAGE + 1));
		unsigned idx = get16(f) % 512;
		uint8_t sel = get8(f);
		uint64_t v;

		if (t + PAGE > PT_END)
			t = PT_GPA;
		switch (sel & 3) {
		case 0: v = 0; break;
		case 1: v = get64(f); break;
		case 2: v = ((uint64_t)get32(f) % MEM_SIZE & WEFT_PTE_ADDR_MASK) | (sel >> 2 & 7); break;
		default: v = ((uint64_t)get32(f) << 12 & WEFT_PTE_ADDR_MASK) | (sel >> 2 & 7); break;
		}
		/* 2 MiB pages: HUGE (sel bit 5, meaningful at level 2), 2 MiB aligned (bit 6). */
		if (sel & 0x20)
			v |= WEFT_PTE_HUGE;
		if (sel & 0x40)
			v &= ~(uint64_t)(HUGE_SZ - PAGE);
		((uint64_t *)host(f, t))[idx] = v;
		break;
	}
	case 21: { /* poke guest memory anywhere */
		uint64_t gpa = get32(f) % MEM_SIZE & ~7u, v = get64(f);

		/* One aligned store: a queue in SEM_WAIT may be reading it. */
		__atomic_store_n((uint64_t *)host(f, gpa), v, __ATOMIC_RELEASE);
		break;
	}
	case 22: { /* poke the argument or data buffer */
		unsigned b = (op & 0x80) ? B_DATA : B_ARGS;
		uint64_t off = get16(f) % (bufs[b].pages * PAGE) & ~7u, v = get64(f);

		__atomic_store_n((uint64_t *)host(f, f->buf_gpa[b] + off), v, __ATOMIC_RELEASE);
		break;
	}
	case 23: { /* a queue register */
		uint32_t r = qregs[get8(f) % (sizeof(qregs) / 4)], v = get32(f);

		if (r == WEFT_Q_TAIL && (v >> 31))
			v = f->tail[q] + (int8_t)v;	/* near the real tail, mostly */
		if (r == WEFT_Q_TAIL)
			f->tail[q] = v;
		wreg(f, WEFT_QUEUE_REG(q, r), v);
		break;
	}
	case 24: { /* a global register */
		uint32_t r = gregs[get8(f) % (sizeof(gregs) / 4)];

		wreg(f, r, get32(f));
		break;
	}
	case 25: /* reset a queue */
		wreg(f, WEFT_QUEUE_REG(q, WEFT_Q_RESET_REQ),
		     f->regs[WEFT_QUEUE_REG(q, WEFT_Q_RESET_REQ) / 4] + 1);
		weft_model_doorbell(f->m);
		weft_model_wait_idle(f->m);
		f->tail[q] = f->regs[WEFT_QUEUE_REG(q, WEFT_Q_HEAD) / 4];
		break;
	case 26: case 27: case 28:
		kick(f, q, true);
		break;
	case 29: /* kick and go on writing while the model runs */
#ifdef FUZZ_NO_GUEST_RACES
		kick(f, q, true);	/* ThreadSanitizer: only the model's own races */
#else
		kick(f, q, false);
#endif
		break;
	case 30: /* fault acknowledged */
		wreg(f, WEFT_REG_FAULT_ACK, f->regs[WEFT_REG_FAULT_SEQ / 4]);
		break;
	default: /* a whole well-formed submission of what is pending */
		{
			uint64_t va = bufs[B_BATCH].va + 4ull * (f->bstart % (bufs[B_BATCH].pages * PAGE / 4));
			uint32_t end = CMD(WEFT_CMD_END, 1);
			uint32_t c[] = {
				CMD(WEFT_CMD_SET_VM, 4), (uint32_t)f->root, 0, 1,
				CMD(WEFT_CMD_BATCH, 4), (uint32_t)va, (uint32_t)(va >> 32), 0,
				CMD(WEFT_CMD_FENCE, 6), FENCE_GPA, 0, get8(f), 0, WEFT_FENCE_FLAG_IRQ,
			};

			batch_emit(f, &end, 1);
			c[7] = 4 * (f->bcur - f->bstart);
			f->bstart = f->bcur;
			ring_emit(f, q, c, sizeof(c) / 4);
			kick(f, q, true);
		}
		break;
	}
}

static void setup(struct fz *f)
{
	uint64_t gpa = BUF_GPA;
	uint64_t *args;

	f->pt_next = PT_GPA;
	f->root = pt_alloc(f);
	for (unsigned b = 0; b < B_NBUF; b++) {
		f->buf_gpa[b] = gpa;
		map(f, bufs[b].va, gpa, bufs[b].pages, bufs[b].flags);
		gpa += (uint64_t)bufs[b].pages * PAGE;
	}
	args = host(f, f->buf_gpa[B_ARGS]);
	args[0] = bufs[B_DATA].va;
	args[1] = bufs[B_DATA].va + 8 * PAGE - 4;	/* straddles pages */
	args[2] = bufs[B_RO].va;
	/* The last 4 bytes of a 2 MiB page, then unmapped VA. */
	*pte_at(f, HUGE_VA, 2) = HUGE_GPA | WEFT_PTE_HUGE | WEFT_PTE_VALID | WEFT_PTE_WRITE;
	args[3] = HUGE_VA + HUGE_SZ - 4;
	for (unsigned q = 0; q < WEFT_MODEL_NUM_QUEUES; q++) {
		wreg(f, WEFT_QUEUE_REG(q, WEFT_Q_RING_BASE_LO), RING_GPA + q * RING_SIZE);
		wreg(f, WEFT_QUEUE_REG(q, WEFT_Q_RING_BASE_HI), 0);
		wreg(f, WEFT_QUEUE_REG(q, WEFT_Q_RING_SIZE), RING_SIZE);
		wreg(f, WEFT_QUEUE_REG(q, WEFT_Q_ENABLE), 1);
	}
	wreg(f, WEFT_REG_DRIVER_READY, WEFT_DRIVER_READY);
	weft_model_doorbell(f->m);
	weft_model_wait_idle(f->m);
}

/* The last queue error code weft_regs.h defines. */
#if defined(WEFT_QERR_ENQUEUE_DEPTH)
#define QERR_LAST WEFT_QERR_ENQUEUE_DEPTH
#elif defined(WEFT_QERR_BAD_ACCESS)
#define QERR_LAST WEFT_QERR_BAD_ACCESS
#else
#define QERR_LAST WEFT_QERR_WATCHDOG
#endif

static void check_state(struct fz *f)
{
	uint32_t st = f->regs[WEFT_REG_DEVICE_STATUS / 4];

	if (st != WEFT_DEVICE_RUNNING && st != WEFT_DEVICE_STOPPED) {
		fprintf(stderr, "fuzz_cs: DEVICE_STATUS %u\n", st);
		abort();
	}
	for (unsigned q = 0; q < WEFT_MODEL_NUM_QUEUES; q++) {
		uint32_t qs = f->regs[WEFT_QUEUE_REG(q, WEFT_Q_STATUS) / 4];
		uint32_t code = f->regs[WEFT_QUEUE_REG(q, WEFT_Q_ERROR_CODE) / 4];

		if (qs > WEFT_Q_STATUS_ERROR || (qs == WEFT_Q_STATUS_ERROR) != (code != 0) ||
		    code > QERR_LAST) {
			fprintf(stderr, "fuzz_cs: queue %u: status %u error code %u\n", q, qs, code);
			abort();
		}
	}
}

/* The input on a fresh model with @jit as WEFT_MODEL_JIT; leaves f->mem and f->regs to the caller. */
static void run(struct fz *f, const uint8_t *data, size_t size, const char *jit)
{
	struct weft_model_config cfg = { 0 };

	if (!f->ndefined)
		for (unsigned op = 0; op < WEFT_ISA_OPCODE_COUNT; op++)
			if (weft_isa_ops[op].name)
				f->defined[f->ndefined++] = op;
	memset(f->tail, 0, sizeof(f->tail));
	f->bstart = f->bcur = f->ccur = 0;
	f->p = data;
	f->end = data + size;
	/* Exactly-sized heap buffers: any access outside them is an ASan report. */
	f->regs = aligned_alloc(4096, WEFT_REGS_SIZE);
	f->mem = calloc(1, MEM_SIZE);
	cfg.regs = f->regs;
	cfg.mem = f->mem;
	cfg.mem_size = MEM_SIZE;
	/* fuzz_jit: work-groups in one order, so that both ways can agree. */
	cfg.threads = jit ? 1 : 2;
	cfg.watchdog = 1u << 16;
	if (jit)
		setenv("WEFT_MODEL_JIT", jit, 1);
	f->m = weft_model_create(&cfg);
	if (!f->m)
		abort();
	setup(f);
	for (unsigned n = 0; f->p < f->end && n < 256; n++)
		step(f);
	for (unsigned q = 0; q < WEFT_MODEL_NUM_QUEUES; q++)
		kick(f, q, jit != NULL);
	weft_model_wait_idle(f->m);
	if (f->regs[WEFT_REG_DRIVER_READY / 4] == WEFT_DRIVER_READY)
		check_state(f);
	weft_model_destroy(f->m);
}

#ifdef FUZZ_JIT
/* Interpreted and translated: the same memory and registers. */
static void differ(const struct fz *ref, const struct fz *jit)
{
	for (uint32_t i = 0; i < WEFT_REGS_SIZE / 4; i++) {
		if (ref->regs[i] != jit->regs[i]) {
			fprintf(stderr, "fuzz_jit: register 0x%04x: 0x%08x interpreted, 0x%08x translated\n",
				4 * i, ref->regs[i], jit->regs[i]);
			abort();
		}
	}
	for (uint32_t i = 0; i < MEM_SIZE; i++) {
		if (ref->mem[i] != jit->mem[i]) {
			fprintf(stderr, "fuzz_jit: memory differs first at GPA 0x%x: 0x%02x interpreted, "
				"0x%02x translated\n", i, ref->mem[i], jit->mem[i]);
			abort();
		}
	}
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fz f;
#ifdef FUZZ_JIT
	static struct fz ref;

	run(&ref, data, size, "0");
	/* One input in four with every kernel through the optimizing tier
	 * (execution.rst, "The translator"), the others the fast tier's. */
	if (size % 4 == 0)
		setenv("WEFT_MODEL_JIT_OPT_ITEMS", "1", 1);
	run(&f, data, size, "1");
	unsetenv("WEFT_MODEL_JIT_OPT_ITEMS");
	differ(&ref, &f);
	free(ref.mem);
	free(ref.regs);
#else
	run(&f, data, size, NULL);
#endif
	free(f.mem);
	free(f.regs);
	return 0;
}
