/* SPDX-License-Identifier: MIT */
/*
 * sanitize: the one text sanitizer every gpuhier output uses (exports,
 * the terminal tables of analyze/report/check/diff, and the TUI).
 *
 * Strings from a report (kernel names, command lines, NVTX names, rule
 * text from user rule files) are untrusted. After sanitizing:
 *   - the result is valid UTF-8: each invalid byte (bad lead byte, missing
 *     continuation, overlong form, surrogate, > U+10FFFF) becomes U+FFFD;
 *   - C0/C1 control characters, DEL and ESC never appear raw: they become
 *     visible escapes: \n, \t, \r, \e for those four, \xNN (lowercase hex)
 *     for the other C0 controls and DEL, \u{NNNN} (uppercase hex) for C1;
 *   - characters that reorder or split what a reader sees are escaped the
 *     same way (\u{NNNN}): the bidirectional controls U+061C, U+200E,
 *     U+200F, U+202A..U+202E, U+2066..U+2069 ("Trojan Source") and the
 *     line/paragraph separators U+2028, U+2029, and the noncharacters
 *     U+FFFE, U+FFFF (which XML forbids);
 *   - the result is at most `max_bytes` bytes (0 = SANITIZE_DEFAULT_MAX),
 *     cut at a character boundary (never inside an escape) and ending in
 *     "…" (U+2026, 3 bytes) when cut.
 * Everything else, backslashes included, passes through unchanged: the
 * escapes are for a human reader, not a reversible encoding.
 *
 * Format-specific escaping (JSON, XML, Markdown, CSV) is done after this
 * by the writer of that format, on the sanitized text.
 *
 * All functions are pure and thread-safe.
 */
#ifndef GPUHIER_EXPORT_SANITIZE_H
#define GPUHIER_EXPORT_SANITIZE_H

#include <stddef.h>
#include <stdint.h>

#define SANITIZE_DEFAULT_MAX 4096

/* Returns a new string (free()); never NULL for a non-NULL `s` (aborts on OOM). NULL in, NULL out. */
char *sanitize_text(const char *s, size_t max_bytes);

/*
 * Sanitize into a caller buffer of `n` bytes (always NUL-terminated when
 * n > 0; the text is capped at n - 1 bytes as above); returns `buf`.
 * A NULL `s` gives "". For hot paths (TUI drawing) that must not allocate.
 */
char *sanitize_into(char *buf, size_t n, const char *s);

/*
 * Uncapped sanitizing for a caller that sized its buffer for the worst
 * case (the redaction of a long command line, issue 20 §4). Both write
 * no NUL and return the number of bytes written.
 *
 * sanitize_append() writes the sanitized form of the n bytes at s (a NUL
 * among them is a C0 control, "\x00") to dst, which has room for
 * SANITIZE_ROOM(n) bytes; it is what sanitize_text() gives for s with a
 * cap it does not reach. Texts cut before an ASCII byte sanitize piece
 * by piece as they would whole: an ASCII byte never continues a UTF-8
 * sequence.
 *
 * sanitize_code_point() writes the sanitized form of one code point cp
 * (1 to U+10FFFF) to dst (SANITIZE_CP_ROOM bytes): what sanitize_text()
 * gives for its UTF-8 encoding. A surrogate (U+D800..U+DFFF) is encoded
 * as its three bytes, as SQLite's JSON decoder writes a lone one, and
 * comes out as three U+FFFD.
 */
#define SANITIZE_ROOM(n) (4 * (n) + 16)
#define SANITIZE_CP_ROOM 16
size_t sanitize_append(char *dst, const char *s, size_t n);
size_t sanitize_code_point(char *dst, uint32_t cp);

/*
 * The pieces of the C0 controls and DEL (index 0x20 stands for DEL),
 * four bytes each with their length in the fourth's place when shorter:
 * "\\x01", "\\e\0\2". A line of terminal escapes has one every few
 * bytes, so the redaction writes them inline, not through a call.
 */
extern const char sanitize_c0_piece[33][4];

/*
 * Write the sanitized form of the control c (< 0x20 or 0x7f) at dst,
 * which has room for four bytes (all four are written); returns its
 * length: what sanitize_code_point() gives for c.
 */
static inline size_t
sanitize_put_c0(char *dst, unsigned char c)
{
    const char *piece = sanitize_c0_piece[c == 0x7f ? 32 : c];
    for (int k = 0; k < 4; k++)
        dst[k] = piece[k];
    return piece[2] ? 4 : 2;
}

/*
 * Eight bytes a step (the scans of sanitize.c and redact.c): nonzero when
 * some byte of v is below b (b <= 128), exactly (Bit Twiddling Hacks,
 * "hasless").
 */
#define SANITIZE_ONES UINT64_C(0x0101010101010101)
#define SANITIZE_HIGHS UINT64_C(0x8080808080808080)
static inline uint64_t
sanitize_has_below(uint64_t v, unsigned b)
{
    return (v - SANITIZE_ONES * b) & ~v & SANITIZE_HIGHS;
}

/*
 * Display width in terminal columns of sanitized UTF-8 text
 * (wcwidth-based in the current locale; a character wcwidth does not
 * know counts as one column, so the C locale still gives a usable width).
 */
int sanitize_width(const char *s);

#endif
