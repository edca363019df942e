/* SPDX-License-Identifier: MIT */
/*
 * The Weft GPU's lowering passes for the OpenCL builtins, one file per thing
 * lowered (nir-passes/ in the Weft tree, built into Mesa as
 * src/weft/nir-passes).  They run in the weft compiler after Mesa's common
 * passes (nir_lower_subgroups and the others).
 */
#ifndef WEFT_NIR_PASSES_H
#define WEFT_NIR_PASSES_H

#include "compiler/nir/nir_builder.h"
#include "util/format/u_formats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* workgroup_vote_any/all, workgroup_broadcast, workgroup_reduce and
 * workgroup_inclusive/exclusive_scan onto sub-group operations, slots in
 * the slot area at @slot_base (weft_nir_slot_area_base) and barriers. */
bool weft_nir_lower_workgroup_collectives(nir_shader *nir, unsigned slot_base);

/* The bytes of a work-group collective's slot, one per sub-group: the
 * widest collective type is 64-bit. */
#define WEFT_WG_SLOT_BYTES 8

/* The most shared memory weft_nir_lower_workgroup_collectives uses (a slot
 * per sub-group of SIMD 8 in the largest work-group); the driver reports
 * its local memory less this, so that a kernel may use all it reports and
 * a collective. */
static inline unsigned
weft_nir_workgroup_collectives_max_shared(unsigned max_workgroup_size)
{
   return DIV_ROUND_UP(max_workgroup_size, 8) * WEFT_WG_SLOT_BYTES;
}

/* CL_DEVICE_LOCAL_MEM_SIZE of a device of @slm_size bytes of shared local
 * memory: what the work-group collectives' largest reservation leaves. */
static inline unsigned
weft_nir_local_mem_size(unsigned slm_size, unsigned max_workgroup_size)
{
   return slm_size - weft_nir_workgroup_collectives_max_shared(max_workgroup_size);
}

/*
 * The slot area: the work-group collectives' and the pipes' slots sit at
 * the top of the SLM, from CL_DEVICE_LOCAL_MEM_SIZE on, and never in
 * nir->info.shared_size.  The kernel's own __local variables and the
 * __local arguments Rusticl places after them then have all of
 * CL_DEVICE_LOCAL_MEM_SIZE with their alignment padding counted once, as
 * Rusticl counts it (Mesa patch 0170); slots between the two would add
 * padding of their own.  A kernel that uses the area runs with the whole
 * SLM (weft_nir_uses_slot_area).
 */
static inline unsigned
weft_nir_slot_area_base(unsigned slm_size, unsigned max_workgroup_size)
{
   return weft_nir_local_mem_size(slm_size, max_workgroup_size);
}

/* Whether @nir accesses shared memory from @slot_base on. */
bool weft_nir_uses_slot_area(const nir_shader *nir, unsigned slot_base);

/* SPV_INTEL_subgroups: the two-source shuffles on vectors and the block
 * reads and writes of several elements (or image rows) split per
 * component / element / row, the block I/O on shared memory as per-lane
 * accesses. */
bool weft_nir_lower_intel_subgroups(nir_shader *nir);

/* ldexp, correctly rounded, onto multiplications by powers of two (the
 * backend has no scaling instruction; NIR's lower_ldexp rounds twice). */
bool weft_nir_lower_ldexp(nir_shader *nir);

/* When the shader's float controls flush 32-bit denormals
 * (-cl-denorms-are-zero), every 32-bit float result that can be a denormal
 * becomes a zero of its sign: the ALU keeps them. */
bool weft_nir_flush_denorms(nir_shader *nir);

/* The device-side enqueue queries on a child kernel (get_kernel_*) as the
 * values a block's kernel runs with: compiled at SIMD @simd, work-groups up
 * to @max_workgroup_size (weft_nir_lower_enqueue.c). */
bool weft_nir_lower_enqueue_queries(nir_shader *nir, unsigned simd,
                                    unsigned max_workgroup_size);

/* enqueue_kernel onto the device queue that the queue_t's device enqueue
 * descriptor (Rusticl's, Mesa patch 0165) names: a record per enqueue,
 * reserved with one atomic add, children of work-groups up to
 * @max_workgroup_size.  A child's local memory gets what a host launch
 * gets, CL_DEVICE_LOCAL_MEM_SIZE (weft_nir_local_mem_size) of the
 * @max_shared bytes of SLM, the slot area on top
 * (weft_nir_lower_enqueue.c). */
bool weft_nir_lower_enqueue_kernel(nir_shader *nir, unsigned max_workgroup_size,
                                   unsigned max_shared);

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


/* Images (weft_nir_lower_images.c, Documentation/gpu/weft/images.rst).
 *
 * The driver writes one descriptor per bound image after the kernel
 * arguments: the read-only images (sampler views) first, in texture index
 * order, then the write-only and read-write ones (shader images).  The
 * first 24 bytes are the layout the ld.img/st.img instructions read.
 */
#define WEFT_IMAGE_DESC_OFFSET      8192 /* in the argument buffer */
#define WEFT_IMAGE_DESC_SIZE        64
#define WEFT_IMAGE_DESC_BASE        0    /* u64: VA of texel (0, 0, 0) */
#define WEFT_IMAGE_DESC_WIDTH_BYTES 8    /* u32: width * bytes per texel */
#define WEFT_IMAGE_DESC_HEIGHT      12   /* u32: rows (1 for 1D images) */
#define WEFT_IMAGE_DESC_ROW_PITCH   16   /* u32: bytes from a row to the next */
#define WEFT_IMAGE_DESC_WIDTH       24   /* u32: texels per row */
#define WEFT_IMAGE_DESC_DEPTH       28   /* u32: slices (3D) or layers (arrays), else 1 */
#define WEFT_IMAGE_DESC_SLICE_PITCH 32   /* u32: bytes from a slice or layer to the next */
#define WEFT_IMAGE_DESC_FORMAT      36   /* u32: the pipe_format, for tools */

#define WEFT_MAX_TEXTURES 128
#define WEFT_MAX_IMAGES   64
#define WEFT_MAX_SAMPLERS 16

/* OpenCL's addressing modes (CLK_ADDRESS_NONE is clamp-to-edge). */
enum weft_wrap {
   WEFT_WRAP_CLAMP_TO_EDGE,
   WEFT_WRAP_CLAMP_TO_BORDER,
   WEFT_WRAP_REPEAT,
   WEFT_WRAP_MIRRORED_REPEAT,
};

/* A sampler as the code for it is generated. */
struct weft_sampler_key {
   uint8_t wrap;       /* enum weft_wrap */
   uint8_t linear;     /* CLK_FILTER_LINEAR */
   uint8_t normalized; /* CLK_NORMALIZED_COORDS_TRUE */
   uint8_t pad;
};

/* What the code for image access depends on besides the descriptors: the
 * bound formats (enum pipe_format, 0: none bound) and sampler states. */
struct weft_image_key {
   uint16_t texture_format[WEFT_MAX_TEXTURES];
   uint16_t image_format[WEFT_MAX_IMAGES];
   struct weft_sampler_key sampler[WEFT_MAX_SAMPLERS];
};

/* Lowers image access to descriptor loads, memory access and arithmetic
 * for @key; NULL: RGBA float images and nearest clamp-to-edge samplers (to
 * check that a kernel compiles before anything is bound). */
bool weft_nir_lower_images(nir_shader *nir, const struct weft_image_key *key);

/* Whether the lowering reads and writes images of @format. */
bool weft_image_format_supported(enum pipe_format format);

/* The descriptor of the first shader image follows the read-only images. */
static inline unsigned
weft_image_num_textures(const nir_shader *nir)
{
   return nir->info.num_textures;
}

/* The OpenCL pipe intrinsics (reserve_read/write_pipe at invocation,
 * sub-group and work-group scope, commit_read/write_pipe,
 * pipe_packet_address, is_valid_reserve_id, get_pipe_num/max_packets) onto
 * global atomics, loads, stores and fences over the pipe's buffer; a
 * work-group's reservation goes through the first slot of the slot area at
 * @slot_base, which it shares with the collectives: both fence their slot
 * with a barrier before writing it and after. */
bool weft_nir_lower_pipes(nir_shader *nir, unsigned slot_base);

/* The intrinsics weft_nir_lower_pipes lowers. */
static inline bool
weft_nir_is_pipe_intrinsic(nir_intrinsic_op op)
{
   switch (op) {
   case nir_intrinsic_reserve_read_pipe:
   case nir_intrinsic_reserve_write_pipe:
   case nir_intrinsic_commit_read_pipe:
   case nir_intrinsic_commit_write_pipe:
   case nir_intrinsic_pipe_packet_address:
   case nir_intrinsic_is_valid_reserve_id:
   case nir_intrinsic_get_pipe_num_packets:
   case nir_intrinsic_get_pipe_max_packets:
      return true;
   default:
      return false;
   }
}

/* A work-group barrier that orders the work-group's shared memory accesses
 * (the passes' slots in shared local memory). */
static inline void
weft_nir_workgroup_barrier(nir_builder *b)
{
   nir_barrier(b, .execution_scope = SCOPE_WORKGROUP, .memory_scope = SCOPE_WORKGROUP,
               .memory_semantics = NIR_MEMORY_ACQ_REL, .memory_modes = nir_var_mem_shared);
}

#ifdef __cplusplus
}
#endif

#endif
