// SPDX-License-Identifier: MIT
/*
 * weft-cl-demo: OpenCL C on the Weft GPU through Rusticl. Builds one
 * program with several kernels, runs them on two command queues and checks
 * every result against the same computation on the CPU.
 *
 * Run with RUSTICL_ENABLE=weft (and OCL_ICD_VENDORS pointing at the Mesa
 * build of scripts/build-mesa); prints "N passed, M failed".
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *source =
   "__kernel void vadd(__global const uint *a, __global const uint *b,\n"
   "                   __global uint *c)\n"
   "{\n"
   "   size_t i = get_global_id(0);\n"
   "   c[i] = a[i] + b[i];\n"
   "}\n"
   "\n"
   "__kernel void mad64(__global const ulong *a, __global const ulong *b,\n"
   "                    __global ulong *c, ulong k)\n"
   "{\n"
   "   size_t i = get_global_id(0);\n"
   "   c[i] = a[i] * k + (b[i] >> 3) - (a[i] ^ b[i]);\n"
   "}\n"
   "\n"
   "__kernel void ids(__global uint *out)\n"
   "{\n"
   "   size_t i = get_global_id(0);\n"
   "   out[4 * i + 0] = get_local_id(0);\n"
   "   out[4 * i + 1] = get_group_id(0);\n"
   "   out[4 * i + 2] = get_local_size(0);\n"
   "   out[4 * i + 3] = get_sub_group_local_id();\n"
   "}\n"
   "\n"
   "__kernel void mix32(__global const int *a, __global int *c)\n"
   "{\n"
   "   size_t i = get_global_id(0);\n"
   "   int x = a[i];\n"
   "   c[i] = max(x, 7) / 3 + min(x, -5) % 4 + (x < 100 ? x * x : -x) + abs(x);\n"
   "}\n"
   "\n"
   "__kernel void fmath(__global const float *a, __global float *c)\n"
   "{\n"
   "   size_t i = get_global_id(0);\n"
   "   float x = a[i];\n"
   "   c[i] = fma(x, 1.5f, -2.0f) * x / (fabs(x) + 1.0f) + sqrt(fabs(x)) + floor(x) - (float)(int)x;\n"
   "}\n"
   "\n"
   "__kernel void dmath(__global const double *a, __global double *c)\n"
   "{\n"
   "   size_t i = get_global_id(0);\n"
   "   double x = a[i];\n"
   "   c[i] = x * x * 0.25 - x / 3.0 + sqrt(x * x + 1.0) + (double)(long)(x * 1000.0);\n"
   "}\n"
   "\n"
   "__kernel void guarded_loops(__global uint *out, uint n)\n"
   "{\n"
   "   size_t i = get_global_id(0);\n"
   "   uint s = 0;\n"
   "   if (i >= n)\n"
   "      return;\n"
   "   for (uint k = 0; k < (uint)i % 37u; k++) {\n"
   "      if (k & 1)\n"
   "         s += k * 3;\n"
   "      else\n"
   "         s ^= k;\n"
   "      if (s > 500)\n"
   "         break;\n"
   "   }\n"
   "   out[i] = s;\n"
   "}\n";

static int passed, failed;

static void
result(const char *name, int ok, double ms)
{
   printf("%-34s %s (%.1f ms)\n", name, ok ? "ok" : "FAILED", ms);
   if (ok)
      passed++;
   else
      failed++;
}

static double
now_ms(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

#define CHECK(err, what)                                                       \
   do {                                                                        \
      if ((err) != CL_SUCCESS) {                                               \
         fprintf(stderr, "weft-cl-demo: %s: error %d\n", what, (int)(err));   \
         exit(1);                                                              \
      }                                                                        \
   } while (0)

int
main(void)
{
   enum { N = 1000, LOCAL = 20 };
   cl_platform_id platforms[8];
   cl_uint nplat = 0;
   cl_device_id dev = NULL;
   cl_int err;
   char name[256];

   CHECK(clGetPlatformIDs(8, platforms, &nplat), "clGetPlatformIDs");
   for (cl_uint p = 0; p < nplat && !dev; p++) {
      cl_device_id d[8];
      cl_uint nd = 0;
      if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 8, d, &nd) != CL_SUCCESS)
         continue;
      for (cl_uint i = 0; i < nd && !dev; i++) {
         clGetDeviceInfo(d[i], CL_DEVICE_NAME, sizeof(name), name, NULL);
         if (strstr(name, "Weft"))
            dev = d[i];
      }
   }
   if (!dev) {
      fprintf(stderr, "weft-cl-demo: no Weft GPU (RUSTICL_ENABLE=weft?)\n");
      return 1;
   }
   printf("device: %s\n", name);

   cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
   CHECK(err, "clCreateContext");
   cl_command_queue q0 = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
   CHECK(err, "queue 0");
   cl_command_queue q1 = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
   CHECK(err, "queue 1");

   double t = now_ms();
   cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
   CHECK(err, "clCreateProgramWithSource");
   err = clBuildProgram(prog, 1, &dev, "-cl-std=CL3.0", NULL, NULL);
   if (err != CL_SUCCESS) {
      char log[16384];
      clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
      fprintf(stderr, "build log:\n%s\n", log);
      CHECK(err, "clBuildProgram");
   }
   printf("program with 7 kernels built in %.1f ms\n", now_ms() - t);

   /* vector add on queue 0 */
   {
      cl_uint a[N], b[N], c[N];
      for (int i = 0; i < N; i++) {
         a[i] = i * 7u + 1;
         b[i] = 0xfffff000u + i * 3u;
      }
      t = now_ms();
      cl_kernel k = clCreateKernel(prog, "vadd", &err);
      CHECK(err, "vadd");
      cl_mem ba = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(a), a, &err);
      cl_mem bb = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(b), b, &err);
      cl_mem bc = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof(c), NULL, &err);
      clSetKernelArg(k, 0, sizeof(cl_mem), &ba);
      clSetKernelArg(k, 1, sizeof(cl_mem), &bb);
      clSetKernelArg(k, 2, sizeof(cl_mem), &bc);
      size_t gsz = N;
      CHECK(clEnqueueNDRangeKernel(q0, k, 1, NULL, &gsz, NULL, 0, NULL, NULL), "vadd enqueue");
      CHECK(clEnqueueReadBuffer(q0, bc, CL_TRUE, 0, sizeof(c), c, 0, NULL, NULL), "vadd read");
      int ok = 1;
      for (int i = 0; i < N; i++)
         ok &= c[i] == a[i] + b[i];
      result("vector add (uint, 1000 items)", ok, now_ms() - t);
      clReleaseMemObject(ba);
      clReleaseMemObject(bb);
      clReleaseMemObject(bc);
      clReleaseKernel(k);
   }

   /* 64-bit integers on queue 1 */
   {
      cl_ulong a[N], b[N], c[N], kv = 0x100000001ull * 12345;
      for (int i = 0; i < N; i++) {
         a[i] = 0x123456789abcdefull * (i + 1);
         b[i] = ~0ull - i * 0x1000000001ull;
      }
      t = now_ms();
      cl_kernel k = clCreateKernel(prog, "mad64", &err);
      CHECK(err, "mad64");
      cl_mem ba = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(a), a, &err);
      cl_mem bb = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(b), b, &err);
      cl_mem bc = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof(c), NULL, &err);
      clSetKernelArg(k, 0, sizeof(cl_mem), &ba);
      clSetKernelArg(k, 1, sizeof(cl_mem), &bb);
      clSetKernelArg(k, 2, sizeof(cl_mem), &bc);
      clSetKernelArg(k, 3, sizeof(kv), &kv);
      size_t gsz = N, lsz = LOCAL * 2;
      CHECK(clEnqueueNDRangeKernel(q1, k, 1, NULL, &gsz, &lsz, 0, NULL, NULL), "mad64 enqueue");
      CHECK(clEnqueueReadBuffer(q1, bc, CL_TRUE, 0, sizeof(c), c, 0, NULL, NULL), "mad64 read");
      int ok = 1;
      for (int i = 0; i < N; i++)
         ok &= c[i] == a[i] * kv + (b[i] >> 3) - (a[i] ^ b[i]);
      result("64-bit integers (ulong, queue 1)", ok, now_ms() - t);
      clReleaseMemObject(ba);
      clReleaseMemObject(bb);
      clReleaseMemObject(bc);
      clReleaseKernel(k);
   }

   /* work-item ids, work-groups of 20 (partial sub-groups) */
   {
      static cl_uint out[4 * N];
      t = now_ms();
      cl_kernel k = clCreateKernel(prog, "ids", &err);
      CHECK(err, "ids");
      cl_mem bo = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof(out), NULL, &err);
      clSetKernelArg(k, 0, sizeof(cl_mem), &bo);
      size_t gsz = N, lsz = LOCAL;
      CHECK(clEnqueueNDRangeKernel(q0, k, 1, NULL, &gsz, &lsz, 0, NULL, NULL), "ids enqueue");
      CHECK(clEnqueueReadBuffer(q0, bo, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL), "ids read");
      cl_uint sg = 0;
      cl_kernel_sub_group_info sgi = CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE;
      clGetKernelSubGroupInfo(k, dev, sgi, sizeof(size_t), &lsz, sizeof(sg), &sg, NULL);
      int ok = 1;
      for (int i = 0; i < N; i++) {
         ok &= out[4 * i] == (cl_uint)(i % LOCAL) && out[4 * i + 1] == (cl_uint)(i / LOCAL) &&
               out[4 * i + 2] == LOCAL;
         if (sg)
            ok &= out[4 * i + 3] == (cl_uint)(i % LOCAL) % sg;
      }
      result("work-item and sub-group ids", ok, now_ms() - t);
      clReleaseMemObject(bo);
      clReleaseKernel(k);
   }

   /* signed 32-bit arithmetic with selects */
   {
      cl_int a[N], c[N];
      for (int i = 0; i < N; i++)
         a[i] = (i * 7919) % 2001 - 1000;
      t = now_ms();
      cl_kernel k = clCreateKernel(prog, "mix32", &err);
      CHECK(err, "mix32");
      cl_mem ba = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(a), a, &err);
      cl_mem bc = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof(c), NULL, &err);
      clSetKernelArg(k, 0, sizeof(cl_mem), &ba);
      clSetKernelArg(k, 1, sizeof(cl_mem), &bc);
      size_t gsz = N;
      CHECK(clEnqueueNDRangeKernel(q1, k, 1, NULL, &gsz, NULL, 0, NULL, NULL), "mix32 enqueue");
      CHECK(clEnqueueReadBuffer(q1, bc, CL_TRUE, 0, sizeof(c), c, 0, NULL, NULL), "mix32 read");
      int ok = 1;
      for (int i = 0; i < N; i++) {
         int x = a[i];
         int want = (x > 7 ? x : 7) / 3 + (x < -5 ? x : -5) % 4 + (x < 100 ? x * x : -x) + abs(x);
         ok &= c[i] == want;
      }
      result("signed int arithmetic and selects", ok, now_ms() - t);
      clReleaseMemObject(ba);
      clReleaseMemObject(bc);
      clReleaseKernel(k);
   }

   /* float and double math, checked against the same C expressions */
   {
      cl_float a[N], c[N];
      for (int i = 0; i < N; i++)
         a[i] = (i - 500) * 0.37f;
      t = now_ms();
      cl_kernel k = clCreateKernel(prog, "fmath", &err);
      CHECK(err, "fmath");
      cl_mem ba = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(a), a, &err);
      cl_mem bc = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof(c), NULL, &err);
      clSetKernelArg(k, 0, sizeof(cl_mem), &ba);
      clSetKernelArg(k, 1, sizeof(cl_mem), &bc);
      size_t gsz = N;
      CHECK(clEnqueueNDRangeKernel(q0, k, 1, NULL, &gsz, NULL, 0, NULL, NULL), "fmath enqueue");
      CHECK(clEnqueueReadBuffer(q0, bc, CL_TRUE, 0, sizeof(c), c, 0, NULL, NULL), "fmath read");
      int ok = 1;
      for (int i = 0; i < N; i++) {
         float x = a[i];
         float want = fmaf(x, 1.5f, -2.0f) * x / (fabsf(x) + 1.0f) + sqrtf(fabsf(x)) + floorf(x) -
                      (float)(int)x;
         ok &= fabsf(c[i] - want) <= 1e-5f * fmaxf(1.0f, fabsf(want));
      }
      result("float math (fma, div, sqrt, floor, cvt)", ok, now_ms() - t);
      clReleaseMemObject(ba);
      clReleaseMemObject(bc);
      clReleaseKernel(k);
   }
   {
      cl_double a[N], c[N];
      for (int i = 0; i < N; i++)
         a[i] = (i - 500) * 0.731;
      t = now_ms();
      cl_kernel k = clCreateKernel(prog, "dmath", &err);
      CHECK(err, "dmath");
      cl_mem ba = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(a), a, &err);
      cl_mem bc = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof(c), NULL, &err);
      clSetKernelArg(k, 0, sizeof(cl_mem), &ba);
      clSetKernelArg(k, 1, sizeof(cl_mem), &bc);
      size_t gsz = N;
      CHECK(clEnqueueNDRangeKernel(q1, k, 1, NULL, &gsz, NULL, 0, NULL, NULL), "dmath enqueue");
      CHECK(clEnqueueReadBuffer(q1, bc, CL_TRUE, 0, sizeof(c), c, 0, NULL, NULL), "dmath read");
      int ok = 1;
      for (int i = 0; i < N; i++) {
         double x = a[i];
         double want = x * x * 0.25 - x / 3.0 + sqrt(x * x + 1.0) + (double)(long)(x * 1000.0);
         ok &= fabs(c[i] - want) <= 1e-12 * fmax(1.0, fabs(want));
      }
      result("double math (div, sqrt, cvt)", ok, now_ms() - t);
      clReleaseMemObject(ba);
      clReleaseMemObject(bc);
      clReleaseKernel(k);
   }

   /* divergent control flow: an early return, a loop with a per-lane trip
    * count, if/else and break, on a global size that is not a multiple */
   {
      static cl_uint out[N + 24];
      cl_uint n = N;
      t = now_ms();
      cl_kernel k = clCreateKernel(prog, "guarded_loops", &err);
      CHECK(err, "guarded_loops");
      for (int i = 0; i < N + 24; i++)
         out[i] = 0xdeadbeef;
      cl_mem bo = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(out), out, &err);
      clSetKernelArg(k, 0, sizeof(cl_mem), &bo);
      clSetKernelArg(k, 1, sizeof(n), &n);
      size_t gsz = N + 24, lsz = 32;
      CHECK(clEnqueueNDRangeKernel(q0, k, 1, NULL, &gsz, &lsz, 0, NULL, NULL), "loops enqueue");
      CHECK(clEnqueueReadBuffer(q0, bo, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL), "loops read");
      int ok = 1;
      for (int i = 0; i < N + 24; i++) {
         cl_uint want = 0;
         for (cl_uint kk = 0; kk < (cl_uint)i % 37u; kk++) {
            if (kk & 1)
               want += kk * 3;
            else
               want ^= kk;
            if (want > 500)
               break;
         }
         ok &= out[i] == (i < N ? want : 0xdeadbeef);
      }
      result("control flow (if/else, loops, break)", ok, now_ms() - t);
      clReleaseMemObject(bo);
      clReleaseKernel(k);
   }

   clReleaseProgram(prog);
   clReleaseCommandQueue(q0);
   clReleaseCommandQueue(q1);
   clReleaseContext(ctx);
   printf("%d passed, %d failed\n", passed, failed);
   return failed ? 1 : 0;
}
