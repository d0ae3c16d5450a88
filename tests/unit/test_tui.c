/* SPDX-License-Identifier: MIT */
/*
 * test_tui: the TUI's pure helpers: the draw_* functions on a canvas
 * (cutting, padding, wide characters, ASCII fallback, bars), number
 * formatting, key names and the request table.
 */
#include "tests/check.h"
#include "tui/tui_int.h"

#include <locale.h>
#include <string.h>

/* Line `row` of the canvas as text (trailing blanks kept). */
static const char *
line(const struct canvas *c, int row)
{
    static char buf[1024];
    size_t n = 0;
    for (int i = 0; i < c->cols; i++) {
        const char *ch = c->cells[(size_t)row * c->cols + i].ch;
        size_t l = strlen(ch);
        memcpy(buf + n, ch, l);
        n += l;
    }
    buf[n] = '\0';
    return buf;
}

static void
test_tui_field_pads_and_cuts(void)
{
    struct canvas c;
    canvas_init(&c, 20, 2, false);
    struct draw d = {.c = &c, .row = 0, .maxcol = 20};
    CHECK(!draw_field(&d, LINE_DEFAULT, "abc", 5, false));
    CHECK(!draw_field(&d, LINE_DEFAULT, "7", 3, true));
    CHECK(!draw_field(&d, LINE_DEFAULT, "abcdefgh", 4, false));
    CHECK_STR(line(&c, 0), "abc     7 abc\xe2\x80\xa6      ");
    /* The line fills up: the helper says so. */
    CHECK(draw_text(&d, LINE_DEFAULT, "0123456789"));
    CHECK_EQ_INT(d.col, 20);
    canvas_release(&c);
}

static void
test_tui_wide_characters(void)
{
    struct canvas c;
    canvas_init(&c, 6, 1, false);
    struct draw d = {.c = &c, .maxcol = 6};
    /* Three CJK characters are six columns; a fourth does not fit. */
    CHECK(draw_text(&d, LINE_DEFAULT, "\xe6\xbc\xa2\xe5\xad\x97\xe6\xbc\xa2\xe5\xad\x97"));
    CHECK_STR(line(&c, 0), "\xe6\xbc\xa2\xe5\xad\x97\xe6\xbc\xa2");
    CHECK_EQ_INT(text_width("\xe6\xbc\xa2x"), 3);
    canvas_release(&c);
}

static void
test_tui_ascii_fallback(void)
{
    struct canvas c;
    canvas_init(&c, 16, 1, true);
    struct draw d = {.c = &c, .maxcol = 16};
    draw_text(&d, LINE_DEFAULT, "\xc3\xa9t\xc3\xa9 ");
    draw_bar(&d, 0.5, 4);
    CHECK_STR(line(&c, 0), "?t? ##..        ");
    canvas_release(&c);
}

static void
test_tui_bar_clamps(void)
{
    struct canvas c;
    canvas_init(&c, 20, 1, true);
    struct draw d = {.c = &c, .maxcol = 20};
    draw_bar(&d, 2.0, 3);
    draw_bar(&d, -1, 3);
    draw_bar(&d, 0, 3);
    CHECK_STR(line(&c, 0), "### n/a ...         ");
    canvas_release(&c);
}

static void
test_tui_text_buffer(void)
{
    /* Without a canvas, helpers append to a buffer and never cut. */
    struct draw d = {0};
    draw_field(&d, LINE_DEFAULT, "a-very-long-name", 4, false);
    draw_field(&d, LINE_DEFAULT, "12", 4, true);
    CHECK_STR(d.buf, "a-very-long-name   12 ");
    free(d.buf);
}

static void
test_tui_formats(void)
{
    char b[32];
    fmt_ns(b, sizeof(b), 999);
    CHECK_STR(b, "999 ns");
    fmt_ns(b, sizeof(b), 1234);
    CHECK_STR(b, "1.23 \xc2\xb5s");
    fmt_ns(b, sizeof(b), 202490);
    CHECK_STR(b, "202 \xc2\xb5s");
    fmt_ns(b, sizeof(b), 50.62e6);
    CHECK_STR(b, "50.6 ms");
    fmt_count(b, sizeof(b), 1000000);
    CHECK_STR(b, "1,000,000");
    fmt_count(b, sizeof(b), 999);
    CHECK_STR(b, "999");
    fmt_bytes(b, sizeof(b), 1.5e9);
    CHECK_STR(b, "1.5 GB");
    fmt_bw(b, sizeof(b), 4.8e12);
    CHECK_STR(b, "4.80 TB/s");
    fmt_ratio(b, sizeof(b), 309.4);
    CHECK_STR(b, "309\xc3\x97");
    /* The lists write a ratio as the rules' messages do ("7.5×", analyzer format "x"). */
    fmt_ratio(b, sizeof(b), 7.5);
    CHECK_STR(b, "7.5\xc3\x97");
    fmt_pct(b, sizeof(b), 12.34);
    CHECK_STR(b, "12.3%");
}

static void
test_tui_keys(void)
{
    char b[32];
    CHECK_EQ_INT(keys_parse("Enter"), '\n');
    CHECK_EQ_INT(keys_parse("lt"), '<');
    CHECK_EQ_INT(keys_parse("nonsense"), -1);
    CHECK_STR(keys_name(keys_parse("F6"), b, sizeof(b)), "F6");
    CHECK_STR(keys_name(keys_parse("^L"), b, sizeof(b)), "^L");
    CHECK_EQ_INT(keys_request("kernels", 'c'), REQ_TOGGLE_CONFIG);
    CHECK_EQ_INT(keys_request("summary", 'c'), REQ_NONE);
    CHECK_EQ_INT(keys_request("findings", 'j'), REQ_MOVE_DOWN);
    CHECK_EQ_INT(keys_request("findings", keys_parse("F6")), REQ_SORT_NEXT);
}

static void
test_tui_every_request_has_a_key_and_help(void)
{
    /* The help screen is generated from this table: nothing may be unreachable. */
    CHECK_EQ_INT(request_info_count, REQ_COUNT - 1);
    for (size_t i = 0; i < request_info_count; i++) {
        char keys[128];
        keys_help(request_info[i].req, keys, sizeof(keys));
        if (!keys[0])
            fprintf(stderr, "request %s has no key\n", request_info[i].name);
        CHECK(keys[0] != '\0');
        CHECK(request_info[i].help && request_info[i].help[0]);
    }
}

static const struct check_test tests[] = {
    {"tui_field_pads_and_cuts", test_tui_field_pads_and_cuts},
    {"tui_wide_characters", test_tui_wide_characters},
    {"tui_ascii_fallback", test_tui_ascii_fallback},
    {"tui_bar_clamps", test_tui_bar_clamps},
    {"tui_text_buffer", test_tui_text_buffer},
    {"tui_formats", test_tui_formats},
    {"tui_keys", test_tui_keys},
    {"tui_every_request_has_a_key_and_help", test_tui_every_request_has_a_key_and_help},
};

int
main(int argc, char **argv)
{
    /* wcwidth() needs a UTF-8 locale for the wide-character test. */
    if (!setlocale(LC_ALL, "C.UTF-8"))
        setlocale(LC_ALL, "");
    return check_run(tests, sizeof(tests) / sizeof(tests[0]), argc, argv);
}
