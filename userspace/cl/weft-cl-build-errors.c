// SPDX-License-Identifier: MIT
/*
 * weft-cl-build-errors: OpenCL C that the Weft GPU cannot run must fail the
 * program build cleanly, through the ICD loader as an application sees it:
 * clBuildProgram (and clLinkProgram) return CL_BUILD_PROGRAM_FAILURE
 * (CL_LINK_PROGRAM_FAILURE), the build status is CL_BUILD_ERROR, the build
 * log names the kernel and what it needs, clCreateKernel refuses the
 * program, and the process lives on (also for SPIR-V that uses what Weft
 * does not support: pipe-storage.spv, byval-global-pointer.spv,
 * builtin-of-wrong-type.spv, sampled-image-of-another-type.spv,
 * image-chosen-at-run-time.spv, bitcast-across-storage-classes.spv,
 * group-vote-of-a-pointer.spv and group-vote-of-a-uint.spv, next to this
 * program): a correct program built and run after the failures gives the right result. Two programs that define the same function do not link
 * (CL_LINK_PROGRAM_FAILURE, the log names it). Options the compiler does not take
 * are the application's error, apart from a failed compile:
 * CL_INVALID_BUILD_OPTIONS / CL_INVALID_COMPILER_OPTIONS, with the option
 * named in the build log, while a source that does not compile stays
 * CL_COMPILE_PROGRAM_FAILURE. With a directory argument, every
 * SPIR-V module in it (the compiler fuzzer's reproducers) goes through
 * clCreateProgramWithIL and clBuildProgram: each builds or fails with
 * CL_BUILD_ERROR, and none harms the process.
 *
 * Run with RUSTICL_ENABLE=weft (userspace/cl/run-host or run-in-guest);
 * prints one line per test and "N passed, M failed".
 * Usage: weft-cl-build-errors [SPIRV_DIR]
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct unsupported {
   const char *name;
   /* OpenCL C; or, with @spirv set, NULL */
   const char *source;
   /* A SPIR-V module's file name in this program's directory */
   const char *spirv;
   const char *options;
   /* Strings the build log must contain (the kernel, the construct). */
   const char *log[3];
};

/* Constructs the backend does not support (or the hardware cannot do):
 * each must fail the build, not the process. */
static const struct unsupported unsupported[] = {
   {
      "private-memory-over-16k",
      "__kernel void big_private(__global int *out, int n)\n"
      "{\n"
      "   int a[8192];\n"
      "   for (int i = 0; i < n; i++)\n"
      "      a[(i * 7) & 8191] = i;\n"
      "   out[get_global_id(0)] = a[n & 8191];\n"
      "}\n",
      NULL,
      "",
      { "big_private", "private memory" },
   },
   {
      "second-kernel-of-two",
      "__kernel void fine(__global int *out) { out[get_global_id(0)] = 1; }\n"
      "__kernel void too_private(__global int *out, int n)\n"
      "{\n"
      "   long a[4096];\n"
      "   for (int i = 0; i < n; i++)\n"
      "      a[(i * 5) & 4095] = i;\n"
      "   out[get_global_id(0)] = a[n & 4095];\n"
      "}\n",
      NULL,
      "",
      { "too_private", "private memory" },
   },
   {
      /* clang compiles it; inlining it forever overflowed the stack. */
      "recursion",
      "int sum_down(__global int *out, int n)\n"
      "{\n"
      "   if (n <= 0)\n"
      "      return 0;\n"
      "   out[n] = n;\n"
      "   return n + sum_down(out, n - 1);\n"
      "}\n"
      "__kernel void recursive(__global int *out)\n"
      "{\n"
      "   out[0] = sum_down(out, out[1]);\n"
      "}\n",
      NULL,
      "-cl-opt-disable",
      { "recursive", "sum_down", "recursion" },
   },
   {
      /* SPIR-V 1.1's pipe storage: a pipe of the program, not an argument. */
      "pipe-storage",
      NULL,
      "pipe-storage.spv",
      "",
      { "from_pipe_storage", "PipeStorage" },
   },
   {
      /* Its copy is private memory, out of the pointer's reach; the
       * compiler aborted the process in NIR validation (tests/fuzz-spirv). */
      "byval-global-pointer",
      NULL,
      "byval-global-pointer.spv",
      "",
      { "byval_global", "ByVal", "CrossWorkgroup" },
   },
   {
      /* A uint declared EnqueuedWorkgroupSize; the compiler aborted the
       * process in nir_lower_system_values (tests/fuzz-spirv). */
      "builtin-of-wrong-type",
      NULL,
      "builtin-of-wrong-type.spv",
      "",
      { "wrong_builtin", "EnqueuedWorkgroupSize variable has type uint", "u64vec3" },
   },
   {
      /* A sampled image1d_t of an image3d_t; the compiler aborted the
       * process in nir_lower_readonly_images_to_tex (tests/fuzz-spirv). */
      "sampled-image-of-another-type",
      NULL,
      "sampled-image-of-another-type.spv",
      "",
      { "mistyped_sample", "OpSampledImage between vimage3D", "sampled vimage1D" },
   },
   {
      /* An OpPhi of two image arguments: the same abort. */
      "image-chosen-at-run-time",
      NULL,
      "image-chosen-at-run-time.spv",
      "",
      { "either_image", "chooses an image or sampler at run time" },
   },
   {
      /* A __global pointer bitcast to a private one; the compiler aborted
       * the process in NIR validation (tests/fuzz-spirv). */
      "bitcast-across-storage-classes",
      NULL,
      "bitcast-across-storage-classes.spv",
      "",
      { "private_view", "OpBitcast of a pointer to SpvStorageClassCrossWorkgroup",
        "SpvStorageClassFunction" },
   },
   {
      /* A work-group OpGroupAll on a pointer; the compiler aborted the
       * process in nir_opt_constant_folding (tests/fuzz-spirv). */
      "group-vote-of-a-pointer",
      NULL,
      "group-vote-of-a-pointer.spv",
      "",
      { "vote_on_pointer", "SpvOpGroupAll takes %", "(a pointer) as its Predicate" },
   },
   {
      /* A sub-group OpGroupAny on a uint. */
      "group-vote-of-a-uint",
      NULL,
      "group-vote-of-a-uint.spv",
      "",
      { "vote_on_uint", "SpvOpGroupAny takes %", "(uint) as its Predicate" },
   },
};

static const char *good_source =
   "__kernel void square(__global int *out)\n"
   "{\n"
   "   int i = get_global_id(0);\n"
   "   out[i] = i * i;\n"
   "}\n";

static int passed, failed;

static void
result(const char *name, int ok, const char *why)
{
   if (ok) {
      passed++;
      printf("ok      %s\n", name);
   } else {
      failed++;
      printf("FAILED  %s: %s\n", name, why);
   }
   fflush(stdout);
}

static char *
build_log(cl_program prog, cl_device_id dev)
{
   size_t size = 0;
   char *log;

   if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) != CL_SUCCESS)
      return strdup("");
   log = calloc(1, size + 1);
   if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, size, log, NULL) != CL_SUCCESS)
      log[0] = 0;
   return log;
}

/* The program failed for @dev: status CL_BUILD_ERROR, every string of
 * @want in its log, and no kernel can be created from it. */
static int
failed_cleanly(cl_program prog, cl_device_id dev, const char *const *want, unsigned nwant,
               const char *kernel, char *why, size_t why_size)
{
   cl_build_status status = CL_BUILD_NONE;
   char *log = build_log(prog, dev);
   cl_int err;
   cl_kernel k;

   clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_STATUS, sizeof(status), &status, NULL);
   if (status != CL_BUILD_ERROR) {
      snprintf(why, why_size, "build status %d, not CL_BUILD_ERROR", (int)status);
      free(log);
      return 0;
   }
   for (unsigned i = 0; i < nwant && want[i]; i++) {
      if (!strstr(log, want[i])) {
         snprintf(why, why_size, "the log does not name '%s': %s", want[i], log);
         free(log);
         return 0;
      }
   }
   free(log);
   k = clCreateKernel(prog, kernel, &err);
   if (k || err != CL_INVALID_PROGRAM_EXECUTABLE) {
      snprintf(why, why_size, "clCreateKernel on the failed program: %d", (int)err);
      if (k)
         clReleaseKernel(k);
      return 0;
   }
   return 1;
}

static void *read_file(const char *path, size_t *size);

/* @u's program: its OpenCL C, or its SPIR-V module read from this
 * program's directory. */
static cl_program
create_program(cl_context ctx, const struct unsupported *u, char *why, size_t why_size)
{
   char path[4096];
   ssize_t len;
   size_t size = 0;
   void *il;
   cl_program prog;
   cl_int err;

   if (!u->spirv) {
      prog = clCreateProgramWithSource(ctx, 1, (const char **)&u->source, NULL, &err);
      if (!prog)
         snprintf(why, why_size, "clCreateProgramWithSource: %d", (int)err);
      return prog;
   }
   len = readlink("/proc/self/exe", path, sizeof(path) - 1);
   if (len <= 0) {
      snprintf(why, why_size, "cannot find this program's directory");
      return NULL;
   }
   path[len] = 0;
   snprintf(strrchr(path, '/') + 1, sizeof(path) - (strrchr(path, '/') + 1 - path), "%s",
            u->spirv);
   il = read_file(path, &size);
   if (!il) {
      snprintf(why, why_size, "cannot read %s next to this program", u->spirv);
      return NULL;
   }
   prog = clCreateProgramWithIL(ctx, il, size, &err);
   free(il);
   if (!prog)
      snprintf(why, why_size, "clCreateProgramWithIL(%s): %d", u->spirv, (int)err);
   return prog;
}

static void
test_build_fails(cl_context ctx, cl_device_id dev, const struct unsupported *u)
{
   char why[4096] = "";
   cl_int err;
   cl_program prog = create_program(ctx, u, why, sizeof(why));
   int ok;

   if (!prog) {
      result(u->name, 0, why);
      return;
   }
   err = clBuildProgram(prog, 1, &dev, u->options, NULL, NULL);
   ok = err == CL_BUILD_PROGRAM_FAILURE;
   if (!ok)
      snprintf(why, sizeof(why), "clBuildProgram returned %d, not CL_BUILD_PROGRAM_FAILURE",
               (int)err);
   else
      ok = failed_cleanly(prog, dev, u->log, 3, u->log[0], why, sizeof(why));
   result(u->name, ok, why);
   clReleaseProgram(prog);
}

/* clLinkProgram of @progs fails cleanly: CL_LINK_PROGRAM_FAILURE and a
 * program whose log names @want (see failed_cleanly()). */
static int
link_fails_cleanly(cl_context ctx, cl_device_id dev, cl_uint nprogs, const cl_program *progs,
                   const char *const *want, unsigned nwant, const char *kernel, char *why,
                   size_t why_size)
{
   cl_int err;
   cl_program linked = clLinkProgram(ctx, 1, &dev, "", nprogs, progs, NULL, NULL, &err);
   int ok = 0;

   if (err != CL_LINK_PROGRAM_FAILURE)
      snprintf(why, why_size, "clLinkProgram returned %d, not CL_LINK_PROGRAM_FAILURE", (int)err);
   else if (!linked)
      snprintf(why, why_size, "clLinkProgram returned no program to query");
   else
      ok = failed_cleanly(linked, dev, want, nwant, kernel, why, why_size);
   if (linked)
      clReleaseProgram(linked);
   return ok;
}

/* clCompileProgram succeeds (the front end is fine), clLinkProgram fails. */
static void
test_link_fails(cl_context ctx, cl_device_id dev, const struct unsupported *u)
{
   char why[4096] = "", name[128];
   cl_int err;
   cl_program prog = clCreateProgramWithSource(ctx, 1, (const char **)&u->source, NULL, &err);
   int ok = 0;

   snprintf(name, sizeof(name), "link-%s", u->name);
   err = clCompileProgram(prog, 1, &dev, u->options, 0, NULL, NULL, NULL, NULL);
   if (err != CL_SUCCESS)
      snprintf(why, sizeof(why), "clCompileProgram: %d", (int)err);
   else
      ok = link_fails_cleanly(ctx, dev, 1, &prog, u->log, 3, u->log[0], why, sizeof(why));
   result(name, ok, why);
   clReleaseProgram(prog);
}

/* Two compiled programs that both define get_number() do not link, as two C
 * files that do not: CL_LINK_PROGRAM_FAILURE, and the log names the symbol. */
static void
test_link_two_definitions(cl_context ctx, cl_device_id dev)
{
   static const char *sources[] = {
      "int get_number(void) { return 42; }\n",
      "int get_number(void) { return 0; }\n"
      "kernel void use_number(global int *out) { *out = get_number(); }\n",
   };
   const char *want[] = { "get_number" };
   char why[4096] = "";
   cl_program progs[2] = { NULL, NULL };
   cl_int err = CL_SUCCESS;
   int ok = 0;

   for (unsigned i = 0; i < 2 && err == CL_SUCCESS; i++) {
      progs[i] = clCreateProgramWithSource(ctx, 1, &sources[i], NULL, &err);
      if (err == CL_SUCCESS)
         err = clCompileProgram(progs[i], 1, &dev, "", 0, NULL, NULL, NULL, NULL);
   }
   if (err != CL_SUCCESS)
      snprintf(why, sizeof(why), "clCompileProgram: %d", (int)err);
   else
      ok = link_fails_cleanly(ctx, dev, 2, progs, want, 1, "use_number", why, sizeof(why));
   result("link-two-definitions", ok, why);
   for (unsigned i = 0; i < 2; i++) {
      if (progs[i])
         clReleaseProgram(progs[i]);
   }
}

/* Options the compiler does not take: an unknown option, and a value of a
 * known option that it cannot take. */
static const char *const invalid_options[] = {
   "-cl-no-such-option",
   "-cl-std=CL9.9",
};

/* clBuildProgram and clCompileProgram refuse @options before compiling:
 * the API's error, CL_BUILD_ERROR, the option named in the log; the same
 * program then builds with valid options. */
static void
test_invalid_options(cl_context ctx, cl_device_id dev, const char *options)
{
   const char *want[] = { options };
   char why[4096] = "", name[128];
   cl_int err;
   cl_program prog = clCreateProgramWithSource(ctx, 1, &good_source, NULL, &err);
   int ok = 0;

   snprintf(name, sizeof(name), "invalid-options %s", options);
   err = clBuildProgram(prog, 1, &dev, options, NULL, NULL);
   if (err != CL_INVALID_BUILD_OPTIONS) {
      snprintf(why, sizeof(why), "clBuildProgram returned %d, not CL_INVALID_BUILD_OPTIONS",
               (int)err);
   } else if (failed_cleanly(prog, dev, want, 1, "square", why, sizeof(why))) {
      err = clCompileProgram(prog, 1, &dev, options, 0, NULL, NULL, NULL, NULL);
      if (err != CL_INVALID_COMPILER_OPTIONS)
         snprintf(why, sizeof(why),
                  "clCompileProgram returned %d, not CL_INVALID_COMPILER_OPTIONS", (int)err);
      else if ((err = clBuildProgram(prog, 1, &dev, "-cl-std=CL1.2", NULL, NULL)) != CL_SUCCESS)
         snprintf(why, sizeof(why), "the valid build after it returned %d", (int)err);
      else
         ok = 1;
   }
   result(name, ok, why);
   clReleaseProgram(prog);
}

/* A source that does not compile, with valid options, is still a failed
 * compile, not invalid options. */
static void
test_compile_fails(cl_context ctx, cl_device_id dev)
{
   const char *source = "__kernel void broken(__global int *out) { out[0] = ; }\n";
   char why[256] = "";
   cl_int err;
   cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);

   err = clCompileProgram(prog, 1, &dev, "-cl-std=CL1.2", 0, NULL, NULL, NULL, NULL);
   if (err != CL_COMPILE_PROGRAM_FAILURE)
      snprintf(why, sizeof(why), "clCompileProgram returned %d, not CL_COMPILE_PROGRAM_FAILURE",
               (int)err);
   result("compile-error-is-not-invalid-options", err == CL_COMPILE_PROGRAM_FAILURE, why);
   clReleaseProgram(prog);
}

/* After the failures, a correct kernel builds and runs. */
static void
test_good_after_failures(cl_context ctx, cl_device_id dev)
{
   enum { N = 64 };
   char why[256] = "";
   int out[N], ok = 0;
   size_t gsz = N;
   cl_int err;
   cl_program prog = clCreateProgramWithSource(ctx, 1, &good_source, NULL, &err);
   cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
   cl_mem buf = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof(out), NULL, &err);
   cl_kernel k = NULL;

   err = clBuildProgram(prog, 1, &dev, "", NULL, NULL);
   if (err == CL_SUCCESS)
      k = clCreateKernel(prog, "square", &err);
   if (k && clSetKernelArg(k, 0, sizeof(buf), &buf) == CL_SUCCESS &&
       clEnqueueNDRangeKernel(q, k, 1, NULL, &gsz, NULL, 0, NULL, NULL) == CL_SUCCESS &&
       clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL) == CL_SUCCESS) {
      ok = 1;
      for (int i = 0; i < N; i++)
         ok &= out[i] == i * i;
      if (!ok)
         snprintf(why, sizeof(why), "wrong results");
   } else {
      snprintf(why, sizeof(why), "build or run failed: %d", (int)err);
   }
   result("good-program-after-failures", ok, why);
   if (k)
      clReleaseKernel(k);
   clReleaseMemObject(buf);
   clReleaseCommandQueue(q);
   clReleaseProgram(prog);
}

static void *
read_file(const char *path, size_t *size)
{
   FILE *f = fopen(path, "rb");
   void *data = NULL;
   long n;

   if (!f)
      return NULL;
   if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
      data = malloc(n);
      if (data && fread(data, 1, n, f) != (size_t)n) {
         free(data);
         data = NULL;
      }
      *size = n;
   }
   fclose(f);
   return data;
}

/* A module Rusticl refuses (CL_INVALID_VALUE) or cannot build is fine; a
 * crash ends the process before its summary line. */
static void
test_il_survives(cl_context ctx, cl_device_id dev, const char *dir, const char *file)
{
   char path[4096], name[512], why[256] = "";
   cl_build_status status = CL_BUILD_NONE;
   size_t size = 0;
   void *il;
   cl_program prog;
   cl_int err;
   int ok;

   snprintf(path, sizeof(path), "%s/%s", dir, file);
   snprintf(name, sizeof(name), "il-%s", file);
   il = read_file(path, &size);
   if (!il) {
      result(name, 0, "cannot read the module");
      return;
   }
   prog = clCreateProgramWithIL(ctx, il, size, &err);
   free(il);
   if (!prog) {
      result(name, err == CL_INVALID_VALUE, "clCreateProgramWithIL failed, but not with CL_INVALID_VALUE");
      return;
   }
   err = clBuildProgram(prog, 1, &dev, "", NULL, NULL);
   clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_STATUS, sizeof(status), &status, NULL);
   ok = err == CL_SUCCESS ? status == CL_BUILD_SUCCESS
                          : err == CL_BUILD_PROGRAM_FAILURE && status == CL_BUILD_ERROR;
   if (!ok)
      snprintf(why, sizeof(why), "clBuildProgram %d, build status %d", (int)err, (int)status);
   result(name, ok, why);
   clReleaseProgram(prog);
}

static void
test_il_dir(cl_context ctx, cl_device_id dev, const char *dir)
{
   struct dirent **files;
   int n = scandir(dir, &files, NULL, alphasort);

   if (n < 0) {
      result("il-modules", 0, "cannot read the directory");
      return;
   }
   for (int i = 0; i < n; i++) {
      if (files[i]->d_name[0] != '.')
         test_il_survives(ctx, dev, dir, files[i]->d_name);
      free(files[i]);
   }
   free(files);
}

int
main(int argc, char **argv)
{
   cl_platform_id platforms[8];
   cl_uint nplat = 0;
   cl_device_id dev = NULL;
   cl_context ctx;
   cl_int err;

   clGetPlatformIDs(8, platforms, &nplat);
   for (cl_uint p = 0; p < nplat && !dev; p++) {
      cl_device_id devs[8];
      cl_uint ndev = 0;

      clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 8, devs, &ndev);
      for (cl_uint d = 0; d < ndev && !dev; d++) {
         char name[256] = "";
         clGetDeviceInfo(devs[d], CL_DEVICE_NAME, sizeof(name), name, NULL);
         if (strstr(name, "Weft"))
            dev = devs[d];
      }
   }
   if (!dev) {
      printf("FAILED  no Weft GPU among the OpenCL devices\n0 passed, 1 failed\n");
      return 1;
   }
   ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
   for (unsigned i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++)
      test_build_fails(ctx, dev, &unsupported[i]);
   test_link_fails(ctx, dev, &unsupported[1]);
   test_link_two_definitions(ctx, dev);
   for (unsigned i = 0; i < sizeof(invalid_options) / sizeof(invalid_options[0]); i++)
      test_invalid_options(ctx, dev, invalid_options[i]);
   test_compile_fails(ctx, dev);
   if (argc > 1)
      test_il_dir(ctx, dev, argv[1]);
   test_good_after_failures(ctx, dev);
   clReleaseContext(ctx);
   printf("%d passed, %d failed\n", passed, failed);
   return failed ? 1 : 0;
}
