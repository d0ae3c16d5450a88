/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of export/redact.c: export_redact_argv() must give exactly
 * what the reference (tests/unit/redact_ref.c, the SQLite-based code it
 * replaced) gives, on random command lines built from the pieces the
 * rules look for, written as JSON in every way JSON allows (escapes,
 * surrogate pairs, whitespace, values that are not strings), and must
 * refuse what is not a JSON array. export_redact_args() must give the
 * strings that parsing export_redact_argv()'s output gives, on all of
 * them. The rules themselves are tested by name in test_export.c
 * (export_redact_rules).
 */
#include "export/export.h"
#include "tests/check.h"
#include "tests/unit/redact_ref.h"

#include <jansson.h>

#include <stdint.h>

static uint32_t seed = 20;

static uint32_t
rnd(uint32_t n)
{
    seed = seed * 1103515245u + 12345u;
    return ((seed >> 8) & 0xffffff) % n;
}

/* A growable string, for the test only (aborts when out of memory). */
struct text {
    char *p;
    size_t n, cap;
};

static void
text_add(struct text *t, const char *s, size_t n)
{
    if (t->n + n + 1 > t->cap) {
        t->cap = (t->n + n + 1) * 2;
        t->p = realloc(t->p, t->cap);
        if (!t->p)
            abort();
    }
    memcpy(t->p + t->n, s, n);
    t->n += n;
    t->p[t->n] = '\0';
}

static void
text_adds(struct text *t, const char *s)
{
    text_add(t, s, strlen(s));
}

/* The pieces the rules react to, and some that only look like them. */
static const char *const pieces[] = {
    "--",
    "-",
    "=",
    ":",
    "token",
    "TOKEN",
    "Secret",
    "passwd",
    "password",
    "PassWord",
    "pwd",
    "api",
    "api_key",
    "api-key",
    "apikey",
    "key",
    "auth",
    "Authorization",
    "credential",
    "private_key",
    "privatekey",
    "access-key",
    "ACCESS_KEY",
    "ghp_",
    "gho_",
    "ghx_",
    "github_pat_",
    "glpat-",
    "xoxb-",
    "xoxq-",
    "AKIA",
    "ASIA",
    "AXIA",
    "sk-",
    "eyJ",
    ".",
    "://",
    "http://",
    "a+b.c-d://",
    "1://",
    "@",
    "/",
    " ",
    "_",
    "+",
    "h",
    "u",
    "p",
    "0123456789",
    "ABCDEFGHIJKLMNOP",
    "abcdefghij",
    "\xc3\xa9",
    "\x1b]0;t\x07",
    "\n",
    "\t",
    "\"",
    "\\",
    "\xff",
    "\xc2\x85",
    "\xe2\x80\xae",
    "\xef\xbf\xbe",
    "\xf0\x9f\x98\x80",
    "\x7f",
    "%",
    /* Whole tokens and URLs, so that matches follow failures in one argument. */
    "eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2QT4",
    "eyJ0123456789",
    "ghp_0123456789abcdefghijABCDEF",
    "github_pat_0123456789_abcdefghij",
    "glpat-0123456789abcdefghij",
    "xoxb-0123456789",
    "AKIAABCDEFGHIJKLMNOP",
    "sk-0123456789abcdefghijk",
    "https://u:pw@h/x",
};

/* A random argument: pieces, runs of one character class, random bytes. */
static void
random_arg(struct text *a)
{
    a->n = 0;
    text_add(a, "", 0);
    int n = (int)rnd(12);
    for (int i = 0; i < n; i++) {
        uint32_t k = rnd(10);
        if (k < 6) {
            text_adds(a, pieces[rnd(sizeof(pieces) / sizeof(pieces[0]))]);
        } else if (k < 9) {
            static const char *const cls[] = {"abcXYZ019", "ABCDEFXYZ0123456789", "a_-b", "x1+.-"};
            const char *c = cls[rnd(4)];
            size_t len = rnd(k == 8 ? 300 : 30), cl = strlen(c);
            for (size_t j = 0; j < len; j++)
                text_add(a, &c[rnd((uint32_t)cl)], 1);
        } else {
            char b = (char)(1 + rnd(255));
            text_add(a, &b, 1);
        }
    }
}

/* Append the UTF-8 encoding of cp (surrogates too, as SQLite writes them). */
static void
put_utf8(struct text *t, uint32_t cp)
{
    char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xc0 | cp >> 6);
        b[1] = (char)(0x80 | (cp & 0x3f));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xe0 | cp >> 12);
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        b[2] = (char)(0x80 | (cp & 0x3f));
        n = 3;
    } else {
        b[0] = (char)(0xf0 | cp >> 18);
        b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
        b[3] = (char)(0x80 | (cp & 0x3f));
        n = 4;
    }
    text_add(t, b, n);
}

static void
put_u(struct text *t, uint32_t u)
{
    char b[8];
    snprintf(b, sizeof(b), rnd(2) ? "\\u%04x" : "\\u%04X", (unsigned)u);
    text_add(t, b, 6);
}

/*
 * Append s as a JSON string, each character written one of the ways JSON
 * allows: raw, a short escape, \uXXXX, a surrogate pair.
 */
static void
put_json_string(struct text *t, const char *s, size_t n)
{
    text_adds(t, "\"");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *esc = c == '"'    ? "\\\""
                          : c == '\\' ? "\\\\"
                          : c == '\n' ? "\\n"
                          : c == '\t' ? "\\t"
                          : c == '\r' ? "\\r"
                          : c == '\b' ? "\\b"
                          : c == '\f' ? "\\f"
                                      : NULL;
        if (esc && rnd(4)) {
            text_adds(t, esc);
        } else if (c < 0x20 || esc || (c < 0x80 && !rnd(8))) {
            put_u(t, c);
        } else if (c == '/' && rnd(2)) {
            text_adds(t, "\\/");
        } else {
            text_add(t, (const char *)&c, 1);
        }
        if (!rnd(40)) {
            /* A character only an escape writes: BMP, a pair, a lone half. */
            static const uint32_t cps[] = {0x80, 0x85, 0xe9, 0x202e, 0xfeff, 0xfffe, 0x1f600};
            uint32_t cp = cps[rnd(sizeof(cps) / sizeof(cps[0]))];
            uint32_t how = rnd(4);
            if (how == 0 && cp < 0x10000) {
                put_utf8(t, cp);
            } else if (cp >= 0x10000) {
                put_u(t, 0xd800 + ((cp - 0x10000) >> 10));
                put_u(t, 0xdc00 + ((cp - 0x10000) & 0x3ff));
            } else if (how == 1) {
                put_u(t, 0xd800 + rnd(0x800)); /* a lone surrogate */
            } else {
                put_u(t, cp);
            }
        }
    }
    text_adds(t, "\"");
}

static void
put_ws(struct text *t)
{
    static const char *const ws[] = {"", "", "", " ", "\n", "\t ", "\r\n  "};
    text_adds(t, ws[rnd(sizeof(ws) / sizeof(ws[0]))]);
}

/* A value that is not a string (json_each gives it as ""). */
static void
put_other(struct text *t)
{
    static const char *const v[] = {"null",
                                    "true",
                                    "false",
                                    "0",
                                    "-1",
                                    "3.25",
                                    "-0.5e+10",
                                    "1E3",
                                    "[]",
                                    "{}",
                                    "[1,\"a\",[null]]",
                                    "{\"token\":\"abc\",\"x\":[1,{}]}",
                                    "[ [ [ \"--token\" ] ] ]"};
    text_adds(t, v[rnd(sizeof(v) / sizeof(v[0]))]);
}

/* A random command line as JSON: mostly strings, sometimes other values. */
static void
random_command_line(struct text *j)
{
    struct text a = {0};
    j->n = 0;
    put_ws(j);
    text_adds(j, "[");
    int n = (int)rnd(8);
    for (int i = 0; i < n; i++) {
        put_ws(j);
        if (i)
            text_adds(j, ",");
        put_ws(j);
        if (rnd(16)) {
            random_arg(&a);
            put_json_string(j, a.p, a.n);
        } else {
            put_other(j);
        }
    }
    put_ws(j);
    text_adds(j, "]");
    put_ws(j);
    free(a.p);
}

/* export_redact_args(in) holds the strings of the JSON array `json` (NULL: it refuses in). */
static int
args_match(const char *in, const char *json)
{
    size_t n;
    char **args = export_redact_args(in, &n);
    json_t *a = json ? json_loads(json, 0, NULL) : NULL;
    int same = !json ? !args && n == 0 : args && json_is_array(a) && json_array_size(a) == n;
    for (size_t i = 0; same && i < n; i++)
        same = json_is_string(json_array_get(a, i)) &&
               !strcmp(args[i], json_string_value(json_array_get(a, i)));
    same = same && (!args || !args[n]);
    if (!same)
        fprintf(stderr, "in   %s\nargs differ from %s\n", in, json ? json : "(null)");
    json_decref(a);
    free(args);
    return same;
}

static int
same_as_reference(const char *in)
{
    char *got = export_redact_argv(in), *want = redact_ref_argv(in);
    int same = (!got && !want) || (got && want && !strcmp(got, want));
    if (!same)
        fprintf(stderr, "in   %s\ngot  %s\nwant %s\n", in, got ? got : "(null)",
                want ? want : "(null)");
    same = args_match(in, got) && same;
    free(got);
    free(want);
    return same;
}

/* Random command lines redact exactly as the reference does. */
static void
test_redact_matches_reference(void)
{
    struct text j = {0};
    int differ = 0;
    for (int iter = 0; iter < 10000 && differ < 5; iter++) {
        random_command_line(&j);
        if (!same_as_reference(j.p))
            differ++;
    }
    CHECK_EQ_INT(differ, 0);
    free(j.p);
}

/*
 * Damaged JSON: each prefix of a valid command line, and each one-byte
 * change, is refused (NULL) or redacted exactly as the reference does.
 */
static void
test_redact_damaged_json(void)
{
    struct text j = {0};
    int differ = 0;
    for (int iter = 0; iter < 3000 && differ < 5; iter++) {
        random_command_line(&j);
        char *s = malloc(j.n + 1);
        if (!s)
            abort();
        memcpy(s, j.p, j.n + 1);
        size_t cut = rnd((uint32_t)j.n + 1);
        char keep = s[cut];
        s[cut] = '\0';
        differ += !same_as_reference(s);
        s[cut] = keep;
        if (j.n) {
            static const char bytes[] = "[]{},:\"\\ u0aE.-+ntf";
            s[rnd((uint32_t)j.n)] = rnd(3) ? bytes[rnd(sizeof(bytes) - 1)] : (char)(1 + rnd(255));
            differ += !same_as_reference(s);
        }
        free(s);
    }
    CHECK_EQ_INT(differ, 0);
    free(j.p);
}

/* What is not a JSON array of values is refused. */
static void
test_redact_not_an_array(void)
{
    static const char *const bad[] = {
        "",
        " ",
        "\"a\"",
        "{}",
        "{\"a\":1}",
        "1",
        "null",
        "[",
        "]",
        "[,]",
        "[\"a\",]",
        "[\"a\" \"b\"]",
        "[\"a\"] x",
        "[\"a\"][]",
        "[\"a]",
        "[\"\\x41\"]",
        "[\"\\u12\"]",
        "[\"\\u12G4\"]",
        "[\"a\tb\"]",
        "[\"a\nb\"]",
        "[01]",
        "[1.]",
        "[.5]",
        "[-]",
        "[1e]",
        "[+1]",
        "[tru]",
        "[nul]",
        "[True]",
        "[{\"a\"}]",
        "[{\"a\":}]",
        "[{1:2}]",
        "[{\"a\":1,}]",
        "[[1,2]",
        "[\"a\"]]",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *got = export_redact_argv(bad[i]);
        if (got)
            fprintf(stderr, "accepted '%s' as '%s'\n", bad[i], got);
        CHECK(got == NULL);
        CHECK(same_as_reference(bad[i]));
        free(got);
    }
}

/* Escapes, surrogates and values that are not strings, as json_each() reads them. */
static void
test_redact_json_values(void)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"[]", "[]"},
        {" [ ] ", "[]"},
        {"[\"a\\\"b\\\\c\\/d\"]", "[\"a\\\"b\\\\c/d\"]"},
        {"[\"\\u0041\\u00e9\\u20AC\"]", "[\"A\xc3\xa9\xe2\x82\xac\"]"},
        {"[\"\\ud83d\\ude00\"]", "[\"\xf0\x9f\x98\x80\"]"},
        /* A lone surrogate is no character: the sanitizer replaces its bytes. */
        {"[\"\\ud83dx\"]", "[\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdx\"]"},
        /* Controls come out as the sanitizer writes them, then JSON-escaped. */
        {"[\"a\\nb\\u001b[31m\"]", "[\"a\\\\nb\\\\e[31m\"]"},
        {"[null,true,1.5,[\"--token\"],{\"k\":\"v\"},\"x\"]", "[\"\",\"\",\"\",\"\",\"\",\"x\"]"},
        /* The value after a secret option may be written with escapes. */
        {"[\"--token\",\"\\u0061bc\"]", "[\"--token\",\"***\"]"},
        {"[\"--password\",7]", "[\"--password\",\"***\"]"},
        /* Invalid UTF-8 in the JSON text is replaced, never passed on. */
        {"[\"a\xff\xc0z\"]", "[\"a\xef\xbf\xbd\xef\xbf\xbdz\"]"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *got = export_redact_argv(cases[i].in);
        CHECK_STR(got, cases[i].want);
        CHECK(same_as_reference(cases[i].in));
        free(got);
    }
}

/*
 * Hostile JSON strings for the decoder: bad escapes, surrogates in every
 * arrangement, \u0000 (the argument ends there, the rest is still
 * checked), raw bytes of cut UTF-8 next to escapes, truncated lines.
 * Each is refused or redacted exactly as the reference does, and the
 * ones below are pinned to their output.
 */
static void
test_redact_hostile_strings(void)
{
    static const struct {
        const char *in, *want; /* want NULL: refused */
    } cases[] = {
        {"[\"a\\u0000b\"]", "[\"a\"]"},
        {"[\"\\u0000\",\"x\"]", "[\"\",\"x\"]"},
        {"[\"a\\u0000\\q\"]", NULL},  /* after the NUL the text is still JSON */
        {"[\"a\\u0000\x01\"]", NULL}, /* a raw control after the NUL */
        {"[\"a\\u0000b\",\"--token\",\"s\"]", "[\"a\",\"--token\",\"***\"]"},
        {"[\"\xc3\\u0000\"]", "[\"\xef\xbf\xbd\"]"}, /* a cut character before the NUL */
        {"[\"\xe2\x80\\u00ae\"]", "[\"\xef\xbf\xbd\xef\xbf\xbd\xc2\xae\"]"},
        {"[\"\\u00e2\x80\xae\"]", "[\"\xc3\xa2\xef\xbf\xbd\xef\xbf\xbd\"]"},
        {"[\"\\ud800\"]", "[\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"]"},
        {"[\"\\udc00\\ud800\"]",
         "[\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"]"},
        {"[\"\\ud800\\ud800\\udc00\"]",
         "[\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xf0\x90\x80\x80\"]"},
        {"[\"\\udbff\\udfff\"]", "[\"\xf4\x8f\xbf\xbf\"]"},
        {"[\"\\ud800\\u0041\"]", "[\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
                                 "A\"]"},
        {"[\"\\ud800\\u12\"]", NULL},
        {"[\"\\ud800\\x\"]", NULL},
        {"[\"\\ud800\\", NULL},
        {"[\"\\ud8", NULL},
        {"[\"\\u00", NULL},
        {"[\"\\", NULL},
        {"[\"a", NULL},
        {"[\"a\",", NULL},
        {"[\"\\U0041\"]", NULL},
        {"[\"\\'\"]", NULL},
        {"[\"\\0\"]", NULL},
        {"[\"\\u0085\\u202e\\u2028\\ufffe\"]",
         "[\"\\\\u{0085}\\\\u{202E}\\\\u{2028}\\\\u{FFFE}\"]"},
        {"[\"\\u007f\\u0009\\u000d\\u0001\"]", "[\"\\\\x7f\\\\t\\\\r\\\\x01\"]"},
        {"[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"]", "[\"\\\"\\\\/\\\\x08\\\\x0c\\\\n\\\\r\\\\t\"]"},
        {"\"a\"", NULL},
        {"{\"a\":[\"b\"]}", NULL},
        {"[\"a\"]\"", NULL},
        {"[\"a\"] [", NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *got = export_redact_argv(cases[i].in);
        if (cases[i].want) {
            CHECK_STR(got, cases[i].want);
        } else {
            if (got)
                fprintf(stderr, "accepted '%s' as '%s'\n", cases[i].in, got);
            CHECK(got == NULL);
        }
        CHECK(same_as_reference(cases[i].in));
        free(got);
    }
    /* Every prefix of a line of escapes and raw UTF-8 (a truncated line) is refused. */
    static const char line[] = "[\"\\u001b]0;t\\u0007\xc3\xa9\\ud83d\\ude00\\\"x\\u0000y\"]";
    char cut[sizeof(line)];
    for (size_t n = 0; n + 1 < sizeof(line); n++) {
        memcpy(cut, line, n);
        cut[n] = '\0';
        char *got = export_redact_argv(cut);
        CHECK(got == NULL);
        CHECK(same_as_reference(cut));
        free(got);
    }
}

/* Long arguments: the shapes at their longest, the KEY=VALUE key past its 255 bytes. */
static void
test_redact_long_arguments(void)
{
    struct text j = {0}, a = {0};
    static const char *const units[] = {"a",
                                        "eyJ",
                                        "sk-",
                                        "x1+",
                                        "h://u:p@",
                                        "\x1b]0;t\x07",
                                        "\x1b]0;t\x07\xc3\xa9",
                                        "\xe2\x82\xac",
                                        "\xc3"};
    for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
        for (size_t len = 1000; len <= 100000; len *= 10) {
            a.n = 0;
            text_adds(&a, "--arg=");
            while (a.n < len)
                text_adds(&a, units[u]);
            j.n = 0;
            text_adds(&j, "[\"./app\",");
            put_json_string(&j, a.p, a.n);
            text_adds(&j, "]");
            CHECK(same_as_reference(j.p));
        }
    }
    /* A token right after a shape that failed, in the same argument. */
    static const char *const after[] = {
        "[\"eyJabc eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2QT4\"]",
        "[\"eyJ0123456789.x/eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2QT4\"]",
        "[\"eyJeyJeyJeyJeyJ.eyJeyJeyJeyJ@eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2QT4\"]",
        "[\"sk-short sk-0123456789abcdefghijk\"]",
        "[\"x://a@b h://u:p@h\"]",
    };
    for (size_t i = 0; i < sizeof(after) / sizeof(after[0]); i++) {
        char *got = export_redact_argv(after[i]);
        CHECK(got && strstr(got, "***") && !strstr(got, "SflKx") && !strstr(got, "hijk\"") &&
              !strstr(got, ":p@"));
        CHECK(same_as_reference(after[i]));
        free(got);
    }
    /* The key is read to 255 bytes, as before. */
    for (size_t pad = 240; pad < 260; pad++) {
        a.n = 0;
        text_adds(&a, "[\"--");
        for (size_t i = 0; i < pad; i++)
            text_adds(&a, "x");
        text_adds(&a, "_token=abc\"]");
        CHECK(same_as_reference(a.p));
    }
    free(j.p);
    free(a.p);
}

/*
 * Where the scans skip (export/redact.c, issue 20 §4): the token scan
 * skips windows of fewer than 15 token characters and steps over plain
 * ones four at a time, and the decoder writes the JSON form itself. The
 * shortest token at the edges of such windows, tokens after letters that
 * a sanitizer escape wrote, a token inside a run where a JWT failed, and
 * '"', '\\' and escapes inside keys and URL passwords, pinned and
 * checked against the reference.
 */
static void
test_redact_token_windows(void)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"[\"xoxb-0123456789\"]", "[\"***\"]"},
        {"[\"xoxb-012345678\"]", "[\"xoxb-012345678\"]"},
        {"[\"a;xoxb-0123456789;b\"]", "[\"a;***;b\"]"},
        {"[\";;;;;;;;;;;;;;xoxb-0123456789\"]", "[\";;;;;;;;;;;;;;***\"]"},
        {"[\"x\\u001bxoxb-0123456789\"]", "[\"x\\\\e***\"]"},
        {"[\"\\u0007xoxb-0123456789\\u0007\"]", "[\"\\\\x07***\\\\x07\"]"},
        {"[\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaasbcxoxb-0123456789\"]",
         "[\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaasbc***\"]"},
        {"[\"eyJeyJeyJeyJeyJeyJeyJeyJeyJeyJsk-0123456789abcdefghijk\"]",
         "[\"eyJeyJeyJeyJeyJeyJeyJeyJeyJeyJ***\"]"},
        {"[\"eyJeyJeyJeyJeyJeyJ.eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0\"]", "[\"***\"]"},
        {"[\"--token=a\\u0022b\"]", "[\"--token=***\"]"},
        {"[\"h://u\\u005c:p\\\"w@x\"]", "[\"h://u\\\\:***@x\"]"},
        {"[\"h://u\\\"\\\\:p@x\"]", "[\"h://u\\\"\\\\:***@x\"]"},
        {"[\"\x7f\\u007f\xc2\x85\\u0085\\u005c\\u0022\"]",
         "[\"\\\\x7f\\\\x7f\\\\u{0085}\\\\u{0085}\\\\\\\"\"]"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *got = export_redact_argv(cases[i].in);
        CHECK_STR(got, cases[i].want);
        CHECK(same_as_reference(cases[i].in));
        free(got);
    }
}

static const struct check_test tests[] = {
    {"redact_matches_reference", test_redact_matches_reference},
    {"redact_damaged_json", test_redact_damaged_json},
    {"redact_not_an_array", test_redact_not_an_array},
    {"redact_json_values", test_redact_json_values},
    {"redact_hostile_strings", test_redact_hostile_strings},
    {"redact_long_arguments", test_redact_long_arguments},
    {"redact_token_windows", test_redact_token_windows},
};

CHECK_MAIN(tests)
