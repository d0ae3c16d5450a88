/* SPDX-License-Identifier: MIT */
/*
 * writer_host: a host program for tests/e2e/t106-collector-writer-fails.sh.
 * It runs the collector's real writer, as the collector does, on a report
 * whose file then fails for real mid-run (RLIMIT_FSIZE, a read-only or
 * removed directory, fd 2 closed, a changed working directory), pushes
 * numbered event records before and after, and exits with its own status
 * (42) whatever the writer met. SIGXFSZ keeps its default action, as in a
 * program that never heard of it. No CUDA, no CUPTI.
 *
 *   writer_host REPORT CASE [FILE]
 *
 * Prints "before=N after=N lost=N dropped=N refused=N idle_cpu_ms=N path=P
 * error=TEXT" on stdout: idle_cpu_ms is the process's CPU time over half a
 * second of sleep after the failure (a spinning writer would fill it).
 */
#include "collector/collector_int.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PER_BURST 200

static long pushed, refused;

/* A burst of records, then a commit: each burst lands in its own transaction. */
static void
burst(void)
{
    for (int i = 0; i < PER_BURST; i++) {
        struct rec r = {.type = REC_TEST};
        r.u.test.producer = 0;
        r.u.test.seq = pushed + i;
        if (writer_push(&r))
            refused++;
    }
    pushed += PER_BURST;
    writer_sync(2000);
}

/* The report's files and their directory, as `rm -r DIR` would. */
static void
remove_dir(const char *report)
{
    char p[4200], dir[4096];
    snprintf(dir, sizeof(dir), "%s", report);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    const char *suffix[] = {"", "-wal", "-shm", "-journal"};
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof(p), "%s%s", report, suffix[i]);
        unlink(p);
    }
    if (slash && rmdir(dir))
        perror("writer_host: rmdir");
}

int
main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: writer_host REPORT CASE [FILE]\n");
        return 2;
    }
    const char *report = argv[1], *what = argv[2], *file = argc > 3 ? argv[3] : NULL;
    struct writer_run_info ri = {.mode = "trace", .options_json = "{}"};
    char err[512] = "";
    /* as the collector does: a report that cannot be created means nothing collected */
    if (writer_start(report, &ri, 1024, err, sizeof(err)))
        fprintf(stderr, "writer_host: nothing collected: %s\n", err);
    for (int i = 0; i < 3; i++)
        burst();
    long before = pushed;
    struct rlimit old;
    getrlimit(RLIMIT_FSIZE, &old);
    if (!strcmp(what, "fsize") || !strcmp(what, "fsize-freed")) {
        /* a full disk: no file may grow, nor be written past its first page */
        struct rlimit rl = {4096, old.rlim_max};
        if (setrlimit(RLIMIT_FSIZE, &rl))
            perror("writer_host: setrlimit");
    } else if (!strcmp(what, "readonly")) {
        char dir[4096];
        snprintf(dir, sizeof(dir), "%s", report);
        *strrchr(dir, '/') = 0;
        if (chmod(dir, 0555))
            perror("writer_host: chmod");
    } else if (!strcmp(what, "removed")) {
        remove_dir(report);
    } else if (!strcmp(what, "fd2")) {
        /* the program's own file takes fd 2; then the report goes away, and the writer says so */
        close(2);
        int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd != 2)
            return 4;
        const char data[] = "program data\n";
        if (write(fd, data, sizeof(data) - 1) != (ssize_t)sizeof(data) - 1)
            return 5;
        remove_dir(report);
    } else if (!strcmp(what, "chdir")) {
        if (chdir("/"))
            return 6;
    }
    for (int i = 0; i < 20; i++)
        burst();
    /* an idle half second after the failure: the writer sleeps, it does not spin */
    struct timespec c0, c1, half = {0, 500000000};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    nanosleep(&half, NULL);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    long idle_ms = (c1.tv_sec - c0.tv_sec) * 1000 + (c1.tv_nsec - c0.tv_nsec) / 1000000;
    /* a full disk whose space came back before the exit: the note fits */
    if (!strcmp(what, "fsize-freed"))
        setrlimit(RLIMIT_FSIZE, &old);
    writer_stop(1);
    struct writer_stats s;
    writer_stats(&s);
    const char *e = writer_error();
    printf("before=%ld after=%ld lost=%llu dropped=%llu refused=%ld idle_cpu_ms=%ld path=%s "
           "error=%s\n",
           before, pushed - before, (unsigned long long)s.lost_after_error,
           (unsigned long long)s.dropped, refused, idle_ms, writer_path() ? writer_path() : "",
           e ? e : "none");
    return 42;
}
