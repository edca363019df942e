/* SPDX-License-Identifier: MIT */
/*
 * The weft gallium driver: a compute-only pipe_screen / pipe_context for
 * Rusticl over libweft.
 */
#ifndef WEFT_SCREEN_H
#define WEFT_SCREEN_H

#include <stdint.h>

#include "pipe/p_context.h"
#include "pipe/p_screen.h"
#include "pipe/p_state.h"
#include "util/simple_mtx.h"
#include "util/list.h"
#include "util/u_dynarray.h"
#include "util/vma.h"

#include "libweft.h"
#include "weft_compile.h"
#include "weft_nir_passes.h"

/* One GPU VM per screen: every context's queue shares the address space. */
struct weft_screen {
   struct pipe_screen base;
   struct weft_device *dev;
   struct drm_weft_device_info info;
   uint32_t vm;
   struct disk_cache *disk_cache;  /* NULL: no shader cache */

   simple_mtx_t lock;            /* protects heap and pending */
   struct util_vma_heap heap;
   /* struct weft_fence * of the submits nobody waited for yet */
   struct util_dynarray pending;

   /* Bumped in the child of a fork(), which gets a DRM file, VM and heap of
    * its own: the queues and fences of older generations are the parent's. */
   unsigned generation;
   char *node_path;              /* the render node, reopened after a fork */
   struct list_head link;        /* in the list of screens a fork renews */
};

/* Buffers, and images laid out linearly: texel (x, y, z) of an image is at
 * z * slice_pitch + y * row_pitch + x * bytes per texel, where z is the
 * slice of a 3D image or the layer of an array (images.rst). */
struct weft_resource {
   struct pipe_resource base;
   struct weft_buffer bo;
   uint64_t va;
   uint32_t row_pitch;
   uint32_t slice_pitch;
};

struct weft_fence {
   struct pipe_reference reference;
   uint32_t syncobj;             /* 0: already signalled */
   unsigned generation;          /* the screen's when created */
   int error;                    /* the job's error once waited for (-errno), 0: none */
   /* buffers of the job (args, batch), freed once it signalled */
   struct util_dynarray bos;     /* struct weft_buffer_va */
};

struct weft_buffer_va {
   struct weft_buffer bo;
   uint64_t va;
};

/* A kernel compiled for one combination of bound image formats and
 * sampler states. */
struct weft_variant {
   struct weft_image_key key;
   struct weft_shader *shader;
   struct weft_buffer_va code;
};

struct weft_compute_state {
   struct weft_shader *shader;   /* the compiled kernel */
   struct weft_buffer_va code;
   unsigned static_shared;
   bool uses_slot_area; /* then it runs with the whole SLM (weft_nir_passes.h) */
   /* Kernels with images: the NIR to compile variants from, and those
    * compiled so far (struct weft_variant *), under lock. */
   nir_shader *nir;
   unsigned num_textures, num_images, num_samplers;
   simple_mtx_t lock;
   struct util_dynarray variants;
};

struct weft_context {
   struct pipe_context base;
   uint32_t queue;
   unsigned generation;          /* the screen's when the queue was created */
   struct weft_compute_state *cs;
   void *cb0;
   unsigned cb0_size;
   struct weft_fence *last;      /* last submit of this context */
   /* What launch_grid writes into the image descriptors and the key. */
   struct pipe_sampler_view *views[WEFT_MAX_TEXTURES];
   struct pipe_image_view images[WEFT_MAX_IMAGES];
   struct weft_sampler_key samplers[WEFT_MAX_SAMPLERS];
};

static inline struct weft_screen *
weft_screen(struct pipe_screen *p)
{
   return (struct weft_screen *)p;
}

static inline struct weft_context *
weft_context(struct pipe_context *p)
{
   return (struct weft_context *)p;
}

static inline struct weft_resource *
weft_resource(struct pipe_resource *p)
{
   return (struct weft_resource *)p;
}

/* weft_resource.c */
void weft_init_screen_resource_functions(struct pipe_screen *pscreen);
void weft_init_context_resource_functions(struct pipe_context *pctx);
int weft_buffer_va_create(struct weft_screen *s, uint64_t size, uint32_t flags,
                          struct weft_buffer_va *out);
void weft_buffer_va_destroy(struct weft_screen *s, struct weft_buffer_va *b);

/* weft_device_queue.c */
void weft_init_screen_device_queue_functions(struct pipe_screen *pscreen);

/* weft_image.c */
bool weft_image_format_reported(enum pipe_format format);
void weft_init_context_image_functions(struct pipe_context *pctx);
void weft_context_unbind_images(struct weft_context *ctx);
unsigned weft_image_descriptors_size(const struct weft_compute_state *cs);
const struct weft_variant *weft_image_variant(struct weft_context *ctx,
                                              struct weft_compute_state *cs);
void weft_write_image_descriptors(struct weft_context *ctx,
                                  const struct weft_compute_state *cs, uint8_t *dst);
void weft_compute_state_fini_images(struct weft_screen *s, struct weft_compute_state *cs);

/* weft_fence.c */
struct weft_fence *weft_fence_create(struct weft_screen *s);
void weft_fence_unref(struct weft_screen *s, struct weft_fence *f);
bool weft_fence_wait(struct weft_screen *s, struct weft_fence *f, uint64_t timeout);
void weft_screen_wait_all(struct weft_screen *s);
void weft_init_screen_fence_functions(struct pipe_screen *pscreen);

/* weft_context.c */
struct pipe_context *weft_context_create(struct pipe_screen *pscreen, void *priv,
                                         unsigned flags);

#endif
