#!/bin/sh
# Markdown tickets paste: the title line is plain text of at most 120
# columns with no backslash escape, on the SYNTHETIC hostile report and on
# the demo (real PyTorch names, a 1,623-character CUTLASS one); rendered
# by GitHub's renderer (cmark-gfm, when installed) it is one <h1> whose
# text is the line itself, so no character changed meaning; and the
# README's `gh issue create --title "$(head -1 …)"` recipe, run with a
# stand-in gh, files each ticket with that title.
. "$(dirname "$0")/t45-export-lib.sh"
export LC_ALL=C.UTF-8
"$MK" --make-report nasty.db nasty || exit 1
mkdir nasty demo
"$G" export nasty.db --raw -o nasty/ > nasty.list || bad "export nasty -o DIR/"
# --all: every finding of the demo, the notes with no time lost too (more names to title).
"$G" export "$SRC/demo/demo.db" --all -o demo/ > demo.list || bad "export demo -o DIR/"
[ "$(wc -l < demo.list)" -gt 20 ] || bad "the demo has fewer tickets than expected"
html_escape() { sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g; s/"/\&quot;/g'; }
for f in nasty/*.md demo/*.md; do
    line=$(head -1 "$f")
    case $line in "# "*) ;; *) bad "$f: the first line is not a title: $line";; esac
    cols=$(printf '%s' "$line" | wc -m)
    [ "$cols" -le 120 ] || bad "$f: title of $cols columns"
    case $line in *'\'*) bad "$f: a backslash in the title: $line";; esac
    # The body below keeps its escapes: the name is in a code block there.
    if command -v cmark-gfm > /dev/null 2>&1; then
        got=$(head -1 "$f" | cmark-gfm -e autolink -e strikethrough -e table -e tagfilter)
        want="<h1>$(printf '%s' "${line#\# }" | html_escape)</h1>"
        [ "$got" = "$want" ] || bad "$f: the title renders as '$got', not as its text"
    fi
done
# No title is cut mid-word without saying so: a cut name ends in the ellipsis.
grep -h '^# ' demo/*.md | grep -q 'cutlass__5x_cudnn::Kernel<…>' || bad "the CUTLASS kernel has no short name in the titles"
# The recipe as the README writes it, with a gh that records its title.
recipe=$(grep -o 'for f in $(gpuhier export .*; done' "$SRC/README.md" | head -1)
[ -n "$recipe" ] || bad "README.md has no gh issue create recipe"
mkdir bin
cat > bin/gh <<'SH'
#!/bin/sh
while [ $# -gt 0 ]; do
  case $1 in --title) printf '%s\n' "$2" >> "$GH_TITLES"; shift;; --body-file) [ -f "$2" ] || exit 9; shift;; esac
  shift
done
SH
chmod +x bin/gh
ln -s "$G" bin/gpuhier
cp "$SRC/demo/demo.db" r.db
recipe=$(printf '%s' "$recipe" | sed 's/export [^ ]* -o/export r.db -o/')
GH_TITLES=$tmp/titles PATH=$tmp/bin:$PATH sh -c "$recipe" || bad "the README recipe failed: $recipe"
"$G" export r.db -o default/ > default.list || bad "export r.db -o default/"
[ "$(wc -l < titles)" = "$(wc -l < default.list)" ] || bad "the recipe filed $(wc -l < titles) of $(wc -l < default.list) tickets"
grep -q '\\' titles && bad "a filed title has a backslash"
grep -q '^# ' titles && bad "a filed title kept its '# '"
exit $fail
