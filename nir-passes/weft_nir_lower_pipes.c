/* SPDX-License-Identifier: MIT */
/*
 * Lowers the OpenCL pipe intrinsics (reserve_read/write_pipe,
 * commit_read/write_pipe, pipe_packet_address, is_valid_reserve_id,
 * get_pipe_num/max_packets, which spirv_to_nir makes of SPIR-V's pipe
 * instructions) onto global atomics, loads, stores and fences; the
 * reservations of a sub-group or a work-group are made by one invocation
 * and shared through a sub-group broadcast or shared local memory.
 *
 * The pipe is Rusticl's buffer (PipeInfo in core/memory.rs, and
 * Documentation/gpu/weft/pipes.rst):
 *
 *   0    u32 packet size          (set by clCreatePipe)
 *   4    u32 maximum packets      (set by clCreatePipe)
 *   8    u32 write position       next packet a writer reserves
 *   12   u32 read position        next packet a reader reserves
 *   128  the ring: 2^shift slots of a packet each, 2^shift the maximum
 *        rounded up to a power of two
 *   then, 4-aligned, a u32 state per slot
 *
 * Positions count packets since creation (modulo 2^32); position p lives
 * in slot p & (2^shift - 1), in its lap L = p >> shift.  A slot's state is
 * 2L when it is free for the writer of lap L, 2L + 1 when that packet is
 * written and committed, 2L + 2 (free for lap L + 1) when it was read and
 * committed, all modulo 2^(33 - shift) so that the laps wrap with the
 * positions.  A reservation of n packets at position p succeeds when all n
 * slots are in the state it needs (and, for writers, when the pipe then
 * holds at most its maximum) and a compare-and-swap moves the position
 * from p to p + n; when the slots are not ready and no position moved
 * since it was read, the reservation fails (the pipe is full, or empty);
 * a commit moves the n states on from the ones the reservation found, and
 * leaves a slot in any other state alone.  Nobody waits for anybody: a reservation
 * fails rather than wait, commits may come in any order, and a packet is
 * never given to two readers or lost.
 *
 * A reserve id is the 64-bit value (first position, count), count 0 when
 * the reservation failed.
 */
#include "compiler/nir/nir_builder.h"

#include "weft_nir_passes.h"

#define WEFT_PIPE_PACKET_SIZE  0
#define WEFT_PIPE_MAX_PACKETS  4
#define WEFT_PIPE_WRITE_POS    8
#define WEFT_PIPE_READ_POS     12
#define WEFT_PIPE_HEADER_SIZE  128
/* The work-group's reserve id in shared local memory. */
#define WEFT_PIPE_SLOT_BYTES   8

struct weft_pipe {
   nir_def *addr; /* the header */
   nir_def *packet_size, *max_packets;
   nir_def *slot_mask, *shift, *state_mask;
   nir_def *states; /* address of slot 0's state */
};

struct weft_pipe_state {
   unsigned slm_base; /* the slot area's first slot */
};

static nir_def *
weft_pipe_field_addr(nir_builder *b, nir_def *pipe, unsigned offset)
{
   return nir_iadd_imm(b, pipe, offset);
}

static nir_def *
weft_pipe_load_field(nir_builder *b, nir_def *pipe, unsigned offset)
{
   return nir_load_global(b, weft_pipe_field_addr(b, pipe, offset), 4, 1, 32);
}

/* The position, read atomically so that no other access moves across it. */
static nir_def *
weft_pipe_load_position(nir_builder *b, nir_def *pipe, unsigned offset)
{
   return nir_global_atomic(b, 32, weft_pipe_field_addr(b, pipe, offset), nir_imm_int(b, 0),
                            .atomic_op = nir_atomic_op_iadd);
}

static void
weft_pipe_fence(nir_builder *b)
{
   nir_barrier(b, .execution_scope = SCOPE_NONE, .memory_scope = SCOPE_DEVICE,
               .memory_semantics = NIR_MEMORY_ACQ_REL, .memory_modes = nir_var_mem_global);
}

static struct weft_pipe
weft_pipe_open(nir_builder *b, nir_def *addr)
{
   struct weft_pipe p = { .addr = addr };

   p.packet_size = weft_pipe_load_field(b, addr, WEFT_PIPE_PACKET_SIZE);
   p.max_packets = weft_pipe_load_field(b, addr, WEFT_PIPE_MAX_PACKETS);
   /* ceil(log2(max)): the most significant bit of 2 * max - 1 */
   p.shift = nir_ufind_msb(b, nir_iadd_imm(b, nir_ishl_imm(b, p.max_packets, 1), -1));
   nir_def *slots = nir_ishl(b, nir_imm_int(b, 1), p.shift);
   p.slot_mask = nir_iadd_imm(b, slots, -1);
   /* 2^(33 - shift) - 1, without a shift by 32 */
   p.state_mask = nir_iadd_imm(b, nir_ishl_imm(b, nir_ushr(b, nir_imm_int(b, -1), p.shift), 1), 1);
   nir_def *ring_end = nir_iadd_imm(b, nir_imul(b, slots, p.packet_size), WEFT_PIPE_HEADER_SIZE);
   nir_def *states = nir_iand_imm(b, nir_iadd_imm(b, ring_end, 3), ~3);
   p.states = nir_iadd(b, addr, nir_u2u64(b, states));
   return p;
}

/* The state slot @pos is in has when it is ready for its writer (@phase 0),
 * holds its packet (1), or was read (2). */
static nir_def *
weft_pipe_state_value(nir_builder *b, const struct weft_pipe *p, nir_def *pos, unsigned phase)
{
   nir_def *lap = nir_ushr(b, pos, p->shift);
   return nir_iand(b, nir_iadd_imm(b, nir_ishl_imm(b, lap, 1), phase), p->state_mask);
}

static nir_def *
weft_pipe_state_addr(nir_builder *b, const struct weft_pipe *p, nir_def *pos)
{
   nir_def *slot = nir_iand(b, pos, p->slot_mask);
   return nir_iadd(b, p->states, nir_u2u64(b, nir_ishl_imm(b, slot, 2)));
}

static nir_def *
weft_pipe_rid_first(nir_builder *b, nir_def *rid)
{
   return nir_unpack_64_2x32_split_x(b, rid);
}

static nir_def *
weft_pipe_rid_count(nir_builder *b, nir_def *rid)
{
   return nir_unpack_64_2x32_split_y(b, rid);
}

/* True when the @n slots from @first are all in the state @phase. */
static nir_def *
weft_pipe_slots_in_state(nir_builder *b, const struct weft_pipe *p, nir_def *first, nir_def *n,
                         unsigned phase)
{
   nir_variable *k = nir_local_variable_create(b->impl, glsl_uint_type(), "weft_pipe_k");
   nir_variable *all = nir_local_variable_create(b->impl, glsl_bool_type(), "weft_pipe_all");

   nir_store_var(b, k, nir_imm_int(b, 0), 1);
   nir_store_var(b, all, nir_imm_true(b), 1);
   nir_push_loop(b);
   {
      nir_def *i = nir_load_var(b, k);
      nir_break_if(b, nir_uge(b, i, n));
      nir_def *pos = nir_iadd(b, first, i);
      nir_def *state = nir_load_global(b, weft_pipe_state_addr(b, p, pos), 4, 1, 32);
      nir_push_if(b, nir_ine(b, state, weft_pipe_state_value(b, p, pos, phase)));
      {
         nir_store_var(b, all, nir_imm_false(b), 1);
         nir_jump(b, nir_jump_break);
      }
      nir_pop_if(b, NULL);
      nir_store_var(b, k, nir_iadd_imm(b, i, 1), 1);
   }
   nir_pop_loop(b, NULL);
   return nir_load_var(b, all);
}

/* The pipe takes @n packets of @packet_size bytes at all: not 0, not more
 * than it holds, and packets of its size (a kernel whose packet type is not
 * the pipe's gets none). */
static nir_def *
weft_pipe_usable(nir_builder *b, const struct weft_pipe *p, nir_def *n, unsigned packet_size)
{
   return nir_iand(b, nir_iand(b, nir_ine_imm(b, n, 0), nir_uge(b, p->max_packets, n)),
                   nir_ieq_imm(b, p->packet_size, packet_size));
}

/* @n packets from the write (read) position: the reserve id, invalid when
 * the pipe is full (empty).  @n must be usable. */
static nir_def *
weft_pipe_reserve_range(nir_builder *b, const struct weft_pipe *p, nir_def *n, bool write)
{
   const unsigned own = write ? WEFT_PIPE_WRITE_POS : WEFT_PIPE_READ_POS;
   nir_variable *rid = nir_local_variable_create(b->impl, glsl_uint64_t_type(), "weft_pipe_rid");
   nir_def *pipe = p->addr;

   nir_store_var(b, rid, nir_imm_int64(b, 0), 1);
   nir_push_loop(b);
   {
      /* The read position first: it never passes the write position. */
      nir_def *read_pos = weft_pipe_load_position(b, pipe, WEFT_PIPE_READ_POS);
      nir_def *first = write ? weft_pipe_load_position(b, pipe, WEFT_PIPE_WRITE_POS) : read_pos;
      nir_def *room = nir_imm_true(b), *no = nir_imm_false(b);

      if (write) {
         nir_def *held = nir_isub(b, first, read_pos);
         room = nir_uge(b, p->max_packets, nir_iadd(b, held, n));
      }
      nir_push_if(b, room);
      nir_def *ready = weft_pipe_slots_in_state(b, p, first, n, write ? 0 : 1);
      nir_pop_if(b, NULL);
      ready = nir_if_phi(b, ready, no);

      nir_if *got_slots = nir_push_if(b, ready);
      {
         nir_def *seen = nir_global_atomic_swap(b, 32, weft_pipe_field_addr(b, pipe, own), first,
                                                nir_iadd(b, first, n),
                                                .atomic_op = nir_atomic_op_cmpxchg);
         nir_push_if(b, nir_ieq(b, seen, first));
         {
            nir_store_var(b, rid, nir_pack_64_2x32_split(b, first, n), 1);
            nir_jump(b, nir_jump_break);
         }
         nir_pop_if(b, NULL);
      }
      nir_push_else(b, got_slots);
      {
         /* The pipe looked full (empty), unless another reservation or
          * commit moved a position after we read it: then the slots we
          * checked were someone else's, look again. */
         nir_def *moved = nir_ine(b, weft_pipe_load_position(b, pipe, WEFT_PIPE_READ_POS),
                                  read_pos);
         if (write) {
            moved = nir_ior(b, moved, nir_ine(b, weft_pipe_load_position(b, pipe,
                                                                         WEFT_PIPE_WRITE_POS),
                                              first));
         }
         nir_break_if(b, nir_inot(b, moved));
      }
      nir_pop_if(b, got_slots);
   }
   nir_pop_loop(b, NULL);
   return nir_load_var(b, rid);
}

/* A reader sees the packets its writers committed. */
static void
weft_pipe_acquire(nir_builder *b, bool write)
{
   if (!write)
      weft_pipe_fence(b);
}

/* A reservation by the one invocation that runs this (a group's). */
static nir_def *
weft_pipe_reserve_alone(nir_builder *b, nir_def *pipe, nir_def *n, unsigned packet_size,
                        bool write)
{
   struct weft_pipe p = weft_pipe_open(b, pipe);
   nir_def *none = nir_imm_int64(b, 0);

   nir_push_if(b, weft_pipe_usable(b, &p, n, packet_size));
   nir_def *rid = weft_pipe_reserve_range(b, &p, n, write);
   nir_pop_if(b, NULL);
   rid = nir_if_phi(b, rid, none);
   weft_pipe_acquire(b, write);
   return rid;
}

/* The largest reservation an invocation makes together with its sub-group:
 * 32 of them add up without overflow. */
#define WEFT_PIPE_MAX_SHARED_RESERVATION 0xffff

/* Every invocation's own reservation of @n packets.  The invocations of a
 * sub-group that reserve at once first try as one: the first reserves
 * their sum and each takes its part, one compare-and-swap instead of one
 * per invocation.  When the sum does not fit, each tries alone, so every
 * invocation still gets its packets whenever it would have alone. */
static nir_def *
weft_pipe_reserve_each(nir_builder *b, nir_def *pipe, nir_def *n, unsigned packet_size,
                       bool write)
{
   nir_variable *rid = nir_local_variable_create(b->impl, glsl_uint64_t_type(), "weft_pipe_rid");
   struct weft_pipe p = weft_pipe_open(b, pipe);
   nir_def *usable = weft_pipe_usable(b, &p, n, packet_size);
   nir_def *shared = nir_iand(b, usable, nir_ule_imm(b, n, WEFT_PIPE_MAX_SHARED_RESERVATION));
   nir_def *part = nir_bcsel(b, shared, n, nir_imm_int(b, 0));
   nir_def *total = nir_reduce(b, part, .reduction_op = nir_op_iadd);
   nir_def *before = nir_exclusive_scan(b, part, .reduction_op = nir_op_iadd);
   nir_def *none = nir_imm_int64(b, 0);

   nir_push_if(b, nir_iand(b, nir_elect(b, 1), nir_ine_imm(b, total, 0)));
   nir_def *all = weft_pipe_reserve_range(b, &p, total, write);
   nir_pop_if(b, NULL);
   all = nir_if_phi(b, all, none);
   nir_def *first = nir_read_first_invocation(b, weft_pipe_rid_first(b, all));
   nir_def *got = nir_ine_imm(b, nir_read_first_invocation(b, weft_pipe_rid_count(b, all)), 0);

   nir_store_var(b, rid, nir_bcsel(b, nir_iand(b, shared, got),
                                   nir_pack_64_2x32_split(b, nir_iadd(b, first, before), n),
                                   none), 1);
   nir_push_if(b, nir_iand(b, usable, nir_inot(b, nir_iand(b, shared, got))));
   nir_store_var(b, rid, weft_pipe_reserve_range(b, &p, n, write), 1);
   nir_pop_if(b, NULL);
   weft_pipe_acquire(b, write);
   return nir_load_var(b, rid);
}

/* One invocation's commit of @rid: the packets' states move on, each from
 * the state the reservation found it in, with a compare-and-swap; a slot in
 * any other state is left alone.  So a reservation committed twice (or a
 * reserve id committed on the wrong side) changes nothing the second time,
 * even when the slot has since been read, or written again in its next lap,
 * where a plain store would have put it back a phase and wedged it. */
static void
weft_pipe_commit(nir_builder *b, nir_def *pipe, nir_def *rid, bool write)
{
   nir_variable *k = nir_local_variable_create(b->impl, glsl_uint_type(), "weft_pipe_k");
   nir_def *first = weft_pipe_rid_first(b, rid);
   nir_def *n = weft_pipe_rid_count(b, rid);

   /* The packets are written, or read, before their slots change hands. */
   weft_pipe_fence(b);
   nir_push_if(b, nir_ine_imm(b, n, 0));
   {
      struct weft_pipe p = weft_pipe_open(b, pipe);

      nir_store_var(b, k, nir_imm_int(b, 0), 1);
      nir_push_loop(b);
      {
         nir_def *i = nir_load_var(b, k);
         nir_break_if(b, nir_uge(b, i, n));
         nir_def *pos = nir_iadd(b, first, i);
         nir_global_atomic_swap(b, 32, weft_pipe_state_addr(b, &p, pos),
                                weft_pipe_state_value(b, &p, pos, write ? 0 : 1),
                                weft_pipe_state_value(b, &p, pos, write ? 1 : 2),
                                .atomic_op = nir_atomic_op_cmpxchg);
         nir_store_var(b, k, nir_iadd_imm(b, i, 1), 1);
      }
      nir_pop_loop(b, NULL);
   }
   nir_pop_if(b, NULL);
}

static nir_def *
weft_pipe_packet_address(nir_builder *b, nir_def *pipe, nir_def *rid, nir_def *index,
                         unsigned packet_size)
{
   struct weft_pipe p = weft_pipe_open(b, pipe);
   nir_def *slot = nir_iand(b, nir_iadd(b, weft_pipe_rid_first(b, rid), index), p.slot_mask);
   nir_def *offset = nir_iadd_imm(b, nir_imul_imm(b, slot, packet_size), WEFT_PIPE_HEADER_SIZE);
   nir_def *valid = nir_ult(b, index, weft_pipe_rid_count(b, rid));

   return nir_bcsel(b, valid, nir_iadd(b, pipe, nir_u2u64(b, offset)), nir_imm_int64(b, 0));
}

/* A reservation by the sub-group or the work-group: one invocation
 * reserves, every invocation gets its reserve id. */
static nir_def *
weft_pipe_group_reserve(nir_builder *b, struct weft_pipe_state *s, nir_intrinsic_instr *intr,
                        bool write)
{
   mesa_scope scope = nir_intrinsic_execution_scope(intr);
   nir_def *pipe = intr->src[0].ssa, *n = intr->src[1].ssa;
   unsigned packet_size = nir_intrinsic_packet_size(intr);
   nir_def *rid;

   if (scope == SCOPE_INVOCATION)
      return weft_pipe_reserve_each(b, pipe, n, packet_size, write);

   if (scope == SCOPE_SUBGROUP) {
      /* (the phi's sources must come before it) */
      nir_def *undef = nir_undef(b, 1, 64);

      nir_push_if(b, nir_elect(b, 1));
      nir_def *mine = weft_pipe_reserve_alone(b, pipe, n, packet_size, write);
      nir_pop_if(b, NULL);
      rid = nir_if_phi(b, mine, undef);
      nir_def *lo = nir_read_first_invocation(b, weft_pipe_rid_first(b, rid));
      nir_def *hi = nir_read_first_invocation(b, weft_pipe_rid_count(b, rid));
      return nir_pack_64_2x32_split(b, lo, hi);
   }

   /* Earlier users of the slot have read it. */
   weft_nir_workgroup_barrier(b);
   nir_push_if(b, nir_ieq_imm(b, nir_load_local_invocation_index(b), 0));
   nir_store_shared(b, weft_pipe_reserve_alone(b, pipe, n, packet_size, write), nir_imm_int(b, 0),
                    .base = s->slm_base, .align_mul = WEFT_PIPE_SLOT_BYTES);
   nir_pop_if(b, NULL);
   weft_nir_workgroup_barrier(b);
   return nir_load_shared(b, 1, 64, nir_imm_int(b, 0), .base = s->slm_base,
                          .align_mul = WEFT_PIPE_SLOT_BYTES);
}

/* The group's packets are all accessed before one invocation commits. */
static void
weft_pipe_group_commit(nir_builder *b, nir_intrinsic_instr *intr, bool write)
{
   mesa_scope scope = nir_intrinsic_execution_scope(intr);
   nir_def *pipe = intr->src[0].ssa, *rid = intr->src[1].ssa;

   if (scope == SCOPE_INVOCATION) {
      weft_pipe_commit(b, pipe, rid, write);
      return;
   }
   if (scope == SCOPE_WORKGROUP) {
      nir_barrier(b, .execution_scope = SCOPE_WORKGROUP, .memory_scope = SCOPE_DEVICE,
                  .memory_semantics = NIR_MEMORY_ACQ_REL,
                  .memory_modes = nir_var_mem_global | nir_var_mem_shared);
      nir_push_if(b, nir_ieq_imm(b, nir_load_local_invocation_index(b), 0));
   } else {
      nir_push_if(b, nir_elect(b, 1));
   }
   weft_pipe_commit(b, pipe, rid, write);
   nir_pop_if(b, NULL);
}

static bool
weft_lower_pipe(nir_builder *b, nir_intrinsic_instr *intr, void *data)
{
   struct weft_pipe_state *s = data;
   nir_def *res = NULL;

   if (!weft_nir_is_pipe_intrinsic(intr->intrinsic))
      return false;

   b->cursor = nir_before_instr(&intr->instr);
   switch (intr->intrinsic) {
   case nir_intrinsic_reserve_read_pipe:
   case nir_intrinsic_reserve_write_pipe:
      res = weft_pipe_group_reserve(b, s, intr,
                                    intr->intrinsic == nir_intrinsic_reserve_write_pipe);
      break;
   case nir_intrinsic_commit_read_pipe:
   case nir_intrinsic_commit_write_pipe:
      weft_pipe_group_commit(b, intr, intr->intrinsic == nir_intrinsic_commit_write_pipe);
      break;
   case nir_intrinsic_pipe_packet_address:
      res = weft_pipe_packet_address(b, intr->src[0].ssa, intr->src[1].ssa, intr->src[2].ssa,
                                     nir_intrinsic_packet_size(intr));
      break;
   case nir_intrinsic_is_valid_reserve_id:
      res = nir_ine_imm(b, weft_pipe_rid_count(b, intr->src[0].ssa), 0);
      break;
   case nir_intrinsic_get_pipe_num_packets: {
      /* Reserved for writing and not yet for reading: a snapshot. */
      nir_def *pipe = intr->src[0].ssa;
      nir_def *read_pos = weft_pipe_load_position(b, pipe, WEFT_PIPE_READ_POS);
      nir_def *write_pos = weft_pipe_load_position(b, pipe, WEFT_PIPE_WRITE_POS);
      res = nir_umin(b, nir_isub(b, write_pos, read_pos),
                     weft_pipe_load_field(b, pipe, WEFT_PIPE_MAX_PACKETS));
      break;
   }
   case nir_intrinsic_get_pipe_max_packets:
      res = weft_pipe_load_field(b, intr->src[0].ssa, WEFT_PIPE_MAX_PACKETS);
      break;
   default:
      unreachable("not a pipe intrinsic");
   }

   if (res)
      nir_def_replace(&intr->def, res);
   else
      nir_instr_remove(&intr->instr);
   return true;
}

bool
weft_nir_lower_pipes(nir_shader *nir, unsigned slot_base)
{
   struct weft_pipe_state s = { .slm_base = slot_base };

   if (!nir_shader_intrinsics_pass(nir, weft_lower_pipe, nir_metadata_none, &s))
      return false;
   /* The loop counters and reserve ids. */
   NIR_PASS(_, nir, nir_lower_vars_to_ssa);
   return true;
}
