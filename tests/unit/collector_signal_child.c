/* SPDX-License-Identifier: MIT */
/*
 * collector_signal_child LIB MODE SIG: a program that loads the collector
 * as cuInit would (dlopen + InitializeInjection; on a machine without a GPU
 * CUPTI then refuses the subscription, but the report's writer, the flusher
 * and the signal handlers run), then ends by SIG. LIB "none" runs the same
 * program without the collector: the test compares the two.
 *
 *   die SIG      the default disposition; a real fault for segv, fpe, ill
 *   own SIG      the program installed a handler before the collector; it
 *                writes "own handler SIG" on stderr, restores the default and
 *                re-raises
 *   survive SIG  the program's handler (installed before) returns; the
 *                program goes on and returns 0
 *   late SIG     the program installs its handler after the collector (it
 *                replaces ours), writes "late handler", and exits 3
 *   eintr SIG    the program's handler (installed before, without
 *                SA_RESTART) returns; SIG, sent to the main thread while it
 *                blocks in read(), must interrupt it (EINTR), as without
 *                the collector: the program prints "read interrupted"
 */
#include "bench/stress/die.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t got;

static void
say(const char *s)
{
    ssize_t w = write(2, s, strlen(s));
    (void)w;
}

static void
own(int sig)
{
    say("own handler\n");
    signal(sig, SIG_DFL);
    raise(sig);
}

static void
survive(int sig)
{
    (void)sig;
    got = 1;
    say("survived\n");
}

static void
late(int sig)
{
    (void)sig;
    say("late handler\n");
    _exit(3);
}

static pthread_t main_thread;
static int eintr_sig;

static void *
poke(void *arg)
{
    (void)arg;
    struct timespec ts = {0, 200000000L};
    nanosleep(&ts, NULL);
    pthread_kill(main_thread, eintr_sig);
    return NULL;
}

static int
blocked_read(int sig)
{
    int fds[2];
    if (pipe(fds))
        return 2;
    main_thread = pthread_self();
    eintr_sig = sig;
    pthread_t t;
    pthread_create(&t, NULL, poke, NULL);
    char c;
    ssize_t r = read(fds[0], &c, 1); /* nobody writes: only a signal ends it */
    printf("%s\n", r < 0 && errno == EINTR ? "read interrupted" : "read returned");
    pthread_join(t, NULL);
    return 0;
}

int
main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    const char *mode = argv[2];
    int sig = die_signum(argv[3]);
    if (!sig)
        return 2;
    if (!strcmp(mode, "own"))
        signal(sig, own);
    if (!strcmp(mode, "survive"))
        signal(sig, survive);
    if (!strcmp(mode, "eintr")) {
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = survive;
        sigemptyset(&sa.sa_mask);
        sigaction(sig, &sa, NULL); /* no SA_RESTART */
    }
    if (strcmp(argv[1], "none")) {
        void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
        int (*init)(void) = h ? (int (*)(void))dlsym(h, "InitializeInjection") : NULL;
        if (!init) {
            fprintf(stderr, "cannot load %s: %s\n", argv[1], dlerror());
            return 2;
        }
        init();
    }
    if (!strcmp(mode, "late"))
        signal(sig, late);
    if (!strcmp(mode, "eintr"))
        return blocked_read(sig);
    printf("buffered line\n"); /* stdout is a pipe or file: lost when the program dies */
    die_by(sig);
    if (got) {
        printf("went on\n");
        return 0;
    }
    return 4;
}
