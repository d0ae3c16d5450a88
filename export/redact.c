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
 */
#include "export/export.h"
#include "export/sanitize.h"

#include <jansson.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#define MASK "***"

static const char SECRET_KEY[] = "(token|secret|passw(or)?d|passwd|pwd|api[_-]?key|auth|credential|"
                                 "private[_-]?key|access[_-]?key)";

/* Token shapes; each match is replaced by MASK. */
static const char TOKEN_SHAPES[] =
    "(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}"
    "|xox[abprs]-[A-Za-z0-9-]{10,}|A[KS]IA[0-9A-Z]{16}|sk-[A-Za-z0-9_-]{20,}"
    "|eyJ[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,})";

struct redactor {
    regex_t key; /* whole key matches SECRET_KEY somewhere */
    regex_t kv;  /* [-[-]]KEY(=|:)VALUE */
    regex_t opt; /* -KEY or --KEY alone */
    regex_t shapes;
    regex_t url; /* scheme://user:password@ */
};

static int
redactor_init(struct redactor *x)
{
    if (regcomp(&x->key, SECRET_KEY, REG_EXTENDED | REG_ICASE | REG_NOSUB))
        return -1;
    regcomp(&x->kv, "^(-{0,2}[A-Za-z0-9_.-]+)[=:](.*)$", REG_EXTENDED);
    regcomp(&x->opt, "^-{1,2}([A-Za-z0-9_.-]+)$", REG_EXTENDED);
    regcomp(&x->shapes, TOKEN_SHAPES, REG_EXTENDED);
    regcomp(&x->url, "[A-Za-z][A-Za-z0-9+.-]*://[^/@:[:space:]]+:([^/@[:space:]]+)@", REG_EXTENDED);
    return 0;
}

static void
redactor_release(struct redactor *x)
{
    regfree(&x->key);
    regfree(&x->kv);
    regfree(&x->opt);
    regfree(&x->shapes);
    regfree(&x->url);
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

/* Replace every match of `re` (group `g`) in s with MASK. Returns a new string. */
static char *
replace_all(const regex_t *re, int g, char *s)
{
    regmatch_t m[3];
    size_t off = 0;
    while (off <= strlen(s) && regexec(re, s + off, 3, m, off ? REG_NOTBOL : 0) == 0) {
        size_t a = off + (size_t)m[g].rm_so, b = off + (size_t)m[g].rm_eo;
        if (b == a) {
            off = b + 1;
            continue;
        }
        size_t n = strlen(s) - (b - a) + strlen(MASK) + 1;
        char *t = malloc(n);
        if (!t)
            abort();
        snprintf(t, n, "%.*s%s%s", (int)a, s, MASK, s + b);
        free(s);
        s = t;
        off = a + strlen(MASK);
    }
    return s;
}

/* Redact one argument; *next_secret tells the caller to mask the next one. */
static char *
redact_arg(const struct redactor *x, const char *arg, int *next_secret)
{
    char *s = strdup(arg);
    if (!s)
        abort();
    regmatch_t m[3];
    *next_secret = 0;
    if (regexec(&x->kv, s, 3, m, 0) == 0 && m[2].rm_eo > m[2].rm_so &&
        key_is_secret(x, s + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so))) {
        s[m[2].rm_so] = '\0';
        size_t n = strlen(s) + strlen(MASK) + 1;
        char *t = malloc(n);
        if (!t)
            abort();
        snprintf(t, n, "%s%s", s, MASK);
        free(s);
        return t;
    }
    if (regexec(&x->opt, s, 3, m, 0) == 0 &&
        key_is_secret(x, s + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so)))
        *next_secret = 1;
    s = replace_all(&x->shapes, 0, s);
    s = replace_all(&x->url, 1, s);
    return s;
}

char *
export_redact_argv(const char *argv_json)
{
    if (!argv_json)
        return NULL;
    json_t *in = json_loads(argv_json, 0, NULL);
    if (!json_is_array(in)) {
        json_decref(in);
        return NULL;
    }
    struct redactor x;
    if (redactor_init(&x)) {
        json_decref(in);
        return NULL;
    }
    json_t *out = json_array();
    size_t i;
    json_t *v;
    int mask_this = 0;
    json_array_foreach(in, i, v)
    {
        const char *raw = json_is_string(v) ? json_string_value(v) : "";
        /* Sanitized first: regexec must see valid UTF-8 in a UTF-8 locale. */
        char *clean = sanitize_text(raw, strlen(raw) * 4 + 16);
        if (mask_this && clean[0] != '-') {
            json_array_append_new(out, json_string(MASK));
            mask_this = 0;
            free(clean);
            continue;
        }
        char *r = redact_arg(&x, clean, &mask_this);
        json_t *js = json_string(r);
        json_array_append_new(out, js ? js : json_string("?"));
        free(r);
        free(clean);
    }
    char *s = json_dumps(out, JSON_COMPACT);
    json_decref(out);
    json_decref(in);
    redactor_release(&x);
    return s;
}
