/* SPDX-License-Identifier: MIT */
/*
 * What the families of weft-cl-conformance share: the device, kernel
 * source assembly, building a program and reporting a case.
 */
#ifndef WEFT_CL_CONFORMANCE_H
#define WEFT_CL_CONFORMANCE_H

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cl {
   cl_context ctx;
   cl_command_queue q;
   cl_device_id dev;
};

/* Cases counted for the "matrix:" line. */
extern unsigned long long cases_in_matrix;

char *append(char *src, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Builds @src with -DSIMD=@simd @std; NULL (and the log on stderr) if it fails. */
cl_program build(struct cl *cl, const char *src, unsigned simd, const char *std);
/* One line per case: "ok" or "FAILED", then the text. */
void report(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
double now(void);
/* An API call's error code against the specification's. */
void expect(cl_int got, cl_int want, const char *what);
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

#endif
