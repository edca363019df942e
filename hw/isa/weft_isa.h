/* SPDX-License-Identifier: MIT */
/*
 * Weft ISA: encoder, decoder, disassembler and assembler, all driven by the
 * tables generated from hw/isa/weft_isa.py.  Shared by the device model,
 * weft-asm, weft-dis and (later) the compiler.
 */
#ifndef WEFT_ISA_H
#define WEFT_ISA_H

#include <stddef.h>
#include <stdint.h>

#include "weft_isa_ops.h"

#define WEFT_NUM_REGS		256
#define WEFT_MAX_LANES		32

/* One operand of an instruction, as the table declares it. */
struct weft_operand_desc {
	uint8_t field;	/* WEFT_FIELD_* */
	uint8_t role;	/* WEFT_ROLE_* */
	uint8_t type;	/* WEFT_TYPE_*, WEFT_OPND_T or WEFT_OPND_T2 */
};

struct weft_op_info {
	const char *name;	/* NULL: undefined opcode */
	uint16_t opcode;
	uint8_t cls;		/* WEFT_CLASS_* */
	uint8_t nopnd;
	struct weft_operand_desc opnd[4];
	uint32_t types;		/* allowed T, bit per WEFT_TYPE_* (0: no type) */
	uint32_t types2;	/* allowed T2 (0: no second type) */
	const char *summary;
	uint8_t vec;		/* elements of T in the dst / sdata operand (1, 2, 4, 8) */
};

struct weft_sreg_info {
	const char *name;	/* without "sr." */
	uint8_t bits;		/* 32, or 64: needs s2r.u64 */
	const char *summary;
};

struct weft_type_info {
	const char *name;
	uint8_t bits;
	char kind;		/* 'u', 's' or 'f' */
};

extern const struct weft_op_info weft_isa_ops[WEFT_ISA_OPCODE_COUNT];
extern const struct weft_sreg_info weft_isa_sregs[WEFT_ISA_NUM_SREGS];
extern const struct weft_type_info weft_isa_types[WEFT_TYPE_COUNT];

/* A decoded instruction. */
struct weft_inst {
	uint16_t op;
	uint8_t t, t2;
	uint8_t has_imm;	/* the srci / mem operand is imm (32-bit) */
	uint8_t has_lit;	/* the srci operand is lit (a 64-bit literal word follows) */
	uint8_t nwords;		/* 1, or 2 with a literal */
	uint16_t d, a, b, c;	/* register numbers (uint16_t: the model remaps b) */
	uint16_t mod;
	uint32_t imm;
	uint64_t lit;
};

/* Decoder errors (negative return values of weft_isa_decode). */
#define WEFT_DEC_TRUNCATED	(-1)	/* needs a literal word that is missing */
#define WEFT_DEC_UNDEFINED	(-2)	/* undefined opcode */
#define WEFT_DEC_BAD_TYPE	(-3)	/* type not allowed for the opcode */
#define WEFT_DEC_BAD_FIELD	(-4)	/* reserved or unused field nonzero */
#define WEFT_DEC_BAD_REG	(-5)	/* odd register for a 64-bit operand */
#define WEFT_DEC_BAD_SREG	(-6)	/* unknown special register or width */

/*
 * Operand roles: dst, src, srci (register or imm / literal), mem ([rA+imm]),
 * sreg, sdata (store data in field d), target (a branch target: imm32 is a
 * signed byte offset from the instruction, a multiple of 8; assembler
 * syntax: a label or .+N / .-N), addr ([rA], no offset).
 */

/* Registers of operand @od of @in (a vec operand spans vec elements). */
unsigned weft_isa_opnd_regs(const struct weft_inst *in, const struct weft_operand_desc *od);

/* Type code of an operand of @in (resolves T / T2). */
unsigned weft_isa_opnd_type(const struct weft_inst *in, const struct weft_operand_desc *od);
static inline unsigned weft_isa_type_bits(unsigned t)
{
	return t < WEFT_TYPE_COUNT ? weft_isa_types[t].bits : 0;
}

/* Returns the number of words consumed (1 or 2) or a WEFT_DEC_* error. */
int weft_isa_decode(const uint64_t *words, size_t nwords, struct weft_inst *in);
/* Checks @in like the decoder and encodes it; returns words written or a WEFT_DEC_* error. */
int weft_isa_encode(const struct weft_inst *in, uint64_t out[2]);
/* Canonical assembler text of @in (no newline); returns the length. */
int weft_isa_print(const struct weft_inst *in, char *buf, size_t size);
const char *weft_isa_dec_error(int err);

/*
 * Assembler.  Assembles @src (NUL-terminated; @file names it in messages).
 * On success returns 0 and a malloc'ed array of words in *out (free()).
 * On failure returns -1 with "file:line: message" in @err.
 */
int weft_asm(const char *src, const char *file, uint64_t **out, size_t *nwords,
	     char *err, size_t errsize);

#endif
