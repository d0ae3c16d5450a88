/* SPDX-License-Identifier: MIT */
/*
 * html: one self-contained HTML page for a ticket attachment or a
 * browser with no network: the run summary, the ranked findings with
 * their evidence, a roofline per device, each kernel's memory hierarchy
 * and the copies timeline, drawn as inline SVG with inline CSS. The page
 * has no script, no link and no external asset: nothing in it asks the
 * network for anything, and a hostile name has nothing to run in.
 *
 * Markup goes through libxml2's xmlTextWriter, which escapes every text
 * and attribute value; every string from the report is sanitized first
 * (sanitize_text(): strings of struct ex_report already are, and the
 * rows this file reads itself go through ex_col_text()). The writer emits
 * XML syntax, which an HTML parser reads the same way provided that no
 * HTML element is written empty as <x/> (the HTML parser ignores the
 * slash and leaves the element open): HTML elements end with
 * xmlTextWriterFullEndElement(), SVG elements (foreign content, where
 * <x/> closes) with xmlTextWriterEndElement(). No untrusted text goes
 * into <style> (whose text is not escaped) or into a URL attribute.
 *
 * The roofline is the instruction roofline (Ding and Williams, "An
 * Instruction Roofline Model for GPUs", 2019) because the work the
 * report measures is warp instructions (smsp__inst_executed.sum), not
 * floating-point operations: x is warp instructions per DRAM byte, y
 * warp instructions per second, the roofs are the analyzer's
 * (docs/analyzer.md "The floor"): DRAM at the device's datasheet and
 * measured copy bandwidth, L2 at the analyzer's L2 bandwidth, and the
 * issue rate of 4 warp instructions per SM per cycle; where a
 * configuration has pipe counters, a mark above its point shows where
 * it would be with its busiest pipe at its peak (the analyzer's compute
 * roof). docs/cmd-export.md describes the page.
 */
#include "export/export_int.h"
#include "export/sanitize.h"
#include "schema/store.h"
#include "schema/store_view.h"

#include <libxml/xmlwriter.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define X(s) ((const xmlChar *)(s))

/* The analyzer's issue rate (analyzer/prepare.c t_issue_ns): warp instructions per SM per cycle. */
#define HTML_ISSUE_PER_SM_CYCLE 4.0
/* The analyzer's L2 bandwidth (analyzer/prepare.c bw_l2), as a multiple of the DRAM datasheet. */
#define HTML_L2_PER_DRAM 2.0
/* Most rectangles per lane of the copies timeline: copies closer than a pixel merge. */
#define HTML_TIMELINE_W 960

/* ------------------------------------------------------------------ */
/* Writer helpers                                                       */
/* ------------------------------------------------------------------ */

static void
el(xmlTextWriterPtr w, const char *name, const char *cls)
{
    xmlTextWriterStartElement(w, X(name));
    if (cls)
        xmlTextWriterWriteAttribute(w, X("class"), X(cls));
}

/* End an HTML element: always with an end tag (see the file comment). */
static void
end(xmlTextWriterPtr w)
{
    xmlTextWriterFullEndElement(w);
}

/* End an SVG element: <x/> is fine in foreign content. */
static void
svg_end(xmlTextWriterPtr w)
{
    xmlTextWriterEndElement(w);
}

static void
text(xmlTextWriterPtr w, const char *s)
{
    if (s && *s)
        xmlTextWriterWriteString(w, X(s));
}

static void __attribute__((format(printf, 2, 3))) textf(xmlTextWriterPtr w, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    text(w, buf);
}

static void
attr(xmlTextWriterPtr w, const char *k, const char *v)
{
    xmlTextWriterWriteAttribute(w, X(k), X(v ? v : ""));
}

static void __attribute__((format(printf, 3, 4)))
attrf(xmlTextWriterPtr w, const char *k, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    attr(w, k, buf);
}

/* <name class=cls>s</name>, an HTML element with text. */
static void
el_text(xmlTextWriterPtr w, const char *name, const char *cls, const char *s)
{
    el(w, name, cls);
    text(w, s);
    end(w);
}

/* One row of a two-column table: th, td. Skipped when v is NULL. */
static void
kv_row(xmlTextWriterPtr w, const char *k, const char *v)
{
    if (!v)
        return;
    el(w, "tr", NULL);
    el_text(w, "th", NULL, k);
    el_text(w, "td", NULL, v);
    end(w);
}

/* An SVG <title> child: the tooltip of its parent. */
static void
svg_title(xmlTextWriterPtr w, const char *s)
{
    xmlTextWriterStartElement(w, X("title"));
    text(w, s);
    xmlTextWriterFullEndElement(w);
}

static void
svg_text(xmlTextWriterPtr w, double x, double y, const char *anchor, const char *cls, const char *s)
{
    xmlTextWriterStartElement(w, X("text"));
    attrf(w, "x", "%.1f", x);
    attrf(w, "y", "%.1f", y);
    if (anchor)
        attr(w, "text-anchor", anchor);
    if (cls)
        attr(w, "class", cls);
    text(w, s);
    xmlTextWriterFullEndElement(w);
}

static void
svg_line(xmlTextWriterPtr w, double x1, double y1, double x2, double y2, const char *cls)
{
    xmlTextWriterStartElement(w, X("line"));
    attrf(w, "x1", "%.1f", x1);
    attrf(w, "y1", "%.1f", y1);
    attrf(w, "x2", "%.1f", x2);
    attrf(w, "y2", "%.1f", y2);
    attr(w, "class", cls);
    svg_end(w);
}

static void
svg_rect(xmlTextWriterPtr w, double x, double y, double wd, double ht, const char *cls)
{
    xmlTextWriterStartElement(w, X("rect"));
    attrf(w, "x", "%.1f", x);
    attrf(w, "y", "%.1f", y);
    attrf(w, "width", "%.1f", wd);
    attrf(w, "height", "%.1f", ht);
    if (cls)
        attr(w, "class", cls);
}

static void
svg_open(xmlTextWriterPtr w, int width, int height, const char *cls, const char *label)
{
    xmlTextWriterStartElement(w, X("svg"));
    attr(w, "xmlns", "http://www.w3.org/2000/svg");
    attrf(w, "viewBox", "0 0 %d %d", width, height);
    attrf(w, "width", "%d", width);
    attrf(w, "height", "%d", height);
    attr(w, "class", cls);
    attr(w, "role", "img");
    attr(w, "aria-label", label);
}

/* ------------------------------------------------------------------ */
/* Numbers                                                              */
/* ------------------------------------------------------------------ */

/* "1.5 G", "230 k", "12": a value with an SI prefix, 3 significant digits. */
static const char *
fmt_si(char *buf, size_t n, double v, const char *unit)
{
    static const char *pre[] = {"", "k", "M", "G", "T", "P", "E"};
    if (!isfinite(v)) {
        snprintf(buf, n, "unknown");
        return buf;
    }
    int i = 0;
    while (fabs(v) >= 1000 && i < 6) {
        v /= 1000;
        i++;
    }
    char num[24];
    export_fmt_number(num, sizeof(num), v, 3);
    /* "420" for a count with neither prefix nor unit: "420 " left a double space in "420  warp" */
    const char *u = unit ? unit : "";
    snprintf(buf, n, "%s%s%s%s", num, *pre[i] || *u ? " " : "", pre[i], u);
    return buf;
}

static const char *
fmt_bytes(char *buf, size_t n, double b)
{
    return fmt_si(buf, n, b, "B");
}

static const char *
fmt_bw(char *buf, size_t n, double bps)
{
    return fmt_si(buf, n, bps, "B/s");
}

/* An axis tick: 10^k without scientific notation. */
static const char *
fmt_decade(char *buf, size_t n, int k)
{
    if (k >= 3)
        return fmt_si(buf, n, pow(10, k), NULL);
    return export_fmt_number(buf, n, pow(10, k), 3);
}

/* ------------------------------------------------------------------ */
/* What the page reads beyond struct ex_report                          */
/* ------------------------------------------------------------------ */

struct hdev {
    long long id;
    char *name;                    /* sanitized */
    double peak_bw, copy_bw;       /* bytes/s; NaN when unknown */
    double issue_peak;             /* warp instructions/s; NaN when unknown */
    double sm_count, sm_clock_khz; /* NaN when unknown */
    double pcie_gen, pcie_width;   /* NaN when unknown */
};

/* One profiled configuration: a point of the roofline. */
struct hpoint {
    long long config_id, kernel_id, device_id;
    long long grid[3], block[3];
    double mean_ns, dram_bytes, l2_bytes, inst, floor_ratio; /* per launch; NaN when unknown */
    double
        pipe_pct; /* busiest pipe's share of the elapsed cycles, %; NaN without all four counters */
    const char *pipe; /* its name: "tensor", "fma", "alu", "fp64" (ours), or NULL */
    char *bound_tier; /* sanitized, may be NULL */
};

/* Metric means of one kernel, for its hierarchy picture (as the TUI's kernel view). */
enum hm {
    HM_LLD_SEC,
    HM_LST_SEC,
    HM_SHLD_WF,
    HM_SHST_WF,
    HM_SHLD_INST,
    HM_SHST_INST,
    HM_SHLD_CONF,
    HM_SHST_CONF,
    HM_GLD_SEC,
    HM_GLD_REQ,
    HM_GLD_BYTES,
    HM_GLD_INST,
    HM_L1_HIT,
    HM_L2_HIT,
    HM_L2_MISS,
    HM_N
};

static const char *const hm_names[HM_N] = {
    [HM_LLD_SEC] = "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
    [HM_LST_SEC] = "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
    [HM_SHLD_WF] = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    [HM_SHST_WF] = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    [HM_SHLD_INST] = "smsp__inst_executed_op_shared_ld.sum",
    [HM_SHST_INST] = "smsp__inst_executed_op_shared_st.sum",
    [HM_SHLD_CONF] = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    [HM_SHST_CONF] = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    [HM_GLD_SEC] = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    [HM_GLD_REQ] = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    [HM_GLD_BYTES] = "smsp__sass_data_bytes_mem_global_op_ld.sum",
    [HM_GLD_INST] = "smsp__inst_executed_op_global_ld.sum",
    [HM_L1_HIT] = "l1tex__t_sector_hit_rate.pct",
    [HM_L2_HIT] = "lts__t_sectors_lookup_hit.sum",
    [HM_L2_MISS] = "lts__t_sectors_lookup_miss.sum",
};

struct hkern {
    long long kernel_id, device_id;
    double bytes[6]; /* per launch: registers (local), shared, l1, l2, dram, host; NaN unknown */
    double mean_ns, regs;
    double m[HM_N];         /* NaN when not measured */
    struct export_exact ex; /* its exact counts (NaN when none) */
};

struct hcopy {
    size_t lane;     /* index in hdata.lanes */
    const char *cls; /* ours: the colour class of its direction (copy_class()) */
    double bytes;
    double start_ns, end_ns; /* doubles: a report's timestamps are untrusted (no overflow) */
};

struct hdata {
    struct hdev *dev;
    size_t n_dev;
    struct hpoint *pt;
    size_t n_pt;
    struct hkern *kern;
    size_t n_kern;
    struct hcopy *cp;
    size_t n_cp;
    char **lanes; /* sanitized "HtoD pageable → device", "memset device", by first use */
    size_t n_lanes;
    double t0_ns, t1_ns; /* the run's GPU activity, for the timeline */
};

static void
hdata_release(struct hdata *d)
{
    for (size_t i = 0; i < d->n_dev; i++)
        free(d->dev[i].name);
    free(d->dev);
    for (size_t i = 0; i < d->n_pt; i++) {
        free(d->pt[i].bound_tier);
    }
    free(d->pt);
    free(d->kern);
    free(d->cp);
    for (size_t i = 0; i < d->n_lanes; i++)
        free(d->lanes[i]);
    free(d->lanes);
    memset(d, 0, sizeof(*d));
}

static void *
grow(void *p, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return p;
    *cap = *cap ? *cap * 2 : 16;
    p = realloc(p, *cap * size);
    if (!p)
        abort();
    return p;
}

/*
 * Index of kernel `id` in r->kernels, which export.c's load_kernels()
 * orders by id (and d->kern follows); -1 when the --kernel filter left it out.
 */
static long
kernel_index(const struct ex_report *r, long long id)
{
    size_t lo = 0, hi = r->n_kernels;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->kernels[mid].id == id)
            return (long)mid;
        if (r->kernels[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static int
load_devices(sqlite3 *db, struct hdata *d)
{
    sqlite3_stmt *st = NULL;
    if (store_prepare(db,
                      "SELECT id, name, peak_dram_bw_bytes_per_s, measured_copy_bw_bytes_per_s,"
                      " sm_count, sm_clock_khz, pcie_gen, pcie_width FROM device"
                      " ORDER BY id",
                      &st))
        return -1;
    int rc;
    size_t cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        d->dev = grow(d->dev, d->n_dev, &cap, sizeof(*d->dev));
        struct hdev *v = &d->dev[d->n_dev++];
        v->id = sqlite3_column_int64(st, 0);
        v->name = ex_col_text(st, 1, 256);
        v->peak_bw = ex_col_real(st, 2);
        v->copy_bw = ex_col_real(st, 3);
        v->sm_count = ex_col_real(st, 4);
        v->sm_clock_khz = ex_col_real(st, 5);
        v->pcie_gen = ex_col_real(st, 6);
        v->pcie_width = ex_col_real(st, 7);
        v->issue_peak = HTML_ISSUE_PER_SM_CYCLE * v->sm_count * v->sm_clock_khz * 1e3;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : store_fail(db, rc, "reading devices");
}

/*
 * The profiled configurations, with their counters averaged over the
 * profiles the analyzer keeps (v_profile's set_aside, as this build
 * defines it) and their summary (kernel_summary's configuration rows).
 */
static int
load_points(sqlite3 *db, const struct ex_report *r, struct hdata *d)
{
    sqlite3_stmt *st = NULL;
    static const char head[] = "WITH kept AS (SELECT p.launch_id, l.config_id FROM profile p"
                               " JOIN launch l ON l.id = p.launch_id WHERE l.config_id IS NOT NULL"
                               " AND p.launch_id NOT IN (SELECT launch_id FROM ";
    static const char tail[] =
        " WHERE set_aside = 1)),"
        /* one pass over the kept profiles' metric rows, pivoted per configuration */
        " cm AS (SELECT k.config_id,"
        " avg(CASE WHEN n.name = 'smsp__inst_executed.sum' THEN m.value END) AS inst,"
        " avg(CASE WHEN n.name LIKE 'sm__pipe_tensor%' THEN m.value END) AS tensor,"
        " avg(CASE WHEN n.name LIKE 'sm__pipe_fma%' THEN m.value END) AS fma,"
        " avg(CASE WHEN n.name LIKE 'sm__pipe_alu%' THEN m.value END) AS alu,"
        " avg(CASE WHEN n.name LIKE 'sm__pipe_fp64%' THEN m.value END) AS fp64 FROM kept k"
        " JOIN metric m ON m.launch_id = k.launch_id JOIN metric_name n ON n.id = m.metric_id"
        " WHERE n.name IN ('smsp__inst_executed.sum',"
        " 'sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed',"
        " 'sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed',"
        " 'sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed',"
        " 'sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed')"
        " GROUP BY k.config_id)"
        " SELECT c.id, c.kernel_id, c.device_id, c.grid_x, c.grid_y, c.grid_z,"
        " c.block_x, c.block_y, c.block_z,"
        " coalesce(s.mean_ns, CASE WHEN c.launches > 0 THEN 1.0 * c.total_ns / c.launches END),"
        " s.dram_bytes, s.l2_bytes, s.floor_ratio, s.bound_tier,"
        " cm.inst, cm.tensor, cm.fma, cm.alu, cm.fp64"
        " FROM config c LEFT JOIN kernel_summary s ON s.id = (SELECT min(id) FROM kernel_summary"
        " WHERE config_id = c.id) LEFT JOIN cm ON cm.config_id = c.id"
        " WHERE c.id IN (SELECT config_id FROM kept) ORDER BY c.device_id, c.id";
    char *sql = store_view_query("v_profile", head, tail);
    if (!sql)
        return store_set_error("cannot read profiles: %s", store_error());
    int rc = store_prepare(db, sql, &st);
    free(sql);
    if (rc)
        return -1;
    size_t cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        long long kid = sqlite3_column_int64(st, 1);
        if (kernel_index(r, kid) < 0) /* the --kernel filter: only kernels the report kept */
            continue;
        d->pt = grow(d->pt, d->n_pt, &cap, sizeof(*d->pt));
        struct hpoint *p = &d->pt[d->n_pt++];
        memset(p, 0, sizeof(*p));
        p->config_id = sqlite3_column_int64(st, 0);
        p->kernel_id = kid;
        p->device_id = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 2);
        for (int i = 0; i < 3; i++) {
            p->grid[i] = sqlite3_column_type(st, 3 + i) == SQLITE_NULL
                             ? -1
                             : sqlite3_column_int64(st, 3 + i);
            p->block[i] = sqlite3_column_type(st, 6 + i) == SQLITE_NULL
                              ? -1
                              : sqlite3_column_int64(st, 6 + i);
        }
        p->mean_ns = ex_col_real(st, 9);
        p->dram_bytes = ex_col_real(st, 10);
        p->l2_bytes = ex_col_real(st, 11);
        p->floor_ratio = ex_col_real(st, 12);
        p->bound_tier = ex_col_text(st, 13, 64);
        p->inst = ex_col_real(st, 14);
        /*
         * The busiest pipe is known only when every pipe's counter came: one
         * group may hold the tensor pipe's alone (an FFMA GEMM's 0.0003 %
         * put its tick 300,000x above its circle, and the axis with it).
         */
        static const char *pipes[] = {"tensor", "fma", "alu", "fp64"};
        p->pipe_pct = NAN;
        int measured = 0;
        for (int i = 0; i < 4; i++) {
            double v = ex_col_real(st, 15 + i);
            measured += isfinite(v);
            if (isfinite(v) && (isnan(p->pipe_pct) || v > p->pipe_pct)) {
                p->pipe_pct = v;
                p->pipe = pipes[i];
            }
        }
        if (measured < 4)
            p->pipe_pct = NAN;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : store_fail(db, rc, "reading profiled configurations");
}

/* Per kernel: bytes per tier from kernel_summary, the metric means of its profiles. */
static int
load_hierarchy(sqlite3 *db, const struct ex_report *r, struct hdata *d)
{
    sqlite3_stmt *st = NULL, *mt = NULL;
    int ret = -1, rc = SQLITE_DONE;
    d->kern = calloc(r->n_kernels ? r->n_kernels : 1, sizeof(*d->kern));
    if (!d->kern)
        abort();
    if (store_prepare(db,
                      "SELECT s.local_bytes, s.shared_bytes, s.l1_bytes, s.l2_bytes, s.dram_bytes,"
                      " s.host_bytes, coalesce(s.mean_ns, (SELECT 1.0 * sum(total_ns) /"
                      " nullif(sum(launches), 0) FROM config WHERE kernel_id = ?1)),"
                      " (SELECT max(registers_per_thread) FROM config WHERE kernel_id = ?1),"
                      " (SELECT min(device_id) FROM config WHERE kernel_id = ?1)"
                      " FROM (SELECT 1) LEFT JOIN kernel_summary s ON s.id = (SELECT min(id)"
                      " FROM kernel_summary WHERE kernel_id = ?1 AND config_id IS NULL)",
                      &st) ||
        store_prepare(db,
                      /* one pass over the profiles (few), not the launches (many) */
                      "SELECT l.kernel_id, n.name, avg(m.value) FROM profile p"
                      " JOIN launch l ON l.id = p.launch_id JOIN metric m ON m.launch_id ="
                      " p.launch_id JOIN metric_name n ON n.id = m.metric_id"
                      " WHERE n.name LIKE 'l1tex__%' OR n.name LIKE 'lts__%'"
                      " OR n.name LIKE 'smsp__%' GROUP BY l.kernel_id, n.name",
                      &mt))
        goto out;
    for (size_t i = 0; i < r->n_kernels; i++) {
        struct hkern *k = &d->kern[d->n_kern++];
        k->kernel_id = r->kernels[i].id;
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, k->kernel_id);
        if ((rc = sqlite3_step(st)) != SQLITE_ROW)
            break;
        for (int t = 0; t < 6; t++)
            k->bytes[t] = ex_col_real(st, t);
        k->mean_ns = ex_col_real(st, 6);
        k->regs = ex_col_real(st, 7);
        k->device_id = sqlite3_column_type(st, 8) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 8);
        for (int j = 0; j < HM_N; j++)
            k->m[j] = NAN;
        (void)export_exact_counts(db, k->kernel_id, &k->ex); /* NaN where it fails */
        rc = SQLITE_DONE;
    }
    while (rc == SQLITE_DONE && (rc = sqlite3_step(mt)) == SQLITE_ROW) {
        long long kid = sqlite3_column_int64(mt, 0);
        const char *name = (const char *)sqlite3_column_text(mt, 1);
        long ki = kernel_index(r, kid);
        struct hkern *k = ki >= 0 && (size_t)ki < d->n_kern ? &d->kern[ki] : NULL;
        for (int j = 0; k && name && j < HM_N; j++)
            if (!strcmp(name, hm_names[j]))
                k->m[j] = ex_col_real(mt, 2);
        rc = SQLITE_DONE;
    }
    if (rc != SQLITE_DONE) {
        store_fail(db, rc, "reading kernel hierarchies");
        goto out;
    }
    ret = 0;
out:
    sqlite3_finalize(st);
    sqlite3_finalize(mt);
    return ret;
}

static const char *
copy_class(const char *kind)
{
    if (!kind)
        return "c-other";
    if (!strcmp(kind, "HtoD"))
        return "c-HtoD";
    if (!strcmp(kind, "DtoH"))
        return "c-DtoH";
    if (!strcmp(kind, "DtoD"))
        return "c-DtoD";
    if (!strcmp(kind, "memset"))
        return "c-memset";
    return "c-other";
}

/* The lane of a label (sanitized here), added on first use. */
static size_t
lane_of(struct hdata *d, const char *raw, size_t *cap)
{
    char *label = sanitize_text(raw, 128);
    for (size_t i = 0; i < d->n_lanes; i++)
        if (!strcmp(d->lanes[i], label)) {
            free(label);
            return i;
        }
    d->lanes = grow(d->lanes, d->n_lanes, cap, sizeof(*d->lanes));
    d->lanes[d->n_lanes] = label;
    return d->n_lanes++;
}

static int
load_copies(sqlite3 *db, struct hdata *d)
{
    sqlite3_stmt *st = NULL;
    if (store_prepare(db,
                      "SELECT op, copy_kind, src_kind, dst_kind, bytes, start_ns, end_ns FROM copy"
                      " WHERE start_ns IS NOT NULL AND end_ns >= start_ns ORDER BY start_ns, id",
                      &st))
        return -1;
    int rc;
    size_t cap = 0, lanes_cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        d->cp = grow(d->cp, d->n_cp, &cap, sizeof(*d->cp));
        struct hcopy *c = &d->cp[d->n_cp++];
        const char *op = (const char *)sqlite3_column_text(st, 0);
        const char *kind = (const char *)sqlite3_column_text(st, 1);
        const char *src = (const char *)sqlite3_column_text(st, 2);
        const char *dst = (const char *)sqlite3_column_text(st, 3);
        char lane[256];
        if (op && !strcmp(op, "memset"))
            snprintf(lane, sizeof(lane), "memset %s", dst ? dst : "?");
        else
            snprintf(lane, sizeof(lane), "%s %s \xe2\x86\x92 %s", kind ? kind : "?",
                     src ? src : "?", dst ? dst : "?");
        /* The raw pieces are untrusted: the joined label is sanitized once, per lane. */
        c->lane = lane_of(d, lane, &lanes_cap);
        c->cls = copy_class(op && !strcmp(op, "memset") ? "memset" : kind);
        c->bytes = ex_col_real(st, 4);
        c->start_ns = sqlite3_column_double(st, 5);
        c->end_ns = sqlite3_column_double(st, 6);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return store_fail(db, rc, "reading copies");
    d->t0_ns = store_query_int(db,
                               "SELECT min(t) FROM (SELECT min(start_ns) AS t FROM launch UNION ALL"
                               " SELECT min(start_ns) FROM copy)",
                               0);
    d->t1_ns = store_query_int(db,
                               "SELECT max(t) FROM (SELECT max(end_ns) AS t FROM launch UNION ALL"
                               " SELECT max(end_ns) FROM copy)",
                               0);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Page: head, summary, findings                                        */
/* ------------------------------------------------------------------ */

/* Ours, never untrusted: <style> text is not escaped. */
static const char CSS[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:1100px;"
    "padding:0 1em;color:#1b1f24;background:#fff}"
    "h1{font-size:1.6em}h2{border-bottom:1px solid #d0d7de;padding-bottom:.2em;margin-top:2em}"
    "table{border-collapse:collapse;margin:.5em 0}th,td{border:1px solid #d0d7de;"
    "padding:.2em .5em;text-align:left;vertical-align:top}th{background:#f6f8fa}"
    "code,.mono{font-family:ui-monospace,monospace;font-size:.92em;overflow-wrap:anywhere}"
    ".finding{border:1px solid #d0d7de;border-left:6px solid #8c959f;border-radius:4px;"
    "padding:.4em 1em;margin:1em 0}"
    ".finding.sev-error{border-left-color:#cf222e}.finding.sev-warning{border-left-color:#bf8700}"
    ".finding h3{margin:.3em 0;overflow-wrap:anywhere}.meta{color:#57606a}"
    ".sev{font-weight:bold;text-transform:uppercase}.sev-error .sev{color:#cf222e}"
    ".sev-warning .sev{color:#9a6700}.note{color:#57606a}"
    "details{margin:.4em 0}summary{cursor:pointer;overflow-wrap:anywhere}"
    "svg{display:block;max-width:100%;height:auto;font:11px system-ui,sans-serif}"
    "svg .axis{stroke:#57606a;stroke-width:1}svg .grid{stroke:#eaeef2;stroke-width:1}"
    "svg .roof{stroke-width:2;fill:none}svg .roof-dram{stroke:#0969da}"
    "svg .roof-copy{stroke:#0969da;stroke-dasharray:5 3}svg .roof-l2{stroke:#8250df}"
    "svg .roof-issue{stroke:#1a7f37}svg .label{fill:#1b1f24}svg .small{font-size:10px}"
    "svg .pt{stroke:#fff;stroke-width:1;fill-opacity:.85}svg .pt-l2{fill:none;stroke-width:1.5}"
    "svg .link{stroke:#8c959f;stroke-width:.7}svg .pipe-roof{stroke:#1b1f24;stroke-width:2}"
    ".b-dram{fill:#0969da;stroke:#0969da}.b-l2{fill:#8250df;stroke:#8250df}"
    ".b-l1,.b-shared,.b-registers{fill:#bf3989;stroke:#bf3989}.b-host{fill:#cf222e;stroke:#cf222e}"
    ".b-compute,.b-tensor,.b-fma,.b-alu,.b-fp64{fill:#1a7f37;stroke:#1a7f37}"
    ".b-latency{fill:#bc4c00;stroke:#bc4c00}.b-waiting,.b-unknown{fill:#8c959f;stroke:#8c959f}"
    "svg .tier{fill:#ddf4ff;stroke:#0969da}svg .bar-bg{fill:#eaeef2}svg .bar{fill:#1a7f37}"
    "svg .bar.low{fill:#cf222e}"
    ".c-HtoD{fill:#0969da}.c-DtoH{fill:#bf8700}.c-DtoD{fill:#1a7f37}.c-memset{fill:#8c959f}"
    ".c-other{fill:#8250df}svg .lane{fill:#f6f8fa}"
    ".legend span{display:inline-block;margin-right:1em}.legend i{display:inline-block;"
    "width:.8em;height:.8em;border-radius:50%;margin-right:.3em;vertical-align:middle}"
    ".legend .b-dram{background:#0969da}.legend .b-l2{background:#8250df}"
    ".legend .b-l1,.legend .b-shared,.legend .b-registers{background:#bf3989}"
    ".legend .b-host{background:#cf222e}.legend .b-compute,.legend .b-tensor,.legend .b-fma,"
    ".legend .b-alu,.legend .b-fp64{background:#1a7f37}.legend .b-latency{background:#bc4c00}"
    ".legend .b-waiting,.legend .b-unknown{background:#8c959f}"
    "td.num{text-align:right;white-space:nowrap}";

static void
write_summary(xmlTextWriterPtr w, const struct ex_report *r, const struct hdata *d)
{
    char a[64], b[64], line[512];
    el(w, "section", NULL);
    attr(w, "id", "summary");
    el_text(w, "h2", NULL, "Run");
    el(w, "table", "summary");
    kv_row(w, "program", r->program);
    kv_row(w, "command line", r->argv_shell);
    kv_row(w, "host", r->host);
    kv_row(w, "working directory", r->cwd);
    kv_row(w, "mode", r->mode);
    kv_row(w, "recorded by", r->created_by);
    kv_row(w, "provenance", r->provenance);
    kv_row(w, "gpuhier version", r->tool_version);
    kv_row(w, "rule set", r->ruleset_version);
    if (isfinite(r->run_gpu_ns))
        kv_row(w, "GPU time of the run", ex_fmt_ns(a, sizeof(a), r->run_gpu_ns));
    for (size_t i = 0; i < d->n_dev; i++) {
        const struct hdev *v = &d->dev[i];
        char c[64], e[64];
        snprintf(line, sizeof(line),
                 "%s: %s SMs at %s, DRAM %s by the datasheet, copy bandwidth %s",
                 v->name ? v->name : "?", export_fmt_number(a, sizeof(a), v->sm_count, 4),
                 isfinite(v->sm_clock_khz) ? fmt_si(b, sizeof(b), v->sm_clock_khz * 1e3, "Hz")
                                           : "an unknown clock",
                 fmt_bw(c, sizeof(c), v->peak_bw),
                 isfinite(v->copy_bw) ? fmt_bw(e, sizeof(e), v->copy_bw) : "not measured");
        char k[32];
        snprintf(k, sizeof(k), "device %lld", v->id);
        kv_row(w, k, line);
    }
    snprintf(line, sizeof(line), "%zu kernels, %zu profiled configurations, %zu copies and memsets",
             r->n_kernels, d->n_pt, d->n_cp);
    kv_row(w, "recorded", line);
    snprintf(line, sizeof(line), "%zu shown of %zu in the report", r->n, r->n_total);
    kv_row(w, "findings", line);
    kv_row(w, "reproduce", r->repro);
    end(w);
    end(w);
}

static const char *
kernel_label(const struct ex_finding *f)
{
    return f->display_name     ? f->display_name
           : f->short_name     ? f->short_name
           : f->demangled_name ? f->demangled_name
                               : "?";
}

static void
write_finding(xmlTextWriterPtr w, const struct ex_finding *f)
{
    char a[64], b[64], cls[64];
    snprintf(cls, sizeof(cls), "finding sev-%s", f->severity);
    el(w, "article", cls);
    attrf(w, "id", "finding-%lld", f->id);
    el(w, "h3", NULL);
    textf(w, "%lld. ", f->rank > 0 ? f->rank : 0);
    text(w, f->title ? f->title : f->rule_id);
    if (f->kernel_id >= 0) {
        text(w, " \xe2\x80\x94 ");
        el_text(w, "code", NULL, kernel_label(f));
    }
    end(w);
    el(w, "p", "meta");
    el_text(w, "span", "sev", f->severity);
    textf(w, " \xc2\xb7 tier %s \xc2\xb7 rule ", f->tier ? f->tier : "?");
    el_text(w, "code", NULL, f->rule_id);
    textf(w, " \xc2\xb7 time lost %s", ex_fmt_ns(a, sizeof(a), f->time_lost_ns));
    if (isfinite(f->share_pct))
        textf(w, " (%s %% of the GPU time)", export_fmt_number(b, sizeof(b), f->share_pct, 3));
    if (f->launches >= 0)
        textf(w, " over %lld launch%s", f->launches, f->launches == 1 ? "" : "es");
    if (f->config_id >= 0) {
        char g[64], bl[64];
        textf(w, " \xc2\xb7 grid %s block %s", ex_fmt_dim(g, sizeof(g), f->grid),
              ex_fmt_dim(bl, sizeof(bl), f->block));
    }
    end(w);
    if (f->source_file) {
        el(w, "p", "source");
        text(w, "source: ");
        el(w, "code", NULL);
        text(w, f->source_file);
        if (f->source_line > 0)
            textf(w, ":%lld", f->source_line);
        end(w);
        end(w);
    }
    el_text(w, "p", "message", f->message);
    if (f->n_ev) {
        el(w, "table", "evidence");
        el(w, "tr", NULL);
        el_text(w, "th", NULL, "evidence");
        el_text(w, "th", NULL, "value");
        el_text(w, "th", NULL, "threshold");
        end(w);
        for (size_t j = 0; j < f->n_ev; j++) {
            const struct ex_evidence *e = &f->ev[j];
            char t[64], val[160], thr[96];
            ex_fmt_evidence(val, sizeof(val), e);
            snprintf(thr, sizeof(thr), "%s %s", e->op ? e->op : "",
                     e->has_threshold ? ex_fmt_num(t, sizeof(t), e->threshold) : "");
            el(w, "tr", NULL);
            el_text(w, "td", "mono", e->name);
            el_text(w, "td", NULL, e->text_value ? e->text_value : val);
            el_text(w, "td", NULL, e->has_threshold ? thr : "");
            end(w);
        }
        end(w);
    }
    if (f->remedy) {
        el(w, "p", "remedy");
        el_text(w, "strong", NULL, "Remedy: ");
        text(w, f->remedy);
        end(w);
    }
    if (f->doc_ref) {
        el(w, "p", "ref");
        el_text(w, "strong", NULL, "Reference: ");
        text(w, f->doc_ref);
        end(w);
    }
    if (f->demangled_name) {
        el(w, "details", NULL);
        el_text(w, "summary", NULL, "full kernel name");
        el_text(w, "code", NULL, f->demangled_name);
        end(w);
    }
    end(w);
}

/* The ranked list, one row each, linking to the finding in full below. */
static void
write_findings_table(xmlTextWriterPtr w, const struct ex_report *r)
{
    char a[64], b[64];
    el(w, "table", "ranked");
    el(w, "tr", NULL);
    static const char *head[] = {"rank", "severity", "time lost", "share", "rule", "kernel"};
    for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
        el_text(w, "th", NULL, head[i]);
    end(w);
    for (size_t i = 0; i < r->n; i++) {
        const struct ex_finding *f = &r->f[i];
        char cls[64];
        snprintf(cls, sizeof(cls), "sev-%s", f->severity);
        el(w, "tr", cls);
        el(w, "td", "num");
        el(w, "a", NULL);
        attrf(w, "href", "#finding-%lld", f->id); /* ours: an integer anchor */
        textf(w, "%lld", f->rank > 0 ? f->rank : 0);
        end(w);
        end(w);
        el_text(w, "td", "sev", f->severity);
        el_text(w, "td", "num", ex_fmt_ns(a, sizeof(a), f->time_lost_ns));
        if (isfinite(f->share_pct))
            snprintf(b, sizeof(b), "%s %%", export_fmt_number(a, sizeof(a), f->share_pct, 3));
        else
            snprintf(b, sizeof(b), "unknown");
        el_text(w, "td", "num", b);
        el(w, "td", NULL);
        el_text(w, "code", NULL, f->rule_id);
        end(w);
        el(w, "td", NULL);
        if (f->kernel_id >= 0)
            el_text(w, "code", NULL, kernel_label(f));
        else
            text(w, "(the run)");
        end(w);
        end(w);
    }
    end(w);
}

static void
write_findings(xmlTextWriterPtr w, const struct ex_report *r)
{
    el(w, "section", NULL);
    attr(w, "id", "findings");
    el_text(w, "h2", NULL, "Findings, ranked by estimated time lost");
    if (r->n == 0)
        el_text(w, "p", "note", "No finding.");
    else
        write_findings_table(w, r);
    for (size_t i = 0; i < r->n; i++)
        write_finding(w, &r->f[i]);
    end(w);
}

/* ------------------------------------------------------------------ */
/* Roofline                                                             */
/* ------------------------------------------------------------------ */

struct axes {
    int x0, y0, x1, y1;     /* plot area in pixels: left, top, right, bottom */
    int lx0, lx1, ly0, ly1; /* decades shown */
};

static double
px_x(const struct axes *a, double v)
{
    return a->x0 + (log10(v) - a->lx0) / (a->lx1 - a->lx0) * (a->x1 - a->x0);
}

static double
px_y(const struct axes *a, double v)
{
    return a->y1 - (log10(v) - a->ly0) / (a->ly1 - a->ly0) * (a->y1 - a->y0);
}

static int
placed(const struct hpoint *p)
{
    return isfinite(p->inst) && p->inst > 0 && isfinite(p->dram_bytes) && p->dram_bytes > 0 &&
           isfinite(p->mean_ns) && p->mean_ns > 0;
}

static const char *
why_not_placed(const struct hpoint *p)
{
    if (!(isfinite(p->inst) && p->inst > 0))
        return "no warp instruction count (smsp__inst_executed.sum)";
    if (!(isfinite(p->dram_bytes) && p->dram_bytes > 0))
        return "no DRAM bytes measured";
    return "no traced duration";
}

static const char *
kernel_name(const struct ex_report *r, long long id)
{
    long i = kernel_index(r, id);
    if (i < 0)
        return "?";
    const struct ex_kernel *k = &r->kernels[i];
    return k->display_name ? k->display_name : k->short_name ? k->short_name : k->demangled_name;
}

static const char *
bound_class(const char *tier, char *buf, size_t n)
{
    static const char *known[] = {"dram", "l2",      "l1",     "shared", "registers",
                                  "host", "compute", "tensor", "fma",    "alu",
                                  "fp64", "latency", "waiting"};
    for (size_t i = 0; tier && i < sizeof(known) / sizeof(known[0]); i++)
        if (!strcmp(tier, known[i])) {
            snprintf(buf, n, "b-%s", known[i]);
            return buf;
        }
    snprintf(buf, n, "b-unknown");
    return buf;
}

/* A roof y = bw * x, up to the issue roof (or the plot's top without one). */
static void
roof_line(xmlTextWriterPtr w, const struct axes *a, double bw, double top, const char *cls,
          const char *label, double label_at_x)
{
    double xl = pow(10, a->lx0), xr = pow(10, a->lx1);
    double xend = isfinite(top) ? fmin(xr, top / bw) : xr;
    char c[64];
    snprintf(c, sizeof(c), "roof %s", cls);
    svg_line(w, px_x(a, xl), px_y(a, bw * xl), px_x(a, xend), px_y(a, bw * xend), c);
    double lx = fmax(xl, fmin(label_at_x, xend / 4));
    svg_text(w, px_x(a, lx) + 4, px_y(a, bw * lx) - 6, NULL, "label small", label);
}

static void
write_roofline(xmlTextWriterPtr w, const struct ex_report *r, const struct hdata *d,
               const struct hdev *v)
{
    char a[64], b[64], buf[1024];
    size_t n = 0, n_not = 0;
    double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;
    for (size_t i = 0; i < d->n_pt; i++) {
        const struct hpoint *p = &d->pt[i];
        if (p->device_id != v->id)
            continue;
        if (!placed(p)) {
            n_not++;
            continue;
        }
        n++;
        double x = p->inst / p->dram_bytes, y = p->inst / p->mean_ns * 1e9;
        xmin = fmin(xmin, x);
        xmax = fmax(xmax, x);
        if (isfinite(p->l2_bytes) && p->l2_bytes > 0) {
            xmin = fmin(xmin, p->inst / p->l2_bytes);
            xmax = fmax(xmax, p->inst / p->l2_bytes);
        }
        ymin = fmin(ymin, y);
        ymax = fmax(ymax, isfinite(p->pipe_pct) && p->pipe_pct > 0 ? y * 100 / p->pipe_pct : y);
    }
    el(w, "h3", NULL);
    textf(w, "Device %lld: ", v->id);
    text(w, v->name ? v->name : "?");
    end(w);
    if (n == 0) {
        el_text(w, "p", "note",
                "No profiled configuration on this device has the counters a roofline needs.");
    } else {
        int has_issue = isfinite(v->issue_peak) && v->issue_peak > 0;
        int has_bw = isfinite(v->peak_bw) && v->peak_bw > 0;
        if (has_issue)
            ymax = fmax(ymax, v->issue_peak);
        if (has_issue && has_bw)
            xmax = fmax(xmax, 4 * v->issue_peak / v->peak_bw);
        struct axes ax = {.x0 = 70, .y0 = 20, .x1 = 860, .y1 = 440};
        ax.lx0 = (int)floor(log10(xmin));
        ax.lx1 = (int)ceil(log10(xmax));
        ax.ly0 = (int)floor(log10(ymin));
        ax.ly1 = (int)ceil(log10(ymax) + 0.05);
        if (ax.lx1 - ax.lx0 < 2)
            ax.lx1 = ax.lx0 + 2;
        if (ax.ly1 - ax.ly0 < 2)
            ax.ly0 = ax.ly1 - 2;
        /* A stray point (a near-empty launch) must not squash the others: at most 12 decades. */
        if (ax.lx1 - ax.lx0 > 12)
            ax.lx0 = ax.lx1 - 12;
        if (ax.ly1 - ax.ly0 > 12)
            ax.ly0 = ax.ly1 - 12;
        snprintf(buf, sizeof(buf), "roofline of device %lld: %zu configurations", v->id, n);
        svg_open(w, 900, 490, "roofline", buf);
        attrf(w, "data-points", "%zu", n);
        /* Grid and axes. */
        for (int k = ax.lx0; k <= ax.lx1; k++) {
            double x = px_x(&ax, pow(10, k));
            svg_line(w, x, ax.y0, x, ax.y1, "grid");
            svg_text(w, x, ax.y1 + 16, "middle", "label", fmt_decade(a, sizeof(a), k));
        }
        for (int k = ax.ly0; k <= ax.ly1; k++) {
            double y = px_y(&ax, pow(10, k));
            svg_line(w, ax.x0, y, ax.x1, y, "grid");
            svg_text(w, ax.x0 - 6, y + 4, "end", "label", fmt_decade(a, sizeof(a), k));
        }
        svg_line(w, ax.x0, ax.y1, ax.x1, ax.y1, "axis");
        svg_line(w, ax.x0, ax.y0, ax.x0, ax.y1, "axis");
        svg_text(w, (ax.x0 + ax.x1) / 2.0, ax.y1 + 36, "middle", "label",
                 "warp instructions per DRAM byte (log scale)");
        xmlTextWriterStartElement(w, X("text"));
        attr(w, "transform", "rotate(-90)");
        attrf(w, "x", "%.1f", -(ax.y0 + ax.y1) / 2.0);
        attr(w, "y", "14");
        attr(w, "text-anchor", "middle");
        attr(w, "class", "label");
        text(w, "warp instructions per second (log scale)");
        xmlTextWriterFullEndElement(w);
        /* Roofs, clipped to the plot. */
        xmlTextWriterStartElement(w, X("clipPath"));
        attrf(w, "id", "clip-dev%lld", v->id);
        svg_rect(w, ax.x0, ax.y0, ax.x1 - ax.x0, ax.y1 - ax.y0, NULL);
        svg_end(w);
        svg_end(w);
        xmlTextWriterStartElement(w, X("g"));
        attrf(w, "clip-path", "url(#clip-dev%lld)", v->id);
        double top = has_issue ? v->issue_peak : NAN;
        double xl = pow(10, ax.lx0);
        if (has_bw) {
            snprintf(buf, sizeof(buf), "DRAM %s (datasheet)", fmt_bw(a, sizeof(a), v->peak_bw));
            roof_line(w, &ax, v->peak_bw, top, "roof-dram", buf, xl * 1.5);
            snprintf(buf, sizeof(buf), "L2 %s (the analyzer's: %s \xc3\x97 DRAM)",
                     fmt_bw(a, sizeof(a), HTML_L2_PER_DRAM * v->peak_bw),
                     export_fmt_number(b, sizeof(b), HTML_L2_PER_DRAM, 2));
            roof_line(w, &ax, HTML_L2_PER_DRAM * v->peak_bw, top, "roof-l2", buf, xl * 1.5);
        }
        if (isfinite(v->copy_bw) && v->copy_bw > 0) {
            snprintf(buf, sizeof(buf), "copy %s (measured)", fmt_bw(a, sizeof(a), v->copy_bw));
            roof_line(w, &ax, v->copy_bw, top, "roof-copy", buf, xl * 8);
        }
        if (has_issue) {
            double xs = has_bw ? fmax(xl, top / (HTML_L2_PER_DRAM * v->peak_bw)) : xl;
            svg_line(w, px_x(&ax, xs), px_y(&ax, top), ax.x1, px_y(&ax, top), "roof roof-issue");
        }
        svg_end(w);
        if (has_issue) {
            snprintf(buf, sizeof(buf), "issue %s warp inst/s (4 per SM per cycle, %s SMs)",
                     fmt_si(a, sizeof(a), v->issue_peak, NULL),
                     export_fmt_number(b, sizeof(b), v->sm_count, 4));
            svg_text(w, ax.x1 - 4, px_y(&ax, top) - 6, "end", "label small", buf);
        }
        /* Points: one circle per profiled configuration at its DRAM intensity. */
        xmlTextWriterStartElement(w, X("g"));
        attr(w, "class", "points");
        attrf(w, "clip-path", "url(#clip-dev%lld)", v->id);
        for (size_t i = 0; i < d->n_pt; i++) {
            const struct hpoint *p = &d->pt[i];
            if (p->device_id != v->id || !placed(p))
                continue;
            double x = p->inst / p->dram_bytes, y = p->inst / p->mean_ns * 1e9;
            /* one buffer per number: two arguments that share one buffer print the same text */
            char cls[48], g[64], bl[64], t[64], fr[64], rate[64], ratio[64], tip[EX_NAME_MAX + 512];
            bound_class(p->bound_tier, cls, sizeof(cls));
            snprintf(tip, sizeof(tip),
                     "%s, grid %s block %s: %s warp instructions and %s from DRAM per launch, "
                     "%s; %s per DRAM byte, %s warp inst/s; bound by %s; %s\xc3\x97 its floor",
                     kernel_name(r, p->kernel_id), ex_fmt_dim(g, sizeof(g), p->grid),
                     ex_fmt_dim(bl, sizeof(bl), p->block), fmt_si(a, sizeof(a), p->inst, NULL),
                     fmt_bytes(b, sizeof(b), p->dram_bytes), ex_fmt_ns(t, sizeof(t), p->mean_ns),
                     export_fmt_number(fr, sizeof(fr), x, 3), fmt_si(rate, sizeof(rate), y, NULL),
                     p->bound_tier ? p->bound_tier : "unknown",
                     export_fmt_number(ratio, sizeof(ratio), p->floor_ratio, 3));
            double px = px_x(&ax, x), py = px_y(&ax, y);
            if (isfinite(p->l2_bytes) && p->l2_bytes > 0) {
                double lx = px_x(&ax, p->inst / p->l2_bytes);
                svg_line(w, lx, py, px, py, "link");
                xmlTextWriterStartElement(w, X("rect"));
                attrf(w, "x", "%.1f", lx - 3);
                attrf(w, "y", "%.1f", py - 3);
                attr(w, "width", "6");
                attr(w, "height", "6");
                attrf(w, "class", "pt-l2 %s", cls);
                attrf(w, "data-config", "%lld", p->config_id);
                char l2tip[128];
                snprintf(l2tip, sizeof(l2tip),
                         "L2: %s per launch, %s warp instructions per L2 byte",
                         fmt_bytes(a, sizeof(a), p->l2_bytes),
                         export_fmt_number(b, sizeof(b), p->inst / p->l2_bytes, 3));
                svg_title(w, l2tip);
                svg_end(w);
            }
            if (isfinite(p->pipe_pct) && p->pipe_pct > 0) {
                double ry = px_y(&ax, y * 100 / p->pipe_pct);
                svg_line(w, px - 6, ry, px + 6, ry, "pipe-roof");
                char pt[128];
                snprintf(pt, sizeof(pt), "%s pipe at %s %%: this configuration at its pipe's peak",
                         p->pipe, export_fmt_number(a, sizeof(a), p->pipe_pct, 3));
                xmlTextWriterStartElement(w, X("line"));
                attrf(w, "x1", "%.1f", px);
                attrf(w, "y1", "%.1f", py);
                attrf(w, "x2", "%.1f", px);
                attrf(w, "y2", "%.1f", ry);
                attr(w, "class", "link");
                svg_title(w, pt);
                svg_end(w);
            }
            xmlTextWriterStartElement(w, X("circle"));
            attrf(w, "cx", "%.1f", px);
            attrf(w, "cy", "%.1f", py);
            attr(w, "r", "4.5");
            attrf(w, "class", "pt %s", cls);
            attrf(w, "data-config", "%lld", p->config_id);
            svg_title(w, tip);
            svg_end(w);
        }
        svg_end(w);
        svg_end(w);
        /* Legend: the bound tiers present. */
        el(w, "p", "legend");
        text(w, "Colour: the roof that binds (kernel_summary.bound_tier). ");
        static const char *tiers[] = {"dram", "l2",      "l1",     "shared", "registers",
                                      "host", "compute", "tensor", "fma",    "alu",
                                      "fp64", "latency", "waiting"};
        for (size_t t = 0; t < sizeof(tiers) / sizeof(tiers[0]); t++) {
            int any = 0;
            for (size_t i = 0; i < d->n_pt && !any; i++)
                any = d->pt[i].device_id == v->id && placed(&d->pt[i]) && d->pt[i].bound_tier &&
                      !strcmp(d->pt[i].bound_tier, tiers[t]);
            if (!any)
                continue;
            char cls[48];
            el(w, "span", NULL);
            el(w, "i", bound_class(tiers[t], cls, sizeof(cls)));
            end(w);
            text(w, tiers[t]);
            end(w);
        }
        int other = 0;
        for (size_t i = 0; i < d->n_pt && !other; i++) {
            char cls[48];
            other = d->pt[i].device_id == v->id && placed(&d->pt[i]) &&
                    !strcmp(bound_class(d->pt[i].bound_tier, cls, sizeof(cls)), "b-unknown");
        }
        if (other) {
            el(w, "span", NULL);
            el(w, "i", "b-unknown");
            end(w);
            text(w, "unknown or other");
            end(w);
        }
        text(w, " Squares: the same configurations against their L2 traffic.");
        end(w);
    }
    if (n_not) {
        el(w, "details", NULL);
        el(w, "summary", NULL);
        textf(w, "%zu profiled configuration%s not placed", n_not, n_not == 1 ? "" : "s");
        end(w);
        el(w, "ul", NULL);
        for (size_t i = 0; i < d->n_pt; i++) {
            const struct hpoint *p = &d->pt[i];
            if (p->device_id != v->id || placed(p))
                continue;
            char g[64], bl[64];
            el(w, "li", NULL);
            el_text(w, "code", NULL, kernel_name(r, p->kernel_id));
            textf(w, " grid %s block %s: %s", ex_fmt_dim(g, sizeof(g), p->grid),
                  ex_fmt_dim(bl, sizeof(bl), p->block), why_not_placed(p));
            end(w);
        }
        end(w);
        end(w);
    }
}

static void
write_rooflines(xmlTextWriterPtr w, const struct ex_report *r, const struct hdata *d)
{
    el(w, "section", NULL);
    attr(w, "id", "roofline");
    el_text(w, "h2", NULL, "Roofline");
    el_text(w, "p", NULL,
            "Each circle is one profiled launch configuration: its warp instructions per byte "
            "read and written in DRAM, against the warp instructions it retired per second "
            "(instructions per launch over the mean traced duration). A square on the same line "
            "is the configuration against its L2 traffic. The roofs are the device's: DRAM at "
            "its datasheet bandwidth (and the measured copy bandwidth, dashed, when calibrated), "
            "L2 at the bandwidth the analyzer assumes, and the issue rate of 4 warp instructions "
            "per SM per cycle at the SM clock. A tick above a circle is where the configuration "
            "would be with its busiest pipe (tensor, FMA, ALU, FP64) at its peak, when the "
            "report has all four pipes' counters for it.");
    if (d->n_dev == 0)
        el_text(w, "p", "note", "The report has no device.");
    for (size_t i = 0; i < d->n_dev; i++)
        write_roofline(w, r, d, &d->dev[i]);
    size_t orphans = 0; /* a damaged or foreign report: configurations of no known device */
    for (size_t i = 0; i < d->n_pt; i++) {
        int known = 0;
        for (size_t j = 0; j < d->n_dev && !known; j++)
            known = d->dev[j].id == d->pt[i].device_id;
        orphans += !known;
    }
    if (orphans) {
        el(w, "p", "note");
        textf(w,
              "%zu profiled configuration%s of no device in the report's device table, not "
              "placed.",
              orphans, orphans == 1 ? "" : "s");
        end(w);
    }
    end(w);
}

/* ------------------------------------------------------------------ */
/* Hierarchy per kernel                                                 */
/* ------------------------------------------------------------------ */

static double
nz(double v)
{
    return isnan(v) ? 0 : v;
}

static const struct hdev *
dev_of(const struct hdata *d, long long id)
{
    for (size_t i = 0; i < d->n_dev; i++)
        if (d->dev[i].id == id)
            return &d->dev[i];
    return d->n_dev ? &d->dev[0] : NULL;
}

/*
 * Efficiency and detail per tier, computed as the TUI's kernel view does
 * (tui/view_kernel.c add_pyramid): a fraction in [0, 1] or -1 when not
 * measured.
 */
static void
tier_details(const struct hkern *k, const struct hdev *v, double frac[6], char det[6][96])
{
    const double *m = k->m;
    const struct export_exact *x = &k->ex;
    double b[6];
    memcpy(b, k->bytes, sizeof(b));
    char s1[32], s2[32], s3[32];
    for (int i = 0; i < 6; i++)
        frac[i] = -1;
    /* registers: the share of L1 traffic that is not spill */
    if (!isnan(b[0]) && !isnan(b[2]) && b[2] > 0) {
        frac[0] = 1 - b[0] / b[2];
        if (b[0] > 0)
            snprintf(det[0], 96, "%s spilled; %s regs/thread", fmt_bytes(s1, sizeof(s1), b[0]),
                     export_fmt_number(s2, sizeof(s2), k->regs, 4));
        else
            snprintf(det[0], 96, "no spill; %s regs/thread",
                     export_fmt_number(s2, sizeof(s2), k->regs, 4));
    } else {
        snprintf(det[0], 96, "%s regs/thread", export_fmt_number(s2, sizeof(s2), k->regs, 4));
    }
    /* shared: n-way conflicts, clamped to what 32 banks allow */
    double shw = m[HM_SHLD_WF] + nz(m[HM_SHST_WF]), shc = m[HM_SHLD_CONF] + nz(m[HM_SHST_CONF]);
    double shi = m[HM_SHLD_INST] + nz(m[HM_SHST_INST]);
    if (!isnan(shw) && !isnan(shc) && shw > 0) {
        double raw = shw > shc ? shw / (shw - shc) : INFINITY;
        double ways = raw < 1 ? 1 : raw > 32 ? 32 : raw;
        frac[1] = 1 / ways;
        if (raw > 32)
            snprintf(det[1], 96, "32-way conflicts (the counters say more; 32 banks allow 32)");
        else
            snprintf(det[1], 96, "%s-way conflicts (ideal 1)",
                     export_fmt_number(s1, sizeof(s1), ways, 2));
    } else if (!isnan(export_exact_ways(x))) {
        /* the exact counts, where no conflict counters came (as the kernel view) */
        frac[1] = 1 / export_exact_ways(x);
        snprintf(det[1], 96, "%s-way conflicts (ideal 1, exact)",
                 export_fmt_number(s1, sizeof(s1), export_exact_ways(x), 2));
    } else if (!isnan(shw) && !isnan(shi) && shi > 0) {
        snprintf(det[1], 96, "%s wavefronts/instruction",
                 export_fmt_number(s1, sizeof(s1), shw / shi, 2));
    } else {
        snprintf(det[1], 96, "%s",
                 shi == 0 || export_exact_no_shared(x) ? "no shared-memory access"
                                                       : "not measured");
    }
    /*
     * L1: global load sectors against their ideal, the exact counts first
     * (as the kernel view), else the range profiler's sectors per request
     */
    /* ", hit rate 12.5 %", or nothing unmeasured ("hit rate unknown %" before) */
    char hit[48] = "";
    if (!isnan(m[HM_L1_HIT]))
        snprintf(hit, sizeof(hit), ", hit rate %s %%",
                 export_fmt_number(s3, sizeof(s3), m[HM_L1_HIT], 3));
    double per_load, ideal_per_load;
    if (export_exact_loads(x, &per_load, &ideal_per_load, &frac[2])) {
        snprintf(det[2], 96, "%s sectors/load (ideal %s, exact)%s",
                 export_fmt_number(s1, sizeof(s1), per_load, 3),
                 export_fmt_number(s2, sizeof(s2), ideal_per_load, 3), hit);
    } else if (!isnan(m[HM_GLD_SEC]) && !isnan(m[HM_GLD_REQ]) && m[HM_GLD_REQ] > 0) {
        double spr = m[HM_GLD_SEC] / m[HM_GLD_REQ];
        double ideal = !isnan(m[HM_GLD_BYTES]) && !isnan(m[HM_GLD_INST]) && m[HM_GLD_INST] > 0
                           ? ceil(m[HM_GLD_BYTES] / m[HM_GLD_INST] / 32)
                           : 4;
        if (ideal < 1)
            ideal = 1;
        frac[2] = spr > 0 ? fmin(1, ideal / spr) : -1;
        snprintf(det[2], 96, "%s sectors/request (ideal %s)%s",
                 export_fmt_number(s1, sizeof(s1), spr, 2),
                 export_fmt_number(s2, sizeof(s2), ideal, 2), hit);
    } else {
        snprintf(det[2], 96, "no global loads measured");
    }
    /* L2: hit rate */
    if (!isnan(m[HM_L2_HIT]) && !isnan(m[HM_L2_MISS]) && m[HM_L2_HIT] + m[HM_L2_MISS] > 0) {
        frac[3] = m[HM_L2_HIT] / (m[HM_L2_HIT] + m[HM_L2_MISS]);
        snprintf(det[3], 96, "hit rate %s %%", export_fmt_number(s1, sizeof(s1), 100 * frac[3], 3));
    } else {
        snprintf(det[3], 96, "hit rate not measured");
    }
    /* DRAM: share of the datasheet bandwidth while the kernel runs */
    if (!isnan(b[4]) && k->mean_ns > 0 && v && v->peak_bw > 0) {
        double bw = b[4] / (k->mean_ns * 1e-9);
        frac[4] = fmin(1, bw / v->peak_bw);
        snprintf(det[4], 96, "%s, %s %% of the datasheet peak", fmt_bw(s1, sizeof(s1), bw),
                 export_fmt_number(s2, sizeof(s2), 100 * bw / v->peak_bw, 3));
    } else {
        snprintf(det[4], 96, "not measured");
    }
    /* host link: share of the PCIe link (per-lane rates of the PCIe generations, as the TUI) */
    static const double per_lane[] = {0, 0.25e9, 0.5e9, 0.985e9, 1.969e9, 3.938e9, 7.877e9};
    double hpeak = v && v->pcie_gen >= 1 && v->pcie_gen <= 6 && v->pcie_width > 0
                       ? per_lane[(int)v->pcie_gen] * v->pcie_width
                       : NAN;
    if (!isnan(b[5]) && b[5] > 0 && k->mean_ns > 0 && !isnan(hpeak)) {
        double bw = b[5] / (k->mean_ns * 1e-9);
        frac[5] = fmin(1, bw / hpeak);
        snprintf(det[5], 96, "%s, %s %% of the link", fmt_bw(s1, sizeof(s1), bw),
                 export_fmt_number(s2, sizeof(s2), 100 * bw / hpeak, 3));
    } else {
        snprintf(det[5], 96, "%s",
                 isnan(b[5]) ? "not measured"
                 : b[5] == 0 ? "no host-memory access"
                             : "link speed unknown");
    }
}

static void
write_kernel(xmlTextWriterPtr w, const struct ex_report *r, const struct hdata *d, size_t i,
             int open)
{
    static const char *labels[6] = {"registers", "shared", "L1", "L2", "DRAM", "host link"};
    const struct ex_kernel *k = &r->kernels[i];
    const struct hkern *h = &d->kern[i];
    char a[64], b[64];
    el(w, "details", "kernel");
    if (open)
        attr(w, "open", "open");
    attrf(w, "id", "kernel-%lld", k->id);
    el(w, "summary", NULL);
    el_text(w, "code", NULL, k->display_name ? k->display_name : k->demangled_name);
    long long nl = k->launches > 0 ? k->launches : 0;
    if (isfinite(k->total_ns))
        textf(w, " \xe2\x80\x94 %s over %lld launch%s", ex_fmt_ns(a, sizeof(a), k->total_ns), nl,
              nl == 1 ? "" : "es");
    else /* every launch ran instrumented: a patched run keeps no time */
        textf(w, " \xe2\x80\x94 no traced time over %lld launch%s", nl, nl == 1 ? "" : "es");
    if (isfinite(k->share_pct))
        textf(w, " (%s %%)", export_fmt_number(b, sizeof(b), k->share_pct, 3));
    if (k->bound_tier)
        textf(w, ", bound by %s", k->bound_tier);
    if (isfinite(k->floor_ratio))
        textf(w, ", %s\xc3\x97 its floor", export_fmt_number(b, sizeof(b), k->floor_ratio, 3));
    end(w);
    if (k->source_file) {
        el(w, "p", "source");
        text(w, "source: ");
        el(w, "code", NULL);
        text(w, k->source_file);
        if (k->source_line > 0)
            textf(w, ":%lld", k->source_line);
        end(w);
        end(w);
    }
    double frac[6];
    char det[6][96];
    tier_details(h, dev_of(d, h->device_id), frac, det);
    char label[128];
    snprintf(label, sizeof(label), "memory hierarchy of kernel %lld", k->id);
    const int row = 30, top = 22;
    svg_open(w, 900, top + 6 * row + 8, "hierarchy", label);
    svg_text(w, 120, 14, "middle", "label", "tier");
    svg_text(w, 330, 14, "end", "label", "traffic/launch");
    svg_text(w, 350, 14, NULL, "label", "efficiency");
    for (int t = 0; t < 6; t++) {
        double y = top + t * row;
        /* The pyramid: each tier's box wider than the one above, centred. */
        double bw = 90 + 26 * t, bx = 120 - bw / 2;
        xmlTextWriterStartElement(w, X("g"));
        attr(w, "class", "tier-row");
        xmlTextWriterStartElement(w, X("path"));
        attrf(w, "d", "M%.1f %.1fH%.1fL%.1f %.1fH%.1fZ", bx + 6, y + 2, bx + bw - 6, bx + bw,
              y + row - 2, bx);
        attr(w, "class", "tier");
        svg_end(w);
        svg_text(w, 120, y + row / 2.0 + 4, "middle", "label", labels[t]);
        svg_text(w, 330, y + row / 2.0 + 4, "end", "label",
                 isnan(h->bytes[t]) ? "not measured" : fmt_bytes(a, sizeof(a), h->bytes[t]));
        svg_rect(w, 350, y + 8, 120, row - 16, "bar-bg");
        svg_end(w);
        if (frac[t] >= 0) {
            svg_rect(w, 350, y + 8, 120 * fmin(1, frac[t]), row - 16,
                     frac[t] < 0.5 ? "bar low" : "bar");
            char tip[64];
            snprintf(tip, sizeof(tip), "%s %% efficient",
                     export_fmt_number(b, sizeof(b), 100 * frac[t], 3));
            svg_title(w, tip);
            svg_end(w);
        }
        svg_text(w, 480, y + row / 2.0 + 4, NULL, "label", det[t]);
        svg_end(w);
    }
    svg_end(w);
    end(w);
}

static void
write_hierarchies(xmlTextWriterPtr w, const struct ex_report *r, const struct hdata *d)
{
    el(w, "section", NULL);
    attr(w, "id", "kernels");
    el_text(w, "h2", NULL, "Kernels and their memory hierarchy");
    el_text(w, "p", NULL,
            "Per kernel, the bytes each tier moved per launch (the analyzer's kernel summary) "
            "and how well it used them, as the TUI's kernel view shows them: registers by the "
            "share of L1 traffic that is not spill, shared memory by bank conflicts, L1 by "
            "sectors per global load request against the ideal and its hit rate, L2 by its hit "
            "rate, DRAM and the host link by their share of the peak bandwidth.");
    if (r->n_kernels == 0)
        el_text(w, "p", "note", "The report has no kernel.");
    /* Most GPU time first; the three first open. */
    size_t n = r->n_kernels < d->n_kern ? r->n_kernels : d->n_kern;
    size_t *order = calloc(n ? n : 1, sizeof(*order));
    if (!order)
        abort();
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        double t = nz(r->kernels[i].total_ns);
        for (; j > 0 && nz(r->kernels[order[j - 1]].total_ns) < t; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    for (size_t i = 0; i < n; i++)
        write_kernel(w, r, d, order[i], i < 3);
    free(order);
    end(w);
}

/* ------------------------------------------------------------------ */
/* Copies timeline                                                      */
/* ------------------------------------------------------------------ */

static void
write_copies(xmlTextWriterPtr w, const struct hdata *d)
{
    char a[64], b[64], c[64];
    el(w, "section", NULL);
    attr(w, "id", "copies");
    el_text(w, "h2", NULL, "Copies and memsets over time");
    if (d->n_cp == 0) {
        el_text(w, "p", "note", "The report has no copy or memset.");
        end(w);
        return;
    }
    /* Lanes: one per (direction, source and destination memory kinds), by first use. */
    size_t nl = d->n_lanes;
    double t0 = d->t0_ns, t1 = d->t1_ns;
    if (!(t1 > t0)) {
        t0 = d->cp[0].start_ns;
        t1 = t0 + 1;
        for (size_t i = 0; i < d->n_cp; i++)
            t1 = d->cp[i].end_ns > t1 ? d->cp[i].end_ns : t1;
    }
    double span = t1 - t0;
    if (!(span > 0) || !isfinite(span)) /* t0 + 1 rounds to t0 past 2^53 */
        span = 1;
    el(w, "p", NULL);
    textf(w,
          "Each lane is a direction and its memory kinds; each bar a copy, or copies less than "
          "a pixel apart, over the %s from the first kernel or copy to the last.",
          ex_fmt_ns(a, sizeof(a), span));
    end(w);
    const int x0 = 220, lane_h = 26, top = 10;
    int height = top + (int)nl * lane_h + 34;
    snprintf(c, sizeof(c), "copies timeline: %zu lanes", nl);
    svg_open(w, x0 + HTML_TIMELINE_W + 20, height, "timeline", c);
    attrf(w, "data-copies", "%zu", d->n_cp);
    for (size_t l = 0; l < nl; l++) {
        double y = top + l * lane_h;
        svg_rect(w, x0, y + 2, HTML_TIMELINE_W, lane_h - 4, "lane");
        svg_end(w);
        svg_text(w, x0 - 8, y + lane_h / 2.0 + 4, "end", "label", d->lanes[l]);
    }
    /* Bars, merged per lane when they touch at this scale (a bounded number of rectangles). */
    for (size_t l = 0; l < nl; l++) {
        double y = top + l * lane_h;
        size_t i = 0;
        while (i < d->n_cp) {
            if (d->cp[i].lane != l) {
                i++;
                continue;
            }
            double xa = x0 + (d->cp[i].start_ns - t0) / span * HTML_TIMELINE_W;
            double xb = x0 + (d->cp[i].end_ns - t0) / span * HTML_TIMELINE_W;
            double s = d->cp[i].start_ns, e = d->cp[i].end_ns;
            double bytes = nz(d->cp[i].bytes);
            size_t n = 1, j = i + 1;
            for (; j < d->n_cp; j++) {
                if (d->cp[j].lane != l)
                    continue;
                double ja = x0 + (d->cp[j].start_ns - t0) / span * HTML_TIMELINE_W;
                if (ja > fmax(xb, xa + 1) + 0.5)
                    break;
                xb = fmax(xb, x0 + (d->cp[j].end_ns - t0) / span * HTML_TIMELINE_W);
                e = d->cp[j].end_ns > e ? d->cp[j].end_ns : e;
                bytes += nz(d->cp[j].bytes);
                n++;
            }
            svg_rect(w, xa, y + 5, fmax(1, xb - xa), lane_h - 10, d->cp[i].cls);
            /*
             * Its duration (or the span of the merged ones) and its start:
             * both ends in 3 significant digits read "from 7.63 s to 7.63 s"
             * for 155 us of copies.
             */
            char tip[256];
            if (n == 1)
                snprintf(tip, sizeof(tip), "1 operation, %s, %s at %s",
                         fmt_bytes(a, sizeof(a), bytes), ex_fmt_ns(b, sizeof(b), e - s),
                         ex_fmt_ns(c, sizeof(c), s - t0));
            else
                snprintf(tip, sizeof(tip), "%zu operations, %s, within %s from %s", n,
                         fmt_bytes(a, sizeof(a), bytes), ex_fmt_ns(b, sizeof(b), e - s),
                         ex_fmt_ns(c, sizeof(c), s - t0));
            svg_title(w, tip);
            svg_end(w);
            i = j;
        }
    }
    /* Time axis: five ticks. */
    double ya = top + nl * lane_h + 4;
    svg_line(w, x0, ya, x0 + HTML_TIMELINE_W, ya, "axis");
    for (int t = 0; t <= 4; t++) {
        double x = x0 + t * HTML_TIMELINE_W / 4.0;
        svg_line(w, x, ya, x, ya + 4, "axis");
        svg_text(w, x, ya + 18,
                 t == 0   ? "start"
                 : t == 4 ? "end"
                          : "middle",
                 "label", ex_fmt_ns(a, sizeof(a), span * t / 4));
    }
    svg_end(w);
    end(w);
}

/* ------------------------------------------------------------------ */
/* Entry point                                                          */
/* ------------------------------------------------------------------ */

int
ex_write_html(const struct ex_report *r, const struct export_opts *o, FILE *out)
{
    (void)o;
    struct hdata d = {0};
    int ret = -1;
    if (!r->db)
        return store_set_error("the HTML page needs the report");
    if (load_devices(r->db, &d) || load_points(r->db, r, &d) || load_hierarchy(r->db, r, &d) ||
        load_copies(r->db, &d)) {
        hdata_release(&d);
        return -1;
    }
    xmlOutputBufferPtr buf = xmlOutputBufferCreateFile(out, NULL);
    xmlTextWriterPtr w = buf ? xmlNewTextWriter(buf) : NULL;
    if (!w) {
        if (buf)
            xmlOutputBufferClose(buf);
        hdata_release(&d);
        return store_set_error("cannot start the HTML writer");
    }
    xmlTextWriterWriteRaw(w, X("<!DOCTYPE html>\n"));
    el(w, "html", NULL);
    attr(w, "lang", "en");
    el(w, "head", NULL);
    el(w, "meta", NULL);
    attr(w, "charset", "utf-8");
    xmlTextWriterEndElement(w); /* void element: <meta .../> is valid HTML */
    el(w, "meta", NULL);
    attr(w, "name", "viewport");
    attr(w, "content", "width=device-width, initial-scale=1");
    xmlTextWriterEndElement(w);
    /* Nothing may load: no script, no network, not even an image or a font. */
    el(w, "meta", NULL);
    attr(w, "http-equiv", "Content-Security-Policy");
    attr(w, "content", "default-src 'none'; style-src 'unsafe-inline'");
    xmlTextWriterEndElement(w);
    el(w, "meta", NULL);
    attr(w, "name", "generator");
    attr(w, "content", "gpuhier export --format html");
    xmlTextWriterEndElement(w);
    el(w, "title", NULL);
    text(w, "gpuhier report");
    if (r->program) {
        text(w, ": ");
        text(w, r->program);
    }
    end(w);
    el(w, "style", NULL);
    xmlTextWriterWriteRaw(w, X(CSS));
    end(w);
    end(w); /* head */
    el(w, "body", NULL);
    el(w, "h1", NULL);
    text(w, "gpuhier report");
    if (r->program) {
        text(w, ": ");
        el_text(w, "code", NULL, r->program);
    }
    end(w);
    el(w, "p", "note");
    text(w, "Contents: ");
    static const char *toc[][2] = {{"#summary", "run"},
                                   {"#roofline", "roofline"},
                                   {"#findings", "findings"},
                                   {"#kernels", "kernels"},
                                   {"#copies", "copies"}};
    for (size_t i = 0; i < sizeof(toc) / sizeof(toc[0]); i++) {
        if (i)
            text(w, " \xc2\xb7 ");
        el(w, "a", NULL);
        attr(w, "href", toc[i][0]); /* ours: in-page anchors only */
        text(w, toc[i][1]);
        end(w);
    }
    end(w);
    write_summary(w, r, &d);
    write_rooflines(w, r, &d);
    write_findings(w, r);
    write_hierarchies(w, r, &d);
    write_copies(w, &d);
    el(w, "footer", "note");
    text(w, "Written by gpuhier export --format html. The page is self-contained: it loads "
            "nothing and runs no script.");
    end(w);
    end(w); /* body */
    end(w); /* html */
    xmlTextWriterWriteRaw(w, X("\n"));
    int rc = xmlTextWriterFlush(w);
    xmlFreeTextWriter(w);
    if (rc < 0 || ferror(out))
        store_set_error("cannot write the HTML page");
    else
        ret = 0;
    hdata_release(&d);
    return ret;
}
