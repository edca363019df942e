// SPDX-License-Identifier: MIT
/*
 * Device-side enqueue in weft-cl-conformance (Documentation/gpu/weft/
 * device-enqueue.rst; the device queue itself is tested in
 * hw/tests/test_enqueue.c): on-device queues (what they report, that the
 * host cannot use them, the default one, the bounds and bad properties);
 * enqueue_kernel of blocks with every flag and ndrange form, with
 * local-memory arguments, nested, by thousands, on a full queue, past the
 * depth bound, faulting or never ending (the device's watchdog ends it, in
 * a process of its own whose drm-shim model has a small budget);
 * clk_event_t (wait lists, returned events, markers, user events,
 * profiling) and each error the event functions have; the
 * queries on a block's kernel against the kernel as Rusticl compiled it and
 * against the sub-groups its children run with, at SIMD 8, 16 and 32.
 * OpenCL C 3.0 programs, which have device-side enqueue only with
 * __opencl_c_device_enqueue, see the macro and enqueue as OpenCL C 2.0
 * programs do; afterwards the context still runs kernels.  Results are
 * checked against C.
 */
#include "weft-cl-conformance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void
run_enqueue_caps(struct cl *cl)
{
   cl_device_device_enqueue_capabilities caps = 0;
   cl_command_queue_properties props = 0;
   cl_uint max_queues = 0, max_size = 0, preferred = 0, max_events = 0;
   cl_name_version feats[64];
   size_t feats_size = 0;
   bool feature = false;

   clGetDeviceInfo(cl->dev, CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES, sizeof(caps), &caps, NULL);
   clGetDeviceInfo(cl->dev, CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES, sizeof(props), &props, NULL);
   clGetDeviceInfo(cl->dev, CL_DEVICE_MAX_ON_DEVICE_QUEUES, sizeof(max_queues), &max_queues,
                   NULL);
   clGetDeviceInfo(cl->dev, CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE, sizeof(max_size), &max_size,
                   NULL);
   clGetDeviceInfo(cl->dev, CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE, sizeof(preferred),
                   &preferred, NULL);
   clGetDeviceInfo(cl->dev, CL_DEVICE_MAX_ON_DEVICE_EVENTS, sizeof(max_events), &max_events,
                   NULL);
   clGetDeviceInfo(cl->dev, CL_DEVICE_OPENCL_C_FEATURES, sizeof(feats), feats, &feats_size);
   for (size_t i = 0; i < feats_size / sizeof(feats[0]); i++)
      feature |= !strcmp(feats[i].name, "__opencl_c_device_enqueue");
   /* OpenCL 2.0's minimums: queues of 256 KiB, 16 KiB preferred, 1024
    * events. */
   cases_in_matrix++;
   report(caps == (CL_DEVICE_QUEUE_SUPPORTED | CL_DEVICE_QUEUE_REPLACEABLE_DEFAULT) &&
             props == (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE) &&
             max_queues >= 1 && max_size >= 256 * 1024 && preferred >= 16 * 1024 &&
             preferred <= max_size && max_events >= 1024,
          "enqueue: on-device queues reported (capabilities %llu, properties %llu, max queues "
          "%u, max size %u, preferred size %u, max events %u)",
          (unsigned long long)caps, (unsigned long long)props, max_queues, max_size,
          preferred, max_events);
   cases_in_matrix++;
   report(feature, "enqueue: __opencl_c_device_enqueue %s in CL_DEVICE_OPENCL_C_FEATURES",
          feature ? "listed" : "absent");
}

static cl_command_queue
device_queue(struct cl *cl, cl_command_queue_properties kind, cl_uint size, cl_int *err)
{
   cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, kind, CL_QUEUE_SIZE, size, 0};

   /* size 0: no CL_QUEUE_SIZE */
   if (!size)
      props[2] = 0;
   return clCreateCommandQueueWithProperties(cl->ctx, cl->dev, props, err);
}

#define ON_DEVICE (CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
#define ON_DEVICE_DEFAULT (ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT)

static cl_command_queue
queue_info_queue(cl_command_queue q, cl_command_queue_info what)
{
   cl_command_queue v = NULL;

   clGetCommandQueueInfo(q, what, sizeof(v), &v, NULL);
   return v;
}

static cl_uint
queue_info_uint(cl_command_queue q, cl_command_queue_info what)
{
   cl_uint v = 0;

   clGetCommandQueueInfo(q, what, sizeof(v), &v, NULL);
   return v;
}

/* An on-device queue: what it says of itself, and that the host cannot
 * use it. */
static void
run_enqueue_queue_info(struct cl *cl)
{
   cl_uint preferred = 0;
   cl_int err = CL_SUCCESS, write_err, ndrange_err, flush_err, finish_err;
   cl_command_queue q = device_queue(cl, ON_DEVICE, 4096, &err);
   cl_command_queue unsized = device_queue(cl, ON_DEVICE, 0, NULL);
   cl_command_queue_properties props = 0;
   cl_context ctx = NULL;
   cl_device_id dev = NULL;
   cl_mem buf = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE, 64, NULL, NULL);
   static const char src[] = "kernel void k(global int *out) { out[get_global_id(0)] = 1; }\n";
   cl_program prog = build(cl, src, 16, "-cl-std=CL2.0");
   cl_kernel k = prog ? clCreateKernel(prog, "k", NULL) : NULL;
   int data[16] = {0};
   size_t global = 16;

   clGetDeviceInfo(cl->dev, CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE, sizeof(preferred),
                   &preferred, NULL);
   clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof(props), &props, NULL);
   clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof(ctx), &ctx, NULL);
   clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof(dev), &dev, NULL);
   cases_in_matrix++;
   report(q && err == CL_SUCCESS && props == ON_DEVICE && ctx == cl->ctx && dev == cl->dev &&
             queue_info_uint(q, CL_QUEUE_SIZE) == 4096 &&
             queue_info_uint(q, CL_QUEUE_REFERENCE_COUNT) == 1,
          "enqueue: an on-device queue of 4096 bytes: %d, properties %llu, size %u, "
          "references %u", err, (unsigned long long)props, queue_info_uint(q, CL_QUEUE_SIZE),
          queue_info_uint(q, CL_QUEUE_REFERENCE_COUNT));
   cases_in_matrix++;
   report(unsized && queue_info_uint(unsized, CL_QUEUE_SIZE) == preferred,
          "enqueue: an on-device queue without CL_QUEUE_SIZE has %u bytes, want the "
          "preferred %u", queue_info_uint(unsized, CL_QUEUE_SIZE), preferred);

   write_err = clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, sizeof(data), data, 0, NULL, NULL);
   if (k)
      clSetKernelArg(k, 0, sizeof(buf), &buf);
   ndrange_err = k ? clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL)
                   : CL_SUCCESS;
   flush_err = clFlush(q);
   finish_err = clFinish(q);
   cases_in_matrix++;
   report(k && write_err == CL_INVALID_COMMAND_QUEUE && ndrange_err == CL_INVALID_COMMAND_QUEUE &&
             flush_err == CL_INVALID_COMMAND_QUEUE && finish_err == CL_INVALID_COMMAND_QUEUE,
          "enqueue: the host cannot use an on-device queue: clEnqueueWriteBuffer %d, "
          "clEnqueueNDRangeKernel %d, clFlush %d, clFinish %d, want CL_INVALID_COMMAND_QUEUE",
          write_err, ndrange_err, flush_err, finish_err);

   cases_in_matrix++;
   err = clRetainCommandQueue(q);
   cl_uint refs = queue_info_uint(q, CL_QUEUE_REFERENCE_COUNT);
   cl_int release_err = clReleaseCommandQueue(q);
   report(err == CL_SUCCESS && refs == 2 && release_err == CL_SUCCESS &&
             queue_info_uint(q, CL_QUEUE_REFERENCE_COUNT) == 1,
          "enqueue: clRetainCommandQueue %d (references %u), clReleaseCommandQueue %d on an "
          "on-device queue", err, refs, release_err);

   if (k)
      clReleaseKernel(k);
   if (prog)
      clReleaseProgram(prog);
   clReleaseMemObject(buf);
   if (unsized)
      clReleaseCommandQueue(unsized);
   if (q)
      clReleaseCommandQueue(q);
}

/* Properties that are not valid for any device. */
static void
run_enqueue_queue_errors(struct cl *cl)
{
   cl_uint max_size = 0;
   static const struct {
      const char *what;
      cl_command_queue_properties kind;
      bool sized;
   } bad[] = {
      {"CL_QUEUE_ON_DEVICE in order", CL_QUEUE_ON_DEVICE, false},
      {"CL_QUEUE_ON_DEVICE_DEFAULT without CL_QUEUE_ON_DEVICE",
       CL_QUEUE_ON_DEVICE_DEFAULT | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, false},
      {"CL_QUEUE_SIZE on a host queue", 0, true},
      {"CL_QUEUE_SIZE 0", ON_DEVICE, true},
      {"CL_QUEUE_SIZE past the maximum", ON_DEVICE, true},
   };

   clGetDeviceInfo(cl->dev, CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE, sizeof(max_size), &max_size,
                   NULL);
   for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
      cl_queue_properties size = i == 3 ? 0 : i == 4 ? (cl_queue_properties)max_size + 16 : 4096;
      cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, bad[i].kind, CL_QUEUE_SIZE, size, 0};
      cl_int err = CL_SUCCESS;
      cl_command_queue q;

      if (!bad[i].sized)
         props[2] = 0;
      q = clCreateCommandQueueWithProperties(cl->ctx, cl->dev, props, &err);
      cases_in_matrix++;
      report(!q && err == CL_INVALID_VALUE,
             "enqueue: clCreateCommandQueueWithProperties, %s: %d, want CL_INVALID_VALUE",
             bad[i].what, err);
      if (q)
         clReleaseCommandQueue(q);
   }
}

/* The default on-device queue: made once, shared, replaceable. */
static void
run_enqueue_default_queue(struct cl *cl)
{
   cl_int err1 = CL_SUCCESS, err2 = CL_SUCCESS, err;
   cl_command_queue first = device_queue(cl, ON_DEVICE_DEFAULT, 4096, &err1);
   cl_command_queue again = device_queue(cl, ON_DEVICE_DEFAULT, 8192, &err2);
   cl_command_queue other = device_queue(cl, ON_DEVICE, 4096, NULL);

   cases_in_matrix++;
   report(first && first == again && err1 == CL_SUCCESS && err2 == CL_SUCCESS &&
             queue_info_uint(first, CL_QUEUE_REFERENCE_COUNT) == 2 &&
             queue_info_queue(cl->q, CL_QUEUE_DEVICE_DEFAULT) == first &&
             queue_info_queue(other, CL_QUEUE_DEVICE_DEFAULT) == first,
          "enqueue: CL_QUEUE_ON_DEVICE_DEFAULT twice gives one queue (%s, references %u), "
          "which CL_QUEUE_DEVICE_DEFAULT names (%s)", first == again ? "same" : "different",
          queue_info_uint(first, CL_QUEUE_REFERENCE_COUNT),
          queue_info_queue(cl->q, CL_QUEUE_DEVICE_DEFAULT) == first ? "yes" : "no");

   err = clSetDefaultDeviceCommandQueue(cl->ctx, cl->dev, other);
   cases_in_matrix++;
   report(other && err == CL_SUCCESS && queue_info_queue(cl->q, CL_QUEUE_DEVICE_DEFAULT) == other,
          "enqueue: clSetDefaultDeviceCommandQueue: %d, CL_QUEUE_DEVICE_DEFAULT %s", err,
          queue_info_queue(cl->q, CL_QUEUE_DEVICE_DEFAULT) == other ? "follows" : "does not "
          "follow");

   /* Not an on-device queue of this context and device. */
   cl_context ctx2 = clCreateContext(NULL, 1, &cl->dev, NULL, NULL, NULL);
   cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, ON_DEVICE, 0};
   cl_command_queue foreign = ctx2 ? clCreateCommandQueueWithProperties(ctx2, cl->dev, props,
                                                                          NULL) : NULL;
   cl_int host_err = clSetDefaultDeviceCommandQueue(cl->ctx, cl->dev, cl->q);
   cl_int null_err = clSetDefaultDeviceCommandQueue(cl->ctx, cl->dev, NULL);
   cl_int foreign_err = clSetDefaultDeviceCommandQueue(cl->ctx, cl->dev, foreign);
   cl_int ctx_err = clSetDefaultDeviceCommandQueue(NULL, cl->dev, other);
   cases_in_matrix++;
   report(foreign && host_err == CL_INVALID_COMMAND_QUEUE &&
             null_err == CL_INVALID_COMMAND_QUEUE && foreign_err == CL_INVALID_COMMAND_QUEUE &&
             ctx_err == CL_INVALID_CONTEXT &&
             queue_info_queue(cl->q, CL_QUEUE_DEVICE_DEFAULT) == other,
          "enqueue: clSetDefaultDeviceCommandQueue of a host queue %d, NULL %d, another "
          "context's %d, no context %d; the default stays", host_err, null_err, foreign_err,
          ctx_err);

   if (foreign)
      clReleaseCommandQueue(foreign);
   if (ctx2)
      clReleaseContext(ctx2);
   if (other)
      clReleaseCommandQueue(other);
   if (again)
      clReleaseCommandQueue(again);
   if (first)
      clReleaseCommandQueue(first);
   /* Released: no default left. */
   cases_in_matrix++;
   report(!queue_info_queue(cl->q, CL_QUEUE_DEVICE_DEFAULT),
          "enqueue: once released, no default on-device queue is left");
}

/* CL_DEVICE_MAX_ON_DEVICE_QUEUES bounds the queues alive at once. */
static void
run_enqueue_queue_limit(struct cl *cl)
{
   cl_uint max_queues = 0;
   cl_command_queue *qs;
   unsigned made = 0;
   cl_int err = CL_SUCCESS, again_err = CL_SUCCESS;

   clGetDeviceInfo(cl->dev, CL_DEVICE_MAX_ON_DEVICE_QUEUES, sizeof(max_queues), &max_queues,
                   NULL);
   qs = calloc(max_queues + 1, sizeof(*qs));
   while (qs && made <= max_queues) {
      qs[made] = device_queue(cl, ON_DEVICE, 4096, &err);
      if (!qs[made])
         break;
      made++;
   }
   cl_command_queue again = NULL;
   if (made) {
      clReleaseCommandQueue(qs[--made]);
      again = device_queue(cl, ON_DEVICE, 4096, &again_err);
   }
   cases_in_matrix++;
   report(max_queues && made == max_queues - 1 && err == CL_OUT_OF_RESOURCES && again,
          "enqueue: %u on-device queues made of %u, then %d; after a release: %d", made + 1,
          max_queues, err, again_err);
   if (again)
      clReleaseCommandQueue(again);
   while (made)
      clReleaseCommandQueue(qs[--made]);
   free(qs);
}

/* An OpenCL C 3.0 program sees __opencl_c_device_enqueue, enqueues a block
 * and asks the ndrange sub-group queries about it, which match what its
 * children run with. */
static void
run_enqueue_clc30(struct cl *cl)
{
   static const char src[] =
      "#ifndef __opencl_c_device_enqueue\n"
      "#error __opencl_c_device_enqueue is not defined\n"
      "#endif\n"
      "kernel void k30(global int *out, int base)\n"
      "{\n"
      "   void (^b)(void) = ^{\n"
      "      out[8 + get_global_id(0)] = base + (int)get_global_id(0);\n"
      "      if (get_global_id(0) == 0)\n"
      "         out[3] = get_max_sub_group_size();\n"
      "   };\n"
      "   out[0] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL,\n"
      "                           ndrange_1D(64, 64), b);\n"
      "   out[1] = get_kernel_sub_group_count_for_ndrange(ndrange_1D(64, 64), b);\n"
      "   out[2] = get_kernel_max_sub_group_size_for_ndrange(ndrange_1D(64, 64), b);\n"
      "}\n";
   const struct shape one = {"1d", 1, {1, 1, 1}, {1, 1, 1}};
   cl_program prog = build(cl, src, 16, "-cl-std=CL3.0");
   int32_t out[8 + 64];
   const int base = 300;
   bool ran = prog && run_with_arg(cl, prog, "k30", &one, NULL, 0, out, sizeof(out), &base,
                                   sizeof(base));
   unsigned wrong = 0;

   for (int i = 0; ran && i < 64; i++)
      wrong += out[8 + i] != base + i;
   cases_in_matrix++;
   report(ran && out[0] == 0 && !wrong && out[3] > 0 && out[2] == out[3] &&
             out[1] == (64 + out[3] - 1) / out[3],
          "enqueue: OpenCL C 3.0: %s, enqueue_kernel %d, %u children wrong; the queries say %d "
          "sub-groups of at most %d, the children ran with sub-groups of %d",
          prog ? "builds" : "does not build", ran ? out[0] : 0, wrong, ran ? out[1] : 0,
          ran ? out[2] : 0, ran ? out[3] : 0);
   if (prog)
      clReleaseProgram(prog);
}

/* The queries on a block's kernel, for ndranges of 1, 2 and 3 dimensions
 * with and without a local size, uniform and with a partial last
 * sub-group.  A block cannot fix its sub-group size: its kernel runs at
 * the compiler's default width, which WEFT_SIMD sets; each width gets a
 * program of its own (the block stores SIMD, so that no cache returns
 * another width's binary). */
static const struct {
   unsigned dim;
   size_t global[3], local[3]; /* local all 0: none given */
} query_ndranges[] = {
   {1, {64, 1, 1}, {0, 0, 0}},     {1, {5, 1, 1}, {0, 0, 0}},
   {1, {100000, 1, 1}, {0, 0, 0}}, {1, {64, 1, 1}, {64, 0, 0}},
   {1, {100, 1, 1}, {12, 0, 0}},   {1, {7, 1, 1}, {7, 0, 0}},
   {1, {1, 1, 1}, {1, 0, 0}},      {2, {16, 16, 1}, {4, 4, 0}},
   {2, {30, 7, 1}, {10, 3, 0}},    {2, {30, 7, 1}, {0, 0, 0}},
   {3, {8, 8, 8}, {2, 3, 5}},      {3, {64, 4, 4}, {32, 2, 2}},
};
#define NUM_QUERY_NDRANGES (sizeof(query_ndranges) / sizeof(query_ndranges[0]))

/* The ndrange @i of query_ndranges, declared as r. */
static char *
append_ndrange(char *src, unsigned i)
{
   const size_t *g = query_ndranges[i].global, *l = query_ndranges[i].local;
   unsigned d = query_ndranges[i].dim;
   bool local = l[0] || l[1] || l[2];

   if (d == 1) {
      src = append(src, "      ndrange_t r = ndrange_1D(%zu", g[0]);
      return local ? append(src, ", %zu);\n", l[0]) : append(src, ");\n");
   }
   /* Arrays of the ndrange's dimension: the LLVM-SPIRV translator asserts
    * on a longer one. */
   if (d == 2)
      src = append(src, "      const size_t g[2] = {%zu, %zu}, l[2] = {%zu, %zu};\n", g[0], g[1],
                   l[0], l[1]);
   else
      src = append(src, "      const size_t g[3] = {%zu, %zu, %zu}, l[3] = {%zu, %zu, %zu};\n",
                   g[0], g[1], g[2], l[0], l[1], l[2]);
   return append(src, "      ndrange_t r = ndrange_%uD(g%s);\n", d, local ? ", l" : "");
}

static char *
query_source(void)
{
   char *src = append(NULL, "kernel void k(global uint *out)\n"
                            "{\n"
                            "   void (^b)(void) = ^{ out[get_global_id(0)] = SIMD; };\n"
                            "   out[0] = get_kernel_work_group_size(b);\n"
                            "   out[1] = get_kernel_preferred_work_group_size_multiple(b);\n");

   for (unsigned i = 0; i < NUM_QUERY_NDRANGES; i++) {
      src = append(src, "   {\n");
      src = append_ndrange(src, i);
      src = append(src,
                   "      out[2 + 2 * %u] = get_kernel_sub_group_count_for_ndrange(r, b);\n"
                   "      out[3 + 2 * %u] = get_kernel_max_sub_group_size_for_ndrange(r, b);\n"
                   "   }\n",
                   i, i);
   }
   return append(src, "}\n");
}

/* The manual's rules (Documentation/gpu/weft/device-enqueue.rst). */
static size_t
query_workgroup_items(unsigned i, size_t max_wg)
{
   const size_t *g = query_ndranges[i].global, *l = query_ndranges[i].local;
   size_t items = 1;

   if (!l[0] && !l[1] && !l[2])
      return g[0] < max_wg ? g[0] : max_wg;
   for (unsigned c = 0; c < query_ndranges[i].dim; c++)
      items *= l[c];
   return items;
}

static void
run_enqueue_queries_at(struct cl *cl, const char *src, unsigned simd, size_t max_wg)
{
   uint32_t out[2 + 2 * NUM_QUERY_NDRANGES];
   static const struct shape one = {"1d", 1, {1, 1, 1}, {1, 1, 1}};
   char env[4];
   const char *old = getenv("WEFT_SIMD");
   char *saved = old ? strdup(old) : NULL;

   snprintf(env, sizeof(env), "%u", simd);
   setenv("WEFT_SIMD", env, 1);

   cl_program prog = build(cl, src, simd, "-cl-std=CL2.0");
   bool ran = prog && run(cl, prog, "k", &one, NULL, 0, out, sizeof(out));
   cl_kernel child = prog ? clCreateKernel(prog, "__k_block_invoke_kernel", NULL) : NULL;
   size_t child_wg = 0, child_multiple = 0;

   if (child) {
      clGetKernelWorkGroupInfo(child, cl->dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof(child_wg),
                               &child_wg, NULL);
      clGetKernelWorkGroupInfo(child, cl->dev, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                               sizeof(child_multiple), &child_multiple, NULL);
   }
   cases_in_matrix++;
   report(ran && child && child_multiple == simd && out[0] == child_wg && out[1] == simd,
          "enqueue: SIMD %u: the block's kernel runs at SIMD %zu with work-groups up to %zu; "
          "get_kernel_work_group_size %u, get_kernel_preferred_work_group_size_multiple %u",
          simd, child_multiple, child_wg, ran ? out[0] : 0, ran ? out[1] : 0);

   for (unsigned i = 0; i < NUM_QUERY_NDRANGES; i++) {
      size_t items = query_workgroup_items(i, max_wg);
      uint32_t count = (uint32_t)((items + simd - 1) / simd);
      /* The width, as get_max_sub_group_size() in the child, also in
       * work-groups of fewer work-items. */
      uint32_t size = simd;
      const size_t *l = query_ndranges[i].local;
      size_t api_count = count, api_size = size;

      /* With a local size, the API's answer for the child kernel too. */
      if (child && (l[0] || l[1] || l[2])) {
         size_t local[3] = {l[0], l[1], l[2]};
         clGetKernelSubGroupInfo(child, cl->dev, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
                                 query_ndranges[i].dim * sizeof(size_t), local,
                                 sizeof(api_count), &api_count, NULL);
         clGetKernelSubGroupInfo(child, cl->dev, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                 query_ndranges[i].dim * sizeof(size_t), local,
                                 sizeof(api_size), &api_size, NULL);
      }
      uint32_t got_count = ran ? out[2 + 2 * i] : 0, got_size = ran ? out[3 + 2 * i] : 0;
      cases_in_matrix++;
      report(ran && got_count == count && got_size == size && api_count == count &&
                api_size == size,
             "enqueue: SIMD %u: ndrange_%uD(%zu %zu %zu, local %zu %zu %zu): %u sub-groups of at "
             "most %u (clGetKernelSubGroupInfo on the block's kernel %zu, %zu), want %u, %u",
             simd, query_ndranges[i].dim, query_ndranges[i].global[0],
             query_ndranges[i].global[1], query_ndranges[i].global[2], l[0], l[1], l[2],
             got_count, got_size, api_count, api_size, count, size);
   }
   if (prog)
      clReleaseProgram(prog);
   if (saved)
      setenv("WEFT_SIMD", saved, 1);
   else
      unsetenv("WEFT_SIMD");
   free(saved);
}

static cl_command_queue make_default_queue(struct cl *cl, cl_uint size);

/* Word offsets in the output of run_enqueue_query_children. */
#define CHILD_SEEN(i) (3 * (i))             /* what child i's first work-group ran with */
#define CHILD_QUERY(i) (64 + 2 * (i))       /* the parent's queries on its block */
#define CHILD_RESULT(i) (96 + (i))          /* enqueue_kernel's result */
#define CHILD_WIDTH 127
#define CHILD_WORDS 128

/* Each ndrange of query_ndranges enqueued: the sub-groups the child's first
 * work-group runs with (get_num_sub_groups, get_max_sub_group_size, the
 * first sub-group's size) against what the parent's queries said of the
 * same block and ndrange, and against the manual's rules. */
static void
run_enqueue_query_children(struct cl *cl, unsigned simd, size_t max_wg)
{
   /* SIMD stored, so that no cache returns another width's program. */
   char *src = append(NULL, "kernel void k(global uint *out)\n{\n   out[%u] = SIMD;\n",
                      CHILD_WIDTH);
   uint32_t out[CHILD_WORDS];
   static const struct shape one = {"1d", 1, {1, 1, 1}, {1, 1, 1}};
   cl_command_queue q = make_default_queue(cl, 0);
   char env[4];
   const char *old = getenv("WEFT_SIMD");
   char *saved = old ? strdup(old) : NULL;

   for (unsigned i = 0; i < NUM_QUERY_NDRANGES; i++) {
      src = append(src, "   {\n");
      src = append_ndrange(src, i);
      src = append(src,
                   "      void (^b)(void) = ^{\n"
                   "         if (get_global_linear_id() == 0) {\n"
                   "            out[%u] = get_num_sub_groups();\n"
                   "            out[%u] = get_max_sub_group_size();\n"
                   "            out[%u] = get_sub_group_size();\n"
                   "         }\n"
                   "      };\n"
                   "      out[%u] = get_kernel_sub_group_count_for_ndrange(r, b);\n"
                   "      out[%u] = get_kernel_max_sub_group_size_for_ndrange(r, b);\n"
                   "      out[%u] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT,\n"
                   "                               r, b);\n"
                   "   }\n",
                   CHILD_SEEN(i), CHILD_SEEN(i) + 1, CHILD_SEEN(i) + 2, CHILD_QUERY(i),
                   CHILD_QUERY(i) + 1, CHILD_RESULT(i));
   }
   src = append(src, "}\n");

   snprintf(env, sizeof(env), "%u", simd);
   setenv("WEFT_SIMD", env, 1);
   cl_program prog = build(cl, src, simd, "-cl-std=CL2.0");
   bool ran = q && prog && run(cl, prog, "k", &one, NULL, 0, out, sizeof(out)) &&
              out[CHILD_WIDTH] == simd;

   for (unsigned i = 0; i < NUM_QUERY_NDRANGES; i++) {
      size_t items = query_workgroup_items(i, max_wg);
      uint32_t count = (uint32_t)((items + simd - 1) / simd);
      uint32_t first = items < simd ? (uint32_t)items : simd;
      const uint32_t *seen = out + CHILD_SEEN(i), *query = out + CHILD_QUERY(i);

      cases_in_matrix++;
      report(ran && out[CHILD_RESULT(i)] == 0 && seen[0] == query[0] && seen[1] == query[1] &&
                query[0] == count && query[1] == simd && seen[2] == first,
             "enqueue: SIMD %u: a child of ndrange_%uD(%zu %zu %zu, local %zu %zu %zu) (enqueued "
             "%d) ran with %u sub-groups of at most %u, the first of %u; the queries said %u of "
             "at most %u; want %u of %u, the first of %u",
             simd, query_ndranges[i].dim, query_ndranges[i].global[0],
             query_ndranges[i].global[1], query_ndranges[i].global[2],
             query_ndranges[i].local[0], query_ndranges[i].local[1], query_ndranges[i].local[2],
             ran ? (int)out[CHILD_RESULT(i)] : 0, ran ? seen[0] : 0, ran ? seen[1] : 0,
             ran ? seen[2] : 0, ran ? query[0] : 0, ran ? query[1] : 0, count, simd, first);
   }
   if (prog)
      clReleaseProgram(prog);
   if (q)
      clReleaseCommandQueue(q);
   if (saved)
      setenv("WEFT_SIMD", saved, 1);
   else
      unsetenv("WEFT_SIMD");
   free(saved);
   free(src);
}

static void
run_enqueue_queries(struct cl *cl)
{
   static const unsigned simds[] = {8, 16, 32};
   size_t max_wg = 0;
   char *src = query_source();

   clGetDeviceInfo(cl->dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(max_wg), &max_wg, NULL);
   for (unsigned s = 0; s < 3; s++) {
      run_enqueue_queries_at(cl, src, simds[s], max_wg);
      run_enqueue_query_children(cl, simds[s], max_wg);
   }
   free(src);
}

/* True when @cl's queue runs a kernel as before. */
static bool
context_runs_kernels(struct cl *cl)
{
   static const char src[] = "kernel void k(global const int *in, global int *out)\n"
                             "{ out[get_global_id(0)] = in[get_global_id(0)] * 3; }\n";
   static const struct shape one = {"1d", 1, {64, 1, 1}, {16, 1, 1}};
   int32_t in[64], out[64];
   cl_program prog = build(cl, src, 16, "-cl-std=CL2.0");
   bool ran, ok = true;

   for (int i = 0; i < 64; i++)
      in[i] = i - 20;
   ran = prog && run(cl, prog, "k", &one, in, sizeof(in), out, sizeof(out));
   for (int i = 0; ran && i < 64; i++)
      ok &= out[i] == in[i] * 3;
   if (prog)
      clReleaseProgram(prog);
   return ran && ok;
}

/* After all of that, the context runs a kernel as before. */
static void
run_enqueue_still_works(struct cl *cl)
{
   cases_in_matrix++;
   report(context_runs_kernels(cl), "enqueue: the context still runs kernels");
}

/* --- enqueue_kernel: children run on the default on-device queue -------- */

#define CLK_ENQUEUE_FAILURE -101
#define CLK_INVALID_QUEUE -102
#define CLK_INVALID_NDRANGE -160
#define CLK_DEVICE_QUEUE_FULL -161
#define CLK_EVENT_ALLOCATION_FAILURE -100
#define CLK_INVALID_EVENT_WAIT_LIST -57
#define CLK_OUT_OF_RESOURCES -5
#define CLK_INVALID_ARG_SIZE -51

/* Makes an on-device queue of @size bytes the default one (NULL: it could
 * not be made). */
static cl_command_queue
make_default_queue(struct cl *cl, cl_uint size)
{
   cl_command_queue q = device_queue(cl, ON_DEVICE, size, NULL);

   if (q && clSetDefaultDeviceCommandQueue(cl->ctx, cl->dev, q) != CL_SUCCESS) {
      clReleaseCommandQueue(q);
      return NULL;
   }
   return q;
}

/* Runs kernel @name of @src over @global work-items in work-groups of
 * @local with an int buffer of @n elements (filled with 0xa5 bytes) and
 * an int argument; false when it did not build or run. */
static bool
run_parent(struct cl *cl, const char *src, const char *name, size_t global, size_t local,
           int32_t *out, size_t n, int arg)
{
   const struct shape s = {"1d", 1, {global, 1, 1}, {local, 1, 1}};
   cl_program prog = build(cl, src, 16, "-cl-std=CL2.0");
   bool ran = prog && run_with_arg(cl, prog, name, &s, NULL, 0, out, n * sizeof(*out), &arg,
                                   sizeof(arg));

   if (prog)
      clReleaseProgram(prog);
   return ran;
}

/* Every flag, every ndrange form: the children see the ndrange they were
 * given. */
static void
run_enqueue_children(struct cl *cl)
{
   static const char src[] =
      "#define CHILD(I) \\\n"
      "   out[16 + 4 * (I) + 0] = get_global_id(0); \\\n"
      "   out[16 + 4 * (I) + 1] = get_global_id(1) * 100 + get_global_id(2); \\\n"
      "   out[16 + 4 * (I) + 2] = get_num_groups(0) * 10000 + get_num_groups(1) * 100 + \\\n"
      "                           get_num_groups(2); \\\n"
      "   out[16 + 4 * (I) + 3] = get_work_dim() * 1000000 + get_global_size(0) * 10000 + \\\n"
      "                           get_local_size(0) * 100 + base\n"
      "kernel void flags(global int *out, int base)\n"
      "{\n"
      "   size_t id = get_global_id(0);\n"
      "   kernel_enqueue_flags_t f[3] = { CLK_ENQUEUE_FLAGS_NO_WAIT, CLK_ENQUEUE_FLAGS_WAIT_KERNEL,\n"
      "                                   CLK_ENQUEUE_FLAGS_WAIT_WORK_GROUP };\n"
      "   out[id] = enqueue_kernel(get_default_queue(), f[id % 3], ndrange_1D(4, 2),\n"
      "                            ^{ size_t i = id * 4 + get_global_id(0); CHILD(i); });\n"
      "}\n"
      "kernel void offset_1d(global int *out, int base)\n"
      "{\n"
      "   out[0] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT,\n"
      "                           ndrange_1D(100, 10, 5),\n"
      "                           ^{ CHILD(get_global_id(0) - 100); });\n"
      "}\n"
      "kernel void nd_2d(global int *out, int base)\n"
      "{\n"
      "   const size_t g[2] = {6, 4}, l[2] = {3, 2};\n"
      "   out[0] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_2D(g, l),\n"
      "                           ^{ CHILD(get_global_id(1) * 6 + get_global_id(0)); });\n"
      "}\n"
      "kernel void nd_3d(global int *out, int base)\n"
      "{\n"
      "   const size_t g[3] = {4, 3, 2};\n"
      "   out[0] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_3D(g),\n"
      "                           ^{ CHILD((get_global_id(2) * 3 + get_global_id(1)) * 4 +\n"
      "                                    get_global_id(0)); });\n"
      "}\n";
   static const struct {
      const char *name;
      unsigned parents, dim;
      size_t offset, global[3], local[3];
   } cases[] = {
      {"flags", 3, 1, 0, {4, 1, 1}, {2, 1, 1}},
      {"offset_1d", 1, 1, 100, {10, 1, 1}, {5, 1, 1}},
      {"nd_2d", 1, 2, 0, {6, 4, 1}, {3, 2, 1}},
      /* no local size: the first dimension's global size, by 1 by 1 */
      {"nd_3d", 1, 3, 0, {4, 3, 2}, {4, 1, 1}},
   };

   for (unsigned c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
      int32_t out[16 + 4 * 24];
      size_t items = cases[c].global[0] * cases[c].global[1] * cases[c].global[2];
      int base = 7 + (int)c;
      bool ran = run_parent(cl, src, cases[c].name, cases[c].parents, cases[c].parents, out,
                            16 + 4 * 24, base);
      bool ok = ran;
      unsigned bad = 0;

      for (unsigned p = 0; ok && p < cases[c].parents; p++)
         ok &= out[p] == 0;
      for (size_t i = 0; ran && i < cases[c].parents * items; i++) {
         size_t in_parent = i % items;
         size_t g0 = cases[c].global[0], g1 = cases[c].global[1];
         size_t x = in_parent % g0, y = in_parent / g0 % g1, z = in_parent / g0 / g1;
         int32_t want[4] = {
            (int32_t)(x + cases[c].offset),
            (int32_t)(y * 100 + z),
            (int32_t)(((g0 + cases[c].local[0] - 1) / cases[c].local[0]) * 10000 +
                      ((g1 + cases[c].local[1] - 1) / cases[c].local[1]) * 100 +
                      (cases[c].global[2] + cases[c].local[2] - 1) / cases[c].local[2]),
            (int32_t)(cases[c].dim * 1000000 + g0 * 10000 + cases[c].local[0] * 100 + base),
         };
         /* the flags family: children of parent p at p * 4 */
         for (unsigned k = 0; k < 4; k++) {
            if (out[16 + 4 * i + k] != want[k]) {
               if (!bad++)
                  fprintf(stderr, "enqueue %s: child %zu word %u: %d, want %d\n",
                          cases[c].name, i, k, out[16 + 4 * i + k], want[k]);
               ok = false;
            }
         }
      }
      cases_in_matrix++;
      report(ok, "enqueue: enqueue_kernel, %s: results %d.., children %s", cases[c].name,
             ran ? out[0] : 0, bad ? "wrong" : "right");
   }
}

/*
 * Enqueues in a loop NIR unrolls, where one block literal, one wait list
 * and one return event variable are written once per round: each round's
 * child sees its own literal (its round), waits for its own user event and
 * returns a valid event into a variable initialized to CLK_NULL_EVENT.
 */
static void
run_enqueue_in_a_loop(struct cl *cl)
{
   static const char src[] =
      "kernel void loop(global int *out, int base)\n"
      "{\n"
      "   for (int c = 0; c < 2; c++) {\n"
      "      clk_event_t u = create_user_event();\n"
      "      clk_event_t wait[1] = { u };\n"
      "      clk_event_t ev = CLK_NULL_EVENT;\n"
      "      out[c] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
      "                              1, wait, &ev, ^{ out[4 + c] = base + c; });\n"
      "      out[2 + c] = is_valid_event(ev);\n"
      "      set_user_event_status(u, CL_COMPLETE);\n"
      "      release_event(u);\n"
      "      release_event(ev);\n"
      "   }\n"
      "}\n";
   int32_t out[6];
   bool ran = run_parent(cl, src, "loop", 1, 1, out, 6, 40);

   cases_in_matrix++;
   report(ran && !out[0] && !out[1] && out[2] == 1 && out[3] == 1 && out[4] == 40 &&
             out[5] == 41,
          "enqueue: in an unrolled loop: enqueue_kernel %d %d, returned events valid %d %d, "
          "the children wrote %d %d (want 0 0, 1 1, 40 41)", ran ? out[0] : 0, ran ? out[1] : 0,
          ran ? out[2] : 0, ran ? out[3] : 0, ran ? out[4] : 0, ran ? out[5] : 0);
}

/* Three levels deep: a child's child's child. */
static void
run_enqueue_nested(struct cl *cl)
{
   static const char src[] =
      "kernel void nest(global int *out, int base)\n"
      "{\n"
      "   out[0] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL,\n"
      "                           ndrange_1D(1), ^{\n"
      "      out[1] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL,\n"
      "                              ndrange_1D(1), ^{\n"
      "         out[2] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL,\n"
      "                                 ndrange_1D(8), ^{\n"
      "            out[3 + get_global_id(0)] = base * (int)get_global_id(0);\n"
      "         });\n"
      "      });\n"
      "   });\n"
      "}\n";
   int32_t out[11];
   bool ran = run_parent(cl, src, "nest", 1, 1, out, 11, 5), ok = ran;

   for (unsigned i = 0; ok && i < 3; i++)
      ok &= out[i] == 0;
   for (unsigned i = 0; ok && i < 8; i++)
      ok &= out[3 + i] == 5 * (int)i;
   cases_in_matrix++;
   report(ok, "enqueue: nested three levels deep: %d %d %d, the last level wrote %d .. %d",
          out[0], out[1], out[2], out[3], out[10]);
}

/* One child per work-item of a large parent. */
static void
run_enqueue_many(struct cl *cl, size_t parents)
{
   static const char src[] =
      "kernel void many(global int *out, int base)\n"
      "{\n"
      "   size_t id = get_global_id(0);\n"
      "   out[id] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
      "                            ^{ out[base + id] = (int)id * 3; });\n"
      "}\n";
   int32_t *out = malloc(2 * parents * sizeof(*out));
   /* a big enough default queue for them all */
   cl_command_queue q = make_default_queue(cl, 16 * 1024 * 1024);
   bool ran = out && q && run_parent(cl, src, "many", parents, 64, out, 2 * parents,
                                     (int)parents);
   size_t failed = 0, wrong = 0;

   for (size_t i = 0; ran && i < parents; i++) {
      failed += out[i] != 0;
      wrong += out[parents + i] != (int32_t)i * 3;
   }
   cases_in_matrix++;
   report(ran && !failed && !wrong, "enqueue: %zu children, one per work-item: %zu failed to "
          "enqueue, %zu wrote a wrong value", parents, failed, wrong);
   if (q)
      clReleaseCommandQueue(q);
   free(out);
}

/* A full queue: enqueue_kernel says CLK_DEVICE_QUEUE_FULL, exactly the
 * children it accepted run, and a later parent finds the queue empty. */
static void
run_enqueue_queue_full(struct cl *cl)
{
   static const char src[] =
      "kernel void full(global int *out, int n)\n"
      "{\n"
      "   size_t id = get_global_id(0);\n"
      "   out[id] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
      "                            ^{ out[n + id] = 1; });\n"
      "}\n";
   enum { N = 256 };
   int32_t out[2 * N];
   cl_command_queue q = make_default_queue(cl, 4096);

   for (unsigned round = 0; round < 2; round++) {
      bool ran = q && run_parent(cl, src, "full", N, 64, out, 2 * N, N);
      unsigned ok_count = 0, full = 0, other = 0, mismatched = 0;

      for (unsigned i = 0; ran && i < N; i++) {
         ok_count += out[i] == 0;
         full += out[i] == CLK_DEVICE_QUEUE_FULL;
         other += out[i] != 0 && out[i] != CLK_DEVICE_QUEUE_FULL;
         mismatched += (out[i] == 0) != (out[N + i] == 1);
      }
      cases_in_matrix++;
      report(ran && ok_count && full && !other && !mismatched,
             "enqueue: a queue of 4096 bytes, %u children (round %u): %u enqueued, %u "
             "CLK_DEVICE_QUEUE_FULL, %u other results, %u ran when they should not or did not "
             "when they should", N, round + 1, ok_count, full, other, mismatched);
   }
   if (q)
      clReleaseCommandQueue(q);
}

/* An ndrange a child cannot run with: CLK_INVALID_NDRANGE, and no child. */
static void
run_enqueue_invalid_ndrange(struct cl *cl)
{
   static const char src[] =
      "kernel void bad(global int *out, int max_wg)\n"
      "{\n"
      "   out[0] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT,\n"
      "                           ndrange_1D(max_wg + 1, max_wg + 1), ^{ out[8] = 1; });\n"
      "   out[1] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT,\n"
      "                           ndrange_1D(0), ^{ out[9] = 1; });\n"
      "   const size_t g[2] = {4, 4}, l[2] = {2, 0};\n"
      "   out[2] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT,\n"
      "                           ndrange_2D(g, l), ^{ out[10] = 1; });\n"
      "}\n";
   int32_t out[12];
   size_t max_wg = 0;
   cl_command_queue q = make_default_queue(cl, 0);

   clGetDeviceInfo(cl->dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(max_wg), &max_wg, NULL);
   bool ran = q && run_parent(cl, src, "bad", 1, 1, out, 12, (int)max_wg);
   cases_in_matrix++;
   report(ran && out[0] == CLK_INVALID_NDRANGE && out[1] == CLK_INVALID_NDRANGE &&
             out[2] == CLK_INVALID_NDRANGE && out[8] != 1 && out[9] != 1 && out[10] != 1,
          "enqueue: a local size past the largest work-group %d, a global size of 0 %d, a "
          "local size of 0 in one dimension %d: want CLK_INVALID_NDRANGE and no child",
          out[0], out[1], out[2]);
   if (q)
      clReleaseCommandQueue(q);
}

/* Without a default on-device queue: CLK_INVALID_QUEUE. */
static void
run_enqueue_no_queue(struct cl *cl)
{
   static const char src[] =
      "kernel void none(global int *out, int base)\n"
      "{\n"
      "   out[0] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
      "                           ^{ out[1] = base; });\n"
      "}\n";
   int32_t out[2];
   bool ran = run_parent(cl, src, "none", 1, 1, out, 2, 3);

   cases_in_matrix++;
   report(ran && out[0] == CLK_INVALID_QUEUE && out[1] != 3,
          "enqueue: no default on-device queue: %d, want CLK_INVALID_QUEUE", out[0]);
}

/* Nesting past the queue's depth bound (64): the enqueue at the bound
 * fails with CLK_ENQUEUE_FAILURE, and nothing deeper runs. */
static void
run_enqueue_depth_bound(struct cl *cl)
{
   enum { LEVELS = 67 };
   char *src = append(NULL, "kernel void deep(global int *out, int base)\n{\n");
   int32_t out[LEVELS + 1];
   cl_command_queue q = make_default_queue(cl, 0);

   for (unsigned l = 0; l < LEVELS; l++)
      src = append(src, "out[%u] = enqueue_kernel(get_default_queue(), "
                   "CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), ^{\n", l);
   src = append(src, "out[%u] = base;\n", LEVELS);
   for (unsigned l = 0; l < LEVELS; l++)
      src = append(src, "});\n");
   src = append(src, "}\n");

   bool ran = q && run_parent(cl, src, "deep", 1, 1, out, LEVELS + 1, 99);
   bool ok = ran;
   for (unsigned l = 0; ok && l < 64; l++)
      ok &= out[l] == 0;
   cases_in_matrix++;
   report(ok && out[64] == CLK_ENQUEUE_FAILURE && out[65] == (int32_t)0xa5a5a5a5 &&
             out[LEVELS] != 99,
          "enqueue: %u nested levels: the enqueue at depth 64 gives %d (want "
          "CLK_ENQUEUE_FAILURE), depth 65 %s", LEVELS, ran ? out[64] : 0,
          ran && out[65] == (int32_t)0xa5a5a5a5 ? "never ran" : "ran");
   free(src);
   if (q)
      clReleaseCommandQueue(q);
}

/*
 * Recursion with no bound in the program: a block calls the function that
 * enqueues it, so each child enqueues the next (no call cycle: the
 * function only names the block's kernel).  In a line, the enqueue past the
 * depth bound fails with CLK_ENQUEUE_FAILURE at depth 64; doubling at every
 * level, the queue fills first (CLK_DEVICE_QUEUE_FULL) and every child that
 * was accepted runs exactly once.  Either way the parent's event completes:
 * no fault, no hang, and a later parent finds the queue empty.
 */
static void
run_enqueue_recursion(struct cl *cl)
{
   static const char src[] =
      "void line(global int *out, int depth);\n"
      "void line(global int *out, int depth)\n"
      "{\n"
      "   int r = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
      "                          ^{ line(out, depth + 1); });\n"
      "   atomic_max((volatile global int *)&out[2], depth);\n"
      "   if (r != CLK_SUCCESS) {\n"
      "      out[0] = r;\n"
      "      out[1] = depth;\n"
      "   }\n"
      "}\n"
      "void tree(global int *out);\n"
      "void tree(global int *out)\n"
      "{\n"
      "   atomic_inc((volatile global int *)&out[5]);\n"
      "   for (int c = 0; c < 2; c++) {\n"
      "      int r = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT,\n"
      "                             ndrange_1D(1), ^{ tree(out); });\n"
      "      atomic_inc((volatile global int *)&out[r == CLK_SUCCESS ? 3 :\n"
      "                                             r == CLK_DEVICE_QUEUE_FULL ? 4 : 6]);\n"
      "   }\n"
      "}\n"
      "kernel void rec(global int *out, int kind)\n"
      "{\n"
      "   out[0] = out[1] = out[2] = out[3] = out[4] = out[5] = out[6] = 0;\n"
      "   if (kind)\n"
      "      tree(out);\n"
      "   else\n"
      "      line(out, 0);\n"
      "}\n";
   enum { QUEUE_BYTES = 256 * 1024 };
   int32_t out[8];
   cl_command_queue q = make_default_queue(cl, QUEUE_BYTES);
   cl_program prog = build(cl, src, 16, "-cl-std=CL2.0");
   const struct shape one = {"1d", 1, {1, 1, 1}, {1, 1, 1}};
   int kind = 0;
   bool ran = q && prog &&
              run_with_arg(cl, prog, "rec", &one, NULL, 0, out, sizeof(out), &kind, sizeof(kind));

   cases_in_matrix++;
   report(ran && out[0] == CLK_ENQUEUE_FAILURE && out[1] == 64 && out[2] == 64,
          "enqueue: a block that enqueues itself without end: refused with %d at depth %d "
          "(want CLK_ENQUEUE_FAILURE at 64), deepest child %d", ran ? out[0] : 0,
          ran ? out[1] : 0, ran ? out[2] : 0);
   for (unsigned round = 0; round < 2; round++) {
      kind = 1;
      ran = q && prog &&
            run_with_arg(cl, prog, "rec", &one, NULL, 0, out, sizeof(out), &kind, sizeof(kind));
      cases_in_matrix++;
      report(ran && out[3] > 0 && out[4] > 0 && out[6] == 0 && out[5] == out[3] + 1,
             "enqueue: every child enqueues two without end, a queue of %u bytes (round %u): "
             "%d enqueued, %d CLK_DEVICE_QUEUE_FULL, %d other results; %d ran (want the "
             "enqueued and the parent)", QUEUE_BYTES, round + 1, ran ? out[3] : 0,
             ran ? out[4] : 0, ran ? out[6] : 0, ran ? out[5] : 0);
   }
   if (prog)
      clReleaseProgram(prog);
   if (q)
      clReleaseCommandQueue(q);
}

/* --- Blocks with local-memory arguments ------------------------------- */

/*
 * Children of one, two and three local-memory arguments of different types
 * and sizes (an odd size before a long, so that the alignment shows), in
 * several work-groups, 20 work-items making a partial sub-group: every
 * work-item fills its share of each buffer, and after a barrier stores the
 * buffer reversed, so each element is read by another work-item than the
 * one that wrote it.  The two-argument child also reduces over its
 * work-group, whose slots are the child's static local memory, before the
 * arguments.  The forms: plain, with a wait list, with a returned event.
 */
/* Macros, so that the kernel's source gets the same values (LA_STR). */
#define LA_N1 100 /* int, in LA_G1 work-groups of LA_L1 */
#define LA_G1 2
#define LA_L1 32
#define LA_N2B 37 /* uchar, then long */
#define LA_N2C 20
#define LA_G2 3
#define LA_L2 16
#define LA_N3D 51 /* short, float4, int */
#define LA_N3E 9
#define LA_N3F 300
#define LA_G3 2
#define LA_L3 20
#define LA_PER2 (LA_N2B + 2 * LA_N2C + 1)
#define LA_PER3 (LA_N3D + 4 * LA_N3E + LA_N3F)
#define LA_O1 8
#define LA_O2 (LA_O1 + LA_G1 * LA_N1)
#define LA_O3 (LA_O2 + LA_G2 * LA_PER2)
#define LA_WORDS (LA_O3 + LA_G3 * LA_PER3)

#define LA_STR_(x) #x
#define LA_STR(x) LA_STR_(x)

static uint8_t
la_b(int salt, int g, int i)
{
   return (uint8_t)(salt + g * 31 + i * 5);
}

static int64_t
la_c(int salt, int g, int i)
{
   return (int64_t)((uint64_t)(int64_t)(salt + g) << 33) + i * 11;
}

static bool
la_check(const char *what, const int32_t *out, size_t at, int32_t want, unsigned *bad)
{
   if (out[at] == want)
      return true;
   if (!(*bad)++)
      fprintf(stderr, "enqueue: local-memory arguments, %s: word %zu is %d, want %d\n", what, at,
              out[at], want);
   return false;
}

static void
run_enqueue_local_args(struct cl *cl)
{
   static const char src[] =
      "#define N1 " LA_STR(LA_N1) "\n#define N2B " LA_STR(LA_N2B) "\n"
      "#define N2C " LA_STR(LA_N2C) "\n#define N3D " LA_STR(LA_N3D) "\n"
      "#define N3E " LA_STR(LA_N3E) "\n#define N3F " LA_STR(LA_N3F) "\n"
      "#define O1 " LA_STR(LA_O1) "\n#define O2 " LA_STR(LA_O2) "\n#define O3 " LA_STR(LA_O3) "\n"
      "#define PER2 " LA_STR(LA_PER2) "\n#define PER3 " LA_STR(LA_PER3) "\n"
      "kernel void loc(global int *out, int salt)\n"
      "{\n"
      "   queue_t q = get_default_queue();\n"
      "   out[0] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_WAIT_KERNEL,\n"
      "      ndrange_1D(" LA_STR(LA_G1) " * " LA_STR(LA_L1) ", " LA_STR(LA_L1) "),\n"
      "      ^(local void *pa) {\n"
      "         local int *a = pa;\n"
      "         size_t l = get_local_id(0), g = get_group_id(0), ls = get_local_size(0);\n"
      "         for (size_t i = l; i < N1; i += ls)\n"
      "            a[i] = salt + (int)(g * 1000 + i * 7);\n"
      "         barrier(CLK_LOCAL_MEM_FENCE);\n"
      "         for (size_t i = l; i < N1; i += ls)\n"
      "            out[O1 + g * N1 + i] = a[N1 - 1 - i];\n"
      "      }, (uint)(N1 * sizeof(int)));\n"
      "\n"
      "   clk_event_t go = create_user_event();\n"
      "   out[1] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT,\n"
      "      ndrange_1D(" LA_STR(LA_G2) " * " LA_STR(LA_L2) ", " LA_STR(LA_L2) "), 1, &go, NULL,\n"
      "      ^(local void *pb, local void *pc) {\n"
      "         local uchar *b = pb;\n"
      "         local long *c = pc;\n"
      "         size_t l = get_local_id(0), g = get_group_id(0), ls = get_local_size(0);\n"
      "         for (size_t i = l; i < N2B; i += ls)\n"
      "            b[i] = (uchar)(salt + g * 31 + i * 5);\n"
      "         for (size_t i = l; i < N2C; i += ls)\n"
      "            c[i] = ((long)(salt + (int)g) << 33) + (long)i * 11;\n"
      "         barrier(CLK_LOCAL_MEM_FENCE);\n"
      "         global int *o = out + O2 + g * PER2;\n"
      "         for (size_t i = l; i < N2B; i += ls)\n"
      "            o[i] = b[N2B - 1 - i];\n"
      "         for (size_t i = l; i < N2C; i += ls) {\n"
      "            o[N2B + 2 * i] = (int)c[N2C - 1 - i];\n"
      "            o[N2B + 2 * i + 1] = (int)(c[N2C - 1 - i] >> 32);\n"
      "         }\n"
      "         int sum = work_group_reduce_add((int)b[l] + (int)(c[l] >> 33));\n"
      "         if (l == 0)\n"
      "            o[PER2 - 1] = sum;\n"
      "      }, (uint)N2B, (uint)(N2C * sizeof(long)));\n"
      "   set_user_event_status(go, CL_COMPLETE);\n"
      "   release_event(go);\n"
      "\n"
      "   clk_event_t done;\n"
      "   out[2] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_WAIT_WORK_GROUP,\n"
      "      ndrange_1D(" LA_STR(LA_G3) " * " LA_STR(LA_L3) ", " LA_STR(LA_L3) "), 0, NULL, &done,\n"
      "      ^(local void *pd, local void *pe, local void *pf) {\n"
      "         local short *d = pd;\n"
      "         local float4 *e = pe;\n"
      "         local int *f = pf;\n"
      "         size_t l = get_local_id(0), g = get_group_id(0), ls = get_local_size(0);\n"
      "         for (size_t i = l; i < N3D; i += ls)\n"
      "            d[i] = (short)(salt * 3 + (int)g * 17 - (int)i * 9);\n"
      "         for (size_t i = l; i < N3E; i += ls)\n"
      "            e[i] = (float4)((float)i, (float)g, -(float)i, (float)salt);\n"
      "         for (size_t i = l; i < N3F; i += ls)\n"
      "            f[i] = salt ^ (int)(g * 7919 + i);\n"
      "         barrier(CLK_LOCAL_MEM_FENCE);\n"
      "         global int *o = out + O3 + g * PER3;\n"
      "         for (size_t i = l; i < N3D; i += ls)\n"
      "            o[i] = d[N3D - 1 - i];\n"
      "         for (size_t i = l; i < N3E; i += ls)\n"
      "            vstore4(convert_int4(e[N3E - 1 - i]), 0, o + N3D + 4 * i);\n"
      "         for (size_t i = l; i < N3F; i += ls)\n"
      "            o[N3D + 4 * N3E + i] = f[N3F - 1 - i];\n"
      "      }, (uint)(N3D * sizeof(short)), (uint)(N3E * sizeof(float4)), (uint)(N3F * sizeof(int)));\n"
      "   out[3] = is_valid_event(done);\n"
      "   release_event(done);\n"
      "}\n";
   static int32_t out[LA_WORDS];
   const int salt = 23;
   bool ran = run_parent(cl, src, "loc", 1, 1, out, LA_WORDS, salt);
   unsigned bad1 = 0, bad2 = 0, bad3 = 0;
   bool ok1 = ran, ok2 = ran, ok3 = ran;

   for (int g = 0; ran && g < LA_G1; g++) {
      for (int i = 0; i < LA_N1; i++)
         ok1 &= la_check("int[100]", out, LA_O1 + g * LA_N1 + i,
                         salt + g * 1000 + (LA_N1 - 1 - i) * 7, &bad1);
   }
   for (int g = 0; ran && g < LA_G2; g++) {
      size_t o = LA_O2 + g * LA_PER2;
      int sum = 0;

      for (int i = 0; i < LA_N2B; i++)
         ok2 &= la_check("uchar[37]", out, o + i, la_b(salt, g, LA_N2B - 1 - i), &bad2);
      for (int i = 0; i < LA_N2C; i++) {
         int64_t c = la_c(salt, g, LA_N2C - 1 - i);

         ok2 &= la_check("long[20]", out, o + LA_N2B + 2 * i, (int32_t)c, &bad2);
         ok2 &= la_check("long[20]", out, o + LA_N2B + 2 * i + 1, (int32_t)(c >> 32), &bad2);
      }
      for (int l = 0; l < LA_L2; l++)
         sum += la_b(salt, g, l) + (int)(la_c(salt, g, l) >> 33);
      ok2 &= la_check("the work-group's sum", out, o + LA_PER2 - 1, sum, &bad2);
   }
   for (int g = 0; ran && g < LA_G3; g++) {
      size_t o = LA_O3 + g * LA_PER3;

      for (int i = 0; i < LA_N3D; i++)
         ok3 &= la_check("short[51]", out, o + i,
                         (int16_t)(salt * 3 + g * 17 - (LA_N3D - 1 - i) * 9), &bad3);
      for (int i = 0; i < LA_N3E; i++) {
         const int32_t want[4] = {LA_N3E - 1 - i, g, -(LA_N3E - 1 - i), salt};

         for (int k = 0; k < 4; k++)
            ok3 &= la_check("float4[9]", out, o + LA_N3D + 4 * i + k, want[k], &bad3);
      }
      for (int i = 0; i < LA_N3F; i++)
         ok3 &= la_check("int[300]", out, o + LA_N3D + 4 * LA_N3E + i,
                         salt ^ (g * 7919 + (LA_N3F - 1 - i)), &bad3);
   }
   cases_in_matrix += 3;
   report(ok1 && out[0] == 0, "enqueue: a block of one local-memory argument (int[%d]), %d "
          "work-groups of %d: enqueue_kernel %d, %u words wrong", LA_N1, LA_G1, LA_L1,
          ran ? out[0] : 0, bad1);
   report(ok2 && out[1] == 0, "enqueue: a block of two (uchar[%d], long[%d]) after a "
          "work-group reduction's local memory, waiting for a user event, %d work-groups of %d: "
          "enqueue_kernel %d, %u words wrong", LA_N2B, LA_N2C, LA_G2, LA_L2, ran ? out[1] : 0,
          bad2);
   report(ok3 && out[2] == 0 && out[3] == 1, "enqueue: a block of three (short[%d], float4[%d], "
          "int[%d]) returning an event (valid: %d), %d work-groups of %d: enqueue_kernel %d, %u "
          "words wrong", LA_N3D, LA_N3E, LA_N3F, ran ? out[3] : 0, LA_G3, LA_L3,
          ran ? out[2] : 0, bad3);
}

/*
 * A size of 0 is CLK_INVALID_ARG_SIZE, local memory past the device's
 * CLK_OUT_OF_RESOURCES (in one argument, and in two that fit alone), and
 * none of those children runs.  The bound is CL_DEVICE_LOCAL_MEM_SIZE, not
 * the hardware's SLM (1 KiB more), on both sides of it: all of it in one
 * argument, in two, and beside a reduction's slots (the slot area, as for a host
 * launch) runs and reaches both ends of its buffers; a byte more, or the
 * SLM's 64 KiB, is refused.  Refusals reserve nothing: 32 of them would fill the queue of
 * 4096 bytes the children that fit are enqueued on afterwards.
 */
static void
run_enqueue_local_arg_errors(struct cl *cl)
{
   static const char src[] =
      "kernel void bad(global int *out, int2 lim)\n"
      "{\n"
      "   int max_local = lim.x, room = lim.y;\n"
      "   queue_t q = get_default_queue();\n"
      "   /* The reduction's slots are the slot area's, beside all of\n"
      "    * CL_DEVICE_LOCAL_MEM_SIZE for the argument. */\n"
      "   void (^with_static)(local void *) = ^(local void *p){\n"
      "      local uchar *c = p;\n"
      "      int sum = work_group_reduce_add(1);\n"
      "      c[0] = 7;\n"
      "      c[room - 1] = 9;\n"
      "      out[22] = sum * 10000 + c[0] * 100 + c[room - 1];\n"
      "      atomic_inc((volatile global int *)&out[23]);\n"
      "   };\n"
      "   int refused = 0;\n"
      "   for (int i = 0; i < 32; i++)\n"
      "      refused += enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
      "                                ^(local void *p){ out[30] = 1; },\n"
      "                                (uint)max_local + 1) == CLK_OUT_OF_RESOURCES;\n"
      "   out[16] = refused;\n"
      "   out[23] = 0;\n"
      "   out[0] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
      "                           ^(local void *p){ out[8] = 1; }, 0u);\n"
      "   clk_event_t ev;\n"
      "   out[1] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 0, NULL, &ev,\n"
      "                           ^(local void *p, local void *r){ out[9] = 1; }, 16u, 0u);\n"
      "   out[2] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
      "                           ^(local void *p){ out[10] = 1; }, (uint)max_local * 2);\n"
      "   out[3] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
      "                           ^(local void *p, local void *r){ out[11] = 1; },\n"
      "                           (uint)max_local, (uint)max_local / 2);\n"
      "   out[4] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
      "                           ^(local void *p){ out[12] = 1; }, 0xffffffffu);\n"
      "   out[5] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
      "                           ^(local void *p){\n"
      "                              local uchar *c = p;\n"
      "                              c[0] = 7;\n"
      "                              c[max_local - 1] = 9;\n"
      "                              out[13] = c[0] * 100 + c[max_local - 1];\n"
      "                           }, (uint)max_local);\n"
      "   out[6] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
      "                           ^(local void *p){ out[14] = 1; }, (uint)max_local + 1);\n"
      "   out[7] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
      "                           ^(local void *p){ out[15] = 1; }, 65536u);\n"
      "   /* 128 bytes after max_local - 128 (a multiple of 128): exactly all */\n"
      "   out[17] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
      "                            ^(local void *p, local void *r){\n"
      "                               local uchar *a = p, *b = r;\n"
      "                               a[0] = 7;\n"
      "                               b[127] = 9;\n"
      "                               out[18] = a[0] * 100 + b[127];\n"
      "                            }, (uint)max_local - 128, 128u);\n"
      "   out[19] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
      "                            ^(local void *p, local void *r){ out[20] = 1; },\n"
      "                            (uint)max_local - 128, 129u);\n"
      "   out[21] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), with_static,\n"
      "                            (uint)room);\n"
      "   out[24] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), with_static,\n"
      "                            (uint)room + 1);\n"
      "}\n";
   int32_t out[32];
   cl_ulong max_local = 0;
   cl_command_queue q = make_default_queue(cl, 4096);
   cl_program prog = build(cl, src, 16, "-cl-std=CL2.0");
   const struct shape one = {"1d", 1, {1, 1, 1}, {1, 1, 1}};

   clGetDeviceInfo(cl->dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(max_local), &max_local, NULL);
   cl_int lim[2] = {(cl_int)max_local, (cl_int)max_local};
   bool ran = q && prog &&
              run_with_arg(cl, prog, "bad", &one, NULL, 0, out, sizeof(out), lim, sizeof(lim));
   bool none_ran = ran && out[8] != 1 && out[9] != 1 && out[10] != 1 && out[11] != 1 &&
                   out[12] != 1;

   cases_in_matrix += 6;
   report(ran && out[0] == CLK_INVALID_ARG_SIZE && out[1] == CLK_INVALID_ARG_SIZE &&
             out[2] == CLK_OUT_OF_RESOURCES && out[3] == CLK_OUT_OF_RESOURCES &&
             out[4] == CLK_OUT_OF_RESOURCES && none_ran,
          "enqueue: local-memory sizes of 0 (%d, with an event %d: want CLK_INVALID_ARG_SIZE), "
          "2 x %llu (%d), %llu and half of it (%d), 2^32 - 1 (%d: want CLK_OUT_OF_RESOURCES), "
          "children %s", out[0], out[1], (unsigned long long)max_local, out[2],
          (unsigned long long)max_local, out[3], out[4], none_ran ? "never ran" : "ran");
   report(ran && out[5] == 0 && out[13] == 709,
          "enqueue: a local-memory argument of all %llu bytes of CL_DEVICE_LOCAL_MEM_SIZE: "
          "enqueue_kernel %d, its first and last bytes %d (want 709)",
          (unsigned long long)max_local, out[5], out[13]);
   report(ran && out[6] == CLK_OUT_OF_RESOURCES && out[7] == CLK_OUT_OF_RESOURCES &&
             out[14] != 1 && out[15] != 1,
          "enqueue: a local-memory argument of %llu + 1 bytes %d, of the SLM's 65536 %d (want "
          "CLK_OUT_OF_RESOURCES), children %s", (unsigned long long)max_local, out[6], out[7],
          ran && (out[14] == 1 || out[15] == 1) ? "ran" : "never ran");
   report(ran && out[17] == 0 && out[18] == 709 && out[19] == CLK_OUT_OF_RESOURCES &&
             out[20] != 1,
          "enqueue: two local-memory arguments of %llu - 128 and 128 bytes: %d, their ends %d "
          "(want 0, 709); of %llu - 128 and 129: %d (want CLK_OUT_OF_RESOURCES), child %s",
          (unsigned long long)max_local, out[17], out[18], (unsigned long long)max_local,
          out[19], ran && out[20] == 1 ? "ran" : "never ran");
   report(ran && out[21] == 0 && out[22] == 10709 && out[24] == CLK_OUT_OF_RESOURCES &&
             out[23] == 1,
          "enqueue: a reduction and an argument of all %llu bytes: "
          "%d, the reduction and the argument's ends %d (want 0, 10709); one byte more: %d "
          "(want CLK_OUT_OF_RESOURCES); the child ran %d times (want 1)",
          (unsigned long long)max_local, out[21], out[22],
          out[24], out[23]);
   report(ran && out[16] == 32 && out[30] != 1,
          "enqueue: 32 refusals for %llu + 1 bytes: %d CLK_OUT_OF_RESOURCES, children %s; the "
          "children that fit were enqueued after them on a queue of 4096 bytes (above)",
          (unsigned long long)max_local, out[16], ran && out[30] == 1 ? "ran" : "never ran");
   if (prog)
      clReleaseProgram(prog);
   if (q)
      clReleaseCommandQueue(q);
}

/* A child with local-memory arguments enqueues one with others: each level
 * sees its own buffers. */
static void
run_enqueue_local_args_nested(struct cl *cl)
{
   static const char src[] =
      "kernel void nest(global int *out, int salt)\n"
      "{\n"
      "   out[0] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL,\n"
      "                           ndrange_1D(16, 16), ^(local void *p) {\n"
      "      local int *a = p;\n"
      "      size_t l = get_local_id(0);\n"
      "      a[l] = salt + (int)l * 3;\n"
      "      barrier(CLK_LOCAL_MEM_FENCE);\n"
      "      out[4 + l] = a[15 - l];\n"
      "      if (l == 0)\n"
      "         out[1] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL,\n"
      "                                 ndrange_1D(8, 8), ^(local void *x, local void *y) {\n"
      "            local long *lx = x;\n"
      "            local char *cy = y;\n"
      "            size_t m = get_local_id(0);\n"
      "            lx[m] = (long)salt * 1000000000l + (long)m;\n"
      "            cy[m] = (char)(m + 1);\n"
      "            barrier(CLK_LOCAL_MEM_FENCE);\n"
      "            out[20 + m] = (int)(lx[7 - m] - (long)salt * 1000000000l) * 10 + cy[7 - m];\n"
      "         }, 64u, 8u);\n"
      "   }, 64u);\n"
      "}\n";
   int32_t out[28];
   const int salt = 41;
   bool ran = run_parent(cl, src, "nest", 1, 1, out, 28, salt);
   unsigned bad = 0;
   bool ok = ran && out[0] == 0 && out[1] == 0;

   for (int l = 0; ran && l < 16; l++)
      ok &= la_check("the outer child's int[16]", out, 4 + l, salt + (15 - l) * 3, &bad);
   for (int m = 0; ran && m < 8; m++)
      ok &= la_check("the inner child's long[8], char[8]", out, 20 + m, (7 - m) * 10 + 8 - m,
                     &bad);
   cases_in_matrix++;
   report(ok, "enqueue: a child with a local-memory argument enqueues one with two: %d %d, %u "
          "words wrong", ran ? out[0] : 0, ran ? out[1] : 0, bad);
}

/* --- clk_event_t: wait lists, returned events, markers, user events ---- */

/*
 * Children that record the order they ran in (out[16 + child] = their
 * rank, from the counter out[15]): X waits for a user event that Y, which
 * waits for nothing, completes; a marker waits for both, and Z for the
 * marker.  Y must run before X and Z last, whatever the order of the
 * enqueues.  W waits for a user event set to an error, V for W's event:
 * neither runs.  The profiling of X's event is captured before X ran (the
 * device writes it) and Z captures Y's, complete by then.
 */
static void
run_enqueue_events(struct cl *cl)
{
   static const char src[] =
      "#define RANK(I) out[16 + (I)] = atomic_inc((volatile global int *)&out[15])\n"
      "kernel void events(global int *out, int base)\n"
      "{\n"
      "   queue_t q = get_default_queue();\n"
      "   global ulong *prof = (global ulong *)(out + 32);\n"
      "   clk_event_t u = create_user_event(), ex, ey, m, ew, u2 = create_user_event();\n"
      "   out[15] = 0;\n"
      "   out[0] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 1, &u, &ex,\n"
      "                           ^{ RANK(0); });\n"
      "   out[1] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_WAIT_KERNEL, ndrange_1D(1), 0, NULL, &ey,\n"
      "                           ^{ RANK(1); set_user_event_status(u, CL_COMPLETE);\n"
      "                              release_event(u); });\n"
      "   clk_event_t both[2] = { ex, ey };\n"
      "   out[2] = enqueue_marker(q, 2, both, &m);\n"
      "   out[3] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_WAIT_WORK_GROUP, ndrange_1D(1), 1, &m, NULL,\n"
      "                           ^{ RANK(2); capture_event_profiling_info(ey,\n"
      "                                 CLK_PROFILING_COMMAND_EXEC_TIME, prof + 2);\n"
      "                              release_event(ey); });\n"
      "   capture_event_profiling_info(ex, CLK_PROFILING_COMMAND_EXEC_TIME, prof);\n"
      "   out[4] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 1, &u2, &ew,\n"
      "                           ^{ out[20] = base; });\n"
      "   out[5] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 1, &ew, NULL,\n"
      "                           ^{ out[21] = base; });\n"
      "   set_user_event_status(u2, -5);\n"
      "   /* only once, and only a user event's */\n"
      "   set_user_event_status(u2, CL_COMPLETE);\n"
      "   set_user_event_status(ey, -6);\n"
      "   out[6] = is_valid_event(ex) + 2 * is_valid_event(CLK_NULL_EVENT) + 4 * is_valid_event(u);\n"
      "   retain_event(ex);\n"
      "   release_event(ex);\n"
      "   out[7] = is_valid_event(ex);\n"
      "   release_event(ex);\n"
      "   out[8] = is_valid_event(ex);\n"
      "   release_event(m); release_event(ew); release_event(u2);\n"
      "}\n";
   int32_t out[40];
   cl_command_queue q = make_default_queue(cl, 0);
   bool ran = q && run_parent(cl, src, "events", 1, 1, out, 40, 77);
   uint64_t prof[4];
   bool results = ran, prof_ok;

   memcpy(prof, out + 32, sizeof(prof));
   for (unsigned i = 0; ran && i < 6; i++)
      results &= out[i] == 0;
   cases_in_matrix++;
   report(results && out[15] == 3 && out[17] == 0 && out[16] == 1 && out[18] == 2,
          "enqueue: events: enqueues %d %d, marker %d, %d %d %d; ran %d children, Y %d, X %d "
          "(waited for the user event Y completes), Z %d (waited for the marker); want 3: 0 1 2",
          out[0], out[1], out[2], out[3], out[4], out[5], out[15], out[17], out[16], out[18]);
   cases_in_matrix++;
   report(ran && out[20] != 77 && out[21] != 77,
          "enqueue: a user event set to an error: its waiter %s, the waiter of the waiter's "
          "event %s", out[20] == 77 ? "ran" : "did not run", out[21] == 77 ? "ran" : "did not run");
   cases_in_matrix++;
   report(ran && out[6] == 5 && out[7] == 1 && out[8] == 0,
          "enqueue: is_valid_event of an event %d, CLK_NULL_EVENT %d, a user event %d; after "
          "retain and release %d, after the last release %d; want 1 0 1 1 0",
          out[6] & 1, (out[6] >> 1) & 1, (out[6] >> 2) & 1, out[7], out[8]);
   /* CLK_PROFILING_COMMAND_EXEC_TIME: two 64-bit values, the command's
    * time and with its children (which have none here). */
   prof_ok = ran && prof[0] && prof[0] == prof[1] && prof[2] && prof[2] == prof[3] &&
             prof[0] < 10000000000ull && prof[2] < 10000000000ull;
   cases_in_matrix++;
   report(prof_ok,
          "enqueue: capture_event_profiling_info before the command ran %llu %llu, after %llu "
          "%llu (ns)", (unsigned long long)prof[0], (unsigned long long)prof[1],
          (unsigned long long)prof[2], (unsigned long long)prof[3]);
   if (q)
      clReleaseCommandQueue(q);
}

/* Every error of the event functions, as OpenCL C names it; none of the
 * refused children runs. */
static void
run_enqueue_event_errors(struct cl *cl)
{
   static const char src[] =
      "kernel void errs(global int *out, int events)\n"
      "{\n"
      "   queue_t q = get_default_queue();\n"
      "   clk_event_t e, r = CLK_NULL_EVENT, gone, nul = CLK_NULL_EVENT, many[17], m = CLK_NULL_EVENT;\n"
      "   out[0] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 1, NULL, &r,\n"
      "                           ^{ out[16] = 1; });\n"
      "   e = create_user_event();\n"
      "   out[1] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 0, &e, NULL,\n"
      "                           ^{ out[17] = 1; });\n"
      "   out[2] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 1, &nul, NULL,\n"
      "                           ^{ out[18] = 1; });\n"
      "   gone = create_user_event();\n"
      "   set_user_event_status(gone, CL_COMPLETE);\n"
      "   release_event(gone);\n"
      "   out[3] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 1, &gone, NULL,\n"
      "                           ^{ out[19] = 1; });\n"
      "   for (int i = 0; i < 17; i++)\n"
      "      many[i] = e;\n"
      "   out[4] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 17, many, NULL,\n"
      "                           ^{ out[20] = 1; });\n"
      "   out[5] = enqueue_marker(q, 0, &e, &m);\n"
      "   out[6] = enqueue_marker(q, 1, &e, NULL);\n"
      "   /* a value that is no event: nothing happens to it */\n"
      "   clk_event_t junk = __builtin_astype((size_t)out, clk_event_t);\n"
      "   retain_event(junk); release_event(junk); set_user_event_status(junk, CL_COMPLETE);\n"
      "   capture_event_profiling_info(junk, CLK_PROFILING_COMMAND_EXEC_TIME, (global ulong *)out);\n"
      "   out[7] = is_valid_event(junk) + 2 * is_valid_event(m) + 4 * is_valid_event(r);\n"
      "   /* every slot taken: CLK_NULL_EVENT, then CLK_EVENT_ALLOCATION_FAILURE */\n"
      "   int made = 1;\n"
      "   clk_event_t last = e;\n"
      "   while (made < events + 1) {\n"
      "      last = create_user_event();\n"
      "      if (!is_valid_event(last))\n"
      "         break;\n"
      "      made++;\n"
      "   }\n"
      "   out[8] = made;\n"
      "   clk_event_t full_ret = CLK_NULL_EVENT;\n"
      "   out[9] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 0, NULL, &full_ret,\n"
      "                           ^{ out[21] = 1; });\n"
      "   out[10] = enqueue_marker(q, 1, &e, &m);\n"
      "   /* a child without an event still goes */\n"
      "   out[11] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), ^{ out[22] = 1; });\n"
      "   set_user_event_status(e, CL_COMPLETE);\n"
      "}\n";
   /* what OpenCL C says of each, in out[] order */
   static const struct {
      const char *what;
      int32_t want;
   } errs[] = {
      {"a wait list of 1 event at NULL", CLK_INVALID_EVENT_WAIT_LIST},
      {"a wait list of 0 events not at NULL", CLK_INVALID_EVENT_WAIT_LIST},
      {"CLK_NULL_EVENT in a wait list", CLK_INVALID_EVENT_WAIT_LIST},
      {"a released event in a wait list", CLK_INVALID_EVENT_WAIT_LIST},
      {"a wait list of 17 events", CLK_OUT_OF_RESOURCES},
      {"enqueue_marker of 0 events", CLK_INVALID_EVENT_WAIT_LIST},
      {"enqueue_marker without a return event", CLK_EVENT_ALLOCATION_FAILURE},
   };
   int32_t out[24];
   cl_uint max_events = 0;
   cl_command_queue q = make_default_queue(cl, 0);

   clGetDeviceInfo(cl->dev, CL_DEVICE_MAX_ON_DEVICE_EVENTS, sizeof(max_events), &max_events,
                   NULL);
   bool ran = q && run_parent(cl, src, "errs", 1, 1, out, 24, (int)max_events);

   for (unsigned i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
      cases_in_matrix++;
      /* out[16 + i]: the refused enqueue_kernel's child (a marker has none) */
      bool child_ran = i <= 4 && (!ran || out[16 + i] == 1);

      report(ran && out[i] == errs[i].want && !child_ran, "enqueue: %s: %d, want %d%s",
             errs[i].what, ran ? out[i] : 0, errs[i].want,
             child_ran ? ", and the child ran" : "");
   }
   cases_in_matrix++;
   report(ran && out[7] == 0,
          "enqueue: an enqueue refused returns no event (%s), nor a marker refused (%s); a value "
          "that is not an event is %s and ignored by the event functions",
          out[7] & 4 ? "it does" : "right", out[7] & 2 ? "it does" : "right",
          out[7] & 1 ? "valid" : "not valid");
   cases_in_matrix++;
   report(ran && (cl_uint)out[8] == max_events && out[9] == CLK_EVENT_ALLOCATION_FAILURE &&
             out[10] == CLK_EVENT_ALLOCATION_FAILURE && out[21] != 1 && out[11] == 0 &&
             out[22] == 1,
          "enqueue: %d events of %u made; then enqueue_kernel with a return event %d, "
          "enqueue_marker %d (want CLK_EVENT_ALLOCATION_FAILURE), without one %d",
          ran ? out[8] : 0, max_events, out[9], out[10], out[11]);
   if (q)
      clReleaseCommandQueue(q);
}

/* Without a default on-device queue there are no events either. */
static void
run_enqueue_events_no_queue(struct cl *cl)
{
   static const char src[] =
      "kernel void none(global int *out, int base)\n"
      "{\n"
      "   clk_event_t u = create_user_event(), m;\n"
      "   out[0] = is_valid_event(u);\n"
      "   out[1] = enqueue_marker(get_default_queue(), 1, &u, &m);\n"
      "}\n";
   int32_t out[2];
   bool ran = run_parent(cl, src, "none", 1, 1, out, 2, 0);

   cases_in_matrix++;
   report(ran && out[0] == 0 && out[1] == CLK_INVALID_QUEUE,
          "enqueue: no default on-device queue: create_user_event gives %s, enqueue_marker %d, "
          "want an invalid event and CLK_INVALID_QUEUE", out[0] ? "a valid event" : "none",
          out[1]);
}

/* What became of a parent whose child fails. */
struct failed_child {
   bool enqueued;         /* the parent was enqueued, with an event */
   cl_int status;         /* the parent's event's */
   cl_int wait_err;       /* clWaitForEvents' on it */
   bool others_run;       /* then a kernel ran on another host queue */
   char driver_said[160]; /* the driver's first line on stderr */
};

/* A child that fails (kernel "fail" of @src) under a parent on a host queue
 * of its own (an in-order queue fails every command after a failed one),
 * then a kernel on @cl's queue. */
static struct failed_child
failing_child(struct cl *cl, const char *src)
{
   struct failed_child r = {.status = CL_COMPLETE, .wait_err = CL_SUCCESS};
   cl_command_queue q = make_default_queue(cl, 0);
   cl_command_queue host = clCreateCommandQueueWithProperties(cl->ctx, cl->dev, NULL, NULL);
   cl_program prog = build(cl, src, 16, "-cl-std=CL2.0");
   cl_kernel k = prog ? clCreateKernel(prog, "fail", NULL) : NULL;
   static const int32_t zeros[16];
   cl_mem buf = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(zeros),
                               (void *)zeros, NULL);
   cl_event ev = NULL;
   int base = 0;
   size_t one = 1;
   struct stderr_capture cap;

   stderr_capture_begin(&cap);
   if (k && q && host) {
      clSetKernelArg(k, 0, sizeof(buf), &buf);
      clSetKernelArg(k, 1, sizeof(base), &base);
      if (clEnqueueNDRangeKernel(host, k, 1, NULL, &one, &one, 0, NULL, &ev) == CL_SUCCESS) {
         r.enqueued = true;
         r.wait_err = clWaitForEvents(1, &ev);
         clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(r.status), &r.status,
                        NULL);
      }
   }
   if (host)
      clFinish(host);
   if (ev)
      clReleaseEvent(ev);
   if (k)
      clReleaseKernel(k);
   if (prog)
      clReleaseProgram(prog);
   clReleaseMemObject(buf);
   if (host)
      clReleaseCommandQueue(host);
   if (q)
      clReleaseCommandQueue(q);
   r.others_run = context_runs_kernels(cl);
   stderr_capture_end(&cap, r.driver_said, sizeof(r.driver_said));
   return r;
}

static void
report_failed_child(const struct failed_child *r, const char *what)
{
   cases_in_matrix++;
   report(r->enqueued && r->status < 0 &&
             r->wait_err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST && r->others_run,
          "enqueue: a child that %s: the parent's event %d, clWaitForEvents %d (\"%s\"); a "
          "kernel on another queue then %s", what, r->status, r->wait_err, r->driver_said,
          r->others_run ? "ran" : "did not run");
}

/* It waits for a value nothing writes (the buffer is zeros). */
static const char never_ending_child_src[] =
   "kernel void fail(global int *out, int base)\n"
   "{\n"
   "   out[0] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
   "                           ^{ volatile global int *o = out;\n"
   "                              while (o[1] != base + 1)\n"
   "                                 ;\n"
   "                           });\n"
   "}\n";

/* Its own process's part "never-ending-child" (run_in_own_process). */
void
run_enqueue_never_ending_child(struct cl *cl)
{
   struct failed_child r = failing_child(cl, never_ending_child_src);

   report_failed_child(&r, "never ends");
}

static void
run_enqueue_failing_children(struct cl *cl)
{
   static const char faults[] =
      "kernel void fail(global int *out, int base)\n"
      "{\n"
      "   out[0] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
      "                           ^{ *(global int *)(0x7f0000000000ul + base) = 1; });\n"
      "}\n";
   struct failed_child r = failing_child(cl, faults);

   report_failed_child(&r, "faults");
   run_in_own_process("never-ending-child");
}

void
run_enqueue(struct cl *cl)
{
   run_enqueue_caps(cl);
   run_enqueue_queue_info(cl);
   run_enqueue_queue_errors(cl);
   run_enqueue_default_queue(cl);
   run_enqueue_queue_limit(cl);
   run_enqueue_no_queue(cl);
   {
      cl_command_queue q = make_default_queue(cl, 0);

      run_enqueue_children(cl);
      run_enqueue_nested(cl);
      run_enqueue_in_a_loop(cl);
      run_enqueue_local_args(cl);
      run_enqueue_local_args_nested(cl);
      if (q)
         clReleaseCommandQueue(q);
   }
   run_enqueue_many(cl, 4096);
   run_enqueue_queue_full(cl);
   run_enqueue_invalid_ndrange(cl);
   run_enqueue_local_arg_errors(cl);
   run_enqueue_events_no_queue(cl);
   run_enqueue_events(cl);
   run_enqueue_event_errors(cl);
   run_enqueue_depth_bound(cl);
   run_enqueue_recursion(cl);
   run_enqueue_failing_children(cl);
   {
      cl_command_queue q = make_default_queue(cl, 0);

      run_enqueue_clc30(cl);
      if (q)
         clReleaseCommandQueue(q);
   }
   run_enqueue_queries(cl);
   run_enqueue_still_works(cl);
}
