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
   "}\n"
   "\n"
   "__kernel void reduce_local(__global const uint *in, __global uint *out, __local uint *tmp)\n"
   "{\n"
   "   uint lid = get_local_id(0);\n"
   "   tmp[lid] = in[get_global_id(0)];\n"
   "   barrier(CLK_LOCAL_MEM_FENCE);\n"
   "   for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {\n"
   "      if (lid < s)\n"
   "         tmp[lid] += tmp[lid + s];\n"
   "      barrier(CLK_LOCAL_MEM_FENCE);\n"
   "   }\n"
   "   if (lid == 0)\n"
   "      out[get_group_id(0)] = tmp[0];\n"
   "}\n"
   "\n"
   "__kernel void reverse_local(__global const uint *in, __global uint *out)\n"
   "{\n"
   "   __local uint buf[64];\n"
   "   __local uint count;\n"
   "   uint lid = get_local_id(0), n = get_local_size(0);\n"
   "   if (lid == 0)\n"
   "      count = 0;\n"
   "   buf[lid] = in[get_global_id(0)];\n"
   "   work_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
   "   out[get_global_id(0)] = buf[n - 1 - lid] + count;\n"
   "}\n"
   "\n"
   "__kernel void atomics(__global const uint *in, __global int *g, __global uint *hist,\n"
   "                      __global uint *old)\n"
   "{\n"
   "   __local uint lh[16];\n"
   "   uint i = get_global_id(0), lid = get_local_id(0), v = in[i];\n"
   "   if (lid < 16)\n"
   "      lh[lid] = 0;\n"
   "   barrier(CLK_LOCAL_MEM_FENCE);\n"
   "   atomic_add(&g[0], (int)v);\n"
   "   atomic_sub(&g[1], (int)v);\n"
   "   atomic_min(&g[2], (int)v - 500);\n"
   "   atomic_max(&g[3], (int)v - 500);\n"
   "   atomic_and(&g[4], ~(1 << (v % 31)));\n"
   "   atomic_or(&g[5], 1 << (v % 31));\n"
   "   atomic_xor(&g[6], (int)v);\n"
   "   atomic_inc(&g[7]);\n"
   "   atomic_dec(&g[8]);\n"
   "   atomic_min((__global uint *)&g[9], v + 7);\n"
   "   atomic_max((__global uint *)&g[10], v + 7);\n"
   "   old[i] = atomic_cmpxchg(&g[11], 0, (int)i + 1);\n"
   "   atomic_xchg(&g[12], (int)i);\n"
   "   atomic_inc(&lh[v % 16]);\n"
   "   atomic_add(&lh[(v >> 4) % 16], 2u);\n"
   "   atomic_sub(&lh[(v >> 8) % 16], 1u);\n"
   "   barrier(CLK_LOCAL_MEM_FENCE);\n"
   "   if (lid < 16)\n"
   "      atomic_add(&hist[lid], lh[lid]);\n"
   "}\n"
   "\n"
   "__kernel void private_array(__global const uint *in, __global uint *out)\n"
   "{\n"
   "   uint a[64];\n"
   "   uchar b[48];\n"
   "   size_t i = get_global_id(0);\n"
   "   uint s = in[i], acc = 0;\n"
   "   for (int k = 0; k < 64; k++) {\n"
   "      s = s * 1103515245u + 12345u;\n"
   "      a[k] = s;\n"
   "      if (k < 48)\n"
   "         b[k] = (uchar)(s >> 24);\n"
   "   }\n"
   "   for (int k = 0; k < 64; k++)\n"
   "      acc += a[(in[i] + k * 7) & 63] ^ (uint)k ^ b[(in[i] * 3 + k) % 48];\n"
   "   out[i] = acc;\n"
   "}\n";

/* The work-group collectives: each work-group keeps the multiples of 3 of
 * its items, in order (an exclusive scan gives each its place), and counts,
 * sums and takes the maximum of them (reductions); the sub-groups do the
 * same for their own items.  Run over a global size that is no multiple
 * of the local size, so the last work-group is smaller and its last
 * sub-group partial. */
static const char *wg_source =
   "__kernel __attribute__((intel_reqd_sub_group_size(16)))\n"
   "void wg_compact(__global const int *in, __global int *kept, __global int *stats,\n"
   "                __global int *sg_stats)\n"
   "{\n"
   "   size_t i = get_global_id(0), g = get_group_id(0);\n"
   "   int x = in[i], keep = x % 3 == 0;\n"
   "   int pos = work_group_scan_exclusive_add(keep);\n"
   "   int count = work_group_reduce_add(keep);\n"
   "   int sum = work_group_reduce_add(keep ? x : 0);\n"
   "   int mx = work_group_reduce_max(keep ? x : INT_MIN);\n"
   "   if (keep)\n"
   "      kept[g * get_enqueued_local_size(0) + pos] = x;\n"
   "   if (get_local_id(0) == 0) {\n"
   "      stats[4 * g + 0] = count;\n"
   "      stats[4 * g + 1] = sum;\n"
   "      stats[4 * g + 2] = mx;\n"
   "      stats[4 * g + 3] = get_local_size(0);\n"
   "   }\n"
   "   sg_stats[2 * i + 0] = sub_group_scan_inclusive_add(keep) + 1000 * get_sub_group_size();\n"
   "   sg_stats[2 * i + 1] = sub_group_reduce_min(x);\n"
   "}\n";

/* Sub-group builtins: built once per SIMD width (WEFT_SIMD at build time). */
static const char *sg_source =
   "__kernel void sg_ops(__global const int *in, __global int *out)\n"
   "{\n"
   "   size_t i = get_global_id(0);\n"
   "   int x = in[i];\n"
   "   uint l = get_sub_group_local_id(), n = get_sub_group_size();\n"
   "   __global int *o = out + i * 20;\n"
   "   o[0] = n;\n"
   "   o[1] = get_max_sub_group_size();\n"
   "   o[2] = get_num_sub_groups();\n"
   "   o[3] = get_sub_group_id();\n"
   "   o[4] = l;\n"
   "   o[5] = sub_group_broadcast(x, 3);\n"
   "   o[6] = sub_group_reduce_add(x);\n"
   "   o[7] = sub_group_reduce_min(x);\n"
   "   o[8] = sub_group_reduce_max(x);\n"
   "   o[9] = sub_group_scan_inclusive_add(x);\n"
   "   o[10] = sub_group_scan_exclusive_add(x);\n"
   "   o[11] = sub_group_scan_inclusive_min(x);\n"
   "   o[12] = sub_group_scan_exclusive_max(x);\n"
   "   o[13] = sub_group_any(x > 90) | (sub_group_all(x > -1000) << 1) | (sub_group_all(x > 0) << 2);\n"
   "   o[14] = sub_group_shuffle(x, (l * 5 + 1) % n);\n"
   "   o[15] = sub_group_shuffle_xor(x, 1);\n"
   "   o[16] = sub_group_shuffle_up(x, 1);\n"
   "   o[17] = sub_group_shuffle_down(x, 2);\n"
   "   o[18] = (int)sub_group_reduce_max((uint)x);\n"
   "   o[19] = (int)sub_group_scan_inclusive_add((float)x);\n"
   "}\n"
   "\n"
   "__kernel void sg64(__global const long *in, __global long *o, __global double *d)\n"
   "{\n"
   "   size_t i = get_global_id(0);\n"
   "   long x = in[i];\n"
   "   double y = (double)x * 0.5;\n"
   "   o[4 * i + 0] = sub_group_reduce_add(x);\n"
   "   o[4 * i + 1] = sub_group_broadcast(x, 1);\n"
   "   o[4 * i + 2] = sub_group_scan_exclusive_min(x);\n"
   "   o[4 * i + 3] = sub_group_shuffle_xor(x, 2);\n"
   "   d[2 * i + 0] = sub_group_reduce_max(y);\n"
   "   d[2 * i + 1] = sub_group_scan_inclusive_add(y);\n"
   "}\n";

/* Register pressure: built with all registers and with WEFT_MAX_REGS=16,
 * which makes the compiler spill to scratch. */
static const char *spill_source =
   "__kernel void pressure(__global const uint *in, __global uint *out)\n"
   "{\n"
   "   size_t i = get_global_id(0);\n"
   "   uint a = in[i], b = a * 3 + 1, c = a ^ 0x55, d = a >> 2, e = b * c, f = c + d;\n"
   "   uint g = e ^ f, h = a * b;\n"
   "   ulong w = (ulong)a * 0x100000001ul + h;\n"
   "   for (uint k = 0; k < (a & 15); k++) {\n"
   "      if (k & 1) {\n"
   "         a += g;\n"
   "         w ^= b;\n"
   "      } else {\n"
   "         b ^= h + k;\n"
   "      }\n"
   "      c += d * k;\n"
   "   }\n"
   "   out[i] = a + b + c + d + e + f + g + h + (uint)w + (uint)(w >> 32);\n"
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

/* A kernel argument: a buffer (@size bytes, from @data when not NULL) or a
 * scalar (@scalar set). */
struct arg {
   const void *data;
   size_t size;
   int scalar;
   cl_mem mem;
};

/*
 * Runs kernel @name on @q over @gsz work-items (work-groups of @lsz, 0: the
 * runtime's choice) and reads argument @out back into @result.
 */
static double
run(cl_context ctx, cl_command_queue q, cl_program prog, const char *name,
    struct arg *args, unsigned nargs, size_t gsz, size_t lsz, unsigned out, void *result)
{
   double t = now_ms();
   cl_int err;
   cl_kernel k = clCreateKernel(prog, name, &err);

   CHECK(err, name);
   for (unsigned i = 0; i < nargs; i++) {
      if (args[i].scalar == 2) {
         /* a __local argument: its size, no data */
         CHECK(clSetKernelArg(k, i, args[i].size, NULL), "clSetKernelArg (local)");
         continue;
      }
      if (args[i].scalar) {
         CHECK(clSetKernelArg(k, i, args[i].size, args[i].data), "clSetKernelArg");
         continue;
      }
      args[i].mem = clCreateBuffer(ctx, CL_MEM_READ_WRITE | (args[i].data ? CL_MEM_COPY_HOST_PTR : 0),
                                   args[i].size, (void *)args[i].data, &err);
      CHECK(err, "clCreateBuffer");
      CHECK(clSetKernelArg(k, i, sizeof(cl_mem), &args[i].mem), "clSetKernelArg");
   }
   CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &gsz, lsz ? &lsz : NULL, 0, NULL, NULL), name);
   CHECK(clEnqueueReadBuffer(q, args[out].mem, CL_TRUE, 0, args[out].size, result, 0, NULL, NULL),
         "clEnqueueReadBuffer");
   for (unsigned i = 0; i < nargs; i++) {
      if (!args[i].scalar)
         clReleaseMemObject(args[i].mem);
   }
   clReleaseKernel(k);
   return now_ms() - t;
}

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
   printf("program with 11 kernels built in %.1f ms\n", now_ms() - t);

   /* vector add on queue 0 */
   {
      static cl_uint a[N], b[N], c[N];
      for (int i = 0; i < N; i++) {
         a[i] = i * 7u + 1;
         b[i] = 0xfffff000u + i * 3u;
      }
      struct arg args[] = { { a, sizeof(a) }, { b, sizeof(b) }, { NULL, sizeof(c) } };
      double ms = run(ctx, q0, prog, "vadd", args, 3, N, 0, 2, c);
      int ok = 1;
      for (int i = 0; i < N; i++)
         ok &= c[i] == a[i] + b[i];
      result("vector add (uint, 1000 items)", ok, ms);
   }

   /* 64-bit integers on queue 1 */
   {
      static cl_ulong a[N], b[N], c[N];
      cl_ulong kv = 0x100000001ull * 12345;
      for (int i = 0; i < N; i++) {
         a[i] = 0x123456789abcdefull * (i + 1);
         b[i] = ~0ull - i * 0x1000000001ull;
      }
      struct arg args[] = { { a, sizeof(a) }, { b, sizeof(b) }, { NULL, sizeof(c) },
                            { &kv, sizeof(kv), 1 } };
      double ms = run(ctx, q1, prog, "mad64", args, 4, N, LOCAL * 2, 2, c);
      int ok = 1;
      for (int i = 0; i < N; i++)
         ok &= c[i] == a[i] * kv + (b[i] >> 3) - (a[i] ^ b[i]);
      result("64-bit integers (ulong, queue 1)", ok, ms);
   }

   /* work-item ids, work-groups of 20 (partial sub-groups) */
   {
      static cl_uint out[4 * N];
      struct arg args[] = { { NULL, sizeof(out) } };
      double ms = run(ctx, q0, prog, "ids", args, 1, N, LOCAL, 0, out);
      cl_uint sg = 0;
      for (int i = 0; i < N; i++) {
         /* the sub-group size the kernel ran at: lane ids wrap there */
         if (i % LOCAL && out[4 * i + 3] == 0 && !sg)
            sg = i % LOCAL;
      }
      int ok = 1;
      for (int i = 0; i < N; i++) {
         ok &= out[4 * i] == (cl_uint)(i % LOCAL) && out[4 * i + 1] == (cl_uint)(i / LOCAL) &&
               out[4 * i + 2] == LOCAL;
         if (sg)
            ok &= out[4 * i + 3] == (cl_uint)(i % LOCAL) % sg;
      }
      result("work-item and sub-group ids", ok, ms);
   }

   /* signed 32-bit arithmetic with selects */
   {
      static cl_int a[N], c[N];
      for (int i = 0; i < N; i++)
         a[i] = (i * 7919) % 2001 - 1000;
      struct arg args[] = { { a, sizeof(a) }, { NULL, sizeof(c) } };
      double ms = run(ctx, q1, prog, "mix32", args, 2, N, 0, 1, c);
      int ok = 1;
      for (int i = 0; i < N; i++) {
         int x = a[i];
         int want = (x > 7 ? x : 7) / 3 + (x < -5 ? x : -5) % 4 + (x < 100 ? x * x : -x) + abs(x);
         ok &= c[i] == want;
      }
      result("signed int arithmetic and selects", ok, ms);
   }

   /* float and double math, checked against the same C expressions */
   {
      static cl_float a[N], c[N];
      for (int i = 0; i < N; i++)
         a[i] = (i - 500) * 0.37f;
      struct arg args[] = { { a, sizeof(a) }, { NULL, sizeof(c) } };
      double ms = run(ctx, q0, prog, "fmath", args, 2, N, 0, 1, c);
      int ok = 1;
      for (int i = 0; i < N; i++) {
         float x = a[i];
         float want = fmaf(x, 1.5f, -2.0f) * x / (fabsf(x) + 1.0f) + sqrtf(fabsf(x)) + floorf(x) -
                      (float)(int)x;
         ok &= fabsf(c[i] - want) <= 1e-5f * fmaxf(1.0f, fabsf(want));
      }
      result("float math (fma, div, sqrt, floor, cvt)", ok, ms);
   }
   {
      static cl_double a[N], c[N];
      for (int i = 0; i < N; i++)
         a[i] = (i - 500) * 0.731;
      struct arg args[] = { { a, sizeof(a) }, { NULL, sizeof(c) } };
      double ms = run(ctx, q1, prog, "dmath", args, 2, N, 0, 1, c);
      int ok = 1;
      for (int i = 0; i < N; i++) {
         double x = a[i];
         double want = x * x * 0.25 - x / 3.0 + sqrt(x * x + 1.0) + (double)(long)(x * 1000.0);
         ok &= fabs(c[i] - want) <= 1e-12 * fmax(1.0, fabs(want));
      }
      result("double math (div, sqrt, cvt)", ok, ms);
   }

   /* divergent control flow: an early return, a loop with a per-lane trip
    * count, if/else and break, on a global size that is not a multiple */
   {
      static cl_uint out[N + 24];
      cl_uint n = N;
      for (int i = 0; i < N + 24; i++)
         out[i] = 0xdeadbeef;
      struct arg args[] = { { out, sizeof(out) }, { &n, sizeof(n), 1 } };
      double ms = run(ctx, q0, prog, "guarded_loops", args, 2, N + 24, 32, 0, out);
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
      result("control flow (if/else, loops, break)", ok, ms);
   }

   /* work-group reduction in __local memory with barriers, at several
    * work-group sizes */
   for (size_t lsz = 8; lsz <= 128; lsz *= 2) {
      enum { RN = 1024 };
      static cl_uint in[RN], out[RN];
      char what[64];
      for (int i = 0; i < RN; i++)
         in[i] = (i * 2654435761u) >> 12;
      struct arg args[] = { { in, sizeof(in) }, { NULL, RN / lsz * sizeof(cl_uint) },
                            { NULL, lsz * sizeof(cl_uint), 2 } };
      double ms = run(ctx, lsz & 16 ? q1 : q0, prog, "reduce_local", args, 3, RN, lsz, 1, out);
      int ok = 1;
      for (size_t g = 0; g < RN / lsz; g++) {
         cl_uint want = 0;
         for (size_t j = 0; j < lsz; j++)
            want += in[g * lsz + j];
         ok &= out[g] == want;
      }
      snprintf(what, sizeof(what), "local reduction + barrier (wg %zu)", lsz);
      result(what, ok, ms);
   }

   /* static __local arrays: reverse within the work-group */
   for (size_t lsz = 20; lsz <= 64; lsz += 44) {
      static cl_uint in[N / 20 * 20 * 4], out[N / 20 * 20 * 4];
      size_t n = (N / lsz) * lsz;
      char what[64];
      for (size_t i = 0; i < n; i++)
         in[i] = i * 3 + 11;
      struct arg args[] = { { in, n * 4 }, { NULL, n * 4 } };
      double ms = run(ctx, q0, prog, "reverse_local", args, 2, n, lsz, 1, out);
      int ok = 1;
      for (size_t i = 0; i < n; i++)
         ok &= out[i] == in[i / lsz * lsz + lsz - 1 - i % lsz];
      snprintf(what, sizeof(what), "static __local array (wg %zu)", lsz);
      result(what, ok, ms);
   }

   /* global and local atomics */
   {
      enum { AN = 960, AL = 32 };
      static cl_uint in[AN], hist[16], old[AN];
      static cl_int g[13];
      memset(g, 0, sizeof(g));
      g[1] = 1000000;
      g[2] = 0x7fffffff;
      g[3] = -0x7fffffff;
      g[4] = -1;
      g[9] = -1;
      for (int i = 0; i < AN; i++)
         in[i] = (i * 2654435761u) >> 20;
      struct arg args[] = { { in, sizeof(in) }, { g, sizeof(g) }, { hist, sizeof(hist) },
                            { NULL, sizeof(old) } };
      memset(hist, 0, sizeof(hist));
      double ms = run(ctx, q1, prog, "atomics", args, 4, AN, AL, 1, g);
      /* the other outputs: run again (same inputs) reading them back */
      cl_int w[13] = { 0, 1000000, 0x7fffffff, -0x7fffffff, -1, 0, 0, 0, 0, -1, 0, 0, 0 };
      cl_uint wh[16] = { 0 };
      for (int i = 0; i < AN; i++) {
         cl_uint v = in[i];
         w[0] += v;
         w[1] -= v;
         w[2] = (int)v - 500 < w[2] ? (int)v - 500 : w[2];
         w[3] = (int)v - 500 > w[3] ? (int)v - 500 : w[3];
         w[4] &= ~(1 << (v % 31));
         w[5] |= 1 << (v % 31);
         w[6] ^= v;
         w[7]++;
         w[8]--;
         w[9] = v + 7 < (cl_uint)w[9] ? v + 7 : (cl_uint)w[9];
         w[10] = v + 7 > (cl_uint)w[10] ? v + 7 : (cl_uint)w[10];
         wh[v % 16] += 1;
         wh[(v >> 4) % 16] += 2;
         wh[(v >> 8) % 16] -= 1;
      }
      int ok = 1;
      for (int j = 0; j <= 10; j++)
         ok &= g[j] == w[j];
      ok &= g[11] >= 1 && g[11] <= AN && g[12] >= 0 && g[12] < AN;
      struct arg args2[] = { { in, sizeof(in) }, { NULL, sizeof(g) }, { hist, sizeof(hist) },
                             { NULL, sizeof(old) } };
      static cl_int g0[13];
      args2[1].data = g0;
      ms += run(ctx, q1, prog, "atomics", args2, 4, AN, AL, 2, hist);
      for (int j = 0; j < 16; j++)
         ok &= hist[j] == wh[j];
      ms += run(ctx, q1, prog, "atomics", args2, 4, AN, AL, 3, old);
      int winners = 0;
      for (int i = 0; i < AN; i++)
         winners += old[i] == 0;
      ok &= winners == 1;
      result("atomics (global + local, int/uint)", ok, ms);
   }

   /* private arrays indexed at run time: in scratch */
   {
      static cl_uint in[N], out[N];
      for (int i = 0; i < N; i++)
         in[i] = i * 2654435761u;
      struct arg args[] = { { in, sizeof(in) }, { NULL, sizeof(out) } };
      double ms = run(ctx, q1, prog, "private_array", args, 2, N, LOCAL * 2, 1, out);
      int ok = 1;
      for (int i = 0; i < N; i++) {
         cl_uint a[64], s = in[i], acc = 0;
         cl_uchar b[48];
         for (int k = 0; k < 64; k++) {
            s = s * 1103515245u + 12345u;
            a[k] = s;
            if (k < 48)
               b[k] = (cl_uchar)(s >> 24);
         }
         for (int k = 0; k < 64; k++)
            acc += a[(in[i] + k * 7) & 63] ^ (cl_uint)k ^ b[(in[i] * 3 + k) % 48];
         ok &= out[i] == acc;
      }
      result("private arrays in scratch", ok, ms);
   }

   /* spilling: the same kernel with 256 and with 16 registers */
   for (int lim = 0; lim <= 16; lim += 16) {
      static cl_uint in[N], out[N];
      char what[64];
      if (lim)
         setenv("WEFT_MAX_REGS", "16", 1);
      cl_program pp = clCreateProgramWithSource(ctx, 1, &spill_source, NULL, &err);
      CHECK(err, "clCreateProgramWithSource (spill)");
      err = clBuildProgram(pp, 1, &dev, "-cl-std=CL3.0", NULL, NULL);
      unsetenv("WEFT_MAX_REGS");
      CHECK(err, "clBuildProgram (spill)");
      for (int i = 0; i < N; i++)
         in[i] = i * 2654435761u;
      struct arg args[] = { { in, sizeof(in) }, { NULL, sizeof(out) } };
      double ms = run(ctx, q0, pp, "pressure", args, 2, N, LOCAL, 1, out);
      int ok = 1;
      for (int i = 0; i < N; i++) {
         cl_uint a = in[i], b = a * 3 + 1, c = a ^ 0x55, d = a >> 2, e = b * c, f = c + d;
         cl_uint g = e ^ f, h = a * b;
         cl_ulong w = (cl_ulong)a * 0x100000001ul + h;
         for (cl_uint k = 0; k < (a & 15); k++) {
            if (k & 1) {
               a += g;
               w ^= b;
            } else {
               b ^= h + k;
            }
            c += d * k;
         }
         ok &= out[i] == a + b + c + d + e + f + g + h + (cl_uint)w + (cl_uint)(w >> 32);
      }
      snprintf(what, sizeof(what), "register pressure (%s)", lim ? "16 regs, spills" : "256 regs");
      result(what, ok, ms);
      clReleaseProgram(pp);
   }

   /* sub-group builtins at SIMD 8, 16 and 32, against a C reference */
   for (unsigned simd = 8; simd <= 32; simd *= 2) {
      enum { SN = 256, SL = 64 };
      static cl_int in[SN], out[SN * 20];
      char env[8], what[64];
      snprintf(env, sizeof(env), "%u", simd);
      setenv("WEFT_SIMD", env, 1);
      cl_program sp = clCreateProgramWithSource(ctx, 1, &sg_source, NULL, &err);
      CHECK(err, "clCreateProgramWithSource (sub-groups)");
      err = clBuildProgram(sp, 1, &dev, "-cl-std=CL3.0", NULL, NULL);
      unsetenv("WEFT_SIMD");
      if (err != CL_SUCCESS) {
         char log[16384];
         clGetProgramBuildInfo(sp, dev, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
         fprintf(stderr, "build log:\n%s\n", log);
         CHECK(err, "clBuildProgram (sub-groups)");
      }
      for (int i = 0; i < SN; i++)
         in[i] = (int)((i * 2654435761u) >> 25) - 40;
      struct arg args[] = { { in, sizeof(in) }, { NULL, sizeof(out) } };
      double ms = run(ctx, q0, sp, "sg_ops", args, 2, SN, SL, 1, out);
      int ok = 1;
      for (int i = 0; i < SN; i++) {
         const cl_int *o = out + i * 20;
         int l = i % SL % simd, base = i - l;
         const cl_int *x = in + base;
         int sum = 0, mn = x[0], mx = x[0], any = 0, all = 1, allp = 1, inc = 0, incmin = x[0];
         int exmax = -2147483647 - 1, exsum = 0;
         cl_uint umx = 0;
         for (int j = 0; j < (int)simd; j++) {
            sum += x[j];
            mn = x[j] < mn ? x[j] : mn;
            mx = x[j] > mx ? x[j] : mx;
            umx = (cl_uint)x[j] > umx ? (cl_uint)x[j] : umx;
            any |= x[j] > 90;
            all &= x[j] > -1000;
            allp &= x[j] > 0;
            if (j <= l) {
               inc += x[j];
               incmin = x[j] < incmin ? x[j] : incmin;
            }
            if (j < l) {
               exsum += x[j];
               exmax = x[j] > exmax ? x[j] : exmax;
            }
         }
         int want[20] = { (int)simd, (int)simd, SL / (int)simd, i % SL / (int)simd, l, x[3], sum,
                          mn, mx, inc, exsum, incmin, exmax, any | all << 1 | allp << 2,
                          x[(l * 5 + 1) % simd], x[l ^ 1], x[(l - 1 + simd) % simd],
                          x[(l + 2) % simd], (int)umx, inc };
         for (int k = 0; k < 20; k++) {
            /* shuffle_up/down out of range: undefined */
            if ((k == 16 && l < 1) || (k == 17 && l + 2 >= (int)simd))
               continue;
            if (o[k] != want[k]) {
               if (ok)
                  fprintf(stderr, "sg_ops simd %u: item %d slot %d: %d, want %d\n", simd, i, k,
                          o[k], want[k]);
               ok = 0;
            }
         }
      }
      snprintf(what, sizeof(what), "sub-group builtins (SIMD %u)", simd);
      result(what, ok, ms);

      /* 64-bit integers and doubles */
      static cl_long lin[SN], lo[SN * 4];
      static cl_double dout[SN * 2];
      for (int i = 0; i < SN; i++)
         lin[i] = ((cl_long)((i * 2654435761u) >> 4) - (1l << 27)) * 65536;
      struct arg a64[] = { { lin, sizeof(lin) }, { NULL, sizeof(lo) }, { NULL, sizeof(dout) } };
      ms = run(ctx, q1, sp, "sg64", a64, 3, SN, SL, 1, lo);
      ms += run(ctx, q1, sp, "sg64", a64, 3, SN, SL, 2, dout);
      ok = 1;
      for (int i = 0; i < SN; i++) {
         int l = i % SL % simd;
         const cl_long *x = lin + i - l;
         cl_long sum = 0, exmin = INT64_MAX;
         double dmax = -INFINITY, dinc = 0;
         for (int j = 0; j < (int)simd; j++) {
            sum += x[j];
            dmax = fmax(dmax, x[j] * 0.5);
            if (j < l)
               exmin = x[j] < exmin ? x[j] : exmin;
            if (j <= l)
               dinc += x[j] * 0.5;
         }
         ok &= lo[4 * i] == sum && lo[4 * i + 1] == x[1] && lo[4 * i + 2] == exmin &&
               lo[4 * i + 3] == x[l ^ 2] && dout[2 * i] == dmax && dout[2 * i + 1] == dinc;
      }
      snprintf(what, sizeof(what), "sub-group long/double (SIMD %u)", simd);
      result(what, ok, ms);
      clReleaseProgram(sp);
   }

   /* work-group collectives: stream compaction with a scan, reductions */
   {
      enum { WN = 1000, WL = 96, WG = (WN + WL - 1) / WL };
      static cl_int in[WN], kept[WG * WL], stats[WG * 4], sg[WN * 2];
      const unsigned simd = 16;
      cl_program wp = clCreateProgramWithSource(ctx, 1, &wg_source, NULL, &err);
      CHECK(err, "clCreateProgramWithSource (work-groups)");
      CHECK(clBuildProgram(wp, 1, &dev, "-cl-std=CL3.0", NULL, NULL), "clBuildProgram (work-groups)");
      for (int i = 0; i < WN; i++)
         in[i] = (int)((i * 2654435761u) >> 22) - 500;
      struct arg args[] = { { in, sizeof(in) }, { NULL, sizeof(kept) }, { NULL, sizeof(stats) },
                            { NULL, sizeof(sg) } };
      double ms = run(ctx, q1, wp, "wg_compact", args, 4, WN, WL, 1, kept);
      ms += run(ctx, q1, wp, "wg_compact", args, 4, WN, WL, 2, stats);
      ms += run(ctx, q1, wp, "wg_compact", args, 4, WN, WL, 3, sg);
      int ok = 1;
      for (int g = 0; g < WG; g++) {
         int n = WN - g * WL < WL ? WN - g * WL : WL, count = 0, sum = 0, mx = INT32_MIN;
         for (int l = 0; l < n; l++) {
            int x = in[g * WL + l];
            if (x % 3 == 0) {
               ok &= kept[g * WL + count] == x;
               count++;
               sum += x;
               mx = x > mx ? x : mx;
            }
            /* the sub-group of l: its size, its scan up to l, its minimum */
            int first = l / simd * simd, size = n - first < (int)simd ? n - first : (int)simd;
            int scan = 0, mn = INT32_MAX;
            for (int j = first; j < first + size; j++) {
               int y = in[g * WL + j];
               scan += j <= l && y % 3 == 0;
               mn = y < mn ? y : mn;
            }
            ok &= sg[2 * (g * WL + l)] == scan + 1000 * size && sg[2 * (g * WL + l) + 1] == mn;
         }
         ok &= stats[4 * g] == count && stats[4 * g + 1] == sum && stats[4 * g + 2] == mx &&
               stats[4 * g + 3] == n;
      }
      result("work-group scan/reduce: compaction", ok, ms);
      printf("   %d items in work-groups of %d (the last of %d, its last sub-group of %d): "
             "group 0 kept %d multiples of 3, sum %d, max %d\n", WN, WL, WN % WL, WN % WL % simd,
             stats[0], stats[1], stats[2]);
      clReleaseProgram(wp);
   }

   clReleaseProgram(prog);
   clReleaseCommandQueue(q0);
   clReleaseCommandQueue(q1);
   clReleaseContext(ctx);
   printf("%d passed, %d failed\n", passed, failed);
   return failed ? 1 : 0;
}
