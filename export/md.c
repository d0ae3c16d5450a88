/* SPDX-License-Identifier: MIT */
/*
 * md: Markdown tickets, one per finding, ready for
 * `gh issue create --body-file` and GitLab issues (CommonMark + GFM
 * tables). With --one, one document holds a summary table and every
 * finding; otherwise tickets on one stream are separated by a line
 * holding EXPORT_MD_SEPARATOR (an HTML comment: invisible when rendered).
 *
 * Untrusted text is never interpreted as Markdown: in prose and table
 * cells every ASCII punctuation character that CommonMark or GFM gives
 * a meaning to is backslash-escaped (so no emphasis, link, autolink,
 * HTML, table break or heading can be injected); kernel names and the
 * command line go in fenced code blocks whose fence is longer than any
 * backtick run inside.
 *
 * The title line is the exception: it becomes the issue's title
 * (`gh issue create --title "$(head -1 t.md | sed 's/^# //')"`), which
 * GitHub shows as plain text, so a backslash escape would show. It is
 * plain text that means the same rendered or not: each character that
 * could start markup is replaced by a look-alike that cannot (md_plain),
 * and the line is at most MD_TITLE_COLS columns, the kernel's name cut
 * at a boundary with an ellipsis (the body has the full name).
 */
#include "export/export_int.h"
#include "export/kname.h"
#include "export/sanitize.h"
#include "export/srcfile.h"
#include "schema/store.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <strings.h>

/*
 * Characters escaped anywhere in prose and table cells: inline syntax,
 * HTML, entities, GFM tables, strikethrough, mentions, and ':' so that
 * "http://" never becomes an autolink.
 */
static const char MD_SPECIAL[] = "\\`*_{}[]<>()#!|~&@:^$";

static void
md_text(FILE *out, const char *s)
{
    if (!s)
        s = "";
    for (const char *p = s; *p; p++) {
        /* "www." autolinks without any special character: break the dot. */
        if (strchr(MD_SPECIAL, *p) || (*p == '.' && p - s >= 3 && !strncasecmp(p - 3, "www", 3)))
            fputc('\\', out);
        fputc(*p, out);
    }
}

/*
 * Text that starts a line: also defuse what only means something there
 * (lists "- + 1.", block quotes ">", headings "#", thematic breaks and
 * setext underlines "- = *", indented code).
 */
static void
md_para(FILE *out, const char *s)
{
    if (!s)
        s = "";
    while (*s == ' ')
        s++;
    if (*s && strchr("-+=>#*_", *s)) {
        fputc('\\', out);
        fputc(*s++, out);
    } else {
        const char *d = s;
        while (*d >= '0' && *d <= '9')
            d++;
        if (d > s && (*d == '.' || *d == ')')) {
            fwrite(s, 1, (size_t)(d - s), out);
            fputc('\\', out);
            fputc(*d, out);
            s = d + 1;
        }
    }
    md_text(out, s);
}

/* The longest title line: a GitHub title stays readable in lists and notifications. */
#define MD_TITLE_COLS 120

static int
is_alnum_byte(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (unsigned char)c >= 0x80;
}

/*
 * Plain text for a title: what CommonMark and GitHub's extensions read
 * as markup becomes a look-alike without meaning; `_` keeps its meaning
 * only inside words, so an underscore run that could close emphasis
 * ("batch_norm_") is dropped when another could open it ("_kernel").
 */
static void
md_plain(char *dst, size_t size, const char *s)
{
    static const struct {
        char c;
        const char *to;
    } map[] = {
        {'`', "'"},  {'*', "\xe2\x88\x97"}, {'~', "\xe2\x88\xbc"}, {'[', "("},           {']', ")"},
        {'\\', "/"}, {'@', "\xef\xbc\xa0"}, {'$', "\xef\xbc\x84"}, {'|', "\xe2\x88\xa3"}};
    size_t o = 0, n = strlen(s);
    int has_opener = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '_' && (i == 0 || !is_alnum_byte(s[i - 1])) && (i == 0 || s[i - 1] != '_')) {
            size_t j = i;
            while (s[j] == '_')
                j++;
            has_opener |= is_alnum_byte(s[j]);
        }
    for (size_t i = 0; i < n && o + 5 < size; i++) {
        char c = s[i];
        const char *to = NULL;
        for (size_t k = 0; k < sizeof(map) / sizeof(map[0]); k++)
            if (map[k].c == c)
                to = map[k].to;
        if (c == '_') {
            size_t j = i;
            while (s[j] == '_')
                j++;
            int can_close = i > 0 && s[i - 1] != ' ' && !is_alnum_byte(s[j]);
            if (can_close && has_opener) {
                i = j - 1;
                continue;
            }
            memcpy(dst + o, s + i, j - i < size - o - 5 ? j - i : 0);
            o += j - i < size - o - 5 ? j - i : 0;
            i = j - 1;
            continue;
        }
        /* An HTML tag or entity needs a letter after '<' or '&'. */
        char next = (char)(s[i + 1] | 0x20);
        if (c == '<' &&
            (s[i + 1] == '/' || s[i + 1] == '!' || s[i + 1] == '?' || (next >= 'a' && next <= 'z')))
            to = "\xe2\x80\xb9";
        if (c == '&' && (is_alnum_byte(s[i + 1]) || s[i + 1] == '#'))
            to = "\xef\xbc\x86";
        /* A heading's closing sequence: '#'s after a space, up to the end. */
        if (c == '#' && i > 0 && s[i - 1] == ' ' && !s[i + strspn(s + i, "#")])
            to = "\xef\xbc\x83";
        if (to) {
            size_t t = strlen(to);
            memcpy(dst + o, to, t);
            o += t;
        } else {
            dst[o++] = c;
        }
    }
    dst[o] = '\0';
}

/* The title line: '#'s, an ordinal, the rule's title "in" the kernel's name, fitted. */
static void
md_title(FILE *out, int level, long long ordinal, const struct ex_finding *f)
{
    char head[512], name[1024], fitted[1024];
    const char *kname = f->display_name ? f->display_name
                        : f->short_name ? f->short_name
                                        : f->demangled_name;
    int n = 0;
    for (int i = 0; i < level && i < 6; i++)
        head[n++] = '#';
    head[n++] = ' ';
    if (ordinal > 0)
        n += snprintf(head + n, sizeof(head) - (size_t)n, "%lld \xc2\xb7 ", ordinal);
    md_plain(head + n, sizeof(head) - (size_t)n, f->title ? f->title : f->rule_id);
    fputs(head, out);
    if (kname) {
        md_plain(name, sizeof(name), kname);
        size_t used = kname_cols(head) + 4;
        size_t room = used + 16 < MD_TITLE_COLS ? MD_TITLE_COLS - used : 16;
        kname_fit(name, room, fitted, sizeof(fitted));
        fprintf(out, " in %s", fitted);
    }
    fputs("\n\n", out);
}

static size_t
max_backtick_run(const char *s)
{
    size_t best = 0, run = 0;
    for (const char *p = s; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        if (run > best)
            best = run;
    }
    return best;
}

/* A fenced code block holding one (sanitized, newline-free) line per string. */
static void
md_code_block(FILE *out, const char *lang, const char *const *lines, size_t n)
{
    size_t fence = 3;
    for (size_t i = 0; i < n; i++)
        if (lines[i] && max_backtick_run(lines[i]) + 1 > fence)
            fence = max_backtick_run(lines[i]) + 1;
    for (size_t i = 0; i < fence; i++)
        fputc('`', out);
    fprintf(out, "%s\n", lang);
    for (size_t i = 0; i < n; i++)
        if (lines[i])
            fprintf(out, "%s\n", lines[i]);
    for (size_t i = 0; i < fence; i++)
        fputc('`', out);
    fputs("\n\n", out);
}

static void
heading(FILE *out, int level, const char *fixed, const char *untrusted)
{
    for (int i = 0; i < level; i++)
        fputc('#', out);
    fputc(' ', out);
    fputs(fixed, out);
    md_text(out, untrusted);
    fputs("\n\n", out);
}

static const char *
tier_name(const char *tier)
{
    static const struct {
        const char *id, *name;
    } t[] = {{"registers", "registers"}, {"shared", "shared memory"}, {"l1", "L1"}, {"l2", "L2"},
             {"dram", "device memory"},  {"host", "host link"}};
    for (size_t i = 0; tier && i < sizeof(t) / sizeof(t[0]); i++)
        if (!strcmp(tier, t[i].id))
            return t[i].name;
    return tier ? tier : "unknown";
}

static void
config_row(FILE *out, const char *name, const char *value)
{
    fprintf(out, "| %s | ", name);
    md_text(out, value);
    fputs(" |\n", out);
}

/* `ordinal` > 0 prefixes the title (headings must differ within one document). */
/*
 * The finding's worst lines (finding_line): a table of their share of the
 * excess and their worst instruction, then the lines themselves, quoted
 * from the source file when it is readable below the current directory
 * or the run's working directory (export/srcfile.h).
 */
static void
worst_lines(const struct ex_report *r, const struct ex_finding *f, FILE *out, int level)
{
    char a[64];
    heading(out, level, "Worst lines", NULL);
    fputs("| line | share of the excess | excess | instruction |\n| --- | ---: | ---: | --- |\n",
          out);
    for (size_t i = 0; i < f->n_lines; i++) {
        const struct ex_line *l = &f->lines[i];
        fputs("| ", out);
        md_text(out, l->location);
        fprintf(out, " | %.1f%% | ", isnan(l->share_pct) ? 0.0 : l->share_pct);
        md_text(out, ex_fmt_num(a, sizeof(a), l->excess));
        if (l->unit) {
            fputc(' ', out);
            md_text(out, l->unit);
        }
        fputs(" | ", out);
        if (l->sass)
            md_text(out, l->sass);
        fputs(" |\n", out);
    }
    fputc('\n', out);
    const char *quoted[8];
    char *owned[8];
    size_t n = 0;
    for (size_t i = 0; i < f->n_lines && n < 8; i++) {
        const struct ex_line *l = &f->lines[i];
        char *real = l->file && l->line > 0 ? srcfile_resolve(l->file, r->cwd) : NULL;
        struct srcfile sf;
        const char *text = NULL;
        if (real && srcfile_load(&sf, real) == 0) {
            text = srcfile_line(&sf, l->line);
            if (text) {
                char *clean = sanitize_text(text, 512);
                size_t len = strlen(l->location) + strlen(clean) + 4;
                owned[n] = malloc(len);
                if (!owned[n])
                    abort();
                snprintf(owned[n], len, "%s: %s", l->location, clean);
                quoted[n] = owned[n];
                n++;
                free(clean);
            }
            srcfile_release(&sf);
        }
        free(real);
    }
    if (n) {
        md_code_block(out, "", quoted, n);
        for (size_t i = 0; i < n; i++)
            free(owned[i]);
    }
}

static void
write_ticket(const struct ex_report *r, const struct ex_finding *f, FILE *out, int level,
             long long ordinal)
{
    char a[64], b[64], c[64];

    md_title(out, level, ordinal, f);

    fputs("**Severity:** ", out);
    md_text(out, f->severity);
    fputs(" \xc2\xb7 **Tier:** ", out);
    md_text(out, tier_name(f->tier));
    fputs(" \xc2\xb7 **Rule:** ", out);
    md_text(out, f->rule_id);
    if (f->rank > 0)
        fprintf(out, " \xc2\xb7 **Rank:** %lld", f->rank);
    fputs("\n\n", out);

    fprintf(out, "**Estimated time lost:** %s", ex_fmt_ns(a, sizeof(a), f->time_lost_ns));
    if (f->launches >= 0)
        fprintf(out, " over %lld launch%s", f->launches, f->launches == 1 ? "" : "es");
    if (isfinite(f->time_lost_ns_per_launch))
        fprintf(out, " (%s per launch)", ex_fmt_ns(b, sizeof(b), f->time_lost_ns_per_launch));
    if (isfinite(f->share_pct))
        fprintf(out, ", %.2f %% of the run's GPU time", f->share_pct);
    fputs("\n\n", out);

    heading(out, level + 1, "Kernel", NULL);
    if (f->kernel_id >= 0) {
        const char *lines[1] = {f->demangled_name ? f->demangled_name : "?"};
        md_code_block(out, "text", lines, 1);
        fputs("| launch configuration | value |\n| --- | --- |\n", out);
        config_row(out, "grid", ex_fmt_dim(a, sizeof(a), f->grid));
        config_row(out, "block", ex_fmt_dim(a, sizeof(a), f->block));
        if (f->dynamic_smem_bytes >= 0) {
            snprintf(a, sizeof(a), "%lld bytes", f->dynamic_smem_bytes);
            config_row(out, "dynamic shared memory", a);
        }
        if (f->static_smem_bytes >= 0) {
            snprintf(a, sizeof(a), "%lld bytes", f->static_smem_bytes);
            config_row(out, "static shared memory", a);
        }
        if (f->registers_per_thread >= 0) {
            snprintf(a, sizeof(a), "%lld", f->registers_per_thread);
            config_row(out, "registers per thread", a);
        }
        if (f->local_bytes_per_thread >= 0) {
            snprintf(a, sizeof(a), "%lld bytes", f->local_bytes_per_thread);
            config_row(out, "local memory per thread", a);
        }
        if (isfinite(f->theoretical_occupancy_pct)) {
            fprintf(out, "| theoretical occupancy | %.1f %%", f->theoretical_occupancy_pct);
            if (f->occupancy_limiter) {
                fputs(" \\(limited by ", out);
                md_text(out, f->occupancy_limiter);
                fputs("\\)", out);
            }
            fputs(" |\n", out);
        }
        if (f->source_file) {
            fputs("| source | ", out);
            md_text(out, f->source_file);
            if (f->source_line > 0)
                fprintf(out, "\\:%lld", f->source_line);
            fputs(" |\n", out);
        }
        if (r->device_name)
            config_row(out, "device", r->device_name);
        fputc('\n', out);
    } else {
        fputs("This finding concerns the whole run (copies or launches), not one kernel.\n\n", out);
    }

    heading(out, level + 1, "Finding", NULL);
    md_para(out, f->message ? f->message : f->title);
    fputs("\n\n", out);

    if (f->n_lines)
        worst_lines(r, f, out, level + 1);

    heading(out, level + 1, "Evidence", NULL);
    if (f->n_ev == 0) {
        fputs("The report holds no evidence rows for this finding.\n\n", out);
    } else {
        fputs(
            "| evidence | value | threshold | over the threshold |\n| --- | ---: | ---: | --- |\n",
            out);
        for (size_t i = 0; i < f->n_ev; i++) {
            const struct ex_evidence *e = &f->ev[i];
            fputs("| ", out);
            md_text(out, e->name);
            fputs(" | ", out);
            char ev[EX_NAME_MAX + 80];
            md_text(out, ex_fmt_evidence(ev, sizeof(ev), e));
            fputs(" | ", out);
            if (e->has_threshold) {
                if (e->op) {
                    md_text(out, e->op);
                    fputc(' ', out);
                }
                md_text(out, ex_fmt_num(c, sizeof(c), e->threshold));
                if (e->unit) {
                    fputc(' ', out);
                    md_text(out, e->unit);
                }
            } else {
                fputs("informative", out);
            }
            const char *fires = "";
            if (e->has_value && e->has_threshold && e->op) {
                int y = (!strcmp(e->op, ">") && e->value > e->threshold) ||
                        (!strcmp(e->op, ">=") && e->value >= e->threshold) ||
                        (!strcmp(e->op, "<") && e->value < e->threshold) ||
                        (!strcmp(e->op, "<=") && e->value <= e->threshold);
                fires = y ? "yes" : "no";
            }
            fprintf(out, " | %s |\n", fires);
        }
        fputc('\n', out);
    }

    heading(out, level + 1, "Remedy", NULL);
    md_para(out, f->remedy ? f->remedy : "See `gpuhier rules explain` for this rule.");
    fputs("\n\n", out);

    /* the documents a reader can open (the rule's doc:), not where the rule was first written down */
    heading(out, level + 1, "Reference", NULL);
    if (f->doc_ref) {
        fputs("See ", out);
        md_text(out, f->doc_ref);
        fputs(".\n\n", out);
    } else {
        fputs("The rule names no reference; `gpuhier rules explain` gives its rationale.\n\n", out);
    }

    heading(out, level + 1, "Reproduce", NULL);
    if (r->repro) {
        const char *lines[2] = {r->repro, NULL};
        md_code_block(out, "sh", lines, 1);
    } else {
        fputs("The report does not record the profiled command line.\n\n", out);
    }
    fputs("Generated by gpuhier ", out);
    md_text(out, GPUHIER_VERSION);
    if (r->ruleset_version) {
        fputs(", rule set ", out);
        md_text(out, r->ruleset_version);
    }
    if (r->created_by && strcmp(r->created_by, "collector")) {
        fputs(". The report is ", out);
        md_text(out, r->created_by);
        if (r->provenance) {
            fputs(": ", out);
            md_text(out, r->provenance);
        }
    }
    fputs(".\n", out);
}

int
ex_write_md_one_ticket(const struct ex_report *r, const struct ex_finding *f, FILE *out)
{
    write_ticket(r, f, out, 1, 0);
    if (ferror(out))
        return store_set_error("cannot write Markdown: %s", strerror(errno));
    return 0;
}

int
ex_write_md(const struct ex_report *r, const struct export_opts *o, FILE *out)
{
    char a[64];
    if (o->one) {
        fprintf(out, "# gpuhier findings: %zu\n\n", r->n);
        if (r->n == 0) {
            fputs("No findings match.\n", out);
        } else {
            fputs("| rank | severity | rule | kernel | time lost |\n| ---: | --- | --- | --- | "
                  "---: |\n",
                  out);
            for (size_t i = 0; i < r->n; i++) {
                const struct ex_finding *f = &r->f[i];
                if (f->rank > 0)
                    fprintf(out, "| %lld | ", f->rank);
                else
                    fputs("|  | ", out);
                md_text(out, f->severity);
                fputs(" | ", out);
                md_text(out, f->rule_id);
                fputs(" | ", out);
                md_text(out, f->display_name     ? f->display_name
                             : f->short_name     ? f->short_name
                             : f->demangled_name ? f->demangled_name
                                                 : "run");
                fprintf(out, " | %s |\n", ex_fmt_ns(a, sizeof(a), f->time_lost_ns));
            }
        }
        for (size_t i = 0; i < r->n; i++) {
            fputc('\n', out);
            write_ticket(r, &r->f[i], out, 2, r->f[i].rank > 0 ? r->f[i].rank : (long long)i + 1);
        }
    } else {
        for (size_t i = 0; i < r->n; i++) {
            if (i)
                fprintf(out, "\n%s\n\n", EXPORT_MD_SEPARATOR);
            write_ticket(r, &r->f[i], out, 1, 0);
        }
    }
    if (ferror(out))
        return store_set_error("cannot write Markdown: %s", strerror(errno));
    return 0;
}
