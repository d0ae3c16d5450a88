/* SPDX-License-Identifier: MIT */
/*
 * A stand-in for libnvperf_host.so, built beside the fake CUPTI (t108).
 * The real library's constructors take about 0.1 s on the H100 host
 * (collector/cupti_load.c says why); this one sleeps FAKE_NVPERF_SLEEP_MS
 * (none without it), so the test can tell whether the collector's start,
 * which runs inside the program's cuInit, waited for the open.
 */
#include <stdlib.h>
#include <time.h>

__attribute__((constructor)) static void
slow_constructor(void)
{
    const char *s = getenv("FAKE_NVPERF_SLEEP_MS");
    long ms = s ? atol(s) : 0;
    if (ms > 0) {
        struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
        while (nanosleep(&t, &t) != 0) {
        }
    }
}
