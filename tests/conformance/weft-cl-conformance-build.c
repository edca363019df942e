// SPDX-License-Identifier: MIT
/*
 * clBuildProgram and the kernels attached to a program: it returns
 * CL_INVALID_OPERATION "if there are kernel objects attached to program".
 * A kernel the application released while its command was still pending
 * is attached until the command completes; clBuildProgram blocks, so it
 * may wait for that command (piglit's api/clcreateprogramwithbinary counts
 * on it), but never for a command behind a user event the application has
 * not set: the application, blocked in clBuildProgram, might never set it.
 * A watchdog thread sets such an event after WATCHDOG_SECONDS, so a build
 * that waits fails its case instead of hanging the suite.
 */
#include "weft-cl-conformance.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WATCHDOG_SECONDS 20
#define ITEMS 64

static const char *fill_src = "__kernel void fill(__global uint *out, uint v)\n"
                              "{ out[get_global_id(0)] = v + get_global_id(0); }\n";

struct watchdog {
   pthread_t thread;
   pthread_mutex_t lock;
   pthread_cond_t cond;
   bool done, fired;
   cl_event user_event;
};

static void *
watchdog_main(void *data)
{
   struct watchdog *w = data;
   struct timespec deadline;

   clock_gettime(CLOCK_REALTIME, &deadline);
   deadline.tv_sec += WATCHDOG_SECONDS;
   pthread_mutex_lock(&w->lock);
   while (!w->done && !w->fired) {
      if (pthread_cond_timedwait(&w->cond, &w->lock, &deadline))
         w->fired = true;
   }
   pthread_mutex_unlock(&w->lock);
   if (w->fired)
      clSetUserEventStatus(w->user_event, CL_COMPLETE);
   return NULL;
}

static bool
watchdog_start(struct watchdog *w, cl_event user_event)
{
   memset(w, 0, sizeof(*w));
   w->user_event = user_event;
   pthread_mutex_init(&w->lock, NULL);
   pthread_cond_init(&w->cond, NULL);
   return !pthread_create(&w->thread, NULL, watchdog_main, w);
}

/* Whether it had to set the user event. */
static bool
watchdog_stop(struct watchdog *w)
{
   pthread_mutex_lock(&w->lock);
   w->done = true;
   pthread_cond_signal(&w->cond);
   pthread_mutex_unlock(&w->lock);
   pthread_join(w->thread, NULL);
   pthread_mutex_destroy(&w->lock);
   pthread_cond_destroy(&w->cond);
   return w->fired;
}

/* A program of fill_src created from its binary, as piglit's test makes it,
 * and built. */
static cl_program
binary_program(struct cl *cl)
{
   cl_program src = build(cl, fill_src, 16, "");
   cl_program bin = NULL;
   unsigned char *binary = NULL;
   size_t size = 0;
   cl_int status, err;

   if (!src)
      return NULL;
   if (!clGetProgramInfo(src, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, NULL) && size) {
      binary = malloc(size);
      if (!clGetProgramInfo(src, CL_PROGRAM_BINARIES, sizeof(binary), &binary, NULL))
         bin = clCreateProgramWithBinary(cl->ctx, 1, &cl->dev, &size,
                                         (const unsigned char **)&binary, &status, &err);
   }
   free(binary);
   clReleaseProgram(src);
   if (bin && clBuildProgram(bin, 1, &cl->dev, "", NULL, NULL) != CL_SUCCESS) {
      clReleaseProgram(bin);
      bin = NULL;
   }
   return bin;
}

/* Enqueues fill(@out, @v) on @q after @wait (NULL: nothing), and releases
 * the kernel unless @keep is set; the kernel or NULL. */
static cl_kernel
enqueue_fill(cl_command_queue q, cl_program p, cl_mem out, cl_uint v, const cl_event *wait,
             bool keep, cl_int *err)
{
   size_t global = ITEMS;
   cl_kernel k = clCreateKernel(p, "fill", err);

   if (!k)
      return NULL;
   clSetKernelArg(k, 0, sizeof(out), &out);
   clSetKernelArg(k, 1, sizeof(v), &v);
   *err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, wait ? 1 : 0, wait, NULL);
   if (keep)
      return k;
   clReleaseKernel(k);
   return NULL;
}

/* @out holds fill(@v) */
static bool
filled_with(struct cl *cl, cl_mem out, cl_uint v)
{
   cl_uint got[ITEMS];

   if (clEnqueueReadBuffer(cl->q, out, CL_TRUE, 0, sizeof(got), got, 0, NULL, NULL))
      return false;
   for (unsigned i = 0; i < ITEMS; i++) {
      if (got[i] != v + i)
         return false;
   }
   return true;
}

/* A released kernel whose command waits on a user event, itself (@via
 * "wait list"), behind another command of its queue that does ("queue
 * order"), or through the event of another queue's command that does
 * ("another queue"): clBuildProgram returns CL_INVALID_OPERATION without
 * waiting; once the event is set and the commands are done, it builds. */
static void
run_behind_user_event(struct cl *cl, cl_program p, cl_mem out, const char *via)
{
   cl_int err;
   cl_event user = clCreateUserEvent(cl->ctx, &err), other = NULL;
   cl_command_queue q2 = clCreateCommandQueueWithProperties(cl->ctx, cl->dev, NULL, &err);
   struct watchdog w;
   double t0;
   bool fired;
   cl_int built;

   if (!user || !q2 || !watchdog_start(&w, user)) {
      cases_in_matrix++;
      report(false, "api clBuildProgram, a released kernel behind a user event (%s): setup", via);
      return;
   }
   if (!strcmp(via, "wait list")) {
      enqueue_fill(cl->q, p, out, 7, &user, false, &err);
   } else if (!strcmp(via, "queue order")) {
      enqueue_fill(cl->q, p, out, 5, &user, false, &err);
      clFlush(cl->q);
      enqueue_fill(cl->q, p, out, 7, NULL, false, &err);
   } else {
      err = clEnqueueMarkerWithWaitList(q2, 1, &user, &other);
      clFlush(q2);
      enqueue_fill(cl->q, p, out, 7, &other, false, &err);
   }
   t0 = now();
   built = clBuildProgram(p, 1, &cl->dev, "", NULL, NULL);
   fired = watchdog_stop(&w);
   cases_in_matrix++;
   report(built == CL_INVALID_OPERATION && !fired,
          "api clBuildProgram, a released kernel behind an unset user event (%s): %d in %.1f s "
          "(want %d, without waiting for the event)",
          via, built, now() - t0, CL_INVALID_OPERATION);

   clSetUserEventStatus(user, CL_COMPLETE);
   clFinish(cl->q);
   clFinish(q2);
   expect(clBuildProgram(p, 1, &cl->dev, "", NULL, NULL), CL_SUCCESS,
          "clBuildProgram once the user event is set and the command done");
   cases_in_matrix++;
   report(filled_with(cl, out, 7), "api the command behind the user event (%s) ran", via);
   if (other)
      clReleaseEvent(other);
   clReleaseEvent(user);
   clReleaseCommandQueue(q2);
}

void
run_kernels_attached(struct cl *cl)
{
   cl_int err;
   cl_program p = binary_program(cl);
   cl_mem out = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE, ITEMS * sizeof(cl_uint), NULL, &err);
   cl_kernel held;

   if (!p || !out) {
      cases_in_matrix++;
      report(false, "api clBuildProgram with kernels attached: setup failed (%d)", err);
      return;
   }

   /* piglit's sequence: the command is neither flushed nor waited for. */
   enqueue_fill(cl->q, p, out, 1000, NULL, false, &err);
   expect(clBuildProgram(p, 1, &cl->dev, "", NULL, NULL), CL_SUCCESS,
          "clBuildProgram of a binary program after its kernel's command, kernel released");
   cases_in_matrix++;
   report(filled_with(cl, out, 1000), "api the released kernel's command ran before the build");

   run_behind_user_event(cl, p, out, "wait list");
   run_behind_user_event(cl, p, out, "queue order");
   run_behind_user_event(cl, p, out, "another queue");

   /* A kernel the application holds stays attached, its command done or not. */
   held = enqueue_fill(cl->q, p, out, 2000, NULL, true, &err);
   expect(clBuildProgram(p, 1, &cl->dev, "", NULL, NULL), CL_INVALID_OPERATION,
          "clBuildProgram with a kernel the application holds, its command pending");
   clFinish(cl->q);
   expect(clBuildProgram(p, 1, &cl->dev, "", NULL, NULL), CL_INVALID_OPERATION,
          "clBuildProgram with a kernel the application holds, its command done");
   if (held)
      clReleaseKernel(held);
   expect(clBuildProgram(p, 1, &cl->dev, "", NULL, NULL), CL_SUCCESS,
          "clBuildProgram once the application released it");
   cases_in_matrix++;
   report(filled_with(cl, out, 2000), "api the held kernel's command ran");

   clReleaseMemObject(out);
   clReleaseProgram(p);
}
