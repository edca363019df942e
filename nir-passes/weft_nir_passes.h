/* SPDX-License-Identifier: MIT */
/*
 * The Weft GPU's lowering passes for the OpenCL builtins, one file per thing
 * lowered (nir-passes/ in the Weft tree, built into Mesa as
 * src/weft/nir-passes).  They run in the weft compiler after Mesa's common
 * passes (nir_lower_subgroups and the others).
 */
#ifndef WEFT_NIR_PASSES_H
#define WEFT_NIR_PASSES_H

#include "compiler/nir/nir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* workgroup_vote_any/all, workgroup_broadcast, workgroup_reduce and
 * workgroup_inclusive/exclusive_scan onto sub-group operations, shared
 * local memory (reserved after nir->info.shared_size) and barriers.
 * @max_workgroup_size bounds the work-group when the kernel does not fix
 * its size. */
bool weft_nir_lower_workgroup_collectives(nir_shader *nir, unsigned max_workgroup_size);

/* The intrinsics weft_nir_lower_workgroup_collectives lowers. */
static inline bool
weft_nir_is_workgroup_collective(nir_intrinsic_op op)
{
   switch (op) {
   case nir_intrinsic_workgroup_vote_any:
   case nir_intrinsic_workgroup_vote_all:
   case nir_intrinsic_workgroup_broadcast:
   case nir_intrinsic_workgroup_reduce:
   case nir_intrinsic_workgroup_inclusive_scan:
   case nir_intrinsic_workgroup_exclusive_scan:
      return true;
   default:
      return false;
   }
}

#ifdef __cplusplus
}
#endif

#endif
