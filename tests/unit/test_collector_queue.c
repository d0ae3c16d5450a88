/* SPDX-License-Identifier: MIT */
/*
 * The collector's queue and writer with a fake record source: 8 producer
 * threads push numbered records; every accepted record must reach the
 * report exactly once, and every refused one must be counted in
 * run.records_dropped. Also built with -fsanitize=thread
 * (unit.collector_queue_tsan). No CUDA, no CUPTI.
 */
#include "collector/collector_int.h"
#include "collector/queue.h"
#include "tests/check.h"

#include <pthread.h>
#include <sched.h>
#include <sqlite3.h>
#include <stdatomic.h>
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
    CHECK_EQ_INT(atomic_load(&q.pushed), (long)PRODUCERS * PER_PRODUCER);
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

struct warg {
    int id;
    long refused;
};

static void *
writer_producer(void *p)
{
    struct warg *a = p;
    for (long i = 0; i < PER_PRODUCER / 4; i++) {
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
    sqlite3_stmt *st = NULL;
    long v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = (long)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
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
        args[i] = (struct warg){i, 0};
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
    CHECK_EQ_INT(query_long(db, "PRAGMA user_version"), 1);
    printf("     (%ld pushes refused and retried)\n", refused);
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
    char *d = gh_demangle("_Z15transpose_naiveIfEvPT_PKS0_i");
    CHECK_STR(d, "void transpose_naive<float>(float*, float const*, int)");
    free(d);
    d = gh_demangle("plain_c_kernel");
    CHECK_STR(d, "plain_c_kernel");
    free(d);
}

static const struct check_test tests[] = {
    {"test_collector_queue_8_producers", test_collector_queue_8_producers},
    {"test_collector_queue_full_drops", test_collector_queue_full_drops},
    {"test_collector_writer_8_producers", test_collector_writer_8_producers},
    {"test_collector_json_escape", test_collector_json_escape},
    {"test_collector_short_name", test_collector_short_name},
};

int
main(int argc, char **argv)
{
    if (!mkdtemp(dir))
        return 1;
    int rc = check_run(tests, sizeof(tests) / sizeof(tests[0]), argc, argv);
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd) != 0)
        rc = 1;
    return rc;
}
