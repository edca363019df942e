// SPDX-License-Identifier: MIT
/*
 * opencl: the same OpenCL C kernels (the .cl files in bench/opencl) through Rusticl on
 * the Weft GPU and through PoCL, in one process, the two devices alternating
 * run by run; every result of both is checked against C.  Both platforms
 * come through the ICD loader, chosen by name (bench/run-opencl sets up the
 * loader and the weft drm-shim).
 *
 * A kernel that needs what a device does not report (sub-groups, work-group
 * collectives, cl_intel_subgroups), or that the device fails to build, is
 * "n/a (reason)" for that device.  Where PoCL cannot run a builtin kernel,
 * its ratio is taken against PoCL's own version of the same job (the column
 * "vs").  Times are wall-clock from enqueue to clFinish, median of --reps
 * after a warm-up of --warmup seconds per device and kernel.  Then clEnqueueMapBuffer on both: the data through
 * maps both ways, whether a map is in place (Weft's must be), and the time
 * of a blocking map for reading.
 *
 * Usage: opencl [--quick] [--reps N] [--warmup SECONDS] [--elems N] [--side N]
 *               [--gemm N] [--kernel SUBSTR] [--data FILE] [--kernels DIR]
 *   --quick    tiny sizes, one run: a correctness test ("N passed, M failed");
 *              a wrong result, or a kernel Weft should build but does not,
 *              fails it
 *   --warmup   seconds each device runs each kernel, at least once, before the
 *              timed runs (1): the steady state of a program that runs it often
 *   --elems    elements of the 1D kernels (multiple of 1024; 2^24)
 *   --side     side of the 2D kernels' square grids (multiple of 16; 4096)
 *   --gemm     side of the SGEMM matrices (multiple of 16; 512)
 *   --data     also writes "kernel ratio weft_gbs pocl_gbs" lines for gnuplot
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>

#ifndef KERNEL_DIR
#define KERNEL_DIR "bench/opencl"
#endif
#define MAX_REPS	101
#define MAX_BUFS	3

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * CPU time others took while the timed runs ran: the machine's busy time
 * (hypervisor steal included) less this process's.  Both devices run on
 * the same CPUs, so a busy machine slows them both and their ratio little,
 * but each one's GB/s much.
 */
static struct {
	double others, available;
} contention;

/* Busy CPU seconds of the whole machine and of this process; false when /proc cannot tell. */
static bool cpu_busy(double *machine, double *self)
{
	unsigned long long user, nice, sys, idle, iowait, irq, softirq, steal;
	struct timespec ts;
	FILE *f = fopen("/proc/stat", "r");
	bool ok;

	if (!f)
		return false;
	ok = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &user, &nice, &sys, &idle,
		    &iowait, &irq, &softirq, &steal) == 8;
	fclose(f);
	if (!ok || clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
		return false;
	*machine = (double)(user + nice + sys + irq + softirq + steal) / sysconf(_SC_CLK_TCK);
	*self = ts.tv_sec + ts.tv_nsec * 1e-9;
	return true;
}

static void *spin(void *arg)
{
	volatile uint64_t x = 0;

	for (uint64_t i = 0; i < 50000000; i++)
		x += i;
	return arg;
}

/*
 * How many of its @n CPUs at once the host gives this machine now: the same
 * spin on every CPU at once against one alone.  A host that runs the virtual
 * CPUs on fewer cores shows in neither steal time nor other processes.  -1
 * if a spinning thread did not start.
 */
static double cpus_at_once(long n)
{
	pthread_t th[64];
	double one, all;
	long k, started;

	if (n < 2 || n > 64)
		return n;
	one = now();
	spin(NULL);
	one = now() - one;
	all = now();
	for (k = 0; k < n && !pthread_create(&th[k], NULL, spin, NULL); k++)
		;
	started = k;
	while (k--)
		pthread_join(th[k], NULL);
	all = now() - all;
	if (started < n)
		return -1;
	return n * one / all > n ? n : n * one / all;
}

static void print_cpus_at_once(double start, double end, long n)
{
	if (start < 0 || end < 0) {
		printf("CPUs a spin loop got at once: unknown (a spinning thread did not start)\n");
		return;
	}
	printf("CPUs a spin loop got at once: %.2f at the start, %.2f at the end, of %ld%s\n", start, end,
	       n, start < 0.9 * n || end < 0.9 * n ?
	       " (the host runs them on fewer cores: each device's GB/s is lower)" : "");
}

static void *xmalloc(size_t bytes)
{
	void *p = malloc(bytes ? bytes : 1);

	if (!p) {
		fprintf(stderr, "opencl: out of memory (%zu bytes)\n", bytes);
		exit(2);
	}
	return p;
}

/* ----------------------------------------------------------- devices */

enum need { NEED_NOTHING, NEED_SUBGROUPS, NEED_WG_COLLECTIVES, NEED_INTEL_SUBGROUPS };

static const char *const need_name[] = {
	[NEED_SUBGROUPS] = "sub-groups",
	[NEED_WG_COLLECTIVES] = "work-group collectives",
	[NEED_INTEL_SUBGROUPS] = "cl_intel_subgroups",
};

struct device {
	const char *label;		/* in the table */
	const char *platform;		/* a substring of CL_PLATFORM_NAME */
	const char *device;		/* a substring of CL_DEVICE_NAME, or NULL */
	bool present;
	cl_device_id id;
	cl_context ctx;
	cl_command_queue q;
	char name[256], version[128];
	bool has[4];			/* by enum need */
	bool cl30;			/* builds with -cl-std=CL3.0 */
};

static struct device devices[] = {
	{ .label = "Weft", .platform = "rusticl", .device = "Weft" },
	{ .label = "PoCL", .platform = "Portable Computing Language" },
};
#define WEFT	(&devices[0])
#define NDEV	(sizeof(devices) / sizeof(devices[0]))

static bool listed(const char *list, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += len)
		if ((p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0'))
			return true;
	return false;
}

static void device_probe(struct device *d, cl_platform_id plat)
{
	char ext[8192] = "", features[8192] = "";
	cl_name_version cver[16], feat[64];
	size_t bytes = 0;
	cl_bool collectives = CL_FALSE;
	cl_int err;

	clGetDeviceInfo(d->id, CL_DEVICE_NAME, sizeof(d->name), d->name, NULL);
	clGetDeviceInfo(d->id, CL_DEVICE_VERSION, sizeof(d->version), d->version, NULL);
	clGetDeviceInfo(d->id, CL_DEVICE_EXTENSIONS, sizeof(ext), ext, NULL);
	if (clGetDeviceInfo(d->id, CL_DEVICE_OPENCL_C_ALL_VERSIONS, sizeof(cver), cver,
			    &bytes) == CL_SUCCESS)
		for (size_t i = 0; i < bytes / sizeof(cver[0]); i++)
			d->cl30 |= CL_VERSION_MAJOR(cver[i].version) >= 3;
	bytes = 0;
	if (d->cl30 && clGetDeviceInfo(d->id, CL_DEVICE_OPENCL_C_FEATURES, sizeof(feat), feat,
				       &bytes) == CL_SUCCESS)
		for (size_t i = 0; i < bytes / sizeof(feat[0]); i++) {
			strncat(features, feat[i].name, sizeof(features) - strlen(features) - 2);
			strcat(features, " ");
		}
	clGetDeviceInfo(d->id, CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT,
			sizeof(collectives), &collectives, NULL);
	d->has[NEED_NOTHING] = true;
	d->has[NEED_SUBGROUPS] = listed(ext, "cl_khr_subgroups") ||
				 listed(features, "__opencl_c_subgroups");
	d->has[NEED_WG_COLLECTIVES] = collectives ||
				      listed(features, "__opencl_c_work_group_collective_functions");
	d->has[NEED_INTEL_SUBGROUPS] = listed(ext, "cl_intel_subgroups");

	d->ctx = clCreateContext((cl_context_properties[]){ CL_CONTEXT_PLATFORM,
		(cl_context_properties)plat, 0 }, 1, &d->id, NULL, NULL, &err);
	if (err == CL_SUCCESS)
		d->q = clCreateCommandQueueWithProperties(d->ctx, d->id, NULL, &err);
	d->present = err == CL_SUCCESS;
	if (!d->present)
		fprintf(stderr, "opencl: %s: no context or queue (%d)\n", d->label, err);
}

static void devices_find(void)
{
	cl_platform_id plats[16];
	cl_uint np = 0;

	if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS)
		np = 0;
	for (cl_uint i = 0; i < np; i++) {
		char pname[256] = "";
		cl_device_id ids[16];
		cl_uint nd = 0;

		clGetPlatformInfo(plats[i], CL_PLATFORM_NAME, sizeof(pname), pname, NULL);
		if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 16, ids, &nd) != CL_SUCCESS)
			continue;
		for (size_t k = 0; k < NDEV; k++) {
			struct device *d = &devices[k];

			if (d->present || !strstr(pname, d->platform))
				continue;
			for (cl_uint j = 0; j < nd && !d->present; j++) {
				char dname[256] = "";

				clGetDeviceInfo(ids[j], CL_DEVICE_NAME, sizeof(dname), dname, NULL);
				if (d->device && !strstr(dname, d->device))
					continue;
				d->id = ids[j];
				device_probe(d, plats[i]);
			}
		}
	}
}

/* ------------------------------------------------------------- jobs */

/*
 * One kernel's run: its buffers (an output has the C reference's result in
 * want), an optional trailing uint argument, the NDRange and what it moves.
 */
struct job {
	unsigned nbufs;
	struct {
		void *host;
		void *want;		/* output: the expected content */
		size_t bytes;
	} buf[MAX_BUFS];
	bool has_n;
	uint32_t n;
	bool zero_outputs;		/* before every run (accumulating kernels) */
	unsigned dims;
	size_t gs[2], ls[2];
	double bytes, elems;		/* moved at least, and worked on */
};

struct sizes {
	size_t elems;			/* 1D kernels */
	uint32_t side;			/* 2D grids */
	uint32_t gemm;			/* SGEMM */
};

static uint32_t rng_state = 0x12345678;

static uint32_t rng(void)
{
	uint32_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return rng_state = x;
}

static void *random_u32(size_t count)
{
	uint32_t *p = xmalloc(count * 4);

	for (size_t i = 0; i < count; i++)
		p[i] = rng();
	return p;
}

/* Small integers as floats: sums and products stay exact in any order. */
static float *random_small_floats(size_t count, int range)
{
	float *p = xmalloc(count * sizeof(float));

	for (size_t i = 0; i < count; i++)
		p[i] = (float)((int)(rng() % (2 * range + 1)) - range);
	return p;
}

static void job_in(struct job *j, void *host, size_t bytes)
{
	j->buf[j->nbufs].host = host;
	j->buf[j->nbufs].want = NULL;
	j->buf[j->nbufs++].bytes = bytes;
}

static void job_out(struct job *j, void *want, size_t bytes)
{
	j->buf[j->nbufs].host = xmalloc(bytes);
	j->buf[j->nbufs].want = want;
	j->buf[j->nbufs++].bytes = bytes;
}

static void job_1d(struct job *j, size_t gs, size_t ls)
{
	j->dims = 1;
	j->gs[0] = gs;
	j->ls[0] = ls;
}

/* An n x n grid in 16 x 16 work-groups, n the kernel's last argument. */
static void job_2d(struct job *j, uint32_t n)
{
	j->dims = 2;
	j->gs[0] = j->gs[1] = n;
	j->ls[0] = j->ls[1] = 16;
	j->has_n = true;
	j->n = n;
}

static void setup_copy(struct job *j, const struct sizes *s, size_t per_item)
{
	uint32_t *in = random_u32(s->elems), *want = xmalloc(s->elems * 4);

	memcpy(want, in, s->elems * 4);
	job_in(j, in, s->elems * 4);
	job_out(j, want, s->elems * 4);
	job_1d(j, s->elems / per_item, 256);
	j->bytes = 8.0 * s->elems;
	j->elems = s->elems;
}

static void setup_copy_int(struct job *j, const struct sizes *s)
{
	setup_copy(j, s, 1);
}

static void setup_copy_float4(struct job *j, const struct sizes *s)
{
	setup_copy(j, s, 4);
}

/* Sums of 1024 elements per work-group of 256. */
static void setup_reduce(struct job *j, const struct sizes *s)
{
	size_t groups = s->elems / 1024;
	uint32_t *in = random_u32(s->elems), *want = xmalloc(groups * 4);

	for (size_t g = 0; g < groups; g++) {
		uint32_t sum = 0;

		for (size_t i = 0; i < 1024; i++)
			sum += in[g * 1024 + i];
		want[g] = sum;
	}
	job_in(j, in, s->elems * 4);
	job_out(j, want, groups * 4);
	job_1d(j, groups * 256, 256);
	j->bytes = 4.0 * s->elems;
	j->elems = s->elems;
}

/* Inclusive scans of 256 elements per work-group. */
static void setup_scan(struct job *j, const struct sizes *s)
{
	uint32_t *in = random_u32(s->elems), *want = xmalloc(s->elems * 4);

	for (size_t i = 0; i < s->elems; i++)
		want[i] = (i % 256 ? want[i - 1] : 0) + in[i];
	job_in(j, in, s->elems * 4);
	job_out(j, want, s->elems * 4);
	job_1d(j, s->elems, 256);
	j->bytes = 8.0 * s->elems;
	j->elems = s->elems;
}

static void setup_transpose(struct job *j, const struct sizes *s)
{
	size_t n = s->side, count = n * n;
	uint32_t *in = random_u32(count), *want = xmalloc(count * 4);

	for (size_t y = 0; y < n; y++)
		for (size_t x = 0; x < n; x++)
			want[x * n + y] = in[y * n + x];
	job_in(j, in, count * 4);
	job_out(j, want, count * 4);
	job_2d(j, n);
	j->bytes = 8.0 * count;
	j->elems = count;
}

/* One 16 x 16 tile per sub-group of 16: a work-item per tile column. */
static void setup_transpose_shuffle(struct job *j, const struct sizes *s)
{
	setup_transpose(j, s);
	j->gs[1] = s->side / 16;
	while (j->gs[1] % j->ls[1])
		j->ls[1] /= 2;
}

static void setup_histogram(struct job *j, const struct sizes *s)
{
	uint32_t *in = random_u32(s->elems), *want = calloc(256, 4);
	size_t items = s->elems < 256 * 256 ? s->elems : 256 * 256;

	for (size_t i = 0; i < s->elems; i++)
		want[in[i] & 255]++;
	job_in(j, in, s->elems * 4);
	job_out(j, want, 256 * 4);
	j->has_n = true;
	j->n = s->elems;
	j->zero_outputs = true;
	job_1d(j, items, 256);
	j->bytes = 4.0 * s->elems;
	j->elems = s->elems;
}

static void setup_sgemm(struct job *j, const struct sizes *s)
{
	size_t n = s->gemm;
	float *a = random_small_floats(n * n, 3), *b = random_small_floats(n * n, 3);
	float *want = xmalloc(n * n * sizeof(float));

	for (size_t r = 0; r < n; r++)
		for (size_t c = 0; c < n; c++) {
			float acc = 0;

			for (size_t k = 0; k < n; k++)
				acc += a[r * n + k] * b[k * n + c];
			want[r * n + c] = acc;
		}
	job_in(j, a, n * n * 4);
	job_in(j, b, n * n * 4);
	job_out(j, want, n * n * 4);
	job_2d(j, n);
	j->bytes = 12.0 * n * n;
	j->elems = (double)n * n * n;	/* multiply-adds */
}

static void setup_stencil(struct job *j, const struct sizes *s)
{
	size_t n = s->side;
	float *in = random_small_floats(n * n, 64), *want = xmalloc(n * n * sizeof(float));

	for (size_t y = 0; y < n; y++)
		for (size_t x = 0; x < n; x++) {
			size_t i = y * n + x;

			if (x == 0 || y == 0 || x == n - 1 || y == n - 1)
				want[i] = in[i];
			else
				want[i] = 0.5f * in[i] + 0.125f * (in[i - 1] + in[i + 1] +
								   in[i - n] + in[i + n]);
		}
	job_in(j, in, n * n * 4);
	job_out(j, want, n * n * 4);
	job_2d(j, n);
	j->bytes = 8.0 * n * n;
	j->elems = (double)n * n;
}

static void job_free(struct job *j)
{
	for (unsigned i = 0; i < j->nbufs; i++) {
		free(j->buf[i].host);
		free(j->buf[i].want);
	}
}

/* ------------------------------------------------------------- rows */

struct row {
	const char *name;		/* in the table */
	const char *file, *kernel;
	enum need need;
	const char *pocl_alt;		/* the row PoCL runs instead when it cannot run this */
	void (*setup)(struct job *j, const struct sizes *s);
};

static const struct row rows[] = {
	{ "copy int", "copy.cl", "copy_int", NEED_NOTHING, NULL, setup_copy_int },
	{ "copy float4", "copy.cl", "copy_float4", NEED_NOTHING, NULL, setup_copy_float4 },
	{ "copy block-read", "copy_block.cl", "copy_block", NEED_INTEL_SUBGROUPS, "copy int",
	  setup_copy_int },
	{ "reduce local", "reduce_local.cl", "reduce_local", NEED_NOTHING, NULL, setup_reduce },
	{ "reduce sub-group", "reduce_subgroup.cl", "reduce_subgroup", NEED_SUBGROUPS,
	  "reduce local", setup_reduce },
	{ "reduce work-group", "reduce_workgroup.cl", "reduce_workgroup", NEED_WG_COLLECTIVES,
	  "reduce local", setup_reduce },
	{ "scan local", "scan_local.cl", "scan_local", NEED_NOTHING, NULL, setup_scan },
	{ "scan sub-group", "scan_subgroup.cl", "scan_subgroup", NEED_SUBGROUPS, "scan local",
	  setup_scan },
	{ "scan work-group", "scan_workgroup.cl", "scan_workgroup", NEED_WG_COLLECTIVES,
	  "scan local", setup_scan },
	{ "transpose naive", "transpose.cl", "transpose_naive", NEED_NOTHING, NULL,
	  setup_transpose },
	{ "transpose local 16x16", "transpose.cl", "transpose_local", NEED_NOTHING, NULL,
	  setup_transpose },
	{ "transpose shuffle", "transpose_shuffle.cl", "transpose_shuffle", NEED_INTEL_SUBGROUPS,
	  "transpose local 16x16", setup_transpose_shuffle },
	{ "histogram 256", "histogram.cl", "histogram", NEED_NOTHING, NULL, setup_histogram },
	{ "sgemm 16x16 tiles", "sgemm.cl", "sgemm", NEED_NOTHING, NULL, setup_sgemm },
	{ "stencil 5-point", "stencil.cl", "stencil", NEED_NOTHING, NULL, setup_stencil },
};
#define NROWS	(sizeof(rows) / sizeof(rows[0]))

/* One row on one device. */
struct run {
	char na[200];			/* why it did not run, or "" */
	bool built;			/* the device reported what it needs and built it */
	bool checked, ok;
	double t[MAX_REPS];
	unsigned nt;
	double median;
	cl_program prog;
	cl_kernel k;
	cl_mem mem[MAX_BUFS];
};

static struct {
	bool quick;
	unsigned reps;
	double warmup;
	const char *filter, *data, *kernel_dir;
	struct sizes sizes;
} opt = { .reps = 5, .warmup = 1, .kernel_dir = KERNEL_DIR,
	  .sizes = { .elems = 1u << 24, .side = 4096, .gemm = 512 } };

static char *read_source(const char *file)
{
	char path[1024];
	FILE *f;
	char *src;
	long len;

	snprintf(path, sizeof(path), "%s/%s", opt.kernel_dir, file);
	f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "opencl: cannot read %s\n", path);
		exit(2);
	}
	src = xmalloc(len + 1);
	if (fread(src, 1, len, f) != (size_t)len) {
		fprintf(stderr, "opencl: cannot read %s\n", path);
		exit(2);
	}
	src[len] = '\0';
	fclose(f);
	return src;
}

/* The first error of a build log, on one line. */
static void first_error(char *out, size_t size, const char *log)
{
	const char *e = strstr(log, "error: ");
	size_t len;

	e = e ? e + 7 : log;
	len = strcspn(e, "\n");
	if (len == 0) {
		snprintf(out, size, "build failed");
		return;
	}
	snprintf(out, size, "build: %.*s", (int)(len > 120 ? 120 : len), e);
}

static void run_prepare(struct run *r, struct device *d, const struct row *row,
			const struct job *j)
{
	const char *options = d->cl30 ? "-cl-std=CL3.0" : "";
	char *src;
	cl_int err;
	unsigned arg = 0;

	if (!d->has[row->need]) {
		snprintf(r->na, sizeof(r->na), "no %s reported", need_name[row->need]);
		return;
	}
	src = read_source(row->file);
	r->prog = clCreateProgramWithSource(d->ctx, 1, (const char **)&src, NULL, &err);
	free(src);
	if (err == CL_SUCCESS && clBuildProgram(r->prog, 1, &d->id, options, NULL, NULL)) {
		char *log = xmalloc(65536);

		log[0] = '\0';
		clGetProgramBuildInfo(r->prog, d->id, CL_PROGRAM_BUILD_LOG, 65536, log, NULL);
		first_error(r->na, sizeof(r->na), log);
		free(log);
		r->built = false;
		return;
	}
	r->built = true;
	if (err == CL_SUCCESS)
		r->k = clCreateKernel(r->prog, row->kernel, &err);
	for (unsigned i = 0; err == CL_SUCCESS && i < j->nbufs; i++) {
		r->mem[i] = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, j->buf[i].bytes, NULL, &err);
		if (err == CL_SUCCESS && !j->buf[i].want)
			err = clEnqueueWriteBuffer(d->q, r->mem[i], CL_TRUE, 0, j->buf[i].bytes,
						   j->buf[i].host, 0, NULL, NULL);
		if (err == CL_SUCCESS)
			err = clSetKernelArg(r->k, arg++, sizeof(cl_mem), &r->mem[i]);
	}
	if (err == CL_SUCCESS && j->has_n)
		err = clSetKernelArg(r->k, arg, sizeof(j->n), &j->n);
	if (err != CL_SUCCESS)
		snprintf(r->na, sizeof(r->na), "setup failed: OpenCL error %d", err);
}

static bool zero_outputs(struct run *r, struct device *d, const struct job *j)
{
	for (unsigned i = 0; i < j->nbufs; i++) {
		if (!j->buf[i].want)
			continue;
		memset(j->buf[i].host, 0, j->buf[i].bytes);
		if (clEnqueueWriteBuffer(d->q, r->mem[i], CL_TRUE, 0, j->buf[i].bytes,
					 j->buf[i].host, 0, NULL, NULL))
			return false;
	}
	return true;
}

/* One timed run; false (with r->na set) when the device refused it. */
static bool run_once(struct run *r, struct device *d, const struct job *j, bool timed)
{
	double t, machine[2], self[2];
	cl_int err;
	bool busy;

	if (j->zero_outputs && !zero_outputs(r, d, j)) {
		snprintf(r->na, sizeof(r->na), "clEnqueueWriteBuffer failed");
		return false;
	}
	busy = cpu_busy(&machine[0], &self[0]);
	t = now();
	err = clEnqueueNDRangeKernel(d->q, r->k, j->dims, NULL, j->gs, j->ls, 0, NULL, NULL);
	if (err == CL_SUCCESS)
		err = clFinish(d->q);
	t = now() - t;
	if (timed && busy && cpu_busy(&machine[1], &self[1])) {
		contention.others += (machine[1] - machine[0]) - (self[1] - self[0]);
		contention.available += t * sysconf(_SC_NPROCESSORS_ONLN);
	}
	if (err != CL_SUCCESS) {
		snprintf(r->na, sizeof(r->na), "run failed: OpenCL error %d", err);
		return false;
	}
	if (timed)
		r->t[r->nt++] = t;
	return true;
}

static void run_check(struct run *r, struct device *d, const struct row *row,
		      const struct job *j)
{
	r->checked = true;
	r->ok = true;
	for (unsigned i = 0; i < j->nbufs && r->ok; i++) {
		const uint32_t *got = j->buf[i].host, *want = j->buf[i].want;

		if (!want)
			continue;
		if (clEnqueueReadBuffer(d->q, r->mem[i], CL_TRUE, 0, j->buf[i].bytes,
					j->buf[i].host, 0, NULL, NULL)) {
			fprintf(stderr, "opencl: %s on %s: clEnqueueReadBuffer failed\n",
				row->name, d->label);
			r->ok = false;
			break;
		}
		for (size_t e = 0; e < j->buf[i].bytes / 4; e++)
			if (got[e] != want[e]) {
				fprintf(stderr, "opencl: %s on %s: WRONG: element %zu of "
					"buffer %u is 0x%08x, C says 0x%08x\n", row->name,
					d->label, e, i, got[e], want[e]);
				r->ok = false;
				break;
			}
	}
}

static void run_release(struct run *r)
{
	for (unsigned i = 0; i < MAX_BUFS; i++)
		if (r->mem[i])
			clReleaseMemObject(r->mem[i]);
	if (r->k)
		clReleaseKernel(r->k);
	if (r->prog)
		clReleaseProgram(r->prog);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *t, unsigned n)
{
	qsort(t, n, sizeof(*t), cmp_double);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

struct result {
	struct job job;
	struct run run[NDEV];
};

static struct result results[NROWS];

/*
 * Each device runs the job at least once and for opt.warmup seconds in
 * all, the devices taking turns, so that the timed runs see what a program
 * that runs the kernel often sees: the runtimes' first-run work done, and
 * on Weft the model's translation in the tier the kernel's work reaches
 * (Documentation/gpu/weft/execution.rst, "The translator").
 */
static void warm_up(struct result *res, const struct job *j)
{
	double spent[NDEV] = { 0 };
	bool more = true;

	for (unsigned rep = 0; more; rep++) {
		more = false;
		for (size_t i = 0; i < NDEV; i++) {
			size_t k = rep % 2 ? NDEV - 1 - i : i;
			struct run *r = &res->run[k];
			double t = now();

			if (r->na[0] || (rep && spent[k] >= opt.warmup))
				continue;
			run_once(r, &devices[k], j, false);
			spent[k] += now() - t;
			more = true;
		}
	}
}

static void row_run(const struct row *row, struct result *res)
{
	struct job *j = &res->job;

	memset(j, 0, sizeof(*j));
	row->setup(j, &opt.sizes);
	for (size_t k = 0; k < NDEV; k++) {
		if (devices[k].present)
			run_prepare(&res->run[k], &devices[k], row, j);
		else
			snprintf(res->run[k].na, sizeof(res->run[k].na), "no such device");
	}
	if (!opt.quick)
		warm_up(res, j);
	for (unsigned rep = 0; rep < (opt.quick ? 1 : opt.reps); rep++)
		for (size_t i = 0; i < NDEV; i++) {
			size_t k = rep % 2 ? NDEV - 1 - i : i;
			struct run *r = &res->run[k];

			if (!r->na[0])
				run_once(r, &devices[k], j, true);
		}
	for (size_t k = 0; k < NDEV; k++) {
		struct run *r = &res->run[k];

		if (!r->na[0]) {
			run_check(r, &devices[k], row, j);
			r->median = median(r->t, r->nt);
		}
		run_release(r);
	}
	job_free(j);
}

/* ---------------------------------------------------------- mapping */

/*
 * clEnqueueMapBuffer: a kernel's writes are seen through a map, writes
 * through a map reach the next kernel, and two maps of one buffer are views
 * of the same memory or not (a map in place copies nothing).  The blocking
 * map of a whole buffer for reading is timed.
 */
struct map_result {
	char na[200];
	bool ran, read_ok, write_ok, in_place;
	double t[MAX_REPS];
	unsigned nt;
	double median;
};

static struct map_result map_results[NDEV];

static uint32_t map_pattern(size_t i)
{
	return (uint32_t)(i * 2654435761u);
}

static cl_int map_copy(struct device *d, cl_kernel k, cl_mem from, cl_mem to, size_t count)
{
	size_t ls = 256;
	cl_int err = clSetKernelArg(k, 0, sizeof(from), &from);

	if (!err)
		err = clSetKernelArg(k, 1, sizeof(to), &to);
	if (!err)
		err = clEnqueueNDRangeKernel(d->q, k, 1, NULL, &count, &ls, 0, NULL, NULL);
	return err;
}

static uint32_t *map_buffer(struct device *d, cl_mem m, cl_map_flags flags, size_t offset,
			    size_t bytes, cl_int *err)
{
	if (*err)
		return NULL;
	return clEnqueueMapBuffer(d->q, m, CL_TRUE, flags, offset, bytes, 0, NULL, NULL, err);
}

static cl_int unmap_buffer(struct device *d, cl_mem m, void *p, cl_int err)
{
	return err ? err : clEnqueueUnmapMemObject(d->q, m, p, 0, NULL, NULL);
}

static void map_run(struct device *d, struct map_result *m, size_t count)
{
	size_t bytes = count * 4;
	char *src = read_source("copy.cl");
	cl_program prog;
	cl_kernel k = NULL;
	cl_mem a = NULL, b = NULL;
	uint32_t *p, *q;
	cl_int err;

	prog = clCreateProgramWithSource(d->ctx, 1, (const char **)&src, NULL, &err);
	free(src);
	if (!err)
		err = clBuildProgram(prog, 1, &d->id, "", NULL, NULL);
	if (!err)
		k = clCreateKernel(prog, "copy_int", &err);
	if (!err)
		a = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
	if (!err)
		b = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
	/* The CPU fills a through a map; a kernel copies a to b. */
	p = map_buffer(d, a, CL_MAP_WRITE_INVALIDATE_REGION, 0, bytes, &err);
	for (size_t i = 0; !err && i < count; i++)
		p[i] = map_pattern(i);
	err = unmap_buffer(d, a, p, err);
	if (!err)
		err = map_copy(d, k, a, b, count);
	/* b mapped for reading (timed), once also 4 KiB in while mapped. */
	for (unsigned rep = 0; !err && rep <= (opt.quick ? 0 : opt.reps); rep++) {
		double t = now();

		p = map_buffer(d, b, CL_MAP_READ, 0, bytes, &err);
		t = now() - t;
		if (rep || opt.quick)
			m->t[m->nt++] = t;
		if (rep == 0 && !err) {
			m->read_ok = true;
			for (size_t i = 0; i < count && m->read_ok; i++)
				m->read_ok = p[i] == map_pattern(i);
			q = map_buffer(d, b, CL_MAP_READ, 4096, bytes - 4096, &err);
			m->in_place = !err && (char *)q == (char *)p + 4096;
			err = unmap_buffer(d, b, q, err);
		}
		err = unmap_buffer(d, b, p, err);
		if (!err)
			err = clFinish(d->q);
	}
	/* The CPU inverts b through a map; a kernel copies b back to a. */
	p = map_buffer(d, b, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, &err);
	for (size_t i = 0; !err && i < count; i++)
		p[i] = ~p[i];
	err = unmap_buffer(d, b, p, err);
	if (!err)
		err = map_copy(d, k, b, a, count);
	p = map_buffer(d, a, CL_MAP_READ, 0, bytes, &err);
	m->write_ok = !err;
	for (size_t i = 0; !err && i < count && m->write_ok; i++)
		m->write_ok = p[i] == ~map_pattern(i);
	err = unmap_buffer(d, a, p, err);
	if (!err)
		err = clFinish(d->q);
	if (err)
		snprintf(m->na, sizeof(m->na), "OpenCL error %d", err);
	else
		m->median = median(m->t, m->nt);
	m->ran = !err;
	if (a)
		clReleaseMemObject(a);
	if (b)
		clReleaseMemObject(b);
	if (k)
		clReleaseKernel(k);
	clReleaseProgram(prog);
}

static void print_map_table(size_t bytes)
{
	printf("\n| clEnqueueMapBuffer, read, %zu MiB | Weft | PoCL |\n|---|---:|---:|\n",
	       bytes >> 20);
	printf("| median time |");
	for (size_t k = 0; k < NDEV; k++)
		if (map_results[k].ran)
			printf(" %.1f us |", map_results[k].median * 1e6);
		else
			printf(" n/a (%s) |", devices[k].present ? map_results[k].na : "no such device");
	printf("\n| in place (no copy) |");
	for (size_t k = 0; k < NDEV; k++)
		printf(" %s |", !map_results[k].ran ? "n/a" : map_results[k].in_place ? "yes" : "no");
	printf("\n");
}

/* ------------------------------------------------------------ output */

static const struct result *result_named(const char *name)
{
	for (size_t i = 0; i < NROWS; i++)
		if (!strcmp(rows[i].name, name))
			return &results[i];
	return NULL;
}

/* PoCL's time for the row, or for its PoCL alternative; NULL when neither ran. */
static const struct run *pocl_baseline(size_t i, const char **vs)
{
	const struct run *p = &results[i].run[1];
	const struct result *alt;

	*vs = "same";
	if (p->checked && p->ok)
		return p;
	if (!rows[i].pocl_alt || !(alt = result_named(rows[i].pocl_alt)))
		return NULL;
	*vs = rows[i].pocl_alt;
	p = &alt->run[1];
	return p->checked && p->ok ? p : NULL;
}

static void print_cell(const struct run *r, const struct job *j)
{
	if (r->na[0])
		printf(" n/a (%s) | |", r->na);
	else if (!r->ok)
		printf(" WRONG | |");
	else
		printf(" %.3g | %.3g |", j->bytes / r->median * 1e-9, j->elems / r->median * 1e-6);
}

static void print_table(FILE *data)
{
	printf("\n| kernel | Weft GB/s | Weft M/s | PoCL GB/s | PoCL M/s | Weft/PoCL | vs PoCL's |\n");
	printf("|---|---:|---:|---:|---:|---:|---|\n");
	for (size_t i = 0; i < NROWS; i++) {
		const struct result *res = &results[i];
		const struct run *w = &res->run[0], *p;
		const char *vs;

		if (opt.filter && !strstr(rows[i].name, opt.filter))
			continue;
		printf("| %s |", rows[i].name);
		print_cell(w, &res->job);
		print_cell(&res->run[1], &res->job);
		p = pocl_baseline(i, &vs);
		if (w->checked && w->ok && p) {
			double ratio = p->median / w->median;

			printf(" %.3f | %s |\n", ratio, vs);
			if (data)
				fprintf(data, "\"%s\" %.4f %.4f %.4f\n", rows[i].name, ratio,
					res->job.bytes / w->median * 1e-9,
					res->job.bytes / p->median * 1e-9);
		} else {
			printf(" n/a | |\n");
		}
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: opencl [--quick] [--reps N] [--warmup SECONDS] [--elems N] [--side N]\n"
			"              [--gemm N] [--kernel SUBSTR] [--data FILE] [--kernels DIR]\n");
	exit(2);
}

static unsigned long number(const char *s, unsigned long multiple)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (*end || v == 0 || v % multiple) {
		fprintf(stderr, "opencl: %s: not a positive multiple of %lu\n", s, multiple);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	unsigned passed = 0, failed = 0, wrong = 0;
	double cpus_start = 0;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	FILE *data = NULL;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--quick")) {
			opt.quick = true;
			opt.sizes = (struct sizes){ .elems = 8192, .side = 64, .gemm = 48 };
			continue;
		}
		if (!v)
			usage();
		i++;
		if (!strcmp(a, "--reps")) {
			opt.reps = number(v, 1);
			if (opt.reps >= MAX_REPS)
				usage();
		} else if (!strcmp(a, "--warmup")) {
			char *end;

			opt.warmup = strtod(v, &end);
			if (*end || !(opt.warmup >= 0 && opt.warmup <= 600)) {
				fprintf(stderr, "opencl: --warmup %s: not a number of seconds from 0 to 600\n", v);
				exit(2);
			}
		} else if (!strcmp(a, "--elems")) {
			opt.sizes.elems = number(v, 1024);
		} else if (!strcmp(a, "--side")) {
			opt.sizes.side = number(v, 16);
		} else if (!strcmp(a, "--gemm")) {
			opt.sizes.gemm = number(v, 16);
		} else if (!strcmp(a, "--kernel")) {
			opt.filter = v;
		} else if (!strcmp(a, "--data")) {
			opt.data = v;
		} else if (!strcmp(a, "--kernels")) {
			opt.kernel_dir = v;
		} else {
			usage();
		}
	}

	devices_find();
	for (size_t k = 0; k < NDEV; k++) {
		if (devices[k].present)
			printf("%s: %s (%s)\n", devices[k].label, devices[k].name,
			       devices[k].version);
		else
			printf("%s: not found\n", devices[k].label);
	}
	if (!WEFT->present) {
		fprintf(stderr, "opencl: no Weft GPU among the OpenCL platforms "
				"(run through bench/run-opencl)\n");
		if (opt.quick)
			printf("0 passed, 1 failed\n");
		return 1;
	}
	printf("sizes: %zu elements (1D), %ux%u (2D), SGEMM %ux%u; %s\n", opt.sizes.elems,
	       opt.sizes.side, opt.sizes.side, opt.sizes.gemm, opt.sizes.gemm,
	       opt.quick ? "one run each" : "medians of the timed runs after a warm-up");
	if (!opt.quick) {
		printf("reps: %u after %g s of warm-up per device and kernel\n", opt.reps, opt.warmup);
		cpus_start = cpus_at_once(cpus);
	}
	fflush(stdout);

	for (size_t i = 0; i < NROWS; i++) {
		if (opt.filter && !strstr(rows[i].name, opt.filter))
			continue;
		row_run(&rows[i], &results[i]);
		for (size_t k = 0; k < NDEV; k++) {
			const struct run *r = &results[i].run[k];

			if (r->checked && !r->ok)
				wrong++;
			if (!opt.quick) {
				if (r->checked)
					printf("%s on %s: %s, median %.4f s of %u\n", rows[i].name,
					       devices[k].label, r->ok ? "ok" : "WRONG", r->median,
					       r->nt);
				continue;
			}
			if (r->checked) {
				printf("%-6s %s on %s\n", r->ok ? "ok" : "FAIL", rows[i].name,
				       devices[k].label);
				r->ok ? passed++ : failed++;
			} else if (&devices[k] == WEFT && r->built) {
				/* Weft built it: the run itself failed. */
				printf("FAIL   %s on %s: %s\n", rows[i].name, devices[k].label, r->na);
				failed++;
			} else if (&devices[k] == WEFT && devices[k].has[rows[i].need]) {
				/* It reports what the kernel needs but rejects it. */
				printf("FAIL   %s on %s: n/a (%s)\n", rows[i].name,
				       devices[k].label, r->na);
				failed++;
			} else {
				printf("n/a    %s on %s (%s)\n", rows[i].name, devices[k].label,
				       r->na);
			}
		}
		fflush(stdout);
	}
	for (size_t k = 0; k < NDEV; k++) {
		struct map_result *m = &map_results[k];
		const char *dev = devices[k].label;
		static const char *const what[] = { "a kernel's writes through a map",
						    "writes through a map to a kernel",
						    "maps in place" };
		bool checks[3];

		if (!devices[k].present)
			continue;
		map_run(&devices[k], m, opt.sizes.elems);
		checks[0] = m->ran && m->read_ok;
		checks[1] = m->ran && m->write_ok;
		checks[2] = m->ran && m->in_place;
		if (m->na[0])
			printf("FAIL   map on %s: %s\n", dev, m->na);
		/* Only Weft must map in place: its driver says it does. */
		for (size_t c = 0; c < (&devices[k] == WEFT ? 3 : 2); c++) {
			printf("%-6s %s on %s\n", checks[c] ? "ok" : "FAIL", what[c], dev);
			checks[c] ? passed++ : failed++;
			/* The data through maps must be right in a benchmark run too. */
			wrong += c < 2 && !checks[c];
		}
	}
	if (opt.quick) {
		printf("%u passed, %u failed\n", passed, failed);
		return failed ? 1 : 0;
	}
	if (opt.data && !(data = fopen(opt.data, "w"))) {
		fprintf(stderr, "opencl: cannot write %s\n", opt.data);
		return 2;
	}
	print_table(data);
	if (contention.available > 0)
		printf("\nOther processes and the hypervisor held %.0f %% of the CPUs during the timed runs%s\n",
		       (contention.others > 0 ? contention.others : 0) / contention.available * 100,
		       contention.others > 0.1 * contention.available ?
		       ": each device's GB/s is lower than on an idle machine" : "");
	print_cpus_at_once(cpus_start, cpus_at_once(cpus), cpus);
	print_map_table(opt.sizes.elems * 4);
	if (data)
		fclose(data);
	if (wrong) {
		fprintf(stderr, "opencl: %u wrong results\n", wrong);
		return 1;
	}
	return 0;
}
