/* SPDX-License-Identifier: MIT */
/*
 * redact: keep secrets on the command line out of tickets.
 *
 * A ticket is pasted where many people read it, so exports redact by
 * default and `--no-redact` opts out. The rules are deliberately about
 * *names* and *shapes*, not guesses about entropy:
 *   1. an argument `[-[-]]KEY=VALUE` or `KEY:VALUE` whose KEY matches the
 *      secret-name pattern keeps its key and loses its value;
 *   2. an option `-KEY` / `--KEY` without `=` whose KEY matches loses the
 *      next argument (the `--token abc` form);
 *   3. well-known token shapes are removed wherever they appear
 *      (GitHub, GitLab, Slack, AWS access keys, OpenAI-style keys);
 *   4. a URL's `user:password@` loses the password.
 * `-p secret` is NOT redacted: `-p` names no secret, and guessing would
 * redact every short option's value. False positives ("--author=...")
 * are accepted: hiding a harmless value costs less than leaking a token.
 *
 * Speed (issue 20 §4: linear in the input, a 1 MB command line in a few
 * milliseconds; docs/bench-redact.md). Every step is one pass over its
 * input: the JSON array is read by the small reader below and written
 * by hand, each argument goes through two scratch buffers that every
 * argument reuses (decode, sanitize, tokens, URLs, quote), and the long
 * runs (plain JSON text, text without a token's first letter) are
 * skipped eight bytes or one table look-up at a time. jansson's parser
 * and writer took about 25 ms for 1 MB, SQLite's json_each() and
 * json_quote() 6 to 10 ms plus a connection per call; this reader takes
 * well under one.
 */
#include "export/export.h"
#include "export/sanitize.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MASK "***"
#define MASK_LEN 3

/*
 * A key names a secret when it holds, in any case, one of: token, secret,
 * passw(or)?d, pwd, auth, credential, api[_-]?key, private[_-]?key,
 * access[_-]?key. Only its first KEY_MAX bytes are looked at.
 */
#define KEY_MAX 255

/* Containers nested in one argument's value (json_each() allows 2000; argv needs 0). */
#define JSON_DEPTH_MAX 1000

/*
 * The token shapes, the URL passwords and the KEY=VALUE / --KEY forms are
 * scans in one pass, linear in the argument's length. POSIX regexec()
 * was used for them, and glibc's matcher retries each start position
 * over a long run of the shapes' characters: a 64 KB argument took 10 s,
 * 128 KB 41 s (issue 20).
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

/* The first letters of the token shapes token_at() knows. */
static const unsigned char token_first[256] = {
    ['g'] = 1, ['x'] = 1, ['A'] = 1, ['s'] = 1, ['e'] = 1};

/*
 * Copy s (n bytes) to out with every well-known token replaced by MASK;
 * returns the length written (never more than n: a token is longer than
 * MASK) and NUL-terminates out.
 */
static size_t
mask_tokens(const char *s, size_t n, char *out)
{
    struct runs r = {.s = s, .n = n};
    size_t o = 0, copied = 0;
    for (size_t i = 0; i < n;) {
        while (i < n && !token_first[(unsigned char)s[i]])
            i++;
        size_t e = i < n ? token_at(&r, i) : 0;
        if (!e) {
            i++;
            continue;
        }
        memcpy(out + o, s + copied, i - copied);
        o += i - copied;
        memcpy(out + o, MASK, MASK_LEN);
        o += MASK_LEN;
        i = copied = e;
    }
    memcpy(out + o, s + copied, n - copied);
    o += n - copied;
    out[o] = '\0';
    return o;
}

/* The bytes that end a URL's user (colon) or password: '/', '@', white space, the end. */
static int
is_url_stop(unsigned char ch, int colon)
{
    return ch == '/' || ch == '@' || (colon && ch == ':') || ch == ' ' ||
           (ch >= '\t' && ch <= '\r') || ch == '\0';
}

/* The most mask_url_passwords() writes for n bytes: each match of >= 8 bytes grows by <= 2. */
static size_t
url_out_max(size_t n)
{
    return n + MASK_LEN * (n / 6 + 1) + 1;
}

/*
 * Copy s (n bytes, NUL-terminated) to out (url_out_max(n) bytes) with
 * the password of every scheme://user:password@ replaced by MASK (scheme
 * [A-Za-z0-9+.-]* holding a letter, user and password without '/', '@'
 * or white space, the user also without ':'). Returns the length written.
 * Each byte is read a bounded number of times: the scheme scan stops at
 * the previous "://" (':' and '/' are not scheme characters), the user
 * and password scans at the next.
 */
static size_t
mask_url_passwords(const char *s, size_t n, char *out)
{
    size_t o = 0, copied = 0;
    for (size_t p = 0; p + 3 <= n; p++) {
        if (s[p] != ':' || s[p + 1] != '/' || s[p + 2] != '/')
            continue;
        int scheme = 0;
        for (size_t q = p; q > copied && in_cls(CLS_SCHEME, (unsigned char)s[q - 1]); q--) {
            unsigned char ch = (unsigned char)s[q - 1] | 0x20;
            if (ch >= 'a' && ch <= 'z') {
                scheme = 1;
                break;
            }
        }
        if (!scheme)
            continue;
        size_t u = p + 3, ue = u;
        while (!is_url_stop((unsigned char)s[ue], 1))
            ue++;
        if (ue == u || s[ue] != ':')
            continue;
        size_t pw = ue + 1, pe = pw;
        while (!is_url_stop((unsigned char)s[pe], 0))
            pe++;
        if (pe == pw || s[pe] != '@')
            continue;
        memcpy(out + o, s + copied, pw - copied);
        o += pw - copied;
        memcpy(out + o, MASK, MASK_LEN);
        o += MASK_LEN;
        copied = p = pe;
    }
    memcpy(out + o, s + copied, n - copied);
    o += n - copied;
    out[o] = '\0';
    return o;
}

/* Does the lowercase word w start at k[i] (k has n bytes), in any case? */
static int
word_at(const char *k, size_t n, size_t i, const char *w)
{
    for (; *w; w++, i++)
        if (i >= n || ((unsigned char)k[i] | 0x20) != (unsigned char)*w)
            return 0;
    return 1;
}

/* Does this key (len bytes, [A-Za-z0-9_.-] only) name a secret? See KEY_MAX. */
static int
key_is_secret(const char *key, size_t len)
{
    static const char *const names[] = {"token", "secret", "password",  "passwd",
                                        "pwd",   "auth",   "credential"};
    static const char *const before_key[] = {"api", "private", "access"}; /* then [_-]?key */
    size_t n = len < KEY_MAX ? len : KEY_MAX;
    for (size_t i = 0; i < n; i++) {
        for (size_t w = 0; w < sizeof(names) / sizeof(names[0]); w++)
            if (word_at(key, n, i, names[w]))
                return 1;
        for (size_t w = 0; w < sizeof(before_key) / sizeof(before_key[0]); w++) {
            if (!word_at(key, n, i, before_key[w]))
                continue;
            size_t j = i + strlen(before_key[w]);
            j += j < n && (key[j] == '_' || key[j] == '-');
            if (word_at(key, n, j, "key"))
                return 1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Buffers and runs of plain bytes                                      */
/* ------------------------------------------------------------------ */

/* A buffer that only grows; its contents are scratch unless grown with keep. */
struct scratch {
    char *p;
    size_t cap; /* bytes allocated */
};

/*
 * Make room for n bytes. Scratch contents are not copied (free and
 * malloc: realloc would copy what is dead). Returns 0, or -1 when out of
 * memory (the old buffer is kept, so the caller frees it once).
 */
static int
scratch_grow(struct scratch *b, size_t n, int keep)
{
    if (n <= b->cap)
        return 0;
    size_t cap = b->cap > SIZE_MAX / 2 ? SIZE_MAX : b->cap * 2;
    cap = cap < n ? n : cap;
    char *p;
    if (keep) {
        p = realloc(b->p, cap);
    } else {
        p = malloc(cap);
        if (p)
            free(b->p);
    }
    if (!p)
        return -1;
    b->p = p;
    b->cap = cap;
    return 0;
}

#define ONES UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)

/* Nonzero when some byte of v is below b (b <= 128), exactly (Bit Twiddling Hacks, hasless). */
static uint64_t
has_below(uint64_t v, unsigned b)
{
    return (v - ONES * b) & ~v & HIGHS;
}

/* Does c need an escape in a JSON string (RFC 8259 §7)? */
static int
is_json_special(unsigned char c)
{
    return c == '"' || c == '\\' || c < 0x20;
}

/*
 * The length of the run of bytes at s (at most n) that a JSON string
 * holds as they are: no '"', '\\' or control. Eight at a time: a 1 MB
 * argument is one such run.
 */
static size_t
json_plain_run(const char *s, size_t n)
{
    size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        uint64_t v;
        memcpy(&v, s + k, 8);
        if (has_below(v, 0x20) | has_below(v ^ (ONES * '"'), 1) | has_below(v ^ (ONES * '\\'), 1))
            break;
    }
    while (k < n && !is_json_special((unsigned char)s[k]))
        k++;
    return k;
}

/* ------------------------------------------------------------------ */
/* JSON in and out                                                      */
/* ------------------------------------------------------------------ */

/*
 * The JSON text being read (RFC 8259, as strict as SQLite's json_each(),
 * which did this before): s[i] is the next byte, n the text's length.
 */
struct jin {
    const char *s;
    size_t i, n;
};

static void
skip_ws(struct jin *j)
{
    while (j->s[j->i] == ' ' || j->s[j->i] == '\t' || j->s[j->i] == '\n' || j->s[j->i] == '\r')
        j->i++;
}

/* The four hex digits at s as a number, or -1. */
static long
hex4(const char *s)
{
    long v = 0;
    for (int k = 0; k < 4; k++) {
        unsigned char c = (unsigned char)s[k];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return -1;
        v = v << 4 | d;
    }
    return v;
}

/*
 * Write code point cp as UTF-8 to out (when not NULL); returns its
 * length. A lone surrogate is written as its three bytes, as SQLite
 * does: the sanitizer then replaces them, like any invalid UTF-8.
 */
static size_t
put_utf8(char *out, uint32_t cp)
{
    unsigned char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (unsigned char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (unsigned char)(0xc0 | cp >> 6);
        b[1] = (unsigned char)(0x80 | (cp & 0x3f));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (unsigned char)(0xe0 | cp >> 12);
        b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        b[2] = (unsigned char)(0x80 | (cp & 0x3f));
        n = 3;
    } else {
        b[0] = (unsigned char)(0xf0 | cp >> 18);
        b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
        b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        b[3] = (unsigned char)(0x80 | (cp & 0x3f));
        n = 4;
    }
    if (out)
        memcpy(out, b, n);
    return n;
}

/*
 * Read the JSON string at s[i] == '"'. With out (room for the rest of the
 * text: a string never decodes longer than it is written), write its
 * bytes there, NUL-terminated, and their count in *len. Returns 0, or -1
 * when it is malformed.
 */
static int
read_string(struct jin *j, char *out, size_t *len)
{
    const char *s = j->s;
    size_t i = j->i + 1, o = 0;
    for (;;) {
        size_t run = json_plain_run(s + i, j->n - i);
        if (out)
            memcpy(out + o, s + i, run);
        o += run;
        i += run;
        if (s[i] == '"')
            break;
        if (s[i] != '\\')
            return -1; /* a control byte, or the end of the text */
        char c = s[i + 1], e;
        i += 2;
        switch (c) {
        case '"':
        case '\\':
        case '/':
            e = c;
            break;
        case 'b':
            e = '\b';
            break;
        case 'f':
            e = '\f';
            break;
        case 'n':
            e = '\n';
            break;
        case 'r':
            e = '\r';
            break;
        case 't':
            e = '\t';
            break;
        case 'u': {
            long v = hex4(s + i), lo;
            if (v < 0)
                return -1;
            i += 4;
            uint32_t cp = (uint32_t)v;
            if ((cp & 0xfc00) == 0xd800 && s[i] == '\\' && s[i + 1] == 'u' &&
                (lo = hex4(s + i + 2)) >= 0 && (lo & 0xfc00) == 0xdc00) {
                cp = 0x10000 + ((cp & 0x3ff) << 10) + ((uint32_t)lo & 0x3ff);
                i += 6;
            }
            o += put_utf8(out ? out + o : NULL, cp);
            continue;
        }
        default:
            return -1;
        }
        if (out)
            out[o] = e;
        o++;
    }
    j->i = i + 1;
    if (out)
        out[o] = '\0';
    *len = o;
    return 0;
}

/* Read a number, true, false or null at s[i]. Returns 0 or -1. */
static int
skip_scalar(struct jin *j)
{
    const char *s = j->s + j->i;
    static const char *const words[] = {"true", "false", "null"};
    for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
        size_t n = strlen(words[w]);
        if (!strncmp(s, words[w], n)) {
            j->i += n;
            return 0;
        }
    }
    /* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
    size_t k = *s == '-';
    if (s[k] == '0')
        k++;
    else if (s[k] >= '1' && s[k] <= '9')
        while (s[k] >= '0' && s[k] <= '9')
            k++;
    else
        return -1;
    if (s[k] == '.') {
        if (!(s[++k] >= '0' && s[k] <= '9'))
            return -1;
        while (s[k] >= '0' && s[k] <= '9')
            k++;
    }
    if (s[k] == 'e' || s[k] == 'E') {
        k += s[k + 1] == '+' || s[k + 1] == '-';
        if (!(s[++k] >= '0' && s[k] <= '9'))
            return -1;
        while (s[k] >= '0' && s[k] <= '9')
            k++;
    }
    j->i += k;
    return 0;
}

/* Read `"key" :` of an object member. Returns 0 or -1. */
static int
read_key(struct jin *j)
{
    size_t len;
    skip_ws(j);
    if (j->s[j->i] != '"' || read_string(j, NULL, &len))
        return -1;
    skip_ws(j);
    if (j->s[j->i] != ':')
        return -1;
    j->i++;
    return 0;
}

/*
 * Read one JSON value of any kind (an argument that is not a string),
 * checking it and keeping nothing. Iterative: the nesting costs a byte of
 * stack per level, not a call.
 */
static int
skip_value(struct jin *j)
{
    char open[JSON_DEPTH_MAX]; /* '[' or '{' of each container the value is in */
    size_t depth = 0, len;
    for (;;) {
        skip_ws(j);
        char c = j->s[j->i];
        if (c == '[' || c == '{') {
            j->i++;
            skip_ws(j);
            if (j->s[j->i] == (c == '[' ? ']' : '}')) {
                j->i++;
            } else {
                if (depth == JSON_DEPTH_MAX)
                    return -1;
                open[depth++] = c;
                if (c == '{' && read_key(j))
                    return -1;
                continue; /* its first value */
            }
        } else if (c == '"' ? read_string(j, NULL, &len) : skip_scalar(j)) {
            return -1;
        }
        /* After a value: close what ends here, or go on to the next member. */
        while (depth > 0) {
            skip_ws(j);
            char close = open[depth - 1] == '[' ? ']' : '}';
            c = j->s[j->i++];
            if (c == ',') {
                if (close == '}' && read_key(j))
                    return -1;
                break;
            }
            if (c != close)
                return -1;
            depth--;
        }
        if (depth == 0)
            return 0;
    }
}

/*
 * Write s (n bytes) as a JSON string at out + o (room for 6 * n + 2
 * bytes); returns the new length. Escapes what RFC 8259 requires and no
 * more, as SQLite's json_quote() did: sanitized text holds no control
 * byte, so in practice only '"' and '\\'.
 */
static size_t
put_json_string(char *out, size_t o, const char *s, size_t n)
{
    out[o++] = '"';
    for (size_t i = 0;;) {
        size_t run = json_plain_run(s + i, n - i);
        memcpy(out + o, s + i, run);
        o += run;
        i += run;
        if (i == n)
            break;
        unsigned char c = (unsigned char)s[i++];
        static const char hex[] = "0123456789abcdef";
        const char *e = c == '"'    ? "\\\""
                        : c == '\\' ? "\\\\"
                        : c == '\b' ? "\\b"
                        : c == '\f' ? "\\f"
                        : c == '\n' ? "\\n"
                        : c == '\r' ? "\\r"
                        : c == '\t' ? "\\t"
                                    : NULL;
        if (e) {
            memcpy(out + o, e, 2);
            o += 2;
        } else {
            memcpy(out + o, "\\u00", 4);
            out[o + 4] = hex[c >> 4];
            out[o + 5] = hex[c & 15];
            o += 6;
        }
    }
    out[o++] = '"';
    return o;
}

/* ------------------------------------------------------------------ */
/* One argument                                                         */
/* ------------------------------------------------------------------ */

/*
 * Redact one argument: its decoded bytes are in b->p (len bytes,
 * NUL-terminated; an embedded NUL ends it, as it ended the C string the
 * old code read). *mask_this says the previous argument named a secret;
 * it is set for the next. Returns the redacted, sanitized text (in a or
 * b, or MASK) and its length in *out_len, or NULL when out of memory.
 */
static const char *
redact_arg(struct scratch *a, struct scratch *b, size_t len, int *mask_this, size_t *out_len)
{
    /* Sanitized first: the scans and the key test see valid UTF-8 only, never a control byte. */
    if (len > (SIZE_MAX - 32) / 4 || scratch_grow(a, 4 * len + 17, 0))
        return NULL;
    char *s = sanitize_into(a->p, 4 * len + 17, b->p);
    size_t n = strlen(s);
    if (*mask_this && s[0] != '-') {
        *mask_this = 0;
        *out_len = MASK_LEN;
        return MASK;
    }
    *mask_this = 0;
    /* [-[-]]KEY=VALUE or KEY:VALUE: KEY is a run of [A-Za-z0-9_.-], VALUE not empty. */
    size_t k = 0;
    while (k < n && in_cls(CLS_KEY, (unsigned char)s[k]))
        k++;
    if (k > 0 && (s[k] == '=' || s[k] == ':') && s[k + 1] && key_is_secret(s, k)) {
        memcpy(s + k + 1, MASK, MASK_LEN + 1); /* fits: the value had >= 1 byte, a holds 4n + 17 */
        *out_len = k + 1 + MASK_LEN;
        return s;
    }
    /* -KEY or --KEY alone: the next argument is its value. */
    size_t d = s[0] == '-' ? (s[1] == '-' ? 2 : 1) : 0;
    if (d && s[d] && k == n && key_is_secret(s + d, k - d))
        *mask_this = 1;
    if (scratch_grow(b, n + 1, 0))
        return NULL;
    size_t t = mask_tokens(s, n, b->p);
    if (scratch_grow(a, url_out_max(t), 0))
        return NULL;
    *out_len = mask_url_passwords(b->p, t, a->p);
    return a->p;
}

char *
export_redact_argv(const char *argv_json)
{
    if (!argv_json)
        return NULL;
    struct jin j = {.s = argv_json, .n = strlen(argv_json)};
    struct scratch a = {0}, b = {0}, out = {0};
    char *ret = NULL;
    size_t o = 0;
    skip_ws(&j);
    if (argv_json[j.i] != '[' || scratch_grow(&b, j.n + 1, 0) || scratch_grow(&out, j.n + 3, 1))
        goto out;
    j.i++;
    out.p[o++] = '[';
    skip_ws(&j);
    if (argv_json[j.i] == ']') {
        j.i++;
    } else {
        int mask_this = 0;
        for (;;) {
            size_t len = 0, n;
            skip_ws(&j);
            if (argv_json[j.i] == '"') {
                if (scratch_grow(&b, j.n - j.i + 1, 0) || read_string(&j, b.p, &len))
                    goto out;
            } else {
                if (skip_value(&j))
                    goto out;
                b.p[0] = '\0'; /* json_each() gave a value that is not text as "" */
            }
            const char *r = redact_arg(&a, &b, len, &mask_this, &n);
            if (!r || n > (SIZE_MAX - o - 8) / 6 || scratch_grow(&out, o + 6 * n + 8, 1))
                goto out;
            if (o > 1)
                out.p[o++] = ',';
            o = put_json_string(out.p, o, r, n);
            skip_ws(&j);
            char c = argv_json[j.i++];
            if (c == ']')
                break;
            if (c != ',')
                goto out;
        }
    }
    skip_ws(&j);
    if (j.i != j.n)
        goto out; /* more than one value */
    out.p[o++] = ']';
    out.p[o] = '\0';
    ret = out.p;
    out.p = NULL;
out:
    free(a.p);
    free(b.p);
    free(out.p);
    return ret; /* owned by the caller */
}
