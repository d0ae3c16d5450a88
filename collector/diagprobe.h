/* SPDX-License-Identifier: MIT */
/*
 * diagprobe: GPUHIER_DIAG_PMPROBE=PATH, bench/pmprobe's PM sampling run
 * beside the counter engines (collector/diagprobe.c; a diagnosis, nothing
 * happens without the variable).
 */
#ifndef GPUHIER_COLLECTOR_DIAGPROBE_H
#define GPUHIER_COLLECTOR_DIAGPROBE_H

/* At initialization: loads the probe's library when the variable names one. */
void diagprobe_init(void);

/* ENTER of a launch outside a capture: the first one starts the probe's sampling. */
void diagprobe_launch(void);

/* At exit, after the forced flush: stops the probe's sampling and writes its files. */
void diagprobe_exit(void);

#endif
