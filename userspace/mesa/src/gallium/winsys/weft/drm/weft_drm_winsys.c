/* SPDX-License-Identifier: MIT */
/*
 * The weft DRM winsys entry point: the pipe-loader hands over the fd of a
 * weft.ko render node (or of the drm-shim), libweft takes its own copy.
 */
#include "weft_drm_public.h"
#include "weft/weft_public.h"

struct pipe_screen *
weft_drm_screen_create(int fd, const struct pipe_screen_config *config)
{
   return weft_screen_create(fd, config);
}
