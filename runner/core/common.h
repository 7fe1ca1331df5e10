#ifndef SC_COMMON_H
#define SC_COMMON_H
/*
 * Included first by every module: standard headers, the error convention,
 * the growable buffer, logging, limits and the banned-function list.
 */
#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Process exit codes (DESIGN.md, Commands). */
#define SC_EXIT_OK    0  /* success */
#define SC_EXIT_GATE  1  /* a gate failed: regression, threshold, validation errors */
#define SC_EXIT_USAGE 2  /* bad usage, config or input */
#define SC_EXIT_INFRA 3  /* infrastructure failure */

#define SC_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define SC_UNUSED(x) ((void)(x))

#include "error.h"
#include "buf.h"
#include "log.h"
#include "limits.h"
#include "util.h"
#include "banned.h"

#endif
