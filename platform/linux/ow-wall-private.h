/* ow-wall-private.h: what the wall's files share with each other. */
#pragma once

#include "ow-wall.h"

/* The system, bound read-only and granted read + execute: the same list
 * for the mount tree and for Landlock. */
extern const char *const ow_wall_system_paths[];

/* The device nodes the tools get (names under /dev). */
extern const char *const ow_wall_device_nodes[];
