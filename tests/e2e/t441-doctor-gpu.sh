#!/bin/sh
# On a GPU: gpuhier doctor finds the driver, the device and CUPTI, and
# says the machine is ready (exit 0); --calibrate measures and caches the
# copy bandwidth (into a temporary HOME here).
. "$(dirname "$0")/t4-cli-lib.sh"
if ! nvidia-smi -L > /dev/null 2>&1; then echo "skipped: no GPU"; exit 77; fi
case ${GPUHIER_COLLECTOR:-} in *gh_cli_stub*) fail "the real collector is not built";; esac
set +e; XDG_CACHE_HOME= HOME=$T "$G" doctor --calibrate > out.txt 2> err.txt; rc=$?; set -e
cat out.txt err.txt
[ $rc -eq 0 ] || fail "doctor exited $rc on a GPU machine"
contains out.txt "ok       device 0: "
contains out.txt "ready to profile"
f=$(ls "$T"/.cache/gpuhier/calibration-*.txt)
bw=$(cat "$f")
# Plausible for any GPU gpuhier supports: 50 GB/s .. 20 TB/s (read + write).
awk -v b="$bw" 'BEGIN { exit !(b > 5e10 && b < 2e13) }' || fail "implausible bandwidth '$bw' in $f"
XDG_CACHE_HOME= HOME=$T "$G" doctor > out.txt
contains out.txt "measured copy bandwidth"
echo "ok t441"
