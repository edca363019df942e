/* SPDX-License-Identifier: MIT */
#ifndef WEFT_PUBLIC_H
#define WEFT_PUBLIC_H

struct pipe_screen;
struct pipe_screen_config;

struct pipe_screen *weft_screen_create(int fd, const struct pipe_screen_config *config);

#endif
