// SPDX-License-Identifier: MIT
//
// libgh_pmprobe.so: a bench probe for issue 18's open cases (hardware
// counters on graph kernel nodes, and hardware counters that cost no
// serialized range per launch). CUPTI's PM sampling API
// (cupti_pmsampling.h) samples hardware counters on a fixed period over the
// whole run, with no range, no replay and no serialization, on every kernel
// whatever launched it. Whether its samples, attributed to kernels by the
// kernels' activity records, give per-kernel values close to Nsight
// Compute's, at what cost, and on which metrics, is what this probe is for
// (docs/pmprobe.md).
//
// Loaded with CUDA_INJECTION64_PATH (the driver calls InitializeInjection
// inside cuInit). At the first kernel or graph launch (PMPROBE_START=context:
// at the first context's creation) it enables PM sampling on device 0
// with the metrics of PMPROBE_METRICS that the chip's PM sampling accepts in
// one pass, starts it, and decodes the hardware buffer on its own thread
// every PMPROBE_DECODE_MS; kernel activity records (CONCURRENT_KERNEL) give
// every kernel's interval. At the context's destruction or the process's
// exit it stops and writes, into PMPROBE_OUT:
//   pm-PID-samples.tsv  start_ns end_ns and one column per metric
//   pm-PID-kernels.tsv  start_ns end_ns correlation graph_id graph_node_id stream grid block name
//   pm-PID-meta.tsv     key value: chip, interval, metrics kept and refused,
//                       samples, overflow, the time each CUPTI call took,
//                       clock pairs, errors
//   pm-PID-base-metrics.tsv  the base metrics PM sampling lists (type, name)
// Plain tab-separated text (no JSON writer needed; names are mangled, no
// tabs). It never writes to stdout and never stops the host: a failed call
// is recorded and the probe goes quiet. Not part of gpuhier: it links CUPTI
// directly. bench/pmprobe/attribute.py turns the files into per-kernel
// values. Attached to gpuhier's collector instead (GPUHIER_DIAG_PMPROBE=PATH,
// collector/diagprobe.c), the collector starts and stops it
// (pmprobe_attached_start/stop) and the kernels' times are the report's.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <errno.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PM_EXPORT __attribute__((visibility("default")))

#define PM_MAX_METRICS 48
#define PM_MAX_META 256
#define PM_BUF_BYTES (8u << 20)

/*
 * The default candidates: what the rules read from the range profiler (DRAM
 * bytes, L2 and L1 hits, L2->L1 sectors, active cycles, warps for the
 * occupancy, the tensor pipe for the compute roof, PCIe bytes), in the names
 * the GH100 list gives for its PM sampling ("TriageCompute") configuration,
 * and the plain names the range profiler uses, to learn which PM sampling
 * takes. Metrics it refuses are listed in the meta file, never fatal.
 */
static const char *const default_metrics[] = {
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "dramc__read_throughput.avg.pct_of_peak_sustained_elapsed",
    "dramc__write_throughput.avg.pct_of_peak_sustained_elapsed",
    "lts__t_sectors.sum",
    "lts__t_sectors_lookup_hit.sum",
    "lts__average_t_sector_hit_rate_realtime.ratio",
    /* L2 hits under the names GH100's PM sampling lists (pm-PID-base-metrics.tsv of the H100,
     * 2026-12-05): no lts__ hit counter, hit ratios, one under the TriageCompute set's prefix */
    "LTS.TriageCompute.lts__average_t_sector_hit_rate_realtime.ratio",
    "lts__average_t_sector_aperture_device_lookup_hit.ratio",
    "lts__average_t_sector_aperture_device_op_read_lookup_hit.ratio",
    "lts__t_sector_throughput.avg.pct_of_peak_sustained_elapsed",
    "l1tex__t_sectors.sum",
    "l1tex__t_sectors_lookup_hit.sum",
    "l1tex__m_xbar2l1tex_read_sectors_realtime.sum",
    "sm__cycles_active.sum",
    "tpc__warps_active_realtime.sum",
    /* the same two under the names the H100's list gives (refused above without a prefix) and
     * the plain warps counter, for achieved occupancy */
    "TPC.TriageCompute.tpc__warps_active_realtime.sum",
    "SM_A.TriageCompute.l1tex__m_xbar2l1tex_read_sectors_realtime.sum",
    "sm__warps_active_realtime.sum",
    "sm__inst_executed_realtime.sum",
    "sm__pipe_tensor_cycles_active_realtime.sum",
    "gr__cycles_active.sum",
    "pcie__read_bytes.sum",
    "pcie__write_bytes.sum",
};

struct kernel_rec {
    uint64_t start, end;
    uint32_t corr, graph_id, stream;
    uint64_t node;
    int32_t grid[3], block[3];
    char *name;
};

static struct {
    char out_dir[512];
    uint64_t interval_ns;
    size_t hw_buf_bytes;
    uint32_t max_samples;
    unsigned decode_ms;
    const char *want[PM_MAX_METRICS];
    size_t nwant;
    /* set up */
    CUpti_SubscriberHandle sub;
    CUpti_Profiler_Host_Object *host;
    CUpti_PmSampling_Object *pm;
    const char *chip;
    const char *metrics[PM_MAX_METRICS];
    size_t nmetrics;
    uint8_t *image;
    size_t image_size;
    size_t done_in_image; /* samples of the image already evaluated */
    long image_inits;     /* the counter data image initialized (again at every fill) */
    double image_init_ms; /* their time */
    int started, stopped;
    int overflow;
    long restarts;     /* the hardware buffer filled: Stop, Start (samples lost in between) */
    double restart_ms; /* their time */
    pthread_t decoder;
    int decoder_on;
    pthread_mutex_t lock; /* the PM object and the sample file */
    FILE *samples;
    long nsamples;
    double decode_ms_total, eval_ms_total;
    long decodes;
    /* kernels */
    pthread_mutex_t klock;
    struct kernel_rec *k;
    size_t nk, capk;
    long records_dropped;
    /* meta lines */
    char *meta[PM_MAX_META];
    size_t nmeta;
    int at_context;  /* PMPROBE_START=context */
    int attached;    /* started by the collector (pmprobe_attached_start): no activity of its own */
    int evaluate;    /* PMPROBE_EVALUATE (default 1) */
    atomic_int quit; /* the decoder thread stops (pm_stop) */
    unsigned window_ms;      /* PMPROBE_WINDOW_MS: sampling ends that long after Start (0: never) */
    int window_disable;      /* PMPROBE_WINDOW_DISABLE=1: and Disable then */
    atomic_int window_ended; /* the decoder ended the window */
    int disabled;            /* Disable called */
    int ending;              /* pm_end() began: a full buffer is not restarted */
    unsigned drain_ms;       /* PMPROBE_DRAIN_MS: the longest the last decode may take */
    long drain_cut;          /* full images left undecoded at the end (the drain's limit) */
} P = {.lock = PTHREAD_MUTEX_INITIALIZER, .klock = PTHREAD_MUTEX_INITIALIZER};

static double
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A meta line "key\tvalue" (kept to the end; at most PM_MAX_META). */
static void
meta(const char *key, const char *fmt, ...)
{
    char v[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v, sizeof(v), fmt, ap);
    va_end(ap);
    for (char *c = v; *c; c++)
        if (*c == '\t' || *c == '\n')
            *c = ' ';
    pthread_mutex_lock(&P.lock);
    if (P.nmeta < PM_MAX_META) {
        char *line = NULL;
        if (asprintf(&line, "%s\t%s", key, v) >= 0)
            P.meta[P.nmeta++] = line;
    }
    pthread_mutex_unlock(&P.lock);
}

/* A CUPTI call's result: 0 on success, else the error is recorded under `what`. */
static int
ck(const char *what, CUptiResult rc, double t0)
{
    double ms = now_ms() - t0;
    if (rc == CUPTI_SUCCESS) {
        meta("call_ms", "%s %.3f", what, ms);
        return 0;
    }
    const char *s = NULL;
    cuptiGetResultString(rc, &s);
    meta("error", "%s: %s (%d) after %.3f ms", what, s ? s : "?", (int)rc, ms);
    return -1;
}

static void
read_env(void)
{
    const char *o = getenv("PMPROBE_OUT");
    snprintf(P.out_dir, sizeof(P.out_dir), "%s", o && *o ? o : ".");
    const char *v = getenv("PMPROBE_INTERVAL_NS");
    P.interval_ns = v ? strtoull(v, NULL, 10) : 20000;
    if (P.interval_ns < 1000)
        P.interval_ns = 1000;
    v = getenv("PMPROBE_HWBUF_MB");
    P.hw_buf_bytes = (size_t)(v ? strtoul(v, NULL, 10) : 512) << 20;
    v = getenv("PMPROBE_MAX_SAMPLES");
    P.max_samples = v ? (uint32_t)strtoul(v, NULL, 10) : 5000;
    if (P.max_samples < 16)
        P.max_samples = 16;
    v = getenv("PMPROBE_DECODE_MS");
    P.decode_ms = v ? (unsigned)strtoul(v, NULL, 10) : 100;
    if (P.decode_ms < 1)
        P.decode_ms = 1;
    v = getenv("PMPROBE_DRAIN_MS");
    P.drain_ms = v ? (unsigned)strtoul(v, NULL, 10) : 5000;
    v = getenv("PMPROBE_WINDOW_MS");
    P.window_ms = v ? (unsigned)strtoul(v, NULL, 10) : 0;
    v = getenv("PMPROBE_WINDOW_DISABLE");
    P.window_disable = v && strcmp(v, "1") == 0;
    if (P.window_ms)
        meta("window", "%u ms, then Stop%s", P.window_ms, P.window_disable ? " and Disable" : "");
    v = getenv("PMPROBE_EVALUATE");
    P.evaluate = !(v && strcmp(v, "0") == 0);
    v = getenv("PMPROBE_START");
    P.at_context = v && strcmp(v, "context") == 0;
    v = getenv("PMPROBE_METRICS");
    if (v && *v) {
        char *copy = strdup(v);
        for (char *save = NULL, *t = strtok_r(copy, ",", &save); t && P.nwant < PM_MAX_METRICS;
             t = strtok_r(NULL, ",", &save))
            P.want[P.nwant++] = t; /* copy kept to the end */
    } else {
        for (size_t i = 0; i < sizeof(default_metrics) / sizeof(*default_metrics); i++)
            P.want[P.nwant++] = default_metrics[i];
    }
}

/* ---- the host object and the config image -------------------------------- */

static void
host_free(void)
{
    if (!P.host)
        return;
    CUpti_Profiler_Host_Deinitialize_Params d = {
        CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
    d.pHostObject = P.host;
    cuptiProfilerHostDeinitialize(&d);
    P.host = NULL;
}

static int
host_new(const uint8_t *avail)
{
    CUpti_Profiler_Host_Initialize_Params h = {CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    h.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
    h.pChipName = P.chip;
    h.pCounterAvailabilityImage = avail;
    if (cuptiProfilerHostInitialize(&h) != CUPTI_SUCCESS)
        return -1;
    P.host = h.pHostObject;
    return 0;
}

/* Adds the metrics kept so far and then `extra` (NULL: none); the config's passes, or -1. */
static int
host_config(const uint8_t *avail, const char *extra, uint8_t **image, size_t *size)
{
    host_free();
    if (host_new(avail) != 0)
        return -1;
    const char *names[PM_MAX_METRICS + 1];
    size_t n = 0;
    for (size_t i = 0; i < P.nmetrics; i++)
        names[n++] = P.metrics[i];
    if (extra)
        names[n++] = extra;
    CUpti_Profiler_Host_ConfigAddMetrics_Params a = {
        CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    a.pHostObject = P.host;
    a.ppMetricNames = names;
    a.numMetrics = n;
    if (n && cuptiProfilerHostConfigAddMetrics(&a) != CUPTI_SUCCESS)
        return -1;
    CUpti_Profiler_Host_GetConfigImageSize_Params s = {
        CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    s.pHostObject = P.host;
    if (cuptiProfilerHostGetConfigImageSize(&s) != CUPTI_SUCCESS)
        return -1;
    uint8_t *img = malloc(s.configImageSize);
    if (!img)
        return -1;
    CUpti_Profiler_Host_GetConfigImage_Params g = {
        CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    g.pHostObject = P.host;
    g.configImageSize = s.configImageSize;
    g.pConfigImage = img;
    if (cuptiProfilerHostGetConfigImage(&g) != CUPTI_SUCCESS) {
        free(img);
        return -1;
    }
    CUpti_Profiler_Host_GetNumOfPasses_Params p = {
        CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
    p.configImageSize = s.configImageSize;
    p.pConfigImage = img;
    if (cuptiProfilerHostGetNumOfPasses(&p) != CUPTI_SUCCESS) {
        free(img);
        return -1;
    }
    *image = img;
    *size = s.configImageSize;
    return (int)p.numOfPasses;
}

/* Writes the base metrics the PM sampling host object lists into pm-PID-base-metrics.tsv (type, name). */
static void
list_base_metrics(void)
{
    char path[640];
    snprintf(path, sizeof(path), "%s/pm-%ld-base-metrics.tsv", P.out_dir, (long)getpid());
    FILE *f = fopen(path, "w");
    if (!f) {
        meta("error", "cannot write %s: %s", path, strerror(errno));
        return;
    }
    static const struct {
        CUpti_MetricType type;
        const char *name;
    } types[] = {{CUPTI_METRIC_TYPE_COUNTER, "counter"},
                 {CUPTI_METRIC_TYPE_RATIO, "ratio"},
                 {CUPTI_METRIC_TYPE_THROUGHPUT, "throughput"}};
    for (size_t t = 0; t < sizeof(types) / sizeof(*types); t++) {
        CUpti_Profiler_Host_GetBaseMetrics_Params b = {
            CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE};
        b.pHostObject = P.host;
        b.metricType = types[t].type;
        if (cuptiProfilerHostGetBaseMetrics(&b) != CUPTI_SUCCESS) {
            meta("base_metrics", "%s: refused", types[t].name);
            continue;
        }
        for (size_t i = 0; i < b.numMetrics; i++)
            fprintf(f, "%s\t%s\n", types[t].name, b.ppMetricNames[i]);
        meta("base_metrics", "%s: %zu", types[t].name, b.numMetrics);
    }
    fclose(f);
}

/*
 * The metrics kept: each candidate in turn, kept when the host object takes
 * it and the config stays one pass (PM sampling has no replay).
 */
static int
choose_metrics(const uint8_t *avail, uint8_t **image, size_t *size)
{
    double t0 = now_ms();
    for (size_t i = 0; i < P.nwant; i++) {
        uint8_t *img = NULL;
        size_t sz = 0;
        int passes = host_config(avail, P.want[i], &img, &sz);
        free(img);
        if (passes == 1)
            P.metrics[P.nmetrics++] = P.want[i];
        else
            meta("metric_refused", "%s %s", P.want[i],
                 passes < 0 ? "not taken" : "needs more than one pass");
    }
    if (!P.nmetrics) {
        meta("error", "no metric taken by PM sampling");
        return -1;
    }
    int passes = host_config(avail, NULL, image, size);
    meta("call_ms", "choose_metrics %.3f", now_ms() - t0);
    for (size_t i = 0; i < P.nmetrics; i++)
        meta("metric", "%s", P.metrics[i]);
    return passes == 1 ? 0 : -1;
}

/* ---- sampling -------------------------------------------------------------- */

static int
image_init(void)
{
    CUpti_PmSampling_CounterDataImage_Initialize_Params in = {
        CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    in.pPmSamplingObject = P.pm;
    in.counterDataSize = P.image_size;
    in.pCounterData = P.image;
    P.done_in_image = 0;
    P.image_inits++;
    double t0 = now_ms();
    CUptiResult rc = cuptiPmSamplingCounterDataImageInitialize(&in);
    P.image_init_ms += now_ms() - t0;
    /* one call_ms line, the first: the image is initialized again at every fill (their total
     * is image_inits' line) */
    if (P.image_inits > 1 && rc == CUPTI_SUCCESS)
        return 0;
    return ck("cuptiPmSamplingCounterDataImageInitialize", rc, t0);
}

/* Evaluates the image's completed samples not yet written (lock held). */
static void
evaluate_completed(void)
{
    CUpti_PmSampling_GetCounterDataInfo_Params info = {
        CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE};
    info.pCounterDataImage = P.image;
    info.counterDataImageSize = P.image_size;
    if (cuptiPmSamplingGetCounterDataInfo(&info) != CUPTI_SUCCESS)
        return;
    double t0 = now_ms();
    double values[PM_MAX_METRICS];
    if (!P.evaluate) { /* PMPROBE_EVALUATE=0: counted, not evaluated (what decoding alone costs) */
        P.nsamples += (long)(info.numCompletedSamples - P.done_in_image);
        P.done_in_image = info.numCompletedSamples;
        return;
    }
    for (size_t s = P.done_in_image; s < info.numCompletedSamples; s++) {
        CUpti_PmSampling_CounterData_GetSampleInfo_Params si = {
            CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE};
        si.pPmSamplingObject = P.pm;
        si.pCounterDataImage = P.image;
        si.counterDataImageSize = P.image_size;
        si.sampleIndex = s;
        if (cuptiPmSamplingCounterDataGetSampleInfo(&si) != CUPTI_SUCCESS)
            continue;
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
            CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
        ev.pHostObject = P.host;
        ev.pCounterDataImage = P.image;
        ev.counterDataImageSize = P.image_size;
        ev.rangeIndex = s;
        ev.ppMetricNames = P.metrics;
        ev.numMetrics = P.nmetrics;
        ev.pMetricValues = values;
        if (cuptiProfilerHostEvaluateToGpuValues(&ev) != CUPTI_SUCCESS)
            continue;
        if (P.samples) {
            fprintf(P.samples, "%llu\t%llu", (unsigned long long)si.startTimestamp,
                    (unsigned long long)si.endTimestamp);
            for (size_t m = 0; m < P.nmetrics; m++)
                fprintf(P.samples, "\t%.17g", values[m]);
            fputc('\n', P.samples);
        }
        P.nsamples++;
    }
    P.done_in_image = info.numCompletedSamples;
    P.eval_ms_total += now_ms() - t0;
}

/* Stop, a fresh image, Start (lock not held): after the hardware buffer overflowed. */
static void
restart(void)
{
    CUpti_PmSampling_Stop_Params sp = {CUpti_PmSampling_Stop_Params_STRUCT_SIZE};
    sp.pPmSamplingObject = P.pm;
    double t0 = now_ms();
    CUptiResult rc = cuptiPmSamplingStop(&sp);
    if (rc == CUPTI_SUCCESS)
        rc = image_init() == 0 ? CUPTI_SUCCESS : CUPTI_ERROR_UNKNOWN;
    if (rc == CUPTI_SUCCESS) {
        CUpti_PmSampling_Start_Params st = {CUpti_PmSampling_Start_Params_STRUCT_SIZE};
        st.pPmSamplingObject = P.pm;
        rc = cuptiPmSamplingStart(&st);
    }
    pthread_mutex_lock(&P.lock);
    P.restarts++;
    P.restart_ms += now_ms() - t0;
    pthread_mutex_unlock(&P.lock);
    if (rc != CUPTI_SUCCESS)
        ck("restart after a full hardware buffer", rc, t0);
}

/* Decodes what the hardware buffer holds into the image, evaluating as it fills. */
static void
decode(void)
{
    pthread_mutex_lock(&P.lock);
    if (!P.started || !P.pm) {
        pthread_mutex_unlock(&P.lock);
        return;
    }
    double t_first = now_ms();
    for (int round = 0; round < 1000; round++) {
        CUpti_PmSampling_DecodeData_Params d = {CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE};
        d.pPmSamplingObject = P.pm;
        d.pCounterDataImage = P.image;
        d.counterDataImageSize = P.image_size;
        double t0 = now_ms();
        CUptiResult rc = cuptiPmSamplingDecodeData(&d);
        P.decode_ms_total += now_ms() - t0;
        P.decodes++;
        if (d.overflow)
            P.overflow = 1;
        if (rc == CUPTI_ERROR_OUT_OF_MEMORY && !P.stopped && !P.ending) {
            /* the hardware buffer filled (KEEP_OLDEST) faster than it was decoded: CUPTI
             * decodes nothing more until sampling restarts. Evaluate what the image holds,
             * then stop and start again; the samples in between are lost (counted). */
            evaluate_completed();
            pthread_mutex_unlock(&P.lock);
            restart();
            pthread_mutex_lock(&P.lock);
            break;
        }
        if (rc != CUPTI_SUCCESS) {
            pthread_mutex_unlock(&P.lock);
            ck("cuptiPmSamplingDecodeData", rc, t0);
            pthread_mutex_lock(&P.lock);
            break;
        }
        evaluate_completed();
        if (d.decodeStopReason != CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL)
            break;
        /* a backlog (the interval faster than this thread's pace) is not drained without end:
         * the decoder thread leaves it when the exit begins, and the exit's own decode stops
         * at PMPROBE_DRAIN_MS (the JAX run at 50 µs of 2026-12-06 had not ended 120 s after
         * its program finished) */
        if (atomic_load(&P.quit) && !P.ending)
            break;
        if (P.ending && now_ms() - t_first >= (double)P.drain_ms) {
            P.drain_cut++;
            break;
        }
        pthread_mutex_unlock(&P.lock);
        image_init();
        pthread_mutex_lock(&P.lock);
    }
    pthread_mutex_unlock(&P.lock);
}

static void clock_pair(const char *when);

/* Disable, once (timed). */
static void
pm_disable(void)
{
    if (P.disabled)
        return;
    P.disabled = 1;
    CUpti_PmSampling_Disable_Params di = {CUpti_PmSampling_Disable_Params_STRUCT_SIZE};
    di.pPmSamplingObject = P.pm;
    double t0 = now_ms();
    ck("cuptiPmSamplingDisable", cuptiPmSamplingDisable(&di), t0);
}

/* Stop, the last decode, the samples file closed; `disable`: Disable too (decoder thread or exit). */
static void
pm_end(const char *why, int disable)
{
    pthread_mutex_lock(&P.lock);
    P.ending = 1; /* the last decode restarts nothing */
    pthread_mutex_unlock(&P.lock);
    clock_pair(why);
    CUpti_PmSampling_Stop_Params sp = {CUpti_PmSampling_Stop_Params_STRUCT_SIZE};
    sp.pPmSamplingObject = P.pm;
    double t0 = now_ms();
    ck("cuptiPmSamplingStop", cuptiPmSamplingStop(&sp), t0);
    decode();
    if (disable)
        pm_disable();
    pthread_mutex_lock(&P.lock);
    P.started = 0;
    if (P.samples)
        fclose(P.samples);
    P.samples = NULL;
    pthread_mutex_unlock(&P.lock);
}

/*
 * The decoder: a decode every PMPROBE_DECODE_MS; with PMPROBE_WINDOW_MS, sampling ends that long
 * after Start (Stop, and Disable with PMPROBE_WINDOW_DISABLE=1), so what a range profiler can do
 * in the same process after a window can be seen (docs/pmprobe.md "Windows").
 */
static void *
decoder_main(void *arg)
{
    (void)arg;
    double t_start = now_ms();
    while (!atomic_load(&P.quit)) {
        struct timespec ts = {(time_t)(P.decode_ms / 1000), (long)(P.decode_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
        if (atomic_load(&P.quit))
            break;
        if (P.window_ms && now_ms() - t_start >= (double)P.window_ms) {
            pm_end("window_end", P.window_disable);
            atomic_store(&P.window_ended, 1);
            break;
        }
        decode();
    }
    return NULL;
}

static void
clock_pair(const char *when)
{
    uint64_t cupti_ts = 0;
    cuptiGetTimestamp(&cupti_ts);
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    meta("clock", "%s cupti %llu realtime %lld.%09ld", when, (unsigned long long)cupti_ts,
         (long long)rt.tv_sec, rt.tv_nsec);
}

static void at_exit(void);

/* PM sampling on device 0 with the metrics it takes; quiet on any failure. */
static void
pm_start(void)
{
    double t0 = now_ms();
    CUpti_Profiler_Initialize_Params pi = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    if (ck("cuptiProfilerInitialize", cuptiProfilerInitialize(&pi), t0) != 0)
        return;
    CUpti_Device_GetChipName_Params cn = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    cn.deviceIndex = 0;
    t0 = now_ms();
    if (ck("cuptiDeviceGetChipName", cuptiDeviceGetChipName(&cn), t0) != 0)
        return;
    P.chip = cn.pChipName;
    meta("chip", "%s", P.chip);
    CUpti_PmSampling_GetCounterAvailability_Params av = {
        CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE};
    av.deviceIndex = 0;
    t0 = now_ms();
    if (ck("cuptiPmSamplingGetCounterAvailability(size)",
           cuptiPmSamplingGetCounterAvailability(&av), t0) != 0)
        return;
    uint8_t *avail =
        calloc(1, av.counterAvailabilityImageSize ? av.counterAvailabilityImageSize : 1);
    av.pCounterAvailabilityImage = avail;
    t0 = now_ms();
    if (!avail || ck("cuptiPmSamplingGetCounterAvailability",
                     cuptiPmSamplingGetCounterAvailability(&av), t0) != 0)
        return;
    if (host_new(avail) != 0) {
        meta("error", "cuptiProfilerHostInitialize(PM_SAMPLING) failed");
        return;
    }
    list_base_metrics();
    uint8_t *config = NULL;
    size_t config_size = 0;
    if (choose_metrics(avail, &config, &config_size) != 0)
        return;

    CUpti_PmSampling_Enable_Params en = {CUpti_PmSampling_Enable_Params_STRUCT_SIZE};
    en.deviceIndex = 0;
    t0 = now_ms();
    if (ck("cuptiPmSamplingEnable", cuptiPmSamplingEnable(&en), t0) != 0)
        return;
    P.pm = en.pPmSamplingObject;
    CUpti_PmSampling_SetConfig_Params sc = {CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE};
    sc.pPmSamplingObject = P.pm;
    sc.configSize = config_size;
    sc.pConfig = config;
    sc.hardwareBufferSize = P.hw_buf_bytes;
    sc.samplingInterval = P.interval_ns;
    sc.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
    sc.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
    t0 = now_ms();
    if (ck("cuptiPmSamplingSetConfig", cuptiPmSamplingSetConfig(&sc), t0) != 0)
        return;
    CUpti_PmSampling_GetCounterDataSize_Params ds = {
        CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE};
    ds.pPmSamplingObject = P.pm;
    ds.pMetricNames = P.metrics;
    ds.numMetrics = P.nmetrics;
    ds.maxSamples = P.max_samples;
    t0 = now_ms();
    if (ck("cuptiPmSamplingGetCounterDataSize", cuptiPmSamplingGetCounterDataSize(&ds), t0) != 0)
        return;
    P.image_size = ds.counterDataSize;
    P.image = malloc(P.image_size);
    if (!P.image || image_init() != 0)
        return;
    meta("counter_data_image_bytes", "%zu for %u samples", P.image_size, P.max_samples);
    char path[640];
    snprintf(path, sizeof(path), "%s/pm-%ld-samples.tsv", P.out_dir, (long)getpid());
    P.samples = fopen(path, "w");
    if (!P.samples)
        meta("error", "cannot write %s: %s", path, strerror(errno));
    else {
        fprintf(P.samples, "start_ns\tend_ns");
        for (size_t m = 0; m < P.nmetrics; m++)
            fprintf(P.samples, "\t%s", P.metrics[m]);
        fputc('\n', P.samples);
    }
    clock_pair("before_start");
    CUpti_PmSampling_Start_Params st = {CUpti_PmSampling_Start_Params_STRUCT_SIZE};
    st.pPmSamplingObject = P.pm;
    t0 = now_ms();
    if (ck("cuptiPmSamplingStart", cuptiPmSamplingStart(&st), t0) != 0)
        return;
    clock_pair("after_start");
    pthread_mutex_lock(&P.lock);
    P.started = 1;
    pthread_mutex_unlock(&P.lock);
    if (pthread_create(&P.decoder, NULL, decoder_main, NULL) == 0)
        P.decoder_on = 1;
    /* nvperf registered its exit-time destructors while the host object and the image were
     * built above, after InitializeInjection's atexit: exit handlers run last-registered first,
     * so without this one the stop and the last evaluation ran on destroyed nvperf state
     * ("double free or corruption" at every standalone exit on the H100, 2026-12-05; the
     * collector's exit_hook_refresh() is the same fix). at_exit runs once. */
    atexit(at_exit);
}

/* Stops sampling, decodes the rest, disables (once). */
static void
pm_stop(void)
{
    pthread_mutex_lock(&P.lock);
    int was = !P.stopped && (P.started || P.decoder_on);
    P.stopped = 1;
    pthread_mutex_unlock(&P.lock);
    if (!was)
        return;
    atomic_store(&P.quit, 1);
    if (P.decoder_on)
        pthread_join(P.decoder, NULL);
    P.decoder_on = 0;
    if (atomic_load(&P.window_ended)) { /* the window's end stopped it: what is left is Disable */
        pm_disable();
        return;
    }
    pm_end("before_stop", 1);
}

/* ---- kernel activity --------------------------------------------------------- */

static void CUPTIAPI
buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = aligned_alloc(8, PM_BUF_BYTES);
    *size = *buffer ? PM_BUF_BYTES : 0;
    *max_records = 0;
}

static void CUPTIAPI
buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    (void)ctx;
    (void)stream;
    (void)size;
    CUpti_Activity *r = NULL;
    pthread_mutex_lock(&P.klock);
    while (cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS) {
        if (r->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
            r->kind != CUPTI_ACTIVITY_KIND_KERNEL)
            continue;
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)r;
        if (P.nk == P.capk) {
            size_t cap = P.capk ? P.capk * 2 : 4096;
            struct kernel_rec *grown = realloc(P.k, cap * sizeof(*grown));
            if (!grown) {
                P.records_dropped++;
                continue;
            }
            P.k = grown;
            P.capk = cap;
        }
        struct kernel_rec *o = &P.k[P.nk++];
        o->start = k->start;
        o->end = k->end;
        o->corr = k->correlationId;
        o->graph_id = k->graphId;
        o->node = k->graphNodeId;
        o->stream = k->streamId;
        o->grid[0] = k->gridX, o->grid[1] = k->gridY, o->grid[2] = k->gridZ;
        o->block[0] = k->blockX, o->block[1] = k->blockY, o->block[2] = k->blockZ;
        o->name = strdup(k->name ? k->name : "?");
    }
    pthread_mutex_unlock(&P.klock);
    free(buffer);
}

/* ---- the end ----------------------------------------------------------------- */

static void
write_files(void)
{
    static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
    static int written;
    pthread_mutex_lock(&once);
    if (written) {
        pthread_mutex_unlock(&once);
        return;
    }
    written = 1;
    pthread_mutex_unlock(&once);
    char path[640];
    FILE *f = NULL;
    if (!P.attached) { /* attached, the kernels' times are the report's (attribute.py --report) */
        cuptiActivityFlushAll(1);
        snprintf(path, sizeof(path), "%s/pm-%ld-kernels.tsv", P.out_dir, (long)getpid());
        f = fopen(path, "w");
    }
    if (f) {
        fprintf(
            f,
            "start_ns\tend_ns\tcorrelation\tgraph_id\tgraph_node_id\tstream\tgrid\tblock\tname\n");
        pthread_mutex_lock(&P.klock);
        for (size_t i = 0; i < P.nk; i++) {
            const struct kernel_rec *k = &P.k[i];
            fprintf(f, "%llu\t%llu\t%u\t%u\t%llu\t%u\t%d,%d,%d\t%d,%d,%d\t%s\n",
                    (unsigned long long)k->start, (unsigned long long)k->end, k->corr, k->graph_id,
                    (unsigned long long)k->node, k->stream, k->grid[0], k->grid[1], k->grid[2],
                    k->block[0], k->block[1], k->block[2], k->name);
        }
        pthread_mutex_unlock(&P.klock);
        fclose(f);
    }
    snprintf(path, sizeof(path), "%s/pm-%ld-meta.tsv", P.out_dir, (long)getpid());
    f = fopen(path, "w");
    if (!f)
        return;
    /* the summary first, outside meta()'s cap */
    fprintf(f, "samples\t%ld\noverflow\t%d\n", P.nsamples, P.overflow);
    fprintf(f, "decode\t%ld calls, %.3f ms\nevaluate_ms\t%.3f\n", P.decodes, P.decode_ms_total,
            P.eval_ms_total);
    fprintf(f, "image_inits\t%ld (%.3f ms)\n", P.image_inits, P.image_init_ms);
    fprintf(f, "restarts\t%ld (%.3f ms)\n", P.restarts, P.restart_ms);
    fprintf(f,
            "drain_cut\t%ld (PMPROBE_DRAIN_MS %u: the last decode stopped with full images left)\n",
            P.drain_cut, P.drain_ms);
    fprintf(f, "kernels\t%zu (%ld records dropped)\n", P.nk, P.records_dropped);
    fprintf(f, "interval_ns\t%llu\nhw_buffer_bytes\t%zu\n", (unsigned long long)P.interval_ns,
            P.hw_buf_bytes);
    pthread_mutex_lock(&P.lock);
    for (size_t i = 0; i < P.nmeta; i++)
        fprintf(f, "%s\n", P.meta[i]);
    if (P.nmeta == PM_MAX_META)
        fprintf(f, "meta_truncated\tat %d lines\n", PM_MAX_META);
    pthread_mutex_unlock(&P.lock);
    fclose(f);
}

static void
at_exit(void)
{
    pm_stop();
    write_files();
}

static void CUPTIAPI
on_callback(void *ud, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data)
{
    (void)ud;
    static atomic_int begun;
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
        const CUpti_CallbackData *cb = data;
        if (cb->callbackSite == CUPTI_API_ENTER && !P.at_context && !atomic_exchange(&begun, 1))
            pm_start();
        return;
    }
    if (domain != CUPTI_CB_DOMAIN_RESOURCE)
        return;
    if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED && P.at_context &&
        !atomic_exchange(&begun, 1)) {
        pm_start();
    } else if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
        cuptiActivityFlushAll(1);
        pm_stop();
    }
}

/*
 * Attached to gpuhier's collector (GPUHIER_DIAG_PMPROBE, collector/diagprobe.c): the collector
 * calls this at its first launch outside a capture, on the launching thread; the probe neither
 * subscribes nor traces kernels (CUPTI allows one subscriber and one set of activity buffers,
 * both the collector's). 0 when sampling started.
 */
PM_EXPORT int
pmprobe_attached_start(void)
{
    read_env();
    P.attached = 1;
    mkdir(P.out_dir, 0777);
    meta("pid", "%ld", (long)getpid());
    meta("start", "attached");
    meta("evaluate", "%d", P.evaluate);
    atexit(at_exit);
    pm_start();
    pthread_mutex_lock(&P.lock);
    int ok = P.started;
    pthread_mutex_unlock(&P.lock);
    return ok ? 0 : -1;
}

/* The collector's exit, after its forced flush: stops sampling and writes the files. */
PM_EXPORT void
pmprobe_attached_stop(void)
{
    at_exit();
}

PM_EXPORT int
InitializeInjection(void)
{
    static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
    static int done;
    pthread_mutex_lock(&once);
    if (done) {
        pthread_mutex_unlock(&once);
        return 1;
    }
    done = 1;
    pthread_mutex_unlock(&once);
    read_env();
    mkdir(P.out_dir, 0777);
    meta("pid", "%ld", (long)getpid());
    meta("start", "%s", P.at_context ? "context" : "launch");
    meta("evaluate", "%d", P.evaluate);
    atexit(at_exit);
    double t0 = now_ms();
    if (ck("cuptiSubscribe", cuptiSubscribe(&P.sub, on_callback, NULL), t0) != 0)
        return 1;
    cuptiEnableDomain(1, P.sub, CUPTI_CB_DOMAIN_RESOURCE);
    /* PMPROBE_START=launch (the default): sampling starts at the first kernel or graph launch's
     * ENTER, where the collector's range profiler enables; =context: at the first context's creation */
    static const CUpti_CallbackId launches[] = {
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
        CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
    };
    if (!P.at_context)
        for (size_t i = 0; i < sizeof(launches) / sizeof(*launches); i++)
            cuptiEnableCallback(1, P.sub, CUPTI_CB_DOMAIN_DRIVER_API, launches[i]);
    t0 = now_ms();
    ck("cuptiActivityRegisterCallbacks",
       cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), t0);
    t0 = now_ms();
    ck("cuptiActivityEnable(CONCURRENT_KERNEL)",
       cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), t0);
    return 1;
}
