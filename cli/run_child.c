/* SPDX-License-Identifier: MIT */
/*
 * run_child: start the profiled program and end the way it ended.
 *
 * gpuhier must be invisible between the shell and the program: the same
 * stdin/stdout/stderr, the same signal dispositions and mask, the same
 * exit status or death by signal. What it adds is signal forwarding, so
 * `kill -TERM <gpuhier>` (a batch system, a timeout) reaches the program
 * and gives its collector a chance to close the report.
 */
#include "cli/cli.h"
#include "cli/run_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
#define N_FORWARDED (sizeof(forwarded) / sizeof(forwarded[0]))

static volatile sig_atomic_t child_pid;

/*
 * Signals the terminal generates (Ctrl-C, Ctrl-\, hangup) go to the whole
 * foreground process group, the program included; the kernel marks them
 * SI_KERNEL. Forwarding those too would deliver them twice (Python would
 * see a second KeyboardInterrupt while unwinding the first). Signals sent
 * with kill()/sigqueue() to gpuhier alone are forwarded.
 */
static void
forward(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    int saved = errno;
    pid_t pid = child_pid;
    if (pid > 0 && (!si || si->si_code != SI_KERNEL))
        kill(pid, sig);
    errno = saved;
}

static int
is_exec_file(const char *path, struct stat *st)
{
    return stat(path, st) == 0 && S_ISREG(st->st_mode) && access(path, X_OK) == 0;
}

char *
run_find_program(const char *prog, int *code)
{
    struct stat st;
    if (!*prog) {
        *code = GH_EXIT_NOT_FOUND;
        error("run: empty program name");
        return NULL;
    }
    if (strchr(prog, '/')) {
        if (stat(prog, &st) != 0) {
            int e = errno;
            *code = (e == ENOENT || e == ENOTDIR) ? GH_EXIT_NOT_FOUND : GH_EXIT_NOT_EXEC;
            error("run: cannot run '%s': %s", prog, e == ENOENT ? "no such file" : strerror(e));
            return NULL;
        }
        if (S_ISDIR(st.st_mode)) {
            *code = GH_EXIT_NOT_EXEC;
            error("run: cannot run '%s': it is a directory", prog);
            return NULL;
        }
        if (access(prog, X_OK) != 0) {
            *code = GH_EXIT_NOT_EXEC;
            error("run: cannot run '%s': not executable (%s)", prog, strerror(errno));
            return NULL;
        }
        return strdup(prog);
    }
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    char *found_unusable = NULL;
    for (const char *p = path;;) {
        size_t n = strcspn(p, ":");
        char cand[PATH_MAX];
        int len = n ? snprintf(cand, sizeof(cand), "%.*s/%s", (int)n, p, prog)
                    : snprintf(cand, sizeof(cand), "./%s", prog);
        if (len > 0 && (size_t)len < sizeof(cand)) {
            if (is_exec_file(cand, &st)) {
                free(found_unusable);
                return strdup(cand);
            }
            if (!found_unusable && stat(cand, &st) == 0 && !S_ISDIR(st.st_mode))
                found_unusable = strdup(cand);
        }
        if (!p[n])
            break;
        p += n + 1;
    }
    if (found_unusable) {
        *code = GH_EXIT_NOT_EXEC;
        error("run: cannot run '%s' (found '%s'): not executable", prog, found_unusable);
        free(found_unusable);
        return NULL;
    }
    *code = GH_EXIT_NOT_FOUND;
    error("run: cannot run '%s': command not found in PATH", prog);
    return NULL;
}

/* In the child: exec like execvp does, including scripts without a #! line. */
static void
exec_child(const char *path, const char **argv)
{
    execv(path, (char *const *)argv);
    if (errno != ENOEXEC)
        return;
    size_t n = 0;
    while (argv[n])
        n++;
    const char **sh = calloc(n + 2, sizeof(*sh));
    if (!sh)
        return;
    sh[0] = "sh";
    sh[1] = path;
    for (size_t i = 1; i < n; i++)
        sh[i + 1] = argv[i];
    execv("/bin/sh", (char *const *)sh);
    errno = ENOEXEC;
}

int
run_spawn(const char *path, const char **argv, int *status)
{
    int ret = -1;
    int pfd[2] = {-1, -1};
    struct sigaction old_act[N_FORWARDED];
    sigset_t block, old_mask;

    *status = GH_EXIT_INTERNAL;
    /* The child reports a failed exec through this pipe; a successful exec closes it. */
    if (pipe2(pfd, O_CLOEXEC) != 0) {
        error("run: cannot create a pipe: %s", strerror(errno));
        return -1;
    }
    sigemptyset(&block);
    for (size_t i = 0; i < N_FORWARDED; i++)
        sigaddset(&block, forwarded[i]);
    /* Blocked across fork: a signal arriving now is forwarded once child_pid is known. */
    sigprocmask(SIG_BLOCK, &block, &old_mask);
    for (size_t i = 0; i < N_FORWARDED; i++) {
        struct sigaction sa = {.sa_sigaction = forward, .sa_flags = SA_SIGINFO | SA_RESTART};
        sigemptyset(&sa.sa_mask);
        sigaction(forwarded[i], &sa, &old_act[i]);
    }

    pid_t pid = fork();
    if (pid == 0) {
        /* Dispositions as gpuhier got them (an ignored SIGHUP under nohup stays ignored). */
        for (size_t i = 0; i < N_FORWARDED; i++)
            sigaction(forwarded[i], &old_act[i], NULL);
        sigprocmask(SIG_SETMASK, &old_mask, NULL);
        close(pfd[0]);
        exec_child(path, argv);
        int e = errno;
        ssize_t w = write(pfd[1], &e, sizeof(e));
        (void)w;
        _exit(GH_EXIT_NOT_FOUND);
    }
    if (pid < 0) {
        error("run: cannot start '%s': fork failed: %s", argv[0], strerror(errno));
        goto restore;
    }
    child_pid = pid;
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    close(pfd[1]);
    pfd[1] = -1;

    int e = 0;
    ssize_t r;
    do
        r = read(pfd[0], &e, sizeof(e));
    while (r < 0 && errno == EINTR);

    int st = 0;
    pid_t w;
    do
        w = waitpid(pid, &st, 0);
    while (w < 0 && errno == EINTR);
    child_pid = 0;
    if (w < 0) {
        error("run: cannot wait for '%s': %s", argv[0], strerror(errno));
        goto restore;
    }
    if (r == (ssize_t)sizeof(e)) {
        *status = (e == ENOENT || e == ENOTDIR) ? GH_EXIT_NOT_FOUND : GH_EXIT_NOT_EXEC;
        error("run: cannot run '%s': %s", argv[0], strerror(e));
        goto restore;
    }
    *status = st;
    ret = 0;
restore:
    /* After the child: a Ctrl-C during the summary or analysis ends gpuhier as usual. */
    sigprocmask(SIG_BLOCK, &block, NULL);
    for (size_t i = 0; i < N_FORWARDED; i++)
        sigaction(forwarded[i], &old_act[i], NULL);
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    if (pfd[0] >= 0)
        close(pfd[0]);
    if (pfd[1] >= 0)
        close(pfd[1]);
    return ret;
}

void
run_exit_like(int status)
{
    fflush(stderr);
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        /*
         * Dying by SIGSEGV/SIGQUIT/SIGABRT would dump gpuhier's own core,
         * possibly over the program's core file in the same directory.
         */
        prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
        struct rlimit rl = {0, 0};
        setrlimit(RLIMIT_CORE, &rl);
        signal(sig, SIG_DFL);
        sigset_t s;
        sigemptyset(&s);
        sigaddset(&s, sig);
        sigprocmask(SIG_UNBLOCK, &s, NULL);
        raise(sig);
        /* Still here: a signal whose default is not to terminate. Shell convention. */
        _exit(128 + sig);
    }
    if (WIFEXITED(status))
        exit(WEXITSTATUS(status));
    exit(GH_EXIT_INTERNAL);
}
