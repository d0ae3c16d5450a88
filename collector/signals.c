/* SPDX-License-Identifier: MIT */
/*
 * Why chaining looks like this (docs/collector.md "Fatal signals"):
 *
 * The report must keep what the collector holds when the program dies, and
 * the program must die exactly as it would have. So the commit happens only
 * when death is certain, and the death itself is left to the kernel:
 *
 *   - a fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL with si_code > 0) is not
 *     re-raised: with the default action restored, returning re-executes
 *     the faulting instruction, which faults again, so the core dump and
 *     the siginfo are the original ones;
 *   - a sent signal (kill, raise, abort) is raised again in the same thread;
 *     it is blocked while we run and delivered when we return.
 *
 * A program's own handler runs first. If it returns and the default action
 * is back in place with the signal pending (the usual "clean up, restore,
 * re-raise" handler), or with a fault that will recur, the process is about
 * to die and we commit; if our handler is still installed the program chose
 * to survive (Python's SIGINT handler, for one) and nothing is done.
 */
#include "collector/signals.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static const int caught[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL,
                             SIGTERM, SIGINT,  SIGHUP, SIGQUIT};
static struct sigaction old_actions[NSIG];
static signals_death_fn death_fn;
static atomic_int died;

static int
is_fault(int sig, const siginfo_t *si)
{
    return si && si->si_code > 0 &&
           (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL);
}

static void
before_death(int sig)
{
    if (death_fn && !atomic_exchange(&died, 1))
        death_fn(sig);
}

static int
is_default(const struct sigaction *sa)
{
    return !(sa->sa_flags & SA_SIGINFO) && sa->sa_handler == SIG_DFL;
}

static void
restore_default(int sig)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
}

/* Calls the program's handler as the kernel would have: its mask, SA_RESETHAND. */
static void
call_program_handler(const struct sigaction *old, int sig, siginfo_t *si, void *uc)
{
    sigset_t mask, prev;
    mask = old->sa_mask;
    if (!(old->sa_flags & SA_NODEFER))
        sigaddset(&mask, sig);
    if (old->sa_flags & SA_RESETHAND)
        restore_default(sig);
    pthread_sigmask(SIG_BLOCK, &mask, &prev);
    if (old->sa_flags & SA_SIGINFO)
        old->sa_sigaction(sig, si, uc);
    else
        old->sa_handler(sig);
    pthread_sigmask(SIG_SETMASK, &prev, NULL);
}

static void
on_signal(int sig, siginfo_t *si, void *uc)
{
    int saved = errno;
    const struct sigaction *old = &old_actions[sig];
    if (!is_default(old)) { /* a handler: an ignored signal never got ours (signals_install) */
        call_program_handler(old, sig, si, uc);
        /* Did it leave the process to die? */
        struct sigaction cur;
        sigset_t pending;
        if (sigaction(sig, NULL, &cur) == 0 && is_default(&cur) && sigpending(&pending) == 0 &&
            (sigismember(&pending, sig) == 1 || is_fault(sig, si)))
            before_death(sig);
        errno = saved;
        return;
    }
    before_death(sig);
    restore_default(sig);
    if (!is_fault(sig, si))
        raise(sig); /* blocked until we return; then the default action */
    errno = saved;
}

void
signals_install(signals_death_fn fn)
{
    death_fn = fn;
    for (size_t i = 0; i < sizeof(caught) / sizeof(caught[0]); i++) {
        int sig = caught[i];
        struct sigaction cur;
        if (sigaction(sig, NULL, &cur) ||
            (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_IGN))
            continue;
        if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_signal)
            continue; /* already ours (a second call) */
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_sigaction = on_signal;
        /*
         * The program's own SA_RESTART stays as it was: Python installs its
         * SIGINT handler without it, so that Ctrl-C interrupts a blocking
         * read() with EINTR; with SA_RESTART the read would go on. SA_ONSTACK
         * always: a program that set an alternate stack (for stack overflows)
         * keeps it, and without one it changes nothing.
         */
        sa.sa_flags =
            SA_SIGINFO | SA_ONSTACK | (is_default(&cur) ? SA_RESTART : cur.sa_flags & SA_RESTART);
        sigemptyset(&sa.sa_mask);
        old_actions[sig] = cur;
        sigaction(sig, &sa, NULL);
    }
}

void
signals_name(int sig, char *out, unsigned long n)
{
    static const struct {
        int sig;
        const char *name;
    } t[] = {{SIGABRT, "SIGABRT"}, {SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"},
             {SIGFPE, "SIGFPE"},   {SIGILL, "SIGILL"},   {SIGTERM, "SIGTERM"},
             {SIGINT, "SIGINT"},   {SIGHUP, "SIGHUP"},   {SIGQUIT, "SIGQUIT"}};
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (t[i].sig == sig) {
            snprintf(out, n, "%s", t[i].name);
            return;
        }
    snprintf(out, n, "signal %d", sig);
}

int
signals_thread_start(pthread_t *t, void *(*fn)(void *), void *arg, int detached)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(t, NULL, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!rc && detached)
        pthread_detach(*t);
    return rc;
}
