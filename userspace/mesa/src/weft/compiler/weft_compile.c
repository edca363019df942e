/* SPDX-License-Identifier: MIT */
/*
 * The weft compiler driver: NIR passes, NIR to weft IR, IR passes,
 * register allocation, packing; validation after every stage and the
 * WEFT_DEBUG dumps.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/nir/nir_builder.h"
#include "util/ralloc.h"
#include "util/os_time.h"
#include "util/u_debug.h"

#include "weft_compile.h"
#include "weft_nir.h"
#include "weft_nir_passes.h"

uint32_t weft_debug;

static const struct debug_named_value weft_debug_options[] = {
   {"nir", WEFT_DBG_NIR, "Dump the NIR the backend receives"},
   {"ir", WEFT_DBG_IR, "Dump the weft IR before and after register allocation"},
   {"asm", WEFT_DBG_ASM, "Dump the disassembly of the binary"},
   {"sync", WEFT_DBG_SYNC, "Wait for every dispatch"},
   {"time", WEFT_DBG_TIME, "Print the backend's compile time per kernel"},
   DEBUG_NAMED_VALUE_END
};

static void __attribute__((constructor))
weft_debug_init(void)
{
   weft_debug = debug_get_flags_option("WEFT_DEBUG", weft_debug_options, 0);
}

const nir_shader_compiler_options weft_nir_options = {
   .lower_uniforms_to_ubo = true,
   .lower_bitfield_extract = true,
   .lower_bitfield_insert = true,
   .lower_bitfield_reverse = true,
   .lower_ifind_msb = true,
   .lower_ufind_msb = true,
   .lower_find_lsb = true,
   .lower_uadd_carry = true,
   .lower_usub_borrow = true,
   .lower_hadd = true,
   .lower_hadd64 = true,
   .lower_uadd_sat = true,
   .lower_usub_sat = true,
   .lower_iadd_sat = true,
   .lower_isign = true,
   .lower_scmp = true,
   .lower_extract_byte = true,
   .lower_extract_word = true,
   .lower_insert_byte = true,
   .lower_insert_word = true,
   .lower_pack_64_2x32 = true,
   .lower_pack_32_2x16 = true,
   .lower_pack_64_4x16 = true,
   .lower_pack_split = false,
   .lower_mul_2x32_64 = true,
   .lower_fmod = true,
   .lower_flrp32 = true,
   .lower_flrp64 = true,
   .lower_fsat = true,
   .lower_fpow = true,
   .lower_fsign = true,
   .lower_ffract = true,
   .lower_fdph = true,
   .lower_fisnormal = true,
   .lower_flrp16 = true,
   .lower_int64_options = nir_lower_imul_2x32_64 | nir_lower_find_lsb64 |
                          nir_lower_ufind_msb64 | nir_lower_bit_count64 |
                          nir_lower_extract64 | nir_lower_iadd_sat64 |
                          nir_lower_uadd_sat64 | nir_lower_scan_reduce_bitwise64,
   .max_unroll_iterations = 32,
   .has_cs_global_id = true,
   /* Partial sub-groups and remainder work-groups run as such. */
   .has_enqueued_sysvals = true,
   .has_workgroup_collectives = true,
   .has_intel_subgroups = true,
   /* weft_nir_lower_pipes; the specification's minimum. */
   .max_pipe_packet_size = 1024,
};

/* What the ISA lacks first (masks, quads, elect, boolean cross-lane ops),
 * then the native cross-lane instructions in weft_from_nir. */
static void
weft_lower_subgroups(nir_shader *nir)
{
   const nir_lower_subgroups_options sg = {
      .subgroup_size = 0,
      .ballot_bit_size = 32,
      .ballot_components = 1,
      .lower_to_scalar = true,
      .lower_vote_eq = true,
      .lower_first_invocation_to_ballot = true,
      .lower_read_first_invocation = true,
      .lower_subgroup_masks = true,
      .lower_quad = true,
      .lower_quad_vote = true,
      .lower_elect = true,
      .lower_rotate_to_shuffle = true,
      .lower_rotate_clustered_to_shuffle = true,
      .lower_inverse_ballot = true,
      .lower_boolean_reduce = true,
      .lower_boolean_shuffle = true,
   };

   NIR_PASS(_, nir, nir_lower_subgroups, &sg);
}

/* WEFT_SIMD: the width of every kernel that does not fix its sub-group
 * size, 0 when unset (then the compiler chooses). */
static unsigned
weft_forced_simd(void)
{
   const char *env = getenv("WEFT_SIMD");

   if (env && (atoi(env) == 8 || atoi(env) == 16 || atoi(env) == 32))
      return atoi(env);
   return 0;
}

/* The width of a block's kernel (device-enqueue.rst): WEFT_SIMD, or 16. */
static unsigned
weft_default_simd(void)
{
   return weft_forced_simd() ? weft_forced_simd() : 16;
}

/* A block's kernel as clang names it: __<parent>_block_invoke[_N]_kernel. */
static bool
weft_is_block_kernel(const char *name)
{
   size_t len = name ? strlen(name) : 0;

   return len > 7 && strstr(name, "_block_invoke") && !strcmp(name + len - 7, "_kernel");
}

/* The width the kernel requires, or the caller's (weft-clc --simd, an image
 * variant of a kernel compiled already), or WEFT_SIMD; 0: the compiler
 * chooses. */
static unsigned
weft_fixed_simd(const nir_shader *nir, unsigned simd)
{
   switch (nir->info.subgroup_size) {
   case SUBGROUP_SIZE_REQUIRE_8: return 8;
   case SUBGROUP_SIZE_REQUIRE_16: return 16;
   case SUBGROUP_SIZE_REQUIRE_32: return 32;
   default: break;
   }
   if (simd == 8 || simd == 16 || simd == 32)
      return simd;
   if (weft_forced_simd())
      return weft_forced_simd();
   /* The parent's queries answered for the default width (device-enqueue.rst). */
   if (weft_is_block_kernel(nir->info.name) ||
       weft_is_block_kernel(nir_shader_get_entrypoint(nir)->function->name))
      return weft_default_simd();
   return 0;
}

/* The width of the rows of the work-groups a kernel with y or z ids runs
 * in: the one it requires or hints at, else 16, the common 2D tile. */
static unsigned
weft_row_width(const nir_shader *nir)
{
   if (!nir->info.workgroup_size_variable && nir->info.workgroup_size[0])
      return nir->info.workgroup_size[0];
   if (nir->info.cs.workgroup_size_hint[0])
      return nir->info.cs.workgroup_size_hint[0];
   return 16;
}

void
weft_preprocess_nir(nir_shader *nir, unsigned max_workgroup_size, unsigned slm_size)
{
   NIR_PASS(_, nir, weft_nir_lower_sysvals);
   /* Mesa's common sub-group lowering, then the builtins' own (nir-passes/). */
   weft_lower_subgroups(nir);
   unsigned slot_base = weft_nir_slot_area_base(slm_size, max_workgroup_size);
   NIR_PASS(_, nir, weft_nir_lower_workgroup_collectives, slot_base);
   NIR_PASS(_, nir, weft_nir_lower_pipes, slot_base);
   /* A block's kernel cannot fix its sub-group size: Rusticl compiles it at
    * the default width. */
   NIR_PASS(_, nir, weft_nir_lower_enqueue_queries, weft_default_simd(), max_workgroup_size);
   NIR_PASS(_, nir, weft_nir_lower_enqueue_kernel, max_workgroup_size, slm_size);
}

static unsigned
weft_lower_bit_size_cb(const nir_instr *instr, void *data)
{
   if (instr->type != nir_instr_type_alu)
      return 0;
   nir_alu_instr *alu = nir_instr_as_alu(instr);
   /* Conversions take and give their own sizes (cvt has all 11 types), and
    * so do the 16-bit pack and unpack operations. */
   if (nir_op_infos[alu->op].is_conversion)
      return 0;
   switch (alu->op) {
   case nir_op_pack_32_2x16_split:
   case nir_op_unpack_32_2x16_split_x:
   case nir_op_unpack_32_2x16_split_y:
      return 0;
   default:
      break;
   }
   if (alu->def.bit_size == 8 || alu->def.bit_size == 16)
      return 32;
   for (unsigned i = 0; i < nir_op_infos[alu->op].num_inputs; i++) {
      unsigned b = nir_src_bit_size(alu->src[i].src);
      if (b == 8 || b == 16)
         return 32;
   }
   return 0;
}

static void
weft_optimize_nir(nir_shader *nir)
{
   bool progress;

   weft_lower_subgroups(nir);
   NIR_PASS(_, nir, weft_nir_lower_intel_subgroups);
   NIR_PASS(_, nir, weft_nir_lower_ldexp);
   /* Vector packs and unpacks to their split forms (weft_nir_options). */
   NIR_PASS(_, nir, nir_lower_pack);
   NIR_PASS(_, nir, nir_lower_io_to_scalar,
            nir_var_mem_ubo | nir_var_mem_global | nir_var_mem_shared |
               nir_var_function_temp, NULL, NULL);
   NIR_PASS(_, nir, nir_lower_alu_to_scalar, NULL, NULL);
   NIR_PASS(_, nir, weft_nir_lower_sysvals);
   NIR_PASS(_, nir, nir_lower_int64);
   NIR_PASS(_, nir, nir_lower_flrp, 16 | 32 | 64, false);
   do {
      progress = false;
      NIR_PASS(progress, nir, nir_copy_prop);
      NIR_PASS(progress, nir, nir_opt_remove_phis);
      NIR_PASS(progress, nir, nir_opt_dce);
      NIR_PASS(progress, nir, nir_opt_cse);
      NIR_PASS(progress, nir, weft_nir_speculate_shared_loads);
      NIR_PASS(progress, nir, nir_opt_peephole_select, 64, false, true);
      NIR_PASS(progress, nir, nir_opt_algebraic);
      NIR_PASS(progress, nir, nir_opt_constant_folding);
      NIR_PASS(progress, nir, nir_opt_dead_cf);
      NIR_PASS(progress, nir, nir_opt_if, 0);
      NIR_PASS(progress, nir, nir_opt_loop_unroll);
      NIR_PASS(progress, nir, nir_lower_alu_to_scalar, NULL, NULL);
   } while (progress);
   NIR_PASS(_, nir, nir_opt_algebraic_late);
   /* After the optimizations, which would fold the flushes of constants
    * away, and before 16-bit floats widen to 32 bits, which keep theirs. */
   NIR_PASS(_, nir, weft_nir_flush_denorms);
   NIR_PASS(_, nir, nir_lower_bit_size, weft_lower_bit_size_cb, NULL);
   /* Widening a vector of 8/16-bit values (a vec2 of chars copied through
    * a phi, as a pipe's read_pipe into a private char2 leaves) narrows it
    * back as a vector: scalar again for the backend. */
   NIR_PASS(_, nir, nir_lower_alu_to_scalar, NULL, NULL);
   NIR_PASS(_, nir, nir_lower_bool_to_int32);
   NIR_PASS(_, nir, nir_copy_prop);
   NIR_PASS(_, nir, nir_opt_constant_folding);
   NIR_PASS(_, nir, nir_opt_dce);
   NIR_PASS(_, nir, nir_opt_cse);
   NIR_PASS(_, nir, nir_lower_phis_to_scalar, true);
   NIR_PASS(_, nir, nir_convert_from_ssa, true, false);
   NIR_PASS(_, nir, nir_opt_dce);
   nir_validate_shader(nir, "after the weft NIR passes");
}


/* NIR to validated weft IR, optimized or not (offsets folded and dead code
 * removed either way); NULL with *@why set when it fails. */
static struct weft_ir *
weft_build_ir(nir_shader *nir, void *mem_ctx, bool optimize, const char **why)
{
   struct weft_ir *ir = weft_from_nir(nir, mem_ctx, why);

   if (!ir) {
      *why = ralloc_asprintf(mem_ctx, "the weft backend does not support %s", *why);
      return NULL;
   }
   /* Invalid IR is the compiler's bug: validation printed the details. */
   *why = "the weft backend translated the kernel to invalid IR (a compiler bug; "
          "WEFT_DEBUG=ir shows it)";
   if (!weft_ir_validate(ir, "from NIR"))
      return NULL;
   if (optimize)
      weft_ir_opt_narrow(ir);
   weft_ir_opt_fold_offsets(ir);
   if (optimize) {
      weft_ir_opt_cse(ir);
      weft_ir_opt_coalesce_copies(ir);
   }
   weft_ir_opt_dce(ir);
   if (optimize)
      weft_ir_opt_vectorize(ir);
   if (!weft_ir_validate(ir, "after the optimizations"))
      return NULL;
   if (weft_debug & WEFT_DBG_IR) {
      fprintf(stderr, "=== weft: IR of %s%s\n", nir->info.name ? nir->info.name : "kernel",
              optimize ? "" : ", built again unoptimized for register pressure");
      weft_ir_print(ir, stderr);
   }
   return ir;
}

static struct weft_shader *
weft_compile(const nir_shader *orig, unsigned simd, const struct weft_image_key *images,
             char **error)
{
   int64_t start_ns = os_time_get_nano();
   void *mem_ctx = ralloc_context(NULL);
   nir_shader *nir = nir_shader_clone(mem_ctx, orig);
   struct weft_shader *shader = NULL;
   const char *why = NULL;
   struct weft_ir *ir;
   uint64_t *words;
   unsigned nwords, chosen;
   /* The compiler's estimates, when it chose the width. */
   uint64_t cost[3] = { 0 };

   NIR_PASS(_, nir, weft_nir_lower_images, images);
   weft_optimize_nir(nir);
   if (weft_debug & WEFT_DBG_NIR) {
      fprintf(stderr, "=== weft: NIR of %s\n", nir->info.name ? nir->info.name : "kernel");
      nir_print_shader(nir, stderr);
   }

   if (nir->scratch_size > 0x4000) {
      why = ralloc_asprintf(mem_ctx, "the weft backend does not support %u bytes of private "
                            "memory per work-item (the ISA's scratch holds 16384)",
                            nir->scratch_size);
      goto out;
   }
   /* The optimizations that lengthen live ranges (CSE, vectors) are undone
    * when the kernel then needs more registers than it has: it is built
    * again without them and spills as before. */
   for (bool optimize = true;; optimize = false) {
      ir = weft_build_ir(nir, mem_ctx, optimize, &why);
      if (!ir)
         goto out;
      ir->scratch_size = nir->scratch_size;
      ir->ra_quiet = true;
      /* WEFT_MAX_REGS: fewer registers, to test spilling. */
      if (getenv("WEFT_MAX_REGS"))
         ir->max_regs = atoi(getenv("WEFT_MAX_REGS"));
      if (!optimize || weft_ir_ra(ir))
         break;
   }
   /* Out of registers: spill to scratch and allocate again. */
   while (!ir->allocated && !weft_ir_ra(ir)) {
      if (!weft_ir_spill(ir) || ir->scratch_size > 0x4000) {
         /* WEFT_MAX_REGS too small for some instruction: the full file. */
         if (ir->max_regs) {
            ir->max_regs = 0;
            continue;
         }
         why = "the weft backend ran out of registers and scratch for the kernel's values";
         goto out;
      }
   }
   if (!weft_ir_validate(ir, "after register allocation"))
      goto out;
   chosen = weft_fixed_simd(orig, simd);
   if (!chosen)
      chosen = weft_ir_choose_simd(ir, weft_row_width(orig), cost);
   words = weft_ir_pack(ir, mem_ctx, &nwords);
   if (!words) {
      why = "the weft backend made an instruction that does not encode (a compiler bug)";
      goto out;
   }

   shader = calloc(1, sizeof(*shader));
   shader->code = malloc(nwords * 8);
   memcpy(shader->code, words, nwords * 8);
   shader->size = nwords * 8;
   shader->simd = chosen;
   shader->num_regs = ir->num_regs;
   shader->scratch_size = align(ir->scratch_size, 16);

   /* The disassembly, from the binary: what the hardware decodes. */
   {
      char *text = ralloc_strdup(mem_ctx, "");
      for (unsigned i = 0; i < nwords;) {
         struct weft_inst in;
         char buf[256];
         int n = weft_isa_decode(&words[i], nwords - i, &in);

         if (n < 0) {
            ralloc_asprintf_append(&text, "   <%s>\n", weft_isa_dec_error(n));
            break;
         }
         weft_isa_print(&in, buf, sizeof(buf));
         ralloc_asprintf_append(&text, "   %s\n", buf);
         i += n;
      }
      shader->disasm = strdup(text);
   }
   /* WEFT_DUMP_DIR: <kernel>.bin and <kernel>.s per compiled kernel (weft-clc). */
   if (getenv("WEFT_DUMP_DIR")) {
      nir_function_impl *impl = nir_shader_get_entrypoint(nir);
      const char *name = impl && impl->function->name ? impl->function->name : "kernel";
      /* Rusticl wraps each kernel in a function of this name. */
      if (!strncmp(name, "__wrapped_", 10))
         name += 10;
      char path[4096];
      FILE *f;

      snprintf(path, sizeof(path), "%s/%s.bin", getenv("WEFT_DUMP_DIR"), name);
      if ((f = fopen(path, "wb"))) {
         fwrite(shader->code, 1, shader->size, f);
         fclose(f);
      }
      snprintf(path, sizeof(path), "%s/%s.s", getenv("WEFT_DUMP_DIR"), name);
      if ((f = fopen(path, "w"))) {
         fprintf(f, "# %s: SIMD %u, %u registers, %u bytes\n%s", name, shader->simd,
                 shader->num_regs, shader->size, shader->disasm);
         fclose(f);
      }
   }
   if (weft_debug & WEFT_DBG_ASM) {
      fprintf(stderr, "=== weft: %s, SIMD %u, %u registers, %u bytes\n%s",
              nir->info.name ? nir->info.name : "kernel", shader->simd, shader->num_regs,
              shader->size, shader->disasm);
   }
   if (weft_debug & WEFT_DBG_TIME) {
      nir_function_impl *impl = nir_shader_get_entrypoint(nir);
      fprintf(stderr, "weft: %s: %u instructions, %u registers, SIMD %u", impl && impl->function->name ? impl->function->name : "kernel",
              shader->size / 8, shader->num_regs, shader->simd);
      if (cost[1])
         fprintf(stderr, " (cost per item at 8/16/32: %" PRIu64 "/%" PRIu64 "/%" PRIu64 ")",
                 cost[0], cost[1], cost[2]);
      fprintf(stderr, ", compiled in %.3f ms\n", (os_time_get_nano() - start_ns) / 1e6);
   }
out:
   if (!shader && error)
      *error = strdup(why);
   ralloc_free(mem_ctx);
   return shader;
}

struct weft_shader *
weft_compile_nir_simd(const nir_shader *nir, unsigned simd, char **error)
{
   return weft_compile(nir, simd, NULL, error);
}

struct weft_shader *
weft_compile_nir(const nir_shader *nir, char **error)
{
   return weft_compile(nir, 0, NULL, error);
}

struct weft_shader *
weft_compile_nir_images(const nir_shader *nir, const struct weft_image_key *images,
                        unsigned simd, char **error)
{
   return weft_compile(nir, simd, images, error);
}

void
weft_shader_destroy(struct weft_shader *shader)
{
   if (!shader)
      return;
   free(shader->code);
   free(shader->disasm);
   free(shader);
}
