// SPDX-License-Identifier: MIT
/*
 * The translator (weft_jit.h): a kernel binary becomes one LLVM function per
 * SIMD width, built through LLVM's C API, cleaned by early CSE and compiled
 * for the host CPU by ORC's LLJIT in one of two tiers: without
 * code-generation optimizations, where translation time comes first, or
 * with them for kernels dispatched with many work-items in all
 * (execution.rst, "The translator").
 *
 * - The kernel is found by following its control flow from the entry (both
 *   ways of every conditional jump) and split into basic blocks.  A turn
 *   starts, and a jump whose target is known only at run time goes, through
 *   a switch on the address; an address the translation does not hold goes
 *   back to the interpreter.
 * - Registers stay in the interpreter's register file between blocks; in a
 *   block each is an SSA <simd x i32> value from its first use, stored back
 *   at the block's end if assigned (struct gen), or, with every lane on, a
 *   value known as u + lane * step (struct lin: uniform values, the ids of
 *   a sub-group in one row of its work-group, addresses computed from
 *   them), whose accesses take only their vector or uniform path and leave
 *   for a tail of the block when that path does not apply.
 * - Integer ALU instructions of 32 and 64 bits, f32 add/sub/mul/fma,
 *   integer cvt between 32 and 64 bits, s2r of the lane id and the
 *   arguments, shuffles by an immediate (vector shuffles), and ld/st.global
 *   of 32/64 bits (a TLB lookup inlined: one page, TLB hit; consecutive
 *   lanes of a whole sub-group, or one address in every lane for a load)
 *   are host vector code.  Every other instruction, and the
 *   slow path of those loads and stores, is a call of the interpreter's own
 *   handler: one implementation of every semantic, so both ways compute the
 *   same bits.
 * - Control flow: bra is a direct jump; the structured constructs and the
 *   conditional branches call the interpreter's mask-stack code and jump
 *   where it says.  Taken backward jumps test the quantum as the
 *   interpreter does; end, bar, faults and the watchdog go through the same
 *   C code as the interpreter's.
 */
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Object.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "weft_isa_helpers.h"
#include "weft_jit.h"
#include "weft_model_priv.h"

#define MAX_WORDS	16384	/* code words a translated kernel may span */
#define CACHE_DEFAULT	256	/* kernels kept (WEFT_MODEL_JIT_CACHE) */
#define QUANTUM		4096	/* = SG_QUANTUM of weft_exec.c */
#define MAX_DST_ROWS	8	/* rows a translated load writes: ld.*.v4.u64 */
#define ADDRESS_SHAPES	5	/* lane steps address_shape() knows: 0, 4, 8, 16, 32 bytes */
#define PREFETCH_SPAN	256	/* the least span of a sub-group's load prefetch_next_span() takes */
#define PAGE_SITES	8	/* accesses of a translation that keep their last page (page_lookup()) */
#define STEP_SITES	8	/* loads of a translation that prefetch by their step (prefetch_by_step()) */
#define STEPS_AHEAD	2	/* ... that many sub-groups ahead */

/*
 * WEFT_MODEL_JIT_PROFILE=1: how often translated code ran each instruction
 * (opcode and type) through the interpreter's code: its handler (not
 * translated), the slow path of a translated access, or the mask-stack
 * code of control flow.  Counted per sub-group, over every model of the
 * process, printed at its exit: which instructions to translate next.
 */
enum { PROF_HANDLER, PROF_SLOW, PROF_CF, PROF_KINDS };
static bool profiling;
static _Atomic uint64_t fallbacks[PROF_KINDS][WEFT_ISA_OPCODE_COUNT][WEFT_TYPE_COUNT];

/* The interpreter's return codes (weft_exec.c). */
#define SG_ERROR	-1
#define SG_ENDED	0
#define SG_AT_BARRIER	1
#define SG_YIELDED	2
#define CF_NEXT		0
#define CF_JUMP		1

/* A kernel as found from its entry: @nw words, instructions where start[i]. */
struct kernel {
	unsigned simd, nw;
	uint64_t hash;
	uint64_t *words;
	uint8_t *start;
	struct weft_inst *insts;	/* per word index (valid where start[i]) */
};

/*
 * The two tiers: code generation without optimizations for most kernels,
 * with them for the long-running ones (execution.rst).
 */
enum { TIER_FAST, TIER_OPT, TIERS };

/*
 * A kernel that dispatches ran, found by its instructions wherever they
 * lay, with its counts (which pick its tier) and its translations.
 */
struct weft_jit_kernel {
	struct kernel k;
	uint64_t items;			/* work-items of its dispatches */
	uint64_t insts;			/* sub-group instructions of those that ended */
	struct {
		weft_jit_fn fn;			/* NULL: not translated by the tier */
		LLVMOrcResourceTrackerRef rt;	/* owns its machine code */
	} tier[TIERS];
	unsigned refs;			/* dispatches running it */
	uint64_t last_use;		/* weft_jit.uses at its last lookup */
};

struct weft_jit {
	pthread_mutex_t lock;
	LLVMOrcLLJITRef lljit[TIERS];
	LLVMTargetMachineRef tm;
	struct weft_jit_kernel **cache;
	unsigned ncache, max;
	uint64_t uses, serial;
	struct weft_model_jit_stats stats;
	/* WEFT_MODEL_JIT_PERF_MAP=1: each translation's machine code is named
	 * in /tmp/perf-PID.map, where perf report finds it (execution.rst). */
	bool perf_map;
	uint64_t code_bytes;	/* of the last function compiled, under lock */
	/* WEFT_MODEL_JIT_DUMP=DIR: each translation's Weft code, LLVM IR and
	 * host assembly are written there (execution.rst). */
	const char *dump_dir;
	/* WEFT_MODEL_JIT_RESUME=entry: the translations resume only at the
	 * kernel's entry; every other turn and every jump to a target known
	 * at run time goes on in the interpreter (execution.rst). */
	bool entry_only;
	_Atomic uint64_t split;	/* weft_model_jit_stats.split */
	_Atomic uint64_t cf_calls;	/* weft_model_jit_stats.cf_calls */
};

static void kernel_free(struct kernel *k)
{
	free(k->words);
	free(k->start);
	free(k->insts);
}

static uint64_t fnv(uint64_t h, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		h = (h ^ ((v >> (8 * i)) & 0xff)) * 0x100000001b3ull;
	return h;
}

/* Control flow that names a target (bra*, if, else, loop). */
static bool has_target(const struct weft_inst *in)
{
	return in->op == WEFT_OP_BRA || in->op == WEFT_OP_BRA_ANY || in->op == WEFT_OP_BRA_ALL ||
	       in->op == WEFT_OP_BRA_NONE || in->op == WEFT_OP_IF || in->op == WEFT_OP_ELSE ||
	       in->op == WEFT_OP_LOOP;
}

/*
 * Finds the kernel at @code: every instruction reachable from it, decoded.
 * -1 when a word does not fetch or decode, a target is outside the first
 * MAX_WORDS words or not a multiple of 8: the interpreter runs it then.
 */
static int discover(struct weft_mmu *mmu, uint64_t code, unsigned simd, struct kernel *k)
{
	unsigned *todo = malloc(MAX_WORDS * sizeof(*todo)), n = 0;
	int ret = -1;

	memset(k, 0, sizeof(*k));
	k->simd = simd;
	k->words = calloc(MAX_WORDS, sizeof(*k->words));
	k->start = calloc(MAX_WORDS, 1);
	k->insts = calloc(MAX_WORDS, sizeof(*k->insts));
	if (!todo || !k->words || !k->start || !k->insts)
		goto out;
	todo[n++] = 0;
	while (n) {
		unsigned i = todo[--n], nsucc = 0, succ[2];
		struct weft_inst *in = &k->insts[i];
		struct weft_fault f;
		uint64_t w[2];
		size_t nwords = 1;
		int64_t tgt;

		if (k->start[i])
			continue;
		if (i + 2 > MAX_WORDS || weft_mmu_read(mmu, code + 8ull * i, &w[0], 8, WEFT_ACC_EXEC, &f))
			goto out;
		if ((w[0] >> WEFT_ENC_LIT_SHIFT & 1) &&
		    weft_mmu_read(mmu, code + 8ull * (i + 1), &w[nwords++], 8, WEFT_ACC_EXEC, &f))
			goto out;
		if (weft_isa_decode(w, nwords, in) < 0)
			goto out;
		k->start[i] = 1;
		k->words[i] = w[0];
		if (in->nwords == 2)
			k->words[i + 1] = w[1];
		if (i + in->nwords > k->nw)
			k->nw = i + in->nwords;
		tgt = (int64_t)i + (int32_t)in->imm / 8;
		switch (weft_isa_ops[in->op].cls) {
		case WEFT_CLASS_END:
			break;
		case WEFT_CLASS_CF:
			if (has_target(in)) {
				if ((in->imm & 7) || tgt < 0 || tgt >= MAX_WORDS)
					goto out;
				succ[nsucc++] = (unsigned)tgt;
			}
			if (in->op != WEFT_OP_BRA)
				succ[nsucc++] = i + in->nwords;
			break;
		default:
			succ[nsucc++] = i + in->nwords;
		}
		for (unsigned s = 0; s < nsucc; s++) {
			if (n == MAX_WORDS)
				goto out;
			todo[n++] = succ[s];
		}
	}
	k->hash = fnv(0xcbf29ce484222325ull, simd);
	for (unsigned i = 0; i < k->nw; i++)
		k->hash = fnv(fnv(k->hash, k->words[i]), k->start[i]);
	ret = 0;
out:
	free(todo);
	if (ret)
		kernel_free(k);
	return ret;
}

static bool same_kernel(const struct kernel *a, const struct kernel *b)
{
	return a->hash == b->hash && a->simd == b->simd && a->nw == b->nw &&
	       !memcmp(a->words, b->words, a->nw * sizeof(*a->words)) &&
	       !memcmp(a->start, b->start, a->nw);
}

/* ---- which instructions become host vector code ---- */

static bool is32(unsigned t)
{
	return t == WEFT_TYPE_U32 || t == WEFT_TYPE_S32;
}

static bool is64(unsigned t)
{
	return t == WEFT_TYPE_U64 || t == WEFT_TYPE_S64;
}

bool weft_jit_native(const struct weft_inst *in)
{
	switch (in->op) {
	case WEFT_OP_END: case WEFT_OP_NOP: case WEFT_OP_BAR: case WEFT_OP_BRA:
		return true;
	case WEFT_OP_MOV: case WEFT_OP_SEL:
		return is32(in->t) || is64(in->t) || in->t == WEFT_TYPE_F32;
	case WEFT_OP_ADD: case WEFT_OP_SUB: case WEFT_OP_MUL: case WEFT_OP_AND: case WEFT_OP_OR:
	case WEFT_OP_XOR: case WEFT_OP_NOT: case WEFT_OP_NEG: case WEFT_OP_SHL: case WEFT_OP_SHR:
	case WEFT_OP_SAR: case WEFT_OP_MIN: case WEFT_OP_MAX: case WEFT_OP_SET_EQ:
	case WEFT_OP_SET_NE: case WEFT_OP_SET_LT: case WEFT_OP_SET_LE: case WEFT_OP_SET_GT:
	case WEFT_OP_SET_GE:
		return is32(in->t) || is64(in->t);
	case WEFT_OP_LD_GLOBAL: case WEFT_OP_ST_GLOBAL:
	case WEFT_OP_LD_LOCAL ... WEFT_OP_ST_SCRATCH_V4:
	case WEFT_OP_S2R:
		return true;
	case WEFT_OP_ATOM_LOCAL_ADD ... WEFT_OP_ATOM_LOCAL_DEC:
		return is32(in->t);
	case WEFT_OP_LD_BLOCK ... WEFT_OP_ST_BLOCK8:	/* the rows an instruction's paths join */
		return weft_isa_ops[in->op].vec * (weft_isa_type_bits(in->t) == 64 ? 2 : 1) <= MAX_DST_ROWS;
	case WEFT_OP_FADD: case WEFT_OP_FSUB: case WEFT_OP_FMUL: case WEFT_OP_FFMA:
	case WEFT_OP_FMIN: case WEFT_OP_FMAX: case WEFT_OP_FNEG: case WEFT_OP_FABS:
	case WEFT_OP_FSET_EQ ... WEFT_OP_FSET_UNORD:
		return in->t == WEFT_TYPE_F32;
	case WEFT_OP_CVT:
		return (is32(in->t) || is64(in->t)) && (is32(in->t2) || is64(in->t2));
	case WEFT_OP_SHFL_IDX: case WEFT_OP_SHFL_XOR: case WEFT_OP_SHFL_UP: case WEFT_OP_SHFL_DOWN:
	case WEFT_OP_BCAST: {
		unsigned bits = weft_isa_type_bits(in->t ? in->t : WEFT_TYPE_U32);

		return bits == 32 || bits == 64;
	}
	case WEFT_OP_RED_ADD ... WEFT_OP_ESCAN_XOR:
		if (in->t == WEFT_TYPE_F32)	/* add, mul, min, max */
			return ((in->op - WEFT_OP_RED_ADD) & 7) <= WEFT_OP_RED_MAX - WEFT_OP_RED_ADD;
		return ((in->op - WEFT_OP_RED_ADD) & 7) <= WEFT_OP_RED_XOR - WEFT_OP_RED_ADD &&
		       (is32(in->t) || is64(in->t));
	default:
		return false;
	}
}

/* The loads and stores emit_mem() translates (weft_jit_native() says which). */
static bool is_mem(const struct weft_inst *in)
{
	return in->op == WEFT_OP_LD_GLOBAL || in->op == WEFT_OP_ST_GLOBAL ||
	       (in->op >= WEFT_OP_LD_LOCAL && in->op <= WEFT_OP_ST_SCRATCH_V4);
}

/* ---- IR generation ---- */

/*
 * A row whose value is known as a function of the lane: lane l holds the
 * low (or @hi: the high) 32 bits of u + l * step, in 64-bit arithmetic (u,
 * step: i64 scalars of the translation).  Uniform values (step 0: kernel
 * arguments, sizes, the pointers loaded from the arguments) and the ids
 * of a sub-group in one row of its work-group (step 1), and what add,
 * sub, mul by a uniform, shl and cvt make of them, are known so: an
 * access at such an address needs no <simd x i64> address and no test of
 * its lanes' shape, and the row's vector is built only where something
 * reads it as one (most often the stores of the rows at the block's
 * exits).  A 32-bit row's @zext / @sext: the row's lanes, zero- or
 * sign-extended to 64 bits, are still (extended low half of u) + l *
 * step: no lane wraps around 2^32 (2^31), so cvt keeps the form.
 */
struct lin {
	LLVMValueRef u, step;
	bool hi, zext, sext;
};

/*
 * A 32-bit row that sel made, with every lane on, of a known address and
 * a uniform one: cond ? u + lane * step : other (i64 scalars, cond an
 * <simd x i1>), the low 32 bits of each.  A local load at it is one
 * masked vector load (picked_local_path()): scan local's
 * "l >= d ? t[l - d] : t[0]".  NULL cond: not known.
 */
struct pick {
	LLVMValueRef cond, u, step, other;
};

/*
 * A 32-bit row that strided_load() filled, with every lane on, with its
 * lanes' element @j of the vector @all it loaded (lane l's at l * @stride
 * + j).  The row's vector is picked out of @all only where something reads
 * it: a store of the same elements (a copy) then stores @all as it was
 * loaded (interleave()), and the picks are left to the paths that store
 * the row.  NULL all: not known.
 */
struct strand {
	LLVMValueRef all;
	unsigned j, stride;
};

/*
 * The mask stack as a trace's constructs left it (next_or_jump()): @sp, the
 * depth, an i32; the @n entries on top that the trace pushed (or an entry
 * they changed), their kind, saved and alt masks (i32s), target (i64) and
 * index (@at, an i32).  NULL sp: not known, loaded from the sub-group's
 * state.  An entry still @unstored is stored only on the ways out of the
 * trace (store_known_entries()): one that its endif pops first, as in a
 * stencil's interior, is stored nowhere.
 */
#define KNOWN_ENTRIES	8
struct known_stack {
	LLVMValueRef sp;
	unsigned n;
	struct {
		uint8_t kind;
		bool unstored;
		LLVMValueRef saved, alt, target, at;
	} top[KNOWN_ENTRIES];
};

/* What a row the entry block leaves known keeps of its struct lin (gen.after_entry). */
struct kept {
	LLVMValueRef step;	/* a constant; NULL: not known */
	bool pair, zext, sext;	/* a 64-bit value in the row and the next */
};

/* A set of rows, a bit each. */
struct rows {
	uint64_t bits[WEFT_NUM_REGS / 64];
};

static bool has_row(const struct rows *s, unsigned r)
{
	return s->bits[r / 64] >> (r % 64) & 1;
}

static void add_row(struct rows *s, unsigned r)
{
	s->bits[r / 64] |= 1ull << (r % 64);
}

/* @s |= @t; whether @s grew. */
static bool add_rows(struct rows *s, const struct rows *t)
{
	bool grew = false;

	for (unsigned w = 0; w < WEFT_NUM_REGS / 64; w++) {
		grew |= (t->bits[w] & ~s->bits[w]) != 0;
		s->bits[w] |= t->bits[w];
	}
	return grew;
}

/* A block's variant left at instruction @i for @bb (speculate_global()). */
struct tail {
	unsigned i;
	LLVMBasicBlockRef bb;
};

#define MAX_TAILS	8	/* tails of one block's variant */
/* Instructions the tails of one variant may emit again in all. */
#define TAIL_INSTS	128
/* Instructions of a block that gets a row variant: a kernel's hot blocks are short,
 * and a long block's third copy costs more to compile than it saves. */
#define ROW_VARIANT_INSTS	64
/* Instructions of later blocks one block's variant for all lanes on may go on
 * with (a trace, next_or_jump()), and all its traces together at most
 * TRACE_SHARE times the kernel's (translation time grows with the copies). */
#define TRACE_INSTS	64
#define TRACE_SHARE	1

/*
 * Registers live in the register file between basic blocks (of the Weft
 * code: straight runs between jump targets and control flow).  Inside one,
 * each register is loaded at its first use and kept as an SSA value; the
 * ones it assigned are stored back when it ends, and before a helper that
 * reads them.  So the IR has no register allocas and no phis over the
 * register file, which keeps LLVM's work linear in the kernel's size.
 */
struct gen {
	LLVMContextRef C;
	LLVMModuleRef mod;
	LLVMBuilderRef b;
	const struct kernel *k;
	unsigned NL;
	LLVMTypeRef i1, i8, i32, i64, ptr, vi32, vi64, exec_ty, cf_ty;
	LLVMValueRef fn, x, R, Mp, maskp, pcp, base, mmu, c, countp, target, lanes_tmp;
	LLVMValueRef elems_tmp;			/* element_pointers()'s pointers */
	_Atomic uint64_t *split;		/* weft_jit.split */
	_Atomic uint64_t *cf_calls;		/* weft_jit.cf_calls */
	LLVMValueRef stream;			/* the call's whole-line global stores stream (an i1) */
	LLVMValueRef val[WEFT_NUM_REGS];	/* the block's value of each row, NULL: in the file */
	bool dirty[WEFT_NUM_REGS];		/* assigned in the block, not yet stored */
	LLVMValueRef on;			/* the block's active lanes, NULL: not loaded yet */
	/* Whether the 64-bit addresses in rows r, r+1 are all the same, or
	 * step by 4, 8, 16 or 32 bytes from lane to lane (an i1 each,
	 * address_shape()), NULL: not computed in this block. */
	LLVMValueRef contig[WEFT_NUM_REGS][ADDRESS_SHAPES];
	/* The 64-bit value in rows r, r+1 as one <simd x i64>, valid while
	 * the rows' values are still wide_lo[r], wide_hi[r] (its halves, or
	 * the rows it was joined from): 64-bit code (addresses) then uses it
	 * as it is instead of splitting and joining the halves at every
	 * instruction, which the fast tier's code generation would keep. */
	LLVMValueRef wide[WEFT_NUM_REGS], wide_lo[WEFT_NUM_REGS], wide_hi[WEFT_NUM_REGS];
	/* The row's value in every lane as a function of the lane, known at
	 * translation time (struct lin), NULL u: not known. */
	struct lin lin[WEFT_NUM_REGS];
	struct pick pick[WEFT_NUM_REGS];
	struct strand strand[WEFT_NUM_REGS];
	uint8_t *leader;			/* word index starts a basic block */
	LLVMBasicBlockRef *blk, start, dispatch, exit;
	LLVMValueRef dispatch_phi, exit_phi;
	/*
	 * A whole next sub-group of a run (next_whole_sub_group()) goes on at
	 * turn, past start's loads of the context, with what differs for it
	 * as the incoming values of turn's phis (s, maskp, pcp, whole, R,
	 * turn_pc: to_turn()), and straight to the entry block's variant for
	 * all lanes on (entry_full); the next turn of a sub-group that has
	 * started (next_started_turn()) goes from turn to where it resumes.
	 */
	LLVMBasicBlockRef turn, entry_full;
	LLVMValueRef s, whole, turn_pc, pendingp, livep;
	bool slow_path;				/* emitting a translated access's slow path */
	bool full;				/* emitting a block's variant for all lanes on */
	bool by_handlers;			/* emitting a block's variant of handler calls */
	uint8_t *nested;			/* word index lies inside an if or loop construct */
	/* Rows a sub-group with every lane on overwrites at its start
	 * (find_entry_kills()): no one reads them, so the ways on to a whole
	 * next sub-group of the run in the same slot store none of them. */
	bool entry_kills[WEFT_NUM_REGS];
	bool entry_only;			/* WEFT_MODEL_JIT_RESUME=entry */
	bool inline_pages;			/* lane_pages() instead of lane_pointers() */
	/* Emitting a block's variant for a sub-group with every lane on whose
	 * items lie in one row of its work-group (emit_block()): its local ids
	 * are row_id[d] + the lane in x, row_id[d] in y and z, its global ids
	 * the work-group's origin + those, row_gid[0] + the lane in x when the
	 * guard computed it (i64 scalars of 32-bit values). */
	bool row;
	LLVMValueRef row_id[3], row_gid[3];
	bool row_variants;			/* the optimizing tier emits that variant */
	/* With row variants: sub_group_origin() of the turn's sub-group, computed
	 * once at the turn's start, which every block's way passes. */
	LLVMValueRef origin[3], origin_ok;
	/*
	 * The rows the entry block leaves known (struct kept: each later block
	 * reads u from lane 0 of the file) that no instruction after it
	 * writes, as its variant for all lanes on ([0]) and its row variant
	 * ([1]) leave them, and the ids its row guard tested: a later block's
	 * variant of the same kind knows them too (known_after_entry()).
	 */
	struct kept after_entry[2][WEFT_NUM_REGS];
	unsigned entry_ids;
	/* Per block (by its first word): rows some instruction may have
	 * written on a way from the entry block's end to the block's start
	 * (find_written_before()); the block's variants know only the
	 * others.  written_now: those of the variant being emitted, its
	 * tails adding what the block wrote before them. */
	struct rows *written_before;
	struct rows written_now;
	/* Whether a translated access may leave the block's variant for its
	 * tail (speculate_global()), and the tails it left for, emitted after it. */
	bool speculate;
	unsigned ntails, tail_insts;
	struct tail tails[MAX_TAILS];
	/*
	 * In the optimizing tier (traces), a variant for all lanes on goes
	 * on with the blocks its constructs lead to, as long as every lane
	 * is on (or to a block of a single else or endif), with the rows it
	 * assigned still in host registers (next_or_jump()): tracing while
	 * it does, deferred while the construct ending its block leaves
	 * them unstored on that way.
	 * trace_left: instructions the variant may still trace,
	 * traced_left: the kernel's.  entry_note: the entry block's variant,
	 * whose rows note_after_entry() takes at its end, not at its trace's.
	 */
	bool traces, tracing, deferred, entry_note;
	unsigned trace_left, traced_left, entry_note_ids;
	struct known_stack cf;
	/* page_lookup(): each site's last page (allocas: its page number,
	 * UINT64_MAX when none, and its host address), and the calls of C code
	 * after which every site forgets its page (forget_pages()). */
	LLVMBasicBlockRef entry;
	unsigned npage_sites, ncalls;
	LLVMValueRef page_vpn[PAGE_SITES], page_host[PAGE_SITES];
	/* prefetch_by_step(): each site's last span (allocas: its host address). */
	unsigned nstep_sites;
	LLVMValueRef step_last[STEP_SITES];
	LLVMValueRef *calls;
	bool out_of_memory;
};

static LLVMValueRef c32(struct gen *g, uint64_t v)
{
	return LLVMConstInt(g->i32, v, false);
}

static LLVMValueRef c64(struct gen *g, uint64_t v)
{
	return LLVMConstInt(g->i64, v, false);
}

static LLVMValueRef splat(struct gen *g, LLVMValueRef v)
{
	LLVMValueRef e[WEFT_MAX_LANES];

	for (unsigned l = 0; l < g->NL; l++)
		e[l] = v;
	return LLVMConstVector(e, g->NL);
}

static LLVMValueRef byte_ptr(struct gen *g, LLVMValueRef p, LLVMValueRef off)
{
	return LLVMBuildGEP2(g->b, g->i8, p, &off, 1, "");
}

/* A call of the LLVM intrinsic @name overloaded on @tys. */
static LLVMValueRef intrinsic(struct gen *g, const char *name, LLVMTypeRef *tys, unsigned ntys,
			      LLVMValueRef *args, unsigned nargs)
{
	unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
	LLVMValueRef fn = LLVMGetIntrinsicDeclaration(g->mod, id, tys, ntys);

	return LLVMBuildCall2(g->b, LLVMIntrinsicGetType(g->C, id, tys, ntys), fn, args, nargs, "");
}

/* A field of the context (weft_jit_ctx) at byte offset @off, of type @ty. */
static LLVMValueRef ctx_load(struct gen *g, size_t off, LLVMTypeRef ty, const char *name)
{
	return LLVMBuildLoad2(g->b, ty, byte_ptr(g, g->x, c64(g, off)), name);
}

static LLVMValueRef row_ptr(struct gen *g, unsigned r)
{
	return byte_ptr(g, g->R, c64(g, (uint64_t)r * WEFT_MAX_LANES * 4));
}

/* The mask of every lane of the sub-group, an i32. */
static LLVMValueRef every_lane(struct gen *g)
{
	return c32(g, g->NL == 32 ? ~0u : (1u << g->NL) - 1);
}

/* The lane numbers 0, 1, ... as <simd x i64>. */
static LLVMValueRef lane_numbers(struct gen *g)
{
	LLVMValueRef lane[WEFT_MAX_LANES];

	for (unsigned l = 0; l < g->NL; l++)
		lane[l] = c64(g, l);
	return LLVMConstVector(lane, g->NL);
}

static LLVMValueRef broadcast(struct gen *g, LLVMValueRef v);

/* Whether @v is the constant @k. */
static bool is_const(LLVMValueRef v, uint64_t k)
{
	return LLVMIsAConstantInt(v) && LLVMConstIntGetZExtValue(v) == k;
}

/*
 * u + lane * step in every lane (i64 scalars), as a vector of @bits-bit
 * elements (the low halves for 32): a constant step, the usual one, needs
 * no multiplication.
 */
static LLVMValueRef affine(struct gen *g, LLVMValueRef u, LLVMValueRef step, unsigned bits)
{
	LLVMTypeRef et = bits == 64 ? g->i64 : g->i32;
	LLVMValueRef lane[WEFT_MAX_LANES], steps;

	if (bits == 32) {
		u = LLVMBuildTrunc(g->b, u, et, "");
		step = LLVMBuildTrunc(g->b, step, et, "");
	}
	if (is_const(step, 0))
		return broadcast(g, u);
	if (LLVMIsAConstantInt(step)) {
		for (unsigned l = 0; l < g->NL; l++)
			lane[l] = LLVMConstInt(et, l * LLVMConstIntGetZExtValue(step), false);
		steps = LLVMConstVector(lane, g->NL);
	} else {
		steps = LLVMBuildMul(g->b, bits == 64 ? lane_numbers(g) :
				     LLVMBuildTrunc(g->b, lane_numbers(g), g->vi32, ""), broadcast(g, step), "");
	}
	return LLVMBuildAdd(g->b, broadcast(g, u), steps, "");
}

/*
 * Rows @r, @r+1 as one known 64-bit value (struct lin): *@u, *@step.  Not
 * built into a vector here: each use builds its own where it is (early CSE
 * merges those that one dominates), so that no use in one branch hands
 * its vector to code the branch does not dominate.
 */
static bool lin64(const struct gen *g, unsigned r, LLVMValueRef *u, LLVMValueRef *step)
{
	const struct lin *lo = &g->lin[r], *hi = &g->lin[(r + 1) % WEFT_NUM_REGS];

	if (!lo->u || lo->hi || !hi->hi || hi->u != lo->u || hi->step != lo->step)
		return false;
	*u = lo->u;
	*step = lo->step;
	return true;
}

/* Row @r as a known 32-bit value: NULL when it is not (struct lin). */
static const struct lin *lin32(const struct gen *g, unsigned r)
{
	return g->lin[r].u && !g->lin[r].hi ? &g->lin[r] : NULL;
}

/* The row's vector of a struct strand: lane l's element of its vector. */
static LLVMValueRef pick_strand(struct gen *g, const struct strand *st)
{
	LLVMValueRef idx[WEFT_MAX_LANES];

	for (unsigned l = 0; l < g->NL; l++)
		idx[l] = c32(g, l * st->stride + st->j);
	return LLVMBuildShuffleVector(g->b, st->all, LLVMGetUndef(LLVMTypeOf(st->all)),
				      LLVMConstVector(idx, g->NL), "");
}

static LLVMValueRef get(struct gen *g, unsigned r)
{
	if (!g->val[r] && g->lin[r].u) {
		const struct lin *l = &g->lin[r];

		if (!l->hi)
			return affine(g, l->u, l->step, 32);
		if (is_const(l->step, 0))
			return affine(g, LLVMBuildLShr(g->b, l->u, c64(g, 32), ""), l->step, 32);
		return LLVMBuildTrunc(g->b, LLVMBuildLShr(g->b, affine(g, l->u, l->step, 64),
							  splat(g, c64(g, 32)), ""), g->vi32, "");
	}
	if (!g->val[r] && g->strand[r].all)
		return pick_strand(g, &g->strand[r]);
	if (!g->val[r]) {
		g->val[r] = LLVMBuildLoad2(g->b, g->vi32, row_ptr(g, r), "");
		LLVMSetAlignment(g->val[r], 4);
	}
	return g->val[r];
}

/* Row @r changes: what the block derived from it goes. */
static void changed(struct gen *g, unsigned r)
{
	unsigned below = (r + WEFT_NUM_REGS - 1) % WEFT_NUM_REGS;

	memset(g->contig[r], 0, sizeof(g->contig[r]));
	memset(g->contig[below], 0, sizeof(g->contig[below]));
	memset(&g->lin[r], 0, sizeof(g->lin[r]));
	memset(&g->pick[r], 0, sizeof(g->pick[r]));
	memset(&g->strand[r], 0, sizeof(g->strand[r]));
}

static void set(struct gen *g, unsigned r, LLVMValueRef v)
{
	g->val[r] = v;
	g->dirty[r] = true;
	changed(g, r);
}

/* Row @r becomes the known value (struct lin) of u + lane * step (an i64 each), or its @hi half. */
static void set_lin(struct gen *g, unsigned r, LLVMValueRef u, LLVMValueRef step, bool hi)
{
	bool uniform = is_const(step, 0);

	set(g, r, NULL);
	g->lin[r] = (struct lin){ .u = u, .step = step, .hi = hi, .zext = uniform, .sext = uniform };
}

/* Rows @r, @r+1 become the known 64-bit value u + lane * step. */
static void set_lin64(struct gen *g, unsigned r, LLVMValueRef u, LLVMValueRef step)
{
	set_lin(g, r, u, step, false);
	set_lin(g, (r + 1) % WEFT_NUM_REGS, u, step, true);
}

static void store_known_entries(struct gen *g);

/*
 * Stores the rows the block assigned that @use names (bit @bit; NULL: all,
 * and the mask stack's entries the trace has not stored).
 */
static void flush(struct gen *g, const uint8_t *use, uint8_t bit)
{
	for (unsigned r = 0; r < WEFT_NUM_REGS; r++) {
		if (!g->dirty[r] || (use && !(use[r] & bit)))
			continue;
		LLVMSetAlignment(LLVMBuildStore(g->b, get(g, r), row_ptr(g, r)), 4);
		g->dirty[r] = false;
	}
	if (!use)
		store_known_entries(g);
}

/* A new basic block of the Weft code: every row is in the file. */
static void block_start(struct gen *g, LLVMBasicBlockRef bb)
{
	LLVMPositionBuilderAtEnd(g->b, bb);
	memset(g->val, 0, sizeof(g->val));
	memset(g->dirty, 0, sizeof(g->dirty));
	memset(g->contig, 0, sizeof(g->contig));
	memset(g->wide, 0, sizeof(g->wide));
	memset(g->lin, 0, sizeof(g->lin));
	memset(g->pick, 0, sizeof(g->pick));
	memset(g->strand, 0, sizeof(g->strand));
	memset(&g->cf, 0, sizeof(g->cf));
	g->on = NULL;
}

/*
 * Rows an instruction reads (bit 0) and writes (bit 1), as the interpreter's
 * handler does; bit 2: written as its result in every active lane, bit 3:
 * read as its operand (a masked write reads the row too, for the lanes it
 * keeps).
 */
static void inst_rows(const struct weft_inst *in, uint8_t *use)
{
	const struct weft_op_info *oi = &weft_isa_ops[in->op];

	for (unsigned i = 0; i < oi->nopnd; i++) {
		const struct weft_operand_desc *od = &oi->opnd[i];
		unsigned r = od->field == WEFT_FIELD_D ? in->d : od->field == WEFT_FIELD_A ? in->a :
			     od->field == WEFT_FIELD_B ? in->b : in->c;
		unsigned n = weft_isa_opnd_regs(in, od);
		uint8_t how;

		switch (od->role) {
		case WEFT_ROLE_DST:
			how = 3 | 4;	/* masked writes keep the other lanes: read too */
			break;
		case WEFT_ROLE_SRCI:
			if (in->has_imm || in->has_lit)
				continue;
			how = 1 | 8;
			break;
		case WEFT_ROLE_SRC: case WEFT_ROLE_MEM: case WEFT_ROLE_ADDR: case WEFT_ROLE_SDATA:
			how = 1 | 8;
			break;
		default:
			continue;
		}
		for (unsigned j = 0; j < n; j++)
			use[(r + j) % WEFT_NUM_REGS] |= how;
	}
}

/* Leaves the function with @code; the caller stored what must survive. */
static void exit_with(struct gen *g, int code)
{
	LLVMValueRef v = c32(g, (uint32_t)code);
	LLVMBasicBlockRef here = LLVMGetInsertBlock(g->b);

	LLVMAddIncoming(g->exit_phi, &v, &here, 1);
	LLVMBuildBr(g->b, g->exit);
}

static LLVMBasicBlockRef new_block(struct gen *g, const char *name)
{
	return LLVMAppendBasicBlockInContext(g->C, g->fn, name);
}

static LLVMValueRef pc_of(struct gen *g, unsigned i)
{
	return LLVMBuildAdd(g->b, g->base, c64(g, 8ull * i), "pc");
}

/*
 * A taken jump of instruction @i to the VA @tgt (@static_idx: its word
 * index when known, else -1), every row in the file.  A backward jump after
 * the quantum ends the turn there.
 */
static void jump(struct gen *g, unsigned i, LLVMValueRef tgt, int static_idx)
{
	LLVMValueRef cnt = LLVMBuildLoad2(g->b, g->i64, g->countp, "");
	LLVMValueRef spent = LLVMBuildICmp(g->b, LLVMIntUGE, cnt, c64(g, QUANTUM), "");
	LLVMValueRef yield;
	LLVMBasicBlockRef yb = new_block(g, "yield"), go = new_block(g, "go");

	if (static_idx >= 0) {
		yield = (unsigned)static_idx <= i ? spent : NULL;
	} else {
		LLVMValueRef off = LLVMBuildSub(g->b, tgt, g->base, "");

		yield = LLVMBuildAnd(g->b, spent, LLVMBuildICmp(g->b, LLVMIntSLE, off,
								c64(g, 8ull * i), ""), "");
	}
	if (yield) {
		LLVMBuildCondBr(g->b, yield, yb, go);
		LLVMPositionBuilderAtEnd(g->b, yb);
		LLVMBuildStore(g->b, tgt, g->pcp);
		exit_with(g, SG_YIELDED);
	} else {
		LLVMDeleteBasicBlock(yb);
		LLVMBuildBr(g->b, go);
	}
	LLVMPositionBuilderAtEnd(g->b, go);
	if (static_idx >= 0 && g->leader[static_idx]) {
		LLVMBuildBr(g->b, g->blk[static_idx]);
	} else {
		LLVMBasicBlockRef here = LLVMGetInsertBlock(g->b);

		LLVMAddIncoming(g->dispatch_phi, &tgt, &here, 1);
		LLVMBuildBr(g->b, g->dispatch);
	}
}

/* Lanes active in the sub-group's mask, as <simd x i1>: once per block. */
static LLVMValueRef active(struct gen *g)
{
	if (g->full)
		return LLVMConstAllOnes(LLVMVectorType(g->i1, g->NL));
	if (!g->on) {
		LLVMValueRef m = LLVMBuildLoad2(g->b, g->vi32, g->Mp, "M");

		LLVMSetAlignment(m, 4);
		g->on = LLVMBuildICmp(g->b, LLVMIntNE, m, LLVMConstNull(g->vi32), "on");
	}
	return g->on;
}

static void set_masked(struct gen *g, unsigned r, LLVMValueRef v, LLVMValueRef on)
{
	set(g, r, g->full ? v : LLVMBuildSelect(g->b, on, v, get(g, r), ""));
}

/* Rows @r, @r+1 hold the halves of @v now (gen.wide). */
static void set_wide(struct gen *g, unsigned r, LLVMValueRef v)
{
	g->wide[r] = v;
	g->wide_lo[r] = g->val[r];
	g->wide_hi[r] = g->val[(r + 1) % WEFT_NUM_REGS];
}

static LLVMValueRef get64(struct gen *g, unsigned r)
{
	unsigned r1 = (r + 1) % WEFT_NUM_REGS;
	LLVMValueRef lo, hi, v, u, step;

	if (lin64(g, r, &u, &step))
		return affine(g, u, step, 64);
	if (g->wide[r] && g->val[r] == g->wide_lo[r] && g->val[r1] == g->wide_hi[r])
		return g->wide[r];
	lo = LLVMBuildZExt(g->b, get(g, r), g->vi64, "");
	hi = LLVMBuildZExt(g->b, get(g, r1), g->vi64, "");
	v = LLVMBuildOr(g->b, lo, LLVMBuildShl(g->b, hi, splat(g, c64(g, 32)), ""), "");
	/* A known row has no vector of its own to key the cache on. */
	if (g->val[r] && g->val[r1])
		set_wide(g, r, v);
	return v;
}

static LLVMValueRef lo32(struct gen *g, LLVMValueRef v)
{
	return LLVMBuildTrunc(g->b, v, g->vi32, "");
}

static LLVMValueRef hi32(struct gen *g, LLVMValueRef v)
{
	return LLVMBuildTrunc(g->b, LLVMBuildLShr(g->b, v, splat(g, c64(g, 32)), ""), g->vi32, "");
}

static void set64_masked(struct gen *g, unsigned r, LLVMValueRef v, LLVMValueRef on)
{
	if (!g->full)
		v = LLVMBuildSelect(g->b, on, v, get64(g, r), "");
	set(g, r, lo32(g, v));
	set(g, (r + 1) % WEFT_NUM_REGS, hi32(g, v));
	set_wide(g, r, v);
}
/* Operand b (srci) at the instruction's width, as the generated ALU reads it. */
static LLVMValueRef operand_b(struct gen *g, const struct weft_inst *in, bool wide, bool shift)
{
	if (shift) {
		LLVMValueRef b = in->has_imm ? splat(g, c32(g, in->imm)) :
				 in->has_lit ? splat(g, c32(g, (uint32_t)in->lit)) : get(g, in->b);

		return wide ? LLVMBuildZExt(g->b, b, g->vi64, "") : b;
	}
	if (!wide)
		return in->has_imm ? splat(g, c32(g, in->imm)) : get(g, in->b);
	if (in->has_lit)
		return splat(g, c64(g, in->lit));
	if (in->has_imm)
		return splat(g, c64(g, in->t == WEFT_TYPE_S64 ? (uint64_t)(int64_t)(int32_t)in->imm :
							  (uint64_t)in->imm));
	return get64(g, in->b);
}

/*
 * @r, an f32 result (a float or a vector of floats), with a NaN replaced by
 * the default NaN, as weft_result_f32() does in the interpreter: which NaN
 * the host's vector unit passes on depends on the operand order, and LLVM
 * folds x + -0.0, x - 0.0 and x * 1.0 to x, which would pass a signalling
 * NaN through.
 */
static LLVMValueRef default_nan(struct gen *g, LLVMValueRef r)
{
	LLVMTypeRef ft = LLVMTypeOf(r);
	LLVMValueRef nan = LLVMConstBitCast(c32(g, WEFT_NAN_F32), LLVMFloatTypeInContext(g->C));

	if (LLVMGetTypeKind(ft) == LLVMVectorTypeKind)
		nan = splat(g, nan);
	return LLVMBuildSelect(g->b, LLVMBuildFCmp(g->b, LLVMRealUNO, r, r, ""), nan, r, "");
}

static unsigned block_end(const struct gen *g, unsigned i, unsigned *last, unsigned *n);

static bool is_f32_arith(const struct weft_inst *in)
{
	return in->t == WEFT_TYPE_F32 && in->op >= WEFT_OP_FADD && in->op <= WEFT_OP_FFMA;
}

/*
 * Whether f32 arithmetic @in's result may keep the NaN the host returns:
 * in the rest of its block, only f32 arithmetic reads the row before an
 * instruction overwrites it in every active lane (the block's lanes: the
 * lanes the result left alone keep their earlier value).  A NaN operand
 * gives those operations a NaN, and the one that stores a value nothing
 * else reads replaces it by the default NaN, so every value the kernel
 * can see is as the interpreter's.  The default NaN's compare and select
 * after each of an SGEMM's chained fmas are then saved.
 */
static bool only_f32_arith_reads(const struct gen *g, const struct weft_inst *in)
{
	const struct kernel *k = g->k;
	unsigned i = (unsigned)(in - k->insts), last;
	unsigned end = block_end(g, i, &last, NULL);

	for (unsigned j = i + in->nwords; j < end; j += k->insts[j].nwords) {
		uint8_t use[WEFT_NUM_REGS] = { 0 };

		inst_rows(&k->insts[j], use);
		if ((use[in->d] & 8) && !is_f32_arith(&k->insts[j]))
			return false;
		if (use[in->d] & 4)
			return true;
	}
	return false;
}

/*
 * f32 add, sub, mul and fma: IEEE round to nearest even on the host's
 * vector unit, as the interpreter's C (built without contraction: -std=c11).
 */
static void emit_falu(struct gen *g, const struct weft_inst *in)
{
	LLVMTypeRef vf = LLVMVectorType(LLVMFloatTypeInContext(g->C), g->NL);
	LLVMValueRef on = active(g), a, b, d;

	a = LLVMBuildBitCast(g->b, get(g, in->a), vf, "");
	b = LLVMBuildBitCast(g->b, in->has_imm ? splat(g, c32(g, in->imm)) : get(g, in->b), vf, "");
	switch (in->op) {
	case WEFT_OP_FADD: d = LLVMBuildFAdd(g->b, a, b, ""); break;
	case WEFT_OP_FSUB: d = LLVMBuildFSub(g->b, a, b, ""); break;
	case WEFT_OP_FMUL: d = LLVMBuildFMul(g->b, a, b, ""); break;
	default: {
		LLVMValueRef args[3] = { a, b, LLVMBuildBitCast(g->b, get(g, in->c), vf, "") };

		d = intrinsic(g, "llvm.fma", &vf, 1, args, 3);
	}
	}
	if (!only_f32_arith_reads(g, in))
		d = default_nan(g, d);
	set_masked(g, in->d, LLVMBuildBitCast(g->b, d, g->vi32, ""), on);
}

/*
 * IEEE minNum / maxNum with -0 < +0, as weft_fmin_T / weft_fmax_T
 * (weft_isa_helpers.h): one NaN operand gives the other, two the default
 * NaN.  @x, @y: floats or vectors of floats.
 */
static LLVMValueRef fminmax(struct gen *g, bool max, LLVMValueRef x, LLVMValueRef y)
{
	LLVMTypeRef ft = LLVMTypeOf(x), it;
	LLVMValueRef nx, ny, r, neg_x;

	it = LLVMGetTypeKind(ft) == LLVMVectorTypeKind ? LLVMVectorType(g->i32, LLVMGetVectorSize(ft)) : g->i32;
	nx = LLVMBuildFCmp(g->b, LLVMRealUNO, x, x, "");
	ny = LLVMBuildFCmp(g->b, LLVMRealUNO, y, y, "");
	neg_x = LLVMBuildICmp(g->b, LLVMIntSLT, LLVMBuildBitCast(g->b, x, it, ""), LLVMConstNull(it), "");
	r = LLVMBuildSelect(g->b, LLVMBuildFCmp(g->b, max ? LLVMRealOGT : LLVMRealOLT, x, y, ""), x, y, "");
	/* Equal: -0 and +0 are the only equal values that differ. */
	r = LLVMBuildSelect(g->b, LLVMBuildFCmp(g->b, LLVMRealOEQ, x, y, ""),
			    LLVMBuildSelect(g->b, neg_x, max ? y : x, max ? x : y, ""), r, "");
	r = LLVMBuildSelect(g->b, ny, x, r, "");
	return default_nan(g, LLVMBuildSelect(g->b, nx, y, r, ""));
}

/* f32 compares (a lane mask), minNum / maxNum, neg and abs (the sign bit). */
static void emit_fother(struct gen *g, const struct weft_inst *in)
{
	static const LLVMRealPredicate preds[] = {
		LLVMRealOEQ, LLVMRealONE, LLVMRealOLT, LLVMRealOLE, LLVMRealOGT, LLVMRealOGE, LLVMRealUEQ,
		LLVMRealUNE, LLVMRealULT, LLVMRealULE, LLVMRealUGT, LLVMRealUGE, LLVMRealORD, LLVMRealUNO,
	};
	LLVMTypeRef vf = LLVMVectorType(LLVMFloatTypeInContext(g->C), g->NL);
	LLVMValueRef on = active(g), a = get(g, in->a), b = NULL, d;

	if (in->op != WEFT_OP_FNEG && in->op != WEFT_OP_FABS)
		b = LLVMBuildBitCast(g->b, in->has_imm ? splat(g, c32(g, in->imm)) : get(g, in->b), vf, "");
	switch (in->op) {
	case WEFT_OP_FNEG:
		d = LLVMBuildXor(g->b, a, splat(g, c32(g, 0x80000000u)), "");
		break;
	case WEFT_OP_FABS:
		d = LLVMBuildAnd(g->b, a, splat(g, c32(g, 0x7fffffffu)), "");
		break;
	case WEFT_OP_FMIN:
	case WEFT_OP_FMAX:
		d = LLVMBuildBitCast(g->b, fminmax(g, in->op == WEFT_OP_FMAX,
						   LLVMBuildBitCast(g->b, a, vf, ""), b), g->vi32, "");
		break;
	default:
		d = LLVMBuildSExt(g->b, LLVMBuildFCmp(g->b, preds[in->op - WEFT_OP_FSET_EQ],
						      LLVMBuildBitCast(g->b, a, vf, ""), b, ""), g->vi32, "");
	}
	set_masked(g, in->d, d, on);
}

/* The cvt of a known value that stays known (struct lin), with every lane on; else false. */
static bool cvt_lin(struct gen *g, const struct weft_inst *in)
{
	LLVMValueRef u, step;
	const struct lin *l;
	struct lin a;

	if (is64(in->t2)) {
		if (!lin64(g, in->a, &u, &step))
			return false;
		if (is64(in->t))
			set_lin64(g, in->d, u, step);
		else
			set_lin(g, in->d, u, step, false);
		return true;
	}
	if (!(l = lin32(g, in->a)))
		return false;
	a = *l;
	if (!is64(in->t)) {
		set_lin(g, in->d, a.u, a.step, false);
		g->lin[in->d].zext = a.zext;
		g->lin[in->d].sext = a.sext;
		return true;
	}
	if (in->t2 == WEFT_TYPE_S32 ? !a.sext : !a.zext)
		return false;
	u = LLVMBuildTrunc(g->b, a.u, g->i32, "");
	u = in->t2 == WEFT_TYPE_S32 ? LLVMBuildSExt(g->b, u, g->i64, "") : LLVMBuildZExt(g->b, u, g->i64, "");
	set_lin64(g, in->d, u, a.step);
	return true;
}

/* cvt between 32- and 64-bit integers: extended by the source's kind, or truncated. */
static void emit_cvt(struct gen *g, const struct weft_inst *in)
{
	LLVMValueRef on = active(g), v;

	if (g->full && cvt_lin(g, in))
		return;

	if (is64(in->t2))
		v = get64(g, in->a);
	else if (in->t2 == WEFT_TYPE_S32)
		v = LLVMBuildSExt(g->b, get(g, in->a), g->vi64, "");
	else
		v = LLVMBuildZExt(g->b, get(g, in->a), g->vi64, "");
	if (is64(in->t))
		set64_masked(g, in->d, v, on);
	else
		set_masked(g, in->d, lo32(g, v), on);
}

/* Operand b of @in as a known value (struct lin): *@u, *@step; false when it is not known. */
static bool operand_b_lin(struct gen *g, const struct weft_inst *in, bool wide, bool shift,
			  LLVMValueRef *u, LLVMValueRef *step)
{
	const struct lin *l;

	*step = c64(g, 0);
	if (shift && (in->has_imm || in->has_lit)) {
		*u = c64(g, in->has_imm ? in->imm : (uint32_t)in->lit);
		return true;
	}
	if (!wide && in->has_imm) {
		*u = c64(g, in->imm);
		return true;
	}
	if (wide && !shift && in->has_lit) {
		*u = c64(g, in->lit);
		return true;
	}
	if (wide && !shift && in->has_imm) {
		*u = c64(g, in->t == WEFT_TYPE_S64 ? (uint64_t)(int64_t)(int32_t)in->imm : (uint64_t)in->imm);
		return true;
	}
	if (wide && !shift)
		return lin64(g, in->b, u, step);
	l = lin32(g, in->b);
	if (!l)
		return false;
	*u = l->u;
	*step = l->step;
	return true;
}

/*
 * The steps of known values (struct lin) combined, folding a step 0 (the
 * builder folds only constants): a step that stays a constant is what
 * speculate_global() and cvt_lin() test.
 */
static LLVMValueRef step_add(struct gen *g, LLVMValueRef a, LLVMValueRef b, bool sub)
{
	if (is_const(b, 0))
		return a;
	if (is_const(a, 0) && !sub)
		return b;
	return sub ? LLVMBuildSub(g->b, a, b, "") : LLVMBuildAdd(g->b, a, b, "");
}

static LLVMValueRef step_mul(struct gen *g, LLVMValueRef step, LLVMValueRef factor)
{
	return is_const(step, 0) ? step : LLVMBuildMul(g->b, step, factor, "");
}

/*
 * The 32- and 64-bit add, sub, mul, shl, neg and mov that keep a known
 * value known (struct lin), with every lane on: no vector code, only the
 * scalars of u + lane * step.  False (nothing emitted) for any other.
 */
static bool alu_lin(struct gen *g, const struct weft_inst *in)
{
	bool wide = is64(in->t), shift = in->op == WEFT_OP_SHL;
	LLVMValueRef ua = NULL, sa = NULL, ub, sb, u, step;
	const struct lin *la;

	switch (in->op) {
	case WEFT_OP_MOV: case WEFT_OP_ADD: case WEFT_OP_SUB: case WEFT_OP_MUL: case WEFT_OP_SHL:
	case WEFT_OP_NEG:
		break;
	default:
		return false;
	}
	if (in->op != WEFT_OP_NEG && !operand_b_lin(g, in, wide, shift, &ub, &sb))
		return false;
	if (in->op != WEFT_OP_MOV) {
		if (wide) {
			if (!lin64(g, in->a, &ua, &sa))
				return false;
		} else {
			if (!(la = lin32(g, in->a)))
				return false;
			ua = la->u;
			sa = la->step;
		}
	}
	switch (in->op) {
	case WEFT_OP_MOV:
		u = ub;
		step = sb;
		break;
	case WEFT_OP_ADD:
		u = LLVMBuildAdd(g->b, ua, ub, "");
		step = step_add(g, sa, sb, false);
		break;
	case WEFT_OP_SUB:
		u = LLVMBuildSub(g->b, ua, ub, "");
		step = step_add(g, sa, sb, true);
		break;
	case WEFT_OP_NEG:
		u = LLVMBuildNeg(g->b, ua, "");
		step = step_add(g, c64(g, 0), sa, true);
		break;
	case WEFT_OP_MUL:
		/* Affine only with one factor the same in every lane. */
		if (is_const(sb, 0))
			step = step_mul(g, sa, ub);
		else if (is_const(sa, 0))
			step = step_mul(g, sb, ua);
		else
			return false;
		u = LLVMBuildMul(g->b, ua, ub, "");
		break;
	default:	/* shl by an amount the same in every lane */
		if (!is_const(sb, 0))
			return false;
		ub = LLVMBuildAnd(g->b, ub, c64(g, wide ? 63 : 31), "");
		u = LLVMBuildShl(g->b, ua, ub, "");
		step = is_const(sa, 0) ? sa : LLVMBuildShl(g->b, sa, ub, "");
	}
	if (wide)
		set_lin64(g, in->d, u, step);
	else
		set_lin(g, in->d, u, step, false);
	return true;
}

static void emit_alu(struct gen *g, const struct weft_inst *in)
{
	bool wide = is64(in->t), sgn = in->t == WEFT_TYPE_S32 || in->t == WEFT_TYPE_S64;
	bool shift = in->op == WEFT_OP_SHL || in->op == WEFT_OP_SHR || in->op == WEFT_OP_SAR;
	LLVMTypeRef vt = wide ? g->vi64 : g->vi32;
	LLVMValueRef on = active(g), a = NULL, b, d, ones = LLVMConstAllOnes(vt);
	struct pick pk = { 0 };
	LLVMIntPredicate p;

	if (g->full && alu_lin(g, in))
		return;
	if (in->op == WEFT_OP_SEL) {
		LLVMValueRef c = LLVMBuildICmp(g->b, LLVMIntNE, get(g, in->c), LLVMConstNull(g->vi32), "");
		const struct lin *la = wide ? NULL : lin32(g, in->a), *lb = wide ? NULL : lin32(g, in->b);

		if (g->full && la && lb && is_const(lb->step, 0))
			pk = (struct pick){ .cond = c, .u = la->u, .step = la->step, .other = lb->u };
		a = wide ? get64(g, in->a) : get(g, in->a);
		b = wide ? get64(g, in->b) : get(g, in->b);
		d = LLVMBuildSelect(g->b, c, a, b, "");
		goto write;
	}
	b = operand_b(g, in, wide, shift);
	if (in->op != WEFT_OP_MOV)
		a = wide ? get64(g, in->a) : get(g, in->a);
	if (shift)
		b = LLVMBuildAnd(g->b, b, splat(g, wide ? c64(g, 63) : c32(g, 31)), "");
	switch (in->op) {
	case WEFT_OP_MOV: d = b; break;
	case WEFT_OP_ADD: d = LLVMBuildAdd(g->b, a, b, ""); break;
	case WEFT_OP_SUB: d = LLVMBuildSub(g->b, a, b, ""); break;
	case WEFT_OP_MUL: d = LLVMBuildMul(g->b, a, b, ""); break;
	case WEFT_OP_AND: d = LLVMBuildAnd(g->b, a, b, ""); break;
	case WEFT_OP_OR: d = LLVMBuildOr(g->b, a, b, ""); break;
	case WEFT_OP_XOR: d = LLVMBuildXor(g->b, a, b, ""); break;
	case WEFT_OP_NOT: d = LLVMBuildXor(g->b, a, ones, ""); break;
	case WEFT_OP_NEG: d = LLVMBuildSub(g->b, LLVMConstNull(vt), a, ""); break;
	case WEFT_OP_SHL: d = LLVMBuildShl(g->b, a, b, ""); break;
	case WEFT_OP_SHR: d = LLVMBuildLShr(g->b, a, b, ""); break;
	case WEFT_OP_SAR: d = LLVMBuildAShr(g->b, a, b, ""); break;
	case WEFT_OP_MIN:
	case WEFT_OP_MAX:
		p = in->op == WEFT_OP_MIN ? (sgn ? LLVMIntSLT : LLVMIntULT) : (sgn ? LLVMIntSGT : LLVMIntUGT);
		d = LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, p, a, b, ""), a, b, "");
		break;
	default: {
		static const LLVMIntPredicate su[6][2] = {
			{ LLVMIntEQ, LLVMIntEQ }, { LLVMIntNE, LLVMIntNE }, { LLVMIntULT, LLVMIntSLT },
			{ LLVMIntULE, LLVMIntSLE }, { LLVMIntUGT, LLVMIntSGT }, { LLVMIntUGE, LLVMIntSGE },
		};
		LLVMValueRef c = LLVMBuildICmp(g->b, su[in->op - WEFT_OP_SET_EQ][sgn], a, b, "");

		/* set.*: a 32-bit lane mask whatever the operands' width. */
		set_masked(g, in->d, LLVMBuildSExt(g->b, c, g->vi32, ""), on);
		return;
	}
	}
write:
	if (wide)
		set64_masked(g, in->d, d, on);
	else
		set_masked(g, in->d, d, on);
	g->pick[in->d] = pk;
}

/* A host address (of data, or of a function) as a constant pointer. */
static LLVMValueRef const_ptr(struct gen *g, uintptr_t p)
{
	return LLVMConstIntToPtr(c64(g, p), g->ptr);
}

/*
 * A call of the C function @fn: the only way the translation's TLB can
 * change during a call of the translation (a handler's or tlb_fill()'s
 * walk fills an entry), so page_lookup()'s sites forget their pages after
 * it (forget_pages()).
 */
static LLVMValueRef call_c(struct gen *g, LLVMTypeRef ty, uintptr_t fn, LLVMValueRef *args, unsigned nargs,
			   const char *name)
{
	LLVMValueRef call = LLVMBuildCall2(g->b, ty, const_ptr(g, fn), args, nargs, name);

	if (g->out_of_memory)
		return call;
	if (!(g->ncalls & (g->ncalls + 1))) {
		LLVMValueRef *more = realloc(g->calls, 2 * (g->ncalls + 1) * sizeof(*g->calls));

		if (!more) {
			/* A call whose sites would keep their pages: build() gives up. */
			g->out_of_memory = true;
			return call;
		}
		g->calls = more;
	}
	g->calls[g->ncalls++] = call;
	return call;
}

/* WEFT_MODEL_JIT_PROFILE: one more run of @in through the interpreter's code. */
static void count_fallback(struct gen *g, const struct weft_inst *in, unsigned kind)
{
	if (!profiling || in->op >= WEFT_ISA_OPCODE_COUNT || in->t >= WEFT_TYPE_COUNT)
		return;
	LLVMBuildAtomicRMW(g->b, LLVMAtomicRMWBinOpAdd, const_ptr(g, (uintptr_t)&fallbacks[kind][in->op][in->t]),
			   c64(g, 1), LLVMAtomicOrderingMonotonic, false);
}

/*
 * The instruction as the interpreter runs it: a call of its handler, with
 * the rows it reads stored first and the rows it writes loaded again at
 * their next use.  A fault ends the turn (the dispatch ends with it: no row
 * needs storing).
 */
static void emit_helper(struct gen *g, unsigned i, const struct weft_inst *in)
{
	uint8_t use[WEFT_NUM_REGS] = { 0 };
	LLVMValueRef args[4], r;
	LLVMBasicBlockRef bad = new_block(g, "fault"), ok = new_block(g, "ok");

	if (!g->by_handlers)
		count_fallback(g, in, g->slow_path ? PROF_SLOW : PROF_HANDLER);
	inst_rows(in, use);
	flush(g, use, 1);
	args[0] = g->x;
	args[1] = const_ptr(g, (uintptr_t)in);
	args[2] = pc_of(g, i);
	args[3] = c32(g, g->NL);
	r = call_c(g, g->exec_ty, (uintptr_t)weft_jit_exec, args, 4, "");
	LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, r, c32(g, 0), ""), ok, bad);
	LLVMPositionBuilderAtEnd(g->b, bad);
	exit_with(g, SG_ERROR);
	LLVMPositionBuilderAtEnd(g->b, ok);
	for (unsigned row = 0; row < WEFT_NUM_REGS; row++) {
		if (use[row] & 2) {
			g->val[row] = NULL;
			changed(g, row);
		}
	}
}

/* Whether every lane of the <simd x i1> @v is set, as an i1. */
static LLVMValueRef all_lanes(struct gen *g, LLVMValueRef v)
{
	LLVMTypeRef iNL = LLVMIntTypeInContext(g->C, g->NL);

	return LLVMBuildICmp(g->b, LLVMIntEQ, LLVMBuildBitCast(g->b, v, iNL, ""),
			     LLVMConstAllOnes(iNL), "");
}

/* The first active lane (lane 0 when none is), as an i32. */
static LLVMValueRef first_active(struct gen *g)
{
	LLVMValueRef mask = LLVMBuildLoad2(g->b, g->i32, g->maskp, "mask");
	LLVMTypeRef i32 = g->i32;

	return LLVMBuildAnd(g->b, intrinsic(g, "llvm.cttz", &i32, 1,
					    (LLVMValueRef[]){ mask, LLVMConstInt(g->i1, 0, false) }, 2),
			    c32(g, g->NL - 1), "first");
}

/*
 * An instruction with guarded fast paths beside the interpreter's handler
 * (the slow path).  Each path starts from the block's view of the rows as
 * it was before the first branch and leaves it so; the rows the
 * instruction writes meet in phis where the paths join.
 */
#define MAX_PATHS	5	/* vector, uniform, elements, lanes, the handler */

/* The block's view of the rows at one point of its emission, to emit another branch from. */
struct view {
	LLVMValueRef val[WEFT_NUM_REGS], contig[WEFT_NUM_REGS][ADDRESS_SHAPES], on;
	LLVMValueRef wide[WEFT_NUM_REGS], wide_lo[WEFT_NUM_REGS], wide_hi[WEFT_NUM_REGS];
	struct lin lin[WEFT_NUM_REGS];
	struct pick pick[WEFT_NUM_REGS];
	struct strand strand[WEFT_NUM_REGS];
	bool dirty[WEFT_NUM_REGS];
	struct known_stack cf;
};

static void view_save(const struct gen *g, struct view *v)
{
	memcpy(v->val, g->val, sizeof(v->val));
	memcpy(v->dirty, g->dirty, sizeof(v->dirty));
	memcpy(v->contig, g->contig, sizeof(v->contig));
	memcpy(v->wide, g->wide, sizeof(v->wide));
	memcpy(v->wide_lo, g->wide_lo, sizeof(v->wide_lo));
	memcpy(v->wide_hi, g->wide_hi, sizeof(v->wide_hi));
	memcpy(v->lin, g->lin, sizeof(v->lin));
	memcpy(v->pick, g->pick, sizeof(v->pick));
	memcpy(v->strand, g->strand, sizeof(v->strand));
	v->cf = g->cf;
	v->on = g->on;
}

static void view_restore(struct gen *g, const struct view *v)
{
	memcpy(g->val, v->val, sizeof(v->val));
	memcpy(g->dirty, v->dirty, sizeof(v->dirty));
	memcpy(g->contig, v->contig, sizeof(v->contig));
	memcpy(g->wide, v->wide, sizeof(v->wide));
	memcpy(g->wide_lo, v->wide_lo, sizeof(v->wide_lo));
	memcpy(g->wide_hi, v->wide_hi, sizeof(v->wide_hi));
	memcpy(g->lin, v->lin, sizeof(v->lin));
	memcpy(g->pick, v->pick, sizeof(v->pick));
	memcpy(g->strand, v->strand, sizeof(v->strand));
	g->cf = v->cf;
	g->on = v->on;
}

struct paths {
	unsigned d, nrows;
	LLVMBasicBlockRef done;
	unsigned n;
	LLVMBasicBlockRef from[MAX_PATHS];
	LLVMValueRef vals[MAX_DST_ROWS][MAX_PATHS];
	struct view start;
};

/* Before the first branch: what every path starts from. */
static void paths_begin(struct gen *g, struct paths *ps, unsigned d, unsigned nrows)
{
	ps->d = d;
	ps->nrows = nrows;
	ps->n = 0;
	ps->done = new_block(g, "next");
	view_save(g, &ps->start);
}

/* The path being emitted ends here. */
static void path_end(struct gen *g, struct paths *ps)
{
	for (unsigned r = 0; r < ps->nrows; r++)
		ps->vals[r][ps->n] = get(g, (ps->d + r) % WEFT_NUM_REGS);
	ps->from[ps->n++] = LLVMGetInsertBlock(g->b);
	LLVMBuildBr(g->b, ps->done);
	view_restore(g, &ps->start);
}

static void paths_join(struct gen *g, struct paths *ps)
{
	LLVMPositionBuilderAtEnd(g->b, ps->done);
	for (unsigned r = 0; r < ps->nrows; r++) {
		unsigned row = (ps->d + r) % WEFT_NUM_REGS;
		LLVMValueRef phi = LLVMBuildPhi(g->b, g->vi32, "");

		LLVMAddIncoming(phi, ps->vals[r], ps->from, ps->n);
		set(g, row, phi);
	}
}

/*
 * The fast path being emitted ends here; @slow, where its guards branch
 * otherwise, runs the interpreter's handler of instruction @i (which
 * reports what the fast path does not take); the paths join.
 */
static void fast_path_end(struct gen *g, struct paths *ps, LLVMBasicBlockRef slow, unsigned i,
			  const struct weft_inst *in)
{
	path_end(g, ps);
	LLVMPositionBuilderAtEnd(g->b, slow);
	g->slow_path = true;
	emit_helper(g, i, in);
	g->slow_path = false;
	path_end(g, ps);
	paths_join(g, ps);
}

/* Rows @d.. as a vector of @bits-bit elements (a store's data). */
static LLVMValueRef get_elems(struct gen *g, unsigned d, unsigned bits)
{
	if (bits == 64)
		return get64(g, d);
	if (bits == 32)
		return get(g, d);
	return LLVMBuildTrunc(g->b, get(g, d), LLVMVectorType(LLVMIntTypeInContext(g->C, bits), g->NL), "");
}

/* Loaded @bits-bit elements into rows @d.. of the active lanes, extended by @kind below 32 bits. */
static void set_elems(struct gen *g, unsigned d, LLVMValueRef v, unsigned bits, char kind,
		      LLVMValueRef on)
{
	if (bits == 64)
		set64_masked(g, d, v, on);
	else if (bits == 32)
		set_masked(g, d, v, on);
	else if (kind == 's')
		set_masked(g, d, LLVMBuildSExt(g->b, v, g->vi32, ""), on);
	else
		set_masked(g, d, LLVMBuildZExt(g->b, v, g->vi32, ""), on);
}

/*
 * The vector of @vec * NL elements that @v[0..vec) were all picked out of
 * by strided_load() as its lanes' elements 0..vec-1 in order, NULL when
 * they were not: interleaving them again gives that vector back.
 */
static LLVMValueRef deinterleaved_from(struct gen *g, LLVMValueRef *v, unsigned vec)
{
	LLVMValueRef all = NULL;

	for (unsigned j = 0; j < vec; j++) {
		LLVMValueRef src;

		if (!LLVMIsAShuffleVectorInst(v[j]))
			return NULL;
		src = LLVMGetOperand(v[j], 0);
		if (j ? src != all : LLVMGetVectorSize(LLVMTypeOf(src)) != vec * g->NL)
			return NULL;
		all = src;
		for (unsigned l = 0; l < g->NL; l++)
			if (LLVMGetMaskValue(v[j], l) != (int)(l * vec + j))
				return NULL;
	}
	return all;
}

/* The elements of @v[0..vec) lane-major: lane 0's, then lane 1's... (the interpreter's order). */
static LLVMValueRef interleave(struct gen *g, LLVMValueRef *v, unsigned vec)
{
	LLVMValueRef idx[8 * WEFT_MAX_LANES], all = deinterleaved_from(g, v, vec), part[8];
	unsigned NL = g->NL;

	if (all)
		return all;
	/* The rows one after the other, joined in pairs. */
	memcpy(part, v, vec * sizeof(*v));
	for (unsigned n = vec, w = NL; n > 1; n /= 2, w *= 2) {
		for (unsigned k = 0; k < 2 * w; k++)
			idx[k] = c32(g, k);
		for (unsigned i = 0; i < n / 2; i++)
			part[i] = LLVMBuildShuffleVector(g->b, part[2 * i], part[2 * i + 1],
							 LLVMConstVector(idx, 2 * w), "");
	}
	for (unsigned l = 0; l < NL; l++)
		for (unsigned j = 0; j < vec; j++)
			idx[l * vec + j] = c32(g, j * NL + l);
	return LLVMBuildShuffleVector(g->b, part[0], LLVMGetUndef(LLVMTypeOf(part[0])),
				      LLVMConstVector(idx, vec * NL), "");
}

/*
 * The access of every active lane through the host pointers of its
 * elements, @p[element]: a masked gather per element, or one masked
 * scatter of all the elements in lane order (which stores overlapping
 * elements as the interpreter does).
 */
static void element_access(struct gen *g, const struct weft_inst *in, LLVMValueRef *p,
			   LLVMValueRef on, bool store)
{
	unsigned bits = weft_isa_type_bits(in->t), vec = weft_isa_ops[in->op].vec, NL = g->NL;
	unsigned er = bits == 64 ? 2 : 1;
	LLVMTypeRef et = LLVMIntTypeInContext(g->C, bits), tys[2];
	LLVMValueRef data[4] = { NULL }, args[4];

	if (!store) {
		tys[0] = LLVMVectorType(et, NL);
		tys[1] = LLVMVectorType(g->ptr, NL);
		for (unsigned j = 0; j < vec; j++) {
			args[0] = p[j];
			args[1] = c32(g, 1);
			args[2] = on;
			args[3] = LLVMGetUndef(tys[0]);
			set_elems(g, (in->d + j * er) % WEFT_NUM_REGS,
				  intrinsic(g, "llvm.masked.gather", tys, 2, args, 4), bits,
				  weft_isa_types[in->t].kind, on);
		}
		return;
	}
	for (unsigned j = 0; j < vec; j++)
		data[j] = get_elems(g, (in->d + j * er) % WEFT_NUM_REGS, bits);
	if (vec > 1) {
		LLVMValueRef ons[4] = { on, on, on, on };

		data[0] = interleave(g, data, vec);
		p[0] = interleave(g, p, vec);
		on = interleave(g, ons, vec);
	}
	tys[0] = LLVMVectorType(et, vec * NL);
	tys[1] = LLVMVectorType(g->ptr, vec * NL);
	args[0] = data[0];
	args[1] = p[0];
	args[2] = c32(g, 1);
	args[3] = on;
	intrinsic(g, "llvm.masked.scatter", tys, 2, args, 4);
}

/* The access of every active lane through its host pointer in @ptrs, its elements one after the other. */
static void lane_access(struct gen *g, const struct weft_inst *in, LLVMValueRef ptrs,
			LLVMValueRef on, bool store)
{
	unsigned size = weft_isa_type_bits(in->t) / 8, vec = weft_isa_ops[in->op].vec;
	LLVMValueRef p[4];

	for (unsigned j = 0; j < vec; j++) {
		LLVMValueRef step = splat(g, c64(g, (uint64_t)j * size));

		p[j] = j ? LLVMBuildGEP2(g->b, g->i8, ptrs, &step, 1, "") : ptrs;
	}
	element_access(g, in, p, on, store);
}

/* The @bytes at host address @p, prefetched for reading line by line. */
static void prefetch_lines(struct gen *g, LLVMValueRef p, unsigned bytes)
{
	for (unsigned o = 0; o < bytes; o += 64)
		intrinsic(g, "llvm.prefetch", &g->ptr, 1,
			  (LLVMValueRef[]){ byte_ptr(g, p, c64(g, o)), c32(g, 0), c32(g, 3), c32(g, 1) }, 4);
}

/*
 * The span of @bytes after the one a sub-group loads at host address @p
 * (the next sub-group's, in a kernel whose sub-groups read one array
 * along), prefetched line by line when it lies in the same page (the
 * host's pages are aligned as the model's).  A translated sub-group's
 * loads lie hundreds of host instructions apart, so the host has few of
 * them in flight, where a loop over the same array has many: the
 * sub-group's loads waited for memory most of the kernel's time.  Spans
 * of two lines (an int per lane) are left to the host's prefetcher.
 */
static void prefetch_next_span(struct gen *g, LLVMValueRef p, unsigned bytes)
{
	LLVMValueRef off, next, at;

	if (bytes < PREFETCH_SPAN)
		return;
	off = LLVMBuildAnd(g->b, LLVMBuildPtrToInt(g->b, p, g->i64, ""), c64(g, WEFT_MMU_PAGE_SIZE - 1), "");
	next = LLVMBuildICmp(g->b, LLVMIntULE, LLVMBuildAdd(g->b, off, c64(g, 2 * bytes), ""),
			     c64(g, WEFT_MMU_PAGE_SIZE), "");
	at = byte_ptr(g, p, LLVMBuildSelect(g->b, next, c64(g, bytes), c64(g, 0), ""));
	prefetch_lines(g, at, bytes);
}

/*
 * The span of @bytes at host address @p STEPS_AHEAD sub-groups on, at the
 * step between this load's spans in the call's last two sub-groups (the
 * optimizing tier, for the spans prefetch_next_span() leaves): the
 * sub-groups of a 2D kernel read a row of its work-group each, a row of
 * the grid apart, where the host's prefetcher, which follows the accesses
 * within a page, sees one access per page and work-group (the naive
 * transpose waited on its load of a row half of its translated time).  A
 * step of 1 MiB or more (the call's first sub-group) prefetches the span
 * itself, already loaded.
 */
static void prefetch_by_step(struct gen *g, LLVMValueRef p, unsigned bytes)
{
	LLVMValueRef site, cur, step, near, at;
	LLVMBuilderRef b;

	if (!g->row_variants || g->nstep_sites == STEP_SITES)
		return;
	b = LLVMCreateBuilderInContext(g->C);
	LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(g->entry));
	site = g->step_last[g->nstep_sites++] = LLVMBuildAlloca(b, g->i64, "step_last");
	LLVMBuildStore(b, c64(g, 0), site);
	LLVMDisposeBuilder(b);
	cur = LLVMBuildPtrToInt(g->b, p, g->i64, "");
	step = LLVMBuildSub(g->b, cur, LLVMBuildLoad2(g->b, g->i64, site, ""), "step");
	LLVMBuildStore(g->b, cur, site);
	near = LLVMBuildICmp(g->b, LLVMIntULT, LLVMBuildAdd(g->b, step, c64(g, 1u << 20), ""), c64(g, 2u << 20), "");
	at = byte_ptr(g, p, LLVMBuildSelect(g->b, near, LLVMBuildMul(g->b, step, c64(g, STEPS_AHEAD), ""),
					    c64(g, 0), ""));
	prefetch_lines(g, at, bytes);
}

/* What a load of a span of @bytes at host address @p prefetches for later sub-groups. */
static void prefetch_ahead(struct gen *g, LLVMValueRef p, unsigned bytes)
{
	if (bytes >= PREFETCH_SPAN)
		prefetch_next_span(g, p, bytes);
	else
		prefetch_by_step(g, p, bytes);
}

/*
 * The @vec elements of every lane, lane l's first at @p + l * @stride
 * elements (the vector fast paths: @stride is @vec when the lanes follow
 * one another, less when their elements overlap): one load of all of
 * them, then each row picked out of it.  64-bit elements are picked as
 * their 32-bit halves, row by row: the compiler packs float8 and wider
 * vectors into .u64 accesses (32 bytes a lane) whose halves it reads as
 * floats, and picking the halves directly saves splitting each 64-bit row
 * (clpeak's float8 bandwidth: 1.19 times that of the split).  32-bit
 * elements one element apart (a[i] and a[i + 1] merged) are rows of
 * consecutive elements: each row is a load of its own, at its element,
 * as the picking of a row out of the span took a dozen shuffles.
 */
static void strided_load(struct gen *g, const struct weft_inst *in, LLVMValueRef p, LLVMValueRef on,
			 unsigned stride)
{
	unsigned halves = weft_isa_type_bits(in->t) / 32, NL = g->NL;
	unsigned vec = weft_isa_ops[in->op].vec * halves, n;
	LLVMValueRef all, idx[WEFT_MAX_LANES];

	stride *= halves;
	if (stride == 1) {
		for (unsigned j = 0; j < vec; j++) {
			LLVMValueRef v = LLVMBuildLoad2(g->b, g->vi32, byte_ptr(g, p, c64(g, 4ull * j)), "");

			LLVMSetAlignment(v, 1);
			set_masked(g, (in->d + j) % WEFT_NUM_REGS, v, on);
		}
		return;
	}
	n = (NL - 1) * stride + vec;
	all = LLVMBuildLoad2(g->b, LLVMVectorType(g->i32, n), p, "");
	LLVMSetAlignment(all, 1);
	for (unsigned j = 0; j < vec; j++) {
		LLVMValueRef v = all;
		unsigned r = (in->d + j) % WEFT_NUM_REGS;

		if (stride == vec && vec > 1 && g->full) {
			set(g, r, NULL);
			g->strand[r] = (struct strand){ .all = all, .j = j, .stride = stride };
			continue;
		}
		if (n != NL) {
			for (unsigned l = 0; l < NL; l++)
				idx[l] = c32(g, l * stride + j);
			v = LLVMBuildShuffleVector(g->b, all, LLVMGetUndef(LLVMTypeOf(all)),
						   LLVMConstVector(idx, NL), "");
		}
		set_masked(g, r, v, on);
	}
}

/* The @vec elements of every lane, lanes one after the other at @p. */
static void contig_load(struct gen *g, const struct weft_inst *in, LLVMValueRef p, LLVMValueRef on)
{
	strided_load(g, in, p, on, weft_isa_ops[in->op].vec);
}

/*
 * A global store of @v, @bytes, at host address @p: whole lines stream
 * where the dispatch asks for it (execution.rst, "Streaming stores") and
 * @p is a line's start.
 */
static void global_store(struct gen *g, LLVMValueRef v, LLVMValueRef p, unsigned bytes)
{
	LLVMValueRef line_start, one = c32(g, 1), streaming;
	LLVMBasicBlockRef stream, cached, stored;

	if (bytes % 64) {
		LLVMSetAlignment(LLVMBuildStore(g->b, v, p), 1);
		return;
	}
	stream = new_block(g, "stream");
	cached = new_block(g, "cached");
	stored = new_block(g, "stored");
	line_start = LLVMBuildICmp(g->b, LLVMIntEQ,
				   LLVMBuildAnd(g->b, LLVMBuildPtrToInt(g->b, p, g->i64, ""), c64(g, 63), ""),
				   c64(g, 0), "");
	LLVMBuildCondBr(g->b, LLVMBuildAnd(g->b, g->stream, line_start, ""), stream, cached);
	LLVMPositionBuilderAtEnd(g->b, stream);
	streaming = LLVMBuildStore(g->b, v, p);
	LLVMSetAlignment(streaming, 64);
	LLVMSetMetadata(streaming, LLVMGetMDKindIDInContext(g->C, "nontemporal", 11),
			LLVMMDNodeInContext(g->C, &one, 1));
	LLVMBuildBr(g->b, stored);
	LLVMPositionBuilderAtEnd(g->b, cached);
	LLVMSetAlignment(LLVMBuildStore(g->b, v, p), 1);
	LLVMBuildBr(g->b, stored);
	LLVMPositionBuilderAtEnd(g->b, stored);
}

/*
 * The store of contig_load(): the rows' elements interleaved lane by lane,
 * one store (global_store() if @global).
 */
static void contig_store(struct gen *g, const struct weft_inst *in, LLVMValueRef p, bool global)
{
	unsigned bits = weft_isa_type_bits(in->t), vec = weft_isa_ops[in->op].vec;
	unsigned er = bits == 64 ? 2 : 1;
	LLVMValueRef data[8], v;

	/* 64-bit rows strided_load() left as halves (a copy): stored as halves. */
	if (bits == 64 && g->strand[in->d].all && !g->val[in->d]) {
		bits = 32;
		vec *= 2;
		er = 1;
	}
	for (unsigned j = 0; j < vec; j++)
		data[j] = get_elems(g, (in->d + j * er) % WEFT_NUM_REGS, bits);
	v = vec > 1 ? interleave(g, data, vec) : data[0];
	if (global)
		global_store(g, v, p, g->NL * vec * bits / 8);
	else
		LLVMSetAlignment(LLVMBuildStore(g->b, v, p), 1);
}

/*
 * Whether each lane of the integer vector @v is lane 0's plus @step times
 * the lane's index, as an i1.
 */
static LLVMValueRef lanes_step(struct gen *g, LLVMValueRef v, unsigned step)
{
	LLVMTypeRef vt = LLVMTypeOf(v), et = LLVMGetElementType(vt);
	LLVMValueRef lane[WEFT_MAX_LANES], want;

	for (unsigned l = 0; l < g->NL; l++)
		lane[l] = LLVMConstInt(et, (uint64_t)l * step, false);
	want = LLVMBuildShuffleVector(g->b, v, LLVMGetUndef(vt), LLVMConstNull(LLVMVectorType(g->i32, g->NL)), "");
	want = LLVMBuildAdd(g->b, want, LLVMConstVector(lane, g->NL), "");
	return all_lanes(g, LLVMBuildICmp(g->b, LLVMIntEQ, v, want, ""));
}

/*
 * Whether the 64-bit addresses in rows @r, @r+1 step by @step bytes (0, 4,
 * 8, 16 or 32) from lane to lane (0: all the same), as an i1.  An offset
 * moves every lane alike, so this is a property of the rows: computed once
 * per block.
 */
static LLVMValueRef address_shape(struct gen *g, unsigned r, unsigned step)
{
	unsigned kind = step ? __builtin_ctz(step) - 1 : 0;
	LLVMValueRef base, lane_step;

	if (g->contig[r][kind])
		return g->contig[r][kind];
	if (lin64(g, r, &base, &lane_step))
		return LLVMBuildICmp(g->b, LLVMIntEQ, lane_step, c64(g, step), "");
	g->contig[r][kind] = lanes_step(g, get64(g, r), step);
	return g->contig[r][kind];
}

/* Lane 0's address of the access @in (register a + the offset), an i64: from a known value without a vector. */
static LLVMValueRef lane0_address(struct gen *g, const struct weft_inst *in)
{
	LLVMValueRef u, step;

	if (!lin64(g, in->a, &u, &step))
		u = LLVMBuildExtractElement(g->b, get64(g, in->a), c32(g, 0), "");
	return LLVMBuildAdd(g->b, u, c64(g, (uint64_t)(int64_t)(int32_t)in->imm), "a0");
}

/* Whether [@a0, @a0 + @bytes) lies in one page. */
static LLVMValueRef in_page(struct gen *g, LLVMValueRef a0, unsigned bytes)
{
	LLVMValueRef off = LLVMBuildAnd(g->b, a0, c64(g, WEFT_MMU_PAGE_SIZE - 1), "");

	return LLVMBuildICmp(g->b, LLVMIntULE, LLVMBuildAdd(g->b, off, c64(g, bytes), ""),
			     c64(g, WEFT_MMU_PAGE_SIZE), "");
}

/* @v (an i32 or i64) in every lane. */
static LLVMValueRef broadcast(struct gen *g, LLVMValueRef v)
{
	LLVMTypeRef vt = LLVMVectorType(LLVMTypeOf(v), g->NL);

	v = LLVMBuildInsertElement(g->b, LLVMGetUndef(vt), v, c32(g, 0), "");
	return LLVMBuildShuffleVector(g->b, v, LLVMGetUndef(vt),
				      LLVMConstNull(LLVMVectorType(g->i32, g->NL)), "");
}

/* weft_tlb_slot() of @vpn, an i64 or a <simd x i64>. */
static LLVMValueRef tlb_slot(struct gen *g, LLVMValueRef vpn)
{
	bool vec = LLVMGetTypeKind(LLVMTypeOf(vpn)) == LLVMVectorTypeKind;
	LLVMValueRef golden = c64(g, 0x9e3779b97f4a7c15ull), shift = c64(g, 64 - WEFT_TLB_BITS);

	return LLVMBuildLShr(g->b, LLVMBuildMul(g->b, vpn, vec ? splat(g, golden) : golden, ""),
			     vec ? splat(g, shift) : shift, "slot");
}

/*
 * The TLB entry of the page of @a0 looked up inline (weft_tlb_slot()):
 * whether it hits (with write permission for a @store), as an i1; *@vpn the
 * page number, *@host the page's host address.
 */
static LLVMValueRef tlb_lookup(struct gen *g, LLVMValueRef a0, bool store, LLVMValueRef *vpn,
			       LLVMValueRef *host)
{
	LLVMValueRef slot, e, hit;

	*vpn = LLVMBuildLShr(g->b, a0, c64(g, WEFT_MMU_PAGE_SHIFT), "vpn");
	slot = tlb_slot(g, *vpn);
	e = byte_ptr(g, g->mmu, LLVMBuildAdd(g->b, c64(g, offsetof(struct weft_mmu, tlb)),
					     LLVMBuildMul(g->b, slot, c64(g, sizeof(struct weft_tlb_entry)), ""), ""));
	hit = LLVMBuildAnd(g->b,
			   LLVMBuildICmp(g->b, LLVMIntEQ, LLVMBuildLoad2(g->b, g->i64, byte_ptr(g, e,
					 c64(g, offsetof(struct weft_tlb_entry, vpn))), ""), *vpn, ""),
			   LLVMBuildICmp(g->b, LLVMIntEQ, LLVMBuildLoad2(g->b, g->i64, byte_ptr(g, e,
					 c64(g, offsetof(struct weft_tlb_entry, gen))), ""),
					 LLVMBuildLoad2(g->b, g->i64, byte_ptr(g, g->mmu,
							c64(g, offsetof(struct weft_mmu, gen))), ""), ""), "hit");
	if (store) {
		LLVMValueRef pte = LLVMBuildLoad2(g->b, g->i64, byte_ptr(g, e,
						  c64(g, offsetof(struct weft_tlb_entry, pte))), "");

		hit = LLVMBuildAnd(g->b, hit, LLVMBuildICmp(g->b, LLVMIntNE,
			LLVMBuildAnd(g->b, pte, c64(g, WEFT_PTE_WRITE), ""), c64(g, 0), ""), "");
	}
	*host = LLVMBuildLoad2(g->b, g->ptr, byte_ptr(g, e, c64(g, offsetof(struct weft_tlb_entry, host))), "");
	return hit;
}

/*
 * tlb_lookup() of an access with one page for all lanes in the optimizing
 * tier's variants for all lanes on (speculate_global(),
 * emit_block_access()), after a test of the page this site hit last (one
 * compare and one load; the hash and the entry's tests only when the page
 * changed): a run of sub-groups looks the argument buffer up once, and a
 * stream each of its pages.
 * The page is kept from a hit until the next call of C code (call_c()),
 * the only thing that can change the TLB while the translation runs (its
 * generation changes only between dispatches, when the call starts again
 * with no page kept), so a kept page is one the lookup would hit: with
 * write permission for a @store site, whose page is kept only after such
 * a hit.  A miss goes to @missed; else returns the page's host address.
 */
static LLVMValueRef page_lookup(struct gen *g, LLVMValueRef a0, bool store, LLVMBasicBlockRef missed)
{
	LLVMBasicBlockRef kept, lookup, keep, join, from[2];
	LLVMValueRef vpn, site_vpn, site_host, hit, host, at[2];
	LLVMBuilderRef b;

	if (!g->row_variants || !g->full || g->npage_sites == PAGE_SITES) {
		hit = tlb_lookup(g, a0, store, &vpn, &host);
		join = new_block(g, "page");
		LLVMBuildCondBr(g->b, hit, join, missed);
		LLVMPositionBuilderAtEnd(g->b, join);
		return host;
	}
	b = LLVMCreateBuilderInContext(g->C);
	LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(g->entry));
	site_vpn = g->page_vpn[g->npage_sites] = LLVMBuildAlloca(b, g->i64, "page_vpn");
	site_host = g->page_host[g->npage_sites++] = LLVMBuildAlloca(b, g->ptr, "page_host");
	LLVMBuildStore(b, c64(g, UINT64_MAX), site_vpn);
	LLVMDisposeBuilder(b);

	kept = new_block(g, "page_kept");
	lookup = new_block(g, "page_lookup");
	keep = new_block(g, "page_keep");
	join = new_block(g, "page");
	vpn = LLVMBuildLShr(g->b, a0, c64(g, WEFT_MMU_PAGE_SHIFT), "vpn");
	LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, vpn, LLVMBuildLoad2(g->b, g->i64, site_vpn, ""), ""),
			kept, lookup);
	LLVMPositionBuilderAtEnd(g->b, kept);
	at[0] = LLVMBuildLoad2(g->b, g->ptr, site_host, "");
	from[0] = kept;
	LLVMBuildBr(g->b, join);
	LLVMPositionBuilderAtEnd(g->b, lookup);
	hit = tlb_lookup(g, a0, store, &vpn, &at[1]);
	LLVMBuildCondBr(g->b, hit, keep, missed);
	LLVMPositionBuilderAtEnd(g->b, keep);
	LLVMBuildStore(g->b, vpn, site_vpn);
	LLVMBuildStore(g->b, at[1], site_host);
	from[1] = keep;
	LLVMBuildBr(g->b, join);
	LLVMPositionBuilderAtEnd(g->b, join);
	host = LLVMBuildPhi(g->b, g->ptr, "host");
	LLVMAddIncoming(host, at, from, 2);
	return host;
}

/* After every call of C code (call_c()), no site of page_lookup() keeps a page. */
static void forget_pages(struct gen *g)
{
	if (!g->npage_sites)
		return;
	for (unsigned k = 0; k < g->ncalls; k++) {
		LLVMPositionBuilderBefore(g->b, LLVMGetNextInstruction(g->calls[k]));
		for (unsigned site = 0; site < g->npage_sites; site++)
			LLVMBuildStore(g->b, c64(g, UINT64_MAX), g->page_vpn[site]);
	}
}

/*
 * The pages of the lanes in @mask (addresses @va[lane]) put in @mmu's TLB,
 * as the interpreter's access of those lanes does before it touches them.
 * A page that does not translate is not put there: the retry then misses
 * again and the interpreter's handler reports the fault.
 */
static void tlb_fill(struct weft_mmu *mmu, const uint64_t *va, uint32_t mask)
{
	uint64_t last = UINT64_MAX;
	struct weft_fault f;

	for (; mask; mask &= mask - 1) {
		uint64_t vpn = va[__builtin_ctz(mask)] >> WEFT_MMU_PAGE_SHIFT;

		/* The previous lane's page, just looked up: the same TLB state. */
		if (vpn == last)
			continue;
		last = vpn;
		weft_mmu_translate(mmu, va[__builtin_ctz(mask)], WEFT_ACC_READ, &f);
	}
}

/* Whether the TLB of @mmu holds page @vpn (writable for a @store): the inline lookup's hit. */
static const struct weft_tlb_entry *tlb_hit(const struct weft_mmu *mmu, uint64_t vpn, bool store)
{
	const struct weft_tlb_entry *e = weft_tlb_holds(mmu, vpn);

	return e && (!store || (e->pte & WEFT_PTE_WRITE)) ? e : NULL;
}

/*
 * The general case of global_paths(), out of line: lanes in any pages, the
 * page of each active lane (in @mask, address @va[lane]) looked up in the
 * TLB as tlb_lookup() does.  On a miss the pages are put there
 * (tlb_fill()) and looked up once more, as the interpreter's handler would
 * look them up: a streaming kernel misses once per page.  Returns 1 when
 * every active lane hits (writable for a store: bit 31 of @bytes_store)
 * with its access of the low bits' bytes inside its page, with its host
 * pointer in @va[lane], 2 when they do after the TLB was filled (then the
 * translation runs its inline paths once more: the vector path of a
 * stream's first access to a page); else 0 (the interpreter's handler
 * then reports the access).  Inline, its per-lane gathers were most of
 * the IR of a translated access.
 */
static int lane_pointers(struct weft_mmu *mmu, uint64_t *va, uint32_t mask, uint32_t bytes_store)
{
	bool store = bytes_store >> 31;
	uint64_t bytes = bytes_store & 0x7fffffff;
	uint8_t *host[WEFT_MAX_LANES];

	for (int attempt = 0; attempt < 2; attempt++) {
		const struct weft_tlb_entry *e = NULL;
		uint32_t m;

		for (m = mask; m; m &= m - 1) {
			unsigned l = __builtin_ctz(m);
			uint64_t vpn = va[l] >> WEFT_MMU_PAGE_SHIFT;

			if (!e || e->vpn != vpn)
				e = tlb_hit(mmu, vpn, store);
			if (!e || (va[l] & (WEFT_MMU_PAGE_SIZE - 1)) + bytes > WEFT_MMU_PAGE_SIZE)
				break;
			host[l] = e->host + (va[l] & (WEFT_MMU_PAGE_SIZE - 1));
		}
		if (!m) {
			for (m = mask; m; m &= m - 1)
				va[__builtin_ctz(m)] = (uintptr_t)host[__builtin_ctz(m)];
			return attempt ? 2 : 1;
		}
		if (!attempt)
			tlb_fill(mmu, va, mask);
	}
	return 0;
}

/*
 * What global_paths() does when some active lane's access of @shape's
 * elements (bits 0-7: their bytes, 8-15: how many; bit 31: a store), at
 * @va[lane], crosses a page, as the last lane's v2 load of a[i] and
 * a[i + 1] does at the end of a page: each element is looked up on its
 * own, its page put in the TLB on a miss as tlb_fill() does.  Returns 1
 * with element j of lane l's host address in @ptrs[j * WEFT_MAX_LANES +
 * l] (and counts the access in @split), or 0 when an element crosses a
 * page, does not translate, or is not writable for a store: the
 * interpreter's handler then reports the access.  Before, the
 * interpreter's handler ran every such access: 12 % of the stencil's
 * time, for the 1.2 % of its sub-groups whose loads cross a page.
 */
static int element_pointers(struct weft_mmu *mmu, const uint64_t *va, uint32_t mask, uint32_t shape,
			    uint8_t **ptrs, _Atomic uint64_t *split)
{
	unsigned size = shape & 0xff, vec = shape >> 8 & 0xff;
	bool store = shape >> 31;
	struct weft_fault f;

	for (; mask; mask &= mask - 1) {
		unsigned l = __builtin_ctz(mask);

		for (unsigned j = 0; j < vec; j++) {
			uint64_t a = va[l] + (uint64_t)j * size, off = a & (WEFT_MMU_PAGE_SIZE - 1);
			const struct weft_tlb_entry *e = tlb_hit(mmu, a >> WEFT_MMU_PAGE_SHIFT, store);

			if (!e && weft_mmu_translate(mmu, a, WEFT_ACC_READ, &f))
				e = tlb_hit(mmu, a >> WEFT_MMU_PAGE_SHIFT, store);
			if (!e || off + size > WEFT_MMU_PAGE_SIZE)
				return 0;
			ptrs[j * WEFT_MAX_LANES + l] = e->host + off;
		}
	}
	atomic_fetch_add_explicit(split, 1, memory_order_relaxed);
	return 1;
}

/*
 * A path of @ps for a vector access @in (ld/st.global.v2/.v4) whose lanes
 * were found not to lie each in one page, from @at: element_pointers() on
 * the lanes' addresses @av and mask @mask; @slow when it fails.
 */
static void element_path(struct gen *g, struct paths *ps, const struct weft_inst *in, bool store,
			 LLVMValueRef av, LLVMValueRef mask, LLVMBasicBlockRef at, LLVMBasicBlockRef slow)
{
	unsigned size = weft_isa_type_bits(in->t) / 8, vec = weft_isa_ops[in->op].vec;
	LLVMTypeRef params[6] = { g->ptr, g->ptr, g->i32, g->i32, g->ptr, g->ptr };
	LLVMTypeRef pv = LLVMVectorType(g->ptr, g->NL);
	LLVMBasicBlockRef ok = new_block(g, "elements_ok");
	LLVMValueRef r, p[4];

	LLVMPositionBuilderAtEnd(g->b, at);
	LLVMSetAlignment(LLVMBuildStore(g->b, av, g->lanes_tmp), 8);
	r = call_c(g, LLVMFunctionType(g->i32, params, 6, false), (uintptr_t)element_pointers,
		   (LLVMValueRef[]){ g->mmu, g->lanes_tmp, mask,
				     c32(g, size | vec << 8 | (uint32_t)store << 31), g->elems_tmp,
				     const_ptr(g, (uintptr_t)g->split) }, 6, "");
	LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, r, c32(g, 0), ""), ok, slow);
	LLVMPositionBuilderAtEnd(g->b, ok);
	for (unsigned j = 0; j < vec; j++) {
		p[j] = LLVMBuildLoad2(g->b, pv, byte_ptr(g, g->elems_tmp,
							 c64(g, (uint64_t)j * WEFT_MAX_LANES * sizeof(void *))), "");
		LLVMSetAlignment(p[j], 8);
	}
	element_access(g, in, p, active(g), store);
	path_end(g, ps);
}

/*
 * An access whose inline TLB lookups miss fills the TLB (tlb_fill()) and
 * runs its guards again, once, instead of the interpreter's handler, which
 * would look every lane's page up again: a streaming kernel misses once
 * per page.  refill_begin() opens the block the retry goes back to;
 * refill_miss() returns the block a miss branches to.
 */
struct refill {
	LLVMBasicBlockRef head;
	LLVMValueRef tried;
};

static void refill_begin(struct gen *g, struct refill *rf)
{
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(g->b);
	LLVMValueRef no = LLVMConstInt(g->i1, 0, false);

	rf->head = new_block(g, "tlb");
	LLVMBuildBr(g->b, rf->head);
	LLVMPositionBuilderAtEnd(g->b, rf->head);
	rf->tried = LLVMBuildPhi(g->b, g->i1, "tried");
	LLVMAddIncoming(rf->tried, &no, &pre, 1);
}

/* The addresses @av of the lanes in @mask (an i32) are filled, then the guards run again; else @slow. */
static LLVMBasicBlockRef refill_miss(struct gen *g, struct refill *rf, LLVMValueRef av, LLVMValueRef mask,
				     LLVMBasicBlockRef slow)
{
	LLVMBasicBlockRef miss = new_block(g, "tlb_miss"), fill = new_block(g, "tlb_fill");
	LLVMBasicBlockRef at = LLVMGetInsertBlock(g->b);
	LLVMTypeRef params[3] = { g->ptr, g->ptr, g->i32 };
	LLVMValueRef args[3] = { g->mmu, g->lanes_tmp, mask }, yes = LLVMConstInt(g->i1, 1, false);

	LLVMPositionBuilderAtEnd(g->b, miss);
	LLVMBuildCondBr(g->b, rf->tried, slow, fill);
	LLVMPositionBuilderAtEnd(g->b, fill);
	LLVMSetAlignment(LLVMBuildStore(g->b, av, g->lanes_tmp), 8);
	call_c(g, LLVMFunctionType(LLVMVoidTypeInContext(g->C), params, 3, false), (uintptr_t)tlb_fill,
	       args, 3, "");
	LLVMBuildBr(g->b, rf->head);
	LLVMAddIncoming(rf->tried, &yes, &fill, 1);
	LLVMPositionBuilderAtEnd(g->b, at);
	return miss;
}

/*
 * The optimizing tier's general case of global_paths(), inline: every
 * active lane's page looked up in the TLB (tlb_lookup() lane by lane, the
 * entries gathered), for lanes whose accesses of @bytes at addresses @av
 * (offsets @offs in their pages) are not all in one page: *@ok whether
 * each active lane hits (with write permission for a @store) with its
 * access inside its page; returns the lanes' host pointers.  A column of
 * a transpose or the rows of a 2D sub-group take this path at every
 * access, where a call of lane_pointers() costs about 15 % more of the
 * kernel's time; the fast tier calls it, as its translation is smaller.
 */
static LLVMValueRef lane_pages(struct gen *g, LLVMValueRef av, LLVMValueRef offs, unsigned bytes,
			       bool store, LLVMValueRef on, LLVMValueRef *ok)
{
	LLVMTypeRef tys[2] = { g->vi64, LLVMVectorType(g->ptr, g->NL) };
	LLVMValueRef vpn, slot, e, gen, args[4], field[4], good;
	static const size_t at[4] = { offsetof(struct weft_tlb_entry, vpn),
				      offsetof(struct weft_tlb_entry, gen),
				      offsetof(struct weft_tlb_entry, host),
				      offsetof(struct weft_tlb_entry, pte) };

	vpn = LLVMBuildLShr(g->b, av, splat(g, c64(g, WEFT_MMU_PAGE_SHIFT)), "");
	slot = LLVMBuildAdd(g->b, LLVMBuildMul(g->b, tlb_slot(g, vpn), splat(g, c64(g, sizeof(struct weft_tlb_entry))), ""),
			    splat(g, c64(g, offsetof(struct weft_mmu, tlb))), "");
	e = LLVMBuildGEP2(g->b, g->i8, g->mmu, &slot, 1, "");
	for (unsigned k = 0; k < (store ? 4u : 3u); k++) {
		LLVMValueRef off = splat(g, c64(g, at[k]));

		args[0] = LLVMBuildGEP2(g->b, g->i8, e, &off, 1, "");
		args[1] = c32(g, 8);
		args[2] = on;
		args[3] = LLVMConstNull(g->vi64);
		field[k] = intrinsic(g, "llvm.masked.gather", tys, 2, args, 4);
	}
	gen = LLVMBuildLoad2(g->b, g->i64, byte_ptr(g, g->mmu, c64(g, offsetof(struct weft_mmu, gen))), "");
	good = LLVMBuildAnd(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, field[0], vpn, ""),
			    LLVMBuildICmp(g->b, LLVMIntEQ, field[1], broadcast(g, gen), ""), "");
	good = LLVMBuildAnd(g->b, good, LLVMBuildICmp(g->b, LLVMIntULE,
			    LLVMBuildAdd(g->b, offs, splat(g, c64(g, bytes)), ""),
			    splat(g, c64(g, WEFT_MMU_PAGE_SIZE)), ""), "");
	if (store)
		good = LLVMBuildAnd(g->b, good, LLVMBuildICmp(g->b, LLVMIntNE,
				    LLVMBuildAnd(g->b, field[3], splat(g, c64(g, WEFT_PTE_WRITE)), ""),
				    LLVMConstNull(g->vi64), ""), "");
	*ok = all_lanes(g, LLVMBuildOr(g->b, good, LLVMBuildNot(g->b, on, ""), ""));
	return LLVMBuildGEP2(g->b, g->i8, LLVMBuildIntToPtr(g->b, field[2], tys[1], ""), &offs, 1, "");
}

/* A load of 32/64-bit elements at one host address @p, broadcast to the active lanes. */
static void uniform_load(struct gen *g, const struct weft_inst *in, LLVMValueRef p, LLVMValueRef on)
{
	unsigned bits = weft_isa_type_bits(in->t), vec = weft_isa_ops[in->op].vec;
	unsigned rows = bits == 64 ? 2 : 1;

	for (unsigned j = 0; j < vec; j++) {
		LLVMValueRef v = LLVMBuildLoad2(g->b, bits == 64 ? g->i64 : g->i32,
						byte_ptr(g, p, c64(g, (uint64_t)j * bits / 8)), "");

		LLVMSetAlignment(v, 1);
		set_elems(g, (in->d + j * rows) % WEFT_NUM_REGS, broadcast(g, v), bits, 'u', on);
	}
}

/*
 * ld/st.global (and .v2, .v4) of 32/64-bit elements: the first active
 * lane's page looked up in the TLB inline (weft_tlb_slot()), a
 * hit (with write permission for a store) when the page is mapped and
 * translated before.  On a hit:
 * - an access by every lane at consecutive addresses inside the page (a
 *   float4 per lane, one after the other): one vector access, and
 *   shuffles between the lanes' elements and the rows;
 * - a load from one address in every lane (kernel arguments, uniform
 *   values): one load per element, broadcast to the active lanes.
 * Every other access (and every one of 8/16-bit elements) calls
 * lane_pointers(), which looks every active lane's page up: the lanes then
 * go through host pointers (the builder is left in @lanes, the pointers
 * returned).  When it had to fill the TLB, the paths above run once more
 * first.  Anything else (a page crossed, a fault): @slow.
 */
static LLVMValueRef global_paths(struct gen *g, struct paths *ps, const struct weft_inst *in,
				 bool store, LLVMBasicBlockRef lanes, LLVMBasicBlockRef slow)
{
	unsigned bits = weft_isa_type_bits(in->t), size = bits / 8, NL = g->NL;
	unsigned vec = weft_isa_ops[in->op].vec, bytes = size * vec, rows = bits == 64 ? 2 : 1;
	bool whole = size >= 4;
	LLVMValueRef mask, av, a0, vpn = NULL, hit = NULL, host = NULL, ptrs, on = active(g);
	LLVMValueRef contig = NULL, uni = NULL, pm = c64(g, WEFT_MMU_PAGE_SIZE - 1);
	LLVMBasicBlockRef fb, ub, test;
	LLVMTypeRef params[4] = { g->ptr, g->ptr, g->i32, g->i32 };
	LLVMBasicBlockRef some, again;
	LLVMValueRef yes = LLVMConstInt(g->i1, 1, false);
	/* A vector whose lanes do not each lie in one page: element_path(). */
	LLVMBasicBlockRef crossed = whole && vec > 1 ? new_block(g, "elements") : slow;
	struct refill rf;

	refill_begin(g, &rf);
	mask = LLVMBuildLoad2(g->b, g->i32, g->maskp, "mask");
	av = LLVMBuildAdd(g->b, get64(g, in->a),
			  splat(g, c64(g, (uint64_t)(int64_t)(int32_t)in->imm)), "");
	if (whole) {
		LLVMValueRef full = g->full ? LLVMConstInt(g->i1, 1, false) :
				    LLVMBuildICmp(g->b, LLVMIntEQ, mask, every_lane(g), "");
		/* No lane active: lane 0 (then nothing is accessed). */
		LLVMValueRef first = g->full ? c32(g, 0) : first_active(g);

		a0 = g->full ? lane0_address(g, in) : LLVMBuildExtractElement(g->b, av, first, "a0");
		hit = tlb_lookup(g, a0, store, &vpn, &host);
		contig = LLVMBuildAnd(g->b, LLVMBuildAnd(g->b, full, address_shape(g, in->a, bytes), ""),
				      LLVMBuildAnd(g->b, in_page(g, a0, NL * bytes), hit, ""), "");
		if (!store)
			uni = LLVMBuildAnd(g->b, address_shape(g, in->a, 0),
					   LLVMBuildAnd(g->b, in_page(g, a0, bytes), hit, ""), "");
	}
	paths_begin(g, ps, in->d, store ? 0 : rows * vec);
	if (contig) {
		LLVMValueRef p = byte_ptr(g, host, LLVMBuildAnd(g->b, a0, pm, ""));

		fb = new_block(g, "vector");
		test = new_block(g, "uniform?");
		LLVMBuildCondBr(g->b, contig, fb, test);
		LLVMPositionBuilderAtEnd(g->b, fb);
		if (store) {
			contig_store(g, in, p, true);
		} else {
			contig_load(g, in, p, on);
			prefetch_ahead(g, p, NL * bytes);
		}
		path_end(g, ps);
		LLVMPositionBuilderAtEnd(g->b, test);
	}
	if (uni) {
		LLVMValueRef p = byte_ptr(g, host, LLVMBuildAnd(g->b, a0, pm, ""));

		ub = new_block(g, "uniform");
		test = new_block(g, "lanes?");
		LLVMBuildCondBr(g->b, uni, ub, test);
		LLVMPositionBuilderAtEnd(g->b, ub);
		uniform_load(g, in, p, on);
		path_end(g, ps);
		LLVMPositionBuilderAtEnd(g->b, test);
	}
	if (g->inline_pages && whole) {
		LLVMValueRef offs = LLVMBuildAnd(g->b, av, splat(g, pm), ""), same, ok, each[2];
		LLVMBasicBlockRef pages = new_block(g, "pages"), from[2];

		same = LLVMBuildAnd(g->b,
				    LLVMBuildICmp(g->b, LLVMIntEQ, LLVMBuildLShr(g->b, av,
						  splat(g, c64(g, WEFT_MMU_PAGE_SHIFT)), ""), broadcast(g, vpn), ""),
				    LLVMBuildICmp(g->b, LLVMIntULE, LLVMBuildAdd(g->b, offs, splat(g, c64(g, bytes)), ""),
						  splat(g, c64(g, WEFT_MMU_PAGE_SIZE)), ""), "");
		same = LLVMBuildAnd(g->b, hit, all_lanes(g, LLVMBuildOr(g->b, same, LLVMBuildNot(g->b, on, ""), "")), "");
		each[0] = LLVMBuildGEP2(g->b, g->i8, host, &offs, 1, "");
		from[0] = LLVMGetInsertBlock(g->b);
		LLVMBuildCondBr(g->b, same, lanes, pages);
		LLVMPositionBuilderAtEnd(g->b, pages);
		each[1] = lane_pages(g, av, offs, bytes, store, on, &ok);
		from[1] = LLVMGetInsertBlock(g->b);
		LLVMBuildCondBr(g->b, ok, lanes, refill_miss(g, &rf, av, mask, crossed));
		LLVMPositionBuilderAtEnd(g->b, lanes);
		ptrs = LLVMBuildPhi(g->b, LLVMTypeOf(each[0]), "ptrs");
		LLVMAddIncoming(ptrs, each, from, 2);
		if (crossed != slow) {
			element_path(g, ps, in, store, av, mask, crossed, slow);
			LLVMPositionBuilderAtEnd(g->b, lanes);
		}
		return ptrs;
	}
	/* The general case, tested last and out of line: the vector and
	 * uniform paths do not pay for its per-lane page tests. */
	LLVMSetAlignment(LLVMBuildStore(g->b, av, g->lanes_tmp), 8);
	hit = call_c(g, LLVMFunctionType(g->i32, params, 4, false), (uintptr_t)lane_pointers,
		     (LLVMValueRef[]){ g->mmu, g->lanes_tmp, mask, c32(g, bytes | (uint32_t)store << 31) },
		     4, "");
	some = new_block(g, "filled?");
	again = new_block(g, "again");
	LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, hit, c32(g, 0), ""), some, crossed);
	LLVMPositionBuilderAtEnd(g->b, some);
	LLVMBuildCondBr(g->b, LLVMBuildAnd(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, hit, c32(g, 2), ""),
					  LLVMBuildNot(g->b, rf.tried, ""), ""), again, lanes);
	LLVMPositionBuilderAtEnd(g->b, again);
	LLVMBuildBr(g->b, rf.head);
	LLVMAddIncoming(rf.tried, &yes, &again, 1);
	if (crossed != slow)
		element_path(g, ps, in, store, av, mask, crossed, slow);
	LLVMPositionBuilderAtEnd(g->b, lanes);
	ptrs = LLVMBuildLoad2(g->b, LLVMVectorType(g->ptr, NL), g->lanes_tmp, "ptrs");
	LLVMSetAlignment(ptrs, 8);
	return ptrs;
}

/*
 * ld.local of one 32/64-bit element at a picked address (struct pick)
 * whose known lanes step by the element's size: when the picked lanes'
 * accesses, from the first one's to the last lane's end, and the other
 * lanes' uniform access lie inside the dispatch's SLM of @limit bytes
 * (an i64), one masked vector load of the picked lanes over a broadcast
 * load of the other address, at @slm: a path of @ps.  A picked lane's
 * 32-bit address that wraps fails the bound, as one below the first
 * picked lane's is never read.
 */
static void picked_local_path(struct gen *g, struct paths *ps, const struct weft_inst *in,
			      LLVMValueRef limit, LLVMValueRef slm)
{
	const struct pick *pk = &g->pick[in->a];
	unsigned bits = weft_isa_type_bits(in->t), bytes = bits / 8, NL = g->NL;
	LLVMTypeRef iNL = LLVMIntTypeInContext(g->C, NL), et = LLVMIntTypeInContext(g->C, bits);
	LLVMTypeRef tys[2] = { LLVMVectorType(et, NL), g->ptr };
	LLVMValueRef first, at_first, at_other, fits, other, p, args[4];
	LLVMBasicBlockRef fast = new_block(g, "local_picked"), lanes = new_block(g, "local_lanes?");

	first = intrinsic(g, "llvm.cttz", &iNL, 1,
			  (LLVMValueRef[]){ LLVMBuildBitCast(g->b, pk->cond, iNL, ""),
					    LLVMConstInt(g->i1, 0, false) }, 2);
	first = LLVMBuildZExt(g->b, first, g->i64, "first");
	at_first = LLVMBuildAdd(g->b, LLVMBuildAdd(g->b, pk->u, c64(g, in->imm), ""),
				LLVMBuildMul(g->b, first, pk->step, ""), "");
	at_first = LLVMBuildZExt(g->b, LLVMBuildTrunc(g->b, at_first, g->i32, ""), g->i64, "");
	at_other = LLVMBuildZExt(g->b, LLVMBuildTrunc(g->b, LLVMBuildAdd(g->b, pk->other, c64(g, in->imm), ""),
						      g->i32, ""), g->i64, "");
	fits = LLVMBuildAnd(g->b,
			    LLVMBuildICmp(g->b, LLVMIntULE,
					  LLVMBuildAdd(g->b, at_first,
						       LLVMBuildMul(g->b, LLVMBuildSub(g->b, c64(g, NL), first, ""),
								    c64(g, bytes), ""), ""), limit, ""),
			    LLVMBuildICmp(g->b, LLVMIntULE, LLVMBuildAdd(g->b, at_other, c64(g, bytes), ""),
					  limit, ""), "");
	LLVMBuildCondBr(g->b, fits, fast, lanes);
	LLVMPositionBuilderAtEnd(g->b, fast);
	other = LLVMBuildLoad2(g->b, et, byte_ptr(g, slm, at_other), "");
	LLVMSetAlignment(other, 1);
	/* Lane 0's place, below the first picked lane's: never read. */
	p = LLVMBuildGEP2(g->b, g->i8, slm,
			  (LLVMValueRef[]){ LLVMBuildSub(g->b, at_first,
							 LLVMBuildMul(g->b, first, c64(g, bytes), ""), "") }, 1, "");
	args[0] = p;
	args[1] = c32(g, 1);
	args[2] = pk->cond;
	args[3] = broadcast(g, other);
	set_elems(g, in->d, intrinsic(g, "llvm.masked.load", tys, 2, args, 4), bits, 'u', active(g));
	path_end(g, ps);
	LLVMPositionBuilderAtEnd(g->b, lanes);
}

/*
 * A path of @ps for ld/st.local @in with every lane on, when @shape (NULL:
 * known true) holds and the access from lane 0's 32-bit address @a0 (an
 * i64) to the last lane's end lies inside the dispatch's SLM of @limit
 * bytes (so no lane's 32-bit address wrapped around): one vector access
 * (@vector: the lanes step by the access's size), or one load per element
 * (one address in every lane), at @slm + @a0.
 */
static void local_path(struct gen *g, struct paths *ps, const struct weft_inst *in, bool store, bool vector,
		       LLVMValueRef shape, LLVMValueRef a0, LLVMValueRef limit, LLVMValueRef slm)
{
	unsigned bytes = weft_isa_type_bits(in->t) / 8 * weft_isa_ops[in->op].vec;
	LLVMValueRef end = LLVMBuildAdd(g->b, a0, c64(g, vector ? (uint64_t)g->NL * bytes : bytes), "");
	LLVMValueRef ok = LLVMBuildICmp(g->b, LLVMIntULE, end, limit, ""), p;
	LLVMBasicBlockRef fast = new_block(g, vector ? "local_vector" : "local_uniform");
	LLVMBasicBlockRef other = new_block(g, "local_lanes?");

	if (shape)
		ok = LLVMBuildAnd(g->b, shape, ok, "");
	LLVMBuildCondBr(g->b, ok, fast, other);
	LLVMPositionBuilderAtEnd(g->b, fast);
	p = byte_ptr(g, slm, a0);
	if (vector && store)
		contig_store(g, in, p, false);
	else if (vector)
		contig_load(g, in, p, active(g));
	else
		uniform_load(g, in, p, active(g));
	path_end(g, ps);
	LLVMPositionBuilderAtEnd(g->b, other);
}

/*
 * ld/st.local of 32/64-bit elements with every lane on, at an address
 * known (struct lin) to step by the access's size from lane to lane, or a
 * load at one address in every lane: local_path().  In the optimizing
 * tier, at addresses not known so, the same paths when a test at run time
 * finds them stepping so, or all the same for a load (an SGEMM's tile
 * rows and columns, whose addresses its loop's blocks do not know).  The
 * builder is left where the other paths start.
 */
static void known_local_paths(struct gen *g, struct paths *ps, const struct weft_inst *in, bool store,
			      LLVMValueRef limit, LLVMValueRef slm)
{
	unsigned bits = weft_isa_type_bits(in->t), vec = weft_isa_ops[in->op].vec;
	unsigned bytes = bits / 8 * vec;
	const struct lin *l = lin32(g, in->a);
	LLVMValueRef u, a0;
	bool vector;

	if (!g->full || bits < 32)
		return;
	if (l) {
		vector = is_const(l->step, bytes);
		if (!vector && (store || !is_const(l->step, 0)))
			return;
		u = l->u;
	} else if (!store && vec == 1 && g->pick[in->a].cond && is_const(g->pick[in->a].step, bytes)) {
		picked_local_path(g, ps, in, limit, slm);
		return;
	} else if (g->row_variants) {
		u = LLVMBuildZExt(g->b, LLVMBuildExtractElement(g->b, get(g, in->a), c32(g, 0), ""), g->i64, "");
	} else {
		return;
	}
	a0 = LLVMBuildZExt(g->b, LLVMBuildTrunc(g->b, LLVMBuildAdd(g->b, u, c64(g, in->imm), ""),
						g->i32, ""), g->i64, "");
	if (l) {
		local_path(g, ps, in, store, vector, NULL, a0, limit, slm);
		return;
	}
	/*
	 * Whether the lanes step by the access's size, or all share one
	 * address: tested within the access's paths, which forget what they
	 * derive (LLVM's CSE merges a block's copies).
	 */
	local_path(g, ps, in, store, true, lanes_step(g, get(g, in->a), bytes), a0, limit, slm);
	if (!store)
		local_path(g, ps, in, false, false, lanes_step(g, get(g, in->a), 0), a0, limit, slm);
}

/*
 * ld/st.local and .scratch: every active lane's access inside the
 * dispatch's SLM or per-item scratch size, through host pointers (the
 * builder is left in @lanes, the pointers returned); else @slow, where the
 * interpreter reports the access.
 */
static LLVMValueRef private_paths(struct gen *g, struct paths *ps, const struct weft_inst *in,
				  bool store, LLVMBasicBlockRef lanes, LLVMBasicBlockRef slow)
{
	unsigned bits = weft_isa_type_bits(in->t), vec = weft_isa_ops[in->op].vec, NL = g->NL;
	unsigned op = in->op;
	bool local = !(op == WEFT_OP_LD_SCRATCH || op == WEFT_OP_ST_SCRATCH ||
		       op == WEFT_OP_LD_SCRATCH_V4 || op == WEFT_OP_ST_SCRATCH_V4);
	LLVMValueRef on = active(g), a, dp, limit, limits, bad, base, idx, lane[WEFT_MAX_LANES];
	LLVMTypeRef iNL = LLVMIntTypeInContext(g->C, NL);

	dp = LLVMBuildLoad2(g->b, g->ptr, byte_ptr(g, g->c, c64(g, offsetof(struct sg_ctx, dp))), "dp");
	limit = LLVMBuildLoad2(g->b, g->i32, byte_ptr(g, dp, c64(g, local ?
			       offsetof(struct weft_dispatch_params, slm) :
			       offsetof(struct weft_dispatch_params, scratch))), "limit");
	limit = LLVMBuildZExt(g->b, limit, g->i64, "");
	base = ctx_load(g, local ? offsetof(struct weft_jit_ctx, slm) : offsetof(struct weft_jit_ctx, scratch),
			g->ptr, "");
	paths_begin(g, ps, in->d, store ? 0 : vec * (bits == 64 ? 2 : 1));
	if (local)
		known_local_paths(g, ps, in, store, limit, base);
	a = LLVMBuildZExt(g->b, LLVMBuildAdd(g->b, get(g, in->a), splat(g, c32(g, in->imm)), ""),
			  g->vi64, "");
	limits = broadcast(g, limit);
	bad = LLVMBuildAnd(g->b, on, LLVMBuildICmp(g->b, LLVMIntUGT,
			   LLVMBuildAdd(g->b, a, splat(g, c64(g, (uint64_t)bits / 8 * vec)), ""), limits, ""), "");
	bad = LLVMBuildICmp(g->b, LLVMIntNE, LLVMBuildBitCast(g->b, bad, iNL, ""), LLVMConstNull(iNL), "");
	idx = a;
	if (!local) {
		/* Lane l's private bytes start at l * limit in the slot's. */
		for (unsigned l = 0; l < NL; l++)
			lane[l] = c64(g, l);
		idx = LLVMBuildAdd(g->b, idx, LLVMBuildMul(g->b, LLVMConstVector(lane, NL), limits, ""), "");
	}
	idx = LLVMBuildGEP2(g->b, g->i8, base, &idx, 1, "");
	LLVMBuildCondBr(g->b, bad, slow, lanes);
	LLVMPositionBuilderAtEnd(g->b, lanes);
	return idx;
}

static bool ends_block(const struct weft_inst *in);

/*
 * The block from instruction @i: the word after its last instruction,
 * which *@last receives, and in *@n (if not NULL) the number of its
 * instructions from @i.
 */
static unsigned block_end(const struct gen *g, unsigned i, unsigned *last, unsigned *n)
{
	const struct kernel *k = g->k;
	unsigned count = 0;

	do {
		*last = i;
		count++;
		i += k->insts[i].nwords;
	} while (!ends_block(&k->insts[*last]) && i < k->nw && !g->leader[i]);
	if (n)
		*n = count;
	return i;
}

/* Instructions from @i to the end of its block. */
static unsigned block_rest(const struct gen *g, unsigned i)
{
	unsigned last, n;

	block_end(g, i, &last, &n);
	return n;
}

/*
 * The block's variant being emitted goes on in its tail from instruction
 * @i (a block of its own, emitted after the variant by emit_variant()):
 * the rows it assigned are stored here, as at the block's end.
 */
static void leave_for_tail(struct gen *g, unsigned i)
{
	LLVMBasicBlockRef tail = new_block(g, "tail");
	struct view v;

	view_save(g, &v);
	flush(g, NULL, 0);
	LLVMBuildBr(g->b, tail);
	view_restore(g, &v);
	g->tails[g->ntails++] = (struct tail){ .i = i, .bb = tail };
	g->tail_insts += block_rest(g, i);
}

/*
 * ld/st.global of 32/64-bit elements at an address known (struct lin) to
 * step by the access's size from lane to lane, with every lane on, or a
 * load at one address in every lane: only the vector or uniform path of
 * global_paths(), from lane 0's address with no vector of addresses.
 * Anything else (a TLB miss, a page crossed) leaves the block's variant
 * for its tail, which runs the instruction with every path.  A uniform
 * load's rows stay known.  False (nothing emitted) when the address is
 * not known so, or the variant has all the tails it may have.
 */
static bool speculate_global(struct gen *g, unsigned i, const struct weft_inst *in, bool store)
{
	unsigned bits = weft_isa_type_bits(in->t), size = bits / 8, vec = weft_isa_ops[in->op].vec;
	unsigned bytes = size * vec, rows = bits == 64 ? 2 : 1;
	LLVMValueRef u, step, a0, host, ok, p;
	LLVMBasicBlockRef fast, other;
	bool vector, overlap, uniform;

	if (!g->speculate || size < 4 || g->ntails == MAX_TAILS || !lin64(g, in->a, &u, &step) ||
	    g->tail_insts + block_rest(g, i) > TAIL_INSTS)
		return false;
	vector = is_const(step, bytes);
	/* A vector load at addresses one element apart (a[i] and a[i + 1]
	 * merged): each element's row is a vector of consecutive elements. */
	overlap = !store && vec > 1 && is_const(step, size);
	uniform = !store && is_const(step, 0);
	if (!vector && !overlap && !uniform)
		return false;
	a0 = lane0_address(g, in);
	fast = new_block(g, vector || overlap ? "vector" : "uniform");
	other = new_block(g, "leave");
	host = page_lookup(g, a0, store, other);
	ok = in_page(g, a0, vector ? g->NL * bytes : overlap ? (g->NL - 1) * size + bytes : bytes);
	LLVMBuildCondBr(g->b, ok, fast, other);
	LLVMPositionBuilderAtEnd(g->b, other);
	leave_for_tail(g, i);
	LLVMPositionBuilderAtEnd(g->b, fast);
	p = byte_ptr(g, host, LLVMBuildAnd(g->b, a0, c64(g, WEFT_MMU_PAGE_SIZE - 1), ""));
	if (vector && store) {
		contig_store(g, in, p, true);
	} else if (vector || overlap) {
		strided_load(g, in, p, active(g), vector ? vec : 1);
		prefetch_ahead(g, p, vector ? g->NL * bytes : (g->NL - 1) * size + bytes);
	} else {
		for (unsigned j = 0; j < vec; j++) {
			LLVMValueRef v = LLVMBuildLoad2(g->b, bits == 64 ? g->i64 : g->i32,
							byte_ptr(g, p, c64(g, (uint64_t)j * size)), "");
			unsigned d = (in->d + j * rows) % WEFT_NUM_REGS;

			LLVMSetAlignment(v, 1);
			if (bits == 64)
				set_lin64(g, d, v, c64(g, 0));
			else
				set_lin(g, d, LLVMBuildZExt(g->b, v, g->i64, ""), c64(g, 0), false);
		}
	}
	return true;
}

/* Memory access of the ld/st and ldx/stx classes other than blocks and images. */
static void emit_mem(struct gen *g, unsigned i, const struct weft_inst *in)
{
	unsigned cls = weft_isa_ops[in->op].cls;
	bool store = cls == WEFT_CLASS_ST || cls == WEFT_CLASS_STX;
	bool global = in->op == WEFT_OP_LD_GLOBAL || in->op == WEFT_OP_ST_GLOBAL ||
		      (in->op >= WEFT_OP_LD_GLOBAL_V2 && in->op <= WEFT_OP_ST_GLOBAL_V4);
	LLVMBasicBlockRef lanes, slow;
	LLVMValueRef ptrs, on = active(g);
	struct paths ps;

	if (global && speculate_global(g, i, in, store))
		return;
	lanes = new_block(g, "lanes");
	slow = new_block(g, "slow");
	ptrs = global ? global_paths(g, &ps, in, store, lanes, slow) :
			private_paths(g, &ps, in, store, lanes, slow);
	lane_access(g, in, ptrs, on, store);
	fast_path_end(g, &ps, slow, i, in);
}

/*
 * atom.local.* on 32-bit integers: with every active lane's address
 * aligned and inside the dispatch's SLM, lane after lane in lane order on
 * the work-group's SLM (which only this host thread touches while the
 * work-group runs: plain loads and stores are atomic enough); else the
 * interpreter's handler, which reports the access (before any lane
 * changed memory, in both ways).
 */
static void emit_local_atom(struct gen *g, unsigned i, const struct weft_inst *in)
{
	unsigned k = in->op - WEFT_OP_ATOM_LOCAL_ADD, NL = g->NL;
	bool sgn = in->t == WEFT_TYPE_S32;
	LLVMBasicBlockRef fast = new_block(g, "atom"), slow = new_block(g, "slow");
	LLVMValueRef on = active(g), a, dp, limit, bad, slm, b = NULL, c = NULL, olds;
	LLVMTypeRef iNL = LLVMIntTypeInContext(g->C, NL);
	struct paths ps;

	a = LLVMBuildZExt(g->b, get(g, in->a), g->vi64, "");
	dp = LLVMBuildLoad2(g->b, g->ptr, byte_ptr(g, g->c, c64(g, offsetof(struct sg_ctx, dp))), "dp");
	limit = LLVMBuildZExt(g->b, LLVMBuildLoad2(g->b, g->i32, byte_ptr(g, dp,
			      c64(g, offsetof(struct weft_dispatch_params, slm))), "slm_size"), g->i64, "");
	bad = LLVMBuildOr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, LLVMBuildAnd(g->b, a, splat(g, c64(g, 3)), ""),
					      LLVMConstNull(g->vi64), ""),
			  LLVMBuildICmp(g->b, LLVMIntUGT, LLVMBuildAdd(g->b, a, splat(g, c64(g, 4)), ""),
					broadcast(g, limit), ""), "");
	bad = LLVMBuildAnd(g->b, bad, on, "");
	bad = LLVMBuildICmp(g->b, LLVMIntNE, LLVMBuildBitCast(g->b, bad, iNL, ""), LLVMConstNull(iNL), "");
	if (k < WEFT_OP_ATOM_LOCAL_INC - WEFT_OP_ATOM_LOCAL_ADD)
		b = get(g, in->b);
	if (in->op == WEFT_OP_ATOM_LOCAL_CMPXCHG)
		c = get(g, in->c);
	paths_begin(g, &ps, in->d, 1);
	LLVMBuildCondBr(g->b, bad, slow, fast);
	LLVMPositionBuilderAtEnd(g->b, fast);
	slm = ctx_load(g, offsetof(struct weft_jit_ctx, slm), g->ptr, "slm");
	olds = LLVMGetUndef(g->vi32);
	for (unsigned l = 0; l < NL; l++) {
		LLVMValueRef lane = c32(g, l), lane_on = LLVMBuildExtractElement(g->b, on, lane, "");
		/* An inactive lane reads and rewrites byte 0 of the SLM, which is always there. */
		LLVMValueRef off = LLVMBuildSelect(g->b, lane_on, LLVMBuildExtractElement(g->b, a, lane, ""),
						   c64(g, 0), "");
		LLVMValueRef p = byte_ptr(g, slm, off), old = LLVMBuildLoad2(g->b, g->i32, p, "old"), x = NULL, nv;

		LLVMSetAlignment(old, 4);
		if (b)
			x = LLVMBuildExtractElement(g->b, b, lane, "");
		switch (in->op) {
		case WEFT_OP_ATOM_LOCAL_ADD: nv = LLVMBuildAdd(g->b, old, x, ""); break;
		case WEFT_OP_ATOM_LOCAL_SUB: nv = LLVMBuildSub(g->b, old, x, ""); break;
		case WEFT_OP_ATOM_LOCAL_MIN:
			nv = LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, sgn ? LLVMIntSLT : LLVMIntULT, old, x, ""),
					     old, x, "");
			break;
		case WEFT_OP_ATOM_LOCAL_MAX:
			nv = LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, sgn ? LLVMIntSLT : LLVMIntULT, old, x, ""),
					     x, old, "");
			break;
		case WEFT_OP_ATOM_LOCAL_AND: nv = LLVMBuildAnd(g->b, old, x, ""); break;
		case WEFT_OP_ATOM_LOCAL_OR: nv = LLVMBuildOr(g->b, old, x, ""); break;
		case WEFT_OP_ATOM_LOCAL_XOR: nv = LLVMBuildXor(g->b, old, x, ""); break;
		case WEFT_OP_ATOM_LOCAL_XCHG: nv = x; break;
		case WEFT_OP_ATOM_LOCAL_CMPXCHG:
			nv = LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, old, x, ""),
					     LLVMBuildExtractElement(g->b, c, lane, ""), old, "");
			break;
		case WEFT_OP_ATOM_LOCAL_INC: nv = LLVMBuildAdd(g->b, old, c32(g, 1), ""); break;
		default: nv = LLVMBuildSub(g->b, old, c32(g, 1), "");
		}
		LLVMSetAlignment(LLVMBuildStore(g->b, LLVMBuildSelect(g->b, lane_on, nv, old, ""), p), 4);
		olds = LLVMBuildInsertElement(g->b, olds, old, lane, "");
	}
	set_masked(g, in->d, olds, on);
	fast_path_end(g, &ps, slow, i, in);
}

/*
 * ld/st.block*: with every lane active, the whole block inside one page
 * and a TLB hit, each row of @simd elements is one vector access at the
 * first lane's address (a store of whole lines can stream), and a load
 * prefetches for later sub-groups as a vector load of the same span does;
 * else the interpreter's handler.
 */
static void emit_block_access(struct gen *g, unsigned i, const struct weft_inst *in)
{
	unsigned bits = weft_isa_type_bits(in->t), size = bits / 8, vec = weft_isa_ops[in->op].vec;
	unsigned NL = g->NL, er = bits == 64 ? 2 : 1;
	bool store = weft_isa_ops[in->op].cls == WEFT_CLASS_STX;
	LLVMBasicBlockRef fast = new_block(g, "block"), slow = new_block(g, "slow"), missed;
	LLVMValueRef on = active(g), mask, a0, host, ok, p0;
	LLVMTypeRef vt = LLVMVectorType(LLVMIntTypeInContext(g->C, bits), NL);
	struct paths ps;
	struct refill rf;

	refill_begin(g, &rf);
	mask = LLVMBuildLoad2(g->b, g->i32, g->maskp, "mask");
	a0 = g->full ? lane0_address(g, in) :
		LLVMBuildAdd(g->b, LLVMBuildExtractElement(g->b, get64(g, in->a), first_active(g), ""),
			     c64(g, (uint64_t)(int64_t)(int32_t)in->imm), "a0");
	/* A miss fills the page of the block (the first active lane's address). */
	missed = refill_miss(g, &rf, broadcast(g, a0),
			     LLVMBuildZExt(g->b, LLVMBuildICmp(g->b, LLVMIntNE, mask, c32(g, 0), ""), g->i32, ""),
			     slow);
	host = page_lookup(g, a0, store, missed);
	ok = LLVMBuildAnd(g->b, in_page(g, a0, vec * NL * size),
			  LLVMBuildICmp(g->b, LLVMIntEQ, mask, every_lane(g), ""), "");
	paths_begin(g, &ps, in->d, store ? 0 : vec * er);
	LLVMBuildCondBr(g->b, ok, fast, slow);
	LLVMPositionBuilderAtEnd(g->b, fast);
	p0 = byte_ptr(g, host, LLVMBuildAnd(g->b, a0, c64(g, WEFT_MMU_PAGE_SIZE - 1), ""));
	for (unsigned j = 0; j < vec; j++) {
		LLVMValueRef p = byte_ptr(g, p0, c64(g, (uint64_t)j * NL * size)), v;
		unsigned row = (in->d + j * er) % WEFT_NUM_REGS;

		if (store) {
			global_store(g, get_elems(g, row, bits), p, NL * size);
		} else {
			v = LLVMBuildLoad2(g->b, vt, p, "");
			LLVMSetAlignment(v, 1);
			set_elems(g, row, v, bits, 'u', on);
		}
	}
	if (!store)
		prefetch_ahead(g, p0, vec * NL * size);
	fast_path_end(g, &ps, slow, i, in);
}

/* Lane @idx[l] of @v in lane l (indices below the width), through memory. */
static LLVMValueRef permute(struct gen *g, LLVMValueRef v, LLVMValueRef idx)
{
	LLVMTypeRef tys[2] = { g->vi32, LLVMVectorType(g->ptr, g->NL) };
	LLVMValueRef args[4];

	LLVMSetAlignment(LLVMBuildStore(g->b, v, g->lanes_tmp), 4);
	args[0] = LLVMBuildGEP2(g->b, g->i32, g->lanes_tmp, &idx, 1, "");
	args[1] = c32(g, 4);
	args[2] = LLVMConstAllOnes(LLVMVectorType(g->i1, g->NL));
	args[3] = LLVMGetUndef(g->vi32);
	return intrinsic(g, "llvm.masked.gather", tys, 2, args, 4);
}

/*
 * Shuffles and broadcasts of 32- and 64-bit values: by an immediate, a
 * vector shuffle; by a register, a permutation through memory.  Source
 * lanes wrap at the width, as in shuffle_sources() of weft_exec.c.
 */
static void emit_shuffle(struct gen *g, const struct weft_inst *in)
{
	unsigned t = in->t ? in->t : WEFT_TYPE_U32, rows = weft_isa_type_bits(t) / 32, NL = g->NL;
	unsigned op = in->op;
	LLVMValueRef cidx[WEFT_MAX_LANES], src[2], idx = NULL, on = active(g);

	if (in->has_imm) {
		for (unsigned l = 0; l < NL; l++) {
			unsigned b = in->imm, s = op == WEFT_OP_SHFL_XOR ? l ^ b : op == WEFT_OP_SHFL_UP ? l - b :
				     op == WEFT_OP_SHFL_DOWN ? l + b : b;

			cidx[l] = c32(g, s & (NL - 1));
		}
	} else {
		LLVMValueRef rb = get(g, in->b);

		for (unsigned l = 0; l < NL; l++)
			cidx[l] = c32(g, l);
		switch (op) {
		case WEFT_OP_BCAST:
			idx = broadcast(g, LLVMBuildExtractElement(g->b, rb, first_active(g), ""));
			break;
		case WEFT_OP_SHFL_XOR:
			idx = LLVMBuildXor(g->b, LLVMConstVector(cidx, NL), rb, "");
			break;
		case WEFT_OP_SHFL_UP:
			idx = LLVMBuildSub(g->b, LLVMConstVector(cidx, NL), rb, "");
			break;
		case WEFT_OP_SHFL_DOWN:
			idx = LLVMBuildAdd(g->b, LLVMConstVector(cidx, NL), rb, "");
			break;
		default:
			idx = rb;
		}
		idx = LLVMBuildAnd(g->b, idx, splat(g, c32(g, NL - 1)), "");
	}
	for (unsigned r = 0; r < rows; r++)
		src[r] = get(g, (in->a + r) % WEFT_NUM_REGS);
	for (unsigned r = 0; r < rows; r++)
		set_masked(g, (in->d + r) % WEFT_NUM_REGS,
			   idx ? permute(g, src[r], idx) :
			   LLVMBuildShuffleVector(g->b, src[r], LLVMGetUndef(g->vi32), LLVMConstVector(cidx, NL), ""),
			   on);
}

/* red / iscan / escan: 0x0d0 + k, 0x0d8 + k, 0x0e0 + k with k the RED_* of weft_exec.c. */
enum { RED_ADD, RED_MUL, RED_MIN, RED_MAX, RED_AND, RED_OR, RED_XOR };

static LLVMValueRef combine(struct gen *g, unsigned rop, bool sgn, LLVMValueRef x, LLVMValueRef y)
{
	switch (rop) {
	case RED_ADD: return LLVMBuildAdd(g->b, x, y, "");
	case RED_MUL: return LLVMBuildMul(g->b, x, y, "");
	case RED_AND: return LLVMBuildAnd(g->b, x, y, "");
	case RED_OR: return LLVMBuildOr(g->b, x, y, "");
	case RED_XOR: return LLVMBuildXor(g->b, x, y, "");
	case RED_MIN:
		return LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, sgn ? LLVMIntSLT : LLVMIntULT, x, y, ""), x, y, "");
	default:
		return LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, sgn ? LLVMIntSGT : LLVMIntUGT, x, y, ""), x, y, "");
	}
}

/*
 * f32 reductions and scans: in lane order over the active lanes, the first
 * one's value starting the sum, as red_combine() of weft_exec.c adds them
 * (floating-point addition does not associate: no tree).  An exclusive
 * scan gives the first active lane the identity.
 */
static void emit_fscan(struct gen *g, const struct weft_inst *in)
{
	static const uint32_t identity[] = { 0, 0x3f800000, 0x7f800000, 0xff800000 };
	unsigned rop = (in->op - WEFT_OP_RED_ADD) & 7, kind = (in->op - WEFT_OP_RED_ADD) >> 3, NL = g->NL;
	LLVMTypeRef f32 = LLVMFloatTypeInContext(g->C), vf = LLVMVectorType(f32, NL);
	LLVMValueRef on = active(g), v = LLVMBuildBitCast(g->b, get(g, in->a), vf, "");
	LLVMValueRef acc = LLVMConstBitCast(c32(g, identity[rop]), f32), any = LLVMConstInt(g->i1, 0, false);
	LLVMValueRef out = LLVMGetUndef(vf);

	for (unsigned l = 0; l < NL; l++) {
		LLVMValueRef x = LLVMBuildExtractElement(g->b, v, c32(g, l), ""), lane_on, y;

		lane_on = LLVMBuildExtractElement(g->b, on, c32(g, l), "");
		if (kind == 2)
			out = LLVMBuildInsertElement(g->b, out, acc, c32(g, l), "");
		switch (rop) {
		case RED_ADD: y = default_nan(g, LLVMBuildFAdd(g->b, acc, x, "")); break;
		case RED_MUL: y = default_nan(g, LLVMBuildFMul(g->b, acc, x, "")); break;
		default: y = fminmax(g, rop == RED_MAX, acc, x);
		}
		acc = LLVMBuildSelect(g->b, lane_on, LLVMBuildSelect(g->b, any, y, x, ""), acc, "");
		any = LLVMBuildOr(g->b, any, lane_on, "");
		if (kind == 1)
			out = LLVMBuildInsertElement(g->b, out, acc, c32(g, l), "");
	}
	if (kind == 0)
		out = broadcast(g, acc);
	set_masked(g, in->d, LLVMBuildBitCast(g->b, out, g->vi32, ""), on);
}

/*
 * Integer reductions and scans over the active lanes (the inactive ones
 * contribute the identity): log2(width) steps of shift and combine, exact
 * since integer add, mul, min, max and the bitwise operations associate
 * and commute.
 */
static void emit_scan(struct gen *g, const struct weft_inst *in)
{
	unsigned rop = (in->op - WEFT_OP_RED_ADD) & 7, kind = (in->op - WEFT_OP_RED_ADD) >> 3, NL = g->NL;
	bool wide = is64(in->t), sgn = in->t == WEFT_TYPE_S32 || in->t == WEFT_TYPE_S64;
	LLVMTypeRef et = wide ? g->i64 : g->i32;
	uint64_t top = wide ? UINT64_MAX : UINT32_MAX, id;
	LLVMValueRef on = active(g), v, ids, idx[2 * WEFT_MAX_LANES];

	switch (rop) {
	case RED_AND: id = top; break;
	case RED_MUL: id = 1; break;
	case RED_MIN: id = sgn ? top >> 1 : top; break;
	case RED_MAX: id = sgn ? (top >> 1) + 1 : 0; break;
	default: id = 0;
	}
	ids = splat(g, LLVMConstInt(et, id, false));
	v = LLVMBuildSelect(g->b, on, wide ? get64(g, in->a) : get(g, in->a), ids, "");
	for (unsigned s = 1; s < NL; s *= 2) {
		for (unsigned l = 0; l < NL; l++)
			idx[l] = c32(g, l >= s ? l - s : NL + l);
		v = combine(g, rop, sgn, v, LLVMBuildShuffleVector(g->b, v, ids, LLVMConstVector(idx, NL), ""));
	}
	for (unsigned l = 0; l < NL; l++)
		idx[l] = c32(g, kind == 0 ? NL - 1 : kind == 2 ? (l ? l - 1 : NL) : l);
	if (kind != 1)
		v = LLVMBuildShuffleVector(g->b, v, ids, LLVMConstVector(idx, NL), "");
	if (wide)
		set64_masked(g, in->d, v, on);
	else
		set_masked(g, in->d, v, on);
}

/* A 32-bit field of the sub-group's context, or of its dispatch's parameters (@dp). */
static LLVMValueRef sg_field(struct gen *g, bool dp, size_t off)
{
	LLVMValueRef base = g->c;

	if (dp)
		base = LLVMBuildLoad2(g->b, g->ptr, byte_ptr(g, g->c, c64(g, offsetof(struct sg_ctx, dp))), "dp");
	return LLVMBuildZExt(g->b, LLVMBuildLoad2(g->b, g->i32, byte_ptr(g, base, c64(g, off)), ""),
			     g->i64, "");
}

/* The ids the context holds (weft_sg_compute_lids() fills them once per turn), as <simd x i64>. */
static LLVMValueRef stored_local_ids(struct gen *g, unsigned dim)
{
	LLVMValueRef valid, args[1] = { g->c };
	LLVMBasicBlockRef fill = new_block(g, "lids"), go = new_block(g, "lids_ok");
	LLVMTypeRef fn_ty = LLVMFunctionType(LLVMVoidTypeInContext(g->C), &g->ptr, 1, false), i8 = g->i8;
	LLVMValueRef v;

	valid = LLVMBuildLoad2(g->b, i8, byte_ptr(g, g->c, c64(g, offsetof(struct sg_ctx, lid_valid))), "");
	LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, valid, LLVMConstInt(i8, 0, false), ""), fill, go);
	LLVMPositionBuilderAtEnd(g->b, fill);
	call_c(g, fn_ty, (uintptr_t)weft_sg_compute_lids, args, 1, "");
	LLVMBuildBr(g->b, go);
	LLVMPositionBuilderAtEnd(g->b, go);
	v = LLVMBuildLoad2(g->b, g->vi32, byte_ptr(g, g->c, c64(g, offsetof(struct sg_ctx, lid) +
					  (uint64_t)dim * WEFT_MAX_LANES * 4)), "lid");
	LLVMSetAlignment(v, 4);
	return LLVMBuildZExt(g->b, v, g->vi64, "");
}

/*
 * The local id of the sub-group's first item (@xyz[d], i32s) when its items
 * lie in one row of its work-group (x + simd <= the row's size: every 1D
 * group of a multiple of the width, every row as wide as a sub-group),
 * where it has consecutive x and one y and z; returns that condition (an
 * i1).  In uint32 arithmetic, as weft_sg_compute_lids().
 */
static LLVMValueRef sub_group_origin(struct gen *g, LLVMValueRef *xyz)
{
	LLVMValueRef lsz[3], lin, one_row, one = c32(g, 1), v[3][2], quot[2];
	LLVMBasicBlockRef grid, join, from[2];

	if (g->origin_ok) {
		memcpy(xyz, g->origin, sizeof(g->origin));
		return g->origin_ok;
	}
	grid = new_block(g, "origin_grid");
	join = new_block(g, "origin");
	for (unsigned d = 0; d < 3; d++)
		lsz[d] = LLVMBuildLoad2(g->b, g->i32, byte_ptr(g, g->c, c64(g, offsetof(struct sg_ctx, lsz) + 4 * d)), "");
	lin = LLVMBuildMul(g->b, LLVMBuildLoad2(g->b, g->i32, byte_ptr(g, g->c, c64(g, offsetof(struct sg_ctx, sg))), ""),
			   c32(g, g->NL), "lin");
	one_row = LLVMBuildAnd(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, lsz[1], one, ""),
			       LLVMBuildICmp(g->b, LLVMIntEQ, lsz[2], one, ""), "");
	/* A 1D group divides by nothing: no division on its way. */
	v[0][0] = lin;
	v[1][0] = v[2][0] = c32(g, 0);
	from[0] = LLVMGetInsertBlock(g->b);
	LLVMBuildCondBr(g->b, one_row, join, grid);
	LLVMPositionBuilderAtEnd(g->b, grid);
	/* Divisions by the sizes as multiplications (sg_ctx.lsz_recip): three
	 * divl took about 5 % of the stencil's translated time. */
	for (unsigned d = 0; d < 2; d++) {
		LLVMValueRef recip = LLVMBuildLoad2(g->b, g->i64, byte_ptr(g, g->c, c64(g, offsetof(struct sg_ctx,
						    lsz_recip) + 8 * d)), "");

		quot[d] = LLVMBuildTrunc(g->b, LLVMBuildLShr(g->b, LLVMBuildMul(g->b, LLVMBuildZExt(g->b, lin, g->i64, ""),
							     recip, ""), c64(g, 32), ""), g->i32, "");
	}
	v[0][1] = LLVMBuildSub(g->b, lin, LLVMBuildMul(g->b, quot[0], lsz[0], ""), "");
	v[1][1] = LLVMBuildSub(g->b, quot[0], LLVMBuildMul(g->b, quot[1], lsz[1], ""), "");
	v[2][1] = quot[1];
	from[1] = grid;
	LLVMBuildBr(g->b, join);
	LLVMPositionBuilderAtEnd(g->b, join);
	for (unsigned d = 0; d < 3; d++) {
		xyz[d] = LLVMBuildPhi(g->b, g->i32, d == 0 ? "x" : d == 1 ? "y" : "z");
		LLVMAddIncoming(xyz[d], v[d], from, 2);
	}
	return LLVMBuildICmp(g->b, LLVMIntULE, LLVMBuildAdd(g->b, xyz[0], c32(g, g->NL), ""), lsz[0], "");
}

/*
 * The lanes' local ids in dimension @dim, as weft_sg_compute_lids()
 * computes them: for a sub-group in one row of its work-group
 * (sub_group_origin()) computed here, with no call and nothing stored;
 * else the context's ids (stored_local_ids()).
 */
static LLVMValueRef local_ids(struct gen *g, unsigned dim)
{
	LLVMValueRef xyz[3], row, lane[WEFT_MAX_LANES], v[2], x;
	LLVMBasicBlockRef in_row = new_block(g, "lids_row"), other = new_block(g, "lids_other");
	LLVMBasicBlockRef join = new_block(g, "lids_join"), from[2];

	row = sub_group_origin(g, xyz);
	LLVMBuildCondBr(g->b, row, in_row, other);
	LLVMPositionBuilderAtEnd(g->b, in_row);
	v[0] = broadcast(g, xyz[dim]);
	if (dim == 0) {
		for (unsigned l = 0; l < g->NL; l++)
			lane[l] = c32(g, l);
		v[0] = LLVMBuildAdd(g->b, v[0], LLVMConstVector(lane, g->NL), "");
	}
	v[0] = LLVMBuildZExt(g->b, v[0], g->vi64, "");
	from[0] = LLVMGetInsertBlock(g->b);
	LLVMBuildBr(g->b, join);
	LLVMPositionBuilderAtEnd(g->b, other);
	v[1] = stored_local_ids(g, dim);
	from[1] = LLVMGetInsertBlock(g->b);
	LLVMBuildBr(g->b, join);
	LLVMPositionBuilderAtEnd(g->b, join);
	x = LLVMBuildPhi(g->b, g->vi64, "lid");
	LLVMAddIncoming(x, v, from, 2);
	return x;
}

/* The global id of the work-group's first item in dimension @dim (an i64 of 32-bit values). */
static LLVMValueRef group_origin(struct gen *g, unsigned dim)
{
	LLVMValueRef u = LLVMBuildMul(g->b, sg_field(g, false, offsetof(struct sg_ctx, gid) + 4 * dim),
				      sg_field(g, true, offsetof(struct weft_dispatch_params, lsize) + 4 * dim), "");

	return LLVMBuildAdd(g->b, u, sg_field(g, true, offsetof(struct weft_dispatch_params, goff) + 4 * dim), "");
}

/* The special register @sr as an i64 when it is the same in every lane, else NULL. */
static LLVMValueRef uniform_sr(struct gen *g, unsigned sr)
{
	switch (sr) {
	case WEFT_SR_LANE_ID:
	case WEFT_SR_LOCAL_LINEAR_ID:
	case WEFT_SR_LOCAL_ID_X ... WEFT_SR_LOCAL_ID_Z:
	case WEFT_SR_GLOBAL_ID_X ... WEFT_SR_GLOBAL_ID_Z:
		return NULL;
	case WEFT_SR_SUBGROUP_ID:
		return sg_field(g, false, offsetof(struct sg_ctx, sg));
	case WEFT_SR_SUBGROUP_SIZE: {
		LLVMValueRef u = LLVMBuildSub(g->b, sg_field(g, false, offsetof(struct sg_ctx, nitems)),
					      LLVMBuildMul(g->b, sg_field(g, false, offsetof(struct sg_ctx, sg)),
							   c64(g, g->NL), ""), "");

		u = LLVMBuildAnd(g->b, u, c64(g, UINT32_MAX), "");
		return LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntULT, u, c64(g, g->NL), ""),
				       u, c64(g, g->NL), "");
	}
	case WEFT_SR_NUM_SUBGROUPS:
		return sg_field(g, false, offsetof(struct sg_ctx, nsub));
	case WEFT_SR_GROUP_ID_X ... WEFT_SR_GROUP_ID_Z:
		return sg_field(g, false, offsetof(struct sg_ctx, gid) + 4 * (sr - WEFT_SR_GROUP_ID_X));
	case WEFT_SR_LOCAL_SIZE_X ... WEFT_SR_LOCAL_SIZE_Z:
		return sg_field(g, false, offsetof(struct sg_ctx, lsz) + 4 * (sr - WEFT_SR_LOCAL_SIZE_X));
	case WEFT_SR_GLOBAL_SIZE_X ... WEFT_SR_GLOBAL_SIZE_Z:
		return sg_field(g, true, offsetof(struct weft_dispatch_params, gsize) + 4 * (sr - WEFT_SR_GLOBAL_SIZE_X));
	case WEFT_SR_NUM_GROUPS_X ... WEFT_SR_NUM_GROUPS_Z: {
		LLVMValueRef ng = LLVMBuildLoad2(g->b, g->ptr, byte_ptr(g, g->c,
						 c64(g, offsetof(struct sg_ctx, ngroups))), "");

		return LLVMBuildLoad2(g->b, g->i64, byte_ptr(g, ng, c64(g, 8 * (sr - WEFT_SR_NUM_GROUPS_X))), "");
	}
	case WEFT_SR_GLOBAL_OFFSET_X ... WEFT_SR_GLOBAL_OFFSET_Z:
		return sg_field(g, true, offsetof(struct weft_dispatch_params, goff) + 4 * (sr - WEFT_SR_GLOBAL_OFFSET_X));
	case WEFT_SR_MAX_SUBGROUP_SIZE:
		return c64(g, g->NL);
	case WEFT_SR_ENQUEUED_LOCAL_SIZE_X ... WEFT_SR_ENQUEUED_LOCAL_SIZE_Z:
		return sg_field(g, true, offsetof(struct weft_dispatch_params, lsize) +
				4 * (sr - WEFT_SR_ENQUEUED_LOCAL_SIZE_X));
	case WEFT_SR_ARGS:
		return ctx_load(g, offsetof(struct weft_jit_ctx, args), g->i64, "args");
	default:
		return c64(g, 0);
	}
}

/*
 * s2r with every lane on, as a known value (struct lin): the uniform
 * registers, the lane ids, and in a sub-group in one row of its
 * work-group (gen.row) the local and global ids; else false.
 */
static bool s2r_lin(struct gen *g, const struct weft_inst *in)
{
	unsigned sr = in->mod, dim = 0;
	LLVMValueRef u = uniform_sr(g, sr), step = c64(g, 0);
	/* The lanes' 32-bit values wrap around neither 2^31 nor 2^32: the
	 * row variant's guard says so of the ids in x (emit_block()). */
	bool exact = true;

	if (u) {
	} else if (sr == WEFT_SR_LANE_ID) {
		u = c64(g, 0);
		step = c64(g, 1);
	} else if (sr == WEFT_SR_LOCAL_LINEAR_ID) {
		u = LLVMBuildMul(g->b, sg_field(g, false, offsetof(struct sg_ctx, sg)), c64(g, g->NL), "");
		step = c64(g, 1);
		exact = false;
	} else if (!g->row) {
		return false;
	} else {
		dim = sr >= WEFT_SR_GLOBAL_ID_X && sr <= WEFT_SR_GLOBAL_ID_Z ? sr - WEFT_SR_GLOBAL_ID_X :
		      sr - WEFT_SR_LOCAL_ID_X;
		u = g->row_id[dim];
		if (sr >= WEFT_SR_GLOBAL_ID_X && sr <= WEFT_SR_GLOBAL_ID_Z)
			u = g->row_gid[dim] ? g->row_gid[dim] : LLVMBuildAdd(g->b, group_origin(g, dim), u, "");
		step = c64(g, dim == 0);
	}
	if (in->t == WEFT_TYPE_U64) {
		set_lin64(g, in->d, u, step);
	} else {
		set_lin(g, in->d, u, step, false);
		g->lin[in->d].zext = g->lin[in->d].sext = exact;
	}
	return true;
}

/* s2r: the special registers as weft_exec.c's exec_s2r() computes them. */
static void emit_s2r(struct gen *g, const struct weft_inst *in)
{
	LLVMValueRef on = active(g), lane[WEFT_MAX_LANES], v, u;
	unsigned sr = in->mod;

	if (g->full && s2r_lin(g, in))
		return;
	for (unsigned l = 0; l < g->NL; l++)
		lane[l] = c64(g, l);
	switch (sr) {
	case WEFT_SR_LANE_ID:
		v = LLVMConstVector(lane, g->NL);
		break;
	case WEFT_SR_LOCAL_LINEAR_ID:
		v = LLVMBuildAdd(g->b, broadcast(g, LLVMBuildMul(g->b, sg_field(g, false, offsetof(struct sg_ctx, sg)),
								  c64(g, g->NL), "")),
				 LLVMConstVector(lane, g->NL), "");
		break;
	case WEFT_SR_LOCAL_ID_X ... WEFT_SR_LOCAL_ID_Z:
		v = local_ids(g, sr - WEFT_SR_LOCAL_ID_X);
		break;
	case WEFT_SR_GLOBAL_ID_X ... WEFT_SR_GLOBAL_ID_Z:
		u = group_origin(g, sr - WEFT_SR_GLOBAL_ID_X);
		v = LLVMBuildAdd(g->b, broadcast(g, u), local_ids(g, sr - WEFT_SR_GLOBAL_ID_X), "");
		break;
	default:
		v = broadcast(g, uniform_sr(g, sr));
	}
	if (in->t == WEFT_TYPE_U64)
		set64_masked(g, in->d, v, on);
	else
		set_masked(g, in->d, lo32(g, v), on);
}

/* A field of mask-stack entry @k (an i32) of the sub-group's state @st. */
static LLVMValueRef cf_field(struct gen *g, LLVMValueRef st, LLVMValueRef k, size_t off)
{
	LLVMValueRef at = LLVMBuildMul(g->b, LLVMBuildZExt(g->b, k, g->i64, ""),
				       c64(g, sizeof(struct cf_entry)), "");

	return byte_ptr(g, st, LLVMBuildAdd(g->b, at, c64(g, offsetof(struct sg_state, stack) + off), ""));
}

/* The active mask becomes @m (an i32): the mask and the lane masks M, as set_mask() of weft_exec.c. */
static void store_mask(struct gen *g, LLVMValueRef m)
{
	LLVMValueRef bit[WEFT_MAX_LANES], on;

	for (unsigned l = 0; l < g->NL; l++)
		bit[l] = c32(g, 1u << l);
	LLVMBuildStore(g->b, m, g->maskp);
	on = LLVMBuildICmp(g->b, LLVMIntNE, LLVMBuildAnd(g->b, broadcast(g, m), LLVMConstVector(bit, g->NL), ""),
			   LLVMConstNull(g->vi32), "");
	LLVMSetAlignment(LLVMBuildStore(g->b, LLVMBuildSExt(g->b, on, g->vi32, ""), g->Mp), 4);
}

static void emit_insts(struct gen *g, unsigned first);
static unsigned block_ids(const struct gen *g, unsigned first);
static void note_after_entry(struct gen *g, unsigned ids);

/*
 * The rows the block assigned, stored on one way out (but those in @skip,
 * NULL: none): they stay unstored for the other ways.
 */
static void flush_leaving(struct gen *g, const bool *skip)
{
	struct known_stack cf = g->cf;
	bool dirty[WEFT_NUM_REGS];

	memcpy(dirty, g->dirty, sizeof(dirty));
	for (unsigned r = 0; skip && r < WEFT_NUM_REGS; r++)
		g->dirty[r] &= !skip[r];
	flush(g, NULL, 0);
	memcpy(g->dirty, dirty, sizeof(dirty));
	g->cf = cf;
}

/*
 * Whether a trace may go on after instruction @i with the block at @first
 * ahead: with every lane on if @full, else a block of a single else or endif.
 */
static bool can_trace(struct gen *g, unsigned i, unsigned first, bool full)
{
	const struct weft_inst *in;

	if (first <= i || first >= g->k->nw || !g->leader[first] || !g->blk[first] ||
	    block_rest(g, first) > g->trace_left)
		return false;
	in = &g->k->insts[first];
	/* An if or else jumps to its else or endif (to an if only in a malformed program). */
	if (!full)
		return in->op == WEFT_OP_ELSE || in->op == WEFT_OP_ENDIF;
	/* The row variant's guard tested the global ids in x only where its block read them. */
	return !g->row || g->row_gid[0] || !(block_ids(g, first) & 8);
}

/*
 * The trace goes on with the block at @first as emit_block() runs it,
 * counted as there, with what the trace knows of the rows: @full, every
 * lane is on; else the block is one else or endif.
 */
static void trace(struct gen *g, unsigned first, bool full)
{
	unsigned n = block_rest(g, first);
	bool was_full = g->full;
	LLVMValueRef cnt = LLVMBuildLoad2(g->b, g->i64, g->countp, "");

	if (g->entry_note) {
		note_after_entry(g, g->entry_note_ids);
		g->entry_note = false;
	}
	LLVMBuildStore(g->b, LLVMBuildAdd(g->b, cnt, c64(g, n), ""), g->countp);
	g->trace_left -= n;
	g->traced_left -= n;
	g->full = full;
	g->on = NULL;
	emit_insts(g, first);
	g->full = was_full;
}

/*
 * Goes on after instruction @i when @go, else jumps to @tgt (@static_idx as
 * for jump()).  Deferred (a trace): the way on goes on with the next block
 * itself when @mask_after (the construct's new mask) has every lane on, and
 * the jump with its target when that is an else or endif ahead; every
 * other way stores the rows first.  @unstored: that new mask when only the
 * ways other than the trace of the next block store it (an if's: with
 * every lane on before and after, the mask stored is already that one).
 */
static void next_or_jump(struct gen *g, unsigned i, const struct weft_inst *in, LLVMValueRef go,
			 LLVMValueRef mask_after, LLVMValueRef unstored, LLVMValueRef tgt, int static_idx)
{
	LLVMBasicBlockRef jb = new_block(g, "no_lanes"), nb, ib = NULL;
	unsigned next = i + in->nwords;
	bool deferred = g->deferred, on_next, on_jump;
	struct view *v;

	if (unstored && !deferred)
		store_mask(g, unstored);
	if (!deferred) {
		LLVMBuildCondBr(g->b, go, g->blk[next], jb);
		LLVMPositionBuilderAtEnd(g->b, jb);
		jump(g, i, tgt, static_idx);
		return;
	}
	nb = new_block(g, "next");
	LLVMBuildCondBr(g->b, go, nb, jb);
	v = malloc(sizeof(*v));
	g->out_of_memory |= !v;
	on_next = v && can_trace(g, i, next, true);
	on_jump = v && static_idx >= 0 && can_trace(g, i, (unsigned)static_idx, false);
	LLVMPositionBuilderAtEnd(g->b, nb);
	if (on_next) {
		ib = new_block(g, "trace");
		nb = new_block(g, "untraced");
		LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, mask_after,
						    every_lane(g), ""), ib, nb);
		LLVMPositionBuilderAtEnd(g->b, nb);
	}
	if (unstored)
		store_mask(g, unstored);
	flush_leaving(g, NULL);
	LLVMBuildBr(g->b, g->blk[next]);
	if (v)
		view_save(g, v);
	if (on_next) {
		LLVMPositionBuilderAtEnd(g->b, ib);
		/* Every lane is in the if: none is left for its else. */
		if (in->op == WEFT_OP_IF && g->cf.n)
			g->cf.top[g->cf.n - 1].alt = c32(g, 0);
		trace(g, next, true);
		view_restore(g, v);
	}
	LLVMPositionBuilderAtEnd(g->b, jb);
	if (unstored)
		store_mask(g, unstored);
	/* The jump is forward: it yields nowhere (jump()).  The trace of the
	 * way on may have taken what the variant could trace. */
	if (on_jump && can_trace(g, i, (unsigned)static_idx, false)) {
		/* No lane is in the if: all of them are left for its else. */
		if (in->op == WEFT_OP_IF && g->cf.n)
			g->cf.top[g->cf.n - 1].alt = g->cf.top[g->cf.n - 1].saved;
		trace(g, (unsigned)static_idx, false);
		view_restore(g, v);
	} else {
		flush_leaving(g, NULL);
		jump(g, i, tgt, static_idx);
	}
	free(v);
}

/* The lanes of @mask (an i32) whose row @r is not 0, as lanes_true() of weft_exec.c. */
static LLVMValueRef lanes_set(struct gen *g, unsigned r, LLVMValueRef mask)
{
	LLVMTypeRef iNL = LLVMIntTypeInContext(g->C, g->NL);
	LLVMValueRef set = LLVMBuildICmp(g->b, LLVMIntNE, get(g, r), LLVMConstNull(g->vi32), "");

	return LLVMBuildAnd(g->b, LLVMBuildZExt(g->b, LLVMBuildBitCast(g->b, set, iNL, ""), g->i32, ""), mask,
			    "x");
}

/* Whether mask-stack entry kind @kind (an i8) is @k. */
static LLVMValueRef kind_is(struct gen *g, LLVMValueRef kind, unsigned k)
{
	return LLVMBuildICmp(g->b, LLVMIntEQ, kind, LLVMConstInt(g->i8, k, false), "");
}

/* Known entry @e of the mask stack, in the sub-group's state. */
static void store_entry(struct gen *g, const struct known_stack *cf, unsigned e)
{
	LLVMValueRef st = g->s, at = cf->top[e].at;

	LLVMBuildStore(g->b, LLVMConstInt(g->i8, cf->top[e].kind, false),
		       cf_field(g, st, at, offsetof(struct cf_entry, kind)));
	LLVMBuildStore(g->b, cf->top[e].saved, cf_field(g, st, at, offsetof(struct cf_entry, saved)));
	LLVMBuildStore(g->b, cf->top[e].alt, cf_field(g, st, at, offsetof(struct cf_entry, alt)));
	LLVMBuildStore(g->b, cf->top[e].target, cf_field(g, st, at, offsetof(struct cf_entry, target)));
	LLVMBuildStore(g->b, c64(g, 0), cf_field(g, st, at, offsetof(struct cf_entry, start)));
}

/* The known entries the trace has not stored go to the sub-group's state, where the ways out read them. */
static void store_known_entries(struct gen *g)
{
	for (unsigned e = 0; e < g->cf.n; e++) {
		if (g->cf.top[e].unstored)
			store_entry(g, &g->cf, e);
		g->cf.top[e].unstored = false;
	}
}

/* An if of the trace pushed an entry (saved, alt, target), unstored, at index @at, depth @sp. */
static void know_push(struct gen *g, LLVMValueRef sp, LLVMValueRef at, LLVMValueRef saved, LLVMValueRef alt,
		      LLVMValueRef target)
{
	struct known_stack *cf = &g->cf;

	if (cf->n == KNOWN_ENTRIES) {
		/* The bottom entry is known no more: stored now. */
		if (cf->top[0].unstored)
			store_entry(g, cf, 0);
		memmove(cf->top, cf->top + 1, sizeof(cf->top) - sizeof(cf->top[0]));
		cf->n--;
	}
	cf->top[cf->n].kind = CF_IF;
	cf->top[cf->n].unstored = true;
	cf->top[cf->n].saved = saved;
	cf->top[cf->n].alt = alt;
	cf->top[cf->n].target = target;
	cf->top[cf->n++].at = at;
	cf->sp = sp;
}

/*
 * if, else, endif, loop and endloop on the sub-group's mask stack, as
 * exec_cf() of weft_exec.c runs them.  Every case exec_cf() rejects (a
 * stack too deep or empty, a construct of the wrong kind, no lane left
 * and no construct to resume in) is tested before anything changes and
 * goes to @generic, the call of exec_cf() that reports it.
 */
static void emit_structured(struct gen *g, unsigned i, const struct weft_inst *in, LLVMBasicBlockRef generic)
{
	LLVMBasicBlockRef go = new_block(g, "cf");
	struct known_stack *cf = &g->cf;
	/* The entry on top, when the trace pushed it. */
	bool known = g->deferred && cf->n;
	LLVMValueRef st = g->s, spp = byte_ptr(g, st, c64(g, offsetof(struct sg_state, sp)));
	LLVMValueRef sp = g->deferred && cf->sp ? cf->sp : LLVMBuildLoad2(g->b, g->i32, spp, "sp");
	LLVMValueRef mask = g->full ? every_lane(g) :
			    LLVMBuildLoad2(g->b, g->i32, g->maskp, "");
	LLVMValueRef zero = c32(g, 0), empty = known ? LLVMConstInt(g->i1, 0, false) :
					     LLVMBuildICmp(g->b, LLVMIntEQ, sp, zero, "");
	LLVMValueRef top = LLVMBuildSelect(g->b, empty, zero, LLVMBuildSub(g->b, sp, c32(g, 1), ""), "top");
	LLVMValueRef kind = known ? LLVMConstInt(g->i8, cf->top[cf->n - 1].kind, false) :
			    LLVMBuildLoad2(g->b, g->i8, cf_field(g, st, top, offsetof(struct cf_entry, kind)), "");
	LLVMValueRef saved = known ? cf->top[cf->n - 1].saved :
			     LLVMBuildLoad2(g->b, g->i32, cf_field(g, st, top, offsetof(struct cf_entry, saved)), "");
	LLVMValueRef alt = known ? cf->top[cf->n - 1].alt :
			   LLVMBuildLoad2(g->b, g->i32, cf_field(g, st, top, offsetof(struct cf_entry, alt)), "");
	LLVMValueRef tgt = LLVMBuildAdd(g->b, pc_of(g, i), c64(g, (uint64_t)(int64_t)(int32_t)in->imm), "");
	int tgt_idx = (int)((int64_t)i + (int32_t)in->imm / 8);
	LLVMValueRef bad, x = NULL, is_kind, outer;

	/* The construct a pop leaves: its resume point when no lane is left. */
	if (known && cf->n >= 2)
		outer = cf->top[cf->n - 2].target;
	else
		outer = LLVMBuildLoad2(g->b, g->i64, cf_field(g, st, LLVMBuildSelect(g->b, LLVMBuildICmp(g->b,
					LLVMIntUGE, sp, c32(g, 2), ""), LLVMBuildSub(g->b, sp, c32(g, 2), ""), zero, ""),
					offsetof(struct cf_entry, target)), "outer");
	if (in->op == WEFT_OP_IF) {
		x = lanes_set(g, in->a, mask);
	}
	switch (in->op) {
	case WEFT_OP_IF:
	case WEFT_OP_LOOP:
		bad = LLVMBuildICmp(g->b, LLVMIntEQ, sp, c32(g, CF_DEPTH), "");
		break;
	case WEFT_OP_ELSE:
		bad = LLVMBuildOr(g->b, empty, LLVMBuildNot(g->b, kind_is(g, kind, CF_IF), ""), "");
		break;
	case WEFT_OP_ENDIF:
		is_kind = LLVMBuildOr(g->b, kind_is(g, kind, CF_IF), kind_is(g, kind, CF_ELSE), "");
		bad = LLVMBuildOr(g->b, empty, LLVMBuildNot(g->b, is_kind, ""), "");
		bad = LLVMBuildOr(g->b, bad, LLVMBuildAnd(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, saved, zero, ""),
							 LLVMBuildICmp(g->b, LLVMIntEQ, sp, c32(g, 1), ""), ""), "");
		break;
	default:	/* endloop */
		bad = LLVMBuildOr(g->b, empty, LLVMBuildNot(g->b, kind_is(g, kind, CF_LOOP), ""), "");
		bad = LLVMBuildOr(g->b, bad, LLVMBuildAnd(g->b,
			LLVMBuildICmp(g->b, LLVMIntEQ, LLVMBuildOr(g->b, mask, alt, ""), zero, ""),
			LLVMBuildAnd(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, saved, zero, ""),
				     LLVMBuildICmp(g->b, LLVMIntEQ, sp, c32(g, 1), ""), ""), ""), "");
	}
	LLVMBuildCondBr(g->b, bad, generic, go);
	LLVMPositionBuilderAtEnd(g->b, go);
	switch (in->op) {
	case WEFT_OP_IF:
	case WEFT_OP_LOOP: {
		bool loop = in->op == WEFT_OP_LOOP;
		LLVMValueRef alt_new = loop ? zero : LLVMBuildAnd(g->b, mask, LLVMBuildNot(g->b, x, ""), "");

		if (g->deferred && !loop) {
			know_push(g, LLVMBuildAdd(g->b, sp, c32(g, 1), ""), sp, mask, alt_new, tgt);
		} else {
			LLVMBuildStore(g->b, LLVMConstInt(g->i8, loop ? CF_LOOP : CF_IF, false),
				       cf_field(g, st, sp, offsetof(struct cf_entry, kind)));
			LLVMBuildStore(g->b, mask, cf_field(g, st, sp, offsetof(struct cf_entry, saved)));
			LLVMBuildStore(g->b, alt_new, cf_field(g, st, sp, offsetof(struct cf_entry, alt)));
			LLVMBuildStore(g->b, tgt, cf_field(g, st, sp, offsetof(struct cf_entry, target)));
			LLVMBuildStore(g->b, loop ? pc_of(g, i + 1) : c64(g, 0),
				       cf_field(g, st, sp, offsetof(struct cf_entry, start)));
		}
		LLVMBuildStore(g->b, LLVMBuildAdd(g->b, sp, c32(g, 1), ""), spp);
		next_or_jump(g, i, in, LLVMBuildICmp(g->b, LLVMIntNE, loop ? mask : x, zero, ""), loop ? mask : x,
			     loop ? NULL : x, tgt, tgt_idx);
		break;
	}
	case WEFT_OP_ELSE:
		if (!known || !cf->top[cf->n - 1].unstored) {
			LLVMBuildStore(g->b, LLVMConstInt(g->i8, CF_ELSE, false),
				       cf_field(g, st, top, offsetof(struct cf_entry, kind)));
			LLVMBuildStore(g->b, tgt, cf_field(g, st, top, offsetof(struct cf_entry, target)));
		}
		store_mask(g, alt);
		if (known) {
			cf->top[cf->n - 1].kind = CF_ELSE;
			cf->top[cf->n - 1].target = tgt;
		}
		next_or_jump(g, i, in, LLVMBuildICmp(g->b, LLVMIntNE, alt, zero, ""), alt, NULL, tgt, tgt_idx);
		break;
	case WEFT_OP_ENDIF:
		store_mask(g, saved);
		LLVMBuildStore(g->b, top, spp);
		cf->n -= known;
		cf->sp = top;
		next_or_jump(g, i, in, LLVMBuildICmp(g->b, LLVMIntNE, saved, zero, ""), saved, NULL, outer, -1);
		break;
	default: {	/* endloop: again with the lanes still in it and those that continued, or out */
		LLVMBasicBlockRef again = new_block(g, "again"), out = new_block(g, "out");
		LLVMValueRef lanes = LLVMBuildOr(g->b, mask, alt, "");

		LLVMBuildStore(g->b, zero, cf_field(g, st, top, offsetof(struct cf_entry, alt)));
		LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, lanes, zero, ""), again, out);
		LLVMPositionBuilderAtEnd(g->b, again);
		store_mask(g, lanes);
		jump(g, i, LLVMBuildLoad2(g->b, g->i64, cf_field(g, st, top, offsetof(struct cf_entry, start)), ""),
		     -1);
		LLVMPositionBuilderAtEnd(g->b, out);
		store_mask(g, saved);
		LLVMBuildStore(g->b, top, spp);
		next_or_jump(g, i, in, LLVMBuildICmp(g->b, LLVMIntNE, saved, zero, ""), saved, NULL, outer, -1);
	}
	}
}

/*
 * break and cont, as cf_leave() of weft_exec.c runs them, when the loop
 * they leave is the top entry of the mask stack or the one under it (a
 * loop's exit test compiled as an if around a break): the lanes that
 * leave come out of the mask (and out of that if's masks), a cont's go to
 * the loop's lanes that continued, and with no lane left the sub-group
 * goes on where the top entry resumes.  Anything else (a loop deeper
 * down, none at all) goes to @generic, the call of the mask-stack code,
 * which walks the stack or reports it.  Through that call, the exit test
 * of a loop in the builtins' lowerings (a work-group reduction's sum of
 * the sub-groups' partials) cost every sub-group a call and the rows'
 * stores and loads around it.
 */
static void emit_leave(struct gen *g, unsigned i, const struct weft_inst *in, LLVMBasicBlockRef generic)
{
	LLVMValueRef st = g->s, spp = byte_ptr(g, st, c64(g, offsetof(struct sg_state, sp)));
	LLVMValueRef sp = LLVMBuildLoad2(g->b, g->i32, spp, "sp"), one = c32(g, 1), zero = c32(g, 0);
	LLVMValueRef mask = g->full ? every_lane(g) : LLVMBuildLoad2(g->b, g->i32, g->maskp, "");
	LLVMValueRef top = LLVMBuildSub(g->b, sp, one, "top");
	LLVMValueRef under = LLVMBuildSub(g->b, top, one, "under");
	LLVMBasicBlockRef some = new_block(g, "leave_sp"), go = new_block(g, "leave");
	LLVMBasicBlockRef inner = new_block(g, "leave_if"), rest = new_block(g, "leave_if_loop");
	LLVMBasicBlockRef loop = new_block(g, "leave_loop"), none = new_block(g, "left");
	LLVMValueRef kind, is_loop, in_if, x, lp, f, keep;

	/* An empty stack goes to the call, which reports it. */
	LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, sp, zero, ""), generic, some);
	LLVMPositionBuilderAtEnd(g->b, some);
	kind = LLVMBuildLoad2(g->b, g->i8, cf_field(g, st, top, offsetof(struct cf_entry, kind)), "");
	is_loop = kind_is(g, kind, CF_LOOP);
	in_if = LLVMBuildAnd(g->b, LLVMBuildICmp(g->b, LLVMIntUGE, sp, c32(g, 2), ""),
			     LLVMBuildOr(g->b, kind_is(g, kind, CF_IF), kind_is(g, kind, CF_ELSE), ""), "");
	LLVMBuildCondBr(g->b, LLVMBuildOr(g->b, is_loop, in_if, ""), go, generic);
	LLVMPositionBuilderAtEnd(g->b, go);
	x = lanes_set(g, in->a, mask);
	keep = LLVMBuildNot(g->b, x, "");
	LLVMBuildCondBr(g->b, is_loop, loop, inner);
	/* An if (or else) on the loop: the leaving lanes come out of its masks, if the loop is under it. */
	LLVMPositionBuilderAtEnd(g->b, inner);
	kind = LLVMBuildLoad2(g->b, g->i8, cf_field(g, st, under, offsetof(struct cf_entry, kind)), "");
	LLVMBuildCondBr(g->b, kind_is(g, kind, CF_LOOP), rest, generic);
	LLVMPositionBuilderAtEnd(g->b, rest);
	f = cf_field(g, st, top, offsetof(struct cf_entry, saved));
	LLVMBuildStore(g->b, LLVMBuildAnd(g->b, LLVMBuildLoad2(g->b, g->i32, f, ""), keep, ""), f);
	f = cf_field(g, st, top, offsetof(struct cf_entry, alt));
	LLVMBuildStore(g->b, LLVMBuildAnd(g->b, LLVMBuildLoad2(g->b, g->i32, f, ""), keep, ""), f);
	LLVMBuildBr(g->b, loop);
	LLVMPositionBuilderAtEnd(g->b, loop);
	lp = LLVMBuildPhi(g->b, g->i32, "lp");
	LLVMAddIncoming(lp, (LLVMValueRef[]){ top, under }, (LLVMBasicBlockRef[]){ go, rest }, 2);
	if (in->op == WEFT_OP_CONT) {
		f = cf_field(g, st, lp, offsetof(struct cf_entry, alt));
		LLVMBuildStore(g->b, LLVMBuildOr(g->b, LLVMBuildLoad2(g->b, g->i32, f, ""), x, ""), f);
	}
	mask = LLVMBuildAnd(g->b, mask, keep, "");
	store_mask(g, mask);
	LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, mask, zero, ""), g->blk[i + in->nwords], none);
	LLVMPositionBuilderAtEnd(g->b, none);
	jump(g, i, LLVMBuildLoad2(g->b, g->i64, cf_field(g, st, top, offsetof(struct cf_entry, target)), "tgt"),
	     -1);
}

/*
 * A control-flow instruction, at the end of its block (every row in the
 * file): bra, and the structured constructs, as host code; the rest, and
 * what the mask stack rejects, through the
 * interpreter's mask-stack code, which says where to go.
 */
static void emit_cf(struct gen *g, unsigned i, const struct weft_inst *in)
{
	LLVMValueRef args[5], r, sw;
	LLVMBasicBlockRef bad, jb;
	bool deferred = g->deferred;

	if (in->op == WEFT_OP_BRA) {
		jump(g, i, LLVMBuildAdd(g->b, pc_of(g, i), c64(g, (uint64_t)(int64_t)(int32_t)in->imm), ""),
		     (int)((int64_t)i + (int32_t)in->imm / 8));
		return;
	}
	if (in->op == WEFT_OP_BREAK || in->op == WEFT_OP_CONT) {
		LLVMBasicBlockRef generic = new_block(g, "cf_generic");

		emit_leave(g, i, in, generic);
		LLVMPositionBuilderAtEnd(g->b, generic);
	}
	if (in->op == WEFT_OP_IF || in->op == WEFT_OP_ELSE || in->op == WEFT_OP_ENDIF ||
	    in->op == WEFT_OP_LOOP || in->op == WEFT_OP_ENDLOOP) {
		LLVMBasicBlockRef generic = new_block(g, "cf_generic");
		/* What the mask-stack code reads: the stack before the construct. */
		struct known_stack before = g->cf;

		emit_structured(g, i, in, generic);
		LLVMPositionBuilderAtEnd(g->b, generic);
		g->cf = before;
		if (deferred)
			flush_leaving(g, NULL);
	}
	bad = new_block(g, "bad");
	jb = new_block(g, "jump");
	count_fallback(g, in, PROF_CF);
	LLVMBuildAtomicRMW(g->b, LLVMAtomicRMWBinOpAdd, const_ptr(g, (uintptr_t)g->cf_calls), c64(g, 1),
			   LLVMAtomicOrderingMonotonic, false);
	args[0] = g->x;
	args[1] = const_ptr(g, (uintptr_t)in);
	args[2] = pc_of(g, i);
	args[3] = c32(g, g->NL);
	args[4] = g->target;
	r = call_c(g, g->cf_ty, (uintptr_t)weft_jit_cf, args, 5, "");
	sw = LLVMBuildSwitch(g->b, r, bad, 2);
	LLVMAddCase(sw, c32(g, CF_NEXT), g->blk[i + in->nwords]);
	LLVMAddCase(sw, c32(g, CF_JUMP), jb);
	LLVMPositionBuilderAtEnd(g->b, bad);
	exit_with(g, SG_ERROR);
	LLVMPositionBuilderAtEnd(g->b, jb);
	jump(g, i, LLVMBuildLoad2(g->b, g->i64, g->target, "tgt"), -1);
}

/* The field at byte offset @off of the structure at @p. */
static LLVMValueRef field(struct gen *g, LLVMValueRef p, size_t off)
{
	return byte_ptr(g, p, c64(g, off));
}

/*
 * The run goes on at turn with sub-group state @s (its mask at @maskp, its
 * pc at @pcp), register file @R and, unless it is @whole (then at its entry
 * for every lane on), its turn starting at @pc.
 */
static void to_turn(struct gen *g, LLVMValueRef s, LLVMValueRef maskp, LLVMValueRef pcp, bool whole,
		    LLVMValueRef R, LLVMValueRef pc)
{
	LLVMBasicBlockRef from = LLVMGetInsertBlock(g->b);

	LLVMAddIncoming(g->s, &s, &from, 1);
	LLVMAddIncoming(g->maskp, &maskp, &from, 1);
	LLVMAddIncoming(g->pcp, &pcp, &from, 1);
	LLVMAddIncoming(g->whole, (LLVMValueRef[]){ LLVMConstInt(g->i1, whole, false) }, &from, 1);
	LLVMAddIncoming(g->R, &R, &from, 1);
	LLVMAddIncoming(g->turn_pc, &pc, &from, 1);
	LLVMBuildBr(g->b, g->turn);
}

/*
 * The call goes on with sub-group @k, state @next, from turn (to_turn()),
 * the context and the counts set up as go_on_with() sets them up (the
 * instructions not yet counted @pending, the turn's count @count): at its
 * entry for every lane on when @whole, else where its last turn stopped;
 * in register file @R, NULL: the one the call holds.
 */
static void go_on_inline(struct gen *g, LLVMValueRef next, LLVMValueRef k, LLVMValueRef pending,
			 LLVMValueRef count, LLVMValueRef R, bool whole)
{
	LLVMValueRef maskp = field(g, next, offsetof(struct sg_state, mask));
	LLVMValueRef pcp = field(g, next, offsetof(struct sg_state, pc));

	LLVMBuildStore(g->b, pending, g->pendingp);
	LLVMBuildStore(g->b, count, g->countp);
	LLVMBuildStore(g->b, k, field(g, g->c, offsetof(struct sg_ctx, sg)));
	LLVMBuildStore(g->b, LLVMConstInt(g->i8, 0, false), field(g, g->c, offsetof(struct sg_ctx, lid_valid)));
	if (R)
		LLVMBuildStore(g->b, R, field(g, g->x, offsetof(struct weft_jit_ctx, R)));
	LLVMBuildStore(g->b, next, field(g, g->x, offsetof(struct weft_jit_ctx, s)));
	LLVMBuildStore(g->b, maskp, field(g, g->x, offsetof(struct weft_jit_ctx, mask)));
	LLVMBuildStore(g->b, pcp, field(g, g->x, offsetof(struct weft_jit_ctx, pc)));
	to_turn(g, next, maskp, pcp, whole, R ? R : g->R, whole ? g->base : LLVMBuildLoad2(g->b, g->i64, pcp, ""));
}

/*
 * After end with every lane on: what weft_jit_next_sg() does when the
 * work-group's next sub-group has every lane on too, here without a call
 * (execution.rst, "A run of sub-groups"), then on to its turn at g->turn;
 * else the builder is left where the call goes.  The next sub-group takes
 * the slot this one frees, so the context's file and private memory stay,
 * and the masks too (every lane on in both): of what start loads, only
 * s, mask and pc differ, which turn's phis take from here.  Its count
 * starts as the entry block's, which it enters in its variant for all
 * lanes on.
 */
static void next_whole_sub_group(struct gen *g)
{
	LLVMBasicBlockRef free_slot = new_block(g, "next_unstarted"), fast = new_block(g, "next_inline");
	LLVMBasicBlockRef call = new_block(g, "next_call");
	LLVMValueRef s = g->s, next = field(g, s, sizeof(struct sg_state));
	LLVMValueRef pendingp = g->pendingp, livep = g->livep;
	LLVMValueRef k = LLVMBuildAdd(g->b, LLVMBuildLoad2(g->b, g->i32, field(g, g->c, offsetof(struct sg_ctx, sg)), ""),
				      c32(g, 1), "");
	LLVMValueRef nitems = LLVMBuildZExt(g->b, LLVMBuildLoad2(g->b, g->i32, field(g, g->c,
					    offsetof(struct sg_ctx, nitems)), ""), g->i64, "");
	LLVMValueRef pending = LLVMBuildAdd(g->b, LLVMBuildLoad2(g->b, g->i64, pendingp, ""),
					    LLVMBuildLoad2(g->b, g->i64, g->countp, ""), "");
	/* Sub-group k has every lane's item, (k + 1) * simd <= nitems (so k < nsub),
	 * and the watchdog's batch is not full. */
	LLVMValueRef ok = LLVMBuildICmp(g->b, LLVMIntULE,
					LLVMBuildMul(g->b, LLVMBuildZExt(g->b, k, g->i64, ""), c64(g, g->NL), ""),
					LLVMBuildSub(g->b, nitems, c64(g, g->NL), ""), "");

	ok = LLVMBuildAnd(g->b, ok, LLVMBuildICmp(g->b, LLVMIntUGE, nitems, c64(g, g->NL), ""), "");
	ok = LLVMBuildAnd(g->b, ok, LLVMBuildICmp(g->b, LLVMIntULT, pending, c64(g, WEFT_JIT_ACCOUNT_EVERY), ""),
			  "");
	LLVMBuildCondBr(g->b, ok, free_slot, call);
	/* Not started: the work-group's first pass. */
	LLVMPositionBuilderAtEnd(g->b, free_slot);
	LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, LLVMBuildLoad2(g->b, g->i32, field(g, next,
							offsetof(struct sg_state, slot)), ""), c32(g, 0), ""),
			fast, call);
	LLVMPositionBuilderAtEnd(g->b, fast);
	LLVMBuildStore(g->b, LLVMConstInt(g->i8, 1, false), field(g, s, offsetof(struct sg_state, done)));
	LLVMBuildStore(g->b, LLVMBuildSub(g->b, LLVMBuildLoad2(g->b, g->i32, livep, ""), c32(g, 1), ""), livep);
	LLVMBuildStore(g->b, LLVMBuildLoad2(g->b, g->i32, field(g, s, offsetof(struct sg_state, slot)), ""),
		       field(g, next, offsetof(struct sg_state, slot)));
	LLVMBuildStore(g->b, g->base, field(g, next, offsetof(struct sg_state, pc)));
	LLVMBuildStore(g->b, c32(g, 0), field(g, next, offsetof(struct sg_state, sp)));
	LLVMBuildStore(g->b, every_lane(g),
		       field(g, next, offsetof(struct sg_state, mask)));
	flush_leaving(g, g->entry_kills);
	/* What the entry block's count adds, which the way to entry_full passes. */
	go_on_inline(g, next, k, pending, c64(g, block_rest(g, 0)), NULL, true);
	LLVMPositionBuilderAtEnd(g->b, call);
}

/*
 * At end or bar (@ended: end) with every lane on: what weft_jit_next_sg()
 * or weft_jit_next_at_bar() does when the next sub-group in order has
 * started, gets the turn (has not ended, does not wait at a barrier) and
 * has every lane on (its lane masks are this one's), here without a call,
 * in a dispatch with no private memory (whose slot's would change with the
 * file): this one ends (its rows stored, its slot freed) or waits, and the
 * next one resumes where its last turn stopped, from turn (execution.rst,
 * "A run of sub-groups").  Else the builder is left where the call goes.
 */
static void next_started_turn(struct gen *g, bool ended)
{
	LLVMBasicBlockRef look = new_block(g, "started_next"), fast = new_block(g, "started_inline");
	LLVMBasicBlockRef call = new_block(g, "started_call");
	LLVMValueRef s = g->s, next = field(g, s, sizeof(struct sg_state)), sgp = field(g, g->c, offsetof(struct sg_ctx, sg));
	LLVMValueRef k = LLVMBuildAdd(g->b, LLVMBuildLoad2(g->b, g->i32, sgp, ""), c32(g, 1), "");
	LLVMValueRef nsub = LLVMBuildLoad2(g->b, g->i32, field(g, g->c, offsetof(struct sg_ctx, nsub)), "");
	LLVMValueRef pending = LLVMBuildAdd(g->b, LLVMBuildLoad2(g->b, g->i64, g->pendingp, ""),
					    LLVMBuildLoad2(g->b, g->i64, g->countp, ""), "");
	LLVMValueRef scratch = sg_field(g, true, offsetof(struct weft_dispatch_params, scratch));
	LLVMValueRef ok, slot, R;

	ok = LLVMBuildAnd(g->b, LLVMBuildICmp(g->b, LLVMIntULT, k, nsub, ""),
			  LLVMBuildICmp(g->b, LLVMIntULT, pending, c64(g, WEFT_JIT_ACCOUNT_EVERY), ""), "");
	ok = LLVMBuildAnd(g->b, ok, LLVMBuildICmp(g->b, LLVMIntEQ, scratch, c64(g, 0), ""), "");
	LLVMBuildCondBr(g->b, ok, look, call);
	/* Sub-group k's state exists: k < nsub. */
	LLVMPositionBuilderAtEnd(g->b, look);
	slot = LLVMBuildLoad2(g->b, g->i32, field(g, next, offsetof(struct sg_state, slot)), "");
	ok = LLVMBuildICmp(g->b, LLVMIntSGE, slot, c32(g, 0), "");
	ok = LLVMBuildAnd(g->b, ok, LLVMBuildICmp(g->b, LLVMIntEQ,
			  LLVMBuildLoad2(g->b, g->i8, field(g, next, offsetof(struct sg_state, done)), ""),
			  LLVMConstInt(g->i8, 0, false), ""), "");
	ok = LLVMBuildAnd(g->b, ok, LLVMBuildICmp(g->b, LLVMIntEQ,
			  LLVMBuildLoad2(g->b, g->i8, field(g, next, offsetof(struct sg_state, at_barrier)), ""),
			  LLVMConstInt(g->i8, 0, false), ""), "");
	ok = LLVMBuildAnd(g->b, ok, LLVMBuildICmp(g->b, LLVMIntEQ,
			  LLVMBuildLoad2(g->b, g->i32, field(g, next, offsetof(struct sg_state, mask)), ""),
			  every_lane(g), ""), "");
	LLVMBuildCondBr(g->b, ok, fast, call);
	LLVMPositionBuilderAtEnd(g->b, fast);
	if (ended) {
		LLVMValueRef used = ctx_load(g, offsetof(struct weft_jit_ctx, slot_used), g->ptr, "");
		LLVMValueRef own = LLVMBuildLoad2(g->b, g->i32, field(g, s, offsetof(struct sg_state, slot)), "");

		flush_leaving(g, NULL);
		LLVMBuildStore(g->b, LLVMConstInt(g->i8, 1, false), field(g, s, offsetof(struct sg_state, done)));
		LLVMBuildStore(g->b, LLVMBuildSub(g->b, LLVMBuildLoad2(g->b, g->i32, g->livep, ""), c32(g, 1), ""),
			       g->livep);
		LLVMBuildStore(g->b, LLVMConstInt(g->i8, 0, false),
			       byte_ptr(g, used, LLVMBuildSExt(g->b, own, g->i64, "")));
	} else {
		LLVMValueRef atp = ctx_load(g, offsetof(struct weft_jit_ctx, at_barrier), g->ptr, "");

		LLVMBuildStore(g->b, LLVMConstInt(g->i8, 1, false), field(g, s, offsetof(struct sg_state, at_barrier)));
		LLVMBuildStore(g->b, LLVMBuildAdd(g->b, LLVMBuildLoad2(g->b, g->i32, atp, ""), c32(g, 1), ""), atp);
	}
	R = LLVMBuildLoad2(g->b, g->ptr, byte_ptr(g, ctx_load(g, offsetof(struct weft_jit_ctx, rf), g->ptr, ""),
						  LLVMBuildMul(g->b, LLVMBuildSExt(g->b, slot, g->i64, ""),
							       c64(g, sizeof(void *)), "")), "R");
	go_on_inline(g, next, k, pending, c64(g, 0), R, false);
	LLVMPositionBuilderAtEnd(g->b, call);
}

/*
 * At a bar with every lane on in the work-group's first pass: what
 * weft_jit_next_at_bar() does when the next sub-group in order has not
 * started and will have every lane on, here without a call, in a dispatch
 * with no private memory, when this one holds the slot of its index: then
 * no sub-group before it ended (one that ends in the first pass frees its
 * slot before the next one starts and takes it), sub-groups 0 to this one
 * hold slots 0 to its index, and get_slot() would give the next one the
 * next slot; one used since the files were zeroed (allocated, and counted
 * as used).  This one waits, and the next one takes that slot, its
 * entry, its whole mask and an empty mask stack, and starts from turn into
 * the entry block for every lane on, as next_whole_sub_group() starts one
 * (execution.rst, "A run of sub-groups").  Else the builder is left where
 * the call goes.
 */
static void next_first_turn_at_bar(struct gen *g)
{
	LLVMBasicBlockRef look = new_block(g, "first_next"), fast = new_block(g, "first_inline");
	LLVMBasicBlockRef call = new_block(g, "first_call");
	LLVMValueRef s = g->s, next = field(g, s, sizeof(struct sg_state)), sgp = field(g, g->c, offsetof(struct sg_ctx, sg));
	LLVMValueRef sg = LLVMBuildLoad2(g->b, g->i32, sgp, ""), k = LLVMBuildAdd(g->b, sg, c32(g, 1), "");
	LLVMValueRef nsub = LLVMBuildLoad2(g->b, g->i32, field(g, g->c, offsetof(struct sg_ctx, nsub)), "");
	LLVMValueRef nitems = LLVMBuildLoad2(g->b, g->i32, field(g, g->c, offsetof(struct sg_ctx, nitems)), "");
	LLVMValueRef pending = LLVMBuildAdd(g->b, LLVMBuildLoad2(g->b, g->i64, g->pendingp, ""),
					    LLVMBuildLoad2(g->b, g->i64, g->countp, ""), "");
	LLVMValueRef scratch = sg_field(g, true, offsetof(struct weft_dispatch_params, scratch));
	LLVMValueRef dirtyp = ctx_load(g, offsetof(struct weft_jit_ctx, rf_dirty), g->ptr, "");
	LLVMValueRef ok, R, atp, k64;

	/* Sub-group k has every lane's item: (k + 1) * simd <= nitems, so k < nsub. */
	k64 = LLVMBuildZExt(g->b, k, g->i64, "");
	ok = LLVMBuildICmp(g->b, LLVMIntULE, LLVMBuildMul(g->b, LLVMBuildAdd(g->b, k64, c64(g, 1), ""), c64(g, g->NL), ""),
			   LLVMBuildZExt(g->b, nitems, g->i64, ""), "");
	ok = LLVMBuildAnd(g->b, ok, LLVMBuildICmp(g->b, LLVMIntULT, k, nsub, ""), "");
	ok = LLVMBuildAnd(g->b, ok, LLVMBuildICmp(g->b, LLVMIntULT, pending, c64(g, WEFT_JIT_ACCOUNT_EVERY), ""), "");
	ok = LLVMBuildAnd(g->b, ok, LLVMBuildICmp(g->b, LLVMIntEQ, scratch, c64(g, 0), ""), "");
	ok = LLVMBuildAnd(g->b, ok, LLVMBuildICmp(g->b, LLVMIntULT, k, LLVMBuildLoad2(g->b, g->i32, dirtyp, ""), ""),
			  "");
	LLVMBuildCondBr(g->b, ok, look, call);
	LLVMPositionBuilderAtEnd(g->b, look);
	ok = LLVMBuildICmp(g->b, LLVMIntSLT, LLVMBuildLoad2(g->b, g->i32, field(g, next, offsetof(struct sg_state, slot)),
							     ""), c32(g, 0), "");
	ok = LLVMBuildAnd(g->b, ok, LLVMBuildICmp(g->b, LLVMIntEQ,
			  LLVMBuildLoad2(g->b, g->i32, field(g, s, offsetof(struct sg_state, slot)), ""), sg, ""), "");
	LLVMBuildCondBr(g->b, ok, fast, call);
	LLVMPositionBuilderAtEnd(g->b, fast);
	atp = ctx_load(g, offsetof(struct weft_jit_ctx, at_barrier), g->ptr, "");
	LLVMBuildStore(g->b, LLVMConstInt(g->i8, 1, false), field(g, s, offsetof(struct sg_state, at_barrier)));
	LLVMBuildStore(g->b, LLVMBuildAdd(g->b, LLVMBuildLoad2(g->b, g->i32, atp, ""), c32(g, 1), ""), atp);
	LLVMBuildStore(g->b, LLVMConstInt(g->i8, 1, false),
		       byte_ptr(g, ctx_load(g, offsetof(struct weft_jit_ctx, slot_used), g->ptr, ""), k64));
	LLVMBuildStore(g->b, k, field(g, next, offsetof(struct sg_state, slot)));
	LLVMBuildStore(g->b, g->base, field(g, next, offsetof(struct sg_state, pc)));
	LLVMBuildStore(g->b, c32(g, 0), field(g, next, offsetof(struct sg_state, sp)));
	LLVMBuildStore(g->b, every_lane(g), field(g, next, offsetof(struct sg_state, mask)));
	R = LLVMBuildLoad2(g->b, g->ptr, byte_ptr(g, ctx_load(g, offsetof(struct weft_jit_ctx, rf), g->ptr, ""),
						  LLVMBuildMul(g->b, k64, c64(g, sizeof(void *)), "")), "R");
	/* What the entry block's count adds, which the way to entry_full passes. */
	go_on_inline(g, next, k, pending, c64(g, block_rest(g, 0)), R, true);
	LLVMPositionBuilderAtEnd(g->b, call);
}

/*
 * After end: the work-group's next sub-group in the same call when
 * weft_jit_next_sg() sets it up, else the turn ends.  The rows the block
 * assigned go to the file first, but for a next sub-group with every lane
 * on those it overwrites at its start (entry_kills): no one can read
 * their values (execution.rst, "A run of sub-groups").
 * weft_jit_next_sg() reads no row and leaves the slot, so the rows go to
 * the same file after it.
 */
static void next_sub_group(struct gen *g)
{
	LLVMTypeRef fn_ty = LLVMFunctionType(g->i32, &g->ptr, 1, false);
	LLVMBasicBlockRef done = new_block(g, "ended"), some = new_block(g, "next"), whole = new_block(g, "next_whole");
	LLVMValueRef more, sw;
	bool dirty[WEFT_NUM_REGS];

	if (g->full) {
		next_whole_sub_group(g);
		next_started_turn(g, true);
	}
	more = call_c(g, fn_ty, (uintptr_t)weft_jit_next_sg, &g->x, 1, "");
	sw = LLVMBuildSwitch(g->b, more, done, 2);
	LLVMAddCase(sw, c32(g, 1), some);
	LLVMAddCase(sw, c32(g, 2), whole);
	memcpy(dirty, g->dirty, sizeof(dirty));
	LLVMPositionBuilderAtEnd(g->b, whole);
	flush_leaving(g, g->entry_kills);
	LLVMBuildBr(g->b, g->start);
	LLVMPositionBuilderAtEnd(g->b, some);
	flush(g, NULL, 0);
	LLVMBuildBr(g->b, g->start);
	memcpy(g->dirty, dirty, sizeof(dirty));
	LLVMPositionBuilderAtEnd(g->b, done);
	flush(g, NULL, 0);
	exit_with(g, SG_ENDED);
}

/*
 * After bar: the next turn of the work-group's pass in the same call when
 * weft_jit_next_at_bar() sets it up, else the turn ends (execution.rst,
 * "A run of sub-groups").
 */
static void next_at_bar(struct gen *g)
{
	LLVMTypeRef fn_ty = LLVMFunctionType(g->i32, &g->ptr, 1, false);
	LLVMValueRef more;
	LLVMBasicBlockRef wait = new_block(g, "at_barrier");

	if (g->full) {
		next_started_turn(g, false);
		next_first_turn_at_bar(g);
	}
	more = call_c(g, fn_ty, (uintptr_t)weft_jit_next_at_bar, &g->x, 1, "");

	LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, more, c32(g, 0), ""), g->start, wait);
	LLVMPositionBuilderAtEnd(g->b, wait);
	exit_with(g, SG_AT_BARRIER);
}

/* Instruction @i; returns whether its block goes on with the next instruction. */
static bool emit_inst(struct gen *g, unsigned i)
{
	const struct weft_inst *in = &g->k->insts[i];

	switch (weft_isa_ops[in->op].cls) {
	case WEFT_CLASS_END:
		next_sub_group(g);
		return false;
	case WEFT_CLASS_BAR:
		flush(g, NULL, 0);
		LLVMBuildStore(g->b, pc_of(g, i + 1), g->pcp);
		next_at_bar(g);
		return false;
	case WEFT_CLASS_CF:
		g->deferred = g->tracing && g->trace_left &&
			      (in->op == WEFT_OP_IF || in->op == WEFT_OP_ELSE || in->op == WEFT_OP_ENDIF);
		if (!g->deferred)
			flush(g, NULL, 0);
		emit_cf(g, i, in);
		g->deferred = false;
		return false;
	case WEFT_CLASS_NOP:
		break;
	default:
		if (g->by_handlers || !weft_jit_native(in))
			emit_helper(g, i, in);
		else if (is_mem(in))
			emit_mem(g, i, in);
		else if (weft_isa_ops[in->op].cls == WEFT_CLASS_ATOM)
			emit_local_atom(g, i, in);
		else if (in->op >= WEFT_OP_LD_BLOCK && in->op <= WEFT_OP_ST_BLOCK8)
			emit_block_access(g, i, in);
		else if (in->op >= WEFT_OP_RED_ADD && in->op <= WEFT_OP_ESCAN_XOR)
			in->t == WEFT_TYPE_F32 ? emit_fscan(g, in) : emit_scan(g, in);
		else if (weft_isa_ops[in->op].cls == WEFT_CLASS_XLANE)
			emit_shuffle(g, in);
		else if (is_f32_arith(in))
			emit_falu(g, in);
		else if (in->t == WEFT_TYPE_F32 && in->op != WEFT_OP_MOV && in->op != WEFT_OP_SEL)
			emit_fother(g, in);
		else if (in->op == WEFT_OP_CVT)
			emit_cvt(g, in);
		else if (in->op == WEFT_OP_S2R)
			emit_s2r(g, in);
		else
			emit_alu(g, in);
	}
	return true;
}

static bool ends_block(const struct weft_inst *in)
{
	unsigned cls = weft_isa_ops[in->op].cls;

	return cls == WEFT_CLASS_END || cls == WEFT_CLASS_BAR || cls == WEFT_CLASS_CF;
}

/*
 * Where basic blocks start: the entry, every jump target, and the
 * instruction after each one that ends a block (where a turn resumes after
 * a barrier, or a construct goes on).
 */
static void find_leaders(const struct kernel *k, uint8_t *leader)
{
	leader[0] = 1;
	for (unsigned i = 0; i < k->nw; i++) {
		const struct weft_inst *in = &k->insts[i];
		int64_t tgt = (int64_t)i + (int32_t)in->imm / 8;

		if (!k->start[i] || !ends_block(in))
			continue;
		if (has_target(in) && tgt >= 0 && tgt < k->nw)
			leader[tgt] = 1;
		if (i + in->nwords < k->nw)
			leader[i + in->nwords] = 1;
	}
}

/* The instructions of the block at @first, up to the next leader or block end. */
static void emit_insts(struct gen *g, unsigned first)
{
	const struct kernel *k = g->k;

	for (unsigned i = first;; i += k->insts[i].nwords) {
		if (i != first && g->leader[i]) {
			/* The mask stays: a trace goes on with the next block as it is. */
			if (g->tracing && g->full && can_trace(g, first, i, true)) {
				trace(g, i, true);
				return;
			}
			flush(g, NULL, 0);
			LLVMBuildBr(g->b, g->blk[i]);
			return;
		}
		if (!emit_inst(g, i))
			return;
	}
}

/*
 * Which words lie inside an if or a loop construct, in address order: the
 * constructs nest in the code as in the source.  Outside them the mask is
 * the one the turn started with, which is every lane but in a partial
 * sub-group or a malformed program.
 */
static void find_nested(const struct kernel *k, uint8_t *nested)
{
	unsigned depth = 0;

	for (unsigned i = 0; i < k->nw; i++) {
		const struct weft_inst *in = &k->insts[i];

		nested[i] = depth > 0;
		if (!k->start[i])
			continue;
		if (in->op == WEFT_OP_IF || in->op == WEFT_OP_LOOP)
			depth++;
		else if ((in->op == WEFT_OP_ENDIF || in->op == WEFT_OP_ENDLOOP) && depth)
			depth--;
	}
}

/*
 * Rows the entry block writes, in every lane of a sub-group with every lane
 * on, before any instruction reads them: a sub-group that starts so
 * overwrites them before it can read them, and the block's only way out
 * before its end is a fault, which stops the dispatch (registers start
 * zeroed in the next one).
 */
static void find_entry_kills(const struct kernel *k, const uint8_t *leader, bool *kills)
{
	bool read[WEFT_NUM_REGS] = { 0 };

	for (unsigned i = 0; i < k->nw && (i == 0 || !leader[i]); i += k->insts[i].nwords) {
		const struct weft_inst *in = &k->insts[i];
		uint8_t use[WEFT_NUM_REGS] = { 0 };

		if (ends_block(in))
			return;
		inst_rows(in, use);
		for (unsigned r = 0; r < WEFT_NUM_REGS; r++) {
			if ((use[r] & 8) && !kills[r])
				read[r] = true;
			if ((use[r] & 4) && !read[r])
				kills[r] = true;
		}
	}
}

/*
 * Which ids the block at @first reads (s2r): bit d the local id in
 * dimension d, bit 3 + d the global one; none when it has no global
 * access, where knowing them would save little.
 */
static unsigned block_ids(const struct gen *g, unsigned first)
{
	const struct kernel *k = g->k;
	unsigned ids = 0;
	bool global = false;

	for (unsigned i = first; i == first || !g->leader[i]; i += k->insts[i].nwords) {
		const struct weft_inst *in = &k->insts[i];

		if (in->op == WEFT_OP_S2R && in->mod >= WEFT_SR_LOCAL_ID_X && in->mod <= WEFT_SR_LOCAL_ID_Z)
			ids |= 1u << (in->mod - WEFT_SR_LOCAL_ID_X);
		if (in->op == WEFT_OP_S2R && in->mod >= WEFT_SR_GLOBAL_ID_X && in->mod <= WEFT_SR_GLOBAL_ID_Z)
			ids |= 8u << (in->mod - WEFT_SR_GLOBAL_ID_X);
		global |= in->op == WEFT_OP_LD_GLOBAL || in->op == WEFT_OP_ST_GLOBAL ||
			  (in->op >= WEFT_OP_LD_GLOBAL_V2 && in->op <= WEFT_OP_ST_GLOBAL_V4) ||
			  (in->op >= WEFT_OP_LD_BLOCK && in->op <= WEFT_OP_ST_BLOCK8);
		if (ends_block(in))
			break;
	}
	return global ? ids : 0;
}

/*
 * Whether the sub-group's items lie in one row of its work-group
 * (sub_group_origin()) with ids in x that wrap around neither 2^31 nor
 * 2^32 from lane to lane (its global ones when the block reads them: bit
 * 3 of @ids), as an i1: then its ids are known values (struct lin), from
 * gen.row_id and gen.row_gid, which this sets.
 */
static LLVMValueRef row_guard(struct gen *g, unsigned ids)
{
	LLVMValueRef xyz[3], ok, most = c32(g, INT32_MAX - (g->NL - 1));

	ok = sub_group_origin(g, xyz);
	ok = LLVMBuildAnd(g->b, ok, LLVMBuildICmp(g->b, LLVMIntULE, xyz[0], most, ""), "");
	for (unsigned d = 0; d < 3; d++) {
		g->row_id[d] = LLVMBuildZExt(g->b, xyz[d], g->i64, "");
		g->row_gid[d] = NULL;
	}
	if (ids & 8) {
		g->row_gid[0] = LLVMBuildAdd(g->b, group_origin(g, 0), g->row_id[0], "");
		ok = LLVMBuildAnd(g->b, ok, LLVMBuildICmp(g->b, LLVMIntULE,
				  LLVMBuildTrunc(g->b, g->row_gid[0], g->i32, ""), most, ""), "");
	}
	return ok;
}

/*
 * Adds to @w the rows the instructions in words @i up to (not including)
 * @end write.  The words between two instructions may hold none (code the
 * entry does not reach), so each word is asked whether one starts there.
 */
static void rows_written(const struct kernel *k, unsigned i, unsigned end, struct rows *w)
{
	for (; i < end; i++) {
		uint8_t use[WEFT_NUM_REGS] = { 0 };

		if (!k->start[i])
			continue;
		inst_rows(&k->insts[i], use);
		for (unsigned r = 0; r < WEFT_NUM_REGS; r++)
			if (use[r] & 2)
				add_row(w, r);
	}
}

/*
 * Where the jumps of instruction @last, which ends a block before @end, go
 * (*@n of them in @succ); endif's resumption at a construct's target is
 * the caller's.
 */
static void block_successors(const struct kernel *k, unsigned last, unsigned end, unsigned *succ,
			     unsigned *n)
{
	const struct weft_inst *in = &k->insts[last];
	unsigned cls = weft_isa_ops[in->op].cls;

	*n = 0;
	if (cls == WEFT_CLASS_END)
		return;
	if (in->op != WEFT_OP_BRA && end < k->nw)
		succ[(*n)++] = end;
	if (cls == WEFT_CLASS_CF && has_target(in))
		succ[(*n)++] = (unsigned)((int64_t)last + (int32_t)in->imm / 8);
}

/*
 * Which rows an instruction may have written between the entry block's end
 * and the start of each later block (gen.written_before): the entry block
 * runs first in every sub-group and whole (it has no way out but its end
 * and a fault), so a later block finds in the others what it left; and a
 * sub-group with every lane on in a later block had every lane on in it
 * (a mask is never more than the lanes that have items).  The rows of
 * every block that can run before it count, on the blocks' graph: the
 * jumps of bra, bra.any/all/none, if and else to their targets, and of
 * endif, which resumes at an enclosing construct's target when no lane is
 * left, to any if's or else's target (exec_cf() of weft_exec.c).  A loop
 * (whose break, cont and endloop resume at targets of their own), a jump
 * to the entry, or a target the translation does not hold: every row
 * written anywhere after the entry block counts for every block.
 */
static void find_written_before(struct gen *g)
{
	const struct kernel *k = g->k;
	unsigned ndyn = 0, *dyn = calloc(k->nw, sizeof(*dyn));
	unsigned *todo = calloc(k->nw + 1, sizeof(*todo)), ntodo = 0;
	uint8_t *queued = calloc(k->nw, 1), *seen = calloc(k->nw, 1);
	bool whole = !dyn || !todo || !queued || !seen;
	struct rows later = { 0 };
	unsigned entry_last, entry_end = block_end(g, 0, &entry_last, NULL);

	rows_written(k, entry_end, k->nw, &later);
	for (unsigned i = 0; i < k->nw && !whole; i++) {
		const struct weft_inst *in = &k->insts[i];
		int64_t tgt = (int64_t)i + (int32_t)in->imm / 8;

		if (!k->start[i])
			continue;
		whole |= in->op == WEFT_OP_LOOP || in->op == WEFT_OP_BREAK || in->op == WEFT_OP_CONT ||
			 in->op == WEFT_OP_ENDLOOP;
		whole |= ends_block(in) && in->op != WEFT_OP_BRA && weft_isa_ops[in->op].cls != WEFT_CLASS_END &&
			 (i + in->nwords >= k->nw || !g->blk[i + in->nwords]);
		if (!has_target(in))
			continue;
		whole |= tgt <= 0 || tgt >= k->nw || !g->blk[tgt];
		if (!whole && (in->op == WEFT_OP_IF || in->op == WEFT_OP_ELSE))
			dyn[ndyn++] = (unsigned)tgt;
	}
	if (whole) {
		for (unsigned i = entry_end; i < k->nw; i++)
			g->written_before[i] = later;
		goto out;
	}
	todo[ntodo++] = 0;
	queued[0] = 1;
	while (ntodo) {
		unsigned first = todo[--ntodo], last, end = block_end(g, first, &last, NULL), n, succ[2];
		struct rows out = g->written_before[first];

		queued[first] = 0;
		if (first)
			rows_written(k, first, end, &out);
		block_successors(k, last, end, succ, &n);
		for (unsigned s = 0; s < n + (k->insts[last].op == WEFT_OP_ENDIF ? ndyn : 0); s++) {
			unsigned to = s < n ? succ[s] : dyn[s - n];
			bool grew = add_rows(&g->written_before[to], &out);

			if ((grew || !seen[to]) && !queued[to]) {
				seen[to] = queued[to] = 1;
				todo[ntodo++] = to;
			}
		}
	}
out:
	free(dyn);
	free(todo);
	free(queued);
	free(seen);
}

/*
 * At the entry block's end: the rows it leaves known with a constant step
 * (gen.after_entry); a later block knows those no instruction may have
 * written before it (kept_row()).
 */
static void note_after_entry(struct gen *g, unsigned ids)
{
	struct kept *kept = g->after_entry[g->row];

	for (unsigned r = 0; r < WEFT_NUM_REGS; r++) {
		const struct lin *l = &g->lin[r], *hi = &g->lin[(r + 1) % WEFT_NUM_REGS];

		if (!l->u || l->hi || !LLVMIsAConstantInt(l->step))
			continue;
		kept[r] = (struct kept){ .step = l->step, .zext = l->zext, .sext = l->sext,
					 .pair = hi->hi && hi->u == l->u && hi->step == l->step };
	}
	if (g->row)
		g->entry_ids = ids;
}

/* Whether the variant being emitted knows row @r as the entry block's variants of kind @row left it. */
static bool kept_row(const struct gen *g, unsigned row, unsigned r)
{
	return g->after_entry[row][r].step && !has_row(&g->written_now, r);
}

/* Whether it knows rows @r, @r+1 as one 64-bit value so. */
static bool kept_pair(const struct gen *g, unsigned row, unsigned r)
{
	return kept_row(g, row, r) && g->after_entry[row][r].pair &&
	       !has_row(&g->written_now, (r + 1) % WEFT_NUM_REGS);
}

/*
 * At the start of a later block's variant: the rows the entry block left
 * known to every variant for all lanes on, and to its row variant in a
 * row variant, as lane 0's value (scalar loads from the file) plus lane *
 * the step it left.
 */
static void known_after_entry(struct gen *g)
{
	for (unsigned kind = 0; kind <= g->row; kind++) {
		const struct kept *kept = g->after_entry[kind];

		for (unsigned r = 0; r < WEFT_NUM_REGS; r++) {
			unsigned r1 = (r + 1) % WEFT_NUM_REGS;
			bool pair = kept_pair(g, kind, r);
			LLVMValueRef u;

			if (!kept_row(g, kind, r))
				continue;
			u = LLVMBuildZExt(g->b, LLVMBuildLoad2(g->b, g->i32, row_ptr(g, r), ""), g->i64, "");
			if (pair)
				u = LLVMBuildOr(g->b, u, LLVMBuildShl(g->b, LLVMBuildZExt(g->b, LLVMBuildLoad2(g->b,
						g->i32, row_ptr(g, r1), ""), g->i64, ""), c64(g, 32), ""), "");
			g->lin[r] = (struct lin){ .u = u, .step = kept[r].step, .zext = kept[r].zext,
						  .sext = kept[r].sext };
			if (pair)
				g->lin[r1] = (struct lin){ .u = u, .step = kept[r].step, .hi = true };
		}
	}
}

/* Whether the block at @first reads a row the entry block leaves known to its variants of kind @row. */
static bool reads_after_entry(const struct gen *g, unsigned first, bool row)
{
	const struct kernel *k = g->k;

	if (!first)
		return false;
	for (unsigned i = first; i == first || !g->leader[i]; i += k->insts[i].nwords) {
		uint8_t use[WEFT_NUM_REGS] = { 0 };

		inst_rows(&k->insts[i], use);
		for (unsigned r = 0; r < WEFT_NUM_REGS; r++)
			if ((use[r] & 1) && (kept_row(g, row, r) ||
					     kept_pair(g, row, (r + WEFT_NUM_REGS - 1) % WEFT_NUM_REGS)))
				return true;
		if (ends_block(&k->insts[i]))
			break;
	}
	return false;
}

/*
 * One variant of the block at @first from @bb, accesses speculating
 * (speculate_global()) in the optimizing tier, then the tails it leaves
 * for, which do not.  The fast tier does not speculate: a tail is the
 * rest of the block once more, which doubled its translation time.
 * @ids: the ids its row guard tested.
 */
static void emit_variant(struct gen *g, LLVMBasicBlockRef bb, unsigned first, unsigned ids)
{
	bool later = reads_after_entry(g, first, false) || (g->row && reads_after_entry(g, first, true));

	block_start(g, bb);
	if (later)
		known_after_entry(g);
	g->speculate = g->row_variants;
	g->ntails = g->tail_insts = 0;
	g->tracing = g->traces;
	g->trace_left = g->traced_left < TRACE_INSTS ? g->traced_left : TRACE_INSTS;
	g->entry_note = !first;
	g->entry_note_ids = ids;
	emit_insts(g, first);
	if (g->entry_note)
		note_after_entry(g, ids);
	g->entry_note = false;
	g->speculate = false;
	for (unsigned t = 0; t < g->ntails; t++) {
		struct rows before = g->written_now;

		block_start(g, g->tails[t].bb);
		if (later) {
			rows_written(g->k, first, g->tails[t].i, &g->written_now);
			known_after_entry(g);
		}
		emit_insts(g, g->tails[t].i);
		g->written_now = before;
	}
	g->tracing = false;
}

/*
 * The block at @first, twice: for a sub-group with every lane on (the mask
 * does not change inside a block), where a register write is the new value
 * itself, and for any mask.  Inside an if or a loop, that second variant
 * is host code too, where a write is a select against the old value;
 * outside (only a partial sub-group runs it, or a malformed program), a
 * call of the interpreter's handler per instruction, which is much less
 * IR to compile: the translation time of the second variant goes where
 * the mask can really change.
 */
static void emit_block(struct gen *g, unsigned first)
{
	/* The turn's count, for the whole block at once: only a fault (which
	 * ends the dispatch) leaves a block before its last instruction. */
	unsigned n = block_rest(g, first), ids;
	LLVMBasicBlockRef full = first ? new_block(g, "full") : g->entry_full, some = new_block(g, "some");
	LLVMValueRef cnt, mask;

	g->written_now = g->written_before[first];
	LLVMPositionBuilderAtEnd(g->b, g->blk[first]);
	cnt = LLVMBuildLoad2(g->b, g->i64, g->countp, "");
	LLVMBuildStore(g->b, LLVMBuildAdd(g->b, cnt, c64(g, n), ""), g->countp);
	mask = LLVMBuildLoad2(g->b, g->i32, g->maskp, "mask");
	LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, mask,
					    every_lane(g), ""), full, some);
	g->full = true;
	ids = g->row_variants ? block_ids(g, first) : 0;
	/* A block that reads what the entry block's row variant left needs its guard. */
	if (g->row_variants && reads_after_entry(g, first, true))
		ids |= g->entry_ids | 64;
	if (n > ROW_VARIANT_INSTS)
		ids = 0;
	if (ids) {
		LLVMBasicBlockRef row = new_block(g, "row"), other = new_block(g, "not_row");

		LLVMPositionBuilderAtEnd(g->b, full);
		LLVMBuildCondBr(g->b, row_guard(g, ids), row, other);
		g->row = true;
		emit_variant(g, row, first, ids);
		g->row = false;
		full = other;
	}
	emit_variant(g, full, first, 0);
	g->full = false;
	block_start(g, some);
	g->by_handlers = !g->nested[first];
	emit_insts(g, first);
	g->by_handlers = false;
}

/* False when memory runs out: the interpreter runs the kernel then. */
static bool build(struct gen *g, const char *name)
{
	const struct kernel *k = g->k;
	LLVMTypeRef params[5] = { g->ptr, g->ptr, g->i64, g->i32, g->ptr };
	LLVMBasicBlockRef entry, interp, started;
	LLVMValueRef sw, pc0, maskp, pcp, s, R;

	g->leader = calloc(k->nw, 1);
	g->blk = calloc(k->nw, sizeof(*g->blk));
	g->nested = calloc(k->nw, 1);
	g->written_before = calloc(k->nw, sizeof(*g->written_before));
	if (!g->leader || !g->blk || !g->nested || !g->written_before) {
		free(g->blk);
		free(g->nested);
		free(g->written_before);
		return false;
	}
	g->exec_ty = LLVMFunctionType(g->i32, params, 4, false);
	g->cf_ty = LLVMFunctionType(g->i32, params, 5, false);
	g->fn = LLVMAddFunction(g->mod, name, LLVMFunctionType(g->i32, &g->ptr, 1, false));
	g->x = LLVMGetParam(g->fn, 0);
	find_leaders(k, g->leader);
	find_nested(k, g->nested);
	find_entry_kills(k, g->leader, g->entry_kills);
	entry = new_block(g, "entry");
	g->start = new_block(g, "start");
	g->turn = new_block(g, "turn");
	g->entry_full = new_block(g, "entry_full");
	g->dispatch = new_block(g, "dispatch");
	g->exit = new_block(g, "exit");
	interp = new_block(g, "interpret");
	for (unsigned i = 0; i < k->nw; i++)
		if (g->leader[i] && k->start[i])
			g->blk[i] = new_block(g, "b");
	find_written_before(g);

	LLVMPositionBuilderAtEnd(g->b, entry);
	g->entry = entry;
	g->target = LLVMBuildAlloca(g->b, g->i64, "target");
	g->lanes_tmp = LLVMBuildAlloca(g->b, LLVMArrayType(g->i64, WEFT_MAX_LANES), "lanes");
	g->elems_tmp = LLVMBuildAlloca(g->b, LLVMArrayType(g->ptr, 4 * WEFT_MAX_LANES), "elems");
	g->stream = LLVMBuildICmp(g->b, LLVMIntNE, ctx_load(g, offsetof(struct weft_jit_ctx, stream), g->i8, "stream"),
				  LLVMConstInt(g->i8, 0, false), "");
	LLVMBuildBr(g->b, g->start);

	/* A sub-group's turn starts here, also the next one's of a run that weft_jit_next_sg() sets up. */
	LLVMPositionBuilderAtEnd(g->b, g->start);
	R = ctx_load(g, offsetof(struct weft_jit_ctx, R), g->ptr, "R");
	g->Mp = ctx_load(g, offsetof(struct weft_jit_ctx, M), g->ptr, "Mp");
	maskp = ctx_load(g, offsetof(struct weft_jit_ctx, mask), g->ptr, "maskp");
	pcp = ctx_load(g, offsetof(struct weft_jit_ctx, pc), g->ptr, "pcp");
	s = ctx_load(g, offsetof(struct weft_jit_ctx, s), g->ptr, "s");
	g->base = ctx_load(g, offsetof(struct weft_jit_ctx, base), g->i64, "base");
	g->mmu = ctx_load(g, offsetof(struct weft_jit_ctx, mmu), g->ptr, "mmu");
	g->c = ctx_load(g, offsetof(struct weft_jit_ctx, c), g->ptr, "sg");
	g->pendingp = ctx_load(g, offsetof(struct weft_jit_ctx, pending), g->ptr, "pendingp");
	g->livep = ctx_load(g, offsetof(struct weft_jit_ctx, live), g->ptr, "livep");
	g->countp = byte_ptr(g, g->x, c64(g, offsetof(struct weft_jit_ctx, count)));
	pc0 = LLVMBuildLoad2(g->b, g->i64, pcp, "pc0");
	LLVMBuildBr(g->b, g->turn);

	/* Also a whole next sub-group's turn of a run (next_whole_sub_group()). */
	LLVMPositionBuilderAtEnd(g->b, g->turn);
	g->s = LLVMBuildPhi(g->b, g->ptr, "s");
	g->maskp = LLVMBuildPhi(g->b, g->ptr, "maskp");
	g->pcp = LLVMBuildPhi(g->b, g->ptr, "pcp");
	g->whole = LLVMBuildPhi(g->b, g->i1, "whole");
	g->R = LLVMBuildPhi(g->b, g->ptr, "R");
	g->turn_pc = LLVMBuildPhi(g->b, g->i64, "turn_pc");
	LLVMAddIncoming(g->s, &s, &g->start, 1);
	LLVMAddIncoming(g->maskp, &maskp, &g->start, 1);
	LLVMAddIncoming(g->pcp, &pcp, &g->start, 1);
	LLVMAddIncoming(g->whole, (LLVMValueRef[]){ LLVMConstInt(g->i1, 0, false) }, &g->start, 1);
	LLVMAddIncoming(g->R, &R, &g->start, 1);
	LLVMAddIncoming(g->turn_pc, &pc0, &g->start, 1);
	/* Three divisions in a 2D work-group: 12 % of the stencil's time when
	 * every block's row guard made them. */
	if (g->row_variants)
		g->origin_ok = sub_group_origin(g, g->origin);
	started = LLVMGetInsertBlock(g->b);
	LLVMBuildCondBr(g->b, g->whole, g->entry_full, g->dispatch);

	/* A turn starts, or a jump whose target is only known at run time goes, here. */
	LLVMPositionBuilderAtEnd(g->b, g->dispatch);
	g->dispatch_phi = LLVMBuildPhi(g->b, g->i64, "target");
	LLVMAddIncoming(g->dispatch_phi, &g->turn_pc, &started, 1);
	sw = LLVMBuildSwitch(g->b, LLVMBuildSub(g->b, g->dispatch_phi, g->base, ""), interp, 64);
	for (unsigned i = 0; i < k->nw; i++)
		if (g->blk[i] && (!i || !g->entry_only))
			LLVMAddCase(sw, c64(g, 8ull * i), g->blk[i]);
	LLVMPositionBuilderAtEnd(g->b, g->exit);
	g->exit_phi = LLVMBuildPhi(g->b, g->i32, "why");
	LLVMBuildRet(g->b, g->exit_phi);
	LLVMPositionBuilderAtEnd(g->b, interp);
	LLVMBuildStore(g->b, g->dispatch_phi, g->pcp);
	exit_with(g, WEFT_JIT_INTERPRET);

	for (unsigned i = 0; i < k->nw; i++)
		g->traced_left += TRACE_SHARE * k->start[i];
	for (unsigned i = 0; i < k->nw; i++)
		if (g->blk[i])
			emit_block(g, i);
	forget_pages(g);
	free(g->calls);
	free(g->blk);
	free(g->nested);
	free(g->written_before);
	return !g->out_of_memory;
}

static void report(const char *what, LLVMErrorRef err)
{
	char *msg = LLVMGetErrorMessage(err);

	fprintf(stderr, "weft-model: translator: %s: %s\n", what, msg);
	LLVMDisposeErrorMessage(msg);
}

/*
 * The object file of a translation, before it is linked: the size of its
 * one function, which the perf map needs (the lookup gives the address).
 */
static LLVMErrorRef note_code_bytes(void *ctx, LLVMMemoryBufferRef *obj)
{
	struct weft_jit *j = ctx;
	char *msg = NULL;
	LLVMBinaryRef bin = LLVMCreateBinary(*obj, NULL, &msg);
	LLVMSymbolIteratorRef sym;

	if (!bin) {
		LLVMDisposeMessage(msg);
		return NULL;	/* the map only lacks this translation */
	}
	sym = LLVMObjectFileCopySymbolIterator(bin);
	for (; !LLVMObjectFileIsSymbolIteratorAtEnd(bin, sym); LLVMMoveToNextSymbol(sym))
		if (!strncmp(LLVMGetSymbolName(sym), "weft_kernel_", 12))
			j->code_bytes = LLVMGetSymbolSize(sym);
	LLVMDisposeSymbolIterator(sym);
	LLVMDisposeBinary(bin);
	return NULL;
}

/* The name of a translation in perf maps and dumps: by its kernel's hash, width and tier. */
static void translation_name(char *buf, size_t size, const struct kernel *k, unsigned tier)
{
	snprintf(buf, size, "weft_kernel_%016llx_simd%u_%s", (unsigned long long)k->hash, k->simd,
		 tier == TIER_OPT ? "opt" : "fast");
}

/* Appends the translation at @addr to /tmp/perf-PID.map, named by its kernel and tier. */
static void name_for_perf(LLVMOrcExecutorAddress addr, uint64_t bytes, const struct kernel *k,
			  unsigned tier)
{
	char path[64], name[64];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "a");
	if (!f)
		return;
	translation_name(name, sizeof(name), k, tier);
	fprintf(f, "%llx %llx %s\n", (unsigned long long)addr, (unsigned long long)(bytes ? bytes : 1), name);
	fclose(f);
}

static LLVMTargetMachineRef host_machine(LLVMCodeGenOptLevel level);
static LLVMCodeGenOptLevel codegen_level_from_env(void);

/*
 * WEFT_MODEL_JIT_DUMP: DIR/NAME.weft (the instructions, a mark on each
 * that starts a basic block), NAME.ll (the IR as it goes to code
 * generation) and NAME.s (the host assembly, generated from a copy of the
 * module at the tier's level).  A file that cannot be written is left out.
 */
static void dump_translation(struct weft_jit *j, const struct gen *g, unsigned tier)
{
	char name[64], path[4096], line[256], *msg = NULL;
	LLVMTargetMachineRef tm;
	LLVMModuleRef copy;
	FILE *f;

	translation_name(name, sizeof(name), g->k, tier);
	snprintf(path, sizeof(path), "%s/%s.weft", j->dump_dir, name);
	f = fopen(path, "w");
	if (f) {
		for (unsigned i = 0; i < g->k->nw; i++) {
			if (!g->k->start[i])
				continue;
			weft_isa_print(&g->k->insts[i], line, sizeof(line));
			fprintf(f, "%c%5u: %s\n", g->leader[i] ? '>' : ' ', i, line);
		}
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/%s.ll", j->dump_dir, name);
	if (LLVMPrintModuleToFile(g->mod, path, &msg))
		fprintf(stderr, "weft-model: translator: %s: %s\n", path, msg);
	LLVMDisposeMessage(msg);
	msg = NULL;
	tm = host_machine(tier == TIER_OPT ? codegen_level_from_env() : LLVMCodeGenLevelNone);
	if (!tm)
		return;
	snprintf(path, sizeof(path), "%s/%s.s", j->dump_dir, name);
	copy = LLVMCloneModule(g->mod);
	if (LLVMTargetMachineEmitToFile(tm, copy, path, LLVMAssemblyFile, &msg))
		fprintf(stderr, "weft-model: translator: %s: %s\n", path, msg);
	LLVMDisposeMessage(msg);
	LLVMDisposeModule(copy);
	LLVMDisposeTargetMachine(tm);
}

/* Translates @k into @rt's machine code; NULL on failure (the kernel interprets). */
static weft_jit_fn translate(struct weft_jit *j, const struct kernel *k, uint64_t serial,
			     unsigned tier, LLVMOrcResourceTrackerRef rt)
{
	LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
	struct gen g = { .C = LLVMOrcThreadSafeContextGetContext(tsc), .k = k, .NL = k->simd,
			 .entry_only = j->entry_only, .inline_pages = tier == TIER_OPT,
			 .row_variants = tier == TIER_OPT, .traces = tier == TIER_OPT,
			 .split = &j->split, .cf_calls = &j->cf_calls };
	LLVMOrcExecutorAddress addr = 0;
	LLVMPassBuilderOptionsRef opts;
	LLVMOrcThreadSafeModuleRef tsm;
	LLVMTargetDataRef td;
	LLVMErrorRef err;
	char name[32], *dl;
	bool built;

	snprintf(name, sizeof(name), "weft_kernel_%llu", (unsigned long long)serial);
	g.mod = LLVMModuleCreateWithNameInContext(name, g.C);
	LLVMSetTarget(g.mod, LLVMOrcLLJITGetTripleString(j->lljit[tier]));
	td = LLVMCreateTargetDataLayout(j->tm);
	dl = LLVMCopyStringRepOfTargetData(td);
	LLVMSetDataLayout(g.mod, dl);
	LLVMDisposeMessage(dl);
	LLVMDisposeTargetData(td);
	g.b = LLVMCreateBuilderInContext(g.C);
	g.i1 = LLVMInt1TypeInContext(g.C);
	g.i8 = LLVMInt8TypeInContext(g.C);
	g.i32 = LLVMInt32TypeInContext(g.C);
	g.i64 = LLVMInt64TypeInContext(g.C);
	g.ptr = LLVMPointerTypeInContext(g.C, 0);
	g.vi32 = LLVMVectorType(g.i32, g.NL);
	g.vi64 = LLVMVectorType(g.i64, g.NL);
	built = build(&g, name);
	LLVMDisposeBuilder(g.b);
	if (!built) {
		fprintf(stderr, "weft-model: translator: out of memory\n");
		free(g.leader);
		LLVMDisposeModule(g.mod);
		LLVMOrcDisposeThreadSafeContext(tsc);
		return NULL;
	}
	opts = LLVMCreatePassBuilderOptions();
	err = LLVMRunPasses(g.mod, "function(early-cse)", j->tm, opts);
	LLVMDisposePassBuilderOptions(opts);
	if (!err && j->dump_dir)
		dump_translation(j, &g, tier);
	free(g.leader);
	if (err) {
		report("optimizing", err);
		LLVMDisposeModule(g.mod);
		LLVMOrcDisposeThreadSafeContext(tsc);
		return NULL;
	}
	tsm = LLVMOrcCreateNewThreadSafeModule(g.mod, tsc);
	LLVMOrcDisposeThreadSafeContext(tsc);	/* the module keeps it alive */
	err = LLVMOrcLLJITAddLLVMIRModuleWithRT(j->lljit[tier], rt, tsm);
	if (err) {
		report("adding the module", err);
		LLVMOrcDisposeThreadSafeModule(tsm);
		return NULL;
	}
	j->code_bytes = 0;
	err = LLVMOrcLLJITLookup(j->lljit[tier], &addr, name);
	if (err) {
		report("compiling", err);
		return NULL;
	}
	if (j->perf_map)
		name_for_perf(addr, j->code_bytes, k, tier);
	return (weft_jit_fn)(uintptr_t)addr;
}

enum weft_jit_mode weft_jit_mode_from_env(void)
{
	const char *v = getenv("WEFT_MODEL_JIT");

	if (!v || !*v)
		return WEFT_JIT_AUTO;
	return strcmp(v, "0") ? WEFT_JIT_ALWAYS : WEFT_JIT_OFF;
}

static pthread_once_t llvm_once = PTHREAD_ONCE_INIT;
static bool llvm_ok;

struct prof_row {
	uint64_t n[PROF_KINDS], total;
	unsigned op, t;
};

static int by_total(const void *a, const void *b)
{
	const struct prof_row *x = a, *y = b;

	return x->total < y->total ? 1 : x->total > y->total ? -1 : 0;
}

/* The profile's rows, most frequent first, on stderr. */
static void print_profile(void)
{
	static struct prof_row rows[WEFT_ISA_OPCODE_COUNT * WEFT_TYPE_COUNT];
	unsigned n = 0;
	uint64_t sum = 0;

	for (unsigned op = 0; op < WEFT_ISA_OPCODE_COUNT; op++) {
		for (unsigned t = 0; t < WEFT_TYPE_COUNT; t++) {
			struct prof_row r = { .op = op, .t = t };

			for (unsigned k = 0; k < PROF_KINDS; k++) {
				r.n[k] = atomic_load_explicit(&fallbacks[k][op][t], memory_order_relaxed);
				r.total += r.n[k];
			}
			if (r.total) {
				rows[n++] = r;
				sum += r.total;
			}
		}
	}
	qsort(rows, n, sizeof(rows[0]), by_total);
	fprintf(stderr, "weft-model: translator profile: %llu sub-group runs of instructions through "
		"the interpreter's code (handler / slow path / control flow):\n", (unsigned long long)sum);
	for (unsigned i = 0; i < n && i < 40; i++)
		fprintf(stderr, "weft-model:   %12llu  %s%s%s  (%llu / %llu / %llu)\n",
			(unsigned long long)rows[i].total, weft_isa_ops[rows[i].op].name,
			weft_isa_types[rows[i].t].name ? "." : "",
			weft_isa_types[rows[i].t].name ? weft_isa_types[rows[i].t].name : "", (unsigned long long)rows[i].n[PROF_HANDLER],
			(unsigned long long)rows[i].n[PROF_SLOW], (unsigned long long)rows[i].n[PROF_CF]);
}

static void llvm_init(void)
{
	const char *prof = getenv("WEFT_MODEL_JIT_PROFILE");

	llvm_ok = !LLVMInitializeNativeTarget() && !LLVMInitializeNativeAsmPrinter();
	/* The drm-shim never destroys its model: the process's exit prints. */
	profiling = prof && *prof && strcmp(prof, "0");
	if (profiling)
		atexit(print_profile);
}

/* A target machine for the host CPU, with all its features. */
static LLVMTargetMachineRef host_machine(LLVMCodeGenOptLevel level)
{
	char *triple = LLVMGetDefaultTargetTriple(), *cpu = LLVMGetHostCPUName();
	char *features = LLVMGetHostCPUFeatures(), *msg = NULL;
	LLVMTargetMachineRef tm = NULL;
	LLVMTargetRef target;

	if (!LLVMGetTargetFromTriple(triple, &target, &msg))
		tm = LLVMCreateTargetMachine(target, triple, cpu, features, level, LLVMRelocDefault,
					     LLVMCodeModelJITDefault);
	LLVMDisposeMessage(triple);
	LLVMDisposeMessage(cpu);
	LLVMDisposeMessage(features);
	if (msg)
		LLVMDisposeMessage(msg);
	return tm;
}

/* The optimizing tier's code generation (WEFT_MODEL_JIT_OPT, execution.rst). */
static LLVMCodeGenOptLevel codegen_level_from_env(void)
{
	const char *v = getenv("WEFT_MODEL_JIT_OPT");

	if (v && *v == '0')
		return LLVMCodeGenLevelNone;
	if (v && *v == '1')
		return LLVMCodeGenLevelLess;
	return LLVMCodeGenLevelDefault;
}

static uint64_t count_from_env(const char *name, uint64_t otherwise)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : otherwise;
}

uint64_t weft_jit_opt_items_from_env(void)
{
	return count_from_env("WEFT_MODEL_JIT_OPT_ITEMS", WEFT_JIT_OPT_ITEMS);
}

uint64_t weft_jit_opt_insts_from_env(void)
{
	return count_from_env("WEFT_MODEL_JIT_OPT_INSTS", WEFT_JIT_OPT_INSTS);
}

uint64_t weft_jit_stream_items_from_env(void)
{
	return count_from_env("WEFT_MODEL_STREAM_ITEMS", WEFT_JIT_STREAM_ITEMS);
}

/* The LLJIT of one tier of @j, whose code generation is at @level. */
static LLVMOrcLLJITRef create_lljit(struct weft_jit *j, LLVMCodeGenOptLevel level)
{
	LLVMTargetMachineRef tm = host_machine(level);
	LLVMOrcLLJITBuilderRef builder;
	LLVMOrcLLJITRef lljit;
	LLVMErrorRef err;

	if (!tm)
		return NULL;
	/* The builder takes the target machine, and LLJIT the builder. */
	builder = LLVMOrcCreateLLJITBuilder();
	LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(builder,
		LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm));
	err = LLVMOrcCreateLLJIT(&lljit, builder);
	if (err) {
		report("LLJIT", err);
		return NULL;
	}
	if (j->perf_map)
		LLVMOrcObjectTransformLayerSetTransform(LLVMOrcLLJITGetObjTransformLayer(lljit),
							note_code_bytes, j);
	return lljit;
}

struct weft_jit *weft_jit_create(void)
{
	struct weft_jit *j;

	pthread_once(&llvm_once, llvm_init);
	if (!llvm_ok)
		return NULL;
	j = calloc(1, sizeof(*j));
	if (!j)
		return NULL;
	pthread_mutex_init(&j->lock, NULL);
	j->max = CACHE_DEFAULT;
	if (getenv("WEFT_MODEL_JIT_CACHE") && atoi(getenv("WEFT_MODEL_JIT_CACHE")) > 0)
		j->max = (unsigned)atoi(getenv("WEFT_MODEL_JIT_CACHE"));
	j->cache = calloc(j->max, sizeof(*j->cache));
	/* Translation time matters more than the last cycles (execution.rst). */
	j->tm = host_machine(LLVMCodeGenLevelNone);
	j->perf_map = getenv("WEFT_MODEL_JIT_PERF_MAP") && strcmp(getenv("WEFT_MODEL_JIT_PERF_MAP"), "0");
	j->entry_only = getenv("WEFT_MODEL_JIT_RESUME") && !strcmp(getenv("WEFT_MODEL_JIT_RESUME"), "entry");
	j->dump_dir = getenv("WEFT_MODEL_JIT_DUMP") && *getenv("WEFT_MODEL_JIT_DUMP") ? getenv("WEFT_MODEL_JIT_DUMP") : NULL;
	j->lljit[TIER_FAST] = create_lljit(j, LLVMCodeGenLevelNone);
	j->lljit[TIER_OPT] = create_lljit(j, codegen_level_from_env());
	if (!j->cache || !j->tm || !j->lljit[TIER_FAST] || !j->lljit[TIER_OPT]) {
		weft_jit_destroy(j);
		return NULL;
	}
	return j;
}

/* Frees @c and its translations' machine code. */
static void free_kernel(struct weft_jit *j, struct weft_jit_kernel *c)
{
	for (unsigned t = 0; t < TIERS; t++) {
		LLVMErrorRef err;

		if (!c->tier[t].rt)
			continue;
		err = LLVMOrcResourceTrackerRemove(c->tier[t].rt);
		if (err)
			report("freeing a translation", err);
		LLVMOrcReleaseResourceTracker(c->tier[t].rt);
		j->stats.evicted += !!c->tier[t].fn;
	}
	kernel_free(&c->k);
	free(c);
}

void weft_jit_destroy(struct weft_jit *j)
{
	if (!j)
		return;
	for (unsigned i = 0; i < j->ncache; i++)
		free_kernel(j, j->cache[i]);
	free(j->cache);
	if (j->tm)
		LLVMDisposeTargetMachine(j->tm);
	for (unsigned t = 0; t < TIERS; t++)
		if (j->lljit[t])
			LLVMOrcDisposeLLJIT(j->lljit[t]);
	pthread_mutex_destroy(&j->lock);
	free(j);
}

/*
 * Frees the least recently used kernel that no dispatch runs, its counts
 * and translations with it: false when every one is running.  Under j->lock.
 */
static bool evict_one(struct weft_jit *j)
{
	int lru = -1;

	for (unsigned i = 0; i < j->ncache; i++)
		if (!j->cache[i]->refs && (lru < 0 || j->cache[i]->last_use < j->cache[lru]->last_use))
			lru = (int)i;
	if (lru < 0)
		return false;
	free_kernel(j, j->cache[lru]);
	j->cache[lru] = j->cache[--j->ncache];
	return true;
}

struct weft_jit_kernel *weft_jit_find(struct weft_jit *j, struct weft_mmu *mmu, uint64_t code,
				      unsigned simd, uint64_t items, uint64_t *all_items,
				      uint64_t *all_insts)
{
	struct weft_jit_kernel *c = NULL;
	struct kernel k;

	if (discover(mmu, code, simd, &k)) {
		pthread_mutex_lock(&j->lock);
		j->stats.interpreted++;
		pthread_mutex_unlock(&j->lock);
		return NULL;
	}
	pthread_mutex_lock(&j->lock);
	for (unsigned i = 0; i < j->ncache && !c; i++)
		if (same_kernel(&j->cache[i]->k, &k))
			c = j->cache[i];
	if (c) {
		kernel_free(&k);
	} else if ((j->ncache < j->max || evict_one(j)) && (c = calloc(1, sizeof(*c)))) {
		c->k = k;
		j->cache[j->ncache++] = c;
	} else {
		kernel_free(&k);
		j->stats.interpreted++;
		pthread_mutex_unlock(&j->lock);
		return NULL;
	}
	c->items += items;
	c->refs++;
	c->last_use = ++j->uses;
	*all_items = c->items;
	*all_insts = c->insts;
	pthread_mutex_unlock(&j->lock);
	return c;
}

weft_jit_fn weft_jit_translation(struct weft_jit *j, struct weft_jit_kernel *c, bool optimize)
{
	unsigned t = optimize ? TIER_OPT : TIER_FAST;
	struct timespec t0, t1;
	weft_jit_fn fn;

	pthread_mutex_lock(&j->lock);
	if (c->tier[t].fn) {
		j->stats.cache_hits++;
		fn = c->tier[t].fn;
		pthread_mutex_unlock(&j->lock);
		return fn;
	}
	if (!c->tier[t].rt)
		c->tier[t].rt = LLVMOrcJITDylibCreateResourceTracker(LLVMOrcLLJITGetMainJITDylib(j->lljit[t]));
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	fn = c->tier[t].fn = translate(j, &c->k, j->serial++, t, c->tier[t].rt);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	j->stats.translate_ns += (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000ull +
				 (uint64_t)t1.tv_nsec - (uint64_t)t0.tv_nsec;
	if (fn) {
		j->stats.translated++;
		j->stats.optimized += optimize;
		for (unsigned i = 0; i < c->k.nw; i++)
			if (c->k.start[i])
				weft_jit_native(&c->k.insts[i]) ? j->stats.native++ : j->stats.helper++;
	} else {
		LLVMErrorRef err = LLVMOrcResourceTrackerRemove(c->tier[t].rt);

		if (err)
			report("freeing a failed translation", err);
		LLVMOrcReleaseResourceTracker(c->tier[t].rt);
		c->tier[t].rt = NULL;
		j->stats.interpreted++;
	}
	pthread_mutex_unlock(&j->lock);
	return fn;
}

void weft_jit_release(struct weft_jit *j, struct weft_jit_kernel *c, uint64_t insts)
{
	if (!c)
		return;
	pthread_mutex_lock(&j->lock);
	c->insts += insts;
	c->refs--;
	pthread_mutex_unlock(&j->lock);
}

void weft_jit_get_stats(struct weft_jit *j, struct weft_model_jit_stats *st)
{
	pthread_mutex_lock(&j->lock);
	*st = j->stats;
	st->split = atomic_load_explicit(&j->split, memory_order_relaxed);
	st->cf_calls = atomic_load_explicit(&j->cf_calls, memory_order_relaxed);
	st->cached = 0;
	for (unsigned i = 0; i < j->ncache; i++)
		for (unsigned t = 0; t < TIERS; t++)
			st->cached += !!j->cache[i]->tier[t].fn;
	pthread_mutex_unlock(&j->lock);
}
