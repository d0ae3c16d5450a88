/* SPDX-License-Identifier: MIT */
/*
 * gpuhier merge: one report for a job of many processes (docs/cmd-merge.md).
 *
 * Each input is one rank's report. The output holds every row of
 * sections 1-3 of schema.sql of every input, with the ids of rank R moved
 * into [R << 32, (R + 1) << 32) and the kernel and metric-name
 * dictionaries shared (schema.sql "job_rank" says why), plus job_rank and
 * rank_meta. It is built in a temporary file beside the output and
 * renamed over it once complete, so a reader never sees half a job and
 * an interrupted merge leaves the output as it was. The inputs are opened
 * read-only (SQLite URI mode=ro) and never written.
 *
 * Column lists are taken from each input, so a report recorded before a
 * column was added merges with that column NULL. Which columns move with
 * the rank is decided by name (id_shifted()), so a table added to the
 * schema later merges without a change here when it follows the naming.
 */
#include "cli/cli.h"

#include "schema/store.h"
#include "schema/strbuf.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Ids of rank R start at R << RANK_SHIFT (schema.sql job_rank). */
#define RANK_SHIFT 32
#define MAX_RANK 2147483647LL

struct input {
    const char *path;
    long long rank, local_rank, world_size; /* -1: not recorded */
    char *rank_source, *host, *created_by, *provenance;
    long long pid, start_ns, launches;
    int schema;
    int via_copy; /* store_open() read it through a private copy (a hot journal): so does merge */
    dev_t dev;
    ino_t ino;
};

/* strbuf with printf; out of memory aborts, as everywhere in cli/ (STYLE.md 4.9). */
static void strbuf_addf(struct strbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
strbuf_addf(struct strbuf *b, const char *fmt, ...)
{
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    char *t = malloc(n > 0 ? (size_t)n + 1 : 1);
    if (!t)
        abort();
    vsnprintf(t, n > 0 ? (size_t)n + 1 : 1, fmt, ap);
    va_end(ap);
    strbuf_add(b, t, n > 0 ? (size_t)n : 0);
    free(t);
    if (b->oom)
        abort();
}

static void
usage(FILE *f)
{
    fprintf(f, "usage: gpuhier merge RANK.db... -o JOB.db [-f]\n"
               "  -o, --output FILE  the job report to write (required)\n"
               "  -f, --force        replace FILE if it exists\n"
               "Exit status: 0 merged, 2 usage or inputs that are not one job's ranks,\n"
               "3/4 report problems, 6 output not writable.\n");
}

static char *
xstrdup_or_null(const unsigned char *s)
{
    if (!s)
        return NULL;
    char *d = strdup((const char *)s);
    if (!d)
        abort();
    return d;
}

static void
input_release(struct input *in)
{
    free(in->rank_source);
    free(in->host);
    free(in->created_by);
    free(in->provenance);
}

/* A whole number >= 0 from a meta value, else -1. */
static long long
meta_int(sqlite3 *db, const char *key)
{
    char *v = store_meta_get(db, key), *end = NULL;
    long long n = -1;
    if (v && *v) {
        errno = 0;
        n = strtoll(v, &end, 10);
        if (errno || *end || n < 0 || n > MAX_RANK)
            n = -1;
    }
    free(v);
    return n;
}

/*
 * Validate one input as every reader does (store_open), then read what
 * the merge needs: its rank, process and size. Returns 0 or an exit code
 * after printing the error.
 */
static int
input_read(struct input *in)
{
    struct stat sb;
    sqlite3 *db = NULL;
    if (store_open(in->path, STORE_READ_ONLY, &db)) {
        error("%s", store_error());
        return cli_store_exit_code();
    }
    int ret = GH_EXIT_NO_REPORT;
    in->via_copy = *store_note() != 0;
    cli_store_note();
    long pid = store_live_pid(in->path);
    if (pid) {
        if (pid > 0)
            error("cannot merge '%s': still being written (process %ld has it open)", in->path,
                  pid);
        else
            error("cannot merge '%s': still being written (another process has it open)", in->path);
        goto out;
    }
    if (stat(in->path, &sb) == 0) {
        in->dev = sb.st_dev;
        in->ino = sb.st_ino;
    }
    in->schema = store_user_version(db);
    char *cb = store_meta_get(db, "created_by");
    in->created_by = cb;
    in->provenance = store_meta_get(db, "provenance");
    if (store_query_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'job_rank'", 0) &&
        store_query_int(db, "SELECT count(*) FROM job_rank", 0) > 0) {
        error("cannot merge '%s': it is already a merged job report; merge the ranks' own reports",
              in->path);
        ret = GH_EXIT_USAGE;
        goto out;
    }
    char *r = store_meta_get(db, "rank");
    in->rank = meta_int(db, "rank");
    if (in->rank < 0) {
        error("cannot merge '%s': %s", in->path,
              r ? "its rank (meta 'rank') is not a whole number"
                : "it records no rank (meta 'rank'): it was not recorded as a process of a job");
        free(r);
        ret = GH_EXIT_USAGE;
        goto out;
    }
    free(r);
    in->local_rank = meta_int(db, "local_rank");
    in->world_size = meta_int(db, "world_size");
    in->rank_source = store_meta_get(db, "rank_source");
    sqlite3_stmt *st = NULL;
    if (store_prepare(db, "SELECT host, pid, start_ns FROM run ORDER BY id LIMIT 1", &st)) {
        ret = cli_report_failed(in->path, NULL, GH_EXIT_INTERNAL, store_error());
        goto out;
    }
    in->pid = in->start_ns = -1;
    if (sqlite3_step(st) == SQLITE_ROW) {
        in->host = xstrdup_or_null(sqlite3_column_text(st, 0));
        if (sqlite3_column_type(st, 1) != SQLITE_NULL)
            in->pid = sqlite3_column_int64(st, 1);
        if (sqlite3_column_type(st, 2) != SQLITE_NULL)
            in->start_ns = sqlite3_column_int64(st, 2);
    }
    sqlite3_finalize(st);
    static const char *const with_id[] = {"run",        "event",  "device",
                                          "config",     "launch", "launch_failure",
                                          "nvtx_range", "copy",   "allocation"};
    for (size_t i = 0; i < sizeof(with_id) / sizeof(with_id[0]); i++) {
        char sql[128];
        snprintf(sql, sizeof(sql), "SELECT max(id) FROM \"%s\"", with_id[i]);
        long long m = store_query_int(db, sql, 0);
        if (m < 0 || m >= (1LL << RANK_SHIFT)) {
            error("cannot merge '%s': its %s ids reach %lld, beyond the %lld a rank may use",
                  in->path, with_id[i], m, (1LL << RANK_SHIFT) - 1);
            goto out;
        }
    }
    in->launches = store_query_int(db, "SELECT count(*) FROM launch", 0);
    ret = 0;
out:
    sqlite3_close(db);
    return ret;
}

static int
by_rank(const void *a, const void *b)
{
    const struct input *x = a, *y = b;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* The inputs must be the distinct processes of one job. 0 or GH_EXIT_USAGE. */
static int
check_job(struct input *in, size_t n)
{
    qsort(in, n, sizeof(*in), by_rank);
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < i; j++) {
            int same_file = in[i].dev == in[j].dev && in[i].ino == in[j].ino && in[i].ino;
            int same_proc = in[i].pid >= 0 && in[i].pid == in[j].pid &&
                            in[i].start_ns == in[j].start_ns &&
                            ((!in[i].host && !in[j].host) ||
                             (in[i].host && in[j].host && !strcmp(in[i].host, in[j].host)));
            if (same_file || same_proc)
                return error("'%s' and '%s' are reports of the same process (%s pid %lld)",
                             in[j].path, in[i].path, in[i].host ? in[i].host : "?", in[i].pid),
                       GH_EXIT_USAGE;
        }
        if (i > 0 && in[i].rank == in[i - 1].rank)
            return error("'%s' and '%s' both hold rank %lld: reports of two jobs, or of one "
                         "rank twice",
                         in[i - 1].path, in[i].path, in[i].rank),
                   GH_EXIT_USAGE;
        if (i > 0 && in[i].world_size >= 0 && in[0].world_size >= 0 &&
            in[i].world_size != in[0].world_size)
            return error("'%s' (world size %lld) and '%s' (world size %lld) are not of one job",
                         in[0].path, in[0].world_size, in[i].path, in[i].world_size),
                   GH_EXIT_USAGE;
        if (in[i].world_size >= 0 && in[i].rank >= in[i].world_size)
            return error("'%s': rank %lld is not below its world size %lld", in[i].path, in[i].rank,
                         in[i].world_size),
                   GH_EXIT_USAGE;
    }
    return 0;
}

/* "file:" URI of a path, percent-encoding what a URI reserves. */
static void
uri_of(struct strbuf *sb, const char *path)
{
    strbuf_adds(sb, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (*p == '%' || *p == '?' || *p == '#' || *p <= ' ' || *p >= 0x7f)
            strbuf_addf(sb, "%%%02X", *p);
        else
            strbuf_addf(sb, "%c", *p);
    }
    strbuf_adds(sb, "?mode=ro");
}

/*
 * Columns whose values are ids of the rank's own rows. CUPTI's
 * per-process numbers (context, stream, correlation, grid and graph ids)
 * are left as they are: no reader joins on them, the row's own id gives
 * their rank, and moving them would cost each launch about 20 bytes.
 */
static int
id_shifted(const char *col)
{
    static const char *const cols[] = {"id",        "launch_id", "config_id", "device_id",
                                       "parent_id", "run_id",    "event_id",  "allocation_id",
                                       "copy_id",   "finding_id"};
    for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
        if (!strcmp(col, cols[i]))
            return 1;
    return 0;
}

/* Tables not copied row by row: dictionaries, meta, the analysis and merge tables. */
static int
table_special(const char *t)
{
    static const char *const names[] = {
        "meta",        "kernel",           "metric_name",    "analysis",       "rule_run",
        "finding",     "finding_evidence", "finding_object", "kernel_summary", "rank_summary",
        "rank_kernel", "rank_finding",     "job_rank",       "rank_meta",      "finding_line",
        "cubin",       "sass_function",    "source_file",    "sass_line"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (!strcmp(t, names[i]))
            return 1;
    return !strncmp(t, "sqlite_", 7);
}

static int
exec_or_fail(sqlite3 *db, const char *sql, const char *what)
{
    if (store_exec(db, sql))
        return error("merge: %s: %s", what, store_error());
    return 0;
}

/*
 * Copy one table of the attached input `src` into main, moving ids by
 * :off and mapping kernel and metric ids through temp.kmap / temp.mmap.
 */
static int
copy_table(sqlite3 *db, const char *table, long long off)
{
    sqlite3_stmt *st = NULL;
    struct strbuf cols = STRBUF_INIT, vals = STRBUF_INIT, sql = STRBUF_INIT;
    int ret = -1, n = 0;
    if (store_prepare(db,
                      "SELECT s.name FROM pragma_table_info(?1, 'src') s"
                      " JOIN pragma_table_info(?1, 'main') m ON m.name = s.name ORDER BY s.cid",
                      &st))
        goto fail;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *c = (const char *)sqlite3_column_text(st, 0);
        strbuf_addf(&cols, "%s\"%s\"", n ? ", " : "", c);
        if (!strcmp(c, "kernel_id"))
            strbuf_addf(&vals, "%s(SELECT new FROM temp.kmap WHERE old = t.\"%s\")", n ? ", " : "",
                        c);
        else if (!strcmp(c, "metric_id"))
            strbuf_addf(&vals, "%s(SELECT new FROM temp.mmap WHERE old = t.\"%s\")", n ? ", " : "",
                        c);
        else if (!strcmp(c, "function_id"))
            strbuf_addf(&vals, "%s(SELECT new FROM temp.fmap WHERE old = t.\"%s\")", n ? ", " : "",
                        c);
        else if (id_shifted(c))
            strbuf_addf(&vals, "%st.\"%s\" + ?1", n ? ", " : "", c);
        else
            strbuf_addf(&vals, "%st.\"%s\"", n ? ", " : "", c);
        n++;
    }
    sqlite3_finalize(st);
    st = NULL;
    if (n == 0) {
        ret = 0;
        goto out;
    }
    strbuf_addf(&sql, "INSERT INTO main.\"%s\" (%s) SELECT %s FROM src.\"%s\" t", table, cols.p,
                vals.p, table);
    if (store_prepare(db, sql.p, &st))
        goto fail;
    sqlite3_bind_int64(st, 1, off);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE) {
        store_fail(db, rc, table);
        goto fail;
    }
    ret = 0;
    goto out;
fail:
    error("merge: cannot copy table '%s': %s", table, store_error());
out:
    sqlite3_finalize(st);
    strbuf_release(&cols);
    strbuf_release(&vals);
    strbuf_release(&sql);
    return ret;
}

static int
bind_opt_int(sqlite3_stmt *st, int i, long long v)
{
    return v >= 0 ? sqlite3_bind_int64(st, i, v) : sqlite3_bind_null(st, i);
}

/*
 * The instrumentation's code tables (schema.sql version 2) describe
 * cubins, not processes: ranks that ran the same library share its cubin
 * (one CRC), its functions and their line tables. So they are
 * dictionaries, as kernel is: a cubin, a function (cubin CRC, name), a
 * source file (path) and a line (function, pc) once per job; temp.fmap
 * maps each input's function ids for inst_count and sass_line. An input
 * of version 1 has them as empty TEMP tables of its own connection, not
 * in its file: there is nothing to copy.
 */
static int
merge_code_tables(sqlite3 *db)
{
    if (store_query_int(db,
                        "SELECT count(*) FROM src.sqlite_master WHERE type = 'table' AND name IN"
                        " ('cubin', 'sass_function', 'source_file', 'sass_line')",
                        0) != 4)
        return exec_or_fail(db,
                            "DROP TABLE IF EXISTS temp.fmap;"
                            "CREATE TEMP TABLE fmap (old INTEGER PRIMARY KEY, new INTEGER)",
                            "code tables");
    return exec_or_fail(
        db,
        "INSERT OR IGNORE INTO main.cubin (crc, bytes, sm_arch, has_lineinfo)"
        " SELECT crc, bytes, sm_arch, has_lineinfo FROM src.cubin;"
        "INSERT OR IGNORE INTO main.sass_function (cubin_crc, name, kernel_id)"
        " SELECT f.cubin_crc, f.name, (SELECT new FROM temp.kmap WHERE old = f.kernel_id)"
        " FROM src.sass_function f ORDER BY f.id;"
        "DROP TABLE IF EXISTS temp.fmap;"
        "CREATE TEMP TABLE fmap (old INTEGER PRIMARY KEY, new INTEGER);"
        "INSERT INTO temp.fmap SELECT s.id, m.id FROM src.sass_function s"
        " JOIN main.sass_function m ON m.cubin_crc = s.cubin_crc AND m.name = s.name;"
        "INSERT OR IGNORE INTO main.source_file (path) SELECT path FROM src.source_file ORDER BY "
        "id;"
        "INSERT OR IGNORE INTO main.sass_line (function_id, pc, file_id, line, sass)"
        " SELECT (SELECT new FROM temp.fmap WHERE old = l.function_id), l.pc,"
        " (SELECT m.id FROM src.source_file s JOIN main.source_file m ON m.path = s.path"
        "  WHERE s.id = l.file_id), l.line, l.sass FROM src.sass_line l",
        "cubins, functions and line tables");
}

/* Merge one attached input as rank in->rank. 0 or -1 (printed). */
static int
merge_one(sqlite3 *db, const struct input *in)
{
    long long off = in->rank << RANK_SHIFT;
    if (exec_or_fail(db,
                     "INSERT OR IGNORE INTO main.kernel (mangled_name, demangled_name, short_name,"
                     " source_file, source_line) SELECT mangled_name, demangled_name, short_name,"
                     " source_file, source_line FROM src.kernel ORDER BY id;"
                     "DROP TABLE IF EXISTS temp.kmap; DROP TABLE IF EXISTS temp.mmap;"
                     "CREATE TEMP TABLE kmap (old INTEGER PRIMARY KEY, new INTEGER);"
                     "INSERT INTO temp.kmap SELECT s.id, m.id FROM src.kernel s"
                     " JOIN main.kernel m ON m.mangled_name = s.mangled_name;"
                     "INSERT OR IGNORE INTO main.metric_name (name) SELECT name FROM "
                     "src.metric_name ORDER BY id;"
                     "CREATE TEMP TABLE mmap (old INTEGER PRIMARY KEY, new INTEGER);"
                     "INSERT INTO temp.mmap SELECT s.id, m.id FROM src.metric_name s"
                     " JOIN main.metric_name m ON m.name = s.name",
                     "kernel and metric names"))
        return -1;
    if (merge_code_tables(db))
        return -1;
    sqlite3_stmt *st = NULL;
    if (store_prepare(db,
                      "SELECT name FROM main.sqlite_master WHERE type = 'table' AND name IN"
                      " (SELECT name FROM src.sqlite_master WHERE type = 'table') ORDER BY rowid",
                      &st))
        return error("merge: %s", store_error());
    int ret = 0;
    while (ret == 0 && sqlite3_step(st) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        if (!table_special(t))
            ret = copy_table(db, t, off);
    }
    sqlite3_finalize(st);
    if (ret)
        return -1;
    if (store_prepare(db,
                      "INSERT INTO main.rank_meta (rank, key, value) SELECT ?1, key, value FROM "
                      "src.meta",
                      &st))
        return error("merge: %s", store_error());
    sqlite3_bind_int64(st, 1, in->rank);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return error("merge: cannot copy the meta of '%s': %s", in->path, sqlite3_errstr(rc));
    if (store_prepare(db,
                      "INSERT INTO main.job_rank (rank, local_rank, world_size, rank_source, host,"
                      " pid, run_id, source_path, source_schema, launches)"
                      " VALUES (?1, ?2, ?3, ?4, ?5, ?6,"
                      " (SELECT min(id) FROM main.run WHERE id >= ?7 AND id < ?7 + 4294967296),"
                      " ?8, ?9, ?10)",
                      &st))
        return error("merge: %s", store_error());
    sqlite3_bind_int64(st, 1, in->rank);
    bind_opt_int(st, 2, in->local_rank);
    bind_opt_int(st, 3, in->world_size);
    sqlite3_bind_text(st, 4, in->rank_source, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, in->host, -1, SQLITE_STATIC);
    bind_opt_int(st, 6, in->pid);
    sqlite3_bind_int64(st, 7, off);
    sqlite3_bind_text(st, 8, in->path, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 9, in->schema);
    sqlite3_bind_int64(st, 10, in->launches);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return error("merge: cannot record rank %lld: %s", in->rank, sqlite3_errstr(rc));
    return 0;
}

/*
 * The job's own meta: the keys every rank agrees on, 'varies by rank'
 * for the others (rank_meta keeps each value), and the merge's provenance.
 */
static int
write_meta(sqlite3 *db, const struct input *in, size_t n)
{
    if (exec_or_fail(
            db,
            "INSERT OR REPLACE INTO main.meta (key, value)"
            " SELECT key, CASE WHEN COUNT(*) = (SELECT COUNT(*) FROM main.job_rank)"
            " AND COUNT(DISTINCT value) = 1 AND COUNT(value) = COUNT(*) THEN MIN(value)"
            " ELSE 'varies by rank' END FROM main.rank_meta"
            " WHERE key NOT IN ('schema_version', 'tool_version', 'created_by', 'provenance',"
            " 'rank', 'local_rank', 'rank_source')"
            " GROUP BY key",
            "job meta"))
        return -1;
    struct strbuf p = STRBUF_INIT;
    int synthetic = 0;
    for (size_t i = 0; i < n; i++)
        synthetic |= in[i].created_by && !strcmp(in[i].created_by, "synthetic");
    strbuf_addf(&p,
                "%sjob report merged by gpuhier merge %s from %zu rank report%s (ranks %lld..%lld)",
                synthetic ? "synthetic: " : "", GPUHIER_VERSION, n, n == 1 ? "" : "s", in[0].rank,
                in[n - 1].rank);
    for (size_t i = 0; i < n; i++)
        strbuf_addf(&p, "; rank %lld: created_by %s%s%s", in[i].rank,
                    in[i].created_by ? in[i].created_by : "unknown", in[i].provenance ? ", " : "",
                    in[i].provenance ? in[i].provenance : "");
    char ranks[32];
    snprintf(ranks, sizeof(ranks), "%zu", n);
    int ret = 0;
    if (store_meta_set(db, "provenance", p.p) || store_meta_set(db, "merged_ranks", ranks) ||
        store_meta_set(db, "created_by", "merge"))
        ret = error("merge: cannot write meta: %s", store_error());
    strbuf_release(&p);
    return ret;
}

/*
 * Attach input `in` as schema "src": the file itself, read-only; or, for
 * a report readers see through a private copy (a hot journal, which
 * mode=ro cannot roll back), that copy, deserialized into "src" so the
 * file is never written. 0, or -1 (printed) with *code set.
 */
static int
attach_input(sqlite3 *db, const struct input *in, int *code)
{
    sqlite3_stmt *st = NULL;
    struct strbuf uri = STRBUF_INIT;
    *code = GH_EXIT_NO_REPORT;
    if (in->via_copy)
        strbuf_adds(&uri, ":memory:");
    else
        uri_of(&uri, in->path);
    if (store_prepare(db, "ATTACH ?1 AS src", &st)) {
        strbuf_release(&uri);
        return error("merge: %s", store_error());
    }
    sqlite3_bind_text(st, 1, uri.p, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    strbuf_release(&uri);
    if (rc != SQLITE_DONE)
        return error("cannot open report '%s': %s", in->path, sqlite3_errmsg(db));
    if (!in->via_copy)
        return 0;
    sqlite3 *copy = NULL;
    if (store_open(in->path, STORE_READ_ONLY, &copy)) {
        error("%s", store_error());
        *code = cli_store_exit_code();
        return -1;
    }
    sqlite3_int64 size = 0;
    unsigned char *image = sqlite3_serialize(copy, "main", &size, 0);
    sqlite3_close(copy);
    if (!image)
        return error("merge: cannot copy '%s' into memory", in->path);
    rc = sqlite3_deserialize(db, "src", image, size, size,
                             SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY);
    if (rc != SQLITE_OK)
        return error("merge: cannot read the copy of '%s': %s", in->path, sqlite3_errstr(rc));
    return 0;
}

/*
 * Build the job report at `tmp` from the sorted inputs. 0, or -1 (printed)
 * with *code the exit code: GH_EXIT_OUTPUT unless an input is to blame.
 */
static int
build(const char *tmp, const struct input *in, size_t n, int *code)
{
    *code = GH_EXIT_OUTPUT;
    sqlite3 *db = NULL;
    char **index_sql = NULL;
    size_t n_index = 0;
    int ret = -1;
    int rc = sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI,
                             NULL);
    if (rc != SQLITE_OK) {
        error("merge: cannot create '%s': %s", tmp, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        goto out;
    }
    /* A temporary file renamed only when complete: no journal needed while building. */
    if (exec_or_fail(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF", "pragmas"))
        goto out;
    if (store_apply_schema(db)) {
        error("merge: cannot write the schema: %s", store_error());
        goto out;
    }
    char v[16];
    snprintf(v, sizeof(v), "%d", STORE_SCHEMA_VERSION);
    if (store_meta_set(db, "schema_version", v) ||
        store_meta_set(db, "tool_version", GPUHIER_VERSION)) {
        error("merge: cannot write meta: %s", store_error());
        goto out;
    }
    /* Indexes are rebuilt once at the end: cheaper than updating them row by row. */
    sqlite3_stmt *st = NULL;
    if (store_prepare(db,
                      "SELECT name, sql FROM main.sqlite_master WHERE type = 'index' AND sql IS "
                      "NOT NULL",
                      &st)) {
        error("merge: %s", store_error());
        goto out;
    }
    struct strbuf drops = STRBUF_INIT;
    while (sqlite3_step(st) == SQLITE_ROW) {
        index_sql = realloc(index_sql, (n_index + 1) * sizeof(*index_sql));
        if (!index_sql)
            abort();
        index_sql[n_index++] = xstrdup_or_null(sqlite3_column_text(st, 1));
        strbuf_addf(&drops, "DROP INDEX main.\"%s\";", (const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    rc = n_index ? exec_or_fail(db, drops.p, "indexes") : 0;
    strbuf_release(&drops);
    if (rc)
        goto out;
    for (size_t i = 0; i < n; i++) {
        if (attach_input(db, &in[i], code))
            goto out;
        *code = GH_EXIT_OUTPUT;
        /* One transaction per rank: an attached database cannot be detached inside one. */
        rc = exec_or_fail(db, "BEGIN", "transaction") || merge_one(db, &in[i]) ||
             exec_or_fail(db, "COMMIT", "commit");
        if (rc)
            sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        if (store_exec(db, "DETACH src") && !rc)
            rc = error("merge: cannot detach '%s': %s", in[i].path, store_error());
        if (rc) {
            /* A damaged input is the input's fault (3), whatever query met it. */
            if (store_diagnose(in[i].path)) {
                error("%s", store_error());
                *code = cli_store_exit_code();
            }
            goto out;
        }
    }
    if (exec_or_fail(db, "BEGIN", "transaction") || write_meta(db, in, n))
        goto out;
    for (size_t i = 0; i < n_index; i++)
        if (exec_or_fail(db, index_sql[i], "indexes"))
            goto out;
    if (exec_or_fail(db, "COMMIT", "commit"))
        goto out;
    /*
     * The planner's statistics (sqlite_stat1), as the collector's reports
     * may carry: without them the analyzer's joins over a job of millions
     * of launches chose plans that read the file at random. A sampled
     * ANALYZE costs milliseconds.
     */
    if (exec_or_fail(db, "PRAGMA analysis_limit = 1000; ANALYZE", "statistics"))
        goto out;
    ret = 0;
out:
    for (size_t i = 0; i < n_index; i++)
        free(index_sql[i]);
    free(index_sql);
    if (db && sqlite3_close(db) != SQLITE_OK && !ret)
        ret = error("merge: cannot close '%s'", tmp);
    return ret;
}

/*
 * The temporary file being built, removed if a signal ends the merge:
 * an interrupted merge leaves the output as it was and nothing beside it.
 */
static const char *volatile merge_tmp;

static void
on_signal(int sig)
{
    if (merge_tmp)
        unlink(merge_tmp);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* fsync the finished file so the rename never exposes a file the disk has not got. */
static int
sync_file(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

int
cmd_merge(int argc, const char **argv)
{
    const char *out = NULL;
    int force = 0, ret = GH_EXIT_USAGE;
    size_t n = 0;
    struct input *in = calloc((size_t)argc, sizeof(*in));
    char *tmp = NULL;
    if (!in)
        abort();
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            ret = GH_EXIT_OK;
            goto out;
        } else if (!strcmp(a, "-o") && i + 1 < argc) {
            out = argv[++i];
        } else if (cli_opt_value(argc, argv, &i, "--output", &v)) {
            out = v;
        } else if (!strcmp(a, "-f") || !strcmp(a, "--force")) {
            force = 1;
        } else if (!strcmp(a, "--")) {
            for (i++; i < argc; i++)
                in[n++].path = argv[i];
        } else if (a[0] == '-' && a[1]) {
            error("unknown option '%s'", a);
            usage(stderr);
            goto out;
        } else {
            in[n++].path = a;
        }
    }
    if (!out || n == 0) {
        error(!out ? "merge: no output: give -o JOB.db" : "merge: no rank reports to merge");
        usage(stderr);
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        if ((ret = input_read(&in[i])))
            goto out;
    if ((ret = check_job(in, n)))
        goto out;
    struct stat sb;
    if (stat(out, &sb) == 0) {
        for (size_t i = 0; i < n; i++) {
            if (in[i].dev == sb.st_dev && in[i].ino == sb.st_ino) {
                error("merge: the output '%s' is one of the inputs", out);
                ret = GH_EXIT_USAGE;
                goto out;
            }
        }
        if (!force) {
            error("merge: '%s' exists; remove it or give -f", out);
            ret = GH_EXIT_OUTPUT;
            goto out;
        }
        if (!S_ISREG(sb.st_mode)) {
            error("merge: '%s' is not a regular file", out);
            ret = GH_EXIT_OUTPUT;
            goto out;
        }
    }
    /* Beside the output, so the rename stays on one file system. */
    size_t len = strlen(out) + 64;
    tmp = malloc(len);
    if (!tmp)
        abort();
    snprintf(tmp, len, "%s.merge-%ld.tmp", out, (long)getpid());
    unlink(tmp);
    merge_tmp = tmp;
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        signal(sigs[i], on_signal);
    if (build(tmp, in, n, &ret)) {
        unlink(tmp);
        goto out;
    }
    if (sync_file(tmp) || rename(tmp, out)) {
        error("merge: cannot write '%s': %s", out, strerror(errno));
        unlink(tmp);
        ret = GH_EXIT_OUTPUT;
        goto out;
    }
    long long launches = 0;
    for (size_t i = 0; i < n; i++)
        launches += in[i].launches;
    fprintf(stderr, "gpuhier merge: %zu rank%s (%lld..%lld), %lld launches -> %s\n", n,
            n == 1 ? "" : "s", in[0].rank, in[n - 1].rank, launches, out);
    ret = GH_EXIT_OK;
out:
    merge_tmp = NULL;
    for (size_t i = 0; i < n; i++)
        input_release(&in[i]);
    free(in);
    free(tmp);
    return ret;
}
