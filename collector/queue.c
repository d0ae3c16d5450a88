/* SPDX-License-Identifier: MIT */
/*
 * Bounded MPMC ring after Dmitry Vyukov: slot i is free for the producer
 * that claims position p when seq[i] == p, and full for the consumer when
 * seq[i] == p + 1. Producers claim positions with a CAS on head, so two
 * producers never write the same slot and a slow producer only delays the
 * consumer at its own slot, never loses another's record.
 */
#include "collector/queue.h"

#include "collector/clock.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int
queue_init(struct queue *q, size_t cap, size_t rec_bytes)
{
    size_t c = 2;
    while (c < cap)
        c <<= 1;
    memset(q, 0, sizeof(*q));
    q->slots = calloc(c, rec_bytes);
    q->seq = calloc(c, sizeof(*q->seq));
    if (!q->slots || !q->seq) {
        free(q->slots);
        free(q->seq);
        q->slots = NULL;
        q->seq = NULL;
        return -1;
    }
    q->cap = c;
    q->rec_bytes = rec_bytes;
    q->wake_fill = 1;
    for (size_t i = 0; i < c; i++)
        atomic_store_explicit(&q->seq[i], i, memory_order_relaxed);
    sem_init(&q->wake, 0, 0);
    return 0;
}

void
queue_set_wake_fill(struct queue *q, size_t n)
{
    q->wake_fill = n < 1 ? 1 : n > q->cap ? q->cap : n;
}

void
queue_release(struct queue *q)
{
    if (!q || !q->slots)
        return;
    free(q->slots);
    free((void *)q->seq);
    sem_destroy(&q->wake);
    q->slots = NULL;
    q->seq = NULL;
}

int
queue_push(struct queue *q, const void *rec, size_t n)
{
    size_t pos = atomic_load_explicit(&q->head, memory_order_relaxed);
    for (;;) {
        size_t i = pos & (q->cap - 1);
        size_t s = atomic_load_explicit(&q->seq[i], memory_order_acquire);
        intptr_t d = (intptr_t)s - (intptr_t)pos;
        if (d == 0) {
            if (atomic_compare_exchange_weak_explicit(&q->head, &pos, pos + 1, memory_order_relaxed,
                                                      memory_order_relaxed)) {
                memcpy(q->slots + i * q->rec_bytes, rec, n < q->rec_bytes ? n : q->rec_bytes);
                atomic_store_explicit(&q->seq[i], pos + 1, memory_order_release);
                /* Only the producer that clears the flag posts: one wake per wait. */
                if (atomic_load_explicit(&q->sleeping, memory_order_seq_cst) &&
                    pos + 1 - atomic_load_explicit(&q->tail, memory_order_relaxed) >=
                        q->wake_fill &&
                    atomic_exchange_explicit(&q->sleeping, 0, memory_order_seq_cst))
                    queue_wake(q);
                return 0;
            }
        } else if (d < 0) {
            atomic_fetch_add_explicit(&q->dropped, 1, memory_order_relaxed);
            return -1;
        } else {
            pos = atomic_load_explicit(&q->head, memory_order_relaxed);
        }
    }
}

int
queue_pop(struct queue *q, void *out)
{
    size_t pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
    size_t i = pos & (q->cap - 1);
    size_t s = atomic_load_explicit(&q->seq[i], memory_order_acquire);
    if ((intptr_t)s - (intptr_t)(pos + 1) < 0)
        return 0;
    memcpy(out, q->slots + i * q->rec_bytes, q->rec_bytes);
    atomic_store_explicit(&q->seq[i], pos + q->cap, memory_order_release);
    atomic_store_explicit(&q->tail, pos + 1, memory_order_relaxed);
    return 1;
}

int
queue_pop_before(struct queue *q, void *out, uint64_t until, int max_us)
{
    int64_t deadline = 0;
    for (;;) {
        size_t pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
        if ((int64_t)(until - pos) <= 0)
            return 0;
        if (queue_pop(q, out))
            return 1;
        if (!deadline)
            deadline = mono_ns() + (int64_t)max_us * 1000;
        else if (mono_ns() >= deadline)
            return 0;
        nanosleep(&(struct timespec){0, 10000}, NULL); /* the producer is between claim and write */
    }
}

/* Whether at least wake_fill records are queued (the last of them fully written). */
static int
queue_filled(struct queue *q)
{
    size_t pos = atomic_load_explicit(&q->tail, memory_order_relaxed) + q->wake_fill - 1;
    size_t s = atomic_load_explicit(&q->seq[pos & (q->cap - 1)], memory_order_acquire);
    return (intptr_t)s - (intptr_t)(pos + 1) >= 0;
}

void
queue_wait(struct queue *q, int timeout_ms)
{
    atomic_store_explicit(&q->sleeping, 1, memory_order_seq_cst);
    if (!queue_filled(q)) {
        struct timespec ts = deadline_ms(CLOCK_REALTIME, timeout_ms);
        while (sem_timedwait(&q->wake, &ts) == -1 && errno == EINTR)
            ;
    }
    atomic_store_explicit(&q->sleeping, 0, memory_order_seq_cst);
    /* Swallow extra posts so the next wait really waits. */
    while (sem_trywait(&q->wake) == 0)
        ;
}

void
queue_wake(struct queue *q)
{
    sem_post(&q->wake);
}
