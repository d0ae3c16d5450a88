/* SPDX-License-Identifier: MIT */
/*
 * outname: expand a report file-name pattern (`gpuhier run -o PATTERN`).
 *
 * `gpuhier run` passes the pattern unexpanded in GPUHIER_OUTPUT; each CUDA
 * process of the program expands it itself (the collector), because only
 * that process knows its pid and which names are already taken. It lives
 * in schema/ because both the cli (to validate -o early) and the collector
 * use it. It does not touch SQLite.
 *
 * Macros:
 *   %p        process id (decimal)
 *   %h        host name
 *   %q{ENV}   value of the environment variable ENV ("" when unset)
 *   %i        an index: the smallest integer >= 1 whose file does not exist
 *             (outname_next_free / outname_claim pick it)
 *   %%        a literal '%'
 * Any other '%' sequence, a trailing '%', `%q` not followed by `{NAME}`
 * or an empty/unterminated `{}` make the pattern bad.
 *
 * Default pattern: OUTNAME_DEFAULT, relative to the current directory.
 */
#ifndef GPUHIER_SCHEMA_OUTNAME_H
#define GPUHIER_SCHEMA_OUTNAME_H

#define OUTNAME_DEFAULT "gpuhier-%i.db"

/* Highest index outname_next_free/outname_claim try before giving up. */
#define OUTNAME_MAX_INDEX 100000

/*
 * Expand `pattern` with process id `pid`, host name `host` (NULL: this
 * machine's gethostname()) and index `index` for %i.
 * Returns a new string (free()), or NULL when the pattern is bad (errno
 * EINVAL) or memory ran out (ENOMEM). Thread-safe; reads the environment.
 */
char *outname_expand(const char *pattern, long pid, const char *host, int index);

/* 1 if `pattern` contains %i (not counting "%%i"), else 0. */
int outname_has_index(const char *pattern);

/*
 * The name `pattern` expands to with the smallest %i >= 1 whose file does
 * not exist. A pattern without %i expands once, whether or not its file
 * exists (the caller decides about overwriting). Returns a new string
 * (free()), or NULL on a bad pattern (EINVAL) or when all indices up to
 * OUTNAME_MAX_INDEX are taken (EEXIST).
 *
 * Checking and creating are two steps: two processes may pick the same
 * name. Processes that may run concurrently use outname_claim() instead.
 */
char *outname_next_free(const char *pattern, long pid, const char *host);

/*
 * Like outname_next_free(), but reserves the name by creating it as an
 * empty file with O_CREAT|O_EXCL, so concurrent processes never get the
 * same name (an empty file is a valid empty SQLite database:
 * store_create() accepts it). With %i it tries the next index until one is
 * created. Without %i: if the file exists and `force` is 0, fails with
 * errno EEXIST; with `force` it removes the file (and its -wal/-shm
 * companions) first. Returns a new string (free()) or NULL with errno set.
 */
char *outname_claim(const char *pattern, long pid, const char *host, int force);

#endif
