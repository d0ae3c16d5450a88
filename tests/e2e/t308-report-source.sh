#!/bin/sh
# `report --view source` on the synthetic report of
# tests/fixtures/exact-patterns.sql (exact per-instruction counts, made up):
# worst lines first, 's'-order by line, the file's text when it is readable
# under the run's working directory, the SASS when it is not or when the
# cubin has no line info; a version-1 report (the demo) says it has no
# counts. Then the worst lines in analyze's messages, the SARIF location
# (region.startLine, a uri relative to run.cwd; a plain-text location when
# the file is not below it) and the Markdown ticket's quoted lines.
set -eu
src=${GPUHIER_SOURCE_DIR:?} bin=${GPUHIER_BINARY_DIR:?}/gpuhier
helper=${GPUHIER_BINARY_DIR}/tests/test_analyzer
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export LC_ALL=C.UTF-8
fail() { echo "t308: $*"; exit 1; }
GPUHIER_SOURCE_DIR=$src "$helper" mkfixture "$src/tests/fixtures/exact-patterns.sql" r.db
mkdir -p run/src
"$helper" sql r.db "UPDATE run SET cwd = '$tmp/run'" > /dev/null
printf '__global__ void\nstruct12(const Vec *s, float *out)\n{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n\n\n    // the thread index above\n\n    out[i] = s[i].x; /* 12-byte stride */\n}\n' > run/src/struct12.cu
# Worst lines first: line 9 carries the excess, its text is shown.
"$bin" report r.db --view source struct12 > s.txt
grep -q '^Sectors  *131,072 for an ideal of 65,536 (2.0' s.txt || { cat s.txt; fail "no sector totals"; }
first=$(grep -m1 'src/struct12.cu:' s.txt)
case $first in *'src/struct12.cu:9 '*'100.0%'*'out[i] = s[i].x; /* 12-byte stride */'*) ;; *) cat s.txt; fail "worst line is not line 9 with its text: $first" ;; esac
grep -q 'src/struct12.cu:7 .*// the thread index above' s.txt || { cat s.txt; fail "line 7 has no text"; }
# A file not readable here: the SASS of the line's worst instruction.
"$bin" report r.db --view source gather > g.txt
grep -q 'src/gather.cu:5 .*\[SASS\] LDG.E R7, desc\[UR4\]\[R4.64\]' g.txt || { cat g.txt; fail "gather: no SASS of the worst load"; }
# No line info: one row per pc, and what the counts do not see.
"$bin" report r.db --view source 6 > l.txt
grep -q '^  pc 0x200 .*LDG.E.128' l.txt || { cat l.txt; fail "library: no pc rows"; }
grep -q '^Not seen  *65,536 LDGSTS/TMA instructions' l.txt || { cat l.txt; fail "library: unseen LDGSTS not said"; }
# Local traffic: the local load (line 30) carries most of it.
"$bin" report r.db --view source spill > w.txt
[ "$(grep -o 'src/spill.cu:[0-9]*' w.txt | head -1)" = src/spill.cu:30 ] || { cat w.txt; fail "spill: worst line is not 30"; }
# Global atomics and reductions count among the global sectors: the scattered reduction carries the excess.
"$bin" report r.db --view source scatteradd > a.txt
grep -q '^Sectors  *327,680 for an ideal of 98,304 (3.3' a.txt || { cat a.txt; fail "scatter-add: atomic sectors not in the totals"; }
first=$(grep -m1 'sm_20_atomic_functions.hpp:' a.txt)
case $first in *'sm_20_atomic_functions.hpp:84 '*'262,144'*'100.0%'*) ;; *) cat a.txt; fail "scatter-add: the reduction is not the worst line: $first" ;; esac
# A version-1 report (the shipped demo): no counts, said in a note; the file is unchanged.
demo=$src/demo/tk-coalesce.db
if [ -f "$demo" ]; then
    sum=$(cksum < "$demo")
    "$bin" report "$demo" --view source 1 > d.txt
    grep -q '^note: no instrumented launch of this kernel' d.txt || { cat d.txt; fail "demo: no note"; }
    [ "$(cksum < "$demo")" = "$sum" ] || fail "the demo report changed"
fi
# A report names files; it never makes a reader print one outside the current or the run's directory.
cp r.db hostile.db
"$helper" sql hostile.db "UPDATE source_file SET path = '/etc/passwd' WHERE path = 'src/rowdot.cu';
  UPDATE source_file SET path = 'src/../../../../../../etc/passwd' WHERE path = 'src/gather.cu'" > /dev/null
(cd run && "$bin" report ../hostile.db --view source rowdot; "$bin" report ../hostile.db --view source gather) > h.txt
grep -q '\[SASS\] LDG.E R9' h.txt || { cat h.txt; fail "hostile: no SASS instead of the file"; }
! grep -q 'root:' h.txt || fail "hostile: a file outside the directories was printed"
(cd run && "$bin" export ../hostile.db --format md --one) > h.md
! grep -q 'root:' h.md || fail "hostile: the ticket quoted a file outside the directories"
rc=0; "$bin" report r.db --view source > /dev/null 2>&1 || rc=$?
[ $rc = 2 ] || fail "--view source without a name: rc $rc"
# The worst lines in analyze's messages and the exports; gather.cu is named by a path outside run.cwd.
"$helper" sql r.db "UPDATE source_file SET path = '/opt/elsewhere/gather.cu' WHERE path = 'src/gather.cu'" > /dev/null
"$bin" analyze r.db --format json > a.json 2>/dev/null || "$bin" analyze r.db > /dev/null
"$bin" export r.db --format md --one -o t.md
grep -q 'Worst lines\\: src/struct12.cu\\:9 \\(100.0% of the excess, 3.0× the ideal sectors, LDG.E R5' t.md || { cat t.md; fail "md: no worst line in the message"; }
grep -q '^src/struct12.cu:9:     out\[i\] = s\[i\].x; /\* 12-byte stride \*/$' t.md || { cat t.md; fail "md: line 9 not quoted"; }
! grep -q 'gather.cu:5: ' t.md || fail "md: quoted a file that is not readable here"
# SARIF: region.startLine and a uri relative to run.cwd; the file elsewhere: a plain-text location.
"$bin" export r.db --format sarif -o r.sarif
python3 - r.sarif <<'PY' || fail "sarif locations"
import json, sys
res = json.load(open(sys.argv[1]))["runs"][0]["results"]
by = {r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]: r for r in res}
s = by["_Z8struct12P3VecPf"]["locations"][0]["physicalLocation"]
assert s["artifactLocation"] == {"uri": "src/struct12.cu", "uriBaseId": "%SRCROOT%"}, s
assert s["region"]["startLine"] == 9, s
g = by["_Z6gatherPKfPKiPf"]["locations"][0]
assert "physicalLocation" not in g, g
assert g["message"]["text"].startswith("/opt/elsewhere/gather.cu:5: 100.0% of the excess"), g
sp = by["_Z5spillPKfPf"]
assert sp["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] == 28, sp
for r in res:
    assert "python" not in json.dumps(r["locations"]), r
PY
# The memory hierarchy of the kernel view and of the HTML page read the exact counts, as the rules
# do: the transpose's 32-way conflicts and the gather's 18 sectors per load, not "not measured" and
# "no global loads measured" beside the findings on them; a kernel with no shared instruction has
# no shared-memory access.
"$bin" report r.db --view kernel transpose > kt.txt
grep -q 'shared .*32.0-way conflicts (ideal 1, exact)' kt.txt || { cat kt.txt; fail "kernel view: transpose's shared tier"; }
"$bin" report r.db --view kernel gather > kg.txt
grep -q 'L1 .*18.0 sectors/load (ideal 4.0, exact)' kg.txt || { cat kg.txt; fail "kernel view: gather's L1 tier"; }
grep -q 'shared .*no shared-memory access' kg.txt || { cat kg.txt; fail "kernel view: gather has no shared access"; }
"$bin" export r.db --format html -o r.html
python3 - r.html <<'PY' || fail "html: the hierarchy does not read the exact counts"
import html, re, sys
text = html.unescape(re.sub(r"<[^>]+>", " ", open(sys.argv[1]).read()))
text = re.sub(r"\s+", " ", text)
assert re.search(r"transpose — .{0,200}? shared .{0,60}?32(\.0)?-way conflicts \(ideal 1, exact\)", text), "transpose"
assert re.search(r"gather — .{0,300}? L1 .{0,60}?18(\.0)? sectors/load \(ideal 4(\.0)?, exact\)", text), "gather"
assert "unknown %" not in text, "a percentage of unknown"
PY
schemas=$src/../shared/schemas val=$src/tests/validators
if [ -f "$schemas/sarif-schema-2.1.0.json" ] && [ -d "$val/node_modules/ajv-draft-04" ]; then
    node "$val/validate-sarif.cjs" "$schemas/sarif-schema-2.1.0.json" r.sarif || fail "r.sarif is not valid SARIF 2.1.0"
fi
echo "t308: ok"
