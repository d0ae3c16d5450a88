/* SPDX-License-Identifier: MIT */
/*
 * nvtx: NVTX ranges (collector/nvtx.c). Both functions run on the
 * program's threads, in CUPTI callbacks, and never allocate.
 */
#ifndef GPUHIER_COLLECTOR_NVTX_H
#define GPUHIER_COLLECTOR_NVTX_H
#include <cupti.h>
#include <stddef.h>

/*
 * An NVTX callback (the ids of gh_cb_nvtx, collector_int.h): push/pop and
 * start/end ranges become REC_NVTX_OPEN/CLOSE records; domain names are
 * remembered (32 at most) for the ranges pushed in them.
 */
void on_nvtx(CUpti_CallbackId cbid, const CUpti_NvtxData *d);

/*
 * Copies the calling thread's open push ranges, joined by " > ", into
 * `out` (truncated to n - 1 bytes, terminated); returns the length.
 */
size_t nvtx_path(char *out, size_t n);

#endif
