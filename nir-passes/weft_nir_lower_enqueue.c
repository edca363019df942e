/* SPDX-License-Identifier: MIT */
/*
 * The device-side enqueue queries on a block's kernel
 * (get_kernel_work_group_size, get_kernel_preferred_work_group_size_multiple,
 * get_kernel_sub_group_count_for_ndrange and
 * get_kernel_max_sub_group_size_for_ndrange, which spirv_to_nir makes
 * intrinsics of) as the values the child kernel runs with
 * (Documentation/gpu/weft/device-enqueue.rst):
 *
 * - a block's kernel has no attribute to fix its sub-group size, so it is
 *   compiled at the compiler's default SIMD width, which is both its
 *   sub-group size and its preferred work-group size multiple;
 * - every kernel may use the device's largest work-group;
 * - an ndrange's work-group is its local size (dimensions past its work
 *   dimension count 1); with no local size it is the first dimension's
 *   global size, at most the largest work-group, by 1 by 1;
 * - its sub-groups: the work-group's work-items split into SIMD-wide
 *   sub-groups, the last one partial; their maximum size is the SIMD width
 *   whatever the work-group (what get_max_sub_group_size() gives in the
 *   child, and CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE for it).
 *
 * The sizes are size_t (64-bit); the products of sizes that do not fit a
 * work-group are computed in 64 bits, so that a huge local size gives a
 * huge count rather than a wrapped one.
 */
#include "compiler/nir/nir_builder.h"

#include "weft_nir_passes.h"

struct weft_enqueue_limits {
   unsigned simd, max_workgroup_size;
};

/* The work-items of one work-group of the ndrange (64-bit). */
static nir_def *
weft_ndrange_workgroup_items(nir_builder *b, nir_def *dim, nir_def *global, nir_def *local,
                             unsigned max_workgroup_size)
{
   nir_def *items = nir_imm_int64(b, 1);

   for (unsigned c = 0; c < 3; c++) {
      nir_def *used = nir_ult(b, nir_imm_int(b, c), dim);
      items = nir_imul(b, items, nir_bcsel(b, used, nir_channel(b, local, c),
                                           nir_imm_int64(b, 1)));
   }
   /* No local size: every dimension's is 0. */
   nir_def *unspecified = nir_ieq_imm(b, nir_ior(b, nir_ior(b, nir_channel(b, local, 0),
                                                            nir_channel(b, local, 1)),
                                                 nir_channel(b, local, 2)), 0);
   nir_def *picked = nir_umin(b, nir_channel(b, global, 0), nir_imm_int64(b, max_workgroup_size));
   return nir_bcsel(b, unspecified, picked, items);
}

static bool
weft_lower_enqueue_query(nir_builder *b, nir_intrinsic_instr *intr, void *data)
{
   const struct weft_enqueue_limits *limits = data;
   nir_def *value;

   b->cursor = nir_before_instr(&intr->instr);
   switch (intr->intrinsic) {
   case nir_intrinsic_get_kernel_work_group_size:
      value = nir_imm_int(b, limits->max_workgroup_size);
      break;
   case nir_intrinsic_get_kernel_preferred_work_group_size_multiple:
      value = nir_imm_int(b, limits->simd);
      break;
   case nir_intrinsic_get_kernel_ndrange_max_subgroup_size:
      value = nir_imm_int(b, limits->simd);
      break;
   case nir_intrinsic_get_kernel_ndrange_subgroup_count: {
      nir_def *items = weft_ndrange_workgroup_items(b, intr->src[0].ssa, intr->src[1].ssa,
                                                    intr->src[2].ssa,
                                                    limits->max_workgroup_size);
      value = nir_udiv_imm(b, nir_iadd_imm(b, items, limits->simd - 1), limits->simd);
      /* A count past 32 bits saturates rather than wraps. */
      value = nir_u2u32(b, nir_umin(b, value, nir_imm_int64(b, UINT32_MAX)));
      break;
   }
   default:
      return false;
   }
   nir_def_replace(&intr->def, value);
   return true;
}

bool
weft_nir_lower_enqueue_queries(nir_shader *nir, unsigned simd, unsigned max_workgroup_size)
{
   struct weft_enqueue_limits limits = { simd, max_workgroup_size };

   return nir_shader_intrinsics_pass(nir, weft_lower_enqueue_query, nir_metadata_control_flow,
                                     &limits);
}
