/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: a SPIR-V module through what clBuildProgram and
 * clCreateKernel do with it on the weft driver, in-process and without a
 * device. A module is validated and linked as Rusticl does; for every kernel
 * entry point of the result: spirv_to_nir with Rusticl's options,
 * libclc linked in, Rusticl's lowering (core/kernel.rs: compile_nir_to_args,
 * compile_nir_prepare_for_variants, compile_nir_variant for the default
 * variant, and for the optimized variant where Rusticl makes one), the
 * screen's finalize_nir (weft_preprocess_nir) and the backend
 * (weft_compile_nir at SIMD 8, 16 and 32).
 *
 * The property: no crash, sanitizer report, failed NIR validation or hang;
 * what the backend does not support fails the compile (NULL) with a message
 * saying why, as weft_compile_nir() promises.
 *
 * Built only by a clang configuration of Mesa with -fsanitize=fuzzer
 * (scripts/build-mesa-fuzz); the corpus is userspace/mesa/fuzz/corpus.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "compiler/clc/clc_helpers.h"
#include "compiler/clc/nir_clc_helpers.h"
#include "compiler/glsl_types.h"
#include "compiler/nir/nir.h"
#include "compiler/nir/nir_builder.h"
#include "compiler/spirv/nir_spirv.h"
#include "rusticl_nir.h"
#include "spirv_info.h"

#include "weft_compile.h"

#define SPIRV_MAGIC 0x07230203
#define SPIRV_OP_ENTRY_POINT 15
#define SPIRV_EXECUTION_MODEL_KERNEL 6
#define MAX_KERNELS 8

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static nir_shader *libclc;

/* Rusticl's capabilities and options (mesa/compiler/clc/spirv.rs), 64-bit. */
static const struct spirv_capabilities caps = {
   .Addresses = true,
   .DeviceEnqueue = true,
   .Float16 = true,
   .Float16Buffer = true,
   .Float64 = true,
   .GenericPointer = true,
   .Groups = true,
   .GroupNonUniformShuffle = true,
   .GroupNonUniformShuffleRelative = true,
   .Int8 = true,
   .Int16 = true,
   .Int64 = true,
   .Int64Atomics = true,
   .Kernel = true,
   .ImageBasic = true,
   .ImageReadWrite = true,
   .Linkage = true,
   .LiteralSampler = true,
   .Pipes = true,
   .SampledBuffer = true,
   .Sampled1D = true,
   .SubgroupDispatch = true,
   .SubgroupBufferBlockIOINTEL = true,
   .SubgroupImageBlockIOINTEL = true,
   .SubgroupShuffleINTEL = true,
   .Vector16 = true,
};

/* Kernels are translated with generic pointers, which weft has
 * (Device::generic_address_space_supported), libclc without; both with the
 * float controls Rusticl takes for weft without fast-math options (Mesa
 * patch 0197): 32-bit denormals preserved, as the screen's
 * pipe_caps.fp32_denorm_preserve asks, and signed zeros, infinities and NaN
 * preserved, which keeps nir_search's inexact transforms off.
 */
static struct spirv_to_nir_options
spirv_options(const nir_shader *clc, bool generic_pointers)
{
   const nir_address_format global = generic_pointers ? nir_address_format_62bit_generic
                                                      : nir_address_format_64bit_global;
   const nir_address_format offset = generic_pointers ? nir_address_format_62bit_generic
                                                      : nir_address_format_32bit_offset_as_64bit;

   return (struct spirv_to_nir_options){
      .environment = NIR_SPIRV_OPENCL,
      .clc_shader = clc,
      .float_controls_execution_mode = FLOAT_CONTROLS_DENORM_PRESERVE_FP32 |
                                       FLOAT_CONTROLS_SIGNED_ZERO_INF_NAN_PRESERVE_FP16 |
                                       FLOAT_CONTROLS_SIGNED_ZERO_INF_NAN_PRESERVE_FP32 |
                                       FLOAT_CONTROLS_SIGNED_ZERO_INF_NAN_PRESERVE_FP64,
      .printf = true,
      .capabilities = &caps,
      .constant_addr_format = nir_address_format_64bit_global,
      .global_addr_format = global,
      .shared_addr_format = offset,
      .temp_addr_format = offset,
      /* As Rusticl (patch 0010): a module it cannot translate fails. */
      .skip_os_break_in_debug_build = true,
   };
}

static bool
can_remove_var(nir_variable *var, void *data)
{
   return !glsl_type_is_image(var->type) && !glsl_type_is_texture(var->type) &&
          !glsl_type_is_sampler(var->type);
}

static const nir_remove_dead_variables_options dead_variables = {
   .can_remove_var = can_remove_var,
};

/* Rusticl's opt_nir(). */
static void
optimize(nir_shader *nir, bool explicit_types)
{
   const nir_shader_compiler_options *o = &weft_nir_options;
   bool progress;

   do {
      progress = false;
      NIR_PASS(progress, nir, nir_copy_prop);
      NIR_PASS(progress, nir, nir_opt_copy_prop_vars);
      NIR_PASS(progress, nir, nir_opt_dead_write_vars);
      if (o->lower_to_scalar) {
         NIR_PASS(_, nir, nir_lower_alu_to_scalar, o->lower_to_scalar_filter, NULL);
         NIR_PASS(_, nir, nir_lower_phis_to_scalar, false);
      }
      NIR_PASS(progress, nir, nir_opt_deref);
      if (explicit_types)
         NIR_PASS(progress, nir, nir_opt_memcpy);
      NIR_PASS(progress, nir, nir_opt_dce);
      NIR_PASS(progress, nir, nir_opt_undef);
      NIR_PASS(progress, nir, nir_opt_constant_folding);
      NIR_PASS(progress, nir, nir_opt_cse);
      NIR_PASS(_, nir, nir_split_var_copies);
      NIR_PASS(progress, nir, nir_lower_var_copies);
      NIR_PASS(progress, nir, nir_lower_vars_to_ssa);
      NIR_PASS(_, nir, nir_lower_alu);
      NIR_PASS(progress, nir, nir_opt_phi_precision);
      NIR_PASS(progress, nir, nir_opt_algebraic);
      NIR_PASS(progress, nir, nir_opt_if, nir_opt_if_optimize_phi_true_false);
      NIR_PASS(progress, nir, nir_opt_dead_cf);
      NIR_PASS(progress, nir, nir_opt_remove_phis);
      NIR_PASS(progress, nir, nir_opt_peephole_select, 8, true, true);
      NIR_PASS(progress, nir, nir_lower_vec3_to_vec4, nir_var_mem_generic | nir_var_uniform);
      if (o->max_unroll_iterations)
         NIR_PASS(progress, nir, nir_opt_loop_unroll);
      nir_sweep(nir);
   } while (progress);
}

/* Rusticl's compile_nir_to_args(); false when the kernel cannot be built. */
static bool
lower_to_args(nir_shader *nir)
{
   bool progress;

   nir->info.float_controls_execution_mode |=
      FLOAT_CONTROLS_DENORM_PRESERVE_FP16 | FLOAT_CONTROLS_ROUNDING_MODE_RTE_FP16 |
      FLOAT_CONTROLS_ROUNDING_MODE_RTE_FP32 | FLOAT_CONTROLS_ROUNDING_MODE_RTE_FP64;
   NIR_PASS(_, nir, nir_scale_fdiv);
   nir->info.workgroup_size_variable = nir->info.workgroup_size[0] == 0;
   NIR_PASS(_, nir, nir_lower_goto_ifs);
   NIR_PASS(_, nir, nir_opt_dead_cf);
   NIR_PASS(_, nir, nir_lower_variable_initializers, nir_var_function_temp);
   do {
      progress = false;
      NIR_PASS(_, nir, nir_split_var_copies);
      NIR_PASS(progress, nir, nir_copy_prop);
      NIR_PASS(progress, nir, nir_opt_copy_prop_vars);
      NIR_PASS(progress, nir, nir_opt_dead_write_vars);
      NIR_PASS(progress, nir, nir_opt_deref);
      NIR_PASS(progress, nir, nir_opt_dce);
      NIR_PASS(progress, nir, nir_opt_undef);
      NIR_PASS(progress, nir, nir_opt_constant_folding);
      NIR_PASS(progress, nir, nir_opt_cse);
      NIR_PASS(progress, nir, nir_lower_vars_to_ssa);
      NIR_PASS(progress, nir, nir_opt_algebraic);
   } while (progress);
   if (rusticl_recursive_function(nir))
      return false;
   NIR_PASS(_, nir, nir_lower_returns);
   NIR_PASS(_, nir, nir_link_shader_functions, libclc);
   NIR_PASS(_, nir, nir_inline_functions);
   if (rusticl_uninlined_callee(nir))
      return false;
   nir_cleanup_functions(nir);
   nir_sweep(nir);
   NIR_PASS(_, nir, nir_dedup_inline_samplers);
   nir_lower_printf_options printf_options = { .max_buffer_size = 1024 * 1024 };
   NIR_PASS(_, nir, nir_lower_printf, &printf_options);
   optimize(nir, false);
   return !rusticl_image_chosen_at_run_time(nir);
}

/* A uniform for a value Rusticl passes as an internal kernel argument. */
static void
add_internal_arg(nir_shader *nir, size_t *loc, const struct glsl_type *type, const char *name)
{
   nir_variable *var = nir_variable_create(nir, nir_var_uniform, type, name);

   *loc = nir->num_uniforms++;
   var->data.location = *loc;
}

/* Program-scope global variables, which Rusticl gives the kernel in a buffer. */
static bool
has_global_variables(nir_shader *nir)
{
   nir_foreach_variable_with_modes(var, nir, nir_var_mem_global)
      return true;
   return false;
}

/* Rusticl's compile_nir_prepare_for_variants(). */
static void
prepare_for_variants(nir_shader *nir)
{
   int last_loc = -1;

   /* An inline sampler takes the location after the argument before it,
    * before dead variables go.
    */
   nir_foreach_variable_with_modes(var, nir, nir_var_uniform | nir_var_image) {
      if (glsl_type_is_sampler(var->type) && var->data.sampler.is_inline_sampler)
         var->data.location = ++last_loc;
      else
         last_loc = var->data.location;
   }
   NIR_PASS(_, nir, nir_remove_dead_variables,
            nir_var_uniform | nir_var_image | nir_var_mem_constant | nir_var_mem_shared |
            nir_var_function_temp, &dead_variables);
   NIR_PASS(_, nir, nir_lower_readonly_images_to_tex, true);
   /* weft's screen sets neither nir_images_as_deref nor nir_samplers_as_deref. */
   NIR_PASS(_, nir, nir_lower_cl_images, true, true);
   NIR_PASS(_, nir, nir_lower_vars_to_explicit_types, nir_var_mem_constant,
            glsl_get_cl_type_size_align);
   if (nir->constant_data_size) {
      nir->constant_data = rzalloc_size(nir, nir->constant_data_size);
      nir_gather_explicit_io_initializers(nir, nir->constant_data, nir->constant_data_size,
                                          nir_var_mem_constant);
   }
   NIR_PASS(_, nir, nir_lower_system_values);
   nir_shader_gather_info(nir, nir_shader_get_entrypoint(nir));
}

/* Rusticl's compile_nir_variant(); false when the kernel cannot be built. The
 * optimized variant runs without global offsets, at the work-group size hint
 * if the kernel has one.
 */
static bool
lower_variant(nir_shader *nir, bool optimized)
{
   struct rusticl_lower_state state = { 0 };
   const struct glsl_type *u64x3 = glsl_vector_type(GLSL_TYPE_UINT64, 3);
   const uint16_t *hint = nir->info.cs.workgroup_size_hint;
   nir_lower_compute_system_values_options sysvals = {
      .has_global_size = true,
      .has_base_global_invocation_id = !optimized,
      .has_base_workgroup_id = !optimized,
   };

   if (optimized && (hint[0] || hint[1] || hint[2])) {
      nir->info.workgroup_size_variable = false;
      memcpy(nir->info.workgroup_size, hint, sizeof(nir->info.workgroup_size));
   }
   NIR_PASS(_, nir, nir_lower_compute_system_values, &sysvals);
   nir_shader_gather_info(nir, nir_shader_get_entrypoint(nir));
   nir->num_uniforms = 0;
   nir_foreach_variable_with_modes(var, nir, nir_var_uniform)
      nir->num_uniforms = MAX2(nir->num_uniforms, var->data.location + 1);
   if (BITSET_TEST(nir->info.system_values_read, SYSTEM_VALUE_BASE_GLOBAL_INVOCATION_ID))
      add_internal_arg(nir, &state.base_global_invoc_id_loc, u64x3, "base_global_invocation_id");
   if (BITSET_TEST(nir->info.system_values_read, SYSTEM_VALUE_GLOBAL_GROUP_SIZE))
      add_internal_arg(nir, &state.global_size_loc, u64x3, "global_size");
   if (BITSET_TEST(nir->info.system_values_read, SYSTEM_VALUE_BASE_WORKGROUP_ID))
      add_internal_arg(nir, &state.base_workgroup_id_loc, u64x3, "base_workgroup_id");
   if (BITSET_TEST(nir->info.system_values_read, SYSTEM_VALUE_NUM_WORKGROUPS))
      add_internal_arg(nir, &state.num_workgroups_loc, glsl_vector_type(GLSL_TYPE_UINT, 3),
                       "num_workgroups");
   if (nir->constant_data_size)
      add_internal_arg(nir, &state.const_buf_loc, glsl_uint64_t_type(), "constant_buffer_addr");
   if (has_global_variables(nir))
      add_internal_arg(nir, &state.global_vars_loc, glsl_uint64_t_type(),
                       "global_variables_addr");
   if (nir->info.uses_printf)
      add_internal_arg(nir, &state.printf_buf_loc, glsl_uint64_t_type(), "printf_buffer_addr");
   if (nir->info.num_images || nir->info.num_textures) {
      unsigned count = nir->info.num_images + nir->info.num_textures;

      add_internal_arg(nir, &state.format_arr_loc, glsl_array_type(glsl_int16_t_type(), count, 2),
                       "image_formats");
      add_internal_arg(nir, &state.order_arr_loc, glsl_array_type(glsl_int16_t_type(), count, 2),
                       "image_orders");
   }
   if (rusticl_uses_default_device_queue(nir))
      add_internal_arg(nir, &state.device_queue_loc, glsl_uint64_t_type(), "default_device_queue");
   if (BITSET_TEST(nir->info.system_values_read, SYSTEM_VALUE_WORK_DIM))
      add_internal_arg(nir, &state.work_dim_loc, glsl_uint8_t_type(), "work_dim");

   NIR_PASS(_, nir, nir_lower_vars_to_explicit_types,
            nir_var_mem_shared | nir_var_function_temp | nir_var_shader_temp | nir_var_uniform |
            nir_var_mem_global | nir_var_mem_generic, glsl_get_cl_type_size_align);
   optimize(nir, true);
   NIR_PASS(_, nir, nir_lower_memcpy);
   nir->scratch_size = 0;
   nir->info.shared_size = 0;
   nir->global_mem_size = 0;
   NIR_PASS(_, nir, nir_remove_dead_variables, nir_var_function_temp | nir_var_mem_shared,
            &dead_variables);
   NIR_PASS(_, nir, nir_lower_vars_to_explicit_types,
            nir_var_function_temp | nir_var_mem_shared | nir_var_mem_generic,
            glsl_get_cl_type_size_align);
   /* Rusticl's CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE with 64-bit addresses. */
   if (nir->global_mem_size > 64 * 1024)
      return false;
   if (nir->global_mem_size) {
      void *global_vars = calloc(1, nir->global_mem_size);
      bool gathered = rusticl_gather_global_variables(nir, global_vars, nir->global_mem_size);

      free(global_vars);
      if (!gathered)
         return false;
   }
   /* Generic pointers: the memories they can point to are lowered together. */
   NIR_PASS(_, nir, nir_lower_explicit_io, nir_var_mem_constant,
            nir_address_format_64bit_global);
   NIR_PASS(_, nir, nir_lower_explicit_io, nir_var_mem_generic,
            nir_address_format_62bit_generic);
   NIR_PASS(_, nir, rusticl_lower_intrinsics, &state);
   NIR_PASS(_, nir, nir_lower_explicit_io, nir_var_uniform,
            nir_address_format_32bit_offset_as_64bit);
   if (weft_nir_options.lower_int64_options && !weft_nir_options.late_lower_int64)
      NIR_PASS(_, nir, nir_lower_int64);
   if (weft_nir_options.lower_uniforms_to_ubo)
      NIR_PASS(_, nir, rusticl_lower_inputs);
   NIR_PASS(_, nir, nir_lower_convert_alu_types, NULL);
   optimize(nir, true);
   return true;
}

/* The screen's finalize_nir and the backend at every SIMD width: either a
 * binary or the reason why not.
 */
static void
compile(nir_shader *nir, const char *name)
{
   weft_preprocess_nir(nir, 1024, 65536); /* the model's largest work-group and SLM */
   for (unsigned simd = 8; simd <= 32; simd *= 2) {
      char *error = NULL;
      struct weft_shader *shader = weft_compile_nir_simd(nir, simd, &error);

      if (!shader != !!error) {
         fprintf(stderr, "weft_fuzz_spirv: %s at SIMD %u %s\n", name, simd,
                 shader ? "compiled but set an error" : "failed without an error");
         abort();
      }
      weft_shader_destroy(shader);
      free(error);
   }
}

/* Rusticl's compile_nir_remaining() and the compute states made of its
 * variants: the optimized one only where it differs (a kernel that reads its
 * global id or has a work-group size hint).
 */
static void
compile_variants(nir_shader *nir, const char *name)
{
   const uint16_t *hint = nir->info.cs.workgroup_size_hint;
   bool has_hint = nir->info.workgroup_size_variable && (hint[0] || hint[1] || hint[2]);
   nir_shader *optimized = NULL;

   prepare_for_variants(nir);
   if (has_hint ||
       BITSET_TEST(nir->info.system_values_read, SYSTEM_VALUE_GLOBAL_INVOCATION_ID))
      optimized = nir_shader_clone(NULL, nir);
   if (lower_variant(nir, false)) {
      compile(nir, name);
      if (optimized && lower_variant(optimized, true))
         compile(optimized, name);
   }
   ralloc_free(optimized);
}

/* The names of the module's kernels (OpEntryPoint Kernel). */
static unsigned
kernel_names(const uint32_t *words, size_t count, char names[MAX_KERNELS][64])
{
   unsigned n = 0;

   for (size_t i = 5; i < count && n < MAX_KERNELS;) {
      unsigned op = words[i] & 0xffff, len = words[i] >> 16;

      if (!len || len > count - i)
         break;
      if (op == SPIRV_OP_ENTRY_POINT && len >= 4 && words[i + 1] == SPIRV_EXECUTION_MODEL_KERNEL) {
         size_t max = MIN2((len - 3) * 4, 63);

         memcpy(names[n], &words[i + 3], max);
         names[n][max] = 0;
         if (strnlen(names[n], max) < max)
            n++;
      }
      i += len;
   }
   return n;
}

/* What Rusticl's clBuildProgram does with an IL program before it reads an
 * instruction of it: validation (program.rs: clone_on_validate, with
 * CL_DEVICE_MAX_PARAMETER_SIZE, 4096 on weft, as the limit on function
 * arguments), then a link of the one module into an executable
 * (SPIRVBin::link). A module that either refuses fails the build there and
 * never reaches spirv_to_nir; the others go on as the linked module.
 */
static bool
rusticl_link(const uint32_t *words, size_t size, struct clc_binary *linked)
{
   const struct clc_binary module = { .data = (void *)words, .size = size };
   const struct clc_binary *objs[] = { &module };
   const struct clc_validator_options limits = { .limit_max_function_arg = 4096 };
   const struct clc_linker_args args = { .in_objs = objs, .num_in_objs = 1 };

   return clc_validate_spirv(&module, NULL, &limits) && clc_link_spirv(&args, NULL, linked);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
   struct spirv_to_nir_options options = spirv_options(NULL, false);

   glsl_type_singleton_init_or_ref();
   libclc = nir_load_libclc_shader(64, NULL, &options, &weft_nir_options, true);
   if (!libclc) {
      fprintf(stderr, "fuzz_spirv: cannot load libclc (libclc-15's spirv64-mesa3d-.spv)\n");
      abort();
   }
   return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   struct spirv_to_nir_options options = spirv_options(libclc, true);
   struct clc_binary linked = { 0 };
   char names[MAX_KERNELS][64];
   const uint32_t *words;
   uint32_t *input;
   unsigned kernels;

   if (size < 20 || size % 4 || size > (1 << 20))
      return -1;
   input = malloc(size);
   memcpy(input, data, size);
   if (input[0] != SPIRV_MAGIC || !rusticl_link(input, size, &linked)) {
      free(input);
      return -1;
   }
   free(input);
   words = linked.data;
   size = linked.size;
   kernels = kernel_names(words, size / 4, names);
   for (unsigned k = 0; k < kernels; k++) {
      nir_shader *nir = spirv_to_nir(words, size / 4, NULL, 0, MESA_SHADER_KERNEL, names[k],
                                     &options, &weft_nir_options);

      if (!nir)
         continue;
      if (!lower_to_args(nir)) {
         ralloc_free(nir);
         continue;
      }
      compile_variants(nir, names[k]);
      ralloc_free(nir);
   }
   clc_free_spirv(&linked);
   return 0;
}
