/* SPDX-License-Identifier: MIT */
/*
 * The weft backend compiler: NIR (as Rusticl hands it over) to the Weft
 * ISA. NIR passes, then weft IR (weft_ir.h), register allocation and
 * encoding through the ISA tables generated from hw/isa/weft_isa.py.
 *
 * WEFT_DEBUG=nir,ir,asm,sync,time dumps the stages to stderr (sync: wait for
 * every dispatch, for debugging the driver; time: backend time per kernel).
 */
#ifndef WEFT_COMPILE_H
#define WEFT_COMPILE_H

#include <stdint.h>

#include "compiler/nir/nir.h"

#ifdef __cplusplus
extern "C" {
#endif

enum weft_debug_flags {
   WEFT_DBG_NIR = 1 << 0,
   WEFT_DBG_IR = 1 << 1,
   WEFT_DBG_ASM = 1 << 2,
   WEFT_DBG_SYNC = 1 << 3,
   WEFT_DBG_TIME = 1 << 4,
};

extern uint32_t weft_debug;

/* A compiled kernel. */
struct weft_shader {
   uint64_t *code;        /* instruction words, END included */
   unsigned size;         /* bytes */
   unsigned simd;         /* SIMD width it was compiled for */
   unsigned num_regs;     /* registers used */
   unsigned scratch_size; /* private (scratch) bytes per work-item, 0: none */
   char *disasm;          /* the disassembly, one instruction a line */
};

extern const nir_shader_compiler_options weft_nir_options;

/* Called by the screen's finalize_nir: lowering that can be cached.
 * @max_workgroup_size: the device's, for kernels of variable size;
 * @slm_size: the device's shared local memory, for the children a kernel
 * enqueues. */
void weft_preprocess_nir(nir_shader *nir, unsigned max_workgroup_size, unsigned slm_size);

/* Compiles @nir (not modified) for SIMD @simd, or, with @simd 0, at the
 * width the kernel requires (intel_reqd_sub_group_size), else WEFT_SIMD,
 * else the default of a block's kernel (16), else the width the compiler
 * estimates cheapest per work-item (weft_simd.c). NULL when
 * the kernel needs what the backend lacks: then *@error, when @error is not
 * NULL, is a message saying what (malloc'ed, for the caller to free). The
 * compiler never aborts on what a kernel contains. */
struct weft_shader *weft_compile_nir(const nir_shader *nir, char **error);
struct weft_shader *weft_compile_nir_simd(const nir_shader *nir, unsigned simd, char **error);
/* For the images and samplers bound at launch (weft_nir_passes.h), at the
 * width @simd the kernel was compiled for without them. */
struct weft_image_key;
struct weft_shader *weft_compile_nir_images(const nir_shader *nir,
                                            const struct weft_image_key *images, unsigned simd,
                                            char **error);
void weft_shader_destroy(struct weft_shader *shader);

#ifdef __cplusplus
}
#endif

#endif
