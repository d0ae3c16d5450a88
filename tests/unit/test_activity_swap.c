/* SPDX-License-Identifier: MIT */
/*
 * unit.activity_swap: the kernel tracing swap (collector/activity.c,
 * kernel_activity_pause()/resume()) and the launch gate, under threads,
 * with a stub CUPTI whose kernel kinds are two flags (no GPU, no driver).
 *
 * What the engines do with it: a served launch (the range profiler's, the
 * instrumentation engine's) pauses, launches and resumes on one thread; an
 * instrumentation enable left open for a chain (GPUHIER_DIAG_SASS_CHAIN)
 * pauses on the thread of its launch and is resumed by whichever thread
 * shuts it (an unserved launch's sass_launch_other(), the quiesce before a
 * range-profiled launch); the other launches only pass the gate. Checked:
 *   - no launch ever runs while neither kernel kind is on (its record would
 *     be lost: t108-tsan's threads case lost a range-profiled launch so,
 *     1 run in about 700 under load, 2026-12-05);
 *   - a served launch runs with KIND_KERNEL on (a chain shut on another
 *     thread meanwhile must not turn it back to concurrent tracing);
 *   - at the end, concurrent tracing again and KIND_KERNEL off.
 * The stub's Disable leaves a gap (no kind on) before it returns, and its
 * flush a random pause, to widen the windows a race needs.
 */
#include "collector/activity.h"
#include "collector/collector_int.h"
#include "collector/options.h"

#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* ---- what activity.c needs from the rest of the collector ---- */
struct gh_api gh;
struct options opt;
long
callbacks_launches(void)
{
    return 0;
}
const char *
cupti_err(CUptiResult rc)
{
    (void)rc;
    return "stub";
}
void
die_commit(void)
{
}
void
engine_flush(void)
{
}
const char *
env(const char *name)
{
    (void)name;
    return NULL;
}
void
gh_say(const char *fmt, ...)
{
    (void)fmt;
}
void
push_event(const char *level, const char *code, const char *fmt, ...)
{
    (void)level;
    (void)code;
    (void)fmt;
}
void
push_meta(const char *key, const char *value)
{
    (void)key;
    (void)value;
}
void
sampler_flush(void)
{
}
int
sampler_watchdog(void)
{
    return 0;
}
int
signals_thread_start(void)
{
    return 0;
}
int
wait_flag(atomic_int *flag, int ms)
{
    (void)flag;
    (void)ms;
    return 0;
}
void
writer_add_activity_dropped(uint64_t n)
{
    (void)n;
}
void
writer_push_buffer(uint8_t *buf, size_t valid, void (*release)(uint8_t *buf))
{
    (void)valid;
    release(buf);
}
void
writer_wake(void)
{
}

/* ---- the stub CUPTI: two kernel kinds ---- */
static atomic_int conc_on, kern_on;

static void
pause_us(long us)
{
    nanosleep(&(struct timespec){0, us * 1000}, NULL);
}

static CUptiResult
stub_enable(CUpti_ActivityKind k)
{
    if (k == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
        atomic_store(&conc_on, 1);
    else if (k == CUPTI_ACTIVITY_KIND_KERNEL)
        atomic_store(&kern_on, 1);
    return CUPTI_SUCCESS;
}

static CUptiResult
stub_disable(CUpti_ActivityKind k)
{
    if (k == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
        atomic_store(&conc_on, 0);
    else if (k == CUPTI_ACTIVITY_KIND_KERNEL)
        atomic_store(&kern_on, 0);
    else
        return CUPTI_SUCCESS;
    pause_us(20); /* the gap */
    return CUPTI_SUCCESS;
}

static CUptiResult
stub_flush(uint32_t flag)
{
    (void)flag;
    pause_us(rand() % 30);
    return CUPTI_SUCCESS;
}

static CUptiResult
stub_register(CUpti_BuffersCallbackRequestFunc req, CUpti_BuffersCallbackCompleteFunc done)
{
    (void)req;
    (void)done;
    return CUPTI_SUCCESS;
}

/* ---- the threads ---- */
enum { ROUNDS = 3000, OTHERS = 3 };
static atomic_int stop, lost, served_not_serialized, served_rounds;
static sem_t chain_open; /* a chain's pause done, its shut may come */

/* one launch through the gate: lost when no kernel kind is on at its run */
static void
launch(void)
{
    activity_launch_begin();
    if (!atomic_load(&conc_on) && !atomic_load(&kern_on))
        atomic_fetch_add(&lost, 1);
    activity_launch_end();
}

static void *
served(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        kernel_activity_pause();
        activity_launch_begin();
        if (!atomic_load(&kern_on))
            atomic_fetch_add(&served_not_serialized, 1);
        if (!atomic_load(&conc_on) && !atomic_load(&kern_on))
            atomic_fetch_add(&lost, 1);
        activity_launch_end();
        kernel_activity_resume();
        atomic_fetch_add(&served_rounds, 1);
        pause_us(rand() % 20);
    }
    return NULL;
}

static void *
chain_opener(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        kernel_activity_pause();
        launch();
        sem_post(&chain_open);
        pause_us(rand() % 40);
    }
    return NULL;
}

static void *
chain_shutter(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        sem_wait(&chain_open);
        pause_us(rand() % 40);
        kernel_activity_resume();
    }
    return NULL;
}

static void *
other(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        launch();
        pause_us(rand() % 10);
    }
    return NULL;
}

int
main(void)
{
    gh.cuptiActivityEnable = stub_enable;
    gh.cuptiActivityDisable = stub_disable;
    gh.cuptiActivityFlushAll = stub_flush;
    gh.cuptiActivityRegisterCallbacks = stub_register;
    opt.instrument = ENGINES_BOTH;
    opt.concurrent_toggle = 1;
    opt.rp_kernel_swap = 1;
    init_activity();
    int fail = 0;
    if (!atomic_load(&conc_on) || atomic_load(&kern_on)) {
        printf("FAIL the start: concurrent %d, serialized %d\n", atomic_load(&conc_on),
               atomic_load(&kern_on));
        return 1;
    }
    sem_init(&chain_open, 0, 0);
    pthread_t s, o, c, t[OTHERS];
    pthread_create(&s, NULL, served, NULL);
    pthread_create(&o, NULL, chain_opener, NULL);
    pthread_create(&c, NULL, chain_shutter, NULL);
    for (int i = 0; i < OTHERS; i++)
        pthread_create(&t[i], NULL, other, NULL);
    pthread_join(s, NULL);
    pthread_join(o, NULL);
    pthread_join(c, NULL);
    atomic_store(&stop, 1);
    for (int i = 0; i < OTHERS; i++)
        pthread_join(t[i], NULL);
    if (atomic_load(&lost)) {
        printf("FAIL %d launches ran while no kernel kind was on (their records lost)\n",
               atomic_load(&lost));
        fail = 1;
    }
    if (atomic_load(&served_not_serialized)) {
        printf("FAIL %d of %d served launches ran without KIND_KERNEL (a chain shut on another "
               "thread undid "
               "their swap)\n",
               atomic_load(&served_not_serialized), atomic_load(&served_rounds));
        fail = 1;
    }
    if (!atomic_load(&conc_on) || atomic_load(&kern_on)) {
        printf("FAIL the end: concurrent %d, serialized %d (want 1, 0)\n", atomic_load(&conc_on),
               atomic_load(&kern_on));
        fail = 1;
    }
    if (!fail)
        printf(
            "ok: %d served launches serialized, a chain opened and shut on two threads %d times, "
            "no launch in a swap's gap, concurrent tracing at the end\n",
            atomic_load(&served_rounds), ROUNDS);
    return fail;
}
