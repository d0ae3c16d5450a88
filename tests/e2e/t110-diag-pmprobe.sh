#!/bin/sh
# GPUHIER_DIAG_PMPROBE (docs/pmprobe.md "Beside the collector"): the collector loads
# bench/pmprobe's library and starts its PM sampling at the first launch, stops it at the
# exit. On the fake driver and CUPTI (tests/unit/collector_fake_cuda.c) the probe's PM sampling
# calls are refused, so what holds without a GPU is the plumbing: the program runs as without
# the variable, the report says the probe was loaded and did not start, the probe writes its
# meta file (attached, the refused call named); a library that is not there or is not the
# probe is said once and changes nothing else.
set -u
lib=${GPUHIER_BINARY_DIR:?}/libgpuhier-collector.so
probe=$GPUHIER_BINARY_DIR/gpu/libgh_pmprobe.so
: "${FAKE_CUDA:?}" "${FAKE_HOST:?}"
command -v sqlite3 >/dev/null || { echo "skipped: no sqlite3"; exit 77; }
[ -f "$probe" ] || { echo "skipped: no $probe (the probe is not built in a sanitized build)"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $*"; fail=1; }
mkdir "$tmp/lib" && ln -s "$FAKE_CUDA" "$tmp/lib/libcuda.so.1"
run() { # run NAME VAR=VALUE...
    n=$1
    shift
    env -u GPUHIER_FAULT -u GPUHIER_INSTRUMENT CUDA_INJECTION64_PATH="$lib" GPUHIER_CUPTI_PATH="$FAKE_CUDA" \
        GPUHIER_OUTPUT="$tmp/$n.db" LD_LIBRARY_PATH="$tmp/lib" FAKE_RANGEPROF=1 "$@" \
        timeout 20 "$FAKE_HOST" "$FAKE_CUDA" > "$tmp/$n.out" 2> "$tmp/$n.err"
    echo $? > "$tmp/$n.rc"
}
expect() { # expect NAME WHAT GOT WANT
    [ "$3" = "$4" ] && echo "ok   $1: $2" || bad "$1: $2: got '$3', want '$4'"
}
q() { sqlite3 "$tmp/$1.db" "$2"; }

run plain
run probe GPUHIER_DIAG_PMPROBE="$probe" PMPROBE_OUT="$tmp/pm"
for n in plain probe; do
    expect $n "exit status" "$(cat "$tmp/$n.rc")" 0
done
expect probe "the same launches as without it" "$(q probe "SELECT count(*) FROM launch")" "$(q plain "SELECT count(*) FROM launch")"
expect probe "the same fake's counts" "$(grep -v '^fake_enables=' "$tmp/probe.out")" "$(grep -v '^fake_enables=' "$tmp/plain.out")"
expect probe "the report names the probe" "$(q probe "SELECT value FROM meta WHERE key = 'diag_pmprobe'")" "$probe"
expect probe "and says it did not start" "$(q probe "SELECT count(*) FROM event WHERE code = 'diag_pmprobe'")" 1
expect plain "nothing without the variable" "$(q plain "SELECT count(*) FROM meta WHERE key = 'diag_pmprobe'")" 0
m=$(find "$tmp/pm" -name 'pm-*-meta.tsv' 2>/dev/null | head -1)
if [ -z "$m" ]; then
    bad "probe: no meta file in PMPROBE_OUT"
else
    expect probe "the probe's meta file: attached" "$(awk -F'\t' '$1 == "start" { print $2 }' "$m")" attached
    grep -q '^error	cuptiPmSampling' "$m" && echo "ok   probe: the refused call named" ||
        bad "probe: no refused PM sampling call in $(cat "$m")"
    [ -z "$(find "$tmp/pm" -name 'pm-*-kernels.tsv')" ] && echo "ok   probe: no kernel file of its own" ||
        bad "probe: attached, it wrote a kernel file"
fi
run missing GPUHIER_DIAG_PMPROBE="$tmp/nothere.so"
expect missing "exit status" "$(cat "$tmp/missing.rc")" 0
grep -q "GPUHIER_DIAG_PMPROBE: cannot load '$tmp/nothere.so'" "$tmp/missing.err" && echo "ok   missing: said" ||
    bad "missing: not said: $(cat "$tmp/missing.err")"
expect missing "traced as without it" "$(q missing "SELECT count(*) FROM launch")" "$(q plain "SELECT count(*) FROM launch")"
run other GPUHIER_DIAG_PMPROBE="$FAKE_CUDA"
grep -q "has no pmprobe_attached_start/stop" "$tmp/other.err" && echo "ok   other: a library that is not the probe, said" ||
    bad "other: not said: $(cat "$tmp/other.err")"
expect other "exit status" "$(cat "$tmp/other.rc")" 0
[ $fail = 0 ] && echo "t110: the PM sampling probe beside the collector changes nothing it should not"
exit $fail
