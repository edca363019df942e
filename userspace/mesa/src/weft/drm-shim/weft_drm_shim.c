/* SPDX-License-Identifier: MIT */
/*
 * weft drm-shim: Mesa on the Weft GPU without the kernel. LD_PRELOAD'ed, it
 * fakes the render node of weft.ko and runs its uAPI on the device model
 * (libweftmodel's sources, built in) in-process:
 *
 * - GEM buffers live in the shim's memory file, which is also the model's
 *   "guest memory": a buffer's offset in it is its physical address;
 * - VMs are 4-level page tables in that memory, written like weft.ko does;
 * - a submit writes SET_VM, BATCH and FENCE to hardware queue 0's ring,
 *   rings the doorbell and waits for the model to go idle (submits are
 *   synchronous: the fences signal at once, a failed job carries its error);
 * - sync objects are a table here; an exported sync file is a shim fd whose
 *   SYNC_IOC_FILE_INFO reports the job's status.
 *
 * One lock serializes every ioctl, so any number of threads may share the
 * device. The model starts on the first ioctl: a process that only has the
 * shim preloaded (a shell, make) starts no threads. Across fork() the child
 * gets a device of its own, as separate processes have on weft.ko: a copy of
 * the memory file taken at the fork (the parent's mappings of it would
 * otherwise be shared by every process, whose allocators hand out the same
 * addresses) and, on its first ioctl, a model of its own (threads do not
 * survive fork()). What the child inherited (fds, buffers, VMs) keeps
 * working on the copy; on weft.ko it would stay shared with the parent.
 *
 * Usage: LD_PRELOAD=libweft_drm_shim.so RUSTICL_ENABLE=weft clinfo
 *
 * WEFT_SHIM_WATCHDOG=N: the model's watchdog, in sub-group instructions per
 * dispatch (the default is the hardware's), so tests of runaway kernels end
 * in seconds.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <linux/sync_file.h>

#include "drm-shim/drm_shim.h"
#include "drm-uapi/drm.h"
#include "util/hash_table.h"
#include "util/u_math.h"

#include "weft_drm.h"
#include "weft_cs_regs.h"
#include "weft_mmu_regs.h"
#include "weft_model.h"
#include "weft_regs.h"

#define SHIM_MEM_SIZE   (4ull << 30)   /* the drm-shim core's memory file */
#define RING_SIZE       (64 * 1024)
#define MAX_OBJS        4096

bool drm_shim_driver_prefers_first_render_node = true;
extern ioctl_fn_t core_ioctls[];

struct weft_shim_vm {
   bool used;
   uint64_t root;                 /* GPA of the level-0 table */
};

struct weft_shim_syncobj {
   bool used;
   bool signaled;
   int status;                    /* 0, or the failed job's -errno */
};

static struct {
   pthread_mutex_t lock;          /* held by every ioctl */
   pthread_cond_t signaled;       /* a sync object was signalled */
   uint8_t *mem;                  /* the whole memory file */
   uint32_t *regs;
   struct weft_model *model;      /* NULL until the first ioctl */
   const char *lost;              /* why the device cannot run: ioctls fail */
   bool lost_reported;
   uint64_t ring, fence_gpa;
   uint32_t tail;
   uint64_t seq;
   struct weft_shim_vm vms[MAX_OBJS];
   uint32_t queue_vm[MAX_OBJS];   /* queue id -> VM id (0: free) */
   struct weft_shim_syncobj syncobjs[MAX_OBJS];
   struct hash_table *sync_files; /* fd + 1 -> status + 1 */
} shim;

static int
fail(int err)
{
   errno = err;
   return -1;
}

static uint32_t
reg(uint32_t off)
{
   return __atomic_load_n(&shim.regs[off / 4], __ATOMIC_ACQUIRE);
}

static void
wreg(uint32_t off, uint32_t v)
{
   __atomic_store_n(&shim.regs[off / 4], v, __ATOMIC_RELEASE);
}

/* Zeroed pages from the shim's heap, never freed (page tables, ring). */
static uint64_t
alloc_pages(uint64_t size)
{
   struct shim_bo *bo = calloc(1, sizeof(*bo));

   if (!bo || drm_shim_bo_init(bo, ALIGN_POT(size, 4096)))
      abort();
   memset(shim.mem + bo->mem_addr, 0, bo->size);
   return bo->mem_addr;
}

static void
vm_map_page(uint64_t root, uint64_t va, uint64_t pte)
{
   uint64_t table = root;

   for (int level = 0; level < WEFT_MMU_LEVELS - 1; level++) {
      unsigned idx = (va >> (WEFT_MMU_PAGE_SHIFT + WEFT_MMU_LEVEL_BITS * (3 - level))) & 511;
      uint64_t *e = (uint64_t *)(shim.mem + table) + idx;

      if (!(*e & WEFT_PTE_VALID)) {
         if (!pte)
            return;
         *e = alloc_pages(4096) | WEFT_PTE_VALID;
      }
      table = *e & WEFT_PTE_ADDR_MASK;
   }
   ((uint64_t *)(shim.mem + table))[(va >> WEFT_MMU_PAGE_SHIFT) & 511] = pte;
}

static void
signal_syncs(const struct drm_weft_obj_array *a, int status)
{
   for (uint32_t i = 0; i < a->count; i++) {
      const struct drm_weft_sync *s =
         (const void *)(uintptr_t)(a->array + (uint64_t)i * a->stride);

      if (s->handle && s->handle < MAX_OBJS && shim.syncobjs[s->handle].used) {
         shim.syncobjs[s->handle].signaled = true;
         shim.syncobjs[s->handle].status = status;
      }
   }
   pthread_cond_broadcast(&shim.signaled);
}

/* The first free id in 1 .. MAX_OBJS - 1 (under shim.lock), 0 when none. */
static uint32_t
alloc_id(bool (*is_free)(uint32_t id))
{
   for (uint32_t id = 1; id < MAX_OBJS; id++) {
      if (is_free(id))
         return id;
   }
   return 0;
}

static bool
vm_is_free(uint32_t id)
{
   return !shim.vms[id].used;
}

static bool
queue_is_free(uint32_t id)
{
   return !shim.queue_vm[id];
}

static bool
syncobj_is_free(uint32_t id)
{
   return !shim.syncobjs[id].used;
}

/* ---- weft ioctls ---------------------------------------------------------- */

static int
weft_shim_query(int fd, unsigned long request, void *arg)
{
   struct drm_weft_query *q = arg;
   struct drm_weft_device_info info = {
      .signature = reg(WEFT_REG_SIGNATURE),
      .hw_version = reg(WEFT_REG_VERSION),
      .max_wg_size = reg(WEFT_REG_MAX_WG_SIZE),
      .slm_size = reg(WEFT_REG_SLM_SIZE),
      .va_bits = reg(WEFT_REG_VA_BITS),
      .num_queues = reg(WEFT_REG_NUM_QUEUES),
      .num_cores = reg(WEFT_REG_NUM_CORES),
      .user_va_start = 1ull << 20,
      .user_va_end = 1ull << 47,
   };
   uint32_t caps = reg(WEFT_REG_CAPS);

   info.simd_widths = (caps & WEFT_CAP_SIMD8 ? 8 : 0) | (caps & WEFT_CAP_SIMD16 ? 16 : 0) |
                      (caps & WEFT_CAP_SIMD32 ? 32 : 0);
   if (q->type != DRM_WEFT_QUERY_DEVICE_INFO)
      return fail(EINVAL);
   if (q->pointer) {
      memset((void *)(uintptr_t)q->pointer, 0, q->size);
      memcpy((void *)(uintptr_t)q->pointer, &info, MIN2(q->size, sizeof(info)));
   }
   q->size = sizeof(info);
   return 0;
}

static int
weft_shim_bo_create(int fd, unsigned long request, void *arg)
{
   struct shim_fd *shim_fd = drm_shim_fd_lookup(fd);
   struct drm_weft_bo_create *c = arg;
   struct shim_bo *bo = calloc(1, sizeof(*bo));
   uint64_t size = ALIGN_POT(MAX2(c->size, 1), 4096);

   if (!bo || size > UINT32_MAX || drm_shim_bo_init(bo, size)) {
      free(bo);
      return fail(ENOMEM);
   }
   memset(shim.mem + bo->mem_addr, 0, size);
   c->handle = drm_shim_bo_get_handle(shim_fd, bo);
   c->size = size;
   drm_shim_bo_put(bo);
   return 0;
}

static int
weft_shim_bo_mmap_offset(int fd, unsigned long request, void *arg)
{
   struct shim_fd *shim_fd = drm_shim_fd_lookup(fd);
   struct drm_weft_bo_mmap_offset *m = arg;
   struct shim_bo *bo = drm_shim_bo_lookup(shim_fd, m->handle);

   if (!bo)
      return fail(ENOENT);
   m->offset = drm_shim_bo_get_mmap_offset(shim_fd, bo);
   drm_shim_bo_put(bo);
   return 0;
}

static int
weft_shim_vm_create(int fd, unsigned long request, void *arg)
{
   struct drm_weft_vm_create *c = arg;

   uint32_t id = alloc_id(vm_is_free);
   if (id) {
      shim.vms[id].used = true;
      shim.vms[id].root = alloc_pages(4096);
      c->id = id;
   }
   return id ? 0 : fail(ENOSPC);
}

static int
weft_shim_vm_destroy(int fd, unsigned long request, void *arg)
{
   struct drm_weft_vm_destroy *d = arg;

   if (!d->id || d->id >= MAX_OBJS || !shim.vms[d->id].used)
      return fail(ENOENT);
   shim.vms[d->id].used = false;   /* its page tables are leaked */
   return 0;
}

static int
weft_shim_vm_bind(int fd, unsigned long request, void *arg)
{
   struct shim_fd *shim_fd = drm_shim_fd_lookup(fd);
   struct drm_weft_vm_bind *b = arg;
   int ret = 0;

   if (!b->vm_id || b->vm_id >= MAX_OBJS || !shim.vms[b->vm_id].used)
      return fail(ENOENT);
   for (uint32_t i = 0; i < b->ops.count && !ret; i++) {
      const struct drm_weft_vm_bind_op *op =
         (const void *)(uintptr_t)(b->ops.array + (uint64_t)i * b->ops.stride);
      uint64_t root = shim.vms[b->vm_id].root;

      if (op->op == DRM_WEFT_VM_BIND_OP_MAP) {
         struct shim_bo *bo = drm_shim_bo_lookup(shim_fd, op->handle);
         uint64_t flags = WEFT_PTE_VALID;

         if (!bo || op->bo_offset + op->size > bo->size) {
            ret = fail(EINVAL);
            if (bo)
               drm_shim_bo_put(bo);
            break;
         }
         if (!(op->flags & DRM_WEFT_VM_BIND_OP_MAP_READONLY))
            flags |= WEFT_PTE_WRITE;
         if (op->flags & DRM_WEFT_VM_BIND_OP_MAP_EXEC)
            flags |= WEFT_PTE_EXEC;
         for (uint64_t off = 0; off < op->size; off += 4096)
            vm_map_page(root, op->va + off, (bo->mem_addr + op->bo_offset + off) | flags);
         drm_shim_bo_put(bo);
      } else if (op->op == DRM_WEFT_VM_BIND_OP_UNMAP) {
         for (uint64_t off = 0; off < op->size; off += 4096)
            vm_map_page(root, op->va + off, 0);
      } else {
         ret = fail(EINVAL);
      }
   }
   if (!ret)
      signal_syncs(&b->out_syncs, 0);
   return ret;
}

static int
weft_shim_queue_create(int fd, unsigned long request, void *arg)
{
   struct drm_weft_queue_create *c = arg;

   if (!c->vm_id || c->vm_id >= MAX_OBJS || !shim.vms[c->vm_id].used)
      return fail(ENOENT);
   uint32_t id = alloc_id(queue_is_free);
   if (id) {
      shim.queue_vm[id] = c->vm_id;
      c->id = id;
   }
   return id ? 0 : fail(ENOSPC);
}

static int
weft_shim_queue_destroy(int fd, unsigned long request, void *arg)
{
   struct drm_weft_queue_destroy *d = arg;

   if (!d->id || d->id >= MAX_OBJS || !shim.queue_vm[d->id])
      return fail(ENOENT);
   shim.queue_vm[d->id] = 0;
   return 0;
}

static void
ring_emit(const uint32_t *dw, unsigned n)
{
   uint32_t *ring = (uint32_t *)(shim.mem + shim.ring);

   for (unsigned i = 0; i < n; i++)
      ring[shim.tail++ % (RING_SIZE / 4)] = dw[i];
}

/* Runs one job on hardware queue 0; returns 0 or the job's -errno. */
static int
run_job(uint32_t vm_id, const struct drm_weft_job *job)
{
   uint64_t root = shim.vms[vm_id].root;
   uint64_t seq = ++shim.seq;
   uint32_t cmds[] = {
      WEFT_CMD_HEADER(WEFT_CMD_SET_VM, WEFT_CMD_SET_VM_LEN), (uint32_t)root,
      (uint32_t)(root >> 32), vm_id,
      WEFT_CMD_HEADER(WEFT_CMD_BATCH, WEFT_CMD_BATCH_LEN), (uint32_t)job->batch_va,
      (uint32_t)(job->batch_va >> 32), job->batch_size,
      WEFT_CMD_HEADER(WEFT_CMD_FENCE, WEFT_CMD_FENCE_LEN), (uint32_t)shim.fence_gpa,
      (uint32_t)(shim.fence_gpa >> 32), (uint32_t)seq, (uint32_t)(seq >> 32), 0,
   };

   ring_emit(cmds, ARRAY_SIZE(cmds));
   wreg(WEFT_QUEUE_REG(0, WEFT_Q_TAIL), shim.tail);
   weft_model_doorbell(shim.model);
   weft_model_wait_idle(shim.model);

   if (reg(WEFT_QUEUE_REG(0, WEFT_Q_STATUS)) == WEFT_Q_STATUS_ERROR) {
      uint32_t code = reg(WEFT_QUEUE_REG(0, WEFT_Q_ERROR_CODE));
      uint32_t req = reg(WEFT_QUEUE_REG(0, WEFT_Q_RESET_REQ)) + 1;

      fprintf(stderr, "weft drm-shim: job failed: queue error %u at 0x%08x%08x\n", code,
              reg(WEFT_QUEUE_REG(0, WEFT_Q_ERROR_ADDR_HI)),
              reg(WEFT_QUEUE_REG(0, WEFT_Q_ERROR_ADDR_LO)));
      /* Reset the queue: it starts again at the current TAIL. */
      wreg(WEFT_QUEUE_REG(0, WEFT_Q_RESET_REQ), req);
      weft_model_doorbell(shim.model);
      weft_model_wait_idle(shim.model);
      return code == WEFT_QERR_MMU_FAULT ? -EFAULT :
             code == WEFT_QERR_WATCHDOG ? -ETIMEDOUT : -EIO;
   }
   return 0;
}

static int
weft_shim_submit(int fd, unsigned long request, void *arg)
{
   struct drm_weft_submit *s = arg;
   uint32_t vm_id;

   if (!s->queue_id || s->queue_id >= MAX_OBJS || !(vm_id = shim.queue_vm[s->queue_id]))
      return fail(ENOENT);
   for (uint32_t i = 0; i < s->jobs.count; i++) {
      const struct drm_weft_job *job =
         (const void *)(uintptr_t)(s->jobs.array + (uint64_t)i * s->jobs.stride);
      int status = run_job(vm_id, job);

      signal_syncs(&job->out_syncs, status);
   }
   return 0;
}

/* ---- sync objects and sync files --------------------------------------------- */

static int
weft_shim_syncobj_create(int fd, unsigned long request, void *arg)
{
   struct drm_syncobj_create *c = arg;

   uint32_t h = alloc_id(syncobj_is_free);
   if (h) {
      shim.syncobjs[h] = (struct weft_shim_syncobj){
         .used = true,
         .signaled = c->flags & DRM_SYNCOBJ_CREATE_SIGNALED,
      };
      c->handle = h;
   }
   return h ? 0 : fail(ENOSPC);
}

static int
weft_shim_syncobj_destroy(int fd, unsigned long request, void *arg)
{
   struct drm_syncobj_destroy *d = arg;

   if (!d->handle || d->handle >= MAX_OBJS || !shim.syncobjs[d->handle].used)
      return fail(EINVAL);
   shim.syncobjs[d->handle].used = false;
   return 0;
}

/* Whether the wait in @w is over: 0, -1 with errno, or 1 to go on waiting. */
static int
syncobj_wait_done(struct drm_syncobj_wait *w)
{
   const uint32_t *handles = (const void *)(uintptr_t)w->handles;
   uint32_t signaled = 0;

   for (uint32_t i = 0; i < w->count_handles; i++) {
      if (!handles[i] || handles[i] >= MAX_OBJS || !shim.syncobjs[handles[i]].used)
         return fail(EINVAL);
      if (shim.syncobjs[handles[i]].signaled) {
         if (!signaled++)
            w->first_signaled = i;
      } else if (!(w->flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT)) {
         /* Submits are synchronous: an unsignalled syncobj has no fence. */
         return fail(EINVAL);
      }
   }
   if (w->flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL ? signaled == w->count_handles : signaled)
      return 0;
   return 1;
}

static int
weft_shim_syncobj_wait(int fd, unsigned long request, void *arg)
{
   struct drm_syncobj_wait *w = arg;
   /* timeout_nsec is an absolute CLOCK_MONOTONIC time, as for the kernel. */
   struct timespec deadline = {
      .tv_sec = w->timeout_nsec / 1000000000,
      .tv_nsec = w->timeout_nsec % 1000000000,
   };
   int ret;

   if (!w->count_handles)
      return fail(EINVAL);
   /* Another thread's submit may signal it (WAIT_FOR_SUBMIT). */
   while ((ret = syncobj_wait_done(w)) > 0) {
      if (pthread_cond_timedwait(&shim.signaled, &shim.lock, &deadline) == ETIMEDOUT &&
          (ret = syncobj_wait_done(w)) > 0)
         return fail(ETIME);
   }
   return ret;
}

static int
weft_shim_syncobj_reset(int fd, unsigned long request, void *arg)
{
   struct drm_syncobj_array *a = arg;
   const uint32_t *handles = (const void *)(uintptr_t)a->handles;

   for (uint32_t i = 0; i < a->count_handles; i++) {
      if (!handles[i] || handles[i] >= MAX_OBJS || !shim.syncobjs[handles[i]].used)
         return fail(EINVAL);
   }
   for (uint32_t i = 0; i < a->count_handles; i++)
      shim.syncobjs[handles[i]].signaled = false;
   return 0;
}

static int
weft_shim_syncobj_handle_to_fd(int fd, unsigned long request, void *arg)
{
   struct drm_syncobj_handle *h = arg;
   int sync_fd;

   if (!(h->flags & DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE))
      return fail(EINVAL);
   if (!h->handle || h->handle >= MAX_OBJS || !shim.syncobjs[h->handle].used)
      return fail(EINVAL);
   /* A sync file: a shim fd whose SYNC_IOC_FILE_INFO tells the status. */
   sync_fd = dup(shim_device.mem_fd);
   if (sync_fd < 0)
      return -1;
   drm_shim_fd_register(sync_fd, NULL);
   _mesa_hash_table_insert(shim.sync_files, (void *)(uintptr_t)(sync_fd + 1),
                           (void *)(uintptr_t)(shim.syncobjs[h->handle].signaled ?
                                               (shim.syncobjs[h->handle].status < 0 ?
                                                shim.syncobjs[h->handle].status : 1) : 0) + 1);
   h->fd = sync_fd;
   return 0;
}

static int
weft_shim_other_ioctl(int fd, unsigned long request, void *arg)
{
   if (request == SYNC_IOC_FILE_INFO) {
      struct sync_file_info *info = arg;
      struct hash_entry *e;

      pthread_mutex_lock(&shim.lock);
      e = _mesa_hash_table_search(shim.sync_files, (void *)(uintptr_t)(fd + 1));
      if (e) {
         info->status = (int)((intptr_t)e->data - 1);
         _mesa_hash_table_remove(shim.sync_files, e);
      }
      pthread_mutex_unlock(&shim.lock);
      return e ? 0 : fail(EINVAL);
   }
   return fail(ENOTTY);
}

/* ---- the device: started on first use, and again after a fork ---------------- */

/* Starts the model (shim.lock held); NULL, or why it cannot run. */
static const char *
model_start(void)
{
   struct weft_model_config cfg = {
      .regs = shim.regs,
      .mem = shim.mem,
      .mem_size = SHIM_MEM_SIZE,
   };

   if (getenv("WEFT_SHIM_WATCHDOG"))
      cfg.watchdog = strtoull(getenv("WEFT_SHIM_WATCHDOG"), NULL, 0);
   shim.model = weft_model_create(&cfg);
   if (!shim.model)
      return "the device model does not start";
   /* A child's ring is its parent's, in its copy of the memory. */
   if (!shim.ring) {
      shim.ring = alloc_pages(RING_SIZE);
      shim.fence_gpa = alloc_pages(4096);
   }
   shim.tail = 0;
   wreg(WEFT_QUEUE_REG(0, WEFT_Q_RING_BASE_LO), (uint32_t)shim.ring);
   wreg(WEFT_QUEUE_REG(0, WEFT_Q_RING_BASE_HI), (uint32_t)(shim.ring >> 32));
   wreg(WEFT_QUEUE_REG(0, WEFT_Q_RING_SIZE), RING_SIZE);
   wreg(WEFT_QUEUE_REG(0, WEFT_Q_ENABLE), 1);
   wreg(WEFT_REG_DRIVER_READY, WEFT_DRIVER_READY);
   weft_model_doorbell(shim.model);
   weft_model_wait_idle(shim.model);
   if (reg(WEFT_REG_DEVICE_STATUS) != WEFT_DEVICE_RUNNING)
      return "the device model did not start";
   return NULL;
}

/*
 * Whether the device runs (shim.lock held), starting it on first use; when
 * it cannot, every ioctl fails with ENODEV, as on a GPU that is gone.
 */
static bool
device_start(void)
{
   if (!shim.model && !shim.lost)
      shim.lost = model_start();
   if (shim.lost && !shim.lost_reported) {
      fprintf(stderr, "weft drm-shim: %s: the device is lost\n", shim.lost);
      shim.lost_reported = true;
   }
   errno = ENODEV;
   return !shim.lost;
}

/* The one entry of every ioctl the shim implements, by _IOC_NR. */
static const ioctl_fn_t weft_shim_ioctls[] = {
   [DRM_COMMAND_BASE + DRM_WEFT_QUERY] = weft_shim_query,
   [DRM_COMMAND_BASE + DRM_WEFT_BO_CREATE] = weft_shim_bo_create,
   [DRM_COMMAND_BASE + DRM_WEFT_BO_MMAP_OFFSET] = weft_shim_bo_mmap_offset,
   [DRM_COMMAND_BASE + DRM_WEFT_VM_CREATE] = weft_shim_vm_create,
   [DRM_COMMAND_BASE + DRM_WEFT_VM_DESTROY] = weft_shim_vm_destroy,
   [DRM_COMMAND_BASE + DRM_WEFT_VM_BIND] = weft_shim_vm_bind,
   [DRM_COMMAND_BASE + DRM_WEFT_QUEUE_CREATE] = weft_shim_queue_create,
   [DRM_COMMAND_BASE + DRM_WEFT_QUEUE_DESTROY] = weft_shim_queue_destroy,
   [DRM_COMMAND_BASE + DRM_WEFT_SUBMIT] = weft_shim_submit,
   [_IOC_NR(DRM_IOCTL_SYNCOBJ_CREATE)] = weft_shim_syncobj_create,
   [_IOC_NR(DRM_IOCTL_SYNCOBJ_DESTROY)] = weft_shim_syncobj_destroy,
   [_IOC_NR(DRM_IOCTL_SYNCOBJ_WAIT)] = weft_shim_syncobj_wait,
   [_IOC_NR(DRM_IOCTL_SYNCOBJ_RESET)] = weft_shim_syncobj_reset,
   [_IOC_NR(DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD)] = weft_shim_syncobj_handle_to_fd,
};

static int
weft_shim_ioctl(int fd, unsigned long request, void *arg)
{
   int ret;

   pthread_mutex_lock(&shim.lock);
   ret = device_start() ? weft_shim_ioctls[_IOC_NR(request)](fd, request, arg) : -1;
   pthread_mutex_unlock(&shim.lock);
   return ret;
}

static ioctl_fn_t driver_ioctls[DRM_COMMAND_END - DRM_COMMAND_BASE];

/* ---- fork ------------------------------------------------------------------- */

/*
 * /proc/self/maps, read whole before any mapping changes, into an anonymous
 * mapping of MAPS_MAX bytes (only what is read is backed). NULL on failure.
 */
#define MAPS_MAX (16u << 20)

static char *
read_own_maps(size_t *len)
{
   char *buf = mmap(NULL, MAPS_MAX, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
   int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
   ssize_t n = 0;

   *len = 0;
   if (buf == MAP_FAILED || fd < 0)
      goto fail;
   while (*len < MAPS_MAX && (n = read(fd, buf + *len, MAPS_MAX - *len)) > 0)
      *len += n;
   if (n < 0 || *len == MAPS_MAX)
      goto fail;
   close(fd);
   return buf;
fail:
   if (fd >= 0)
      close(fd);
   if (buf != MAP_FAILED)
      munmap(buf, MAPS_MAX);
   return NULL;
}

static uint64_t
parse_hex(const char **p)
{
   uint64_t v = 0;

   for (;; (*p)++) {
      char c = **p;
      unsigned d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : 16;

      if (d == 16)
         return v;
      v = v * 16 + d;
   }
}

/*
 * Remaps every mapping of the file @st at the same address, protection and
 * offset onto @fd (a line of maps: "start-end rwsp offset major:minor inode").
 */
static bool
remap_file(const struct stat *st, int fd)
{
   size_t len;
   char *maps = read_own_maps(&len);
   bool ok = maps != NULL;

   for (const char *p = maps, *end = maps + len; ok && p < end;) {
      const char *eol = memchr(p, '\n', end - p);
      uint64_t start, stop, offset, major, minor, inode;
      const char *perms;

      eol = eol ? eol : end;
      start = parse_hex(&p), p++;
      stop = parse_hex(&p), p++;
      perms = p, p += 5;
      offset = parse_hex(&p), p++;
      major = parse_hex(&p), p++;
      minor = parse_hex(&p), p++;
      inode = strtoull(p, NULL, 10);
      if (inode == st->st_ino && makedev(major, minor) == st->st_dev) {
         int prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
                    (perms[2] == 'x' ? PROT_EXEC : 0);
         int flags = (perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE) | MAP_FIXED;

         ok = mmap((void *)(uintptr_t)start, stop - start, prot, flags, fd, offset) != MAP_FAILED;
      }
      p = eol + 1;
   }
   if (maps)
      munmap(maps, MAPS_MAX);
   return ok;
}

/*
 * The child's own memory file: a copy of the shared one's data, mapped
 * wherever the shared one was, under the same fd number. System calls only
 * (an atfork child handler).
 */
static bool
own_memory_file(void)
{
   int shared = shim_device.mem_fd;
   int fd = memfd_create("shim mem", MFD_CLOEXEC);
   uint8_t *copy = MAP_FAILED;
   struct stat st;
   bool ok = false;

   if (fd < 0 || ftruncate(fd, SHIM_MEM_SIZE) || fstat(shared, &st))
      goto out;
   copy = mmap(NULL, SHIM_MEM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
   if (copy == MAP_FAILED)
      goto out;
   /* Only the pages written so far hold data; the rest stays a hole. */
   for (off_t data = 0; (data = lseek(shared, data, SEEK_DATA)) >= 0;) {
      off_t hole = lseek(shared, data, SEEK_HOLE);

      if (hole < 0)
         goto out;
      memcpy(copy + data, shim.mem + data, hole - data);
      data = hole;
   }
   ok = remap_file(&st, fd) && dup3(fd, shared, O_CLOEXEC) == shared;
out:
   if (copy != MAP_FAILED)
      munmap(copy, SHIM_MEM_SIZE);
   if (fd >= 0)
      close(fd);
   return ok;
}

/* No ioctl runs across a fork, so the model is idle and the memory consistent. */
static void
fork_prepare(void)
{
   pthread_mutex_lock(&shim.lock);
}

static void
fork_parent(void)
{
   pthread_mutex_unlock(&shim.lock);
}

static void
fork_child(void)
{
   pthread_condattr_t attr;

   /* The parent's model is left as it is: its threads are gone, and memory
    * never touched again costs nothing (copy on write). The next ioctl
    * starts the child's own.
    */
   shim.model = NULL;
   if (!own_memory_file())
      shim.lost = "a forked child cannot copy its parent's memory";
   /* Waiters of the parent's threads are not the child's. */
   pthread_condattr_init(&attr);
   pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
   pthread_cond_init(&shim.signaled, &attr);
   pthread_condattr_destroy(&attr);
   pthread_mutex_unlock(&shim.lock);
}

void
drm_shim_driver_init(void)
{
   pthread_condattr_t attr;

   for (unsigned i = 0; i < ARRAY_SIZE(driver_ioctls); i++)
      driver_ioctls[i] = weft_shim_ioctls[DRM_COMMAND_BASE + i] ? weft_shim_ioctl : NULL;
   shim_device.bus_type = DRM_BUS_PLATFORM;
   shim_device.driver_name = "weft";
   shim_device.driver_ioctls = driver_ioctls;
   shim_device.driver_ioctl_count = ARRAY_SIZE(driver_ioctls);
   shim_device.driver_other_ioctl = weft_shim_other_ioctl;
   shim_device.version_major = 1;
   core_ioctls[_IOC_NR(DRM_IOCTL_SYNCOBJ_CREATE)] = weft_shim_ioctl;
   core_ioctls[_IOC_NR(DRM_IOCTL_SYNCOBJ_DESTROY)] = weft_shim_ioctl;
   core_ioctls[_IOC_NR(DRM_IOCTL_SYNCOBJ_WAIT)] = weft_shim_ioctl;
   core_ioctls[_IOC_NR(DRM_IOCTL_SYNCOBJ_RESET)] = weft_shim_ioctl;
   core_ioctls[_IOC_NR(DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD)] = weft_shim_ioctl;

   drm_shim_override_file("DRIVER=weft\n"
                          "OF_FULLNAME=/weft\n"
                          "OF_COMPATIBLE_0=weft,gpu\n"
                          "OF_COMPATIBLE_N=1\n",
                          "/sys/dev/char/%d:%d/device/uevent", DRM_MAJOR,
                          render_node_minor);

   pthread_mutex_init(&shim.lock, NULL);
   pthread_condattr_init(&attr);
   pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
   pthread_cond_init(&shim.signaled, &attr);
   pthread_condattr_destroy(&attr);
   shim.sync_files = _mesa_hash_table_create(NULL, _mesa_hash_pointer,
                                             _mesa_key_pointer_equal);
   shim.mem = mmap(NULL, SHIM_MEM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
                   shim_device.mem_fd, 0);
   shim.regs = aligned_alloc(4096, WEFT_REGS_SIZE);
   if (shim.mem == MAP_FAILED || !shim.regs)
      abort();
   memset(shim.regs, 0, WEFT_REGS_SIZE);
   /* After the drm-shim core's: fork then takes shim.lock before the core's
    * locks, which ioctls take inside it.
    */
   pthread_atfork(fork_prepare, fork_parent, fork_child);
}
