/* SPDX-License-Identifier: MIT */
/*
 * nvtx: NVTX ranges, from the NVTX callbacks CUPTI makes (callbacks.c
 * enables only the calls on_nvtx() handles). Push/pop ranges nest per
 * thread: each thread keeps its open ranges and their joined path, so a
 * launch copies the path instead of formatting it. Start/end ranges may
 * cross threads and get ids of their own. Records go to the writer's
 * queue; nothing here allocates.
 */
#include "collector/nvtx.h"
#include "collector/collector_int.h"

#include <generated_nvtx_meta.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#define NVTX_STACK 16
#define NVTX_NAME 64
/* registered strings kept (nvtxDomainRegisterString*: XLA names its ranges this way); a power of two */
#define NVTX_STRINGS 1024
/* the bytes kept of each (XLA's pass names ran to 121 in the JAX report of 2026-12-07) */
#define NVTX_STRING_MAX 128

static struct {
    atomic_uint_fast64_t nvtx_seq; /* the last push range's id */
    pthread_mutex_t dom_lock;
    struct {
        void *handle;
        char name[40];
    } domains[32]; /* nvtxDomainCreateA's handles and names */
    int ndomains;
    pthread_mutex_t str_lock;
    /* nvtxDomainRegisterString*'s handles and their text, open addressing on the handle; full: the
     * range is named "(registered string)" */
    struct {
        const void *handle;
        char text[NVTX_STRING_MAX];
    } strings[NVTX_STRINGS];
} N = {
    .str_lock = PTHREAD_MUTEX_INITIALIZER,
    .dom_lock = PTHREAD_MUTEX_INITIALIZER,
};

static __thread int tls_nvtx_depth;
static __thread uint64_t tls_nvtx_ids[NVTX_STACK];
static __thread char tls_nvtx_names[NVTX_STACK][NVTX_NAME];
/*
 * The thread's NVTX path ("a > b > c", at most REC_NVTX_PATH_MAX - 1
 * bytes), kept up to date at push and pop so that a launch copies it
 * instead of formatting it; tls_nvtx_len[d] is its length at depth d.
 */
static __thread char tls_nvtx_path[REC_NVTX_PATH_MAX];
static __thread size_t tls_nvtx_len[NVTX_STACK + 1];

/* ------------------------------------------------------------ NVTX */

/* A wide string's printable ASCII, '?' for the rest (n >= 1). */
static void
nvtx_copy_wide(char *out, size_t n, const wchar_t *w)
{
    size_t i = 0;
    for (; w && *w && i + 1 < n; w++)
        out[i++] = *w < 128 && *w >= 32 ? (char)*w : '?';
    out[i] = 0;
}

/*
 * The slot of `handle` in N.strings, or the empty slot where it would go,
 * or NVTX_STRINGS when the table is full without it (str_lock held). A
 * fixed table, not collector/umap.h: a callback never allocates
 * (callbacks.c).
 */
static size_t
nvtx_string_find(const void *handle)
{
    uintptr_t h = (uintptr_t)handle;
    size_t i = (size_t)((h >> 3) * 0x9E3779B97F4A7C15ULL >> 32) & (NVTX_STRINGS - 1);
    for (size_t k = 0; k < NVTX_STRINGS; k++, i = (i + 1) & (NVTX_STRINGS - 1))
        if (!N.strings[i].handle || N.strings[i].handle == handle)
            return i;
    return NVTX_STRINGS;
}

/* Keeps a registered string's text under its handle (the first NVTX_STRING_MAX - 1 bytes). */
static void
nvtx_string_register(const void *handle, const char *text, const wchar_t *wide)
{
    if (!handle)
        return;
    pthread_mutex_lock(&N.str_lock);
    size_t i = nvtx_string_find(handle);
    if (i < NVTX_STRINGS) {
        N.strings[i].handle = handle;
        if (wide)
            nvtx_copy_wide(N.strings[i].text, NVTX_STRING_MAX, wide);
        else
            gh_copy(N.strings[i].text, NVTX_STRING_MAX, text ? text : "");
    }
    pthread_mutex_unlock(&N.str_lock);
}

/* A registered string's text into out, or "(registered string)" when it was never seen or not kept. */
static void
nvtx_string_lookup(const void *handle, char *out, size_t n)
{
    snprintf(out, n, "%s", "(registered string)");
    if (!handle)
        return;
    pthread_mutex_lock(&N.str_lock);
    size_t i = nvtx_string_find(handle);
    if (i < NVTX_STRINGS && N.strings[i].handle == handle)
        snprintf(out, n, "%s", N.strings[i].text);
    pthread_mutex_unlock(&N.str_lock);
}

static void
nvtx_copy_message(char *out, size_t n, const nvtxEventAttributes_t *a)
{
    out[0] = 0;
    if (!a)
        return;
    if (a->messageType == NVTX_MESSAGE_TYPE_ASCII && a->message.ascii)
        snprintf(out, n, "%s", a->message.ascii);
    else if (a->messageType == NVTX_MESSAGE_TYPE_UNICODE && a->message.unicode)
        nvtx_copy_wide(out, n, a->message.unicode);
    else if (a->messageType == NVTX_MESSAGE_TYPE_REGISTERED)
        nvtx_string_lookup(a->message.registered, out, n);
}

static void
nvtx_domain_name(void *handle, char *out, size_t n)
{
    out[0] = 0;
    pthread_mutex_lock(&N.dom_lock);
    for (int i = 0; i < N.ndomains; i++)
        if (N.domains[i].handle == handle)
            snprintf(out, n, "%s", N.domains[i].name);
    pthread_mutex_unlock(&N.dom_lock);
}

/* Appends level d's name to the cached path (a push to depth d + 1). */
static void
nvtx_path_extend(int d)
{
    char *p = tls_nvtx_path;
    size_t len = d > 0 ? tls_nvtx_len[d] : 0, cap = sizeof(tls_nvtx_path);
    const char *parts[2] = {d ? " > " : "", tls_nvtx_names[d]};
    for (int k = 0; k < 2; k++)
        for (const char *c = parts[k]; *c && len + 1 < cap; c++)
            p[len++] = *c;
    p[len] = 0;
    tls_nvtx_len[d + 1] = len;
}

static void
nvtx_open(int is_push, uint64_t start_id, const char *domain, const char *name)
{
    struct rec r = {.type = REC_NVTX_OPEN};
    struct rec_nvtx *n = &r.u.nvtx;
    snprintf(n->name, sizeof(n->name), "%s", name ? name : "");
    if (domain)
        snprintf(n->domain, sizeof(n->domain), "%s", domain);
    if (is_push) {
        int d = tls_nvtx_depth;
        n->id = atomic_fetch_add(&N.nvtx_seq, 1) + 1;
        n->depth = d;
        n->has_thread = 1;
        n->parent_id = d > 0 && d <= NVTX_STACK ? tls_nvtx_ids[d - 1] : 0;
        if (d < NVTX_STACK) {
            tls_nvtx_ids[d] = n->id;
            gh_copy(tls_nvtx_names[d], NVTX_NAME, n->name);
            nvtx_path_extend(d);
        }
        tls_nvtx_depth = d + 1;
    } else {
        n->id = start_id | (1ULL << 40);
        n->depth = -1;
    }
    writer_push(&r);
}

static void
nvtx_close(int is_pop, uint64_t end_id)
{
    struct rec r = {.type = REC_NVTX_CLOSE};
    if (is_pop) {
        if (tls_nvtx_depth <= 0)
            return;
        int d = --tls_nvtx_depth;
        if (d >= NVTX_STACK)
            return;
        r.u.nvtx.id = tls_nvtx_ids[d];
    } else {
        r.u.nvtx.id = end_id | (1ULL << 40);
    }
    writer_push(&r);
}

/* Copies the thread's current NVTX path (truncated to n - 1 bytes) into out; returns its length. */
size_t
nvtx_path(char *out, size_t n)
{
    int d = tls_nvtx_depth < NVTX_STACK ? tls_nvtx_depth : NVTX_STACK;
    size_t len = d > 0 ? tls_nvtx_len[d] : 0;
    if (len > n - 1)
        len = n - 1;
    memcpy(out, tls_nvtx_path, len);
    out[len] = 0;
    return len;
}

void
on_nvtx(CUpti_CallbackId cbid, const CUpti_NvtxData *d)
{
    const void *p = d->functionParams;
    char msg[REC_NVTX_NAME_MAX], dom[40];
    switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxRangePushA:
        nvtx_open(1, 0, NULL, ((const nvtxRangePushA_params *)p)->message);
        break;
    case CUPTI_CBID_NVTX_nvtxRangePushW:
    case CUPTI_CBID_NVTX_nvtxRangePushEx:
        if (cbid == CUPTI_CBID_NVTX_nvtxRangePushEx)
            nvtx_copy_message(msg, sizeof(msg), ((const nvtxRangePushEx_params *)p)->eventAttrib);
        else
            nvtx_copy_wide(msg, sizeof(msg), ((const nvtxRangePushW_params *)p)->message);
        nvtx_open(1, 0, NULL, msg);
        break;
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
        const nvtxDomainRangePushEx_params *q = p;
        nvtx_copy_message(msg, sizeof(msg), q->core.eventAttrib);
        nvtx_domain_name(q->domain, dom, sizeof(dom));
        nvtx_open(1, 0, dom[0] ? dom : NULL, msg);
        break;
    }
    case CUPTI_CBID_NVTX_nvtxRangePop:
    case CUPTI_CBID_NVTX_nvtxDomainRangePop:
        nvtx_close(1, 0);
        break;
    case CUPTI_CBID_NVTX_nvtxRangeStartA:
    case CUPTI_CBID_NVTX_nvtxRangeStartEx:
    case CUPTI_CBID_NVTX_nvtxDomainRangeStartEx: {
        if (!d->functionReturnValue)
            break;
        uint64_t id = *(const nvtxRangeId_t *)d->functionReturnValue;
        if (!id)
            break;
        dom[0] = 0;
        if (cbid == CUPTI_CBID_NVTX_nvtxRangeStartA)
            snprintf(msg, sizeof(msg), "%s", ((const nvtxRangeStartA_params *)p)->message);
        else if (cbid == CUPTI_CBID_NVTX_nvtxRangeStartEx)
            nvtx_copy_message(msg, sizeof(msg), ((const nvtxRangeStartEx_params *)p)->eventAttrib);
        else {
            const nvtxDomainRangeStartEx_params *q = p;
            nvtx_copy_message(msg, sizeof(msg), q->core.eventAttrib);
            nvtx_domain_name(q->domain, dom, sizeof(dom));
        }
        nvtx_open(0, id, dom[0] ? dom : NULL, msg);
        break;
    }
    case CUPTI_CBID_NVTX_nvtxRangeEnd:
        nvtx_close(0, ((const nvtxRangeEnd_params *)p)->id);
        break;
    case CUPTI_CBID_NVTX_nvtxDomainRangeEnd:
        nvtx_close(0, ((const nvtxDomainRangeEnd_params *)p)->core.id);
        break;
    case CUPTI_CBID_NVTX_nvtxDomainCreateA:
        if (d->functionReturnValue) {
            void *h = *(void *const *)d->functionReturnValue;
            const char *name = ((const nvtxDomainCreateA_params *)p)->name;
            pthread_mutex_lock(&N.dom_lock);
            if (h && name && N.ndomains < 32) {
                N.domains[N.ndomains].handle = h;
                snprintf(N.domains[N.ndomains].name, sizeof(N.domains[0].name), "%s", name);
                N.ndomains++;
            }
            pthread_mutex_unlock(&N.dom_lock);
        }
        break;
    case CUPTI_CBID_NVTX_nvtxDomainRegisterStringA:
    case CUPTI_CBID_NVTX_nvtxDomainRegisterStringW:
        /* the W form's parameter is declared `const char *` in CUPTI's header but carries the
         * caller's wchar_t string (nvtxDomainRegisterStringW's signature) */
        if (d->functionReturnValue) {
            const void *h = *(const void *const *)d->functionReturnValue;
            const char *text = ((const nvtxDomainRegisterStringA_params *)p)->string;
            int wide = cbid == CUPTI_CBID_NVTX_nvtxDomainRegisterStringW;
            nvtx_string_register(h, wide ? NULL : text,
                                 wide ? (const wchar_t *)(const void *)text : NULL);
        }
        break;
    default:
        break;
    }
}
