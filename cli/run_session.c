/* SPDX-License-Identifier: MIT */
/*
 * run_session: what the CUDA processes of one `gpuhier run` said about
 * themselves. Each collector appends a `start` line when CUDA initializes
 * and an `end` line when it closes its report (GPUHIER_SESSION_FILE, one
 * write() per line, so concurrent processes do not interleave). A process
 * that was killed leaves only its start line: its report holds what was
 * committed before, and the summary says it did not close.
 */
#include "cli/cli.h"
#include "cli/run_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static struct run_process *
find_or_add(struct run_session *s, long pid, const char *report)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->procs[i].pid == pid && !strcmp(s->procs[i].report, report))
            return &s->procs[i];
    struct run_process *p = realloc(s->procs, (s->n + 1) * sizeof(*p));
    char *r = strdup(report);
    if (!p || !r) {
        /* cli convention: out of memory is fatal (xmalloc) */
        fputs("gpuhier: fatal: out of memory\n", stderr);
        abort();
    }
    s->procs = p;
    p = &s->procs[s->n++];
    memset(p, 0, sizeof(*p));
    p->pid = pid;
    p->report = r;
    return p;
}

/* Split `line` at tabs in place; returns the number of fields (at most max). */
static size_t
split(char *line, char **f, size_t max)
{
    size_t n = 0;
    char *p = line;
    while (n < max) {
        f[n++] = p;
        char *t = strchr(p, '\t');
        if (!t)
            break;
        *t = '\0';
        p = t + 1;
    }
    return n;
}

static int
to_ll(const char *s, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || errno)
        return -1;
    *out = v;
    return 0;
}

int
run_session_read(const char *path, struct run_session *s)
{
    memset(s, 0, sizeof(*s));
    FILE *f = fopen(path, "r");
    if (!f)
        return errno == ENOENT
                   ? 0
                   : error("run: cannot read session file '%s': %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) >= 0) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (!len)
            continue;
        char *fld[10];
        size_t n = split(line, fld, 10);
        long long pid;
        int is_start = !strcmp(fld[0], "start"), is_end = !strcmp(fld[0], "end");
        if (!is_start && !is_end)
            continue; /* a later collector may say more; older gpuhier ignores it */
        if (n < 3 || to_ll(fld[1], &pid) || !*fld[2] || (is_end && n < 9)) {
            s->n_bad_lines++;
            continue;
        }
        long long v[6] = {0};
        int bad = 0;
        for (int i = 0; is_end && i < 6; i++)
            bad |= to_ll(fld[3 + i], &v[i]);
        if (bad) {
            s->n_bad_lines++;
            continue;
        }
        struct run_process *p = find_or_add(s, (long)pid, fld[2]);
        if (is_end) {
            p->has_end = 1;
            p->traced = v[0];
            p->profiled = v[1];
            p->skipped = v[2];
            p->dropped = v[3];
            p->passes = v[4];
            p->profiling_ns = v[5];
        }
    }
    int ret = ferror(f) ? error("run: cannot read session file '%s'", path) : 0;
    free(line);
    fclose(f);
    return ret;
}

void
run_session_release(struct run_session *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        free(s->procs[i].report);
    free(s->procs);
    s->procs = NULL;
    s->n = 0;
}

const char *
run_display_path(const char *path, const char *cwd)
{
    size_t n = cwd ? strlen(cwd) : 0;
    if (n > 1 && !strncmp(path, cwd, n) && path[n] == '/')
        return path + n + 1;
    return path;
}

void
run_session_print(const struct run_session *s, const char *cwd, FILE *f)
{
    if (s->n == 0) {
        fprintf(f, "==gpuhier== the program never initialized CUDA: no report written\n");
        return;
    }
    for (size_t i = 0; i < s->n; i++) {
        const struct run_process *p = &s->procs[i];
        const char *shown = run_display_path(p->report, cwd);
        if (!p->has_end) {
            fprintf(f,
                    "==gpuhier== process %ld: report %s (not closed: the process ended before "
                    "the collector finished; it holds what was committed)\n",
                    p->pid, shown);
            continue;
        }
        fprintf(f, "==gpuhier== process %ld: report %s\n", p->pid, shown);
        fprintf(f,
                "==gpuhier==   launches: %lld traced, %lld profiled, %lld not profiled, "
                "%lld records dropped\n",
                p->traced, p->profiled, p->skipped, p->dropped);
        if (p->profiled > 0)
            fprintf(f, "==gpuhier==   profiling: %lld pass%s at most per launch, %.2f s\n",
                    p->passes, p->passes == 1 ? "" : "es", (double)p->profiling_ns / 1e9);
        if (p->dropped > 0)
            fprintf(
                f, "==gpuhier==   %lld records were dropped (queue full); the report counts them\n",
                p->dropped);
    }
    if (s->n_bad_lines)
        fprintf(f, "==gpuhier== %zu unreadable lines in the session file were ignored\n",
                s->n_bad_lines);
}
