/* SPDX-License-Identifier: MIT */
/*
 * cli_check_regex(): the one check of a user's regular expression, shared
 * by run (-k, --nvtx-include), export, check and diff (--kernel). Its own
 * file so unit tests of run's option parser can link it without main.
 */
#include "cli/cli.h"

#include <regex.h>

int
cli_check_regex(const char *what, const char *re)
{
    regex_t r;
    int rc = regcomp(&r, re, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char why[256];
        regerror(rc, &r, why, sizeof(why));
        return error("%s: bad regular expression '%s': %s", what, re, why);
    }
    regfree(&r);
    return 0;
}
