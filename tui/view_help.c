/* SPDX-License-Identifier: MIT */
/*
 * view_help: the key help, generated from the request table and the
 * keymaps, so it always says what the keys really do.
 */
#include "tui/tui_int.h"

#include <string.h>

static int
help_open(struct view *v)
{
    const char *group = NULL;
    view_printf(v, LINE_SECTION, "gpuhier tui: keys (Esc or q leaves this help)");
    for (size_t i = 0; i < request_info_count; i++) {
        const struct request_info *ri = &request_info[i];
        if (!group || strcmp(group, ri->group)) {
            group = ri->group;
            view_printf(v, LINE_DEFAULT, "%s", "");
            view_printf(v, LINE_SECTION, "%s", group);
        }
        char keys[128];
        keys_help(ri->req, keys, sizeof(keys));
        struct tline *l = view_add_line(v);
        line_add(l, LINE_KEY, 0, "  %-20s ", keys[0] ? keys : "-");
        if (text_width(keys) > 20) {
            /* Long key lists get a line of their own. */
            l = view_add_line(v);
            line_add(l, LINE_DEFAULT, 0, "%23s", "");
        }
        line_add(l, LINE_DEFAULT, 0, "%s", ri->help);
    }
    view_printf(v, LINE_DEFAULT, "%s", "");
    view_printf(v, LINE_DIM, "Prompts: Enter accepts, Esc cancels. Filters match any text column.");
    view_printf(v, LINE_DIM,
                "Colours: red error, yellow warning, cyan note. -C or NO_COLOR: none.");
    return 0;
}

static void
help_title(struct view *v, char *buf, size_t n)
{
    snprintf(buf, n, "Help");
}

const struct view_ops help_ops = {
    .name = "help",
    .open = help_open,
    .title = help_title,
};
