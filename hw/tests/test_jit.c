// SPDX-License-Identifier: MIT
/*
 * The translator against the interpreter (execution.rst, "The
 * translator"): the same dispatches on two models, one that only interprets
 * (WEFT_MODEL_JIT=0) and one that translates every kernel
 * (WEFT_MODEL_JIT=1), each on one worker thread so that work-groups and
 * sub-group turns run in the same order, from the same memory.  The queue's
 * error, the fault block, every byte of guest memory and every register
 * (which each kernel's epilogue stores) must be identical.  The kernels:
 * random valid programs over the whole ISA table, and kernels that spin
 * until a later sub-group sets a flag, forever (the watchdog), or while
 * another sub-group faults.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "modelenv.h"
#include "randprog.h"
#include "weft_isa.h"
#include "weft_model_priv.h"

#define MEM_SIZE	(32u << 20)
#define DUMP_ROWS	152	/* r64..r215: where random programs write */
#define MAX_ITEMS	300

static struct env *ref, *jit;	/* interpreter, translator */
static uint64_t code_va, args_va, dump_va, ro_va;
static uint64_t *code[2], *args[2];

/* A model in WEFT_MODEL_JIT=@mode whose optimizing tier starts at @opt_items (NULL: the default). */
static struct env *make_tiered(const char *mode, const char *opt_items)
{
	struct env *e;

	setenv("WEFT_MODEL_JIT", mode, 1);
	/* A small cache: the kernels below evict each other. */
	setenv("WEFT_MODEL_JIT_CACHE", "8", 1);
	if (opt_items)
		setenv("WEFT_MODEL_JIT_OPT_ITEMS", opt_items, 1);
	e = env_create_mem(1, 2000000, MEM_SIZE);
	unsetenv("WEFT_MODEL_JIT");
	unsetenv("WEFT_MODEL_JIT_CACHE");
	unsetenv("WEFT_MODEL_JIT_OPT_ITEMS");
	if (env_ready(e) != WEFT_DEVICE_RUNNING)
		abort();
	return e;
}

static struct env *make(const char *mode)
{
	return make_tiered(mode, NULL);
}

/* Runs @d on both models; checks that they agree.  Returns the interpreter's error. */
static uint32_t both(const struct env_dispatch *d, const char *what)
{
	uint32_t err[2];
	struct env *e[2] = { ref, jit };

	for (int k = 0; k < 2; k++) {
		err[k] = env_dispatch(e[k], 0, d);
		if (err[k]) {
			env_wreg(e[k], WEFT_REG_FAULT_ACK, env_reg(e[k], WEFT_REG_FAULT_SEQ));
			env_reset_queue(e[k], 0);
		}
	}
	CHECK(err[0] == err[1], "%s: error %u interpreted, %u translated", what, err[0], err[1]);
	CHECK_EQ(env_reg(jit, WEFT_REG_FAULT_ADDR_LO), env_reg(ref, WEFT_REG_FAULT_ADDR_LO));
	CHECK_EQ(env_reg(jit, WEFT_REG_FAULT_INFO), env_reg(ref, WEFT_REG_FAULT_INFO));
	CHECK_EQ(env_qreg(jit, 0, WEFT_Q_ERROR_ADDR_LO), env_qreg(ref, 0, WEFT_Q_ERROR_ADDR_LO));
	if (memcmp(ref->mem, jit->mem, MEM_SIZE)) {
		uint64_t i = 0;

		while (ref->mem[i] == jit->mem[i])
			i++;
		CHECK(0, "%s: memory differs first at GPA 0x%llx: 0x%02x interpreted, 0x%02x translated",
		      what, (unsigned long long)i, ref->mem[i], jit->mem[i]);
	}
	return err[0];
}

/* In both models: the same buffer at the same VA. */
static uint64_t buf(uint64_t bytes, uint64_t flags, void **host)
{
	uint64_t va = env_buf(ref, bytes, flags, &host[0]);

	CHECK_EQ(env_buf(jit, bytes, flags, &host[1]), va);
	return va;
}

/* Appends the epilogue that stores r64..r215 of every item at dump + its linear global id * 4 * DUMP_ROWS. */
static unsigned epilogue(uint64_t *c, unsigned n)
{
	char src[16384], *p = src;
	uint64_t *w;
	size_t nw;
	char err[256];

	/* The item's linear global id: items of a 2D or 3D dispatch that share x keep their own rows. */
	p += sprintf(p, "\ts2r.u32 r216, sr.global_id.z\n\ts2r.u32 r217, sr.global_size.y\n"
		     "\tmul.u32 r216, r216, r217\n\ts2r.u32 r217, sr.global_id.y\n\tadd.u32 r216, r216, r217\n"
		     "\ts2r.u32 r217, sr.global_size.x\n\tmul.u32 r216, r216, r217\n"
		     "\ts2r.u32 r217, sr.global_id.x\n\tadd.u32 r216, r216, r217\n"
		     "\tcvt.u64.u32 r216, r216\n\tmul.u64 r216, r216, %u\n"
		     "\tmov.u64 r218, 0x%llx\n\tadd.u64 r218, r218, r216\n",
		     4 * DUMP_ROWS, (unsigned long long)dump_va);
	for (unsigned r = 0; r < DUMP_ROWS; r++)
		p += sprintf(p, "\tst.global.u32 [r218+%u], r%u\n", 4 * r, 64 + r);
	p += sprintf(p, "\tend\n");
	if (weft_asm(src, "<epilogue>", &w, &nw, err, sizeof(err))) {
		CHECK(0, "epilogue: %s", err);
		return n;
	}
	memcpy(c + n, w, nw * 8);
	free(w);
	return n + (unsigned)nw;
}

static void t_random_programs(void)
{
	for (int iter = 0; iter < 24; iter++) {
		unsigned simd = 8 << (iter % 3), n;
		struct env_dispatch d;
		char what[64];

		randprog_fill(args[0], args_va);
		memcpy(args[1], args[0], 2048 * 8);
		n = randprog(code[0], 100 + (unsigned)iter * 4);
		n = epilogue(code[0], n);
		memcpy(code[1], code[0], n * 8);
		d = (struct env_dispatch){ code_va, args_va, simd, { 1 + h_rand() % MAX_ITEMS, 1, 1 },
					   { 1 + h_rand() % 128, 1, 1 }, { 0, 0, 0 }, h_rand() % 2048,
					   h_rand() % 3 ? h_rand() % 512 : 0 };
		snprintf(what, sizeof(what), "program %d (simd %u)", iter, simd);
		both(&d, what);
		if (h_failed())
			break;
	}
}

/* Assembles @src followed by the epilogue into both models' code buffers. */
static bool load_code(const char *src)
{
	uint64_t *w;
	size_t nw;
	char err[256];
	unsigned n;

	if (weft_asm(src, "<directed>", &w, &nw, err, sizeof(err))) {
		CHECK(0, "%s", err);
		return false;
	}
	memcpy(code[0], w, nw * 8);
	free(w);
	n = epilogue(code[0], (unsigned)nw - 1);	/* over its end */
	memcpy(code[1], code[0], n * 8);
	return true;
}

/* Assembles @src alone (no epilogue) into both models' code buffers. */
static bool load_bare(const char *src)
{
	uint64_t *w;
	size_t nw;
	char err[256];

	if (weft_asm(src, "<bare>", &w, &nw, err, sizeof(err))) {
		CHECK(0, "%s", err);
		return false;
	}
	memcpy(code[0], w, nw * 8);
	memcpy(code[1], w, nw * 8);
	free(w);
	return true;
}
/* A work-group's grid and size. */
struct shape {
	uint32_t g[3], l[3];
};

/* The loaded kernel both ways in each of the @n @shapes at every width, called @name in messages. */
static void both_shapes(const struct shape *shapes, unsigned n, const char *name)
{
	for (unsigned si = 0; si < 3; si++) {
		for (unsigned k = 0; k < n; k++) {
			struct env_dispatch d = { code_va, args_va, 8u << si, { 0 }, { 0 }, { 0 }, 0, 0 };
			char what[64];

			memcpy(d.gsize, shapes[k].g, sizeof(d.gsize));
			memcpy(d.lsize, shapes[k].l, sizeof(d.lsize));
			for (unsigned i = 0; i < 2048; i++)
				args[0][i] = args[1][i] = (uint64_t)h_rand() << 32 | h_rand();
			snprintf(what, sizeof(what), "%s, shape %u at simd %u", name, k, d.simd);
			both(&d, what);
		}
	}
}

/*
 * Every special register, and the loads and stores the translator inlines
 * (SLM and scratch of every size and vector width, global accesses that
 * are neither consecutive nor uniform, .v2/.v4) in partial sub-groups and
 * partial work-groups of 1 and 3 dimensions, then an SLM access out of
 * bounds in one lane: the same registers, memory and fault both ways.
 */
static void t_directed(void)
{
	static const struct { uint32_t g[3], l[3]; } shapes[] = {
		{ { 77, 1, 1 }, { 24, 1, 1 } }, { { 12, 5, 2 }, { 4, 3, 2 } }, { { 64, 1, 1 }, { 64, 1, 1 } },
		/* rows as wide as SIMD 8 and 16 sub-groups: y and z computed inline */
		{ { 32, 4, 4 }, { 16, 2, 2 } },
	};
	char src[16384], *p;

	for (unsigned si = 0; si < 3; si++) {
		for (unsigned k = 0; k < 2 * sizeof(shapes) / sizeof(shapes[0]); k++) {
			unsigned row = 64, simd = 8u << si;
			struct env_dispatch d = { code_va, args_va, simd, { 0 }, { 0 }, { 0 }, 2048, 48 };
			char what[64];

			p = src;
			memcpy(d.gsize, shapes[k / 2].g, sizeof(d.gsize));
			memcpy(d.lsize, shapes[k / 2].l, sizeof(d.lsize));
			for (unsigned r = 0; r < WEFT_ISA_NUM_SREGS; r++, row += 2)
				p += sprintf(p, "\ts2r.u%u r%u, sr.%s\n", weft_isa_sregs[r].bits == 64 ? 64 : 32,
					     row, weft_isa_sregs[r].name);
			/* Odd work-items store, every one loads its neighbour's: masked both ways. */
			p += sprintf(p,
				"\ts2r.u64 r0, sr.args\n"
				"\ts2r.u32 r2, sr.local_linear_id\n"
				"\tmul.u32 r4, r2, 24\n"
				"\txor.u32 r5, r2, 1\n"
				"\tmul.u32 r5, r5, 24\n"
				"\tand.u32 r3, r2, 1\n"
				"\tmov.u32 r9, 8\n"
				"\tif r3, even\n"
				"\tst.local.u8 [r4+0], r2\n"
				"\tst.local.u16 [r4+2], r64\n"
				"\tst.local.u32 [r4+4], r84\n"
				"\tst.local.v2.u64 [r4+8], r88\n"
				"\tst.scratch.v4.u32 [r9+0], r64\n"
				"\tst.scratch.u16 [r9+16], r2\n"
				"even:\tendif\n"
				"\tbar\n"
				"\tld.local.s8 r%u, [r5+0]\n"
				"\tld.local.u16 r%u, [r5+2]\n"
				"\tld.local.u32 r%u, [r5+4]\n"
				"\tld.local.v4.u32 r%u, [r5+8]\n"
				"\tld.local.u64 r%u, [r4+8]\n"
				"\tld.scratch.v4.u32 r%u, [r9+0]\n"
				"\tld.scratch.s16 r%u, [r9+16]\n",
				row, row + 1, row + 2, row + 4, row + 8, row + 10, row + 14);
			row += 16;
			/* Global: 12-byte strides (one page, not consecutive), vectors, a reversed store. */
			p += sprintf(p,
				"\tcvt.u64.u32 r6, r2\n"
				"\tmul.u64 r6, r6, 12\n"
				"\tadd.u64 r6, r6, r0\n"
				"\tld.global.u32 r%u, [r6+64]\n"
				"\tld.global.s16 r%u, [r6+66]\n"
				"\tld.global.v2.u32 r%u, [r6+128]\n"
				"\tld.global.v4.u32 r%u, [r6+256]\n"
				"\tst.global.u32 [r6+4096], r2\n"
				"\tst.global.v2.u32 [r6+8192], r%u\n"
				"\tif r3, odd\n"
				"\tst.global.v4.u32 [r6+12288], r64\n"
				"\tld.global.u64 r%u, [r6+512]\n"
				"odd:\tendif\n",
				row, row + 1, row + 2, row + 4, row, row + 8);
			/* The second of each shape: one lane past the SLM's end. */
			if (k % 2)
				p += sprintf(p, "\tset.eq.u32 r7, r2, 5\n\tif r7, in\n"
					     "\tld.local.u32 r8, [r4+2040]\nin:\tendif\n");
			sprintf(p, "\tend\n");
			if (!load_code(src))
				return;
			for (unsigned i = 0; i < 2048; i++)
				args[0][i] = args[1][i] = (uint64_t)h_rand() << 32 | h_rand();
			snprintf(what, sizeof(what), "directed %u at simd %u", k, simd);
			both(&d, what);
		}
	}
}

/* The loaded kernel both ways on 1-D dispatches of the @n sizes in @shapes at SIMD 8, 16, 32. */
static void run_1d(const uint32_t (*shapes)[2], unsigned n, const char *name)
{
	for (unsigned si = 0; si < 3; si++) {
		for (unsigned k = 0; k < n; k++) {
			unsigned simd = 8u << si;
			struct env_dispatch d = { code_va, args_va, simd, { shapes[k][0], 1, 1 },
						  { shapes[k][1], 1, 1 }, { 0 }, 0, 0 };
			char what[64];

			for (unsigned i = 0; i < 2048; i++)
				args[0][i] = args[1][i] = (uint64_t)h_rand() << 32 | h_rand();
			snprintf(what, sizeof(what), "%s, shape %u at simd %u", name, k, simd);
			both(&d, what);
		}
	}
}

/* The start of a kernel: r0 the arguments' address, r2 the local linear id, r8 r0 + 4 bytes per id. */
#define ARGS_BY_ITEM			\
	"\ts2r.u64 r0, sr.args\n"	\
	"\ts2r.u32 r2, sr.local_linear_id\n" \
	"\tcvt.u64.u32 r6, r2\n"	\
	"\tshl.u64 r8, r6, 2\n"		\
	"\tadd.u64 r8, r8, r0\n"

/*
 * Traces (weft_jit.c, next_or_jump()): a block's variant for all lanes on
 * goes on with the blocks its constructs lead to while every lane is on, or
 * through an else or endif that no lane takes, with the rows it assigned
 * unstored.  Rows assigned before an if that every lane enters are read
 * after it, by a handler's instruction (div) inside it, and by the
 * interpreter's mask-stack code where a sub-group leaves the trace (an if
 * that some lanes enter, a partial sub-group); a block runs into a jump
 * target; a global store and load inside the trace; the global ids in x
 * read first in a traced block (a row variant's guard tests them only
 * where its block reads them); and, in the second kernel, a store in a
 * traced block that faults (not writable); then ifs every lane enters
 * nested ten deep, past the mask-stack entries a trace knows and the
 * instructions it may take, with an else no lane takes at every level and
 * handlers inside: the same registers, memory and fault both ways, in 1
 * and 2 dimensions, partial work-groups and sub-groups.
 */
static void t_traces(void)
{
	static const struct shape shapes[] = {
		{ { 100, 1, 1 }, { 50, 1, 1 } }, { { 64, 1, 1 }, { 64, 1, 1 } }, { { 32, 6, 1 }, { 32, 3, 1 } },
		{ { 20, 6, 1 }, { 10, 3, 1 } },
	};
	char src[4096];
	size_t n;

	for (unsigned v = 0; v < 2; v++) {
		snprintf(src, sizeof(src),
			 ARGS_BY_ITEM
			 "\tmov.u64 r10, 0x%llx\n"
			 "\tadd.u32 r64, r2, 1\n"
			 "\tld.global.u32 r65, [r8+1024]\n"
			 "\tset.ne.u32 r3, r2, 1000\n"
			 "\tif r3, e0\n"
			 "\tadd.u32 r66, r64, r65\n"
			 "\tst.global.u32 [r8+2048], r66\n"
			 "\tdiv.u32 r67, r66, 3\n"
			 "\tset.eq.u32 r4, r2, 1000\n"
			 "\tif r4, n0\n"
			 "\tmov.u32 r68, 0xdead\n"
			 "n0:\tendif\n"
			 "\ts2r.u32 r76, sr.global_id.x\n"
			 "\tadd.u32 r69, r67, r64\n"
			 "%s"
			 "\tld.global.u32 r70, [r8+2048]\n"
			 "e0:\telse x0\n"
			 "\tmov.u32 r71, 1\n"
			 "x0:\tendif\n"
			 "\tadd.u32 r72, r69, r70\n"
			 "\tset.lt.u32 r5, r2, 5\n"
			 "\tif r5, s0\n"
			 "\tadd.u32 r73, r72, r64\n"
			 "\tst.global.u32 [r8+3072], r73\n"
			 "s0:\tendif\n"
			 "\tadd.u32 r74, r73, r66\n"
			 "\tadd.u32 r75, r74, r76\n"
			 "\tend\n",
			 (unsigned long long)ro_va, v ? "\tst.global.u32 [r10+0], r69\n" : "");
		if (!load_code(src))
			return;
		both_shapes(shapes, sizeof(shapes) / sizeof(shapes[0]), v ? "traces, a fault" : "traces");
	}
	n = (size_t)snprintf(src, sizeof(src), "\ts2r.u32 r2, sr.local_linear_id\n\tadd.u32 r70, r2, 7\n");
	for (unsigned d = 0; d < 10; d++)
		n += (size_t)snprintf(src + n, sizeof(src) - n,
				      "\tset.ne.u32 r3, r2, %u\n"
				      "\tif r3, e%u\n"
				      "\tadd.u32 r64, r64, %u\n"
				      "%s",
				      1000 + d, d, 1u << d, d == 6 || d == 8 ? "\tdiv.u32 r65, r70, r64\n" : "");
	for (unsigned d = 10; d-- > 0;)
		n += (size_t)snprintf(src + n, sizeof(src) - n,
				      "e%u:\telse x%u\n"
				      "\tadd.u32 r66, r66, %u\n"
				      "x%u:\tendif\n"
				      "\tadd.u32 r67, r67, r64\n",
				      d, d, d + 1, d);
	snprintf(src + n, sizeof(src) - n,
		 "\tset.lt.u32 r5, r2, 3\n"
		 "\tif r5, s0\n"
		 "\tadd.u32 r68, r67, r65\n"
		 "s0:\tendif\n"
		 "\tend\n");
	if (load_code(src))
		both_shapes(shapes, sizeof(shapes) / sizeof(shapes[0]), "traces, ten deep");
}

/*
 * Global vectors the translator moves whole: .v2/.v4 of 32- and 64-bit
 * elements from one address in every lane (kernel arguments), and at
 * consecutive addresses, each lane's vector right after the previous
 * lane's, loaded and stored (a copy stores what it loaded as it is: not
 * with one element changed, from the rows of two loads, or fewer of its
 * elements); 64-bit elements, picked as 32-bit halves, added as 64-bit
 * values (one load's lanes a 64-bit element apart, overlapping); some
 * sub-groups' vectors cross a page, and masked lanes and partial
 * sub-groups take the per-lane path.
 */
static void t_vectors(void)
{
	static const uint32_t shapes[][2] = { { 64, 64 }, { 77, 24 }, { 40, 8 } };
	static const char src[] =
		"\ts2r.u64 r0, sr.args\n"
		"\ts2r.u32 r2, sr.local_linear_id\n"
		"\tld.global.v4.u64 r64, [r0+8]\n"
		"\tld.global.v2.u32 r72, [r0+36]\n"
		"\tld.global.v4.u32 r74, [r0+4092]\n"
		"\tcvt.u64.u32 r6, r2\n"
		"\tshl.u64 r8, r6, 4\n"
		"\tadd.u64 r8, r8, r0\n"
		"\tshl.u64 r10, r6, 3\n"
		"\tadd.u64 r10, r10, r0\n"
		"\tshl.u64 r12, r6, 5\n"
		"\tadd.u64 r12, r12, r0\n"
		"\tld.global.v4.u32 r78, [r8+3900]\n"
		"\tld.global.v2.u32 r82, [r10+200]\n"
		"\tld.global.v4.u64 r84, [r12+4000]\n"
		"\tld.global.v2.u64 r92, [r8+6000]\n"
		"\tst.global.v4.u32 [r8+8192], r78\n"
		"\tst.global.v2.u64 [r8+9300], r92\n"
		"\tst.global.v4.u64 [r12+10400], r84\n"
		"\tst.global.v2.u32 [r10+12500], r82\n"
		"\tld.global.v2.u64 r120, [r10+4400]\n"
		"\tadd.u64 r124, r120, r86\n"
		"\tst.global.u64 [r10+2000], r124\n"
		"\tld.global.v4.u32 r104, [r8+3900]\n"
		"\tadd.u32 r105, r105, 1\n"
		"\tst.global.v4.u32 [r8+14000], r104\n"
		"\tld.global.v4.u32 r108, [r8+3904]\n"
		"\tld.global.v4.u32 r110, [r8+3920]\n"
		"\tst.global.v4.u32 [r8+15000], r108\n"
		"\tld.global.v4.u32 r114, [r8+3900]\n"
		"\tst.global.v2.u32 [r10+15700], r115\n"
		"\tand.u32 r3, r2, 1\n"
		"\tif r3, even\n"
		"\tst.global.v4.u32 [r8+13100], r74\n"
		"\tld.global.v2.u64 r96, [r8+6000]\n"
		"\tld.global.v2.u32 r100, [r0+44]\n"
		"even:\tendif\n"
		"\tend\n";

	if (load_code(src))
		run_1d(shapes, sizeof(shapes) / sizeof(shapes[0]), "vectors");
}

/*
 * Global accesses whose lanes lie in different pages (2052 bytes apart:
 * two lanes a page, or one), looked up lane by lane: loads and stores,
 * masked, vectors, one that crosses a page in some lanes; then a store to
 * pages that a load just put in the TLB but that are not writable: the
 * same fault both ways.
 */
static void t_pages(void)
{
	static const uint32_t shapes[][2] = { { 64, 64 }, { 77, 24 }, { 30, 30 } };
	static const char *const body[2] = {
		"\tst.global.u32 [r8+0], r2\n"
		"\tld.global.u32 r64, [r8+4]\n"
		"\tst.global.v2.u32 [r8+8], r64\n"
		"\tand.u32 r3, r2, 1\n"
		"\tif r3, even\n"
		"\tst.global.u32 [r8+4], r2\n"
		"\tld.global.u64 r66, [r8+0]\n"
		"even:\tendif\n"
		"\tld.global.v4.u32 r68, [r8+2036]\n",
		"\tld.global.u32 r64, [r8+0]\n"
		"\tst.global.u32 [r8+0], r2\n",
	};
	uint64_t base[2] = { dump_va + 49152, ro_va };
	char src[2048];

	for (unsigned kind = 0; kind < 2; kind++) {
		snprintf(src, sizeof(src),
			 "\ts2r.u32 r2, sr.local_linear_id\n"
			 "\tcvt.u64.u32 r6, r2\n"
			 "\tmul.u64 r8, r6, 2052\n"
			 "\tmov.u64 r10, 0x%llx\n"
			 "\tadd.u64 r8, r8, r10\n"
			 "%s\tend\n", (unsigned long long)base[kind], body[kind]);
		if (!load_code(src))
			return;
		run_1d(shapes, sizeof(shapes) / sizeof(shapes[0]), kind ? "pages not writable" : "pages");
	}
}

/*
 * Global vectors whose lanes' own accesses cross a page in some
 * sub-groups (lanes 4 bytes apart, each reading or writing 8, 16 or 32
 * bytes: a[i] and a[i + 1] merged into one v2 load, as the stencil's
 * compiled code loads them) are run element by element, not by the
 * interpreter's handler: loads and stores, masked lanes and partial
 * sub-groups, elements that are not aligned (one crossing a page goes to
 * the interpreter's handler); then a store whose lanes cross into the
 * unmapped page after the arguments (the handler reports the fault).  The
 * same memory, registers and fault both ways, and the translator counted
 * the accesses it split.
 */
static void split_vectors(const char *body, const char *what, bool split)
{
	static const uint32_t shapes[][2] = { { 64, 64 }, { 77, 24 }, { 40, 8 } };
	struct weft_model_jit_stats before, after;
	char src[1024];

	weft_model_jit_stats(jit->m, &before);
	snprintf(src, sizeof(src),
		 ARGS_BY_ITEM "%s\tend\n", body);
	if (!load_code(src))
		return;
	run_1d(shapes, sizeof(shapes) / sizeof(shapes[0]), what);
	weft_model_jit_stats(jit->m, &after);
	CHECK(split ? after.split > before.split : after.split == before.split, "%s: %llu accesses split",
	      what, (unsigned long long)(after.split - before.split));
}

static void t_split_vectors(void)
{
	split_vectors("\tld.global.v2.u32 r64, [r8+4032]\n"
		      "\tld.global.v4.u32 r66, [r8+8136]\n"
		      "\tld.global.v4.u64 r70, [r8+12200]\n"
		      "\tst.global.v2.u32 [r8+4040], r66\n"
		      "\tand.u32 r3, r2, 1\n"
		      "\tif r3, odd\n"
		      "\tst.global.v4.u32 [r8+8150], r64\n"
		      "\tld.global.v2.u64 r78, [r8+12250]\n"
		      "odd:\tendif\n", "crossing", true);
	split_vectors("\tst.global.v4.u32 [r8+16360], r2\n", "crossing into a fault", false);
}

/*
 * Consecutive global accesses of every element size and vector width
 * (what the translator moves as one vector) whose sub-group runs off the
 * end of the arguments into the unmapped guard page after them: the lanes
 * of the first half lie in the last mapped page and the middle lane's
 * access is the first to fault (skew 1: it straddles the page boundary),
 * loads and stores, every lane on.  The same memory, registers and fault
 * (address and kind) both ways.
 */
static void t_fault_mid_lane(void)
{
	static const struct { const char *op; unsigned bytes; } acc[] = {
		{ "ld.global.u32 r64,", 4 }, { "st.global.u32", 4 }, { "ld.global.u64 r64,", 8 },
		{ "st.global.u64", 8 }, { "ld.global.v4.u32 r64,", 16 }, { "st.global.v4.u32", 16 },
		{ "ld.global.v2.u64 r64,", 16 }, { "st.global.v4.u64", 32 },
	};
	char src[1024];

	for (unsigned si = 0; si < 3; si++) {
		unsigned simd = 8u << si;

		for (unsigned a = 0; a < sizeof(acc) / sizeof(acc[0]); a++) {
			for (unsigned skew = 0; skew < 2; skew++) {
				uint64_t start = args_va + 16384 - (uint64_t)simd / 2 * acc[a].bytes -
						 4 * skew;
				struct env_dispatch d = { code_va, args_va, simd, { 2 * simd, 1, 1 },
							  { 2 * simd, 1, 1 } };
				bool store = acc[a].op[0] == 's';
				char what[96];

				snprintf(src, sizeof(src),
					 "\ts2r.u32 r2, sr.lane_id\n"
					 "\tcvt.u64.u32 r6, r2\n"
					 "\tmul.u64 r6, r6, %u\n"
					 "\tmov.u64 r8, 0x%llx\n"
					 "\tadd.u64 r8, r8, r6\n"
					 "\tmov.u32 r66, r2\n\tadd.u32 r67, r2, 7\n"
					 "\tmov.u64 r68, r8\n\tmov.u64 r70, r6\n"
					 "\t%s [r8+0]%s\n"
					 "\tend\n",
					 acc[a].bytes, (unsigned long long)start, acc[a].op,
					 store ? ", r64" : "");
				if (!load_code(src))
					return;
				for (unsigned i = 0; i < 2048; i++)
					args[0][i] = args[1][i] = (uint64_t)h_rand() << 32 | h_rand();
				snprintf(what, sizeof(what), "%s mid-lane fault, skew %u, simd %u",
					 acc[a].op, skew, simd);
				both(&d, what);
				CHECK(env_reg(ref, WEFT_REG_FAULT_ADDR_LO) >= (uint32_t)(start + 4) &&
				      env_reg(ref, WEFT_REG_FAULT_ADDR_LO) <= (uint32_t)(args_va + 16384),
				      "%s: the fault at 0x%x, not in a middle lane", what,
				      env_reg(ref, WEFT_REG_FAULT_ADDR_LO));
			}
		}
	}
}

/*
 * Each work-item's operands r10, r11 (and what @more loads) from the
 * arguments at local id << @shift; then every fourth work-item's lane goes
 * off until "off:".
 */
static int lane_operands(char *src, unsigned shift, const char *more)
{
	return sprintf(src, "\ts2r.u64 r0, sr.args\n\ts2r.u32 r2, sr.local_linear_id\n"
		       "\tcvt.u64.u32 r6, r2\n\tshl.u64 r6, r6, %u\n\tadd.u64 r6, r6, r0\n"
		       "\tld.global.u32 r10, [r6+0]\n\tld.global.u32 r11, [r6+4]\n%s"
		       "\tand.u32 r3, r2, 3\n\tif r3, off\n", shift, more);
}

/*
 * Integer reductions and scans of every operation on 32- and 64-bit
 * types, shuffles and broadcasts by a register and by an immediate, in
 * sub-groups with lanes off (every fourth work-item) and partial ones.
 */
static void t_cross_lane(void)
{
	static const char *const ops[] = { "add", "mul", "min", "max", "and", "or", "xor" };
	static const char *const kinds[] = { "red", "iscan", "escan" };
	static const char *const shuffles[] = { "shfl.idx", "shfl.xor", "shfl.up", "shfl.down", "bcast" };
	char src[16384], *p;

	for (unsigned si = 0; si < 3; si++) {
		unsigned row = 64, simd = 8u << si;
		struct env_dispatch d = { code_va, args_va, simd, { 90, 1, 1 }, { 45, 1, 1 } };
		char what[64];

		p = src + lane_operands(src, 4, "\tld.global.u64 r12, [r6+8]\n");
		for (unsigned o = 0; o < 7; o++) {
			for (unsigned k = 0; k < 3; k++) {
				p += sprintf(p, "\t%s.%s.u32 r%u, r10\n\t%s.%s.s32 r%u, r10\n"
					     "\t%s.%s.u64 r%u, r12\n", kinds[k], ops[o], row,
					     kinds[k], ops[o], row + 1, kinds[k], ops[o], row + 2);
				row += 4;
				if (o == 2 || o == 3) {
					p += sprintf(p, "\t%s.%s.s64 r%u, r12\n", kinds[k], ops[o], row);
					row += 2;
				}
			}
		}
		for (unsigned o = 0; o < 5; o++) {
			p += sprintf(p, "\t%s.u32 r%u, r10, r11\n\t%s.u64 r%u, r12, r11\n"
				     "\t%s.u64 r%u, r12, %u\n", shuffles[o], row, shuffles[o], row + 2,
				     shuffles[o], row + 4, 3 + o);
			row += 6;
		}
		sprintf(p, "off:\tendif\n\tend\n");
		if (row > 64 + DUMP_ROWS) {
			CHECK(0, "%u rows: more than the epilogue stores", row - 64);
			return;
		}
		if (!load_code(src))
			return;
		for (unsigned i = 0; i < 2048; i++)
			args[0][i] = args[1][i] = (uint64_t)h_rand() << 32 | h_rand();
		snprintf(what, sizeof(what), "cross-lane at simd %u", simd);
		both(&d, what);
	}
}

/*
 * f32 compares, minNum / maxNum, neg, abs, chains of arithmetic and the
 * reductions and scans of add, mul, min and max, on operands drawn from
 * NaNs (quiet, signalling,
 * negative), zeros of both signs, infinities, denormals and ordinary
 * values, in sub-groups with lanes off and partial ones.
 */
static void t_float(void)
{
	static const uint32_t special[] = {
		0x7fc00000, 0x7fa00001, 0xffc00123, 0x00000000, 0x80000000, 0x7f800000, 0xff800000,
		0x00000001, 0x807fffff, 0x3f800000, 0xbf800000, 0x40490fdb, 0x3f800000, 0xc0000000,
	};
	static const char *const cmps[] = { "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu",
					    "gtu", "geu", "ord", "unord" };
	static const char *const ops[] = { "add", "mul", "min", "max" };
	static const char *const kinds[] = { "red", "iscan", "escan" };
	uint32_t *a32[2] = { (uint32_t *)args[0], (uint32_t *)args[1] };
	char src[16384], *p;

	for (unsigned si = 0; si < 3; si++) {
		unsigned row = 64, simd = 8u << si;
		struct env_dispatch d = { code_va, args_va, simd, { 90, 1, 1 }, { 45, 1, 1 } };
		char what[64];

		p = src + lane_operands(src, 3, "");
		for (unsigned k = 0; k < 14; k++)
			p += sprintf(p, "\tfset.%s.f32 r%u, r10, r11\n", cmps[k], row++);
		p += sprintf(p, "\tfset.lt.f32 r%u, r10, 0x3f800000\n\tfmin.f32 r%u, r10, r11\n"
			     "\tfmax.f32 r%u, r10, r11\n\tfmin.f32 r%u, r10, 0x80000000\n"
			     "\tfneg.f32 r%u, r10\n\tfabs.f32 r%u, r11\n\tfadd.f32 r%u, r10, r11\n"
			     "\tfmul.f32 r%u, r10, r11\n",
			     row, row + 1, row + 2, row + 3, row + 4, row + 5, row + 6, row + 7);
		row += 8;
		/* Chains whose links keep the host's NaN (r20..r22, overwritten) and
		 * values that only_f32_arith_reads() must give the default NaN: the
		 * last link, and one a mov reads after an fmul before it is
		 * overwritten. */
		p += sprintf(p, "\tfadd.f32 r20, r10, r11\n\tfmul.f32 r21, r20, r11\n"
			     "\tffma.f32 r22, r21, r10, r20\n\tfsub.f32 r%u, r22, r10\n"
			     "\tfsub.f32 r23, r10, r11\n\tfmul.f32 r%u, r23, r23\n\tmov.u32 r%u, r23\n"
			     "\tmov.u32 r20, 0\n\tmov.u32 r21, 0\n\tmov.u32 r22, 0\n\tmov.u32 r23, 0\n",
			     row, row + 1, row + 2);
		row += 3;
		for (unsigned o = 0; o < 4; o++)
			for (unsigned k = 0; k < 3; k++)
				p += sprintf(p, "\t%s.%s.f32 r%u, r10\n", kinds[k], ops[o], row++);
		sprintf(p, "off:\tendif\n\tend\n");
		if (!load_code(src))
			return;
		for (unsigned i = 0; i < 4096; i++)
			a32[0][i] = a32[1][i] = h_rand() % 3 ? special[h_rand() % 14] : h_rand();
		snprintf(what, sizeof(what), "float at simd %u", simd);
		both(&d, what);
	}
}

/*
 * SLM atomics of every operation on u32 and s32, lanes colliding on a few
 * words (lane order decides), with lanes off, and then one lane past the
 * SLM's end or misaligned: the same values, SLM contents (copied out after
 * a barrier) and faults both ways.
 */
static void t_local_atomics(void)
{
	static const char *const ops[] = { "add", "sub", "min", "max", "and", "or", "xor", "xchg",
					   "cmpxchg", "inc", "dec" };
	static const char *const tails[] = { "", "\tset.eq.u32 r7, r2, 5\n\tif r7, in\n"
					     "\tmov.u32 r8, 2044\n\tatom.local.add.u32 r9, [r8], r10\nin:\tendif\n",
					     "\tset.eq.u32 r7, r2, 6\n\tif r7, in\n"
					     "\tmov.u32 r8, 2\n\tatom.local.or.u32 r9, [r8], r10\nin:\tendif\n" };
	char src[16384], *p;

	for (unsigned si = 0; si < 3; si++) {
		for (unsigned k = 0; k < 3; k++) {
			unsigned row = 64, simd = 8u << si;
			struct env_dispatch d = { code_va, args_va, simd, { 90, 1, 1 }, { 45, 1, 1 },
						  { 0, 0, 0 }, 2044 };
			char what[64];

			p = src + lane_operands(src, 3, "\tand.u32 r4, r2, 7\n\tshl.u32 r4, r4, 2\n");
			for (unsigned o = 0; o < 11; o++)
				p += sprintf(p, "\tatom.local.%s.%s r%u, [r4]%s\n", ops[o], o % 2 ? "s32" : "u32",
					     row++, o >= 9 ? "" : o == 8 ? ", r10, r11" : ", r10");
			p += sprintf(p, "%soff:\tendif\n\tbar\n\tmov.u32 r4, 0\n", tails[k]);
			/* Everything the work-group's atomics left, into the last rows. */
			for (unsigned w = 0; w < 8; w++)
				p += sprintf(p, "\tld.local.u32 r%u, [r4+%u]\n", 64 + DUMP_ROWS - 8 + w, 4 * w);
			sprintf(p, "\tend\n");
			if (!load_code(src))
				return;
			for (unsigned i = 0; i < 2048; i++)
				args[0][i] = args[1][i] = (uint64_t)(h_rand() % 5) << 32 | h_rand() % 7;
			snprintf(what, sizeof(what), "SLM atomics %u at simd %u", k, simd);
			both(&d, what);
		}
	}
}

/*
 * Block reads and writes of every element size and count, by sub-groups
 * whose blocks start every 1000 bytes (some cross a page), whole, partial
 * and with lanes off: the inline path and the handler's, the same rows
 * and memory both ways.
 */
static void t_blocks(void)
{
	static const char body[] =
		"\tld.block.u8 r64, [r6+40]\n\tld.block2.u16 r65, [r6+44]\n\tld.block4.u32 r68, [r6+48]\n"
		"\tld.block8.u32 r72, [r6+52]\n\tld.block4.u64 r80, [r6+56]\n\tld.block.u64 r88, [r6+60]\n"
		"\tst.block.u32 [r8+8192], r68\n\tst.block2.u64 [r8+9000], r80\n"
		"\tst.block8.u8 [r8+10000], r72\n\tst.block4.u16 [r8+11000], r68\n";
	char src[4096];

	for (unsigned si = 0; si < 3; si++) {
		for (unsigned k = 0; k < 2; k++) {
			unsigned simd = 8u << si;
			struct env_dispatch d = { code_va, args_va, simd, { 90, 1, 1 }, { 45, 1, 1 } };
			char what[64];

			snprintf(src, sizeof(src),
				 "\ts2r.u64 r0, sr.args\n\ts2r.u32 r2, sr.subgroup_id\n\tmul.u32 r2, r2, 1000\n"
				 "\tcvt.u64.u32 r6, r2\n\tadd.u64 r6, r6, r0\n\tmov.u64 r8, r6\n%s%s%s\tend\n",
				 k ? "\ts2r.u32 r3, sr.lane_id\n\tand.u32 r3, r3, 3\n\tif r3, off\n" : "", body,
				 k ? "off:\tendif\n" : "");
			if (!load_code(src))
				return;
			for (unsigned i = 0; i < 2048; i++)
				args[0][i] = args[1][i] = (uint64_t)h_rand() << 32 | h_rand();
			snprintf(what, sizeof(what), "blocks %u at simd %u", k, simd);
			both(&d, what);
		}
	}
}

/*
 * Nested if / else / endif and loops with break and cont on data-dependent
 * lanes, constructs no lane enters, and a lane off around all of it: the
 * mask stack run as host code against the interpreter's.
 */
static void t_structured(void)
{
	static const char body[] =
		"\tand.u32 r40, r10, 1\n\tif r40, e1\n\tmul.u32 r64, r10, 3\n"
		"e1:\telse n1\n\tadd.u32 r64, r10, 100\n\tand.u32 r41, r10, 2\n\tif r41, n2\n"
		"\txor.u32 r64, r64, 0xff\nn2:\tendif\nn1:\tendif\n"
		"\tmov.u32 r20, 0\n\tif r20, z1\n\tmov.u32 r65, 1\nz1:\telse z2\n\tmov.u32 r66, 2\nz2:\tendif\n"
		"\tmov.u32 r42, 0\n\tmov.u32 r43, 0\n\tand.u32 r44, r11, 7\n\tloop l1\n"
		"\tset.ge.u32 r45, r42, r44\n\tbreak r45\n\tand.u32 r46, r42, 1\n\tadd.u32 r42, r42, 1\n"
		"\tif r46, m1\n\tcont r46\n\tmov.u32 r43, 0xdead\nm1:\tendif\n\tsub.u32 r47, r42, 1\n"
		"\tmov.u32 r48, 0\n\tloop l2\n\tset.eq.u32 r49, r48, r47\n\tif r49, k1\n\tbreak r49\n"
		"k1:\tendif\n\tadd.u32 r43, r43, 1000\n\tadd.u32 r48, r48, 1\nl2:\tendloop\n"
		"\tadd.u32 r43, r43, r47\nl1:\tendloop\n\tmov.u32 r67, r43\n";
	char src[4096], operands[512];

	lane_operands(operands, 3, "");
	for (unsigned si = 0; si < 3; si++) {
		unsigned simd = 8u << si;
		struct env_dispatch d = { code_va, args_va, simd, { 90, 1, 1 }, { 45, 1, 1 } };
		char what[64];

		snprintf(src, sizeof(src), "%s%soff:\tendif\n\tend\n", operands, body);
		if (!load_code(src))
			return;
		for (unsigned i = 0; i < 2048; i++)
			args[0][i] = args[1][i] = (uint64_t)h_rand() << 32 | h_rand();
		snprintf(what, sizeof(what), "structured at simd %u", simd);
		both(&d, what);
	}
}

/*
 * Runs a loop around @exit (its exit test on r6, r9 every bit set), its
 * counts left in r64 and r65, on both models; returns the runs of the
 * translation's mask-stack code.
 */
static uint64_t loop_exit(const char *exit, const char *what)
{
	static const uint32_t shapes[][2] = { { 64, 64 }, { 77, 24 }, { 40, 8 } };
	struct weft_model_jit_stats before, after;
	char src[1024];

	snprintf(src, sizeof(src),
		 "\ts2r.u32 r2, sr.local_linear_id\n\tand.u32 r3, r2, 7\n\tmov.u32 r4, 0\n"
		 "\tmov.u32 r5, 0\n\tmov.u32 r9, 0xffffffff\n\tloop l1\n\tset.ge.u32 r6, r4, r3\n"
		 "%s\tadd.u32 r4, r4, 1\n\tset.eq.u32 r7, r4, 6\n\tbreak r7\n\tand.u32 r7, r4, 1\n"
		 "\tif r7, c1\n\tcont r7\n\tmov.u32 r5, 0xdead\nc1:\tendif\n\tand.u32 r8, r4, 2\n"
		 "\tcont r8\n\tadd.u32 r5, r5, r4\nl1:\tendloop\n\tmov.u32 r64, r4\n\tmov.u32 r65, r5\n"
		 "\tend\n", exit);
	weft_model_jit_stats(jit->m, &before);
	if (load_code(src))
		run_1d(shapes, sizeof(shapes) / sizeof(shapes[0]), what);
	weft_model_jit_stats(jit->m, &after);
	return after.cf_calls - before.cf_calls;
}

/*
 * break and cont whose loop is the mask stack's top entry, or the entry
 * under an if (a loop's exit test compiled as an if around a break), run
 * as host code; one whose loop is deeper down goes to the mask-stack code.
 * The same registers both ways, full, partial and masked sub-groups.
 */
static void t_loop_exits(void)
{
	uint64_t n;

	n = loop_exit("\tif r6, k1\n\tbreak r9\nk1:\tendif\n", "exit test in an if");
	CHECK(n == 0, "exit test in an if: %llu runs of the mask-stack code", (unsigned long long)n);
	n = loop_exit("\tbreak r6\n", "exit test");
	CHECK(n == 0, "exit test: %llu runs of the mask-stack code", (unsigned long long)n);
	n = loop_exit("\tif r6, k1\n\tif r6, k2\n\tbreak r9\nk2:\tendif\nk1:\tendif\n", "exit test two ifs deep");
	CHECK(n > 0, "exit test two ifs deep: no run of the mask-stack code");
}

/*
 * Runs the loaded kernel on 64 items in work-groups of 32 at SIMD 8, 16
 * and 32, its first two arguments @a0 and @a1; checks that both models agree.
 */
static void both_1d(uint64_t a0, uint64_t a1, const char *what)
{
	char at[128];

	for (unsigned si = 0; si < 3; si++) {
		struct env_dispatch d = { code_va, args_va, 8u << si, { 64, 1, 1 }, { 32, 1, 1 }, { 0 }, 0, 0 };

		args[0][0] = args[1][0] = a0;
		args[0][1] = args[1][1] = a1;
		snprintf(at, sizeof(at), "%s at simd %u", what, 8u << si);
		both(&d, at);
	}
}

/* One work-group of 60, then 64 items with 4 KiB of SLM, at the three widths. */
static void both_work_groups(const char *what)
{
	char at[128];

	for (unsigned si = 0; si < 3; si++) {
		for (unsigned items = 60; items <= 64; items += 4) {
			struct env_dispatch d = { code_va, args_va, 8u << si, { items, 1, 1 },
						  { items, 1, 1 }, { 0 }, 4096, 0 };

			snprintf(at, sizeof(at), "%s, simd %u, %u items", what, 8u << si, items);
			both(&d, at);
		}
	}
}

/*
 * Addresses the translator knows as functions of the lane (execution.rst,
 * "Known lanes"): the pointers loaded from the arguments, the ids of
 * sub-groups in one row of their work-group (1D, 2D rows as wide as the
 * sub-group or not) through cvt, shl, mul and add, consecutive accesses
 * (one crosses a page, one runs into an unmapped page), vector loads
 * whose lanes overlap, a uniform load
 * across a page, the rows at a barrier and in the epilogue, rows the
 * entry block leaves known read by later blocks, and one a later block
 * changes; then ids in x that wrap around 2^32 or 2^31 inside a
 * sub-group, where cvt's extension is not affine, stored by the entry
 * block or a later one: the same stores and faults both ways.
 */
static void t_known_lanes(void)
{
	static const struct { uint32_t g[2], l[2]; } shapes[] = {
		{ { 128, 1 }, { 64, 1 } }, { { 32, 4 }, { 32, 2 } }, { { 16, 8 }, { 16, 2 } },
		{ { 96, 1 }, { 24, 1 } },
	};
	static const char src[] =
		"\ts2r.u64 r0, sr.args\n"
		"\tld.global.v2.u64 r64, [r0+0]\n"
		"\tld.global.u64 r126, [r0+32]\n"
		"\ts2r.u32 r69, sr.global_id.x\n"
		"\ts2r.u32 r70, sr.global_id.y\n"
		"\ts2r.u32 r71, sr.global_size.x\n"
		"\tmul.u32 r72, r70, r71\n"
		"\tcvt.u64.u32 r74, r69\n"
		"\tcvt.u64.u32 r76, r72\n"
		"\tadd.u64 r78, r74, r76\n"
		"\tshl.u64 r80, r78, 2\n"
		"\tadd.u64 r128, r126, r80\n"
		"\tld.global.u32 r130, [r128+0]\n"
		"\tadd.u64 r82, r64, r80\n"
		"\tld.global.u32 r84, [r82+0]\n"
		"\tadd.u64 r86, r66, r80\n"
		"\tst.global.u32 [r86+0], r84\n"
		"\tbar\n"
		"\ts2r.u64 r0, sr.args\n"
		"\tld.global.v2.u64 r64, [r0+0]\n"
		"\tld.global.u32 r68, [r0+16]\n"
		"\ts2r.u32 r88, sr.local_id.x\n"
		"\tcvt.s64.s32 r90, r88\n"
		"\tshl.u64 r92, r90, 4\n"
		"\tadd.u64 r94, r64, r92\n"
		"\tld.global.v4.u32 r96, [r94+0]\n"
		"\tadd.u64 r100, r66, r92\n"
		"\tst.global.v4.u32 [r100+2048], r96\n"
		"\tsub.u64 r102, r94, r80\n"
		"\tneg.u32 r104, r71\n"
		"\tmul.u64 r106, r78, 12\n"
		"\tadd.u64 r106, r106, r64\n"
		"\tld.global.u32 r108, [r106+0]\n"
		"\tld.global.u64 r110, [r0+24]\n"
		"\tld.global.v2.u32 r112, [r0+8188]\n"
		"\tld.global.u32 r114, [r82+4096]\n"
		"\tld.global.u32 r115, [r82+4100]\n"
		"\tld.global.u32 r116, [r82+4104]\n"
		"\tld.global.u32 r117, [r82+4108]\n"
		"\tld.global.u32 r118, [r82+4112]\n"
		"\tst.global.u32 [r86+512], r118\n"
		"\ts2r.u32 r119, sr.local_id.y\n"
		"\tmov.u64 r120, r82\n"
		"\tshl.u64 r78, r78, 1\n"
		"\tbar\n"
		"\tadd.u64 r122, r120, 8\n"
		"\tld.global.u32 r124, [r122+0]\n"
		"\tadd.u64 r132, r86, 4\n"
		"\tst.global.u32 [r132+1024], r84\n"
		"\tshl.u64 r134, r78, 2\n"
		"\tadd.u64 r134, r134, r66\n"
		"\tst.global.u32 [r134+4096], r69\n"
		"\tend\n";
	/* Addresses from ids in x through cvt.u64.u32 and cvt.s64.s32, offset by the ids' start. */
#define WRAP_ADDRESSES \
		"\ts2r.u64 r0, sr.args\n" \
		"\tld.global.v2.u64 r2, [r0+0]\n" \
		"\tld.global.u64 r14, [r0+16]\n" \
		"\ts2r.u32 r6, sr.global_id.x\n" \
		"\tcvt.u64.u32 r8, r6\n" \
		"\tsub.u64 r8, r8, r4\n" \
		"\tshl.u64 r8, r8, 2\n" \
		"\tadd.u64 r10, r2, r8\n" \
		"\tcvt.s64.s32 r12, r6\n" \
		"\tsub.u64 r12, r12, r14\n" \
		"\tshl.u64 r12, r12, 2\n" \
		"\tadd.u64 r16, r2, r12\n"
#define WRAP_STORES "\tst.global.u32 [r10+0], r6\n\tst.global.u32 [r16+1024], r6\n\tend\n"
	/* Stored by the entry block, or by a later one, which finds the addresses in the rows. */
	static const char wrap[] = WRAP_ADDRESSES WRAP_STORES;
	static const char wrap_later[] = WRAP_ADDRESSES "\tbar\n" WRAP_STORES;
	static const char *const wraps[] = { wrap, wrap_later };
	/*
	 * Rows the entry block leaves known, read after an if: r10 no later
	 * instruction writes; r12 the if's block writes, when its uniform
	 * condition holds, and the later block itself, before the store
	 * crossing a page whose tail reads it again.
	 */
	static const char kept[] =
		"\ts2r.u64 r0, sr.args\n"
		"\tld.global.u64 r2, [r0+0]\n"
		"\tld.global.u32 r20, [r0+8]\n"
		"\ts2r.u32 r6, sr.global_id.x\n"
		"\tcvt.u64.u32 r8, r6\n"
		"\tshl.u64 r8, r8, 2\n"
		"\tadd.u64 r10, r2, r8\n"
		"\tadd.u64 r12, r2, r8\n"
		"\tif r20, .+16\n"
		"\tadd.u64 r12, r2, 2048\n"
		"\tendif\n"
		"\tst.global.u32 [r10+0], r6\n"
		"\tst.global.u32 [r12+1024], r6\n"
		"\tadd.u64 r12, r2, 3072\n"
		"\tst.global.u32 [r10+4088], r6\n"
		"\tst.global.u32 [r12+0], r6\n"
		"\tend\n";
	/*
	 * Vector loads whose lanes overlap (a[i] and a[i + 1] as one v2
	 * load, a[i + 1] to a[i + 4] as one v4; then of 64-bit elements,
	 * added as 64-bit values, and a copy of 64-bit vectors), in the entry
	 * block and in a later one: from a source that crosses a page inside
	 * a sub-group, or whose last lanes run into an unmapped page.
	 */
	static const char overlap[] =
		"\ts2r.u64 r0, sr.args\n"
		"\tld.global.v2.u64 r2, [r0+0]\n"
		"\ts2r.u32 r6, sr.global_id.x\n"
		"\tcvt.u64.u32 r8, r6\n"
		"\tshl.u64 r8, r8, 2\n"
		"\tadd.u64 r10, r2, r8\n"
		"\tadd.u64 r12, r4, r8\n"
		"\tld.global.v2.u32 r14, [r10+0]\n"
		"\tst.global.u32 [r12+0], r14\n"
		"\tst.global.u32 [r12+512], r15\n"
		"\tld.global.v4.u32 r16, [r10+4]\n"
		"\tst.global.u32 [r12+1024], r16\n"
		"\tst.global.u32 [r12+1536], r17\n"
		"\tst.global.u32 [r12+2048], r18\n"
		"\tst.global.u32 [r12+2560], r19\n"
		"\tbar\n"
		"\tld.global.v2.u32 r20, [r10+8]\n"
		"\tst.global.u32 [r12+3072], r20\n"
		"\tst.global.u32 [r12+3584], r21\n"
		"\tadd.u64 r22, r10, r8\n"
		"\tld.global.v2.u64 r24, [r22+0]\n"
		"\tadd.u64 r28, r24, r26\n"
		"\tst.global.u32 [r12+4096], r28\n"
		"\tst.global.u32 [r12+4608], r29\n"
		"\tshl.u64 r30, r8, 3\n"
		"\tadd.u64 r32, r2, r30\n"
		"\tadd.u64 r34, r4, r30\n"
		"\tld.global.v4.u64 r36, [r32+0]\n"
		"\tst.global.v4.u64 [r34+5120], r36\n"
		"\tend\n";
	static const uint32_t goff[] = { 0, 0xfffffff0u, 0x7ffffff0u, 0xffffff00u };
	uint64_t dst = dump_va + 98304;
	char what[96];

	if (!load_code(src))
		return;
	for (unsigned si = 0; si < 3; si++) {
		for (unsigned k = 0; k < 2 * sizeof(shapes) / sizeof(shapes[0]); k++) {
			unsigned simd = 8u << si, items = shapes[k / 2].g[0] * shapes[k / 2].g[1];
			struct env_dispatch d = { code_va, args_va, simd, { shapes[k / 2].g[0], shapes[k / 2].g[1], 1 },
						  { shapes[k / 2].l[0], shapes[k / 2].l[1], 1 }, { 0 }, 0, 0 };

			for (unsigned i = 0; i < 2048; i++)
				args[0][i] = args[1][i] = (uint64_t)h_rand() << 32 | h_rand();
			/* Consecutive words from 200 bytes before a page: one sub-group crosses it. */
			args[0][0] = args[1][0] = args_va + 8192 - 200;
			args[0][1] = args[1][1] = dst;
			/* The second time the last sub-group's words run into the unmapped page after the arguments. */
			args[0][4] = args[1][4] = k % 2 ? args_va + 16384 - 4 * items + 2 * simd : args_va + 4096;
			snprintf(what, sizeof(what), "known lanes, shape %u at simd %u", k, simd);
			both(&d, what);
		}
	}
	for (unsigned w = 0; w < 2; w++) {
		if (!load_bare(wraps[w]))
			return;
		for (unsigned si = 0; si < 3; si++) {
			for (unsigned k = 0; k < sizeof(goff) / sizeof(goff[0]); k++) {
				struct env_dispatch d = { code_va, args_va, 8u << si, { 64, 1, 1 }, { 32, 1, 1 },
							  { goff[k], 0, 0 }, 0, 0 };

				args[0][0] = args[1][0] = dst;
				args[0][1] = args[1][1] = goff[k];
				args[0][2] = args[1][2] = (uint64_t)(int64_t)(int32_t)goff[k];
				snprintf(what, sizeof(what), "ids in x from 0x%x at simd %u, stored by block %u",
					 goff[k], 8u << si, w);
				both(&d, what);
			}
		}
	}
	if (!load_bare(overlap))
		return;
	both_1d(args_va + 8192 - 100, dst, "overlapping vector loads across a page");
	both_1d(args_va + 16384 - 256, dst, "overlapping vector loads into an unmapped page");
	if (!load_bare(kept))
		return;
	for (unsigned cond = 0; cond < 2; cond++) {
		snprintf(what, sizeof(what), "rows known after an if taken %u times", cond);
		both_1d(dst, cond, what);
	}
}

/*
 * SLM accesses at addresses known as functions of the lane (the local id
 * in x times the access's size, plus a constant), and at one address in
 * every lane: in bounds, one lane past the SLM's end, and from bases whose
 * 32-bit lanes wrap around 2^32, in full and partial sub-groups.
 */
static void t_known_local(void)
{
	static const char fmt[] =
		"\ts2r.u32 r1, sr.local_id.x\n"
		"\tshl.u32 r2, r1, 2\n"
		"\tadd.u32 r3, r2, %d\n"
		"\tst.local.u32 [r3+0], r1\n"
		"\tbar\n"
		"\tld.local.u32 r64, [r3+4]\n"
		"\tld.local.u32 r65, [r3-4]\n"
		"\tmov.u32 r4, %d\n"
		"\tld.local.v2.u32 r66, [r4+8]\n"
		"\tld.local.u64 r68, [r4+16]\n"
		"\tshl.u32 r5, r1, 3\n"
		"\tadd.u32 r6, r5, %d\n"
		"\tld.local.u64 r70, [r6+0]\n"
		"\tld.local.v2.u32 r72, [r6+8]\n"
		"\tbar\n"
		"\tst.local.v2.u32 [r6+0], r64\n"
		"\tbar\n"
		"\tld.local.u32 r74, [r3+0]\n"
		"\tld.local.v4.u32 r76, [r4+0]\n"
		"\tend\n";
	/* The stores' base, the uniform loads' base, the 8-byte steps' base. */
	static const uint32_t bases[][3] = {
		{ 4, 0, 0 },
		{ 256, 4096 - 32, 1024 },
		{ 4, 4096 - 16, 0 },		/* ld.v2 [r4+8] ends at the end, [r4+16] past */
		{ 4, 4096 - 12, 0 },		/* ld.v2 [r4+8] one word past it */
		{ 4, 0xfffffff8, 0 },		/* [r4+8]: address 0 */
		{ 0xfffffffc, 0, 0 },		/* [r3+4]: address 0, [r3-4] past 2^32 - 8 */
		{ 0xfffffff0, 0, 0 },		/* lanes 0..3 past 2^32 - 16 */
		{ 4, 0, 4096 - 256 },		/* the last lane's u64 at 4088 at SIMD 32 */
		{ 4, 0, 4096 - 248 },		/* and one past at SIMD 32 */
		{ 4, 0, 0xffffff80 },		/* 8-byte lanes wrapping at SIMD 32 */
		{ 4096 - 4 * 32, 0, 0 },	/* [r3+4] one past at SIMD 32 */
	};
	char src[2048], what[96];

	for (unsigned b = 0; b < sizeof(bases) / sizeof(bases[0]); b++) {
		snprintf(src, sizeof(src), fmt, (int32_t)bases[b][0], (int32_t)bases[b][1], (int32_t)bases[b][2]);
		if (!load_code(src))
			return;
		snprintf(what, sizeof(what), "known SLM lanes, bases %u", b);
		both_work_groups(what);
	}
}

/*
 * SLM accesses at addresses the translator cannot know, loaded per lane
 * from memory, that step by the access's size from lane to lane at run
 * time, or are all the same (an SGEMM's tile rows and columns in its loop;
 * the optimizing tier's run-time tests, known_local_paths()): 4-, 8- and
 * 16-byte steps and one address of every width, in the block that
 * loads them and in later ones, loads and stores, a row of 4-byte steps
 * read by an 8-byte load, and a row that changes after an access at its
 * addresses; then one lane out of step, the last lanes past the SLM's end,
 * lanes wrapping around 2^32, and one address whose access ends past the
 * end or wraps.
 */
static void t_stepping_local(void)
{
	static const char src[] =
		"\ts2r.u64 r0, sr.args\n"
		"\ts2r.u32 r2, sr.local_linear_id\n"
		"\tcvt.u64.u32 r6, r2\n"
		"\tshl.u64 r6, r6, 5\n"
		"\tadd.u64 r6, r6, r0\n"
		"\tld.global.u32 r3, [r6+0]\n"
		"\tld.global.u32 r4, [r6+4]\n"
		"\tld.global.u32 r5, [r6+8]\n"
		"\tld.global.u32 r8, [r6+12]\n"
		"\tst.local.u32 [r3+0], r2\n"
		"\tld.local.u32 r64, [r3+0]\n"
		"\tbar\n"
		"\tld.local.u32 r65, [r3+4]\n"
		"\tld.local.u64 r66, [r4+0]\n"
		"\tld.local.v2.u32 r68, [r4+8]\n"
		"\tld.local.v4.u32 r72, [r5+0]\n"
		"\tld.local.v2.u32 r86, [r8+8]\n"
		"\tld.local.u64 r88, [r8+16]\n"
		"\tld.local.u32 r84, [r8+0]\n"
		"\tld.local.v4.u32 r92, [r8+0]\n"
		"\tbar\n"
		"\tst.local.v2.u32 [r4+0], r66\n"
		"\tbar\n"
		"\tst.local.v4.u32 [r5+0], r72\n"
		"\tld.local.v4.u32 r76, [r5+16]\n"
		"\tld.local.u32 r80, [r3+0]\n"
		"\tld.local.u64 r82, [r3+0]\n"
		"\tld.global.u32 r3, [r6+16]\n"
		"\tld.local.u32 r81, [r3+0]\n"
		"\tend\n";
	/* Lane 0's addresses of 4-, 8- and 16-byte steps, the one address of
	 * every lane; the lane put out of step. */
	static const struct { uint32_t base[4]; unsigned odd; } cases[] = {
		{ { 0, 0, 0, 64 }, 64 },
		{ { 1024, 4, 16, 4 }, 64 },
		{ { 0, 0, 0, 64 }, 5 },
		{ { 0, 0, 0, 64 }, 31 },
		{ { 4096 - 4 * 40, 0, 0, 64 }, 64 },	/* lanes 40 on past the end */
		{ { 0, 4096 - 8 * 60, 0, 64 }, 64 },	/* the v2 at +8 of the last lane past it */
		{ { 0, 0, 4096 - 16 * 60, 64 }, 64 },	/* the v4 at +16 of the last lane past it */
		{ { 0xfffffff0, 0, 0, 64 }, 64 },	/* lanes 0..3 past 2^32 - 16 */
		{ { 0, 0, 0, 4096 - 20 }, 64 },		/* the u64 at +16 past the end */
		{ { 0, 0, 0, 0xfffffff8 }, 64 },	/* +8 and +16 wrap to 0 and 8, +0 past */
	};
	uint32_t *a32[2] = { (uint32_t *)args[0], (uint32_t *)args[1] };
	char what[96];

	if (!load_code(src))
		return;
	for (unsigned c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		for (unsigned l = 0; l < 64; l++) {
			for (unsigned k = 0; k < 4; k++)
				a32[0][8 * l + k] = a32[1][8 * l + k] = cases[c].base[k] +
									   (k < 3 ? l << (k + 2) : 0) +
									   (l == cases[c].odd ? 4 : 0);
			/* The row changes in the block that knew its step: lanes reversed. */
			a32[0][8 * l + 4] = a32[1][8 * l + 4] = (63 - l) * 4;
		}
		snprintf(what, sizeof(what), "SLM lanes stepping at run time, case %u", c);
		both_work_groups(what);
	}
}

/*
 * SLM loads at sel(l >= d, known address, uniform address) (scan local's
 * "l >= d ? t[l - d] : t[0]"): picked lanes from the first, none or all,
 * the other address in bounds or past the end, picked lanes past the end
 * or wrapping around 2^32, 32- and 64-bit, in the entry block and in a
 * later one (where the rows are known in the optimizing tier only).
 */
static void t_picked_local(void)
{
	/* A global access in the entry block: its row variant knows the ids. */
	static const char fmt[] =
		"\ts2r.u64 r20, sr.args\n"
		"\tld.global.u64 r20, [r20+0]\n"
		"\ts2r.u32 r1, sr.local_id.x\n"
		"\tshl.u32 r2, r1, 2\n"
		"\tst.local.u32 [r2+0], r1\n"
		"\tshl.u32 r5, r1, 3\n"
		"\tmov.u32 r4, %d\n"
		"\tset.ge.u32 r7, r1, %d\n"
		"\tadd.u32 r8, r2, %d\n"
		"\tsel.u32 r9, r8, r4, r7\n"
		"\tld.local.u32 r64, [r9+0]\n"
		"\tbar\n"
		"\tset.ge.u32 r7, r1, %d\n"
		"\tadd.u32 r8, r2, %d\n"
		"\tsel.u32 r9, r8, r4, r7\n"
		"\tld.local.u32 r65, [r9+0]\n"
		"\tadd.u32 r10, r5, %d\n"
		"\tsel.u32 r11, r10, r4, r7\n"
		"\tld.local.u64 r66, [r11+0]\n"
		/* The loaded rows at the first argument + the item's id * 16
		 * (no epilogue: the optimizing tier's time goes with size). */
		"\ts2r.u32 r24, sr.global_id.x\n"
		"\tcvt.u64.u32 r22, r24\n"
		"\tshl.u64 r22, r22, 4\n"
		"\tadd.u64 r22, r22, r20\n"
		"\tst.global.u32 [r22+0], r64\n"
		"\tst.global.u32 [r22+4], r65\n"
		"\tst.global.u64 [r22+8], r66\n"
		"\tend\n";
	/* The other address, the first picked local id, the picked lanes' shift from l * 4. */
	static const int32_t picks[][3] = {
		{ 0, 1, -4 },
		{ 0, 5, -20 },
		{ 4088, 3, -12 },	/* the other address's u64 ends at the end */
		{ 0, 100, -400 },	/* no lane picked */
		{ 0, 0, 0 },		/* every lane */
		{ 4096, 1, -4 },	/* the other address past the end */
		{ 4092, 1, -4 },	/* its u64 one word past */
		{ 0, 2, -16 },		/* picked lanes 2 and 3 wrap around 2^32 */
		{ 0, 1, 4096 - 4 * 64 },	/* lane 63's u32 at the end, its u64 past */
	};
	char src[2048], what[96];

	for (unsigned k = 0; k < sizeof(picks) / sizeof(picks[0]); k++) {
		const int32_t *pk = picks[k];

		snprintf(src, sizeof(src), fmt, pk[0], pk[1], pk[2], pk[1], pk[2], 2 * pk[2]);
		if (!load_bare(src))
			return;
		args[0][0] = args[1][0] = args_va + 4096;
		snprintf(what, sizeof(what), "picked SLM lanes %u", k);
		both_work_groups(what);
	}
}

/* A sub-group spins on a global flag until a later one sets it; or forever; or another faults. */
static void t_spins(void)
{
	static const char *const tail[] = { "add.u32 r9, r8, 1\n\tst.global.u32 [r0+0], r9",
					    "nop", "st.global.u32 [r0+65536], r8" };

	for (unsigned si = 0; si < 3; si++) {
		for (unsigned k = 0; k < 3; k++) {
			char src[1024], what[64];
			struct env_dispatch d = { code_va, args_va, 8u << si, { 96, 1, 1 }, { 96, 1, 1 } };

			snprintf(src, sizeof(src),
				 "\ts2r.u64 r0, sr.args\n"
				 "\ts2r.u32 r8, sr.subgroup_id\n"
				 "\tmov.u32 r10, 0\n"
				 "\tset.eq.u32 r3, r8, 0\n"
				 "\tbra.none r3, other\n"
				 "spin:\n\tld.global.u32 r4, [r0+0]\n"
				 "\tadd.u32 r10, r10, 1\n"
				 "\tset.eq.u32 r5, r4, 0\n"
				 "\tbra.any r5, spin\n"
				 "\tst.global.u32 [r0+8], r10\n"
				 "\tend\n"
				 "other:\n\t%s\n"
				 "\tend\n", tail[k]);
			if (!load_bare(src))
				return;
			args[0][0] = args[1][0] = 0;
			args[0][1] = args[1][1] = 0;
			snprintf(what, sizeof(what), "spin %u at simd %u", k, 8u << si);
			both(&d, what);
		}
	}
}

/*
 * Runs of sub-groups (execution.rst, "A run of sub-groups"): a translated
 * call that ends one sub-group goes on with the work-group's next one.
 * First a kernel of one block, whose rows r64, r65 (read first) must be
 * stored at its end, r66, r67 (written first) need not.  Then one where
 * each sub-group reads r64 and r65 before writing them and writes r73 in
 * odd lanes only (the register file of the slot, as the previous sub-group
 * on it left it; r66..r71 its entry block overwrites, which a run need not
 * store), takes the ids and special registers, ends inside an if in its
 * second sub-group, in work-groups of 1 and 2 dimensions whose rows are not
 * multiples of the width and whose last sub-group and work-group are
 * partial.
 */
static void t_runs(void)
{
	static const struct { uint32_t g[3], l[3]; } shapes[] = {
		{ { 300, 1, 1 }, { 72, 1, 1 } }, { { 20, 15, 1 }, { 10, 6, 1 } },
		{ { 30, 10, 1 }, { 30, 2, 1 } }, { { 256, 1, 1 }, { 128, 1, 1 } },
	};
	static const char straight[] =
		"\ts2r.u32 r2, sr.local_linear_id\n"
		"\tadd.u32 r64, r64, r2\n"
		"\tadd.u32 r65, r65, 1\n"
		"\ts2r.u32 r66, sr.subgroup_id\n"
		"\tmov.u32 r67, r2\n"
		"\tadd.u32 r67, r67, r66\n"
		"\tend\n";
	static const char src[] =
		"\ts2r.u32 r2, sr.local_linear_id\n"
		"\ts2r.u32 r8, sr.subgroup_id\n"
		"\tadd.u32 r64, r64, r2\n"
		"\tadd.u32 r65, r65, 1\n"
		"\ts2r.u32 r66, sr.local_id.x\n"
		"\ts2r.u32 r67, sr.local_id.y\n"
		"\ts2r.u32 r68, sr.subgroup_size\n"
		"\ts2r.u32 r69, sr.group_id.x\n"
		"\ts2r.u32 r70, sr.group_id.y\n"
		"\ts2r.u32 r71, sr.global_id.x\n"
		"\tand.u32 r3, r2, 1\n"
		"\tif r3, even\n"
		"\tadd.u32 r72, r72, r2\n"
		"\tmov.u32 r73, r8\n"
		"even:\tendif\n"
		"\tset.eq.u32 r4, r8, 1\n"
		"\tif r4, other\n"
		"\tend\n"
		"other:\tendif\n"
		"\tend\n";

	for (unsigned v = 0; v < 2; v++) {
		if (!load_code(v ? src : straight))
			return;
		for (unsigned si = 0; si < 3; si++) {
			for (unsigned k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
				struct env_dispatch d = { code_va, args_va, 8u << si, { 0 }, { 0 }, { 0 }, 0, 0 };
				char what[64];

				memcpy(d.gsize, shapes[k].g, sizeof(d.gsize));
				memcpy(d.lsize, shapes[k].l, sizeof(d.lsize));
				snprintf(what, sizeof(what), "run %u, shape %u at simd %u", v, k, d.simd);
				both(&d, what);
			}
		}
	}
}

/*
 * A fault in the third of a work-group's four sub-groups, in the middle of
 * a run: the first two stored, the fourth never ran, the same fault block.
 */
static void t_run_fault(void)
{
	char src[1024];

	snprintf(src, sizeof(src),
		 "\ts2r.u64 r0, sr.args\n"
		 "\ts2r.u32 r2, sr.global_id.x\n"
		 "\ts2r.u32 r8, sr.subgroup_id\n"
		 "\tcvt.u64.u32 r6, r2\n"
		 "\tmul.u64 r6, r6, 4\n"
		 "\tadd.u64 r6, r6, r0\n"
		 "\tadd.u32 r9, r8, 1\n"
		 "\tst.global.u32 [r6+0], r9\n"
		 "\tset.eq.u32 r3, r8, 2\n"
		 "\tif r3, fine\n"
		 "\tmov.u64 r10, 0x%llx\n"
		 "\tst.global.u32 [r10+0], r2\n"
		 "fine:\tendif\n"
		 "\tst.global.u32 [r6+8192], r9\n"
		 "\tend\n", (unsigned long long)ro_va);
	if (!load_code(src))
		return;
	for (unsigned si = 0; si < 3; si++) {
		unsigned simd = 8u << si;
		struct env_dispatch d = { code_va, args_va, simd, { 8 * simd, 1, 1 }, { 4 * simd, 1, 1 } };
		char what[64];

		memset(args[0], 0, 16384);
		memset(args[1], 0, 16384);
		snprintf(what, sizeof(what), "fault in sub-group 2 at simd %u", simd);
		both(&d, what);
		/* Items' words: sub-group k's first at index k * simd / 2; the second stores at 1024 on. */
		CHECK(args[0][simd] == (3ull << 32 | 3) && args[0][3 * simd / 2] == 0 &&
		      args[0][1024 + simd / 2] == (2ull << 32 | 2) && args[0][1024 + simd] == 0,
		      "%s: the interpreter stored 0x%llx 0x%llx 0x%llx 0x%llx", what,
		      (unsigned long long)args[0][simd], (unsigned long long)args[0][3 * simd / 2],
		      (unsigned long long)args[0][1024 + simd / 2], (unsigned long long)args[0][1024 + simd]);
	}
}

/*
 * The watchdog fires between two sub-groups of a run: each sub-group loops
 * 1200 instructions (under its quantum), then takes a ticket from a counter
 * in memory, so the sub-groups' order and where the dispatch stopped are
 * in memory.  Then the same with a loop over its quantum (each sub-group
 * yields once, so runs end there and the order of turns shows).
 */
static void t_run_watchdog(void)
{
	static const unsigned trips[] = { 400, 1400 };
	void *h[2];
	uint64_t out = buf(65536 * 4, WEFT_PTE_VALID | WEFT_PTE_WRITE, h);
	uint32_t *ticket = h[0];

	for (unsigned t = 0; t < 2; t++) {
		for (unsigned si = 0; si < 3; si++) {
			struct env_dispatch d = { code_va, args_va, 8u << si, { 65536, 1, 1 }, { 256, 1, 1 } };
			char src[1024], what[64];

			snprintf(src, sizeof(src),
				 "\ts2r.u64 r0, sr.args\n"
				 "\ts2r.u32 r2, sr.global_id.x\n"
				 "\tmov.u32 r10, 0\n"
				 "loop:\tadd.u32 r10, r10, 1\n"
				 "\tset.lt.u32 r5, r10, %u\n"
				 "\tbra.any r5, loop\n"
				 "\tld.global.u32 r20, [r0+0]\n"
				 "\tadd.u32 r21, r20, 1\n"
				 "\tst.global.u32 [r0+0], r21\n"
				 "\tcvt.u64.u32 r6, r2\n"
				 "\tmul.u64 r6, r6, 4\n"
				 "\tmov.u64 r12, 0x%llx\n"
				 "\tadd.u64 r6, r6, r12\n"
				 "\tst.global.u32 [r6+0], r21\n"
				 "\tend\n", trips[t], (unsigned long long)out);
			if (!load_bare(src))
				return;
			args[0][0] = args[1][0] = 0;
			memset(h[0], 0, 65536 * 4);
			memset(h[1], 0, 65536 * 4);
			snprintf(what, sizeof(what), "watchdog after %u trips at simd %u", trips[t], d.simd);
			CHECK_EQ(both(&d, what), WEFT_QERR_WATCHDOG);
			CHECK(ticket[0] != 0 && ticket[65535] == 0, "%s: tickets %u .. %u", what, ticket[0],
			      ticket[65535]);
		}
	}
}

/*
 * A whole next sub-group of a run enters the entry block past the turn's
 * start with the entry block's count as its own (execution.rst, "A run of
 * sub-groups"): a kernel that is one block of 24 instructions, each
 * sub-group taking a ticket, in 131072 sub-groups, about 3.1 million
 * instructions, past the watchdog's 2 million.  The watchdog must stop
 * both models after the same ticket: a next sub-group whose instructions
 * go uncounted runs the dispatch to its end.  Then with a bar after the
 * block: a next sub-group of the first pass that starts at the bar
 * (next_first_turn_at_bar()) enters the same way.
 */
static void run_entry_count(bool bar)
{
	char src[1024], *p = src;

	p += sprintf(p, "\ts2r.u64 r0, sr.args\n"
		     "\tld.global.u32 r20, [r0+0]\n"
		     "\tadd.u32 r21, r20, 1\n"
		     "\tst.global.u32 [r0+0], r21\n");
	for (unsigned i = 0; i < 19; i++)
		p += sprintf(p, "\tadd.u32 r22, r22, %u\n", i);
	sprintf(p, "%s\tend\n", bar ? "\tbar\n" : "");
	if (!load_bare(src))
		return;
	for (unsigned si = 0; si < 3; si++) {
		struct env_dispatch d = { code_va, args_va, 8u << si, { 131072u << (3 + si), 1, 1 },
					  { 256, 1, 1 } };
		char what[64];

		args[0][0] = args[1][0] = 0;
		snprintf(what, sizeof(what), "one block%s at simd %u", bar ? " and a bar" : "", d.simd);
		CHECK_EQ(both(&d, what), WEFT_QERR_WATCHDOG);
		CHECK(args[1][0] != 0 && args[1][0] == args[0][0], "%s: tickets %llu interpreted, %llu translated",
		      what, (unsigned long long)args[0][0], (unsigned long long)args[1][0]);
	}
}

static void t_run_entry_count(void)
{
	for (unsigned bar = 0; bar < 2; bar++)
		run_entry_count(bar);
}

/*
 * Runs whose next sub-group has every lane on go on without a call
 * (execution.rst, "A run of sub-groups"): work-groups of up to 32
 * sub-groups, whole and partial, in 1 and 2 dimensions (rows narrower than
 * a sub-group: ids from the context), sub-groups of about 20, 470 and
 * 1820 instructions (runs that end with the work-group, or at the
 * watchdog's batch in its middle).  Each turn takes a ticket from a
 * counter in memory and records it with r64, which it adds to as the
 * previous sub-group on its slot left it, its local ids and its sub-group
 * id: the turns' order, the slots and the ids are in memory.
 */
static unsigned sub_groups(const struct env_dispatch *d)
{
	unsigned n = 0;

	for (uint32_t y = 0; y < d->gsize[1]; y += d->lsize[1])
		for (uint32_t x = 0; x < d->gsize[0]; x += d->lsize[0]) {
			uint32_t w = d->gsize[0] - x < d->lsize[0] ? d->gsize[0] - x : d->lsize[0];
			uint32_t h = d->gsize[1] - y < d->lsize[1] ? d->gsize[1] - y : d->lsize[1];

			n += (w * h + d->simd - 1) / d->simd;
		}
	return n;
}

static void t_run_inline(void)
{
	static const struct { uint32_t g[3], l[3]; } shapes[] = {
		{ { 1000, 1, 1 }, { 256, 1, 1 } }, { { 48, 40, 1 }, { 16, 16, 1 } },
		{ { 60, 20, 1 }, { 12, 10, 1 } },
	};
	static const unsigned trips[] = { 1, 150, 600 };
	void *h[2];
	uint64_t out = buf(65536, WEFT_PTE_VALID | WEFT_PTE_WRITE, h);

	for (unsigned t = 0; t < sizeof(trips) / sizeof(trips[0]); t++) {
		char src[2048];

		snprintf(src, sizeof(src),
			 "\tmov.u32 r10, 0\n"
			 "loop:\tadd.u32 r10, r10, 1\n"
			 "\tset.lt.u32 r5, r10, %u\n"
			 "\tbra.any r5, loop\n"
			 "\tmov.u64 r12, 0x%llx\n"
			 "\tld.global.u32 r20, [r12+0]\n"
			 "\tadd.u32 r21, r20, 1\n"
			 "\tst.global.u32 [r12+0], r21\n"
			 "\ts2r.u32 r2, sr.global_id.x\n"
			 "\ts2r.u32 r3, sr.global_id.y\n"
			 "\ts2r.u32 r4, sr.global_size.x\n"
			 "\tmul.u32 r3, r3, r4\n"
			 "\tadd.u32 r2, r2, r3\n"
			 "\tcvt.u64.u32 r6, r2\n"
			 "\tmul.u64 r6, r6, 32\n"
			 "\tadd.u64 r6, r6, r12\n"
			 "\tadd.u32 r64, r64, r2\n"
			 "\ts2r.u32 r8, sr.local_id.x\n"
			 "\ts2r.u32 r9, sr.local_id.y\n"
			 "\ts2r.u32 r11, sr.subgroup_id\n"
			 "\tst.global.u32 [r6+64], r20\n"
			 "\tst.global.u32 [r6+68], r64\n"
			 "\tst.global.u32 [r6+72], r8\n"
			 "\tst.global.u32 [r6+76], r9\n"
			 "\tst.global.u32 [r6+80], r11\n"
			 "\tend\n", trips[t], (unsigned long long)out);
		if (!load_bare(src))
			return;
		for (unsigned si = 0; si < 3; si++) {
			for (unsigned k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
				struct env_dispatch d = { code_va, args_va, 8u << si, { 0 }, { 0 }, { 0 }, 0, 0 };
				uint32_t *rec = h[1];
				char what[64];

				memcpy(d.gsize, shapes[k].g, sizeof(d.gsize));
				memcpy(d.lsize, shapes[k].l, sizeof(d.lsize));
				memset(h[0], 0, 65536);
				memset(h[1], 0, 65536);
				snprintf(what, sizeof(what), "%u trips, shape %u at simd %u", trips[t], k, d.simd);
				both(&d, what);
				/* Every sub-group took a ticket. */
				CHECK(rec[0] == sub_groups(&d), "%s: %u tickets, %u sub-groups", what, rec[0],
				      sub_groups(&d));
			}
		}
	}
}

/*
 * A turn takes a ticket from the counter at r0 and records its sub-group
 * (r8) + 1 at r0 + 64 + 4 * (ticket mod 1024): the turns' order in memory.
 */
#define TAKE_TICKET							\
	"\tld.global.u32 r20, [r0+0]\n\tadd.u32 r21, r20, 1\n\tst.global.u32 [r0+0], r21\n" \
	"\tand.u32 r22, r21, 1023\n\tcvt.u64.u32 r24, r22\n\tshl.u64 r24, r24, 2\n"	\
	"\tadd.u64 r24, r24, r0\n\tadd.u32 r23, r8, 1\n\tst.global.u32 [r24+64], r23\n"

/* When r14 is zero, 1500 trips of a loop: the turn's quantum runs out (it yields). */
#define SPIN_IF_R14_ZERO							\
	"\tset.eq.u32 r14, r14, 0\n\tand.u32 r15, r14, 1500\n\tmov.u32 r16, 0\n"		\
	"spin:\tadd.u32 r16, r16, 1\n\tset.lt.u32 r17, r16, r15\n\tbra.any r17, spin\n"

/*
 * Dispatch @d of a kernel of phases (t_barrier_runs(), t_barrier_inline())
 * as a grid @g of work-groups @l, both ways from zeroed arguments: it ends,
 * or stops at the watchdog when its phases go on @forever.
 */
static void phases_both(struct env_dispatch *d, const uint32_t *g, const uint32_t *l, bool forever,
			const char *what)
{
	uint32_t err;

	memcpy(d->gsize, g, sizeof(d->gsize));
	memcpy(d->lsize, l, sizeof(d->lsize));
	memset(args[0], 0, 8192);
	memset(args[1], 0, 8192);
	err = both(d, what);
	CHECK(err == (forever ? WEFT_QERR_WATCHDOG : 0), "%s: error %u", what, err);
}

/*
 * Runs through barriers (execution.rst, "A run of sub-groups"): a
 * translated turn that ends at bar goes on with the next turn of the
 * work-group's pass in the same call.  Each turn takes a ticket from a
 * counter in memory and records its sub-group there, so the order of the
 * turns is in memory.  Sub-group 1 reaches its barrier inside an if with
 * only its even lanes on (its lane masks are not the next one's) and
 * yields once before its first barrier (the others wait there for it
 * over passes), sub-groups 0 and 2 end after the first phase (the
 * others no longer wait for them, and the next pass starts with sub-group
 * 1), each item reads another sub-group's value from SLM after the barrier
 * and its own private memory at the end (its slot's), in partial
 * work-groups and sub-groups of 1 and 2 dimensions.  Then the same with
 * phases forever: the watchdog must stop it after the same turn both ways.
 */
static void t_barrier_runs(void)
{
	static const struct { uint32_t g[3], l[3]; } shapes[] = {
		{ { 300, 1, 1 }, { 72, 1, 1 } }, { { 20, 15, 1 }, { 10, 6, 1 } },
		{ { 128, 1, 1 }, { 128, 1, 1 } },
	};
	static const unsigned phases[] = { 3, 1u << 30 };
	char src[2048];

	for (unsigned v = 0; v < 2; v++) {
		snprintf(src, sizeof(src),
			 "\ts2r.u64 r0, sr.args\n"
			 "\ts2r.u32 r2, sr.local_linear_id\n"
			 "\ts2r.u32 r8, sr.subgroup_id\n"
			 "\ts2r.u32 r13, sr.lane_id\n"
			 "\tmul.u32 r4, r2, 4\n"
			 "\tmov.u32 r9, 0\n"
			 "\tmov.u32 r12, 0\n"
			 "\tmov.u32 r64, r2\n"
			 "\tst.scratch.u32 [r9+0], r2\n"
			 "phase:\n" TAKE_TICKET
			 "\tadd.u32 r65, r65, r21\n"
			 "\tst.local.u32 [r4+0], r64\n"
			 "\txor.u32 r14, r8, 1\n"
			 "\tor.u32 r14, r14, r12\n"
			 SPIN_IF_R14_ZERO
			 "\tset.eq.u32 r3, r8, 1\n"
			 "\tbra.any r3, divergent\n"
			 "\tbar\n"
			 "\tbra joined\n"
			 "divergent:\n\tand.u32 r5, r13, 1\n"
			 "\tset.eq.u32 r5, r5, 0\n"
			 "\tif r5, skip\n"
			 "\tbar\n"
			 "skip:\tendif\n"
			 "joined:\n\tld.local.u32 r22, [r4+128]\n"
			 "\tadd.u32 r66, r66, r22\n"
			 "\tbar\n"
			 "\tand.u32 r3, r8, 0xfffffffd\n"
			 "\tset.eq.u32 r3, r3, 0\n"
			 "\tbra.any r3, early\n"
			 "\tadd.u32 r12, r12, 1\n"
			 "\tadd.u32 r64, r64, r12\n"
			 "\tset.lt.u32 r7, r12, %u\n"
			 "\tbra.any r7, phase\n"
			 "\tld.scratch.u32 r67, [r9+0]\n"
			 "\tbra last\n"
			 "early:\tend\n"
			 "last:\tend\n", phases[v]);
		if (!load_code(src))
			return;
		for (unsigned si = 0; si < 3; si++) {
			for (unsigned k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
				struct env_dispatch d = { code_va, args_va, 8u << si, { 0 }, { 0 }, { 0 }, 4096, 16 };
				char what[64];

				snprintf(what, sizeof(what), "%s, shape %u at simd %u",
					 v ? "forever" : "3 phases", k, d.simd);
				phases_both(&d, shapes[k].g, shapes[k].l, v, what);
			}
		}
	}
}

/*
 * A translated turn at bar or end goes on with the next sub-group's turn
 * without a call into the core (execution.rst, "A run of sub-groups") when
 * that one has started, waits at no barrier, has not ended and has every
 * lane on, or at a bar of the first pass when it has not started, in a
 * dispatch with no private memory.  Even and odd sub-groups wait at
 * different bars (the next one resumes elsewhere), sub-group 8 + the
 * work-group's index ends at once (the next one takes its slot; r66 shows
 * which sub-group left the slot's file before), sub-group 2 ends after the first
 * phase (the one before it goes on through the call), sub-group
 * 3 yields in the second (the pass ends with sub-groups waiting and goes
 * on with it, then past the waiting ones through the call), and each
 * turn takes a ticket from a counter in memory and records its sub-group
 * there, so the turns' order is in memory; each item adds another's value
 * from SLM and its local id to r64, and at its end 1 to r65 as the
 * sub-group before it on its slot left it.  Partial work-groups and sub-groups, 1 and 2
 * dimensions, then phases forever for the watchdog.  Whole work-groups of
 * 8 sub-groups at SIMD 8 call the core at fewer than a third of their
 * bars and ends.
 */
static void t_barrier_inline(void)
{
	static const struct { uint32_t g[3], l[3]; } shapes[] = {
		{ { 256, 1, 1 }, { 64, 1, 1 } }, { { 300, 1, 1 }, { 72, 1, 1 } },
		{ { 20, 15, 1 }, { 10, 6, 1 } }, { { 288, 1, 1 }, { 96, 1, 1 } },
	};
	static const unsigned phases[] = { 4, 1u << 30 };
	uint32_t *tickets = (uint32_t *)args[1];
	char src[2048];

	for (unsigned v = 0; v < 2; v++) {
		snprintf(src, sizeof(src),
			 "\ts2r.u64 r0, sr.args\n"
			 "\ts2r.u32 r2, sr.local_linear_id\n"
			 "\ts2r.u32 r8, sr.subgroup_id\n"
			 "\tmov.u32 r66, r67\n"
			 "\ts2r.u32 r5, sr.group_id.x\n"
			 "\tadd.u32 r5, r5, 8\n"
			 "\tand.u32 r5, r5, 31\n"
			 "\tset.eq.u32 r3, r8, r5\n"
			 "\tbra.any r3, early\n"
			 "\tmul.u32 r4, r2, 4\n"
			 "\tmov.u32 r12, 0\n"
			 "\tmov.u32 r64, r2\n"
			 "phase:\n" TAKE_TICKET
			 "\tst.local.u32 [r4+0], r64\n"
			 "\txor.u32 r14, r8, 3\n"
			 "\txor.u32 r15, r12, 1\n"
			 "\tor.u32 r14, r14, r15\n"
			 SPIN_IF_R14_ZERO
			 "\tand.u32 r3, r8, 1\n"
			 "\tbra.any r3, odd\n"
			 "\tbar\n"
			 "\tbra joined\n"
			 "odd:\tbar\n"
			 "joined:\n\tld.local.u32 r22, [r4+128]\n"
			 "\tadd.u32 r64, r64, r22\n"
			 "\ts2r.u32 r9, sr.local_id.x\n"
			 "\tadd.u32 r64, r64, r9\n"
			 "\tadd.u32 r12, r12, 1\n"
			 "\tset.eq.u32 r3, r8, 2\n"
			 "\tbra.any r3, early\n"
			 "\tset.lt.u32 r7, r12, %u\n"
			 "\tbra.any r7, phase\n"
			 "early:\tadd.u32 r65, r65, 1\n"
			 "\tadd.u32 r67, r8, 1\n"
			 "\tend\n", phases[v]);
		if (!load_code(src))
			return;
		for (unsigned si = 0; si < 3; si++) {
			for (unsigned k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
				struct env_dispatch d = { code_va, args_va, 8u << si, { 0 }, { 0 }, { 0 }, 4096, 0 };
				struct weft_model_jit_stats before, after;
				char what[64];

				snprintf(what, sizeof(what), "%s, shape %u at simd %u",
					 v ? "forever" : "4 phases", k, d.simd);
				weft_model_jit_stats(jit->m, &before);
				phases_both(&d, shapes[k].g, shapes[k].l, v, what);
				weft_model_jit_stats(jit->m, &after);
				/* Each ticket's turn ends at a bar, each sub-group once at end. */
				if (!v && !k && d.simd == 8)
					CHECK(3 * (after.run_calls - before.run_calls) < tickets[0] + sub_groups(&d),
					      "%s: %llu calls at %u bars and %u ends", what,
					      (unsigned long long)(after.run_calls - before.run_calls), tickets[0],
					      sub_groups(&d));
			}
		}
	}
}

static void t_translated(void)
{
	/* The model that translates did translate: the test above compared something. */
	struct weft_model_jit_stats st;

	weft_model_jit_stats(jit->m, &st);
	printf("    translated %llu kernels in %.1f ms (%llu dispatches interpreted); instructions: "
	       "%llu native, %llu through the interpreter's handlers\n",
	       (unsigned long long)st.translated, st.translate_ns / 1e6,
	       (unsigned long long)st.interpreted, (unsigned long long)st.native,
	       (unsigned long long)st.helper);
	CHECK(st.translated >= 24, "only %llu kernels translated", (unsigned long long)st.translated);
	CHECK(st.native > 0 && st.helper > 0, "no native or no helper instructions");
	printf("    %llu translations evicted, %llu kept\n", (unsigned long long)st.evicted,
	       (unsigned long long)st.cached);
	CHECK(st.evicted >= st.translated - 8, "%llu of %llu translations evicted",
	      (unsigned long long)st.evicted, (unsigned long long)st.translated);
	CHECK(st.cached <= 8, "%llu translations kept", (unsigned long long)st.cached);
	weft_model_jit_stats(ref->m, &st);
	CHECK_EQ(st.translated, 0);
}

/*
 * The default mode (WEFT_MODEL_JIT unset): a kernel is translated once it
 * has been dispatched with WEFT_JIT_MIN_ITEMS (65536) work-items in all;
 * before that it interprets.
 */
static void t_default_mode(void)
{
	struct env *e = make("");
	struct weft_model_jit_stats st;
	uint64_t pieces = env_code(e, "\tnop\n\tend\n"), big = env_code(e, "\tnop\n\tnop\n\tend\n");
	uint64_t tiny = env_code(e, "\tend\n");
	struct env_dispatch d = { pieces, 0, 16, { 4096, 1, 1 }, { 64, 1, 1 } };

	for (unsigned k = 0; k < 15; k++)
		CHECK_EQ(env_dispatch(e, 0, &d), 0);
	weft_model_jit_stats(e->m, &st);
	CHECK(st.translated == 0, "translated after %u items", 15 * 4096);
	CHECK_EQ(env_dispatch(e, 0, &d), 0);
	weft_model_jit_stats(e->m, &st);
	CHECK(st.translated == 1, "%llu translations after %u items",
	      (unsigned long long)st.translated, 16 * 4096);
	d.code_va = tiny;
	d.gsize[0] = 64;
	for (unsigned k = 0; k < 8; k++)
		CHECK_EQ(env_dispatch(e, 0, &d), 0);
	d.code_va = big;
	d.gsize[0] = 65536;
	CHECK_EQ(env_dispatch(e, 0, &d), 0);
	weft_model_jit_stats(e->m, &st);
	CHECK(st.translated == 2, "%llu translations: want the large dispatch's, not the tiny ones'",
	      (unsigned long long)st.translated);
	env_destroy(e);
}

/*
 * Assembles a kernel that stores at @out + its global id * 4 lane 5's r6,
 * then sets its own r6 to 1.
 */
static uint64_t lane5_code(struct env *e, uint64_t out)
{
	char src[512];

	snprintf(src, sizeof(src),
		 "\ts2r.u32 r1, sr.global_id.x\n\tshfl.idx.u32 r7, r6, 5\n\tmov.u32 r6, 1\n"
		 "\tcvt.u64.u32 r2, r1\n\tshl.u64 r2, r2, 2\n\tmov.u64 r4, 0x%llx\n"
		 "\tadd.u64 r4, r4, r2\n\tst.global.u32 [r4+0], r7\n\tend\n", (unsigned long long)out);
	return env_code(e, src);
}

/*
 * A worker keeps its lane masks M from one work-group and dispatch to the
 * next (weft_exec.c, run_translated()), so whatever changes them unrecorded
 * must say so.  In the default mode: a translated dispatch of work-groups
 * of 4 items at SIMD 16, each a sub-group of lanes 0..3, an interpreted
 * one of a sub-group with every lane on, then both again.  Lane 5
 * is off in every sub-group of the translated dispatch, so its r6 stays
 * zero; with the interpreter's masks left in M the first work-group sets
 * it to 1, and the next one reads it.
 */
static void t_masks_after_interpreter(void)
{
	struct env *e = make("");
	uint32_t *big, *small;
	uint64_t big_va = env_buf(e, 65536 * 4, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&big);
	uint64_t small_va = env_buf(e, 4096, WEFT_PTE_VALID | WEFT_PTE_WRITE, (void **)&small);
	struct env_dispatch translated = { lane5_code(e, big_va), 0, 16, { 65536, 1, 1 }, { 4, 1, 1 } };
	struct env_dispatch interpreted = { lane5_code(e, small_va), 0, 16, { 16, 1, 1 }, { 16, 1, 1 } };
	struct weft_model_jit_stats st;

	for (unsigned k = 0; k < 2; k++) {
		unsigned wrong = 0;

		memset(big, 0xff, 65536 * 4);
		CHECK_EQ(env_dispatch(e, 0, &translated), 0);
		for (unsigned i = 0; i < 65536; i++)
			wrong += big[i] != 0;
		CHECK(!wrong, "dispatch %u: %u of 65536 items read a lane 5 that was on", k, wrong);
		CHECK_EQ(env_dispatch(e, 0, &interpreted), 0);
	}
	weft_model_jit_stats(e->m, &st);
	CHECK(st.translated == 1, "%llu translations", (unsigned long long)st.translated);
	for (unsigned i = 0; i < 16; i++)
		CHECK_EQ(small[i], 0);
	env_destroy(e);
}

/* The two models, and the buffers every test shares, mapped at the same VAs in both. */
static void setup(const char *opt_items)
{
	void *h[2];

	ref = make("0");
	jit = make_tiered("1", opt_items);
	code_va = buf(65536, WEFT_PTE_VALID | WEFT_PTE_EXEC, h);
	code[0] = h[0];
	code[1] = h[1];
	args_va = buf(16384, WEFT_PTE_VALID | WEFT_PTE_WRITE, h);
	args[0] = h[0];
	args[1] = h[1];
	dump_va = buf(MAX_ITEMS * 4 * DUMP_ROWS, WEFT_PTE_VALID | WEFT_PTE_WRITE, h);
	ro_va = buf(65536, WEFT_PTE_VALID, h);
}

static void teardown(void)
{
	env_destroy(jit);
	env_destroy(ref);
}

/*
 * The translator's calloc and realloc (hw/Makefile): the call numbered
 * alloc_fails_at since the count was zeroed fails.
 */
static atomic_uint alloc_calls, alloc_fails_at;

static bool alloc_fails(void)
{
	unsigned at = atomic_load(&alloc_fails_at);

	return at && atomic_fetch_add(&alloc_calls, 1) + 1 == at;
}

void *test_jit_calloc(size_t n, size_t size);
void *test_jit_calloc(size_t n, size_t size)
{
	return alloc_fails() ? NULL : calloc(n, size);
}

void *test_jit_realloc(void *p, size_t size);
void *test_jit_realloc(void *p, size_t size)
{
	return alloc_fails() ? NULL : realloc(p, size);
}

/*
 * Each of the translator's allocations fails in turn: a translation that
 * lacks memory leaves the kernel to the interpreter, and the blocks'
 * dataflow without its work arrays takes every row as written
 * (find_written_before()); either way the dispatch computes what the
 * interpreter does.  The kernel differs in an immediate from one failure
 * to the next, so that none is in the translations' cache.
 */
static void t_out_of_memory(void)
{
	struct env_dispatch d = { code_va, args_va, 16, { 64, 1, 1 }, { 32, 1, 1 }, { 0 }, 0, 0 };
	unsigned at, calls = 0;

	args[0][0] = args[1][0] = args_va + 4096;
	for (at = 1; at == 1 || calls >= at - 1; at++) {
		char src[512], what[64];

		snprintf(src, sizeof(src),
			 "\ts2r.u64 r0, sr.args\n"
			 "\tld.global.u64 r0, [r0+0]\n"
			 "\ts2r.u32 r2, sr.global_id.x\n"
			 "\tcvt.u64.u32 r6, r2\n"
			 "\tshl.u64 r6, r6, 2\n"
			 "\tadd.u64 r6, r6, r0\n"
			 "\ts2r.u32 r8, sr.lane_id\n"
			 "\tset.lt.u32 r9, r8, 4\n"
			 "\tif r9, out\n"
			 "\tadd.u32 r2, r2, %u\n"
			 "out:\tendif\n"
			 "\tst.global.u32 [r6+0], r2\n"
			 "\tend\n", at);
		if (!load_bare(src))
			return;
		snprintf(what, sizeof(what), "allocation %u of the translator fails", at);
		atomic_store(&alloc_calls, 0);
		atomic_store(&alloc_fails_at, at);
		both(&d, what);
		atomic_store(&alloc_fails_at, 0);
		calls = atomic_load(&alloc_calls);
	}
	printf("    each of a translation's %u callocs and reallocs failed in turn\n", calls);
	CHECK(calls >= 14, "only %u callocs and reallocs in a translation", calls);
}

/*
 * The page an access site of a run keeps (execution.rst, "Known lanes")
 * is forgotten when the TLB may change: each sub-group of a run loads its
 * items from page A, points A's page-table entry (mapped in the kernel's
 * address space) at page B, and loads from a page whose TLB slot is A's
 * (sub-group 0 from another page), which evicts A.  Sub-group 1 reads A
 * from the TLB, and its load that evicts A fills the TLB, so sub-group
 * 2's load of A misses, walks the tables and reads B, as the interpreter
 * does; a site that kept A's host page would still read A.  The same with
 * a block load of A.
 */
static void t_kept_pages(void)
{
	/* A's load, at each item's address (a block's at lane 0's). */
	static const char *const loads[2] = { "ld.global.u32", "ld.block.u32" };
	struct env *e[2] = { ref, jit };
	uint64_t table_gpa = 0, pte_off = 0, pt_va = 0, evict_va = 0, old_pte = 0, new_pte = 0;
	void *h[2], *o[2];
	uint64_t src = buf(8192, WEFT_PTE_VALID | WEFT_PTE_WRITE, h);
	uint64_t out = buf(4096, WEFT_PTE_VALID | WEFT_PTE_WRITE, o), evict_at = out + 2048;
	struct env_dispatch d = { code_va, args_va, 8, { 64, 1, 1 }, { 64, 1, 1 } };
	char code_src[2048];

	for (unsigned k = 0; k < 2; k++) {
		uint64_t *pte = env_pte(e[k], src, 3);
		uint64_t at = (uint64_t)((uint8_t *)pte - e[k]->mem), va = e[k]->next_va, ev;

		for (unsigned i = 0; i < 1024; i++) {
			((uint32_t *)h[k])[i] = 0xa0000000u + i;
			((uint32_t *)h[k])[1024 + i] = 0xb0000000u + i;
		}
		table_gpa = at & ~(uint64_t)(WEFT_MMU_PAGE_SIZE - 1);
		pte_off = at & (WEFT_MMU_PAGE_SIZE - 1);
		old_pte = *pte;
		new_pte = (old_pte & ~WEFT_PTE_ADDR_MASK) | ((old_pte & WEFT_PTE_ADDR_MASK) + WEFT_MMU_PAGE_SIZE);
		env_map(e[k], va, table_gpa, WEFT_MMU_PAGE_SIZE, WEFT_PTE_VALID | WEFT_PTE_WRITE);
		ev = va + 0x10000;
		while (weft_tlb_slot(ev >> WEFT_MMU_PAGE_SHIFT) != weft_tlb_slot(src >> WEFT_MMU_PAGE_SHIFT))
			ev += WEFT_MMU_PAGE_SIZE;
		env_map(e[k], ev, table_gpa, WEFT_MMU_PAGE_SIZE, WEFT_PTE_VALID);
		e[k]->next_va = ev + 0x10000;
		CHECK(!k || (va == pt_va && ev == evict_va), "the page table mapped at 0x%llx, 0x%llx",
		      (unsigned long long)va, (unsigned long long)pt_va);
		pt_va = va;
		evict_va = ev;
		for (unsigned sg = 0; sg < 8; sg++)
			((uint64_t *)o[k])[256 + sg] = sg ? ev : out;
	}
	CHECK(weft_tlb_slot(out >> WEFT_MMU_PAGE_SHIFT) != weft_tlb_slot(src >> WEFT_MMU_PAGE_SHIFT),
	      "the output's TLB slot is A's");
	for (unsigned l = 0; l < 2; l++) {
		snprintf(code_src, sizeof(code_src),
			 "\ts2r.u32 r2, sr.global_id.x\n"
			 "\tcvt.u64.u32 r6, r2\n"
			 "\tshl.u64 r6, r6, 2\n"
			 "\tmov.u64 r8, 0x%llx\n"
			 "\tadd.u64 r8, r8, r6\n"
			 "\t%s r64, [r8+0]\n"
			 "\tmov.u64 r10, 0x%llx\n"
			 "\tadd.u64 r10, r10, r6\n"
			 "\tst.global.u32 [r10+0], r64\n"
			 "\tmov.u64 r12, 0x%llx\n"
			 "\tmov.u64 r14, 0x%llx\n"
			 "\tst.global.u64 [r12+0], r14\n"
			 "\ts2r.u32 r20, sr.subgroup_id\n"
			 "\tcvt.u64.u32 r22, r20\n"
			 "\tshl.u64 r22, r22, 3\n"
			 "\tmov.u64 r16, 0x%llx\n"
			 "\tadd.u64 r16, r16, r22\n"
			 "\tld.global.u64 r24, [r16+0]\n"
			 "\tld.global.u32 r65, [r24+0]\n"
			 "\tend\n",
			 (unsigned long long)src, loads[l], (unsigned long long)out,
			 (unsigned long long)(pt_va + pte_off),
			 (unsigned long long)new_pte, (unsigned long long)evict_at);
		if (!load_bare(code_src))
			return;
		both(&d, loads[l]);
		/* Sub-groups 0 and 1 read A, every later one B (the scenario took place). */
		CHECK_EQ(((uint32_t *)o[0])[15], 0xa000000fu);
		CHECK_EQ(((uint32_t *)o[0])[16], 0xb0000010u);
		CHECK_EQ(((uint32_t *)o[0])[63], 0xb000003fu);
		for (unsigned k = 0; k < 2; k++)
			*env_pte(e[k], src, 3) = old_pte;
	}
}

/*
 * A translated turn that goes on in the interpreter (WEFT_JIT_INTERPRET)
 * leaves the worker's lane masks as the interpreter left them, whatever
 * mask the sub-group had when the translation returned.  With
 * WEFT_MODEL_JIT_RESUME=entry, sub-group 0's jump back to the loop's start
 * goes to the interpreter, which ends the sub-group inside an if with
 * lanes 0..3 on; sub-group 1 then starts with every lane on, as sub-group
 * 0 had when its translation returned, and the handler of its cvt.u16
 * must convert all 8 lanes, not those 4 (2ce9b24).
 */
static void t_interpret_fallback(void)
{
	static const char src[] =
		"\ts2r.u64 r0, sr.args\n"
		"\ts2r.u32 r2, sr.global_id.x\n"
		"\tcvt.u16.u32 r3, r2\n"
		"\tcvt.u64.u32 r6, r2\n"
		"\tshl.u64 r6, r6, 2\n"
		"\tadd.u64 r6, r6, r0\n"
		"\tst.global.u32 [r6+0], r3\n"
		"\tmov.u32 r5, 0\n"
		"\tloop done\n"
		"\tadd.u32 r5, r5, 1\n"
		"\tset.ge.u32 r7, r5, 2\n"
		"\tbreak r7\n"
		"done:\tendloop\n"
		"\ts2r.u32 r8, sr.lane_id\n"
		"\tset.lt.u32 r9, r8, 4\n"
		"\tif r9, out\n"
		"\tend\n"
		"out:\tendif\n"
		"\tend\n";
	struct env_dispatch d = { code_va, args_va, 8, { 64, 1, 1 }, { 32, 1, 1 }, { 0 }, 0, 0 };
	struct weft_model_jit_stats st;

	teardown();
	setenv("WEFT_MODEL_JIT_RESUME", "entry", 1);
	setup(NULL);
	unsetenv("WEFT_MODEL_JIT_RESUME");
	if (!load_bare(src))
		return;
	memset(args[0], 0, 16384);
	memset(args[1], 0, 16384);
	both(&d, "interpreted after a translated turn");
	weft_model_jit_stats(jit->m, &st);
	CHECK(st.translated == 1, "%llu kernels translated", (unsigned long long)st.translated);
	teardown();
	setup(NULL);
}

/*
 * The optimizing tier (LLVM's code generation with optimizations) against
 * the interpreter, on new models whose every translation it makes: the
 * memory accesses of every shape, lanes in different pages (whose pages
 * this tier looks up inline, lane_pages()), the cross-lane operations, the
 * structured control flow and the runs past bars again.
 */
static void t_optimizing_tier(void)
{
	struct weft_model_jit_stats st;

	teardown();
	setup("1");
	t_directed();
	t_cross_lane();
	t_structured();
	t_vectors();
	t_traces();
	t_pages();
	t_known_lanes();
	t_known_local();
	t_stepping_local();
	t_picked_local();
	t_kept_pages();
	t_barrier_inline();
	weft_model_jit_stats(jit->m, &st);
	printf("    optimized %llu of %llu kernels in %.1f ms\n", (unsigned long long)st.optimized,
	       (unsigned long long)st.translated, st.translate_ns / 1e6);
	CHECK(st.translated >= 8 && st.optimized == st.translated, "%llu of %llu kernels optimized",
	      (unsigned long long)st.optimized, (unsigned long long)st.translated);
}

/* Fresh models whose every translated dispatch streams (WEFT_MODEL_STREAM_ITEMS=1). */
static void streaming_models(const char *opt_items)
{
	teardown();
	setenv("WEFT_MODEL_STREAM_ITEMS", "1", 1);
	setup(opt_items);
	unsetenv("WEFT_MODEL_STREAM_ITEMS");
}

/*
 * Global stores of whole lines stream past the cache (execution.rst,
 * "Streaming stores") in every translated dispatch of models whose
 * WEFT_MODEL_STREAM_ITEMS is 1: the accesses of every shape and width
 * again, whole lines at a line's start or not, partial
 * lines, loads of what was just stored, faults in the middle of a
 * sub-group's lines, as the interpreter stores them.  Then the shared
 * models are again the ones t_optimizing_tier() left, which stream none.
 */
static void t_streams(void)
{
	streaming_models(NULL);
	t_directed();
	t_vectors();
	t_fault_mid_lane();
	t_known_lanes();
	t_traces();
	t_blocks();
	/* The optimizing tier compiles slowly: one kernel of every store's shape. */
	streaming_models("1");
	t_vectors();
	teardown();
	setup("1");
}

/* Checks that @e's model translated @translated kernels, @optimized of them by the optimizing tier. */
static void check_tiers(struct env *e, uint64_t translated, uint64_t optimized, const char *what)
{
	struct weft_model_jit_stats st;

	weft_model_jit_stats(e->m, &st);
	CHECK(st.translated == translated && st.optimized == optimized,
	      "%s: %llu translated, %llu optimized", what, (unsigned long long)st.translated,
	      (unsigned long long)st.optimized);
}

/*
 * A kernel goes to the optimizing tier once dispatched with
 * WEFT_MODEL_JIT_OPT_ITEMS work-items in all; before, the fast tier's
 * translation runs it.
 */
static void t_tier_threshold(void)
{
	struct env *e = make_tiered("1", "4096");
	struct env_dispatch d = { env_code(e, "\tnop\n\tend\n"), 0, 16, { 2048, 1, 1 }, { 64, 1, 1 } };

	CHECK_EQ(env_dispatch(e, 0, &d), 0);
	check_tiers(e, 1, 0, "after 2048 items");
	CHECK_EQ(env_dispatch(e, 0, &d), 0);
	CHECK_EQ(env_dispatch(e, 0, &d), 0);
	check_tiers(e, 2, 1, "after 6144 items");
	env_destroy(e);
}

/*
 * The counts are a kernel's, whatever its address: another kernel mapped
 * where one was (as a runtime reuses a freed buffer's address) counts from
 * nothing, and the first kernel loaded again elsewhere goes on with its
 * count.  3072 items a dispatch; the optimizing tier from 4096.
 */
static void t_tier_per_kernel(void)
{
	struct env *e = make_tiered("1", "4096");
	uint64_t other = env_code(e, "\tnop\n\tnop\n\tend\n");
	struct env_dispatch d = { env_code(e, "\tnop\n\tend\n"), 0, 16, { 3072, 1, 1 }, { 64, 1, 1 } };

	CHECK_EQ(env_dispatch(e, 0, &d), 0);
	check_tiers(e, 1, 0, "a kernel's first 3072 items");
	env_map(e, d.code_va, *env_pte(e, other, 3) & WEFT_PTE_ADDR_MASK, WEFT_MMU_PAGE_SIZE,
		WEFT_PTE_VALID | WEFT_PTE_EXEC);
	CHECK_EQ(env_dispatch(e, 0, &d), 0);
	check_tiers(e, 2, 0, "another kernel's first 3072 items at its address");
	d.code_va = env_code(e, "\tnop\n\tend\n");
	CHECK_EQ(env_dispatch(e, 0, &d), 0);
	check_tiers(e, 3, 1, "the first kernel's next 3072 items at a new address");
	env_destroy(e);
}

/*
 * ... or once its earlier dispatches executed WEFT_MODEL_JIT_OPT_INSTS
 * sub-group instructions in all, however few their work-items: 64 items
 * (4 sub-groups of 16) that loop 1000 times, 4 instructions a pass, are
 * about 16000 instructions a dispatch: the third is optimized, although
 * it runs the kernel loaded again at another address.
 */
static void t_tier_by_insts(void)
{
	static const char loop[] = "\tmov.u32 r2, 0\n\tloop l1\n\tadd.u32 r2, r2, 1\n"
				   "\tset.eq.u32 r3, r2, 1000\n\tbreak r3\nl1:\tendloop\n\tend\n";
	struct env *e;
	struct env_dispatch d = { 0, 0, 16, { 64, 1, 1 }, { 64, 1, 1 } };

	setenv("WEFT_MODEL_JIT_OPT_INSTS", "20000", 1);
	e = make_tiered("1", NULL);
	unsetenv("WEFT_MODEL_JIT_OPT_INSTS");
	d.code_va = env_code(e, loop);
	CHECK_EQ(env_dispatch(e, 0, &d), 0);
	CHECK_EQ(env_dispatch(e, 0, &d), 0);
	check_tiers(e, 1, 0, "after 2 dispatches");
	d.code_va = env_code(e, loop);
	CHECK_EQ(env_dispatch(e, 0, &d), 0);
	check_tiers(e, 2, 1, "after 3 dispatches");
	env_destroy(e);
}

/* Lines with @what in the LLVM IR of the translations dumped into @dir, which are removed. */
static unsigned ir_lines_dumped(const char *dir, const char *what)
{
	char cmd[256], line[64];
	unsigned n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "cat %s/*.ll | grep -c '%s'; rm -f %s/*", dir, what, dir);
	f = popen(cmd, "r");
	if (f && fgets(line, sizeof(line), f))
		n = strtoul(line, NULL, 10);
	if (f)
		pclose(f);
	return n;
}

/* Loads of (1 << @shift)-byte @op by every lane, lanes one after the other from @va and to the end of its 16 KiB. */
static void loads_at_end(char *src, size_t size, unsigned shift, const char *op, uint64_t va)
{
	snprintf(src, size,
		 "\ts2r.u32 r2, sr.lane_id\n"
		 "\tcvt.u64.u32 r6, r2\n"
		 "\tshl.u64 r6, r6, %u\n"
		 "\tmov.u64 r8, 0x%llx\n"
		 "\tadd.u64 r8, r8, r6\n"
		 "\t%s r64, [r8+0]\n"
		 "\t%s r68, [r8+%u]\n"
		 "\tend\n",
		 shift, (unsigned long long)va, op, op, 16384 - (32u << shift));
}

/*
 * A sub-group's vector load of 512 bytes (a float4 per lane at SIMD 32)
 * prefetches the next 512 bytes, line by line, in each of its vector
 * paths; one of 128 bytes (an int per lane) prefetches nothing, but in
 * the optimizing tier its two lines a step on (prefetch_by_step()); a
 * sub-group's block reads of the same spans (ld.block4.u32, ld.block.u32
 * at the first lane's address) alike.  The loads compute what the
 * interpreter's do, at a page's end too (whose next span is not
 * prefetched).
 */
static void t_prefetch(void)
{
	static const struct { unsigned shift; const char *op, *opt_items; bool prefetched; } acc[] = {
		{ 4, "ld.global.v4.u32", NULL, true }, { 2, "ld.global.u32", NULL, false },
		{ 2, "ld.global.u32", "1", true }, { 4, "ld.block4.u32", NULL, true },
		{ 2, "ld.block.u32", NULL, false }, { 2, "ld.block.u32", "1", true },
	};
	struct env_dispatch d = { code_va, args_va, 32, { 64, 1, 1 }, { 64, 1, 1 } };
	char dir[] = "/tmp/test_jit_dumpXXXXXX", src[512], what[96];
	struct env *e;

	if (!mkdtemp(dir)) {
		CHECK(false, "no directory for the dumps");
		return;
	}
	for (unsigned a = 0; a < sizeof(acc) / sizeof(acc[0]); a++) {
		struct env_dispatch alone = d;
		unsigned found;
		void *host;

		setenv("WEFT_MODEL_JIT_DUMP", dir, 1);
		e = make_tiered("1", acc[a].opt_items);
		unsetenv("WEFT_MODEL_JIT_DUMP");
		loads_at_end(src, sizeof(src), acc[a].shift, acc[a].op,
			     env_buf(e, 16384, WEFT_PTE_VALID | WEFT_PTE_WRITE, &host));
		alone.code_va = env_code(e, src);
		alone.args_va = 0;
		CHECK_EQ(env_dispatch(e, 0, &alone), 0);
		env_destroy(e);
		found = ir_lines_dumped(dir, "call void @llvm.prefetch");
		CHECK(!acc[a].prefetched ? found == 0 : acc[a].opt_items ? found >= 2 && found % 2 == 0 :
		      found >= 8 && found % 8 == 0, "%s: %u prefetches", acc[a].op, found);
		loads_at_end(src, sizeof(src), acc[a].shift, acc[a].op, args_va);
		if (!load_code(src))
			break;
		snprintf(what, sizeof(what), "%s, prefetched %u", acc[a].op, found);
		both(&d, what);
	}
	rmdir(dir);
}

/*
 * A block write of whole lines (st.block.u32 at SIMD 16 and 32, 64 and 128
 * bytes) can stream in a dispatch that streams, one of half a line (SIMD
 * 8) cannot; both tiers.
 */
static void t_stream_blocks(void)
{
	static const char src[] = "\ts2r.u64 r0, sr.args\n\tld.global.u64 r6, [r0+0]\n"
				  "\ts2r.u32 r2, sr.subgroup_id\n\tshl.u32 r2, r2, 7\n\tcvt.u64.u32 r4, r2\n"
				  "\tadd.u64 r6, r6, r4\n\ts2r.u32 r8, sr.lane_id\n\tst.block.u32 [r6+0], r8\n\tend\n";
	char dir[] = "/tmp/test_jit_dumpXXXXXX";

	if (!mkdtemp(dir)) {
		CHECK(false, "no directory for the dumps");
		return;
	}
	for (unsigned simd = 8; simd <= 32; simd *= 2) {
		for (unsigned tier = 0; tier < 2; tier++) {
			struct env_dispatch d = { 0, 0, simd, { 64, 1, 1 }, { 64, 1, 1 } };
			uint64_t *args;
			unsigned found;
			struct env *e;
			void *host;

			setenv("WEFT_MODEL_JIT_DUMP", dir, 1);
			setenv("WEFT_MODEL_STREAM_ITEMS", "1", 1);
			e = make_tiered("1", tier ? "1" : NULL);
			unsetenv("WEFT_MODEL_STREAM_ITEMS");
			unsetenv("WEFT_MODEL_JIT_DUMP");
			d.args_va = env_buf(e, 64, WEFT_PTE_VALID, (void **)&args);
			args[0] = env_buf(e, 8192, WEFT_PTE_VALID | WEFT_PTE_WRITE, &host);
			d.code_va = env_code(e, src);
			CHECK_EQ(env_dispatch(e, 0, &d), 0);
			for (unsigned i = 0; i < 64; i++)
				CHECK(((uint32_t *)host)[i / simd * 32 + i % simd] == i % simd,
				      "simd %u tier %u: item %u", simd, tier, i);
			env_destroy(e);
			found = ir_lines_dumped(dir, "!nontemporal");
			CHECK(simd == 8 ? found == 0 : found > 0, "simd %u tier %u: %u streaming stores", simd, tier,
			      found);
		}
	}
	rmdir(dir);
}

/* WEFT_MODEL_JIT_PERF_MAP=1: the translation is named in /tmp/perf-PID.map, with its size. */
static void t_perf_map(void)
{
	struct env_dispatch d = { 0, 0, 16, { 64, 1, 1 }, { 64, 1, 1 } };
	struct env *e;
	char path[64], line[256], name[128];
	unsigned long long addr, size;
	unsigned found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	unlink(path);
	setenv("WEFT_MODEL_JIT_PERF_MAP", "1", 1);
	e = make("1");
	unsetenv("WEFT_MODEL_JIT_PERF_MAP");
	d.code_va = env_code(e, "\tnop\n\tnop\n\tend\n");
	CHECK_EQ(env_dispatch(e, 0, &d), 0);
	env_destroy(e);
	f = fopen(path, "r");
	CHECK(f != NULL, "no %s", path);
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %llx %127s", &addr, &size, name) == 3 && addr && size > 1 &&
		    !strncmp(name, "weft_kernel_", 12) && strstr(name, "_simd16_fast"))
			found++;
	}
	if (f)
		fclose(f);
	unlink(path);
	CHECK(found == 1, "%u entries of the kernel in %s", found, path);
}

int main(void)
{
	setup(NULL);
	h_run("jit: random valid programs of every class, memory, registers and faults as interpreted",
	      t_random_programs);
	h_run("jit: every special register, SLM, scratch and global accesses of every shape, masked",
	      t_directed);
	h_run("jit: integer reductions and scans, shuffles by a register or an immediate, masked",
	      t_cross_lane);
	h_run("jit: f32 compares, min, max, neg, abs, reductions and scans on NaNs, zeros, infinities, masked",
	      t_float);
	h_run("jit: SLM atomics of every operation, colliding lanes, masked, out of bounds, misaligned",
	      t_local_atomics);
	h_run("jit: block reads and writes of every size and count, crossing pages, partial, masked",
	      t_blocks);
	h_run("jit: nested if, else, loops with break and cont, empty constructs, masked",
	      t_structured);
	h_run("jit: spins on a flag a later sub-group sets, forever (watchdog), or beside a fault",
	      t_spins);
	h_run("jit: runs of sub-groups in one call read the registers the previous one left, partial, 2D",
	      t_runs);
	h_run("jit: a fault in the middle sub-group of a work-group's run",
	      t_run_fault);
	h_run("jit: the watchdog between two sub-groups of a run; the turns of sub-groups that yield",
	      t_run_watchdog);
	h_run("jit: runs go on with whole sub-groups without a call: slots, ids, turns, partial, 2D",
	      t_run_inline);
	h_run("jit: a whole next sub-group of a run counts its entry block for the watchdog",
	      t_run_entry_count);
	h_run("jit: runs through barriers and passes: masks, yields, ended sub-groups, SLM, scratch, partial, 2D, watchdog",
	      t_barrier_runs);
	h_run("jit: runs go on with started sub-groups without a call: turns, resumed elsewhere, partial, 2D, watchdog",
	      t_barrier_inline);
	h_run("jit: global .v2/.v4 loads and stores, uniform and consecutive, crossing pages, masked",
	      t_vectors);
	h_run("jit: traces of blocks with every lane on: rows unstored across constructs, handlers, faults",
	      t_traces);
	h_run("jit: global accesses of lanes in different pages, masked, crossing pages, not writable",
	      t_pages);
	h_run("jit: global vectors whose lanes cross pages run element by element",
	      t_split_vectors);
	h_run("jit: break and cont leave their loop as host code, two constructs deep",
	      t_loop_exits);
	h_run("jit: consecutive global accesses of every width that fault in the middle lane",
	      t_fault_mid_lane);
	h_run("jit: addresses known as functions of the lane: ids in rows, pointers, tails, ids that wrap",
	      t_known_lanes);
	h_run("jit: a run's access sites forget the pages they kept when the TLB may change",
	      t_kept_pages);
	h_run("jit: SLM addresses known as functions of the lane: vector, uniform, past the end, wrapping",
	      t_known_local);
	h_run("jit: SLM loads at a selected known or uniform address: none, some or all lanes, bounds, wrapping",
	      t_picked_local);
	h_run("jit: SLM accesses at addresses that step at run time: widths, blocks, out of step, bounds, wrapping",
	      t_stepping_local);
	h_run("jit: the kernels above were translated, with native and helper instructions, "
	      "in a cache of 8 that evicted the rest",
	      t_translated);
	h_run("jit: by default a kernel translates once dispatched with 65536 work-items in all",
	      t_default_mode);
	h_run("jit: a translated dispatch after an interpreted one has its own lane masks",
	      t_masks_after_interpreter);
	h_run("jit: the optimizing tier's translations compute what the interpreter does",
	      t_optimizing_tier);
	h_run("jit: whole-line global stores that stream compute what the interpreter stores, both tiers",
	      t_streams);
	h_run("jit: a kernel goes to the optimizing tier once dispatched with its work-items in all",
	      t_tier_threshold);
	h_run("jit: a kernel's counts follow its instructions, not its address",
	      t_tier_per_kernel);
	h_run("jit: or once its earlier dispatches executed its instructions in all",
	      t_tier_by_insts);
	h_run("jit: WEFT_MODEL_JIT_PERF_MAP names each translation for perf, with its size",
	      t_perf_map);
	h_run("jit: a sub-group's vector or block load of 512 bytes prefetches the next span, one of 128 does not",
	      t_prefetch);
	h_run("jit: block writes of whole lines stream in a dispatch that streams, of half a line not",
	      t_stream_blocks);
	h_run("jit: a sub-group after one that went on in the interpreter has its own lane masks",
	      t_interpret_fallback);
	h_run("jit: a translation whose allocation fails leaves its kernel to the interpreter",
	      t_out_of_memory);
	teardown();
	return h_summary();
}
