/* SPDX-License-Identifier: MIT */
/*
 * gh_cli_child: a stand-in for the profiled program in the `gpuhier run`
 * end-to-end tests (tests/e2e/t4*.sh). No CUDA: it does one observable
 * thing per mode so the tests can check gpuhier changes nothing.
 *
 *   exit N               exit with status N
 *   echo                 copy stdin to stdout, then "to-stderr" on stderr
 *   raise SIG            die by signal number SIG
 *   wait FILE            catch INT, TERM, HUP, QUIT, USR1, USR2; create FILE
 *                        when ready; on a signal print "got N" and exit 40+N
 *   env NAME...          print NAME=value (or NAME unset) for each
 *   cuda REPORT [END]    act like a CUDA process: append the collector's
 *                        session lines (start, and end unless END is "noend")
 *   cwd                  print the working directory
 *   status PROG ARGS...  run PROG, print "exit N" or "signal N" (" core" added
 *                        when it dumped core) as a parent sees it (a shell
 *                        cannot tell exit 143 from SIGTERM)
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t got;

static void
on_signal(int sig)
{
    got = sig;
}

static int
append(const char *path, const char *line)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0600);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, line, strlen(line));
    close(fd);
    return n == (ssize_t)strlen(line) ? 0 : -1;
}

int
main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: gh_cli_child MODE [ARGS]\n");
        return 99;
    }
    const char *mode = argv[1];
    if (!strcmp(mode, "exit") && argc > 2)
        return atoi(argv[2]);
    if (!strcmp(mode, "echo")) {
        int c;
        while ((c = getchar()) != EOF)
            putchar(c);
        fflush(stdout);
        fputs("to-stderr\n", stderr);
        return 0;
    }
    if (!strcmp(mode, "raise") && argc > 2) {
        int sig = atoi(argv[2]);
        signal(sig, SIG_DFL);
        raise(sig);
        return 98;
    }
    if (!strcmp(mode, "wait") && argc > 2) {
        const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
        for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
            struct sigaction sa = {.sa_handler = on_signal};
            sigemptyset(&sa.sa_mask);
            sigaction(sigs[i], &sa, NULL);
        }
        if (append(argv[2], "ready\n"))
            return 97;
        for (int i = 0; i < 3000 && !got; i++)
            usleep(10000);
        if (!got)
            return 96;
        printf("got %d\n", (int)got);
        return 40 + got;
    }
    if (!strcmp(mode, "env")) {
        for (int i = 2; i < argc; i++) {
            const char *v = getenv(argv[i]);
            if (v)
                printf("%s=%s\n", argv[i], v);
            else
                printf("%s unset\n", argv[i]);
        }
        return 0;
    }
    if (!strcmp(mode, "cuda") && argc > 2) {
        const char *session = getenv("GPUHIER_SESSION_FILE");
        if (!session)
            return 95;
        char line[4096];
        snprintf(line, sizeof(line), "start\t%ld\t%s\n", (long)getpid(), argv[2]);
        if (append(session, line))
            return 94;
        if (argc > 3 && !strcmp(argv[3], "noend"))
            return 0;
        snprintf(line, sizeof(line), "end\t%ld\t%s\t1234\t17\t1217\t0\t3\t2500000000\n",
                 (long)getpid(), argv[2]);
        return append(session, line) ? 94 : 0;
    }
    if (!strcmp(mode, "cwd")) {
        char buf[4096];
        puts(getcwd(buf, sizeof(buf)) ? buf : "?");
        return 0;
    }
    if (!strcmp(mode, "status") && argc > 2) {
        pid_t pid = fork();
        if (pid == 0) {
            execvp(argv[2], argv + 2);
            _exit(127);
        }
        int st;
        if (pid < 0 || waitpid(pid, &st, 0) != pid)
            return 93;
        if (WIFSIGNALED(st))
            printf("signal %d%s\n", WTERMSIG(st), WCOREDUMP(st) ? " core" : "");
        else
            printf("exit %d\n", WEXITSTATUS(st));
        return 0;
    }
    fprintf(stderr, "gh_cli_child: bad mode '%s'\n", mode);
    return 99;
}
