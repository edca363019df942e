// SPDX-License-Identifier: MIT
/*
 * usage: test_coverage FILE
 *
 * FILE holds the tuples the host tests recorded with cov_checked() (see
 * coverage.h).  Every opcode/type pair the ISA table declares (every T2 too,
 * for conversions; opcodes without a type count once) must have been checked
 * against a C reference on SIMD 8, 16 and 32.  The list comes from the
 * generated table, so a new instruction or type fails here until a test
 * covers it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "weft_isa.h"

static uint8_t seen[WEFT_ISA_OPCODE_COUNT][WEFT_TYPE_COUNT][WEFT_TYPE_COUNT];
static unsigned tot_pairs, tot_pairs_ok, tot_t2, tot_t2_ok;

static unsigned type_code(const char *name)
{
	for (unsigned t = 1; t < WEFT_TYPE_COUNT; t++)
		if (weft_isa_types[t].name && !strcmp(weft_isa_types[t].name, name))
			return t;
	return 0;
}

static int load(const char *path)
{
	FILE *f = fopen(path, "r");
	char name[64], t[16], t2[16];
	unsigned mask, n = 0;

	if (!f)
		return -1;
	while (fscanf(f, "%63s %15s %15s %u", name, t, t2, &mask) == 4) {
		for (unsigned op = 0; op < WEFT_ISA_OPCODE_COUNT; op++)
			if (weft_isa_ops[op].name && !strcmp(weft_isa_ops[op].name, name))
				seen[op][type_code(t)][type_code(t2)] |= (uint8_t)mask;
		n++;
	}
	fclose(f);
	return (int)n;
}

/* Instruction groups, one test each. */
enum { G_INT, G_FLOAT, G_CVT, G_CF, G_XLANE, G_MEM, G_ATOM, G_COUNT };
static const char *gname[G_COUNT] = {
	"integer ALU", "float ALU", "conversions", "control flow, barrier, fence, s2r",
	"cross-lane", "memory", "atomics",
};

static int group(unsigned op, unsigned t)
{
	switch (weft_isa_ops[op].cls) {
	case WEFT_CLASS_ALU:
		return weft_isa_types[t].kind == 'f' && op != WEFT_OP_MOV && op != WEFT_OP_SEL ?
		       G_FLOAT : G_INT;
	case WEFT_CLASS_CVT: case WEFT_CLASS_CVTF: return G_CVT;
	case WEFT_CLASS_XLANE: return G_XLANE;
	case WEFT_CLASS_LD: case WEFT_CLASS_ST: case WEFT_CLASS_LDX: case WEFT_CLASS_STX: return G_MEM;
	case WEFT_CLASS_ATOM: return G_ATOM;
	default: return G_CF;
	}
}

static unsigned cur_group;

static void fmt_widths(char *buf, size_t size, unsigned mask)
{
	snprintf(buf, size, "%s%s%s", mask & 1 ? "" : " 8", mask & 2 ? "" : " 16", mask & 4 ? "" : " 32");
}

static void t_group(void)
{
	unsigned pairs = 0, ok = 0, shown = 0;

	for (unsigned op = 0; op < WEFT_ISA_OPCODE_COUNT; op++) {
		const struct weft_op_info *oi = &weft_isa_ops[op];

		if (!oi->name)
			continue;
		for (unsigned t = 0; t < WEFT_TYPE_COUNT; t++) {
			unsigned good = 1, n2 = 0, ok2 = 0;
			char miss[256] = "";

			if (oi->types ? !((oi->types >> t) & 1) : t != 0)
				continue;
			if ((unsigned)group(op, t) != cur_group)
				continue;
			for (unsigned t2 = 0; t2 < WEFT_TYPE_COUNT; t2++) {
				size_t len = strlen(miss);

				if (oi->types2 ? !((oi->types2 >> t2) & 1) : t2 != 0)
					continue;
				n2++;
				if (seen[op][t][t2] == 7) {
					ok2++;
					continue;
				}
				good = 0;
				if (len + 32 < sizeof(miss)) {
					char w[16];

					fmt_widths(w, sizeof(w), seen[op][t][t2]);
					snprintf(miss + len, sizeof(miss) - len, " %s%s(simd%s)",
						 t2 ? "." : "", t2 ? weft_isa_types[t2].name : "", w);
				}
			}
			pairs++;
			ok += good;
			tot_t2 += n2;
			tot_t2_ok += ok2;
			if (!good && shown++ < 60)
				printf("    not checked: %s%s%s:%s\n", oi->name, t ? "." : "",
				       t ? weft_isa_types[t].name : "", miss);
		}
	}
	tot_pairs += pairs;
	tot_pairs_ok += ok;
	printf("    %s: %u/%u opcode/type pairs\n", gname[cur_group], ok, pairs);
	CHECK(ok == pairs, "%u opcode/type pairs of the %s not checked on every SIMD width",
	      pairs - ok, gname[cur_group]);
}

int main(int argc, char **argv)
{
	char title[128];

	if (argc != 2 || load(argv[1]) <= 0) {
		printf("FAIL coverage: no tuples recorded (usage: test_coverage FILE)\n");
		printf("0 passed, 1 failed\n");
		return 1;
	}
	for (cur_group = 0; cur_group < G_COUNT; cur_group++) {
		snprintf(title, sizeof(title),
			 "coverage: every %s opcode/type pair checked against C on SIMD 8/16/32",
			 gname[cur_group]);
		h_run(title, t_group);
	}
	printf("    total: %u/%u opcode/type pairs; %u/%u with the source type of conversions\n",
	       tot_pairs_ok, tot_pairs, tot_t2_ok, tot_t2);
	return h_summary();
}
