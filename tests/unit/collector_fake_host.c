/* SPDX-License-Identifier: MIT */
/*
 * collector_fake_host: a "CUDA program" on the fake driver
 * (collector_fake_cuda.c) for tests/e2e/t108-collector-engines.sh. The
 * collector is injected the way the driver does it (CUDA_INJECTION64_PATH,
 * called from cuInit), so its callbacks, engines, writer and exit run for
 * real; only CUDA and CUPTI are played.
 *
 *   collector_fake_host FAKE_LIB [stuck|many|pause|loop|longname|reset|bg|threads|overlap|cluster|conditional|seen|again|replay FILE]
 *
 * Launches, in order: copy (4x128 threads) 3 times, strided (8x256) 3
 * times, then an executable graph of three kernel nodes (copy, node, node)
 * twice (with `many`, 70 launches of copy before them; with `pause`, 1.2 s
 * between the copies and the strided launches; with `cluster`, the graph's
 * second node is a function the fake launches in thread-block clusters (with
 * `conditional`, a conditional node); with
 * `seen`, the graph is copy, strided, copy, all launched before; with
 * `again`, the graph is instantiated a second time and that one launched
 * twice too). With `loop`, instead: 20
 * rounds of copy, strided and node (1x32), a training loop's steps, and no
 * graph. With `longname`, first three launches of a function whose mangled
 * name is 300 bytes long (a template-heavy library kernel's). With `stuck` the first launch happens on a second thread while
 * the main thread waits 1.5 s and exits (the launch may never return).
 * With `bg`, stress_app's bg row (bench/stress): one launch of copy, then
 * a second thread launches copy and strided in turns (a pair a
 * millisecond) while main returns
 * after 100 ms; an exit handler registered after cuInit (so it runs after
 * the collector's, which registers itself again at its first range
 * profile) stops and joins the thread, then prints fake_violations= and
 * fake_rangeprof_started= (1: a profiled launch's range was left started)
 * and the SASS SetConfig and UnsetConfig calls.
 * With `threads`, tests/gpu/multistream's shape: 8 threads, each launching
 * copy and strided in turns, 200 launches a thread; with
 * FAKE_THREADS_BARRIER=1 every thread's first launch (copy) comes before
 * any thread's second (strided), the order of the H200's run that lost a
 * group-1 profile (docs/gpu-runs.md, 2026-12-05).
 * With `overlap`: copy, then copy on a second thread and, 20 ms later, strided
 * on the main thread (with GPUHIER_DIAG_LAUNCH_HOLD=2:MS the second copy is
 * held after the engines looked at it, so its kernel runs while strided is
 * instrumented unless the collector waits for it).
 * With `replay FILE` (bench/policy_sim.py): the launches of a recorded
 * report, one a line "MANGLED GX GY GZ BX BY BZ SMEM NS GAP_NS" (the kernel's
 * duration on the virtual clock, then the program's own time before the
 * next launch, slept), or for a graph launch "graph ID N NS GAP_NS" then its
 * N kernel nodes' mangled names one a line (made executable at the graph's
 * first launch; every node NS long), after a first line "start GAP_NS" (the
 * time before the first launch); nothing else.
 * Prints "fake_violations=N" (calls CUPTI would have refused), the fake
 * range profiler's user ranges pushed and kernels run outside every range
 * (fake_range_pushes=, fake_kernels_outside_ranges=), the SASS SetConfig
 * and UnsetConfig calls (fake_sass_configs=, fake_sass_unsets=), its SASS
 * Enable calls and the stream launches that ran patched (fake_enables=,
 * fake_patched_runs=), and exits 0.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void *fn_t;
typedef int (*init_fn)(unsigned);
typedef int (*launch_fn)(fn_t, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                         void *, void **, void **);
typedef fn_t (*function_fn)(const char *);
typedef void *(*graph_fn)(int, fn_t *);
typedef int (*graph_launch_fn)(void *, void *);
typedef int (*violations_fn)(void);

static launch_fn launch;
static fn_t copy;

static fn_t strided_fn;
static atomic_int bg_stop;
static pthread_t bg_thread;
static violations_fn bg_violations;
static int (*bg_started)(void), (*bg_sets)(void), (*bg_unsets)(void);

static void *
bg_loop(void *arg)
{
    (void)arg;
    while (!atomic_load(&bg_stop)) {
        launch(copy, 4, 1, 1, 128, 1, 1, 0, NULL, NULL, NULL);
        launch(strided_fn, 8, 1, 1, 256, 1, 1, 0, NULL, NULL, NULL);
        nanosleep(&(struct timespec){0, 1000000}, NULL); /* about stress_app's pace */
    }
    return NULL;
}

static void
bg_exit(void)
{
    atomic_store(&bg_stop, 1);
    pthread_join(bg_thread, NULL);
    printf("fake_violations=%d\nfake_rangeprof_started=%d\n", bg_violations(),
           bg_started ? bg_started() : -1);
    if (bg_sets && bg_unsets)
        printf("fake_sass_configs=%d\nfake_sass_unsets=%d\n", bg_sets(), bg_unsets());
}

/* `threads`: multistream's shape (tests/gpu/multistream.cu): 8 threads, each 200 launches of copy and
 * strided in turns */
static pthread_barrier_t threads_first; /* FAKE_THREADS_BARRIER=1: every copy before any strided */
static int threads_barrier;

static void *
threads_loop(void *arg)
{
    (void)arg;
    for (int k = 0; k < 200; k++) {
        if (k == 1 && threads_barrier)
            pthread_barrier_wait(&threads_first);
        if (k % 2)
            launch(strided_fn, 8, 1, 1, 256, 1, 1, 0, NULL, NULL, NULL);
        else
            launch(copy, 4, 1, 1, 128, 1, 1, 0, NULL, NULL, NULL);
    }
    return NULL;
}

/* Sleeps `ns` (a recorded program's own time between two launches). */
static void
sleep_ns(long long ns)
{
    struct timespec ts = {ns / 1000000000LL, ns % 1000000000LL};
    while (ns > 0 && nanosleep(&ts, &ts))
        ;
}

/* The fake function named `name`, made at its first use (NULL past 4,096 names). */
static fn_t
function_of(function_fn function, char (*names)[256], fn_t *fns, size_t *nnames, const char *name)
{
    size_t i = 0;
    while (i < *nnames && strcmp(names[i], name))
        i++;
    if (i == *nnames && *nnames < 4096) {
        snprintf(names[i], 256, "%s", name);
        fns[(*nnames)++] = function(name);
    }
    return i < *nnames ? fns[i] : NULL;
}

/*
 * The fake's SASS Enables, patched stream launches and kernels that got no record:
 * fake_enables=, fake_patched_runs=, fake_untraced_kernels=
 */
static void
print_sass_counts(void *h)
{
    int (*enables)(void) = (int (*)(void))dlsym(h, "fake_sass_enables");
    int (*patched)(void) = (int (*)(void))dlsym(h, "fake_patched_runs");
    if (enables && patched)
        printf("fake_enables=%d\nfake_patched_runs=%d\n", enables(), patched());
    int (*untraced)(void) = (int (*)(void))dlsym(h, "fake_untraced_kernels");
    if (untraced)
        printf("fake_untraced_kernels=%d\n", untraced());
}

/* `replay FILE`: a recorded report's launches (bench/policy_sim.py writes FILE). */
static int
replay(void *h, const char *path)
{
    function_fn function = (function_fn)dlsym(h, "fake_function");
    void (*kernel_ns)(unsigned long long) =
        (void (*)(unsigned long long))dlsym(h, "fake_kernel_ns");
    graph_fn graph = (graph_fn)dlsym(h, "fake_graph");
    graph_launch_fn graph_launch = (graph_launch_fn)dlsym(h, "cuGraphLaunch");
    int (*instantiate)(void **, void *, unsigned long long) =
        (int (*)(void **, void *, unsigned long long))dlsym(h, "cuGraphInstantiateWithFlags");
    FILE *f = fopen(path, "r");
    if (!f || !kernel_ns || !graph || !graph_launch) {
        fprintf(stderr, "fake host: cannot replay %s\n", path);
        if (f)
            fclose(f);
        return 2;
    }
    static char names[4096][256];
    static fn_t fns[4096];
    size_t nnames = 0;
    char name[256];
    long long gap = 0;
    if (fscanf(f, "start %lld", &gap) == 1)
        sleep_ns(gap);
    unsigned g[3], b[3], smem;
    unsigned long long ns;
    static void *execs[256];
    while (fscanf(f, "%255s", name) == 1) {
        unsigned id, n;
        if (!strcmp(name, "graph") && fscanf(f, "%u %u %llu %lld", &id, &n, &ns, &gap) == 4) {
            fn_t nodes[64];
            for (unsigned k = 0; k < n && k < 64 && fscanf(f, "%255s", name) == 1; k++)
                nodes[k] = function_of(function, names, fns, &nnames, name);
            if (id < 256 && !execs[id] &&
                (!instantiate || instantiate(&execs[id], graph(n < 64 ? (int)n : 64, nodes), 0)))
                execs[id] = NULL;
            kernel_ns(ns);
            if (id < 256 && execs[id])
                graph_launch(execs[id], NULL);
            kernel_ns(0);
            sleep_ns(gap);
            continue;
        }
        if (fscanf(f, "%u %u %u %u %u %u %u %llu %lld", &g[0], &g[1], &g[2], &b[0], &b[1], &b[2],
                   &smem, &ns, &gap) != 9)
            break;
        fn_t fn = function_of(function, names, fns, &nnames, name);
        if (!fn)
            continue;
        kernel_ns(ns);
        launch(fn, g[0], g[1], g[2], b[0], b[1], b[2], smem, NULL, NULL, NULL);
        sleep_ns(gap);
    }
    fclose(f);
    return 0;
}

static void *
copy_once(void *arg)
{
    (void)arg;
    launch(copy, 4, 1, 1, 128, 1, 1, 0, NULL, NULL, NULL);
    return NULL;
}

static void *
stuck_launch(void *arg)
{
    (void)arg;
    launch(copy, 4, 1, 1, 128, 1, 1, 0, NULL, NULL, NULL);
    return NULL;
}

int
main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: collector_fake_host FAKE_LIB [stuck]\n");
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    if (!h) {
        fprintf(stderr, "%s\n", dlerror());
        return 2;
    }
    init_fn cu_init = (init_fn)dlsym(h, "cuInit");
    launch = (launch_fn)dlsym(h, "cuLaunchKernel");
    function_fn function = (function_fn)dlsym(h, "fake_function");
    graph_fn graph = (graph_fn)dlsym(h, "fake_graph");
    graph_launch_fn graph_launch = (graph_launch_fn)dlsym(h, "cuGraphLaunch");
    violations_fn violations = (violations_fn)dlsym(h, "fake_violations");
    if (!cu_init || !launch || !function || !graph || !graph_launch || !violations)
        return 2;
    cu_init(0);
    copy = function("_Z4copyPfPKf");
    fn_t strided = function("_Z7stridedPfPKf");
    fn_t node = function("_Z4nodePf");
    /* `hostarg`: a kernel given a pointer into the fake's page-locked host memory, twice */
    if (argc > 2 && !strcmp(argv[2], "hostarg")) {
        fn_t hostarg = function("_Z7hostargPKfPfi");
        unsigned long long in = 0x7f0000000100ull, out = 0x300000000ull;
        int n = 256;
        void *params[] = {&in, &out, &n};
        for (int i = 0; i < 2; i++)
            launch(hostarg, 1, 1, 1, 256, 1, 1, 0, NULL, params, NULL);
    }
    if (argc > 2 && !strcmp(argv[2], "stuck")) {
        pthread_t t;
        pthread_create(&t, NULL, stuck_launch, NULL);
        pthread_detach(t);
        struct timespec ts = {1, 500000000L};
        nanosleep(&ts, NULL);
        printf("fake_violations=%d\n", violations());
        fflush(stdout);
        return 0;
    }
    if (argc > 2 && !strcmp(argv[2], "bg")) {
        strided_fn = strided;
        bg_violations = violations;
        bg_started = (int (*)(void))dlsym(h, "fake_rangeprof_started");
        bg_sets = (int (*)(void))dlsym(h, "fake_sass_configs");
        bg_unsets = (int (*)(void))dlsym(h, "fake_sass_unsets");
        atexit(bg_exit);
        launch(copy, 4, 1, 1, 128, 1, 1, 0, NULL, NULL, NULL);
        pthread_create(&bg_thread, NULL, bg_loop, NULL);
        struct timespec ts = {0, 100000000L};
        nanosleep(&ts, NULL);
        return 0; /* the thread is still launching */
    }
    if (argc > 2 && !strcmp(argv[2], "threads")) {
        strided_fn = strided;
        threads_barrier =
            getenv("FAKE_THREADS_BARRIER") && !strcmp(getenv("FAKE_THREADS_BARRIER"), "1");
        if (threads_barrier)
            pthread_barrier_init(&threads_first, NULL, 8);
        pthread_t th[8];
        for (int t = 0; t < 8; t++)
            pthread_create(&th[t], NULL, threads_loop, NULL);
        for (int t = 0; t < 8; t++)
            pthread_join(th[t], NULL);
        printf("fake_violations=%d\n", violations());
        print_sass_counts(h);
        return 0;
    }
    if (argc > 2 && !strcmp(argv[2], "overlap")) {
        /* `overlap`: copy; then copy again on a second thread while, 20 ms later, strided */
        launch(copy, 4, 1, 1, 128, 1, 1, 0, NULL, NULL, NULL);
        pthread_t t;
        pthread_create(&t, NULL, copy_once, NULL);
        struct timespec ts = {0, 20000000L};
        nanosleep(&ts, NULL);
        launch(strided, 8, 1, 1, 256, 1, 1, 0, NULL, NULL, NULL);
        pthread_join(t, NULL);
        printf("fake_violations=%d\n", violations());
        print_sass_counts(h);
        return 0;
    }
    if (argc > 3 && !strcmp(argv[2], "replay")) {
        int rc = replay(h, argv[3]);
        printf("fake_violations=%d\n", violations());
        print_sass_counts(h);
        return rc;
    }
    if (argc > 2 && !strcmp(argv[2], "loop")) {
        for (int i = 0; i < 20; i++) {
            launch(copy, 4, 1, 1, 128, 1, 1, 0, NULL, NULL, NULL);
            launch(strided, 8, 1, 1, 256, 1, 1, 0, NULL, NULL, NULL);
            launch(node, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL);
        }
        goto out;
    }
    if (argc > 2 && !strcmp(argv[2], "reset")) {
        /* `reset`: two configurations, cudaDeviceReset, then exit */
        void (*destroy)(void) = (void (*)(void))dlsym(h, "fake_context_destroy");
        launch(copy, 4, 1, 1, 128, 1, 1, 0, NULL, NULL, NULL);
        launch(strided, 8, 1, 1, 256, 1, 1, 0, NULL, NULL, NULL);
        if (!destroy)
            return 2;
        destroy();
        goto out;
    }
    if (argc > 2 && !strcmp(argv[2], "longname")) {
        char name[301] = "_Z4longIN";
        size_t n = strlen(name);
        while (n < 300)
            name[n++] = 'x';
        name[n] = 0;
        fn_t longfn = function(name);
        for (int i = 0; i < 3; i++)
            launch(longfn, 2, 1, 1, 64, 1, 1, 0, NULL, NULL, NULL);
    }
    /* `many`: 70 more copy launches first (more than a kept session's 64 ranges) */
    for (int i = 0; argc > 2 && !strcmp(argv[2], "many") && i < 70; i++)
        launch(copy, 4, 1, 1, 128, 1, 1, 0, NULL, NULL, NULL);
    for (int i = 0; i < 3; i++)
        launch(copy, 4, 1, 1, 128, 1, 1, 0, NULL, NULL, NULL);
    if (argc > 2 && !strcmp(argv[2], "pause")) {
        /* `pause`: 1.2 s between the copies and the strided launches (the flusher's turn) */
        struct timespec ts = {1, 200000000L};
        nanosleep(&ts, NULL);
    }
    for (int i = 0; i < 3; i++)
        launch(strided, 8, 1, 1, 256, 1, 1, 0, NULL, NULL, NULL);
    /* `cluster`: the graph's second node runs in thread-block clusters (the fake's attribute) */
    fn_t nodes[3] = {copy, node, node};
    if (argc > 2 && !strcmp(argv[2], "cluster"))
        nodes[1] = function("_Z7clusterPf");
    /* `conditional`: the graph's second node is a conditional node (the fake's, by name) */
    if (argc > 2 && !strcmp(argv[2], "conditional"))
        nodes[1] = function("conditional");
    /* `seen`: the graph's functions all launched on the stream before (copy, strided, copy) */
    if (argc > 2 && !strcmp(argv[2], "seen"))
        nodes[1] = strided, nodes[2] = copy;
    /* made executable through the driver, so that the collector sees the instantiation */
    void *exec = NULL;
    int (*instantiate)(void **, void *, unsigned long long) =
        (int (*)(void **, void *, unsigned long long))dlsym(h, "cuGraphInstantiateWithFlags");
    if (!instantiate || instantiate(&exec, graph(3, nodes), 0) != 0) {
        fprintf(stderr, "fake host: cuGraphInstantiateWithFlags failed\n");
        goto out;
    }
    for (int i = 0; i < 2; i++)
        graph_launch(exec, NULL);
    /* `again`: the same graph instantiated a second time (a program that does so every step) */
    void *exec2 = NULL;
    if (argc > 2 && !strcmp(argv[2], "again") && instantiate(&exec2, graph(3, nodes), 0) == 0)
        for (int i = 0; i < 2; i++)
            graph_launch(exec2, NULL);
out:
    printf("fake_violations=%d\n", violations());
    int (*sets)(void) = (int (*)(void))dlsym(h, "fake_sass_configs");
    int (*unsets)(void) = (int (*)(void))dlsym(h, "fake_sass_unsets");
    if (sets && unsets)
        printf("fake_sass_configs=%d\nfake_sass_unsets=%d\n", sets(), unsets());
    print_sass_counts(h);
    long (*pushes)(void) = (long (*)(void))dlsym(h, "fake_rangeprof_pushes");
    long (*outside)(void) = (long (*)(void))dlsym(h, "fake_rangeprof_kernels_outside");
    if (pushes && outside)
        printf("fake_range_pushes=%ld\nfake_kernels_outside_ranges=%ld\n", pushes(), outside());
    long (*conc)(void) = (long (*)(void))dlsym(h, "fake_rangeprof_ranged_concurrent");
    if (conc)
        printf("fake_ranged_kernels_traced_concurrently=%ld\n", conc());
    return 0;
}
