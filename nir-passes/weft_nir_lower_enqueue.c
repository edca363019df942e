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
#include "weft/hw/weft_cs_regs.h"

#include "weft_nir_passes.h"

struct weft_enqueue_limits {
   unsigned simd, max_workgroup_size, max_local, max_shared;
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
   struct weft_enqueue_limits limits = { .simd = simd, .max_workgroup_size = max_workgroup_size };

   return nir_shader_intrinsics_pass(nir, weft_lower_enqueue_query, nir_metadata_control_flow,
                                     &limits);
}

/*
 * enqueue_kernel onto the device queue (Documentation/gpu/weft/
 * device-enqueue.rst): the queue_t is the address of Rusticl's device
 * enqueue descriptor (core/kernel.rs, Mesa patch 0165: the device queue's
 * address, then per kernel of the program its code, dispatch parameters
 * and argument template), and each invocation that enqueues reserves a
 * record with one atomic add on the device queue's HEAD, writes the
 * DISPATCH_SCRATCH payload, copies the child's argument template, and the
 * block literal after it (clang's block kernel takes the literal's
 * address), and fills in what the child reads of its ndrange.  The batch's
 * DRAIN_QUEUE runs the record after the parent.
 */
#define WEFT_ENQ_DESC_QUEUE        0x00 /* u64 */
#define WEFT_ENQ_DESC_KERNELS      0x08 /* u32 */
#define WEFT_ENQ_DESC_ENTRIES      0x10
#define WEFT_ENQ_ENTRY_SIZE        0x40
#define WEFT_ENQ_ENTRY_CODE        0x00 /* u64, 0: cannot be enqueued */
#define WEFT_ENQ_ENTRY_SIMD        0x08
#define WEFT_ENQ_ENTRY_SHARED      0x0c
#define WEFT_ENQ_ENTRY_PRIVATE     0x10
#define WEFT_ENQ_ENTRY_ARGS_SIZE   0x14
#define WEFT_ENQ_ENTRY_TEMPLATE    0x18 /* from the descriptor */
#define WEFT_ENQ_ENTRY_LITERAL_AT  0x1c /* in the arguments: the literal's address */
#define WEFT_ENQ_ENTRY_OFFSET_AT   0x20 /* u64[3] */
#define WEFT_ENQ_ENTRY_GLOBAL_AT   0x24 /* u64[3] */
#define WEFT_ENQ_ENTRY_GROUPS_AT   0x28 /* u32[3] */
#define WEFT_ENQ_ENTRY_DIM_AT      0x2c /* u8 */
#define WEFT_ENQ_ENTRY_LOCAL_ARGS  0x30 /* u32 */
#define WEFT_ENQ_ENTRY_LOCAL_AT    0x34 /* from the descriptor: u32 per local argument */
#define WEFT_ENQ_ENTRY_LOCAL_TAG   0x38 /* u64 */
#define WEFT_ENQ_NONE              0xffffffffu

/* OpenCL C's enqueue_kernel results. */
#define WEFT_CLK_SUCCESS            0
#define WEFT_CLK_ENQUEUE_FAILURE    -101
#define WEFT_CLK_INVALID_QUEUE      -102
#define WEFT_CLK_INVALID_NDRANGE    -160
#define WEFT_CLK_DEVICE_QUEUE_FULL  -161
#define WEFT_CLK_EVENT_ALLOCATION_FAILURE -100
#define WEFT_CLK_INVALID_EVENT_WAIT_LIST  -57
#define WEFT_CLK_OUT_OF_RESOURCES   -5
#define WEFT_CLK_INVALID_ARG_SIZE   -51
/* The status of an event not complete yet: a user event's, which
 * set_user_event_status may change, and an enqueued command's. */
#define WEFT_CL_SUBMITTED           2
#define WEFT_CL_QUEUED              3
#define WEFT_CLK_PROFILING_COMMAND_EXEC_TIME 1
#define WEFT_CLK_NULL_EVENT         UINT64_MAX

static nir_def *
weft_enq_addr(nir_builder *b, nir_def *base, nir_def *offset)
{
   return nir_iadd(b, base, nir_u2u64(b, offset));
}

static nir_def *
weft_enq_load32(nir_builder *b, nir_def *base, unsigned offset)
{
   return nir_load_global(b, nir_iadd_imm(b, base, offset), 4, 1, 32);
}

static void
weft_enq_store32(nir_builder *b, nir_def *base, unsigned offset, nir_def *value)
{
   nir_store_global(b, nir_iadd_imm(b, base, offset), 4, nir_u2u32(b, value), 1);
}

/* Stores the @n components of @v (converted to @bits) at the argument
 * offset @at (WEFT_ENQ_NONE: the child does not read them). */
static void
weft_enq_store_arg(nir_builder *b, nir_def *args, nir_def *at, nir_def *v, unsigned n,
                   unsigned bits)
{
   nir_push_if(b, nir_ine_imm(b, at, WEFT_ENQ_NONE));
   {
      nir_def *addr = weft_enq_addr(b, args, at);

      for (unsigned c = 0; c < n; c++) {
         nir_store_global(b, nir_iadd_imm(b, addr, c * bits / 8), bits / 8,
                          nir_u2uN(b, nir_channel(b, v, c), bits), 1);
      }
   }
   nir_pop_if(b, NULL);
}

/* Copies the @size bytes of the block literal at the generic address
 * @literal (private memory, usually) to @dst in words; a tail of bytes. */
static void
weft_enq_copy_literal(nir_builder *b, nir_def *dst, nir_def *literal, unsigned size)
{
   nir_deref_instr *words =
      nir_build_deref_cast(b, literal, nir_var_mem_generic, glsl_uint_type(), 4);
   nir_deref_instr *bytes =
      nir_build_deref_cast(b, literal, nir_var_mem_generic, glsl_uint8_t_type(), 1);

   words->cast.align_mul = 4;
   for (unsigned i = 0; i + 4 <= size; i += 4) {
      nir_def *v = nir_load_deref(b, nir_build_deref_ptr_as_array(b, words,
                                                                  nir_imm_int64(b, i / 4)));
      nir_store_global(b, nir_iadd_imm(b, dst, i), 4, v, 1);
   }
   for (unsigned i = size & ~3u; i < size; i++) {
      nir_def *v = nir_load_deref(b, nir_build_deref_ptr_as_array(b, bytes, nir_imm_int64(b, i)));
      nir_store_global(b, nir_iadd_imm(b, dst, i), 1, v, 1);
   }
}

/*
 * The child's local memory, laid out as Rusticl's launch() lays out a
 * kernel's and counted as its clEnqueueNDRangeKernel counts it (Mesa patch
 * 0170): its own local memory, then each local-memory argument of the
 * block, aligned to the smaller of its size and 128 rounded up to a power
 * of two.  A size of 0 is CLK_INVALID_ARG_SIZE; past
 * CL_DEVICE_LOCAL_MEM_SIZE (@max_local) is CLK_OUT_OF_RESOURCES.  The
 * slot area, the top of the SLM, is not part of it (weft_nir_passes.h).
 */
struct weft_enq_local_mem {
   unsigned count;
   nir_def *offset[NIR_MAX_VEC_COMPONENTS]; /* u64, from the start of local memory */
   nir_def *sizes_valid, *fits;
};

static struct weft_enq_local_mem
weft_enq_local_mem(nir_builder *b, nir_intrinsic_instr *intr, nir_def *entry, unsigned max_local)
{
   struct weft_enq_local_mem m = { .count = nir_intrinsic_local_args(intr) };
   nir_def *sizes = intr->src[10].ssa;
   nir_def *total = nir_u2u64(b, weft_enq_load32(b, entry, WEFT_ENQ_ENTRY_SHARED));

   m.sizes_valid = nir_imm_true(b);
   for (unsigned i = 0; i < m.count; i++) {
      nir_def *size = nir_channel(b, sizes, i);
      /* Capped so that the sum cannot wrap: past the cap it does not fit. */
      nir_def *capped = nir_umin(b, size, nir_imm_int64(b, max_local + 1ull));
      nir_def *pot = nir_iadd_imm(b, nir_umin(b, capped, nir_imm_int64(b, 128)), -1);

      for (unsigned shift = 1; shift < 8; shift *= 2)
         pot = nir_ior(b, pot, nir_ushr_imm(b, pot, shift));
      /* pot + 1 is the alignment, a power of two: round up with its mask. */
      total = nir_iand(b, nir_iadd(b, total, pot), nir_inot(b, pot));
      m.offset[i] = total;
      total = nir_iadd(b, total, capped);
      m.sizes_valid = nir_iand(b, m.sizes_valid, nir_ine_imm(b, size, 0));
   }
   m.fits = nir_ule_imm(b, total, max_local);
   return m;
}

/* Writes each local-memory argument's value, its offset with the entry's
 * tag, where the child reads it. */
static void
weft_enq_store_local_args(nir_builder *b, nir_def *desc, nir_def *entry, nir_def *args,
                          const struct weft_enq_local_mem *m)
{
   nir_def *at = weft_enq_addr(b, desc, weft_enq_load32(b, entry, WEFT_ENQ_ENTRY_LOCAL_AT));
   nir_def *tag = nir_load_global(b, nir_iadd_imm(b, entry, WEFT_ENQ_ENTRY_LOCAL_TAG), 8, 1, 64);

   for (unsigned i = 0; i < m->count; i++) {
      nir_def *place = weft_enq_load32(b, at, 4 * i);

      nir_push_if(b, nir_ine_imm(b, place, WEFT_ENQ_NONE));
      nir_store_global(b, weft_enq_addr(b, args, place), 8, nir_ior(b, m->offset[i], tag), 1);
      nir_pop_if(b, NULL);
   }
}

struct weft_enq_ndrange {
   nir_def *dim, *offset, *global, *local, *groups;
   nir_def *valid;
};

/* An ndrange the child can run with: 1 to 3 dimensions, each of 1 to
 * 2^32 - 1 work-items; a local size given in every used dimension or in
 * none (then the manual's rule picks it), at most the largest work-group.
 * Dimensions past the work dimension: size 1, offset 0. */
static struct weft_enq_ndrange
weft_enq_ndrange(nir_builder *b, nir_intrinsic_instr *intr, unsigned max_wg)
{
   struct weft_enq_ndrange r = { .dim = nir_u2u32(b, intr->src[2].ssa) };
   nir_def *offset[3], *global[3], *local[3], *groups[3];
   nir_def *any_local = nir_imm_false(b), *all_local = nir_imm_true(b);
   nir_def *valid = nir_iand(b, nir_uge_imm(b, r.dim, 1), nir_ule_imm(b, r.dim, 3));

   for (unsigned c = 0; c < 3; c++) {
      nir_def *used = nir_ult(b, nir_imm_int(b, c), r.dim);
      nir_def *g = nir_channel(b, intr->src[4].ssa, c);
      nir_def *l = nir_channel(b, intr->src[5].ssa, c);

      offset[c] = nir_bcsel(b, used, nir_channel(b, intr->src[3].ssa, c), nir_imm_int64(b, 0));
      global[c] = nir_bcsel(b, used, g, nir_imm_int64(b, 1));
      local[c] = nir_bcsel(b, used, l, nir_imm_int64(b, 1));
      valid = nir_iand(b, valid, nir_inot(b, nir_iand(b, used, nir_ior(b, nir_ieq_imm(b, g, 0),
                                                                     nir_ugt_imm(b, g, UINT32_MAX)))));
      any_local = nir_ior(b, any_local, nir_iand(b, used, nir_ine_imm(b, l, 0)));
      all_local = nir_iand(b, all_local, nir_inot(b, nir_iand(b, used, nir_ieq_imm(b, l, 0))));
   }
   /* No local size: the first dimension's global size, at most the largest
    * work-group, by 1 by 1. */
   nir_def *picked = nir_umin(b, global[0], nir_imm_int64(b, max_wg));
   local[0] = nir_bcsel(b, any_local, local[0], picked);
   local[1] = nir_bcsel(b, any_local, local[1], nir_imm_int64(b, 1));
   local[2] = nir_bcsel(b, any_local, local[2], nir_imm_int64(b, 1));
   nir_def *items = nir_imul(b, nir_imul(b, nir_umin(b, local[0], nir_imm_int64(b, max_wg + 1)),
                                         nir_umin(b, local[1], nir_imm_int64(b, max_wg + 1))),
                             nir_umin(b, local[2], nir_imm_int64(b, max_wg + 1)));
   valid = nir_iand(b, valid, nir_ior(b, nir_inot(b, any_local), all_local));
   valid = nir_iand(b, valid, nir_ule_imm(b, items, max_wg));
   for (unsigned c = 0; c < 3; c++) {
      /* local is at least 1 once valid; the division must not trap before. */
      nir_def *l = nir_umax(b, local[c], nir_imm_int64(b, 1));
      groups[c] = nir_udiv(b, nir_iadd(b, global[c], nir_iadd_imm(b, l, -1)), l);
   }
   r.offset = nir_vec(b, offset, 3);
   r.global = nir_vec(b, global, 3);
   r.local = nir_vec(b, local, 3);
   r.groups = nir_vec(b, groups, 3);
   r.valid = valid;
   return r;
}

/*
 * Events (clk_event_t) are the addresses of the device queue's event
 * slots: a slot is taken while its REFS is not 0 and free once it is 0
 * and the slot's STATUS complete (0 or negative), so that an event
 * released before its command ran is not reused before the device
 * completes it.
 */
static nir_def *
weft_enq_event_base(nir_builder *b, nir_def *dq)
{
   return nir_iadd(b, nir_iadd_imm(b, dq, WEFT_DQ_HEADER_SIZE),
                   nir_u2u64(b, weft_enq_load32(b, dq, WEFT_DQ_SIZE)));
}

/* The slot number of the event @ev, which weft_enq_event_valid accepted. */
static nir_def *
weft_enq_event_slot(nir_builder *b, nir_def *dq, nir_def *ev)
{
   return nir_u2u32(b, nir_ushr_imm(b, nir_isub(b, ev, weft_enq_event_base(b, dq)), 5));
}

/* Whether @ev is an event of the device queue @dq that is referenced: a
 * slot's address (anything else, CLK_NULL_EVENT among them, is not read). */
static nir_def *
weft_enq_event_valid(nir_builder *b, nir_def *dq, nir_def *ev)
{
   nir_def *off = nir_isub(b, ev, weft_enq_event_base(b, dq));
   nir_def *bytes = nir_imul_imm(b, nir_u2u64(b, weft_enq_load32(b, dq, WEFT_DQ_EVENTS)),
                                 WEFT_DQ_EVENT_SIZE);
   nir_def *in_queue = nir_iand(b, nir_ult(b, off, bytes),
                                nir_ieq_imm(b, nir_iand_imm(b, off, WEFT_DQ_EVENT_SIZE - 1), 0));

   nir_if *nif = nir_push_if(b, in_queue);
   nir_def *refs = weft_enq_load32(b, ev, WEFT_DQ_EVENT_REFS);
   nir_push_else(b, nif);
   nir_def *none = nir_imm_int(b, 0);
   nir_pop_if(b, nif);
   return nir_ine_imm(b, nir_if_phi(b, refs, none), 0);
}

/* A new event of the device queue @dq with the status @status and one
 * reference, searched from the slot @hint on (so that work-items that
 * enqueue at once try different slots); CLK_NULL_EVENT when every slot is
 * taken. */
static nir_def *
weft_enq_event_create(nir_builder *b, nir_def *dq, nir_def *hint, int status)
{
   nir_variable *ev = nir_local_variable_create(b->impl, glsl_uint64_t_type(), "weft_enq_ev");
   nir_variable *i_var = nir_local_variable_create(b->impl, glsl_uint_type(), "weft_enq_slot");
   nir_def *events = weft_enq_load32(b, dq, WEFT_DQ_EVENTS);
   nir_def *base = weft_enq_event_base(b, dq);

   nir_store_var(b, ev, nir_imm_int64(b, WEFT_CLK_NULL_EVENT), 1);
   nir_store_var(b, i_var, nir_imm_int(b, 0), 1);
   nir_push_loop(b);
   {
      nir_def *i = nir_load_var(b, i_var);
      nir_break_if(b, nir_uge(b, i, events));
      nir_def *slot = nir_umod(b, nir_iadd(b, hint, i), events);
      nir_def *addr = nir_iadd(b, base, nir_u2u64(b, nir_imul_imm(b, slot, WEFT_DQ_EVENT_SIZE)));
      nir_def *refs = nir_global_atomic_swap(b, 32, nir_iadd_imm(b, addr, WEFT_DQ_EVENT_REFS),
                                             nir_imm_int(b, 0), nir_imm_int(b, 1),
                                             .atomic_op = nir_atomic_op_cmpxchg);

      nir_push_if(b, nir_ieq_imm(b, refs, 0));
      {
         nir_push_if(b, nir_ige(b, nir_imm_int(b, 0),
                                weft_enq_load32(b, addr, WEFT_DQ_EVENT_STATUS)));
         {
            weft_enq_store32(b, addr, WEFT_DQ_EVENT_STATUS, nir_imm_int(b, status));
            nir_store_global(b, nir_iadd_imm(b, addr, WEFT_DQ_EVENT_PROFILE), 8,
                             nir_imm_int64(b, 0), 1);
            nir_store_var(b, ev, addr, 1);
            nir_jump(b, nir_jump_break);
         }
         nir_pop_if(b, NULL);
         /* Released but its command has not run: not free yet. */
         weft_enq_store32(b, addr, WEFT_DQ_EVENT_REFS, nir_imm_int(b, 0));
      }
      nir_pop_if(b, NULL);
      nir_store_var(b, i_var, nir_iadd_imm(b, i, 1), 1);
   }
   nir_pop_loop(b, NULL);
   return nir_load_var(b, ev);
}

/* The clk_event_t @i of the wait list at the generic address @list. */
static nir_def *
weft_enq_wait_event(nir_builder *b, nir_def *list, nir_def *i)
{
   nir_deref_instr *events =
      nir_build_deref_cast(b, list, nir_var_mem_generic, glsl_uint64_t_type(), 8);

   events->cast.align_mul = 8;
   return nir_load_deref(b, nir_build_deref_ptr_as_array(b, events, nir_u2u64(b, i)));
}

/* Checks a wait list of @num events at @list (both from the enqueue, as
 * OpenCL C requires: both or neither, every event valid), setting @ret to
 * the error; whether it may be enqueued. */
static nir_def *
weft_enq_wait_list_ok(nir_builder *b, nir_def *dq, nir_def *num, nir_def *list,
                      nir_variable *ret)
{
   nir_variable *ok = nir_local_variable_create(b->impl, glsl_bool_type(), "weft_enq_waits_ok");
   nir_variable *i_var = nir_local_variable_create(b->impl, glsl_uint_type(), "weft_enq_wait");
   nir_def *given = nir_ine_imm(b, list, 0);

   nir_store_var(b, ok, nir_imm_false(b), 1);
   nir_store_var(b, ret, nir_imm_int(b, WEFT_CLK_INVALID_EVENT_WAIT_LIST), 1);
   nir_push_if(b, nir_ieq(b, nir_ine_imm(b, num, 0), given));
   {
      /* Longer than a record holds. */
      nir_store_var(b, ret, nir_imm_int(b, WEFT_CLK_OUT_OF_RESOURCES), 1);
      nir_push_if(b, nir_ule_imm(b, num, WEFT_DQ_MAX_WAITS));
      {
         nir_store_var(b, ret, nir_imm_int(b, WEFT_CLK_INVALID_EVENT_WAIT_LIST), 1);
         nir_store_var(b, ok, nir_imm_true(b), 1);
         nir_store_var(b, i_var, nir_imm_int(b, 0), 1);
         nir_push_loop(b);
         {
            nir_def *i = nir_load_var(b, i_var);
            nir_break_if(b, nir_uge(b, i, num));
            nir_push_if(b, nir_inot(b, weft_enq_event_valid(b, dq,
                                                            weft_enq_wait_event(b, list, i))));
            nir_store_var(b, ok, nir_imm_false(b), 1);
            nir_jump(b, nir_jump_break);
            nir_pop_if(b, NULL);
            nir_store_var(b, i_var, nir_iadd_imm(b, i, 1), 1);
         }
         nir_pop_loop(b, NULL);
      }
      nir_pop_if(b, NULL);
   }
   nir_pop_if(b, NULL);
   return nir_load_var(b, ok);
}

/* A record's header: @kind, the event slot it completes and the wait list
 * weft_enq_wait_list_ok accepted, as slot numbers. */
static void
weft_enq_write_header(nir_builder *b, nir_def *dq, nir_def *rec, nir_def *len, nir_def *kind,
                      nir_def *signal, nir_def *num, nir_def *list)
{
   nir_variable *i_var = nir_local_variable_create(b->impl, glsl_uint_type(), "weft_enq_wait");

   weft_enq_store32(b, rec, WEFT_DQ_REC_LEN, len);
   weft_enq_store32(b, rec, WEFT_DQ_REC_KIND, kind);
   weft_enq_store32(b, rec, WEFT_DQ_REC_SIGNAL, signal);
   weft_enq_store32(b, rec, WEFT_DQ_REC_NUM_WAITS, num);
   weft_enq_store32(b, rec, WEFT_DQ_REC_STATE, nir_imm_int(b, 0));
   weft_enq_store32(b, rec, WEFT_DQ_REC_STATE + 4, nir_imm_int(b, 0));
   weft_enq_store32(b, rec, WEFT_DQ_REC_STATE + 8, nir_imm_int(b, 0));
   nir_store_var(b, i_var, nir_imm_int(b, 0), 1);
   nir_push_loop(b);
   {
      nir_def *i = nir_load_var(b, i_var);
      nir_break_if(b, nir_uge(b, i, num));
      nir_store_global(b, weft_enq_addr(b, nir_iadd_imm(b, rec, WEFT_DQ_REC_WAITS),
                                        nir_ishl_imm(b, i, 2)),
                       4, weft_enq_event_slot(b, dq, weft_enq_wait_event(b, list, i)), 1);
      nir_store_var(b, i_var, nir_iadd_imm(b, i, 1), 1);
   }
   nir_pop_loop(b, NULL);
}

/* Stores the event @ev at the generic address @ret_event. */
static void
weft_enq_return_event(nir_builder *b, nir_def *ret_event, nir_def *ev)
{
   nir_deref_instr *dst =
      nir_build_deref_cast(b, ret_event, nir_var_mem_generic, glsl_uint64_t_type(), 8);

   dst->cast.align_mul = 8;
   nir_store_deref(b, dst, ev, 1);
}

/* Writes the kernel record at @rec for kernel @entry of the descriptor
 * @desc, completing the event slot @signal. */
static void
weft_enq_write_record(nir_builder *b, nir_intrinsic_instr *intr, nir_def *desc, nir_def *dq,
                      nir_def *entry, nir_def *rec, nir_def *len, nir_def *signal,
                      const struct weft_enq_ndrange *nd, const struct weft_enq_local_mem *local,
                      unsigned max_shared)
{
   nir_def *flags = nir_iand_imm(b, nir_u2u32(b, intr->src[1].ssa), 3);
   nir_def *args = nir_iadd_imm(b, rec, WEFT_DQ_REC_ARGS);
   nir_def *code = nir_load_global(b, entry, 8, 1, 64);
   nir_def *args_size = weft_enq_load32(b, entry, WEFT_ENQ_ENTRY_ARGS_SIZE);
   nir_def *payload = nir_iadd_imm(b, rec, WEFT_DQ_REC_DISPATCH);

   weft_enq_write_header(b, dq, rec, len,
                         nir_ior_imm(b, nir_ishl_imm(b, flags, WEFT_DQ_REC_FLAGS_SHIFT),
                                     WEFT_DQ_REC_KERNEL),
                         signal, nir_u2u32(b, intr->src[6].ssa), intr->src[7].ssa);

   /* DISPATCH_SCRATCH's payload: code, arguments, SIMD, global size,
    * local size, offset (Rusticl's argument carries it), local and
    * private memory. */
   nir_store_global(b, payload, 8, code, 1);
   nir_store_global(b, nir_iadd_imm(b, payload, 8), 8, args, 1);
   weft_enq_store32(b, payload, 16, weft_enq_load32(b, entry, WEFT_ENQ_ENTRY_SIMD));
   for (unsigned c = 0; c < 3; c++) {
      weft_enq_store32(b, payload, 20 + 4 * c, nir_channel(b, nd->global, c));
      weft_enq_store32(b, payload, 32 + 4 * c, nir_channel(b, nd->local, c));
      weft_enq_store32(b, payload, 44 + 4 * c, nir_imm_int(b, 0));
   }
   /* Whether the child uses the slot area is its build's to know. */
   weft_enq_store32(b, payload, 56, nir_imm_int(b, max_shared));
   weft_enq_store32(b, payload, 60, weft_enq_load32(b, entry, WEFT_ENQ_ENTRY_PRIVATE));

   /* The argument template, a word at a time. */
   nir_def *template = weft_enq_addr(b, desc, weft_enq_load32(b, entry, WEFT_ENQ_ENTRY_TEMPLATE));
   nir_def *words = nir_ushr_imm(b, nir_iadd_imm(b, args_size, 3), 2);
   nir_variable *i_var = nir_local_variable_create(b->impl, glsl_uint_type(), "weft_enq_i");
   nir_store_var(b, i_var, nir_imm_int(b, 0), 1);
   nir_push_loop(b);
   {
      nir_def *i = nir_load_var(b, i_var);
      nir_break_if(b, nir_uge(b, i, words));
      nir_def *off = nir_ishl_imm(b, i, 2);
      nir_store_global(b, weft_enq_addr(b, args, off), 4,
                       nir_load_global(b, weft_enq_addr(b, template, off), 4, 1, 32), 1);
      nir_store_var(b, i_var, nir_iadd_imm(b, i, 1), 1);
   }
   nir_pop_loop(b, NULL);

   /* The block literal after the template, its (global) address the
    * child's argument. */
   nir_def *literal = weft_enq_addr(b, args, nir_iand_imm(b, nir_iadd_imm(b, args_size, 15), ~15));
   nir_def *literal_at = weft_enq_load32(b, entry, WEFT_ENQ_ENTRY_LITERAL_AT);
   weft_enq_copy_literal(b, literal, intr->src[9].ssa, nir_intrinsic_range(intr));
   nir_push_if(b, nir_ine_imm(b, literal_at, WEFT_ENQ_NONE));
   nir_store_global(b, weft_enq_addr(b, args, literal_at), 8, literal, 1);
   nir_pop_if(b, NULL);

   weft_enq_store_arg(b, args, weft_enq_load32(b, entry, WEFT_ENQ_ENTRY_OFFSET_AT), nd->offset,
                      3, 64);
   weft_enq_store_arg(b, args, weft_enq_load32(b, entry, WEFT_ENQ_ENTRY_GLOBAL_AT), nd->global,
                      3, 64);
   weft_enq_store_arg(b, args, weft_enq_load32(b, entry, WEFT_ENQ_ENTRY_GROUPS_AT), nd->groups,
                      3, 32);
   weft_enq_store_arg(b, args, weft_enq_load32(b, entry, WEFT_ENQ_ENTRY_DIM_AT), nd->dim, 1, 8);
   weft_enq_store_local_args(b, desc, entry, args, local);
}

/* Sets @ret to @value. */
static void
weft_enq_result(nir_builder *b, nir_variable *ret, int value)
{
   nir_store_var(b, ret, nir_imm_int(b, value), 1);
}

/*
 * Reserves a record of @len bytes on the device queue @dq (the steps of
 * device-enqueue.rst's Records): its address, or 0 with @ret set to
 * CLK_ENQUEUE_FAILURE at the depth limit or CLK_DEVICE_QUEUE_FULL.
 */
static nir_def *
weft_enq_reserve(nir_builder *b, nir_def *dq, nir_def *len, nir_variable *ret)
{
   nir_variable *rec = nir_local_variable_create(b->impl, glsl_uint64_t_type(), "weft_enq_rec");
   nir_def *depth = weft_enq_load32(b, dq, WEFT_DQ_DEPTH);
   nir_def *limit = weft_enq_load32(b, dq, WEFT_DQ_DEPTH_LIMIT);

   nir_store_var(b, rec, nir_imm_int64(b, 0), 1);
   limit = nir_bcsel(b, nir_ieq_imm(b, limit, 0), nir_imm_int(b, WEFT_DQ_DEPTH_DEFAULT), limit);
   weft_enq_result(b, ret, WEFT_CLK_ENQUEUE_FAILURE);
   nir_push_if(b, nir_ult(b, depth, limit));
   {
      nir_def *size = weft_enq_load32(b, dq, WEFT_DQ_SIZE);
      nir_def *head_addr = nir_iadd_imm(b, dq, WEFT_DQ_HEAD);

      /* Full already: reserve nothing, so HEAD cannot wrap. */
      weft_enq_result(b, ret, WEFT_CLK_DEVICE_QUEUE_FULL);
      nir_push_if(b, nir_ult(b, weft_enq_load32(b, dq, WEFT_DQ_HEAD), size));
      {
         nir_def *old = nir_global_atomic(b, 32, head_addr, len, .atomic_op = nir_atomic_op_iadd);
         nir_def *end = nir_iadd(b, old, len);
         nir_def *at = weft_enq_addr(b, dq, nir_iadd_imm(b, old, WEFT_DQ_HEADER_SIZE));

         nir_push_if(b, nir_ult(b, size, end));
         {
            /* The one reservation that straddles the end pads it. */
            nir_push_if(b, nir_ult(b, old, size));
            weft_enq_store32(b, at, WEFT_DQ_REC_LEN, nir_isub(b, size, old));
            weft_enq_store32(b, at, WEFT_DQ_REC_KIND, nir_imm_int(b, WEFT_DQ_REC_PAD));
            nir_pop_if(b, NULL);
         }
         nir_push_else(b, NULL);
         nir_store_var(b, rec, at, 1);
         nir_pop_if(b, NULL);
      }
      nir_pop_if(b, NULL);
   }
   nir_pop_if(b, NULL);
   return nir_load_var(b, rec);
}

/*
 * The event slot a reserved record at @rec of @len bytes completes: none
 * without a return event, else a new event's, stored at @ret_event.  When
 * no slot is free the record becomes padding, @ret
 * CLK_EVENT_ALLOCATION_FAILURE; returns whether the record is to be
 * written.
 */
static nir_def *
weft_enq_signal(nir_builder *b, nir_def *dq, nir_def *rec, nir_def *len, nir_def *ret_event,
                nir_variable *signal, nir_variable *ret)
{
   nir_variable *write = nir_local_variable_create(b->impl, glsl_bool_type(), "weft_enq_write");

   nir_store_var(b, write, nir_imm_true(b), 1);
   nir_store_var(b, signal, nir_imm_int(b, WEFT_DQ_SIGNAL_NONE), 1);
   nir_push_if(b, nir_ine_imm(b, ret_event, 0));
   {
      /* Records are at least 16 bytes apart: spread the search. */
      nir_def *hint = nir_u2u32(b, nir_ushr_imm(b, nir_isub(b, rec, dq), 4));
      nir_def *ev = weft_enq_event_create(b, dq, hint, WEFT_CL_QUEUED);

      nir_push_if(b, nir_ieq_imm(b, ev, WEFT_CLK_NULL_EVENT));
      {
         weft_enq_store32(b, rec, WEFT_DQ_REC_LEN, len);
         weft_enq_store32(b, rec, WEFT_DQ_REC_KIND, nir_imm_int(b, WEFT_DQ_REC_PAD));
         weft_enq_result(b, ret, WEFT_CLK_EVENT_ALLOCATION_FAILURE);
         nir_store_var(b, write, nir_imm_false(b), 1);
      }
      nir_push_else(b, NULL);
      {
         weft_enq_return_event(b, ret_event, ev);
         nir_store_var(b, signal, weft_enq_event_slot(b, dq, ev), 1);
      }
      nir_pop_if(b, NULL);
   }
   nir_pop_if(b, NULL);
   return nir_load_var(b, write);
}

static void
weft_lower_enqueue_kernel(nir_builder *b, nir_intrinsic_instr *intr, nir_variable *ret,
                          const struct weft_enqueue_limits *limits)
{
   nir_def *desc = intr->src[0].ssa;
   unsigned kernel = nir_intrinsic_kernel_index(intr);

   weft_enq_result(b, ret, WEFT_CLK_INVALID_QUEUE);
   nir_push_if(b, nir_ine_imm(b, desc, 0));
   {
      nir_def *entry = nir_iadd_imm(b, desc, WEFT_ENQ_DESC_ENTRIES + kernel * WEFT_ENQ_ENTRY_SIZE);
      nir_def *kernels = weft_enq_load32(b, desc, WEFT_ENQ_DESC_KERNELS);

      /* A kernel the descriptor cannot enqueue (images, printf), or one
       * whose local-memory arguments are not the block's: failure. */
      weft_enq_result(b, ret, WEFT_CLK_ENQUEUE_FAILURE);
      nir_push_if(b, nir_ult(b, nir_imm_int(b, kernel), kernels));
      {
         nir_def *code = nir_load_global(b, entry, 8, 1, 64);
         nir_def *local_args = weft_enq_load32(b, entry, WEFT_ENQ_ENTRY_LOCAL_ARGS);

         nir_push_if(b, nir_iand(b, nir_ine_imm(b, code, 0),
                                 nir_ieq_imm(b, local_args, nir_intrinsic_local_args(intr))));
         {
            struct weft_enq_ndrange nd = weft_enq_ndrange(b, intr, limits->max_workgroup_size);
            struct weft_enq_local_mem local =
               weft_enq_local_mem(b, intr, entry, limits->max_local);

            weft_enq_result(b, ret, WEFT_CLK_INVALID_NDRANGE);
            nir_push_if(b, nd.valid);
            weft_enq_result(b, ret, WEFT_CLK_INVALID_ARG_SIZE);
            nir_push_if(b, local.sizes_valid);
            weft_enq_result(b, ret, WEFT_CLK_OUT_OF_RESOURCES);
            nir_push_if(b, local.fits);
            {
               nir_def *dq = nir_load_global(b, nir_iadd_imm(b, desc, WEFT_ENQ_DESC_QUEUE), 8, 1,
                                             64);
               nir_def *num = nir_u2u32(b, intr->src[6].ssa);

               nir_push_if(b, weft_enq_wait_list_ok(b, dq, num, intr->src[7].ssa, ret));
               {
                  nir_def *args_size = weft_enq_load32(b, entry, WEFT_ENQ_ENTRY_ARGS_SIZE);
                  /* header, arguments, then the block literal */
                  nir_def *args_end = nir_iand_imm(b, nir_iadd_imm(b, args_size, 15), ~15);
                  nir_def *len = nir_iand_imm(b, nir_iadd_imm(b, args_end, WEFT_DQ_REC_ARGS +
                                                              nir_intrinsic_range(intr) + 15),
                                              ~15);
                  nir_def *rec = weft_enq_reserve(b, dq, len, ret);

                  nir_push_if(b, nir_ine_imm(b, rec, 0));
                  {
                     nir_variable *signal =
                        nir_local_variable_create(b->impl, glsl_uint_type(), "weft_enq_signal");

                     nir_push_if(b, weft_enq_signal(b, dq, rec, len, intr->src[8].ssa, signal,
                                                    ret));
                     {
                        weft_enq_write_record(b, intr, desc, dq, entry, rec, len,
                                              nir_load_var(b, signal), &nd, &local,
                                              limits->max_shared);
                        weft_enq_result(b, ret, WEFT_CLK_SUCCESS);
                     }
                     nir_pop_if(b, NULL);
                  }
                  nir_pop_if(b, NULL);
               }
               nir_pop_if(b, NULL);
            }
            nir_pop_if(b, NULL);
            nir_pop_if(b, NULL);
            nir_pop_if(b, NULL);
         }
         nir_pop_if(b, NULL);
      }
      nir_pop_if(b, NULL);
   }
   nir_pop_if(b, NULL);
}

/* enqueue_marker: a record that waits for its (non-empty) wait list and
 * completes the event it returns. */
static void
weft_lower_enqueue_marker(nir_builder *b, nir_intrinsic_instr *intr, nir_variable *ret)
{
   nir_def *desc = intr->src[0].ssa;
   nir_def *num = nir_u2u32(b, intr->src[1].ssa);

   weft_enq_result(b, ret, WEFT_CLK_INVALID_QUEUE);
   nir_push_if(b, nir_ine_imm(b, desc, 0));
   {
      nir_def *dq = nir_load_global(b, nir_iadd_imm(b, desc, WEFT_ENQ_DESC_QUEUE), 8, 1, 64);
      nir_def *ok = nir_iand(b, nir_ine_imm(b, num, 0),
                             weft_enq_wait_list_ok(b, dq, num, intr->src[2].ssa, ret));

      /* A marker's only result is its event: without one there is
       * nothing to enqueue. */
      nir_push_if(b, nir_iand(b, ok, nir_ieq_imm(b, intr->src[3].ssa, 0)));
      weft_enq_result(b, ret, WEFT_CLK_EVENT_ALLOCATION_FAILURE);
      nir_pop_if(b, NULL);
      nir_push_if(b, nir_iand(b, ok, nir_ine_imm(b, intr->src[3].ssa, 0)));
      {
         nir_def *len = nir_imm_int(b, WEFT_DQ_REC_ARGS);
         nir_def *rec = weft_enq_reserve(b, dq, len, ret);

         nir_push_if(b, nir_ine_imm(b, rec, 0));
         {
            nir_variable *signal =
               nir_local_variable_create(b->impl, glsl_uint_type(), "weft_enq_signal");

            nir_push_if(b, weft_enq_signal(b, dq, rec, len, intr->src[3].ssa, signal, ret));
            {
               weft_enq_write_header(b, dq, rec, len, nir_imm_int(b, WEFT_DQ_REC_MARKER),
                                     nir_load_var(b, signal), num, intr->src[2].ssa);
               weft_enq_result(b, ret, WEFT_CLK_SUCCESS);
            }
            nir_pop_if(b, NULL);
         }
         nir_pop_if(b, NULL);
      }
      nir_pop_if(b, NULL);
   }
   nir_pop_if(b, NULL);
}

/*
 * The clk_event_t functions on the queue @desc (get_default_queue()):
 * none of them touches memory for an event that is not a live event of
 * the queue (CLK_NULL_EVENT, a released one, garbage), so that misuse
 * cannot corrupt the queue.
 */
static nir_def *
weft_lower_event_function(nir_builder *b, nir_intrinsic_instr *intr)
{
   nir_def *desc = intr->src[0].ssa;
   nir_def *ev;
   nir_variable *result = NULL;

   if (intr->intrinsic == nir_intrinsic_create_user_event) {
      result = nir_local_variable_create(b->impl, glsl_uint64_t_type(), "weft_enq_user_event");
      nir_store_var(b, result, nir_imm_int64(b, WEFT_CLK_NULL_EVENT), 1);
   } else if (intr->intrinsic == nir_intrinsic_is_valid_event) {
      result = nir_local_variable_create(b->impl, glsl_bool_type(), "weft_enq_valid");
      nir_store_var(b, result, nir_imm_false(b), 1);
   }

   nir_push_if(b, nir_ine_imm(b, desc, 0));
   {
      nir_def *dq = nir_load_global(b, nir_iadd_imm(b, desc, WEFT_ENQ_DESC_QUEUE), 8, 1, 64);

      if (intr->intrinsic == nir_intrinsic_create_user_event) {
         nir_store_var(b, result, weft_enq_event_create(b, dq, nir_imm_int(b, 0),
                                                        WEFT_CL_SUBMITTED), 1);
      } else {
         ev = intr->src[1].ssa;
         nir_def *valid = weft_enq_event_valid(b, dq, ev);

         if (result)
            nir_store_var(b, result, valid, 1);
         nir_push_if(b, valid);
         switch (intr->intrinsic) {
         case nir_intrinsic_retain_event:
         case nir_intrinsic_release_event:
            nir_global_atomic(b, 32, nir_iadd_imm(b, ev, WEFT_DQ_EVENT_REFS),
                              nir_imm_int(b, intr->intrinsic == nir_intrinsic_retain_event ? 1 : -1),
                              .atomic_op = nir_atomic_op_iadd);
            break;
         case nir_intrinsic_set_user_event_status: {
            /* CL_COMPLETE or an error, once, and on user events only:
             * those still CL_SUBMITTED. */
            nir_def *status = intr->src[2].ssa;

            nir_push_if(b, nir_ige(b, nir_imm_int(b, 0), status));
            nir_global_atomic_swap(b, 32, nir_iadd_imm(b, ev, WEFT_DQ_EVENT_STATUS),
                                   nir_imm_int(b, WEFT_CL_SUBMITTED), status,
                                   .atomic_op = nir_atomic_op_cmpxchg);
            nir_pop_if(b, NULL);
            break;
         }
         case nir_intrinsic_capture_event_profiling_info: {
            /* Complete: the times are there; else the device writes them
             * when it completes the event. */
            nir_def *value = intr->src[3].ssa;
            nir_def *status = weft_enq_load32(b, ev, WEFT_DQ_EVENT_STATUS);

            nir_push_if(b, nir_ieq_imm(b, intr->src[2].ssa,
                                       WEFT_CLK_PROFILING_COMMAND_EXEC_TIME));
            {
               nir_push_if(b, nir_ilt(b, nir_imm_int(b, 0), status));
               nir_store_global(b, nir_iadd_imm(b, ev, WEFT_DQ_EVENT_PROFILE), 8, value, 1);
               nir_push_else(b, NULL);
               {
                  nir_push_if(b, nir_ieq_imm(b, status, 0));
                  nir_def *start = nir_load_global(b, nir_iadd_imm(b, ev, WEFT_DQ_EVENT_START),
                                                   8, 1, 64);
                  nir_def *end = nir_load_global(b, nir_iadd_imm(b, ev, WEFT_DQ_EVENT_END), 8,
                                                 1, 64);
                  nir_def *ns = nir_isub(b, end, start);
                  nir_store_global(b, value, 8, ns, 1);
                  nir_store_global(b, nir_iadd_imm(b, value, 8), 8, ns, 1);
                  nir_pop_if(b, NULL);
               }
               nir_pop_if(b, NULL);
            }
            nir_pop_if(b, NULL);
            break;
         }
         default:
            break;
         }
         nir_pop_if(b, NULL);
      }
   }
   nir_pop_if(b, NULL);
   return result ? nir_load_var(b, result) : NULL;
}

static bool
weft_lower_enqueue(nir_builder *b, nir_intrinsic_instr *intr, void *data)
{
   const struct weft_enqueue_limits *limits = data;
   nir_variable *ret;
   nir_def *value;

   b->cursor = nir_before_instr(&intr->instr);
   switch (intr->intrinsic) {
   case nir_intrinsic_enqueue_kernel:
   case nir_intrinsic_enqueue_marker:
      ret = nir_local_variable_create(b->impl, glsl_int_type(), "weft_enq_ret");
      if (intr->intrinsic == nir_intrinsic_enqueue_kernel)
         weft_lower_enqueue_kernel(b, intr, ret, limits);
      else
         weft_lower_enqueue_marker(b, intr, ret);
      value = nir_u2uN(b, nir_load_var(b, ret), intr->def.bit_size);
      break;
   case nir_intrinsic_create_user_event:
   case nir_intrinsic_is_valid_event:
   case nir_intrinsic_retain_event:
   case nir_intrinsic_release_event:
   case nir_intrinsic_set_user_event_status:
   case nir_intrinsic_capture_event_profiling_info:
      value = weft_lower_event_function(b, intr);
      break;
   default:
      return false;
   }
   if (value)
      nir_def_replace(&intr->def, value);
   else
      nir_instr_remove(&intr->instr);
   return true;
}

bool
weft_nir_lower_enqueue_kernel(nir_shader *nir, unsigned max_workgroup_size, unsigned max_shared)
{
   struct weft_enqueue_limits limits = {
      .max_workgroup_size = max_workgroup_size,
      .max_local = weft_nir_local_mem_size(max_shared, max_workgroup_size),
      .max_shared = max_shared,
   };

   if (!nir_shader_intrinsics_pass(nir, weft_lower_enqueue, nir_metadata_none, &limits))
      return false;
   /* The result and the loop counters are variables, made values first:
    * lowering generic access lowers function_temp with it.  The block
    * literals are read through generic pointers. */
   NIR_PASS(_, nir, nir_lower_vars_to_ssa);
   NIR_PASS(_, nir, nir_lower_explicit_io, nir_var_mem_generic,
            nir_address_format_62bit_generic);
   return true;
}
