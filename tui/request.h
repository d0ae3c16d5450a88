/* SPDX-License-Identifier: MIT */
/*
 * request: everything a key can ask for, in one X-macro table that also
 * carries the help text, so the enum, the keymaps and the help screen
 * cannot drift apart (tig include/tig/request.h).
 *
 * Columns: identifier, group shown in the help screen, help text.
 */
#ifndef GPUHIER_TUI_REQUEST_H
#define GPUHIER_TUI_REQUEST_H

#define REQ_INFO(X)                                                                                \
    X(VIEW_SUMMARY, "Views", "Show the run summary")                                               \
    X(VIEW_KERNELS, "Views", "Show the kernels")                                                   \
    X(VIEW_FINDINGS, "Views", "Show the findings, ranked by time lost")                            \
    X(VIEW_COPIES, "Views", "Show the host<->device copies")                                       \
    X(VIEW_RANKS, "Views", "Show a merged job across its ranks: straggler, imbalance")             \
    X(VIEW_PROFILES, "Views", "Kernel detail: list its profiled launches, one by one")             \
    X(VIEW_SOURCE, "Views", "Kernel detail: its source lines with their exact counts")             \
    X(VIEW_NVTX, "Views", "Show GPU time, launches and findings by NVTX range")                    \
    X(VIEW_HELP, "Views", "Show this help")                                                        \
    X(ENTER, "Views", "Open the selected line")                                                    \
    X(BACK, "Views", "Go back to the previous view")                                               \
    X(QUIT, "Views", "Close this view (quit from a top view)")                                     \
    X(MOVE_UP, "Cursor", "Move up one line")                                                       \
    X(MOVE_DOWN, "Cursor", "Move down one line")                                                   \
    X(MOVE_PAGE_UP, "Cursor", "Move up one page")                                                  \
    X(MOVE_PAGE_DOWN, "Cursor", "Move down one page")                                              \
    X(MOVE_FIRST, "Cursor", "Move to the first line")                                              \
    X(MOVE_LAST, "Cursor", "Move to the last line")                                                \
    X(SCROLL_LEFT, "Cursor", "Scroll the view left (sideways)")                                    \
    X(SCROLL_RIGHT, "Cursor", "Scroll the view right, to read long names and wide rows")           \
    X(FILTER, "Search", "Filter the list (incremental) or search the text")                        \
    X(FIND_NEXT, "Search", "Go to the next match")                                                 \
    X(FIND_PREV, "Search", "Go to the previous match")                                             \
    X(NVTX_FILTER, "Search", "Keep what ran in NVTX ranges matching a regex")                      \
    X(SORT_NEXT, "Sort", "Sort by the next column")                                                \
    X(SORT_REVERSE, "Sort", "Reverse the sort order")                                              \
    X(TOGGLE_CONFIG, "Options", "Kernels: one row per kernel or per launch configuration")         \
    X(TOGGLE_METRICS, "Options", "Kernel detail: show all raw metrics")                            \
    X(TAG, "Findings", "Tag or untag the selected finding")                                        \
    X(EXPORT, "Findings", "Export the tagged (or the selected) findings")                          \
    X(DUMP, "Misc", "Write the whole view as text to a file")                                      \
    X(REFRESH, "Misc", "Redraw the screen")

enum request {
    REQ_NONE = 0,
#define REQ_ENUM(id, group, help) REQ_##id,
    REQ_INFO(REQ_ENUM)
#undef REQ_ENUM
        REQ_COUNT
};

#endif
