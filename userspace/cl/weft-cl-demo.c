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
   printf("program with 4 kernels built in %.1f ms\n", now_ms() - t);

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

   clReleaseProgram(prog);
   clReleaseCommandQueue(q0);
   clReleaseCommandQueue(q1);
   clReleaseContext(ctx);
   printf("%d passed, %d failed\n", passed, failed);
   return failed ? 1 : 0;
}
