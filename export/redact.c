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
 * milliseconds; docs/bench-redact.md). Every step is one pass, and an
 * argument touches two buffers, its sanitized text (reused by the next
 * argument) and the output: the JSON array is read by the small reader
 * below and sanitized as it is decoded (runs of raw bytes to
 * sanitize_append(), \u00XX and its control piece inline, printable
 * ASCII copied eight bytes a step, the buffer sized once), already in
 * its JSON form for export_redact_argv() ('"' and '\\' escaped, so no
 * pass escapes it again); tokens are masked in place by a scan that
 * skips every window of fewer than TOKEN_MIN token characters and steps
 * over plain ones four at a time, and the URL scan copies its pieces
 * into the output. A 1 MB line of terminal escapes went from about 135
 * to 72 million instructions (callgrind) with the first of these, and
 * to 27 million with the rest; no call after the first takes fresh
 * pages (the output is sized for the argument, below the decoding
 * buffer that glibc then keeps).
 * jansson's parser and writer took about 25 ms for 1 MB, SQLite's
 * json_each() and json_quote() 6 to 10 ms plus a connection per call,
 * and four buffers per argument about 1,000 page faults (3 ms).
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

/*
 * Bits of cls_bits[]: which classes hold the character; CB_FIRST: the
 * first letter of a token shape token_at() knows; CB_PLAIN: a token
 * character ([A-Za-z0-9_.-], CLS_KEY) that is no such first letter,
 * which mask_tokens() steps over four at a time; CB_PLAIN_E: CB_PLAIN or
 * 'e', for where an "eyJ" is known to be no JWT (runs.jwt_fails_before).
 */
#define CB_FIRST 0x80
#define CB_PLAIN 0x100
#define CB_PLAIN_E 0x200
#define CB_P (CB_PLAIN | CB_PLAIN_E)
#define CB_DIGIT (0x7f | CB_P) /* all seven */
#define CB_UPPER (0x7f | CB_P)
#define CB_LOWER ((0x7f & ~(1 << CLS_UPPER_DIGIT)) | CB_P)
#define CB_US (1 << CLS_ALNUM_US | 1 << CLS_ALNUM_US_DASH | 1 << CLS_KEY | CB_P)
#define CB_DASH                                                                                    \
    (1 << CLS_ALNUM_US_DASH | 1 << CLS_ALNUM_DASH | 1 << CLS_SCHEME | 1 << CLS_KEY | CB_P)
#define CB_DOT (1 << CLS_SCHEME | 1 << CLS_KEY | CB_P)
#define CB_PLUS (1 << CLS_SCHEME)
#define CB_UFIRST ((CB_UPPER & ~CB_P) | CB_FIRST)
#define CB_LFIRST ((CB_LOWER & ~CB_P) | CB_FIRST)
#define CB_E (CB_LFIRST | CB_PLAIN_E)

/* A look-up per character: the runs of a 1 MB argument are read in a few ms. */
static const unsigned short cls_bits[256] = {
    ['0'] = CB_DIGIT,  CB_DIGIT,        CB_DIGIT,       CB_DIGIT,        CB_DIGIT, CB_DIGIT,
    CB_DIGIT,          CB_DIGIT,        CB_DIGIT,       CB_DIGIT, /* '0' to '9' */
    ['A'] = CB_UFIRST, CB_UPPER,        CB_UPPER,       CB_UPPER,        CB_UPPER, CB_UPPER,
    CB_UPPER,          CB_UPPER,        CB_UPPER,       CB_UPPER,        CB_UPPER, CB_UPPER,
    CB_UPPER,          CB_UPPER,        CB_UPPER,       CB_UPPER,        CB_UPPER, CB_UPPER,
    CB_UPPER,          CB_UPPER,        CB_UPPER,       CB_UPPER,        CB_UPPER, CB_UPPER,
    CB_UPPER,          CB_UPPER, /* 'A' to 'Z' */
    ['a'] = CB_LOWER,  CB_LOWER,        CB_LOWER,       CB_LOWER,        CB_E,     CB_LOWER,
    CB_LFIRST,         CB_LOWER,        CB_LOWER,       CB_LOWER,        CB_LOWER, CB_LOWER,
    CB_LOWER,          CB_LOWER,        CB_LOWER,       CB_LOWER,        CB_LOWER, CB_LOWER,
    CB_LFIRST,         CB_LOWER,        CB_LOWER,       CB_LOWER,        CB_LOWER, CB_LFIRST,
    CB_LOWER,          CB_LOWER, /* 'a' to 'z' */
    ['_'] = CB_US,     ['-'] = CB_DASH, ['.'] = CB_DOT, ['+'] = CB_PLUS,
};

static int
in_cls(enum cls c, unsigned char ch)
{
    return cls_bits[ch] >> c & 1;
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
    size_t jwt_fails_before;        /* an "eyJ" before this position is no JWT (see token_at) */
};

/* The scan of run_end(), apart so that the look-up in the cache is inlined. */
static size_t
run_scan(struct runs *r, enum cls c, size_t i)
{
    const unsigned char *s = (const unsigned char *)r->s;
    size_t e = i;
    /* Four a step (the text is padded past its NUL), then one at a time; the NUL at n stops it. */
    while ((cls_bits[s[e]] & cls_bits[s[e + 1]] & cls_bits[s[e + 2]] & cls_bits[s[e + 3]]) >> c & 1)
        e += 4;
    while (in_cls(c, s[e]))
        e++;
    if (e > i) {
        r->from[c] = i;
        r->end[c] = e;
    }
    return e;
}

static size_t
run_end(struct runs *r, enum cls c, size_t i)
{
    if (i >= r->from[c] && i < r->end[c])
        return r->end[c];
    return run_scan(r, c, i);
}

/* A run of at least `min` class-`c` characters at `i`: its end, else 0. */
static size_t
run_at_least(struct runs *r, enum cls c, size_t i, size_t min)
{
    size_t e = run_end(r, c, i);
    return e - i >= min ? e : 0;
}

/*
 * The end of a well-known token starting at s[i], or 0 (the shapes:
 * GitHub, GitLab, Slack, AWS access keys, OpenAI-style keys, JWTs). The
 * prefixes are compared a character at a time (the text is
 * NUL-terminated, so the first mismatch stops): a line of "eyJ" asks at
 * every third byte.
 */
static size_t
token_at(struct runs *r, size_t i)
{
    const char *s = r->s + i;
    switch (s[0]) {
    case 'g':
        if (s[1] == 'h' && s[2] && strchr("pousr", s[2]) && s[3] == '_')
            return run_at_least(r, CLS_ALNUM, i + 4, 20);
        if (s[1] == 'i' && !strncmp(s, "github_pat_", 11))
            return run_at_least(r, CLS_ALNUM_US, i + 11, 20);
        if (s[1] == 'l' && !strncmp(s, "glpat-", 6))
            return run_at_least(r, CLS_ALNUM_US_DASH, i + 6, 20);
        return 0;
    case 'x':
        if (s[1] == 'o' && s[2] == 'x' && s[3] && strchr("abprs", s[3]) && s[4] == '-')
            return run_at_least(r, CLS_ALNUM_DASH, i + 5, 10);
        return 0;
    case 'A':
        /* Exactly 16 characters, wherever the run of them ends. */
        if ((s[1] == 'K' || s[1] == 'S') && s[2] == 'I' && s[3] == 'A' &&
            run_end(r, CLS_UPPER_DIGIT, i + 4) >= i + 20)
            return i + 20;
        return 0;
    case 's':
        return s[1] == 'k' && s[2] == '-' ? run_at_least(r, CLS_ALNUM_US_DASH, i + 3, 20) : 0;
    case 'e': {
        if (i < r->jwt_fails_before || s[1] != 'y' || s[2] != 'J')
            return 0;
        size_t end = run_end(r, CLS_ALNUM_US_DASH, i + 3);
        size_t e = end - (i + 3) >= 10 ? end : 0;
        for (int part = 0; part < 2 && e; part++)
            e = e < r->n && r->s[e] == '.' ? run_at_least(r, CLS_ALNUM_US_DASH, e + 1, 10) : 0;
        /*
         * Every later "eyJ" whose first part ends at the same place has a
         * shorter first part and the same rest: it fails too. A line of
         * "eyJ" asks once, not at every third byte.
         */
        if (!e && end > i + 3)
            r->jwt_fails_before = end - 3;
        return e;
    }
    default:
        return 0;
    }
}

/*
 * The shortest token token_at() finds: "xox?-" and ten characters. Every
 * byte of a token is a token character, [A-Za-z0-9_.-] (CLS_KEY).
 */
#define TOKEN_MIN 15

/*
 * Replace every well-known token in s (n bytes, then at least four zero
 * bytes: read four at a time) with MASK, in place: a token is longer
 * than MASK, so what is written never passes what is
 * still to be read. Returns the new length (s stays NUL-terminated).
 * Nothing moves before the first token.
 *
 * token_at() is asked at every position that can start a token, left to
 * right, as a loop over every byte would; the others are skipped
 * (issue 20 §4: a line of terminal escapes has a first letter, the 'e'
 * of "\e", every twelve bytes):
 *   - a token is TOKEN_MIN token characters or more, so a byte that is
 *     not one rules out every start from TOKEN_MIN - 1 bytes before it
 *     up to it: the window at i is read from its end, and the scan goes
 *     on after its last such byte;
 *   - inside a run of token characters, token_at() is asked at each
 *     first letter, as before. (A step of one or two bytes chosen by the
 *     second byte was measured: it reads half the bytes of a run of
 *     letters, but each step waits for the load of the one before, and
 *     a 1 MB run took 40 % longer.)
 */
static size_t
mask_tokens(char *s, size_t n)
{
    struct runs r = {.s = s, .n = n};
    size_t o = 0, copied = 0, i = 0;
    while (i + TOKEN_MIN <= n) {
        size_t k = i + TOKEN_MIN;
        while (k > i && in_cls(CLS_KEY, (unsigned char)s[k - 1]))
            k--;
        if (k > i) {
            i = k; /* s[k - 1] ends every token that starts before it */
            continue;
        }
        /*
         * s[i .. i + TOKEN_MIN) are token characters: to the end of their
         * run, four bytes a step after four plain ones (no first letter:
         * a run of letters), else one (a line of "eyJ" has one every
         * three bytes, where a step of four would fail every time).
         */
        size_t plain = 0;
        for (;;) {
            /* An "eyJ" before jwt_fails_before is no JWT (token_at), and no other shape. */
            if (plain >= 4) {
                const unsigned char *u = (const unsigned char *)s + i; /* padded past the NUL */
                unsigned t4 = cls_bits[u[0]] & cls_bits[u[1]] & cls_bits[u[2]] & cls_bits[u[3]];
                if (t4 & CB_PLAIN || (t4 & CB_PLAIN_E && i + 4 <= r.jwt_fails_before)) {
                    i += 4;
                    continue;
                }
                plain = 0;
            }
            unsigned t = cls_bits[(unsigned char)s[i]];
            if (t & CB_PLAIN || (t & CB_PLAIN_E && i < r.jwt_fails_before)) {
                i++;
                plain++;
                continue;
            }
            if (!(t & CB_FIRST))
                break; /* not a token character (the NUL at n included) */
            plain = 0;
            size_t e = token_at(&r, i);
            if (!e) {
                i++;
                continue;
            }
            memmove(s + o, s + copied, i - copied);
            o += i - copied;
            memcpy(s + o, MASK, MASK_LEN);
            o += MASK_LEN;
            i = copied = e;
        }
    }
    if (copied == 0)
        return n; /* no token */
    memmove(s + o, s + copied, n - copied);
    o += n - copied;
    s[o] = '\0';
    return o;
}

/* ------------------------------------------------------------------ */
/* Buffers and runs of plain bytes                                      */
/* ------------------------------------------------------------------ */

/* A buffer that only grows. */
struct scratch {
    char *p;
    size_t cap; /* bytes allocated */
};

/*
 * Make room for n bytes. Without keep the contents are dead and not
 * copied (realloc would copy them). Returns 0, or -1 when out of memory
 * (the old buffer stays, so the caller frees it once).
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

/* Does c need an escape in a JSON string (RFC 8259 §7)? */
static int
is_json_special(unsigned char c)
{
    return c == '"' || c == '\\' || c < 0x20;
}

/* Are there '"', '\\' or control bytes among the eight bytes of v? */
static int
has_json_special(uint64_t v)
{
    return (sanitize_has_below(v, 0x20) | sanitize_has_below(v ^ (SANITIZE_ONES * '"'), 1) |
            sanitize_has_below(v ^ (SANITIZE_ONES * '\\'), 1)) != 0;
}

/*
 * The index of the first byte of the eight loaded into v (memcpy, in
 * memory order) that bits (nonzero, of sanitize_has_below()) flags. A flag below
 * the first true one is impossible: a borrow only runs upwards in the
 * number, so the lowest flag in memory order is exact on a little-endian
 * machine, and the highest on a big-endian one.
 */
static size_t
first_flagged(uint64_t bits)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return (size_t)__builtin_clzll(bits) / 8;
#else
    return (size_t)__builtin_ctzll(bits) / 8;
#endif
}

/*
 * The bits of the bytes of v that are not their own sanitized form or
 * need a JSON escape (all but 0x20..0x7e, '"' and '\\' among those):
 * the lowest flagged byte is exact, as in json_special_bits().
 */
static uint64_t
not_plain_bits(uint64_t v)
{
    return sanitize_has_below(v, 0x20) | sanitize_has_below(v ^ (SANITIZE_ONES * '"'), 1) |
           sanitize_has_below(v ^ (SANITIZE_ONES * '\\'), 1) | (v & SANITIZE_HIGHS) |
           sanitize_has_below(v ^ (SANITIZE_ONES * 0x7f), 1);
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
        if (has_json_special(v))
            break;
    }
    while (k < n && !is_json_special((unsigned char)s[k]))
        k++;
    return k;
}

/* ------------------------------------------------------------------ */
/* JSON out                                                             */
/* ------------------------------------------------------------------ */

/* The JSON text being written; like strbuf, an allocation failure sets oom once. */
struct jout {
    struct scratch b;
    size_t len;
    int oom;
    int plain; /* write text as it is, not as the inside of a JSON string (export_redact_args) */
};

/* Bytes past what jout_reserve() was asked for (slack for eight-byte stores). */
#define JOUT_SLACK 16

/* Make room for n more bytes (and a NUL, and JOUT_SLACK). Returns 0, or -1 with oom set. */
static int
jout_reserve(struct jout *j, size_t n)
{
    if (j->oom || n > SIZE_MAX - j->len - 1 - JOUT_SLACK ||
        scratch_grow(&j->b, j->len + n + 1 + JOUT_SLACK, 1)) {
        j->oom = 1;
        return -1;
    }
    return 0;
}

/* Append n bytes as they are. */
static void
jout_raw(struct jout *j, const char *s, size_t n)
{
    if (jout_reserve(j, n))
        return;
    memcpy(j->b.p + j->len, s, n);
    j->len += n;
}

/* ------------------------------------------------------------------ */
/* URL passwords, written out                                           */
/* ------------------------------------------------------------------ */

/* The bytes that end a URL's password (URL_STOP_PW: '/', '@', white space, the NUL) or user (also ':'). */
#define URL_STOP_PW 1
#define URL_STOP_USER 2
static const unsigned char url_stop[256] = {
    ['/'] = 3,  ['@'] = 3,  [' '] = 3,  ['\t'] = 3, ['\n'] = 3,
    ['\v'] = 3, ['\f'] = 3, ['\r'] = 3, ['\0'] = 3, [':'] = URL_STOP_USER,
};

/*
 * Copy n bytes from s to o eight at a time, writing and reading up to
 * seven more: the pieces between URL passwords are a few bytes each, and
 * a memcpy() call each cost more than the copy. The output has
 * JOUT_SLACK bytes of room past what it reserved, the text is padded
 * past its NUL. Returns the end.
 */
static char *
copy_piece(char *o, const char *s, size_t n)
{
    for (size_t k = 0; k < n; k += 8)
        memcpy(o + k, s + k, 8);
    return o + n;
}

/*
 * Write s (n bytes, NUL-terminated, in the output's form: see struct
 * decoded) with the password of every scheme://user:password@ replaced
 * by MASK (scheme
 * [A-Za-z0-9+.-]* holding a letter, user and password without '/', '@'
 * or white space, the user also without ':'). Each byte is read a
 * bounded number of times: the scheme scan stops at the previous "://"
 * (':' and '/' are not scheme characters), the user and password scans
 * at the next.
 */
static void
put_masking_url_passwords(struct jout *j, const char *s, size_t n)
{
    /*
     * Each match is >= 8 bytes and grows by <= 2. Sized for this
     * argument: a reservation of six bytes per byte, larger than the
     * decoding buffer, came from fresh pages on every call (glibc maps
     * it anew: about 450 page faults for 1 MB of terminal escapes).
     */
    size_t most = n + MASK_LEN * (n / 6 + 1);
    if (jout_reserve(j, most))
        return;
    char *o = j->b.p + j->len;
    size_t copied = 0;
    for (size_t p = 0; p + 3 <= n; p++) {
        /* The next ':': a few bytes by hand (a URL holds one every few), then memchr(). */
        for (size_t stop = p + 16 < n ? p + 16 : n; p < stop && s[p] != ':';)
            p++;
        if (p < n && s[p] != ':') {
            const char *c = memchr(s + p, ':', n - p);
            if (!c)
                break;
            p = (size_t)(c - s);
        }
        if (p + 3 > n || s[p + 1] != '/' || s[p + 2] != '/')
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
        while (!(url_stop[(unsigned char)s[ue]] & URL_STOP_USER))
            ue++;
        if (ue == u || s[ue] != ':')
            continue;
        size_t pw = ue + 1, pe = pw;
        while (!(url_stop[(unsigned char)s[pe]] & URL_STOP_PW))
            pe++;
        if (pe == pw || s[pe] != '@')
            continue;
        o = copy_piece(o, s + copied, pw - copied);
        memcpy(o, MASK, MASK_LEN);
        o += MASK_LEN;
        copied = p = pe;
    }
    memcpy(o, s + copied, n - copied);
    o += n - copied;
    j->len = (size_t)(o - j->b.p);
}

/* ------------------------------------------------------------------ */
/* The key test                                                         */
/* ------------------------------------------------------------------ */

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
/* JSON in                                                              */
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

/* A hex digit's value plus one; 0 for any other byte (NUL included). */
static const unsigned char hex_plus1[256] = {
    ['0'] = 1, 2,  3,  4,  5,  6,          7,  8,  9,  10, ['a'] = 11,
    12,        13, 14, 15, 16, ['A'] = 11, 12, 13, 14, 15, 16,
};

/* The four hex digits at s as a number, or -1 (the first non-digit stops, so a NUL does). */
static long
hex4(const char *s)
{
    long v = 0;
    for (int k = 0; k < 4; k++) {
        unsigned d = hex_plus1[(unsigned char)s[k]];
        if (!d)
            return -1;
        v = v << 4 | (long)(d - 1);
    }
    return v;
}

/*
 * One string's decoded and sanitized text, written as it is read: the
 * runs of raw bytes between escapes go straight from the JSON text into
 * sanitize_append(), each escape's code point into sanitize_code_point().
 * A run ends before '"' or '\\', and an ASCII byte never continues a
 * UTF-8 character, so the pieces sanitize as the whole decoded text
 * would; an escape's code point is a whole character (a lone surrogate
 * is its three bytes, as SQLite wrote it, replaced by the sanitizer like
 * any invalid UTF-8). No copy of the decoded argument, no chunks.
 *
 * For export_redact_argv() (json) the text is written in its JSON form
 * straight away, each '"' and '\\' escaped, so that nothing escapes it
 * again on the way out (that pass was 10 of the 38 million instructions
 * of a 1 MB line of terminal escapes). The redaction reads either form
 * alike: '"' and '\\' are in none of its character classes and stop none
 * of its scans, so escaping one only makes a run of other bytes longer,
 * and what it masks is made of its classes' characters (the unit test
 * compares every output with the old code's).
 */
struct decoded {
    struct scratch out; /* the sanitized text: out.p[0..len) */
    size_t len;
    int ended; /* a \u0000 was read: the rest is dropped, as the C string ended there */
    int json;  /* write '"' and '\\' escaped, as the inside of a JSON string */
};

/*
 * Double each backslash of the n bytes of sanitizer output at o, which
 * has room for n more, in place: the JSON form of an escape such as
 * "\\u{0085}" (the sanitizer writes no '"' and no control byte). Returns
 * the end.
 */
static char *
json_backslashes(char *o, size_t n)
{
    size_t extra = 0;
    for (size_t k = 0; k < n; k++)
        extra += o[k] == '\\';
    char *end = o + n + extra, *w = end;
    /* From the end: w - (o + k) is the number of backslashes left in o[0..k). */
    for (size_t k = n; w > o + k; k--) {
        char c = o[k - 1];
        *--w = c;
        if (c == '\\')
            *--w = '\\';
    }
    return end;
}

/*
 * The escape at s[i] == '\\' (after the backslash: one of "\\/bfnrt, or
 * u and four hex digits, a surrogate pair taken whole): its code point
 * in *cp. Returns the index after it, or 0 when it is malformed.
 */
static size_t
read_escape(const char *s, size_t i, uint32_t *cp)
{
    char c = s[i + 1];
    i += 2;
    switch (c) {
    case '"':
    case '\\':
    case '/':
        *cp = (unsigned char)c;
        return i;
    case 'b':
        *cp = '\b';
        return i;
    case 'f':
        *cp = '\f';
        return i;
    case 'n':
        *cp = '\n';
        return i;
    case 'r':
        *cp = '\r';
        return i;
    case 't':
        *cp = '\t';
        return i;
    case 'u': {
        long v = hex4(s + i), lo;
        if (v < 0)
            return 0;
        i += 4;
        *cp = (uint32_t)v;
        if ((*cp & 0xfc00) == 0xd800 && s[i] == '\\' && s[i + 1] == 'u' &&
            (lo = hex4(s + i + 2)) >= 0 && (lo & 0xfc00) == 0xdc00) {
            *cp = 0x10000 + ((*cp & 0x3ff) << 10) + ((uint32_t)lo & 0x3ff);
            i += 6;
        }
        return i;
    }
    default:
        return 0;
    }
}

/*
 * Check the rest of the JSON string whose next byte is s[i], keeping
 * nothing. Returns the index of its closing '"', or 0 when it is
 * malformed.
 */
static size_t
skip_string_rest(const struct jin *j, size_t i)
{
    const char *s = j->s;
    for (;;) {
        i += json_plain_run(s + i, j->n - i);
        if (s[i] == '"')
            return i;
        uint32_t cp;
        if (s[i] != '\\' || !(i = read_escape(s, i, &cp)))
            return 0; /* a control byte, the end of the text, or a bad escape */
    }
}

/*
 * Read the JSON string at s[i] == '"'. With d, decode it and sanitize it
 * into d->out, NUL-terminated and followed by eight zero bytes (the
 * readers of eight bytes a step). Returns 0, or -1 when it is malformed
 * (or d->out could not grow).
 *
 * One pass, dispatched on each piece's first byte: an escape (\u00XX,
 * how JSON writers give the controls, read with two table look-ups and
 * its control written inline), raw UTF-8, or printable ASCII, copied
 * eight bytes a step (stored whole, cut at the first other byte). A
 * line of terminal escapes has two escapes and two short runs every 18
 * bytes of JSON.
 */
static int
read_string(struct jin *j, struct decoded *d)
{
    const char *s = j->s;
    size_t i = j->i + 1;
    if (!d) {
        if (!(i = skip_string_rest(j, i)))
            return -1;
        j->i = i + 1;
        return 0;
    }
    /*
     * Sized once for the rest of the text: at most five bytes out per
     * byte in (a raw DEL: "\\\\x7f" in JSON form; a raw C1 control: 2 in,
     * 9 out; \uXXXX: 6 in, at most 9 out), and the slack that the 8-byte
     * moves write past the end.
     */
    size_t rest = j->n - j->i;
    if (rest > (SIZE_MAX - 64) / 5 || scratch_grow(&d->out, 5 * rest + 32, 0))
        return -1;
    const size_t json = (size_t)d->json;
    char *o = d->out.p;
    d->ended = 0;
    for (;;) {
        unsigned char b = (unsigned char)s[i];
        if (b == '\\') {
            uint32_t cp;
            unsigned h1, h0;
            if (i + 6 <= j->n && !memcmp(s + i, "\\u00", 4) &&
                (h1 = hex_plus1[(unsigned char)s[i + 4]]) &&
                (h0 = hex_plus1[(unsigned char)s[i + 5]])) {
                cp = (h1 - 1) << 4 | (h0 - 1);
                i += 6;
            } else if (!(i = read_escape(s, i, &cp))) {
                return -1;
            }
            if (cp - 1 < 0x1f || cp == 0x7f) {
                /* A control, what \u00XX mostly is: its piece, its backslash escaped. */
                *o = '\\';
                o += json;
                o += sanitize_put_c0(o, (unsigned char)cp);
            } else if (cp - 0x20 < 0x5f) {
                if (json && (cp == '"' || cp == '\\'))
                    *o++ = '\\';
                *o++ = (char)cp;
            } else if (cp != 0) {
                size_t k = sanitize_code_point(o, cp);
                o = json ? json_backslashes(o, k) : o + k;
            } else {
                /* \u0000: the C string ended here; the rest is checked and dropped. */
                d->ended = 1;
                if (!(i = skip_string_rest(j, i)))
                    return -1;
                break;
            }
            continue;
        }
        if (b >= 0x80) {
            unsigned char b1 = (unsigned char)s[i + 1];
            if (b >= 0xc2 && b <= 0xdf && (b1 ^ 0x80) < 0x40 && (unsigned char)s[i + 2] < 0x80 &&
                (b > 0xc2 || b1 >= 0xa0)) {
                /* One two-byte character before ASCII, not a C1 control: its own form. */
                memcpy(o, s + i, 2);
                o += 2;
                i += 2;
                continue;
            }
            /* Raw UTF-8 (or invalid bytes): to the next ASCII byte. */
            size_t e = i + 1;
            while ((unsigned char)s[e] >= 0x80)
                e++;
            size_t k = sanitize_append(o, s + i, e - i);
            o = json ? json_backslashes(o, k) : o + k;
            i = e;
            continue;
        }
        if (b == '"')
            break;
        if (b < 0x20)
            return -1; /* a control byte, or the end of the text */
        /* Printable ASCII is its own sanitized form (DEL is not). */
        if (i + 8 <= j->n) {
            uint64_t v;
            memcpy(&v, s + i, 8);
            uint64_t bits = not_plain_bits(v);
            memcpy(o, &v, 8); /* room: four bytes out per byte in, >= 8 left */
            if (!bits) {
                /* A branch, not k = 8: the next load does not wait for this one's test. */
                o += 8;
                i += 8;
                continue;
            }
            size_t k = first_flagged(bits);
            if (k > 0) {
                o += k;
                i += k;
                continue;
            }
        }
        if (b == 0x7f) {
            *o = '\\';
            o += json;
            o += sanitize_put_c0(o, b);
        } else {
            *o++ = (char)b;
        }
        i++;
    }
    j->i = i + 1;
    d->len = (size_t)(o - d->out.p);
    memset(o, 0, 9);
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
    skip_ws(j);
    if (j->s[j->i] != '"' || read_string(j, NULL))
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
    size_t depth = 0;
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
        } else if (c == '"' ? read_string(j, NULL) : skip_scalar(j)) {
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

/* ------------------------------------------------------------------ */
/* One argument                                                         */
/* ------------------------------------------------------------------ */

/*
 * Redact one sanitized argument s (n bytes, then nine zero bytes; in
 * its JSON form for a JSON out, see struct decoded; changed in place)
 * and write it to out as a JSON string, or as it is. *mask_this says the
 * previous argument named a secret; it is set for the next.
 */
static void
put_redacted(struct jout *out, char *s, size_t n, int *mask_this)
{
    const size_t q = out->plain ? 0 : 1; /* the closing quote, in JSON */
    jout_raw(out, "\"", q);
    if (*mask_this && s[0] != '-') {
        *mask_this = 0;
        jout_raw(out, MASK "\"", MASK_LEN + q);
        return;
    }
    *mask_this = 0;
    /* [-[-]]KEY=VALUE or KEY:VALUE: KEY is a run of [A-Za-z0-9_.-], VALUE not empty. */
    size_t k = 0;
    while (k < n && in_cls(CLS_KEY, (unsigned char)s[k]))
        k++;
    if (k > 0 && (s[k] == '=' || s[k] == ':') && s[k + 1] && key_is_secret(s, k)) {
        jout_raw(out, s, k + 1);
        jout_raw(out, MASK "\"", MASK_LEN + q);
        return;
    }
    /* -KEY or --KEY alone: the next argument is its value. */
    size_t d = s[0] == '-' ? (s[1] == '-' ? 2 : 1) : 0;
    if (d && s[d] && k == n && key_is_secret(s + d, k - d))
        *mask_this = 1;
    put_masking_url_passwords(out, s, mask_tokens(s, n));
    jout_raw(out, "\"", q);
}

/*
 * Read the JSON array argv_json and write its redacted arguments to
 * *out: as a JSON array, or (out->plain) as the arguments themselves,
 * each ended by a NUL, counted in *count. Returns 0, or -1 on a malformed
 * array or no memory.
 */
static int
redact_array(const char *argv_json, struct jout *out, size_t *count)
{
    struct jin j = {.s = argv_json, .n = strlen(argv_json)};
    struct decoded *d = NULL;
    int ret = -1;
    *count = 0;
    skip_ws(&j);
    if (argv_json[j.i] != '[')
        goto out;
    j.i++;
    d = calloc(1, sizeof(*d));
    if (!d || scratch_grow(&d->out, 64, 0))
        goto out;
    d->json = !out->plain;
    if (!out->plain)
        jout_raw(out, "[", 1);
    skip_ws(&j);
    if (argv_json[j.i] == ']') {
        j.i++;
    } else {
        int mask_this = 0;
        for (;;) {
            d->len = 0;
            skip_ws(&j);
            if (argv_json[j.i] == '"' ? read_string(&j, d) : skip_value(&j))
                goto out;
            if (!d->len)
                memset(d->out.p, 0, 9); /* a value that is not text is "", as json_each() gave it */
            if (*count && !out->plain)
                jout_raw(out, ",", 1);
            put_redacted(out, d->out.p, d->len, &mask_this);
            if (out->plain)
                jout_raw(out, "", 1); /* its NUL */
            ++*count;
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
    if (!out->plain)
        jout_raw(out, "]", 2); /* with the NUL */
    ret = out->oom ? -1 : 0;
out:
    if (d)
        free(d->out.p);
    free(d);
    return ret;
}

char *
export_redact_argv(const char *argv_json)
{
    if (!argv_json)
        return NULL;
    struct jout out = {0};
    size_t count;
    if (redact_array(argv_json, &out, &count)) {
        free(out.b.p);
        return NULL;
    }
    /* The writers made room for six bytes out per byte in; give back the rest. */
    char *ret = realloc(out.b.p, out.len);
    return ret ? ret : out.b.p; /* owned by the caller */
}

char **
export_redact_args(const char *argv_json, size_t *n)
{
    *n = 0;
    if (!argv_json)
        return NULL;
    struct jout out = {.plain = 1};
    size_t count;
    char **args = NULL;
    if (redact_array(argv_json, &out, &count) == 0) {
        /* One block: the count + 1 pointers, then the arguments' bytes. */
        size_t head = (count + 1) * sizeof(char *);
        args = malloc(head + out.len + 1);
        if (args) {
            char *p = (char *)args + head;
            memcpy(p, out.b.p ? out.b.p : "", out.len);
            for (size_t i = 0; i < count; i++) {
                args[i] = p;
                p += strlen(p) + 1;
            }
            args[count] = NULL;
            *n = count;
        }
    }
    free(out.b.p);
    return args; /* owned by the caller */
}
