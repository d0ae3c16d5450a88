/* SPDX-License-Identifier: MIT */
/*
 * clock: the collector's monotonic clock and the deadlines its timed waits
 * take. Header only, with no other collector header, so that queue.c (also
 * built into the tests on its own) can use it.
 */
#ifndef GPUHIER_COLLECTOR_CLOCK_H
#define GPUHIER_COLLECTOR_CLOCK_H
#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in ns: the engines', the sampler's, the writer's and the queue's clock. */
static inline int64_t
mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * `ms` milliseconds from now on `clock`: the absolute time a timed wait
 * takes (CLOCK_REALTIME for pthread_mutex_timedlock and sem_timedwait, the
 * clock a condition variable was made with for pthread_cond_timedwait).
 */
static inline struct timespec
deadline_ms(clockid_t clock, long ms)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    ts.tv_sec += ms / 1000;
    ts.tv_nsec += (ms % 1000) * 1000000L;
    ts.tv_sec += ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    return ts;
}

#endif
