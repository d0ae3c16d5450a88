/* SPDX-License-Identifier: MIT */
/*
 * queue: the bounded, preallocated queue between CUPTI callbacks (many
 * producer threads) and the collector's one writer thread.
 *
 * Every slot is allocated at init; pushing never allocates, never takes a
 * lock and never waits: when the queue is full the record is dropped and
 * counted, because a callback that blocked would stall the program's own
 * launch path (STYLE.md §5.6). The algorithm is Vyukov's bounded MPMC ring
 * (one sequence number per slot), used here with one consumer.
 *
 * The consumer sleeps on a semaphore for a period; a producer posts it
 * only when the consumer said it is going to sleep AND the queue holds at
 * least `wake_fill` records (then exactly one producer posts: it clears
 * the flag). So the common push is two atomics and a copy, never a
 * syscall, and the consumer wakes once per period or per `wake_fill`
 * records, not once per record (waking per record cost the program a
 * futex syscall per launch and the writer one SQLite commit per launch).
 * sem_post is async-signal-safe, so a signal handler may wake the
 * consumer too (queue_wake()).
 */
#ifndef GPUHIER_COLLECTOR_QUEUE_H
#define GPUHIER_COLLECTOR_QUEUE_H
#include <semaphore.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Fields are grouped by who writes them, one cache line each, so that the
 * consumer popping (tail) does not take the line producers push on (head)
 * away from them record by record.
 */
struct queue {
    /* Set at init, read by everyone; `sleeping` changes twice per consumer wait. */
    unsigned char *slots; /* cap * stride bytes */
    _Atomic size_t *seq;  /* per-slot sequence numbers */
    size_t cap;           /* number of slots, a power of two */
    size_t rec_bytes;     /* payload bytes per slot */
    size_t wake_fill;     /* records queued before a producer wakes the consumer */
    _Atomic int sleeping; /* the consumer is (about to be) waiting */
    sem_t wake;
    /* Producers. head - (records popped) = records queued; head = records accepted. */
    _Alignas(64) _Atomic size_t head; /* next slot to push */
    _Atomic uint64_t dropped;         /* records refused because the queue was full */
    /* The consumer. */
    _Alignas(64) _Atomic size_t tail; /* next slot to pop (one consumer) */
};

/*
 * Allocates `cap` slots (rounded up to a power of two, at least 2) of
 * `rec_bytes` each. Returns 0 or -1 (out of memory).
 */
int queue_init(struct queue *q, size_t cap, size_t rec_bytes);

/*
 * Producers wake a waiting consumer only once `n` records are queued
 * (clamped to 1..cap). queue_init sets 1: wake on every push.
 */
void queue_set_wake_fill(struct queue *q, size_t n);

/* Frees the slots; the queue must have no producers left. NULL-safe. */
void queue_release(struct queue *q);

/*
 * Copies `n` bytes (<= rec_bytes) of `rec` into the queue. Returns 0, or
 * -1 when full (the record is dropped and q->dropped counts it). Any
 * thread; never blocks or allocates.
 */
int queue_push(struct queue *q, const void *rec, size_t n);

/* Records accepted so far (every accepted push advanced head by one). */
static inline uint64_t
queue_pushed(struct queue *q)
{
    return atomic_load_explicit(&q->head, memory_order_seq_cst);
}

/*
 * Copies the oldest record into `out` (rec_bytes bytes). Returns 1 when a
 * record was popped, 0 when the queue is empty. Consumer thread only.
 */
int queue_pop(struct queue *q, void *out);

/*
 * Like queue_pop(), for the records claimed before `until` (a queue_pushed()
 * value): a slot a producer has claimed but not yet written stops
 * queue_pop(); this waits for it, yielding, at most `max_us`. Returns 1
 * when a record was popped, 0 when every record before `until` was popped
 * or the wait ran out. Consumer thread only.
 */
int queue_pop_before(struct queue *q, void *out, uint64_t until, int max_us);

/*
 * Consumer: waits until the queue holds `wake_fill` records, queue_wake()
 * is called, or `timeout_ms` passes. Returns immediately when it already
 * holds `wake_fill` records.
 */
void queue_wait(struct queue *q, int timeout_ms);

/* Wakes the consumer. Async-signal-safe. */
void queue_wake(struct queue *q);

#endif
