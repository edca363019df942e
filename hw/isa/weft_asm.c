// SPDX-License-Identifier: MIT
/*
 * The Weft assembler: one instruction per line, '#' comments, 'label:'.
 *
 *   mnemonic := name[.T[.T2]]         e.g. add.u64, cvt.u64.u32, ld.global.u32
 *   operand  := rN | imm | [rN] | [rN+imm] | [rN-imm] | sr.NAME
 *   imm      := [-]decimal | [-]0xhex  (32-bit; for 64-bit operands also a
 *               64-bit value: more than 8 hex digits or beyond 32 bits, which
 *               becomes a literal word unless imm32 can express it)
 *   .dword V    emits the raw 64-bit word V (what weft-dis prints for
 *               words that do not decode)
 *   target   := label | .+N | .-N  (branch targets: a byte offset from the
 *               instruction itself, what weft-dis prints)
 *   [rN]        an address without offset (atomics, image descriptors)
 *   Float immediates are bit patterns: f16 / f32 as 32-bit values, f64 as
 *   the 64-bit pattern (imm32 holds its high half when the low half is 0);
 *   a decimal float (1.5, -2e-3, inf, nan) is converted to the type, rounded
 *   to nearest (weft-dis prints the bit pattern).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "weft_isa.h"

struct asm_state {
	const char *file;
	unsigned line;
	char *err;
	size_t errsize;
	uint64_t *words;
	size_t n, cap;
	char (*labels)[64];
	size_t *label_pos;
	size_t nlabels;
	struct fixup { size_t word; unsigned line; char name[64]; } *fix;
	size_t nfix;
	size_t cur;		/* word index of the instruction being assembled */
};

static int fail(struct asm_state *s, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(s->err, s->errsize, "%s:%u: ", s->file, s->line);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < s->errsize)
		vsnprintf(s->err + n, s->errsize - n, fmt, ap);
	va_end(ap);
	return -1;
}

static char *trim(char *p)
{
	char *e;

	while (isspace((unsigned char)*p))
		p++;
	e = p + strlen(p);
	while (e > p && isspace((unsigned char)e[-1]))
		*--e = 0;
	return p;
}

static int type_by_name(const char *n, size_t len)
{
	for (unsigned t = 1; t < WEFT_TYPE_COUNT; t++)
		if (weft_isa_types[t].name && strlen(weft_isa_types[t].name) == len &&
		    !strncmp(weft_isa_types[t].name, n, len))
			return t;
	return -1;
}

/* Splits "name.T.T2" into an opcode and types. */
static int parse_mnemonic(struct asm_state *s, const char *m, struct weft_inst *in)
{
	size_t len = strlen(m);

	for (unsigned op = 0; op < WEFT_ISA_OPCODE_COUNT; op++) {
		const struct weft_op_info *oi = &weft_isa_ops[op];
		size_t nl;
		const char *rest;
		int t = 0, t2 = 0;

		if (!oi->name)
			continue;
		nl = strlen(oi->name);
		if (len < nl || strncmp(m, oi->name, nl) || (m[nl] && m[nl] != '.'))
			continue;
		rest = m + nl;
		if (oi->types) {
			const char *e;

			if (*rest != '.')
				continue;
			rest++;
			e = strchr(rest, '.');
			if (!e)
				e = rest + strlen(rest);
			t = type_by_name(rest, e - rest);
			if (t < 0)
				continue;
			rest = e;
		}
		if (oi->types2) {
			if (*rest != '.')
				continue;
			rest++;
			t2 = type_by_name(rest, strlen(rest));
			if (t2 < 0)
				continue;
			rest += strlen(rest);
		}
		if (*rest)
			continue;
		if (oi->types && !((oi->types >> t) & 1))
			return fail(s, "type .%s not allowed for %s", weft_isa_types[t].name, oi->name);
		if (oi->types2 && !((oi->types2 >> t2) & 1))
			return fail(s, "source type .%s not allowed for %s",
				    weft_isa_types[t2].name, oi->name);
		in->op = op;
		in->t = t;
		in->t2 = t2;
		return 0;
	}
	return fail(s, "unknown instruction '%s'", m);
}

/*
 * [+-]decimal or [+-]0xhex: the magnitude, the sign, and whether it is
 * written as a 64-bit value (more than 8 hex digits).
 */
static int parse_num(const char *p, int *neg, unsigned long long *mag, int *wide)
{
	const char *digits;
	char *end;

	*neg = 0;
	*wide = 0;
	if (*p == '+' || *p == '-')
		*neg = *p++ == '-';
	errno = 0;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		digits = p + 2;
		if (!isxdigit((unsigned char)*digits))
			return -1;
		*mag = strtoull(digits, &end, 16);
		*wide = end - digits > 8;
	} else {
		if (!isdigit((unsigned char)*p))
			return -1;
		*mag = strtoull(p, &end, 10);
	}
	return errno || *end ? -1 : 0;
}

/* A 32-bit immediate: -2^31 .. 2^32 - 1. */
static int parse_int(const char *p, long long *v)
{
	unsigned long long mag;
	int neg, wide;

	if (parse_num(p, &neg, &mag, &wide) || wide || mag > (neg ? 0x80000000ull : 0xffffffffull))
		return -1;
	*v = neg ? -(long long)mag : (long long)mag;
	return 0;
}

/*
 * The immediate of a 64-bit operand: a 32-bit immediate as for every type,
 * else (more than 8 hex digits, or beyond 32 bits) the 64-bit value, encoded
 * as imm32 when the type's extension reproduces it and as a literal if not.
 */
static int parse_imm64(struct asm_state *s, const char *p, unsigned type, struct weft_inst *in)
{
	unsigned long long mag;
	uint64_t v, ext;
	int neg, wide;

	if (parse_num(p, &neg, &mag, &wide) || (neg && mag > 0x8000000000000000ull))
		return fail(s, "bad operand '%s' (expected a register or an immediate)", p);
	v = neg ? 0 - (uint64_t)mag : (uint64_t)mag;
	if (!wide && mag <= (neg ? 0x80000000ull : 0xffffffffull)) {
		in->has_imm = 1;
		in->imm = (uint32_t)v;
		return 0;
	}
	if (weft_isa_types[type].kind == 'f') {
		/* f64: the bit pattern; imm32 when its low half is zero. */
		if (!(v & 0xffffffffull)) {
			in->has_imm = 1;
			in->imm = (uint32_t)(v >> 32);
		} else {
			in->has_lit = 1;
			in->lit = v;
		}
		return 0;
	}
	ext = weft_isa_types[type].kind == 's' ? (uint64_t)(int64_t)(int32_t)v : (uint32_t)v;
	if (ext == v) {
		in->has_imm = 1;
		in->imm = (uint32_t)v;
	} else {
		in->has_lit = 1;
		in->lit = v;
	}
	return 0;
}

/* Decimal float syntax: a '.', an exponent, inf or nan (never 0x...). */
static int is_float_text(const char *p)
{
	if (*p == '-' || *p == '+')
		p++;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		return 0;
	return strchr(p, '.') || strchr(p, 'e') || strchr(p, 'E') || !strncasecmp(p, "inf", 3) ||
	       !strncasecmp(p, "nan", 3);
}

static int parse_reg(struct asm_state *s, const char *p, unsigned bits, uint16_t *r)
{
	long long v;

	if (p[0] != 'r' || parse_int(p + 1, &v) || p[1] == '-' || p[1] == '+' || v > 255)
		return fail(s, "expected a register r0..r255, got '%s'", p);
	if (bits == 64 && (v & 1))
		return fail(s, "'%s': a 64-bit operand needs an even register pair", p);
	*r = (uint16_t)v;
	return 0;
}

static int parse_operand(struct asm_state *s, char *p, struct weft_inst *in,
			 const struct weft_operand_desc *od)
{
	unsigned type = weft_isa_opnd_type(in, od);
	unsigned bits = weft_isa_type_bits(type);
	uint16_t *field = od->field == WEFT_FIELD_D ? &in->d : od->field == WEFT_FIELD_A ? &in->a :
			  od->field == WEFT_FIELD_B ? &in->b : od->field == WEFT_FIELD_C ? &in->c :
			  &in->mod;
	long long v;

	switch (od->role) {
	case WEFT_ROLE_TARGET: {
		struct fixup *nf;

		in->has_imm = 1;
		if (p[0] == '.' && (p[1] == '+' || p[1] == '-')) {
			/* -2^31 .. 2^31 - 1, as the disassembler prints them. */
			if (parse_int(p + 2, &v) || p[2] == '-' || p[2] == '+' ||
			    v > (p[1] == '-' ? 0x80000000ll : 0x7fffffffll))
				return fail(s, "bad branch offset '%s'", p);
			if (p[1] == '-')
				v = -v;
			if (v & 7)
				return fail(s, "branch offset '%s' is not a multiple of 8", p);
			in->imm = (uint32_t)v;
			return 0;
		}
		if (strlen(p) >= 64)
			return fail(s, "bad label '%s'", p);
		nf = realloc(s->fix, (s->nfix + 1) * sizeof(*nf));
		if (!nf)
			return fail(s, "out of memory");
		s->fix = nf;
		nf[s->nfix].word = s->cur;
		nf[s->nfix].line = s->line;
		strcpy(nf[s->nfix].name, p);
		s->nfix++;
		in->imm = 0;
		return 0;
	}
	case WEFT_ROLE_ADDR: {
		size_t len = strlen(p);

		if (p[0] != '[' || p[len - 1] != ']')
			return fail(s, "expected an address [rN], got '%s'", p);
		p[len - 1] = 0;
		return parse_reg(s, trim(p + 1), bits, field);
	}
	case WEFT_ROLE_SREG:
		if (strncmp(p, "sr.", 3))
			return fail(s, "expected a special register sr.NAME, got '%s'", p);
		for (unsigned i = 0; i < WEFT_ISA_NUM_SREGS; i++) {
			if (weft_isa_sregs[i].name && !strcmp(weft_isa_sregs[i].name, p + 3)) {
				if (weft_isa_sregs[i].bits == 64 && in->t != WEFT_TYPE_U64)
					return fail(s, "'%s' is 64-bit: use s2r.u64", p);
				*field = i;
				return 0;
			}
		}
		return fail(s, "unknown special register '%s'", p);
	case WEFT_ROLE_SRCI:
		if (p[0] != 'r' && weft_isa_types[type].kind == 'f' && is_float_text(p)) {
			/* A decimal float (1.5, -2e-3, inf, nan): its bit pattern. */
			char *end;
			double d = strtod(p, &end);

			if (*end)
				return fail(s, "bad float immediate '%s'", p);
			if (bits == 64) {
				uint64_t u;

				memcpy(&u, &d, 8);
				if (u & 0xffffffffull) {
					in->has_lit = 1;
					in->lit = u;
				} else {
					in->has_imm = 1;
					in->imm = (uint32_t)(u >> 32);
				}
			} else if (bits == 32) {
				float f = (float)d;

				in->has_imm = 1;
				memcpy(&in->imm, &f, 4);
			} else {
				_Float16 h = (_Float16)d;
				uint16_t u;

				memcpy(&u, &h, 2);
				in->has_imm = 1;
				in->imm = u;
			}
			return 0;
		}
		if (p[0] != 'r' && bits == 64)
			return parse_imm64(s, p, type, in);
		if (p[0] != 'r') {
			if (parse_int(p, &v))
				return fail(s, "bad operand '%s' (expected a register or a 32-bit immediate)", p);
			in->has_imm = 1;
			in->imm = (uint32_t)v;
			return 0;
		}
		return parse_reg(s, p, bits, field);
	case WEFT_ROLE_MEM: {
		size_t len = strlen(p);
		char *off;

		if (p[0] != '[' || p[len - 1] != ']')
			return fail(s, "expected a memory operand [rN+imm], got '%s'", p);
		p[len - 1] = 0;
		p = trim(p + 1);
		off = strpbrk(p, "+-");
		v = 0;
		if (off) {
			char *num = trim(off + 1);
			int neg = *off == '-';

			*off = 0;
			if (parse_int(num, &v) || *num == '-' || *num == '+')
				return fail(s, "bad memory offset '%s'", num);
			if (neg)
				v = -v;
			if (v < -0x80000000ll || v > 0x7fffffffll)
				return fail(s, "memory offset %lld out of range", v);
		}
		in->has_imm = 1;
		in->imm = (uint32_t)v;
		return parse_reg(s, trim(p), bits, field);
	}
	default:
		return parse_reg(s, p, bits, field);
	}
}

static int emit(struct asm_state *s, const uint64_t *w, int n)
{
	if (s->n + n > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		uint64_t *nw = realloc(s->words, cap * sizeof(*nw));

		if (!nw)
			return fail(s, "out of memory");
		s->words = nw;
		s->cap = cap;
	}
	memcpy(s->words + s->n, w, n * sizeof(*w));
	s->n += n;
	return 0;
}

static int add_label(struct asm_state *s, const char *name)
{
	char (*nl)[64];
	size_t *np;

	if (!*name || strlen(name) >= 64 || !(isalpha((unsigned char)*name) || *name == '_' || *name == '.'))
		return fail(s, "bad label '%s'", name);
	for (const char *c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_' && *c != '.')
			return fail(s, "bad label '%s'", name);
	for (size_t i = 0; i < s->nlabels; i++)
		if (!strcmp(s->labels[i], name))
			return fail(s, "label '%s' defined twice", name);
	nl = realloc(s->labels, (s->nlabels + 1) * sizeof(*nl));
	if (!nl)
		return fail(s, "out of memory");
	s->labels = nl;
	np = realloc(s->label_pos, (s->nlabels + 1) * sizeof(*np));
	if (!np)
		return fail(s, "out of memory");
	s->label_pos = np;
	np[s->nlabels] = s->n;
	strcpy(s->labels[s->nlabels++], name);
	return 0;
}

static int assemble_line(struct asm_state *s, char *line)
{
	struct weft_inst in;
	const struct weft_op_info *oi;
	char *p, *ops, *colon, *opv[8];
	unsigned nops = 0;
	uint64_t w[2];
	int n;

	p = strchr(line, '#');
	if (p)
		*p = 0;
	p = trim(line);
	colon = strchr(p, ':');
	if (colon && !strchr(p, '[')) {
		*colon = 0;
		if (add_label(s, trim(p)))
			return -1;
		p = trim(colon + 1);
	}
	if (!*p)
		return 0;
	ops = p;
	while (*ops && !isspace((unsigned char)*ops))
		ops++;
	if (*ops)
		*ops++ = 0;
	if (!strcmp(p, ".dword")) {
		/* A raw 64-bit word, not checked (data, or deliberately bad code). */
		char *end;

		ops = trim(ops);
		errno = 0;
		w[0] = strtoull(ops, &end, 0);
		if (!*ops || *end || errno || *ops == '-')
			return fail(s, "bad .dword value '%s'", ops);
		return emit(s, w, 1);
	}
	memset(&in, 0, sizeof(in));
	s->cur = s->n;
	if (parse_mnemonic(s, p, &in))
		return -1;
	oi = &weft_isa_ops[in.op];
	ops = trim(ops);
	if (*ops) {
		char *tok = ops;

		for (;;) {
			char *c = strchr(tok, ',');

			if (nops == 8)
				return fail(s, "too many operands");
			if (c)
				*c = 0;
			opv[nops++] = trim(tok);
			if (!*opv[nops - 1])
				return fail(s, "empty operand");
			if (!c)
				break;
			tok = c + 1;
		}
	}
	if (nops != oi->nopnd)
		return fail(s, "%s takes %u operand%s, got %u", oi->name, oi->nopnd,
			    oi->nopnd == 1 ? "" : "s", nops);
	for (unsigned i = 0; i < nops; i++)
		if (parse_operand(s, opv[i], &in, &oi->opnd[i]))
			return -1;
	n = weft_isa_encode(&in, w);
	if (n < 0)
		return fail(s, "cannot encode: %s", weft_isa_dec_error(n));
	return emit(s, w, n);
}

int weft_asm(const char *src, const char *file, uint64_t **out, size_t *nwords,
	     char *err, size_t errsize)
{
	struct asm_state s = { .file = file ? file : "<input>", .err = err, .errsize = errsize };
	const char *p = src;
	int ret = 0;

	if (errsize)
		err[0] = 0;
	while (*p && !ret) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char *line = malloc(len + 1);

		s.line++;
		if (!line) {
			ret = fail(&s, "out of memory");
			break;
		}
		memcpy(line, p, len);
		line[len] = 0;
		ret = assemble_line(&s, line);
		free(line);
		p += len + (e ? 1 : 0);
	}
	for (size_t i = 0; i < s.nfix && !ret; i++) {
		size_t k;

		for (k = 0; k < s.nlabels; k++)
			if (!strcmp(s.labels[k], s.fix[i].name))
				break;
		if (k == s.nlabels) {
			s.line = s.fix[i].line;
			ret = fail(&s, "undefined label '%s'", s.fix[i].name);
			break;
		}
		s.words[s.fix[i].word] = (s.words[s.fix[i].word] & 0xffffffffull) |
			(uint64_t)(uint32_t)((int64_t)(s.label_pos[k] - s.fix[i].word) * 8) << 32;
	}
	free(s.labels);
	free(s.label_pos);
	free(s.fix);
	if (ret) {
		free(s.words);
		return -1;
	}
	*out = s.words;
	*nwords = s.n;
	return 0;
}
