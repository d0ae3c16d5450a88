/* SPDX-License-Identifier: MIT */
/*
 * md2man: turns one docs/cmd-<name>.md (or docs/gpuhier.md) into a man
 * page, so docs/ stays the single source of the manual and no pandoc is
 * needed. It knows only the Markdown the docs use: `#` headings, one
 * fenced block after the title (the SYNOPSIS), paragraphs of one
 * sentence per line, `-` and `1.` lists, pipe tables, `code`, **bold**,
 * *emphasis* and [links](target).
 *
 *   md2man NAME COMMANDS_TXT VERSION IN.md OUT.1
 *
 * NAME is the page name (gpuhier-run); COMMANDS_TXT is the output of
 * `gpuhier --help`, whose table gives the NAME line's summary, so the
 * summary has one source (cli/gpuhier.c). Tables become .TP lists (the
 * first cell is the tag), because tbl cannot wrap the docs' long cells
 * at 80 columns. A reference to docs/cmd-X.md becomes gpuhier-X(1).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *out;

/*
 * Text with roff's specials escaped: `-` as \- so options paste as ASCII,
 * and every non-ASCII character as \[uXXXX], so the page needs no preconv
 * and renders the same under groff and mandoc.
 */
static void
put_escaped(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\\') {
            fputs("\\e", out);
        } else if (c == '-') {
            fputs("\\-", out);
        } else if (c >= 0xc0 && c < 0xf8) {
            int len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
            unsigned long cp = c & (0x3f >> (len - 1));
            int k = 1;
            for (; k < len && i + (size_t)k < n && ((unsigned char)s[i + k] & 0xc0) == 0x80; k++)
                cp = cp << 6 | ((unsigned char)s[i + k] & 0x3f);
            if (k == len)
                fprintf(out, "\\[u%04lX]", cp);
            i += (size_t)k - 1;
        } else if (c >= 0x80) {
            /* A stray continuation byte: dropped rather than passed to troff. */
        } else {
            fputc(c, out);
        }
    }
}

/* Emits a reference to docs/cmd-X.md at s as gpuhier-X(1); returns bytes used, or 0. */
static size_t
put_page_ref(const char *s)
{
    if (strncmp(s, "docs/cmd-", 9))
        return 0;
    const char *e = strstr(s + 9, ".md");
    if (!e)
        return 0;
    for (const char *p = s + 9; p < e; p++)
        if (!islower((unsigned char)*p))
            return 0;
    fputs("\\fBgpuhier\\-", out);
    put_escaped(s + 9, (size_t)(e - s - 9));
    fputs("\\fR(1)", out);
    return (size_t)(e + 3 - s);
}

/* One line of Markdown inline text, without the line break. */
static void
put_inline(const char *s)
{
    while (*s) {
        size_t n = put_page_ref(s);
        if (n) {
            s += n;
        } else if (*s == '`') {
            const char *e = strchr(s + 1, '`');
            if (!e) {
                put_escaped(s, 1);
                s++;
                continue;
            }
            fputs("\\fB", out);
            for (const char *p = s + 1; p < e;) {
                size_t m = put_page_ref(p);
                if (m) {
                    fputs("\\fB", out);
                    p += m;
                } else if (p[0] == '\\' && p[1] == '|') {
                    /* A table cell's escaped pipe, kept in code. */
                    put_escaped(p + 1, 1);
                    p += 2;
                } else {
                    put_escaped(p++, 1);
                }
            }
            fputs("\\fR", out);
            s = e + 1;
        } else if (s[0] == '*' && s[1] == '*') {
            const char *e = strstr(s + 2, "**");
            if (!e) {
                put_escaped(s, 2);
                s += 2;
                continue;
            }
            fputs("\\fB", out);
            put_escaped(s + 2, (size_t)(e - s - 2));
            fputs("\\fR", out);
            s = e + 2;
        } else if (s[0] == '*' && s[1] && s[1] != ' ' && s[1] != '*' && strchr(s + 2, '*') &&
                   strchr(s + 2, '*')[-1] != ' ') {
            const char *e = strchr(s + 2, '*');
            fputs("\\fI", out);
            put_escaped(s + 1, (size_t)(e - s - 1));
            fputs("\\fR", out);
            s = e + 1;
        } else if (*s == '[' && strstr(s, "](")) {
            const char *mid = strstr(s, "](");
            const char *e = strchr(mid, ')');
            if (!e || memchr(s, '\n', (size_t)(e - s))) {
                put_escaped(s++, 1);
                continue;
            }
            /* The link text is what the reader sees; a web target follows it. */
            char *text = strndup(s + 1, (size_t)(mid - s - 1));
            if (text) {
                put_inline(text);
                free(text);
            }
            if (!strncmp(mid + 2, "http", 4)) {
                fputs(" <", out);
                put_escaped(mid + 2, (size_t)(e - mid - 2));
                fputc('>', out);
            }
            s = e + 1;
        } else if (s[0] == '\\' && s[1] && strchr("|*_`[]\\", s[1])) {
            put_escaped(s + 1, 1);
            s += 2;
        } else {
            /* a UTF-8 sequence whole: put_escaped() turns it into \[uXXXX] */
            unsigned char c = (unsigned char)*s;
            size_t len = c >= 0xf0 && c < 0xf8 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1, k = 1;
            while (k < len && ((unsigned char)s[k] & 0xc0) == 0x80)
                k++;
            put_escaped(s, k);
            s += k;
        }
    }
}

/* A text line: a leading '.' or '\'' would be read as a request. */
static void
put_text_line(const char *s)
{
    while (*s == ' ')
        s++;
    if (*s == '.' || *s == '\'')
        fputs("\\&", out);
    put_inline(s);
    fputc('\n', out);
}

/* Splits a table row into cells in place; returns the count (at most max). */
static int
split_row(char *line, char **cells, int max)
{
    int n = 0;
    char *p = line;
    while (*p == ' ')
        p++;
    if (*p == '|')
        p++;
    while (*p && n < max) {
        char *start = p;
        while (*p && !(*p == '|' && (p == start || p[-1] != '\\')))
            p++;
        char *end = p;
        while (end > start && end[-1] == ' ')
            end--;
        while (start < end && *start == ' ')
            start++;
        int is_last = !*p;
        *end = '\0';
        if (is_last && start == end)
            break;
        cells[n++] = start;
        if (is_last)
            break;
        p++;
    }
    return n;
}

static int
is_separator_row(const char *line)
{
    for (; *line; line++)
        if (!strchr("|-: \n", *line))
            return 0;
    return 1;
}

static void
put_heading(const char *request, const char *title, int upper, const char *rest)
{
    fprintf(out, "%s \"", request);
    for (const char *p = title; *p; p++) {
        char c = upper ? (char)toupper((unsigned char)*p) : *p;
        if (c == '"' || c == '`')
            continue;
        if (c == '-')
            fputs("\\-", out);
        else if (c == '\\')
            fputs("\\e", out);
        else
            fputc(c, out);
    }
    fprintf(out, "\"%s\n", rest);
}

/*
 * The NAME line's summary: for gpuhier-X, X's row of `gpuhier --help`
 * ("  run      profile ..."); for the main page, the first prose line of
 * its Markdown, without the final period. Returns a new string or NULL.
 */
static char *
summary_for(const char *name, const char *commands_txt, const char *md)
{
    const char *cmd = strchr(name, '-');
    FILE *f = fopen(cmd ? commands_txt : md, "r");
    if (!f)
        return NULL;
    char line[1024];
    char *ret = NULL;
    while (!ret && fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = '\0';
        if (!cmd) {
            size_t n = strlen(line);
            if (n && line[0] != '#') {
                if (line[n - 1] == '.')
                    line[n - 1] = '\0';
                ret = strdup(line);
            }
            continue;
        }
        char *p = line;
        while (*p == ' ')
            p++;
        size_t n = strlen(cmd + 1);
        if (p != line && !strncmp(p, cmd + 1, n) && p[n] == ' ') {
            p += n;
            while (*p == ' ')
                p++;
            ret = strdup(p);
        }
    }
    fclose(f);
    return ret;
}

int
main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: md2man NAME COMMANDS_TXT VERSION IN.md OUT.1\n");
        return 2;
    }
    const char *name = argv[1];
    FILE *in = fopen(argv[4], "r");
    if (!in) {
        fprintf(stderr, "md2man: cannot read '%s'\n", argv[4]);
        return 1;
    }
    out = fopen(argv[5], "w");
    if (!out) {
        fprintf(stderr, "md2man: cannot write '%s'\n", argv[5]);
        fclose(in);
        return 1;
    }
    char *summary = summary_for(name, argv[2], argv[4]);
    if (!summary) {
        fprintf(stderr, "md2man: no summary for '%s' in '%s'\n", name, argv[2]);
        fclose(in);
        fclose(out);
        remove(argv[5]);
        return 1;
    }
    const char *src = strrchr(argv[4], '/');
    fprintf(out, ".\\\" Generated by man/md2man from docs/%s; edit that file instead.\n",
            src ? src + 1 : argv[4]);
    /* .TH's fields: title, section, date (none: the build is reproducible), source, manual. */
    char rest[256];
    snprintf(rest, sizeof(rest), " 1 \"\" \"gpuhier %s\" \"gpuhier manual\"", argv[3]);
    put_heading(".TH", name, 1, rest);
    /* No hyphenation, ragged right: a name or option copied from the page stays whole. */
    fputs(".nh\n.ad l\n", out);
    fputs(".SH NAME\n", out);
    put_escaped(name, strlen(name));
    fputs(" \\- ", out);
    put_inline(summary);
    fputc('\n', out);
    free(summary);

    char line[8192];
    int in_fence = 0, seen_synopsis = 0, seen_title = 0, in_description = 0;
    int need_pp = 0, list_depth = 0, in_table = 0, table_row = 0, ncols = 0;
    char *header[16] = {0};
    while (fgets(line, sizeof(line), in)) {
        line[strcspn(line, "\n")] = '\0';
        if (!strncmp(line, "```", 3)) {
            if (!in_fence) {
                if (seen_title && !seen_synopsis) {
                    fputs(".SH SYNOPSIS\n", out);
                } else {
                    fputs(".PP\n", out);
                }
                fputs(".RS 4\n.nf\n", out);
            } else {
                fputs(".fi\n.RE\n", out);
                if (!seen_synopsis) {
                    seen_synopsis = 1;
                    fputs(".SH DESCRIPTION\n", out);
                    in_description = 1;
                }
                need_pp = 1;
            }
            in_fence = !in_fence;
            continue;
        }
        if (in_fence) {
            if (line[0] == '.' || line[0] == '\'')
                fputs("\\&", out);
            put_escaped(line, strlen(line));
            fputc('\n', out);
            continue;
        }
        if (in_table && line[0] != '|') {
            in_table = 0;
            for (int i = 0; i < ncols; i++) {
                free(header[i]);
                header[i] = NULL;
            }
            ncols = 0;
            fputs(".PD\n", out);
        }
        if (!line[0]) {
            need_pp = 1;
            continue;
        }
        if (line[0] == '#') {
            int level = 0;
            while (line[level] == '#')
                level++;
            const char *title = line + level;
            while (*title == ' ')
                title++;
            for (; list_depth > 0; list_depth--)
                fputs(".RE\n", out);
            if (level == 1) {
                seen_title = 1;
            } else if (level == 2) {
                if (!seen_synopsis) {
                    seen_synopsis = 1;
                }
                put_heading(".SH", title, 1, "");
            } else {
                put_heading(".SS", title, 0, "");
            }
            in_description = 0;
            need_pp = 0;
            continue;
        }
        if (seen_title && !seen_synopsis && !in_description) {
            /* Prose before any synopsis block: the description starts here. */
            fputs(".SH DESCRIPTION\n", out);
            seen_synopsis = in_description = 1;
            need_pp = 0;
        }
        if (line[0] == '|') {
            char *cells[16];
            if (is_separator_row(line)) {
                table_row = 1;
                continue;
            }
            int n = split_row(line, cells, 16);
            if (!in_table) {
                in_table = 1;
                table_row = 0;
                for (int i = 0; i < n; i++)
                    header[i] = strdup(cells[i]);
                ncols = n;
                fputs(".PP\n.PD 0\n", out);
                need_pp = 0;
                continue;
            }
            (void)table_row;
            fputs(".TP\n", out);
            put_text_line(n ? cells[0] : "");
            for (int i = 1; i < n; i++) {
                if (n > 2 && i < ncols && header[i] && header[i][0]) {
                    /* Three columns or more: each value after the first names its column. */
                    if (i > 1)
                        fputs("; ", out);
                    put_inline(header[i]);
                    fputs(": ", out);
                    put_inline(cells[i]);
                    if (i == n - 1)
                        fputc('\n', out);
                } else {
                    put_text_line(cells[i]);
                }
            }
            fputs(".PD 0\n", out);
            continue;
        }
        int indent = 0;
        while (line[indent] == ' ')
            indent++;
        const char *p = line + indent;
        int is_bullet = (p[0] == '-' || p[0] == '*') && p[1] == ' ';
        int num = 0;
        const char *q = p;
        while (isdigit((unsigned char)*q))
            q++;
        if (q > p && q[0] == '.' && q[1] == ' ')
            num = atoi(p);
        if (is_bullet || num) {
            /* Two spaces of indent per level; a deeper item nests under the one above. */
            int depth = indent / 2;
            for (; list_depth < depth; list_depth++)
                fputs(".RS 2\n", out);
            for (; list_depth > depth; list_depth--)
                fputs(".RE\n", out);
            if (is_bullet)
                fputs(".IP \\(bu 2\n", out);
            else
                fprintf(out, ".IP %d. 4\n", num);
            put_text_line(is_bullet ? p + 2 : q + 2);
            need_pp = 0;
            continue;
        }
        if (need_pp) {
            for (; list_depth > 0; list_depth--)
                fputs(".RE\n", out);
            fputs(".PP\n", out);
            need_pp = 0;
        }
        if (line[0] == '>')
            put_text_line(line[1] == ' ' ? line + 2 : line + 1);
        else
            put_text_line(line);
    }
    if (in_table)
        fputs(".PD\n", out);
    for (int i = 0; i < ncols; i++)
        free(header[i]);
    fputs(".SH SEE ALSO\n", out);
    if (strchr(name, '-'))
        fputs("\\fBgpuhier\\fR(1)\n", out);
    else
        fputs("\\fBgpuhier\\-run\\fR(1), \\fBgpuhier\\-analyze\\fR(1), \\fBgpuhier\\-tui\\fR(1), "
              "\\fBgpuhier\\-report\\fR(1)\n",
              out);
    fclose(in);
    return fclose(out) ? 1 : 0;
}
