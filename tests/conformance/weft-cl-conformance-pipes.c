// SPDX-License-Identifier: MIT
/*
 * The pipe family of weft-cl-conformance: every pipe builtin of OpenCL C
 * 2.0 (read_pipe and write_pipe with 2 and 4 arguments, reserve_*_pipe,
 * commit_*_pipe, is_valid_reserve_id, get_pipe_num_packets,
 * get_pipe_max_packets, and the sub_group_ and work_group_ reservations
 * and commits) on scalars from char to double, vectors and user structs of
 * 1 byte up to the device's largest packet, at SIMD 8, 16 and 32, in
 * uniform work-groups, work-groups whose last sub-group is partial and
 * non-uniform NDRanges; the API (clCreatePipe, clGetPipeInfo, pipe kernel
 * arguments) and its errors; thousands of work-groups contending for one
 * pipe; pipes across kernels and queues; kernels that misuse reservations
 * or never finish.
 *
 * Every packet carries its number in its first bytes and bytes derived from
 * it in the rest, so the checks can tell that every packet written was read
 * exactly once and arrived whole; a write or read that fails must fail
 * whole (a reservation gets all its packets or none).
 */
#include "weft-cl-conformance.h"

#include <CL/cl_ext.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pipe_type {
   const char *name; /* OpenCL C type; also names the kernels */
   unsigned size;
   bool slice;       /* in the VM's slice: a scalar and a struct, every builtin */
};

/* The user structs, declared in every program. */
#define PIPE_STRUCTS                                                                    \
   "typedef struct { char c; } byte1;\n"                                                \
   "typedef struct { char c; int i; short s; } rec;\n"                                  \
   "typedef struct { uint v[256]; } big;\n"

static const struct pipe_type pipe_types[] = {
   {"char", 1, false},     {"uchar", 1, false},   {"short", 2, false},
   {"ushort", 2, false},   {"int", 4, true},      {"uint", 4, false},
   {"long", 8, false},     {"ulong", 8, false},   {"half", 2, false},
   {"float", 4, false},    {"double", 8, false},   {"char2", 2, false},
   {"uchar3", 4, false},   {"short4", 8, false},  {"int8", 32, false},
   {"float4", 16, false},   {"double2", 16, false}, {"long16", 128, false},
   {"half8", 16, false},   {"byte1", 1, false},    {"rec", 12, true},
   {"big", 1024, false},
};
#define NUM_PIPE_TYPES (sizeof(pipe_types) / sizeof(pipe_types[0]))

struct pipe_shape {
   const char *name;
   size_t global, local;
};

static const struct pipe_shape pipe_shapes[] = {
   {"1d-uniform", 256, 64},
   {"1d-partial-sg", 240, 60},
   {"1d-non-uniform", 250, 64},
};
#define NUM_PIPE_SHAPES (sizeof(pipe_shapes) / sizeof(pipe_shapes[0]))

static const unsigned widths[] = {8, 16, 32};

/* --- Kernels --------------------------------------------------------------- */

/* Per type T:
 *   w2_T / r2_T   2-argument write_pipe / read_pipe of one packet per item
 *   w4_T / r4_T   reserve_*_pipe of 2 packets per item, the 4-argument forms
 *                 at indices 0 and 1 (straight from and to global memory),
 *                 commit_*_pipe
 *   sgw_T / sgr_T sub_group_reserve_*_pipe of the sub-group's size, one
 *                 packet per item at its sub-group local id
 *   wgw_T / wgr_T work_group_reserve_*_pipe of the work-group's size
 *   n_T           get_pipe_num_packets, get_pipe_max_packets
 * Statuses: the builtins' results; -100 for an invalid reserve id.
 * @slice: only the slice's types (the VM builds every kernel under TCG).
 */
static char *
pipe_source(bool slice)
{
   char *s = append(NULL, "%s",
                     "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
                     "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                     "#define REQD __attribute__((intel_reqd_sub_group_size(SIMD)))\n"
                     PIPE_STRUCTS);

   for (unsigned t = 0; t < NUM_PIPE_TYPES; t++) {
      const char *T = pipe_types[t].name;

      if (slice && !pipe_types[t].slice)
         continue;
      s = append(s,
         "kernel REQD void w2_%1$s(write_only pipe %1$s p, global const %1$s *src,\n"
         "                         global int *st)\n"
         "{\n"
         "   size_t i = get_global_id(0);\n"
         "   %1$s v = src[i];\n"
         "   st[i] = write_pipe(p, &v);\n"
         "}\n"
         "kernel REQD void r2_%1$s(read_only pipe %1$s p, global %1$s *dst, global int *st)\n"
         "{\n"
         "   size_t i = get_global_id(0);\n"
         "   %1$s v;\n"
         "   int r = read_pipe(p, &v);\n"
         "   st[i] = r;\n"
         "   if (r == 0)\n"
         "      dst[i] = v;\n"
         "}\n"
         "kernel REQD void w4_%1$s(write_only pipe %1$s p, global const %1$s *src,\n"
         "                         global int *st)\n"
         "{\n"
         "   size_t i = get_global_id(0);\n"
         "   reserve_id_t r = reserve_write_pipe(p, 2);\n"
         "   if (is_valid_reserve_id(r)) {\n"
         "      st[2 * i] = write_pipe(p, r, 0, &src[2 * i]);\n"
         "      st[2 * i + 1] = write_pipe(p, r, 1, &src[2 * i + 1]);\n"
         "      commit_write_pipe(p, r);\n"
         "   } else {\n"
         "      st[2 * i] = st[2 * i + 1] = -100;\n"
         "   }\n"
         "}\n"
         "kernel REQD void r4_%1$s(read_only pipe %1$s p, global %1$s *dst, global int *st)\n"
         "{\n"
         "   size_t i = get_global_id(0);\n"
         "   reserve_id_t r = reserve_read_pipe(p, 2);\n"
         "   if (is_valid_reserve_id(r)) {\n"
         "      st[2 * i] = read_pipe(p, r, 0, &dst[2 * i]);\n"
         "      st[2 * i + 1] = read_pipe(p, r, 1, &dst[2 * i + 1]);\n"
         "      commit_read_pipe(p, r);\n"
         "   } else {\n"
         "      st[2 * i] = st[2 * i + 1] = -100;\n"
         "   }\n"
         "}\n"
         "kernel REQD void sgw_%1$s(write_only pipe %1$s p, global const %1$s *src,\n"
         "                          global int *st)\n"
         "{\n"
         "   size_t i = get_global_id(0);\n"
         "   reserve_id_t r = sub_group_reserve_write_pipe(p, get_sub_group_size());\n"
         "   if (is_valid_reserve_id(r)) {\n"
         "      %1$s v = src[i];\n"
         "      st[i] = write_pipe(p, r, get_sub_group_local_id(), &v);\n"
         "   } else {\n"
         "      st[i] = -100;\n"
         "   }\n"
         "   sub_group_commit_write_pipe(p, r);\n"
         "}\n"
         "kernel REQD void sgr_%1$s(read_only pipe %1$s p, global %1$s *dst, global int *st)\n"
         "{\n"
         "   size_t i = get_global_id(0);\n"
         "   reserve_id_t r = sub_group_reserve_read_pipe(p, get_sub_group_size());\n"
         "   if (is_valid_reserve_id(r)) {\n"
         "      %1$s v;\n"
         "      st[i] = read_pipe(p, r, get_sub_group_local_id(), &v);\n"
         "      dst[i] = v;\n"
         "   } else {\n"
         "      st[i] = -100;\n"
         "   }\n"
         "   sub_group_commit_read_pipe(p, r);\n"
         "}\n"
         "kernel REQD void wgw_%1$s(write_only pipe %1$s p, global const %1$s *src,\n"
         "                          global int *st)\n"
         "{\n"
         "   size_t i = get_global_id(0);\n"
         "   reserve_id_t r = work_group_reserve_write_pipe(p, get_local_size(0));\n"
         "   if (is_valid_reserve_id(r))\n"
         "      st[i] = write_pipe(p, r, get_local_id(0), &src[i]);\n"
         "   else\n"
         "      st[i] = -100;\n"
         "   work_group_commit_write_pipe(p, r);\n"
         "}\n"
         "kernel REQD void wgr_%1$s(read_only pipe %1$s p, global %1$s *dst, global int *st)\n"
         "{\n"
         "   size_t i = get_global_id(0);\n"
         "   reserve_id_t r = work_group_reserve_read_pipe(p, get_local_size(0));\n"
         "   if (is_valid_reserve_id(r))\n"
         "      st[i] = read_pipe(p, r, get_local_id(0), &dst[i]);\n"
         "   else\n"
         "      st[i] = -100;\n"
         "   work_group_commit_read_pipe(p, r);\n"
         "}\n"
         "kernel void n_%1$s(read_only pipe %1$s p, global uint *out)\n"
         "{\n"
         "   out[0] = get_pipe_num_packets(p);\n"
         "   out[1] = get_pipe_max_packets(p);\n"
         "}\n",
         T);
   }
   return s;
}

/* --- Running ----------------------------------------------------------- */

/* Packet @index of @size bytes: the index in the first bytes (as many as
 * fit), the rest derived from it. */
static void
make_packet(uint8_t *p, unsigned size, uint32_t index)
{
   for (unsigned b = 0; b < size; b++)
      p[b] = b < 4 ? (uint8_t)(index >> (8 * b)) : (uint8_t)(index * 131u + b * 29u + 7u);
}

static uint32_t
packet_index(const uint8_t *p, unsigned size)
{
   uint32_t index = 0;

   for (unsigned b = 0; b < size && b < 4; b++)
      index |= (uint32_t)p[b] << (8 * b);
   return index;
}

static cl_mem
new_pipe(struct cl *cl, unsigned packet_size, unsigned max_packets)
{
   cl_int err;
   cl_mem p = clCreatePipe(cl->ctx, 0, packet_size, max_packets, NULL, &err);

   if (!p)
      fprintf(stderr, "clCreatePipe(%u, %u): %d\n", packet_size, max_packets, err);
   return p;
}

static cl_mem
new_buffer(struct cl *cl, size_t bytes, const void *init)
{
   cl_int err;
   void *zero = init ? NULL : calloc(1, bytes);
   cl_mem b = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes,
                             init ? (void *)init : zero, &err);

   free(zero);
   return b;
}

/* Runs kernel @name of @prog on @q with the memory objects @args over
 * @global items in work-groups of @local (0: the implementation's);
 * returns the kernel's event status (CL_COMPLETE, or negative; a failure
 * to enqueue is reported as its error). */
static cl_int
run_kernel(cl_command_queue q, cl_program prog, const char *name, size_t global, size_t local,
           unsigned nargs, const cl_mem *args, cl_uint nwait, const cl_event *wait,
           cl_event *done)
{
   cl_int err, status = CL_COMPLETE;
   cl_kernel k = clCreateKernel(prog, name, &err);
   cl_event ev = NULL;

   if (!k) {
      fprintf(stderr, "clCreateKernel(%s): %d\n", name, err);
      return err;
   }
   for (unsigned a = 0; a < nargs; a++) {
      err = clSetKernelArg(k, a, sizeof(cl_mem), &args[a]);
      if (err) {
         fprintf(stderr, "clSetKernelArg(%s, %u): %d\n", name, a, err);
         clReleaseKernel(k);
         return err;
      }
   }
   err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, local ? &local : NULL, nwait, wait, &ev);
   clReleaseKernel(k);
   if (err) {
      fprintf(stderr, "clEnqueueNDRangeKernel(%s): %d\n", name, err);
      return err;
   }
   if (done) {
      *done = ev;
      return CL_COMPLETE;
   }
   clWaitForEvents(1, &ev);
   clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL);
   clReleaseEvent(ev);
   return status;
}

static bool
read_back(struct cl *cl, cl_mem b, size_t bytes, void *out)
{
   return clEnqueueReadBuffer(cl->q, b, CL_TRUE, 0, bytes, out, 0, NULL, NULL) == CL_SUCCESS;
}

/* The packets that left a pipe, checked against the ones that entered it. */
struct ledger {
   unsigned size, count;  /* packet size, packets made */
   uint8_t *made;         /* count packets */
   bool *written, *read;  /* per packet */
   unsigned bad;          /* duplicates, strangers, torn packets */
   char why[160];
};

static void
ledger_init(struct ledger *l, unsigned size, unsigned count)
{
   memset(l, 0, sizeof(*l));
   l->size = size;
   l->count = count;
   l->made = malloc((size_t)size * count);
   l->written = calloc(count, 1);
   l->read = calloc(count, 1);
   for (unsigned i = 0; i < count; i++)
      make_packet(l->made + (size_t)i * size, size, i);
}

static void
ledger_free(struct ledger *l)
{
   free(l->made);
   free(l->written);
   free(l->read);
}

static void
ledger_complain(struct ledger *l, const char *fmt, unsigned a)
{
   if (!l->bad++)
      snprintf(l->why, sizeof(l->why), fmt, a);
}

/* Items [0, n) wrote packets [first, first + n) with statuses @st. */
static void
ledger_writes(struct ledger *l, unsigned first, unsigned n, const int32_t *st)
{
   for (unsigned i = 0; i < n; i++) {
      if (st[i] == 0)
         l->written[first + i] = true;
      else if (st[i] > 0)
         ledger_complain(l, "a write returned %u", (unsigned)st[i]);
   }
}

/* Items [0, n) read @data with statuses @st. */
static void
ledger_reads(struct ledger *l, unsigned n, const uint8_t *data, const int32_t *st)
{
   for (unsigned i = 0; i < n; i++) {
      const uint8_t *p = data + (size_t)i * l->size;
      uint32_t idx;

      if (st[i] > 0)
         ledger_complain(l, "a read returned %u", (unsigned)st[i]);
      if (st[i] != 0)
         continue;
      idx = packet_index(p, l->size);
      if (idx >= l->count || !l->written[idx])
         ledger_complain(l, "read packet %u, which was never written", idx);
      else if (l->read[idx])
         ledger_complain(l, "read packet %u twice", idx);
      else if (memcmp(p, l->made + (size_t)idx * l->size, l->size))
         ledger_complain(l, "packet %u arrived torn", idx);
      else
         l->read[idx] = true;
   }
}

static unsigned
ledger_written(const struct ledger *l)
{
   unsigned n = 0;

   for (unsigned i = 0; i < l->count; i++)
      n += l->written[i];
   return n;
}

/* Every packet written was read once (the reads were checked as they came). */
static bool
ledger_balanced(struct ledger *l)
{
   for (unsigned i = 0; i < l->count; i++) {
      if (l->written[i] && !l->read[i]) {
         ledger_complain(l, "packet %u was lost", i);
         break;
      }
   }
   return !l->bad;
}

/* In every group of @group items (sub-groups are counted from the start
 * of each work-group of @local items), all statuses succeeded or all
 * failed; false (and a complaint) otherwise. */
static bool
all_or_nothing(struct ledger *l, const int32_t *st, size_t n, size_t local, size_t group)
{
   for (size_t wg = 0; wg < n; wg += local) {
      size_t wg_end = wg + local < n ? wg + local : n;
      for (size_t g = wg; g < wg_end; g += group) {
         size_t end = g + group < wg_end ? g + group : wg_end;
         for (size_t i = g; i < end; i++) {
            if ((st[i] == 0) != (st[g] == 0)) {
               ledger_complain(l, "the group at item %u got part of its reservation",
                               (unsigned)g);
               return false;
            }
         }
      }
   }
   return true;
}

static unsigned
count_ok(const int32_t *st, size_t n)
{
   unsigned ok = 0;

   for (size_t i = 0; i < n; i++)
      ok += st[i] == 0;
   return ok;
}

/* get_pipe_num_packets and get_pipe_max_packets of @pipe, by kernel @name. */
static bool
pipe_counts(struct cl *cl, cl_program prog, const char *name, cl_mem pipe, uint32_t out[2])
{
   cl_mem buf = new_buffer(cl, 8, NULL);
   cl_mem args[2] = {pipe, buf};
   bool ok;

   ok = buf && run_kernel(cl->q, prog, name, 1, 1, 2, args, 0, NULL, NULL) == CL_COMPLETE &&
        read_back(cl, buf, 8, out);
   if (buf)
      clReleaseMemObject(buf);
   return ok;
}

/* One direction of a transfer: kernel @kind_T over @items items. */
static bool
run_side(struct cl *cl, cl_program prog, const char *kind, const struct pipe_type *t,
         cl_mem pipe, size_t items, size_t local, unsigned per_item, const uint8_t *src,
         uint8_t *data, int32_t *st)
{
   char name[64];
   size_t n = items * per_item;
   cl_mem b = new_buffer(cl, n * t->size, src);
   cl_mem s = new_buffer(cl, n * 4, NULL);
   cl_mem args[3] = {pipe, b, s};
   bool ok;

   snprintf(name, sizeof(name), "%s_%s", kind, t->name);
   ok = b && s && run_kernel(cl->q, prog, name, items, local, 3, args, 0, NULL, NULL) == CL_COMPLETE &&
        read_back(cl, s, n * 4, st) && (!data || read_back(cl, b, n * t->size, data));
   if (b)
      clReleaseMemObject(b);
   if (s)
      clReleaseMemObject(s);
   return ok;
}

static void
case_done(struct ledger *l, cl_mem pipe, int32_t *st, uint8_t *data)
{
   ledger_free(l);
   if (pipe)
      clReleaseMemObject(pipe);
   free(st);
   free(data);
}

/* write_pipe/read_pipe with 2 arguments: a pipe of @cap packets gets
 * @items writes (the ones above cap fail: full), then @items reads (the
 * ones above what was written fail: empty); get_pipe_num/max_packets in
 * between and after. */
static void
case_two_args(struct cl *cl, cl_program prog, unsigned simd, const struct pipe_shape *s,
              const struct pipe_type *t, unsigned cap)
{
   size_t n = s->global;
   struct ledger l;
   int32_t *st = malloc(n * 4);
   uint8_t *data = malloc(n * t->size);
   uint32_t counts[2] = {0}, after[2] = {0};
   cl_mem pipe = new_pipe(cl, t->size, cap);
   char count_kernel[64];
   bool ran;

   snprintf(count_kernel, sizeof(count_kernel), "n_%s", t->name);

   ledger_init(&l, t->size, n);
   ran = pipe && run_side(cl, prog, "w2", t, pipe, n, s->local, 1, l.made, NULL, st);
   if (ran)
      ledger_writes(&l, 0, n, st);
   ran = ran && pipe_counts(cl, prog, count_kernel, pipe, counts);
   ran = ran && run_side(cl, prog, "r2", t, pipe, n, s->local, 1, NULL, data, st);
   if (ran)
      ledger_reads(&l, n, data, st);
   ran = ran && pipe_counts(cl, prog, count_kernel, pipe, after);
   if (ran && ledger_written(&l) != (cap < n ? cap : n))
      ledger_complain(&l, "%u writes got through", ledger_written(&l));
   if (ran && (counts[0] != ledger_written(&l) || counts[1] != cap || after[0] != 0))
      ledger_complain(&l, "get_pipe_num_packets said %u", counts[0]);
   cases_in_matrix++;
   report(ran && ledger_balanced(&l), "pipe read_pipe/write_pipe(2) %s simd%u %s: %u packets "
          "into a pipe of %u%s%s", t->name, simd, s->name, (unsigned)n, cap,
          ran ? "" : ": did not run", l.bad ? l.why : "");
   case_done(&l, pipe, st, data);
}

/* Reservations: @writer then @reader kernels of @t, the pipe sized @cap
 * packets; the writes that got through must all be read (by the readers,
 * the rest drained by r2), every reservation all-or-nothing per @group
 * items of each work-group (@per_item packets an item). */
static void
case_reserve(struct cl *cl, cl_program prog, unsigned simd, const struct pipe_shape *s,
             const struct pipe_type *t, const char *writer, const char *reader,
             unsigned per_item, size_t group, unsigned cap, const char *what)
{
   size_t items = s->global, n = items * per_item;
   struct ledger l;
   int32_t *st = malloc(n * 4);
   uint8_t *data = malloc(n * t->size);
   cl_mem pipe = new_pipe(cl, t->size, cap);
   bool ran, whole = true;

   ledger_init(&l, t->size, n);
   ran = pipe && run_side(cl, prog, writer, t, pipe, items, s->local, per_item, l.made, NULL, st);
   if (ran) {
      whole &= all_or_nothing(&l, st, n, s->local * per_item, group * per_item);
      ledger_writes(&l, 0, n, st);
   }
   ran = ran && run_side(cl, prog, reader, t, pipe, items, s->local, per_item, NULL, data, st);
   if (ran) {
      whole &= all_or_nothing(&l, st, n, s->local * per_item, group * per_item);
      ledger_reads(&l, n, data, st);
   }
   /* What the group reads left behind. */
   ran = ran && run_side(cl, prog, "r2", t, pipe, cap, 0, 1, NULL, data, st);
   if (ran)
      ledger_reads(&l, cap, data, st);
   if (ran && cap >= n && ledger_written(&l) != n)
      ledger_complain(&l, "only %u writes got through", ledger_written(&l));
   cases_in_matrix++;
   report(ran && whole && ledger_balanced(&l), "pipe %s %s simd%u %s: %u packets, pipe of %u%s%s",
          what, t->name, simd, s->name, (unsigned)n, cap, ran ? "" : ": did not run",
          l.bad ? l.why : "");
   case_done(&l, pipe, st, data);
}

static void
run_type_cases(struct cl *cl, cl_program prog, unsigned simd, const struct pipe_shape *s,
               const struct pipe_type *t)
{
   size_t n = s->global;
   /* At most 256 packets: 1-byte packets tell 256 apart. */
   unsigned cap = t->size == 1 ? 200 : (unsigned)n - 40;

   /* Overfill, then drain past empty. */
   case_two_args(cl, prog, simd, s, t, cap);
   if (t->size == 1) {
      /* 2 packets per item would pass 256: the reservations on fewer. */
      static const struct pipe_shape small = {"1d-partial-sg-96", 96, 24};
      s = &small;
      n = s->global;
   }
   /* Filled exactly. */
   case_reserve(cl, prog, simd, s, t, "w4", "r4", 2, 1, 2 * n, "reserve/commit (2 per item)");
   case_reserve(cl, prog, simd, s, t, "sgw", "sgr", 1, simd, n, "sub-group reservations");
   case_reserve(cl, prog, simd, s, t, "wgw", "wgr", 1, s->local, n, "work-group reservations");
   /* Too small for every group: the groups that fit, whole. */
   case_reserve(cl, prog, simd, s, t, "wgw", "wgr", 1, s->local, n - 10,
                "work-group reservations overfilled");
}

/* --- Contention, persistence, the API, misuse ---------------------------- */

static const char *extra_source =
   /* Built as OpenCL C 3.0, where pipes are an optional feature. */
   "#ifndef __opencl_c_pipes\n"
   "#error \"__opencl_c_pipes is not defined under OpenCL C 3.0\"\n"
   "#endif\n"
   "kernel void contend(write_only pipe uint wp, read_only pipe uint rp, global int *wst,\n"
   "                    global uint *got, global int *rst)\n"
   "{\n"
   "   size_t i = get_global_id(0);\n"
   "   if (get_group_id(0) & 1) {\n"
   "      uint v;\n"
   "      rst[i] = read_pipe(rp, &v);\n"
   "      got[i] = v;\n"
   "      wst[i] = -1;\n"
   "   } else {\n"
   "      uint v = (uint)i;\n"
   "      wst[i] = write_pipe(wp, &v);\n"
   "      rst[i] = -1;\n"
   "   }\n"
   "}\n"
   "kernel void drain(read_only pipe uint p, global uint *got, global int *st)\n"
   "{\n"
   "   size_t i = get_global_id(0);\n"
   "   uint v = 0;\n"
   "   st[i] = read_pipe(p, &v);\n"
   "   got[i] = v;\n"
   "}\n"
   "kernel void fill(write_only pipe uint p, global const uint *src, global int *st)\n"
   "{\n"
   "   size_t i = get_global_id(0);\n"
   "   st[i] = write_pipe(p, &src[i]);\n"
   "}\n"
   "kernel void commit_twice(write_only pipe uint p, global int *st)\n"
   "{\n"
   "   reserve_id_t r = reserve_write_pipe(p, 1);\n"
   "   uint v = 7;\n"
   "   st[get_global_id(0)] = is_valid_reserve_id(r) ? write_pipe(p, r, 0, &v) : -100;\n"
   "   commit_write_pipe(p, r);\n"
   "   commit_write_pipe(p, r);\n"
   "}\n"
   /* One work-item, a pipe of one packet: the second commit of a write
    * comes after the packet was read (its slot free for the next lap), that
    * of a read after the slot was written again. */
   "kernel void late_double_commit_write(write_only pipe uint wp, read_only pipe uint rp,\n"
   "                                     global int *st)\n"
   "{\n"
   "   uint a = 0xa, b = 0xb, got = 0;\n"
   "   reserve_id_t r = reserve_write_pipe(wp, 1);\n"
   "   st[0] = is_valid_reserve_id(r) ? write_pipe(wp, r, 0, &a) : -100;\n"
   "   commit_write_pipe(wp, r);\n"
   "   st[1] = read_pipe(rp, &got);\n"
   "   st[2] = got;\n"
   "   commit_write_pipe(wp, r);\n"
   "   st[3] = write_pipe(wp, &b);\n"
   "   got = 0;\n"
   "   st[4] = read_pipe(rp, &got);\n"
   "   st[5] = got;\n"
   "   st[6] = read_pipe(rp, &got);\n"
   "}\n"
   "kernel void late_double_commit_read(write_only pipe uint wp, read_only pipe uint rp,\n"
   "                                    global int *st)\n"
   "{\n"
   "   uint a = 0xa, b = 0xb, got = 0;\n"
   "   st[0] = write_pipe(wp, &a);\n"
   "   reserve_id_t r = reserve_read_pipe(rp, 1);\n"
   "   st[1] = is_valid_reserve_id(r) ? read_pipe(rp, r, 0, &got) : -100;\n"
   "   st[2] = got;\n"
   "   commit_read_pipe(rp, r);\n"
   "   st[3] = write_pipe(wp, &b);\n"
   "   commit_read_pipe(rp, r);\n"
   "   got = 0;\n"
   "   st[4] = read_pipe(rp, &got);\n"
   "   st[5] = got;\n"
   "   st[6] = read_pipe(rp, &got);\n"
   "}\n"
   "kernel void never_commit(write_only pipe uint p, global int *st)\n"
   "{\n"
   "   reserve_id_t r = reserve_write_pipe(p, 1);\n"
   "   uint v = 9;\n"
   "   st[get_global_id(0)] = is_valid_reserve_id(r) ? write_pipe(p, r, 0, &v) : -100;\n"
   "}\n"
   "kernel void wait_forever(read_only pipe uint p, global uint *got)\n"
   "{\n"
   "   uint v = 0;\n"
   "   while (read_pipe(p, &v) != 0)\n"
   "      ;\n"
   "   got[0] = v;\n"
   "}\n"
   "kernel void not_a_pipe(global uint *b, global int *st) { st[0] = b[0]; }\n"
   "kernel void counts(read_only pipe uint p, global uint *out)\n"
   "{\n"
   "   out[0] = get_pipe_num_packets(p);\n"
   "   out[1] = get_pipe_max_packets(p);\n"
   "}\n";

/* @groups work-groups of 64: the even ones write, the odd ones read, all
 * at once on one pipe of 4096 packets; then a drain.  Every packet written
 * is read once. */
static void
case_contention(struct cl *cl, cl_program prog, unsigned groups)
{
   size_t n = (size_t)groups * 64, cap = 4096;
   int32_t *wst = malloc(n * 4), *rst = malloc(n * 4), *dst = malloc(cap * 4);
   uint32_t *got = malloc(n * 4), *dgot = malloc(cap * 4);
   uint8_t *seen = calloc(n, 1);
   cl_mem pipe = new_pipe(cl, 4, cap);
   cl_mem bw = new_buffer(cl, n * 4, NULL), bg = new_buffer(cl, n * 4, NULL);
   cl_mem br = new_buffer(cl, n * 4, NULL), dg = new_buffer(cl, cap * 4, NULL);
   cl_mem ds = new_buffer(cl, cap * 4, NULL);
   unsigned written = 0, read = 0, bad = 0;
   bool ran = false;
   double t0 = now();

   if (pipe && bw && bg && br && dg && ds) {
      cl_mem args[5] = {pipe, pipe, bw, bg, br};
      cl_mem dargs[3] = {pipe, dg, ds};
      ran = run_kernel(cl->q, prog, "contend", n, 64, 5, args, 0, NULL, NULL) == CL_COMPLETE &&
            run_kernel(cl->q, prog, "drain", cap, 64, 3, dargs, 0, NULL, NULL) == CL_COMPLETE &&
            read_back(cl, bw, n * 4, wst) && read_back(cl, bg, n * 4, got) &&
            read_back(cl, br, n * 4, rst) && read_back(cl, dg, cap * 4, dgot) &&
            read_back(cl, ds, cap * 4, dst);
   }
   for (size_t i = 0; ran && i < n; i++)
      written += wst[i] == 0;
   for (size_t k = 0; ran && k < n + cap; k++) {
      bool ok = k < n ? rst[k] == 0 : dst[k - n] == 0;
      uint32_t v = k < n ? got[k] : dgot[k - n];

      if (!ok)
         continue;
      read++;
      if (v >= n || (v / 64) & 1 || wst[v] != 0 || seen[v]++)
         bad++;
   }
   cases_in_matrix++;
   report(ran && !bad && read == written && written > 0,
          "pipe contention: %u work-groups of 64 writing and reading one pipe of %u packets "
          "at once: %u written, %u read, %u wrong (%.1f s)%s", groups, (unsigned)cap, written,
          read, bad, now() - t0, ran ? "" : ": did not run");
   free(wst);
   free(rst);
   free(dst);
   free(got);
   free(dgot);
   free(seen);
   cl_mem all[] = {pipe, bw, bg, br, dg, ds};
   for (unsigned i = 0; i < 6; i++)
      if (all[i])
         clReleaseMemObject(all[i]);
}

/* A producer on one queue, the consumer on another waiting for its event:
 * the packets are still there. */
static void
case_two_queues(struct cl *cl, cl_program prog)
{
   enum { N = 1000 };
   uint32_t src[N], got[N];
   int32_t wst[N], rst[N];
   cl_int err;
   cl_command_queue q1 = clCreateCommandQueueWithProperties(cl->ctx, cl->dev, NULL, &err);
   cl_command_queue q2 = clCreateCommandQueueWithProperties(cl->ctx, cl->dev, NULL, &err);
   cl_mem pipe = new_pipe(cl, 4, N);
   cl_mem bs, bw, bg, br;
   cl_event produced = NULL, consumed = NULL;
   unsigned bad = 0;
   bool ran = false;

   for (unsigned i = 0; i < N; i++)
      src[i] = 0x51000000u + i;
   bs = new_buffer(cl, sizeof(src), src);
   bw = new_buffer(cl, sizeof(wst), NULL);
   bg = new_buffer(cl, sizeof(got), NULL);
   br = new_buffer(cl, sizeof(rst), NULL);
   cl_int s1 = CL_COMPLETE, s2 = CL_COMPLETE;
   if (q1 && q2 && pipe && bs && bw && bg && br) {
      cl_mem wargs[3] = {pipe, bs, bw}, rargs[3] = {pipe, bg, br};

      ran = run_kernel(q1, prog, "fill", N, 0, 3, wargs, 0, NULL, &produced) == CL_COMPLETE &&
            run_kernel(q2, prog, "drain", N, 0, 3, rargs, 1, &produced, &consumed) ==
               CL_COMPLETE;
      clFlush(q1);
      if (ran) {
         clWaitForEvents(1, &consumed);
         clGetEventInfo(produced, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(s1), &s1, NULL);
         clGetEventInfo(consumed, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(s2), &s2, NULL);
         ran = s1 == CL_COMPLETE && s2 == CL_COMPLETE;
      }
      ran = ran && read_back(cl, bw, sizeof(wst), wst) && read_back(cl, bg, sizeof(got), got) &&
            read_back(cl, br, sizeof(rst), rst);
   }
   uint8_t seen[N] = {0};
   for (unsigned i = 0; ran && i < N; i++) {
      uint32_t k = got[i] - 0x51000000u;
      bad += wst[i] != 0 || rst[i] != 0 || k >= N || seen[k]++;
   }
   cases_in_matrix++;
   report(ran && !bad, "pipe persistence: %u packets written on one queue, read on another "
          "after the writer's event: %u wrong%s (events %d, %d)", N, bad,
          ran ? "" : ": did not run", s1, s2);
   if (produced)
      clReleaseEvent(produced);
   if (consumed)
      clReleaseEvent(consumed);
   cl_mem all[] = {pipe, bs, bw, bg, br};
   for (unsigned i = 0; i < 5; i++)
      if (all[i])
         clReleaseMemObject(all[i]);
   if (q1)
      clReleaseCommandQueue(q1);
   if (q2)
      clReleaseCommandQueue(q2);
}

static void
expect_err(cl_int got, cl_int want, const char *what)
{
   cases_in_matrix++;
   report(got == want, "pipe api: %s: %d (want %d)", what, got, want);
}

/* A pipe is not a buffer object: the host commands on buffers refuse it
 * whichever side it is on, and it has no sub-buffers. */
static void
case_host_commands(struct cl *cl)
{
   const size_t origin[3] = {0, 0, 0}, region[3] = {4, 1, 1}, texel[3] = {1, 1, 1};
   const cl_image_format format = {CL_R, CL_UNSIGNED_INT32};
   const cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE1D, .image_width = 1};
   const cl_buffer_region sub = {0, 4};
   cl_uint refs = 0, pattern = 0;
   uint8_t data[64] = {0};
   cl_int err, image_err;
   /* Host access allowed: only the object's type refuses these. */
   cl_mem pipe = new_pipe(cl, 4, 16), buffer = new_buffer(cl, 64, NULL), image, sub_buffer;

   if (!pipe || !buffer) {
      expect_err(CL_OUT_OF_RESOURCES, CL_SUCCESS, "the pipe and buffer for the host commands");
      if (pipe)
         clReleaseMemObject(pipe);
      if (buffer)
         clReleaseMemObject(buffer);
      return;
   }
   image = clCreateImage(cl->ctx, CL_MEM_READ_WRITE, &format, &desc, NULL, &image_err);

   expect_err(clEnqueueReadBuffer(cl->q, pipe, CL_TRUE, 0, 4, data, 0, NULL, NULL),
              CL_INVALID_MEM_OBJECT, "clEnqueueReadBuffer of a pipe");
   expect_err(clEnqueueWriteBuffer(cl->q, pipe, CL_TRUE, 0, 4, data, 0, NULL, NULL),
              CL_INVALID_MEM_OBJECT, "clEnqueueWriteBuffer to a pipe");
   expect_err(clEnqueueReadBufferRect(cl->q, pipe, CL_TRUE, origin, origin, region, 0, 0, 0, 0,
                                      data, 0, NULL, NULL),
              CL_INVALID_MEM_OBJECT, "clEnqueueReadBufferRect of a pipe");
   expect_err(clEnqueueWriteBufferRect(cl->q, pipe, CL_TRUE, origin, origin, region, 0, 0, 0,
                                       0, data, 0, NULL, NULL),
              CL_INVALID_MEM_OBJECT, "clEnqueueWriteBufferRect to a pipe");
   expect_err(clEnqueueCopyBuffer(cl->q, pipe, buffer, 0, 0, 4, 0, NULL, NULL),
              CL_INVALID_MEM_OBJECT, "clEnqueueCopyBuffer from a pipe");
   expect_err(clEnqueueCopyBuffer(cl->q, buffer, pipe, 0, 0, 4, 0, NULL, NULL),
              CL_INVALID_MEM_OBJECT, "clEnqueueCopyBuffer to a pipe");
   expect_err(clEnqueueCopyBufferRect(cl->q, pipe, buffer, origin, origin, region, 0, 0, 0, 0,
                                      0, NULL, NULL),
              CL_INVALID_MEM_OBJECT, "clEnqueueCopyBufferRect from a pipe");
   expect_err(clEnqueueCopyBufferRect(cl->q, buffer, pipe, origin, origin, region, 0, 0, 0, 0,
                                      0, NULL, NULL),
              CL_INVALID_MEM_OBJECT, "clEnqueueCopyBufferRect to a pipe");
   expect_err(clEnqueueFillBuffer(cl->q, pipe, &pattern, sizeof(pattern), 0, 4, 0, NULL, NULL),
              CL_INVALID_MEM_OBJECT, "clEnqueueFillBuffer of a pipe");
   void *map = clEnqueueMapBuffer(cl->q, pipe, CL_TRUE, CL_MAP_READ, 0, 4, 0, NULL, NULL, &err);
   expect_err(map ? CL_SUCCESS : err, CL_INVALID_MEM_OBJECT, "clEnqueueMapBuffer of a pipe");
   sub_buffer = clCreateSubBuffer(pipe, 0, CL_BUFFER_CREATE_TYPE_REGION, &sub, &err);
   expect_err(sub_buffer ? CL_SUCCESS : err, CL_INVALID_MEM_OBJECT, "clCreateSubBuffer of a pipe");
   if (sub_buffer)
      clReleaseMemObject(sub_buffer);
   if (image) {
      expect_err(clEnqueueCopyBufferToImage(cl->q, pipe, image, 0, origin, texel, 0, NULL,
                                            NULL),
                 CL_INVALID_MEM_OBJECT, "clEnqueueCopyBufferToImage from a pipe");
      expect_err(clEnqueueCopyImageToBuffer(cl->q, image, pipe, origin, texel, 0, 0, NULL,
                                            NULL),
                 CL_INVALID_MEM_OBJECT, "clEnqueueCopyImageToBuffer to a pipe");
      clReleaseMemObject(image);
   } else {
      expect_err(image_err, CL_SUCCESS, "the image for the copies to and from a pipe");
   }
   expect_err(clGetMemObjectInfo(pipe, CL_MEM_REFERENCE_COUNT, sizeof(refs), &refs, NULL),
              CL_SUCCESS, "clGetMemObjectInfo of a pipe's reference count");
   cases_in_matrix++;
   report(refs == 1, "pipe api: a pipe's reference count is %u", refs);
   if (map)
      clEnqueueUnmapMemObject(cl->q, pipe, map, 0, NULL, NULL);
   clFinish(cl->q);
   clReleaseMemObject(pipe);
   clReleaseMemObject(buffer);
}

static void
case_api(struct cl *cl, cl_program prog)
{
   cl_uint max_size = 0, max_args = 0, max_res = 0, psize = 0, pmax = 0;
   cl_bool support = CL_FALSE;
   size_t props_size = 1;
   cl_int err;
   cl_mem p, b;

   clGetDeviceInfo(cl->dev, CL_DEVICE_PIPE_SUPPORT, sizeof(support), &support, NULL);
   clGetDeviceInfo(cl->dev, CL_DEVICE_PIPE_MAX_PACKET_SIZE, sizeof(max_size), &max_size, NULL);
   clGetDeviceInfo(cl->dev, CL_DEVICE_MAX_PIPE_ARGS, sizeof(max_args), &max_args, NULL);
   clGetDeviceInfo(cl->dev, CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS, sizeof(max_res), &max_res,
                   NULL);
   cases_in_matrix++;
   report(support && max_size >= 1024 && max_args >= 16 && max_res >= 1,
          "pipe api: the device reports pipes (support %u, packets up to %u bytes, %u pipe "
          "arguments, %u active reservations)", support, max_size, max_args, max_res);

   p = clCreatePipe(cl->ctx, 0, 0, 16, NULL, &err);
   expect_err(err, CL_INVALID_PIPE_SIZE, "clCreatePipe with packets of 0 bytes");
   p = clCreatePipe(cl->ctx, 0, max_size + 1, 16, NULL, &err);
   expect_err(err, CL_INVALID_PIPE_SIZE, "clCreatePipe with packets above the maximum");
   p = clCreatePipe(cl->ctx, 0, 4, 0, NULL, &err);
   expect_err(err, CL_INVALID_PIPE_SIZE, "clCreatePipe of 0 packets");
   p = clCreatePipe(cl->ctx, CL_MEM_READ_ONLY, 4, 16, NULL, &err);
   expect_err(err, CL_INVALID_VALUE, "clCreatePipe with CL_MEM_READ_ONLY");
   p = clCreatePipe(cl->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4, 16, NULL, &err);
   expect_err(err, CL_INVALID_VALUE, "clCreatePipe with CL_MEM_COPY_HOST_PTR");
   cl_pipe_properties props[] = {0x1234, 1, 0};
   p = clCreatePipe(cl->ctx, 0, 4, 16, props, &err);
   expect_err(err, CL_INVALID_VALUE, "clCreatePipe with an unknown property");
   p = clCreatePipe(NULL, 0, 4, 16, NULL, &err);
   expect_err(err, CL_INVALID_CONTEXT, "clCreatePipe without a context");

   p = clCreatePipe(cl->ctx, CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS, max_size, 3, NULL, &err);
   b = new_buffer(cl, 64, NULL);
   if (p) {
      cl_mem_object_type type = 0;
      clGetPipeInfo(p, CL_PIPE_PACKET_SIZE, sizeof(psize), &psize, NULL);
      clGetPipeInfo(p, CL_PIPE_MAX_PACKETS, sizeof(pmax), &pmax, NULL);
      clGetPipeInfo(p, CL_PIPE_PROPERTIES, 0, NULL, &props_size);
      clGetMemObjectInfo(p, CL_MEM_TYPE, sizeof(type), &type, NULL);
      cases_in_matrix++;
      report(psize == max_size && pmax == 3 && props_size == 0 && type == CL_MEM_OBJECT_PIPE,
             "pipe api: clGetPipeInfo says packets of %u bytes, %u packets, %zu bytes of "
             "properties; clGetMemObjectInfo type 0x%x", psize, pmax, props_size, type);
      expect_err(clGetPipeInfo(p, 0x1234, sizeof(psize), &psize, NULL), CL_INVALID_VALUE,
                 "clGetPipeInfo of an unknown parameter");
   } else {
      expect_err(err, CL_SUCCESS, "clCreatePipe of the largest packets");
   }
   if (b)
      expect_err(clGetPipeInfo(b, CL_PIPE_PACKET_SIZE, sizeof(psize), &psize, NULL),
                 CL_INVALID_MEM_OBJECT, "clGetPipeInfo of a buffer");

   /* Arguments: a buffer for a pipe, a pipe for a buffer, no pipe. */
   cl_kernel k = clCreateKernel(prog, "drain", &err);
   cl_kernel kb = clCreateKernel(prog, "not_a_pipe", &err);
   cl_mem null_mem = NULL;
   if (k && kb && p && b) {
      expect_err(clSetKernelArg(k, 0, sizeof(b), &b), CL_INVALID_MEM_OBJECT,
                 "a buffer for a pipe argument");
      expect_err(clSetKernelArg(kb, 0, sizeof(p), &p), CL_INVALID_MEM_OBJECT,
                 "a pipe for a buffer argument");
      expect_err(clSetKernelArg(k, 0, sizeof(null_mem), &null_mem), CL_INVALID_ARG_VALUE,
                 "NULL for a pipe argument");
      expect_err(clSetKernelArg(k, 0, sizeof(p), &p), CL_SUCCESS, "a pipe for a pipe argument");
   } else {
      expect_err(err, CL_SUCCESS, "the argument kernels");
   }
   if (k)
      clReleaseKernel(k);
   if (kb)
      clReleaseKernel(kb);
   if (p)
      clReleaseMemObject(p);
   if (b)
      clReleaseMemObject(b);

   /* The argument's type qualifier, with the argument information kept. */
   cl_program info = build(cl, "kernel void q(read_only pipe int p, global int *o)"
                               "{ read_pipe(p, o); }", 16, "-cl-std=CL2.0 -cl-kernel-arg-info");
   cl_kernel_arg_type_qualifier tq = 0;
   cl_kernel_arg_address_qualifier aq = 0;
   if (info) {
      cl_kernel kq = clCreateKernel(info, "q", &err);
      if (kq) {
         clGetKernelArgInfo(kq, 0, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof(tq), &tq, NULL);
         clGetKernelArgInfo(kq, 0, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(aq), &aq, NULL);
         clReleaseKernel(kq);
      }
      clReleaseProgram(info);
   }
   cases_in_matrix++;
   report(tq == CL_KERNEL_ARG_TYPE_PIPE && aq == CL_KERNEL_ARG_ADDRESS_GLOBAL,
          "pipe api: a pipe argument's type qualifier 0x%x, address qualifier 0x%x",
          (unsigned)tq, (unsigned)aq);
}

/* Kernel @name commits a reservation a second time after its slot moved on
 * (Documentation/gpu/weft/pipes.rst, "Misuse"): the second commit changes
 * nothing, so the pipe of one packet still takes a packet and gives it
 * back, then is empty. */
static void
case_late_double_commit(struct cl *cl, cl_program prog, const char *name, const char *what)
{
   static const int32_t want[7] = {0, 0, 0xa, 0, 0, 0xb};
   cl_mem pipe = new_pipe(cl, 4, 1), st = new_buffer(cl, 7 * 4, NULL);
   int32_t got[7] = {0};
   cl_int status = CL_OUT_OF_RESOURCES;
   bool ok = false;

   if (pipe && st) {
      cl_mem args[3] = {pipe, pipe, st};

      status = run_kernel(cl->q, prog, name, 1, 1, 3, args, 0, NULL, NULL);
      ok = status == CL_COMPLETE && read_back(cl, st, sizeof(got), got) &&
           !memcmp(got, want, 6 * sizeof(got[0])) && got[6] < 0;
   }
   cases_in_matrix++;
   report(ok, "pipe misuse: %s reservation committed again after its slot moved on leaves "
          "the pipe working (status %d; results %d %d 0x%x %d %d 0x%x %d, want 0 0 0xa 0 0 "
          "0xb <0)", what, status, got[0], got[1], got[2], got[3], got[4], got[5], got[6]);
   if (pipe)
      clReleaseMemObject(pipe);
   if (st)
      clReleaseMemObject(st);
}

/* Kernels that misuse reservations harm only their own pipe; one that
 * never returns (on a queue of its own, returned in *@doomed) is ended by
 * the watchdog and its event fails; run_pipes then runs kernels on the
 * other queue and on new ones. */
static void
case_misuse(struct cl *cl, cl_program prog, cl_command_queue *doomed)
{
   cl_mem p1 = new_pipe(cl, 4, 8), p2 = new_pipe(cl, 4, 8), empty = new_pipe(cl, 4, 8);
   cl_mem st = new_buffer(cl, 64 * 4, NULL), got = new_buffer(cl, 64 * 4, NULL);
   int32_t s[64];
   uint32_t g[64];
   uint32_t counts[2] = {0};
   cl_int status;

   if (!p1 || !p2 || !empty || !st || !got) {
      expect_err(CL_OUT_OF_RESOURCES, CL_SUCCESS, "misuse setup");
      return;
   }
   cl_mem a1[2] = {p1, st};
   status = run_kernel(cl->q, prog, "commit_twice", 1, 1, 2, a1, 0, NULL, NULL);
   cl_mem d1[3] = {p1, got, st};
   status = status == CL_COMPLETE ? run_kernel(cl->q, prog, "drain", 8, 8, 3, d1, 0, NULL, NULL)
                                  : status;
   bool one = status == CL_COMPLETE && read_back(cl, st, sizeof(s), s) &&
              read_back(cl, got, sizeof(g), g) && count_ok(s, 8) == 1;
   cases_in_matrix++;
   report(one, "pipe misuse: a reservation committed twice gives its packet once (status %d)",
          status);

   cl_mem a2[2] = {p2, st};
   status = run_kernel(cl->q, prog, "never_commit", 1, 1, 2, a2, 0, NULL, NULL);
   cl_mem d2[3] = {p2, got, st};
   status = status == CL_COMPLETE ? run_kernel(cl->q, prog, "drain", 8, 8, 3, d2, 0, NULL, NULL)
                                  : status;
   bool none = status == CL_COMPLETE && read_back(cl, st, sizeof(s), s) && count_ok(s, 8) == 0 &&
               pipe_counts(cl, prog, "counts", p2, counts) && counts[0] == 1;
   cases_in_matrix++;
   report(none, "pipe misuse: a reservation never committed is never read (status %d, %u "
          "packets reserved)", status, counts[0]);

   cl_mem a3[2] = {empty, got};
   cl_int err;
   double t0 = now();
   *doomed = clCreateCommandQueueWithProperties(cl->ctx, cl->dev, NULL, &err);
   status = *doomed ? run_kernel(*doomed, prog, "wait_forever", 1, 1, 2, a3, 0, NULL, NULL) : err;
   cases_in_matrix++;
   report(status < 0, "pipe misuse: a kernel waiting forever on an empty pipe is ended, its "
          "event reports %d (%.1f s)", status, now() - t0);
   cl_mem all[] = {p1, p2, empty, st, got};
   for (unsigned i = 0; i < 5; i++)
      clReleaseMemObject(all[i]);
}

void
run_pipes(struct cl *cl, bool slice)
{
   char *src = pipe_source(slice);
   double t0;

   for (unsigned w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
      unsigned simd = widths[w];

      /* Pipes came with OpenCL C 2.0 and are an optional feature of 3.0:
       * the matrix runs at SIMD 16 as 3.0, at 8 and 32 as 2.0. */
      const char *std = simd == 16 ? "-cl-std=CL3.0" : "-cl-std=CL2.0";

      t0 = now();
      cl_program prog = build(cl, src, simd, std);
      if (!prog) {
         cases_in_matrix++;
         report(false, "pipe build simd%u: the program did not build with %s", simd, std);
         continue;
      }
      if (getenv("WEFT_CONFORMANCE_VERBOSE"))
         fprintf(stderr, "pipes simd%u built in %.1f s\n", simd, now() - t0);
      for (unsigned si = 0; si < NUM_PIPE_SHAPES; si++) {
         const struct pipe_shape *s = &pipe_shapes[si];

         if (slice && strcmp(s->name, "1d-partial-sg"))
            continue;
         for (unsigned t = 0; t < NUM_PIPE_TYPES; t++) {
            if (slice && !pipe_types[t].slice)
               continue;
            run_type_cases(cl, prog, simd, s, &pipe_types[t]);
         }
      }
      clReleaseProgram(prog);
   }
   free(src);

   cl_program extra = build(cl, extra_source, 16, "-cl-std=CL3.0");
   cases_in_matrix++;
   report(extra, "pipe build: the contention and misuse kernels build as OpenCL C 3.0, "
          "__opencl_c_pipes defined");
   if (!extra)
      return;
   case_contention(cl, extra, slice ? 256 : 4096);
   case_two_queues(cl, extra);
   case_late_double_commit(cl, extra, "late_double_commit_write", "a write's");
   case_late_double_commit(cl, extra, "late_double_commit_read", "a read's");
   case_host_commands(cl);
   if (!slice) {
      case_api(cl, extra);
      run_in_own_process("pipe-misuse");
   }
   clReleaseProgram(extra);
}

/* Its own process's part "pipe-misuse" (run_in_own_process): the kernel
 * that waits forever waits for the watchdog. */
void
run_pipe_misuse(struct cl *cl)
{
   cl_program extra = build(cl, extra_source, 16, "-cl-std=CL3.0");
   cl_command_queue doomed = NULL;

   if (!extra) {
      cases_in_matrix++;
      report(false, "pipe misuse: the misuse kernels did not build");
      return;
   }
   case_misuse(cl, extra, &doomed);
   /* After the runaway kernel: new queues, and the suite's own.  (The
    * runaway's queue is released last: a queue created after the
    * release of one that hit the watchdog fails its jobs today.) */
   case_two_queues(cl, extra);
   case_contention(cl, extra, 64);
   if (doomed)
      clReleaseCommandQueue(doomed);
   clReleaseProgram(extra);
}
