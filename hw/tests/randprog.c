// SPDX-License-Identifier: MIT
#include <string.h>

#include "harness.h"
#include "randprog.h"
#include "weft_isa.h"

void randprog_fill(uint64_t *a, uint64_t va)
{
	for (unsigned i = 0; i < 2048; i++)
		a[i] = i < 16 ? va + h_rand() % 16000 : h_rand() % 256;
}

unsigned randprog(uint64_t *code, unsigned len)
{
	unsigned ops[WEFT_ISA_OPCODE_COUNT], nops = 0, n = 0;

	for (unsigned op = 0; op < WEFT_ISA_OPCODE_COUNT; op++)
		if (weft_isa_ops[op].name && op != WEFT_OP_END)
			ops[nops++] = op;
	/* prologue: r0..r63 from the buffer (pointers, small offsets) */
	for (unsigned r = 0; r < 64; r += 2) {
		struct weft_inst in = { .op = WEFT_OP_LD_GLOBAL, .t = WEFT_TYPE_U64, .d = r, .a = 250,
					.has_imm = 1, .imm = r * 8 };

		if (r == 0) {
			struct weft_inst s2 = { .op = WEFT_OP_S2R, .t = WEFT_TYPE_U64, .d = 250,
						.mod = WEFT_SR_ARGS };

			n += weft_isa_encode(&s2, &code[n]);
		}
		n += weft_isa_encode(&in, &code[n]);
	}
	while (n < len) {
		struct weft_inst in;
		const struct weft_op_info *oi;
		unsigned op = ops[h_rand() % nops], t = 0, t2 = 0, guard = 0;

		if (op < 0x100 && op >= 0x012 && h_rand() % 2)
			continue;	/* old integer ALU: less often */
		oi = &weft_isa_ops[op];
		do {
			t = oi->types ? h_rand() % WEFT_TYPE_COUNT : 0;
		} while (oi->types && !((oi->types >> t) & 1) && ++guard < 100);
		guard = 0;
		do {
			t2 = oi->types2 ? h_rand() % WEFT_TYPE_COUNT : 0;
		} while (oi->types2 && !((oi->types2 >> t2) & 1) && ++guard < 100);
		memset(&in, 0, sizeof(in));
		in.op = op;
		in.t = t;
		in.t2 = t2;
		for (unsigned i = 0; i < oi->nopnd; i++) {
			const struct weft_operand_desc *od = &oi->opnd[i];
			unsigned bits = weft_isa_type_bits(weft_isa_opnd_type(&in, od));
			uint16_t v = h_rand() % 64, *f = od->field == WEFT_FIELD_D ? &in.d :
				od->field == WEFT_FIELD_A ? &in.a : od->field == WEFT_FIELD_B ? &in.b :
				od->field == WEFT_FIELD_C ? &in.c : &in.mod;

			if (od->role == WEFT_ROLE_DST || od->role == WEFT_ROLE_SDATA)
				v = 64 + h_rand() % 150;
			if (bits == 64)
				v &= ~1;
			if (od->role == WEFT_ROLE_TARGET) {
				in.has_imm = 1;
				in.imm = (uint32_t)((int)(h_rand() % 64) - 24) * 8;
				continue;
			}
			if (od->role == WEFT_ROLE_SREG) {
				do
					v = h_rand() % WEFT_ISA_NUM_SREGS;
				while (weft_isa_sregs[v].bits == 64 && t != WEFT_TYPE_U64);
			}
			if (od->role == WEFT_ROLE_MEM || od->role == WEFT_ROLE_ADDR)
				v = bits == 64 ? (h_rand() % 32) & ~1 : 32 + h_rand() % 32;
			if (od->role == WEFT_ROLE_MEM || (od->role == WEFT_ROLE_SRCI && h_rand() % 2)) {
				in.has_imm = 1;
				in.imm = (uint32_t)(h_rand() % 128);
				if (od->role == WEFT_ROLE_SRCI)
					continue;
			}
			*f = v;
		}
		if (weft_isa_encode(&in, &code[n]) > 0)
			n += in.has_lit ? 2 : 1;
	}
	return n;
}
