// SPDX-License-Identifier: MIT
/*
 * submit-latency: the round trip of an empty job (a batch holding only END)
 * through weft.ko and the device: submit, then wait for its out-syncobj.
 * Prints the median, 10th and 90th percentiles over N submits.
 *
 * Usage: submit-latency [N]   (default 1000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libweft.h"
#include "weft_cs_regs.h"

#define BATCH_VA	0x100000ull
#define TIMEOUT_NS	(10ull * 1000 * 1000 * 1000)

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000, i, ret;
	struct weft_device *dev;
	struct weft_buffer batch;
	uint32_t vm, queue, syncobj;
	double *samples;

	if (n < 1 || !(samples = calloc(n, sizeof(*samples)))) {
		fprintf(stderr, "usage: %s [N >= 1]\n", argv[0]);
		return 2;
	}
	ret = weft_device_open(NULL, &dev);
	ret = ret ? ret : weft_vm_create(dev, &vm);
	ret = ret ? ret : weft_queue_create(dev, vm, DRM_WEFT_QUEUE_PRIORITY_NORMAL, &queue);
	ret = ret ? ret : weft_syncobj_create(dev, &syncobj);
	ret = ret ? ret : weft_buffer_create(dev, 4096, &batch);
	ret = ret ? ret : weft_buffer_map(dev, &batch);
	ret = ret ? ret : weft_vm_map(dev, vm, &batch, 0, BATCH_VA, batch.size,
				      DRM_WEFT_VM_BIND_OP_MAP_READONLY);
	if (ret) {
		fprintf(stderr, "submit-latency: setup failed: %s\n", strerror(-ret));
		return 1;
	}
	*(uint32_t *)batch.map = WEFT_CMD_HEADER(WEFT_CMD_END, 1);

	for (i = 0; i < n; i++) {
		double start = now_us();

		ret = weft_submit(dev, queue, BATCH_VA, 4, 0, syncobj);
		ret = ret ? ret : weft_syncobj_wait(dev, syncobj, TIMEOUT_NS);
		if (ret) {
			fprintf(stderr, "submit-latency: submit %d: %s\n", i, strerror(-ret));
			return 1;
		}
		samples[i] = now_us() - start;
	}
	qsort(samples, n, sizeof(*samples), cmp_double);
	printf("empty submit round trip over %d submits: median %.1f us, p10 %.1f us, p90 %.1f us\n",
	       n, samples[n / 2], samples[n / 10], samples[n * 9 / 10]);
	return 0;
}
