/* SPDX-License-Identifier: MIT */
/*
 * redact_ref: the reference the redaction is compared with.
 *
 * This is export/redact.c as it was at commit 443d007 ("export: decode
 * argv JSON with SQLite, not jansson"): SQLite's json_each() and
 * json_quote() around the scans, the secret-key regex, a copy per pass.
 * It was slow (8 to 40 ms for a 1 MB command line) but its output is the
 * behaviour every test agreed with; test_redact compares export/redact.c
 * with it on random command lines. Only the function's name changed.
 */
#include "export/export.h"
#include "export/sanitize.h"
#include "tests/unit/redact_ref.h"
#include "schema/strbuf.h"

#include <ctype.h>
#include <regex.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#define MASK "***"

static const char SECRET_KEY[] = "(token|secret|passw(or)?d|passwd|pwd|api[_-]?key|auth|credential|"
                                 "private[_-]?key|access[_-]?key)";

/*
 * Everything but the key test is a scan in one pass, linear in the
 * argument's length. POSIX regexec() was used for the token shapes and
 * URLs, and glibc's matcher retries each start position over a long run
 * of the shapes' characters: a 64 KB argument took 10 s, 128 KB 41 s
 * (issue 20). The key regex stays: keys are capped at 255 bytes.
 */

/* Character classes of the token shapes. */
enum cls {
    CLS_ALNUM,         /* [A-Za-z0-9] */
    CLS_ALNUM_US,      /* [A-Za-z0-9_] */
    CLS_ALNUM_US_DASH, /* [A-Za-z0-9_-] */
    CLS_ALNUM_DASH,    /* [A-Za-z0-9-] */
    CLS_UPPER_DIGIT,   /* [0-9A-Z] */
    CLS_SCHEME,        /* [A-Za-z0-9+.-] */
    CLS_KEY,           /* [A-Za-z0-9_.-] */
    CLS_N,
};

static int
in_cls(enum cls c, unsigned char ch)
{
    int alpha = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
    int digit = ch >= '0' && ch <= '9';
    switch (c) {
    case CLS_ALNUM:
        return alpha || digit;
    case CLS_ALNUM_US:
        return alpha || digit || ch == '_';
    case CLS_ALNUM_US_DASH:
        return alpha || digit || ch == '_' || ch == '-';
    case CLS_ALNUM_DASH:
        return alpha || digit || ch == '-';
    case CLS_UPPER_DIGIT:
        return (ch >= 'A' && ch <= 'Z') || digit;
    case CLS_SCHEME:
        return alpha || digit || ch == '+' || ch == '.' || ch == '-';
    case CLS_KEY:
        return alpha || digit || ch == '_' || ch == '.' || ch == '-';
    default:
        return 0;
    }
}

/*
 * The end of the run of class `c` characters starting at `i`. A scanner
 * that fails on one start position asks again from a later position of
 * the same run; the last run of each class is remembered, so every
 * character is counted once per class and the whole scan stays linear.
 */
struct runs {
    const char *s;
    size_t n;
    size_t from[CLS_N], end[CLS_N]; /* last run of each class: [from, end) */
};

static size_t
run_end(struct runs *r, enum cls c, size_t i)
{
    if (i >= r->from[c] && i < r->end[c])
        return r->end[c];
    size_t e = i;
    while (e < r->n && in_cls(c, (unsigned char)r->s[e]))
        e++;
    if (e > i) {
        r->from[c] = i;
        r->end[c] = e;
    }
    return e;
}

/* A run of at least `min` class-`c` characters at `i`: its end, else 0. */
static size_t
run_at_least(struct runs *r, enum cls c, size_t i, size_t min)
{
    size_t e = run_end(r, c, i);
    return e - i >= min ? e : 0;
}

/* Does `lit` (with '?' standing for any of `alt`) start at s[i]? */
static int
starts(const struct runs *r, size_t i, const char *lit, const char *alt)
{
    for (size_t k = 0; lit[k]; k++) {
        if (i + k >= r->n)
            return 0;
        char ch = r->s[i + k];
        if (lit[k] == '?' ? !strchr(alt, ch) || !ch : ch != lit[k])
            return 0;
    }
    return 1;
}

/*
 * The end of a well-known token starting at s[i], or 0 (the shapes:
 * GitHub, GitLab, Slack, AWS access keys, OpenAI-style keys, JWTs).
 */
static size_t
token_at(struct runs *r, size_t i)
{
    switch (r->s[i]) {
    case 'g':
        if (starts(r, i, "gh?_", "pousr"))
            return run_at_least(r, CLS_ALNUM, i + 4, 20);
        if (starts(r, i, "github_pat_", ""))
            return run_at_least(r, CLS_ALNUM_US, i + 11, 20);
        if (starts(r, i, "glpat-", ""))
            return run_at_least(r, CLS_ALNUM_US_DASH, i + 6, 20);
        return 0;
    case 'x':
        return starts(r, i, "xox?-", "abprs") ? run_at_least(r, CLS_ALNUM_DASH, i + 5, 10) : 0;
    case 'A':
        /* Exactly 16 characters, wherever the run of them ends. */
        if (starts(r, i, "A?IA", "KS") && run_end(r, CLS_UPPER_DIGIT, i + 4) >= i + 20)
            return i + 20;
        return 0;
    case 's':
        return starts(r, i, "sk-", "") ? run_at_least(r, CLS_ALNUM_US_DASH, i + 3, 20) : 0;
    case 'e': {
        if (!starts(r, i, "eyJ", ""))
            return 0;
        size_t e = run_at_least(r, CLS_ALNUM_US_DASH, i + 3, 10);
        for (int part = 0; part < 2 && e; part++)
            e = e < r->n && r->s[e] == '.' ? run_at_least(r, CLS_ALNUM_US_DASH, e + 1, 10) : 0;
        return e;
    }
    default:
        return 0;
    }
}

/* Append n bytes to a buffer of capacity >= the final length (no checks needed). */
static void
put(char *out, size_t *o, const char *s, size_t n)
{
    memcpy(out + *o, s, n);
    *o += n;
}

/* Replace every well-known token in s with MASK. Returns a new string. */
static char *
mask_tokens(const char *s)
{
    struct runs r = {.s = s, .n = strlen(s)};
    char *out = malloc(r.n + 1);
    size_t o = 0;
    if (!out)
        abort();
    for (size_t i = 0; i < r.n;) {
        size_t e = token_at(&r, i);
        if (e) {
            put(out, &o, MASK, strlen(MASK)); /* never longer than a token */
            i = e;
        } else {
            out[o++] = s[i++];
        }
    }
    out[o] = '\0';
    return out;
}

static int
is_url_stop(unsigned char ch, int colon)
{
    return ch == '/' || ch == '@' || (colon && ch == ':') || isspace(ch) || ch == '\0';
}

/*
 * Replace the password of every scheme://user:password@ in s with MASK
 * (scheme [A-Za-z][A-Za-z0-9+.-]*, user and password without '/', '@'
 * or spaces, the user also without ':'). Returns a new string.
 */
static char *
mask_url_passwords(const char *s)
{
    size_t n = strlen(s), o = 0, copied = 0;
    char *out = malloc(n + strlen(MASK) * (n / 6 + 1) + 1);
    if (!out)
        abort();
    for (const char *p = strstr(s, "://"); p; p = strstr(p + 1, "://")) {
        /* A scheme: a run of scheme characters before "://" holding a letter. */
        int scheme = 0;
        for (const char *q = p; q > s + copied && in_cls(CLS_SCHEME, (unsigned char)q[-1]); q--)
            if (isalpha((unsigned char)q[-1])) {
                scheme = 1;
                break;
            }
        if (!scheme)
            continue;
        const char *u = p + 3, *ue = u;
        while (!is_url_stop((unsigned char)*ue, 1))
            ue++;
        if (ue == u || *ue != ':')
            continue;
        const char *pw = ue + 1, *pe = pw;
        while (!is_url_stop((unsigned char)*pe, 0))
            pe++;
        if (pe == pw || *pe != '@')
            continue;
        put(out, &o, s + copied, (size_t)(pw - s) - copied);
        put(out, &o, MASK, strlen(MASK));
        copied = (size_t)(pe - s);
        p = pe;
    }
    put(out, &o, s + copied, n - copied);
    out[o] = '\0';
    return out;
}

struct redactor {
    regex_t key; /* whole key matches SECRET_KEY somewhere */
};

static int
redactor_init(struct redactor *x)
{
    return regcomp(&x->key, SECRET_KEY, REG_EXTENDED | REG_ICASE | REG_NOSUB) ? -1 : 0;
}

static void
redactor_release(struct redactor *x)
{
    regfree(&x->key);
}

/* Does this key name a secret? Works on a copy bounded to the key. */
static int
key_is_secret(const struct redactor *x, const char *key, size_t len)
{
    char buf[256];
    if (len >= sizeof(buf))
        len = sizeof(buf) - 1;
    memcpy(buf, key, len);
    buf[len] = '\0';
    return regexec(&x->key, buf, 0, NULL, 0) == 0;
}

/* Redact one argument; *next_secret tells the caller to mask the next one. */
static char *
redact_arg(const struct redactor *x, const char *arg, int *next_secret)
{
    *next_secret = 0;
    /* [-[-]]KEY=VALUE or KEY:VALUE: KEY is a run of [A-Za-z0-9_.-], VALUE not empty. */
    size_t k = strspn(arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-");
    if (k > 0 && (arg[k] == '=' || arg[k] == ':') && arg[k + 1] && key_is_secret(x, arg, k)) {
        size_t n = k + 1 + strlen(MASK) + 1;
        char *t = malloc(n);
        if (!t)
            abort();
        snprintf(t, n, "%.*s%s", (int)(k + 1), arg, MASK);
        return t;
    }
    /* -KEY or --KEY alone: the next argument is its value. */
    size_t d = arg[0] == '-' ? (arg[1] == '-' ? 2 : 1) : 0;
    if (d && arg[d] && !arg[k] && key_is_secret(x, arg + d, k - d))
        *next_secret = 1;
    char *t = mask_tokens(arg);
    char *u = mask_url_passwords(t);
    free(t);
    return u;
}

/* Append `s` as a JSON string (SQLite's json_quote) and a separator to *out. */
static int
append_quoted(sqlite3_stmt *quote, struct strbuf *out, const char *s)
{
    sqlite3_reset(quote);
    sqlite3_bind_text(quote, 1, s, -1, SQLITE_STATIC);
    if (sqlite3_step(quote) != SQLITE_ROW)
        return -1;
    strbuf_adds(out, out->len > 1 ? "," : "");
    strbuf_add(out, (const char *)sqlite3_column_text(quote, 0),
               (size_t)sqlite3_column_bytes(quote, 0));
    return 0;
}

/*
 * The JSON array is decoded and encoded by SQLite's JSON functions on a
 * private in-memory connection rather than jansson: jansson's parser and
 * writer take about 25 ms for a 1 MB argument, SQLite's about 3 ms, and
 * the whole redaction must stay within a few milliseconds.
 */
char *
redact_ref_argv(const char *argv_json)
{
    if (!argv_json)
        return NULL;
    sqlite3 *db = NULL;
    sqlite3_stmt *each = NULL, *quote = NULL;
    struct strbuf out = STRBUF_INIT;
    struct redactor x;
    int ret = -1, have_x = 0, rc;
    if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL) !=
            SQLITE_OK ||
        sqlite3_prepare_v2(db, "SELECT json_quote(?1)", -1, &quote, NULL) != SQLITE_OK)
        goto out;
    if (redactor_init(&x))
        goto out;
    have_x = 1;
    /*
     * json_each() fails on malformed JSON and walks any valid value; an
     * array is one whose text starts with '[' (a second json_type() pass
     * over 1 MB would cost another 2 ms).
     */
    const char *first = argv_json + strspn(argv_json, " \t\r\n");
    if (*first != '[' ||
        sqlite3_prepare_v2(db, "SELECT type, value FROM json_each(?1) ORDER BY key", -1, &each,
                           NULL) != SQLITE_OK)
        goto out;
    sqlite3_bind_text(each, 1, argv_json, -1, SQLITE_STATIC);
    strbuf_adds(&out, "[");
    int mask_this = 0;
    while ((rc = sqlite3_step(each)) == SQLITE_ROW) {
        const char *type = (const char *)sqlite3_column_text(each, 0);
        const char *raw =
            type && !strcmp(type, "text") ? (const char *)sqlite3_column_text(each, 1) : "";
        raw = raw ? raw : "";
        /* Sanitized first: the scans and the key regex see valid UTF-8 only. */
        char *clean = sanitize_text(raw, strlen(raw) * 4 + 16);
        char *r = NULL;
        if (mask_this && clean[0] != '-')
            mask_this = 0;
        else
            r = redact_arg(&x, clean, &mask_this);
        int bad = append_quoted(quote, &out, r ? r : MASK);
        free(r);
        free(clean);
        if (bad)
            goto out;
    }
    strbuf_adds(&out, "]");
    if (rc != SQLITE_DONE || out.oom)
        goto out;
    ret = 0;
out:
    sqlite3_finalize(each);
    sqlite3_finalize(quote);
    sqlite3_close(db);
    if (have_x)
        redactor_release(&x);
    if (ret) {
        strbuf_release(&out);
        return NULL;
    }
    return out.p; /* owned by the caller now */
}
