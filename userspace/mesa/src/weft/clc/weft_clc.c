/* SPDX-License-Identifier: MIT */
/*
 * weft-clc: compiles OpenCL C (or SPIR-V) for the Weft GPU and writes, per
 * kernel, the binary (<kernel>.bin) and its disassembly (<kernel>.s).
 *
 *   weft-clc [-o DIR] [-s] [--simd 8|16|32] [--] FILE.cl|FILE.spv [BUILD OPTIONS...]
 *
 * It compiles exactly as an application's clBuildProgram does: Rusticl's
 * front end (clang, SPIR-V, Rusticl's NIR lowering) and the weft backend,
 * on the in-process device model of the weft drm-shim, so it needs no GPU
 * and no kernel module. -s prints the disassembly.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *
slurp(const char *path, size_t *size)
{
   FILE *f = fopen(path, "rb");
   char *buf;
   long n;

   if (!f)
      return NULL;
   fseek(f, 0, SEEK_END);
   n = ftell(f);
   fseek(f, 0, SEEK_SET);
   buf = malloc(n + 1);
   if (fread(buf, 1, n, f) != (size_t)n) {
      fclose(f);
      free(buf);
      return NULL;
   }
   buf[n] = 0;
   fclose(f);
   *size = n;
   return buf;
}

/* The install prefix: the directory above bin/weft-clc. */
static void
prefix_of_self(char *out, size_t size)
{
   char exe[PATH_MAX];
   ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

   exe[n > 0 ? n : 0] = 0;
   snprintf(out, size, "%s", dirname(dirname(exe)));
}

static int
usage(void)
{
   fprintf(stderr, "usage: weft-clc [-o DIR] [-s] [--simd 8|16|32] [--] FILE.cl|FILE.spv "
                   "[BUILD OPTIONS...]\n");
   return 2;
}

int
main(int argc, char **argv)
{
   const char *outdir = ".", *input = NULL;
   char options[4096] = "-cl-std=CL3.0";
   int print = 0, i;

   for (i = 1; i < argc; i++) {
      if (!strcmp(argv[i], "-o") && i + 1 < argc)
         outdir = argv[++i];
      else if (!strcmp(argv[i], "-s"))
         print = 1;
      else if (!strcmp(argv[i], "--simd") && i + 1 < argc)
         setenv("WEFT_SIMD", argv[++i], 1);
      else if (!strcmp(argv[i], "--")) {
         i++;
         break;
      } else if (argv[i][0] == '-' && strcmp(argv[i], "-h") && strcmp(argv[i], "--help"))
         return usage();
      else
         break;
   }
   if (i >= argc || !strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
      return usage();
   input = argv[i++];
   for (; i < argc; i++) {
      strncat(options, " ", sizeof(options) - strlen(options) - 1);
      strncat(options, argv[i], sizeof(options) - strlen(options) - 1);
   }

   /* Run on the drm-shim: set up the environment and start again. */
   if (!getenv("WEFT_CLC_CHILD")) {
      char prefix[PATH_MAX], buf[PATH_MAX + 64];

      prefix_of_self(prefix, sizeof(prefix));
      snprintf(buf, sizeof(buf), "%s/lib/libweft_drm_shim.so", prefix);
      setenv("LD_PRELOAD", buf, 1);
      snprintf(buf, sizeof(buf), "%s/etc/OpenCL/vendors", prefix);
      setenv("OCL_ICD_VENDORS", buf, 1);
      setenv("RUSTICL_ENABLE", "weft", 1);
      setenv("WEFT_CLC_CHILD", "1", 1);
      execv("/proc/self/exe", argv);
      perror("weft-clc: exec");
      return 1;
   }
   mkdir(outdir, 0777);
   {
      char abs[PATH_MAX];
      setenv("WEFT_DUMP_DIR", realpath(outdir, abs) ? abs : outdir, 1);
   }
   /* Always compile: never take a kernel from Rusticl's disk cache. */
   setenv("MESA_SHADER_CACHE_DISABLE", "true", 1);

   size_t size;
   char *src = slurp(input, &size);
   if (!src) {
      fprintf(stderr, "weft-clc: %s: %s\n", input, strerror(errno));
      return 1;
   }

   cl_platform_id plat[8];
   cl_uint nplat = 0;
   cl_device_id dev = NULL;
   cl_int err;
   clGetPlatformIDs(8, plat, &nplat);
   for (cl_uint p = 0; p < nplat && !dev; p++) {
      cl_uint n = 0;
      if (clGetDeviceIDs(plat[p], CL_DEVICE_TYPE_ALL, 1, &dev, &n) != CL_SUCCESS || !n)
         dev = NULL;
   }
   if (!dev) {
      fprintf(stderr, "weft-clc: no Weft device (is the drm-shim installed beside weft-clc?)\n");
      return 1;
   }
   cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
   cl_program prog;
   size_t len = strlen(input);
   if (len > 4 && !strcmp(input + len - 4, ".spv"))
      prog = clCreateProgramWithIL(ctx, src, size, &err);
   else
      prog = clCreateProgramWithSource(ctx, 1, (const char **)&src, NULL, &err);
   if (err != CL_SUCCESS) {
      fprintf(stderr, "weft-clc: cannot create the program: %d\n", err);
      return 1;
   }
   err = clBuildProgram(prog, 1, &dev, options, NULL, NULL);
   {
      static char log[65536];
      clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
      if (log[0])
         fprintf(stderr, "%s\n", log);
   }
   if (err != CL_SUCCESS) {
      fprintf(stderr, "weft-clc: build failed (%d)\n", err);
      return 1;
   }

   cl_uint nk = 0;
   clCreateKernelsInProgram(prog, 0, NULL, &nk);
   cl_kernel *k = calloc(nk ? nk : 1, sizeof(*k));
   clCreateKernelsInProgram(prog, nk, k, NULL);
   int missing = 0;
   for (cl_uint j = 0; j < nk; j++) {
      char name[256], path[PATH_MAX + 300];
      clGetKernelInfo(k[j], CL_KERNEL_FUNCTION_NAME, sizeof(name), name, NULL);
      snprintf(path, sizeof(path), "%s/%s.s", getenv("WEFT_DUMP_DIR"), name);
      size_t ssize;
      char *text = slurp(path, &ssize);
      if (!text) {
         fprintf(stderr, "weft-clc: %s: not compiled by the weft backend\n", name);
         missing++;
         continue;
      }
      fprintf(stderr, "weft-clc: %s -> %s/%s.bin\n", name, outdir, name);
      if (print)
         fputs(text, stdout);
      free(text);
      clReleaseKernel(k[j]);
   }
   clReleaseProgram(prog);
   clReleaseContext(ctx);
   return missing ? 1 : 0;
}
