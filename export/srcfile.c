/* SPDX-License-Identifier: MIT */
/*
 * srcfile: source files named by a report, resolved below the current or
 * the run's working directory, and their lines.
 */
#include "export/srcfile.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Does the relative path `p` climb out of its base (a ".." component)? */
static int
climbs(const char *p)
{
    for (const char *s = p; *s;) {
        size_t n = strcspn(s, "/");
        if (n == 2 && s[0] == '.' && s[1] == '.')
            return 1;
        s += n;
        s += *s == '/';
    }
    return 0;
}

char *
srcfile_relative(const char *file, const char *cwd)
{
    if (!file || !*file)
        return NULL;
    const char *p = file;
    if (p[0] == '/') {
        size_t cl = cwd ? strlen(cwd) : 0;
        while (cl > 1 && cwd[cl - 1] == '/')
            cl--;
        if (!cwd || cwd[0] != '/' || cl <= 1 || strncmp(p, cwd, cl) || p[cl] != '/')
            return NULL;
        p += cl + 1;
    }
    while (p[0] == '.' && p[1] == '/')
        p += 2;
    if (!*p || climbs(p))
        return NULL;
    return strdup(p);
}

/* Is the real path `real` below the real path of directory `dir`? */
static int
below(const char *real, const char *dir)
{
    char d[PATH_MAX];
    if (!dir || !realpath(dir, d))
        return 0;
    size_t n = strlen(d);
    if (n == 1)
        return 1; /* "/" */
    return !strncmp(real, d, n) && real[n] == '/';
}

/* `path` made real when it is a readable regular file below `here` or `run_cwd`. */
static char *
check(const char *path, const char *here, const char *run_cwd)
{
    char real[PATH_MAX];
    struct stat sb;
    if (!realpath(path, real) || stat(real, &sb) != 0 || !S_ISREG(sb.st_mode) ||
        access(real, R_OK) != 0)
        return NULL;
    if (!below(real, here) && !below(real, run_cwd))
        return NULL;
    return strdup(real);
}

char *
srcfile_resolve(const char *file, const char *run_cwd)
{
    char here[PATH_MAX], joined[2 * PATH_MAX];
    if (!file || !*file || !getcwd(here, sizeof(here)))
        return NULL;
    if (file[0] == '/')
        return check(file, here, run_cwd);
    char *r = check(file, here, run_cwd);
    if (!r && run_cwd && run_cwd[0] == '/') {
        snprintf(joined, sizeof(joined), "%s/%s", run_cwd, file);
        r = check(joined, here, run_cwd);
    }
    return r;
}

int
srcfile_load(struct srcfile *f, const char *path)
{
    memset(f, 0, sizeof(*f));
    FILE *in = fopen(path, "rb");
    if (!in)
        return -1;
    size_t cap = 0, len = 0;
    char buf[65536];
    size_t got;
    while ((got = fread(buf, 1, sizeof(buf), in)) > 0) {
        if (len + got > SRCFILE_MAX_BYTES) {
            fclose(in);
            srcfile_release(f);
            return -1;
        }
        if (len + got + 1 > cap) {
            cap = 2 * (len + got + 1);
            char *t = realloc(f->text, cap);
            if (!t)
                abort();
            f->text = t;
        }
        memcpy(f->text + len, buf, got);
        len += got;
    }
    fclose(in);
    if (!f->text && !(f->text = malloc(1)))
        abort();
    f->text[len] = '\0';
    size_t lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += f->text[i] == '\n';
    f->line = malloc(lines * sizeof(*f->line));
    if (!f->line)
        abort();
    char *p = f->text;
    while (f->nlines < lines) {
        f->line[f->nlines++] = p;
        char *nl = strchr(p, '\n');
        if (!nl)
            break;
        *nl = '\0';
        if (nl > p && nl[-1] == '\r')
            nl[-1] = '\0';
        p = nl + 1;
    }
    return 0;
}

void
srcfile_release(struct srcfile *f)
{
    free(f->text);
    free(f->line);
    memset(f, 0, sizeof(*f));
}

const char *
srcfile_line(const struct srcfile *f, long long n)
{
    if (!f || n < 1 || (size_t)n > f->nlines)
        return NULL;
    return f->line[n - 1];
}
