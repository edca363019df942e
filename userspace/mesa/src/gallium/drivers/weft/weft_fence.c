/* SPDX-License-Identifier: MIT */
/*
 * Fences: one DRM syncobj per submit. A fence also owns the per-job buffers
 * (arguments and batch), released when it is known to have signalled.
 *
 * In the child of a fork(), the fences made before it are the parent's: their
 * syncobjs and buffers are handles of the parent's DRM file, which the child
 * no longer uses. They read as signalled there, and only their memory is freed.
 */
#include "util/u_inlines.h"
#include "util/u_memory.h"
#include "util/os_time.h"

#include "weft_screen.h"

struct weft_fence *
weft_fence_create(struct weft_screen *s)
{
   struct weft_fence *f = CALLOC_STRUCT(weft_fence);

   if (!f)
      return NULL;
   pipe_reference_init(&f->reference, 1);
   util_dynarray_init(&f->bos, NULL);
   f->generation = s->generation;
   if (weft_syncobj_create(s->dev, &f->syncobj)) {
      FREE(f);
      return NULL;
   }
   return f;
}

static void
weft_fence_release_bos(struct weft_screen *s, struct weft_fence *f)
{
   util_dynarray_foreach(&f->bos, struct weft_buffer_va, b)
      weft_buffer_va_destroy(s, b);
   util_dynarray_clear(&f->bos);
}

void
weft_fence_unref(struct weft_screen *s, struct weft_fence *f)
{
   if (f && pipe_reference(&f->reference, NULL)) {
      if (f->generation != s->generation) {
         util_dynarray_fini(&f->bos);
         FREE(f);
         return;
      }
      if (f->syncobj) {
         /* Never free what the GPU may still read. */
         weft_syncobj_wait(s->dev, f->syncobj, UINT64_MAX);
         weft_syncobj_destroy(s->dev, f->syncobj);
      }
      weft_fence_release_bos(s, f);
      util_dynarray_fini(&f->bos);
      FREE(f);
   }
}

bool
weft_fence_wait(struct weft_screen *s, struct weft_fence *f, uint64_t timeout)
{
   if (!f->syncobj || f->generation != s->generation)
      return true;
   /* libweft takes a relative timeout and adds it to the clock. */
   timeout = MIN2(timeout, 1ull << 62);
   int ret = weft_syncobj_wait(s->dev, f->syncobj, timeout);
   if (ret == -ETIME)
      return false;
   if (ret) {
      mesa_loge("weft: job failed: %s", strerror(-ret));
      f->error = ret;
   }
   return true;
}

/* Waits for every submit of the screen (for CPU access to buffers). */
void
weft_screen_wait_all(struct weft_screen *s)
{
   struct util_dynarray done;

   simple_mtx_lock(&s->lock);
   done = s->pending;
   util_dynarray_init(&s->pending, NULL);
   simple_mtx_unlock(&s->lock);

   util_dynarray_foreach(&done, struct weft_fence *, f) {
      weft_fence_wait(s, *f, UINT64_MAX);
      weft_fence_unref(s, *f);
   }
   util_dynarray_fini(&done);
}

static void
weft_fence_reference(struct pipe_screen *pscreen, struct pipe_fence_handle **ptr,
                     struct pipe_fence_handle *fence)
{
   struct weft_fence *old = (struct weft_fence *)*ptr;

   if (fence)
      p_atomic_inc(&((struct weft_fence *)fence)->reference.count);
   if (old)
      weft_fence_unref(weft_screen(pscreen), old);
   *ptr = fence;
}

static bool
weft_fence_finish(struct pipe_screen *pscreen, struct pipe_context *ctx,
                  struct pipe_fence_handle *fence, uint64_t timeout)
{
   return weft_fence_wait(weft_screen(pscreen), (struct weft_fence *)fence, timeout);
}

void
weft_init_screen_fence_functions(struct pipe_screen *pscreen)
{
   pscreen->fence_reference = weft_fence_reference;
   pscreen->fence_finish = weft_fence_finish;
}
