/* SPDX-License-Identifier: MIT */
/*
 * Buffers and images: GEM buffers of weft.ko, mapped for the CPU once and
 * bound into the screen's GPU VM at a VA from the screen's heap.  Images
 * are linear (rows of row_pitch bytes, slices or layers of slice_pitch),
 * so the CPU reaches them through the same mapping.
 */
#include "util/format/u_format.h"
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

   uint64_t size = templ->width0;
   uint32_t row_pitch = 0, slice_pitch = 0;

   if (templ->target != PIPE_BUFFER) {
      unsigned layers = templ->target == PIPE_TEXTURE_3D ? templ->depth0 : templ->array_size;
      unsigned height = templ->target == PIPE_TEXTURE_1D ||
                        templ->target == PIPE_TEXTURE_1D_ARRAY ? 1 : templ->height0;

      if (!weft_image_format_reported(templ->format) || templ->last_level ||
          templ->nr_samples > 1)
         return NULL;
      /* Rows start on 64 bytes, a cache line of the device. */
      row_pitch = align(templ->width0 * util_format_get_blocksize(templ->format), 64);
      slice_pitch = row_pitch * MAX2(height, 1);
      size = (uint64_t)slice_pitch * MAX2(layers, 1);
      if (size > UINT32_MAX)
         return NULL;
   }
   res = CALLOC_STRUCT(weft_resource);
   if (!res)
      return NULL;
   if (weft_buffer_va_create(s, size, 0, &b)) {
      FREE(res);
      return NULL;
   }
   res->row_pitch = row_pitch;
   res->slice_pitch = slice_pitch;
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

/* Byte offset of texel (x, y, z); buffers count bytes in x. */
static uint64_t
weft_resource_offset(const struct weft_resource *res, unsigned x, unsigned y, unsigned z)
{
   if (res->base.target == PIPE_BUFFER)
      return x;
   return (uint64_t)z * res->slice_pitch + (uint64_t)y * res->row_pitch +
          (uint64_t)x * util_format_get_blocksize(res->base.format);
}

/* Buffers and images alike: the CPU's own mapping, once the GPU is done. */
static void *
weft_resource_map(struct pipe_context *pctx, struct pipe_resource *pres, unsigned level,
                  unsigned usage, const struct pipe_box *box,
                  struct pipe_transfer **out)
{
   struct weft_resource *res = weft_resource(pres);
   struct pipe_transfer *t;

   if (level)
      return NULL;
   t = CALLOC_STRUCT(pipe_transfer);
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
   t->stride = res->row_pitch;
   t->layer_stride = res->slice_pitch;
   *out = t;
   return (uint8_t *)res->bo.map + weft_resource_offset(res, box->x, box->y, box->z);
}

static void
weft_resource_unmap(struct pipe_context *pctx, struct pipe_transfer *t)
{
   pipe_resource_reference(&t->resource, NULL);
   FREE(t);
}

/* Between any two resources of the same texel size, row by row. */
static void
weft_resource_copy_region(struct pipe_context *pctx, struct pipe_resource *dst,
                          unsigned dst_level, unsigned dstx, unsigned dsty,
                          unsigned dstz, struct pipe_resource *src,
                          unsigned src_level, const struct pipe_box *box)
{
   struct weft_resource *d = weft_resource(dst), *sr = weft_resource(src);
   unsigned bytes = box->width;

   if (src->target != PIPE_BUFFER)
      bytes *= util_format_get_blocksize(src->format);
   /* The memory is the CPU's: copy once the GPU is done with both. */
   pctx->flush(pctx, NULL, 0);
   weft_screen_wait_all(weft_screen(pctx->screen));
   for (int z = 0; z < box->depth; z++) {
      for (int y = 0; y < box->height; y++) {
         memmove((uint8_t *)d->bo.map + weft_resource_offset(d, dstx, dsty + y, dstz + z),
                 (uint8_t *)sr->bo.map + weft_resource_offset(sr, box->x, box->y + y, box->z + z),
                 bytes);
      }
   }
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
   pctx->buffer_map = weft_resource_map;
   pctx->buffer_unmap = weft_resource_unmap;
   pctx->buffer_subdata = u_default_buffer_subdata;
   pctx->texture_map = weft_resource_map;
   pctx->texture_unmap = weft_resource_unmap;
   pctx->texture_subdata = u_default_texture_subdata;
   pctx->resource_copy_region = weft_resource_copy_region;
   pctx->clear_buffer = weft_clear_buffer;
}
