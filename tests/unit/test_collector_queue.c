/* SPDX-License-Identifier: MIT */
/*
 * The collector's queue and writer with a fake record source: 8 producer
 * threads push numbered records; every accepted record must reach the
 * report exactly once, and every refused one must be counted in
 * run.records_dropped. Also built with -fsanitize=thread
 * (unit.collector_queue_tsan). No CUDA, no CUPTI.
 */
#include "collector/cacheflush.h"
#include "collector/collector_int.h"
#include "collector/fault.h"
#include "collector/nvtx.h"
#include "collector/queue.h"
#include "schema/store.h"
#include "tests/check.h"

#include <elf.h>
#include <generated_nvtx_meta.h>
#include <pthread.h>
#include <stddef.h>
#include <sched.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define PRODUCERS 8
#define PER_PRODUCER 20000

static char dir[] = "/tmp/gh-collector-queue-XXXXXX";

struct qarg {
    struct queue *q;
    int id;
    long refused;
};

static void *
queue_producer(void *p)
{
    struct qarg *a = p;
    for (long i = 0; i < PER_PRODUCER; i++) {
        struct rec_test t = {a->id, i};
        while (queue_push(a->q, &t, sizeof(t)))
            a->refused++, sched_yield();
    }
    return NULL;
}

/* Every record once, and each producer's records in the order it pushed them. */
static void
test_collector_queue_8_producers(void)
{
    struct queue q;
    CHECK(queue_init(&q, 1024, sizeof(struct rec_test)) == 0);
    pthread_t th[PRODUCERS];
    struct qarg args[PRODUCERS];
    for (int i = 0; i < PRODUCERS; i++) {
        args[i] = (struct qarg){&q, i, 0};
        pthread_create(&th[i], NULL, queue_producer, &args[i]);
    }
    long next[PRODUCERS] = {0}, got = 0, bad = 0;
    while (got < (long)PRODUCERS * PER_PRODUCER) {
        struct rec_test t;
        if (!queue_pop(&q, &t)) {
            queue_wait(&q, 10);
            continue;
        }
        if (t.producer < 0 || t.producer >= PRODUCERS || t.seq != next[t.producer])
            bad++;
        else
            next[t.producer]++;
        got++;
    }
    long refused = 0;
    for (int i = 0; i < PRODUCERS; i++) {
        pthread_join(th[i], NULL);
        refused += args[i].refused;
        CHECK_EQ_INT(next[i], PER_PRODUCER);
    }
    struct rec_test t;
    CHECK(queue_pop(&q, &t) == 0);
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT((long)queue_pushed(&q), (long)PRODUCERS * PER_PRODUCER);
    CHECK_EQ_INT(atomic_load(&q.dropped), refused);
    queue_release(&q);
}

static void
test_collector_queue_full_drops(void)
{
    struct queue q;
    CHECK(queue_init(&q, 64, sizeof(long)) == 0);
    long accepted = 0;
    for (long i = 0; i < 100; i++)
        accepted += queue_push(&q, &i, sizeof(i)) == 0;
    CHECK_EQ_INT(accepted, 64);
    CHECK_EQ_INT(atomic_load(&q.dropped), 36);
    long v;
    for (long i = 0; i < 64; i++) {
        CHECK(queue_pop(&q, &v) == 1);
        CHECK_EQ_INT(v, i);
    }
    CHECK(queue_pop(&q, &v) == 0);
    queue_release(&q);
}

/*
 * A producer that claimed a slot (head advanced) but has not finished
 * writing it: queue_pop() stops there, so the writer would parse an
 * activity buffer holding that launch's kernel record before the launch
 * record itself (the kernel record then joined nothing: one launch in
 * about 85 runs of the fake's `threads` on this machine, and t151's one
 * failure on the H200). queue_pop_before() waits for it.
 */
struct late_arg {
    struct queue *q;
    size_t slot;
    long value;
};

static void *
late_commit(void *p)
{
    struct late_arg *a = p;
    nanosleep(&(struct timespec){0, 20 * 1000000L}, NULL);
    size_t i = a->slot & (a->q->cap - 1);
    memcpy(a->q->slots + i * a->q->rec_bytes, &a->value, sizeof(a->value));
    atomic_store_explicit(&a->q->seq[i], a->slot + 1, memory_order_release);
    return NULL;
}

static void
test_collector_queue_pop_before_waits_for_a_claimed_slot(void)
{
    struct queue q;
    CHECK(queue_init(&q, 8, sizeof(long)) == 0);
    long v = 1;
    CHECK(queue_push(&q, &v, sizeof(v)) == 0);
    /* a second producer claims slot 1 and is preempted before writing it */
    struct late_arg a = {&q, atomic_fetch_add(&q.head, 1), 2};
    v = 3;
    CHECK(queue_push(&q, &v, sizeof(v)) == 0);
    size_t until = queue_pushed(&q);
    CHECK_EQ_INT((long)until, 3);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, late_commit, &a) == 0);
    long out = 0;
    CHECK(queue_pop(&q, &out) == 1 && out == 1);
    CHECK(queue_pop(&q, &out) == 0); /* the race: the claimed slot stops a plain pop */
    CHECK(queue_pop_before(&q, &out, until, 1000000) == 1);
    CHECK_EQ_INT(out, 2);
    CHECK(queue_pop_before(&q, &out, until, 1000000) == 1);
    CHECK_EQ_INT(out, 3);
    CHECK(queue_pop_before(&q, &out, until, 1000000) == 0); /* nothing before `until` is left */
    pthread_join(t, NULL);
    /* a slot claimed and never written: the wait is bounded */
    atomic_fetch_add(&q.head, 1);
    until = queue_pushed(&q);
    CHECK(queue_pop_before(&q, &out, until, 1000) == 0);
    queue_release(&q);
}

static double
secs_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *
late_producer(void *p)
{
    struct queue *q = p;
    usleep(50000);
    for (long i = 0; i < 8; i++)
        queue_push(q, &i, sizeof(i));
    return NULL;
}

/*
 * The consumer is not woken per record: below wake_fill it sleeps its
 * whole period; at wake_fill a producer wakes it at once; queue_wake()
 * always wakes it.
 */
static void
test_collector_queue_wake_fill(void)
{
    struct queue q;
    CHECK(queue_init(&q, 64, sizeof(long)) == 0);
    queue_set_wake_fill(&q, 8);
    CHECK_EQ_INT(q.wake_fill, 8);
    for (long i = 0; i < 7; i++)
        CHECK(queue_push(&q, &i, sizeof(i)) == 0);
    double t0 = secs_now();
    queue_wait(&q, 200);
    CHECK(secs_now() - t0 >= 0.15); /* 7 records do not wake it */
    long v;
    for (long i = 0; i < 7; i++)
        CHECK(queue_pop(&q, &v) == 1 && v == i);
    /* 8 records pushed while it waits wake it long before its 20 s period. */
    pthread_t th;
    pthread_create(&th, NULL, late_producer, &q);
    t0 = secs_now();
    queue_wait(&q, 20000);
    double dt = secs_now() - t0;
    pthread_join(th, NULL);
    CHECK(dt < 10);
    for (long i = 0; i < 8; i++)
        CHECK(queue_pop(&q, &v) == 1 && v == i);
    CHECK(queue_pop(&q, &v) == 0);
    /* An explicit wake (exit, signal, writer_sync) needs no records. */
    queue_wake(&q);
    t0 = secs_now();
    queue_wait(&q, 20000);
    CHECK(secs_now() - t0 < 10);
    queue_set_wake_fill(&q, 0);
    CHECK_EQ_INT(q.wake_fill, 1);
    queue_set_wake_fill(&q, 1000);
    CHECK_EQ_INT(q.wake_fill, 64);
    queue_release(&q);
}

/*
 * A minimal ELF64 image: header, a section-name table holding `names`
 * (NUL-separated), one section header per name plus the null one and the
 * table's own. Returns its size in buf.
 */
static size_t
fake_elf(unsigned char *buf, size_t cap, const char *const *names, int n)
{
    memset(buf, 0, cap);
    Elf64_Ehdr eh = {0};
    memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    size_t off = sizeof(eh);
    char *tab = (char *)buf + off;
    size_t tlen = 1;
    uint32_t name_at[16];
    for (int i = 0; i < n; i++) {
        name_at[i] = (uint32_t)tlen;
        strcpy(tab + tlen, names[i]);
        tlen += strlen(names[i]) + 1;
    }
    uint32_t shstr_name = (uint32_t)tlen;
    strcpy(tab + tlen, ".shstrtab");
    tlen += 10;
    size_t shoff = (off + tlen + 7) & ~(size_t)7;
    eh.e_shoff = shoff;
    eh.e_shentsize = sizeof(Elf64_Shdr);
    eh.e_shnum = (uint16_t)(n + 2);
    eh.e_shstrndx = (uint16_t)(n + 1);
    memcpy(buf, &eh, sizeof(eh));
    Elf64_Shdr sh[18];
    memset(sh, 0, sizeof(sh));
    for (int i = 0; i < n; i++)
        sh[i + 1].sh_name = name_at[i];
    sh[n + 1].sh_name = shstr_name;
    sh[n + 1].sh_offset = off;
    sh[n + 1].sh_size = tlen;
    memcpy(buf + shoff, sh, (size_t)(n + 2) * sizeof(Elf64_Shdr));
    return shoff + (size_t)(n + 2) * sizeof(Elf64_Shdr);
}

/* Module loads: -lineinfo is read from the section headers, not by scanning the image. */
static void
test_collector_cubin_lineinfo(void)
{
    static unsigned char img[4096];
    const char *with[] = {".text._Z1kPf", ".nv_debug_line_sass", ".rela.nv_debug_line_sass"};
    const char *without[] = {".text._Z1kPf", ".debug_frame", ".nv.info"};
    size_t n = fake_elf(img, sizeof(img), with, 3);
    CHECK_EQ_INT(gh_cubin_has_lineinfo(img, n), 1);
    n = fake_elf(img, sizeof(img), without, 3);
    CHECK_EQ_INT(gh_cubin_has_lineinfo(img, n), 0);
    /* The string in a section's data, not a section name: not line info. */
    memcpy(img + n, ".nv_debug_line_sass", 19);
    CHECK_EQ_INT(gh_cubin_has_lineinfo(img, n + 19), 0);
    /* Section headers past the end: falls back to scanning the bytes. */
    CHECK_EQ_INT(gh_cubin_has_lineinfo(img, sizeof(Elf64_Ehdr) + 8), 0);
    n = fake_elf(img, sizeof(img), with, 3);
    ((Elf64_Ehdr *)img)->e_shoff = 1u << 30;
    CHECK_EQ_INT(gh_cubin_has_lineinfo(img, n), 1);
    /* Not ELF (e.g. a fatbin wrapper): scanned as before. */
    static const char blob[] = "xx.nv_debug_line_sassyy";
    CHECK_EQ_INT(gh_cubin_has_lineinfo(blob, sizeof(blob)), 1);
    CHECK_EQ_INT(gh_cubin_has_lineinfo("plain bytes", 11), 0);
}

struct warg {
    int id;
    long refused;
    long n; /* records to push */
};

static void *
writer_producer(void *p)
{
    struct warg *a = p;
    for (long i = 0; i < a->n; i++) {
        struct rec r = {.type = REC_TEST};
        r.u.test.producer = a->id;
        r.u.test.seq = i;
        while (writer_push(&r))
            a->refused++, sched_yield();
    }
    return NULL;
}

static long
query_long(sqlite3 *db, const char *sql)
{
    return (long)store_query_int(db, sql, -1);
}

/*
 * Through the real writer into a real report: no loss, no duplicates,
 * drops counted, one self-contained file (no -wal left) after the stop.
 */
static void
test_collector_writer_8_producers(void)
{
    char path[256], wal[300], err[256] = "";
    snprintf(path, sizeof(path), "%s/w.db", dir);
    snprintf(wal, sizeof(wal), "%s-wal", path);
    struct writer_run_info ri = {.mode = "trace", .options_json = "{}"};
    /* A small queue so producers outrun the writer and some pushes are refused. */
    CHECK(writer_start(path, &ri, 256, err, sizeof(err)) == 0);
    pthread_t th[PRODUCERS];
    struct warg args[PRODUCERS];
    for (int i = 0; i < PRODUCERS; i++) {
        args[i] = (struct warg){i, 0, PER_PRODUCER / 4};
        pthread_create(&th[i], NULL, writer_producer, &args[i]);
    }
    long refused = 0;
    for (int i = 0; i < PRODUCERS; i++) {
        pthread_join(th[i], NULL);
        refused += args[i].refused;
    }
    writer_stop(1);
    CHECK(access(wal, F_OK) != 0);
    sqlite3 *db = NULL;
    CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    long n = (long)PRODUCERS * (PER_PRODUCER / 4);
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM event WHERE code = 'test'"), n);
    CHECK_EQ_INT(query_long(db, "SELECT count(DISTINCT message) FROM event WHERE code = 'test'"),
                 n);
    CHECK_EQ_INT(query_long(db, "SELECT records_dropped FROM run"), refused);
    CHECK_EQ_INT(query_long(db, "SELECT clean_exit FROM run"), 1);
    CHECK_EQ_INT(query_long(db, "SELECT json_array_length(command_line) >= 1 FROM run"), 1);
    CHECK_EQ_INT(query_long(db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
    printf("     (%ld pushes refused and retried)\n", refused);
    sqlite3_close(db);
}

/* 1000 records from each of the 8 producers, refused pushes retried. */
static void
producers_run(void)
{
    pthread_t th[PRODUCERS];
    struct warg args[PRODUCERS];
    for (int i = 0; i < PRODUCERS; i++) {
        args[i] = (struct warg){i, 0, 1000};
        pthread_create(&th[i], NULL, writer_producer, &args[i]);
    }
    for (int i = 0; i < PRODUCERS; i++)
        pthread_join(th[i], NULL);
}

/*
 * A disk that fills up under 8 producers (RLIMIT_FSIZE: a real EFBIG on
 * the writer thread, whose blocked SIGXFSZ cannot kill the test): the
 * first failure is kept and readable from other threads, every accepted
 * record is either in the report or counted lost, and once space is back
 * the report carries the 'writer_error' note with that count.
 */
static void
test_collector_writer_disk_full(void)
{
    char path[256], err[256] = "";
    snprintf(path, sizeof(path), "%s/full.db", dir);
    struct writer_run_info ri = {.mode = "trace", .options_json = "{}"};
    CHECK(writer_start(path, &ri, 1024, err, sizeof(err)) == 0);
    producers_run();
    writer_sync(2000);
    CHECK(writer_error() == NULL);
    struct rlimit old;
    getrlimit(RLIMIT_FSIZE, &old);
    struct rlimit full = {4096, old.rlim_max};
    CHECK(setrlimit(RLIMIT_FSIZE, &full) == 0);
    for (int round = 0; round < 3; round++)
        producers_run();
    for (int i = 0; i < 2000 && !writer_error(); i++)
        usleep(1000);
    setrlimit(RLIMIT_FSIZE, &old);
    CHECK(writer_error() && strstr(writer_error(), "File too large"));
    writer_stop(1);
    struct writer_stats s;
    writer_stats(&s);
    sqlite3 *db = NULL;
    CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    long in = query_long(db, "SELECT count(*) FROM event WHERE code = 'test'");
    CHECK(in >= PRODUCERS * 1000);
    CHECK_EQ_INT(in + (long)s.lost_after_error, PRODUCERS * 4000);
    char want[200];
    snprintf(want, sizeof(want),
             "SELECT count(*) FROM event WHERE code = 'writer_error' AND message LIKE '%%; %llu "
             "records after it are not in the report'",
             (unsigned long long)s.lost_after_error);
    CHECK_EQ_INT(query_long(db, want), 1);
    CHECK_EQ_INT(query_long(db, "SELECT clean_exit FROM run"), 0);
    printf("     (%ld in the report, %llu lost after: %s)\n", in,
           (unsigned long long)s.lost_after_error, writer_error() ? writer_error() : "none");
    sqlite3_close(db);
}

static void
test_collector_json_escape(void)
{
    const char in[] = "a\"b\\c\0line\nx\x01y\0\xc3\xa9t\xc3\xa9\0bad\xff\xfe";
    char *j = json_array_nul(in, sizeof(in) - 1);
    CHECK_STR(j,
              "[\"a\\\"b\\\\c\",\"line\\nx\\u0001y\",\"\xc3\xa9t\xc3\xa9\",\"bad\\u00ff\\u00fe\"]");
    free(j);
    j = json_array_nul("", 0);
    CHECK_STR(j, "[]");
    free(j);
    /* The result must be valid JSON for SQLite too. */
    sqlite3 *db = NULL;
    sqlite3_open(":memory:", &db);
    j = json_array_nul(in, sizeof(in) - 1);
    sqlite3_stmt *st = NULL;
    sqlite3_prepare_v2(db, "SELECT json_valid(?), json_array_length(?)", -1, &st, NULL);
    sqlite3_bind_text(st, 1, j, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, j, -1, SQLITE_STATIC);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    CHECK_EQ_INT(sqlite3_column_int(st, 0), 1);
    CHECK_EQ_INT(sqlite3_column_int(st, 1), 4);
    sqlite3_finalize(st);
    sqlite3_close(db);
    free(j);
}

static void
test_collector_short_name(void)
{
    static const char *const cases[][2] = {
        {"void transpose_naive<float>(float*, float const*, int)", "transpose_naive"},
        {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
         "std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)",
         "at::native::vectorized_elementwise_kernel"},
        {"copy_kernel(float*, float*)", "copy_kernel"},
        {"nvjet_sm90_tst_128x64_64x4", "nvjet_sm90_tst_128x64_64x4"},
        {"void (anonymous namespace)::k(int)", "(anonymous namespace)::k"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *s = gh_short_name(cases[i][0]);
        CHECK_STR(s, cases[i][1]);
        free(s);
    }
    /* Names libiberty cannot demangle keep their leading nested name. */
    char *m = gh_short_name("_ZN17cutlass__5x_cudnn6KernelINS_4conv6kernel23ImplicitGemmC");
    CHECK_STR(m, "cutlass__5x_cudnn::Kernel");
    free(m);
    m = gh_short_name("_Z9transposePfPKfi");
    CHECK_STR(m, "transpose");
    free(m);
    m = gh_short_name("_Z");
    CHECK_STR(m, "_Z");
    free(m);
    char *d = gh_demangle("_Z15transpose_naiveIfEvPT_PKS0_i");
    CHECK_STR(d, "void transpose_naive<float>(float*, float const*, int)");
    free(d);
    d = gh_demangle("plain_c_kernel");
    CHECK_STR(d, "plain_c_kernel");
    free(d);
}

/* ------------------------------------------------------------ joins */

/*
 * A fake CUPTI activity buffer: fixed-size slots, each one record. The
 * writer walks it through gh.cuptiActivityGetNextRecord like a real one.
 */
union fake_slot {
    CUpti_Activity a;
    CUpti_ActivityKernel10 k;
    CUpti_ActivityMemcpy6 m;
    CUpti_ActivityMemory4 mem;
    CUpti_ActivityUnifiedMemoryCounter3 um;
};

static CUptiResult CUPTIAPI
fake_next(uint8_t *buf, size_t valid, CUpti_Activity **rec)
{
    uint8_t *p = *rec ? (uint8_t *)*rec + sizeof(union fake_slot) : buf;
    if (p + sizeof(union fake_slot) > buf + valid)
        return CUPTI_ERROR_MAX_LIMIT_REACHED;
    *rec = (CUpti_Activity *)p;
    return CUPTI_SUCCESS;
}

static atomic_int released;
static void
fake_release(uint8_t *buf)
{
    (void)buf;
    released++;
}

static void
fake_kernel(union fake_slot *s, const char *name, uint32_t corr, uint64_t start, uint32_t graph)
{
    memset(s, 0, sizeof(*s));
    s->k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    s->k.name = name;
    s->k.correlationId = corr;
    s->k.gridX = 64, s->k.gridY = 1, s->k.gridZ = 1;
    s->k.blockX = 256, s->k.blockY = 1, s->k.blockZ = 1;
    s->k.registersPerThread = 32;
    s->k.sharedMemoryExecuted = 233472;
    s->k.clusterX = s->k.clusterY = s->k.clusterZ = 1;
    s->k.start = start;
    s->k.end = start + 1000;
    s->k.streamId = 7;
    s->k.graphId = graph;
}

/* Starts the writer on DIR/NAME.db in profile mode, reading fake activity buffers. */
static void
writer_start_fake(char *path, size_t n, const char *name)
{
    char err[256] = "";
    snprintf(path, n, "%s/%s.db", dir, name);
    struct writer_run_info ri = {.mode = "profile", .options_json = "{}"};
    gh.cuptiActivityGetNextRecord = fake_next;
    CHECK(writer_start(path, &ri, 1024, err, sizeof(err)) == 0);
}

/* the next push_launch()'s pointer arguments into host memory (then cleared) */
static struct hostargs next_host;

static void
push_launch(uint32_t corr, uint32_t rt, const char *reason, int sampled, long idx, const char *nvtx)
{
    struct rec r = {.type = REC_LAUNCH};
    r.u.launch.host = next_host;
    memset(&next_host, 0, sizeof(next_host));
    r.u.launch.corr = corr;
    r.u.launch.rt_corr = rt;
    r.u.launch.sampled = sampled;
    r.u.launch.config_index = idx;
    snprintf(r.u.launch.reason, sizeof(r.u.launch.reason), "%s", reason);
    snprintf(r.u.launch.nvtx_path, sizeof(r.u.launch.nvtx_path), "%s", nvtx);
    CHECK(writer_push_n(&r, offsetof(struct rec, u) + sizeof(struct rec_launch)) == 0);
}

static const char *const fake_metrics[] = {"gpu__time_duration.sum", "smsp__inst_executed.sum"};

/* The API side of a copy: its pointers and call, joined to its record by `corr`. */
static void
push_copy(uint32_t corr, uint64_t src, uint64_t dst, const char *api)
{
    struct rec c = {.type = REC_COPY};
    c.u.copy.corr = corr;
    c.u.copy.src = src;
    c.u.copy.dst = dst;
    snprintf(c.u.copy.api, sizeof(c.u.copy.api), "%s", api);
    writer_push(&c);
}

static void
push_profile(uint32_t corr, int ok, double dur)
{
    struct rec r = {.type = REC_PROFILE};
    r.u.profile.corr = corr;
    r.u.profile.ok = ok;
    r.u.profile.passes = 3;
    r.u.profile.n = 2;
    r.u.profile.names = fake_metrics;
    r.u.profile.values[0] = dur;
    r.u.profile.values[1] = 42;
    r.u.profile.overhead_ns = 5;
    snprintf(r.u.profile.set, sizeof(r.u.profile.set), "core");
    CHECK(writer_push(&r) == 0);
}

/* writer_set_gpu_time_hook's calls in test_collector_writer_joins */
static int hook_calls, hook_graph;
static int64_t hook_ns;
static void
count_gpu_time(const char *mangled, const uint32_t grid[3], const uint32_t block[3], uint32_t smem,
               int64_t ns)
{
    (void)smem;
    hook_calls++;
    hook_ns += ns;
    hook_graph += !strcmp(mangled, "_Z5otherv") && grid[0] == 64 && block[0] == 256 && ns != 1000;
}

/*
 * The writer's joins, without a GPU: launch records (by driver or
 * runtime correlation id) give kernel records their sampling reason,
 * NVTX path and configuration index; profiles attach whether they come
 * before or after the kernel record; a disagreeing batch is marked; graph
 * kernels without a launch callback get 'graph'; copies get pointers.
 */
static void
test_collector_writer_joins(void)
{
    char path[256];
    writer_start_fake(path, sizeof(path), "j");
    struct rec d = {.type = REC_DEVICE};
    snprintf(d.u.device.chip, sizeof(d.u.device.chip), "GH100");
    writer_push(&d);
    const char *k = "_Z6kernelPfi";
    /* parameters 0 and 3 point into page-locked host memory, 3's allocation size unknown */
    next_host = (struct hostargs){.n = 2, .index = {0, 3}, .range_bytes = {1 << 20, 0}};
    push_launch(10, 9, "first_of_config", 1, 0, "step > fwd");
    push_launch(12, 11, "sampled_out", 0, 1, "");
    push_launch(14, 13, "first_of_config", 1, 0, ""); /* profile arrives after its kernel record */
    push_launch(16, 15, "first_of_config", 1, 0, ""); /* its batch is dropped */
    push_copy(19, 0x1000, 0x2000, "cudaMemcpy");
    push_profile(10, 1, 1234);
    push_profile(16, 0, 0);
    push_copy(22, 0x3000, 0x4000, "cudaMemcpyAsync"); /* its record comes without times */

    static union fake_slot buf[7];
    fake_kernel(&buf[0], k, 9, 1000, 0);  /* the runtime id, as kernel records may carry */
    fake_kernel(&buf[1], k, 12, 3000, 0); /* the driver id */
    fake_kernel(&buf[2], "_Z5otherv", 13, 5000, 0);
    fake_kernel(&buf[3], "_Z5otherv", 77, 6000, 5); /* a graph node: no launch callback */
    fake_kernel(&buf[4], "_Z5thirdv", 16, 7000, 0);
    memset(&buf[5], 0, sizeof(buf[5]));
    buf[5].m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    buf[5].m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
    buf[5].m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
    buf[5].m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    buf[5].m.bytes = 4096;
    buf[5].m.correlationId = 20;
    buf[5].m.runtimeCorrelationId = 19;
    buf[5].m.start = 100, buf[5].m.end = 200;
    /*
     * A copy record CUPTI gave without times (CUPTI_TIMESTAMP_UNKNOWN): seen
     * on an H100 (2026-12-07), a DtoH copy just before an instrumented
     * launch. Its times are stored as NULL, not as 0 (the epoch).
     */
    buf[6] = buf[5];
    buf[6].m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
    buf[6].m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    buf[6].m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
    buf[6].m.correlationId = 22;
    buf[6].m.runtimeCorrelationId = 0;
    buf[6].m.start = buf[6].m.end = 0;
    buf[3].k.end = buf[3].k.start + 3000; /* the graph node's time must not reach the hook */
    writer_set_gpu_time_hook(count_gpu_time);
    writer_push_buffer((uint8_t *)buf, sizeof(buf), fake_release);
    for (int i = 0; i < 200 && released == 0; i++)
        usleep(5000);
    writer_sync(1000);
    push_profile(14, 1, 777);
    writer_stop(1);
    writer_set_gpu_time_hook(NULL);
    gh.cuptiActivityGetNextRecord = NULL;
    CHECK_EQ_INT(released, 1);
    /* --profile-budget's feed: the four kernels with launch callbacks, not the graph node */
    CHECK_EQ_INT(hook_calls, 4);
    CHECK_EQ_INT(hook_ns, 4000);
    CHECK_EQ_INT(hook_graph, 0);

    sqlite3 *db = NULL;
    CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM launch"), 5);
    /* the launch's host pointer arguments (schema.sql launch_host_arg), none for the others */
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM launch_host_arg a JOIN launch l ON l.id = "
                                "a.launch_id WHERE l.correlation_id = 9 AND ((a.param_index = 0 "
                                "AND a.range_bytes = 1048576) OR (a.param_index = 3 AND "
                                "a.range_bytes IS NULL))"),
                 2);
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM launch_host_arg"), 2);
    CHECK_EQ_INT(
        query_long(db, "SELECT count(*) FROM launch WHERE correlation_id = 9 AND profiled = 1 AND "
                       "profile_reason = 'first_of_config' AND nvtx_path = 'step > fwd' AND "
                       "config_launch_index = 0"),
        1);
    CHECK_EQ_INT(
        query_long(db, "SELECT count(*) FROM launch WHERE correlation_id = 12 AND profiled = 0 AND "
                       "profile_reason = 'sampled_out' AND config_launch_index = 1"),
        1);
    CHECK_EQ_INT(
        query_long(db, "SELECT count(*) FROM launch WHERE correlation_id = 13 AND profiled = 1"),
        1);
    CHECK_EQ_INT(
        query_long(db,
                   "SELECT count(*) FROM launch WHERE graph_id = 5 AND profile_reason = 'graph'"),
        1);
    CHECK_EQ_INT(
        query_long(db, "SELECT count(*) FROM launch WHERE correlation_id = 16 AND profiled = 0 AND "
                       "profile_reason = 'batch_dropped'"),
        1);
    CHECK_EQ_INT(query_long(db, "SELECT ranges_dropped FROM run"), 1);
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM profile"), 2);
    CHECK_EQ_INT(query_long(db, "SELECT duration_ns FROM v_profiled WHERE launch_id = "
                                "(SELECT id FROM launch WHERE correlation_id = 9)"),
                 1234);
    CHECK_EQ_INT(query_long(db, "SELECT inst_executed FROM v_profiled WHERE launch_id = "
                                "(SELECT id FROM launch WHERE correlation_id = 13)"),
                 42);
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM metric"), 4);
    CHECK_EQ_INT(query_long(db, "SELECT launches FROM config c JOIN kernel k ON k.id = c.kernel_id "
                                "WHERE k.mangled_name = '_Z6kernelPfi'"),
                 2);
    CHECK_EQ_INT(query_long(db, "SELECT total_ns FROM config c JOIN kernel k ON k.id = c.kernel_id "
                                "WHERE k.mangled_name = '_Z6kernelPfi'"),
                 2000);
    CHECK_EQ_INT(query_long(db,
                            "SELECT count(*) FROM config WHERE theoretical_occupancy_pct > 0 AND "
                            "occupancy_limiter IS NOT NULL"),
                 3);
    CHECK_EQ_INT(
        query_long(db, "SELECT count(*) FROM kernel WHERE demangled_name = 'kernel(float*, int)' "
                       "AND short_name = 'kernel'"),
        1);
    CHECK_EQ_INT(
        query_long(db, "SELECT count(*) FROM copy WHERE copy_kind = 'HtoD' AND src_kind = 'pinned' "
                       "AND dst_kind = 'device' AND src_ptr = 4096 AND dst_ptr = 8192 AND "
                       "api = 'cudaMemcpy' AND bytes = 4096"),
        1);
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM copy WHERE copy_kind = 'DtoH' AND src_ptr = "
                                "12288 AND start_ns IS NULL AND end_ns IS NULL AND bytes = 4096"),
                 1);
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM event WHERE level = 'warning' AND code = "
                                "'copies_untimed' AND message LIKE '1 copy records %'"),
                 1);
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM device WHERE id = 0 AND chip = 'GH100'"), 1);
    /* Which id joined each kernel record: 12 and 16 by the driver's, 9 and 13 by the runtime's. */
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM event WHERE level = 'info' AND code = "
                                "'kernel_correlation' AND message LIKE '%driver API id: 2, by the "
                                "runtime API id: 2, unmatched: 1'"),
                 1);
    sqlite3_close(db);
}

/*
 * Hands one buffer of records to the writer, waits for it to be released,
 * stops the writer and opens its report: the report, or NULL after a
 * failed check.
 */
static sqlite3 *
write_buffer(const char *path, union fake_slot *buf, size_t bytes)
{
    released = 0;
    writer_push_buffer((uint8_t *)buf, bytes, fake_release);
    for (int i = 0; i < 200 && released == 0; i++)
        usleep(5000);
    writer_stop(1);
    gh.cuptiActivityGetNextRecord = NULL;
    CHECK_EQ_INT(released, 1);
    sqlite3 *db = NULL;
    CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    return db;
}

/*
 * A configuration first seen through a replayed (profiled) launch: its
 * record has no timestamps and 0 local bytes and carveout (as on the
 * H200). The config row keeps them NULL, and the first complete record of
 * the same configuration fills them and the occupancy; a configuration
 * only ever replayed keeps NULL.
 */
static void
test_collector_writer_provisional_config(void)
{
    char path[256];
    released = 0;
    writer_start_fake(path, sizeof(path), "p");
    static union fake_slot buf[3];
    fake_kernel(&buf[0], "_Z5spillv", 30, 0, 0); /* replayed: incomplete */
    buf[0].k.start = buf[0].k.end = 0;
    buf[0].k.sharedMemoryExecuted = 0;
    fake_kernel(&buf[1], "_Z5spillv", 31, 9000, 0); /* the next launch: complete */
    buf[1].k.localMemoryPerThread = 256;
    buf[1].k.sharedMemoryExecuted = 32768;
    buf[1].k.staticSharedMemory = 16384;
    fake_kernel(&buf[2], "_Z4onlyv", 32, 0, 0); /* only ever replayed */
    buf[2].k.start = buf[2].k.end = 0;
    buf[2].k.sharedMemoryExecuted = 0;
    sqlite3 *db = write_buffer(path, buf, sizeof(buf));
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM config c JOIN kernel k ON k.id = c.kernel_id "
                                "WHERE k.mangled_name = '_Z5spillv' AND c.launches = 2 AND "
                                "c.local_bytes_per_thread = 256 AND c.carveout_bytes = 32768"),
                 1);
    /* 256 threads x 32 registers would fit 8 blocks; 16 KB each in a 32 KB carveout fit 1 */
    CHECK_EQ_INT(query_long(db, "SELECT blocks_per_sm FROM config c JOIN kernel k ON k.id = "
                                "c.kernel_id WHERE k.mangled_name = '_Z5spillv'"),
                 1);
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM config c JOIN kernel k ON k.id = c.kernel_id "
                                "WHERE k.mangled_name = '_Z4onlyv' AND local_bytes_per_thread IS "
                                "NULL AND carveout_bytes IS NULL AND blocks_per_sm > 0"),
                 1);
    sqlite3_close(db);
}

static void
fake_um(union fake_slot *s, CUpti_ActivityUnifiedMemoryCounterKind kind, uint64_t value,
        uint64_t start, uint64_t end, uint32_t flags)
{
    memset(s, 0, sizeof(*s));
    s->um.kind = CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER;
    s->um.counterKind = kind;
    s->um.value = value;
    s->um.start = start;
    s->um.end = end;
    s->um.address = 0x200000;
    s->um.srcId = 1;
    s->um.dstId = 0;
    s->um.flags = flags;
}

/*
 * Unified-memory records (schema.sql um_event): a migration keeps its bytes,
 * times, both processors and its cause; a CPU fault no value (CUPTI's is
 * the faulting instruction's address), no end and no processors; thrashing
 * its region's bytes and no end; a kind the report does not name is left
 * out.
 */
static void
test_collector_writer_um(void)
{
    char path[256];
    writer_start_fake(path, sizeof(path), "u");
    static union fake_slot buf[5];
    fake_um(&buf[0], CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD, 2097152, 5000,
            9000, CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_COHERENCE);
    fake_um(&buf[1], CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH, 65536, 12000,
            12500, CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_PREFETCH);
    fake_um(&buf[2], CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT, 3, 11000,
            11000, 0);
    fake_um(&buf[3], CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING, 77, 13000, 0, 0);
    fake_um(&buf[4], CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_UNKNOWN, 1, 14000, 14000, 0);
    sqlite3 *db = write_buffer(path, buf, sizeof(buf));
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM um_event"), 4);
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM um_event WHERE kind = 'htod' AND value = "
                                "2097152 AND start_ns = 5000 AND end_ns = 9000 AND src_id = 1 AND "
                                "dst_id = 0 AND cause = 'coherence' AND address = 2097152"),
                 1);
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM um_event WHERE kind = 'dtoh' AND value = "
                                "65536 AND end_ns = 12500 AND cause = 'prefetch'"),
                 1);
    /* a CPU fault's value is the faulting instruction's address (CUPTI 13.0): not kept */
    CHECK_EQ_INT(query_long(db,
                            "SELECT count(*) FROM um_event WHERE kind = 'cpu_fault' AND value "
                            "IS NULL AND end_ns IS NULL AND src_id IS NULL AND dst_id IS NULL AND "
                            "cause IS NULL"),
                 1);
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM um_event WHERE kind = 'thrashing' AND value "
                                "= 77 AND end_ns IS NULL AND start_ns = 13000 AND src_id = 1"),
                 1);
    sqlite3_close(db);
}

static void
fake_memory(union fake_slot *s, int is_alloc, unsigned kind, uint64_t address, uint64_t bytes,
            uint64_t t, uint32_t device)
{
    memset(s, 0, sizeof(*s));
    s->mem.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
    s->mem.memoryOperationType = is_alloc ? CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION
                                          : CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
    s->mem.memoryKind = kind;
    s->mem.address = address;
    s->mem.bytes = bytes;
    s->mem.timestamp = t;
    s->mem.deviceId = device;
    s->mem.streamId = CUPTI_INVALID_STREAM_ID;
}

/*
 * Allocation records (MEMORY2) into `allocation`, the collector's
 * 'alloc_tracking' statement into meta, the profiled launch's API time
 * into launch.api_ns, and v_launch_footprint summing what was live on the
 * launch's device when it was issued: device and static memory count,
 * pinned host memory and other devices do not, a release without a size
 * frees what its allocation had, a pool allocation counts.
 */
static void
test_collector_writer_allocations(void)
{
    char path[256];
    writer_start_fake(path, sizeof(path), "a");
    struct rec m = {.type = REC_META};
    snprintf(m.u.meta.key, sizeof(m.u.meta.key), "alloc_tracking");
    snprintf(m.u.meta.value, sizeof(m.u.meta.value), "on");
    writer_push(&m);
    struct rec r = {.type = REC_LAUNCH};
    r.time_ns = 5000; /* profiled: the collector stamped the API call */
    r.u.launch.corr = 30;
    r.u.launch.sampled = 0;
    r.u.launch.config_index = 0;
    CHECK(writer_push_n(&r, offsetof(struct rec, u) + sizeof(struct rec_launch)) == 0);
    push_launch(31, 0, "sampled_out", 0, 1, ""); /* unprofiled: no API time */

    static union fake_slot buf[11];
    enum { MB = 1 << 20 };
    fake_memory(&buf[0], 1, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 0x10000, 512 * MB, 1000, 0);
    fake_memory(&buf[1], 1, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC, 0x90000, 4 * MB, 1100, 0);
    fake_memory(&buf[2], 1, CUPTI_ACTIVITY_MEMORY_KIND_PINNED, 0xa0000, 64 * MB, 1200, 0);
    fake_memory(&buf[3], 1, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 0x10000, 32 * MB, 1300, 1);
    fake_memory(&buf[4], 1, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 0xb0000, 16 * MB, 2000, 0);
    fake_memory(&buf[5], 0, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 0xb0000, 0, 3000, 0);
    fake_memory(&buf[6], 1, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 0xc0000, 8 * MB, 4000, 0);
    buf[6].mem.isAsync = 1;
    buf[6].mem.streamId = 7;
    buf[6].mem.memoryPoolConfig.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
    fake_kernel(&buf[7], "_Z6kernelPfi", 30, 0, 0);
    buf[7].k.start = buf[7].k.end = 0; /* replayed: the record never completes */
    fake_kernel(&buf[8], "_Z6kernelPfi", 31, 9000, 0);
    fake_memory(&buf[9], 0, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 0x10000, 512 * MB, 6000, 0);
    /* A module loaded lazily inside the launch call: its variables count for that launch. */
    fake_memory(&buf[10], 1, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC, 0xd0000, 2 * MB, 5001, 0);
    sqlite3 *db = write_buffer(path, buf, sizeof(buf));
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM meta WHERE key = 'alloc_tracking' AND "
                                "value = 'on'"),
                 1);
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM allocation"), 9);
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM allocation WHERE memory_kind = "
                                "'device_static' AND op = 'alloc' AND bytes = 4194304"),
                 1);
    /* The release of 0xb0000 said 0 bytes: it frees the 16 MB its allocation had. */
    CHECK_EQ_INT(query_long(db, "SELECT bytes FROM allocation WHERE op = 'release' AND "
                                "address = 720896"),
                 16 * MB);
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM allocation WHERE is_async = 1 AND "
                                "stream_id = 7 AND pool = 'local'"),
                 1);
    CHECK_EQ_INT(query_long(db, "SELECT api_ns FROM launch WHERE correlation_id = 30 AND "
                                "start_ns IS NULL"),
                 5000);
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM launch WHERE correlation_id = 31 AND "
                                "api_ns IS NULL"),
                 1);
    /*
     * At 5000 on device 0: 512 + 4 + 2 (static, one loaded at 5001) + 8 (pool) MB; not pinned,
     * not device 1, not the freed 16.
     */
    CHECK_EQ_INT(query_long(db, "SELECT live_device_bytes FROM v_launch_footprint f JOIN launch l "
                                "ON l.id = f.launch_id WHERE l.correlation_id = 30"),
                 526 * MB);
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM v_launch_footprint"), 1);
    sqlite3_close(db);

    /* Without the collector's 'alloc_tracking' = 'on' the view says nothing. */
    CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK);
    CHECK(sqlite3_exec(db, "UPDATE meta SET value = 'off: test' WHERE key = 'alloc_tracking'", NULL,
                       NULL, NULL) == SQLITE_OK);
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM v_launch_footprint"), 0);
    sqlite3_close(db);
}

/* Whether `id` is in the list. */
static int
cb_has(const CUpti_CallbackId *ids, size_t n, CUpti_CallbackId id)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] == id)
            return 1;
    return 0;
}

/* How often `id` appears in the lists of one domain (a duplicate is a mistake). */
static int
cb_count(const CUpti_CallbackId *a, size_t na, const CUpti_CallbackId *b, size_t nb,
         CUpti_CallbackId id)
{
    int k = 0;
    for (size_t i = 0; i < na; i++)
        k += a[i] == id;
    for (size_t i = 0; i < nb; i++)
        k += b[i] == id;
    return k;
}

/*
 * The callbacks the collector enables (collector_int.h): every launch API
 * in the driver (launch records and failed launches), no runtime launch
 * API (the driver callback covers them), none of the APIs a training step
 * calls many times without the schema needing them, and only the NVTX
 * calls on_nvtx handles.
 */
static void
test_collector_callbacks(void)
{
    static const CUpti_CallbackId drv_launch[] = {
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    };
    /* ... and first (GPUHIER_DIAG_NO_LAUNCH_CALLBACKS skips exactly those). */
    CHECK_EQ_INT(GH_CB_DRIVER_LAUNCHES, GH_NCB(drv_launch));
    for (size_t i = 0; i < GH_NCB(drv_launch); i++)
        CHECK(cb_has(gh_cb_driver, GH_CB_DRIVER_LAUNCHES, drv_launch[i]));
    CHECK(cb_has(gh_cb_driver, GH_NCB(gh_cb_driver), CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync));
    CHECK(cb_has(gh_cb_driver, GH_NCB(gh_cb_driver), CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2));
    /* Memory MEMORY2 may miss turns alloc_tracking off. */
    CHECK(cb_has(gh_cb_driver, GH_NCB(gh_cb_driver), CUPTI_DRIVER_TRACE_CBID_cuMemMap));
    CHECK(
        cb_has(gh_cb_driver, GH_NCB(gh_cb_driver), CUPTI_DRIVER_TRACE_CBID_cuIpcOpenMemHandle_v2));
    CHECK(cb_has(gh_cb_runtime, GH_NCB(gh_cb_runtime),
                 CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020));
    CHECK(cb_has(gh_cb_runtime, GH_NCB(gh_cb_runtime),
                 CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020));
    CHECK(cb_has(gh_cb_driver_profile, GH_NCB(gh_cb_driver_profile),
                 CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch));
    CHECK(cb_has(gh_cb_runtime_profile, GH_NCB(gh_cb_runtime_profile),
                 CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000));

    static const CUpti_CallbackId rt_launch[] = {
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
        CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
        CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
    };
    for (size_t i = 0; i < GH_NCB(rt_launch); i++) {
        CHECK(!cb_has(gh_cb_runtime, GH_NCB(gh_cb_runtime), rt_launch[i]));
        CHECK(!cb_has(gh_cb_runtime_profile, GH_NCB(gh_cb_runtime_profile), rt_launch[i]));
    }

    /* Called per step or per op by PyTorch and most programs; the schema needs none of them. */
    static const CUpti_CallbackId drv_hot[] = {
        CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent,
        CUPTI_DRIVER_TRACE_CBID_cuCtxSetCurrent,
        CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize,
        CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize,
        CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuStreamQuery,
        CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent,
        CUPTI_DRIVER_TRACE_CBID_cuEventRecord,
        CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags,
        CUPTI_DRIVER_TRACE_CBID_cuEventQuery,
        CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize,
        CUPTI_DRIVER_TRACE_CBID_cuStreamGetCaptureInfo,
        CUPTI_DRIVER_TRACE_CBID_cuStreamGetCaptureInfo_v2,
        CUPTI_DRIVER_TRACE_CBID_cuStreamGetCaptureInfo_v3,
        CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync,
        CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async,
    };
    for (size_t i = 0; i < GH_NCB(drv_hot); i++) {
        CHECK(!cb_has(gh_cb_driver, GH_NCB(gh_cb_driver), drv_hot[i]));
        CHECK(!cb_has(gh_cb_driver_profile, GH_NCB(gh_cb_driver_profile), drv_hot[i]));
    }

    /* No callback enabled twice (once per list pair, whichever mode). */
    for (size_t i = 0; i < GH_NCB(gh_cb_driver); i++)
        CHECK_EQ_INT(cb_count(gh_cb_driver, GH_NCB(gh_cb_driver), gh_cb_driver_profile,
                              GH_NCB(gh_cb_driver_profile), gh_cb_driver[i]),
                     1);
    for (size_t i = 0; i < GH_NCB(gh_cb_runtime); i++)
        CHECK_EQ_INT(cb_count(gh_cb_runtime, GH_NCB(gh_cb_runtime), gh_cb_runtime_profile,
                              GH_NCB(gh_cb_runtime_profile), gh_cb_runtime[i]),
                     1);

    /* NVTX: push/pop, start/end (plain and domain forms), domain names and registered strings; no
     * marks, no naming. */
    static const CUpti_CallbackId nvtx_need[] = {
        CUPTI_CBID_NVTX_nvtxRangePushA,
        CUPTI_CBID_NVTX_nvtxRangePushEx,
        CUPTI_CBID_NVTX_nvtxRangePop,
        CUPTI_CBID_NVTX_nvtxDomainRangePushEx,
        CUPTI_CBID_NVTX_nvtxDomainRangePop,
        CUPTI_CBID_NVTX_nvtxRangeStartA,
        CUPTI_CBID_NVTX_nvtxRangeStartEx,
        CUPTI_CBID_NVTX_nvtxRangeEnd,
        CUPTI_CBID_NVTX_nvtxDomainRangeStartEx,
        CUPTI_CBID_NVTX_nvtxDomainRangeEnd,
        CUPTI_CBID_NVTX_nvtxDomainCreateA,
        CUPTI_CBID_NVTX_nvtxDomainRegisterStringA,
        CUPTI_CBID_NVTX_nvtxDomainRegisterStringW,
    };
    for (size_t i = 0; i < GH_NCB(nvtx_need); i++)
        CHECK(cb_has(gh_cb_nvtx, GH_NCB(gh_cb_nvtx), nvtx_need[i]));
    static const CUpti_CallbackId nvtx_not[] = {
        CUPTI_CBID_NVTX_nvtxMarkA,         CUPTI_CBID_NVTX_nvtxMarkEx,
        CUPTI_CBID_NVTX_nvtxNameOsThreadA, CUPTI_CBID_NVTX_nvtxNameCategoryA,
        CUPTI_CBID_NVTX_nvtxDomainMarkEx,  CUPTI_CBID_NVTX_nvtxDomainNameCategoryA,
    };
    for (size_t i = 0; i < GH_NCB(nvtx_not); i++)
        CHECK(!cb_has(gh_cb_nvtx, GH_NCB(gh_cb_nvtx), nvtx_not[i]));
}

/*
 * GPUHIER_FAULT (docs/fault-injection.md): the whole site name before
 * ':', the error text, the optional whole-number count, the entry's index
 * (collector.c counts calls per index); a count that is not a number is
 * ignored, so the site fails always.
 */
/*
 * The L2 flush's orchestration (collector/cacheflush.c) against a fake
 * driver: set-up once per context (module, buffer of twice the L2), two
 * kernel launches per flush (read 16-byte elements, then discard 128-byte
 * lines), the buffer's address owned until its context is destroyed, a
 * failed set-up reported once and not retried on the same context, and a
 * guard the collector's callbacks see while the flush runs.
 */
static struct {
    int loads, allocs, launches, syncs, fail_alloc, active_seen;
    CUdeviceptr next_addr;
    uint64_t n[4];
    unsigned discard[4];
} fk;

static CUresult CUDAAPI
fk_ctx_get_device(CUdevice *d)
{
    *d = 0;
    return CUDA_SUCCESS;
}
static CUresult CUDAAPI
fk_attribute(int *v, CUdevice_attribute a, CUdevice d)
{
    (void)d;
    *v = a == CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE ? 1 << 20 : 4; /* 1 MiB L2, 4 SMs */
    return CUDA_SUCCESS;
}
static CUresult CUDAAPI
fk_load(CUmodule *m, const void *image)
{
    fk.loads++;
    *m = (CUmodule)(uintptr_t)0x10;
    return strstr(image, "gpuhier_l2_flush") ? CUDA_SUCCESS : CUDA_ERROR_INVALID_IMAGE;
}
static CUresult CUDAAPI
fk_function(CUfunction *f, CUmodule m, const char *name)
{
    (void)m;
    *f = (CUfunction)(uintptr_t)(strstr(name, "discard") ? 0x21 : 0x20);
    return CUDA_SUCCESS;
}
static CUresult CUDAAPI
fk_alloc(CUdeviceptr *p, size_t bytes)
{
    if (fk.fail_alloc)
        return CUDA_ERROR_OUT_OF_MEMORY;
    fk.allocs++;
    CHECK_EQ_INT(bytes, 2 << 20); /* twice the L2 */
    *p = fk.next_addr;
    fk.next_addr += 0x1000000;
    return CUDA_SUCCESS;
}
static CUresult CUDAAPI
fk_launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
          unsigned bz, unsigned smem, CUstream st, void **params, void **extra)
{
    (void)gy, (void)gz, (void)by, (void)bz, (void)smem, (void)st, (void)extra;
    CHECK(gx > 0 && bx > 0);
    fk.active_seen += cacheflush_active();
    int i = fk.launches++ % 4;
    fk.n[i] = *(uint64_t *)params[1];
    fk.discard[i] = (uintptr_t)f == 0x21;
    return CUDA_SUCCESS;
}
static CUresult CUDAAPI
fk_sync(void)
{
    fk.syncs++;
    return CUDA_SUCCESS;
}
static CUresult CUDAAPI
fk_error_name(CUresult r, const char **s)
{
    *s = r == CUDA_ERROR_OUT_OF_MEMORY ? "CUDA_ERROR_OUT_OF_MEMORY" : "CUDA_ERROR_UNKNOWN";
    return CUDA_SUCCESS;
}

static void
test_collector_cacheflush(void)
{
    struct gh_api saved = gh;
    gh.cuCtxGetDevice = fk_ctx_get_device;
    gh.cuDeviceGetAttribute = fk_attribute;
    gh.cuModuleLoadData = fk_load;
    gh.cuModuleGetFunction = fk_function;
    gh.cuMemAlloc_v2 = fk_alloc;
    gh.cuLaunchKernel = fk_launch;
    gh.cuCtxSynchronize = fk_sync;
    gh.cuGetErrorName = fk_error_name;
    memset(&fk, 0, sizeof(fk));
    fk.next_addr = 0x7f0000000000ULL;
    CUcontext a = (CUcontext)(uintptr_t)0xa000, b = (CUcontext)(uintptr_t)0xb000;
    char err[256] = "";
    uint64_t bytes = 0;

    CHECK_EQ_INT(cacheflush_run(a, &bytes, err, sizeof(err)), 0);
    CHECK_EQ_INT(bytes, 2 << 20);
    CHECK_EQ_INT(cacheflush_run(a, NULL, err, sizeof(err)), 0);
    CHECK_EQ_INT(fk.loads, 1); /* set up once per context */
    CHECK_EQ_INT(fk.allocs, 1);
    CHECK_EQ_INT(fk.launches, 4); /* read then discard, twice */
    CHECK_EQ_INT(fk.syncs, 4);    /* before and after each flush */
    CHECK(!fk.discard[0] && fk.discard[1]);
    CHECK_EQ_INT(fk.n[0], (2 << 20) / 16);
    CHECK_EQ_INT(fk.n[1], (2 << 20) / 128);
    CHECK_EQ_INT(fk.active_seen, 4);
    CHECK(!cacheflush_active());
    CHECK(cacheflush_owns(0x7f0000000000ULL));
    CHECK(!cacheflush_owns(0x7f0000000010ULL));
    CHECK(!cacheflush_owns(0));
    CHECK(cacheflush_is_kernel("gpuhier_l2_discard"));
    CHECK(!cacheflush_is_kernel("scale"));

    /* another context: its own set-up; a failed one is said once, then not retried */
    fk.fail_alloc = 1;
    CHECK_EQ_INT(cacheflush_run(b, NULL, err, sizeof(err)), -1);
    CHECK(strstr(err, "cuMemAlloc") && strstr(err, "CUDA_ERROR_OUT_OF_MEMORY"));
    fk.fail_alloc = 0;
    CHECK_EQ_INT(cacheflush_run(b, NULL, err, sizeof(err)), -1);
    CHECK(strstr(err, "failed earlier") != NULL);
    CHECK_EQ_INT(fk.loads, 2);

    /* a destroyed context gives its buffer back; a new one at the same address sets up anew */
    cacheflush_forget(a);
    cacheflush_forget(b);
    CHECK(!cacheflush_owns(0x7f0000000000ULL));
    CHECK_EQ_INT(cacheflush_run(a, NULL, err, sizeof(err)), 0);
    CHECK_EQ_INT(fk.loads, 3);
    CHECK(cacheflush_owns(0x7f0001000000ULL));
    cacheflush_forget(a);
    gh = saved;
}

static void
test_collector_fault_spec(void)
{
    struct fault_entry e;
    CHECK(!fault_find(NULL, "range_start", &e));
    CHECK(!fault_find("", "range_start", &e));
    CHECK(!fault_find("range_enable:HARDWARE_BUSY", "range_start", &e));
    CHECK(!fault_find("range:HARDWARE_BUSY", "range_start", &e)); /* a prefix is not the site */
    CHECK(!fault_find("range_start_x:HARDWARE_BUSY", "range_start", &e));
    CHECK(fault_find("range_start:HARDWARE_BUSY", "range_start", &e));
    CHECK(e.error_len == strlen("HARDWARE_BUSY") &&
          !strncmp(e.error, "HARDWARE_BUSY", e.error_len));
    CHECK(e.index == 0 && !e.has_count);
    CHECK(fault_find("subscribe:7,range_start:CUPTI_ERROR_HARDWARE_BUSY:3,x:y", "range_start", &e));
    CHECK(e.index == 1 && e.has_count && e.count == 3);
    CHECK(e.error_len == strlen("CUPTI_ERROR_HARDWARE_BUSY"));
    CHECK(fault_find("subscribe:7,range_start:CUPTI_ERROR_HARDWARE_BUSY:3,x:y", "subscribe", &e));
    CHECK(e.index == 0 && e.error_len == 1 && e.error[0] == '7' && !e.has_count);
    CHECK(fault_find("range_start:HARDWARE_BUSY:x", "range_start", &e) && !e.has_count);
    CHECK(fault_find("range_start:HARDWARE_BUSY:2x,a:b", "range_start", &e) && !e.has_count);
    CHECK(fault_find("range_start:HARDWARE_BUSY:0", "range_start", &e) && e.has_count &&
          e.count == 0);
    CHECK(fault_find("a:b,,range_start:UNKNOWN", "range_start", &e) && e.index == 2);
    CHECK(fault_find("range_start:", "range_start", &e) && e.error_len == 0);

    /* fault_take: the site fails at its first n calls only, counted per entry */
    setenv("GPUHIER_FAULT", "subscribe:7,inst_runs:UNKNOWN:2", 1);
    CHECK(fault_take("inst_runs", &e) && e.index == 1);
    CHECK(fault_take("inst_runs", &e));
    CHECK(!fault_take("inst_runs", &e));
    CHECK(!fault_take("inst_runs", &e));
    CHECK(fault_take("subscribe", &e) && fault_take("subscribe", &e)); /* no count: always */
    CHECK(!fault_take("range_start", &e));
    unsetenv("GPUHIER_FAULT");
    CHECK(!fault_take("subscribe", &e));
}

/*
 * The instrumentation engine's batches (REC_SASS, issue 17): one that
 * arrives before its kernel record and one after, each into inst_launch
 * and inst_count (zero counts left out, two records of one pc summed),
 * its function into sass_function and no pc into sass_line (no cubin
 * was copied: no line to keep), the launch itself traced, not profiled; a batch
 * whose launch the writer never saw is freed (valgrind/ASan see a leak).
 */
static const char *const fake_sass_metrics[] = {"smsp__sass_inst_executed",
                                                "smsp__sass_sectors_mem_global",
                                                "smsp__sass_sectors_mem_global_ideal"};

static void
push_sass(uint32_t corr, const char *fname, uint32_t pc0)
{
    struct sass_batch *b = calloc(1, sizeof(*b));
    CHECK(b != NULL);
    b->n = 3;
    b->nm = 3;
    b->nnames = 1;
    b->metrics = fake_sass_metrics;
    b->crc = calloc(3, sizeof(*b->crc));
    b->pc = calloc(3, sizeof(*b->pc));
    b->fn = calloc(3, sizeof(*b->fn));
    b->names = calloc(1, sizeof(*b->names));
    b->values = calloc(9, sizeof(*b->values));
    b->names[0] = strdup(fname);
    uint64_t v[9] = {10, 120, 40,  /* pc0: 12 sectors for an ideal of 4 per instruction */
                     10, 0,   0,   /* pc0 + 16: no global access */
                     5,  60,  20}; /* pc0 again: summed */
    uint32_t pcs[3] = {pc0, pc0 + 16, pc0};
    for (int i = 0; i < 3; i++) {
        b->crc[i] = 0xabcd;
        b->pc[i] = pcs[i];
    }
    memcpy(b->values, v, sizeof(v));
    struct rec r = {.type = REC_SASS};
    r.u.sass.corr = corr;
    r.u.sass.overhead_ns = 4000;
    r.u.sass.batch = b;
    CHECK(writer_push(&r) == 0);
}

static void
test_collector_writer_sass(void)
{
    char path[4096];
    released = 0;
    writer_start_fake(path, sizeof(path), "sass");
    push_launch(40, 0, "instrumented", 1, 0, "");
    push_launch(42, 0, "instrumented", 1, 0, "");
    push_sass(40, "_Z6struct12v", 0); /* before its kernel record */
    push_sass(99, "_Z5nobodyv", 0);   /* no such launch: freed */
    static union fake_slot buf[2];
    fake_kernel(&buf[0], "_Z6struct12v", 40, 1000, 0);
    fake_kernel(&buf[1], "_Z7padded_v", 42, 3000, 0);
    writer_push_buffer((uint8_t *)buf, sizeof(buf), fake_release);
    for (int i = 0; i < 200 && released == 0; i++)
        usleep(5000);
    writer_sync(1000);
    push_sass(42, "_Z7padded_v", 32); /* after its kernel record */
    writer_stop(1);
    gh.cuptiActivityGetNextRecord = NULL;
    sqlite3 *db = NULL;
    CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM inst_launch"), 2);
    /* patched code ran slower: no time for the launch or its configuration */
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM launch WHERE start_ns IS NULL"), 2);
    CHECK_EQ_INT(query_long(db, "SELECT sum(total_ns) FROM config"), 0);
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM launch WHERE profile_reason = 'instrumented' "
                                "AND profiled = 0"),
                 2);
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM inst_launch il JOIN launch l ON "
                                "l.id = il.launch_id WHERE il.config_id = l.config_id AND "
                                "il.kernel_id = l.kernel_id AND il.overhead_ns = 4000"),
                 2);
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM sass_function WHERE cubin_crc = 43981 AND "
                                "kernel_id IS NOT NULL"),
                 2);
    /* no cubin, so no line: no sass_line row (the pcs are inst_count's), and v_inst has all 4 */
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM sass_line"), 0);
    CHECK_EQ_INT(query_long(db, "SELECT count(DISTINCT function_id || ':' || pc) FROM v_inst "
                                "WHERE file IS NULL AND line IS NULL"),
                 4);
    /* pc0's two records summed: 15 instructions, 180 sectors for an ideal of 60 */
    CHECK_EQ_INT(query_long(db, "SELECT c.value FROM inst_count c JOIN metric_name n ON "
                                "n.id = c.metric_id JOIN sass_function f ON f.id = c.function_id "
                                "WHERE f.name = '_Z6struct12v' AND c.pc = 0 AND "
                                "n.name = 'smsp__sass_sectors_mem_global'"),
                 180);
    CHECK_EQ_INT(query_long(db, "SELECT inst_executed FROM v_inst WHERE function = '_Z7padded_v' "
                                "AND pc = 32"),
                 15);
    /*
     * zero counts are not rows: pc0 + 16 has its instruction count only,
     * which the writer made a run (schema.sql inst_run), as every
     * executed-instruction count: none is left per instruction
     */
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM inst_count WHERE pc IN (16, 48)"), 0);
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM v_inst WHERE pc IN (16, 48) AND "
                                "inst_executed > 0 AND global_sectors = 0"),
                 2);
    CHECK_EQ_INT(query_long(db, "SELECT count(*) FROM inst_count c JOIN metric_name n ON "
                                "n.id = c.metric_id WHERE n.name = 'smsp__sass_inst_executed'"),
                 0);
    CHECK(query_long(db, "SELECT count(*) FROM inst_run") > 0);
    /* the analyzer's view reads them: struct12's loads at 3x their ideal */
    CHECK_EQ_INT(query_long(db, "SELECT sum(global_sectors) / sum(global_sectors_ideal) FROM "
                                "v_inst WHERE function = '_Z6struct12v'"),
                 3);
    sqlite3_close(db);
    released = 0; /* the joins test counts its own buffer */
}

/* Calls on_nvtx() as CUPTI would, with `ret` as the function's return value. */
static void
nvtx_call(CUpti_CallbackId cbid, const void *params, const void *ret)
{
    CUpti_NvtxData d = {
        .functionName = "nvtx", .functionParams = params, .functionReturnValue = ret};
    on_nvtx(cbid, &d);
}

/*
 * NVTX ranges named by a registered string (XLA's TSL domain names its
 * ranges so) or a wide string keep their text, in the thread's path and
 * in nvtx_range; a handle never registered reads "(registered string)".
 */
static void
test_collector_nvtx_strings(void)
{
    char path[256], p[REC_NVTX_PATH_MAX];
    writer_start_fake(path, sizeof(path), "nvtx");
    nvtxDomainHandle_t dom = (nvtxDomainHandle_t)(uintptr_t)0x5000;
    nvtxDomainCreateA_params create = {.name = "TSL"};
    nvtx_call(CUPTI_CBID_NVTX_nvtxDomainCreateA, &create, &dom);
    nvtxStringHandle_t reg = (nvtxStringHandle_t)(uintptr_t)0x7010,
                       wreg = (nvtxStringHandle_t)(uintptr_t)0x7020;
    nvtxDomainRegisterStringA_params ra = {.domain = dom, .string = "XlaCompile:#module=jit_step#"};
    nvtx_call(CUPTI_CBID_NVTX_nvtxDomainRegisterStringA, &ra, &reg);
    static const wchar_t wide_text[] = L"wide registered";
    nvtxDomainRegisterStringW_params rw = {.domain = dom,
                                           .string = (const char *)(const void *)wide_text};
    nvtx_call(CUPTI_CBID_NVTX_nvtxDomainRegisterStringW, &rw, &wreg);

    nvtxEventAttributes_t a = {.version = NVTX_VERSION,
                               .size = NVTX_EVENT_ATTRIB_STRUCT_SIZE,
                               .messageType = NVTX_MESSAGE_TYPE_REGISTERED};
    a.message.registered = reg;
    nvtxDomainRangePushEx_params push = {.domain = dom, .core = {.eventAttrib = &a}};
    nvtx_call(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, &push, NULL);
    nvtxEventAttributes_t b = a;
    b.message.registered = wreg;
    nvtxDomainRangePushEx_params push_w = {.domain = dom, .core = {.eventAttrib = &b}};
    nvtx_call(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, &push_w, NULL);
    nvtxRangePushW_params wide = {.message = L"w\u00e9de"};
    nvtx_call(CUPTI_CBID_NVTX_nvtxRangePushW, &wide, NULL);
    nvtx_path(p, sizeof(p));
    CHECK_STR(p, "XlaCompile:#module=jit_step# > wide registered > w?de");
    nvtxEventAttributes_t c = a;
    c.message.registered = (nvtxStringHandle_t)(uintptr_t)0x9990; /* never registered */
    nvtxDomainRangePushEx_params push_c = {.domain = dom, .core = {.eventAttrib = &c}};
    nvtx_call(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, &push_c, NULL);
    for (int i = 0; i < 4; i++)
        nvtx_call(CUPTI_CBID_NVTX_nvtxDomainRangePop, &(nvtxDomainRangePop_params){.domain = dom},
                  NULL);
    nvtx_path(p, sizeof(p));
    CHECK_STR(p, "");
    /* XLA's pass names run past the 63 bytes a path level keeps: the range keeps the whole text */
    static const char long_text[] =
        "XlaPass:#name=hlo_host_device_type_call_wrapper,module=jit_train_step,program_id=12345#";
    nvtxStringHandle_t lreg = (nvtxStringHandle_t)(uintptr_t)0x7030;
    nvtxDomainRegisterStringA_params rl = {.domain = dom, .string = long_text};
    nvtx_call(CUPTI_CBID_NVTX_nvtxDomainRegisterStringA, &rl, &lreg);
    nvtxEventAttributes_t l = a;
    l.message.registered = lreg;
    nvtxDomainRangePushEx_params push_l = {.domain = dom, .core = {.eventAttrib = &l}};
    nvtx_call(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, &push_l, NULL);
    nvtx_call(CUPTI_CBID_NVTX_nvtxDomainRangePop, &(nvtxDomainRangePop_params){.domain = dom},
              NULL);
    writer_stop(1);
    gh.cuptiActivityGetNextRecord = NULL;

    sqlite3 *db = NULL;
    CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    CHECK_EQ_INT(query_long(db,
                            "SELECT count(*) FROM nvtx_range WHERE domain = 'TSL' AND name = "
                            "'XlaCompile:#module=jit_step#' AND depth = 0 AND end_ns >= start_ns"),
                 1);
    CHECK_EQ_INT(
        query_long(db,
                   "SELECT count(*) FROM nvtx_range WHERE name = 'wide registered' AND depth = 1"),
        1);
    CHECK_EQ_INT(
        query_long(db, "SELECT count(*) FROM nvtx_range WHERE name = 'w?de' AND domain IS NULL"),
        1);
    CHECK_EQ_INT(
        query_long(db, "SELECT count(*) FROM nvtx_range WHERE name = '(registered string)'"), 1);
    CHECK_EQ_INT(
        query_long(db,
                   "SELECT count(*) FROM nvtx_range WHERE name = 'XlaPass:#name=hlo_host_device_"
                   "type_call_wrapper,module=jit_train_step,program_id=12345#'"),
        1);
    sqlite3_close(db);
}

static const struct check_test tests[] = {
    {"test_collector_nvtx_strings", test_collector_nvtx_strings},
    {"test_collector_writer_sass", test_collector_writer_sass},
    {"test_collector_callbacks", test_collector_callbacks},
    {"test_collector_writer_joins", test_collector_writer_joins},
    {"test_collector_writer_provisional_config", test_collector_writer_provisional_config},
    {"test_collector_writer_allocations", test_collector_writer_allocations},
    {"test_collector_writer_um", test_collector_writer_um},
    {"test_collector_queue_8_producers", test_collector_queue_8_producers},
    {"test_collector_queue_full_drops", test_collector_queue_full_drops},
    {"test_collector_queue_pop_before_waits_for_a_claimed_slot",
     test_collector_queue_pop_before_waits_for_a_claimed_slot},
    {"test_collector_queue_wake_fill", test_collector_queue_wake_fill},
    {"test_collector_cubin_lineinfo", test_collector_cubin_lineinfo},
    {"test_collector_writer_8_producers", test_collector_writer_8_producers},
    {"test_collector_writer_disk_full", test_collector_writer_disk_full},
    {"test_collector_json_escape", test_collector_json_escape},
    {"test_collector_short_name", test_collector_short_name},
    {"test_collector_fault_spec", test_collector_fault_spec},
    {"test_collector_cacheflush", test_collector_cacheflush},
};

int
main(int argc, char **argv)
{
    /* tests/e2e/t103-cacheflush-ptx.sh assembles the flush kernel with ptxas */
    if (argc == 2 && !strcmp(argv[1], "--print-flush-ptx"))
        return fputs(cacheflush_ptx, stdout) < 0;
    return check_run_in_tmpdir(dir, tests, sizeof(tests) / sizeof(tests[0]), argc, argv);
}
