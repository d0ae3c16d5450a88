/* SPDX-License-Identifier: MIT */
/*
 * sanitize_ref.h: the reference sanitizer (tests/unit/sanitize_ref.c),
 * sanitize_text() and sanitize_into() of commit 443d007 under other
 * names, with the same contracts (export/sanitize.h).
 */
#ifndef GPUHIER_TESTS_SANITIZE_REF_H
#define GPUHIER_TESTS_SANITIZE_REF_H

#include <stddef.h>

char *sanitize_ref_text(const char *s, size_t max_bytes);
char *sanitize_ref_into(char *buf, size_t n, const char *s);

#endif
