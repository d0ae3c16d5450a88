/* SPDX-License-Identifier: MIT */
/*
 * A diagnosis for a call stuck inside CUPTI (docs/collector.md "Both
 * engines in one process"): with GPUHIER_DIAG_STACKS=N, when the engine
 * watchdog (sampler_watchdog(), on the flusher thread) first finds a stuck
 * call, or N seconds after the collector started, whichever comes first
 * (a hang that holds the flusher too never reaches the watchdog), every
 * thread of the process writes its backtrace (backtrace_symbols_fd(): object,
 * symbol where exported, offset) to stderr. The device has no debugger;
 * this tells which lock a deadlocked thread waits on and who holds the
 * CUPTI calls around it. Not for normal use: it borrows SIGURG (ignored by
 * default, used by almost no program) for the dump and gives the program's
 * disposition back afterwards.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "collector/stacks.h"
#include "collector/signals.h"

#include <dirent.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static atomic_int dumped; /* the thread asked last has written its stack */

static void
say(const char *s)
{
    ssize_t r = write(2, s, strlen(s));
    (void)r;
}

static void
on_dump(int sig)
{
    (void)sig;
    void *frames[48];
    char head[64];
    int n = backtrace(frames, 48);
    snprintf(head, sizeof(head), "==gpuhier== stack of thread %ld:\n", (long)syscall(SYS_gettid));
    say(head);
    backtrace_symbols_fd(frames, n, 2);
    atomic_store(&dumped, 1);
}

void
stacks_dump(const char *why)
{
    static atomic_int once;
    if (atomic_exchange(&once, 1))
        return;
    void *warm[2];
    backtrace(warm, 2); /* loads the unwinder now, not inside the handler */
    struct sigaction sa, old;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_dump;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGURG, &sa, &old))
        return;
    char line[256];
    snprintf(line, sizeof(line), "==gpuhier== every thread's stack (%s):\n", why);
    say(line);
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    long self = (long)syscall(SYS_gettid);
    while (d && (e = readdir(d))) {
        long tid = strtol(e->d_name, NULL, 10);
        if (tid <= 0 || tid == self)
            continue;
        atomic_store(&dumped, 0);
        if (syscall(SYS_tgkill, (long)getpid(), tid, SIGURG))
            continue;
        /* at most 200 ms per thread: one blocked in a signal-masked section never answers */
        for (int i = 0; i < 200 && !atomic_load(&dumped); i++)
            nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    if (d)
        closedir(d);
    sigaction(SIGURG, &old, NULL);
}

static void *
timer_main(void *arg)
{
    long s = (long)(intptr_t)arg;
    nanosleep(&(struct timespec){s, 0}, NULL);
    char why[64];
    snprintf(why, sizeof(why), "%ld s after the collector started", s);
    stacks_dump(why);
    return NULL;
}

void
stacks_arm(long seconds)
{
    pthread_t t;
    if (seconds > 0)
        signals_thread_start(&t, timer_main, (void *)(intptr_t)seconds, 1);
}
