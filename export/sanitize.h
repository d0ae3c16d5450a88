/* SPDX-License-Identifier: MIT */
/*
 * sanitize: the one text sanitizer every gpuhier output uses (exports,
 * the terminal tables of analyze/report/check/diff, and the TUI).
 *
 * Strings from a report (kernel names, command lines, NVTX names, rule
 * text from user rule files) are untrusted. After sanitizing:
 *   - the result is valid UTF-8: each invalid byte becomes U+FFFD;
 *   - C0/C1 control characters, DEL and ESC never appear raw: they become
 *     visible escapes (\n, \t, \r, \e, \xNN, \u{NNNN} for C1);
 *   - the result is at most `max_bytes` bytes (0 = SANITIZE_DEFAULT_MAX),
 *     cut at a character boundary and ending in "…" when cut.
 * Format-specific escaping (JSON, XML, Markdown, CSV) is done after this
 * by the writer of that format, on the sanitized text.
 */
#ifndef GPUHIER_EXPORT_SANITIZE_H
#define GPUHIER_EXPORT_SANITIZE_H

#include <stddef.h>

#define SANITIZE_DEFAULT_MAX 4096

/* Returns a new string (free()); never NULL for a non-NULL `s` (aborts on OOM). NULL in, NULL out. */
char *sanitize_text(const char *s, size_t max_bytes);

/*
 * Sanitize into a caller buffer of `n` bytes (always NUL-terminated);
 * returns `buf`. For hot paths (TUI drawing) that must not allocate.
 */
char *sanitize_into(char *buf, size_t n, const char *s);

/* Display width in terminal columns of sanitized UTF-8 text (wcwidth-based). */
int sanitize_width(const char *s);

#endif
