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

struct weft_ir *weft_ir_create(void *mem_ctx);
uint32_t weft_ir_vreg(struct weft_ir *ir, unsigned bits);
/* A vreg that may be written several times (control flow merges). */
uint32_t weft_ir_vreg_multi(struct weft_ir *ir, unsigned bits);
bool weft_ir_op_has_target(unsigned op);
struct weft_ir_instr *weft_ir_emit(struct weft_ir *ir, unsigned op, unsigned t, unsigned t2);
void weft_ir_set(struct weft_ir_instr *I, enum weft_ir_field f, uint32_t vreg);
void weft_ir_set_imm(struct weft_ir_instr *I, uint64_t imm);
bool weft_ir_op_has_srci(unsigned op);
bool weft_ir_has_side_effects(const struct weft_ir_instr *I);

/* Checks every instruction against the ISA table (and, once allocated,
 * the encoder); prints what is wrong and returns false. */
bool weft_ir_validate(struct weft_ir *ir, const char *when);
void weft_ir_print(struct weft_ir *ir, FILE *fp);

/* Passes. */
bool weft_ir_opt_dce(struct weft_ir *ir);
bool weft_ir_ra(struct weft_ir *ir);
/* Spills the unspilled value with the longest live range to scratch (a
 * slot at ir->scratch_size): st.scratch after each definition, ld.scratch
 * into a fresh temporary before each read. False when nothing is left. */
bool weft_ir_spill(struct weft_ir *ir);
/* Words of the program (ralloc'ed on @mem_ctx), END appended. */
uint64_t *weft_ir_pack(struct weft_ir *ir, void *mem_ctx, unsigned *nwords);

#endif
