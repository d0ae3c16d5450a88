# Detail views reflow to the terminal: a kernel's 64 KB name wraps to fewer,
# longer lines at 120 columns and more, shorter ones at 60, never past the
# screen's edge, and comes back as it was at 80.
set -eu
cmp 01-detail.txt 04-back.txt
lines() { grep -c '^             [^ ]' "$1" || true; }
[ "$(lines 02-wide.txt)" -lt "$(lines 01-detail.txt)" ] || { echo "no reflow at 120 columns"; exit 1; }
[ "$(lines 03-narrow.txt)" -gt "$(lines 01-detail.txt)" ] || { echo "no reflow at 60 columns"; exit 1; }
# One column per character: UTF-8 sequences count once.
LC_ALL=C sed 's/[\xc0-\xff][\x80-\xbf]*/./g' 03-narrow.txt | awk '{ if (length($0) > 60) { print "line past 60 columns: " $0; exit 1 } }'
grep -q '.\{100\}' 02-wide.txt || { echo "nothing uses the width at 120 columns"; exit 1; }
