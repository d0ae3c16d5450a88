/* SPDX-License-Identifier: MIT */
/*
 * GPUHIER_DIAG_PMPROBE=PATH (diagnosis, off by default; docs/pmprobe.md
 * "Beside the collector"): loads bench/pmprobe's library at PATH into the
 * collector's process and runs its PM sampling beside the counter engines,
 * so that one device run tells whether CUPTI's PM sampling works while the
 * instrumentation engine patches launches and while the range profiler
 * profiles them. The probe's library cannot be a second injection
 * library (CUPTI allows one subscriber, and one set of activity buffer
 * callbacks): the collector calls its two attached entry points, at the
 * first launch outside a capture and at the exit after the forced flush,
 * and the kernels' times come from the report (bench/pmprobe/attribute.py
 * --report). Nothing here runs unless the variable is set.
 */
#include "collector/diagprobe.h"

#include "collector/collector_int.h"
#include "collector/notes.h"
#include "collector/options.h"

#include <dlfcn.h>
#include <stdatomic.h>

static struct {
    int (*start)(void);
    void (*stop)(void);
    atomic_int started;
} D;

void
diagprobe_init(void)
{
    const char *path = env("GPUHIER_DIAG_PMPROBE");
    if (!path || !*path)
        return;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        gh_say("GPUHIER_DIAG_PMPROBE: cannot load '%s': %s", path, e ? e : "?");
        return;
    }
    *(void **)&D.start = dlsym(h, "pmprobe_attached_start");
    *(void **)&D.stop = dlsym(h, "pmprobe_attached_stop");
    if (!D.start || !D.stop) {
        gh_say("GPUHIER_DIAG_PMPROBE: '%s' has no pmprobe_attached_start/stop", path);
        D.start = NULL;
        D.stop = NULL;
        return;
    }
    gh_say("GPUHIER_DIAG_PMPROBE: PM sampling beside the counter engines (diagnosis; "
           "docs/pmprobe.md)");
    push_meta("diag_pmprobe", path);
}

void
diagprobe_launch(void)
{
    if (D.start && !atomic_exchange(&D.started, 1) && D.start() != 0)
        push_event("warning", "diag_pmprobe",
                   "the PM sampling probe did not start (its meta file "
                   "says why)");
}

void
diagprobe_exit(void)
{
    if (D.stop && atomic_load(&D.started))
        D.stop();
}
