/* SPDX-License-Identifier: MIT */
/*
 * keys: the keymaps (a generic one and one per view that needs its own
 * bindings, tig include/tig/keys.h), key names for the help screen and
 * the key bar, and the parser for key names in test scripts.
 */
#include "tui/tui_int.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define KEY_ESC 27
#define KEY_CTRL(c) ((c)&0x1f)

struct keybinding {
    int key;
    enum request req;
};

struct keymap {
    const char *name;
    const struct keybinding *keys;
    size_t n;
};

static const struct keybinding generic_keys[] = {
    {'1', REQ_VIEW_SUMMARY},
    {'2', REQ_VIEW_KERNELS},
    {'3', REQ_VIEW_FINDINGS},
    {'4', REQ_VIEW_COPIES},
    {'5', REQ_VIEW_RANKS},
    {'?', REQ_VIEW_HELP},
    {'v', REQ_VIEW_NVTX},
    {KEY_F(1), REQ_VIEW_HELP},
    {'\n', REQ_ENTER},
    {KEY_ENTER, REQ_ENTER},
    {KEY_RIGHT, REQ_ENTER},
    {KEY_ESC, REQ_BACK},
    {KEY_LEFT, REQ_BACK},
    {KEY_BACKSPACE, REQ_BACK},
    {'q', REQ_QUIT},
    {KEY_UP, REQ_MOVE_UP},
    {'k', REQ_MOVE_UP},
    {KEY_DOWN, REQ_MOVE_DOWN},
    {'j', REQ_MOVE_DOWN},
    {KEY_PPAGE, REQ_MOVE_PAGE_UP},
    {KEY_NPAGE, REQ_MOVE_PAGE_DOWN},
    {' ', REQ_MOVE_PAGE_DOWN},
    {KEY_HOME, REQ_MOVE_FIRST},
    {'g', REQ_MOVE_FIRST},
    {KEY_END, REQ_MOVE_LAST},
    /* Left and Right go back and open, as in perf report; Shift (or < and >) scrolls sideways. */
    {KEY_SLEFT, REQ_SCROLL_LEFT},
    {'<', REQ_SCROLL_LEFT},
    {KEY_SRIGHT, REQ_SCROLL_RIGHT},
    {'>', REQ_SCROLL_RIGHT},
    {'G', REQ_MOVE_LAST},
    {'/', REQ_FILTER},
    {'n', REQ_FIND_NEXT},
    {'N', REQ_FIND_PREV},
    {'s', REQ_SORT_NEXT},
    {KEY_F(6), REQ_SORT_NEXT},
    {'r', REQ_SORT_REVERSE},
    {'P', REQ_DUMP},
    {KEY_CTRL('l'), REQ_REFRESH},
};

static const struct keybinding kernels_keys[] = {
    {'c', REQ_TOGGLE_CONFIG},
    {'R', REQ_NVTX_FILTER},
};

static const struct keybinding kernel_keys[] = {
    {'m', REQ_TOGGLE_METRICS},
    {'p', REQ_VIEW_PROFILES},
    {'S', REQ_VIEW_SOURCE},
    {'e', REQ_EXPORT},
};

static const struct keybinding findings_keys[] = {
    {'t', REQ_TAG},
    {'R', REQ_NVTX_FILTER},
    {'e', REQ_EXPORT},
};

static const struct keybinding source_keys[] = {
    {'l', REQ_SORT_NEXT},
};

static const struct keybinding finding_keys[] = {
    {'e', REQ_EXPORT},
};

#define KEYMAP(name, k)                                                                            \
    {                                                                                              \
        name, k, sizeof(k) / sizeof(k[0])                                                          \
    }
static const struct keymap keymaps[] = {
    KEYMAP("generic", generic_keys), KEYMAP("kernels", kernels_keys),
    KEYMAP("kernel", kernel_keys),   KEYMAP("findings", findings_keys),
    KEYMAP("finding", finding_keys), KEYMAP("source", source_keys),
};

const struct request_info request_info[] = {
#define REQ_ROW(id, group, help) {REQ_##id, #id, group, help},
    REQ_INFO(REQ_ROW)
#undef REQ_ROW
};
const size_t request_info_count = sizeof(request_info) / sizeof(request_info[0]);

static const struct keymap *
keymap_find(const char *name)
{
    for (size_t i = 0; i < sizeof(keymaps) / sizeof(keymaps[0]); i++)
        if (name && !strcmp(keymaps[i].name, name))
            return &keymaps[i];
    return NULL;
}

static enum request
keymap_lookup(const struct keymap *m, int key)
{
    for (size_t i = 0; m && i < m->n; i++)
        if (m->keys[i].key == key)
            return m->keys[i].req;
    return REQ_NONE;
}

enum request
keys_request(const char *view, int key)
{
    if (key == '\r')
        key = '\n';
    if (key == 127 || key == 8)
        key = KEY_BACKSPACE;
    enum request req = keymap_lookup(keymap_find(view), key);
    return req != REQ_NONE ? req : keymap_lookup(keymap_find("generic"), key);
}

static const struct {
    int key;
    const char *name;
} key_names[] = {
    {'\n', "Enter"},      {KEY_ENTER, "Enter"},   {KEY_ESC, "Esc"},
    {KEY_UP, "Up"},       {KEY_DOWN, "Down"},     {KEY_LEFT, "Left"},
    {KEY_RIGHT, "Right"}, {KEY_PPAGE, "PgUp"},    {KEY_NPAGE, "PgDn"},
    {KEY_HOME, "Home"},   {KEY_END, "End"},       {KEY_BACKSPACE, "Backspace"},
    {' ', "Space"},       {'\t', "Tab"},          {KEY_RESIZE, "Resize"},
    {KEY_SLEFT, "SLeft"}, {KEY_SRIGHT, "SRight"},
};

const char *
keys_name(int key, char *buf, size_t n)
{
    for (size_t i = 0; i < sizeof(key_names) / sizeof(key_names[0]); i++)
        if (key_names[i].key == key) {
            snprintf(buf, n, "%s", key_names[i].name);
            return buf;
        }
    if (key >= KEY_F(1) && key <= KEY_F(12))
        snprintf(buf, n, "F%d", key - KEY_F(0));
    else if (key > 0 && key < 32)
        snprintf(buf, n, "^%c", key + '@');
    else if (key >= 32 && key < 127)
        snprintf(buf, n, "%c", key);
    else
        snprintf(buf, n, "<%d>", key);
    return buf;
}

int
keys_parse(const char *name)
{
    for (size_t i = 0; i < sizeof(key_names) / sizeof(key_names[0]); i++)
        if (!strcasecmp(key_names[i].name, name))
            return key_names[i].key;
    if ((name[0] == 'F' || name[0] == 'f') && name[1]) {
        int f = atoi(name + 1);
        if (f >= 1 && f <= 12)
            return KEY_F(f);
    }
    if (name[0] == '^' && name[1] && !name[2])
        return KEY_CTRL(name[1]);
    if (!strcasecmp(name, "lt"))
        return '<';
    return -1;
}

static void
append_keys(const struct keymap *m, enum request req, char *buf, size_t n, size_t *len)
{
    char kb[32];
    for (size_t i = 0; m && i < m->n; i++) {
        if (m->keys[i].req != req || m->keys[i].key == KEY_ENTER)
            continue;
        keys_name(m->keys[i].key, kb, sizeof(kb));
        int w = snprintf(buf + *len, n - *len, "%s%s", *len ? ", " : "", kb);
        if (w < 0 || (size_t)w >= n - *len)
            return;
        *len += (size_t)w;
    }
}

void
keys_names(const char *view, enum request req, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    const struct keymap *own = keymap_find(view);
    if (own && strcmp(view, "generic"))
        append_keys(own, req, buf, n, &len);
    append_keys(keymap_find("generic"), req, buf, n, &len);
}

void
keys_help(enum request req, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    append_keys(&keymaps[0], req, buf, n, &len);
    /* View-specific keys: each key once, with the views that have it ("e (kernel, findings)"). */
    int seen[16];
    size_t nseen = 0;
    for (size_t m = 1; m < sizeof(keymaps) / sizeof(keymaps[0]); m++) {
        for (size_t i = 0; i < keymaps[m].n; i++) {
            int key = keymaps[m].keys[i].key;
            bool dup = false;
            for (size_t k = 0; k < nseen; k++)
                dup |= seen[k] == key;
            if (keymaps[m].keys[i].req != req || dup || nseen == 16)
                continue;
            seen[nseen++] = key;
            char kb[32];
            int w = snprintf(buf + len, n - len, "%s%s (", len ? ", " : "",
                             keys_name(key, kb, sizeof(kb)));
            if (w < 0 || (size_t)w >= n - len)
                return;
            len += (size_t)w;
            bool first = true;
            for (size_t mm = m; mm < sizeof(keymaps) / sizeof(keymaps[0]); mm++) {
                if (keymap_lookup(&keymaps[mm], key) != req)
                    continue;
                w = snprintf(buf + len, n - len, "%s%s", first ? "" : ", ", keymaps[mm].name);
                if (w < 0 || (size_t)w >= n - len)
                    return;
                len += (size_t)w;
                first = false;
            }
            w = snprintf(buf + len, n - len, ")");
            if (w < 0 || (size_t)w >= n - len)
                return;
            len += (size_t)w;
        }
    }
}
