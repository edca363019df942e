// SPDX-License-Identifier: MIT
/*
 * weft-cl-process-test: OpenCL on the Weft GPU across processes and threads.
 * Programs fork in either order of use, end without cleanup (exit, _exit, a
 * signal), share a context among threads, run side by side and beside a
 * process whose kernel faults the GPU or misuses pipes; every kernel's result
 * is checked, and every process must end in time.
 *
 *   weft-cl-process-test [--timeout SECONDS] [NAME...]
 *                                              every test (or the NAMEd ones),
 *                                              each in a process of its own;
 *                                              "N passed, M failed"
 *   weft-cl-process-test --list                the tests' names
 *   weft-cl-process-test --run NAME            one test, in this process
 *
 * A test that does not end within the timeout (default 300 s) is killed with
 * its process group and fails: a hang is a failure, not a stuck run.
 * Run with RUSTICL_ENABLE=weft and OCL_ICD_VENDORS (userspace/cl/run-host
 * sets them, and preloads the drm-shim for the host tier).
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static const char *source =
   "__kernel void fill(__global uint *out, uint seed)\n"
   "{\n"
   "   uint i = get_global_id(0);\n"
   "   out[i] = i * 2654435761u ^ seed;\n"
   "}\n"
   "\n"
   "/* Busy for a while: the signal tests kill a process in the middle of it. */\n"
   "__kernel void spin(__global uint *out, uint rounds)\n"
   "{\n"
   "   uint i = get_global_id(0), x = i;\n"
   "   for (uint r = 0; r < rounds; r++)\n"
   "      x = x * 1664525u + 1013904223u;\n"
   "   out[i] = x;\n"
   "}\n";

#define N 4096

/* One process's (or thread's) use of the device. */
struct cl {
   cl_device_id dev;
   cl_context ctx;
   cl_command_queue queue;
   cl_program prog;
   cl_kernel fill;
   cl_mem buf;
};

static void
say(const char *fmt, ...)
{
   va_list ap;

   va_start(ap, fmt);
   fprintf(stderr, "  [%d] ", (int)getpid());
   vfprintf(stderr, fmt, ap);
   fputc('\n', stderr);
   va_end(ap);
}

static cl_device_id
weft_device(void)
{
   cl_platform_id plats[8];
   cl_uint nplat = 0;

   if (clGetPlatformIDs(8, plats, &nplat))
      return NULL;
   for (cl_uint p = 0; p < nplat; p++) {
      cl_device_id devs[8];
      cl_uint ndev = 0;

      if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 8, devs, &ndev))
         continue;
      for (cl_uint d = 0; d < ndev; d++) {
         char name[256] = "";

         clGetDeviceInfo(devs[d], CL_DEVICE_NAME, sizeof(name), name, NULL);
         if (strstr(name, "Weft"))
            return devs[d];
      }
   }
   return NULL;
}

/* A context of its own on the Weft GPU, with a queue, the program and a buffer. */
static bool
cl_open(struct cl *cl)
{
   cl_int err;

   memset(cl, 0, sizeof(*cl));
   cl->dev = weft_device();
   if (!cl->dev) {
      say("no Weft GPU among the OpenCL devices");
      return false;
   }
   cl->ctx = clCreateContext(NULL, 1, &cl->dev, NULL, NULL, &err);
   if (err) {
      say("clCreateContext: %d", err);
      return false;
   }
   cl->queue = clCreateCommandQueueWithProperties(cl->ctx, cl->dev, NULL, &err);
   if (err) {
      say("clCreateCommandQueueWithProperties: %d", err);
      return false;
   }
   cl->prog = clCreateProgramWithSource(cl->ctx, 1, &source, NULL, &err);
   if (err || clBuildProgram(cl->prog, 1, &cl->dev, "", NULL, NULL)) {
      say("the program does not build");
      return false;
   }
   cl->fill = clCreateKernel(cl->prog, "fill", &err);
   cl->buf = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE, N * 4, NULL, &err);
   if (!cl->fill || !cl->buf) {
      say("kernel or buffer: %d", err);
      return false;
   }
   return true;
}

static void
cl_close(struct cl *cl)
{
   clReleaseMemObject(cl->buf);
   clReleaseKernel(cl->fill);
   clReleaseProgram(cl->prog);
   clReleaseCommandQueue(cl->queue);
   clReleaseContext(cl->ctx);
}

/* Runs fill with @seed on @queue into @buf and checks every element. */
static bool
run_fill_on(cl_command_queue queue, cl_kernel kernel, cl_mem buf, uint32_t seed)
{
   static _Thread_local uint32_t out[N];
   size_t global = N;
   cl_int err;

   memset(out, 0, sizeof(out));
   err = clSetKernelArg(kernel, 0, sizeof(buf), &buf);
   err |= clSetKernelArg(kernel, 1, sizeof(seed), &seed);
   err |= clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL);
   err |= clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL);
   if (err) {
      say("fill (seed %#x): OpenCL error", seed);
      return false;
   }
   for (uint32_t i = 0; i < N; i++) {
      if (out[i] != (i * 2654435761u ^ seed)) {
         say("fill (seed %#x): element %u is %#x, not %#x", seed, i, out[i],
             i * 2654435761u ^ seed);
         return false;
      }
   }
   return true;
}

static bool
run_fill(struct cl *cl, uint32_t seed)
{
   return run_fill_on(cl->queue, cl->fill, cl->buf, seed);
}

/* A whole use of the device in this process: open, @rounds kernels, close. */
static bool
use_device(uint32_t seed, int rounds)
{
   struct cl cl;
   bool ok = cl_open(&cl);

   for (int r = 0; ok && r < rounds; r++)
      ok = run_fill(&cl, seed + r);
   if (ok)
      cl_close(&cl);
   return ok;
}

/* fork() with the child running @fn and ending with _exit (no atexit, no cleanup). */
static pid_t
fork_child(bool (*fn)(void *), void *arg)
{
   pid_t pid = fork();

   if (pid == 0)
      _exit(fn(arg) ? 0 : 1);
   if (pid < 0)
      say("fork: %s", strerror(errno));
   return pid;
}

/* Waits for @pid; true when it exited with 0. */
static bool
child_ok(pid_t pid, const char *what)
{
   int status;

   if (pid < 0 || waitpid(pid, &status, 0) != pid)
      return false;
   if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
      return true;
   if (WIFSIGNALED(status))
      say("%s (pid %d) killed by signal %d", what, (int)pid, WTERMSIG(status));
   else
      say("%s (pid %d) exited with %d", what, (int)pid, WEXITSTATUS(status));
   return false;
}

static bool
child_use_device(void *arg)
{
   return use_device((uint32_t)(uintptr_t)arg, 3);
}

/* Libc calls the drm-shim wraps, made by a process that never uses OpenCL. */
static void
touch_wrapped_libc(void)
{
   int fds[2];
   struct stat st;
   FILE *f;

   if (pipe(fds) == 0) {
      close(fds[0]);
      close(fds[1]);
   }
   stat("/", &st);
   f = fopen("/proc/self/stat", "r");
   if (f)
      fclose(f);
}

/* ---- the tests ----------------------------------------------------------- */

/*
 * The parent never uses OpenCL but makes libc calls between the forks; its
 * children, one after the other, each create a context and end with _exit.
 */
static bool
test_fork_parent_idle(void)
{
   bool ok = true;

   for (uintptr_t c = 0; c < 2; c++) {
      ok &= child_ok(fork_child(child_use_device, (void *)(0x1000 * (c + 1))), "child");
      touch_wrapped_libc();
   }
   return ok;
}

/* As above, with the children running at the same time. */
static bool
test_fork_parent_idle_concurrent(void)
{
   pid_t pids[2];
   bool ok = true;

   touch_wrapped_libc();
   for (uintptr_t c = 0; c < 2; c++)
      pids[c] = fork_child(child_use_device, (void *)(0x2000 * (c + 1)));
   for (int c = 0; c < 2; c++)
      ok &= child_ok(pids[c], "child");
   return ok;
}

/*
 * The parent uses the device, then forks children that use it too (each with
 * a context of its own) while the parent goes on with its own context.
 */
static bool
test_fork_after_parent_use(void)
{
   struct cl cl;
   pid_t pids[2];
   bool ok = cl_open(&cl) && run_fill(&cl, 0x3000);

   if (!ok)
      return false;
   for (uintptr_t c = 0; c < 2; c++)
      pids[c] = fork_child(child_use_device, (void *)(0x3100 * (c + 1)));
   for (uint32_t r = 0; r < 5; r++)
      ok &= run_fill(&cl, 0x3200 + r);
   for (int c = 0; c < 2; c++)
      ok &= child_ok(pids[c], "child");
   ok &= run_fill(&cl, 0x3300);
   cl_close(&cl);
   return ok;
}

/* The child uses the device first; the parent starts while the child runs. */
static bool
test_fork_before_parent_use(void)
{
   pid_t pid = fork_child(child_use_device, (void *)0x4000);
   bool ok = use_device(0x4100, 5);

   return child_ok(pid, "child") && ok;
}

/* A thread of the parent submits all the time while the main thread forks. */
struct spinner {
   struct cl *cl;
   volatile bool stop;
   bool ok;
};

static void *
submit_until_stopped(void *arg)
{
   struct spinner *s = arg;

   for (uint32_t r = 0; s->ok && !s->stop; r++)
      s->ok = run_fill(s->cl, 0x5000 + r);
   return NULL;
}

static bool
test_fork_while_submitting(void)
{
   struct cl cl;
   struct spinner s = { .cl = &cl, .ok = true };
   pthread_t th;
   bool ok = cl_open(&cl);

   if (!ok || pthread_create(&th, NULL, submit_until_stopped, &s))
      return false;
   for (uintptr_t c = 0; c < 2; c++)
      ok &= child_ok(fork_child(child_use_device, (void *)(0x5100 * (c + 1))), "child");
   s.stop = true;
   pthread_join(th, NULL);
   cl_close(&cl);
   return ok && s.ok;
}

/* Independent processes (exec'd, not forked) running at the same time. */
static bool
test_processes_at_once(void)
{
   char exe[4096];
   ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
   pid_t pids[3];
   bool ok = true;

   if (n <= 0)
      return false;
   exe[n] = 0;
   for (int p = 0; p < 3; p++) {
      char seed[16];
      char *argv[] = { exe, "--worker", seed, NULL };

      snprintf(seed, sizeof(seed), "%d", 0x6000 + 0x100 * p);
      if (posix_spawn(&pids[p], exe, NULL, NULL, argv, environ)) {
         say("posix_spawn: %s", strerror(errno));
         pids[p] = -1;
      }
   }
   for (int p = 0; p < 3; p++)
      ok &= child_ok(pids[p], "process");
   return ok;
}

/* Work still queued when the process ends: exit() runs atexit handlers with
 * the driver's threads alive, _exit() runs nothing. */
static bool
child_exit_with_work_queued(void *arg)
{
   struct cl cl;
   size_t global = N;
   uint32_t seed = 0x7000;

   if (!cl_open(&cl) || !run_fill(&cl, seed))
      return false;
   clSetKernelArg(cl.fill, 1, sizeof(seed), &seed);
   for (int k = 0; k < 8; k++)
      clEnqueueNDRangeKernel(cl.queue, cl.fill, 1, NULL, &global, NULL, 0, NULL, NULL);
   clFlush(cl.queue);
   if (arg)
      exit(0);
   _exit(0);
}

static bool
test_exit_without_release(void)
{
   return child_ok(fork_child(child_exit_with_work_queued, (void *)1), "exit() child") &&
          use_device(0x7100, 1);
}

static bool
test_underscore_exit_with_work_queued(void)
{
   return child_ok(fork_child(child_exit_with_work_queued, NULL), "_exit() child") &&
          use_device(0x7200, 1);
}

/* Runs long kernels until killed; writes a byte to @arg's pipe once running. */
static bool
child_spin_forever(void *arg)
{
   int ready = (int)(intptr_t)arg;
   struct cl cl;
   cl_int err;
   cl_kernel spin;
   size_t global = 1024;
   uint32_t rounds = 20000;

   if (!cl_open(&cl))
      return false;
   spin = clCreateKernel(cl.prog, "spin", &err);
   if (!spin)
      return false;
   clSetKernelArg(spin, 0, sizeof(cl.buf), &cl.buf);
   clSetKernelArg(spin, 1, sizeof(rounds), &rounds);
   for (bool told = false;; told = true) {
      clEnqueueNDRangeKernel(cl.queue, spin, 1, NULL, &global, NULL, 0, NULL, NULL);
      clFlush(cl.queue);
      if (!told && write(ready, "r", 1) != 1)
         return false;
      clFinish(cl.queue);
   }
}

/*
 * Processes killed in the middle of their kernels (SIGKILL, SIGTERM) die at
 * once, and harm neither a process running beside them nor the parent.
 */
static bool
test_killed_by_signal(void)
{
   static const int signals[] = { SIGKILL, SIGTERM };
   pid_t victims[2], bystander;
   bool ok = true;

   bystander = fork_child(child_use_device, (void *)0x8000);
   for (int v = 0; v < 2; v++) {
      int fds[2];
      char c;

      if (pipe(fds))
         return false;
      victims[v] = fork_child(child_spin_forever, (void *)(intptr_t)fds[1]);
      close(fds[1]);
      if (read(fds[0], &c, 1) != 1) {
         say("victim %d never ran", v);
         ok = false;
      }
      close(fds[0]);
   }
   for (int v = 0; v < 2; v++) {
      int status;

      kill(victims[v], signals[v]);
      if (waitpid(victims[v], &status, 0) != victims[v] || !WIFSIGNALED(status) ||
          WTERMSIG(status) != signals[v]) {
         say("victim %d did not die of signal %d", v, signals[v]);
         ok = false;
      }
   }
   ok &= child_ok(bystander, "bystander");
   return ok && use_device(0x8100, 2);
}

/* A sub-group block read from an address no buffer maps (cl_intel_subgroups). */
static const char *block_fault_source =
   "__kernel void block_fault(__global uint *out, ulong where)\n"
   "{\n"
   "   out[get_global_id(0)] = intel_sub_group_block_read((const __global uint *)where);\n"
   "}\n";

/* Faults the GPU with a block read outside its VM: true when the kernel's
 * event reports an error and the process's next kernel, on a new queue,
 * runs right. */
static bool
child_block_fault(void *arg)
{
   struct cl cl;
   cl_int err, status = CL_COMPLETE;
   cl_ulong where = 0x7ff000000000ull;
   size_t global = 64;
   cl_program prog;
   cl_kernel k;
   cl_event ev;
   cl_command_queue q2;

   (void)arg;
   if (!cl_open(&cl))
      return false;
   prog = clCreateProgramWithSource(cl.ctx, 1, &block_fault_source, NULL, &err);
   if (err || clBuildProgram(prog, 1, &cl.dev, "-cl-std=CL3.0", NULL, NULL)) {
      say("the block read program does not build");
      return false;
   }
   k = clCreateKernel(prog, "block_fault", &err);
   if (!k || clSetKernelArg(k, 0, sizeof(cl.buf), &cl.buf) ||
       clSetKernelArg(k, 1, sizeof(where), &where) ||
       clEnqueueNDRangeKernel(cl.queue, k, 1, NULL, &global, &global, 0, NULL, &ev))
      return false;
   clFinish(cl.queue);
   clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL);
   if (status >= 0) {
      say("the faulting kernel's event reports %d, not an error", status);
      return false;
   }
   q2 = clCreateCommandQueueWithProperties(cl.ctx, cl.dev, NULL, &err);
   return q2 && run_fill_on(q2, cl.fill, cl.buf, 0xb10c);
}

/*
 * A process whose kernel faults the GPU (a block read outside its VM) sees
 * the error on its own queue; a process running beside it and the parent
 * are not disturbed.
 */
static bool
test_block_fault_in_another_process(void)
{
   pid_t bystander = fork_child(child_use_device, (void *)0xa000);
   bool ok = child_ok(fork_child(child_block_fault, NULL), "faulting child");

   ok &= child_ok(bystander, "bystander");
   return ok && use_device(0xa100, 2);
}

/* Pipes: a producer and a consumer of one packet per work-item, and kernels
 * that misuse reservations (Documentation/gpu/weft/pipes.rst, "Misuse"). */
static const char *pipe_source =
   "kernel void produce(write_only pipe uint p, uint base, global int *st)\n"
   "{\n"
   "   uint v = base + (uint)get_global_id(0);\n"
   "   st[get_global_id(0)] = write_pipe(p, &v);\n"
   "}\n"
   "kernel void consume(read_only pipe uint p, global uint *got, global int *st)\n"
   "{\n"
   "   uint v = 0;\n"
   "   st[get_global_id(0)] = read_pipe(p, &v);\n"
   "   got[get_global_id(0)] = v;\n"
   "}\n"
   "kernel void commit_twice(write_only pipe uint p)\n"
   "{\n"
   "   uint v = 7;\n"
   "   reserve_id_t r = reserve_write_pipe(p, 1);\n"
   "   if (is_valid_reserve_id(r))\n"
   "      write_pipe(p, r, 0, &v);\n"
   "   commit_write_pipe(p, r);\n"
   "   commit_write_pipe(p, r);\n"
   "}\n"
   "kernel void never_commit(write_only pipe uint p)\n"
   "{\n"
   "   uint v = 9;\n"
   "   reserve_id_t r = reserve_write_pipe(p, 1);\n"
   "   if (is_valid_reserve_id(r))\n"
   "      write_pipe(p, r, 0, &v);\n"
   "}\n"
   "kernel void wait_for_a_packet(read_only pipe uint p, global uint *got)\n"
   "{\n"
   "   uint v = 0;\n"
   "   while (read_pipe(p, &v) != 0)\n"
   "      ;\n"
   "   got[0] = v;\n"
   "}\n";

#define PIPE_PACKETS 1024

static cl_program
build_pipe_program(struct cl *cl)
{
   cl_int err;
   cl_program prog = clCreateProgramWithSource(cl->ctx, 1, &pipe_source, NULL, &err);

   if (err || clBuildProgram(prog, 1, &cl->dev, "-cl-std=CL2.0", NULL, NULL)) {
      say("the pipe program does not build");
      return NULL;
   }
   return prog;
}

/* Runs @name of @prog over @global work-items with @args (cl_mem, or a uint
 * where @base_arg says) on @cl's queue; the kernel's event status. */
static cl_int
run_pipe_kernel(struct cl *cl, cl_program prog, const char *name, size_t global,
                const cl_mem *args, unsigned nargs, int base_arg, cl_uint base)
{
   cl_int err, status = CL_COMPLETE;
   cl_kernel k = clCreateKernel(prog, name, &err);
   cl_event ev = NULL;

   for (unsigned a = 0; k && !err && a < nargs; a++)
      err = (int)a == base_arg ? clSetKernelArg(k, a, sizeof(base), &base)
                               : clSetKernelArg(k, a, sizeof(cl_mem), &args[a]);
   if (!err)
      err = clEnqueueNDRangeKernel(cl->queue, k, 1, NULL, &global, NULL, 0, NULL, &ev);
   if (k)
      clReleaseKernel(k);
   if (err) {
      say("%s: OpenCL error %d", name, err);
      return err;
   }
   clWaitForEvents(1, &ev);
   clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL);
   clReleaseEvent(ev);
   return status;
}

/* One round of a pipe pair: PIPE_PACKETS packets from @base written by a
 * producer kernel, then read by a consumer kernel; every one read once. */
static bool
pipe_round(struct cl *cl, cl_program prog, cl_mem pipe, cl_mem st, cl_mem got, uint32_t base)
{
   static int32_t status[PIPE_PACKETS];
   static uint32_t value[PIPE_PACKETS];
   static uint8_t seen[PIPE_PACKETS];
   const cl_mem produce[3] = {pipe, NULL, st}, consume[3] = {pipe, got, st};

   if (run_pipe_kernel(cl, prog, "produce", PIPE_PACKETS, produce, 3, 1, base) != CL_COMPLETE ||
       clEnqueueReadBuffer(cl->queue, st, CL_TRUE, 0, sizeof(status), status, 0, NULL, NULL))
      return false;
   for (unsigned i = 0; i < PIPE_PACKETS; i++) {
      if (status[i]) {
         say("pipe round %#x: write %u returned %d", base, i, status[i]);
         return false;
      }
   }
   if (run_pipe_kernel(cl, prog, "consume", PIPE_PACKETS, consume, 3, -1, 0) != CL_COMPLETE ||
       clEnqueueReadBuffer(cl->queue, st, CL_TRUE, 0, sizeof(status), status, 0, NULL, NULL) ||
       clEnqueueReadBuffer(cl->queue, got, CL_TRUE, 0, sizeof(value), value, 0, NULL, NULL))
      return false;
   memset(seen, 0, sizeof(seen));
   for (unsigned i = 0; i < PIPE_PACKETS; i++) {
      uint32_t k = value[i] - base;

      if (status[i] || k >= PIPE_PACKETS || seen[k]++) {
         say("pipe round %#x: read %u returned %d, packet %#x", base, i, status[i], value[i]);
         return false;
      }
   }
   return true;
}

struct pipe_pair {
   uint32_t seed;
   int until_closed; /* read end of a pipe(2): run rounds until its writer is gone */
   int other_end;    /* its write end, closed here */
};

/* Rounds of a producer/consumer pair through one OpenCL pipe, at least two,
 * until the write end of @until_closed is closed (or a minute passed). */
static bool
child_pipe_pair(void *arg)
{
   const struct pipe_pair *pp = arg;
   struct cl cl;
   cl_program prog;
   cl_int err;
   unsigned rounds = 0;
   bool ok;

   if (pp->other_end >= 0)
      close(pp->other_end);
   if (!cl_open(&cl) || !(prog = build_pipe_program(&cl)))
      return false;
   cl_mem pipe = clCreatePipe(cl.ctx, 0, 4, PIPE_PACKETS, NULL, &err);
   cl_mem st = clCreateBuffer(cl.ctx, CL_MEM_READ_WRITE, PIPE_PACKETS * 4, NULL, &err);
   cl_mem got = clCreateBuffer(cl.ctx, CL_MEM_READ_WRITE, PIPE_PACKETS * 4, NULL, &err);
   time_t start = time(NULL);

   ok = pipe && st && got;
   while (ok) {
      ok = pipe_round(&cl, prog, pipe, st, got, pp->seed + rounds * PIPE_PACKETS);
      rounds += ok;
      if (rounds >= 2 && (pp->until_closed < 0 || time(NULL) - start > 60))
         break;
      if (pp->until_closed >= 0) {
         struct pollfd pfd = {.fd = pp->until_closed, .events = POLLIN};
         char c;

         if (rounds >= 2 && poll(&pfd, 1, 0) == 1 && read(pp->until_closed, &c, 1) == 0)
            break;
      }
   }
   if (!ok)
      say("the pipe pair failed in round %u", rounds);
   return ok;
}

/* Misuses pipes: a reservation committed twice, one never committed, then a
 * kernel that waits forever on an empty pipe, which the watchdog ends.  True
 * when that kernel's event reports an error and the others completed. */
static bool
child_pipe_misuse(void *arg)
{
   const int *ends = arg;
   struct cl cl;
   cl_program prog;
   cl_int err;

   close(ends[0]);
   /* On the drm-shim the watchdog is this process's model's, set when its
    * device starts (below): the one make check's conformance run uses, not
    * minutes.  (In a VM weft.ko's job timeout ends the kernel.) */
   setenv("WEFT_SHIM_WATCHDOG", "0x4000000", 0);
   if (!cl_open(&cl) || !(prog = build_pipe_program(&cl)))
      return false;
   cl_mem twice = clCreatePipe(cl.ctx, 0, 4, 64, NULL, &err);
   cl_mem never = clCreatePipe(cl.ctx, 0, 4, 64, NULL, &err);
   cl_mem empty = clCreatePipe(cl.ctx, 0, 4, 64, NULL, &err);

   if (!twice || !never || !empty)
      return false;
   if (run_pipe_kernel(&cl, prog, "commit_twice", 64, &twice, 1, -1, 0) != CL_COMPLETE ||
       run_pipe_kernel(&cl, prog, "never_commit", 64, &never, 1, -1, 0) != CL_COMPLETE) {
      say("a kernel misusing reservations did not complete");
      return false;
   }
   const cl_mem wait_args[2] = {empty, cl.buf};
   cl_int status = run_pipe_kernel(&cl, prog, "wait_for_a_packet", 1, wait_args, 2, -1, 0);
   if (status >= 0) {
      say("the kernel waiting on an empty pipe reports %d, not an error", status);
      return false;
   }
   return true;
}

/*
 * A process whose kernels commit reservations twice, never commit them and
 * wait forever on an empty pipe (ended by the watchdog) harms neither a
 * process moving packets through a pipe of its own all the while nor the
 * parent's pipe afterwards.
 */
static bool
test_pipe_misuse_in_another_process(void)
{
   int ends[2];

   if (pipe(ends)) {
      say("pipe: %s", strerror(errno));
      return false;
   }
   struct pipe_pair beside = {0xc0000000u, ends[0], ends[1]};
   pid_t misuser = fork_child(child_pipe_misuse, ends);
   pid_t bystander = fork_child(child_pipe_pair, &beside);
   struct pipe_pair after = {0xd0000000u, -1, -1};
   bool ok;

   close(ends[0]);
   close(ends[1]);
   ok = child_ok(misuser, "misusing child");
   ok &= child_ok(bystander, "pipe pair beside it");
   return ok && child_pipe_pair(&after);
}

/* Threads sharing one context: each its own queue, or all one queue. */
struct sharer {
   struct cl *cl;
   cl_command_queue queue;
   uint32_t seed;
   bool ok;
};

static void *
share_context(void *arg)
{
   struct sharer *s = arg;
   cl_int err;
   /* clSetKernelArg is not thread-safe on one cl_kernel: a kernel each. */
   cl_kernel fill = clCreateKernel(s->cl->prog, "fill", &err);
   cl_mem buf = clCreateBuffer(s->cl->ctx, CL_MEM_READ_WRITE, N * 4, NULL, &err);

   s->ok = fill && buf;
   for (uint32_t r = 0; s->ok && r < 10; r++)
      s->ok = run_fill_on(s->queue, fill, buf, s->seed + r);
   clReleaseMemObject(buf);
   clReleaseKernel(fill);
   return NULL;
}

static bool
threads_share(bool one_queue)
{
   enum { THREADS = 8 };
   struct sharer s[THREADS];
   pthread_t th[THREADS];
   struct cl cl;
   bool ok = cl_open(&cl);

   for (int t = 0; ok && t < THREADS; t++) {
      cl_int err = 0;

      s[t] = (struct sharer){ .cl = &cl, .seed = 0x9000 + 0x100 * t };
      s[t].queue = one_queue ? cl.queue :
                   clCreateCommandQueueWithProperties(cl.ctx, cl.dev, NULL, &err);
      ok = !err && !pthread_create(&th[t], NULL, share_context, &s[t]);
      if (!ok)
         return false;
   }
   for (int t = 0; t < THREADS; t++) {
      pthread_join(th[t], NULL);
      ok &= s[t].ok;
      if (!one_queue)
         clReleaseCommandQueue(s[t].queue);
   }
   cl_close(&cl);
   return ok;
}

static bool
test_threads_share_context(void)
{
   return threads_share(false);
}

static bool
test_threads_share_queue(void)
{
   return threads_share(true);
}

static const struct test {
   const char *name;
   bool (*fn)(void);
} tests[] = {
   { "fork-parent-idle", test_fork_parent_idle },
   { "fork-parent-idle-concurrent", test_fork_parent_idle_concurrent },
   { "fork-after-parent-use", test_fork_after_parent_use },
   { "fork-before-parent-use", test_fork_before_parent_use },
   { "fork-while-submitting", test_fork_while_submitting },
   { "processes-at-once", test_processes_at_once },
   { "exit-without-release", test_exit_without_release },
   { "underscore-exit-with-work-queued", test_underscore_exit_with_work_queued },
   { "killed-by-signal", test_killed_by_signal },
   { "block-fault-in-another-process", test_block_fault_in_another_process },
   { "pipe-misuse-in-another-process", test_pipe_misuse_in_another_process },
   { "threads-share-context", test_threads_share_context },
   { "threads-share-queue", test_threads_share_queue },
};

static const struct test *
find_test(const char *name)
{
   for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
      if (!strcmp(name, tests[i].name))
         return &tests[i];
   }
   return NULL;
}

static double
now(void)
{
   struct timespec ts;

   clock_gettime(CLOCK_MONOTONIC, &ts);
   return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Runs one test in a process of its own (and process group, so that a hang
 * kills everything it started); false when it fails or outlives @timeout.
 */
static bool
run_isolated(const char *exe, const struct test *t, double timeout, double *took)
{
   char *argv[] = { (char *)exe, "--run", (char *)t->name, NULL };
   posix_spawnattr_t attr;
   double start = now();
   int status;
   pid_t pid;

   posix_spawnattr_init(&attr);
   posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
   posix_spawnattr_setpgroup(&attr, 0);
   if (posix_spawn(&pid, exe, NULL, &attr, argv, environ)) {
      say("posix_spawn %s: %s", exe, strerror(errno));
      return false;
   }
   posix_spawnattr_destroy(&attr);
   for (;;) {
      pid_t got = waitpid(pid, &status, WNOHANG);

      *took = now() - start;
      if (got == pid)
         break;
      if (*took > timeout) {
         kill(-pid, SIGKILL);
         waitpid(pid, &status, 0);
         say("%s: no end after %.0f s: killed", t->name, timeout);
         return false;
      }
      usleep(20000);
   }
   /* Whatever the test left behind goes too. */
   kill(-pid, SIGKILL);
   return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int
main(int argc, char **argv)
{
   char exe[4096];
   ssize_t len;
   double timeout = 300;
   int passed = 0, failed = 0;

   if (argc == 2 && !strcmp(argv[1], "--list")) {
      for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
         puts(tests[i].name);
      return 0;
   }
   if (argc == 3 && !strcmp(argv[1], "--run")) {
      const struct test *t = find_test(argv[2]);

      if (!t) {
         fprintf(stderr, "no test %s (--list names them)\n", argv[2]);
         return 2;
      }
      return t->fn() ? 0 : 1;
   }
   /* One of test_processes_at_once's processes. */
   if (argc == 3 && !strcmp(argv[1], "--worker"))
      return use_device(strtoul(argv[2], NULL, 0), 5) ? 0 : 1;
   int first_name = 1;
   if (argc >= 3 && !strcmp(argv[1], "--timeout")) {
      timeout = atof(argv[2]);
      first_name = 3;
   }
   for (int a = first_name; a < argc; a++) {
      if (!find_test(argv[a])) {
         fprintf(stderr, "usage: %s [--timeout SECONDS] [NAME...] | --list | --run NAME\n"
                 "no test %s (--list names them)\n", argv[0], argv[a]);
         return 2;
      }
   }

   len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
   if (len <= 0)
      return 2;
   exe[len] = 0;
   for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
      double took = 0;
      bool named = first_name == argc;

      for (int a = first_name; a < argc; a++)
         named |= !strcmp(argv[a], tests[i].name);
      if (!named)
         continue;
      bool ok = run_isolated(exe, &tests[i], timeout, &took);

      printf("%-7s %s (%.1f s)\n", ok ? "ok" : "FAILED", tests[i].name, took);
      fflush(stdout);
      ok ? passed++ : failed++;
   }
   printf("%d passed, %d failed\n", passed, failed);
   return failed ? 1 : 0;
}
