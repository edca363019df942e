/* SPDX-License-Identifier: MIT */
/*
 * What the families of weft-cl-conformance share: the type and shape
 * tables, the work-items of a shape as the device groups them, inputs,
 * kernel source assembly, running a kernel and reporting a case.
 */
#ifndef WEFT_CL_CONFORMANCE_H
#define WEFT_CL_CONFORMANCE_H

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum kind { SINT, UINT, FLT };

struct type {
   const char *name;
   unsigned size;
   enum kind kind;
   bool work_group; /* the work-group collectives are defined on it */
};

/* char, uchar, short, ushort, int, uint, long, ulong, half, float, double */
extern const struct type types[];
extern const unsigned num_types;

struct shape {
   const char *name;
   unsigned dims;
   size_t global[3], local[3];
   /* Enqueued with a NULL local size: @local is the kernel's
    * reqd_work_group_size, which the launch must then use. */
   bool null_local;
};

/* Uniform, partial last sub-group and non-uniform, in 1D, 2D and 3D. */
extern const struct shape shapes[];
extern const unsigned num_shapes;

struct item {
   size_t global_linear; /* index into the buffers */
   unsigned group_linear;
   unsigned lsize[3], lid[3], local_linear, n_local;
   unsigned sg, lane, sg_size, n_sg;
   unsigned enq_lsize[3];
};

struct cl {
   cl_context ctx;
   cl_command_queue q;
   cl_device_id dev;
};

/* Cases counted for the "matrix:" line. */
extern unsigned long long cases_in_matrix;

size_t total_items(const struct shape *s);
/* Calls @fn for each work-group with its items in local linear order, in
 * sub-groups of @simd. */
typedef void (*group_fn)(const struct item *items, unsigned n, void *data);
void for_each_group(const struct shape *s, unsigned simd, group_fn fn, void *data);

/* Deterministic inputs over the type's range; element access. */
void fill(const struct type *t, void *p, size_t n, uint64_t seed);
int64_t get_i(const struct type *t, const void *p, size_t i);
void set_i(const struct type *t, void *p, size_t i, int64_t v);
bool same_bits(const struct type *t, const void *a, size_t ia, const void *b, size_t ib);

char *append(char *src, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Builds @src with -DSIMD=@simd @std; NULL (and the log on stderr) if it fails. */
cl_program build(struct cl *cl, const char *src, unsigned simd, const char *std);
/* Runs kernel @name over @s with @in and @out (filled with 0xa5 first and
 * read back); true when it ran.  @in may be NULL (no input argument). */
bool run(struct cl *cl, cl_program prog, const char *name, const struct shape *s, const void *in,
         size_t in_bytes, void *out, size_t out_bytes);
/* The same with a third argument, @arg of @arg_size bytes. */
bool run_with_arg(struct cl *cl, cl_program prog, const char *name, const struct shape *s,
                  const void *in, size_t in_bytes, void *out, size_t out_bytes, const void *arg,
                  size_t arg_size);
/* One line per case: "ok" or "FAILED", then the text. */
void report(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
double now(void);
/* An API call's error code against the specification's. */
void expect(cl_int got, cl_int want, const char *what);
/* What the driver prints on stderr while a kernel misbehaves on purpose
 * goes to a file instead (the VM tier checks that the suite prints nothing
 * there); stderr_capture_end() restores stderr and gives the first line. */
struct stderr_capture {
   FILE *file;
   int saved;
};
void stderr_capture_begin(struct stderr_capture *c);
void stderr_capture_end(struct stderr_capture *c, char *first_line, size_t size);

/* Runs the part of the suite named @part (one whose kernel never ends) in
 * a process of its own, with the watchdog budget make check gives the
 * suite; its results count as this process's. */
void run_in_own_process(const char *part);
/* IEEE binary16 bits to and from a double (round to nearest even). */
double half_to_double(uint16_t h);
uint16_t double_to_half(double d);

/* weft-cl-conformance-math.c: every math function against the ULP tables. */
void run_math(struct cl *cl, bool slice);

/* weft-cl-clc20.c: OpenCL C 2.0: the device's OpenCL C version and
 * features, generic pointers, program-scope global variables. */
void run_clc20(struct cl *cl, bool slice);

/* weft-cl-conformance-images.c: images, samplers and their API. */
void run_images(struct cl *cl, bool slice);

/* weft-cl-conformance-intel.c: cl_intel_subgroups, _short, _char, _long. */
void run_intel_subgroups(struct cl *cl, bool slice);

/* weft-cl-conformance-enqueue.c: device-side enqueue, the same on both
 * tiers (the VM's slice included). */
void run_enqueue(struct cl *cl);
void run_enqueue_never_ending_child(struct cl *cl);

/* weft-cl-conformance-intel-images.c: their block reads and writes on
 * image2d_t. */
void run_intel_image_blocks(struct cl *cl, bool slice);
/* weft-cl-conformance-pipes.c: the pipe builtins and API. */
void run_pipes(struct cl *cl, bool slice);
void run_pipe_misuse(struct cl *cl);
/* weft-cl-conformance-copies.c: __builtin_memcpy of constant sizes. */
void run_copies(struct cl *cl);
/* weft-cl-conformance-build.c: clBuildProgram with kernels attached to the
 * program, released ones whose commands are pending among them. */
void run_kernels_attached(struct cl *cl);

#endif
