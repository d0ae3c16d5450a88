/* SPDX-License-Identifier: MIT */
/*
 * redact_speed: the cost of redacting and sanitizing one long command
 * line (issue 20 §4: linear in the input, a 1 MB command line in a few
 * milliseconds). For each shape of argument that made the old regex
 * redaction quadratic, and each size, the best CPU time of a few runs of
 * export_redact_argv() (which sanitizes each argument first) and of
 * sanitize_text() alone. Prints a Markdown table; exits 1 when the 1 MB
 * redaction takes longer than the limit (argv[1], ms; default 100, for a
 * loaded shared machine: the result itself goes in docs/bench-redact.md).
 */
#include "export/export.h"
#include "export/sanitize.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct shape {
    const char *name;
    const char *unit; /* repeated to the size */
};

static const struct shape shapes[] = {
    {"letters (one long run)", "a"},      {"JWT-like prefix eyJ repeated", "eyJ"},
    {"token prefix sk- repeated", "sk-"}, {"scheme characters then ://", "x1+"},
    {"many user:pw@ URLs", "h://u:p@"},   {"escapes and UTF-8", "\x1b]0;t\x07\xc3\xa9"},
};

static double
cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ["./app", "--arg=<unit repeated to bytes>"] as JSON, as run.command_line holds it. */
static char *
command_line(const struct shape *s, size_t bytes)
{
    char *arg = malloc(bytes + 1);
    size_t u = strlen(s->unit);
    for (size_t i = 0; i < bytes; i++)
        arg[i] = s->unit[i % u];
    arg[bytes] = '\0';
    if (!strcmp(s->unit, "x1+"))
        memcpy(arg + bytes - 3, "://", 3);
    json_t *a = json_pack("[s,s]", "./app", arg);
    char *out = json_dumps(a, JSON_COMPACT);
    json_decref(a);
    free(arg);
    return out;
}

int
main(int argc, char **argv)
{
    double limit_ms = argc > 1 ? atof(argv[1]) : 100;
    static const size_t sizes[] = {64 * 1024, 128 * 1024, 1024 * 1024};
    double worst_1m = 0;
    printf("| argument | size | redact (ms CPU, best of 3) | sanitize only (ms CPU) |\n");
    printf("| --- | ---: | ---: | ---: |\n");
    for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
        for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
            char *cl = command_line(&shapes[k], sizes[z]);
            double best = 1e9, best_san = 1e9;
            for (int rep = 0; rep < 3; rep++) {
                double t0 = cpu_ms();
                char *r = export_redact_argv(cl);
                double t1 = cpu_ms();
                char *c = sanitize_text(cl, strlen(cl) * 4 + 16);
                double t2 = cpu_ms();
                if (!r || !c) {
                    fprintf(stderr, "redact_speed: redaction failed\n");
                    return 1;
                }
                free(r);
                free(c);
                best = t1 - t0 < best ? t1 - t0 : best;
                best_san = t2 - t1 < best_san ? t2 - t1 : best_san;
            }
            printf("| %s | %zu KB | %.2f | %.2f |\n", shapes[k].name, sizes[z] / 1024, best,
                   best_san);
            if (sizes[z] == 1024 * 1024 && best > worst_1m)
                worst_1m = best;
            free(cl);
        }
    }
    printf("\nworst 1 MB redaction: %.2f ms CPU (limit %.0f ms)\n", worst_1m, limit_ms);
    return worst_1m <= limit_ms ? 0 : 1;
}
