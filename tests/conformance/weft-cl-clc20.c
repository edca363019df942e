// SPDX-License-Identifier: MIT
/*
 * OpenCL C 2.0 in weft-cl-conformance: the version the device reports and
 * what programs built with CL2.0, CL3.0 and no -cl-std see; generic
 * pointers into every address space with to_global/to_local/to_private/
 * get_fence, the failing conversions that give NULL included, at SIMD 8, 16
 * and 32 in uniform, partial-sub-group and non-uniform work-groups, each
 * work-item checked against what C computes for it;
 * program-scope global variables: their initializers, shared by the kernels
 * of a program, a program's own, the programs that cannot have them.
 */
#include "weft-cl-conformance.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct clc20_shape {
   const char *name;
   size_t global, local;
};

/* 60 work-items leave a partial last sub-group at every width; 250 over 64
 * a remainder work-group of 58. */
static const struct clc20_shape clc20_shapes[] = {
   {"1d-uniform", 256, 64},
   {"1d-partial-sg", 240, 60},
   {"1d-non-uniform", 250, 64},
};
#define NUM_CLC20_SHAPES (sizeof(clc20_shapes) / sizeof(clc20_shapes[0]))

/* --- Generic pointers ------------------------------------------------------ */

enum space { SPACE_GLOBAL, SPACE_LOCAL, SPACE_LOCAL_ARG, SPACE_PRIVATE, NUM_SPACES };
static const char *const space_names[] = {"global", "local", "local-arg", "private"};

/* Per work-item outputs of generic_ptrs. */
enum {
   GP_LOADED,       /* *p */
   GP_IS_GLOBAL,    /* to_global(p) != NULL */
   GP_IS_LOCAL,     /* to_local(p) != NULL */
   GP_IS_PRIVATE,   /* to_private(p) != NULL */
   GP_FENCE,        /* get_fence(p) (global and local only) */
   GP_CONVERTED,    /* *to_xxx(p) after the stores through p */
   GP_GLOBAL,       /* then each space through its own name */
   GP_LOCAL,
   GP_LOCAL_ARG,
   GP_PRIVATE,
   GP_NULLS,        /* to_global/to_local/to_private of a NULL generic pointer, bits */
   GP_OUTS
};

/* The space of work-item @gid: mode < 4 is that space for every work-item
 * (uniform), 4 a different one per lane (divergent). */
#define GP_MODES 5

static const char generic_source[] =
   "#define REQD __attribute__((intel_reqd_sub_group_size(SIMD)))\n"
   "#define OUTS 11\n"
   "static generic int *pick(uint space, global int *g, local int *l, local int *la,\n"
   "                         private int *p)\n"
   "{\n"
   "   switch (space) {\n"
   "   case 0: return g;\n"
   "   case 1: return l;\n"
   "   case 2: return la;\n"
   "   default: return p;\n"
   "   }\n"
   "}\n"
   "REQD kernel void generic_ptrs(global int *out, global int *gbuf, local int *larg,\n"
   "                              uint mode)\n"
   "{\n"
   "   local int lvar[64];\n"
   "   private int pvar[4];\n"
   "   uint gid = get_global_id(0), lid = get_local_id(0);\n"
   "   uint space = mode < 4 ? mode : (gid + mode) % 4;\n"
   "   gbuf[gid] = gid * 3;\n"
   "   lvar[lid] = gid * 5;\n"
   "   larg[lid] = gid * 7;\n"
   "   for (int i = 0; i < 4; i++)\n"
   "      pvar[i] = gid * 11 + i;\n"
   "   generic int *p = pick(space, gbuf + gid, lvar + lid, larg + lid, pvar + (gid & 3));\n"
   "   global int *o = out + gid * OUTS;\n"
   "   o[0] = *p;\n"
   "   *p += 100000;\n"
   "   if (space != 3)\n"
   "      atomic_fetch_add_explicit((volatile generic atomic_int *)p, 1,\n"
   "                                memory_order_relaxed, memory_scope_work_group);\n"
   "   global int *gp = to_global(p);\n"
   "   local int *lp = to_local(p);\n"
   "   private int *pp = to_private(p);\n"
   "   o[1] = gp != NULL;\n"
   "   o[2] = lp != NULL;\n"
   "   o[3] = pp != NULL;\n"
   "   o[4] = space != 3 ? (int)get_fence(p) : 0;\n"
   "   o[5] = gp ? *gp : lp ? *lp : pp ? *pp : -1;\n"
   "   o[6] = gbuf[gid];\n"
   "   o[7] = lvar[lid];\n"
   "   o[8] = larg[lid];\n"
   "   o[9] = pvar[gid & 3];\n"
   "   generic int *null = mode == 99 ? p : NULL;\n"
   "   o[10] = (to_global(null) == NULL) | (to_local(null) == NULL) << 1 |\n"
   "           (to_private(null) == NULL) << 2 | (null == NULL) << 3;\n"
   "}\n";

/* cl_mem_fence_flags of OpenCL C (opencl-c-base.h), which get_fence gives. */
#define FENCE_LOCAL 1
#define FENCE_GLOBAL 2

/* What work-item @gid writes, to @want. */
static void
generic_expected(uint32_t gid, unsigned mode, int32_t *want)
{
   unsigned space = mode < 4 ? mode : (gid + mode) % 4;
   int32_t before[NUM_SPACES] = {
      (int32_t)gid * 3, (int32_t)gid * 5, (int32_t)gid * 7, (int32_t)(gid * 11 + (gid & 3)),
   };
   int32_t after = before[space] + 100000 + (space != SPACE_PRIVATE);

   want[GP_LOADED] = before[space];
   want[GP_IS_GLOBAL] = space == SPACE_GLOBAL;
   want[GP_IS_LOCAL] = space == SPACE_LOCAL || space == SPACE_LOCAL_ARG;
   want[GP_IS_PRIVATE] = space == SPACE_PRIVATE;
   want[GP_FENCE] = space == SPACE_GLOBAL ? FENCE_GLOBAL
                    : space == SPACE_PRIVATE ? 0 : FENCE_LOCAL;
   want[GP_CONVERTED] = after;
   for (unsigned s = 0; s < NUM_SPACES; s++)
      want[GP_GLOBAL + s] = s == space ? after : before[s];
   want[GP_NULLS] = 0xf;
}

static const char *const gp_out_names[] = {
   "*p", "to_global", "to_local", "to_private", "get_fence", "*to_space(p)",
   "global", "local", "local arg", "private", "NULL conversions",
};

static void
run_generic_case(struct cl *cl, cl_program prog, unsigned simd, const struct clc20_shape *s,
                 unsigned mode, const char *tag)
{
   size_t n = s->global, out_bytes = n * GP_OUTS * sizeof(int32_t);
   int32_t *out = malloc(out_bytes);
   cl_int err;
   cl_kernel k = clCreateKernel(prog, "generic_ptrs", &err);
   cl_mem bout = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE, out_bytes, NULL, &err);
   cl_mem bg = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE, n * sizeof(int32_t), NULL, &err);
   cl_uint m = mode;
   char what[160];
   unsigned bad = 0;
   size_t first = 0;
   int32_t got = 0, want_first = 0;

   snprintf(what, sizeof(what), "generic-pointers %s simd%u %s%s",
            mode < 4 ? space_names[mode] : "divergent", simd, s->name, tag);
   memset(out, 0xa5, out_bytes);
   err = !k || !bout || !bg;
   err = err ? err : clEnqueueWriteBuffer(cl->q, bout, CL_TRUE, 0, out_bytes, out, 0, NULL, NULL);
   err = err ? err : clSetKernelArg(k, 0, sizeof(bout), &bout);
   err = err ? err : clSetKernelArg(k, 1, sizeof(bg), &bg);
   err = err ? err : clSetKernelArg(k, 2, s->local * sizeof(int32_t), NULL);
   err = err ? err : clSetKernelArg(k, 3, sizeof(m), &m);
   err = err ? err : clEnqueueNDRangeKernel(cl->q, k, 1, NULL, &s->global, &s->local, 0, NULL,
                                            NULL);
   err = err ? err : clEnqueueReadBuffer(cl->q, bout, CL_TRUE, 0, out_bytes, out, 0, NULL, NULL);
   if (err) {
      report(false, "%s: did not run (%d)", what, err);
   } else {
      for (size_t i = 0; i < n; i++) {
         int32_t want[GP_OUTS];

         generic_expected(i, mode, want);
         for (unsigned o = 0; o < GP_OUTS; o++) {
            if (out[i * GP_OUTS + o] == want[o])
               continue;
            if (!bad++) {
               first = i * GP_OUTS + o;
               got = out[first];
               want_first = want[o];
            }
         }
      }
      cases_in_matrix++;
      if (bad)
         report(false, "%s: %u wrong, first work-item %zu %s: %d, want %d", what, bad,
                first / GP_OUTS, gp_out_names[first % GP_OUTS], got, want_first);
      else
         report(true, "%s", what);
   }
   if (bg)
      clReleaseMemObject(bg);
   if (bout)
      clReleaseMemObject(bout);
   if (k)
      clReleaseKernel(k);
   free(out);
}

static void
run_generic(struct cl *cl, bool slice)
{
   static const struct {
      unsigned simd;
      const char *std, *tag;
      bool all_shapes;
   } builds[] = {
      {8, "-cl-std=CL3.0", "", true},
      {16, "-cl-std=CL3.0", "", true},
      {32, "-cl-std=CL3.0", "", true},
      {16, "-cl-std=CL2.0", " [CL2.0]", false},
   };

   for (unsigned b = 0; b < sizeof(builds) / sizeof(builds[0]); b++) {
      cl_program prog;

      if (slice && !builds[b].all_shapes)
         continue;
      prog = build(cl, generic_source, builds[b].simd, builds[b].std);
      if (!prog) {
         report(false, "generic-pointers simd%u build%s", builds[b].simd, builds[b].tag);
         continue;
      }
      for (unsigned si = 0; si < NUM_CLC20_SHAPES; si++) {
         const struct clc20_shape *s = &clc20_shapes[si];

         if ((slice || !builds[b].all_shapes) && strcmp(s->name, "1d-partial-sg"))
            continue;
         for (unsigned mode = 0; mode < GP_MODES; mode++) {
            if (slice && mode != GP_MODES - 1)
               continue;
            run_generic_case(cl, prog, builds[b].simd, s, mode, builds[b].tag);
         }
      }
      clReleaseProgram(prog);
   }
}

/* --- Program-scope global variables ------------------------------------------ */

static const char globals_source[] =
   "#ifdef cl_khr_subgroups\n"
   "#pragma OPENCL EXTENSION cl_khr_subgroups : enable\n"
   "#endif\n"
   "#define REQD __attribute__((intel_reqd_sub_group_size(SIMD)))\n"
   "global int counter = 7;\n"
   "global int table[4] = {1, 2, 3, 4};\n"
   "global float scale = 2.5f;\n"
   "global long big;\n"
   "static global int hidden = 42;\n"
   "global struct { int a; short b; long c; } rec = {5, 6, 7};\n"
   "REQD kernel void read_globals(global long *out)\n"
   "{\n"
   "   generic int *gp = &hidden;\n"
   "   out[0] = counter;\n"
   "   for (int i = 0; i < 4; i++)\n"
   "      out[1 + i] = table[i];\n"
   "   out[5] = (long)(scale * 2.0f);\n"
   "   out[6] = big;\n"
   "   out[7] = *gp;\n"
   "   out[8] = rec.a;\n"
   "   out[9] = rec.b;\n"
   "   out[10] = rec.c;\n"
   "   out[11] = to_global(gp) != NULL;\n"
   "}\n"
   "REQD kernel void bump(void)\n"
   "{\n"
   "   atomic_add(&counter, 1);\n"
   "   atomic_add(&table[get_global_id(0) & 3], (int)get_sub_group_local_id() + 1);\n"
   "}\n"
   "REQD kernel void set_big(long v)\n"
   "{\n"
   "   if (get_global_id(0) == 0)\n"
   "      big = v;\n"
   "}\n";
#define GLOBALS_OUTS 12
/* int, int[4], float, long, int, {int, short, long}: their sizes, without padding. */
#define GLOBALS_MIN_SIZE (4 + 16 + 4 + 8 + 4 + 16)

static bool
run_kernel_1d(struct cl *cl, cl_kernel k, size_t global, size_t local)
{
   cl_int err = clEnqueueNDRangeKernel(cl->q, k, 1, NULL, &global, &local, 0, NULL, NULL);

   err = err ? err : clFinish(cl->q);
   if (err)
      fprintf(stderr, "clEnqueueNDRangeKernel(%zu, %zu): %d\n", global, local, err);
   return err == CL_SUCCESS;
}

/* read_globals of @prog into @got; false when it did not run. */
static bool
read_globals(struct cl *cl, cl_program prog, int64_t *got)
{
   cl_kernel k = clCreateKernel(prog, "read_globals", NULL);
   cl_mem buf = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE, GLOBALS_OUTS * 8, NULL, NULL);
   bool ok = k && buf && clSetKernelArg(k, 0, sizeof(buf), &buf) == CL_SUCCESS &&
             run_kernel_1d(cl, k, 1, 1) &&
             clEnqueueReadBuffer(cl->q, buf, CL_TRUE, 0, GLOBALS_OUTS * 8, got, 0, NULL,
                                 NULL) == CL_SUCCESS;

   if (buf)
      clReleaseMemObject(buf);
   if (k)
      clReleaseKernel(k);
   return ok;
}

static void
report_globals(const char *what, bool ran, const int64_t *got, const int64_t *want)
{
   unsigned bad = 0, first = 0;

   for (unsigned i = 0; ran && i < GLOBALS_OUTS; i++) {
      if (got[i] != want[i] && !bad++)
         first = i;
   }
   cases_in_matrix++;
   if (!ran)
      report(false, "%s: did not run", what);
   else if (bad)
      report(false, "%s: %u wrong, first out[%u] %" PRId64 ", want %" PRId64, what, bad, first,
             got[first], want[first]);
   else
      report(true, "%s", what);
}

static void
run_globals_build(struct cl *cl, unsigned simd, const char *std, const char *tag, bool slice)
{
   static const int64_t initial[GLOBALS_OUTS] = {7, 1, 2, 3, 4, 5, 0, 42, 5, 6, 7, 1};
   cl_program prog = build(cl, globals_source, simd, std);
   cl_program other = build(cl, globals_source, simd, std);
   int64_t got[GLOBALS_OUTS], want[GLOBALS_OUTS];
   size_t size = 0;
   char what[160];

   if (!prog || !other) {
      cases_in_matrix++;
      report(false, "program-scope-globals simd%u: the program did not build%s", simd, tag);
      goto out;
   }
   clGetProgramBuildInfo(prog, cl->dev, CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE,
                         sizeof(size), &size, NULL);
   cases_in_matrix++;
   report(size >= GLOBALS_MIN_SIZE && size <= 2 * GLOBALS_MIN_SIZE,
          "program-scope-globals simd%u CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE %zu (the "
          "variables take %u)%s", simd, size, GLOBALS_MIN_SIZE, tag);

   snprintf(what, sizeof(what), "program-scope-globals simd%u initializers%s", simd, tag);
   report_globals(what, read_globals(cl, prog, got), got, initial);

   /* bump in every shape, then set_big: read_globals, a third kernel, sees
    * what the other two wrote. */
   memcpy(want, initial, sizeof(want));
   cl_kernel bump = clCreateKernel(prog, "bump", NULL);
   cl_kernel set_big = clCreateKernel(prog, "set_big", NULL);
   cl_long big = 0x123456789abcll;
   bool ran = bump && set_big;

   for (unsigned si = 0; ran && si < NUM_CLC20_SHAPES; si++) {
      const struct clc20_shape *s = &clc20_shapes[si];

      if (slice && strcmp(s->name, "1d-partial-sg"))
         continue;
      ran = run_kernel_1d(cl, bump, s->global, s->local);
      want[0] += s->global;
      for (size_t gid = 0; gid < s->global; gid++)
         want[1 + (gid & 3)] += (gid % s->local) % simd + 1;
   }
   ran = ran && clSetKernelArg(set_big, 0, sizeof(big), &big) == CL_SUCCESS &&
         run_kernel_1d(cl, set_big, 64, 64);
   want[6] = big;
   snprintf(what, sizeof(what), "program-scope-globals simd%u shared by the kernels of a "
            "program%s", simd, tag);
   report_globals(what, ran && read_globals(cl, prog, got), got, want);

   /* Another program of the same source has variables of its own. */
   snprintf(what, sizeof(what), "program-scope-globals simd%u another program's own%s", simd,
            tag);
   report_globals(what, read_globals(cl, other, got), got, initial);

   if (bump)
      clReleaseKernel(bump);
   if (set_big)
      clReleaseKernel(set_big);
out:
   if (prog)
      clReleaseProgram(prog);
   if (other)
      clReleaseProgram(other);
}

/* A program that cannot have its variables fails to build with a log
 * saying why, and the device keeps working. */
static void
run_globals_bad_input(struct cl *cl)
{
   static const struct {
      const char *what, *src, *log;
   } bad[] = {
      {"initialized with an address",
       "global int x = 1;\n"
       "global int *p = &x;\n"
       "kernel void k(global int *out) { *out = *p; }\n",
       "initialized with the address of another"},
      {"larger than CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE",
       "global char huge[1 << 20];\n"
       "kernel void k(global int *out) { huge[*out] = 1; *out = huge[1]; }\n",
       "CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE"},
   };

   for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
      const char *src = bad[i].src;
      cl_program p = clCreateProgramWithSource(cl->ctx, 1, &src, NULL, NULL);
      cl_int err = clBuildProgram(p, 1, &cl->dev, "-cl-std=CL2.0", NULL, NULL);
      char log[4096] = "";

      clGetProgramBuildInfo(p, cl->dev, CL_PROGRAM_BUILD_LOG, sizeof(log) - 1, log, NULL);
      cases_in_matrix++;
      report(err == CL_BUILD_PROGRAM_FAILURE && strstr(log, bad[i].log),
             "program-scope-globals bad input: %s: clBuildProgram %d, log %s", bad[i].what, err,
             strstr(log, bad[i].log) ? "says why" : "does not say why");
      if (!strstr(log, bad[i].log))
         fprintf(stderr, "%s\n", log);
      clReleaseProgram(p);
   }
}

static void
run_globals(struct cl *cl, bool slice)
{
   run_globals_build(cl, 8, "-cl-std=CL3.0", "", slice);
   run_globals_build(cl, 16, "-cl-std=CL3.0", "", slice);
   run_globals_build(cl, 32, "-cl-std=CL3.0", "", slice);
   if (slice)
      return;
   run_globals_build(cl, 16, "-cl-std=CL2.0", " [CL2.0]", false);
   run_globals_build(cl, 16, "", " [no -cl-std]", false);
   run_globals_bad_input(cl);
}

/* --- The device's OpenCL C --------------------------------------------------- */

/* What a kernel built with @std sees: __OPENCL_C_VERSION__ and the feature
 * macros of what the device has. */
static const char version_source[] =
   "kernel void version(global int *out)\n"
   "{\n"
   "   out[0] = __OPENCL_C_VERSION__;\n"
   "#ifdef __opencl_c_generic_address_space\n"
   "   out[1] = 1;\n"
   "#else\n"
   "   out[1] = 0;\n"
   "#endif\n"
   "#ifdef cl_khr_subgroups\n"
   "   out[2] = 1;\n"
   "#else\n"
   "   out[2] = 0;\n"
   "#endif\n"
   "}\n";

static void
run_version_kernel(struct cl *cl, const char *std, int want_version)
{
   cl_program prog = build(cl, version_source, 16, std);
   cl_kernel k = prog ? clCreateKernel(prog, "version", NULL) : NULL;
   cl_mem buf = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE, 3 * sizeof(int32_t), NULL, NULL);
   int32_t out[3] = {-1, -1, -1};
   size_t one = 1;
   cl_int err = !k || !buf;

   err = err ? err : clEnqueueWriteBuffer(cl->q, buf, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL);
   err = err ? err : clSetKernelArg(k, 0, sizeof(buf), &buf);
   err = err ? err : clEnqueueNDRangeKernel(cl->q, k, 1, NULL, &one, &one, 0, NULL, NULL);
   err = err ? err : clEnqueueReadBuffer(cl->q, buf, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL);
   cases_in_matrix++;
   report(!err && out[0] == want_version && out[1] == 1 && out[2] == 1,
          "opencl-c %s: __OPENCL_C_VERSION__ %d (want %d), __opencl_c_generic_address_space "
          "%d, cl_khr_subgroups %d", *std ? std : "without -cl-std", out[0], want_version,
          out[1], out[2]);
   if (buf)
      clReleaseMemObject(buf);
   if (k)
      clReleaseKernel(k);
   if (prog)
      clReleaseProgram(prog);
}

/*
 * OpenCL 3.0 (clGetDeviceInfo, CL_DEVICE_OPENCL_C_FEATURES): "the OpenCL C
 * version that introduced the feature macro. For example, if a compiler
 * supports an OpenCL C 3.0 feature, ... the returned version will be
 * 3.0.0."  Every __opencl_c_* feature is OpenCL C 3.0's, but for the
 * integer dot product ones, which cl_khr_integer_dot_product 2.0.0
 * introduced.
 */
static void
run_feature_versions(const cl_name_version *feats, size_t count)
{
   char wrong[1024] = "";
   size_t len = 0, opencl_c = 0;

   for (size_t i = 0; i < count; i++) {
      bool dot_product = !strncmp(feats[i].name, "__opencl_c_integer_dot_product",
                                  strlen("__opencl_c_integer_dot_product"));
      cl_version want = dot_product ? CL_MAKE_VERSION(2, 0, 0) : CL_MAKE_VERSION(3, 0, 0);

      opencl_c += !dot_product;
      if (feats[i].version != want && len < sizeof(wrong)) {
         len += snprintf(wrong + len, sizeof(wrong) - len, " %s %u.%u.%u", feats[i].name,
                         CL_VERSION_MAJOR(feats[i].version), CL_VERSION_MINOR(feats[i].version),
                         CL_VERSION_PATCH(feats[i].version));
      }
   }
   cases_in_matrix++;
   report(opencl_c >= 3 && !wrong[0],
          "opencl-c CL_DEVICE_OPENCL_C_FEATURES: %zu OpenCL C 3.0 features, want 3.0.0, the "
          "integer dot product ones 2.0.0%s%s", opencl_c, wrong[0] ? "; wrong:" : "", wrong);
}

static void
run_version(struct cl *cl)
{
   char version[128] = "";
   cl_name_version all[16], feats[64];
   size_t all_size = 0, feats_size = 0;
   cl_bool generic = CL_FALSE;
   bool has20 = false, has30 = false, has_generic_feature = false;

   clGetDeviceInfo(cl->dev, CL_DEVICE_OPENCL_C_VERSION, sizeof(version) - 1, version, NULL);
   cases_in_matrix++;
   report(!strncmp(version, "OpenCL C 2.0", 12), "opencl-c CL_DEVICE_OPENCL_C_VERSION: \"%s\"",
          version);

   clGetDeviceInfo(cl->dev, CL_DEVICE_OPENCL_C_ALL_VERSIONS, sizeof(all), all, &all_size);
   for (size_t i = 0; i < all_size / sizeof(all[0]); i++) {
      has20 |= all[i].version == CL_MAKE_VERSION(2, 0, 0);
      has30 |= all[i].version == CL_MAKE_VERSION(3, 0, 0);
   }
   cases_in_matrix++;
   report(has20 && has30, "opencl-c CL_DEVICE_OPENCL_C_ALL_VERSIONS has 2.0 and 3.0");

   clGetDeviceInfo(cl->dev, CL_DEVICE_OPENCL_C_FEATURES, sizeof(feats), feats, &feats_size);
   for (size_t i = 0; i < feats_size / sizeof(feats[0]); i++)
      has_generic_feature |= !strcmp(feats[i].name, "__opencl_c_generic_address_space");
   run_feature_versions(feats, feats_size / sizeof(feats[0]));
   clGetDeviceInfo(cl->dev, CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT, sizeof(generic), &generic,
                   NULL);
   cases_in_matrix++;
   report(has_generic_feature && generic,
          "opencl-c __opencl_c_generic_address_space in CL_DEVICE_OPENCL_C_FEATURES, "
          "CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT true");

   run_version_kernel(cl, "", 200);
   run_version_kernel(cl, "-cl-std=CL2.0", 200);
   run_version_kernel(cl, "-cl-std=CL3.0", 300);
}

void
run_clc20(struct cl *cl, bool slice)
{
   run_version(cl);
   run_generic(cl, slice);
   run_globals(cl, slice);
}
