// SPDX-License-Identifier: MIT
//
// libgh_segvtrace.so: a diagnosis preload for bench/stress (issue 16, the
// crash at exit). With LD_PRELOAD and SEGVTRACE_DIR set, a fatal signal
// (SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE) writes SEGVTRACE_DIR/trace-PID.txt:
// the signal, the faulting address, the thread (and whether it is the main
// thread), whether exit() had begun, and a backtrace with each frame's
// object and offset; then the default action is restored and the signal
// re-raised, so the process dies as it would have. Not part of gpuhier.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static char dir[512];
static volatile sig_atomic_t exiting;

static void
mark_exit(void)
{
    exiting = 1;
}

static void
on_fatal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    char path[600], line[256];
    snprintf(path, sizeof(path), "%s/trace-%ld.txt", dir, (long)getpid());
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
        long tid = syscall(SYS_gettid);
        int n = snprintf(
            line, sizeof(line), "signal %d code %d addr %p tid %ld main %d after_exit_began %d\n",
            sig, si ? si->si_code : 0, si ? si->si_addr : NULL, tid, tid == getpid(), (int)exiting);
        ssize_t w = write(fd, line, (size_t)n);
        (void)w;
        void *frames[64];
        int k = backtrace(frames, 64);
        backtrace_symbols_fd(frames, k, fd);
        close(fd);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

__attribute__((constructor)) static void
segvtrace_init(void)
{
    const char *d = getenv("SEGVTRACE_DIR");
    if (!d || !*d)
        return;
    snprintf(dir, sizeof(dir), "%s", d);
    /* loads libgcc_s now, not in the handler; SEGVTRACE_LAZY=1 leaves the program's libraries as they were */
    const char *lazy = getenv("SEGVTRACE_LAZY");
    if (!lazy || strcmp(lazy, "1")) {
        void *f[1];
        backtrace(f, 1);
    }
    /* registered first, so it runs last: "exit began" means every other handler ran */
    atexit(mark_exit);
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE};
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_sigaction = on_fatal;
        sa.sa_flags = SA_SIGINFO;
        sigaction(sigs[i], &sa, NULL);
    }
}
