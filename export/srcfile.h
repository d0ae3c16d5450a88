/* SPDX-License-Identifier: MIT */
/*
 * srcfile: where a source file a report names (finding_line.file,
 * v_inst_line.file) lies for the reader, and its lines.
 *
 * A report keeps file names, never the files' text (schema.sql 2b). A
 * reader shows a line's text only when the file is readable under the
 * directory gpuhier runs in or under the run's recorded working directory
 * (run.cwd): a report is untrusted, and its names must not make a reader
 * print any file of the machine. The SARIF export also needs the name
 * relative to run.cwd, which a repository resolves.
 *
 * Errors: the functions return -1 / NULL and set nothing: "not readable
 * here" is an answer, not a failure.
 */
#ifndef GPUHIER_EXPORT_SRCFILE_H
#define GPUHIER_EXPORT_SRCFILE_H

#include <stddef.h>

/*
 * The path of `file` relative to `cwd` (the run's working directory)
 * when it lies below it: a relative name without a ".." component as it
 * is ("./" stripped), an absolute one with `cwd` as its prefix without
 * it. Lexical only: the file need not exist here. Returns a new string
 * (free()), or NULL when it is not below `cwd` (or `cwd` is NULL and the
 * name is absolute).
 */
char *srcfile_relative(const char *file, const char *cwd);

/*
 * The real path of `file` when it is a regular, readable file below the
 * current directory or below `run_cwd` (relative names are tried against
 * both, the current directory first). Returns a new string (free()), or
 * NULL.
 */
char *srcfile_resolve(const char *file, const char *run_cwd);

/* The lines of a resolved file, read once (at most SRCFILE_MAX_BYTES). */
struct srcfile {
    char *text;  /* the file's bytes, NUL-terminated, lines split at '\n' (replaced by NUL) */
    char **line; /* line[i] is line i + 1 */
    size_t nlines;
};

#define SRCFILE_MAX_BYTES (8u << 20)

/* Read `path` (from srcfile_resolve) into *f. 0, or -1 (unreadable, too large). */
int srcfile_load(struct srcfile *f, const char *path);
void srcfile_release(struct srcfile *f);

/* Line `n` (1-based) of `f`, raw (untrusted: sanitize before printing), or NULL. */
const char *srcfile_line(const struct srcfile *f, long long n);

#endif
