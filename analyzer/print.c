/* SPDX-License-Identifier: MIT */
/*
 * print: the ranked findings table `gpuhier analyze` and `gpuhier run`
 * print. Kernel names and messages come from the report (and messages
 * from rule files, which may be user rules): every string goes through
 * the export module's sanitizer before it reaches a terminal.
 */
#include "analyzer/analyzer_int.h"
#include "export/export.h"
#include "export/kname.h"
#include "export/sanitize.h"
#include "schema/store.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void
fmt_ns(char *buf, size_t n, double v)
{
    if (v >= 1e9)
        snprintf(buf, n, "%.2f s", v / 1e9);
    else if (v >= 1e6)
        snprintf(buf, n, "%.2f ms", v / 1e6);
    else if (v >= 1e3)
        snprintf(buf, n, "%.1f \xc2\xb5s", v / 1e3);
    else
        snprintf(buf, n, "%.0f ns", v);
}

/* Print `s` sanitized and cut to `width` columns. */
static void
put_cell(FILE *f, const char *s, int width)
{
    char buf[1024];
    sanitize_into(buf, sizeof(buf), s ? s : "");
    int w = sanitize_width(buf);
    if (w > width) {
        /* Cut at a character boundary, leave room for the ellipsis. */
        size_t i = strlen(buf);
        while (i > 0 && w > width - 1) {
            do
                i--;
            while (i > 0 && ((unsigned char)buf[i] & 0xC0) == 0x80);
            buf[i] = '\0';
            w = sanitize_width(buf);
        }
        fprintf(f, "%s\xe2\x80\xa6", buf);
        w++;
    } else {
        fputs(buf, f);
    }
    for (; w < width; w++)
        fputc(' ', f);
}

/* `s` right-aligned in `width` columns ("µs" is two bytes, one column). */
static void
put_right(FILE *f, const char *s, int width)
{
    for (int w = (int)kname_cols(s); w < width; w++)
        fputc(' ', f);
    fputs(s, f);
}

int
analyzer_print_top(sqlite3 *db, FILE *f, int n, int all)
{
    sqlite3_stmt *st = NULL;
    int rc, rows = 0;
    /* Kernel names by the naming rule every view shares (export/kname.h). */
    if (export_names_register(db))
        return an_fail(ANALYZER_ERR_REPORT, "%s", store_error());
    if (store_prepare(db,
                      "SELECT f.rank, f.severity, f.time_lost_ns, f.share_pct, f.tier, f.rule_id,"
                      " COALESCE(gh_kname(k.id), k.short_name, k.demangled_name, k.mangled_name),"
                      " CASE WHEN c.id IS NOT NULL THEN printf('<<<%d,%d,%d>>> x <<<%d,%d,%d>>>',"
                      "   c.grid_x, c.grid_y, c.grid_z, c.block_x, c.block_y, c.block_z) END,"
                      " f.message, f.launches"
                      " FROM finding f LEFT JOIN kernel k ON k.id = f.kernel_id LEFT JOIN config c "
                      "ON c.id = f.config_id WHERE ?2 OR " EXPORT_FINDING_SHOWN
                      " ORDER BY f.rank LIMIT ?1",
                      &st))
        return an_fail(ANALYZER_ERR_REPORT, "%s", store_error());
    sqlite3_bind_int(st, 1, n > 0 ? n : -1);
    sqlite3_bind_int(st, 2, all);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!rows++)
            fprintf(f, "%4s  %-8s %10s %7s  %-9s %-26s %s\n", "rank", "severity", "time lost",
                    "share", "tier", "rule", "kernel");
        char lost[32], share[32];
        fmt_ns(lost, sizeof(lost), sqlite3_column_double(st, 2));
        snprintf(share, sizeof(share), "%.1f%%", sqlite3_column_double(st, 3));
        fprintf(f, "%4d  %-8s ", sqlite3_column_int(st, 0),
                (const char *)sqlite3_column_text(st, 1));
        put_right(f, lost, 10);
        fprintf(f, " %7s  %-9s ", share,
                sqlite3_column_text(st, 4) ? (const char *)sqlite3_column_text(st, 4) : "");
        put_cell(f, (const char *)sqlite3_column_text(st, 5), 26);
        fputc(' ', f);
        /* A long name is cut at a name boundary, with an ellipsis. */
        const char *kname = (const char *)sqlite3_column_text(st, 6);
        char fitted[256];
        kname_fit(kname ? kname : "(whole run)", 40, fitted, sizeof(fitted));
        put_cell(f, fitted, 40);
        const char *shape = (const char *)sqlite3_column_text(st, 7);
        if (shape)
            fprintf(f, " %s", shape);
        fputc('\n', f);
        char *msg = sanitize_text((const char *)sqlite3_column_text(st, 8), 0);
        fprintf(f, "      %s\n", msg ? msg : "");
        free(msg);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return an_fail(ANALYZER_ERR_REPORT, "cannot read findings: %s", sqlite3_errstr(rc));
    if (!rows)
        fprintf(f, "no findings\n");
    return 0;
}
