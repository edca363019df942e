/* SPDX-License-Identifier: MIT */
/*
 * Buffers: GEM buffers of weft.ko, mapped for the CPU once and bound into
 * the screen's GPU VM at a VA from the screen's heap. Only PIPE_BUFFER:
 * the device has no images.
 */
#include "util/u_inlines.h"
#include "util/u_memory.h"
#include "util/u_transfer.h"

#include "weft_screen.h"

int
weft_buffer_va_create(struct weft_screen *s, uint64_t size, uint32_t flags,
                      struct weft_buffer_va *out)
{
   struct weft_buffer_va b = {0};
   int ret;

   size = align64(MAX2(size, 1), 4096);
   ret = weft_buffer_create(s->dev, size, &b.bo);
   if (ret)
      return ret;
   ret = weft_buffer_map(s->dev, &b.bo);
   if (ret)
      goto fail_bo;
   simple_mtx_lock(&s->lock);
   b.va = util_vma_heap_alloc(&s->heap, b.bo.size, 4096);
   simple_mtx_unlock(&s->lock);
   if (!b.va) {
      ret = -ENOMEM;
      goto fail_bo;
   }
   ret = weft_vm_map(s->dev, s->vm, &b.bo, 0, b.va, b.bo.size, flags);
   if (ret)
      goto fail_va;
   *out = b;
   return 0;

fail_va:
   simple_mtx_lock(&s->lock);
   util_vma_heap_free(&s->heap, b.va, b.bo.size);
   simple_mtx_unlock(&s->lock);
fail_bo:
   weft_buffer_destroy(s->dev, &b.bo);
   return ret;
}

void
weft_buffer_va_destroy(struct weft_screen *s, struct weft_buffer_va *b)
{
   weft_vm_unmap(s->dev, s->vm, b->va, b->bo.size);
   simple_mtx_lock(&s->lock);
   util_vma_heap_free(&s->heap, b->va, b->bo.size);
   simple_mtx_unlock(&s->lock);
   weft_buffer_destroy(s->dev, &b->bo);
}

static struct pipe_resource *
weft_resource_create(struct pipe_screen *pscreen, const struct pipe_resource *templ)
{
   struct weft_screen *s = weft_screen(pscreen);
   struct weft_resource *res;
   struct weft_buffer_va b;

   if (templ->target != PIPE_BUFFER)
      return NULL;
   res = CALLOC_STRUCT(weft_resource);
   if (!res)
      return NULL;
   if (weft_buffer_va_create(s, templ->width0, 0, &b)) {
      FREE(res);
      return NULL;
   }
   res->base = *templ;
   res->base.screen = pscreen;
   pipe_reference_init(&res->base.reference, 1);
   res->bo = b.bo;
   res->va = b.va;
   return &res->base;
}

static void
weft_resource_destroy(struct pipe_screen *pscreen, struct pipe_resource *pres)
{
   struct weft_screen *s = weft_screen(pscreen);
   struct weft_resource *res = weft_resource(pres);
   struct weft_buffer_va b = { .bo = res->bo, .va = res->va };

   /* The GPU may still use it: wait before the pages go away. */
   weft_screen_wait_all(s);
   weft_buffer_va_destroy(s, &b);
   FREE(res);
}

void
weft_init_screen_resource_functions(struct pipe_screen *pscreen)
{
   pscreen->resource_create = weft_resource_create;
   pscreen->resource_destroy = weft_resource_destroy;
}

static void *
weft_resource_buffer_map(struct pipe_context *pctx, struct pipe_resource *pres, unsigned level,
                unsigned usage, const struct pipe_box *box,
                struct pipe_transfer **out)
{
   struct weft_resource *res = weft_resource(pres);
   struct pipe_transfer *t = CALLOC_STRUCT(pipe_transfer);

   if (!t)
      return NULL;
   if (!(usage & PIPE_MAP_UNSYNCHRONIZED)) {
      pctx->flush(pctx, NULL, 0);
      weft_screen_wait_all(weft_screen(pctx->screen));
   }
   pipe_resource_reference(&t->resource, pres);
   t->level = level;
   t->usage = usage;
   t->box = *box;
   *out = t;
   return (uint8_t *)res->bo.map + box->x;
}

static void
weft_resource_buffer_unmap(struct pipe_context *pctx, struct pipe_transfer *t)
{
   pipe_resource_reference(&t->resource, NULL);
   FREE(t);
}

static void *
weft_texture_map(struct pipe_context *pctx, struct pipe_resource *pres, unsigned level,
                 unsigned usage, const struct pipe_box *box,
                 struct pipe_transfer **out)
{
   return NULL;
}

static void
weft_texture_unmap(struct pipe_context *pctx, struct pipe_transfer *t)
{
}

static void
weft_texture_subdata(struct pipe_context *pctx, struct pipe_resource *pres,
                     unsigned level, unsigned usage, const struct pipe_box *box,
                     const void *data, unsigned stride, uintptr_t layer_stride)
{
}

static void
weft_resource_copy_region(struct pipe_context *pctx, struct pipe_resource *dst,
                          unsigned dst_level, unsigned dstx, unsigned dsty,
                          unsigned dstz, struct pipe_resource *src,
                          unsigned src_level, const struct pipe_box *box)
{
   /* The memory is the CPU's: copy once the GPU is done with both. */
   pctx->flush(pctx, NULL, 0);
   weft_screen_wait_all(weft_screen(pctx->screen));
   memmove((uint8_t *)weft_resource(dst)->bo.map + dstx,
           (uint8_t *)weft_resource(src)->bo.map + box->x, box->width);
}

static void
weft_clear_buffer(struct pipe_context *pctx, struct pipe_resource *pres,
                  unsigned offset, unsigned size, const void *value, int value_size)
{
   uint8_t *map = (uint8_t *)weft_resource(pres)->bo.map + offset;

   pctx->flush(pctx, NULL, 0);
   weft_screen_wait_all(weft_screen(pctx->screen));
   for (unsigned i = 0; i + value_size <= size; i += value_size)
      memcpy(map + i, value, value_size);
}

void
weft_init_context_resource_functions(struct pipe_context *pctx)
{
   pctx->buffer_map = weft_resource_buffer_map;
   pctx->buffer_unmap = weft_resource_buffer_unmap;
   pctx->buffer_subdata = u_default_buffer_subdata;
   pctx->texture_map = weft_texture_map;
   pctx->texture_unmap = weft_texture_unmap;
   pctx->texture_subdata = weft_texture_subdata;
   pctx->resource_copy_region = weft_resource_copy_region;
   pctx->clear_buffer = weft_clear_buffer;
}
