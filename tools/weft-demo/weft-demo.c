// SPDX-License-Identifier: MIT
/*
 * weft-demo: runs a kernel on the Weft GPU through weft.ko and prints what
 * the GPU computed, checked against the same values computed on the CPU.
 *
 * The kernel (ids_squares.s) has every work-item write its global id
 * squared, its work-group, its sub-group and its lane. It runs at SIMD 8,
 * 16 and 32 with a work-group size that is not a multiple of 8 and a global
 * size that leaves the last work-group partial.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libweft.h"
#include "weft_cs_regs.h"
#include "ids_squares.h"

#define GLOBAL_SIZE	30
#define LOCAL_SIZE	12
#define CODE_VA		0x100000ull
#define ARGS_VA		0x200000ull
#define OUT_VA		0x300000ull
#define BATCH_VA	0x400000ull
#define BUFFER_SIZE	0x10000ull
#define TIMEOUT_NS	(60ull * 1000 * 1000 * 1000)

struct demo {
	struct weft_device *dev;
	uint32_t vm, queue, syncobj;
	struct weft_buffer code, args, out, batch;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int check(int ret, const char *what)
{
	if (ret)
		fprintf(stderr, "weft-demo: %s: %s\n", what, strerror(-ret));
	return ret;
}

static int demo_buffer(struct demo *d, struct weft_buffer *bo, uint64_t va,
		       uint32_t flags)
{
	int ret = check(weft_buffer_create(d->dev, BUFFER_SIZE, bo), "create buffer");

	ret = ret ? ret : check(weft_buffer_map(d->dev, bo), "map buffer");
	return ret ? ret : check(weft_vm_map(d->dev, d->vm, bo, 0, va, bo->size, flags),
				 "bind buffer");
}

static int demo_init(struct demo *d)
{
	const struct drm_weft_device_info *info;
	int ret;

	ret = check(weft_device_open(NULL, &d->dev), "no Weft GPU");
	if (ret)
		return ret;
	info = weft_device_info(d->dev);
	printf("Weft GPU: hardware %u.%u, SIMD widths mask 0x%x, %u queues, %u cores, "
	       "%u KiB shared local memory, work-groups up to %u\n",
	       info->hw_version >> 16, info->hw_version & 0xffff, info->simd_widths,
	       info->num_queues, info->num_cores, info->slm_size / 1024, info->max_wg_size);

	ret = check(weft_vm_create(d->dev, &d->vm), "create VM");
	ret = ret ? ret : check(weft_queue_create(d->dev, d->vm, DRM_WEFT_QUEUE_PRIORITY_NORMAL,
						  &d->queue), "create queue");
	ret = ret ? ret : check(weft_syncobj_create(d->dev, &d->syncobj), "create syncobj");
	ret = ret ? ret : demo_buffer(d, &d->code, CODE_VA,
				      DRM_WEFT_VM_BIND_OP_MAP_READONLY | DRM_WEFT_VM_BIND_OP_MAP_EXEC);
	ret = ret ? ret : demo_buffer(d, &d->args, ARGS_VA, DRM_WEFT_VM_BIND_OP_MAP_READONLY);
	ret = ret ? ret : demo_buffer(d, &d->out, OUT_VA, 0);
	ret = ret ? ret : demo_buffer(d, &d->batch, BATCH_VA, DRM_WEFT_VM_BIND_OP_MAP_READONLY);
	if (ret)
		return ret;

	memcpy(d->code.map, weft_demo_kernel, weft_demo_kernel_size);
	memcpy(d->args.map, &(uint64_t){ OUT_VA }, sizeof(uint64_t));
	return 0;
}

static uint32_t demo_batch(struct demo *d, uint32_t simd)
{
	uint32_t *cs = d->batch.map, n = 0;

	cs[n++] = WEFT_CMD_HEADER(WEFT_CMD_DISPATCH, WEFT_CMD_DISPATCH_LEN);
	cs[n++] = (uint32_t)CODE_VA;
	cs[n++] = (uint32_t)(CODE_VA >> 32);
	cs[n++] = (uint32_t)ARGS_VA;
	cs[n++] = (uint32_t)(ARGS_VA >> 32);
	cs[n++] = simd;
	cs[n++] = GLOBAL_SIZE;
	cs[n++] = 1;
	cs[n++] = 1;
	cs[n++] = LOCAL_SIZE;
	cs[n++] = 1;
	cs[n++] = 1;
	cs[n++] = 0;
	cs[n++] = 0;
	cs[n++] = 0;
	cs[n++] = 0;
	cs[n++] = WEFT_CMD_HEADER(WEFT_CMD_END, 1);
	return n * sizeof(uint32_t);
}

/* Runs the kernel at @simd, prints and checks its output. */
static int demo_run(struct demo *d, uint32_t simd)
{
	const uint32_t *out = d->out.map;
	uint32_t size = demo_batch(d, simd), i;
	int mismatches = 0, ret;
	double start;

	memset(d->out.map, 0xff, d->out.size);
	start = now_ms();
	ret = check(weft_submit(d->dev, d->queue, BATCH_VA, size, 0, d->syncobj), "submit");
	ret = ret ? ret : check(weft_syncobj_wait(d->dev, d->syncobj, TIMEOUT_NS), "job");
	if (ret)
		return ret;

	printf("\nSIMD %u: %u work-items in work-groups of %u, done in %.2f ms\n",
	       simd, GLOBAL_SIZE, LOCAL_SIZE, now_ms() - start);
	printf("  id  id*id  group  sub-group  lane\n");
	for (i = 0; i < GLOBAL_SIZE; i++) {
		uint32_t local = i % LOCAL_SIZE;
		uint32_t want[4] = { i * i, i / LOCAL_SIZE, local / simd, local % simd };
		const uint32_t *got = &out[i * 4];
		int ok = !memcmp(got, want, sizeof(want));

		printf("  %2u  %5u  %5u  %9u  %4u%s\n", i, got[0], got[1], got[2], got[3],
		       ok ? "" : "   <- wrong");
		mismatches += !ok;
	}
	/* Nothing past the last work-item may be written. */
	for (i = GLOBAL_SIZE * 4; i < GLOBAL_SIZE * 4 + 64; i++)
		mismatches += out[i] != 0xffffffff;
	printf("SIMD %u: %s\n", simd, mismatches ? "MISMATCH" : "matches the CPU reference");
	return mismatches ? -EIO : 0;
}

static void demo_fini(struct demo *d)
{
	struct weft_buffer *bos[] = { &d->code, &d->args, &d->out, &d->batch };
	size_t i;

	if (!d->dev)
		return;
	for (i = 0; i < sizeof(bos) / sizeof(bos[0]); i++) {
		if (bos[i]->handle)
			weft_buffer_destroy(d->dev, bos[i]);
	}
	if (d->syncobj)
		weft_syncobj_destroy(d->dev, d->syncobj);
	if (d->queue)
		weft_queue_destroy(d->dev, d->queue);
	if (d->vm)
		weft_vm_destroy(d->dev, d->vm);
	weft_device_close(d->dev);
}

int main(void)
{
	static const uint32_t widths[] = { 8, 16, 32 };
	struct demo d = { 0 };
	int ret;
	size_t i;

	ret = demo_init(&d);
	for (i = 0; !ret && i < sizeof(widths) / sizeof(widths[0]); i++)
		ret = demo_run(&d, widths[i]);
	demo_fini(&d);
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}
