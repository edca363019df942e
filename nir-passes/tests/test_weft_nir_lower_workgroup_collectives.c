/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of weft_nir_lower_workgroup_collectives: build a kernel with
 * nir_builder, run the pass, check the NIR it leaves.  (What the lowered
 * code computes is checked on the device model by the OpenCL conformance
 * suite, tests/conformance.)
 */
#include <string.h>

#include "weft_nir_passes.h"
#include "weft_nir_test.h"

#define CHECK(cond, ...) WEFT_NIR_CHECK(ok, cond, __VA_ARGS__)

/* A device of 64 KiB of SLM and work-groups of up to 1024. */
#define SLOT_BASE weft_nir_slot_area_base(65536, 1024)

static const nir_shader_compiler_options options = {
   .has_enqueued_sysvals = true,
   .has_workgroup_collectives = true,
};

struct census {
   unsigned slm_base;
   unsigned collectives, barriers, reduces, iscans, escans, read_invocations;
   unsigned shared_accesses, shared_below; /* below the reserved slots */
   unsigned max_subgroup_size_loads;
   unsigned loops;
};

static void
count_intrinsic(nir_intrinsic_instr *intr, void *data)
{
   struct census *c = data;

   if (weft_nir_is_workgroup_collective(intr->intrinsic))
      c->collectives++;
   switch (intr->intrinsic) {
   case nir_intrinsic_barrier:
      if (nir_intrinsic_execution_scope(intr) == SCOPE_WORKGROUP)
         c->barriers++;
      break;
   case nir_intrinsic_reduce: c->reduces++; break;
   case nir_intrinsic_inclusive_scan: c->iscans++; break;
   case nir_intrinsic_exclusive_scan: c->escans++; break;
   case nir_intrinsic_read_invocation: c->read_invocations++; break;
   case nir_intrinsic_load_max_subgroup_size: c->max_subgroup_size_loads++; break;
   case nir_intrinsic_load_shared:
   case nir_intrinsic_store_shared:
      c->shared_accesses++;
      if (nir_intrinsic_base(intr) < c->slm_base)
         c->shared_below++;
      break;
   default:
      break;
   }
}

static struct census
count(nir_shader *nir, unsigned slm_base)
{
   struct census c = { .slm_base = slm_base };

   c.loops = weft_nir_test_count_loops(nir);
   weft_nir_test_foreach_intrinsic(nir, count_intrinsic, &c);
   return c;
}

/* A kernel of @size (0: variable) that stores @n collectives of the local
 * linear id, built by @emit, and uses @user_shared bytes of its own. */
typedef nir_def *(*emit_fn)(nir_builder *b, nir_def *x);

static nir_shader *
build(const char *name, unsigned size, unsigned user_shared, unsigned n, emit_fn emit,
      unsigned bit_size)
{
   nir_builder b = weft_nir_test_kernel(&options, name);
   nir_def *x = nir_u2uN(&b, nir_load_local_invocation_index(&b), bit_size);
   nir_def *addr = nir_imm_int64(&b, 0x10000);

   b.shader->info.workgroup_size_variable = size == 0;
   b.shader->info.workgroup_size[0] = size;
   b.shader->info.workgroup_size[1] = size ? 1 : 0;
   b.shader->info.workgroup_size[2] = size ? 1 : 0;
   b.shader->info.shared_size = user_shared;
   for (unsigned i = 0; i < n; i++) {
      nir_def *r = emit(&b, x);
      if (r->bit_size == 1)
         r = nir_b2i32(&b, r);
      nir_store_global(&b, addr, r->bit_size / 8, r, 1);
   }
   return b.shader;
}

static nir_def *emit_reduce_add(nir_builder *b, nir_def *x)
{
   return nir_workgroup_reduce(b, x, .reduction_op = nir_op_iadd);
}

static nir_def *emit_reduce_fmin(nir_builder *b, nir_def *x)
{
   return nir_workgroup_reduce(b, nir_u2f32(b, x), .reduction_op = nir_op_fmin);
}

static nir_def *emit_iscan_umax(nir_builder *b, nir_def *x)
{
   return nir_workgroup_inclusive_scan(b, x, .reduction_op = nir_op_umax);
}

static nir_def *emit_escan_imin(nir_builder *b, nir_def *x)
{
   return nir_workgroup_exclusive_scan(b, x, .reduction_op = nir_op_imin);
}

static nir_def *emit_broadcast(nir_builder *b, nir_def *x)
{
   return nir_workgroup_broadcast(b, x, nir_imm_ivec3(b, 3, 1, 0));
}

static nir_def *emit_any(nir_builder *b, nir_def *x)
{
   return nir_workgroup_vote_any(b, 1, nir_ieq_imm(b, x, 5));
}

static nir_def *emit_all(nir_builder *b, nir_def *x)
{
   return nir_workgroup_vote_all(b, 1, nir_ine_imm(b, x, 5));
}

static nir_def *emit_subgroup_reduce(nir_builder *b, nir_def *x)
{
   return nir_reduce(b, x, .reduction_op = nir_op_iadd);
}

struct expect {
   unsigned reduces, iscans, escans, read_invocations, max_subgroup_size_loads;
};

static void
check(const char *name, unsigned size, unsigned required_simd, unsigned user_shared, unsigned n,
      emit_fn emit, unsigned bit_size, struct expect e)
{
   nir_shader *nir = build(name, size, user_shared, n, emit, bit_size);
   bool ok = true;

   if (required_simd)
      nir->info.subgroup_size = (enum gl_subgroup_size)required_simd;
   nir_validate_shader(nir, "before");
   bool progress = weft_nir_lower_workgroup_collectives(nir, SLOT_BASE);
   nir_validate_shader(nir, "after weft_nir_lower_workgroup_collectives");

   struct census c = count(nir, SLOT_BASE);

   CHECK(progress == (n > 0 && emit != emit_subgroup_reduce), "progress %d", progress);
   CHECK(c.collectives == 0, "%u work-group intrinsics left", c.collectives);
   /* The slots are not the kernel's local memory: Rusticl places the
    * __local arguments right after the kernel's own. */
   CHECK(nir->info.shared_size == user_shared, "shared_size %u, want the kernel's %u",
         nir->info.shared_size, user_shared);
   CHECK(weft_nir_uses_slot_area(nir, SLOT_BASE) == progress, "uses the slot area: %d",
         weft_nir_uses_slot_area(nir, SLOT_BASE));
   if (emit != emit_subgroup_reduce) {
      /* One barrier before the slots are written, one after. */
      CHECK(c.barriers == 2 * n, "%u barriers for %u collectives", c.barriers, n);
      unsigned loops = emit == emit_broadcast ? 0 : n;
      CHECK(c.loops == loops, "%u slot loops, want %u", c.loops, loops);
      CHECK(c.shared_accesses == 2 * n, "%u shared accesses", c.shared_accesses);
   }
   CHECK(c.shared_below == 0, "%u shared accesses overlap the kernel's own", c.shared_below);
   CHECK(c.reduces == e.reduces * n, "%u sub-group reductions, want %u", c.reduces, e.reduces * n);
   CHECK(c.iscans == e.iscans * n, "%u inclusive scans", c.iscans);
   CHECK(c.escans == e.escans * n, "%u exclusive scans", c.escans);
   CHECK(c.read_invocations == e.read_invocations * n, "%u read_invocations", c.read_invocations);
   CHECK(c.max_subgroup_size_loads == e.max_subgroup_size_loads * n, "%u max sub-group size loads",
         c.max_subgroup_size_loads);

   weft_nir_test_report(ok, name);
   ralloc_free(nir);
}

int
main(void)
{
   weft_nir_test_begin();

   /* Variable size: up to 1024 work-items at SIMD 8, 128 slots of 8
    * bytes, the slot area's. */
   check("reduce-add-variable-size", 0, 0, 20, 1, emit_reduce_add, 32,
         (struct expect){ .reduces = 2 });
   check("reduce-add-u64", 0, 0, 0, 1, emit_reduce_add, 64,
         (struct expect){ .reduces = 2 });
   check("reduce-fmin", 0, 0, 0, 1, emit_reduce_fmin, 32,
         (struct expect){ .reduces = 2 });
   /* A fixed size of 64 at a required SIMD 16: 4 slots. */
   check("reduce-fixed-size-simd16", 64, 16, 4, 1, emit_reduce_add, 32,
         (struct expect){ .reduces = 2 });
   /* 100 work-items at SIMD 32: 4 sub-groups, the last partial. */
   check("reduce-fixed-size-partial", 100, 32, 0, 1, emit_reduce_add, 32,
         (struct expect){ .reduces = 2 });
   check("scan-inclusive-umax", 0, 0, 0, 1, emit_iscan_umax, 32,
         (struct expect){ .reduces = 2, .iscans = 1 });
   check("scan-exclusive-imin", 0, 0, 0, 1, emit_escan_imin, 64,
         (struct expect){ .reduces = 2, .escans = 1 });
   check("broadcast", 0, 0, 0, 1, emit_broadcast, 32,
         (struct expect){ .read_invocations = 1, .max_subgroup_size_loads = 1 });
   check("any", 0, 0, 0, 1, emit_any, 32,
         (struct expect){ .reduces = 2 });
   check("all", 0, 0, 0, 1, emit_all, 32,
         (struct expect){ .reduces = 2 });
   /* Three collectives share the slots, each fenced by its own barriers. */
   check("three-reductions-share-slots", 0, 0, 16, 3, emit_reduce_add, 32,
         (struct expect){ .reduces = 2 });
   /* Sub-group operations and kernels without collectives are left alone. */
   check("subgroup-reduce-untouched", 0, 0, 12, 1, emit_subgroup_reduce, 32,
         (struct expect){ .reduces = 1 });
   check("no-collectives", 0, 0, 12, 0, emit_reduce_add, 32,
         (struct expect){ 0 });

   return weft_nir_test_end();
}
