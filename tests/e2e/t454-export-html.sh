#!/bin/sh
# gpuhier export --format html in a real browser: the page of the demo
# report and of the SYNTHETIC report with script-shaped names
# (test_export --make-report html) are opened in headless Chromium, which
# takes a screenshot and dumps the DOM it built. The screenshot must not
# be blank and must show the roofline's colours; the roofline must have
# one circle per profiled configuration; the browser must log no console
# message (a script error, or a load the page's Content-Security-Policy
# refused); and no hostile name may become an element. A control page
# with an inline script and an external image, both of which its policy
# refuses, first proves that Chromium's log shows such messages.
# Skipped (77) without Chromium, python3 or sqlite3.
. "$(dirname "$0")/t45-export-lib.sh"
chrome=
for c in chromium chromium-browser google-chrome; do
    command -v "$c" >/dev/null 2>&1 && { chrome=$c; break; }
done
[ -n "$chrome" ] || { echo "skipped: no chromium"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "skipped: no python3 (reads the screenshot)"; exit 77; }
command -v sqlite3 >/dev/null 2>&1 || { echo "skipped: no sqlite3"; exit 77; }
export HOME="$tmp"

# browse NAME: open NAME.html; NAME.png, NAME.dom, NAME.log (console lines only).
browse() {
    timeout 120 "$chrome" --headless --disable-gpu --no-sandbox --no-first-run \
        --user-data-dir="$tmp/profile-$1" --enable-logging=stderr --v=0 --hide-scrollbars \
        --window-size=1100,1600 --force-device-scale-factor=0.5 --screenshot="$tmp/$1.png" --dump-dom "file://$tmp/$1.html" \
        >"$1.dom" 2>"$1.err"
    rc=$?
    [ $rc = 0 ] || { bad "$1: chromium exited $rc"; sed 's/^/  | /' "$1.err" | tail -5; }
    grep 'CONSOLE' "$1.err" >"$1.log"
    return 0
}

# pixels PNG: "<share of non-white pixels in %> <pixels of the DRAM roof's blue>" (the
# screenshot is taken at half scale: a quarter of the pixels for python to decode).
pixels() {
    python3 - "$1" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
pos, idat, w = 8, b'', 0
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
        assert depth == 8 and ctype in (2, 6), 'unexpected PNG format'
        bpp = 3 if ctype == 2 else 4
    elif kind == b'IDAT':
        idat += body
    pos += 12 + n
raw, stride = zlib.decompress(idat), w * bpp
prev, i, ink, blue = bytearray(stride), 0, 0, 0
for _ in range(h):
    f, row = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = row[x - bpp] if x >= bpp else 0
        b, c = prev[x], prev[x - bpp] if x >= bpp else 0
        if f == 1: row[x] = (row[x] + a) & 255
        elif f == 2: row[x] = (row[x] + b) & 255
        elif f == 3: row[x] = (row[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            row[x] = (row[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        r, g, bl = row[x], row[x + 1], row[x + 2]
        if r < 245 or g < 245 or bl < 245: ink += 1
        if abs(r - 0x09) < 24 and abs(g - 0x69) < 24 and abs(bl - 0xda) < 24: blue += 1
    prev = row
print('%.1f %d' % (100.0 * ink / (w * h), blue))
PY
}

# The control: Chromium's log must show what a Content-Security-Policy refuses.
cat >control.html <<'HTML'
<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'">
</head><body><p>control</p><img src="http://example.invalid/x.png"><script>nosuch();</script></body></html>
HTML
browse control
grep -q 'violates the following Content Security Policy' control.log ||
    bad "control: Chromium's log does not show a refused load (the console check would be blind)"

# check NAME WANT_POINTS WANT_ROOFLINES: what the browser built and drew.
check() {
    [ -s "$1.log" ] && { bad "$1: the browser logged console messages"; sed 's/^/  | /' "$1.log" | head -5; }
    n=$(grep -o '<circle[^>]*class="pt [^"]*"' "$1.dom" | wc -l)
    [ "$n" = "$2" ] || bad "$1: $n points on the rooflines, want $2 (one per profiled configuration)"
    n=$(grep -o '<svg[^>]*class="roofline"' "$1.dom" | wc -l)
    [ "$n" = "$3" ] || bad "$1: $n rooflines, want $3 (one per device)"
    grep -q '<svg[^>]*class="hierarchy"' "$1.dom" || bad "$1: no kernel hierarchy picture"
    grep -q '<svg[^>]*class="timeline"' "$1.dom" || bad "$1: no copies timeline"
    set -- "$1" $(pixels "$1.png")
    [ $# = 3 ] || { bad "$1: cannot read the screenshot"; return; }
    # A blank page is 0 % ink; text alone never uses the roof's blue in bulk.
    python3 -c "import sys; sys.exit(0 if float('$2') >= 3 else 1)" ||
        bad "$1: the screenshot is nearly blank ($2 % ink)"
    [ "$3" -ge 40 ] || bad "$1: the screenshot shows no roofline ($3 pixels of its blue)"
}

# The demo: every profiled configuration is placed.
cp "$SRC/demo/demo.db" demo.db
profiled=$(sqlite3 -readonly demo.db \
    "SELECT count(DISTINCT l.config_id) FROM profile p JOIN launch l ON l.id = p.launch_id")
[ "${profiled:-0}" -gt 0 ] || bad "the demo has no profiled configuration"
expect_rc 0 "$G" export demo.db --format html -o demo.html
browse demo
check demo "$profiled" 1

# The synthetic report: two devices, 6 placed configurations, one not placed.
"$MK" --make-report hostile.db html || exit 1
expect_rc 0 "$G" export hostile.db --raw --format html -o hostile.html
browse hostile
check hostile 6 2
grep -q '1 profiled configuration not placed' hostile.dom || bad "hostile: the unplaced configuration is not listed"
# Hostile names stay text: no element or attribute came from them.
for tag in script img b; do
    grep -qi "<$tag[ >]" hostile.dom && bad "hostile: a name became a <$tag> element"
done
grep -qi '<[^>]* onerror=' hostile.dom && bad "hostile: a name became an event handler"
grep -qF '&lt;script&gt;alert("k")&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;' hostile.dom ||
    bad "hostile: the script-shaped kernel name is not shown as text"
grep -qF '&lt;script&gt;alert(2)&lt;/script&gt;H200' hostile.dom || bad "hostile: the device name is not shown as text"
grep -qF '\u{202E}desrever' hostile.dom || bad "hostile: the bidi override is not escaped"
[ $fail = 0 ] && echo "t454: export html ok in $chrome"
exit $fail
