#!/bin/sh
# What ships says nothing of the machine it was made on, and defines its
# words: no path of a recording or build machine (/work/, /tmp/, /home/,
# /root/) in the tracked docs, README, rules, demo provenance or inside
# the demo reports (scripts/relative-paths.sh rewrites them when the demo
# is recorded); docs/glossary.md defines floor, tier, capping, time lost
# and coverage, and the README points at it.
set -u
src=${GPUHIER_SOURCE_DIR:-$(dirname "$0")/../..}
cd "$src" || exit 1
fail=0
pat='/work/|/tmp/|/home/|/root/'
if git rev-parse --git-dir > /dev/null 2>&1; then
  files=$(git ls-files README.md 'docs/*.md' 'rules/*' demo)
else
  files=$(ls README.md docs/*.md rules/* demo/*)
fi
for f in $files; do
  case $f in
  *.db) n=$(grep -acE "$pat" "$f") ;;
  *) n=$(grep -cE "$pat" "$f") ;;
  esac
  if [ "$n" != 0 ]; then
    echo "shipped: $f names a machine path:"
    grep -anoE ".{0,40}($pat)[^ \"')]*" "$f" | head -3
    fail=1
  fi
done
g=docs/glossary.md
[ -f $g ] || { echo "shipped: no $g"; exit 1; }
for w in Tier Floor 'Time lost' Capping Coverage; do
  grep -q "^## $w\$" $g || { echo "shipped: $g does not define '$w'"; fail=1; }
done
grep -q 'docs/glossary.md' README.md || { echo "shipped: README.md does not point at $g"; fail=1; }
[ $fail = 0 ] && echo "shipped: ok"
exit $fail
