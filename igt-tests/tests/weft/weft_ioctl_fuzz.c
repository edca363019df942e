// SPDX-License-Identifier: MIT
/*
 * Copyright (C) 2026 The Weft authors
 *
 * A bounded, seeded ioctl fuzzer: thousands of calls of every Weft ioctl
 * (and the DRM syncobj and GEM ioctls they use) with random and hostile
 * arguments: random bytes, real and stale ids and handles, huge counts and
 * strides, bad pointers. The kernel must neither crash nor warn, and the
 * device must still run a checked dispatch afterwards. Set
 * WEFT_FUZZ_SEED and WEFT_FUZZ_CALLS to reproduce or lengthen a run.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <xf86drm.h>

#include "igt.h"
#include "igt_weft.h"
#include "write_ids.h"	/* weft_write_ids_kernel, from kernels/write_ids.s */

IGT_TEST_DESCRIPTION("Bounded random and hostile arguments to every Weft "
		     "ioctl.");

#define PAGE WEFT_PAGE_SIZE

static struct drm_weft_device_info info;
static uint64_t rng;

static uint64_t rnd(void)
{
	/* xorshift64*: reproducible from the seed. */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

/* Scratch the kernel may read: random bytes, sometimes valid structs. */
static uint8_t scratch[4 * 4096] __attribute__((aligned(64)));

static uint32_t ids[64];

/* Calls made and calls that succeeded, per kind, for the log. */
static const char *const kinds[] = {
	"QUERY", "BO_CREATE", "BO_MMAP_OFFSET", "VM_CREATE", "VM_DESTROY",
	"VM_BIND", "VM_BIND", "QUEUE_CREATE", "QUEUE_DESTROY", "SUBMIT",
	"SUBMIT", "SYNCOBJ/GEM_CLOSE",
};
static unsigned int calls_made[12], calls_ok[12];

static uint32_t rnd_id(void)
{
	switch (rnd() % 5) {
	case 0: return rnd();
	case 1: return rnd() % 8;
	default: return ids[rnd() % ARRAY_SIZE(ids)];
	}
}

static uint64_t rnd_u64(void)
{
	static const uint64_t special[] = {
		0, 1, 4, PAGE, PAGE - 1, 1ull << 20, 1ull << 47, 1ull << 48,
		~0ull, ~0ull - PAGE + 1, 0x8000000000000000ull, 0xffffffffull,
	};

	switch (rnd() % 4) {
	case 0: return rnd();
	case 1: return special[rnd() % ARRAY_SIZE(special)];
	case 2: return info.user_va_start + (rnd() % 64) * PAGE;
	default: return rnd() % 4096 * 4;
	}
}

static uint64_t rnd_ptr(void)
{
	switch (rnd() % 6) {
	case 0: return 0;
	case 1: return rnd();
	case 2: return 8;
	case 3: return to_user_pointer(scratch + sizeof(scratch) - 8);
	default: return to_user_pointer(scratch + rnd() % 64 * 8);
	}
}

static void rnd_array(struct drm_weft_obj_array *a, uint32_t size)
{
	switch (rnd() % 5) {
	case 0:
		a->stride = rnd();
		a->count = rnd();
		break;
	case 1:
		a->stride = size;
		a->count = rnd() % 4;
		break;
	case 2:
		a->stride = size + rnd() % 3 * 8;
		a->count = rnd() % 8;
		break;
	case 3:
		a->stride = size;
		a->count = 0xffffffffu - rnd() % 2;
		break;
	default:
		a->stride = a->count = 0;
		break;
	}
	a->array = rnd_ptr();
}

static void fill_scratch(void)
{
	uint32_t *w = (uint32_t *)scratch;

	for (size_t i = 0; i < 256; i++) {
		switch (rnd() % 4) {
		case 0: w[i] = rnd(); break;
		case 1: w[i] = rnd_id(); break;
		case 2: w[i] = 0; break;
		default: w[i] = (uint32_t)rnd_u64(); break;
		}
	}
}

/* Plausible syncs at @at in scratch: real handles, small points. */
static uint64_t plausible_syncs(struct drm_weft_obj_array *a, size_t at)
{
	struct drm_weft_sync *sync = (void *)(scratch + at);

	a->stride = sizeof(*sync);
	a->count = rnd() % 3;
	for (uint32_t i = 0; i < a->count; i++) {
		sync[i].flags = rnd() % 2;
		sync[i].handle = rnd_id();
		sync[i].point = sync[i].flags ? rnd() % 4 : 0;
	}
	return a->array = to_user_pointer(sync);
}

/* Mostly valid VM_BIND operations: real handles, aligned user VAs. */
static void plausible_bind(struct drm_weft_vm_bind *b)
{
	struct drm_weft_vm_bind_op *op = (void *)scratch;

	b->flags = rnd() % 2;
	b->ops.stride = sizeof(*op);
	b->ops.count = 1 + rnd() % 4;
	b->ops.array = to_user_pointer(op);
	for (uint32_t i = 0; i < b->ops.count; i++) {
		memset(&op[i], 0, sizeof(op[i]));
		op[i].op = rnd() % 2;
		op[i].handle = op[i].op ? 0 : rnd_id();
		op[i].flags = op[i].op ? 0 : rnd() % 4;
		op[i].bo_offset = op[i].op ? 0 : rnd() % 2 * PAGE;
		op[i].va = info.user_va_start + rnd() % 32 * PAGE;
		op[i].size = (1 + rnd() % 4) * PAGE;
	}
	plausible_syncs(&b->in_syncs, 2048);
	plausible_syncs(&b->out_syncs, 3072);
}

/* Mostly valid jobs: batches in the user range, real syncobjs. */
static void plausible_submit(struct drm_weft_submit *sub)
{
	struct drm_weft_job *job = (void *)(scratch + 4096);

	sub->jobs.stride = sizeof(*job);
	sub->jobs.count = 1 + rnd() % 3;
	sub->jobs.array = to_user_pointer(job);
	for (uint32_t i = 0; i < sub->jobs.count; i++) {
		memset(&job[i], 0, sizeof(job[i]));
		job[i].batch_va = info.user_va_start + rnd() % 32 * PAGE;
		job[i].batch_size = 4 * (1 + rnd() % 16);
		plausible_syncs(&job[i].in_syncs, 8192 + i * 256);
		plausible_syncs(&job[i].out_syncs, 8192 + i * 256 + 128);
	}
}

static const uint64_t bo_sizes[] = {
	0, 1, ~0ull, ~0ull - PAGE + 1, 1ull << 62, 1ull << 47, 1ull << 20,
};

/* One random call; returns the ioctl's result, for the id pool. */
static void fuzz_one(int fd)
{
	union {
		struct drm_weft_query query;
		struct drm_weft_bo_create bo;
		struct drm_weft_bo_mmap_offset mo;
		struct drm_weft_vm_create vc;
		struct drm_weft_vm_destroy vd;
		struct drm_weft_vm_bind bind;
		struct drm_weft_queue_create qc;
		struct drm_weft_queue_destroy qd;
		struct drm_weft_submit submit;
		struct drm_gem_close close;
		uint8_t raw[64];
	} a;
	unsigned int which = rnd() % 12;
	int ret;

	memset(&a, 0, sizeof(a));
	if (rnd() % 8 == 0) {
		for (size_t i = 0; i < sizeof(a.raw); i++)
			a.raw[i] = rnd();
	}
	if (rnd() % 3 == 0)
		fill_scratch();

	switch (which) {
	case 0:
		/*
		 * The kernel zero-fills up to size bytes at pointer: a
		 * pointer into scratch gets a size that fits.
		 */
		a.query.type = rnd() % 3 ? 0 : rnd();
		switch (rnd() % 3) {
		case 0:
			a.query.pointer = 0;
			a.query.size = rnd();
			break;
		case 1:
			a.query.pointer = rnd() % 2 ? 8 : ~0ull - 64;
			a.query.size = rnd();
			break;
		default:
			a.query.pointer = to_user_pointer(scratch);
			a.query.size = rnd() % sizeof(scratch);
			break;
		}
		ret = __weft_query(fd, &a.query);
		break;
	case 1:
		/* Small, or hostile: pinning RAM-sized buffers would OOM. */
		a.bo.size = rnd() % 4 ? rnd() % (64 * PAGE) :
			    bo_sizes[rnd() % ARRAY_SIZE(bo_sizes)];
		a.bo.flags = rnd() % 8 ? 0 : rnd();
		ret = __weft_bo_create(fd, &a.bo);
		if (!ret)
			ids[rnd() % ARRAY_SIZE(ids)] = a.bo.handle;
		break;
	case 2:
		a.mo.handle = rnd_id();
		a.mo.pad = rnd() % 8 ? 0 : rnd();
		ret = __weft_bo_mmap_offset(fd, &a.mo);
		break;
	case 3:
		a.vc.flags = rnd() % 8 ? 0 : rnd();
		ret = igt_ioctl(fd, DRM_IOCTL_WEFT_VM_CREATE, &a.vc);
		ret = ret ? -errno : 0;
		if (!ret)
			ids[rnd() % ARRAY_SIZE(ids)] = a.vc.id;
		break;
	case 4:
		ret = __weft_vm_destroy(fd, rnd_id());
		break;
	case 5:
	case 6:
		a.bind.vm_id = rnd_id();
		a.bind.flags = rnd() % 3 ? rnd() % 2 : rnd();
		rnd_array(&a.bind.ops, sizeof(struct drm_weft_vm_bind_op));
		if (rnd() % 2)
			rnd_array(&a.bind.in_syncs,
				  sizeof(struct drm_weft_sync));
		if (rnd() % 2)
			rnd_array(&a.bind.out_syncs,
				  sizeof(struct drm_weft_sync));
		if (rnd() % 2)
			plausible_bind(&a.bind);
		ret = __weft_vm_bind(fd, &a.bind);
		break;
	case 7:
		a.qc.vm_id = rnd_id();
		a.qc.priority = rnd() % 4 ? rnd() % 3 : rnd();
		a.qc.flags = rnd() % 8 ? 0 : rnd();
		ret = __weft_queue_create(fd, &a.qc);
		if (!ret)
			ids[rnd() % ARRAY_SIZE(ids)] = a.qc.id;
		break;
	case 8:
		ret = __weft_queue_destroy(fd, rnd_id());
		break;
	case 9:
	case 10:
		a.submit.queue_id = rnd_id();
		a.submit.flags = rnd() % 8 ? 0 : rnd();
		rnd_array(&a.submit.jobs, sizeof(struct drm_weft_job));
		if (rnd() % 2)
			plausible_submit(&a.submit);
		ret = __weft_submit(fd, &a.submit);
		break;
	default:
		if (rnd() % 2) {
			uint32_t h;

			ret = drmSyncobjCreate(fd, rnd() % 2, &h);
			if (!ret)
				ids[rnd() % ARRAY_SIZE(ids)] = h;
		} else {
			ret = __gem_close(fd, rnd_id());
		}
		break;
	}
	calls_made[which]++;
	calls_ok[which] += !ret;
	errno = 0;
}

/* Fails on a kernel warning, BUG or oops logged since @kmsg was opened. */
static void check_kmsg(int kmsg)
{
	static const char *const bad[] = {
		"WARNING:", "BUG:", "Oops", "Call Trace", "general protection",
		"refcount_t:", "KASAN", "UBSAN",
	};
	char rec[8192];
	ssize_t n;

	while ((n = read(kmsg, rec, sizeof(rec) - 1)) > 0) {
		rec[n] = 0;
		for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
			igt_assert_f(!strstr(rec, bad[i]), "kernel log: %s",
				     rec);
	}
}

/* write_ids over 256 work-items, every word checked. */
static void checked_dispatch(int fd)
{
	struct weft_dispatch d = {
		.simd = 16,
		.global_size = { 256, 1, 1 },
		.local_size = { 64, 1, 1 },
	};
	struct weft_bo *batch, *code, *args, *out;
	struct weft_batch b;
	uint32_t vm, queue, *w;

	vm = weft_vm_create(fd);
	queue = weft_queue_create(fd, vm, DRM_WEFT_QUEUE_PRIORITY_NORMAL);
	batch = weft_bo_new(fd, PAGE, vm, weft_test_va(&info, 0),
			    DRM_WEFT_VM_BIND_OP_MAP_READONLY);
	code = weft_bo_new(fd, sizeof(weft_write_ids_kernel), vm,
			   weft_test_va(&info, 1),
			   DRM_WEFT_VM_BIND_OP_MAP_READONLY |
			   DRM_WEFT_VM_BIND_OP_MAP_EXEC);
	args = weft_bo_new(fd, PAGE, vm, weft_test_va(&info, 2), 0);
	out = weft_bo_new(fd, 4 * PAGE, vm, weft_test_va(&info, 3), 0);
	memcpy(code->map, weft_write_ids_kernel, sizeof(weft_write_ids_kernel));
	*(uint64_t *)args->map = out->va;
	memset(out->map, 0xff, out->size);

	d.code_va = code->va;
	d.args_va = args->va;
	weft_batch_init(&b, batch->map, PAGE);
	weft_batch_dispatch(&b, &d);
	weft_batch_end(&b);
	igt_assert_eq(weft_submit_and_wait(fd, queue, batch->va,
					   weft_batch_size(&b)), 0);
	w = out->map;
	for (uint32_t gid = 0; gid < 256; gid++) {
		igt_assert_eq_u32(w[gid * 4 + 0], gid);
		igt_assert_eq_u32(w[gid * 4 + 1], gid / 64);
		igt_assert_eq_u32(w[gid * 4 + 2], gid % 64 / 16);
		igt_assert_eq_u32(w[gid * 4 + 3], gid % 16);
	}

	weft_queue_destroy(fd, queue);
	weft_bo_free(fd, out);
	weft_bo_free(fd, args);
	weft_bo_free(fd, code);
	weft_bo_free(fd, batch);
	weft_vm_destroy(fd, vm);
}

static void fuzz(uint64_t seed, unsigned int calls, unsigned int files)
{
	int kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (kmsg >= 0)
		lseek(kmsg, 0, SEEK_END);
	igt_info("seed %#" PRIx64 ", %u calls on %u files\n", seed, calls,
		 files);
	rng = seed ? seed : 1;
	for (unsigned int f = 0; f < files; f++) {
		int fd = drm_open_driver(DRIVER_WEFT);

		memset(ids, 0, sizeof(ids));
		for (unsigned int i = 0; i < calls / files; i++)
			fuzz_one(fd);
		drm_close_driver(fd);
	}
	for (unsigned int k = 0; k < ARRAY_SIZE(kinds); k++) {
		igt_info("%-18s %6u calls, %6u succeeded\n", kinds[k],
			 calls_made[k], calls_ok[k]);
		calls_made[k] = calls_ok[k] = 0;
	}
	if (kmsg >= 0) {
		check_kmsg(kmsg);
		close(kmsg);
	}
}

igt_main
{
	uint64_t seed = 0x5eed;
	unsigned int calls = 10000;
	int fd = -1;

	igt_fixture {
		if (getenv("WEFT_FUZZ_SEED"))
			seed = strtoull(getenv("WEFT_FUZZ_SEED"), NULL, 0);
		if (getenv("WEFT_FUZZ_CALLS"))
			calls = strtoul(getenv("WEFT_FUZZ_CALLS"), NULL, 0);
		fd = drm_open_driver(DRIVER_WEFT);
		weft_query_device_info(fd, &info);
	}

	igt_describe("Make thousands of seeded random ioctl calls, then check "
		     "the kernel log is clean and a checked dispatch runs.");
	igt_subtest("fuzz") {
		fuzz(seed, calls, 10);
		weft_assert_device_alive(fd);
		checked_dispatch(fd);
	}

	igt_describe("The same with another seed, on one file.");
	igt_subtest("fuzz-one-file") {
		fuzz(seed * 31 + 7, calls, 1);
		checked_dispatch(fd);
	}

	igt_describe("Check that a buffer larger than the machine's memory is "
		     "refused with -ENOMEM instead of being pinned when bound.");
	igt_subtest("bad-bo-create-larger-than-ram") {
		uint64_t ram = (uint64_t)sysconf(_SC_PHYS_PAGES) *
			       sysconf(_SC_PAGESIZE);
		struct drm_weft_bo_create create = {
			.size = ALIGN(ram, PAGE) + PAGE,
		};

		igt_assert_eq(__weft_bo_create(fd, &create), -ENOMEM);
		create.size = 1ull << 47;
		igt_assert_eq(__weft_bo_create(fd, &create), -ENOMEM);
	}

	igt_fixture {
		drm_close_driver(fd);
	}
}
