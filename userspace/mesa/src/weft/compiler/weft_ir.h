/* SPDX-License-Identifier: MIT */
/*
 * weft IR: a list of Weft ISA instructions (struct weft_inst, the hardware's
 * decoded form) whose register fields name virtual registers until register
 * allocation. Straight-line: one list per kernel.
 */
#ifndef WEFT_IR_H
#define WEFT_IR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util/list.h"
#include "weft_isa.h"

enum weft_ir_field { WEFT_IR_D, WEFT_IR_A, WEFT_IR_B, WEFT_IR_C, WEFT_IR_NUM_FIELDS };

struct weft_ir_instr {
   struct list_head link;
   struct weft_inst in;
   /* Virtual register in each register field (0: not a register). */
   uint32_t vreg[WEFT_IR_NUM_FIELDS];
   /* Branch target of if/else/loop (the matching else, endif or endloop):
    * the byte offset is filled in by weft_ir_pack(). */
   struct weft_ir_instr *target;
};

struct weft_ir {
   struct list_head instrs;
   unsigned num_vregs;      /* vregs are 1 .. num_vregs */
   uint8_t *vreg_regs;      /* registers a vreg occupies: 1, or 2 (even pair) */
   uint8_t *vreg_multi;     /* 1: a variable written more than once (from NIR regs) */
   /* Vectors (weft_opt_vectorize.c): a vector vreg takes consecutive
    * registers for a vector load or store; its parts are vregs of their
    * own, each at a register offset in it. vreg_vector is the vector of a
    * part, or the vreg itself for a vector, 0 for the others. */
   uint32_t *vreg_vector;
   uint8_t *vreg_offset;    /* a part's first register in its vector */
   unsigned vreg_cap;
   bool allocated;          /* register fields are physical registers */
   unsigned num_regs;       /* after allocation: registers used */
   unsigned scratch_size;   /* private bytes per work-item, spill slots included */
   uint8_t *vreg_spilled;   /* 1: spilled or a spill temporary (not spilled again) */
   unsigned spilled_cap;    /* entries of vreg_spilled */
   unsigned max_regs;       /* registers RA may use (0: WEFT_NUM_REGS) */
   bool ra_quiet;           /* no message when RA runs out (the caller spills) */
   void *mem_ctx;
};

/* The IR core (weft_ir.c): building and the helpers every pass shares. */
struct weft_ir *weft_ir_create(void *mem_ctx);
uint32_t weft_ir_vreg(struct weft_ir *ir, unsigned bits);
/* A vreg that may be written several times (control flow merges). */
uint32_t weft_ir_vreg_multi(struct weft_ir *ir, unsigned bits);
bool weft_ir_op_has_target(unsigned op);
/* A vector vreg of @regs consecutive registers, and @v as its part at
 * register @offset. */
uint32_t weft_ir_vreg_vector(struct weft_ir *ir, unsigned regs);
void weft_ir_vreg_set_part(struct weft_ir *ir, uint32_t v, uint32_t vector, unsigned offset);

/* A vector or a part of one: passes that rename or merge values leave it. */
static inline bool
weft_ir_vreg_is_part(const struct weft_ir *ir, uint32_t v)
{
   return ir->vreg_vector[v] != 0;
}

/* The vreg that gets registers for @v: its vector, or itself. */
static inline uint32_t
weft_ir_vreg_alloc(const struct weft_ir *ir, uint32_t v)
{
   return ir->vreg_vector[v] ? ir->vreg_vector[v] : v;
}

/* The registers (1, 2, 4 or 8) the data operand of a vector access
 * takes, for a vreg of @regs_per_element each; @regs_per_element for any
 * other operand. */
unsigned weft_ir_operand_regs(const struct weft_inst *in, const struct weft_operand_desc *od,
                              unsigned regs_per_element);
struct weft_ir_instr *weft_ir_emit(struct weft_ir *ir, unsigned op, unsigned t, unsigned t2);
/* Inserts a new instruction before (@after false) or after @at. */
struct weft_ir_instr *weft_ir_emit_at(struct weft_ir *ir, struct weft_ir_instr *at, bool after,
                                      unsigned op, unsigned t);
void weft_ir_set(struct weft_ir_instr *I, enum weft_ir_field f, uint32_t vreg);
void weft_ir_set_imm(struct weft_ir_instr *I, uint64_t imm);
bool weft_ir_op_has_srci(unsigned op);
/* Operations whose two sources commute, bit for bit: the integer ones,
 * and fadd and fmul, whose NaN results are the default NaN whichever
 * operand is one (execution.rst, "Floats"). */
bool weft_ir_op_commutes(unsigned op);
bool weft_ir_has_side_effects(const struct weft_ir_instr *I);
/* The struct weft_inst field (d, a, b, c) an operand's WEFT_FIELD_* names. */
uint16_t *weft_ir_field_ptr(struct weft_inst *in, unsigned field);
/* Straight-line live intervals, in instruction indices: @first and @last
 * (num_vregs + 1 entries each) get the first and last instruction that
 * names each vreg; ~0u in @first for a vreg nobody names. */
void weft_ir_live_ranges(struct weft_ir *ir, unsigned *first, unsigned *last);

/* A step of a walk over the structured program: @I opens a body (if,
 * loop), ends one (else, endif, endloop: *@ended gets the depth of the
 * body that ended, whose values dominate nothing after it), or neither;
 * *@depth follows. */
enum weft_ir_body { WEFT_IR_BODY_NONE, WEFT_IR_BODY_OPENS, WEFT_IR_BODY_ENDS };

static inline enum weft_ir_body
weft_ir_body_step(const struct weft_ir_instr *I, unsigned *depth, unsigned *ended)
{
   unsigned op = I->in.op;

   if (op == WEFT_OP_ELSE || op == WEFT_OP_ENDIF || op == WEFT_OP_ENDLOOP) {
      *ended = *depth;
      if (op != WEFT_OP_ELSE && *depth)
         (*depth)--;
      return WEFT_IR_BODY_ENDS;
   }
   if (op == WEFT_OP_IF || op == WEFT_OP_LOOP) {
      (*depth)++;
      return WEFT_IR_BODY_OPENS;
   }
   return WEFT_IR_BODY_NONE;
}

/* Iterates over the register operands of @I: @od is the operand's
 * description, @is_def whether it is the destination. Immediates, special
 * registers and branch targets are skipped. */
#define weft_ir_foreach_reg(I, od, is_def)                                     \
   for (unsigned _i = 0; _i < weft_isa_ops[(I)->in.op].nopnd; _i++)            \
      for (const struct weft_operand_desc *od = &weft_isa_ops[(I)->in.op].opnd[_i]; od; od = NULL) \
         if (od->role != WEFT_ROLE_SREG && od->role != WEFT_ROLE_TARGET &&     \
             !(od->role == WEFT_ROLE_SRCI && ((I)->in.has_imm || (I)->in.has_lit))) \
            for (bool is_def = od->role == WEFT_ROLE_DST, _once = true; _once; _once = false, (void)is_def)

/* weft_validate.c: checks every instruction against the ISA table (and,
 * once allocated, the encoder); prints what is wrong and returns false. */
bool weft_ir_validate(struct weft_ir *ir, const char *when);
/* weft_print.c: virtual registers before allocation, the disassembler's
 * syntax after. */
void weft_ir_print(struct weft_ir *ir, FILE *fp);

/* weft_opt_dce.c: removes instructions whose result nobody reads. */
bool weft_ir_opt_dce(struct weft_ir *ir);
/* weft_opt_offsets.c: [d+off] with d = a + imm becomes [a+off+imm]; with
 * d = a + (c + imm), [(a + c)+off+imm]. */
bool weft_ir_opt_fold_offsets(struct weft_ir *ir);
/* weft_opt_cse.c: copy propagation and common-subexpression elimination. */
bool weft_ir_opt_cse(struct weft_ir *ir);
/* weft_opt_copies.c: a copy into a value written more than once, right
 * after its source's only definition, or out of one, right before its
 * only reader, goes. */
bool weft_ir_opt_coalesce_copies(struct weft_ir *ir);
/* weft_opt_narrow.c: the low half of 64-bit integer arithmetic on 32-bit
 * values (ids) computed in 32 bits. */
bool weft_ir_opt_narrow(struct weft_ir *ir);
/* weft_opt_vectorize.c: adjacent accesses to consecutive addresses become
 * one vector access (.v2, .v4). After the other optimizations: their
 * passes leave vectors and their parts alone. */
bool weft_ir_opt_vectorize(struct weft_ir *ir);
/* weft_simd.c: the SIMD width (8, 16 or 32) with the lowest estimated cost
 * per work-item of @ir, run in work-groups @row_width wide when it reads a
 * y or z id; @cost gets the three estimates (SIMD 8, 16, 32). */
unsigned weft_ir_choose_simd(const struct weft_ir *ir, unsigned row_width, uint64_t cost[3]);
/* weft_ra.c: linear-scan register allocation; false when out of registers. */
bool weft_ir_ra(struct weft_ir *ir);
/* weft_spill.c: spills the unspilled value with the longest live range to
 * scratch (a slot at ir->scratch_size): st.scratch after each definition,
 * ld.scratch into a fresh temporary before each read. False when nothing
 * is left. */
bool weft_ir_spill(struct weft_ir *ir);
/* weft_pack.c: the program's words (ralloc'ed on @mem_ctx) with the branch
 * offsets resolved; NULL when an instruction does not encode. */
uint64_t *weft_ir_pack(struct weft_ir *ir, void *mem_ctx, unsigned *nwords);

#endif
