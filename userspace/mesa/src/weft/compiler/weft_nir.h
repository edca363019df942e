/* SPDX-License-Identifier: MIT */
#ifndef WEFT_NIR_H
#define WEFT_NIR_H

#include "compiler/nir/nir.h"
#include "weft_ir.h"

bool weft_nir_lower_sysvals(nir_shader *nir);
/* weft_nir_speculate_shared.c: an if of a few ALU instructions and local
 * loads on either side runs both sides, the loads of the side not taken
 * from the start of the kernel's local memory. */
bool weft_nir_speculate_shared_loads(nir_shader *nir);
/* NIR (scalar, 32-bit booleans, structured, out of SSA) to weft IR; NULL
 * when the kernel needs what the backend does not do yet, with *@error
 * (allocated on @mem_ctx) completing "the weft backend does not support". */
struct weft_ir *weft_from_nir(nir_shader *nir, void *mem_ctx, const char **error);

#endif
