/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of weft_nir_lower_pipes: build a kernel with nir_builder, run
 * the pass, check the NIR it leaves.  (What the lowered code does with
 * real pipes, concurrently, is checked on the device model by the OpenCL
 * conformance suite, tests/conformance/pipes.c.)
 */
#include <stdio.h>
#include <string.h>

#include "compiler/glsl_types.h"
#include "compiler/nir/nir_builder.h"

#include "weft_nir_passes.h"
#include "weft_nir_test.h"

#define CHECK(cond, ...) WEFT_NIR_CHECK(ok, cond, __VA_ARGS__)

/* A device of 64 KiB of SLM and work-groups of up to 1024. */
#define SLOT_BASE weft_nir_slot_area_base(65536, 1024)

static const nir_shader_compiler_options options = {
   .max_pipe_packet_size = 1024,
};

struct census {
   unsigned slm_base; /* where the pass's slot starts */
   unsigned pipe_intrinsics;
   unsigned cmpxchg, atomic_reads;  /* compare-and-swaps, atomic adds of 0 */
   unsigned workgroup_barriers, fences;
   unsigned shared_loads, shared_stores, shared_below;
   unsigned elects, read_firsts;
   unsigned global_stores, loops;
};

static void
census_add(nir_intrinsic_instr *intr, void *data)
{
   struct census *c = data;

   if (weft_nir_is_pipe_intrinsic(intr->intrinsic))
      c->pipe_intrinsics++;
   switch (intr->intrinsic) {
   case nir_intrinsic_global_atomic_swap:
      c->cmpxchg += nir_intrinsic_atomic_op(intr) == nir_atomic_op_cmpxchg;
      break;
   case nir_intrinsic_global_atomic:
      c->atomic_reads += nir_intrinsic_atomic_op(intr) == nir_atomic_op_iadd &&
                         nir_src_is_const(intr->src[1]) && nir_src_as_uint(intr->src[1]) == 0;
      break;
   case nir_intrinsic_barrier:
      if (nir_intrinsic_execution_scope(intr) == SCOPE_WORKGROUP)
         c->workgroup_barriers++;
      else if (nir_intrinsic_memory_scope(intr) == SCOPE_DEVICE)
         c->fences++;
      break;
   case nir_intrinsic_load_shared:
   case nir_intrinsic_store_shared:
      if (intr->intrinsic == nir_intrinsic_load_shared)
         c->shared_loads++;
      else
         c->shared_stores++;
      if (nir_intrinsic_base(intr) < c->slm_base)
         c->shared_below++;
      break;
   case nir_intrinsic_elect: c->elects++; break;
   case nir_intrinsic_read_first_invocation: c->read_firsts++; break;
   case nir_intrinsic_store_global: c->global_stores++; break;
   default: break;
   }
}

static struct census
count(nir_shader *nir, unsigned slm_base)
{
   struct census c = { .slm_base = slm_base };

   c.loops = weft_nir_test_count_loops(nir);
   weft_nir_test_foreach_intrinsic(nir, census_add, &c);
   return c;
}

/* A kernel that stores what @emit makes of a pipe argument, and uses
 * @user_shared bytes of shared memory of its own. */
typedef void (*emit_fn)(nir_builder *b, nir_def *pipe, nir_def *out);

static nir_shader *
build(const char *name, unsigned user_shared, emit_fn emit)
{
   nir_builder b = weft_nir_test_kernel(&options, name);
   nir_def *pipe = nir_imm_int64(&b, 0x200000);
   nir_def *out = nir_imm_int64(&b, 0x10000);

   b.shader->info.workgroup_size_variable = true;
   b.shader->info.shared_size = user_shared;
   emit(&b, pipe, out);
   return b.shader;
}

static void
emit_write_packet(nir_builder *b, nir_def *pipe, nir_def *out, mesa_scope scope)
{
   nir_def *rid = nir_reserve_write_pipe(b, pipe, nir_imm_int(b, 4), .packet_size = 12,
                                         .execution_scope = scope);
   nir_def *addr = nir_pipe_packet_address(b, pipe, rid, nir_imm_int(b, 1), .packet_size = 12);

   nir_store_global(b, out, 8, addr, 1);
   nir_store_global(b, nir_iadd_imm(b, out, 8), 4,
                    nir_b2i32(b, nir_is_valid_reserve_id(b, rid)), 1);
   nir_commit_write_pipe(b, pipe, rid, .packet_size = 12, .execution_scope = scope);
}

static void
emit_invocation(nir_builder *b, nir_def *pipe, nir_def *out)
{
   emit_write_packet(b, pipe, out, SCOPE_INVOCATION);
}

static void
emit_subgroup(nir_builder *b, nir_def *pipe, nir_def *out)
{
   emit_write_packet(b, pipe, out, SCOPE_SUBGROUP);
}

static void
emit_workgroup(nir_builder *b, nir_def *pipe, nir_def *out)
{
   emit_write_packet(b, pipe, out, SCOPE_WORKGROUP);
}

static void
emit_two_workgroup_reads(nir_builder *b, nir_def *pipe, nir_def *out)
{
   for (unsigned i = 0; i < 2; i++) {
      nir_def *rid = nir_reserve_read_pipe(b, pipe, nir_imm_int(b, 64), .packet_size = 4,
                                           .execution_scope = SCOPE_WORKGROUP);
      nir_store_global(b, nir_iadd_imm(b, out, 8 * i), 8, rid, 1);
      nir_commit_read_pipe(b, pipe, rid, .packet_size = 4, .execution_scope = SCOPE_WORKGROUP);
   }
}

static void
emit_counts(nir_builder *b, nir_def *pipe, nir_def *out)
{
   nir_store_global(b, out, 4, nir_get_pipe_num_packets(b, pipe, .packet_size = 4), 1);
   nir_store_global(b, nir_iadd_imm(b, out, 4), 4,
                    nir_get_pipe_max_packets(b, pipe, .packet_size = 4), 1);
}

static void
emit_nothing(nir_builder *b, nir_def *pipe, nir_def *out)
{
   nir_store_global(b, out, 8, pipe, 1);
}

struct expect {
   unsigned cmpxchg, atomic_reads, workgroup_barriers, elects, read_firsts;
   unsigned shared_loads, shared_stores;
   bool progress;
};

static void
check(const char *name, unsigned user_shared, emit_fn emit, struct expect e)
{
   nir_shader *nir = build(name, user_shared, emit);
   bool ok = true;

   nir_validate_shader(nir, "before");
   unsigned own_stores = count(nir, user_shared).global_stores;
   bool progress = weft_nir_lower_pipes(nir, SLOT_BASE);
   nir_validate_shader(nir, "after weft_nir_lower_pipes");

   struct census c = count(nir, SLOT_BASE);

   CHECK(progress == e.progress, "progress %d", progress);
   CHECK(c.pipe_intrinsics == 0, "%u pipe intrinsics left", c.pipe_intrinsics);
   CHECK(c.cmpxchg == e.cmpxchg, "%u compare-and-swaps, want %u", c.cmpxchg, e.cmpxchg);
   CHECK(c.atomic_reads == e.atomic_reads, "%u atomic position reads, want %u", c.atomic_reads,
         e.atomic_reads);
   CHECK(c.workgroup_barriers == e.workgroup_barriers, "%u work-group barriers, want %u",
         c.workgroup_barriers, e.workgroup_barriers);
   CHECK(c.elects == e.elects, "%u elects, want %u", c.elects, e.elects);
   CHECK(c.read_firsts == e.read_firsts, "%u read_first_invocations, want %u", c.read_firsts,
         e.read_firsts);
   CHECK(c.shared_loads == e.shared_loads && c.shared_stores == e.shared_stores,
         "%u shared loads, %u stores", c.shared_loads, c.shared_stores);
   /* Slot states change hands by compare-and-swap only, never a store. */
   CHECK(c.global_stores == own_stores, "%u global stores, want the kernel's own %u",
         c.global_stores, own_stores);
   CHECK(c.shared_below == 0, "%u shared accesses overlap the kernel's own", c.shared_below);
   /* The slot is the slot area's, not the kernel's local memory. */
   CHECK(nir->info.shared_size == user_shared, "shared_size %u, want the kernel's %u",
         nir->info.shared_size, user_shared);
   CHECK(weft_nir_uses_slot_area(nir, SLOT_BASE) == (e.shared_stores > 0),
         "uses the slot area: %d", weft_nir_uses_slot_area(nir, SLOT_BASE));
   if (e.cmpxchg) {
      /* A reservation retries in a loop, checks its slots in another, and
       * a commit sets them in a third; a fence orders the packets. */
      CHECK(c.loops >= 3, "%u loops", c.loops);
      CHECK(c.fences >= 1, "%u device fences", c.fences);
   }

   weft_nir_test_report(ok, name);
   ralloc_free(nir);
}

int
main(void)
{
   weft_nir_test_begin();

   /* Every invocation: the sub-group tries as one (the elected invocation
    * reserves the sum, a reduction and a scan share it out, its reserve
    * id goes to every invocation), then alone if that failed: twice the
    * positions read atomically (read, then write position, and both again
    * when the slots were not ready), two compare-and-swaps on the position
    * and one on the slot state the commit moves on, nothing shared. */
   check("reserve-commit-invocation", 0, emit_invocation,
         (struct expect){ .cmpxchg = 3, .atomic_reads = 8, .elects = 1, .read_firsts = 2,
                          .progress = true });
   /* The sub-group: the elected invocation reserves and commits (a
    * compare-and-swap each), its reserve id (two halves) goes to every
    * invocation. */
   check("reserve-commit-subgroup", 0, emit_subgroup,
         (struct expect){ .cmpxchg = 2, .atomic_reads = 4, .elects = 2, .read_firsts = 2,
                          .progress = true });
   /* The work-group: the slot area's first 8-byte slot, two barriers around the reservation, one before the
    * commit. */
   check("reserve-commit-workgroup", 20, emit_workgroup,
         (struct expect){ .cmpxchg = 2, .atomic_reads = 4, .workgroup_barriers = 3,
                          .shared_loads = 1, .shared_stores = 1,
                          .progress = true });
   /* Two work-group reservations share the slot; a reader looks at the
    * read position only (twice when the slots were not ready). */
   check("two-workgroup-reads-share-the-slot", 0, emit_two_workgroup_reads,
         (struct expect){ .cmpxchg = 4, .atomic_reads = 4, .workgroup_barriers = 6,
                          .shared_loads = 2, .shared_stores = 2,
                          .progress = true });
   check("num-and-max-packets", 0, emit_counts,
         (struct expect){ .atomic_reads = 2, .progress = true });
   check("no-pipes-untouched", 12, emit_nothing, (struct expect){ 0 });

   return weft_nir_test_end();
}
