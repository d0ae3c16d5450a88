/* SPDX-License-Identifier: MIT */
/*
 * tui: browse one gpuhier report in the terminal (ncursesw), and print
 * the same views as plain text for `gpuhier report`.
 *
 * The TUI only reads the report. It relies on the analysis tables
 * (kernel_summary, finding, finding_evidence) that the analyzer writes;
 * it never links the analyzer. A caller holding a report that was never
 * analyzed passes the analyzed in-memory copy from analyzer_open_report();
 * when even that is impossible the views fall back to the collector's
 * tables (config totals) and say that findings are missing.
 *
 * Every string read from the report goes through the export module's
 * sanitizer before it reaches the terminal or a text file.
 *
 * Environment (tests and benchmarks, docs/cmd-tui.md):
 *   GPUHIER_TUI_SCRIPT=<file>   read keys from <file> instead of the keyboard
 *   GPUHIER_TUI_NO_DISPLAY=1    never start curses; draw into memory only
 *                               (80x24 unless a script says `:resize`)
 *   GPUHIER_TUI_TIMING=<file>   append the time of the first paint and of
 *                               each key (microseconds) to <file>
 *   NO_COLOR                    monochrome, like -C
 */
#ifndef GPUHIER_TUI_TUI_H
#define GPUHIER_TUI_TUI_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>

struct export_diff_map;

struct tui_opts {
    int monochrome;          /* 1: no colours (-C, or NO_COLOR set) */
    int mouse;               /* 1: enable mouse clicks and wheel */
    int ascii;               /* 1: force the ASCII fallback even in a UTF-8 locale */
    const char *report_name; /* shown in the title bar; borrowed, may be NULL */
    const char *start_view;  /* "summary" (NULL), "kernels", "findings", "copies" */
    int all;                 /* 1: also the notes with no time lost (hidden otherwise) */
    const char *nvtx;        /* NVTX range filter of kernels and findings (POSIX ERE), or NULL */
    sqlite3 *before;         /* two reports: the before one (borrowed, only read); `db` is the
                              * after one, and the views are the diff's (export_diff_compute) */
    const struct export_diff_map *map; /* two reports: renamed kernels, as `gpuhier diff --map` */
    size_t n_map;                      /* (borrowed) */
};

/*
 * Run the browser on `db` (borrowed, only read) until the user quits;
 * with o->before, on the diff of the two reports.
 * Calls setlocale(LC_ALL, "") itself. Returns 0, or -1 with a message
 * on stderr (terminal unusable, bad script file, SQL error).
 */
int tui_main(sqlite3 *db, const struct tui_opts *o);

/*
 * Print one view as plain text to `out`: `view` is "summary", "kernels",
 * "configs", "kernel" or "profiles" (with `arg` naming the kernel: exact
 * short, demangled or mangled name, else a unique substring), "findings",
 * "finding" (`arg` = rank) or "copies". Rows are built by the same code
 * as the TUI's. `all`: also the notes with no time lost, which the
 * findings lists hide otherwise (docs/severity.md). Returns 0; -1 with a
 * message in store_error() for an
 * unknown view, a kernel that matches nothing or several kernels, or an
 * SQL error.
 */
int tui_report(sqlite3 *db, const char *view, const char *arg, int all, FILE *out);

/*
 * tui_report() with an NVTX range filter: `nvtx` (a POSIX ERE on
 * launch.nvtx_path, NULL: none) keeps the kernels, configurations and
 * findings with a launch in a matching range. `view` may also be "nvtx":
 * GPU time, launches and findings by NVTX range path.
 */
int tui_report_nvtx(sqlite3 *db, const char *view, const char *arg, int all, const char *nvtx,
                    FILE *out);

#endif
