/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of weft_nir_lower_enqueue_queries: the queries on a child
 * kernel, of constant ndranges, lowered and then folded by NIR's constant
 * folding, must give what a C reference computes from the manual's rules,
 * at SIMD 8, 16 and 32, in 1, 2 and 3 dimensions, for uniform and partial
 * sub-groups, with and without a local size; with sizes NIR cannot fold,
 * no query is left.  (That the children run with these sub-groups is
 * checked by the OpenCL conformance suite.)
 *
 * weft_nir_lower_enqueue_kernel: every enqueue_kernel becomes one
 * reservation (an atomic add on the device queue's HEAD), loops over the
 * wait list (checking it, then copying it), over the argument template and
 * over the event slots (the return event), and reads of the block literal
 * through its generic address, word by word; the clk_event_t functions
 * leave no intrinsic of their own, and update an event's slot with one
 * atomic each; a kernel without any is left alone.  (What the records and
 * events hold is checked by running them, in the conformance suite.)
 */
#include <stdint.h>
#include <stdio.h>

#include "weft_nir_passes.h"
#include "weft_nir_test.h"

#define CHECK(cond, ...) WEFT_NIR_CHECK(ok, cond, __VA_ARGS__)

#define MAX_WG 1024
#define MAX_SHARED 65536

static const nir_shader_compiler_options options = { 0 };

struct ndrange {
   unsigned dim;
   uint64_t global[3], local[3];
};

static const struct ndrange ndranges[] = {
   {1, {64, 1, 1}, {0, 0, 0}},
   {1, {5, 1, 1}, {0, 0, 0}},
   {1, {100000, 1, 1}, {0, 0, 0}},
   {1, {64, 1, 1}, {64, 0, 0}},
   {1, {100, 1, 1}, {12, 0, 0}},
   {1, {7, 1, 1}, {7, 0, 0}},
   {1, {1, 1, 1}, {1, 0, 0}},
   {2, {16, 16, 1}, {4, 4, 0}},
   {2, {30, 7, 1}, {10, 3, 0}},
   {2, {30, 7, 1}, {0, 0, 0}},
   {3, {8, 8, 8}, {2, 3, 5}},
   {3, {64, 4, 4}, {32, 2, 2}},
   /* Past any work-group: the count does not wrap. */
   {3, {1ull << 40, 1ull << 40, 1}, {1ull << 40, 1ull << 20, 1}},
};

static uint64_t
reference_items(const struct ndrange *nd)
{
   uint64_t items = 1;

   if (!nd->local[0] && !nd->local[1] && !nd->local[2])
      return nd->global[0] < MAX_WG ? nd->global[0] : MAX_WG;
   for (unsigned c = 0; c < nd->dim; c++)
      items *= nd->local[c];
   return items;
}

static uint32_t
reference(nir_intrinsic_op op, const struct ndrange *nd, unsigned simd)
{
   uint64_t items = reference_items(nd), v;

   switch (op) {
   case nir_intrinsic_get_kernel_work_group_size:
      return MAX_WG;
   case nir_intrinsic_get_kernel_preferred_work_group_size_multiple:
      return simd;
   case nir_intrinsic_get_kernel_ndrange_subgroup_count:
      v = (items + simd - 1) / simd;
      break;
   default:
      /* The SIMD width, also for work-groups of fewer work-items. */
      v = simd;
      break;
   }
   return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static nir_def *
imm_vec3(nir_builder *b, const uint64_t *v)
{
   return nir_vec3(b, nir_imm_int64(b, v[0]), nir_imm_int64(b, v[1]), nir_imm_int64(b, v[2]));
}

static nir_def *
emit_query(nir_builder *b, nir_intrinsic_op op, nir_def *dim, nir_def *global, nir_def *local)
{
   switch (op) {
   case nir_intrinsic_get_kernel_work_group_size:
      return nir_get_kernel_work_group_size(b, .kernel_index = 1);
   case nir_intrinsic_get_kernel_preferred_work_group_size_multiple:
      return nir_get_kernel_preferred_work_group_size_multiple(b, .kernel_index = 1);
   case nir_intrinsic_get_kernel_ndrange_subgroup_count:
      return nir_get_kernel_ndrange_subgroup_count(b, dim, global, local, .kernel_index = 1);
   default:
      return nir_get_kernel_ndrange_max_subgroup_size(b, dim, global, local, .kernel_index = 1);
   }
}

static void
count_queries(nir_intrinsic_instr *intr, void *data)
{
   switch (intr->intrinsic) {
   case nir_intrinsic_get_kernel_work_group_size:
   case nir_intrinsic_get_kernel_preferred_work_group_size_multiple:
   case nir_intrinsic_get_kernel_ndrange_subgroup_count:
   case nir_intrinsic_get_kernel_ndrange_max_subgroup_size:
      (*(unsigned *)data)++;
      break;
   default:
      break;
   }
}

/* Every ndrange's query at @simd, one store each, folded to constants. */
static bool
check_constants(nir_intrinsic_op op, unsigned simd)
{
   const unsigned n = sizeof(ndranges) / sizeof(ndranges[0]);
   nir_builder b = weft_nir_test_kernel(&options, "queries");
   bool ok = true;

   for (unsigned i = 0; i < n; i++) {
      const struct ndrange *nd = &ndranges[i];
      nir_def *v = emit_query(&b, op, nir_imm_int(&b, nd->dim), imm_vec3(&b, nd->global),
                              imm_vec3(&b, nd->local));
      nir_store_global(&b, nir_imm_int64(&b, 0x10000 + 4 * i), 4, v, 1);
   }
   nir_validate_shader(b.shader, "before");
   CHECK(weft_nir_lower_enqueue_queries(b.shader, simd, MAX_WG), "no progress");
   nir_validate_shader(b.shader, "after weft_nir_lower_enqueue_queries");
   weft_nir_test_fold(b.shader);

   unsigned left = 0, seen = 0;
   weft_nir_test_foreach_intrinsic(b.shader, count_queries, &left);
   CHECK(left == 0, "%u queries left", left);
   nir_foreach_block(block, nir_shader_get_entrypoint(b.shader)) {
      nir_foreach_instr(instr, block) {
         if (instr->type != nir_instr_type_intrinsic ||
             nir_instr_as_intrinsic(instr)->intrinsic != nir_intrinsic_store_global)
            continue;
         nir_intrinsic_instr *store = nir_instr_as_intrinsic(instr);
         unsigned i = (nir_src_as_uint(store->src[1]) - 0x10000) / 4;
         seen++;
         if (!nir_src_is_const(store->src[0])) {
            CHECK(false, "ndrange %u: not folded to a constant", i);
            continue;
         }
         uint32_t got = nir_src_as_uint(store->src[0]);
         uint32_t want = reference(op, &ndranges[i], simd);
         CHECK(got == want, "ndrange %u (dim %u, global %llu, local %llu %llu %llu): %u, want %u",
               i, ndranges[i].dim, (unsigned long long)ndranges[i].global[0],
               (unsigned long long)ndranges[i].local[0],
               (unsigned long long)ndranges[i].local[1],
               (unsigned long long)ndranges[i].local[2], got, want);
      }
   }
   CHECK(seen == n, "%u of %u stores left", seen, n);
   ralloc_free(b.shader);
   return ok;
}

/* Sizes from memory: nothing to fold, and still no query left. */
static bool
check_runtime_sizes(void)
{
   nir_builder b = weft_nir_test_kernel(&options, "runtime");
   bool ok = true;
   unsigned left = 0;

   nir_def *dim = nir_load_global(&b, nir_imm_int64(&b, 0x20000), 4, 1, 32);
   nir_def *global = nir_load_global(&b, nir_imm_int64(&b, 0x20008), 8, 3, 64);
   nir_def *local = nir_load_global(&b, nir_imm_int64(&b, 0x20020), 8, 3, 64);
   nir_def *count = nir_get_kernel_ndrange_subgroup_count(&b, dim, global, local,
                                                          .kernel_index = 0);
   nir_def *size = nir_get_kernel_ndrange_max_subgroup_size(&b, dim, global, local,
                                                            .kernel_index = 0);
   nir_store_global(&b, nir_imm_int64(&b, 0x10000), 4, nir_vec2(&b, count, size), 3);
   CHECK(weft_nir_lower_enqueue_queries(b.shader, 16, MAX_WG), "no progress");
   nir_validate_shader(b.shader, "after weft_nir_lower_enqueue_queries");
   weft_nir_test_foreach_intrinsic(b.shader, count_queries, &left);
   CHECK(left == 0, "%u queries left", left);
   ralloc_free(b.shader);
   return ok;
}

/* A kernel without queries: no progress, nothing changed. */
static bool
check_no_queries(void)
{
   nir_builder b = weft_nir_test_kernel(&options, "none");
   bool ok = true;

   nir_store_global(&b, nir_imm_int64(&b, 0x10000), 4, nir_imm_int(&b, 7), 1);
   CHECK(!weft_nir_lower_enqueue_queries(b.shader, 16, MAX_WG), "progress without queries");
   ralloc_free(b.shader);
   return ok;
}

struct enqueue_counts {
   unsigned enqueues, atomics, swaps, scratch_loads;
};

static void
count_enqueue(nir_intrinsic_instr *intr, void *data)
{
   struct enqueue_counts *c = data;

   switch (intr->intrinsic) {
   case nir_intrinsic_enqueue_kernel:
   case nir_intrinsic_enqueue_marker:
   case nir_intrinsic_create_user_event:
   case nir_intrinsic_retain_event:
   case nir_intrinsic_release_event:
   case nir_intrinsic_is_valid_event:
   case nir_intrinsic_set_user_event_status:
   case nir_intrinsic_capture_event_profiling_info:
      c->enqueues++;
      break;
   case nir_intrinsic_global_atomic:
      c->atomics += nir_intrinsic_atomic_op(intr) == nir_atomic_op_iadd;
      break;
   case nir_intrinsic_global_atomic_swap:
      c->swaps++;
      break;
   case nir_intrinsic_load_scratch:
      c->scratch_loads++;
      break;
   default:
      break;
   }
}

/* Two enqueues of a 24-byte block literal, the second with two local-memory
 * arguments: two reservations, two template copies, the literal read as six
 * words each and the wait list twice (from private memory among the
 * others). */
static bool
check_enqueue_kernel(void)
{
   nir_builder b = weft_nir_test_kernel(&options, "enqueue");
   bool ok = true;
   struct enqueue_counts c = {0};

   const uint64_t global[3] = {64, 1, 1}, local[3] = {16, 0, 0}, offset[3] = {0, 0, 0};

   /* Rusticl's kernels have 64-bit pointers, the block literal's too. */
   b.shader->info.cs.ptr_size = 64;

   for (unsigned i = 0; i < 2; i++) {
      nir_def *queue = nir_load_global(&b, nir_imm_int64(&b, 0x20000), 8, 1, 64);
      nir_def *literal = nir_load_global(&b, nir_imm_int64(&b, 0x20008), 8, 1, 64);
      nir_def *local_sizes = i ? nir_load_global(&b, nir_imm_int64(&b, 0x20010), 8, 2, 64)
                               : nir_imm_int64(&b, 0);
      nir_def *r = nir_enqueue_kernel(&b, queue, nir_imm_int(&b, 0), nir_imm_int(&b, 1),
                                      imm_vec3(&b, offset), imm_vec3(&b, global),
                                      imm_vec3(&b, local), nir_imm_int(&b, 0),
                                      nir_imm_int64(&b, 0), nir_imm_int64(&b, 0), literal,
                                      local_sizes, .kernel_index = i, .range = 24,
                                      .align_mul = 8, .local_args = 2 * i);
      nir_store_global(&b, nir_imm_int64(&b, 0x10000 + 4 * i), 4, r, 1);
   }
   nir_validate_shader(b.shader, "before");
   CHECK(weft_nir_lower_enqueue_kernel(b.shader, MAX_WG, MAX_SHARED), "no progress");
   nir_validate_shader(b.shader, "after weft_nir_lower_enqueue_kernel");
   weft_nir_test_foreach_intrinsic(b.shader, count_enqueue, &c);
   CHECK(c.enqueues == 0, "%u enqueue_kernel left", c.enqueues);
   CHECK(c.atomics == 2, "%u reservations, want 2", c.atomics);
   CHECK(weft_nir_test_count_loops(b.shader) == 8,
         "%u loops, want 8: wait list checks and copies, template copies, event slot searches",
         weft_nir_test_count_loops(b.shader));
   CHECK(c.swaps == 2, "%u compare-and-swaps, want 2: the event slot searches", c.swaps);
   /* The wait lists are read through generic addresses too: once to check
    * them, once to copy them. */
   CHECK(c.scratch_loads == 12 + 4,
         "%u words of the literals and wait lists read from private memory, want 16",
         c.scratch_loads);
   ralloc_free(b.shader);
   return ok;
}

/* The event functions: each of retain, release, set_user_event_status and
 * a slot search (create_user_event, enqueue_marker) is one atomic on the
 * slot; a marker also reserves its record. */
static bool
check_event_functions(void)
{
   nir_builder b = weft_nir_test_kernel(&options, "events");
   bool ok = true;
   struct enqueue_counts c = {0};

   b.shader->info.cs.ptr_size = 64;
   nir_def *queue = nir_load_global(&b, nir_imm_int64(&b, 0x20000), 8, 1, 64);
   nir_def *list = nir_load_global(&b, nir_imm_int64(&b, 0x20008), 8, 1, 64);
   nir_def *ev = nir_create_user_event(&b, queue);

   nir_retain_event(&b, queue, ev);
   nir_release_event(&b, queue, ev);
   nir_set_user_event_status(&b, queue, ev, nir_imm_int(&b, 0));
   nir_capture_event_profiling_info(&b, queue, ev, nir_imm_int(&b, 1),
                                    nir_imm_int64(&b, 0x10010));
   nir_store_global(&b, nir_imm_int64(&b, 0x10000), 4,
                    nir_b2i32(&b, nir_is_valid_event(&b, queue, ev)), 1);
   nir_store_global(&b, nir_imm_int64(&b, 0x10004), 4,
                    nir_enqueue_marker(&b, queue, nir_imm_int(&b, 1), list,
                                       nir_iadd_imm(&b, list, 8)), 1);
   nir_validate_shader(b.shader, "before");
   CHECK(weft_nir_lower_enqueue_kernel(b.shader, MAX_WG, MAX_SHARED), "no progress");
   nir_validate_shader(b.shader, "after weft_nir_lower_enqueue_kernel");
   weft_nir_test_foreach_intrinsic(b.shader, count_enqueue, &c);
   CHECK(c.enqueues == 0, "%u event functions left", c.enqueues);
   CHECK(c.atomics == 3, "%u atomic adds, want 3: retain, release, the marker's reservation",
         c.atomics);
   CHECK(c.swaps == 3, "%u compare-and-swaps, want 3: two slot searches, the status set",
         c.swaps);
   ralloc_free(b.shader);
   return ok;
}

static bool
check_no_enqueue(void)
{
   nir_builder b = weft_nir_test_kernel(&options, "none");
   bool ok = true;

   nir_store_global(&b, nir_imm_int64(&b, 0x10000), 4, nir_imm_int(&b, 7), 1);
   CHECK(!weft_nir_lower_enqueue_kernel(b.shader, MAX_WG, MAX_SHARED), "progress without enqueue_kernel");
   ralloc_free(b.shader);
   return ok;
}

int
main(void)
{
   static const struct {
      nir_intrinsic_op op;
      const char *name;
   } queries[] = {
      {nir_intrinsic_get_kernel_work_group_size, "get_kernel_work_group_size"},
      {nir_intrinsic_get_kernel_preferred_work_group_size_multiple,
       "get_kernel_preferred_work_group_size_multiple"},
      {nir_intrinsic_get_kernel_ndrange_subgroup_count, "get_kernel_sub_group_count_for_ndrange"},
      {nir_intrinsic_get_kernel_ndrange_max_subgroup_size,
       "get_kernel_max_sub_group_size_for_ndrange"},
   };
   static const unsigned simds[] = {8, 16, 32};
   char name[160];

   weft_nir_test_begin();
   for (unsigned q = 0; q < sizeof(queries) / sizeof(queries[0]); q++) {
      for (unsigned s = 0; s < 3; s++) {
         snprintf(name, sizeof(name), "%s of constant ndranges at SIMD %u", queries[q].name,
                  simds[s]);
         weft_nir_test_report(check_constants(queries[q].op, simds[s]), name);
      }
   }
   weft_nir_test_report(check_runtime_sizes(), "the ndrange queries of sizes read from memory");
   weft_nir_test_report(check_no_queries(), "a kernel without queries is left alone");
   weft_nir_test_report(check_enqueue_kernel(), "enqueue_kernel: a reservation, a template "
                        "copy, wait list and event slot loops and the literal's words each");
   weft_nir_test_report(check_event_functions(), "the clk_event_t functions and "
                        "enqueue_marker: one atomic on the slot each");
   weft_nir_test_report(check_no_enqueue(), "a kernel without enqueue_kernel is left alone");
   return weft_nir_test_end();
}
