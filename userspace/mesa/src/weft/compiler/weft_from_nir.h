/* SPDX-License-Identifier: MIT */
/*
 * NIR to weft IR, shared by its parts: weft_from_nir.c (values, constants,
 * structured control flow, the entry point), weft_from_nir_alu.c,
 * weft_from_nir_intrinsic.c (memory, atomics, barriers, system values) and
 * weft_from_nir_subgroup.c (the native cross-lane instructions).
 */
#ifndef WEFT_FROM_NIR_H
#define WEFT_FROM_NIR_H

#include "util/ralloc.h"

#include "weft_nir.h"

struct weft_ctx {
   struct weft_ir *ir;
   nir_shader *nir;
   uint32_t (*defs)[NIR_MAX_VEC_COMPONENTS];  /* vreg of each SSA component */
   uint32_t args;                             /* sr.args, 64-bit */
   struct hash_table *regs;                   /* decl_reg def -> vreg */
   bool failed;
   const char *error;                         /* why, when failed */
};

/* The kernel cannot be compiled: records what the backend lacks (the first
 * reason found), completing "the weft backend does not support ...". */
#define weft_fail(ctx, ...)                                                    \
   do {                                                                        \
      if (!(ctx)->failed)                                                      \
         (ctx)->error = ralloc_asprintf((ctx)->ir, __VA_ARGS__);               \
      (ctx)->failed = true;                                                    \
   } while (0)

#define WEFT_KIND_FLOAT 2

static inline unsigned
weft_type(unsigned bits, int is_signed)
{
   if (is_signed == WEFT_KIND_FLOAT)
      return bits == 64 ? WEFT_TYPE_F64 : bits == 16 ? WEFT_TYPE_F16 : WEFT_TYPE_F32;
   switch (bits) {
   case 8: return is_signed ? WEFT_TYPE_S8 : WEFT_TYPE_U8;
   case 16: return is_signed ? WEFT_TYPE_S16 : WEFT_TYPE_U16;
   case 64: return is_signed ? WEFT_TYPE_S64 : WEFT_TYPE_U64;
   default: return is_signed ? WEFT_TYPE_S32 : WEFT_TYPE_U32;
   }
}

/* Registers hold 8/16-bit values zero- or sign-extended to 32 bits. */
static inline unsigned
weft_reg_bits(unsigned bits)
{
   return bits == 64 ? 64 : 32;
}

/* The vreg of component @comp of @def (created on first use). */
uint32_t weft_def(struct weft_ctx *ctx, nir_def *def, unsigned comp);
/* The vreg of component @comp of @src, which must be defined already. */
uint32_t weft_src(struct weft_ctx *ctx, nir_src src, unsigned comp);
uint32_t weft_mov_imm(struct weft_ctx *ctx, unsigned bits, uint64_t value);
/* s2r of the special register the ISA table names @name. */
void weft_emit_s2r(struct weft_ctx *ctx, uint32_t dst, unsigned bits, const char *name);
/* A 32-bit offset from @src (32-bit, or 64-bit: its low half). */
uint32_t weft_offset32(struct weft_ctx *ctx, nir_src src);

void weft_emit_alu(struct weft_ctx *ctx, nir_alu_instr *alu);
void weft_emit_pack_64(struct weft_ctx *ctx, uint32_t dst, uint32_t lo, uint32_t hi);
void weft_emit_intrinsic(struct weft_ctx *ctx, nir_intrinsic_instr *intr);
void weft_emit_xlane(struct weft_ctx *ctx, nir_intrinsic_instr *intr);

#endif
