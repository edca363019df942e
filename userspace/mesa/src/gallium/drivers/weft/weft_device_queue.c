/* SPDX-License-Identifier: MIT */
/*
 * On-device queues (OpenCL's CL_QUEUE_ON_DEVICE): a buffer in the screen's
 * VM holding the device queue that DRAIN_QUEUE runs, in the hardware's
 * layout (Documentation/gpu/weft/device-enqueue.rst): the header, the
 * records kernels append, then the event slots.
 */
#include "util/u_inlines.h"

#include "weft_cs_regs.h"
#include "weft_screen.h"

static struct pipe_resource *
weft_device_queue_create(struct pipe_screen *pscreen, unsigned size, unsigned events)
{
   /* Records are 16-byte aligned, so is the end of the last one. */
   uint64_t records = align64(size, 16);

   if (!size || records > WEFT_DQ_SIZE_MAX || events > WEFT_DQ_EVENTS_MAX)
      return NULL;

   uint64_t bytes = WEFT_DQ_HEADER_SIZE + records + (uint64_t)events * WEFT_DQ_EVENT_SIZE;
   const struct pipe_resource templ = {
      .target = PIPE_BUFFER,
      .format = PIPE_FORMAT_R8_UNORM,
      .width0 = bytes,
      .height0 = 1,
      .depth0 = 1,
      .array_size = 1,
      .bind = PIPE_BIND_GLOBAL,
   };
   struct pipe_resource *pres = pscreen->resource_create(pscreen, &templ);

   if (!pres)
      return NULL;

   /* Memory may be reused (the drm-shim's is): HEAD, the depth limit (0:
    * the default), the device's fields and every event slot start at 0;
    * records are whole once a kernel wrote them. */
   uint8_t *header = weft_resource(pres)->bo.map;
   uint32_t records32 = records, events32 = events;

   memset(header, 0, WEFT_DQ_HEADER_SIZE);
   memset(header + WEFT_DQ_HEADER_SIZE + records, 0, (size_t)events * WEFT_DQ_EVENT_SIZE);
   memcpy(header + WEFT_DQ_SIZE, &records32, sizeof(records32));
   memcpy(header + WEFT_DQ_EVENTS, &events32, sizeof(events32));
   return pres;
}

/* The argument templates of the kernels a kernel enqueues hold addresses. */
static uint64_t
weft_resource_get_address(struct pipe_screen *pscreen, struct pipe_resource *pres)
{
   return weft_resource(pres)->va;
}

void
weft_init_screen_device_queue_functions(struct pipe_screen *pscreen)
{
   struct pipe_caps *caps = (struct pipe_caps *)&pscreen->caps;

   pscreen->device_queue_create = weft_device_queue_create;
   pscreen->resource_get_address = weft_resource_get_address;
   caps->max_device_queue_size = WEFT_DQ_SIZE_MAX;
   /* About 6000 children of small blocks (0xa0 bytes of record each and
    * the block literal). */
   caps->preferred_device_queue_size = 1024 * 1024;
   /* OpenCL's minimum, 32 KiB of slots per queue. */
   caps->max_device_queue_events = 1024;
   /* Each queue is only memory: a bound against leaks, not a resource. */
   caps->max_device_queues = 64;
}
