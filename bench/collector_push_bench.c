/* SPDX-License-Identifier: MIT */
/*
 * collector_push_bench: what the collector's launch callback adds to the
 * launching thread, on the CPU, without CUDA. One thread "launches" N
 * times: it spins `gap_us` of simulated work (the program's own launch
 * path), then does what on_launch does in trace mode (fill a launch record
 * with its NVTX path, push its first ~330 bytes into the real writer's
 * queue); the real writer thread commits into a real SQLite report.
 * Compared with the same loop without pushes, for two writer policies:
 *   per-record: the writer is woken by every push (the old behaviour);
 *   batched:    the writer wakes every 250 ms or at 1/8 of the queue.
 * Prints, for each, the time spent in the record code per launch (what
 * the launching thread pays directly; mean and median), the whole loop's time per launch
 * against the loop without pushes (also what a busy writer takes from a
 * shared CPU; noisy on a loaded machine), and the writer's stop time.
 *
 * Usage: collector_push_bench [N] [gap_us] [dir]   (defaults 100000 20 /tmp)
 * Exit 0 when no record was dropped in the batched mode, 1 otherwise.
 */
#include "collector/collector_int.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double
now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static volatile unsigned long sink;

static void
spin_us(double us)
{
    double end = now_s() + us / 1e6;
    unsigned long x = 0;
    while (now_s() < end)
        x++;
    sink += x;
}

static double push_s;   /* time spent in the launch-record code itself */
static double *push_ts; /* each launch's share, for the median */

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double
median_us(long n)
{
    qsort(push_ts, (size_t)n, sizeof(double), cmp_double);
    return push_ts[n / 2] * 1e6;
}

static double
loop(long n, double gap_us, int push)
{
    push_s = 0;
    static struct rec r;
    /* As on_launch: clear the fixed part, copy up to the end of the NVTX path. */
    const size_t fixed = offsetof(struct rec, u) + offsetof(struct rec_launch, nvtx_path);
    const char *path = "train > step > forward";
    size_t plen = strlen(path);
    double t0 = now_s();
    for (long i = 0; i < n; i++) {
        spin_us(gap_us);
        if (!push)
            continue;
        double p0 = now_s();
        memset(&r, 0, fixed);
        r.type = REC_LAUNCH;
        r.u.launch.corr = (uint32_t)(i + 1);
        r.u.launch.config_index = -1;
        memcpy(r.u.launch.nvtx_path, path, plen + 1);
        gh_copy(r.u.launch.reason, sizeof(r.u.launch.reason), "mode_trace");
        writer_push_n(&r, fixed + plen + 1);
        double dt = now_s() - p0;
        push_s += dt;
        push_ts[i] = dt;
    }
    return now_s() - t0;
}

int
main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    double gap = argc > 2 ? atof(argv[2]) : 20;
    const char *dir = argc > 3 ? argv[3] : "/tmp";
    gh_quiet = 1;
    if (n <= 0 || gap < 0) {
        fprintf(stderr, "usage: collector_push_bench [N] [gap_us] [dir]\n");
        return 2;
    }
    push_ts = calloc((size_t)n, sizeof(double));
    if (!push_ts)
        return 2;
    double base = loop(n, gap, 0);
    printf("collector_push_bench: %ld launches, %.1f us of work each (synthetic, CPU only)\n", n,
           gap);
    printf("%-11s %10s %12s %12s %14s %10s %9s\n", "writer", "loop s", "push us/l", "median us",
           "loop +us/l", "stop ms", "dropped");
    printf("%-11s %10.3f %12s %12s %14s %10s %9s\n", "none", base, "-", "-", "-", "-", "-");
    int rc = 0;
    for (int mode = 0; mode < 2; mode++) {
        char path[4096], err[256] = "";
        snprintf(path, sizeof(path), "%s/gh-push-bench-%ld-%d.db", dir, (long)getpid(), mode);
        struct writer_run_info ri = {.mode = "trace", .options_json = "{}"};
        if (writer_start(path, &ri, 16384, err, sizeof(err))) {
            fprintf(stderr, "collector_push_bench: %s\n", err);
            return 2;
        }
        if (mode == 0)
            writer_set_wake_fill(1);
        double t = loop(n, gap, 1);
        double s0 = now_s();
        writer_stop(1);
        double stop = now_s() - s0;
        struct writer_stats st;
        writer_stats(&st);
        printf("%-11s %10.3f %12.3f %12.3f %14.2f %10.1f %9llu\n",
               mode == 0 ? "per-record" : "batched", t, push_s / (double)n * 1e6, median_us(n),
               (t - base) / (double)n * 1e6, stop * 1e3, (unsigned long long)st.dropped);
        if (mode == 1 && st.dropped)
            rc = 1;
        unlink(path);
    }
    free(push_ts);
    return rc;
}
