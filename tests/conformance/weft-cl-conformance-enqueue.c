// SPDX-License-Identifier: MIT
/*
 * Device-side enqueue in weft-cl-conformance, as far as it is built.  The
 * hardware has it (a device queue drained by DRAIN_QUEUE: Documentation/
 * gpu/weft/device-enqueue.rst, tested in hw/tests/test_enqueue.c), Rusticl
 * makes on-device queues (what they report, that the host cannot use them,
 * the default one, the bounds and bad properties), and the compiler answers
 * the queries on a block's kernel; enqueue_kernel itself is not lowered
 * yet, so a program that enqueues fails to build with a log naming what it
 * lacks (never a crash; on the host tier only: the VM's slice keeps stderr
 * empty, where the compiler prints the failure too), after which the
 * context still runs kernels.  The queries
 * (get_kernel_work_group_size, get_kernel_preferred_work_group_size_multiple,
 * get_kernel_sub_group_count_for_ndrange,
 * get_kernel_max_sub_group_size_for_ndrange) run, checked against the
 * block's kernel as Rusticl compiled it, at SIMD 8, 16 and 32.
 */
#include "weft-cl-conformance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
   /* The compiler does not lower enqueue_kernel yet. */
   cases_in_matrix++;
   report(!feature, "enqueue: __opencl_c_device_enqueue %s, want absent until enqueue_kernel "
          "is built", feature ? "listed" : "absent");
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

/* Programs that need what is not built yet: the build fails and says why. */
static void
run_enqueue_programs(struct cl *cl)
{
   static const struct {
      const char *what, *std, *log, *src;
   } progs[] = {
      /* The compiler takes enqueue_kernel to the driver, which has no
       * on-device queue yet. */
      {"enqueue_kernel of a block", "-cl-std=CL2.0", "enqueue_kernel",
       "kernel void k(global int *out)\n"
       "{\n"
       "   enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL, ndrange_1D(4),\n"
       "                  ^{ out[get_global_id(0)] = 1; });\n"
       "}\n"},
      {"enqueue_kernel of a block with a local-memory argument", "-cl-std=CL2.0",
       "local-memory arguments",
       "kernel void k(global int *out)\n"
       "{\n"
       "   enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL, ndrange_1D(4),\n"
       "                  ^(local void *l){ out[get_global_id(0)] = 1; }, 64u);\n"
       "}\n"},
      {"create_user_event", "-cl-std=CL2.0", "device-side enqueue events",
       "kernel void k(global int *out)\n"
       "{\n"
       "   clk_event_t e = create_user_event();\n"
       "   out[0] = is_valid_event(e);\n"
       "   release_event(e);\n"
       "}\n"},
      /* CL3.0 without __opencl_c_device_enqueue: clang has no enqueue_kernel. */
      {"enqueue_kernel of a block", "-cl-std=CL3.0", "__opencl_c_device_enqueue",
       "kernel void k(global int *out)\n"
       "{\n"
       "   enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL, ndrange_1D(4),\n"
       "                  ^{ out[get_global_id(0)] = 1; });\n"
       "}\n"},
      {"the ndrange sub-group queries", "-cl-std=CL3.0", "__opencl_c_device_enqueue",
       "kernel void k(global uint *out)\n"
       "{\n"
       "   void (^b)(void) = ^{ out[2] = 1; };\n"
       "   out[0] = get_kernel_sub_group_count_for_ndrange(ndrange_1D(64), b);\n"
       "   out[1] = get_kernel_max_sub_group_size_for_ndrange(ndrange_1D(64), b);\n"
       "}\n"},
   };

   for (unsigned p = 0; p < sizeof(progs) / sizeof(progs[0]); p++) {
      const char *src = progs[p].src;
      cl_program prog = clCreateProgramWithSource(cl->ctx, 1, &src, NULL, NULL);
      cl_int err = clBuildProgram(prog, 1, &cl->dev, progs[p].std, NULL, NULL);
      char log[8192] = "";

      clGetProgramBuildInfo(prog, cl->dev, CL_PROGRAM_BUILD_LOG, sizeof(log) - 1, log, NULL);
      cases_in_matrix++;
      report(err == CL_BUILD_PROGRAM_FAILURE && strstr(log, progs[p].log),
             "enqueue: %s %s: clBuildProgram %d, log %s", progs[p].what, progs[p].std, err,
             strstr(log, progs[p].log) ? "names what is missing" : "does not say why");
      if (!strstr(log, progs[p].log))
         fprintf(stderr, "%s\n", log);
      clReleaseProgram(prog);
   }
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

static char *
query_source(void)
{
   char *src = append(NULL, "kernel void k(global uint *out)\n"
                            "{\n"
                            "   void (^b)(void) = ^{ out[get_global_id(0)] = SIMD; };\n"
                            "   out[0] = get_kernel_work_group_size(b);\n"
                            "   out[1] = get_kernel_preferred_work_group_size_multiple(b);\n");

   for (unsigned i = 0; i < NUM_QUERY_NDRANGES; i++) {
      const size_t *g = query_ndranges[i].global, *l = query_ndranges[i].local;
      unsigned d = query_ndranges[i].dim;
      bool local = l[0] || l[1] || l[2];

      src = append(src, "   {\n");
      if (d == 1) {
         src = append(src, "      ndrange_t r = ndrange_1D(%zu", g[0]);
         src = local ? append(src, ", %zu);\n", l[0]) : append(src, ");\n");
      } else {
         /* Arrays of the ndrange's dimension: the LLVM-SPIRV translator
          * asserts on a longer one. */
         if (d == 2)
            src = append(src, "      const size_t g[2] = {%zu, %zu}, l[2] = {%zu, %zu};\n", g[0],
                         g[1], l[0], l[1]);
         else
            src = append(src, "      const size_t g[3] = {%zu, %zu, %zu}, l[3] = {%zu, %zu, %zu};\n",
                         g[0], g[1], g[2], l[0], l[1], l[2]);
         src = append(src, "      ndrange_t r = ndrange_%uD(g%s);\n", d, local ? ", l" : "");
      }
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
   if (child)
      clReleaseKernel(child);
   if (prog)
      clReleaseProgram(prog);
   if (saved)
      setenv("WEFT_SIMD", saved, 1);
   else
      unsetenv("WEFT_SIMD");
   free(saved);
}

static void
run_enqueue_queries(struct cl *cl, bool slice)
{
   static const unsigned simds[] = {8, 16, 32};
   size_t max_wg = 0;
   char *src = query_source();

   clGetDeviceInfo(cl->dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(max_wg), &max_wg, NULL);
   for (unsigned s = 0; s < 3; s++) {
      if (!slice || simds[s] == 16)
         run_enqueue_queries_at(cl, src, simds[s], max_wg);
   }
   free(src);
}

/* After all of that, the context runs a kernel as before. */
static void
run_enqueue_still_works(struct cl *cl)
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
   cases_in_matrix++;
   report(ran && ok, "enqueue: the context still runs kernels");
   if (prog)
      clReleaseProgram(prog);
}

void
run_enqueue(struct cl *cl, bool slice)
{
   run_enqueue_caps(cl);
   run_enqueue_queue_info(cl);
   run_enqueue_queue_errors(cl);
   run_enqueue_default_queue(cl);
   run_enqueue_queue_limit(cl);
   /* Not in the VM's slice, whose stderr must stay empty: spirv_to_nir
    * prints its failure there too. */
   if (!slice)
      run_enqueue_programs(cl);
   run_enqueue_queries(cl, slice);
   run_enqueue_still_works(cl);
}
