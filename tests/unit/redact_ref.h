/* SPDX-License-Identifier: MIT */
/*
 * redact_ref.h: the reference redaction (tests/unit/redact_ref.c), the
 * export_redact_argv() of commit 443d007 under another name. Same
 * contract as export_redact_argv(): a new string (free()), or NULL.
 */
#ifndef GPUHIER_TESTS_REDACT_REF_H
#define GPUHIER_TESTS_REDACT_REF_H

char *redact_ref_argv(const char *argv_json);

#endif
