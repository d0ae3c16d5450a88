/* SPDX-License-Identifier: MIT */
/*
 * store: the one place that opens, creates and version-checks gpuhier
 * reports (SQLite files whose tables are defined in schema/schema.sql).
 *
 * Every module that touches a report goes through here, so the version
 * check and the error wording are the same everywhere. It does not know
 * what the tables mean; that is the schema's and the modules' business.
 *
 * Errors: functions return 0 / non-NULL on success and -1 / NULL on
 * failure; the reason is kept in a thread-local buffer read with
 * store_error(). Nothing here prints or exits.
 */
#ifndef GPUHIER_SCHEMA_STORE_H
#define GPUHIER_SCHEMA_STORE_H

#include <sqlite3.h>
#include <stdarg.h>

/* Schema version written to PRAGMA user_version by store_create(). */
#define STORE_SCHEMA_VERSION 5

/* Version string of gpuhier itself (set by the build). */
#ifndef GPUHIER_VERSION
#define GPUHIER_VERSION "0.1.0"
#endif

enum store_mode {
    STORE_READ_ONLY = 0,  /* readers: SQLITE_OPEN_READONLY; never writes */
    STORE_READ_WRITE = 1, /* the analyzer: may write its own tables */
};

/*
 * Why store_open() failed, for callers that map it to an exit code.
 * Set together with the message.
 */
enum store_failure {
    STORE_OK = 0,
    STORE_ERR_MISSING,    /* the file does not exist */
    STORE_ERR_NOT_REPORT, /* not an SQLite file, or SQLite but not a gpuhier report */
    STORE_ERR_NOT_FILE,   /* a directory, FIFO, device or socket: never opened */
    STORE_ERR_CORRUPT,    /* damaged: SQLite's reason, a missing table, a bad version */
    STORE_ERR_INCOMPLETE, /* a writer holds it (the collector still running) */
    STORE_ERR_NEWER,      /* written by a newer gpuhier (user_version too high) */
    STORE_ERR_OLDER,      /* older schema; needs an explicit migration */
    STORE_ERR_IO,         /* unreadable where it is: permissions, read-only mount, full disk */
};

/*
 * How long a connection waits for a writer's lock before SQLITE_BUSY, ms.
 * The collector commits at least once a second and holds the lock for
 * one batch, so a bounded wait of a few of its periods is enough.
 */
#define STORE_BUSY_TIMEOUT_MS 5000

/*
 * Create a new report at `path` (which must not exist) with the full
 * schema, WAL journal, and meta rows 'schema_version', 'tool_version',
 * 'created_by' = `created_by` (e.g. "collector", "synthetic").
 * On success stores a new connection in *out (close with sqlite3_close).
 * Pass ":memory:" for an in-memory report.
 */
int store_create(const char *path, const char *created_by, sqlite3 **out);

/* Apply schema.sql to an already open, empty connection. */
int store_apply_schema(sqlite3 *db);

/*
 * Open an existing report. Checks that `path` is a regular, readable file
 * (a FIFO or device is refused before SQLite could block on it), that it
 * is a gpuhier report of a version this build understands (refuses newer
 * and older versions with a message that says what to do) and that it
 * holds every table of this schema version (those schema.sql marks
 * "(added: ...)" excepted). An older report (version 1 or 2) is read as it
 * is: the tables and views schema.sql marks with a later "(version N)" are
 * created, empty, as TEMP objects of the connection (the file is not
 * written). STORE_READ_ONLY
 * connections also get `PRAGMA query_only`. On failure *out is NULL, store_failure() says why
 * and store_error() says it in a sentence naming the file.
 *
 * Recovery: a report whose hot journal or WAL a writer left behind, and
 * which cannot be read in place read-only (the journal needs a rollback,
 * the WAL's -shm cannot be created on a read-only mount or a full disk),
 * is read through a private copy in $TMPDIR where SQLite rolls it back
 * or recovers it; the connection is then an in-memory copy and the file
 * is never written. STORE_READ_WRITE (the analyzer) lets SQLite roll a
 * hot journal back in place. Either way store_note() says what happened.
 */
int store_open(const char *path, enum store_mode mode, sqlite3 **out);

/*
 * Copy a report into a new in-memory connection (for readers that must
 * analyze a report without modifying it). The source is opened read-only.
 */
int store_open_memory_copy(const char *path, sqlite3 **out);

/* The schema text compiled into this build (NUL-terminated, static). */
const char *store_schema_sql(void);

/* Read PRAGMA user_version; -1 on error. */
int store_user_version(sqlite3 *db);

/* Execute SQL with no results; on error sets the message. */
int store_exec(sqlite3 *db, const char *sql);

/* Prepare `sql` into *stmt; on error sets the message naming the SQL. */
int store_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **stmt);

/*
 * Record an SQLite failure `rc` on `db` with a context string:
 * "context: sqlite message". Always returns -1.
 */
int store_fail(sqlite3 *db, int rc, const char *context);

/* Set the last error message (printf-style). Always returns -1. */
int store_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The last error message of this thread (static buffer, never NULL). */
const char *store_error(void);

/* Why the last store_open()/store_create() of this thread failed. */
enum store_failure store_failure(void);

/*
 * What the last successful store_open() of this thread recovered (a
 * rolled-back journal, a WAL read through a private copy), as a sentence
 * naming the file; "" when nothing (static buffer, never NULL).
 */
const char *store_note(void);

/*
 * After a reader failed on the report at `path` (opened fine, then a
 * query failed): is the file to blame? Reopens it and runs PRAGMA
 * quick_check, then checks that every table of the compiled schema has
 * its columns (those marked "(added: ...)" excepted) and that every view
 * compiles. Returns -1 with store_failure() and store_error() set when
 * the file is damaged, incomplete or unreadable; 0 when it is sound (the
 * failure is then the reader's, a bug).
 */
int store_diagnose(const char *path);

/*
 * Does another process have the WAL report at `path` open (the collector
 * still writing it, or a reader)? Returns that process's id, -1 when one
 * exists but its id is unknown, 0 when none (or the report is not in WAL
 * mode). Takes no lock, so a live writer is never delayed.
 */
long store_live_pid(const char *path);

/*
 * Launch `launch_id`'s per-instruction counts of executed warp and thread
 * instructions, written to inst_count, made runs (schema.sql inst_run):
 * the rows are replaced by runs that expand to exactly them, inside a
 * savepoint of the caller's transaction. A launch that has runs already,
 * or whose pcs are not whole 16-byte instructions, is left as it is.
 * Returns the inst_count rows replaced (0 when none), or -1 with the
 * message.
 */
int store_inst_runs(sqlite3 *db, long long launch_id);

/*
 * Schema version 4: an instruction's count of store_implied[b].metric that
 * equals its count of store_implied[b].base (its executed warp
 * instructions for the kinds and access widths, its sectors or wavefronts
 * for their ideal) has no inst_count row; bit b of the instruction's
 * STORE_IMPLIED_METRIC row stands for it (schema.sql inst_count). The
 * order is the schema's and never changes. Since version 5 the mask row
 * also carries the instruction's sectors or wavefronts (value | k << 15 |
 * count << 17, k from schema.sql's inst_count: 1 global sectors, 2 shared
 * wavefronts, 3 local sectors), whose own row then goes.
 */
#define STORE_IMPLIED_METRIC "gpuhier_inst_implied"
#define STORE_IMPLIED_N 15
struct store_implied {
    const char *metric, *base;
};
extern const struct store_implied store_implied[STORE_IMPLIED_N];

/*
 * Launch `launch_id`'s counts that a mask can stand for, left implied:
 * after all its rows are written (a record may hold a pc twice, summed),
 * the rows equal to their base's count are replaced by one
 * STORE_IMPLIED_METRIC row per instruction, which then takes in the
 * instruction's first count of global sectors, shared wavefronts or local
 * sectors (version 5), inside a savepoint of the caller's transaction.
 * Call it before store_inst_runs() (it compares with the executed counts'
 * rows). A launch with runs or masks already is
 * left as it is. Returns the inst_count rows removed (0 when none), or -1
 * with the message. This and store_inst_runs() work on inst_count in
 * place; the writer makes its counts compact on its stage instead
 * (store_inst_unstage(), the same statements).
 */
int store_inst_implied(sqlite3 *db, long long launch_id);

/*
 * The writer's stage (TEMP inst_stage, inst_count's columns and key):
 * a launch's counts are written there, made compact there and moved to
 * inst_count in key order by store_inst_unstage(), so that inst_count's
 * pages hold no room left by the rows compaction removes (the JAX loop's
 * recorded counts replayed: 232 KB of pages against 256 KB compacted in
 * place; docs/collector.md "Implied counts"). store_inst_stage() creates
 * it where it is missing (the writer, once when it opens the report): 0
 * or -1.
 */
int store_inst_stage(sqlite3 *db);

/*
 * Launch `launch_id`'s staged counts made compact when `make_compact` is set
 * (store_inst_implied(), then store_inst_runs(), on the stage) and moved
 * to inst_count, summed with any rows of theirs already there. Returns 0;
 * -1 when compaction failed (the counts moved as they were, which read
 * the same; the message says why); -2 when the move failed (the message
 * is SQLite's).
 */
int store_inst_unstage(sqlite3 *db, long long launch_id, int make_compact);

/*
 * The first column of the first row of `sql` as an integer, or `fallback`
 * when the SQL fails, returns no row or a NULL (a failure sets the message).
 */
long long store_query_int(sqlite3 *db, const char *sql, long long fallback);

/*
 * How much of a report the profiles cover: *configs configurations in
 * all, *profiled of them with a profile, and the share of the traced GPU
 * time (config.total_ns) those took, in % (0 when no time was traced).
 * Configurations an analysis found waiting (kernel_summary.bound_tier
 * 'waiting') are left out of that time, as store_counter_coverage() does.
 * Reads the profile table, not the launch table. 0, or -1 with the message.
 */
int store_profile_coverage(sqlite3 *db, long long *configs, long long *profiled, double *gpu_pct);

/*
 * 1 when an analysis found kernels that wait (kernel_summary.bound_tier
 * 'waiting'), whose time the coverage shares leave out ("of the working
 * GPU time"); 0 otherwise, or when the report cannot say.
 */
int store_has_waiting(sqlite3 *db);

/*
 * Does the report's table `table` (schema main) have column `col`: 1, 0,
 * or -1 when it cannot be read (store_error() says why). Columns added
 * after a report was written (kernel_summary.one_time, launch.api_ns,
 * inst_launch.graph_corr) are absent from older reports.
 */
int store_has_column(sqlite3 *db, const char *table, const char *col);

/* The configurations an analysis found waiting, as an SQL query (one column, config_id). */
#define STORE_WAITING_CONFIGS                                                                      \
    "SELECT DISTINCT config_id FROM kernel_summary WHERE bound_tier = 'waiting'"                   \
    " AND config_id IS NOT NULL"

/*
 * Each configuration's time, (id, ns): the analysis's (kernel_summary.
 * total_ns: profiled and instrumented launches, slowed or untimed, at the
 * configuration's traced mean; docs/analyzer.md) when the report is
 * analyzed, the traced sum (config.total_ns) otherwise or where the
 * analysis has no row; so the coverage lines are shares of the same time
 * as the summary's other lines.
 */
#define STORE_CONFIG_NS                                                                            \
    "SELECT c.id AS id, COALESCE(ks.ns, c.total_ns) AS ns FROM config c LEFT JOIN"                 \
    " (SELECT config_id, MAX(total_ns) AS ns FROM kernel_summary WHERE config_id IS NOT NULL"      \
    " GROUP BY config_id) ks ON ks.config_id = c.id"

/* Get/set a meta key. store_meta_get returns a new string (free()) or NULL. */
int store_meta_set(sqlite3 *db, const char *key, const char *value);
char *store_meta_get(sqlite3 *db, const char *key);

#endif
