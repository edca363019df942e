/* SPDX-License-Identifier: MIT */
/*
 * The weft pipe_context: one hardware queue per context on the screen's VM;
 * launch_grid writes the kernel arguments (constant buffer 0, with the
 * global buffers' VAs patched in by set_global_binding) and a batch with
 * one DISPATCH, and submits it with a syncobj as its fence.
 */
#include "util/os_time.h"
#include "util/u_inlines.h"
#include "util/u_memory.h"

#include "weft_cs_regs.h"
#include "weft_screen.h"

/* Job buffer layout: the batch, then the arguments. */
#define WEFT_JOB_BATCH_SIZE 256

static void *
weft_create_compute_state(struct pipe_context *pctx, const struct pipe_compute_state *cso)
{
   struct weft_screen *s = weft_screen(pctx->screen);
   struct weft_compute_state *cs;
   nir_shader *nir = (nir_shader *)cso->prog;
   char *error = NULL;

   if (cso->ir_type != PIPE_SHADER_IR_NIR)
      return NULL;
   cs = CALLOC_STRUCT(weft_compute_state);
   if (!cs)
      return NULL;
   cs->shader = weft_compile_nir(nir, &error);
   if (!cs->shader) {
      fprintf(stderr, "weft: %s: %s\n", nir->info.name ? nir->info.name : "kernel", error);
      free(error);
      FREE(cs);
      return NULL;
   }
   cs->static_shared = MAX2(cso->static_shared_mem, nir->info.shared_size);
   cs->uses_slot_area =
      weft_nir_uses_slot_area(nir, weft_nir_slot_area_base(s->info.slm_size, s->info.max_wg_size));
   if (weft_buffer_va_create(s, cs->shader->size,
                             DRM_WEFT_VM_BIND_OP_MAP_READONLY | DRM_WEFT_VM_BIND_OP_MAP_EXEC,
                             &cs->code)) {
      weft_shader_destroy(cs->shader);
      FREE(cs);
      return NULL;
   }
   memcpy(cs->code.bo.map, cs->shader->code, cs->shader->size);
   /* Image access depends on the formats and samplers bound at launch:
    * keep the NIR for the variants. */
   if (nir->info.num_textures || nir->info.num_images) {
      cs->nir = nir_shader_clone(NULL, nir);
      cs->num_textures = MIN2(weft_image_num_textures(nir), WEFT_MAX_TEXTURES);
      cs->num_images = MIN2(nir->info.num_images, WEFT_MAX_IMAGES);
      cs->num_samplers = WEFT_MAX_SAMPLERS;
      simple_mtx_init(&cs->lock, mtx_plain);
      util_dynarray_init(&cs->variants, NULL);
   }
   return cs;
}

static void
weft_bind_compute_state(struct pipe_context *pctx, void *cso)
{
   weft_context(pctx)->cs = cso;
}

static void
weft_delete_compute_state(struct pipe_context *pctx, void *cso)
{
   struct weft_screen *s = weft_screen(pctx->screen);
   struct weft_compute_state *cs = cso;

   weft_screen_wait_all(s);
   weft_compute_state_fini_images(s, cs);
   weft_buffer_va_destroy(s, &cs->code);
   weft_shader_destroy(cs->shader);
   FREE(cs);
}

static void
weft_get_compute_state_info(struct pipe_context *pctx, void *cso,
                            struct pipe_compute_state_object_info *info)
{
   struct weft_screen *s = weft_screen(pctx->screen);
   struct weft_compute_state *cs = cso;

   info->max_threads = s->info.max_wg_size;
   info->preferred_simd_size = cs->shader->simd;
   info->simd_sizes = cs->shader->simd;
   info->private_memory = cs->shader->scratch_size;
   /* Image kernels run a variant for what is bound: the GPU cannot pick one. */
   info->address = cs->nir ? 0 : cs->code.va;
}

static void
weft_set_constant_buffer(struct pipe_context *pctx, enum pipe_shader_type shader,
                         uint index, bool take_ownership,
                         const struct pipe_constant_buffer *cb)
{
   struct weft_context *ctx = weft_context(pctx);
   const void *data = NULL;

   if (index != 0)
      return;
   FREE(ctx->cb0);
   ctx->cb0 = NULL;
   ctx->cb0_size = 0;
   if (cb) {
      if (cb->user_buffer)
         data = (const uint8_t *)cb->user_buffer + cb->buffer_offset;
      else if (cb->buffer)
         data = (const uint8_t *)weft_resource(cb->buffer)->bo.map + cb->buffer_offset;
      if (data && cb->buffer_size) {
         ctx->cb0 = MALLOC(cb->buffer_size);
         memcpy(ctx->cb0, data, cb->buffer_size);
         ctx->cb0_size = cb->buffer_size;
      }
      if (take_ownership && cb->buffer) {
         struct pipe_resource *r = cb->buffer;
         pipe_resource_reference(&r, NULL);
      }
   }
}

static void
weft_set_global_binding(struct pipe_context *pctx, unsigned first, unsigned count,
                        struct pipe_resource **resources, uint32_t **handles)
{
   if (!resources)
      return;
   for (unsigned i = 0; i < count; i++) {
      uint64_t addr = 0;

      if (!resources[i])
         continue;
      /* The handle holds the offset into the buffer; make it the VA. */
      memcpy(&addr, handles[i], sizeof(addr));
      addr += weft_resource(resources[i])->va;
      memcpy(handles[i], &addr, sizeof(addr));
   }
}

/*
 * The context's device queue, made anew in the child of a fork(): the one
 * inherited is a queue of the parent's DRM file. False when there is none.
 */
static bool
weft_context_own_queue(struct weft_context *ctx)
{
   struct weft_screen *s = weft_screen(ctx->base.screen);

   if (ctx->generation == s->generation)
      return true;
   if (weft_queue_create(s->dev, s->vm, DRM_WEFT_QUEUE_PRIORITY_NORMAL, &ctx->queue))
      return false;
   ctx->generation = s->generation;
   /* The parent's job: only its memory is freed. */
   weft_fence_unref(s, ctx->last);
   ctx->last = NULL;
   return true;
}

/* A WRITE_DATA of the 64-bit @value at @va into the batch @b at dword *@n. */
static void
weft_write_data(uint32_t *b, uint32_t *n, uint64_t va, uint64_t value)
{
   b[(*n)++] = WEFT_CMD_HEADER(WEFT_CMD_WRITE_DATA, WEFT_CMD_WRITE_DATA_LEN);
   b[(*n)++] = (uint32_t)va;
   b[(*n)++] = (uint32_t)(va >> 32);
   b[(*n)++] = (uint32_t)value;
   b[(*n)++] = (uint32_t)(value >> 32);
}

static void
weft_launch_grid(struct pipe_context *pctx, const struct pipe_grid_info *info)
{
   struct weft_context *ctx = weft_context(pctx);
   struct weft_screen *s = weft_screen(pctx->screen);
   struct weft_compute_state *cs = ctx->cs;
   const struct weft_shader *shader;
   struct weft_buffer_va job;
   struct weft_fence *fence;
   uint64_t code_va;
   unsigned args_size = MAX2(ctx->cb0_size, 8);
   uint32_t *b, n = 0;

   if (!cs)
      return;
   if (!weft_context_own_queue(ctx)) {
      mesa_loge("weft: no device queue for a job");
      return;
   }
   shader = cs->shader;
   code_va = cs->code.va;
   /* Kernels with images: the variant for what is bound, and the image
    * descriptors after the arguments. */
   if (cs->nir) {
      const struct weft_variant *v = weft_image_variant(ctx, cs);

      if (!v)
         return;
      if (ctx->cb0_size > WEFT_IMAGE_DESC_OFFSET) {
         mesa_loge("weft: %u bytes of kernel arguments leave no room for the image "
                   "descriptors at byte %u", ctx->cb0_size, WEFT_IMAGE_DESC_OFFSET);
         return;
      }
      shader = v->shader;
      code_va = v->code.va;
      args_size = WEFT_IMAGE_DESC_OFFSET + weft_image_descriptors_size(cs);
   }
   if (weft_buffer_va_create(s, WEFT_JOB_BATCH_SIZE + args_size,
                             DRM_WEFT_VM_BIND_OP_MAP_READONLY, &job)) {
      mesa_loge("weft: out of memory for a job");
      return;
   }
   if (ctx->cb0_size)
      memcpy((uint8_t *)job.bo.map + WEFT_JOB_BATCH_SIZE, ctx->cb0, ctx->cb0_size);
   if (cs->nir) {
      weft_write_image_descriptors(ctx, cs, (uint8_t *)job.bo.map + WEFT_JOB_BATCH_SIZE +
                                               WEFT_IMAGE_DESC_OFFSET);
   }

   uint64_t args = job.va + WEFT_JOB_BATCH_SIZE;
   b = job.bo.map;
   /* The device queue starts empty (HEAD and DEPTH 0): a drain that
    * stopped on an error leaves its records (device-enqueue.rst). */
   if (info->device_queue) {
      struct weft_resource *dq = weft_resource(info->device_queue);
      uint32_t size;

      memcpy(&size, (uint8_t *)dq->bo.map + WEFT_DQ_SIZE, sizeof(size));
      weft_write_data(b, &n, dq->va + WEFT_DQ_HEAD, (uint64_t)size << 32);
      weft_write_data(b, &n, dq->va + WEFT_DQ_DEPTH, 0);
   }
   /* Private arrays the compiler put in scratch: DISPATCH_SCRATCH. */
   if (shader->scratch_size)
      b[n++] = WEFT_CMD_HEADER(WEFT_CMD_DISPATCH_SCRATCH, WEFT_CMD_DISPATCH_SCRATCH_LEN);
   else
      b[n++] = WEFT_CMD_HEADER(WEFT_CMD_DISPATCH, WEFT_CMD_DISPATCH_LEN);
   b[n++] = (uint32_t)code_va;
   b[n++] = (uint32_t)(code_va >> 32);
   b[n++] = (uint32_t)args;
   b[n++] = (uint32_t)(args >> 32);
   b[n++] = shader->simd;
   /* A non-uniform NDRange: the device runs the last work-group of a
    * dimension with the remainder (last_block) as its actual size. */
   for (unsigned i = 0; i < 3; i++) {
      b[n++] = info->last_block[i] ? (info->grid[i] - 1) * info->block[i] + info->last_block[i]
                                   : info->grid[i] * info->block[i];
   }
   for (unsigned i = 0; i < 3; i++)
      b[n++] = info->block[i];
   b[n++] = 0;
   b[n++] = 0;
   b[n++] = 0;
   /* What the device allocates: a __local argument overrun within the
    * last granule stays inside the work-group's SLM, as on other GPUs.
    * The slot area is the SLM's top. */
   b[n++] = cs->uses_slot_area ? s->info.slm_size
                               : align(cs->static_shared + info->variable_shared_mem,
                                       WEFT_CMD_DISPATCH_SLM_GRANULE);
   if (shader->scratch_size)
      b[n++] = shader->scratch_size;
   /* What the grid enqueued runs now, before the job's fence. */
   if (info->device_queue) {
      uint64_t queue_va = weft_resource(info->device_queue)->va;

      b[n++] = WEFT_CMD_HEADER(WEFT_CMD_DRAIN_QUEUE, WEFT_CMD_DRAIN_QUEUE_LEN);
      b[n++] = (uint32_t)queue_va;
      b[n++] = (uint32_t)(queue_va >> 32);
   }
   b[n++] = WEFT_CMD_HEADER(WEFT_CMD_END, 1);

   fence = weft_fence_create(s);
   if (!fence) {
      weft_buffer_va_destroy(s, &job);
      return;
   }
   util_dynarray_append(&fence->bos, struct weft_buffer_va, job);
   int ret = weft_submit(s->dev, ctx->queue, job.va, n * 4, 0, fence->syncobj);
   if (ret) {
      /* The job did not run (a banned queue refuses it with ECANCELED). */
      mesa_loge("weft: submit failed: %s", strerror(-ret));
      weft_syncobj_destroy(s->dev, fence->syncobj);
      fence->syncobj = 0;
      fence->error = ret;
   }
   if (weft_debug & WEFT_DBG_SYNC)
      weft_fence_wait(s, fence, UINT64_MAX);

   /* The context's last submit is its flush fence; the screen's list is
    * what CPU access waits for. */
   p_atomic_inc(&fence->reference.count);
   if (ctx->last)
      weft_fence_unref(s, ctx->last);
   ctx->last = fence;
   simple_mtx_lock(&s->lock);
   util_dynarray_append(&s->pending, struct weft_fence *, fence);
   simple_mtx_unlock(&s->lock);
}

static void
weft_flush(struct pipe_context *pctx, struct pipe_fence_handle **out, unsigned flags)
{
   struct weft_context *ctx = weft_context(pctx);
   struct weft_screen *s = weft_screen(pctx->screen);

   if (!out)
      return;
   if (*out)
      pctx->screen->fence_reference(pctx->screen, out, NULL);
   if (ctx->last) {
      pctx->screen->fence_reference(pctx->screen, out,
                                    (struct pipe_fence_handle *)ctx->last);
   } else {
      /* Nothing submitted: an already signalled fence. */
      struct weft_fence *f = CALLOC_STRUCT(weft_fence);
      pipe_reference_init(&f->reference, 1);
      util_dynarray_init(&f->bos, NULL);
      *out = (struct pipe_fence_handle *)f;
   }
   (void)s;
}

static void
weft_memory_barrier(struct pipe_context *pctx, unsigned flags)
{
   /* Dispatches on a queue run in order and see each other's writes. */
}

/* Queries: only the timestamp Rusticl uses for event profiling. */
struct weft_query {
   unsigned type;
   uint64_t value;
};

static struct pipe_query *
weft_create_query(struct pipe_context *pctx, unsigned type, unsigned index)
{
   struct weft_query *q = CALLOC_STRUCT(weft_query);

   if (q)
      q->type = type;
   return (struct pipe_query *)q;
}

static void
weft_destroy_query(struct pipe_context *pctx, struct pipe_query *q)
{
   FREE(q);
}

static bool
weft_begin_query(struct pipe_context *pctx, struct pipe_query *q)
{
   return true;
}

static bool
weft_end_query(struct pipe_context *pctx, struct pipe_query *pq)
{
   struct weft_query *q = (struct weft_query *)pq;

   /* The time the GPU reached this point: after the submits so far. */
   pctx->flush(pctx, NULL, 0);
   weft_screen_wait_all(weft_screen(pctx->screen));
   q->value = os_time_get_nano();
   return true;
}

static bool
weft_get_query_result(struct pipe_context *pctx, struct pipe_query *pq, bool wait,
                      union pipe_query_result *result)
{
   result->u64 = ((struct weft_query *)pq)->value;
   return true;
}

static void
weft_set_active_query_state(struct pipe_context *pctx, bool enable)
{
}

/* Rusticl asks after waiting for its flush: a job of this context that the
 * device stopped (watchdog, fault, bad instruction) puts the queue's events
 * into an error state; other contexts, with queues of their own, go on.
 *
 * The context reports that once and recovers with a new device queue, as
 * iris replaces a hardware context that was reset: Rusticl recycles the
 * pipe context of a released command queue for the next one, which must
 * not inherit the failed job nor the queue weft.ko banned for it.
 */
static enum pipe_reset_status
weft_get_device_reset_status(struct pipe_context *pctx)
{
   struct weft_context *ctx = weft_context(pctx);
   struct weft_screen *s = weft_screen(pctx->screen);
   uint32_t queue;

   /* Since a fork, the next job gets a queue of this process's own. */
   if (ctx->generation != s->generation)
      return PIPE_NO_RESET;
   if (!ctx->last || !weft_fence_wait(s, ctx->last, 0) || !ctx->last->error)
      return PIPE_NO_RESET;
   /* The last job has ended, and the queue runs its jobs in order. */
   if (!weft_queue_create(s->dev, s->vm, DRM_WEFT_QUEUE_PRIORITY_NORMAL, &queue)) {
      weft_queue_destroy(s->dev, ctx->queue);
      ctx->queue = queue;
   }
   weft_fence_unref(s, ctx->last);
   ctx->last = NULL;
   return PIPE_GUILTY_CONTEXT_RESET;
}

static void
weft_context_destroy(struct pipe_context *pctx)
{
   struct weft_context *ctx = weft_context(pctx);
   struct weft_screen *s = weft_screen(pctx->screen);

   weft_screen_wait_all(s);
   if (ctx->last)
      weft_fence_unref(s, ctx->last);
   /* A queue made before a fork is the parent's. */
   if (ctx->generation == s->generation)
      weft_queue_destroy(s->dev, ctx->queue);
   weft_context_unbind_images(ctx);
   FREE(ctx->cb0);
   FREE(ctx);
}

struct pipe_context *
weft_context_create(struct pipe_screen *pscreen, void *priv, unsigned flags)
{
   struct weft_screen *s = weft_screen(pscreen);
   struct weft_context *ctx = CALLOC_STRUCT(weft_context);
   struct pipe_context *p;

   if (!ctx)
      return NULL;
   if (weft_queue_create(s->dev, s->vm, DRM_WEFT_QUEUE_PRIORITY_NORMAL, &ctx->queue)) {
      FREE(ctx);
      return NULL;
   }
   ctx->generation = s->generation;
   p = &ctx->base;
   p->screen = pscreen;
   p->priv = priv;
   p->destroy = weft_context_destroy;
   p->create_compute_state = weft_create_compute_state;
   p->bind_compute_state = weft_bind_compute_state;
   p->delete_compute_state = weft_delete_compute_state;
   p->get_compute_state_info = weft_get_compute_state_info;
   p->set_constant_buffer = weft_set_constant_buffer;
   p->set_global_binding = weft_set_global_binding;
   p->launch_grid = weft_launch_grid;
   p->flush = weft_flush;
   p->memory_barrier = weft_memory_barrier;
   p->create_query = weft_create_query;
   p->destroy_query = weft_destroy_query;
   p->begin_query = weft_begin_query;
   p->end_query = weft_end_query;
   p->get_query_result = weft_get_query_result;
   p->set_active_query_state = weft_set_active_query_state;
   weft_init_context_image_functions(p);
   p->get_device_reset_status = weft_get_device_reset_status;
   weft_init_context_resource_functions(p);
   return p;
}
