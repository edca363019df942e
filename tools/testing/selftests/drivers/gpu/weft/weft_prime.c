// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copyright (C) 2026 The Weft authors
 *
 * dma-buf sharing (PRIME) of Weft buffers: Weft to Weft within a file,
 * across files and across processes, and to and from vgem, another
 * driver. Every path checks that what one mapping writes the others read:
 * the GEM mapping of the exporter, that of the importer, and the mapping
 * of the dma-buf itself. The vgem tests load vgem (CONFIG_DRM_VGEM).
 */
#include <drm/drm_mode.h>

#include "kselftest_harness.h"
#include "weft_ksft.h"

FIXTURE(prime) {
	int fd;
	int other;
};

FIXTURE_VARIANT(prime) {
	size_t size;
};

FIXTURE_VARIANT_ADD(prime, page) {
	.size = WEFT_PAGE_SIZE,
};

/* More than 1 MiB in pages: not a power of two, several sg entries. */
FIXTURE_VARIANT_ADD(prime, large) {
	.size = 257 * WEFT_PAGE_SIZE,
};

FIXTURE_SETUP(prime)
{
	self->fd = weft_open();
	ASSERT_LE(0, self->fd);
	self->other = weft_open();
	ASSERT_LE(0, self->other);
}

FIXTURE_TEARDOWN(prime)
{
	close(self->other);
	close(self->fd);
}

/* A new buffer of file @fd filled with pattern @seed: its handle. */
static uint32_t new_filled_bo(struct __test_metadata *_metadata, int fd,
			      size_t size, uint32_t seed)
{
	uint32_t handle;
	void *map;

	map = weft_bo_new_filled(fd, size, seed, &handle);
	ASSERT_NE(NULL, map);
	munmap(map, size);
	return handle;
}

/*
 * @a and @b map the same memory: each sees the pattern the other writes,
 * in both directions, first and last page included.
 */
static void expect_coherent(struct __test_metadata *_metadata, void *a,
			    void *b, size_t size, uint32_t seed)
{
	EXPECT_EQ(-1, pattern_mismatch(b, size, seed));
	pattern_fill(a, size, seed + 1);
	EXPECT_EQ(-1, pattern_mismatch(b, size, seed + 1));
	pattern_fill(b, size, seed + 2);
	EXPECT_EQ(-1, pattern_mismatch(a, size, seed + 2));
}

static void dmabuf_sync(struct __test_metadata *_metadata, int dmabuf,
			uint64_t flags)
{
	struct dma_buf_sync sync = { .flags = flags };

	ASSERT_EQ(0, weft_ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync));
}

TEST_F(prime, export_import_same_file)
{
	uint32_t handle, imported;
	int dmabuf;

	handle = new_filled_bo(_metadata, self->fd, variant->size, 1);
	dmabuf = prime_export(self->fd, handle, DRM_CLOEXEC | DRM_RDWR);
	ASSERT_LE(0, dmabuf);
	/* The dma-buf has the buffer's size. */
	EXPECT_EQ((off_t)variant->size, lseek(dmabuf, 0, SEEK_END));

	/* Imported into its own file, it is the same handle. */
	ASSERT_EQ(0, prime_import(self->fd, dmabuf, &imported));
	EXPECT_EQ(handle, imported);
	close(dmabuf);
	EXPECT_EQ(0, gem_close(self->fd, handle));
	/* The handle was the only one: now it is gone. */
	EXPECT_EQ(-EINVAL, gem_close(self->fd, handle));
}

TEST_F(prime, export_twice_same_dmabuf)
{
	struct stat first, second;
	uint32_t handle;
	int a, b;

	handle = new_filled_bo(_metadata, self->fd, variant->size, 2);
	a = prime_export(self->fd, handle, DRM_CLOEXEC);
	b = prime_export(self->fd, handle, DRM_CLOEXEC);
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	/* One buffer, one dma-buf: the same file behind both descriptors. */
	ASSERT_EQ(0, fstat(a, &first));
	ASSERT_EQ(0, fstat(b, &second));
	EXPECT_EQ(first.st_ino, second.st_ino);
	close(a);
	close(b);
}

TEST_F(prime, import_other_file_coherent)
{
	uint32_t handle, imported, again;
	void *exporter, *importer, *direct;
	int dmabuf;

	handle = new_filled_bo(_metadata, self->fd, variant->size, 3);
	dmabuf = prime_export(self->fd, handle, DRM_CLOEXEC | DRM_RDWR);
	ASSERT_LE(0, dmabuf);
	ASSERT_EQ(0, prime_import(self->other, dmabuf, &imported));
	/* A second import into the same file finds the same handle. */
	ASSERT_EQ(0, prime_import(self->other, dmabuf, &again));
	EXPECT_EQ(imported, again);

	exporter = weft_bo_map(self->fd, handle, variant->size);
	importer = weft_bo_map(self->other, imported, variant->size);
	direct = dmabuf_map(dmabuf, variant->size);
	ASSERT_NE(NULL, exporter);
	ASSERT_NE(NULL, importer);
	ASSERT_NE(NULL, direct);
	expect_coherent(_metadata, exporter, importer, variant->size, 3);
	dmabuf_sync(_metadata, dmabuf, DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW);
	expect_coherent(_metadata, importer, direct, variant->size, 5);
	dmabuf_sync(_metadata, dmabuf, DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW);
	expect_coherent(_metadata, direct, exporter, variant->size, 7);

	munmap(exporter, variant->size);
	munmap(importer, variant->size);
	munmap(direct, variant->size);
	close(dmabuf);
}

TEST_F(prime, reexport_of_import_same_dmabuf)
{
	struct stat first, second;
	uint32_t handle, imported;
	int dmabuf, again;

	handle = new_filled_bo(_metadata, self->fd, variant->size, 9);
	dmabuf = prime_export(self->fd, handle, DRM_CLOEXEC);
	ASSERT_LE(0, dmabuf);
	ASSERT_EQ(0, prime_import(self->other, dmabuf, &imported));
	again = prime_export(self->other, imported, DRM_CLOEXEC);
	ASSERT_LE(0, again);
	ASSERT_EQ(0, fstat(dmabuf, &first));
	ASSERT_EQ(0, fstat(again, &second));
	EXPECT_EQ(first.st_ino, second.st_ino);
	close(again);
	close(dmabuf);
}

TEST_F(prime, import_outlives_exporter_file)
{
	uint32_t handle, imported;
	void *map;
	int fd, dmabuf;

	fd = weft_open();
	ASSERT_LE(0, fd);
	handle = new_filled_bo(_metadata, fd, variant->size, 13);
	dmabuf = prime_export(fd, handle, DRM_CLOEXEC | DRM_RDWR);
	ASSERT_LE(0, dmabuf);
	/* The exporter's handle and file go before the import. */
	EXPECT_EQ(0, gem_close(fd, handle));
	close(fd);

	ASSERT_EQ(0, prime_import(self->other, dmabuf, &imported));
	close(dmabuf);
	map = weft_bo_map(self->other, imported, variant->size);
	ASSERT_NE(NULL, map);
	EXPECT_EQ(-1, pattern_mismatch(map, variant->size, 13));
	munmap(map, variant->size);
	EXPECT_EQ(0, gem_close(self->other, imported));
}

/*
 * Child of share_across_processes: imports the dma-buf it receives into a
 * file of its own, checks the parent's pattern and writes its own.
 */
static int importing_process(int sock, size_t size)
{
	uint32_t handle, seed;
	int fd, dmabuf;
	void *map;

	fd = weft_open();
	dmabuf = recv_fd(sock, &seed);
	if (fd < 0 || dmabuf < 0)
		return 1;
	if (prime_import(fd, dmabuf, &handle))
		return 2;
	close(dmabuf);
	map = weft_bo_map(fd, handle, size);
	if (!map)
		return 3;
	if (pattern_mismatch(map, size, seed) >= 0)
		return 4;
	pattern_fill(map, size, seed + 1);
	return 0;
}

TEST_F(prime, share_across_processes)
{
	uint32_t handle;
	int sv[2], dmabuf;
	void *map;
	pid_t pid;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(importing_process(sv[1], variant->size));

	handle = new_filled_bo(_metadata, self->fd, variant->size, 21);
	dmabuf = prime_export(self->fd, handle, DRM_CLOEXEC | DRM_RDWR);
	ASSERT_LE(0, dmabuf);
	ASSERT_EQ(0, send_fd(sv[0], dmabuf, 21));
	close(dmabuf);
	ASSERT_EQ(0, wait_child(pid));

	/* The child has exited: what it wrote stays in the buffer. */
	map = weft_bo_map(self->fd, handle, variant->size);
	ASSERT_NE(NULL, map);
	EXPECT_EQ(-1, pattern_mismatch(map, variant->size, 22));
	munmap(map, variant->size);
}

TEST_F(prime, export_bad_handle)
{
	uint32_t handle;

	EXPECT_EQ(-ENOENT, prime_export(self->fd, 0x7fffffff, DRM_CLOEXEC));
	handle = new_filled_bo(_metadata, self->fd, variant->size, 0);
	/* Only DRM_CLOEXEC and DRM_RDWR are flags of PRIME_HANDLE_TO_FD. */
	EXPECT_EQ(-EINVAL, prime_export(self->fd, handle, 0x100));
	/* Another file's handle is not this file's. */
	EXPECT_EQ(-ENOENT, prime_export(self->other, handle, DRM_CLOEXEC));
}

TEST_F(prime, import_bad_fd)
{
	uint32_t handle;
	int pipes[2];

	ASSERT_EQ(0, pipe(pipes));
	EXPECT_EQ(-EINVAL, prime_import(self->fd, pipes[0], &handle));
	/* A Weft file is not a dma-buf either. */
	EXPECT_EQ(-EINVAL, prime_import(self->fd, self->other, &handle));
	close(pipes[0]);
	close(pipes[1]);
	EXPECT_EQ(-EBADF, prime_import(self->fd, pipes[0], &handle));
	EXPECT_EQ(-EBADF, prime_import(self->fd, -1, &handle));
}

TEST_F(prime, dmabuf_sync_bad_flags)
{
	struct dma_buf_sync sync = { .flags = DMA_BUF_SYNC_START };
	uint32_t handle;
	int dmabuf;

	handle = new_filled_bo(_metadata, self->fd, variant->size, 0);
	dmabuf = prime_export(self->fd, handle, DRM_CLOEXEC | DRM_RDWR);
	ASSERT_LE(0, dmabuf);
	/* Neither READ nor WRITE. */
	EXPECT_EQ(-EINVAL, weft_ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync));
	sync.flags = DMA_BUF_SYNC_RW | 0x100;
	EXPECT_EQ(-EINVAL, weft_ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync));
	close(dmabuf);
}

/* vgem: a second driver in the guest, loaded on demand. */
FIXTURE(vgem) {
	int weft;
	int vgem;
};

FIXTURE_VARIANT(vgem) {
	size_t size;
};

FIXTURE_VARIANT_ADD(vgem, page) {
	.size = WEFT_PAGE_SIZE,
};

FIXTURE_VARIANT_ADD(vgem, large) {
	.size = 257 * WEFT_PAGE_SIZE,
};

FIXTURE_SETUP(vgem)
{
	self->weft = weft_open();
	ASSERT_LE(0, self->weft);
	self->vgem = drm_open_driver_node("vgem", "card");
	if (self->vgem < 0 && !geteuid() &&
	    !system("modprobe vgem 2>/dev/null"))
		self->vgem = drm_open_driver_node("vgem", "card");
	if (self->vgem < 0)
		SKIP(return, "no vgem device (CONFIG_DRM_VGEM)");
}

FIXTURE_TEARDOWN(vgem)
{
	close(self->weft);
	if (self->vgem >= 0)
		close(self->vgem);
}

/* A vgem buffer of @size bytes and its mapping. */
static void *vgem_new_mapped(struct __test_metadata *_metadata, int fd,
			     size_t size, uint32_t *handle)
{
	struct drm_mode_create_dumb create = {
		.width = WEFT_PAGE_SIZE / 4,
		.height = size / WEFT_PAGE_SIZE,
		.bpp = 32,
	};
	struct drm_mode_map_dumb map = { 0 };
	void *ptr;

	ASSERT_EQ(0, weft_ioctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &create));
	ASSERT_LE(size, create.size);
	map.handle = create.handle;
	ASSERT_EQ(0, weft_ioctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &map));
	ptr = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   map.offset);
	ASSERT_NE(MAP_FAILED, ptr);
	*handle = create.handle;
	return ptr;
}

TEST_F(vgem, vgem_to_weft)
{
	uint32_t vgem_handle, weft_handle;
	void *vgem_map_ptr, *weft_map_ptr;
	int dmabuf;

	vgem_map_ptr = vgem_new_mapped(_metadata, self->vgem, variant->size,
				       &vgem_handle);
	pattern_fill(vgem_map_ptr, variant->size, 31);
	dmabuf = prime_export(self->vgem, vgem_handle, DRM_CLOEXEC | DRM_RDWR);
	ASSERT_LE(0, dmabuf);
	ASSERT_EQ(0, prime_import(self->weft, dmabuf, &weft_handle));
	close(dmabuf);

	weft_map_ptr = weft_bo_map(self->weft, weft_handle, variant->size);
	ASSERT_NE(NULL, weft_map_ptr);
	expect_coherent(_metadata, vgem_map_ptr, weft_map_ptr, variant->size,
			31);
	munmap(weft_map_ptr, variant->size);
	munmap(vgem_map_ptr, variant->size);
	EXPECT_EQ(0, gem_close(self->weft, weft_handle));
}

TEST_F(vgem, weft_to_vgem)
{
	struct drm_mode_map_dumb map_dumb = { 0 };
	uint32_t vgem_handle, weft_handle, back;
	void *weft_map_ptr, *direct;
	int dmabuf, again;

	weft_handle = new_filled_bo(_metadata, self->weft, variant->size, 41);
	dmabuf = prime_export(self->weft, weft_handle, DRM_CLOEXEC | DRM_RDWR);
	ASSERT_LE(0, dmabuf);
	/* vgem attaches to Weft's buffer and maps it for its own device. */
	ASSERT_EQ(0, prime_import(self->vgem, dmabuf, &vgem_handle));

	/* An importer maps through the dma-buf, not through its own node. */
	map_dumb.handle = vgem_handle;
	EXPECT_EQ(-EINVAL, weft_ioctl(self->vgem, DRM_IOCTL_MODE_MAP_DUMB,
				      &map_dumb));
	weft_map_ptr = weft_bo_map(self->weft, weft_handle, variant->size);
	ASSERT_NE(NULL, weft_map_ptr);
	direct = dmabuf_map(dmabuf, variant->size);
	ASSERT_NE(NULL, direct);
	expect_coherent(_metadata, weft_map_ptr, direct, variant->size, 41);
	munmap(weft_map_ptr, variant->size);
	munmap(direct, variant->size);
	close(dmabuf);

	/*
	 * The import keeps the buffer after Weft's handle is gone, and vgem
	 * hands Weft's dma-buf back: Weft finds its own buffer again.
	 */
	EXPECT_EQ(0, gem_close(self->weft, weft_handle));
	again = prime_export(self->vgem, vgem_handle, DRM_CLOEXEC | DRM_RDWR);
	ASSERT_LE(0, again);
	ASSERT_EQ(0, prime_import(self->weft, again, &back));
	close(again);
	weft_map_ptr = weft_bo_map(self->weft, back, variant->size);
	ASSERT_NE(NULL, weft_map_ptr);
	EXPECT_EQ(-1, pattern_mismatch(weft_map_ptr, variant->size, 43));
	munmap(weft_map_ptr, variant->size);
	EXPECT_EQ(0, gem_close(self->weft, back));
}

TEST_F(vgem, round_trip_back_to_vgem)
{
	uint32_t vgem_handle, weft_handle, back;
	int dmabuf, again;
	void *map;

	map = vgem_new_mapped(_metadata, self->vgem, variant->size,
			      &vgem_handle);
	munmap(map, variant->size);
	dmabuf = prime_export(self->vgem, vgem_handle, DRM_CLOEXEC | DRM_RDWR);
	ASSERT_LE(0, dmabuf);
	ASSERT_EQ(0, prime_import(self->weft, dmabuf, &weft_handle));
	close(dmabuf);

	/* Weft hands out vgem's own dma-buf, so vgem finds its buffer. */
	again = prime_export(self->weft, weft_handle, DRM_CLOEXEC | DRM_RDWR);
	ASSERT_LE(0, again);
	ASSERT_EQ(0, prime_import(self->vgem, again, &back));
	EXPECT_EQ(vgem_handle, back);
	close(again);
}

TEST_HARNESS_MAIN
