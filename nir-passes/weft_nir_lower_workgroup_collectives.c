/* SPDX-License-Identifier: MIT */
/*
 * Lowers the work-group collectives (OpenCL C's work_group_all, _any,
 * _broadcast, _reduce_*, _scan_inclusive_* and _scan_exclusive_*, which
 * spirv_to_nir hands over as the workgroup_* intrinsics) onto the Weft
 * GPU's native sub-group reductions and scans, shared local memory and
 * work-group barriers.
 *
 * The pass uses one 8-byte slot per sub-group of the work-group in the
 * slot area at the top of the SLM (weft_nir_slot_area_base), which holds
 * those of the largest work-group at SIMD 8, beyond the kernel's own
 * shared memory and its __local arguments.  Every collective:
 *
 *   barrier                 earlier collectives have read their slots
 *   slot[subgroup_id] = the sub-group's part (every lane stores the same)
 *   barrier
 *   combine the slots it needs, lane i taking slots i, i + size, ...,
 *   then a sub-group reduction of the lanes' partial results
 *
 * The hardware's sub-group operations count only live lanes, and the
 * sub-group size, sub-group id and number of sub-groups are those of the
 * actual (possibly remainder) work-group, so partial sub-groups and
 * non-uniform work-groups need nothing special.  Floating-point sums
 * combine the lanes of a sub-group in lane order, then the sub-groups'
 * sums in a tree: not the sequential order, within n ulps of it.
 */
#include "compiler/nir/nir_builder.h"

#include "weft_nir_passes.h"

struct weft_wg_state {
   unsigned slm_base; /* the slot area's */
};

static nir_def *
weft_wg_slot_offset(nir_builder *b, nir_def *index)
{
   return nir_imul_imm(b, index, WEFT_WG_SLOT_BYTES);
}

/* slot[subgroup_id] = @part, between the two barriers. */
static void
weft_wg_publish(nir_builder *b, const struct weft_wg_state *s, nir_def *part)
{
   weft_nir_workgroup_barrier(b);
   nir_store_shared(b, part, weft_wg_slot_offset(b, nir_load_subgroup_id(b)),
                    .base = s->slm_base, .align_mul = WEFT_WG_SLOT_BYTES);
   weft_nir_workgroup_barrier(b);
}

/* @op over slots [0, @count), the same in every lane of the sub-group. */
static nir_def *
weft_wg_combine_slots(nir_builder *b, const struct weft_wg_state *s, nir_op op,
                      unsigned bit_size, nir_def *count)
{
   const struct glsl_type *type = glsl_uintN_t_type(bit_size);
   nir_variable *acc = nir_local_variable_create(b->impl, type, "weft_wg_acc");
   nir_variable *slot = nir_local_variable_create(b->impl, glsl_uint_type(), "weft_wg_slot");
   nir_const_value identity = nir_alu_binop_identity(op, bit_size);

   nir_store_var(b, acc, nir_build_imm(b, 1, bit_size, &identity), 1);
   nir_store_var(b, slot, nir_load_subgroup_invocation(b), 1);
   nir_push_loop(b);
   {
      nir_def *i = nir_load_var(b, slot);

      nir_break_if(b, nir_uge(b, i, count));
      nir_def *v = nir_load_shared(b, 1, bit_size, weft_wg_slot_offset(b, i),
                                   .base = s->slm_base, .align_mul = WEFT_WG_SLOT_BYTES);
      nir_store_var(b, acc, nir_build_alu2(b, op, nir_load_var(b, acc), v), 1);
      nir_store_var(b, slot, nir_iadd(b, i, nir_load_subgroup_size(b)), 1);
   }
   nir_pop_loop(b, NULL);
   return nir_reduce(b, nir_load_var(b, acc), .reduction_op = op);
}

static nir_def *
weft_wg_reduce(nir_builder *b, const struct weft_wg_state *s, nir_def *x, nir_op op)
{
   weft_wg_publish(b, s, nir_reduce(b, x, .reduction_op = op));
   return weft_wg_combine_slots(b, s, op, x->bit_size, nir_load_num_subgroups(b));
}

/* The sub-groups before this one, combined, then this sub-group's scan. */
static nir_def *
weft_wg_scan(nir_builder *b, const struct weft_wg_state *s, nir_def *x, nir_op op,
             bool inclusive)
{
   nir_def *mine = inclusive ? nir_inclusive_scan(b, x, .reduction_op = op)
                             : nir_exclusive_scan(b, x, .reduction_op = op);

   weft_wg_publish(b, s, nir_reduce(b, x, .reduction_op = op));
   nir_def *before = weft_wg_combine_slots(b, s, op, x->bit_size, nir_load_subgroup_id(b));
   return nir_build_alu2(b, op, before, mine);
}

/* Every sub-group stores the value of its lane at the target's lane; the
 * target's sub-group's slot is the answer.  The linear id is the
 * hardware's (x + y * Lx + z * Lx * Ly with the actual local size). */
static nir_def *
weft_wg_broadcast(nir_builder *b, const struct weft_wg_state *s, nir_def *x, nir_def *id)
{
   nir_def *size = nir_load_workgroup_size(b);
   nir_def *lx = nir_channel(b, size, 0);
   nir_def *lxy = nir_imul(b, lx, nir_channel(b, size, 1));
   nir_def *linear = nir_iadd(b, nir_channel(b, id, 0),
                              nir_iadd(b, nir_imul(b, nir_channel(b, id, 1), lx),
                                       nir_imul(b, nir_channel(b, id, 2), lxy)));
   nir_def *simd = nir_load_max_subgroup_size(b);

   weft_wg_publish(b, s, nir_read_invocation(b, x, nir_umod(b, linear, simd)));
   return nir_load_shared(b, 1, x->bit_size, weft_wg_slot_offset(b, nir_udiv(b, linear, simd)),
                          .base = s->slm_base, .align_mul = WEFT_WG_SLOT_BYTES);
}

static bool
weft_lower_workgroup_collective(nir_builder *b, nir_intrinsic_instr *intr, void *data)
{
   struct weft_wg_state *s = data;
   nir_def *res;

   if (!weft_nir_is_workgroup_collective(intr->intrinsic))
      return false;

   b->cursor = nir_before_instr(&intr->instr);
   switch (intr->intrinsic) {
   case nir_intrinsic_workgroup_vote_any:
   case nir_intrinsic_workgroup_vote_all: {
      /* any: the maximum of 0/1 over the work-group; all: the minimum. */
      nir_op op = intr->intrinsic == nir_intrinsic_workgroup_vote_any ? nir_op_umax : nir_op_umin;
      res = nir_ine_imm(b, weft_wg_reduce(b, s, nir_b2i32(b, intr->src[0].ssa), op), 0);
      break;
   }
   case nir_intrinsic_workgroup_broadcast:
      res = weft_wg_broadcast(b, s, intr->src[0].ssa, intr->src[1].ssa);
      break;
   case nir_intrinsic_workgroup_reduce:
      res = weft_wg_reduce(b, s, intr->src[0].ssa, nir_intrinsic_reduction_op(intr));
      break;
   default:
      res = weft_wg_scan(b, s, intr->src[0].ssa, nir_intrinsic_reduction_op(intr),
                         intr->intrinsic == nir_intrinsic_workgroup_inclusive_scan);
      break;
   }
   nir_def_replace(&intr->def, res);
   return true;
}

bool
weft_nir_lower_workgroup_collectives(nir_shader *nir, unsigned slot_base)
{
   struct weft_wg_state s = { .slm_base = slot_base };

   if (!nir_shader_intrinsics_pass(nir, weft_lower_workgroup_collective, nir_metadata_none, &s))
      return false;
   /* The accumulators of weft_wg_combine_slots. */
   NIR_PASS(_, nir, nir_lower_vars_to_ssa);
   return true;
}

bool
weft_nir_uses_slot_area(const nir_shader *nir, unsigned slot_base)
{
   nir_foreach_function_impl(impl, nir) {
      nir_foreach_block(block, impl) {
         nir_foreach_instr(instr, block) {
            if (instr->type != nir_instr_type_intrinsic)
               continue;
            nir_intrinsic_instr *intr = nir_instr_as_intrinsic(instr);
            if ((intr->intrinsic == nir_intrinsic_load_shared ||
                 intr->intrinsic == nir_intrinsic_store_shared) &&
                nir_intrinsic_base(intr) >= slot_base)
               return true;
         }
      }
   }
   return false;
}
