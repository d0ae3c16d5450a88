/* SPDX-License-Identifier: MIT */
/*
 * severity: the scale a finding's severity is graded on (docs/severity.md),
 * shared by the analyzer, which grades findings with it (analyzer/engine.c
 * grade()), and the collector's sampler, which leaves out the later
 * one-pass groups of a configuration that cannot reach a warning on it
 * (collector/sampling.c sampling_can_warn(), docs/sampling.md). Header
 * only, with no other header of the project: the modules meet in the
 * schema.
 *
 * An error is worth a ticket: it costs a tenth of the GPU time and a
 * hundredth of the program's wall time, by an exact estimate; a warning a
 * hundredth and a thousandth. A finding below either share drops a level:
 * time the GPU loses while the program waits on the host, the disk or
 * Python is not time the user waits for (Amdahl: the program speeds up by
 * at most the wall share). A bound or a rule of thumb never makes an error
 * on its own.
 */
#ifndef GPUHIER_SCHEMA_SEVERITY_H
#define GPUHIER_SCHEMA_SEVERITY_H

#define SEV_ERROR_GPU_PCT 10.0
#define SEV_ERROR_WALL_PCT 1.0
#define SEV_WARNING_GPU_PCT 1.0
#define SEV_WARNING_WALL_PCT 0.1
/*
 * One-time set-up (a model upload before the training loop) is paid once,
 * however long the program runs: a note, unless it is a tenth of the wall
 * time (docs/severity.md "One-time set-up").
 */
#define SEV_ONE_TIME_WALL_PCT 10.0

#endif
