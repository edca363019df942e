// SPDX-License-Identifier: MIT
/*
 * enqueue: what a child kernel costs when a running kernel enqueues it on
 * the device (a record in a device queue, run by the batch's DRAIN_QUEUE:
 * Documentation/gpu/weft/device-enqueue.rst), on the device model
 * in-process (the host tier's device), next to a launch from the host.
 *
 *   child on the device  a chain of 64 children of 1 work-item, each
 *                        enqueued by the one before (so they run one after
 *                        the other), minus the parent alone, per child: a
 *                        record's reservation, its drain and its run
 *   child from the host  the same child as a batch of its own (DISPATCH,
 *                        FENCE), as a host queue would launch it
 *   many children        a parent of N work-items, each enqueuing one child
 *                        of 1 work-item: children per second
 *
 * The kernel is the device-enqueue tests' (hw/tests/devqueue.c): every
 * work-item counts itself per depth, and a wrong count fails the run.
 * Times are medians of --reps runs, wall-clock from submission to the
 * fence (the model's thread hand-offs included).
 *
 * Usage: enqueue [--quick] [--reps N] [--children N] [--threads N]
 *   --quick  tiny sizes and 3 runs: the correctness check of make check,
 *            "N passed, M failed" last
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "devqueue.h"

/* The chain's length: the device queue's default depth limit. */
#define CHAIN WEFT_DQ_DEPTH_DEFAULT

static unsigned failures, passed;
static unsigned wrong;	/* wrong results in the measurement running now */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void check(const char *what, int ok, uint32_t got, uint32_t want)
{
	if (!ok && !wrong++)
		fprintf(stderr, "enqueue: %s: got %u, want %u\n", what, got, want);
}

/* One line per measurement: were all its runs right? */
static void report(const char *name)
{
	printf("%s enqueue: %s\n", wrong ? "FAIL" : "ok  ", name);
	if (wrong)
		failures++;
	else
		passed++;
	wrong = 0;
}

/*
 * Median seconds of @reps runs of a parent of @items work-items with
 * @levels levels of 1-work-item children; checks the counts per depth.
 */
static double time_tree(struct env *e, struct tree *t, uint32_t items, uint32_t levels,
			unsigned reps)
{
	double *v = calloc(reps, sizeof(*v));
	double m;

	for (unsigned r = 0; r < reps; r++) {
		double t0 = now_s();
		uint32_t err = tree_run(e, t, 0, items, levels, 1, 8);

		v[r] = now_s() - t0;
		check("queue error", !err, err, 0);
		check("parent's work-items", t->cnt[0] == items, t->cnt[0], items);
		for (uint32_t d = 1; d <= levels + 1 && d <= CHAIN; d++)
			check("children", t->cnt[d] == (d <= levels ? items : 0), t->cnt[d],
			      d <= levels ? items : 0);
	}
	m = median(v, reps);
	free(v);
	return m;
}

/* Median seconds of @reps host launches of the child alone. */
static double time_host_launch(struct env *e, struct tree *t, unsigned reps)
{
	struct env_dispatch d = { .code_va = t->code, .args_va = t->args_va, .simd = 8,
				  .gsize = { 1, 1, 1 }, .lsize = { 1, 1, 1 } };
	double *v = calloc(reps, sizeof(*v));
	double m;

	t->args[3] = 0 | (uint64_t)1 << 32;	/* no levels left: it enqueues nothing */
	for (unsigned r = 0; r < reps; r++) {
		double t0 = now_s();
		uint32_t err;

		t->cnt[0] = 0;
		err = env_dispatch(e, 0, &d);
		v[r] = now_s() - t0;
		check("queue error", !err, err, 0);
		check("child's work-item", t->cnt[0] == 1, t->cnt[0], 1);
	}
	m = median(v, reps);
	free(v);
	return m;
}

int main(int argc, char **argv)
{
	unsigned reps = 21, children = 4096, threads = 0;
	int quick = 0;
	struct env *e;
	struct tree t;
	double parent, chain, host, many_parent, many;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = 1;
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--children") && i + 1 < argc)
			children = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			threads = strtoul(argv[++i], NULL, 0);
		else {
			fprintf(stderr, "usage: %s [--quick] [--reps N] [--children N] "
				"[--threads N]\n", argv[0]);
			return 2;
		}
	}
	if (quick) {
		reps = 3;
		children = 64;
	}
	if (!reps || !children) {
		fprintf(stderr, "enqueue: --reps and --children must be positive\n");
		return 2;
	}
	e = env_create(threads, 0);
	if (env_ready(e) != WEFT_DEVICE_RUNNING) {
		fprintf(stderr, "enqueue: the model did not start\n");
		return 1;
	}
	t = tree_setup(e, children > CHAIN ? children : CHAIN, 0);
	/* A warm-up: the translator, if it runs, compiles the kernel once. */
	time_tree(e, &t, children, 1, 1);
	report("warm-up, children counted");
	parent = time_tree(e, &t, 1, 0, reps);
	report("a parent alone, counted");
	chain = time_tree(e, &t, 1, CHAIN, reps);
	report("a parent and a chain of children, counted");
	host = time_host_launch(e, &t, reps);
	report("the child launched from the host, counted");
	many_parent = time_tree(e, &t, children, 0, reps);
	report("a wide parent alone, counted");
	many = time_tree(e, &t, children, 1, reps);
	report("a wide parent and its children, counted");
	env_destroy(e);

	printf("child on the device:  %8.1f us (a chain of %u: %.1f us, the parent alone %.1f us)\n",
	       (chain - parent) / CHAIN * 1e6, CHAIN, chain * 1e6, parent * 1e6);
	printf("child from the host:  %8.1f us (a batch of its own)\n", host * 1e6);
	printf("many children:        %8.0f children/s (%u children: %.2f ms, parent alone %.2f ms)\n",
	       children / (many - many_parent), children, many * 1e3, many_parent * 1e3);
	printf("%u passed, %u failed\n", passed, failures);
	return failures ? 1 : 0;
}
