/* SPDX-License-Identifier: MIT */
/*
 * callbacks: the CUPTI subscriber and its callbacks (collector/callbacks.c).
 */
#ifndef GPUHIER_COLLECTOR_CALLBACKS_H
#define GPUHIER_COLLECTOR_CALLBACKS_H

/*
 * initialize(): subscribes to CUPTI as "gpuhier". 0, or -1 after one line,
 * a profiling_limited note and a `cupti_subscribe_failed` event (another
 * subscriber, named when CUPTI says who): then nothing is traced.
 */
int subscribe(void);

/* initialize(), once subscribed: enables the callbacks listed in collector_int.h. */
void enable_callbacks(void);

/*
 * Collecting on or off in this process (initialize(), exit, a forked
 * child): when off, every callback returns at once. Any thread.
 */
void callbacks_set_active(int on);
int callbacks_active(void);

/* Whether a stream capture is open (driver or runtime API). Any thread. */
int callbacks_capturing(void);

/* Launch ENTER callbacks so far (the flusher's stall test). Any thread. */
long callbacks_launches(void);

#endif
