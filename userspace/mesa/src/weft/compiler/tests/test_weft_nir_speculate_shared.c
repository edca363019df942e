/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the speculation of local loads out of small ifs
 * (weft_nir_speculate_shared.c): the load runs before the if, from
 * address 0 of the work-group's local memory where the condition is
 * false, and only when the kernel's local memory holds it there.
 */
#include "compiler/glsl_types.h"
#include "compiler/nir/nir_builder.h"

#include "weft_compile.h"
#include "weft_nir.h"
#include "weft_test.h"

enum branch { BRANCH_LOAD, BRANCH_LOAD_AND_STORE };

/* v = lid >= 4 ? t[lid - 4] : 0 as a scan writes it, the load at offset
 * base + lid * 4 - 16, in a kernel with @shared_size bytes of __local. */
static nir_shader *
build_scan_step(unsigned shared_size, unsigned base, enum branch branch)
{
   nir_builder b = nir_builder_init_simple_shader(MESA_SHADER_KERNEL, &weft_nir_options,
                                                  "scan_step");
   nir_def *lid = nir_channel(&b, nir_load_local_invocation_id(&b), 0);
   nir_def *offset = nir_iadd_imm(&b, nir_ishl_imm(&b, lid, 2), -16);

   b.shader->info.shared_size = shared_size;
   nir_push_if(&b, nir_uge_imm(&b, lid, 4));
   nir_def *loaded = nir_load_shared(&b, 1, 32, offset, .base = base);
   if (branch == BRANCH_LOAD_AND_STORE)
      nir_store_shared(&b, lid, offset);
   nir_push_else(&b, NULL);
   nir_def *zero = nir_imm_int(&b, 0);
   nir_pop_if(&b, NULL);
   nir_store_global(&b, nir_imm_int64(&b, 0x1000), 4, nir_if_phi(&b, loaded, zero), 1);
   return b.shader;
}

static nir_intrinsic_instr *
find_load_shared(nir_shader *nir)
{
   nir_foreach_function_impl(impl, nir) {
      nir_foreach_block(block, impl) {
         nir_foreach_instr(instr, block) {
            if (instr->type == nir_instr_type_intrinsic &&
                nir_instr_as_intrinsic(instr)->intrinsic == nir_intrinsic_load_shared)
               return nir_instr_as_intrinsic(instr);
         }
      }
   }
   return NULL;
}

static bool
load_is_in_if(nir_intrinsic_instr *load)
{
   return load->instr.block->cf_node.parent->type == nir_cf_node_if;
}

/* The load leaves the if; where the condition fails its offset is
 * 0 - base, so that it reads the first word of the local memory. */
static void
test_speculated(void)
{
   nir_shader *nir = build_scan_step(1024, 8, BRANCH_LOAD);
   nir_intrinsic_instr *load;

   CHECK(weft_nir_speculate_shared_loads(nir));
   nir_validate_shader(nir, "after weft_nir_speculate_shared_loads");
   load = find_load_shared(nir);
   CHECK(load && !load_is_in_if(load));
   nir_scalar offset = nir_scalar_resolved(load->src[0].ssa, 0);
   CHECK(nir_scalar_is_alu(offset) && nir_scalar_alu_op(offset) == nir_op_bcsel);
   nir_scalar fallback = nir_scalar_chase_alu_src(offset, 2);
   CHECK(nir_scalar_is_const(fallback) && nir_scalar_as_uint(fallback) == (uint32_t)-8);
   ralloc_free(nir);
}

/* No __local of its own (only the arguments' local memory, sized at the
 * launch), or too little for the load at 0, a store beside the load:
 * the if stays. */
static void
test_kept(void)
{
   static const struct { unsigned shared_size; enum branch branch; } cases[] = {
      { 0, BRANCH_LOAD },
      { 2, BRANCH_LOAD },
      { 1024, BRANCH_LOAD_AND_STORE },
   };

   for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
      nir_shader *nir = build_scan_step(cases[i].shared_size, 0, cases[i].branch);

      CHECK(!weft_nir_speculate_shared_loads(nir));
      CHECK(load_is_in_if(find_load_shared(nir)));
      ralloc_free(nir);
   }
}

int
main(void)
{
   glsl_type_singleton_init_or_ref();
   RUN(test_speculated);
   RUN(test_kept);
   glsl_type_singleton_decref();
   return weft_test_summary();
}
