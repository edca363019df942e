// SPDX-License-Identifier: MIT
/*
 * pipes: the throughput of an OpenCL pipe on the Weft GPU, next to the same
 * data moved by a plain buffer copy.  A producer kernel writes N packets
 * (write_pipe, one per work-item) into a pipe of N packets, then a consumer
 * kernel reads them (read_pipe); the copy kernel moves the same N elements
 * from one buffer to another.  Every packet must arrive exactly once and
 * the copy must be exact, else the run fails.  Median of --reps timed runs
 * after a warm-up, wall-clock from the first enqueue to clFinish.
 *
 *   pipes [--packets N] [--reps N] [--type uint|float4|long16] [--quick]
 *
 * Run through bench/run-pipes (the host tier: Rusticl on the weft drm-shim).
 * A benchmark, never a timed test: --quick is its correctness mode.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *source =
   "kernel void produce(write_only pipe T p, global const T *src, global int *st)\n"
   "{ size_t i = get_global_id(0); st[i] = write_pipe(p, &src[i]); }\n"
   "kernel void consume(read_only pipe T p, global T *dst, global int *st)\n"
   "{ size_t i = get_global_id(0); st[i] = read_pipe(p, &dst[i]); }\n"
   "kernel void copy(global const T *src, global T *dst, global int *st)\n"
   "{ size_t i = get_global_id(0); dst[i] = src[i]; st[i] = 0; }\n";

static double
now(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
cmp_double(const void *a, const void *b)
{
   double x = *(const double *)a, y = *(const double *)b;
   return (x > y) - (x < y);
}

static cl_kernel
kernel(cl_program prog, const char *name, cl_mem a, cl_mem b, cl_mem c)
{
   cl_int err;
   cl_kernel k = clCreateKernel(prog, name, &err);

   if (!k || clSetKernelArg(k, 0, sizeof(a), &a) || clSetKernelArg(k, 1, sizeof(b), &b) ||
       clSetKernelArg(k, 2, sizeof(c), &c)) {
      fprintf(stderr, "pipes: kernel %s: %d\n", name, err);
      exit(1);
   }
   return k;
}

int
main(int argc, char **argv)
{
   size_t packets = 1 << 20, local = 256;
   unsigned reps = 5;
   const char *type = "uint";
   unsigned size = 4;
   cl_platform_id plats[8];
   cl_uint np = 0;
   cl_device_id dev = NULL;
   cl_int err;

   for (int i = 1; i < argc; i++) {
      if (!strcmp(argv[i], "--packets") && i + 1 < argc) {
         packets = strtoul(argv[++i], NULL, 0);
      } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
         reps = strtoul(argv[++i], NULL, 0);
      } else if (!strcmp(argv[i], "--type") && i + 1 < argc) {
         type = argv[++i];
         size = !strcmp(type, "uint") ? 4 : !strcmp(type, "float4") ? 16
              : !strcmp(type, "long16") ? 128 : 0;
      } else if (!strcmp(argv[i], "--quick")) {
         packets = 4096;
         reps = 1;
      } else {
         size = 0;
      }
      if (!size || !packets || !reps || packets % local) {
         fprintf(stderr, "usage: %s [--packets N (a multiple of %zu)] [--reps N] "
                 "[--type uint|float4|long16] [--quick]\n", argv[0], local);
         return 2;
      }
   }

   clGetPlatformIDs(8, plats, &np);
   for (cl_uint i = 0; i < np && !dev; i++)
      clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_GPU, 1, &dev, NULL);
   if (!dev) {
      fprintf(stderr, "pipes: no OpenCL GPU\n");
      return 1;
   }
   cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
   cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
   cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
   char opts[64];
   snprintf(opts, sizeof(opts), "-cl-std=CL2.0 -DT=%s", type);
   if (clBuildProgram(prog, 1, &dev, opts, NULL, NULL)) {
      char log[4096] = "";
      clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof(log) - 1, log, NULL);
      fprintf(stderr, "pipes: build failed:\n%s\n", log);
      return 1;
   }

   size_t bytes = packets * size;
   uint8_t *src = malloc(bytes), *dst = malloc(bytes);
   int32_t *st = malloc(packets * 4);
   uint8_t *seen = malloc(packets);
   /* Element i starts with i; the rest of its bytes follow from it. */
   for (size_t i = 0; i < packets; i++) {
      for (unsigned b = 0; b < size; b++)
         src[i * size + b] = b < 4 ? (uint8_t)(i >> (8 * b)) : (uint8_t)(i * 7 + b);
   }
   cl_mem bsrc = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, src, &err);
   cl_mem bdst = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
   cl_mem bst = clCreateBuffer(ctx, CL_MEM_READ_WRITE, packets * 4, NULL, &err);
   cl_mem pipe = clCreatePipe(ctx, 0, size, packets, NULL, &err);
   if (!bsrc || !bdst || !bst || !pipe) {
      fprintf(stderr, "pipes: buffers: %d\n", err);
      return 1;
   }
   cl_kernel kp = kernel(prog, "produce", pipe, bsrc, bst);
   cl_kernel kc = kernel(prog, "consume", pipe, bdst, bst);
   cl_kernel kk = kernel(prog, "copy", bsrc, bdst, bst);
   double *tp = calloc(reps, sizeof(double)), *tc = calloc(reps, sizeof(double));
   bool ok = true;

   for (unsigned r = 0; r <= reps; r++) {
      for (unsigned which = 0; which < 2; which++) {
         double t0 = now();
         if (which == 0) {
            clEnqueueNDRangeKernel(q, kp, 1, NULL, &packets, &local, 0, NULL, NULL);
            clEnqueueNDRangeKernel(q, kc, 1, NULL, &packets, &local, 0, NULL, NULL);
         } else {
            clEnqueueNDRangeKernel(q, kk, 1, NULL, &packets, &local, 0, NULL, NULL);
         }
         if (clFinish(q)) {
            fprintf(stderr, "pipes: a kernel failed\n");
            return 1;
         }
         double t = now() - t0;
         if (r > 0)
            (which == 0 ? tp : tc)[r - 1] = t;
         /* Every status 0 and every element once, whole. */
         clEnqueueReadBuffer(q, bdst, CL_TRUE, 0, bytes, dst, 0, NULL, NULL);
         clEnqueueReadBuffer(q, bst, CL_TRUE, 0, packets * 4, st, 0, NULL, NULL);
         memset(seen, 0, packets);
         for (size_t i = 0; i < packets && ok; i++) {
            uint32_t idx = 0;
            memcpy(&idx, dst + i * size, 4);
            ok = st[i] == 0 && idx < packets && !seen[idx]++ &&
                 !memcmp(dst + i * size, src + (size_t)idx * size, size) &&
                 (which == 0 || idx == i);
         }
         if (!ok) {
            fprintf(stderr, "pipes: %s: wrong data\n", which == 0 ? "pipe" : "copy");
            return 1;
         }
      }
   }
   qsort(tp, reps, sizeof(double), cmp_double);
   qsort(tc, reps, sizeof(double), cmp_double);
   double pipe_t = tp[reps / 2], copy_t = tc[reps / 2];
   printf("| transfer of %zu x %s (%u bytes) | time (ms) | M packets/s | MB/s |\n", packets,
          type, size);
   printf("|---|---:|---:|---:|\n");
   printf("| pipe: write_pipe kernel, then read_pipe kernel | %.1f | %.3g | %.3g |\n",
          pipe_t * 1e3, packets / pipe_t / 1e6, bytes / pipe_t / 1e6);
   printf("| buffer copy kernel | %.1f | %.3g | %.3g |\n", copy_t * 1e3,
          packets / copy_t / 1e6, bytes / copy_t / 1e6);
   printf("pipe/copy: %.3f (median of %u, every packet checked)\n", copy_t / pipe_t, reps);
   return 0;
}
