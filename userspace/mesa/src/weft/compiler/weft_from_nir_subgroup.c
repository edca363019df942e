/* SPDX-License-Identifier: MIT */
/*
 * NIR's sub-group intrinsics on the ISA's native cross-lane instructions:
 * reductions and scans, votes and ballot, broadcast and shuffles. What the
 * ISA lacks is lowered before (nir_lower_subgroups in weft_compile.c).
 */
#include "weft_from_nir.h"

static int
weft_reduce_op(nir_op op, int *kind)
{
   *kind = 0;
   switch (op) {
   case nir_op_iadd: return 0;
   case nir_op_fadd: *kind = WEFT_KIND_FLOAT; return 0;
   case nir_op_imul: return 1;
   case nir_op_fmul: *kind = WEFT_KIND_FLOAT; return 1;
   case nir_op_imin: *kind = 1; return 2;
   case nir_op_umin: return 2;
   case nir_op_fmin: *kind = WEFT_KIND_FLOAT; return 2;
   case nir_op_imax: *kind = 1; return 3;
   case nir_op_umax: return 3;
   case nir_op_fmax: *kind = WEFT_KIND_FLOAT; return 3;
   case nir_op_iand: return 4;
   case nir_op_ior: return 5;
   case nir_op_ixor: return 6;
   default: return -1;
   }
}

void
weft_emit_xlane(struct weft_ctx *ctx, nir_intrinsic_instr *intr)
{
   unsigned bits = intr->def.bit_size;
   struct weft_ir_instr *I;
   unsigned op;
   int kind = 0;

   switch (intr->intrinsic) {
   case nir_intrinsic_reduce:
   case nir_intrinsic_inclusive_scan:
   case nir_intrinsic_exclusive_scan: {
      int k = weft_reduce_op(nir_intrinsic_reduction_op(intr), &kind);

      if (k < 0 || (intr->intrinsic == nir_intrinsic_reduce &&
                    nir_intrinsic_cluster_size(intr) != 0)) {
         weft_fail(ctx, "clustered or unknown sub-group reduction");
         return;
      }
      op = (intr->intrinsic == nir_intrinsic_reduce ? WEFT_OP_RED_ADD :
            intr->intrinsic == nir_intrinsic_inclusive_scan ? WEFT_OP_ISCAN_ADD :
            WEFT_OP_ESCAN_ADD) + k;
      I = weft_ir_emit(ctx->ir, op, weft_type(bits, kind), 0);
      weft_ir_set(I, WEFT_IR_D, weft_def(ctx, &intr->def, 0));
      weft_ir_set(I, WEFT_IR_A, weft_src(ctx, intr->src[0], 0));
      return;
   }
   case nir_intrinsic_vote_any:
   case nir_intrinsic_vote_all:
   case nir_intrinsic_ballot:
      op = intr->intrinsic == nir_intrinsic_vote_any ? WEFT_OP_VOTE_ANY :
           intr->intrinsic == nir_intrinsic_vote_all ? WEFT_OP_VOTE_ALL : WEFT_OP_BALLOT;
      if (bits != 32 && intr->intrinsic == nir_intrinsic_ballot) {
         weft_fail(ctx, "%u-bit ballot", bits);
         return;
      }
      I = weft_ir_emit(ctx->ir, op, 0, 0);
      weft_ir_set(I, WEFT_IR_D, weft_def(ctx, &intr->def, 0));
      weft_ir_set(I, WEFT_IR_A, weft_src(ctx, intr->src[0], 0));
      return;
   case nir_intrinsic_read_invocation: op = WEFT_OP_BCAST; break;
   case nir_intrinsic_shuffle: op = WEFT_OP_SHFL_IDX; break;
   case nir_intrinsic_shuffle_xor: op = WEFT_OP_SHFL_XOR; break;
   case nir_intrinsic_shuffle_up: op = WEFT_OP_SHFL_UP; break;
   case nir_intrinsic_shuffle_down: op = WEFT_OP_SHFL_DOWN; break;
   case nir_intrinsic_shuffle_up_intel:
   case nir_intrinsic_shuffle_down_intel: {
      /* shfl.up2 d, a = current, c = previous; shfl.down2 d, a = current,
       * c = next: the ISA's forms of the two-source shuffles, over the
       * SIMD width (the maximum sub-group size, as the specification says). */
      bool up = intr->intrinsic == nir_intrinsic_shuffle_up_intel;

      I = weft_ir_emit(ctx->ir, up ? WEFT_OP_SHFL_UP2 : WEFT_OP_SHFL_DOWN2,
                       weft_type(bits, false), 0);
      weft_ir_set(I, WEFT_IR_D, weft_def(ctx, &intr->def, 0));
      weft_ir_set(I, WEFT_IR_A, weft_src(ctx, intr->src[up ? 1 : 0], 0));
      weft_ir_set(I, WEFT_IR_C, weft_src(ctx, intr->src[up ? 0 : 1], 0));
      weft_ir_set(I, WEFT_IR_B, weft_offset32(ctx, intr->src[2]));
      return;
   }
   default:
      unreachable("not a cross-lane intrinsic");
   }
   I = weft_ir_emit(ctx->ir, op, weft_type(bits, false), 0);
   weft_ir_set(I, WEFT_IR_D, weft_def(ctx, &intr->def, 0));
   weft_ir_set(I, WEFT_IR_A, weft_src(ctx, intr->src[0], 0));
   if (nir_src_is_const(intr->src[1]))
      weft_ir_set_imm(I, nir_src_as_uint(intr->src[1]));
   else
      weft_ir_set(I, WEFT_IR_B, weft_offset32(ctx, intr->src[1]));
}
