// SPDX-License-Identifier: MIT
/*
 * builtins: the device model's throughput on kernels that stress the seed
 * builtins, next to PoCL running what a PoCL user writes for the same job,
 * on the same data in the same run.  Every result is checked against a C
 * reference; a wrong result fails the run.
 *
 *   kernel      Weft ISA (in-process libweftmodel)        PoCL (OpenCL C)
 *   sg-reduce   ld.block8 loop + red.add.u32              local-memory tree reduction
 *   sg-scan     ld.block8 + iscan.add.u32 + st.block8     local-memory scan per W items
 *   wg-escan    escan.add.u32, SLM totals, bar            local-memory scan per 256 items
 *   transpose   WxW tile: ld.img8, shfl.xor butterfly     16x16 local-memory tile
 *   block-copy  ld.block8 / st.block8, 16K per sub-group   plain copy
 *
 * W is the model's sub-group width (--simd, 32 by default: the device's
 * widest, where an instruction does the most work).  Reductions run in
 * passes of 1024 elements per sub-group (per work-group on PoCL) until at
 * most 1024 partial sums are left, which the host adds: the same on both
 * sides.  Times cover the kernels only (the model reads guest memory in
 * place, PoCL uses the host pointers); best of --reps (5), the two sides
 * alternating run by run so that both meet the same load.
 *
 * Usage: builtins [--quick] [--no-pocl] [--reps N] [--elems N] [--threads N]
 *                 [--kernel NAME] [--simd 16|32] [--pocl-tile 16|32]
 *   --quick    tiny sizes, the model only (unless --pocl): a correctness check
 *              for `make check`, "N passed, M failed" last
 *   --kernel   run one kernel only (for profiling)
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef BENCH_NO_POCL
#include <CL/cl.h>
#endif

#include "weft_isa.h"
#include "weft_model.h"
#include "weft_regs.h"
#include "weft_cs_regs.h"
#include "weft_mmu_regs.h"

#define CMD(op, len)	WEFT_CMD_HEADER((uint32_t)(op), (uint32_t)(len))
#define PAGE		4096ull
#define RING_BYTES	4096u
#define WG		256
#define CHUNK		1024	/* elements per sub-group (model) / work-group (PoCL) per pass */
/* Elements per sub-group of the copy: enough that its start is a small part of it. */
#define COPY_CHUNK	(16 * CHUNK)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * Buffers of both sides are in transparent huge pages where the kernel offers
 * them (THP "madvise" mode), so neither side's time is the host's TLB misses
 * on 4 KiB pages: a transpose touches a new page per row.
 */
#define HUGE_PAGE	(2ull << 20)

static uint64_t huge_round(uint64_t bytes)
{
	return (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

static void *huge_alloc(size_t bytes)
{
	size_t size = huge_round(bytes);
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
		       MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED) {
		perror("builtins: mmap");
		exit(2);
	}
	madvise(p, size, MADV_HUGEPAGE);
	return p;
}

/* ---------------------------------------------------------------- the model */

struct gpu {
	uint32_t *regs;
	uint8_t *mem;
	uint64_t mem_size, next_gpa, root, ring, fence, batch_va;
	uint32_t *batch;
	uint32_t tail;
	uint64_t seq;
	struct weft_model *m;
};

#define VA_BASE 0x100000000ull	/* VA = VA_BASE + GPA for buffers */

static uint64_t galloc(struct gpu *g, uint64_t bytes)
{
	uint64_t gpa;

	/* Buffers of 2 MiB or more start on a 2 MiB boundary: gmap() maps them
	 * with 2 MiB pages. */
	if (bytes >= HUGE_PAGE)
		g->next_gpa = huge_round(g->next_gpa);
	gpa = g->next_gpa;
	bytes = (bytes + PAGE - 1) & ~(PAGE - 1);
	if (gpa + bytes > g->mem_size) {
		fprintf(stderr, "builtins: out of guest memory\n");
		exit(2);
	}
	g->next_gpa += bytes;
	return gpa;
}

/* Maps [va, va + bytes) to gpa: 2 MiB pages where both are aligned, else 4 KiB. */
static void gmap(struct gpu *g, uint64_t va, uint64_t gpa, uint64_t bytes, uint64_t flags)
{
	for (uint64_t off = 0; off < bytes;) {
		uint64_t v = va + off, table = g->root;
		bool huge = !((v | (gpa + off)) & (HUGE_PAGE - 1)) && bytes - off >= HUGE_PAGE;
		int leaf = huge ? 2 : 3;

		for (int level = 0; level < leaf; level++) {
			uint64_t *pte = (uint64_t *)(g->mem + table) + ((v >> (12 + 9 * (3 - level))) & 511);

			if (!(*pte & WEFT_PTE_VALID)) {
				uint64_t t = galloc(g, PAGE);

				memset(g->mem + t, 0, PAGE);
				*pte = t | WEFT_PTE_VALID;
			}
			table = *pte & WEFT_PTE_ADDR_MASK;
		}
		((uint64_t *)(g->mem + table))[(v >> (12 + 9 * (3 - leaf))) & 511] =
			(gpa + off) | flags | (huge ? WEFT_PTE_HUGE : 0);
		off += huge ? HUGE_PAGE : PAGE;
	}
}

/* A mapped buffer: returns its VA, *host its CPU view. */
static uint64_t gbuf(struct gpu *g, uint64_t bytes, uint64_t flags, void *host)
{
	uint64_t gpa = galloc(g, bytes);

	gmap(g, VA_BASE + gpa, gpa, bytes, flags | WEFT_PTE_VALID);
	*(void **)host = g->mem + gpa;
	return VA_BASE + gpa;
}

static void wreg(struct gpu *g, uint32_t off, uint32_t v)
{
	__atomic_store_n(&g->regs[off / 4], v, __ATOMIC_RELEASE);
}

static uint32_t rreg(struct gpu *g, uint32_t off)
{
	return __atomic_load_n(&g->regs[off / 4], __ATOMIC_ACQUIRE);
}

static struct gpu *gpu_create(uint64_t mem_size, unsigned threads)
{
	struct gpu *g = calloc(1, sizeof(*g));
	struct weft_model_config cfg = { 0 };

	g->regs = aligned_alloc(4096, WEFT_REGS_SIZE);
	g->mem_size = huge_round(mem_size);
	g->mem = huge_alloc(g->mem_size);
	if (!g->regs) {
		perror("builtins: guest memory");
		exit(2);
	}
	g->next_gpa = 0x10000;
	g->root = galloc(g, PAGE);
	g->ring = galloc(g, RING_BYTES);
	g->fence = galloc(g, PAGE);
	g->batch_va = gbuf(g, PAGE, 0, &g->batch);
	cfg.regs = g->regs;
	cfg.mem = g->mem;
	cfg.mem_size = g->mem_size;
	cfg.threads = threads;
	g->m = weft_model_create(&cfg);
	if (!g->m) {
		perror("builtins: weft_model_create");
		exit(2);
	}
	wreg(g, WEFT_QUEUE_REG(0, WEFT_Q_RING_BASE_LO), (uint32_t)g->ring);
	wreg(g, WEFT_QUEUE_REG(0, WEFT_Q_RING_BASE_HI), (uint32_t)(g->ring >> 32));
	wreg(g, WEFT_QUEUE_REG(0, WEFT_Q_RING_SIZE), RING_BYTES);
	wreg(g, WEFT_QUEUE_REG(0, WEFT_Q_ENABLE), 1);
	wreg(g, WEFT_REG_DRIVER_READY, WEFT_DRIVER_READY);
	weft_model_doorbell(g->m);
	weft_model_wait_idle(g->m);
	if (rreg(g, WEFT_REG_DEVICE_STATUS) != WEFT_DEVICE_RUNNING) {
		fprintf(stderr, "builtins: the model did not start\n");
		exit(2);
	}
	return g;
}

static void gpu_destroy(struct gpu *g)
{
	weft_model_destroy(g->m);
	munmap(g->mem, g->mem_size);
	free(g->regs);
	free(g);
}

/* Assembles @src into executable memory; returns its VA. */
static uint64_t gcode(struct gpu *g, const char *name, const char *src)
{
	uint64_t *words, va;
	size_t n;
	char err[256];
	void *host;

	if (weft_asm(src, name, &words, &n, err, sizeof(err))) {
		fprintf(stderr, "builtins: %s\n", err);
		exit(2);
	}
	va = gbuf(g, n * 8, WEFT_PTE_EXEC, &host);
	memcpy(host, words, n * 8);
	free(words);
	return va;
}

struct launch {
	uint64_t code, args;
	uint32_t gsize[3], lsize[3], slm;
	uint32_t simd;
};

/* One DISPATCH in its own batch; returns 0 or the queue's error code. */
static uint32_t gdispatch(struct gpu *g, const struct launch *l)
{
	uint32_t *b = g->batch, *ring = (uint32_t *)(g->mem + g->ring);
	uint64_t fence = ++g->seq;
	uint32_t cmds[] = {
		CMD(WEFT_CMD_SET_VM, 4), (uint32_t)g->root, (uint32_t)(g->root >> 32), 1,
		CMD(WEFT_CMD_BATCH, 4), (uint32_t)g->batch_va, (uint32_t)(g->batch_va >> 32), 17 * 4,
		CMD(WEFT_CMD_FENCE, 6), (uint32_t)g->fence, (uint32_t)(g->fence >> 32),
		(uint32_t)fence, (uint32_t)(fence >> 32), 0,
	};

	b[0] = CMD(WEFT_CMD_DISPATCH, WEFT_CMD_DISPATCH_LEN);
	b[1] = (uint32_t)l->code;
	b[2] = (uint32_t)(l->code >> 32);
	b[3] = (uint32_t)l->args;
	b[4] = (uint32_t)(l->args >> 32);
	b[5] = l->simd;
	for (int i = 0; i < 3; i++) {
		b[6 + i] = l->gsize[i] ? l->gsize[i] : 1;
		b[9 + i] = l->lsize[i] ? l->lsize[i] : 1;
		b[12 + i] = 0;
	}
	b[15] = l->slm;
	b[16] = CMD(WEFT_CMD_END, 1);
	for (unsigned i = 0; i < sizeof(cmds) / 4; i++)
		ring[g->tail++ % (RING_BYTES / 4)] = cmds[i];
	wreg(g, WEFT_QUEUE_REG(0, WEFT_Q_TAIL), g->tail);
	weft_model_doorbell(g->m);
	weft_model_wait_idle(g->m);
	if (rreg(g, WEFT_QUEUE_REG(0, WEFT_Q_STATUS)) == WEFT_Q_STATUS_ERROR) {
		uint32_t code = rreg(g, WEFT_QUEUE_REG(0, WEFT_Q_ERROR_CODE));

		fprintf(stderr, "builtins: queue error %u at 0x%08x%08x (fault 0x%08x%08x info 0x%x)\n", code,
			rreg(g, WEFT_QUEUE_REG(0, WEFT_Q_ERROR_ADDR_HI)), rreg(g, WEFT_QUEUE_REG(0, WEFT_Q_ERROR_ADDR_LO)),
			rreg(g, WEFT_REG_FAULT_ADDR_HI), rreg(g, WEFT_REG_FAULT_ADDR_LO), rreg(g, WEFT_REG_FAULT_INFO));
		wreg(g, WEFT_REG_FAULT_ACK, rreg(g, WEFT_REG_FAULT_SEQ));

		wreg(g, WEFT_QUEUE_REG(0, WEFT_Q_RESET_REQ), rreg(g, WEFT_QUEUE_REG(0, WEFT_Q_RESET_REQ)) + 1);
		weft_model_doorbell(g->m);
		weft_model_wait_idle(g->m);
		g->tail = rreg(g, WEFT_QUEUE_REG(0, WEFT_Q_HEAD));
		return code ? code : 0xdead;
	}
	if (*(volatile uint64_t *)(g->mem + g->fence) != fence)
		return 0xdead;
	return 0;
}

/* ------------------------------------------------------------- the kernels */

/*
 * The kernels are written for any sub-group width W: $SGSHIFT is log2(W),
 * $BLOCK the bytes of one ld.block8 (8 registers of W u32), $BLOCKSHIFT its
 * log2, $BLOCK2..4 its multiples; width_kernel() fills them in.
 *
 * Common prologue: r2 = args[0] (in), r4 = args[1] (out), r6 = args[2] (u32
 * parameter), r8 = global sub-group index, r9 = lane.
 */
#define PROLOGUE \
	"\ts2r.u64 r0, sr.args\n" \
	"\tld.global.u64 r2, [r0+0]\n" \
	"\tld.global.u64 r4, [r0+8]\n" \
	"\tld.global.u32 r6, [r0+16]\n" \
	"\ts2r.u32 r8, sr.global_id.x\n" \
	"\ts2r.u32 r9, sr.lane_id\n" \
	"\tsub.u32 r8, r8, r9\n" \
	"\tshr.u32 r8, r8, $SGSHIFT\n"

static unsigned log2u(unsigned x)
{
	return (unsigned)__builtin_ctz(x);
}

/* @tmpl with its $NAME sizes for sub-group width @w (a power of two). */
static char *width_kernel(const char *tmpl, unsigned w)
{
	const struct { const char *name; unsigned value; } sizes[] = {
		/* longest first: BLOCK is a prefix of the others */
		{ "SGSHIFT", log2u(w) }, { "BLOCKSHIFT", log2u(32 * w) },
		{ "BLOCK2", 2 * 32 * w }, { "BLOCK3", 3 * 32 * w }, { "BLOCK4", 4 * 32 * w },
		{ "BLOCK", 32 * w },
	};
	size_t cap = strlen(tmpl) * 2 + 64, len = 0;
	char *out = malloc(cap);

	for (const char *t = tmpl; *t;) {
		size_t i;

		if (*t != '$') {
			out[len++] = *t++;
			continue;
		}
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			if (!strncmp(t + 1, sizes[i].name, strlen(sizes[i].name)))
				break;
		if (i == sizeof(sizes) / sizeof(sizes[0])) {
			fprintf(stderr, "builtins: unknown size in kernel: %.12s\n", t);
			exit(2);
		}
		len += snprintf(out + len, cap - len, "%u", sizes[i].value);
		t += 1 + strlen(sizes[i].name);
	}
	out[len] = 0;
	return out;
}

/* Sum of r6 blocks of 8 x W u32 per sub-group: red.add.u32, lane 0 stores out[sg]. */
static const char k_reduce[] = PROLOGUE
	"\tmul.u32 r10, r8, r6\n"
	"\tcvt.u64.u32 r12, r10\n"
	"\tshl.u64 r12, r12, $BLOCKSHIFT\n"
	"\tadd.u64 r12, r2, r12\n"
	"\tmov.u32 r14, 0\n"
	"\tmov.u32 r15, 0\n"
	"\tloop done\n"
	"\tset.ge.u32 r16, r15, r6\n"
	"\tbreak r16\n"
	"\tld.block8.u32 r100, [r12+0]\n"
	"\tadd.u32 r100, r100, r101\n"
	"\tadd.u32 r102, r102, r103\n"
	"\tadd.u32 r104, r104, r105\n"
	"\tadd.u32 r106, r106, r107\n"
	"\tadd.u32 r100, r100, r102\n"
	"\tadd.u32 r104, r104, r106\n"
	"\tadd.u32 r14, r14, r100\n"
	"\tadd.u32 r14, r14, r104\n"
	"\tadd.u64 r12, r12, $BLOCK\n"
	"\tadd.u32 r15, r15, 1\n"
	"done:\tendloop\n"
	"\tred.add.u32 r17, r14\n"
	"\tset.eq.u32 r18, r9, 0\n"
	"\tif r18, skip\n"
	"\tcvt.u64.u32 r20, r8\n"
	"\tshl.u64 r20, r20, 2\n"
	"\tadd.u64 r20, r4, r20\n"
	"\tst.global.u32 [r20+0], r17\n"
	"skip:\tendif\n"
	"\tend\n";

/*
 * The loop over a sub-group's r6 blocks of 8 x W u32 from in to out:
 * r12 = its block of in, r18 = its block of out, r15 = blocks done; the
 * body follows, "done:\tendloop" closes it.
 */
#define BLOCK_LOOP \
	"\tmul.u32 r10, r8, r6\n" \
	"\tcvt.u64.u32 r12, r10\n" \
	"\tshl.u64 r12, r12, $BLOCKSHIFT\n" \
	"\tadd.u64 r18, r4, r12\n" \
	"\tadd.u64 r12, r2, r12\n" \
	"\tmov.u32 r15, 0\n" \
	"\tloop done\n" \
	"\tset.ge.u32 r16, r15, r6\n" \
	"\tbreak r16\n"

/* Inclusive sub-group scans of r6 blocks of 8 x W u32: each register of a block8 is one sub-group's worth. */
static const char k_sgscan[] = PROLOGUE BLOCK_LOOP
	"\tld.block8.u32 r100, [r12+0]\n"
	"\tiscan.add.u32 r110, r100\n"
	"\tiscan.add.u32 r111, r101\n"
	"\tiscan.add.u32 r112, r102\n"
	"\tiscan.add.u32 r113, r103\n"
	"\tiscan.add.u32 r114, r104\n"
	"\tiscan.add.u32 r115, r105\n"
	"\tiscan.add.u32 r116, r106\n"
	"\tiscan.add.u32 r117, r107\n"
	"\tst.block8.u32 [r18+0], r110\n"
	"\tadd.u64 r12, r12, $BLOCK\n"
	"\tadd.u64 r18, r18, $BLOCK\n"
	"\tadd.u32 r15, r15, 1\n"
	"done:\tendloop\n"
	"\tend\n";

/*
 * Copy of r6 blocks of 8 x W u32 per sub-group (r6 a multiple of 4):
 * sub-group block reads and writes, four blocks per loop iteration.
 */
static const char k_copy[] = PROLOGUE BLOCK_LOOP
	"\tld.block8.u32 r100, [r12+0]\n"
	"\tld.block8.u32 r108, [r12+$BLOCK]\n"
	"\tld.block8.u32 r116, [r12+$BLOCK2]\n"
	"\tld.block8.u32 r124, [r12+$BLOCK3]\n"
	"\tst.block8.u32 [r18+0], r100\n"
	"\tst.block8.u32 [r18+$BLOCK], r108\n"
	"\tst.block8.u32 [r18+$BLOCK2], r116\n"
	"\tst.block8.u32 [r18+$BLOCK3], r124\n"
	"\tadd.u64 r12, r12, $BLOCK4\n"
	"\tadd.u64 r18, r18, $BLOCK4\n"
	"\tadd.u32 r15, r15, 4\n"
	"done:\tendloop\n"
	"\tend\n";

/*
 * Work-group exclusive scan, one element per work-item: escan.add in each
 * sub-group, the sub-group totals through SLM, scanned by sub-group 0 with
 * escan.add, a barrier on each side.
 */
static const char k_wgescan[] =
	"\ts2r.u64 r0, sr.args\n"
	"\tld.global.u64 r2, [r0+0]\n"
	"\tld.global.u64 r4, [r0+8]\n"
	"\ts2r.u64 r6, sr.global_id.x\n"
	"\tshl.u64 r6, r6, 2\n"
	"\tadd.u64 r8, r2, r6\n"
	"\tld.global.u32 r10, [r8+0]\n"
	"\tescan.add.u32 r11, r10\n"
	"\tadd.u32 r12, r11, r10\n"		/* inclusive: the total in the last lane */
	"\ts2r.u32 r13, sr.subgroup_id\n"
	"\ts2r.u32 r14, sr.lane_id\n"
	"\ts2r.u32 r15, sr.subgroup_size\n"
	"\tsub.u32 r16, r15, 1\n"
	"\tset.eq.u32 r17, r14, r16\n"
	"\tshl.u32 r18, r13, 2\n"
	"\tif r17, a\n"
	"\tst.local.u32 [r18+0], r12\n"
	"a:\tendif\n"
	"\tbar\n"
	"\ts2r.u32 r19, sr.num_subgroups\n"
	"\tset.eq.u32 r20, r13, 0\n"
	"\tif r20, b\n"
	"\tset.lt.u32 r21, r14, r19\n"
	"\tif r21, c\n"
	"\tshl.u32 r22, r14, 2\n"
	"\tld.local.u32 r23, [r22+0]\n"
	"\tescan.add.u32 r24, r23\n"
	"\tst.local.u32 [r22+0], r24\n"
	"c:\tendif\n"
	"b:\tendif\n"
	"\tbar\n"
	"\tld.local.u32 r25, [r18+0]\n"
	"\tadd.u32 r26, r11, r25\n"
	"\tadd.u64 r28, r4, r6\n"
	"\tst.global.u32 [r28+0], r26\n"
	"\tend\n";

/*
 * Transpose of a square n x n u32 matrix in W x W tiles, TILES_PER_SG tiles
 * along x per sub-group of width W (work-group (W, 1)): each tile's W rows
 * come in with W / 8 image block reads of 8 rows each (ld.img8: the matrix
 * is an image, args[3] and args[4] its source and destination descriptors),
 * a log2(W)-stage shfl.xor butterfly swaps the bits of (register, lane), and
 * W / 8 image block writes store it.
 */
#define TILES_PER_SG	4

static char *k_transpose(unsigned w)
{
	size_t cap = 65536, len = 0;
	char *s = malloc(cap);
	unsigned k = 0;

#define ADD(...) (len += snprintf(s + len, cap - len, __VA_ARGS__))
	ADD("\ts2r.u64 r0, sr.args\n"
	    "\tld.global.u64 r2, [r0+24]\n"
	    "\tld.global.u64 r4, [r0+32]\n"
	    "\ts2r.u32 r7, sr.group_id.x\n"
	    "\tshl.u32 r7, r7, %u\n"		/* the first tile's tx */
	    "\ts2r.u32 r8, sr.group_id.y\n"	/* ty */
	    "\ts2r.u32 r9, sr.lane_id\n"
	    /* source block at byte x = tx * W * 4 (r10), row y = ty * W (r16) */
	    "\tshl.u32 r10, r7, %u\n"
	    "\tshl.u32 r16, r8, %u\n"
	    /* destination block at byte x = ty * W * 4 (r12), row y = tx * W (r17) */
	    "\tshl.u32 r12, r8, %u\n"
	    "\tshl.u32 r17, r7, %u\n",
	    log2u(TILES_PER_SG), log2u(4 * w), log2u(w), log2u(4 * w), log2u(w));
	/* r20 + k: lane bit m set, for the stage of m = W / 2 >> k */
	for (unsigned m = w / 2; m; m /= 2, k++)
		ADD("\tand.u32 r%u, r9, %u\n\tset.ne.u32 r%u, r%u, 0\n", 20 + k, m, 20 + k, 20 + k);
	ADD("\tmov.u32 r15, 0\n"
	    "\tloop done\n"
	    "\tset.ge.u32 r19, r15, %u\n"
	    "\tbreak r19\n"
	    "\tmov.u32 r11, r16\n", TILES_PER_SG);
	for (unsigned i = 0; i < w; i += 8)
		ADD("%s\tld.img8.u32 r%u, [r2], r10\n", i ? "\tadd.u32 r11, r11, 8\n" : "", 100 + i);
	k = 0;
	for (unsigned m = w / 2; m; m /= 2, k++) {
		/*
		 * Registers a = r(i), b = r(i | m); c: lane bit m set.  Each lane
		 * sends the one its partner needs (c ? a : b), then keeps
		 * a' = c ? received : a and b' = c ? b : received.
		 */
		for (unsigned i = 0; i < w; i++) {
			if (i & m)
				continue;
			ADD("\tsel.u32 r30, r%u, r%u, r%u\n", 100 + i, 100 + (i | m), 20 + k);
			ADD("\tshfl.xor.u32 r31, r30, %u\n", m);
			ADD("\tsel.u32 r%u, r31, r%u, r%u\n", 100 + i, 100 + i, 20 + k);
			ADD("\tsel.u32 r%u, r%u, r31, r%u\n", 100 + (i | m), 100 + (i | m), 20 + k);
		}
	}
	ADD("\tmov.u32 r13, r17\n");
	for (unsigned j = 0; j < w; j += 8)
		ADD("%s\tst.img8.u32 [r4], r12, r%u\n", j ? "\tadd.u32 r13, r13, 8\n" : "", 100 + j);
	ADD("\tadd.u32 r10, r10, %u\n"
	    "\tadd.u32 r17, r17, %u\n"
	    "\tadd.u32 r15, r15, 1\n"
	    "done:\tendloop\n"
	    "\tend\n", 4 * w, w);
#undef ADD
	return s;
}

/* ------------------------------------------------------------------ PoCL */

#ifndef BENCH_NO_POCL
static const char cl_src[] =
	"__kernel void reduce(__global const uint *in, __global uint *out)\n"
	"{\n"
	"	__local uint t[256];\n"
	"	uint l = get_local_id(0), base = get_group_id(0) * 1024 + l;\n"
	"	t[l] = in[base] + in[base + 256] + in[base + 512] + in[base + 768];\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	for (uint s = 128; s > 0; s >>= 1) {\n"
	"		if (l < s)\n"
	"			t[l] += t[l + s];\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	}\n"
	"	if (l == 0)\n"
	"		out[get_group_id(0)] = t[0];\n"
	"}\n"
	/* Inclusive scans of SEG-item segments (the model's sub-groups) in local memory. */
	"__kernel void segscan(__global const uint *in, __global uint *out)\n"
	"{\n"
	"	__local uint t[256];\n"
	"	uint l = get_local_id(0), g = get_global_id(0), lane = l & (SEG - 1);\n"
	"	t[l] = in[g];\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	for (uint d = 1; d < SEG; d <<= 1) {\n"
	"		uint v = lane >= d ? t[l - d] : 0;\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"		t[l] += v;\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	}\n"
	"	out[g] = t[l];\n"
	"}\n"
	"__kernel void wgescan(__global const uint *in, __global uint *out)\n"
	"{\n"
	"	__local uint t[256];\n"
	"	uint l = get_local_id(0), g = get_global_id(0), x = in[g];\n"
	"	t[l] = x;\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	for (uint d = 1; d < 256; d <<= 1) {\n"
	"		uint v = l >= d ? t[l - d] : 0;\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"		t[l] += v;\n"
	"		barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	}\n"
	"	out[g] = t[l] - x;\n"
	"}\n"
	"__kernel void transpose(__global const uint *in, __global uint *out, uint n)\n"
	"{\n"
	"	__local uint tile[TILE][TILE + 1];\n"
	"	uint lx = get_local_id(0), ly = get_local_id(1);\n"
	"	uint gx = get_group_id(0) * TILE, gy = get_group_id(1) * TILE;\n"
	"	tile[ly][lx] = in[(gy + ly) * n + gx + lx];\n"
	"	barrier(CLK_LOCAL_MEM_FENCE);\n"
	"	out[(gx + ly) * n + gy + lx] = tile[lx][ly];\n"
	"}\n"
	"__kernel void copy(__global const uint *in, __global uint *out)\n"
	"{\n"
	"	uint g = get_global_id(0);\n"
	"	out[g] = in[g];\n"
	"}\n";

struct pocl {
	cl_context ctx;
	cl_command_queue q;
	cl_program prog;
	cl_kernel reduce, segscan, wgescan, transpose, copy;
	char device[256];
};

static int pocl_init(struct pocl *p, unsigned seg, unsigned tile)
{
	char options[64];

	cl_platform_id plats[16];
	cl_uint np = 0;
	cl_device_id dev;
	cl_int err;
	char name[256];

	memset(p, 0, sizeof(*p));
	if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS)
		return -1;
	for (cl_uint i = 0; i < np; i++) {
		clGetPlatformInfo(plats[i], CL_PLATFORM_NAME, sizeof(name), name, NULL);
		if (!strstr(name, "Portable Computing Language"))
			continue;
		if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS)
			return -1;
		clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof(p->device), p->device, NULL);
		p->ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
		if (err)
			return -1;
		p->q = clCreateCommandQueue(p->ctx, dev, 0, &err);
		if (err)
			return -1;
		p->prog = clCreateProgramWithSource(p->ctx, 1, (const char *[]){ cl_src }, NULL, &err);
		snprintf(options, sizeof(options), "-DSEG=%u -DTILE=%u", seg, tile);
		if (err || clBuildProgram(p->prog, 1, &dev, options, NULL, NULL) != CL_SUCCESS) {
			char log[8192] = "";

			clGetProgramBuildInfo(p->prog, dev, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
			fprintf(stderr, "builtins: PoCL build failed:\n%s\n", log);
			return -1;
		}
		p->reduce = clCreateKernel(p->prog, "reduce", &err);
		p->segscan = clCreateKernel(p->prog, "segscan", &err);
		p->wgescan = clCreateKernel(p->prog, "wgescan", &err);
		p->transpose = clCreateKernel(p->prog, "transpose", &err);
		p->copy = clCreateKernel(p->prog, "copy", &err);
		return err ? -1 : 0;
	}
	fprintf(stderr, "builtins: no PoCL platform (apt-get install pocl-opencl-icd)\n");
	return -1;
}

static cl_mem pocl_buf(struct pocl *p, void *host, size_t bytes)
{
	cl_int err;
	cl_mem m = clCreateBuffer(p->ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, host, &err);

	if (err) {
		fprintf(stderr, "builtins: clCreateBuffer: %d\n", err);
		exit(2);
	}
	return m;
}

static double pocl_run(struct pocl *p, cl_kernel k, cl_mem a, cl_mem b, int narg3, uint32_t arg3,
		       unsigned dims, const size_t *gs, const size_t *ls)
{
	double t;
	cl_int err;

	clSetKernelArg(k, 0, sizeof(a), &a);
	clSetKernelArg(k, 1, sizeof(b), &b);
	if (narg3)
		clSetKernelArg(k, 2, sizeof(arg3), &arg3);
	t = now();
	err = clEnqueueNDRangeKernel(p->q, k, dims, NULL, gs, ls, 0, NULL, NULL);
	clFinish(p->q);
	if (err) {
		fprintf(stderr, "builtins: clEnqueueNDRangeKernel: %d\n", err);
		exit(2);
	}
	return now() - t;
}

static void pocl_sync(struct pocl *p, cl_mem m, void *host, size_t bytes)
{
	/* USE_HOST_PTR on a CPU device: a map makes the host copy current. */
	cl_int err;
	void *ptr = clEnqueueMapBuffer(p->q, m, CL_TRUE, CL_MAP_READ, 0, bytes, 0, NULL, NULL, &err);

	if (err) {
		fprintf(stderr, "builtins: clEnqueueMapBuffer: %d\n", err);
		exit(2);
	}
	if (ptr != host)
		memcpy(host, ptr, bytes);
	clEnqueueUnmapMemObject(p->q, m, ptr, 0, NULL, NULL);
	clFinish(p->q);
}
#endif

/* ------------------------------------------------------------- the run */

struct result {
	const char *name, *model_kernel, *pocl_kernel;
	uint64_t elems;
	double model_s, pocl_s;
	bool model_ok, pocl_ok, pocl_ran;
};

static struct {
	bool quick, pocl;
	int reps;
	uint64_t elems;
	unsigned threads;
	const char *only;	/* run this kernel alone (profiling) */
	unsigned simd;		/* the model's sub-group width */
	unsigned pocl_tile;	/* PoCL's transpose tile */
} opt = { .reps = 5, .pocl = true, .simd = 32, .pocl_tile = 16 };

static bool selected(const char *name)
{
	return !opt.only || !strcmp(opt.only, name);
}

static uint32_t *ref_in;

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

/* Model args: in, out, u32 parameter. */
static uint64_t margs(struct gpu *g, uint64_t *args_host, uint64_t in, uint64_t out, uint32_t p)
{
	(void)g;
	args_host[0] = in;
	args_host[1] = out;
	args_host[2] = p;
	return 0;
}

/*
 * Image descriptors for a square n x n u32 matrix at @in and @out (the
 * transpose's): args[3] and args[4] point to them, in the args page at
 * byte 64.  Descriptor: u64 base VA, u32 width in bytes, height, pitch, 0.
 */
static void mimages(uint64_t *args_host, uint64_t args_va, uint64_t in, uint64_t out, uint64_t n)
{
	uint32_t *d = (uint32_t *)(args_host + 8);
	const uint64_t base[2] = { in, out };

	for (int k = 0; k < 2; k++, d += 6) {
		d[0] = (uint32_t)base[k];
		d[1] = (uint32_t)(base[k] >> 32);
		d[2] = (uint32_t)(n * 4);
		d[3] = (uint32_t)n;
		d[4] = (uint32_t)(n * 4);
		d[5] = 0;
		args_host[3 + k] = args_va + 64 + 24 * k;
	}
}

static bool check_u32(const char *what, const uint32_t *got, const uint32_t *want, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		if (got[i] != want[i]) {
			printf("  %s: element %llu is %u, expected %u\n", what, (unsigned long long)i,
			       got[i], want[i]);
			return false;
		}
	}
	return true;
}

/* One model dispatch: its launch, arguments and output. */
struct model_run {
	struct gpu *g;
	uint64_t *args, in_va, out_va;
	uint32_t param;
	const struct launch *l;
	uint32_t *out;
};

/* One PoCL kernel run: its arguments; @host receives the result. */
struct pocl_kernel_run;

/* Runs the model side once: its time, and whether @out matched @want. */
static double model_rep(const struct model_run *m, const uint32_t *want, uint64_t count,
			const char *name, bool *ok)
{
	char what[64];
	double t;
	uint32_t e;

	snprintf(what, sizeof(what), "%s (model)", name);
	memset(m->out, 0, count * 4);
	margs(m->g, m->args, m->in_va, m->out_va, m->param);
	t = now();
	e = gdispatch(m->g, m->l);
	t = now() - t;
	if (e)
		printf("  %s: queue error %u\n", what, e);
	*ok = !e && check_u32(what, m->out, want, count);
	return t;
}

#ifndef BENCH_NO_POCL
struct pocl_kernel_run {
	struct pocl *p;
	cl_kernel k;
	cl_mem in, out;
	int narg3;
	uint32_t arg3;
	int dims;
	size_t *gs, *ls;
	uint32_t *host;
};
#endif

/*
 * A kernel on both sides, warm-up first, then opt.reps times each, the two
 * sides alternating so that both meet the same load on a shared machine:
 * @r gets the best times and whether every model run and PoCL's last run
 * matched @want.  @pk is NULL for the model alone.
 */
static void bench_kernel(const struct model_run *m, const struct pocl_kernel_run *pk,
			 const uint32_t *want, uint64_t count, struct result *r)
{
	bool all_ok = true;

	r->model_s = r->pocl_s = 1e30;
	r->pocl_ran = pk != NULL;
	for (int rep = 0; rep < opt.reps + 1; rep++) {
		bool ok;
		double t = model_rep(m, want, count, r->name, &ok);

		all_ok &= ok;
		if (rep && t < r->model_s)
			r->model_s = t;
#ifndef BENCH_NO_POCL
		if (pk) {
			t = pocl_run(pk->p, pk->k, pk->in, pk->out, pk->narg3, pk->arg3, pk->dims,
				     pk->gs, pk->ls);
			if (rep && t < r->pocl_s)
				r->pocl_s = t;
		}
#endif
	}
	r->model_ok = all_ok;
#ifndef BENCH_NO_POCL
	if (pk) {
		char what[64];

		snprintf(what, sizeof(what), "%s (PoCL)", r->name);
		pocl_sync(pk->p, pk->out, pk->host, count * 4);
		r->pocl_ok = check_u32(what, pk->host, want, count);
	}
#endif
}

/* A kernel's PoCL run in main (none without PoCL). */
#ifndef BENCH_NO_POCL
#define POCL_KERNEL_RUN(name, kernel, narg3, arg3, dims, gs, ls) \
	struct pocl_kernel_run name = { &P, kernel, cin, cout, narg3, arg3, dims, gs, ls, pout }
#define POCL_IF(pk)	(opt.pocl ? (pk) : NULL)
#else
#define POCL_KERNEL_RUN(name, kernel, narg3, arg3, dims, gs, ls) \
	struct pocl_kernel_run *name = ((void)(gs), (void)(ls), NULL)
#define POCL_IF(pk)	((void)(pk), (const struct pocl_kernel_run *)NULL)
#endif

int main(int argc, char **argv)
{
	struct result res[5];
	unsigned nres = 0, failed = 0, passed = 0;
	uint64_t n, tn, mem;
	static char seg_label[40], tmodel_label[64], tpocl_label[40];
	unsigned W;
	struct gpu *g;
	uint64_t in_va, out_va, part_va, args_va, code[5];
	uint32_t *in, *out, *part, *want;
	uint64_t *args;
	char *tsrc;
#ifndef BENCH_NO_POCL
	struct pocl P;
	cl_mem cin = NULL, cout = NULL, cpa = NULL, cpb = NULL;
	uint32_t *pout = NULL, *ppa = NULL, *ppb = NULL;
#endif

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			opt.quick = true;
			opt.pocl = false;
		} else if (!strcmp(argv[i], "--pocl")) {
			opt.pocl = true;
		} else if (!strcmp(argv[i], "--no-pocl")) {
			opt.pocl = false;
		} else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			opt.reps = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--elems") && i + 1 < argc) {
			opt.elems = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			opt.threads = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--kernel") && i + 1 < argc) {
			opt.only = argv[++i];
		} else if (!strcmp(argv[i], "--simd") && i + 1 < argc) {
			opt.simd = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--pocl-tile") && i + 1 < argc) {
			opt.pocl_tile = atoi(argv[++i]);
		} else {
			fprintf(stderr, "usage: %s [--quick] [--pocl|--no-pocl] [--reps N] [--elems N] "
				"[--threads N] [--kernel NAME] [--simd 16|32] [--pocl-tile 16|32]\n", argv[0]);
			return 2;
		}
	}
#ifdef BENCH_NO_POCL
	opt.pocl = false;
#endif
	W = opt.simd;
	snprintf(seg_label, sizeof(seg_label), "local-memory scan per %u", W);
	snprintf(tmodel_label, sizeof(tmodel_label), "%ux%u: ld.img8 + shfl.xor butterfly + st.img8", W, W);
	snprintf(tpocl_label, sizeof(tpocl_label), "%ux%u local-memory tile", opt.pocl_tile, opt.pocl_tile);
	if (opt.only && strcmp(opt.only, "sg-reduce") && strcmp(opt.only, "sg-scan") &&
	    strcmp(opt.only, "wg-escan") && strcmp(opt.only, "transpose") &&
	    strcmp(opt.only, "block-copy")) {
		fprintf(stderr, "builtins: no kernel '%s' (sg-reduce, sg-scan, wg-escan, transpose, "
			"block-copy)\n", opt.only);
		return 2;
	}
	/* SIMD 8 would need a second level of sub-group totals in wg-escan. */
	if ((opt.simd != 16 && opt.simd != 32) || (opt.pocl_tile != 16 && opt.pocl_tile != 32)) {
		fprintf(stderr, "builtins: --simd and --pocl-tile are 16 or 32\n");
		return 2;
	}
	if (opt.reps < 1)
		opt.reps = 1;
	if (opt.quick && !opt.elems)
		opt.reps = 1;
	n = opt.elems ? opt.elems : opt.quick ? (1u << 16) : (1u << 26);
	if (n < COPY_CHUNK || (n & (n - 1))) {
		fprintf(stderr, "builtins: --elems must be a power of two >= %u\n", COPY_CHUNK);
		return 2;
	}
	/* The transpose: the largest square power-of-two matrix of at most n elements. */
	tn = 16;
	while (tn * tn * 4 <= n)
		tn *= 2;
	if (!opt.threads) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		opt.threads = c > 0 ? (unsigned)c : 1;
	}

	mem = 3 * n * 4 + (64ull << 20);
	g = gpu_create(mem, opt.threads);
	in_va = gbuf(g, n * 4, 0, &in);
	out_va = gbuf(g, n * 4, WEFT_PTE_WRITE, &out);
	part_va = gbuf(g, n / 64 * 4 + PAGE, WEFT_PTE_WRITE, &part);
	args_va = gbuf(g, PAGE, 0, &args);
	{
		const char *names[] = { "<sg-reduce>", "<sg-scan>", "<wg-escan>", NULL, "<block-copy>" };
		const char *tmpls[] = { k_reduce, k_sgscan, k_wgescan, NULL, k_copy };

		for (int k = 0; k < 5; k++) {
			if (!tmpls[k])
				continue;
			tsrc = width_kernel(tmpls[k], W);
			code[k] = gcode(g, names[k], tsrc);
			free(tsrc);
		}
	}
	tsrc = k_transpose(W);
	code[3] = gcode(g, "<transpose>", tsrc);
	free(tsrc);

	ref_in = huge_alloc(n * 4);
	want = huge_alloc(n * 4);
	for (uint64_t i = 0; i < n; i++)
		ref_in[i] = (uint32_t)mix(i + 1);
	memcpy(in, ref_in, n * 4);

#ifndef BENCH_NO_POCL
	if (opt.pocl) {
		if (pocl_init(&P, W, opt.pocl_tile)) {
			fprintf(stderr, "builtins: PoCL unavailable: cannot compare\n");
			return 2;
		}
		pout = huge_alloc(n * 4);
		ppa = huge_alloc(n / 64 * 4 + PAGE);
		ppb = huge_alloc(n / 64 * 4 + PAGE);
		cin = pocl_buf(&P, ref_in, n * 4);
		cout = pocl_buf(&P, pout, n * 4);
		cpa = pocl_buf(&P, ppa, n / 64 * 4 + PAGE);
		cpb = pocl_buf(&P, ppb, n / 64 * 4 + PAGE);
	}
#endif
	printf("builtins: %llu elements (transpose %llux%llu), model SIMD%u on %u threads%s%s\n",
	       (unsigned long long)n, (unsigned long long)tn, (unsigned long long)tn, W,
	       opt.threads, opt.pocl ? ", PoCL device: " : "",
#ifndef BENCH_NO_POCL
	       opt.pocl ? P.device :
#endif
	       "");

	/* ---- sg-reduce ---- */
	if (selected("sg-reduce")) {
		struct result *r = &res[nres++];
		uint32_t sum = 0, got = 0;

		*r = (struct result){ .name = "sg-reduce", .model_kernel = "ld.block8 + red.add.u32 (sub-group reduce)",
				      .pocl_kernel = "local-memory tree", .elems = n };
		for (uint64_t i = 0; i < n; i++)
			sum += ref_in[i];
		r->model_s = r->pocl_s = 1e30;
		r->model_ok = true;
#ifndef BENCH_NO_POCL
		r->pocl_ran = opt.pocl;
		r->pocl_ok = true;
#endif
		/* The two sides alternate, as in bench_kernel(). */
		for (int rep = 0; rep < opt.reps + 1; rep++) {
			/* Passes: in -> part -> out -> part ... until <= CHUNK partials. */
			uint64_t cnt = n, src = in_va, dst = part_va;
			uint32_t *dsth = part;
			double t = now();
			bool ok = true;

			while (cnt > CHUNK) {
				uint64_t nsg = cnt / CHUNK;
				struct launch l = { .code = code[0], .args = args_va, .gsize =
						    { (uint32_t)(nsg * W), 1, 1 }, .lsize =
						    { nsg * W < WG ? (uint32_t)(nsg * W) : WG, 1, 1 }, .simd = W };

				margs(g, args, src, dst, CHUNK / (8 * W));
				if (gdispatch(g, &l)) {
					ok = false;
					break;
				}
				cnt = nsg;
				src = dst;
				dsth = dst == part_va ? part : out;
				dst = dst == part_va ? out_va : part_va;
			}
			got = 0;
			for (uint64_t i = 0; i < cnt; i++)
				got += dsth[i];
			t = now() - t;
			if (rep && t < r->model_s)
				r->model_s = t;
			if (!ok || got != sum) {
				printf("  sg-reduce (model): sum %u, expected %u\n", got, sum);
				r->model_ok = false;
			}
#ifndef BENCH_NO_POCL
			if (opt.pocl) {
				cl_mem csrc = cin, cdst = cpa;
				uint32_t *pdsth = ppa;

				cnt = n;
				t = 0;
				while (cnt > CHUNK) {
					size_t gs = cnt / 4, ls = WG;

					t += pocl_run(&P, P.reduce, csrc, cdst, 0, 0, 1, &gs, &ls);
					cnt /= CHUNK;
					csrc = cdst;
					pdsth = cdst == cpa ? ppa : ppb;
					cdst = cdst == cpa ? cpb : cpa;
				}
				pocl_sync(&P, csrc, pdsth, cnt * 4);
				{
					double t0 = now();

					got = 0;
					for (uint64_t i = 0; i < cnt; i++)
						got += pdsth[i];
					t += now() - t0;
				}
				if (rep && t < r->pocl_s)
					r->pocl_s = t;
				if (got != sum) {
					printf("  sg-reduce (PoCL): sum %u, expected %u\n", got, sum);
					r->pocl_ok = false;
				}
			}
#endif
		}
	}

	/* ---- sg-scan ---- */
	if (selected("sg-scan")) {
		struct result *r = &res[nres++];

		*r = (struct result){ .name = "sg-scan", .model_kernel = "ld.block8 + iscan.add.u32 + st.block8",
				      .pocl_kernel = seg_label, .elems = n };
		for (uint64_t i = 0; i < n; i++)
			want[i] = (i % W ? want[i - 1] : 0) + ref_in[i];
		struct launch l = { code[1], args_va, { (uint32_t)(n / CHUNK * W), 1, 1 },
				    { WG, 1, 1 }, 0, W };

		struct model_run m = { g, args, in_va, out_va, CHUNK / (8 * W), &l, out };
		size_t gs = n, ls = WG;
		POCL_KERNEL_RUN(pk, P.segscan, 0, 0, 1, &gs, &ls);

		bench_kernel(&m, POCL_IF(&pk), want, n, r);
	}

	/* ---- wg-escan ---- */
	if (selected("wg-escan")) {
		struct result *r = &res[nres++];

		*r = (struct result){ .name = "wg-escan", .model_kernel = "escan.add.u32 + SLM + bar (work-group scan)",
				      .pocl_kernel = "local-memory scan per 256", .elems = n };
		for (uint64_t i = 0; i < n; i++)
			want[i] = i % WG ? want[i - 1] + ref_in[i - 1] : 0;
		struct launch l = { code[2], args_va, { (uint32_t)n, 1, 1 }, { WG, 1, 1 }, 64, W };

		struct model_run m = { g, args, in_va, out_va, 0, &l, out };
		size_t gs = n, ls = WG;
		POCL_KERNEL_RUN(pk, P.wgescan, 0, 0, 1, &gs, &ls);

		bench_kernel(&m, POCL_IF(&pk), want, n, r);
	}

	/* ---- transpose ---- */
	if (selected("transpose")) {
		struct result *r = &res[nres++];
		uint64_t tt = tn * tn;

		*r = (struct result){ .name = "transpose", .model_kernel = tmodel_label,
				      .pocl_kernel = tpocl_label, .elems = tt };
		for (uint64_t y = 0; y < tn; y++)
			for (uint64_t x = 0; x < tn; x++)
				want[x * tn + y] = ref_in[y * tn + x];
		struct launch l = { code[3], args_va, { (uint32_t)(tn / TILES_PER_SG),
				    (uint32_t)(tn / W), 1 }, { W, 1, 1 }, 0, W };

		mimages(args, args_va, in_va, out_va, tn);
		struct model_run m = { g, args, in_va, out_va, 0, &l, out };
		size_t gs[2] = { tn, tn }, ls[2] = { opt.pocl_tile, opt.pocl_tile };
		POCL_KERNEL_RUN(pk, P.transpose, 1, (uint32_t)tn, 2, gs, ls);

		bench_kernel(&m, POCL_IF(&pk), want, tt, r);
	}

	/* ---- block-copy ---- */
	if (selected("block-copy")) {
		struct result *r = &res[nres++];

		*r = (struct result){ .name = "block-copy", .model_kernel = "ld.block8 / st.block8 (sub-group block I/O)",
				      .pocl_kernel = "plain copy", .elems = n };
		struct launch l = { code[4], args_va, { (uint32_t)(n / COPY_CHUNK * W), 1, 1 },
				    { WG, 1, 1 }, 0, W };

		struct model_run m = { g, args, in_va, out_va, COPY_CHUNK / (8 * W), &l, out };
		size_t gs = n, ls = WG;
		POCL_KERNEL_RUN(pk, P.copy, 0, 0, 1, &gs, &ls);

		bench_kernel(&m, POCL_IF(&pk), ref_in, n, r);
	}

	if (opt.quick) {
		for (unsigned i = 0; i < nres; i++) {
			bool ok = res[i].model_ok && (!res[i].pocl_ran || res[i].pocl_ok);

			printf("%s %s: model result %s%s\n", ok ? "ok  " : "FAIL", res[i].name,
			       res[i].model_ok ? "matches the C reference" : "WRONG",
			       res[i].pocl_ran ? (res[i].pocl_ok ? ", PoCL matches" : ", PoCL WRONG") : "");
			ok ? passed++ : failed++;
		}
	} else {
		printf("\n| kernel | elements | Weft model (ISA builtins used) | model Melem/s | "
		       "PoCL (OpenCL C) | PoCL Melem/s | model / PoCL | check |\n");
		printf("|---|---:|---|---:|---|---:|---:|---|\n");
		for (unsigned i = 0; i < nres; i++) {
			struct result *r = &res[i];
			double me = r->elems / r->model_s / 1e6, pe = r->pocl_ran ? r->elems / r->pocl_s / 1e6 : 0;
			bool ok = r->model_ok && (!r->pocl_ran || r->pocl_ok);

			printf("| %s | %llu | %s | %.0f | %s | ", r->name, (unsigned long long)r->elems,
			       r->model_kernel, me, r->pocl_kernel);
			if (r->pocl_ran)
				printf("%.0f | %.2fx |", pe, me / pe);
			else
				printf("- | - |");
			printf(" %s |\n", ok ? "ok" : r->model_ok ? "PoCL WRONG" : "model WRONG");
			ok ? passed++ : failed++;
		}
		printf("\n");
	}
	gpu_destroy(g);
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
