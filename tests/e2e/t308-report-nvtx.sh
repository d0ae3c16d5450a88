#!/bin/sh
# SPDX-License-Identifier: MIT
# report --view nvtx and --nvtx on a SYNTHETIC report with nested NVTX
# ranges (tests/tui/make_fixture.sh nvtx): a range's total is its own
# time plus its children's, the top-level ranges and the launches outside
# every range make up the run, the filter keeps what ran in the range,
# hostile range names stay inert, and the report is never modified.
set -eu
src=${GPUHIER_SOURCE_DIR:?} bin=${GPUHIER_BINARY_DIR:?}/gpuhier
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "t308: $*"; exit 1; }
export LC_ALL=C.UTF-8
command -v python3 >/dev/null 2>&1 || { echo "skipped: python3 not installed"; exit 77; }
"$src/tests/tui/make_fixture.sh" nvtx r.db
"$src/tests/tui/make_fixture.sh" small plain.db
sum=$(cksum < r.db)
"$bin" report --raw r.db --view nvtx > nvtx.txt || fail "--view nvtx failed"
head -1 nvtx.txt | grep -q '^Range path.* Total .* Self .* Share .*Launches .*Finds .* Lost .*Calls$' || fail "header: $(head -1 nvtx.txt)"
# Rows in path order, every enclosing range present.
[ "$(sed 1d nvtx.txt | sed 's/  .*//' | tr '\n' '|')" = "(no range)|data|data > load|eval|step|step > backward|step > forward|step > forward > attention|" ] ||
  fail "rows: $(sed 1d nvtx.txt | sed 's/  .*//' | tr '\n' '|')"
# Launch counts: totals are self plus nested, from the launch table itself.
q() { python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' r.db "$1"; }
launches() { awk -v p="$1" 'index($0, p "  ") == 1 { sub("^" p " +", ""); print $6 }' nvtx.txt | tr -d ,; }
[ "$(launches step)" = "$(q "SELECT count(*) FROM launch WHERE nvtx_path = 'step' OR nvtx_path LIKE 'step > %'")" ] || fail "step launches $(launches step)"
[ "$(launches 'step > forward')" = "$(q "SELECT count(*) FROM launch WHERE nvtx_path LIKE 'step > forward%'")" ] || fail "forward launches"
[ "$(launches eval)" = "$(q "SELECT count(*) FROM launch WHERE kernel_id = 8")" ] || fail "eval launches"
[ "$(launches data)" = 0 ] || fail "data ran no launch"
# Shares of the top level and of the launches outside every range add up to 100 %.
tot=$(awk 'NR > 1 && $0 !~ / > / { for (i = 1; i <= NF; i++) if ($i ~ /%$/) { sub("%", "", $i); s += $i } } END { printf "%.0f", s }' nvtx.txt)
[ "$tot" = 100 ] || fail "top-level shares add to $tot %"
# Calls from nvtx_range: 3 'step' pushes, the start/end range left out.
grep -q '^step  .*  3$' nvtx.txt || fail "step calls"
! grep -q 'epoch' nvtx.txt || fail "the start/end range is listed"
# --nvtx: kernels, configs and findings that ran in the range.
"$bin" report --raw r.db --view kernels --nvtx '^eval( > |$)' > k.txt
[ "$(sed 1d k.txt | wc -l)" = 1 ] && grep -q '^synthetic::strided_kernel_8' k.txt || fail "--nvtx eval kernels: $(cat k.txt)"
"$bin" report --raw r.db --view configs --nvtx=eval > c.txt
[ "$(sed 1d c.txt | wc -l)" = 2 ] || fail "--nvtx eval configs"
"$bin" report --raw r.db --view findings --nvtx '^eval' > f.txt
[ "$(sed 1d f.txt | awk '{print $1}' | tr '\n' ' ')" = "2 3 " ] || fail "--nvtx eval findings: $(cat f.txt)"
"$bin" report --raw r.db --view kernels --nvtx '^$' > none.txt
[ "$(sed 1d none.txt | wc -l)" = 11 ] || fail "'^\$' keeps the kernels launched outside every range"
"$bin" report --raw r.db --view kernels --nvtx 'no such range' > empty.txt
[ "$(sed 1d empty.txt | wc -l)" = 0 ] || fail "a range no launch ran in keeps kernels"
rc=0; "$bin" report --raw r.db --view summary --nvtx step > /dev/null 2>err.txt || rc=$?
[ $rc = 2 ] || fail "--nvtx with summary exited $rc"
rc=0; "$bin" report --raw r.db --view kernels --nvtx '(' > /dev/null 2>err.txt || rc=$?
[ $rc = 2 ] && grep -q 'bad regular expression' err.txt || fail "bad regex exited $rc"
rc=0; "$bin" tui --raw r.db --nvtx '(' > /dev/null 2>err.txt || rc=$?
[ $rc = 2 ] || fail "tui: bad --nvtx regex exited $rc"
# A report without NVTX ranges says so.
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("UPDATE launch SET nvtx_path = NULL"); c.commit()' plain.db
"$bin" report --raw plain.db --view nvtx > plain.txt
grep -q '^note: ' plain.txt || fail "no note without ranges"
# Hostile range names: no raw control byte reaches the output.
python3 - r.db <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE launch SET nvtx_path = 'evil\x1b]0;pwned\x07 > x\x1b[2J' WHERE kernel_id = 8")
c.execute("UPDATE nvtx_range SET name = 'evil\x1b]0;pwned\x07' WHERE name = 'eval'")
c.commit()
PY
"$bin" report --raw r.db --view nvtx > hostile.txt
n=$(LC_ALL=C tr -d '\n\040-\176\200-\377' < hostile.txt | wc -c)
[ "$n" = 0 ] || fail "$n raw control bytes in the nvtx view"
grep -qF 'evil\e]0;pwned\x07 > x\e[2J' hostile.txt || fail "hostile path not shown escaped"
"$src/tests/tui/make_fixture.sh" nvtx r2.db
[ "$(cksum < r2.db)" = "$sum" ] || fail "the nvtx fixture is not deterministic"
"$bin" report --raw r2.db --view nvtx > /dev/null
"$bin" report --raw r2.db --view findings --nvtx step > /dev/null
[ "$(cksum < r2.db)" = "$sum" ] || fail "report modified the report"
echo "t308: ok"
