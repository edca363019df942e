// SPDX-License-Identifier: MIT
/*
 * Table-driven encoder, decoder and disassembler of the Weft ISA.
 */
#include <stdio.h>
#include <string.h>

#include "weft_isa.h"

#define FIELD_GET(w, f) \
	(((w) >> WEFT_ENC_##f##_SHIFT) & ((1ull << WEFT_ENC_##f##_BITS) - 1))
#define FIELD_PUT(v, f) \
	(((uint64_t)(v) & ((1ull << WEFT_ENC_##f##_BITS) - 1)) << WEFT_ENC_##f##_SHIFT)
#define FIELD_MASK(f) FIELD_PUT(~0ull, f)

unsigned weft_isa_opnd_type(const struct weft_inst *in, const struct weft_operand_desc *od)
{
	if (od->type == WEFT_OPND_T)
		return in->t;
	if (od->type == WEFT_OPND_T2)
		return in->t2;
	return od->type;
}

unsigned weft_isa_opnd_regs(const struct weft_inst *in, const struct weft_operand_desc *od)
{
	const struct weft_op_info *oi = &weft_isa_ops[in->op % WEFT_ISA_OPCODE_COUNT];
	unsigned n = weft_isa_type_bits(weft_isa_opnd_type(in, od)) == 64 ? 2 : 1;

	if ((od->role == WEFT_ROLE_DST || od->role == WEFT_ROLE_SDATA) && oi->vec > 1)
		n *= oi->vec;
	return n;
}

static uint16_t *reg_field(struct weft_inst *in, unsigned field)
{
	switch (field) {
	case WEFT_FIELD_D: return &in->d;
	case WEFT_FIELD_A: return &in->a;
	case WEFT_FIELD_B: return &in->b;
	case WEFT_FIELD_C: return &in->c;
	default: return &in->mod;
	}
}

static uint64_t field_mask(unsigned field)
{
	switch (field) {
	case WEFT_FIELD_D: return FIELD_MASK(D);
	case WEFT_FIELD_A: return FIELD_MASK(A);
	case WEFT_FIELD_B: return FIELD_MASK(B);
	case WEFT_FIELD_C: return FIELD_MASK(C);
	default: return FIELD_MASK(MOD);
	}
}

/* The srci operand of @oi, if any. */
static const struct weft_operand_desc *srci_operand(const struct weft_op_info *oi)
{
	for (unsigned i = 0; i < oi->nopnd; i++)
		if (oi->opnd[i].role == WEFT_ROLE_SRCI)
			return &oi->opnd[i];
	return NULL;
}

static int has_imm_operand(const struct weft_op_info *oi)
{
	for (unsigned i = 0; i < oi->nopnd; i++)
		if (oi->opnd[i].role == WEFT_ROLE_SRCI || oi->opnd[i].role == WEFT_ROLE_MEM ||
		    oi->opnd[i].role == WEFT_ROLE_TARGET)
			return 1;
	return 0;
}

/* Checks everything but the unused-field rule, shared by decode and encode. */
static int check(const struct weft_inst *in, const struct weft_op_info *oi)
{
	if (!oi->name)
		return WEFT_DEC_UNDEFINED;
	if (oi->types ? !(in->t < 32 && (oi->types >> in->t) & 1) : in->t != 0)
		return WEFT_DEC_BAD_TYPE;
	if (oi->types2 ? !(in->t2 < 32 && (oi->types2 >> in->t2) & 1) : in->t2 != 0)
		return WEFT_DEC_BAD_TYPE;
	for (unsigned i = 0; i < oi->nopnd; i++) {
		const struct weft_operand_desc *od = &oi->opnd[i];
		unsigned v = *reg_field((struct weft_inst *)in, od->field);

		if (od->role == WEFT_ROLE_SREG) {
			if (v >= WEFT_ISA_NUM_SREGS || !weft_isa_sregs[v].name)
				return WEFT_DEC_BAD_SREG;
			if (weft_isa_sregs[v].bits == 64 && in->t != WEFT_TYPE_U64)
				return WEFT_DEC_BAD_SREG;
			continue;
		}
		if (od->role == WEFT_ROLE_SRCI && (in->has_imm || in->has_lit)) {
			/* A literal only where an imm32 cannot say it all: 64-bit operands. */
			if (in->has_lit) {
				unsigned t = weft_isa_opnd_type(in, od);
				char k = weft_isa_types[t].kind;
				/* f64 imm32: the high half of the value. */
				uint64_t ext = k == 's' ? (uint64_t)(int64_t)(int32_t)in->lit :
					       k == 'f' ? in->lit & 0xffffffff00000000ull :
					       (uint32_t)in->lit;

				/* Canonical: never a literal that imm32 could encode. */
				if (in->has_imm || weft_isa_type_bits(t) != 64 || ext == in->lit)
					return WEFT_DEC_BAD_FIELD;
			}
			continue;
		}
		if (od->role == WEFT_ROLE_TARGET) {
			if (!in->has_imm || (in->imm & 7))
				return WEFT_DEC_BAD_FIELD;
			continue;
		}
		if (v >= WEFT_NUM_REGS || v + weft_isa_opnd_regs(in, od) > WEFT_NUM_REGS)
			return WEFT_DEC_BAD_REG;
		if (weft_isa_type_bits(weft_isa_opnd_type(in, od)) == 64 && (v & 1))
			return WEFT_DEC_BAD_REG;
	}
	return 0;
}

int weft_isa_decode(const uint64_t *words, size_t nwords, struct weft_inst *in)
{
	const struct weft_op_info *oi;
	uint64_t w, used;
	int err;

	if (nwords < 1)
		return WEFT_DEC_TRUNCATED;
	w = words[0];
	memset(in, 0, sizeof(*in));
	in->op = FIELD_GET(w, OP);
	in->t = FIELD_GET(w, T);
	in->has_imm = FIELD_GET(w, IMM);
	in->nwords = 1;
	oi = &weft_isa_ops[in->op];
	if (!oi->name)
		return WEFT_DEC_UNDEFINED;
	if (FIELD_GET(w, RSVD))
		return WEFT_DEC_BAD_FIELD;
	if (FIELD_GET(w, LIT)) {
		if (!srci_operand(oi) || in->has_imm)
			return WEFT_DEC_BAD_FIELD;
		if (nwords < 2)
			return WEFT_DEC_TRUNCATED;
		in->has_lit = 1;
		in->lit = words[1];
		in->nwords = 2;
	}
	used = FIELD_MASK(OP) | FIELD_MASK(T) | FIELD_MASK(IMM) | FIELD_MASK(LIT);
	if (in->has_imm) {
		if (!has_imm_operand(oi))
			return WEFT_DEC_BAD_FIELD;
		in->imm = FIELD_GET(w, IMM32);
		used |= FIELD_MASK(IMM32);
	} else {
		for (unsigned i = 0; i < oi->nopnd; i++)
			if (oi->opnd[i].role == WEFT_ROLE_MEM || oi->opnd[i].role == WEFT_ROLE_TARGET)
				return WEFT_DEC_BAD_FIELD;
		in->b = FIELD_GET(w, B);
		in->c = FIELD_GET(w, C);
		in->t2 = FIELD_GET(w, T2);
		in->mod = FIELD_GET(w, MOD);
		if (oi->types2)
			used |= FIELD_MASK(T2);
	}
	in->d = FIELD_GET(w, D);
	in->a = FIELD_GET(w, A);
	for (unsigned i = 0; i < oi->nopnd; i++) {
		const struct weft_operand_desc *od = &oi->opnd[i];

		if ((in->has_imm || in->has_lit) &&
		    (od->role == WEFT_ROLE_SRCI || od->role == WEFT_ROLE_MEM ||
		     od->role == WEFT_ROLE_TARGET) &&
		    od->field == WEFT_FIELD_B)
			continue;
		used |= field_mask(od->field);
	}
	if (w & ~used)
		return WEFT_DEC_BAD_FIELD;
	/* Clear fields that were not part of the instruction (all zero anyway). */
	err = check(in, oi);
	return err ? err : in->nwords;
}

int weft_isa_encode(const struct weft_inst *in, uint64_t out[2])
{
	uint64_t w;
	int n;

	if (in->op >= WEFT_ISA_OPCODE_COUNT)
		return WEFT_DEC_UNDEFINED;
	w = FIELD_PUT(in->op, OP) | FIELD_PUT(in->t, T) | FIELD_PUT(in->has_imm ? 1 : 0, IMM) |
	    FIELD_PUT(in->has_lit ? 1 : 0, LIT) | FIELD_PUT(in->d, D) | FIELD_PUT(in->a, A);
	if (in->has_imm)
		w |= FIELD_PUT(in->imm, IMM32);
	else
		w |= FIELD_PUT(in->b, B) | FIELD_PUT(in->c, C) | FIELD_PUT(in->t2, T2) |
		     FIELD_PUT(in->mod, MOD);
	out[0] = w;
	out[1] = in->has_lit ? in->lit : 0;
	/* Re-decode: rejects anything the decoder would (unused fields set, ...). */
	{
		struct weft_inst chk;

		n = weft_isa_decode(out, in->has_lit ? 2 : 1, &chk);
		if (n < 0)
			return n;
		if (chk.d != in->d || chk.a != in->a || chk.b != in->b || chk.c != in->c ||
		    chk.mod != in->mod || chk.t2 != in->t2)
			return WEFT_DEC_BAD_FIELD;
	}
	return n;
}

static int print_imm(char *buf, size_t size, uint32_t imm, unsigned type)
{
	if (type < WEFT_TYPE_COUNT && weft_isa_types[type].kind == 'f') {
		/* Float immediates are bit patterns; f64 imm32 is the high half. */
		if (weft_isa_types[type].bits == 64)
			return snprintf(buf, size, "0x%016llx", (unsigned long long)imm << 32);
		return snprintf(buf, size, "0x%x", imm);
	}
	if (type < WEFT_TYPE_COUNT && weft_isa_types[type].kind == 's')
		return snprintf(buf, size, "%d", (int32_t)imm);
	if (imm <= 0xffff)
		return snprintf(buf, size, "%u", imm);
	return snprintf(buf, size, "0x%x", imm);
}

int weft_isa_print(const struct weft_inst *in, char *buf, size_t size)
{
	const struct weft_op_info *oi = &weft_isa_ops[in->op % WEFT_ISA_OPCODE_COUNT];
	size_t n = 0;

#define ADD(...) do { \
		int r_ = snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__); \
		if (r_ > 0) n += r_; \
	} while (0)
	if (!size)
		return 0;
	buf[0] = 0;
	if (!oi->name) {
		ADD(".word 0x%03x (undefined)", in->op);
		return (int)n;
	}
	ADD("%s", oi->name);
	if (oi->types)
		ADD(".%s", in->t < WEFT_TYPE_COUNT && weft_isa_types[in->t].name ?
		    weft_isa_types[in->t].name : "?");
	if (oi->types2)
		ADD(".%s", in->t2 < WEFT_TYPE_COUNT && weft_isa_types[in->t2].name ?
		    weft_isa_types[in->t2].name : "?");
	for (unsigned i = 0; i < oi->nopnd; i++) {
		const struct weft_operand_desc *od = &oi->opnd[i];
		unsigned v = *reg_field((struct weft_inst *)in, od->field);

		ADD("%s", i ? ", " : " ");
		switch (od->role) {
		case WEFT_ROLE_SREG:
			ADD("sr.%s", v < WEFT_ISA_NUM_SREGS && weft_isa_sregs[v].name ?
			    weft_isa_sregs[v].name : "?");
			break;
		case WEFT_ROLE_SRCI:
			if (in->has_lit) {
				ADD("0x%016llx", (unsigned long long)in->lit);
			} else if (in->has_imm) {
				char tmp[24];

				print_imm(tmp, sizeof(tmp), in->imm, weft_isa_opnd_type(in, od));
				ADD("%s", tmp);
			} else {
				ADD("r%u", v);
			}
			break;
		case WEFT_ROLE_TARGET:
			if ((int32_t)in->imm < 0)
				ADD(".-%lld", -(long long)(int32_t)in->imm);
			else
				ADD(".+%d", (int32_t)in->imm);
			break;
		case WEFT_ROLE_ADDR:
			ADD("[r%u]", v);
			break;
		case WEFT_ROLE_MEM:
			if ((int32_t)in->imm < 0)
				ADD("[r%u-%lld]", v, -(long long)(int32_t)in->imm);
			else
				ADD("[r%u+%d]", v, (int32_t)in->imm);
			break;
		default:
			ADD("r%u", v);
		}
	}
#undef ADD
	return (int)n;
}

const char *weft_isa_dec_error(int err)
{
	switch (err) {
	case WEFT_DEC_TRUNCATED: return "truncated instruction";
	case WEFT_DEC_UNDEFINED: return "undefined opcode";
	case WEFT_DEC_BAD_TYPE: return "type not allowed";
	case WEFT_DEC_BAD_FIELD: return "reserved or unused field set";
	case WEFT_DEC_BAD_REG: return "bad register (64-bit operands need an even register)";
	case WEFT_DEC_BAD_SREG: return "bad special register";
	default: return "ok";
	}
}
