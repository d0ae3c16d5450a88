/* SPDX-License-Identifier: MIT */
/* Unit tests of export/sanitize.c: the one sanitizer every output uses. */
#include "export/sanitize.h"
#include "tests/check.h"
#include "tests/unit/sanitize_ref.h"

#include <locale.h>
#include <stdint.h>

/* 1 when s is well-formed UTF-8 with no C0 (but \0), DEL or C1 control. */
static int
is_clean(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned char b = *p;
        if (b < 0x20 || b == 0x7f)
            return 0;
        if (b < 0x80) {
            p++;
            continue;
        }
        int len = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 ? 2 : 0;
        if (len == 0 || b > 0xf4)
            return 0;
        for (int i = 1; i < len; i++)
            if ((p[i] & 0xc0) != 0x80)
                return 0;
        if (b == 0xc2 && p[1] <= 0x9f)
            return 0; /* C1 */
        p += len;
    }
    return 1;
}

static void
check_san(const char *in, const char *want)
{
    char *got = sanitize_text(in, 0);
    CHECK_STR(got, want);
    char buf[256];
    CHECK_STR(sanitize_into(buf, sizeof(buf), in), want);
    free(got);
}

static void
test_sanitize_plain(void)
{
    check_san("", "");
    check_san("void transpose<float, 32>(float*, float const*, int)",
              "void transpose<float, 32>(float*, float const*, int)");
    check_san("<&>\"'`*_[x](y)|#\\", "<&>\"'`*_[x](y)|#\\");
    check_san("caf\xc3\xa9 \xe6\xbc\xa2 \xf0\x9f\x98\x80",
              "caf\xc3\xa9 \xe6\xbc\xa2 \xf0\x9f\x98\x80");
    CHECK(sanitize_text(NULL, 0) == NULL);
    char buf[8] = "x";
    CHECK_STR(sanitize_into(buf, sizeof(buf), NULL), "");
}

static void
test_sanitize_controls(void)
{
    check_san("a\nb\tc\rd", "a\\nb\\tc\\rd");
    check_san("\x01\x02\x1f\x7f", "\\x01\\x02\\x1f\\x7f");
    /* C1 controls (U+0085 NEL, U+009B CSI) as \u{NNNN}. */
    check_san("x\xc2\x85y\xc2\x9bz", "x\\u{0085}y\\u{009B}z");
}

static void
test_sanitize_escape_sequences(void)
{
    /* A terminal title change, a colour and an OSC 8 link: no raw ESC/BEL survives. */
    const char *evil = "k\x1b]0;pwned\x07\x1b[31mred\x1b[0m\x1b]8;;http://x\x1b\\l\x1b]8;;\x1b\\";
    char *s = sanitize_text(evil, 0);
    CHECK(s && !strchr(s, 0x1b) && !strchr(s, 0x07));
    CHECK(is_clean(s));
    CHECK(strstr(s, "\\e]0;pwned\\x07\\e[31mred") != NULL);
    free(s);
    /* Bidi overrides (Trojan Source) and line separators are escaped too. */
    check_san("\xef\xbf\xbe\xef\xbf\xbf", "\\u{FFFE}\\u{FFFF}");
    check_san("a\xe2\x80\xae"
              "b\xe2\x81\xa6"
              "c\xe2\x80\xa8"
              "d",
              "a\\u{202E}b\\u{2066}c\\u{2028}d");
}

static void
test_sanitize_invalid_utf8(void)
{
    check_san("a\xff"
              "b",
              "a\xef\xbf\xbd"
              "b");
    check_san("\x80", "\xef\xbf\xbd");
    /* Overlong '/' and overlong NUL. */
    check_san("\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd");
    check_san("\xe0\x80\xaf", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    /* Surrogate U+D800 and a code point above U+10FFFF. */
    check_san("\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    check_san("\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    /* Truncated sequence at the end, and one interrupted by ASCII. */
    check_san("ab\xe6\xbc", "ab\xef\xbf\xbd\xef\xbf\xbd");
    check_san("\xe6z", "\xef\xbf\xbdz");
    /* Every single byte value, alone and in pairs: the output is always clean. */
    for (int a = 1; a < 256; a++) {
        for (int b = 0; b < 256; b += 7) {
            char in[4] = {(char)a, (char)b, 'q', 0};
            char *s = sanitize_text(in, 0);
            CHECK(is_clean(s));
            free(s);
        }
    }
}

static void
test_sanitize_caps(void)
{
    char *s = sanitize_text("abcdefghij", 8);
    CHECK_STR(s, "abcde\xe2\x80\xa6");
    free(s);
    s = sanitize_text("abcdefgh", 8); /* exactly fits: not cut */
    CHECK_STR(s, "abcdefgh");
    free(s);
    /* Never cut inside a multi-byte character... */
    s = sanitize_text("ab\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2", 9);
    CHECK_STR(s, "ab\xe6\xbc\xa2\xe2\x80\xa6");
    free(s);
    /* ...nor inside an escape. */
    s = sanitize_text("ab\x01\x02\x03\x04", 10);
    CHECK_STR(s, "ab\\x01\xe2\x80\xa6");
    free(s);
    char buf[7];
    CHECK_STR(sanitize_into(buf, sizeof(buf), "0123456789"), "012\xe2\x80\xa6");
    char tiny[3];
    CHECK_STR(sanitize_into(tiny, sizeof(tiny), "0123"), "01");
    char one[1];
    CHECK_STR(sanitize_into(one, sizeof(one), "0123"), "");
}

static void
test_sanitize_64k_names(void)
{
    size_t n = 64 * 1024;
    char *big = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        big[i] = "A<&>\"\x1b\xff\n"[i % 8];
    big[n] = '\0';
    char *s = sanitize_text(big, 0);
    CHECK(strlen(s) <= SANITIZE_DEFAULT_MAX);
    CHECK(is_clean(s));
    CHECK(strcmp(s + strlen(s) - 3, "\xe2\x80\xa6") == 0);
    free(s);
    /* A cap larger than the expansion keeps everything. */
    s = sanitize_text(big, 1 << 20);
    CHECK(is_clean(s));
    CHECK(strstr(s, "\xe2\x80\xa6") == NULL);
    /* 5 ASCII + 2 (\e) + 3 (U+FFFD) + 2 (\n) bytes per 8 input bytes. */
    CHECK_EQ_INT(strlen(s), n / 8 * 12);
    free(s);
    char buf[100];
    sanitize_into(buf, sizeof(buf), big);
    CHECK(strlen(buf) <= 99 && is_clean(buf));
    free(big);
}

static void
test_sanitize_width(void)
{
    CHECK_EQ_INT(sanitize_width(""), 0);
    CHECK_EQ_INT(sanitize_width(NULL), 0);
    CHECK_EQ_INT(sanitize_width("abc"), 3);
    CHECK_EQ_INT(sanitize_width("a\xe2\x80\xa6"), 2);
    if (setlocale(LC_CTYPE, "C.UTF-8")) {
        CHECK_EQ_INT(sanitize_width("\xe6\xbc\xa2\xe5\xad\x97"), 4); /* two wide CJK */
        CHECK_EQ_INT(sanitize_width("e\xcc\x81"), 1);                /* e + combining acute */
    }
}

/* Random bytes and caps: always clean, always within the cap, never longer than needed. */
static void
test_sanitize_random(void)
{
    unsigned seed = 7;
    char in[300], buf[64];
    for (int iter = 0; iter < 20000; iter++) {
        size_t n = 0;
        seed = seed * 1103515245u + 12345u;
        size_t len = (seed >> 16) % sizeof(in);
        for (; n < len; n++) {
            seed = seed * 1103515245u + 12345u;
            unsigned char c = (unsigned char)(seed >> 16);
            in[n] = c ? (char)c : 'z';
        }
        in[n] = '\0';
        size_t cap = 1 + (seed >> 8) % 200;
        char *s = sanitize_text(in, cap);
        CHECK(s && is_clean(s) && strlen(s) <= cap);
        /* Uncut output is the full sanitization; cut output ends in the ellipsis. */
        char *full = sanitize_text(in, 1 << 20);
        if (strlen(full) <= cap)
            CHECK_STR(s, full);
        else if (cap >= 3)
            CHECK(strlen(s) >= 3 && !strcmp(s + strlen(s) - 3, "\xe2\x80\xa6"));
        sanitize_into(buf, 1 + cap % sizeof(buf), in);
        CHECK(is_clean(buf) && strlen(buf) < 1 + cap % sizeof(buf));
        free(s);
        free(full);
    }
}

/*
 * Random text and caps give byte for byte what the reference gives (the
 * sanitizer of commit 443d007, tests/unit/sanitize_ref.c): runs of
 * printable ASCII of every length around the eight-byte steps, controls,
 * C1, invalid and cut UTF-8, the hidden format characters, long texts.
 */
static void
test_sanitize_matches_reference(void)
{
    static const char *const pieces[] = {"a",
                                         "~",
                                         " ",
                                         "\\",
                                         "\x1b",
                                         "\x1b]0;t\x07",
                                         "\n",
                                         "\t",
                                         "\r",
                                         "\x01",
                                         "\x7f",
                                         "\x80",
                                         "\xff",
                                         "\xc0\x80",
                                         "\xc2",
                                         "\xc2\x85",
                                         "\xc2\xa0",
                                         "\xc3\xa9",
                                         "\xe2\x80",
                                         "\xe2\x80\xae",
                                         "\xe2\x80\xa8",
                                         "\xe2\x81\xa6",
                                         "\xd8\x9c",
                                         "\xed\xa0\x80",
                                         "\xef\xbf\xbe",
                                         "\xef\xbf\xbf",
                                         "\xf0\x9f\x98\x80",
                                         "\xf4\x90\x80\x80",
                                         "\xf0\x9f"};
    unsigned seed = 11;
    size_t cap_in = 20000;
    char *in = malloc(cap_in + 64), buf[512], ref[512];
    int differ = 0;
    CHECK(in != NULL);
    for (int iter = 0; iter < 20000 && in && differ < 5; iter++) {
        size_t n = 0;
        seed = seed * 1103515245u + 12345u;
        size_t want = (seed >> 16) % (iter % 50 ? 120 : cap_in);
        while (n < want) {
            seed = seed * 1103515245u + 12345u;
            unsigned k = (seed >> 16) % 4;
            if (k < 2) {
                /* A printable run of 0 to 40 bytes. */
                size_t run = (seed >> 8) % 41;
                for (size_t r = 0; r < run && n < cap_in; r++)
                    in[n++] = (char)(0x20 + (seed >> (r % 16)) % 95);
            } else {
                const char *p = pieces[(seed >> 8) % (sizeof(pieces) / sizeof(pieces[0]))];
                size_t len = strlen(p);
                memcpy(in + n, p, len);
                n += len;
            }
        }
        in[n] = '\0';
        seed = seed * 1103515245u + 12345u;
        size_t cap = (seed >> 8) % 4 ? 1 + (seed >> 12) % 300 : 4 * n + 16;
        char *got = sanitize_text(in, cap), *exp = sanitize_ref_text(in, cap);
        int same = got && exp && !strcmp(got, exp);
        size_t into = 1 + (seed >> 4) % sizeof(buf);
        same = same && !strcmp(sanitize_into(buf, into, in), sanitize_ref_into(ref, into, in));
        if (!same) {
            fprintf(stderr, "differ at iteration %d (cap %zu, into %zu)\n", iter, cap, into);
            differ++;
        }
        free(got);
        free(exp);
    }
    CHECK_EQ_INT(differ, 0);
    free(in);
}

/*
 * sanitize_append() gives what sanitize_text() gives uncapped, and so
 * does the concatenation of its pieces when the text is cut before ASCII
 * bytes (how the redaction feeds it the runs between JSON escapes); it
 * writes nothing past what it returns beyond SANITIZE_ROOM().
 */
static void
test_sanitize_append_matches_text(void)
{
    static const char *const pieces[] = {"a",
                                         "~",
                                         "\\",
                                         "\x1b]0;t\x07",
                                         "\n",
                                         "\x01",
                                         "\x7f",
                                         "\x80",
                                         "\xff",
                                         "\xc0\x80",
                                         "\xc2",
                                         "\xc2\x85",
                                         "\xc3\xa9",
                                         "\xe2\x80",
                                         "\xe2\x80\xae",
                                         "\xd8\x9c",
                                         "\xed\xa0\x80",
                                         "\xef\xbf\xbf",
                                         "\xf0\x9f\x98\x80",
                                         "\xf4\x90\x80\x80",
                                         "\xf0\x9f",
                                         "abcdefghij",
                                         "0123456789abcdefghijk"};
    unsigned seed = 7;
    char in[4096], out[SANITIZE_ROOM(sizeof(in)) + 64];
    int differ = 0;
    for (int iter = 0; iter < 20000 && differ < 5; iter++) {
        size_t n = 0;
        seed = seed * 1103515245u + 12345u;
        size_t want = (seed >> 16) % (iter % 100 ? 100 : 4000);
        while (n < want) {
            seed = seed * 1103515245u + 12345u;
            const char *p = pieces[(seed >> 8) % (sizeof(pieces) / sizeof(pieces[0]))];
            size_t len = strlen(p);
            if (n + len >= sizeof(in))
                break;
            memcpy(in + n, p, len);
            n += len;
        }
        in[n] = '\0';
        char *exp = sanitize_text(in, 4 * n + 16);
        memset(out, '#', sizeof(out));
        size_t got = sanitize_append(out, in, n);
        int same = got == strlen(exp) && !memcmp(out, exp, got) && got <= SANITIZE_ROOM(n);
        for (size_t k = SANITIZE_ROOM(n); k < sizeof(out); k++)
            same = same && out[k] == '#';
        /* Cut before each ASCII byte that a random draw picks, sanitized piece by piece. */
        size_t o = 0, from = 0;
        for (size_t i = 1; i <= n; i++) {
            seed = seed * 1103515245u + 12345u;
            if (i == n || ((unsigned char)in[i] < 0x80 && (seed >> 16) % 3 == 0)) {
                o += sanitize_append(out + o, in + from, i - from);
                from = i;
            }
        }
        same = same && o == strlen(exp) && !memcmp(out, exp, o);
        if (!same) {
            fprintf(stderr, "sanitize_append differs at iteration %d\n", iter);
            differ++;
        }
        free(exp);
    }
    CHECK_EQ_INT(differ, 0);
    /* A NUL among the bytes is a C0 control. */
    char buf[SANITIZE_ROOM(3)];
    size_t k = sanitize_append(buf, "a\0b", 3);
    CHECK(k == 6 && !memcmp(buf, "a\\x00b", 6));
}

/* sanitize_code_point(cp) is sanitize_text() of cp's UTF-8 bytes, for every code point. */
static void
test_sanitize_code_point_all(void)
{
    int differ = 0;
    for (uint32_t cp = 1; cp <= 0x10ffff && differ < 5; cp++) {
        unsigned char u[5];
        size_t n;
        if (cp < 0x80) {
            u[0] = (unsigned char)cp;
            n = 1;
        } else if (cp < 0x800) {
            u[0] = (unsigned char)(0xc0 | cp >> 6);
            u[1] = (unsigned char)(0x80 | (cp & 0x3f));
            n = 2;
        } else if (cp < 0x10000) {
            u[0] = (unsigned char)(0xe0 | cp >> 12);
            u[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
            u[2] = (unsigned char)(0x80 | (cp & 0x3f));
            n = 3;
        } else {
            u[0] = (unsigned char)(0xf0 | cp >> 18);
            u[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
            u[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
            u[3] = (unsigned char)(0x80 | (cp & 0x3f));
            n = 4;
        }
        u[n] = '\0';
        char want[64], got[SANITIZE_CP_ROOM + 1];
        sanitize_into(want, sizeof(want), (const char *)u);
        size_t k = sanitize_code_point(got, cp);
        if (k > SANITIZE_CP_ROOM || k != strlen(want) || memcmp(got, want, k)) {
            fprintf(stderr, "sanitize_code_point(U+%04X) differs\n", (unsigned)cp);
            differ++;
        }
    }
    CHECK_EQ_INT(differ, 0);
    char got[SANITIZE_CP_ROOM];
    CHECK(sanitize_code_point(got, 0xd800) == 9 &&
          !memcmp(got, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 9));
    CHECK(sanitize_code_point(got, 0x1b) == 2 && !memcmp(got, "\\e", 2));
}

/* sanitize_put_c0() (inline, for the redaction) writes what sanitize_text() gives for each control and DEL. */
static void
test_sanitize_put_c0_all(void)
{
    for (unsigned c = 0; c < 0x80; c++) {
        if (c >= 0x20 && c < 0x7f)
            continue;
        char u[2] = {(char)c, '\0'}, want[16], got[8] = "zzzzzzz";
        if (c)
            sanitize_into(want, sizeof(want), u);
        else
            strcpy(want, "\\x00"); /* a NUL among sanitize_append()'s bytes */
        size_t k = sanitize_put_c0(got, (unsigned char)c);
        CHECK(k == strlen(want) && !memcmp(got, want, k));
        CHECK(got[4] == 'z'); /* four bytes written, no more */
    }
}

static const struct check_test tests[] = {
    {"sanitize_append_matches_text", test_sanitize_append_matches_text},
    {"sanitize_code_point_all", test_sanitize_code_point_all},
    {"sanitize_put_c0_all", test_sanitize_put_c0_all},
    {"sanitize_random", test_sanitize_random},
    {"sanitize_matches_reference", test_sanitize_matches_reference},
    {"sanitize_plain", test_sanitize_plain},
    {"sanitize_controls", test_sanitize_controls},
    {"sanitize_escape_sequences", test_sanitize_escape_sequences},
    {"sanitize_invalid_utf8", test_sanitize_invalid_utf8},
    {"sanitize_caps", test_sanitize_caps},
    {"sanitize_64k_names", test_sanitize_64k_names},
    {"sanitize_width", test_sanitize_width},
};

CHECK_MAIN(tests)
