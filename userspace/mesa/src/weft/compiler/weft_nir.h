/* SPDX-License-Identifier: MIT */
#ifndef WEFT_NIR_H
#define WEFT_NIR_H

#include "compiler/nir/nir.h"
#include "weft_ir.h"

bool weft_nir_lower_sysvals(nir_shader *nir);
/* NIR (one block, scalar, 32-bit booleans) to weft IR; NULL with a message
 * when the kernel needs what the backend does not do yet. */
struct weft_ir *weft_from_nir(nir_shader *nir, void *mem_ctx);

#endif
