/* SPDX-License-Identifier: MIT */
/*
 * writer: the one thread that owns the report.
 *
 * CUPTI callbacks push fixed-size records (collector/queue.h) and hand
 * over completed activity buffers; this thread joins them (launch API
 * records carry the sampling decision and NVTX path, activity records the
 * GPU timing) and writes rows in transactions of at most ~0.5 s, so a
 * killed process loses at most the last flush period and the WAL always
 * holds a consistent report. At exit it checkpoints into the main file.
 *
 * Only this thread allocates, demangles, queries device attributes and
 * touches SQLite. Records are joined by correlation id: the launch record
 * is always queued before its kernel can complete, and activity buffers are
 * only parsed after the record queue was drained, so the join finds it.
 * The thread also creates and closes the report, with every signal
 * blocked. Its first failure is kept, said once and noted in the report
 * if the file still takes it; after it nothing is written, the queues are
 * drained and what is lost is counted (docs/collector.md "When the writer
 * fails").
 */
#include "collector/cacheflush.h"
#include "collector/clock.h"
#include "collector/collector_int.h"
#include "collector/fault.h"
#include "collector/occupancy.h"
#include "collector/queue.h"
#include "collector/signals.h"
#include "collector/umap.h"
#include "schema/store.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

struct gh_api gh;
int gh_quiet;
int gh_debug;

/*
 * Where gh_say writes: a copy of fd 2 taken when the writer starts, so a
 * program that closes fd 2 and opens a file of its own there does not get
 * our lines in its file. -1: not taken yet (fd 2 itself); -2: fd 2 was
 * already closed then, so nothing is written. A program that points fd 2
 * elsewhere with dup2 later keeps our lines on its original stderr (as
 * valgrind's own descriptor does).
 */
static int say_fd = -1;

static void
say_keep_stderr(void)
{
    if (say_fd != -1)
        return;
    say_fd = fcntl(2, F_DUPFD_CLOEXEC, 100);
    if (say_fd < 0)
        say_fd = fcntl(2, F_DUPFD_CLOEXEC, 3);
    if (say_fd < 0)
        say_fd = -2;
}

void
gh_say(const char *fmt, ...)
{
    int fd = say_fd == -1 ? 2 : say_fd;
    if (gh_quiet || fd < 0)
        return;
    char line[1024];
    int n = snprintf(line, sizeof(line), "==gpuhier== ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = strlen(line);
    line[len++] = '\n';
    ssize_t w = write(fd, line, len);
    (void)w;
}

/* ------------------------------------------------------------- state */

struct kinfo {
    char *name;
    long id;
};

struct cinfo {
    long id, kernel_id;
    int device;
    uint32_t grid[3], block[3], dsmem;
    long launches;
    int64_t total_ns;
    int dirty;
    int provisional; /* made from a replayed launch's incomplete record (see config_get) */
};

struct dinfo {
    int known;
    int sm_count;
    struct occupancy_device occ;
};

/* What the callbacks told us about one API call, waiting for its record. */
struct pend {
    uint32_t corr, rt_corr;
    int is_copy;
    long launch_id;    /* 0 until the kernel record was written */
    int64_t kernel_ns; /* the kernel record's end - start, once written; 0 unknown */
    long config_index;
    int sampled;
    uint64_t api_ns;      /* launch API time (profiled launches), 0 unknown */
    uint64_t name_hash;   /* rec_launch.name_hash: sampled launches, 0 unknown */
    struct hostargs host; /* rec_launch.host: sampled launches */
    char reason[24];
    char *nvtx;
    char *kname;              /* short kernel name, for the progress line */
    struct rec_profile *prof; /* arrived before the kernel record */
    struct rec_sass *sass;    /* the instrumentation engine's batch, arrived before it */
    uint64_t src, dst;
    int is_async;
    char api[40];
};

struct bufrec {
    uint8_t *buf;
    size_t valid;
    void (*release)(uint8_t *);
};

struct cubin {
    void *data;
    size_t size;
    uint32_t crc; /* cuptiGetCubinCrc's, low 32 bits (as the SASS records carry it) */
    int crc_known;
};

#define MAX_DEVICES 64
/* The writer wakes at least this often (and sooner when the queue fills). */
#define WRITER_PERIOD_MS 250

/*
 * Graph launches the instrumentation engine served (REC_GRAPH, then their
 * REC_SASS; writer.c "graph launches"): at most this many at once, their
 * counts written GRAPH_SETTLE_NS after they came (the engine synchronized
 * before queueing them and the flusher hands CUPTI's completed buffers
 * over every 500 ms, so the kernel nodes' records are in by then), a mark
 * whose counts never came forgotten after GRAPH_ABANDON_NS.
 */
#define MAX_GRAPHS_PENDING 64
#define GRAPH_SETTLE_NS 2000000000LL
#define GRAPH_ABANDON_NS 30000000000LL
/* W.served's name hash of a graph launch the range profiler served (REC_GRAPH, ranged). */
#define SERVED_GRAPH UINT64_MAX

struct gpend {
    uint32_t corr;        /* the cuGraphLaunch's correlation id */
    int64_t mark_ns;      /* CLOCK_MONOTONIC when REC_GRAPH came */
    int64_t sass_ns;      /* when its counts came, 0 before */
    struct rec_sass sass; /* its counts (batch NULL before) */
    long *lid, *kid;      /* its kernel nodes' launch rows and kernels, in record order */
    size_t n, cap;
};

static struct {
    struct queue q;  /* struct rec */
    struct queue bq; /* struct bufrec */
    pthread_t th;
    int running;
    atomic_int stop;
    sqlite3 *db;
    char path[4096];
    struct umap kernels; /* name hash -> kinfo (chained by probing the hash) */
    struct umap configs; /* config hash -> cinfo */
    struct cinfo **clist;
    size_t nconf, capconf;
    struct umap pends;      /* correlation id -> pend */
    struct umap metric_ids; /* name pointer hash -> (void*)id */
    struct umap allocs;     /* (device, address) hash -> (void*)bytes of a live allocation */
    struct dinfo dev[MAX_DEVICES];
    struct cubin *cubins;
    size_t ncubins;
    atomic_uint_fast64_t activity_dropped;
    uint64_t launches, profiled, instrumented, ranges_dropped, copies;
    uint64_t spans_rescaled; /* kept-session profiles rescaled to their kernel (write_profile()) */
    struct gpend graphs[MAX_GRAPHS_PENDING]; /* graph launches served, counts not yet written */
    size_t ngraphs;
    uint64_t graph_unattributed; /* graph launches whose counts found no kernel node */
    uint64_t inst_runs_failed;   /* instrumented launches whose counts stayed per instruction */
    int64_t inst_write_ns;       /* write_sass_rows()' time in all (meta instrumentation_rows) */
    int settle_all;              /* the last batch: every pending graph launch is written */
    /* How kernel records found their launch record (the 'kernel_correlation' event). */
    uint64_t by_driver_id, by_runtime_id, unmatched;
    /* foreign_kernel(): kernels CUPTI ran under a sampled launch's id, left out */
    uint64_t foreign_kernels, sampled_written;
    uint64_t untimed_kernels, untimed_graph_nodes; /* kernel records with start = end = 0 */
    uint64_t untimed_copies; /* copy and memset records with start = end = 0 */
    char foreign_name[64];
    struct {
        uint32_t corr;
        uint64_t name_hash; /* SERVED_GRAPH: a graph launch the range profiler served */
    } served[256];          /* the last sampled launches written, by corr % 256 */
    atomic_uint_fast64_t commits;
    /*
     * The first failure, kept like the error state of SQLite's pager:
     * after it the writer runs no more SQL until the close, drains the
     * queues and counts what it throws away.
     */
    int has_failed;            /* writer thread only */
    int is_open;               /* writer thread only: writer_start has returned 0 */
    int is_gone;               /* the report's path no longer names the file written */
    atomic_int is_failed_pub;  /* set once err_msg is final (writer_error(), other threads) */
    char err_msg[4800];        /* the path (up to 4096) and what failed */
    atomic_uint_fast64_t lost; /* records not in the report because of the failure */
    dev_t file_dev;            /* the report file, to notice it being removed */
    ino_t file_ino;
    int clean_exit; /* writer_stop's argument, for the thread's close */
    sqlite3_stmt *ins_launch, *ins_copy, *ins_metric, *ins_profile, *ins_event, *ins_nvtx,
        *end_nvtx, *upd_config, *upd_config_facts, *upd_run, *upd_profiled, *ins_failure,
        *ins_alloc, *ins_host_arg, *ins_um;
} W;

uint32_t
gh_tid(void)
{
    static __thread uint32_t tid;
    if (!tid)
        tid = (uint32_t)syscall(SYS_gettid);
    return tid;
}

uint64_t
gh_now_ns(void)
{
    uint64_t t = 0;
    if (gh.cuptiGetTimestamp && gh.cuptiGetTimestamp(&t) == CUPTI_SUCCESS)
        return t;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t
realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------ failure */

/*
 * The writer's first failure: kept (later ones are not reported), one
 * line on stderr, its text for writer_error(). The open transaction is
 * rolled back, so what the current batch wrote is lost with the rest and
 * counted (batch()). `why` says what failed, as "insert a launch: disk
 * I/O error".
 */
static void
fail_text(const char *why)
{
    if (W.has_failed)
        return;
    W.has_failed = 1;
    snprintf(W.err_msg, sizeof(W.err_msg), "cannot write report '%s': %s", W.path, why);
    atomic_store(&W.is_failed_pub, 1);
    /* a failure while opening goes back to writer_start's caller, which says it */
    if (W.is_open && atomic_load(&W.stop))
        gh_say("%s", W.err_msg);
    else if (W.is_open)
        gh_say("%s; the report stops here, later records are counted, not written", W.err_msg);
    if (W.db && !W.is_gone && !sqlite3_get_autocommit(W.db))
        sqlite3_exec(W.db, "ROLLBACK", NULL, NULL, NULL); /* already failing; nothing to add */
}

/*
 * As fail_text() for the last store_*() call's message (store_error()).
 * `sys` is errno right after the failing call, named for the failures of
 * the file itself (as sqlite3_system_errno() would, but SQLite reads it
 * only for SQLITE_IOERR and SQLITE_CANTOPEN, and after its own cleanup).
 */
static void
fail_store_errno(int rc, int sys)
{
    if (W.has_failed)
        return;
    char why[600];
    int primary = rc & 0xff;
    if (rc == SQLITE_READONLY_DIRECTORY)
        snprintf(why, sizeof(why), "%s (SQLite code %d: its directory is read-only)", store_error(),
                 rc);
    else if (sys &&
             (primary == SQLITE_IOERR || primary == SQLITE_FULL || primary == SQLITE_CANTOPEN))
        snprintf(why, sizeof(why), "%s (SQLite code %d, %s)", store_error(), rc, strerror(sys));
    else if (rc)
        snprintf(why, sizeof(why), "%s (SQLite code %d)", store_error(), rc);
    else
        snprintf(why, sizeof(why), "%s", store_error());
    fail_text(why);
}

static void
fail_store(void)
{
    fail_store_errno(W.db ? sqlite3_extended_errcode(W.db) : 0, 0);
}

/*
 * Whether `rc`, the result of an SQLite call on W.db, is `want`; if not
 * the writer fails, naming `what` and SQLite's message (read before any
 * other call on the connection can replace it).
 */
static int
sql_ok(int rc, int want, const char *what)
{
    if (rc == want)
        return 1;
    int sys = errno;
    int ext = W.db ? sqlite3_extended_errcode(W.db) : rc;
    store_fail(W.db, rc, what);
    fail_store_errno(ext ? ext : rc, sys);
    return 0;
}

/* Whether `path` still names the report file the writer opened. */
static int
report_is_there(void)
{
    struct stat st;
    if (stat(W.path, &st) == 0)
        return st.st_dev == W.file_dev && st.st_ino == W.file_ino;
    /* a directory we may no longer search still holds it: only a missing name is proof */
    return errno != ENOENT && errno != ENOTDIR;
}

/* ------------------------------------------------------------ helpers */

static void
bind_text_or_null(sqlite3_stmt *st, int i, const char *s)
{
    if (s && *s)
        sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

/*
 * Runs a statement that returns no row, then resets it for the next use.
 * After a failure nothing runs: the transaction was rolled back, and a
 * statement run now would commit on its own. 0 or -1.
 */
static int
step_done(sqlite3_stmt *st, const char *what)
{
    int ok = 0;
    if (!W.has_failed)
        ok = sql_ok(sqlite3_step(st), SQLITE_DONE, what);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return ok ? 0 : -1;
}

/* As step_done(), for an INSERT: the new row's id, or -1. */
static long
step_insert(sqlite3_stmt *st, const char *what)
{
    if (step_done(st, what))
        return -1;
    return (long)sqlite3_last_insert_rowid(W.db);
}

/* Prepares a statement used once; NULL after a failure (or on one). */
static sqlite3_stmt *
prepare_once(const char *sql, const char *what)
{
    sqlite3_stmt *st = NULL;
    if (W.has_failed)
        return NULL;
    if (!sql_ok(sqlite3_prepare_v2(W.db, sql, -1, &st, NULL), SQLITE_OK, what)) {
        sqlite3_finalize(st);
        return NULL;
    }
    return st;
}

static void
event_row(uint64_t t, const char *level, const char *code, const char *msg)
{
    sqlite3_stmt *st = W.ins_event;
    sqlite3_bind_int64(st, 1, (sqlite3_int64)t);
    sqlite3_bind_text(st, 2, level, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, code, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, msg, -1, SQLITE_TRANSIENT);
    step_insert(st, "insert an event");
}

/* event_row() now, its message formatted (the writer's exit summaries). */
static void __attribute__((format(printf, 3, 4)))
event_rowf(const char *level, const char *code, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    event_row(realtime_ns(), level, code, msg);
}

/* ------------------------------------------------------------ kernels */

/*
 * gh_cubin_has_lineinfo (collector_int.h): whether a cubin was built with -lineinfo (has a .nv_debug_line_sass
 * section). An ELF64 image is answered from its section-name table, a few
 * hundred bytes, instead of scanning the whole image: PyTorch loads
 * hundreds of modules of up to megabytes each. Anything that does not
 * parse as ELF64 is scanned as before.
 */
int
gh_cubin_has_lineinfo(const void *image, size_t n)
{
    static const char want[] = ".nv_debug_line_sass";
    const unsigned char *b = image;
    if (n >= sizeof(Elf64_Ehdr) && !memcmp(b, ELFMAG, SELFMAG) && b[EI_CLASS] == ELFCLASS64) {
        Elf64_Ehdr eh;
        memcpy(&eh, b, sizeof(eh));
        uint64_t shoff = eh.e_shoff, shn = eh.e_shnum, ent = eh.e_shentsize;
        if (ent >= sizeof(Elf64_Shdr) && shn && eh.e_shstrndx < shn && shoff < n &&
            shn <= (n - shoff) / ent) {
            Elf64_Shdr str;
            memcpy(&str, b + shoff + eh.e_shstrndx * ent, sizeof(str));
            if (str.sh_offset < n && str.sh_size <= n - str.sh_offset) {
                const char *names = (const char *)b + str.sh_offset;
                for (uint64_t i = 0; i < shn; i++) {
                    Elf64_Shdr sh;
                    memcpy(&sh, b + shoff + i * ent, sizeof(sh));
                    if (sh.sh_name < str.sh_size &&
                        memmem(names + sh.sh_name,
                               strnlen(names + sh.sh_name, str.sh_size - sh.sh_name), want,
                               sizeof(want) - 1))
                        return 1;
                }
                return 0;
            }
        }
    }
    return memmem(image, n, want, sizeof(want) - 1) != NULL;
}

/* The file of a correlation as the compiler recorded it: dirName/fileName unless absolute. */
static void
correlation_path(const CUpti_GetSassToSourceCorrelationParams *p, char *buf, size_t n)
{
    if (p->dirName && *p->dirName && p->fileName[0] != '/')
        snprintf(buf, n, "%s/%s", p->dirName, p->fileName);
    else
        snprintf(buf, n, "%s", p->fileName);
}

static void
kernel_source(const char *name, char **file, long *line)
{
    *file = NULL;
    *line = 0;
    if (!gh.cuptiGetSassToSourceCorrelation)
        return;
    size_t nl = strlen(name);
    for (size_t i = 0; i < W.ncubins; i++) {
        if (!memmem(W.cubins[i].data, W.cubins[i].size, name, nl))
            continue;
        CUpti_GetSassToSourceCorrelationParams p = {CUpti_GetSassToSourceCorrelationParamsSize};
        p.cubin = W.cubins[i].data;
        p.cubinSize = W.cubins[i].size;
        p.functionName = name;
        p.pcOffset = 0;
        if (gh.cuptiGetSassToSourceCorrelation(&p) == CUPTI_SUCCESS && p.lineNumber && p.fileName &&
            *p.fileName) {
            char path[4096];
            correlation_path(&p, path, sizeof(path));
            *file = strdup(path);
            *line = (long)p.lineNumber;
        }
        free(p.fileName);
        free(p.dirName);
        if (*file)
            return;
    }
}

/* Kernel id for a mangled name (inserting the kernel row), or lookup only. */
static long
kernel_id(const char *name, int create)
{
    if (!name)
        name = "<unknown>";
    uint64_t key = gh_name_hash(name);
    struct kinfo *found;
    for (; (found = umap_get(&W.kernels, key)); key = key + 1 ? key + 1 : 1)
        if (strcmp(found->name, name) == 0)
            return found->id;
    if (!create)
        return 0;
    char *dem = gh_demangle(name);
    char *shrt = gh_short_name(dem ? dem : name);
    char *file = NULL;
    long line = 0;
    kernel_source(name, &file, &line);
    long id = -1;
    sqlite3_stmt *st = prepare_once("INSERT INTO kernel(mangled_name, demangled_name, short_name, "
                                    "source_file, source_line) VALUES (?,?,?,?,?)",
                                    "prepare a kernel row");
    if (st) {
        sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
        bind_text_or_null(st, 2, dem);
        bind_text_or_null(st, 3, shrt);
        bind_text_or_null(st, 4, file);
        if (line)
            sqlite3_bind_int64(st, 5, line);
        id = step_insert(st, "insert a kernel");
    }
    sqlite3_finalize(st);
    free(dem);
    free(shrt);
    free(file);
    if (id < 0)
        return -1;
    struct kinfo *ki = malloc(sizeof(*ki));
    if (ki && (ki->name = strdup(name))) {
        ki->id = id;
        umap_put(&W.kernels, key, ki);
    } else {
        free(ki);
    }
    return id;
}

/* ------------------------------------------------------------ devices */

static int
attr(CUdevice d, CUdevice_attribute a)
{
    int v = 0;
    if (!gh.cuDeviceGetAttribute || gh.cuDeviceGetAttribute(&v, a, d) != CUDA_SUCCESS)
        return -1;
    return v;
}

static double
calibrated_bw(const char *name)
{
    const char *home = getenv("HOME");
    const char *xdg = getenv("XDG_CACHE_HOME");
    char path[4096];
    double bw = 0;
    for (int variant = 0; variant < 2 && bw <= 0; variant++) {
        char dev[256];
        snprintf(dev, sizeof(dev), "%s", name);
        if (variant == 1)
            for (char *p = dev; *p; p++)
                if (*p == ' ' || *p == '/')
                    *p = '_';
        if (xdg && *xdg)
            snprintf(path, sizeof(path), "%s/gpuhier/calibration-%s.txt", xdg, dev);
        else if (home && *home)
            snprintf(path, sizeof(path), "%s/.cache/gpuhier/calibration-%s.txt", home, dev);
        else
            return 0;
        FILE *f = fopen(path, "r");
        if (f) {
            if (fscanf(f, "%lf", &bw) != 1)
                bw = 0;
            fclose(f);
        }
    }
    return bw;
}

static void
device_row(const struct rec_device *r)
{
    int id = r->device_id;
    if (id < 0 || id >= MAX_DEVICES || W.dev[id].known)
        return;
    W.dev[id].known = 1;
    occupancy_device_sm90(&W.dev[id].occ);
    W.dev[id].sm_count = 132;
    if (!gh.cuDeviceGetAttribute) {
        sqlite3_stmt *st = prepare_once("INSERT OR IGNORE INTO device(id, chip) VALUES (?,?)",
                                        "prepare a device row");
        if (st) {
            sqlite3_bind_int(st, 1, id);
            bind_text_or_null(st, 2, r->chip);
            step_done(st, "insert a device");
        }
        sqlite3_finalize(st);
        return;
    }
    CUdevice d = id;
    char name[256] = "";
    if (gh.cuDeviceGetName)
        gh.cuDeviceGetName(name, sizeof(name), d);
    size_t mem = 0;
    if (gh.cuDeviceTotalMem_v2)
        gh.cuDeviceTotalMem_v2(&mem, d);
    char uuid[40] = "";
    CUuuid u;
    if (gh.cuDeviceGetUuid_v2 && gh.cuDeviceGetUuid_v2(&u, d) == CUDA_SUCCESS)
        for (int i = 0; i < 16; i++)
            snprintf(uuid + 2 * i, 3, "%02x", (unsigned char)u.bytes[i]);
    int ccmaj = attr(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    int ccmin = attr(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    int sms = attr(d, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    int warp = attr(d, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    int tpb = attr(d, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    int tpsm = attr(d, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    int bpsm = attr(d, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
    int rpsm = attr(d, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
    int rpb = attr(d, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    int smsm = attr(d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    int smb = attr(d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    int smbo = attr(d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    int smres = attr(d, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
    int l2 = attr(d, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    int clk = attr(d, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    int mclk = attr(d, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
    int bus = attr(d, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
    double peak = mclk > 0 && bus > 0 ? 2.0 * mclk * 1000.0 * bus / 8.0 : 0;
    double meas = calibrated_bw(name);
    int reg_unit = ccmaj >= 7 ? 256 : -1;
    int l1smem = ccmaj == 9 && ccmin == 0 ? 256 * 1024 : -1;

    struct occupancy_device *o = &W.dev[id].occ;
    if (warp > 0)
        o->warp_size = warp;
    if (tpb > 0)
        o->max_threads_per_block = tpb;
    if (tpsm > 0 && warp > 0)
        o->max_warps_per_sm = tpsm / warp;
    if (bpsm > 0)
        o->max_blocks_per_sm = bpsm;
    if (rpsm > 0)
        o->regs_per_sm = rpsm;
    if (rpb > 0)
        o->regs_per_block = rpb;
    if (smsm > 0)
        o->smem_per_sm_bytes = smsm;
    if (smbo > 0)
        o->smem_per_block_optin_bytes = smbo;
    if (smres >= 0)
        o->smem_reserved_per_block_bytes = smres;
    if (sms > 0)
        W.dev[id].sm_count = sms;

    const char *sql = "INSERT OR REPLACE INTO device(id, name, chip, uuid, cc_major, cc_minor, "
                      "sm_count, warp_size, "
                      "max_threads_per_block, max_threads_per_sm, max_warps_per_sm, "
                      "max_blocks_per_sm, regs_per_sm, "
                      "regs_per_block, reg_alloc_unit, smem_per_sm_bytes, smem_per_block_bytes, "
                      "smem_per_block_optin_bytes, smem_reserved_per_block_bytes, "
                      "l1_smem_per_sm_bytes, l2_bytes, "
                      "global_mem_bytes, sm_clock_khz, mem_clock_khz, mem_bus_width_bits, "
                      "peak_dram_bw_bytes_per_s, "
                      "measured_copy_bw_bytes_per_s, is_mig) VALUES "
                      "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
    sqlite3_stmt *st = prepare_once(sql, "prepare a device row");
    if (!st)
        return;
    int vals[] = {ccmaj, ccmin,  sms, warp,     tpb,  tpsm, tpsm > 0 && warp > 0 ? tpsm / warp : -1,
                  bpsm,  rpsm,   rpb, reg_unit, smsm, smb,  smbo,
                  smres, l1smem, l2};
    sqlite3_bind_int(st, 1, id);
    bind_text_or_null(st, 2, name);
    bind_text_or_null(st, 3, r->chip);
    bind_text_or_null(st, 4, uuid);
    for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
        if (vals[i] >= 0)
            sqlite3_bind_int(st, 5 + (int)i, vals[i]);
    if (mem)
        sqlite3_bind_int64(st, 22, (sqlite3_int64)mem);
    if (clk > 0)
        sqlite3_bind_int(st, 23, clk);
    if (mclk > 0)
        sqlite3_bind_int(st, 24, mclk);
    if (bus > 0)
        sqlite3_bind_int(st, 25, bus);
    if (peak > 0)
        sqlite3_bind_double(st, 26, peak);
    if (meas > 0)
        sqlite3_bind_double(st, 27, meas);
    /* MIG compute instances are named "... MIG 1g.18gb" by the driver. */
    sqlite3_bind_int(st, 28, strstr(name, "MIG") != NULL);
    step_done(st, "insert a device");
    sqlite3_finalize(st);
}

/* ------------------------------------------------------------ configs */

/*
 * Binds the theoretical occupancy of the record's configuration on its
 * device (theoretical_occupancy_pct, blocks_per_sm, occupancy_limiter,
 * waves) to parameters first .. first + 3 of st.
 */
static void
bind_occupancy(sqlite3_stmt *st, int first, const CUpti_ActivityKernel10 *k)
{
    int dev = (int)k->deviceId;
    struct dinfo *di = dev >= 0 && dev < MAX_DEVICES ? &W.dev[dev] : NULL;
    struct occupancy_device od;
    if (di && di->known)
        od = di->occ;
    else
        occupancy_device_sm90(&od);
    int sm_count = di && di->known ? di->sm_count : 132;
    struct occupancy_launch ol = {
        .threads_per_block = (int)((long)k->blockX * k->blockY * k->blockZ),
        .regs_per_thread = k->registersPerThread,
        .static_smem_bytes = (int)k->staticSharedMemory,
        .dynamic_smem_bytes = (int)k->dynamicSharedMemory,
        .carveout_bytes = (int)k->sharedMemoryExecuted,
        .cluster_size = (int)(k->clusterX * k->clusterY * k->clusterZ),
    };
    struct occupancy_result orr = {0};
    int ok = occupancy_compute(&od, &ol, &orr) == 0;
    if (!orr.limiter)
        return;
    sqlite3_bind_double(st, first, ok ? orr.occupancy_pct : 0.0);
    sqlite3_bind_int(st, first + 1, orr.blocks_per_sm);
    sqlite3_bind_text(st, first + 2, orr.limiter, -1, SQLITE_STATIC);
    double waves =
        occupancy_waves((long)k->gridX * k->gridY * k->gridZ, orr.blocks_per_sm, sm_count);
    if (waves >= 0)
        sqlite3_bind_double(st, first + 3, waves);
}

/* The first complete record of a provisional configuration fills what the replayed one lacked. */
static void
config_complete(struct cinfo *c, const CUpti_ActivityKernel10 *k)
{
    sqlite3_stmt *st = W.upd_config_facts;
    sqlite3_bind_int64(st, 1, k->localMemoryPerThread);
    sqlite3_bind_int64(st, 2, k->sharedMemoryExecuted);
    bind_occupancy(st, 3, k);
    sqlite3_bind_int64(st, 7, c->id);
    step_done(st, "complete a configuration");
    c->provisional = 0;
}

static struct cinfo *
config_get(long kid, const CUpti_ActivityKernel10 *k)
{
    struct cinfo key = {.kernel_id = kid,
                        .device = (int)k->deviceId,
                        .grid = {(uint32_t)k->gridX, (uint32_t)k->gridY, (uint32_t)k->gridZ},
                        .block = {(uint32_t)k->blockX, (uint32_t)k->blockY, (uint32_t)k->blockZ},
                        .dsmem = (uint32_t)k->dynamicSharedMemory};
    uint64_t h = gh_fnv1a(GH_FNV1A_BASIS, &key.kernel_id, sizeof(key.kernel_id));
    h = gh_fnv1a(h, &key.device, sizeof(key.device));
    h = gh_fnv1a(h, key.grid, sizeof(key.grid));
    h = gh_fnv1a(h, key.block, sizeof(key.block));
    h = gh_fnv1a(h, &key.dsmem, sizeof(key.dsmem));
    for (;; h = h + 1 ? h + 1 : 1) {
        struct cinfo *c = umap_get(&W.configs, h ? h : 1);
        if (!c)
            break;
        if (c->kernel_id == kid && c->device == key.device &&
            !memcmp(c->grid, key.grid, sizeof(key.grid)) &&
            !memcmp(c->block, key.block, sizeof(key.block)) && c->dsmem == key.dsmem)
            return c;
    }
    if (!h)
        h = 1;
    struct cinfo *c = malloc(sizeof(*c));
    if (!c)
        return NULL;
    *c = key;
    int dev = (int)k->deviceId;
    long threads = (long)k->blockX * k->blockY * k->blockZ;
    long blocks = (long)k->gridX * k->gridY * k->gridZ;
    /*
     * A launch the range profiler replayed leaves a record that never
     * completes: no timestamps, and 0 for the local memory per thread and
     * the carveout (seen on the H200: 0 local bytes for a kernel that
     * spills, 0 carveout for one that runs 64 KB blocks). Those two stay
     * NULL (unknown) until a complete record of the configuration arrives.
     */
    int complete = k->start || k->end;
    c->provisional = !complete;
    const char *sql = "INSERT INTO config(kernel_id, device_id, grid_x, grid_y, grid_z, block_x, "
                      "block_y, block_z, "
                      "cluster_x, cluster_y, cluster_z, dynamic_smem_bytes, static_smem_bytes, "
                      "registers_per_thread, "
                      "local_bytes_per_thread, carveout_bytes, threads_per_block, blocks, "
                      "theoretical_occupancy_pct, "
                      "blocks_per_sm, occupancy_limiter, waves) VALUES "
                      "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
    long id = -1;
    sqlite3_stmt *st = prepare_once(sql, "prepare a configuration row");
    if (st) {
        sqlite3_bind_int64(st, 1, kid);
        sqlite3_bind_int(st, 2, dev);
        sqlite3_bind_int64(st, 3, k->gridX);
        sqlite3_bind_int64(st, 4, k->gridY);
        sqlite3_bind_int64(st, 5, k->gridZ);
        sqlite3_bind_int64(st, 6, k->blockX);
        sqlite3_bind_int64(st, 7, k->blockY);
        sqlite3_bind_int64(st, 8, k->blockZ);
        sqlite3_bind_int64(st, 9, k->clusterX);
        sqlite3_bind_int64(st, 10, k->clusterY);
        sqlite3_bind_int64(st, 11, k->clusterZ);
        sqlite3_bind_int64(st, 12, k->dynamicSharedMemory);
        sqlite3_bind_int64(st, 13, k->staticSharedMemory);
        sqlite3_bind_int64(st, 14, k->registersPerThread);
        if (complete) {
            sqlite3_bind_int64(st, 15, k->localMemoryPerThread);
            sqlite3_bind_int64(st, 16, k->sharedMemoryExecuted);
        }
        sqlite3_bind_int64(st, 17, threads);
        sqlite3_bind_int64(st, 18, blocks);
        bind_occupancy(st, 19, k);
        id = step_insert(st, "insert a configuration");
    }
    sqlite3_finalize(st);
    if (id < 0) {
        free(c);
        return NULL;
    }
    c->id = id;
    umap_put(&W.configs, h, c);
    if (W.nconf == W.capconf) {
        size_t cap = W.capconf ? W.capconf * 2 : 256;
        struct cinfo **l = realloc(W.clist, cap * sizeof(*l));
        if (!l)
            return c;
        W.clist = l;
        W.capconf = cap;
    }
    W.clist[W.nconf++] = c;
    return c;
}

static void
flush_configs(void)
{
    for (size_t i = 0; i < W.nconf; i++) {
        struct cinfo *c = W.clist[i];
        if (!c->dirty)
            continue;
        sqlite3_bind_int64(W.upd_config, 1, c->launches);
        sqlite3_bind_int64(W.upd_config, 2, c->total_ns);
        sqlite3_bind_int64(W.upd_config, 3, c->id);
        if (step_done(W.upd_config, "update a configuration's launches"))
            return;
        c->dirty = 0;
    }
}

/* ------------------------------------------------------------ pending */

static void
pend_free(struct pend *p)
{
    if (!p)
        return;
    umap_put(&W.pends, p->corr, NULL);
    if (p->rt_corr)
        umap_put(&W.pends, p->rt_corr, NULL);
    free(p->nvtx);
    free(p->kname);
    free(p->prof);
    if (p->sass)
        sass_batch_free(p->sass->batch);
    free(p->sass);
    free(p);
}

static long
metric_id(const char *name)
{
    uint64_t h = gh_name_hash(name);
    void *v = umap_get(&W.metric_ids, h);
    if (v)
        return (long)(intptr_t)v;
    long id = -1;
    sqlite3_stmt *st =
        prepare_once("INSERT OR IGNORE INTO metric_name(name) VALUES (?)", "prepare a metric name");
    if (st) {
        sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
        step_done(st, "insert a metric name");
    }
    sqlite3_finalize(st);
    st = prepare_once("SELECT id FROM metric_name WHERE name = ?", "prepare a metric id");
    if (st) {
        sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
        if (sql_ok(sqlite3_step(st), SQLITE_ROW, "read a metric id"))
            id = (long)sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    if (id > 0)
        umap_put(&W.metric_ids, h, (void *)(intptr_t)id);
    return id;
}

/* A metric measured against the range's elapsed time (rescaled for a kept session's range). */
static int
per_elapsed(const char *name)
{
    static const char *const tails[] = {".pct_of_peak_sustained_elapsed", ".per_second"};
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
        size_t t = strlen(tails[i]);
        if (n > t && !strcmp(name + n - t, tails[i]))
            return 1;
    }
    return 0;
}

/*
 * kernel_ns: the launch's kernel record's duration (0 unknown). A kept
 * session's user range (p->span) runs from its push to its pop, so its
 * elapsed time holds the gap before the kernel: on the H200 (2026-12-01,
 * docs/rangeprof-cost.md) gpu__time_duration was a median 7.8x the same
 * launch's under auto range, and every per-elapsed rate as much too low.
 * The kernel record, complete under user replay, gives the kernel's own
 * time: gpu__time_duration.sum is written as that, and each rate over
 * the elapsed time (*.pct_of_peak_sustained_elapsed, *.per_second) is
 * scaled by range / kernel. profile.duration_ns keeps the range's span.
 */
static void
write_profile(long launch_id, const struct rec_profile *p, const char *kname, int64_t kernel_ns)
{
    if (!p->ok) {
        sqlite3_bind_text(W.upd_profiled, 1, "batch_dropped", -1, SQLITE_STATIC);
        sqlite3_bind_int(W.upd_profiled, 2, 0);
        sqlite3_bind_int64(W.upd_profiled, 3, launch_id);
        step_done(W.upd_profiled, "mark a dropped profile");
        W.ranges_dropped++;
        return;
    }
    sqlite3_bind_null(W.upd_profiled, 1);
    sqlite3_bind_int(W.upd_profiled, 2, 1);
    sqlite3_bind_int64(W.upd_profiled, 3, launch_id);
    if (step_done(W.upd_profiled, "mark a profiled launch"))
        return;
    W.profiled++;
    gh_say("profiled %s (launch %ld, %d pass%s)", kname ? kname : "kernel", launch_id, p->passes,
           p->passes == 1 ? "" : "es");
    double dur = -1;
    for (int i = 0; i < p->n && p->names; i++)
        if (strcmp(p->names[i], "gpu__time_duration.sum") == 0)
            dur = p->values[i];
    sqlite3_stmt *st = W.ins_profile;
    sqlite3_bind_int64(st, 1, launch_id);
    sqlite3_bind_int(st, 2, p->passes);
    sqlite3_bind_text(st, 3, p->set, -1, SQLITE_TRANSIENT);
    if (dur >= 0)
        sqlite3_bind_int64(st, 4, (sqlite3_int64)(dur + 0.5));
    sqlite3_bind_int64(st, 5, p->overhead_ns);
    step_insert(st, "insert a profile");
    double scale = p->span && dur > 0 && kernel_ns > 0 ? dur / (double)kernel_ns : 1;
    if (scale != 1)
        W.spans_rescaled++;
    for (int i = 0; i < p->n && p->names; i++) {
        long mid = metric_id(p->names[i]);
        if (mid <= 0)
            continue;
        double v = p->values[i];
        if (scale != 1 && !strcmp(p->names[i], "gpu__time_duration.sum"))
            v = (double)kernel_ns;
        else if (scale != 1 && per_elapsed(p->names[i]))
            v *= scale;
        sqlite3_bind_int64(W.ins_metric, 1, launch_id);
        sqlite3_bind_int64(W.ins_metric, 2, mid);
        sqlite3_bind_double(W.ins_metric, 3, v);
        step_insert(W.ins_metric, "insert a metric value");
    }
}

/* ------------------------------------------------------ instrumentation */

void
sass_batch_free(struct sass_batch *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->nnames; i++)
        free(b->names[i]);
    free(b->names);
    free(b->crc);
    free(b->pc);
    free(b->fn);
    free(b->values);
    free(b);
}

/* The copied cubin (one built with line info) whose CRC is `crc`, or NULL. */
static struct cubin *
cubin_by_crc(uint32_t crc)
{
    for (size_t i = 0; i < W.ncubins; i++) {
        struct cubin *c = &W.cubins[i];
        if (!c->crc_known && gh.cuptiGetCubinCrc) {
            CUpti_GetCubinCrcParams p = {CUpti_GetCubinCrcParamsSize};
            p.cubin = c->data;
            p.cubinSize = c->size;
            if (gh.cuptiGetCubinCrc(&p) == CUPTI_SUCCESS)
                c->crc = (uint32_t)p.cubinCrc;
            c->crc_known = 1;
        }
        if (c->crc_known && c->crc == crc)
            return c;
    }
    return NULL;
}

/* id of `path` in source_file (inserted), -1 on failure */
static long
source_file_id(sqlite3_stmt *ins, sqlite3_stmt *sel, const char *path)
{
    sqlite3_bind_text(ins, 1, path, -1, SQLITE_TRANSIENT);
    step_done(ins, "insert a source file");
    sqlite3_bind_text(sel, 1, path, -1, SQLITE_TRANSIENT);
    long id = -1;
    if (sql_ok(sqlite3_step(sel), SQLITE_ROW, "read a source file id"))
        id = (long)sqlite3_column_int64(sel, 0);
    sqlite3_reset(sel);
    return id;
}

/*
 * The counts of one REC_SASS into inst_launch, inst_count and the line
 * table of its functions (cubin, sass_function, source_file, sass_line;
 * schema.sql "Per-instruction counts"): function f's rows go to launch
 * row fn_lid[f] (skipped when <= 0). A graph launch's (graph_corr != 0)
 * rows say so (inst_launch.graph_corr, graph_nodes from fn_nodes[f]; its
 * overhead goes on its first row only). The line of each pc comes from
 * cuptiGetSassToSourceCorrelation on the function's cubin, which the
 * collector copied at module load when it was built with line info;
 * without one, inst_count names the function and pc only and sass_line
 * gets no row. The SASS text is not known to the collector (no
 * disassembler): sass_line.sass stays NULL.
 */
static void
write_sass_rows(const struct rec_sass *r, const long *fn_lid, const long *fn_nodes,
                uint32_t graph_corr)
{
    const struct sass_batch *b = r->batch;
    int64_t t0 = mono_ns();
    enum { I_LAUNCH, I_CUBIN, I_FUNC, S_FUNC, I_FILE, S_FILE, I_LINE, I_COUNT, NST };
    static const char *const sql[NST] = {
        "INSERT OR IGNORE INTO inst_launch(launch_id, config_id, kernel_id, reason, overhead_ns, "
        "graph_corr, graph_nodes) SELECT id, config_id, kernel_id, ?, ?, ?, ? FROM launch WHERE "
        "id = ?",
        "INSERT OR IGNORE INTO cubin(crc, bytes, sm_arch, has_lineinfo) VALUES (?, ?, NULL, ?)",
        "INSERT OR IGNORE INTO sass_function(cubin_crc, name, kernel_id) VALUES (?, ?, ?)",
        "SELECT id FROM sass_function WHERE cubin_crc = ? AND name = ?",
        "INSERT OR IGNORE INTO source_file(path) VALUES (?)",
        "SELECT id FROM source_file WHERE path = ?",
        "INSERT OR IGNORE INTO sass_line(function_id, pc, file_id, line, sass) VALUES (?, ?, ?, ?, "
        "NULL)",
        /* the counts go to the stage first, made compact there, then moved (store_inst_stage()) */
        "INSERT INTO temp.inst_stage(launch_id, function_id, pc, metric_id, value) VALUES (?, ?, "
        "?, ?, ?) "
        "ON CONFLICT DO UPDATE SET value = value + excluded.value",
    };
    sqlite3_stmt *st[NST] = {0};
    for (int i = 0; i < NST; i++)
        if (!(st[i] = prepare_once(sql[i], "prepare the instrumentation rows")))
            goto out;
    long mids[64];
    for (size_t m = 0; m < b->nm && m < 64; m++)
        mids[m] = metric_id(b->metrics[m]);
    int first = 1;
    for (size_t f = 0; f < b->nnames; f++) {
        if (fn_lid[f] <= 0)
            continue;
        sqlite3_stmt *il = st[I_LAUNCH];
        sqlite3_bind_text(il, 1, r->reason[0] ? r->reason : "first_of_config", -1,
                          SQLITE_TRANSIENT);
        if (first)
            sqlite3_bind_int64(il, 2, r->overhead_ns);
        if (graph_corr) {
            sqlite3_bind_int64(il, 3, graph_corr);
            if (fn_nodes && fn_nodes[f] > 0)
                sqlite3_bind_int64(il, 4, fn_nodes[f]);
        }
        sqlite3_bind_int64(il, 5, fn_lid[f]);
        if (step_done(il, "insert an instrumented launch"))
            goto out;
        if (sqlite3_changes(W.db) > 0)
            W.instrumented++;
        first = 0;
    }
    long fid = -1, last_file = -1;
    char last_path[4096] = "";
    uint32_t fcrc = 0;
    uint32_t ffn = UINT32_MAX;
    struct cubin *c = NULL;
    for (size_t i = 0; i < b->n; i++) {
        long launch_id = fn_lid[b->fn[i]];
        if (launch_id <= 0)
            continue;
        if (fid < 0 || b->crc[i] != fcrc || b->fn[i] != ffn) {
            fcrc = b->crc[i];
            ffn = b->fn[i];
            c = cubin_by_crc(fcrc);
            const char *name = b->names[ffn];
            sqlite3_bind_int64(st[I_CUBIN], 1, fcrc);
            if (c) {
                sqlite3_bind_int64(st[I_CUBIN], 2, (sqlite3_int64)c->size);
                sqlite3_bind_int(st[I_CUBIN], 3, 1);
            }
            step_done(st[I_CUBIN], "insert a cubin");
            long kid = kernel_id(name, 0);
            sqlite3_bind_int64(st[I_FUNC], 1, fcrc);
            sqlite3_bind_text(st[I_FUNC], 2, name, -1, SQLITE_TRANSIENT);
            if (kid > 0)
                sqlite3_bind_int64(st[I_FUNC], 3, kid);
            step_done(st[I_FUNC], "insert a SASS function");
            sqlite3_bind_int64(st[S_FUNC], 1, fcrc);
            sqlite3_bind_text(st[S_FUNC], 2, name, -1, SQLITE_TRANSIENT);
            fid = sql_ok(sqlite3_step(st[S_FUNC]), SQLITE_ROW, "read a SASS function id")
                      ? (long)sqlite3_column_int64(st[S_FUNC], 0)
                      : -1;
            sqlite3_reset(st[S_FUNC]);
            if (fid < 0)
                goto out;
        }
        long file = -1, line = 0;
        if (c && gh.cuptiGetSassToSourceCorrelation) {
            CUpti_GetSassToSourceCorrelationParams p = {CUpti_GetSassToSourceCorrelationParamsSize};
            p.cubin = c->data;
            p.cubinSize = c->size;
            p.functionName = b->names[b->fn[i]];
            p.pcOffset = b->pc[i];
            if (gh.cuptiGetSassToSourceCorrelation(&p) == CUPTI_SUCCESS && p.fileName &&
                *p.fileName && p.lineNumber) {
                char path[4096];
                correlation_path(&p, path, sizeof(path));
                /* a function's pcs mostly name one file: look it up once per run of them */
                if (strcmp(path, last_path)) {
                    last_file = source_file_id(st[I_FILE], st[S_FILE], path);
                    gh_copy(last_path, sizeof(last_path), last_file > 0 ? path : "");
                }
                file = last_file;
                line = (long)p.lineNumber;
            }
            free(p.fileName);
            free(p.dirName);
        }
        /*
         * Only a pc whose line is known gets a sass_line row: without line
         * info the row would hold the pc alone, which inst_count already
         * has (on the H200's PyTorch benchmark, 86,000 such rows were 1.2
         * of the 3.3 MB the instrumentation added, docs/cost-vs-ncu.md).
         */
        if (file > 0) {
            sqlite3_bind_int64(st[I_LINE], 1, fid);
            sqlite3_bind_int64(st[I_LINE], 2, b->pc[i]);
            sqlite3_bind_int64(st[I_LINE], 3, file);
            sqlite3_bind_int64(st[I_LINE], 4, line);
            step_done(st[I_LINE], "insert a SASS line");
        }
        for (size_t m = 0; m < b->nm && m < 64; m++) {
            uint64_t v = b->values[i * b->nm + m];
            if (!v || mids[m] <= 0)
                continue;
            sqlite3_bind_int64(st[I_COUNT], 1, launch_id);
            sqlite3_bind_int64(st[I_COUNT], 2, fid);
            sqlite3_bind_int64(st[I_COUNT], 3, b->pc[i]);
            sqlite3_bind_int64(st[I_COUNT], 4, mids[m]);
            sqlite3_bind_int64(st[I_COUNT], 5, (sqlite3_int64)v);
            step_done(st[I_COUNT], "insert an instruction count");
        }
    }
    /*
     * The compact forms, each launch row once, after all its rows of this
     * record (a record may hold a pc twice, summed by the insert): kinds,
     * widths and ideals equal to a count the instruction keeps left
     * implied (schema.sql 'gpuhier_inst_implied', version 4), then
     * executed warp and thread instructions as runs (inst_run), both on
     * the stage, whose rows then go to inst_count in key order. A failed
     * compaction moves the rows per instruction, which read the same.
     * GPUHIER_FAULT=inst_runs:<any error>[:<n>] fails it (the first n launch rows with :<n>;
     * docs/fault-injection.md).
     */
    for (size_t f = 0; f < b->nnames; f++) {
        size_t g = 0;
        while (g < f && fn_lid[g] != fn_lid[f])
            g++;
        if (fn_lid[f] <= 0 || g != f)
            continue;
        struct fault_entry fe;
        int runs_fault = fault_take("inst_runs", &fe);
        int moved = store_inst_unstage(W.db, fn_lid[f], !runs_fault);
        if (moved == -2)
            sql_ok(SQLITE_ERROR, SQLITE_OK, "move the instruction counts");
        else if (moved < 0 || runs_fault) {
            if (runs_fault)
                store_set_error("injected (GPUHIER_FAULT inst_runs)");
            W.inst_runs_failed++;
        }
    }
out:
    for (int i = 0; i < NST; i++)
        sqlite3_finalize(st[i]);
    W.inst_write_ns += mono_ns() - t0;
}

/* One instrumented stream launch (REC_SASS): every function's rows to `launch_id`. */
static void
write_sass(long launch_id, const struct rec_sass *r)
{
    long one[64] = {0};
    long *fn_lid = r->batch->nnames <= 64 ? one : malloc(r->batch->nnames * sizeof(long));
    if (!fn_lid)
        return;
    for (size_t f = 0; f < r->batch->nnames; f++)
        fn_lid[f] = launch_id;
    write_sass_rows(r, fn_lid, NULL, 0);
    if (fn_lid != one)
        free(fn_lid);
}

/* ------------------------------------------------------------ graph launches */

static struct gpend *
graph_find(uint32_t corr)
{
    for (size_t i = 0; i < W.ngraphs; i++)
        if (W.graphs[i].corr == corr)
            return &W.graphs[i];
    return NULL;
}

/* REC_GRAPH: the graph launch `corr` runs instrumented; its kernel nodes' records are followed. */
static void
graph_mark(uint32_t corr)
{
    if (graph_find(corr))
        return;
    if (W.ngraphs == MAX_GRAPHS_PENDING) {
        W.graph_unattributed++; /* its counts will find no mark */
        return;
    }
    W.graphs[W.ngraphs++] = (struct gpend){.corr = corr, .mark_ns = mono_ns()};
}

/* A kernel node's launch row of graph launch g. */
static void
graph_node(struct gpend *g, long lid, long kid)
{
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 8;
        long *a = realloc(g->lid, cap * sizeof(long));
        if (a)
            g->lid = a;
        long *k = a ? realloc(g->kid, cap * sizeof(long)) : NULL;
        if (k)
            g->kid = k;
        if (!a || !k)
            return; /* no memory: this node's function falls to the first node */
        g->cap = cap;
    }
    g->lid[g->n] = lid;
    g->kid[g->n++] = kid;
}

/*
 * A graph launch's counts (schema.sql inst_launch.graph_corr): each
 * function's go to the first kernel node of that function in the launch,
 * graph_nodes saying how many nodes of it the counts sum; a function no
 * node names (a device function, a node whose record never came) goes to
 * the launch's first node. Without any node the counts are dropped and
 * counted (the 'graph_counts_unattributed' event).
 */
static void
graph_write(struct gpend *g)
{
    const struct sass_batch *b = g->sass.batch;
    if (!g->n || !b->nnames) {
        W.graph_unattributed++;
        return;
    }
    long *fn_lid = calloc(b->nnames, sizeof(long)), *fn_nodes = calloc(b->nnames, sizeof(long));
    if (fn_lid && fn_nodes) {
        for (size_t f = 0; f < b->nnames; f++) {
            long kid = kernel_id(b->names[f], 0);
            for (size_t i = 0; i < g->n; i++) {
                if (kid <= 0 || g->kid[i] != kid)
                    continue;
                if (!fn_nodes[f]++)
                    fn_lid[f] = g->lid[i];
            }
            if (!fn_lid[f])
                fn_lid[f] = g->lid[0];
        }
        write_sass_rows(&g->sass, fn_lid, fn_nodes, g->corr);
    }
    free(fn_lid);
    free(fn_nodes);
}

static void
graph_release(struct gpend *g)
{
    sass_batch_free(g->sass.batch);
    free(g->lid);
    free(g->kid);
    *g = W.graphs[--W.ngraphs];
}

/* Writes the graph launches whose counts have settled (all: every one that has counts). */
static void
graph_settle(int all)
{
    int64_t now = mono_ns();
    for (size_t i = 0; i < W.ngraphs;) {
        struct gpend *g = &W.graphs[i];
        int ready = g->sass.batch && (all || now - g->sass_ns > GRAPH_SETTLE_NS);
        if (ready)
            graph_write(g);
        if (ready || (!g->sass.batch && (all || now - g->mark_ns > GRAPH_ABANDON_NS)))
            graph_release(g); /* the last one moved to i */
        else
            i++;
    }
}

/* ------------------------------------------------------------ activity */

static const char *
mem_kind(unsigned k)
{
    switch (k) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE:
        return "pageable";
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED:
        return "pinned";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
        return "device";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC:
        return "device";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
        return "managed";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC:
        return "managed";
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY:
        return "array";
    default:
        return "unknown";
    }
}

static const char *
copy_kind(unsigned k)
{
    switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
        return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
        return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
        return "HtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
        return "AtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
        return "AtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
        return "AtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
        return "DtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
        return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
        return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
        return "PtoP";
    default:
        return NULL;
    }
}

/* writer_set_gpu_time_hook(): set by the collector's thread, read by the writer's. */
static _Atomic(writer_gpu_time_fn) gpu_time_hook;

/*
 * A kernel record under the correlation id of a sampled launch whose
 * function is not the launched one: one launch call runs one kernel (graph
 * launches aside), so it is a kernel CUPTI itself ran for the profile.
 * `p` is the pending launch record under the kernel's correlation id, if
 * any. Measured on the H200 (2026-12-01): under user replay CUPTI runs `WaitNs`
 * (grid 1, block 1, ~80 us, on another stream) after every profiled
 * kernel with the profiled launch's id, and its record may arrive before
 * the kernel's. Without this it took the launch's place (its profile, its
 * configuration index) and added a launch the program never made.
 */
static int
foreign_kernel(const CUpti_ActivityKernel10 *k, const struct pend *p)
{
    if (k->graphId)
        return 0;
    uint64_t want = 0;
    if (p && !p->is_copy)
        want = p->name_hash;
    else if (!p && W.served[k->correlationId % 256].corr == k->correlationId)
        want = W.served[k->correlationId % 256].name_hash;
    /* a graph launch runs kernel nodes only: a kernel without a graph id under its id is CUPTI's */
    if (!want || (want != SERVED_GRAPH && gh_name_hash(k->name) == want))
        return 0;
    if (!W.foreign_kernels++)
        gh_copy(W.foreign_name, sizeof(W.foreign_name), k->name);
    return 1;
}

/* A launch's pointer arguments into page-locked host memory (schema.sql launch_host_arg). */
static void
write_host_args(long lid, const struct hostargs *h)
{
    for (int i = 0; i < h->n && i < HOSTARGS_MAX; i++) {
        sqlite3_stmt *st = W.ins_host_arg;
        sqlite3_bind_int64(st, 1, lid);
        sqlite3_bind_int(st, 2, h->index[i]);
        if (h->range_bytes[i])
            sqlite3_bind_int64(st, 3, (sqlite3_int64)h->range_bytes[i]);
        else
            sqlite3_bind_null(st, 3);
        step_done(st, "write a host pointer argument");
    }
}

static void
kernel_record(const CUpti_ActivityKernel10 *k)
{
    if (cacheflush_is_kernel(k->name))
        return; /* --cache-control all's flush, not the program's */
    /* the launch this record answers (a copy's id is no kernel's): one lookup for all below */
    struct pend *p = umap_get(&W.pends, k->correlationId);
    if (foreign_kernel(k, p))
        return;
    if (p && p->is_copy)
        p = NULL;
    long kid = kernel_id(k->name, 1);
    if (kid < 0)
        return;
    struct cinfo *c = config_get(kid, k);
    if (c && c->provisional && (k->start || k->end))
        config_complete(c, k);
    writer_gpu_time_fn hook = atomic_load(&gpu_time_hook);
    /*
     * An instrumented launch ran with its code patched, 30-100x slower
     * (docs/sassprobe.md): its time is no measure of the kernel. It keeps
     * no start and end, as a replayed launch, and adds nothing to its
     * configuration's time or to --profile-budget's.
     */
    int instrumented = p && !strcmp(p->reason, "instrumented");
    /* a kernel node of a graph launch the instrumentation engine served ran patched too */
    struct gpend *g = k->graphId && W.ngraphs ? graph_find(k->correlationId) : NULL;
    instrumented |= g != NULL;
    if (gh_debug && k->graphId) {
        static int said;
        if (said++ < 12)
            gh_say("writer: graph node record corr %u graph %u node %llu: %s", k->correlationId,
                   k->graphId, (unsigned long long)k->graphNodeId,
                   g ? "of an instrumented graph launch" : "traced");
    }
    /* graph kernel nodes have no launch callback: sampling never saw their configuration */
    if (hook && k->end > k->start && !k->graphId && !instrumented) {
        const uint32_t grid[3] = {(uint32_t)k->gridX, (uint32_t)k->gridY, (uint32_t)k->gridZ};
        const uint32_t block[3] = {(uint32_t)k->blockX, (uint32_t)k->blockY, (uint32_t)k->blockZ};
        hook(k->name, grid, block, (uint32_t)k->dynamicSharedMemory, (int64_t)(k->end - k->start));
    }
    /*
     * Measured on the H200 (2026-12-01, CUDA 13.0): under KIND_KERNEL
     * (serialized, with the instrumentation engine on) the kernel nodes of a
     * graph launch after its first come with start = end = 0.
     */
    if (!k->start && !k->end && !instrumented) {
        W.untimed_kernels++;
        W.untimed_graph_nodes += k->graphId != 0;
    }
    if (!p)
        W.unmatched++;
    else if (p->corr == k->correlationId)
        W.by_driver_id++;
    else
        W.by_runtime_id++;
    long idx = p && p->config_index >= 0 ? p->config_index : (c ? c->launches : -1);
    const char *reason = p ? p->reason : g ? "instrumented" : k->graphId ? "graph" : NULL;
    sqlite3_stmt *st = W.ins_launch;
    sqlite3_bind_int64(st, 1, kid);
    if (c)
        sqlite3_bind_int64(st, 2, c->id);
    sqlite3_bind_int64(st, 3, k->deviceId);
    sqlite3_bind_int64(st, 4, k->contextId);
    sqlite3_bind_int64(st, 5, k->streamId);
    sqlite3_bind_int64(st, 6, k->correlationId);
    sqlite3_bind_int64(st, 7, k->gridId);
    if ((k->start || k->end) && !instrumented) {
        sqlite3_bind_int64(st, 8, (sqlite3_int64)k->start);
        sqlite3_bind_int64(st, 9, (sqlite3_int64)k->end);
    }
    if (k->graphId) {
        sqlite3_bind_int64(st, 10, k->graphId);
        sqlite3_bind_int64(st, 11, (sqlite3_int64)k->graphNodeId);
    }
    sqlite3_bind_int(st, 12, k->launchType);
    sqlite3_bind_int(st, 13, k->isDeviceLaunched);
    if (idx >= 0)
        sqlite3_bind_int64(st, 14, idx);
    bind_text_or_null(st, 15, p ? p->nvtx : NULL);
    bind_text_or_null(st, 16, reason);
    if (p && p->api_ns)
        sqlite3_bind_int64(st, 17, (sqlite3_int64)p->api_ns);
    long lid = step_insert(st, "insert a launch");
    if (lid < 0)
        return;
    if (g)
        graph_node(g, lid, kid);
    W.launches++;
    if (c) {
        c->launches++;
        if (k->end > k->start && !instrumented)
            c->total_ns += (int64_t)(k->end - k->start);
        c->dirty = 1;
    }
    if (!p)
        return;
    p->launch_id = lid;
    if (k->end > k->start)
        p->kernel_ns = (int64_t)(k->end - k->start);
    write_host_args(lid, &p->host);
    if (p->name_hash) {
        W.served[p->corr % 256].corr = p->corr;
        W.served[p->corr % 256].name_hash = p->name_hash;
        W.sampled_written++;
    }
    if (p->sampled) {
        char *dem = gh_demangle(k->name);
        p->kname = gh_short_name(dem ? dem : k->name);
        free(dem);
    }
    if (p->prof && lid > 0)
        write_profile(lid, p->prof, p->kname, p->kernel_ns);
    if (p->sass && lid > 0)
        write_sass(lid, p->sass);
    if (!p->sampled || p->prof || p->sass)
        pend_free(p);
}

static void
copy_record(int is_memset, const void *rec)
{
    uint32_t corr, rt = 0, dev, ctx, stream, graph;
    uint64_t bytes, start, end;
    const char *kind = NULL, *sk = NULL, *dk = NULL;
    if (!is_memset) {
        const CUpti_ActivityMemcpy6 *m = rec;
        corr = m->correlationId;
        rt = m->runtimeCorrelationId;
        dev = m->deviceId;
        ctx = m->contextId;
        stream = m->streamId;
        graph = m->graphId;
        bytes = m->bytes;
        start = m->start;
        end = m->end;
        kind = copy_kind(m->copyKind);
        sk = mem_kind(m->srcKind);
        dk = mem_kind(m->dstKind);
    } else {
        const CUpti_ActivityMemset4 *m = rec;
        corr = m->correlationId;
        dev = m->deviceId;
        ctx = m->contextId;
        stream = m->streamId;
        graph = m->graphId;
        bytes = m->bytes;
        start = m->start;
        end = m->end;
        dk = mem_kind(m->memoryKind);
    }
    struct pend *p = umap_get(&W.pends, corr);
    if (!p && rt)
        p = umap_get(&W.pends, rt);
    if (p && !p->is_copy)
        p = NULL;
    sqlite3_stmt *st = W.ins_copy;
    sqlite3_bind_text(st, 1, is_memset ? "memset" : "memcpy", -1, SQLITE_STATIC);
    bind_text_or_null(st, 2, kind);
    bind_text_or_null(st, 3, sk);
    bind_text_or_null(st, 4, dk);
    if (p && p->src)
        sqlite3_bind_int64(st, 5, (sqlite3_int64)p->src);
    if (p && p->dst)
        sqlite3_bind_int64(st, 6, (sqlite3_int64)p->dst);
    sqlite3_bind_int64(st, 7, (sqlite3_int64)bytes);
    /*
     * CUPTI_TIMESTAMP_UNKNOWN (0) in both: seen on an H100 (2026-12-07,
     * CUDA 13.0) on one DtoH copy just before an instrumented launch. NULL,
     * not 0: a time of 0 read as the epoch (the TUI's "At" column put it
     * 1.8e18 ns before the run), and its duration is not known.
     */
    if (start || end) {
        sqlite3_bind_int64(st, 8, (sqlite3_int64)start);
        sqlite3_bind_int64(st, 9, (sqlite3_int64)end);
    } else {
        W.untimed_copies++;
    }
    sqlite3_bind_int64(st, 10, dev);
    sqlite3_bind_int64(st, 11, ctx);
    sqlite3_bind_int64(st, 12, stream);
    sqlite3_bind_int64(st, 13, rt ? rt : corr);
    if (graph)
        sqlite3_bind_int64(st, 14, graph);
    if (p)
        sqlite3_bind_int(st, 15, p->is_async);
    bind_text_or_null(st, 16, p ? p->api : NULL);
    if (step_insert(st, "insert a copy") < 0)
        return;
    W.copies++;
    pend_free(p);
}

static const char *
alloc_kind(unsigned k)
{
    switch (k) {
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC:
        return "device_static";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC:
        return "managed_static";
    default:
        return mem_kind(k);
    }
}

/*
 * One `allocation` row per MEMORY2 record. A release is written with the
 * size of the allocation it frees when its own record says 0 bytes, so
 * that summing alloc minus release bytes gives the live memory.
 */
static void
alloc_record(const CUpti_ActivityMemory4 *m)
{
    int is_alloc = m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
    if (!is_alloc && m->memoryOperationType != CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE)
        return;
    if (cacheflush_owns(m->address))
        return; /* the L2 flush's buffer: not the program's footprint */
    uint64_t key = gh_fnv1a(gh_fnv1a(GH_FNV1A_BASIS, &m->deviceId, sizeof(m->deviceId)),
                            &m->address, sizeof(m->address));
    uint64_t bytes = m->bytes;
    /* umap values are pointers: the size is stored + 1 so a 0-byte allocation is not "absent". */
    if (is_alloc) {
        umap_put(&W.allocs, key, (void *)(uintptr_t)(bytes + 1));
    } else {
        uintptr_t known = (uintptr_t)umap_get(&W.allocs, key);
        if (known) {
            if (!bytes)
                bytes = known - 1;
            umap_put(&W.allocs, key, NULL);
        }
    }
    sqlite3_stmt *st = W.ins_alloc;
    sqlite3_bind_text(st, 1, is_alloc ? "alloc" : "release", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, alloc_kind(m->memoryKind), -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)m->address);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)bytes);
    sqlite3_bind_int64(st, 5, (sqlite3_int64)m->timestamp);
    sqlite3_bind_int64(st, 6, m->deviceId);
    sqlite3_bind_int64(st, 7, m->contextId);
    if (m->isAsync && m->streamId != CUPTI_INVALID_STREAM_ID)
        sqlite3_bind_int64(st, 8, m->streamId);
    sqlite3_bind_int64(st, 9, m->correlationId);
    sqlite3_bind_int(st, 10, m->isAsync ? 1 : 0);
    const char *pool = NULL;
    if (m->memoryPoolConfig.memoryPoolType == CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL)
        pool = "local";
    else if (m->memoryPoolConfig.memoryPoolType == CUPTI_ACTIVITY_MEMORY_POOL_TYPE_IMPORTED)
        pool = "imported";
    bind_text_or_null(st, 11, pool);
    bind_text_or_null(st, 12, m->name);
    step_insert(st, "insert an allocation");
}

static const char *
um_kind(CUpti_ActivityUnifiedMemoryCounterKind k)
{
    switch (k) {
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD:
        return "htod";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH:
        return "dtoh";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOD:
        return "dtod";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT:
        return "cpu_fault";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT:
        return "gpu_fault";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING:
        return "thrashing";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THROTTLING:
        return "throttling";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_REMOTE_MAP:
        return "remote_map";
    default:
        return NULL;
    }
}

static const char *
um_cause(uint32_t flags)
{
    switch (flags) {
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_USER:
        return "user";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_COHERENCE:
        return "coherence";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_PREFETCH:
        return "prefetch";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_EVICTION:
        return "eviction";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_ACCESS_COUNTERS:
        return "access_counters";
    default:
        return NULL;
    }
}

/* One `um_event` row per UNIFIED_MEMORY_COUNTER record (schema.sql um_event). */
static void
um_record(const CUpti_ActivityUnifiedMemoryCounter3 *u)
{
    const char *kind = um_kind(u->counterKind);
    if (!kind)
        return;
    int migration =
        u->counterKind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD ||
        u->counterKind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH ||
        u->counterKind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOD;
    int timed =
        migration || u->counterKind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THROTTLING;
    sqlite3_stmt *st = W.ins_um;
    sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
    if (u->start)
        sqlite3_bind_int64(st, 2, (sqlite3_int64)u->start);
    if (timed && u->end >= u->start && u->end)
        sqlite3_bind_int64(st, 3, (sqlite3_int64)u->end);
    /* bytes of a migration or of the region thrashed or mapped; a CPU fault's value is its PC */
    if (migration || u->counterKind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING ||
        u->counterKind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_REMOTE_MAP)
        sqlite3_bind_int64(st, 4, (sqlite3_int64)u->value);
    sqlite3_bind_int64(st, 5, (sqlite3_int64)u->address);
    if (u->counterKind != CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT)
        sqlite3_bind_int64(st, 6, u->srcId);
    if (migration || u->counterKind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_REMOTE_MAP)
        sqlite3_bind_int64(st, 7, u->dstId);
    bind_text_or_null(st, 8, migration ? um_cause(u->flags) : NULL);
    step_insert(st, "insert a unified-memory event");
}

/*
 * Writes the buffer's records; after a failure only counts them. Returns
 * how many records of the kinds the report keeps the buffer held.
 */
static uint64_t
parse_buffer(uint8_t *buf, size_t valid)
{
    uint64_t n = 0;
    if (!gh.cuptiActivityGetNextRecord)
        return 0;
    CUpti_Activity *r = NULL;
    while (gh.cuptiActivityGetNextRecord(buf, valid, &r) == CUPTI_SUCCESS) {
        switch (r->kind) {
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        case CUPTI_ACTIVITY_KIND_KERNEL:
            if (!W.has_failed)
                kernel_record((const CUpti_ActivityKernel10 *)r);
            n++;
            break;
        case CUPTI_ACTIVITY_KIND_MEMCPY:
        case CUPTI_ACTIVITY_KIND_MEMSET:
            if (!W.has_failed)
                copy_record(r->kind == CUPTI_ACTIVITY_KIND_MEMSET, r);
            n++;
            break;
        case CUPTI_ACTIVITY_KIND_MEMORY2:
            if (!W.has_failed)
                alloc_record((const CUpti_ActivityMemory4 *)r);
            n++;
            break;
        case CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER:
            if (!W.has_failed)
                um_record((const CUpti_ActivityUnifiedMemoryCounter3 *)r);
            n++;
            break;
        default:
            break;
        }
    }
    return n;
}

/* ------------------------------------------------------------ records */

/* One launch's profile (REC_PROFILE, or one range of a REC_PROFILE_IMAGE). */
static void
profile_arrived(const struct rec_profile *prof)
{
    struct pend *p = umap_get(&W.pends, prof->corr);
    if (!p || p->is_copy) {
        if (!prof->ok)
            W.ranges_dropped++;
        return;
    }
    if (p->launch_id > 0) {
        write_profile(p->launch_id, prof, p->kname, p->kernel_ns);
        pend_free(p);
    } else if (!p->prof) {
        p->prof = malloc(sizeof(*p->prof));
        if (p->prof)
            *p->prof = *prof;
    }
}

static void
handle(struct rec *r)
{
    switch (r->type) {
    case REC_EVENT:
        event_row(r->time_ns, r->u.event.level, r->u.event.code, r->u.event.message);
        break;
    case REC_TEST: {
        char msg[64];
        snprintf(msg, sizeof(msg), "%d:%ld", r->u.test.producer, r->u.test.seq);
        event_row(r->time_ns, "info", "test", msg);
        break;
    }
    case REC_META:
        if (store_meta_set(W.db, r->u.meta.key, r->u.meta.value))
            fail_store();
        break;
    case REC_LIMITED: {
        sqlite3_stmt *st =
            prepare_once("UPDATE run SET profiling_limited = CASE WHEN profiling_limited IS NULL "
                         "THEN ?1 ELSE profiling_limited || '; ' || ?1 END WHERE id = 1",
                         "prepare a profiling note");
        if (st) {
            sqlite3_bind_text(st, 1, r->u.limited, -1, SQLITE_TRANSIENT);
            step_done(st, "write a profiling note");
        }
        sqlite3_finalize(st);
        break;
    }
    case REC_LAUNCH:
    case REC_COPY: {
        struct pend *p = calloc(1, sizeof(*p));
        if (!p)
            break;
        if (r->type == REC_LAUNCH) {
            p->corr = r->u.launch.corr;
            p->rt_corr = r->u.launch.rt_corr;
            p->config_index = r->u.launch.config_index;
            p->sampled = r->u.launch.sampled;
            p->api_ns = r->time_ns;
            p->name_hash = r->u.launch.name_hash;
            p->host = r->u.launch.host;
            snprintf(p->reason, sizeof(p->reason), "%s", r->u.launch.reason);
            if (r->u.launch.nvtx_path[0])
                p->nvtx = strdup(r->u.launch.nvtx_path);
        } else {
            p->is_copy = 1;
            p->corr = r->u.copy.corr;
            p->rt_corr = r->u.copy.rt_corr;
            p->src = r->u.copy.src;
            p->dst = r->u.copy.dst;
            p->is_async = r->u.copy.is_async;
            snprintf(p->api, sizeof(p->api), "%s", r->u.copy.api);
        }
        /* A newer call with the same id replaces an orphan (e.g. a failed launch). */
        struct pend *old = umap_get(&W.pends, p->corr);
        if (old)
            pend_free(old);
        umap_put(&W.pends, p->corr, p);
        if (p->rt_corr && p->rt_corr != p->corr)
            umap_put(&W.pends, p->rt_corr, p);
        else
            p->rt_corr = 0;
        break;
    }
    case REC_PROFILE:
        profile_arrived(&r->u.profile);
        break;
    case REC_PROFILE_IMAGE: {
        /* a kept session's ranges, evaluated here: off the application's threads */
        static struct rec_profile one;
        for (size_t i = 0; i < r->u.image->nranges; i++)
            if (r->u.image->evaluate(r->u.image, i, &one))
                profile_arrived(&one);
        r->u.image->release(r->u.image);
        r->u.image = NULL;
        break;
    }
    case REC_GRAPH:
        if (r->u.graph.ranged) {
            W.served[r->u.graph.corr % 256].corr = r->u.graph.corr;
            W.served[r->u.graph.corr % 256].name_hash = SERVED_GRAPH;
        } else {
            graph_mark(r->u.graph.corr);
        }
        break;
    case REC_SASS: {
        if (r->u.sass.is_graph) {
            struct gpend *g = graph_find(r->u.sass.corr);
            if (!g || g->sass.batch) {
                W.graph_unattributed++;
                sass_batch_free(r->u.sass.batch);
            } else {
                g->sass = r->u.sass; /* the batch is the graph launch's now */
                g->sass_ns = mono_ns();
            }
            break;
        }
        struct pend *p = umap_get(&W.pends, r->u.sass.corr);
        if (!p || p->is_copy || p->sass) {
            sass_batch_free(r->u.sass.batch);
            break;
        }
        if (p->launch_id > 0) {
            write_sass(p->launch_id, &r->u.sass);
            sass_batch_free(r->u.sass.batch);
            pend_free(p);
        } else if ((p->sass = malloc(sizeof(*p->sass)))) {
            *p->sass = r->u.sass; /* the batch is the pend's now */
        } else {
            sass_batch_free(r->u.sass.batch);
        }
        break;
    }
    case REC_FAILURE: {
        const struct rec_failure *f = &r->u.failure;
        sqlite3_stmt *st = W.ins_failure;
        long kid = kernel_id(f->name, 0);
        const char *ename = NULL;
        int maxdyn = -1;
        if (gh.cuFuncGetAttribute && f->func)
            gh.cuFuncGetAttribute(&maxdyn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                  (CUfunction)(uintptr_t)f->func);
        if (gh.cuGetErrorName)
            gh.cuGetErrorName((CUresult)f->error_code, &ename);
        sqlite3_bind_int64(st, 1, (sqlite3_int64)r->time_ns);
        sqlite3_bind_text(st, 2, f->api, -1, SQLITE_TRANSIENT);
        bind_text_or_null(st, 3, f->name);
        if (kid > 0)
            sqlite3_bind_int64(st, 4, kid);
        sqlite3_bind_int(st, 5, f->error_code);
        bind_text_or_null(st, 6, ename);
        for (int i = 0; i < 3; i++) {
            sqlite3_bind_int64(st, 7 + i, f->grid[i]);
            sqlite3_bind_int64(st, 10 + i, f->block[i]);
        }
        sqlite3_bind_int64(st, 13, f->dynamic_smem_bytes);
        if (maxdyn >= 0)
            sqlite3_bind_int(st, 14, maxdyn);
        sqlite3_bind_int64(st, 15, r->tid);
        step_insert(st, "insert a launch failure");
        break;
    }
    case REC_NVTX_OPEN: {
        const struct rec_nvtx *n = &r->u.nvtx;
        sqlite3_stmt *st = W.ins_nvtx;
        sqlite3_bind_int64(st, 1, (sqlite3_int64)n->id);
        if (n->has_thread)
            sqlite3_bind_int64(st, 2, r->tid);
        bind_text_or_null(st, 3, n->domain);
        sqlite3_bind_text(st, 4, n->name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 5, (sqlite3_int64)r->time_ns);
        if (n->depth >= 0)
            sqlite3_bind_int(st, 6, n->depth);
        if (n->parent_id)
            sqlite3_bind_int64(st, 7, (sqlite3_int64)n->parent_id);
        step_insert(st, "insert an NVTX range");
        break;
    }
    case REC_NVTX_CLOSE:
        sqlite3_bind_int64(W.end_nvtx, 1, (sqlite3_int64)r->time_ns);
        sqlite3_bind_int64(W.end_nvtx, 2, (sqlite3_int64)r->u.nvtx.id);
        step_done(W.end_nvtx, "end an NVTX range");
        break;
    case REC_DEVICE:
        device_row(&r->u.device);
        break;
    case REC_CUBIN: {
        struct cubin *c = realloc(W.cubins, (W.ncubins + 1) * sizeof(*c));
        if (!c) {
            free(r->u.cubin.data);
            break;
        }
        W.cubins = c;
        W.cubins[W.ncubins].data = r->u.cubin.data;
        W.cubins[W.ncubins].size = r->u.cubin.size;
        W.cubins[W.ncubins].crc_known = 0;
        W.ncubins++;
        break;
    }
    default:
        break;
    }
}

/* ------------------------------------------------------------ thread */

static void
update_run_counters(void)
{
    sqlite3_stmt *st = W.upd_run;
    sqlite3_bind_int64(st, 1, (sqlite3_int64)atomic_load(&W.q.dropped));
    sqlite3_bind_int64(st, 2, (sqlite3_int64)atomic_load(&W.activity_dropped));
    sqlite3_bind_int64(st, 3, (sqlite3_int64)W.ranges_dropped);
    step_done(st, "update the drop counters");
}

/* A record thrown away after a failure: what it owns is freed. */
static void
discard(struct rec *r)
{
    if (r->type == REC_PROFILE_IMAGE && r->u.image)
        r->u.image->release(r->u.image);
    else if (r->type == REC_CUBIN)
        free(r->u.cubin.data);
    else if (r->type == REC_SASS)
        sass_batch_free(r->u.sass.batch);
}

/*
 * One transaction: everything queued now, bounded to ~0.5 s of work.
 * After a failure the same loop only drains the queues, so producers
 * never find them full and the writer still sleeps between batches; the
 * records of the batch that failed (rolled back) and of every later one
 * are counted in W.lost.
 */
static void
batch(void)
{
    static struct rec r;
    struct bufrec bufs[64];
    size_t nb = 0;
    uint64_t t0 = mono_ns();
    long nbufs = 0, nrecs = 0;
    uint64_t l0 = W.launches, n = 0;
    if (!W.has_failed)
        sql_ok(sqlite3_exec(W.db, "BEGIN", NULL, NULL, NULL), SQLITE_OK, "begin a transaction");
    for (;;) {
        nb = 0;
        while (nb < 64 && queue_pop(&W.bq, &bufs[nb]))
            nb++;
        nbufs += (long)nb;
        int any = nb > 0;
        /*
         * A kernel record in these buffers joins the launch record its
         * launch pushed before it ran: every record claimed by now goes
         * first, including one a producer claimed and has not finished
         * writing, which stops queue_pop() (the fake's 8-thread `threads`
         * lost a launch's reason and profile so about once in 85 runs).
         */
        uint64_t until = nb ? queue_pushed(&W.q) : 0;
        while ((nb && queue_pop_before(&W.q, &r, until, 100000)) || queue_pop(&W.q, &r)) {
            if (!W.has_failed)
                handle(&r);
            else
                discard(&r);
            any = 1;
            nrecs++;
            n++;
        }
        for (size_t i = 0; i < nb; i++) {
            n += parse_buffer(bufs[i].buf, bufs[i].valid);
            if (bufs[i].release)
                bufs[i].release(bufs[i].buf);
        }
        if (!any || mono_ns() - t0 > 500000000ULL)
            break;
    }
    if (!W.has_failed) {
        graph_settle(W.settle_all);
        flush_configs();
        update_run_counters();
    }
    if (!W.has_failed)
        sql_ok(sqlite3_exec(W.db, "COMMIT", NULL, NULL, NULL), SQLITE_OK, "commit");
    /*
     * SQLite goes on writing into a file whose name was removed (rm -r of
     * the output directory): nothing fails, and the report is gone at
     * exit. One stat() per commit notices it.
     */
    if (!W.has_failed && !report_is_there()) {
        W.is_gone = 1;
        fail_text("the file was removed or replaced while the program ran");
    }
    if (W.has_failed)
        atomic_fetch_add(&W.lost, n);
    atomic_fetch_add(&W.commits, 1);
    if (gh_debug && (nbufs || nrecs))
        gh_say("writer: %ld buffers, %ld records, %llu launches in %.1f ms", nbufs, nrecs,
               (unsigned long long)(W.launches - l0), (mono_ns() - t0) / 1e6);
}

/* What writer_start() hands its thread, on writer_start's stack until `done` is posted. */
struct start {
    const struct writer_run_info *ri;
    char *err;
    size_t errlen;
    int rc;
    sem_t done;
};

static int open_report(const struct writer_run_info *ri, char *err, size_t errlen);
static void close_report(void);
static void stmt_free(void);

/*
 * The thread opens, writes and closes the report: every SQLite call, and
 * so every write() past RLIMIT_FSIZE, runs here with all signals blocked,
 * and SIGXFSZ stays pending on this thread instead of killing the program
 * (it is dropped when the thread ends). EFBIG then fails the write.
 */
static void *
writer_main(void *arg)
{
    struct start *s = arg;
    s->rc = open_report(s->ri, s->err, s->errlen);
    int rc = s->rc;
    W.is_open = !rc;
    sem_post(&s->done); /* s is gone from here on */
    if (rc)
        return NULL;
    while (!atomic_load(&W.stop)) {
        queue_wait(&W.q, WRITER_PERIOD_MS);
        batch();
    }
    W.settle_all = 1;
    int64_t t_last = mono_ns();
    batch();
    /*
     * Where the instrumentation's cost outside the engine's own phases may
     * go (docs/instrument-cost.md): the writer's time on its rows (its own
     * thread, beside the program) and the last batch, which the program's
     * exit waits for
     */
    if (W.instrumented) {
        char v[160];
        snprintf(v, sizeof(v),
                 "%.1f ms writing %llu inst_launch rows and their counts; the last batch at exit "
                 "%.1f ms",
                 W.inst_write_ns / 1e6, (unsigned long long)W.instrumented,
                 (mono_ns() - t_last) / 1e6);
        if (store_meta_set(W.db, "instrumentation_rows", v))
            fail_store();
    }
    if (W.graph_unattributed) {
        event_rowf("warning", "graph_counts_unattributed",
                   "%llu instrumented graph launches' counts found no kernel node record of their "
                   "launch and were left out",
                   (unsigned long long)W.graph_unattributed);
    }
    if (W.inst_runs_failed) {
        event_rowf("warning", "inst_runs_failed",
                   "%llu instrumented launches' counts stayed one row per instruction and "
                   "metric (writing their compact form failed: %s); they read the same",
                   (unsigned long long)W.inst_runs_failed, store_error());
    }
    /*
     * Evidence for the launch path (docs/collector.md): kernel records
     * carry the driver call's id (H200, PyTorch: all of them), so the
     * runtime launch callbacks are gone and "by the runtime API id" stays
     * 0; "unmatched" counts kernels without a launch callback (graphs).
     */
    if (W.by_driver_id + W.by_runtime_id + W.unmatched) {
        event_rowf("info", "kernel_correlation",
                   "kernel records joined to their launch by the driver API id: %llu, by the "
                   "runtime API id: %llu, unmatched: %llu",
                   (unsigned long long)W.by_driver_id, (unsigned long long)W.by_runtime_id,
                   (unsigned long long)W.unmatched);
    }
    if (W.foreign_kernels) {
        event_rowf("info", "profiler_kernels",
                   "%llu kernel records ran another function than their launch (first: %s) under "
                   "the correlation id of one of the %llu launches the counter engines served: "
                   "kernels CUPTI ran for the profile, left out of the launches",
                   (unsigned long long)W.foreign_kernels, W.foreign_name,
                   (unsigned long long)W.sampled_written);
    }
    if (W.untimed_kernels) {
        event_rowf("warning", "kernels_untimed",
                   "%llu kernel records (%llu of them graph kernel nodes) came from CUPTI without "
                   "start and end times: their launches are listed, their GPU time is not counted",
                   (unsigned long long)W.untimed_kernels,
                   (unsigned long long)W.untimed_graph_nodes);
    }
    if (W.untimed_copies) {
        event_rowf("warning", "copies_untimed",
                   "%llu copy records came from CUPTI without start and end times: they are listed "
                   "with their bytes, their time is not counted",
                   (unsigned long long)W.untimed_copies);
    }
    close_report();
    return NULL;
}

/* ------------------------------------------------------------ run row */

static int
allowed_env(const char *e)
{
    static const char *const pre[] = {"CUDA_", "NVIDIA_", "LD_", "OMP_", "GPUHIER_", NULL};
    for (int i = 0; pre[i]; i++)
        if (strncmp(e, pre[i], strlen(pre[i])) == 0)
            return 1;
    return 0;
}

static char *
env_json(void)
{
    struct strbuf b = {0};
    strbuf_adds(&b, "{");
    int first = 1;
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq || !allowed_env(*e))
            continue;
        if (!first)
            strbuf_adds(&b, ",");
        jbuf_str(&b, *e, (size_t)(eq - *e));
        strbuf_adds(&b, ":");
        jbuf_str(&b, eq + 1, strlen(eq + 1));
        first = 0;
    }
    strbuf_adds(&b, "}");
    if (b.oom) {
        strbuf_release(&b);
        return NULL;
    }
    return b.p;
}

static char *
cmdline_json(void)
{
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (!f)
        return NULL;
    char *data = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 4096;
            char *d = realloc(data, cap);
            if (!d)
                break;
            data = d;
        }
        size_t got = fread(data + n, 1, cap - n, f);
        if (got == 0)
            break;
        n += got;
    }
    fclose(f);
    char *j = data ? json_array_nul(data, n) : NULL;
    free(data);
    return j;
}

static int
insert_run(const struct writer_run_info *ri)
{
    char host[256] = "", cwd[4096] = "", exe[4096] = "";
    gethostname(host, sizeof(host) - 1);
    if (!getcwd(cwd, sizeof(cwd)))
        cwd[0] = 0;
    ssize_t l = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    exe[l > 0 ? l : 0] = 0;
    char *cmd = cmdline_json(), *env = env_json();
    int ret = -1;
    sqlite3_stmt *st = prepare_once(
        "INSERT INTO run(id, command_line, program, cwd, env, host, pid, ppid, start_ns, "
        "tool_version, cuda_driver_version, cupti_version, mode, options, metric_set, "
        "clean_exit, records_dropped, activity_dropped, ranges_dropped) "
        "VALUES (1,?,?,?,?,?,?,?,?,?,?,?,?,?,?,0,0,0,0)",
        "prepare the run row");
    if (st) {
        bind_text_or_null(st, 1, cmd);
        bind_text_or_null(st, 2, exe);
        bind_text_or_null(st, 3, cwd);
        bind_text_or_null(st, 4, env);
        bind_text_or_null(st, 5, host);
        sqlite3_bind_int64(st, 6, getpid());
        sqlite3_bind_int64(st, 7, getppid());
        sqlite3_bind_int64(st, 8, (sqlite3_int64)realtime_ns());
        sqlite3_bind_text(st, 9, GPUHIER_VERSION, -1, SQLITE_STATIC);
        if (ri && ri->driver_version > 0)
            sqlite3_bind_int(st, 10, ri->driver_version);
        if (ri && ri->cupti_version > 0)
            sqlite3_bind_int(st, 11, ri->cupti_version);
        bind_text_or_null(st, 12, ri ? ri->mode : NULL);
        bind_text_or_null(st, 13, ri ? ri->options_json : NULL);
        bind_text_or_null(st, 14, ri ? ri->metric_set_json : NULL);
        ret = step_done(st, "insert the run row");
    }
    sqlite3_finalize(st);
    free(cmd);
    free(env);
    return ret;
}

/* ------------------------------------------------------------ public */

static int
prep(sqlite3_stmt **st, const char *sql)
{
    return sql_ok(sqlite3_prepare_v3(W.db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL), SQLITE_OK,
                  "prepare a statement")
               ? 0
               : -1;
}

/*
 * On the writer thread: creates the report at W.path, writes the run row
 * and prepares the statements. 0, or -1 with the reason in err (the
 * connection is closed again).
 */
static int
open_report(const struct writer_run_info *ri, char *err, size_t errlen)
{
    if (store_create(W.path, "collector", &W.db)) {
        /* errno as SQLite's failed write left it: store.c's message does not name it */
        int sys = errno;
        if (sys == EFBIG || sys == ENOSPC || sys == EDQUOT || sys == EROFS || sys == EACCES ||
            sys == EIO)
            snprintf(err, errlen, "%s (%s)", store_error(), strerror(sys));
        else
            snprintf(err, errlen, "%s", store_error());
        return -1;
    }
    struct stat sb;
    if (stat(W.path, &sb)) {
        snprintf(err, errlen, "cannot create report '%s': %s", W.path, strerror(errno));
        goto fail;
    }
    W.file_dev = sb.st_dev;
    W.file_ino = sb.st_ino;
    char prov[512];
    char host[256] = "";
    gethostname(host, sizeof(host) - 1);
    snprintf(prov, sizeof(prov), "recorded by the gpuhier collector in pid %ld on %s",
             (long)getpid(), host);
    if (!sql_ok(sqlite3_exec(W.db, "PRAGMA synchronous=NORMAL", NULL, NULL, NULL), SQLITE_OK,
                "set synchronous=NORMAL"))
        goto failed;
    /* the instruction counts' stage (store_inst_stage()), once for the connection */
    if (store_meta_set(W.db, "provenance", prov) || store_inst_stage(W.db)) {
        fail_store();
        goto failed;
    }
    if (insert_run(ri) ||
        prep(&W.ins_launch,
             "INSERT INTO launch(kernel_id, config_id, device_id, context_id, stream_id, "
             "correlation_id, "
             "grid_id, start_ns, end_ns, graph_id, graph_node_id, launch_type, is_device_launched, "
             "config_launch_index, nvtx_path, profile_reason, api_ns) VALUES "
             "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)") ||
        prep(&W.ins_copy,
             "INSERT INTO copy(op, copy_kind, src_kind, dst_kind, src_ptr, dst_ptr, bytes, "
             "start_ns, end_ns, "
             "device_id, context_id, stream_id, correlation_id, graph_id, is_async, api) "
             "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)") ||
        prep(&W.ins_metric,
             "INSERT OR REPLACE INTO metric(launch_id, metric_id, value) VALUES (?,?,?)") ||
        prep(&W.ins_profile, "INSERT OR REPLACE INTO profile(launch_id, passes, metric_set, "
                             "duration_ns, overhead_ns) "
                             "VALUES (?,?,?,?,?)") ||
        prep(&W.ins_event, "INSERT INTO event(time_ns, level, code, message) VALUES (?,?,?,?)") ||
        prep(&W.ins_nvtx, "INSERT OR REPLACE INTO nvtx_range(id, thread_id, domain, name, "
                          "start_ns, depth, parent_id) "
                          "VALUES (?,?,?,?,?,?,?)") ||
        prep(&W.end_nvtx, "UPDATE nvtx_range SET end_ns = ? WHERE id = ?") ||
        prep(&W.upd_config, "UPDATE config SET launches = ?, total_ns = ? WHERE id = ?") ||
        prep(&W.upd_config_facts,
             "UPDATE config SET local_bytes_per_thread = ?, carveout_bytes = ?, "
             "theoretical_occupancy_pct = ?, blocks_per_sm = ?, occupancy_limiter = ?, waves = ? "
             "WHERE id = ?") ||
        prep(&W.upd_run, "UPDATE run SET records_dropped = ?, activity_dropped = ?, ranges_dropped "
                         "= ? WHERE id = 1") ||
        prep(&W.upd_profiled, "UPDATE launch SET profile_reason = COALESCE(?, profile_reason), "
                              "profiled = ? WHERE id = ?") ||
        prep(&W.ins_failure,
             "INSERT INTO launch_failure(time_ns, api, kernel_name, kernel_id, error_code, "
             "error_name, "
             "grid_x, grid_y, grid_z, block_x, block_y, block_z, dynamic_smem_bytes, "
             "max_dynamic_smem_bytes, thread_id) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)") ||
        prep(&W.ins_host_arg, "INSERT OR IGNORE INTO launch_host_arg(launch_id, param_index, "
                              "range_bytes) VALUES (?,?,?)") ||
        prep(&W.ins_alloc,
             "INSERT INTO allocation(op, memory_kind, address, bytes, time_ns, device_id, "
             "context_id, stream_id, correlation_id, is_async, pool, name) "
             "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)") ||
        prep(&W.ins_um, "INSERT INTO um_event(kind, start_ns, end_ns, value, address, src_id, "
                        "dst_id, cause) VALUES (?,?,?,?,?,?,?,?)"))
        goto failed;
    return 0;
failed:
    snprintf(err, errlen, "%s", W.err_msg);
fail:
    stmt_free();
    sqlite3_close(W.db);
    W.db = NULL;
    return -1;
}

/*
 * The report's name as an absolute path: SQLite resolves a relative name
 * once, at open, so the report stays where it was claimed when the
 * program changes its directory; the writer's own checks (the stat() per
 * commit, the unlink of a report it could not start) must do the same.
 */
static int
absolute_path(char *out, size_t n, const char *path)
{
    char cwd[PATH_MAX];
    if (path[0] == '/')
        return snprintf(out, n, "%s", path) < (int)n ? 0 : -1;
    if (!getcwd(cwd, sizeof(cwd)))
        return -1;
    return snprintf(out, n, "%s/%s", cwd, path) < (int)n ? 0 : -1;
}

int
writer_start(const char *path, const struct writer_run_info *ri, size_t slots, char *err,
             size_t errlen)
{
    if (W.running) {
        snprintf(err, errlen, "writer already running");
        return -1;
    }
    /* A previous run's queues (kept for late pushes) are freed only now. */
    queue_release(&W.q);
    queue_release(&W.bq);
    memset(&W, 0, sizeof(W));
    say_keep_stderr();
    if (absolute_path(W.path, sizeof(W.path), path)) {
        snprintf(err, errlen, "cannot create report '%s': %s", path,
                 errno ? strerror(errno) : "name too long");
        unlink(path);
        return -1;
    }
    if (queue_init(&W.q, slots, sizeof(struct rec)) ||
        queue_init(&W.bq, 256, sizeof(struct bufrec))) {
        snprintf(err, errlen, "out of memory for the record queue");
        goto fail;
    }
    /*
     * The writer commits every WRITER_PERIOD_MS, or sooner once an eighth
     * of the queue is used: never once per record (docs/collector.md).
     */
    queue_set_wake_fill(&W.q, slots / 8);
    struct start s = {.ri = ri, .err = err, .errlen = errlen};
    if (sem_init(&s.done, 0, 0)) {
        snprintf(err, errlen, "cannot start the writer thread: %s", strerror(errno));
        goto fail;
    }
    int rc = signals_thread_start(&W.th, writer_main, &s, 0);
    if (rc) {
        sem_destroy(&s.done);
        snprintf(err, errlen, "cannot start the writer thread: %s", strerror(rc));
        goto fail;
    }
    while (sem_wait(&s.done) && errno == EINTR)
        ;
    sem_destroy(&s.done);
    if (s.rc) {
        pthread_join(W.th, NULL);
        goto fail;
    }
    W.running = 1;
    return 0;
fail:
    queue_release(&W.q);
    queue_release(&W.bq);
    unlink(W.path);
    return -1;
}

int
writer_active(void)
{
    return W.running;
}

int
writer_push_n(struct rec *r, size_t n)
{
    if (!W.running)
        return -1;
    /*
     * Launch and copy records are joined to activity records, which carry
     * their own times and threads: the writer reads neither field, so the
     * launch path skips a CUPTI timestamp call per launch.
     */
    if (r->type != REC_LAUNCH && r->type != REC_COPY) {
        if (!r->tid)
            r->tid = gh_tid();
        if (!r->time_ns)
            r->time_ns = gh_now_ns();
    }
    return queue_push(&W.q, r, n < sizeof(*r) ? n : sizeof(*r));
}

int
writer_push(struct rec *r)
{
    return writer_push_n(r, sizeof(*r));
}

void
writer_push_buffer(uint8_t *buf, size_t valid, void (*release)(uint8_t *buf))
{
    struct bufrec b = {buf, valid, release};
    if (!W.running || queue_push(&W.bq, &b, sizeof(b))) {
        if (release)
            release(buf);
        return;
    }
    queue_wake(&W.q);
}

void
writer_add_activity_dropped(uint64_t n)
{
    atomic_fetch_add(&W.activity_dropped, n);
}

void
writer_wake(void)
{
    if (W.running)
        queue_wake(&W.q);
}

void
writer_sync(int ms)
{
    if (!W.running)
        return;
    uint64_t c0 = atomic_load(&W.commits);
    queue_wake(&W.q);
    for (int i = 0; i < ms && atomic_load(&W.commits) < c0 + 2; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
        if (i % 50 == 0)
            queue_wake(&W.q);
    }
}

static void
stmt_free(void)
{
    sqlite3_stmt **all[] = {&W.ins_launch,       &W.ins_copy,     &W.ins_metric,   &W.ins_profile,
                            &W.ins_event,        &W.ins_nvtx,     &W.end_nvtx,     &W.upd_config,
                            &W.upd_config_facts, &W.upd_run,      &W.upd_profiled, &W.ins_failure,
                            &W.ins_alloc,        &W.ins_host_arg, &W.ins_um};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        sqlite3_finalize(*all[i]);
        *all[i] = NULL;
    }
}

/* Frees the join state (the queues stay: late callbacks may still push and be refused). */
static void
free_state(void)
{
    for (size_t i = 0; i < W.kernels.cap; i++) {
        struct kinfo *k = W.kernels.vals[i];
        if (k) {
            free(k->name);
            free(k);
        }
    }
    for (size_t i = 0; i < W.pends.cap; i++) {
        struct pend *p = W.pends.vals[i];
        if (p && W.pends.keys[i] == p->corr) {
            free(p->nvtx);
            free(p->kname);
            free(p->prof);
            if (p->sass)
                sass_batch_free(p->sass->batch);
            free(p->sass);
            free(p);
        }
    }
    while (W.ngraphs)
        graph_release(&W.graphs[0]);
    W.settle_all = 0;
    for (size_t i = 0; i < W.nconf; i++)
        free(W.clist[i]);
    free(W.clist);
    W.clist = NULL;
    W.nconf = W.capconf = 0;
    struct umap *maps[] = {&W.kernels, &W.configs, &W.pends, &W.metric_ids, &W.allocs};
    for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
        free(maps[i]->keys);
        free(maps[i]->vals);
        memset(maps[i], 0, sizeof(*maps[i]));
    }
}

/* sqlite3_exec callback: keeps the first column of the row (PRAGMA journal_mode's answer). */
static int
first_column(void *out, int n, char **vals, char **names)
{
    (void)names;
    if (n > 0 && vals[0])
        gh_copy(out, 16, vals[0]);
    return 0;
}

/*
 * After a failure, when the file still takes a write (space was freed,
 * or only the last step failed): an `event` row 'writer_error' with the
 * failure and the count of lost records, end_ns, the drop counters, and
 * clean_exit 0 when records were lost. Its own failure is not reported
 * again: the first stands.
 */
static void
write_note(void)
{
    char msg[sizeof(W.err_msg) + 64];
    uint64_t lost = atomic_load(&W.lost);
    snprintf(msg, sizeof(msg), "%s; %llu records after it are not in the report", W.err_msg,
             (unsigned long long)lost);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(W.db,
                           "INSERT INTO event(time_ns, level, code, message) "
                           "VALUES (?, 'error', 'writer_error', ?)",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, (sqlite3_int64)realtime_ns());
        sqlite3_bind_text(st, 2, msg, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(st) != SQLITE_DONE) {
            sqlite3_finalize(st);
            return;
        }
    }
    sqlite3_finalize(st);
    st = NULL;
    if (sqlite3_prepare_v2(W.db,
                           "UPDATE run SET end_ns = coalesce(end_ns, ?1), clean_exit = ?2, "
                           "records_dropped = ?3, activity_dropped = ?4, ranges_dropped = ?5 "
                           "WHERE id = 1",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, (sqlite3_int64)realtime_ns());
        sqlite3_bind_int(st, 2, W.clean_exit && !lost);
        sqlite3_bind_int64(st, 3, (sqlite3_int64)atomic_load(&W.q.dropped));
        sqlite3_bind_int64(st, 4, (sqlite3_int64)atomic_load(&W.activity_dropped));
        sqlite3_bind_int64(st, 5, (sqlite3_int64)W.ranges_dropped);
        sqlite3_step(st); /* best effort: the event above already says it */
    }
    sqlite3_finalize(st);
}

/*
 * On the writer thread, after the last batch: end_ns and clean_exit, the
 * WAL checkpointed into the main file and journal_mode=DELETE (one
 * self-contained file), then the note of a failure if there was one.
 * Nothing is written into a report whose file was removed.
 */
static void
close_report(void)
{
    if (!W.is_gone) {
        sqlite3_stmt *st = prepare_once("UPDATE run SET end_ns = ?, clean_exit = ? WHERE id = 1",
                                        "prepare the end row");
        if (st) {
            sqlite3_bind_int64(st, 1, (sqlite3_int64)realtime_ns());
            sqlite3_bind_int(st, 2, W.clean_exit ? 1 : 0);
            step_done(st, "write the end row");
        }
        sqlite3_finalize(st);
        if (!W.has_failed)
            update_run_counters();
        if (!W.has_failed && W.spans_rescaled) {
            /* how many kept-session profiles write_profile() rescaled to their kernel's time */
            char v[24];
            snprintf(v, sizeof(v), "%llu", (unsigned long long)W.spans_rescaled);
            if (store_meta_set(W.db, "profiles_rescaled", v))
                fail_store();
        }
    }
    stmt_free();
    if (!W.is_gone) {
        /* After a failure these are still worth trying (the WAL holds what was committed). */
        sql_ok(sqlite3_exec(W.db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL), SQLITE_OK,
               "checkpoint the WAL into the report");
        char mode[16] = "";
        if (sql_ok(sqlite3_exec(W.db, "PRAGMA journal_mode=DELETE", first_column, mode, NULL),
                   SQLITE_OK, "leave WAL mode") &&
            strcmp(mode, "delete") != 0) {
            /* SQLite keeps WAL mode when it cannot remove the -wal file (a read-only directory) */
            char why[200];
            snprintf(
                why, sizeof(why),
                "cannot leave WAL mode (journal mode stays '%s'): its -wal and -shm files stay "
                "beside it",
                mode);
            fail_text(why);
        }
        if (W.has_failed)
            write_note();
    }
    int rc = sqlite3_close(W.db);
    if (rc != SQLITE_OK) {
        char why[100];
        snprintf(why, sizeof(why), "close: %s", sqlite3_errstr(rc));
        fail_text(why);
    }
    W.db = NULL;
}

void
writer_stop(int clean_exit)
{
    if (!W.running)
        return;
    W.clean_exit = clean_exit;
    atomic_store(&W.stop, 1);
    queue_wake(&W.q);
    pthread_join(W.th, NULL);
    W.running = 0;
    for (size_t i = 0; i < W.ncubins; i++)
        free(W.cubins[i].data);
    free(W.cubins);
    W.cubins = NULL;
    W.ncubins = 0;
    free_state();
    /* The queues stay allocated: a late callback on another thread may still push (and be refused). */
}

void
writer_set_gpu_time_hook(writer_gpu_time_fn fn)
{
    atomic_store(&gpu_time_hook, fn);
}

void
writer_set_wake_fill(size_t n)
{
    queue_set_wake_fill(&W.q, n);
}

void
writer_stats(struct writer_stats *s)
{
    s->launches = W.launches;
    s->profiled = W.profiled;
    s->dropped = atomic_load(&W.q.dropped);
    s->ranges_dropped = W.ranges_dropped;
    s->copies = W.copies;
    s->lost_after_error = atomic_load(&W.lost);
}

const char *
writer_error(void)
{
    return atomic_load(&W.is_failed_pub) ? W.err_msg : NULL;
}

const char *
writer_path(void)
{
    return W.path[0] ? W.path : NULL;
}
