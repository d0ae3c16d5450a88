/* SPDX-License-Identifier: MIT */
#ifndef GH_COLLECTOR_SIGNALS_H
#define GH_COLLECTOR_SIGNALS_H

#include <pthread.h>

/*
 * signals: the collector's handlers for the signals that end a program
 * (docs/collector.md "Fatal signals").
 *
 * signals_install() takes over SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL,
 * SIGTERM, SIGINT, SIGHUP and SIGQUIT, except those the program ignores,
 * keeping what the program had installed. When one arrives:
 *
 *   - the program's own handler, if it had one, is called first, with its
 *     own mask and SA_RESETHAND honoured; if it returns and the signal is
 *     now certain to end the process (the handler restored the default
 *     action and re-raised it, or a fault will recur), `before_death` runs;
 *     otherwise the program goes on as it would have;
 *   - with the default action, `before_death(sig)` runs, the default is
 *     restored and the signal delivered again: re-raised when it was sent,
 *     re-executed when it was a fault, so the process dies by the same
 *     signal at the same place, with the same core-dump behaviour.
 *
 * A handler the program installs later replaces ours, as without gpuhier.
 * `before_death` runs at most once per process, in the dying thread; it
 * must be bounded in time and call only what is safe there.
 */
typedef void (*signals_death_fn)(int sig);

void signals_install(signals_death_fn before_death);

/*
 * Starts one of the collector's own threads with every signal blocked in
 * it, so the program's process-directed signals (and its handlers) reach
 * the program's threads only; detached when `detached`. 0, or the error
 * of pthread_create.
 */
int signals_thread_start(pthread_t *t, void *(*fn)(void *), void *arg, int detached);

/* Writes SIGABRT's name ("SIGABRT") or "signal N" into out. */
void signals_name(int sig, char *out, unsigned long n);

#endif
