#!/bin/sh
# SPDX-License-Identifier: MIT
# t200: `gpuhier analyze` and `gpuhier rules` on good and bad input.
# Each bad input gets one clear message and its documented exit code
# (cli/cli.h, docs/cmd-analyze.md); the report's own tables never change.
set -u
bin=${GPUHIER_BINARY_DIR:?}/gpuhier
helper=${GPUHIER_BINARY_DIR}/tests/test_analyzer
src=${GPUHIER_SOURCE_DIR:?}
rules=$src/rules
t=$(mktemp -d /tmp/gh-t200-XXXXXX)
trap 'chmod -R u+w "$t"; rm -rf "$t"' EXIT
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

# expect NAME CODE PATTERN -- command...: exit code and a stderr line matching PATTERN
expect() {
  name=$1 code=$2 pat=$3; shift 4
  "$@" >"$t/out" 2>"$t/err"
  rc=$?
  if [ "$rc" -ne "$code" ]; then bad "$name: exit $rc, want $code"; cat "$t/err"; return; fi
  if [ -n "$pat" ] && ! grep -q -- "$pat" "$t/err"; then bad "$name: stderr lacks '$pat'"; cat "$t/err"; return; fi
  if grep -qi "segmentation\|assert\|sanitizer" "$t/err"; then bad "$name: crashed"; return; fi
  ok "$name"
}
raw() { "$helper" sql "$1" "SELECT 'k', * FROM kernel; SELECT 'c', * FROM config; SELECT 'l', * FROM launch; SELECT 'm', * FROM metric; SELECT 'p', * FROM profile; SELECT 'd', * FROM device; SELECT 'r', * FROM run"; }

GPUHIER_SOURCE_DIR=$src "$helper" mkreport "$t/r.db" || { echo "cannot build report"; exit 1; }
raw "$t/r.db" > "$t/raw.before"

# A good report: ranked table, stored findings, raw tables untouched.
expect "analyze text" 0 "" -- "$bin" analyze "$t/r.db" --rules "$rules"
grep -q "rank  severity" "$t/out" && ok "table printed" || bad "table printed"
n=$("$helper" sql "$t/r.db" "SELECT COUNT(*) FROM finding")
[ "${n:-0}" -gt 0 ] && ok "findings stored ($n)" || bad "findings stored"
[ "$("$helper" sql "$t/r.db" "SELECT COUNT(*) FROM kernel_summary WHERE config_id IS NULL")" = 2 ] && ok "kernel summaries" || bad "kernel summaries"
raw "$t/r.db" > "$t/raw.after"
cmp -s "$t/raw.before" "$t/raw.after" && ok "raw tables unchanged" || bad "raw tables unchanged"
"$bin" analyze "$t/r.db" --rules "$rules" --format json > "$t/j1" 2>/dev/null
"$bin" analyze "$t/r.db" --rules "$rules" --format json > "$t/j2" 2>/dev/null
if command -v python3 >/dev/null; then
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"]=="gpuhier-analyze/1" and d["findings"] and d["kernels"]' "$t/j1" \
    && ok "json parses" || bad "json parses"
fi
sed '/analyzed_ns/d' "$t/j1" > "$t/j1s"; sed '/analyzed_ns/d' "$t/j2" > "$t/j2s"
cmp -s "$t/j1s" "$t/j2s" && ok "re-analysis is identical" || bad "re-analysis is identical"
expect "top 1" 0 "" -- "$bin" analyze "$t/r.db" --rules "$rules" --top 1
[ "$(grep -c '^ *[0-9]  ' "$t/out")" = 1 ] && ok "top 1 shows one finding" || bad "top 1 shows one finding"

# Bad command lines (GH_EXIT_USAGE = 2).
expect "no report" 2 "" -- "$bin" analyze
expect "bad format" 2 "format" -- "$bin" analyze "$t/r.db" --format xml
expect "bad top" 2 "top" -- "$bin" analyze "$t/r.db" --top abc
expect "unknown option" 2 "unknown option" -- "$bin" analyze "$t/r.db" --frobnicate

# Bad reports (GH_EXIT_NO_REPORT = 3, GH_EXIT_NEWER_REPORT = 4).
expect "missing file" 3 "cannot open report" -- "$bin" analyze "$t/nope.db" --rules "$rules"
echo "not a database" > "$t/text.db"
expect "not a report" 3 "error" -- "$bin" analyze "$t/text.db" --rules "$rules"
cp "$t/r.db" "$t/trunc.db"
size=$(wc -c < "$t/r.db"); head -c $((size / 3)) "$t/r.db" > "$t/trunc.db"
expect "truncated report" 3 "error" -- "$bin" analyze "$t/trunc.db" --rules "$rules"
cp "$t/r.db" "$t/newer.db"; "$helper" sql "$t/newer.db" "PRAGMA user_version = 99"
expect "newer report" 4 "newer" -- "$bin" analyze "$t/newer.db" --rules "$rules"
[ "$("$helper" sql "$t/newer.db" "PRAGMA user_version")" = 99 ] && ok "newer report untouched" || bad "newer report untouched"

# No profiled launches: timing summaries only, counter rules skipped with the metric named.
GPUHIER_SOURCE_DIR=$src "$helper" mkreport "$t/trace.db" noprofile
expect "no profiled launches" 0 "" -- "$bin" analyze "$t/trace.db" --rules "$rules"
grep -q "skipped rules:" "$t/out" && grep -q "metric '.*' not in report" "$t/out" && ok "skips name the metric" || bad "skips name the metric"

# Broken rule file (GH_EXIT_RULES = 5): file:line, report untouched.
mkdir "$t/rules"; cp "$rules"/*.rule "$t/rules/"
printf 'id: broken\ntitle: t\ntier: dram\ndoc: d\nrationale: r\nthreshold: x = abc | why\n' > "$t/rules/broken.rule"
cp "$t/r.db" "$t/r2.db"
expect "broken rule file" 5 "broken.rule:6:" -- "$bin" analyze "$t/r2.db" --rules "$t/rules"
cmp -s "$t/r.db" "$t/r2.db" && ok "report untouched by a broken rule set" || bad "report untouched by a broken rule set"
expect "missing rules dir" 5 "rules directory" -- "$bin" analyze "$t/r.db" --rules "$t/none"
printf 'id: evil\ntitle: t\ntier: dram\ndoc: d\nrationale: r\nquery: DELETE FROM kernel\nmessage: m\nremedy: r\n' > "$t/rules/broken.rule"
mv "$t/rules/broken.rule" "$t/rules/evil.rule"
expect "writing rule refused" 5 "evil.rule:6: query refused" -- "$bin" analyze "$t/r2.db" --rules "$t/rules"
raw "$t/r2.db" > "$t/raw.r2"
cmp -s "$t/raw.before" "$t/raw.r2" && ok "refused rule wrote nothing" || bad "refused rule wrote nothing"

# A user rule dropped into a --rules directory fires; editing its threshold changes the findings.
mkdir "$t/user"
cat > "$t/user/toy-slow.rule" <<'RULE'
id: toy-slow
title: Slow configuration
tier: dram
doc: test
rationale: a user rule
threshold: min_ns = 50000 ns | test value
query:
  SELECT config_id, mean_ns, mean_ns - :min_ns AS time_lost_ns FROM cfg WHERE mean_ns > :min_ns
message: mean {mean_ns:ns} above {min_ns:ns}
remedy: be faster
RULE
expect "user rule" 0 "" -- "$bin" analyze "$t/r.db" --rules "$t/user" --top 0
[ "$(grep -c 'toy-slow' "$t/out")" = 1 ] && ok "user rule fires once" || bad "user rule fires once"
sed -i 's/min_ns = 50000/min_ns = 10000/' "$t/user/toy-slow.rule"
expect "user rule, lower threshold" 0 "" -- "$bin" analyze "$t/r.db" --rules "$t/user" --top 0
[ "$(grep -c 'toy-slow' "$t/out")" = 2 ] && ok "lower threshold fires twice" || bad "lower threshold fires twice"

# A report in a read-only place: analyzed in memory, warning, file unchanged.
# (root ignores file modes, so this part only means something for other users)
if [ "$(id -u)" = 0 ]; then echo "skip read-only report (running as root)"; else
mkdir "$t/ro"; GPUHIER_SOURCE_DIR=$src "$helper" mkreport "$t/ro/r.db"; chmod 444 "$t/ro/r.db"; chmod 555 "$t/ro"
cp "$t/ro/r.db" "$t/ro.copy"
expect "read-only report" 0 "not writable" -- "$bin" analyze "$t/ro/r.db" --rules "$rules"
grep -q "rank  severity" "$t/out" && ok "read-only report still shows findings" || bad "read-only report still shows findings"
cmp -s "$t/ro/r.db" "$t/ro.copy" && ok "read-only report unchanged" || bad "read-only report unchanged"
chmod 755 "$t/ro"
fi

# Hostile kernel names never reach the terminal raw (export sanitizer).
cp "$t/r.db" "$t/evil.db"
"$helper" sql "$t/evil.db" "UPDATE kernel SET short_name = 'evil' || char(27) || '[2J' || char(10) || 'line' || char(7), demangled_name = 'evil' || char(27) || '[2J' || char(10) || 'line' || char(7) WHERE id = 1; DELETE FROM analysis"
expect "hostile name" 0 "" -- "$bin" analyze "$t/evil.db" --rules "$rules" --top 0
if grep -q "$(printf '\033')" "$t/out" || grep -q "$(printf '\007')" "$t/out"; then bad "control characters escaped"; else ok "control characters escaped"; fi
grep -q 'evil\\e\[2J' "$t/out" && ok "escape shown visibly" || bad "escape shown visibly"
"$bin" analyze "$t/evil.db" --rules "$rules" --format json > "$t/ej" 2>/dev/null
if grep -q "$(printf '\033')" "$t/ej"; then bad "json has no raw ESC"; else ok "json has no raw ESC"; fi

# gpuhier rules
expect "rules list" 0 "" -- "$bin" rules --rules "$rules"
[ "$(grep -c '^[a-z0-9-]* *\(registers\|shared\|l1\|l2\|dram\|host\) ' "$t/out")" = 25 ] && ok "25 rules listed" || bad "25 rules listed"
expect "rules explain" 0 "" -- "$bin" rules --rules "$rules" explain l2-reread-miss
grep -q "max_hit_rate_pct = 50" "$t/out" && grep -q "^query:" "$t/out" && ok "explain shows thresholds and query" || bad "explain shows thresholds and query"
expect "explain unknown" 2 "no rule" -- "$bin" rules --rules "$rules" explain nope
expect "rules dir missing" 5 "rules directory" -- "$bin" rules --rules "$t/none"
exit $fail
