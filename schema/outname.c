/* SPDX-License-Identifier: MIT */
/*
 * outname: report file-name patterns. Plain malloc and errno (no xmalloc):
 * the collector uses this inside someone else's process and must degrade,
 * not abort, when memory runs out.
 */
#include "schema/outname.h"
#include "schema/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Walk the pattern once. With `b` NULL it only validates and reports
 * whether %i occurs; that is how outname_has_index shares the parser.
 * Returns -1 on a bad pattern, else the number of %i seen.
 */
static int
walk(const char *pattern, struct strbuf *b, long pid, const char *host, int index)
{
    int n_index = 0;
    char num[32];
    char h[HOST_NAME_MAX + 1];
    for (const char *s = pattern; *s; s++) {
        if (*s != '%') {
            if (b)
                strbuf_add(b, s, 1);
            continue;
        }
        switch (*++s) {
        case '%':
            if (b)
                strbuf_add(b, "%", 1);
            break;
        case 'p':
            if (b) {
                snprintf(num, sizeof(num), "%ld", pid);
                strbuf_adds(b, num);
            }
            break;
        case 'i':
            n_index++;
            if (b) {
                snprintf(num, sizeof(num), "%d", index);
                strbuf_adds(b, num);
            }
            break;
        case 'h':
            if (b) {
                if (!host) {
                    if (gethostname(h, sizeof(h)) != 0)
                        snprintf(h, sizeof(h), "unknown");
                    h[sizeof(h) - 1] = '\0';
                    host = h;
                }
                strbuf_adds(b, host);
            }
            break;
        case 'q': {
            if (s[1] != '{')
                return -1;
            const char *name = s + 2;
            const char *end = strchr(name, '}');
            if (!end || end == name)
                return -1;
            if (b) {
                char var[256];
                size_t n = (size_t)(end - name);
                if (n >= sizeof(var))
                    return -1;
                memcpy(var, name, n);
                var[n] = '\0';
                const char *v = getenv(var);
                if (v)
                    strbuf_adds(b, v);
            }
            s = end;
            break;
        }
        default: /* includes the terminating NUL after a trailing '%' */
            return -1;
        }
    }
    return n_index;
}

char *
outname_expand(const char *pattern, long pid, const char *host, int index)
{
    if (!pattern || !*pattern) {
        errno = EINVAL;
        return NULL;
    }
    struct strbuf b = STRBUF_INIT;
    strbuf_add(&b, "", 0);
    if (walk(pattern, &b, pid, host, index) < 0) {
        free(b.p);
        errno = EINVAL;
        return NULL;
    }
    if (b.oom) {
        free(b.p);
        errno = ENOMEM;
        return NULL;
    }
    return b.p;
}

int
outname_has_index(const char *pattern)
{
    return pattern && walk(pattern, NULL, 0, NULL, 0) > 0;
}

char *
outname_next_free(const char *pattern, long pid, const char *host)
{
    if (!outname_has_index(pattern))
        return outname_expand(pattern, pid, host, 1);
    for (int i = 1; i <= OUTNAME_MAX_INDEX; i++) {
        char *name = outname_expand(pattern, pid, host, i);
        if (!name)
            return NULL;
        if (access(name, F_OK) != 0 && errno == ENOENT)
            return name;
        free(name);
    }
    errno = EEXIST;
    return NULL;
}

static void
remove_companions(const char *name)
{
    static const char *const suffix[] = {"-wal", "-shm", "-journal"};
    for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
        size_t n = strlen(name) + strlen(suffix[i]) + 1;
        char *p = malloc(n);
        if (!p)
            return;
        snprintf(p, n, "%s%s", name, suffix[i]);
        unlink(p);
        free(p);
    }
}

/* Create `name` exclusively; 0 if we now own it, -1 with errno otherwise. */
static int
create_excl(const char *name)
{
    int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    close(fd);
    /*
     * A stale -wal from an earlier report of the same name would be
     * replayed into our new database; it belongs to nobody now.
     */
    remove_companions(name);
    return 0;
}

char *
outname_claim(const char *pattern, long pid, const char *host, int force)
{
    if (!outname_has_index(pattern)) {
        char *name = outname_expand(pattern, pid, host, 1);
        if (!name)
            return NULL;
        if (force && unlink(name) != 0 && errno != ENOENT) {
            int e = errno;
            free(name);
            errno = e;
            return NULL;
        }
        if (create_excl(name) != 0) {
            int e = errno;
            free(name);
            errno = e;
            return NULL;
        }
        return name;
    }
    for (int i = 1; i <= OUTNAME_MAX_INDEX; i++) {
        char *name = outname_expand(pattern, pid, host, i);
        if (!name)
            return NULL;
        if (create_excl(name) == 0)
            return name;
        int e = errno;
        free(name);
        if (e != EEXIST) {
            errno = e;
            return NULL;
        }
    }
    errno = EEXIST;
    return NULL;
}
