// SPDX-License-Identifier: MIT
/*
 * Device-side enqueue in weft-cl-conformance, as far as it is built.  The
 * hardware has it (a device queue drained by DRAIN_QUEUE: Documentation/
 * gpu/weft/device-enqueue.rst, tested in hw/tests/test_enqueue.c), but
 * neither the compiler nor Rusticl uses it yet, so the device must report
 * none and say no cleanly: no capability, no on-device queue, and a
 * program that enqueues or asks the ndrange queries fails to build with a
 * log naming what it lacks (never a crash; on the host tier only: the VM's
 * slice keeps stderr empty, where the compiler prints the failure too),
 * after which the context still runs kernels.
 */
#include "weft-cl-conformance.h"

#include <stdio.h>
#include <string.h>

static void
run_enqueue_caps(struct cl *cl)
{
   cl_device_device_enqueue_capabilities caps = ~0ull;
   cl_command_queue_properties props = ~0ull;
   cl_uint max_queues = ~0u, max_size = ~0u;
   cl_name_version feats[64];
   size_t feats_size = 0;
   bool feature = false;

   clGetDeviceInfo(cl->dev, CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES, sizeof(caps), &caps, NULL);
   clGetDeviceInfo(cl->dev, CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES, sizeof(props), &props, NULL);
   clGetDeviceInfo(cl->dev, CL_DEVICE_MAX_ON_DEVICE_QUEUES, sizeof(max_queues), &max_queues,
                   NULL);
   clGetDeviceInfo(cl->dev, CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE, sizeof(max_size), &max_size,
                   NULL);
   clGetDeviceInfo(cl->dev, CL_DEVICE_OPENCL_C_FEATURES, sizeof(feats), feats, &feats_size);
   for (size_t i = 0; i < feats_size / sizeof(feats[0]); i++)
      feature |= !strcmp(feats[i].name, "__opencl_c_device_enqueue");
   cases_in_matrix++;
   report(!caps && !props && !max_queues && !max_size && !feature,
          "enqueue: no device-side enqueue reported (capabilities %llu, on-device queue "
          "properties %llu, max queues %u, max size %u, __opencl_c_device_enqueue %s)",
          (unsigned long long)caps, (unsigned long long)props, max_queues, max_size,
          feature ? "listed" : "absent");
}

static void
run_enqueue_queues(struct cl *cl)
{
   static const cl_command_queue_properties kinds[] = {
      CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
      CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
   };

   for (unsigned i = 0; i < 2; i++) {
      cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, kinds[i], CL_QUEUE_SIZE, 4096, 0};
      cl_int err = CL_SUCCESS;
      cl_command_queue q = clCreateCommandQueueWithProperties(cl->ctx, cl->dev, props, &err);

      cases_in_matrix++;
      report(!q && err == CL_INVALID_QUEUE_PROPERTIES,
             "enqueue: clCreateCommandQueueWithProperties(CL_QUEUE_ON_DEVICE%s): %d, want "
             "CL_INVALID_QUEUE_PROPERTIES", i ? " | _DEFAULT" : "", err);
      if (q)
         clReleaseCommandQueue(q);
   }
   cases_in_matrix++;
   cl_int err = clSetDefaultDeviceCommandQueue(cl->ctx, cl->dev, cl->q);
   report(err == CL_INVALID_OPERATION,
          "enqueue: clSetDefaultDeviceCommandQueue: %d, want CL_INVALID_OPERATION", err);
}

/* Programs that need device-side enqueue: the build fails and says why. */
static void
run_enqueue_programs(struct cl *cl)
{
   static const struct {
      const char *what, *src;
   } progs[] = {
      {"enqueue_kernel of a block",
       "kernel void k(global int *out)\n"
       "{\n"
       "   enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL, ndrange_1D(4),\n"
       "                  ^{ out[get_global_id(0)] = 1; });\n"
       "}\n"},
      {"the ndrange sub-group queries",
       "kernel void k(global uint *out)\n"
       "{\n"
       "   void (^b)(void) = ^{ out[2] = 1; };\n"
       "   out[0] = get_kernel_sub_group_count_for_ndrange(ndrange_1D(64), b);\n"
       "   out[1] = get_kernel_max_sub_group_size_for_ndrange(ndrange_1D(64), b);\n"
       "}\n"},
   };
   static const struct {
      const char *std, *log;
   } stds[] = {
      /* CL2.0 has blocks: the SPIR-V reaches the compiler, which names the capability. */
      {"-cl-std=CL2.0", "DeviceEnqueue"},
      /* CL3.0 without __opencl_c_device_enqueue: clang has no enqueue_kernel. */
      {"-cl-std=CL3.0", "__opencl_c_device_enqueue"},
   };

   for (unsigned p = 0; p < sizeof(progs) / sizeof(progs[0]); p++) {
      for (unsigned s = 0; s < sizeof(stds) / sizeof(stds[0]); s++) {
         const char *src = progs[p].src;
         cl_program prog = clCreateProgramWithSource(cl->ctx, 1, &src, NULL, NULL);
         cl_int err = clBuildProgram(prog, 1, &cl->dev, stds[s].std, NULL, NULL);
         char log[8192] = "";

         clGetProgramBuildInfo(prog, cl->dev, CL_PROGRAM_BUILD_LOG, sizeof(log) - 1, log, NULL);
         cases_in_matrix++;
         report(err == CL_BUILD_PROGRAM_FAILURE && strstr(log, stds[s].log),
                "enqueue: %s %s: clBuildProgram %d, log %s", progs[p].what, stds[s].std, err,
                strstr(log, stds[s].log) ? "names what is missing" : "does not say why");
         if (!strstr(log, stds[s].log))
            fprintf(stderr, "%s\n", log);
         clReleaseProgram(prog);
      }
   }
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
   run_enqueue_queues(cl);
   /* Not in the VM's slice, whose stderr must stay empty: spirv_to_nir
    * prints its failure there too. */
   if (!slice)
      run_enqueue_programs(cl);
   run_enqueue_still_works(cl);
}
