/* SPDX-License-Identifier: MIT */
/*
 * Images: sampler views, shader images and sampler states bound to compute,
 * the image descriptors written after the kernel arguments at each launch,
 * and the kernel variants compiled per combination of bound formats and
 * sampler states (weft_nir_lower_images does the access itself; the
 * design is in the manual's images.rst).
 */
#include "util/format/u_format.h"
#include "util/u_inlines.h"
#include "util/u_memory.h"

#include "weft_screen.h"

/* The formats the device reports: OpenCL's CL_R, CL_RG and CL_RGBA orders
 * with every channel type the lowering converts, and CL_BGRA of
 * CL_UNORM_INT8 that the full profile's minimum list has. */
bool
weft_image_format_reported(enum pipe_format format)
{
   const struct util_format_description *fd = util_format_description(format);
   static const unsigned char rgba[3][4] = {
      { PIPE_SWIZZLE_X, PIPE_SWIZZLE_0, PIPE_SWIZZLE_0, PIPE_SWIZZLE_1 },
      { PIPE_SWIZZLE_X, PIPE_SWIZZLE_Y, PIPE_SWIZZLE_0, PIPE_SWIZZLE_1 },
      { PIPE_SWIZZLE_X, PIPE_SWIZZLE_Y, PIPE_SWIZZLE_Z, PIPE_SWIZZLE_W },
   };

   if (format == PIPE_FORMAT_B8G8R8A8_UNORM)
      return true;
   if (!weft_image_format_supported(format))
      return false;
   return !memcmp(fd->swizzle, rgba[fd->nr_channels == 4 ? 2 : fd->nr_channels - 1], 4);
}

static void *
weft_create_sampler_state(struct pipe_context *pctx, const struct pipe_sampler_state *state)
{
   struct weft_sampler_key *k = CALLOC_STRUCT(weft_sampler_key);

   if (!k)
      return NULL;
   /* OpenCL sets the same addressing mode and filter on every axis. */
   switch (state->wrap_s) {
   case PIPE_TEX_WRAP_CLAMP_TO_BORDER: k->wrap = WEFT_WRAP_CLAMP_TO_BORDER; break;
   case PIPE_TEX_WRAP_REPEAT: k->wrap = WEFT_WRAP_REPEAT; break;
   case PIPE_TEX_WRAP_MIRROR_REPEAT: k->wrap = WEFT_WRAP_MIRRORED_REPEAT; break;
   default: k->wrap = WEFT_WRAP_CLAMP_TO_EDGE; break;
   }
   k->linear = state->min_img_filter == PIPE_TEX_FILTER_LINEAR;
   k->normalized = !state->unnormalized_coords;
   return k;
}

static void
weft_delete_sampler_state(struct pipe_context *pctx, void *state)
{
   FREE(state);
}

static void
weft_bind_sampler_states(struct pipe_context *pctx, enum pipe_shader_type shader,
                         unsigned start, unsigned count, void **states)
{
   struct weft_context *ctx = weft_context(pctx);

   for (unsigned i = 0; i < count && start + i < WEFT_MAX_SAMPLERS; i++) {
      const struct weft_sampler_key *k = states ? states[i] : NULL;

      ctx->samplers[start + i] = k ? *k : (struct weft_sampler_key){0};
   }
}

static struct pipe_sampler_view *
weft_create_sampler_view(struct pipe_context *pctx, struct pipe_resource *res,
                         const struct pipe_sampler_view *templ)
{
   struct pipe_sampler_view *view = CALLOC_STRUCT(pipe_sampler_view);

   if (!view)
      return NULL;
   *view = *templ;
   view->texture = NULL;
   pipe_resource_reference(&view->texture, res);
   pipe_reference_init(&view->reference, 1);
   view->context = pctx;
   return view;
}

static void
weft_sampler_view_destroy(struct pipe_context *pctx, struct pipe_sampler_view *view)
{
   pipe_resource_reference(&view->texture, NULL);
   FREE(view);
}

static void
weft_set_sampler_views(struct pipe_context *pctx, enum pipe_shader_type shader,
                       unsigned start, unsigned count, unsigned unbind_trailing,
                       bool take_ownership, struct pipe_sampler_view **views)
{
   struct weft_context *ctx = weft_context(pctx);

   for (unsigned i = 0; i < count + unbind_trailing && start + i < WEFT_MAX_TEXTURES; i++) {
      struct pipe_sampler_view *v = views && i < count ? views[i] : NULL;
      struct pipe_sampler_view **slot = &ctx->views[start + i];

      if (take_ownership && v) {
         pipe_sampler_view_reference(slot, NULL);
         *slot = v;
      } else {
         pipe_sampler_view_reference(slot, v);
      }
   }
}

static void
weft_set_shader_images(struct pipe_context *pctx, enum pipe_shader_type shader,
                       unsigned start, unsigned count, unsigned unbind_trailing,
                       const struct pipe_image_view *images)
{
   struct weft_context *ctx = weft_context(pctx);

   for (unsigned i = 0; i < count + unbind_trailing && start + i < WEFT_MAX_IMAGES; i++) {
      struct pipe_image_view *slot = &ctx->images[start + i];

      if (images && i < count) {
         util_copy_image_view(slot, &images[i]);
      } else {
         pipe_resource_reference(&slot->resource, NULL);
         memset(slot, 0, sizeof(*slot));
      }
   }
}

void
weft_context_unbind_images(struct weft_context *ctx)
{
   for (unsigned i = 0; i < WEFT_MAX_TEXTURES; i++)
      pipe_sampler_view_reference(&ctx->views[i], NULL);
   for (unsigned i = 0; i < WEFT_MAX_IMAGES; i++)
      pipe_resource_reference(&ctx->images[i].resource, NULL);
}

void
weft_init_context_image_functions(struct pipe_context *pctx)
{
   pctx->create_sampler_state = weft_create_sampler_state;
   pctx->delete_sampler_state = weft_delete_sampler_state;
   pctx->bind_sampler_states = weft_bind_sampler_states;
   pctx->create_sampler_view = weft_create_sampler_view;
   pctx->sampler_view_destroy = weft_sampler_view_destroy;
   pctx->set_sampler_views = weft_set_sampler_views;
   pctx->set_shader_images = weft_set_shader_images;
}

unsigned
weft_image_descriptors_size(const struct weft_compute_state *cs)
{
   return (cs->num_textures + cs->num_images) * WEFT_IMAGE_DESC_SIZE;
}

/* One descriptor: the view's first layer or element is texel (0, 0, 0). */
static void
weft_write_descriptor(uint8_t *d, struct pipe_resource *pres, enum pipe_format format,
                      bool is_buffer, unsigned offset, unsigned size, unsigned first_layer,
                      unsigned last_layer)
{
   struct weft_resource *res = weft_resource(pres);
   unsigned bpp = util_format_get_blocksize(format);
   uint64_t base = res->va;
   uint32_t width, height = 1, depth = 1, row_pitch, slice_pitch;

   if (is_buffer) {
      base += offset;
      width = size / bpp;
      row_pitch = slice_pitch = width * bpp;
   } else {
      width = pres->width0;
      row_pitch = res->row_pitch;
      slice_pitch = res->slice_pitch;
      if (pres->target != PIPE_TEXTURE_1D && pres->target != PIPE_TEXTURE_1D_ARRAY)
         height = pres->height0;
      if (pres->target == PIPE_TEXTURE_3D) {
         depth = pres->depth0;
      } else {
         base += (uint64_t)first_layer * slice_pitch;
         depth = last_layer >= first_layer ? last_layer - first_layer + 1 : 1;
      }
   }
   uint32_t fields[WEFT_IMAGE_DESC_SIZE / 4] = {0};

   fields[WEFT_IMAGE_DESC_BASE / 4] = (uint32_t)base;
   fields[WEFT_IMAGE_DESC_BASE / 4 + 1] = (uint32_t)(base >> 32);
   fields[WEFT_IMAGE_DESC_WIDTH_BYTES / 4] = width * bpp;
   fields[WEFT_IMAGE_DESC_HEIGHT / 4] = height;
   fields[WEFT_IMAGE_DESC_ROW_PITCH / 4] = row_pitch;
   fields[WEFT_IMAGE_DESC_WIDTH / 4] = width;
   fields[WEFT_IMAGE_DESC_DEPTH / 4] = depth;
   fields[WEFT_IMAGE_DESC_SLICE_PITCH / 4] = slice_pitch;
   fields[WEFT_IMAGE_DESC_FORMAT / 4] = format;
   memcpy(d, fields, sizeof(fields));
}

/* An unbound slot gets a descriptor of an empty image: reads return the
 * border, writes go nowhere. */
void
weft_write_image_descriptors(struct weft_context *ctx, const struct weft_compute_state *cs,
                             uint8_t *dst)
{
   memset(dst, 0, weft_image_descriptors_size(cs));
   for (unsigned i = 0; i < cs->num_textures; i++, dst += WEFT_IMAGE_DESC_SIZE) {
      const struct pipe_sampler_view *v = ctx->views[i];

      if (!v || !v->texture)
         continue;
      weft_write_descriptor(dst, v->texture, v->format, v->target == PIPE_BUFFER,
                            v->u.buf.offset, v->u.buf.size, v->u.tex.first_layer,
                            v->u.tex.last_layer);
   }
   for (unsigned i = 0; i < cs->num_images; i++, dst += WEFT_IMAGE_DESC_SIZE) {
      const struct pipe_image_view *v = &ctx->images[i];

      if (!v->resource)
         continue;
      weft_write_descriptor(dst, v->resource, v->format, v->resource->target == PIPE_BUFFER,
                            v->u.buf.offset, v->u.buf.size, v->u.tex.first_layer,
                            v->u.tex.last_layer);
   }
}

static void
weft_image_key_from_context(const struct weft_context *ctx, const struct weft_compute_state *cs,
                            struct weft_image_key *key)
{
   memset(key, 0, sizeof(*key));
   for (unsigned i = 0; i < cs->num_textures; i++)
      key->texture_format[i] = ctx->views[i] ? ctx->views[i]->format : 0;
   for (unsigned i = 0; i < cs->num_images; i++)
      key->image_format[i] = ctx->images[i].resource ? ctx->images[i].format : 0;
   for (unsigned i = 0; i < cs->num_samplers; i++)
      key->sampler[i] = ctx->samplers[i];
}

/* The kernel compiled for what is bound now: found, or compiled once. */
const struct weft_variant *
weft_image_variant(struct weft_context *ctx, struct weft_compute_state *cs)
{
   struct weft_screen *s = weft_screen(ctx->base.screen);
   struct weft_variant *v = NULL;
   struct weft_image_key key;
   char *error = NULL;

   weft_image_key_from_context(ctx, cs, &key);
   simple_mtx_lock(&cs->lock);
   util_dynarray_foreach(&cs->variants, struct weft_variant *, it) {
      if (!memcmp(&(*it)->key, &key, sizeof(key))) {
         v = *it;
         goto out;
      }
   }
   v = CALLOC_STRUCT(weft_variant);
   if (!v)
      goto out;
   v->key = key;
   /* At the width Rusticl was told and the dispatch uses. */
   v->shader = weft_compile_nir_images(cs->nir, &key, cs->shader->simd, &error);
   if (!v->shader) {
      mesa_loge("weft: %s: %s", cs->nir->info.name ? cs->nir->info.name : "kernel", error);
      free(error);
      FREE(v);
      v = NULL;
      goto out;
   }
   if (weft_buffer_va_create(s, v->shader->size,
                             DRM_WEFT_VM_BIND_OP_MAP_READONLY | DRM_WEFT_VM_BIND_OP_MAP_EXEC,
                             &v->code)) {
      weft_shader_destroy(v->shader);
      FREE(v);
      v = NULL;
      goto out;
   }
   memcpy(v->code.bo.map, v->shader->code, v->shader->size);
   util_dynarray_append(&cs->variants, struct weft_variant *, v);
out:
   simple_mtx_unlock(&cs->lock);
   return v;
}

void
weft_compute_state_fini_images(struct weft_screen *s, struct weft_compute_state *cs)
{
   if (!cs->nir)
      return;
   util_dynarray_foreach(&cs->variants, struct weft_variant *, it) {
      weft_buffer_va_destroy(s, &(*it)->code);
      weft_shader_destroy((*it)->shader);
      FREE(*it);
   }
   util_dynarray_fini(&cs->variants);
   simple_mtx_destroy(&cs->lock);
   ralloc_free(cs->nir);
}
