/* SPDX-License-Identifier: MIT */
#ifndef GH_BENCH_STRESS_DIE_H
#define GH_BENCH_STRESS_DIE_H

/*
 * How the stress programs end by a signal (bench/stress/stress_app.cu and
 * tests/unit/collector_signal_child.c, C and CUDA C++ alike): by name,
 * "abort", "segv", ... "quit", and for real where the hardware can do it
 * (a null store, an integer division by zero, a trap instruction).
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static volatile int die_zero;

static int
die_signum(const char *s)
{
    static const struct {
        const char *name;
        int sig;
    } t[] = {{"abort", SIGABRT}, {"segv", SIGSEGV}, {"bus", SIGBUS},
             {"fpe", SIGFPE},    {"ill", SIGILL},   {"term", SIGTERM},
             {"int", SIGINT},    {"hup", SIGHUP},   {"quit", SIGQUIT}};
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (!strcmp(s, t[i].name))
            return t[i].sig;
    return 0;
}

static void
die_by(int sig)
{
    switch (sig) {
    case SIGABRT:
        abort();
    case SIGSEGV:
        *(volatile int *)(long)die_zero = 1;
        break;
    case SIGFPE:
        die_zero = 10 / die_zero;
        break;
    case SIGILL:
        __builtin_trap();
    default:
        break;
    }
    raise(sig);
}

#endif
