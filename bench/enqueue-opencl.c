/* SPDX-License-Identifier: MIT */
// Child-launch latency and children/s through OpenCL (device-side enqueue).
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }

static const char src[] =
   "kernel void with_child(global int *out)\n"
   "{ size_t id = get_global_id(0);\n"
   "  enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), ^{ out[id] = (int)id; }); }\n"
   "kernel void alone(global int *out)\n"
   "{ size_t id = get_global_id(0); out[id + get_global_size(0)] = (int)id; }\n";

static double median_run(cl_command_queue q, cl_kernel k, size_t n, int reps)
{
   double t[64];
   size_t local = n < 64 ? n : 64;
   for (int r = -1; r < reps; r++) {
      double t0 = now();
      clEnqueueNDRangeKernel(q, k, 1, NULL, &n, &local, 0, NULL, NULL);
      clFinish(q);
      if (r >= 0) t[r] = now() - t0;
   }
   qsort(t, reps, sizeof(t[0]), cmp);
   return t[reps / 2];
}

int main(int argc, char **argv)
{
   /* --quick: fewer repetitions, for a check that it runs */
   int quick = argc > 1 && !strcmp(argv[1], "--quick");
   cl_platform_id p; cl_device_id d; cl_int err;
   clGetPlatformIDs(1, &p, NULL);
   clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 1, &d, NULL);
   cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
   cl_command_queue q = clCreateCommandQueueWithProperties(c, d, NULL, &err);
   cl_queue_properties dp[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, CL_QUEUE_SIZE, 16 << 20, 0};
   cl_command_queue dq = clCreateCommandQueueWithProperties(c, d, dp, &err);
   if (!dq) { printf("no device queue: %d\n", err); return 1; }
   const char *s = src;
   cl_program prog = clCreateProgramWithSource(c, 1, &s, NULL, &err);
   if (clBuildProgram(prog, 1, &d, "-cl-std=CL2.0", NULL, NULL)) { printf("build failed\n"); return 1; }
   const size_t N = 4096;
   cl_mem buf = clCreateBuffer(c, CL_MEM_READ_WRITE, 2 * N * sizeof(int), NULL, &err);
   cl_kernel kc = clCreateKernel(prog, "with_child", &err), ka = clCreateKernel(prog, "alone", &err);
   clSetKernelArg(kc, 0, sizeof(buf), &buf); clSetKernelArg(ka, 0, sizeof(buf), &buf);
   int reps = quick ? 3 : 21, many_reps = quick ? 1 : 9;
   double one_child = median_run(q, kc, 1, reps), one_alone = median_run(q, ka, 1, reps);
   double many_child = median_run(q, kc, N, many_reps), many_alone = median_run(q, ka, N, many_reps);
   int *out = malloc(N * sizeof(int)); int bad = 0;
   clEnqueueReadBuffer(q, buf, CL_TRUE, 0, N * sizeof(int), out, 0, NULL, NULL);
   for (size_t i = 0; i < N; i++) bad += out[i] != (int)i;
   printf("parent of 1 work-item alone: %.1f us; with one child: %.1f us; child launch: %.1f us\n",
          one_alone * 1e6, one_child * 1e6, (one_child - one_alone) * 1e6);
   printf("parent of %zu work-items alone: %.2f ms; each enqueueing a child of 1 work-item: %.2f ms; %.0f children/s (%d wrong)\n",
          N, many_alone * 1e3, many_child * 1e3, N / (many_child - many_alone), bad);
   return bad ? 1 : 0;
}
