/* SPDX-License-Identifier: MIT */
/*
 * The weft pipe_screen: compute only, the caps Rusticl reads.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <xf86drm.h>

#include "c11/threads.h"
#include "util/build_id.h"
#include "util/disk_cache.h"
#include "util/mesa-sha1.h"
#include "util/os_misc.h"
#include "util/os_time.h"
#include "util/u_memory.h"
#include "util/u_screen.h"
#include "nir.h"

#include "weft_public.h"
#include "weft_screen.h"

/* The VA range the driver hands out (inside the kernel's user range). */
#define WEFT_VA_START   (1ull << 32)
#define WEFT_VA_SIZE    (1ull << 40)

static const char *
weft_get_name(struct pipe_screen *pscreen)
{
   return "Weft GPU";
}

static const char *
weft_get_vendor(struct pipe_screen *pscreen)
{
   return "Weft";
}

static const char *
weft_get_cl_cts_version(struct pipe_screen *pscreen)
{
   return NULL;
}

static int
weft_get_shader_param(struct pipe_screen *pscreen, enum pipe_shader_type shader,
                      enum pipe_shader_cap param)
{
   if (shader != PIPE_SHADER_COMPUTE)
      return 0;

   switch (param) {
   case PIPE_SHADER_CAP_MAX_INSTRUCTIONS:
   case PIPE_SHADER_CAP_MAX_ALU_INSTRUCTIONS:
      return 16384;
   case PIPE_SHADER_CAP_MAX_CONST_BUFFER0_SIZE:
      return 4096;
   case PIPE_SHADER_CAP_MAX_CONST_BUFFERS:
      return 1;
   case PIPE_SHADER_CAP_MAX_TEMPS:
      return 256;
   case PIPE_SHADER_CAP_INTEGERS:
      return 1;
   /* The ISA has an f16 ALU (cvt, red/scan, loads and stores of halves;
    * arithmetic runs in f32 and rounds once): cl_khr_fp16. */
   case PIPE_SHADER_CAP_FP16:
      return 1;
   case PIPE_SHADER_CAP_SUPPORTED_IRS:
      return 1 << PIPE_SHADER_IR_NIR;
   case PIPE_SHADER_CAP_MAX_SHADER_BUFFERS:
      return 0;
   /* Images are memory plus a descriptor (images.rst): the counts are
    * those of the descriptor table after the arguments. */
   case PIPE_SHADER_CAP_MAX_SAMPLER_VIEWS:
      return WEFT_MAX_TEXTURES;
   case PIPE_SHADER_CAP_MAX_SHADER_IMAGES:
      return WEFT_MAX_IMAGES;
   case PIPE_SHADER_CAP_MAX_TEXTURE_SAMPLERS:
      return WEFT_MAX_SAMPLERS;
   default:
      return 0;
   }
}

static int
weft_get_compute_param(struct pipe_screen *pscreen, enum pipe_shader_ir ir_type,
                       enum pipe_compute_cap param, void *ret)
{
   struct weft_screen *s = weft_screen(pscreen);
   uint64_t mem = 0;

#define RET(x)                                                                 \
   do {                                                                        \
      if (ret)                                                                 \
         memcpy(ret, x, sizeof(x));                                            \
      return sizeof(x);                                                        \
   } while (0)

   switch (param) {
   case PIPE_COMPUTE_CAP_ADDRESS_BITS:
      RET((uint32_t[]){64});
   case PIPE_COMPUTE_CAP_IR_TARGET:
      if (ret)
         strcpy(ret, "weft");
      return strlen("weft") + 1;
   case PIPE_COMPUTE_CAP_GRID_DIMENSION:
      RET((uint64_t[]){3});
   case PIPE_COMPUTE_CAP_MAX_GRID_SIZE:
      RET(((uint64_t[]){0xffffffffu, 0xffffffffu, 0xffffffffu}));
   case PIPE_COMPUTE_CAP_MAX_BLOCK_SIZE:
      RET(((uint64_t[]){s->info.max_wg_size, s->info.max_wg_size, s->info.max_wg_size}));
   case PIPE_COMPUTE_CAP_MAX_THREADS_PER_BLOCK:
   case PIPE_COMPUTE_CAP_MAX_VARIABLE_THREADS_PER_BLOCK:
      RET((uint64_t[]){s->info.max_wg_size});
   case PIPE_COMPUTE_CAP_MAX_GLOBAL_SIZE:
   case PIPE_COMPUTE_CAP_MAX_MEM_ALLOC_SIZE:
      os_get_total_physical_memory(&mem);
      mem = MIN2(mem / 2, 1ull << 30);
      RET((uint64_t[]){mem});
   /* CL_DEVICE_LOCAL_MEM_SIZE: what is left below the slot area
    * (weft_nir_slot_area_base). */
   case PIPE_COMPUTE_CAP_MAX_LOCAL_SIZE:
      RET((uint64_t[]){weft_nir_local_mem_size(s->info.slm_size, s->info.max_wg_size)});
   case PIPE_COMPUTE_CAP_MAX_PRIVATE_SIZE:
      RET((uint64_t[]){0});
   case PIPE_COMPUTE_CAP_MAX_INPUT_SIZE:
      RET((uint64_t[]){4096});
   case PIPE_COMPUTE_CAP_MAX_CLOCK_FREQUENCY:
      RET((uint32_t[]){1000});
   case PIPE_COMPUTE_CAP_MAX_COMPUTE_UNITS:
      RET((uint32_t[]){MAX2(s->info.num_cores, 1)});
   case PIPE_COMPUTE_CAP_IMAGES_SUPPORTED:
      RET((uint32_t[]){1});
   case PIPE_COMPUTE_CAP_SUBGROUP_SIZES:
      /* bit n: sub-group size 1 << n, as the kernel reports them */
      RET((uint32_t[]){s->info.simd_widths ? s->info.simd_widths : 0x38});
   case PIPE_COMPUTE_CAP_MAX_SUBGROUPS:
      RET((uint32_t[]){s->info.max_wg_size / 8});
   }
   return 0;
#undef RET
}

static const void *
weft_get_compiler_options(struct pipe_screen *pscreen, enum pipe_shader_ir ir,
                          enum pipe_shader_type shader)
{
   return &weft_nir_options;
}

/* A kernel the backend cannot compile is refused here, with the reason, so
 * the frontend fails the program build (create_compute_state has no way
 * to say why). */
static char *
weft_finalize_nir(struct pipe_screen *pscreen, struct nir_shader *nir)
{
   char *error = NULL;

   weft_preprocess_nir(nir, weft_screen(pscreen)->info.max_wg_size,
                       weft_screen(pscreen)->info.slm_size);
   weft_shader_destroy(weft_compile_nir(nir, &error));
   return error;
}

static struct disk_cache *
weft_get_disk_shader_cache(struct pipe_screen *pscreen)
{
   return weft_screen(pscreen)->disk_cache;
}

/* Rusticl keeps libclc and each kernel's NIR, after finalize_nir, in the
 * screen's cache: without one, every process that opens the device turns
 * all of libclc from SPIR-V into NIR again. The NIR depends on the whole
 * driver library (the compiler and nir-passes are linked into it), so the
 * library's build id names the cache, and on the device's maximum
 * work-group size, which the work-group collectives are lowered for. */
static void
weft_disk_cache_init(struct weft_screen *s)
{
#ifdef ENABLE_SHADER_CACHE
   const struct build_id_note *note =
      build_id_find_nhdr_for_addr(weft_disk_cache_init);
   char build_id[41];

   if (!note || build_id_length(note) != 20)
      return;
   _mesa_sha1_format(build_id, build_id_data(note));
   s->disk_cache = disk_cache_create("weft", build_id, s->info.max_wg_size);
#endif
}

static bool
weft_is_format_supported(struct pipe_screen *pscreen, enum pipe_format format,
                         enum pipe_texture_target target, unsigned sample_count,
                         unsigned storage_sample_count, unsigned usage)
{
   const unsigned image_usage = PIPE_BIND_SAMPLER_VIEW | PIPE_BIND_SHADER_IMAGE;

   if (sample_count > 1)
      return false;
   switch (target) {
   case PIPE_BUFFER:
      /* Buffers, and image1d_buffer views of them. */
      if (usage & image_usage && !weft_image_format_reported(format))
         return false;
      return !(usage & ~(PIPE_BIND_GLOBAL | PIPE_BIND_SHADER_BUFFER |
                         PIPE_BIND_CONSTANT_BUFFER | PIPE_BIND_COMPUTE_RESOURCE |
                         image_usage));
   case PIPE_TEXTURE_1D:
   case PIPE_TEXTURE_1D_ARRAY:
   case PIPE_TEXTURE_2D:
   case PIPE_TEXTURE_2D_ARRAY:
   case PIPE_TEXTURE_3D:
      return weft_image_format_reported(format) &&
             !(usage & ~(image_usage | PIPE_BIND_LINEAR | PIPE_BIND_COMPUTE_RESOURCE));
   default:
      return false;
   }
}

static uint64_t
weft_get_timestamp(struct pipe_screen *pscreen)
{
   return os_time_get_nano();
}

static int
weft_get_screen_fd(struct pipe_screen *pscreen)
{
   return weft_device_fd(weft_screen(pscreen)->dev);
}

/*
 * fork(): the child shares its parent's DRM file of weft.ko, and with it the
 * parent's VM. With one VM and two copies of the VA heap, both processes
 * hand out the same addresses (weft.ko refuses the second map with EBUSY,
 * so the child's kernels failed to build), and each could free the other's
 * buffers. So the child of a process with Weft screens gives each a DRM file,
 * VM and VA heap of its own, as a separate process has, before it does
 * anything else; the queues and fences made before the fork stay the
 * parent's (see weft_context_own_queue and weft_fence.c). The parent's
 * buffers and kernels are not usable in the child.
 */
static struct list_head screens = {&screens, &screens};
static simple_mtx_t screens_lock = SIMPLE_MTX_INITIALIZER;
static once_flag screens_atfork_once = ONCE_FLAG_INIT;

static void
weft_fork_prepare(void)
{
   simple_mtx_lock(&screens_lock);
   list_for_each_entry(struct weft_screen, s, &screens, link)
      simple_mtx_lock(&s->lock);
}

static void
weft_fork_parent(void)
{
   list_for_each_entry(struct weft_screen, s, &screens, link)
      simple_mtx_unlock(&s->lock);
   simple_mtx_unlock(&screens_lock);
}

static void
weft_screen_init_heap(struct weft_screen *s)
{
   uint64_t start = MAX2(WEFT_VA_START, s->info.user_va_start);
   uint64_t end = s->info.user_va_end ? MIN2(start + WEFT_VA_SIZE, s->info.user_va_end)
                                      : start + WEFT_VA_SIZE;

   util_vma_heap_init(&s->heap, start, end - start);
}

static void
weft_fork_child(void)
{
   list_for_each_entry(struct weft_screen, s, &screens, link) {
      /* Without a file of its own (no node path, or the open failed), the
       * child still gets a VM of its own in the shared file. */
      if (s->node_path && weft_device_reopen(s->dev, s->node_path))
         mesa_loge("weft: a forked child shares its parent's DRM file");
      if (weft_vm_create(s->dev, &s->vm))
         mesa_loge("weft: a forked child has no VM of its own");
      util_vma_heap_finish(&s->heap);
      weft_screen_init_heap(s);
      s->generation++;
      simple_mtx_unlock(&s->lock);
   }
   simple_mtx_unlock(&screens_lock);
}

static void
weft_register_atfork(void)
{
   pthread_atfork(weft_fork_prepare, weft_fork_parent, weft_fork_child);
}

static void
weft_screen_destroy(struct pipe_screen *pscreen)
{
   struct weft_screen *s = weft_screen(pscreen);

   simple_mtx_lock(&screens_lock);
   list_del(&s->link);
   simple_mtx_unlock(&screens_lock);

   weft_screen_wait_all(s);
   disk_cache_destroy(s->disk_cache);
   util_dynarray_fini(&s->pending);
   util_vma_heap_finish(&s->heap);
   weft_vm_destroy(s->dev, s->vm);
   weft_device_close(s->dev);
   simple_mtx_destroy(&s->lock);
   free(s->node_path);
   FREE(s);
}

static void
weft_init_screen_caps(struct weft_screen *s)
{
   struct pipe_caps *caps = (struct pipe_caps *)&s->base.caps;

   u_init_pipe_screen_caps(&s->base, 1);
   caps->compute = true;
   caps->int64 = true;
   /* atom.global and atom.local take u64/s64 for every operation
    * (cl_khr_int64_base_atomics and _extended_atomics, Mesa patch 0012). */
   caps->shader_atomic_int64 = true;
   caps->doubles = true;
   caps->uma = true;
   /* Buffers are mapped once, at creation, and buffer_map returns that
    * mapping: the memory is the CPU's, coherent with the GPU (see the
    * manual's platform.rst, "Memory coherence").
    */
   caps->buffer_map_in_place = true;
   /* The device switches sub-groups at backward jumps, not only at
    * barriers (execution.rst, "Sub-groups of a work-group make independent
    * forward progress"): CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS. */
   caps->subgroup_independent_forward_progress = true;
   /* The ALU never flushes denormals (execution.rst, "Floats"): kernels are
    * translated with f32 denormals preserved, so that NIR's nextafter steps
    * through them and constant folding keeps them. */
   caps->fp32_denorm_preserve = true;
   caps->query_timestamp = true;
   caps->timer_resolution = 1;
   caps->endianness = PIPE_ENDIAN_LITTLE;
   caps->max_shader_buffer_size = 1u << 30;
   /* Images: OpenCL's full-profile minimums (16384 wide 2D, 2048 cubed 3D,
    * 2048 layers); formatted loads and stores are the compiler's. */
   caps->max_texture_2d_size = 16384;
   caps->max_texture_3d_levels = 12;
   caps->max_texture_array_layers = 2048;
   caps->max_texel_buffer_elements = 1u << 27;
   caps->texture_sampler_independent = true;
   caps->image_load_formatted = true;
   caps->image_store_formatted = true;
   /* Image and sampler indices, which weft_nir_lower_images reads. */
   caps->nir_images_as_deref = false;
   caps->nir_samplers_as_deref = false;
   caps->vendor_id = 0x1af4;
   caps->device_id = 0x1110;
   caps->shareable_shaders = true;
   caps->prefer_real_buffer_in_constbuf0 = false;
   caps->system_svm = false;
}

struct pipe_screen *
weft_screen_create(int fd, const struct pipe_screen_config *config)
{
   struct weft_screen *s = CALLOC_STRUCT(weft_screen);

   if (!s)
      return NULL;
   if (weft_device_open_fd(fd, &s->dev)) {
      FREE(s);
      return NULL;
   }
   s->info = *weft_device_info(s->dev);
   if (weft_vm_create(s->dev, &s->vm)) {
      weft_device_close(s->dev);
      FREE(s);
      return NULL;
   }
   simple_mtx_init(&s->lock, mtx_plain);
   util_dynarray_init(&s->pending, NULL);
   weft_screen_init_heap(s);
   s->node_path = drmGetRenderDeviceNameFromFd(fd);
   call_once(&screens_atfork_once, weft_register_atfork);
   simple_mtx_lock(&screens_lock);
   list_add(&s->link, &screens);
   simple_mtx_unlock(&screens_lock);

   struct pipe_screen *p = &s->base;
   p->destroy = weft_screen_destroy;
   p->get_name = weft_get_name;
   p->get_vendor = weft_get_vendor;
   p->get_device_vendor = weft_get_vendor;
   p->get_cl_cts_version = weft_get_cl_cts_version;
   p->get_shader_param = weft_get_shader_param;
   p->get_compute_param = weft_get_compute_param;
   p->get_compiler_options = weft_get_compiler_options;
   p->finalize_nir = weft_finalize_nir;
   p->get_disk_shader_cache = weft_get_disk_shader_cache;
   p->is_format_supported = weft_is_format_supported;
   p->get_timestamp = weft_get_timestamp;
   p->get_screen_fd = weft_get_screen_fd;
   p->context_create = weft_context_create;
   weft_init_screen_resource_functions(p);
   weft_init_screen_fence_functions(p);
   weft_init_screen_caps(s);
   weft_init_screen_device_queue_functions(p);
   weft_disk_cache_init(s);
   return p;
}
