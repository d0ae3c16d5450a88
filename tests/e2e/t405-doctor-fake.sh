#!/bin/sh
# gpuhier doctor's happy path and --calibrate without a GPU: a fake driver
# and CUPTI (tests/unit/test_cli_fakecuda.c) whose device 0 is an H200
# copying at exactly 4e12 bytes/s (read + write), and whose device 1 is
# too old to profile.
. "$(dirname "$0")/t4-cli-lib.sh"
printf 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue Sep 23 09:00:00 UTC 2025\nGCC version:  gcc version 12\n' > version
printf 'RmProfilingAdminOnly: 0\n' > params
export GPUHIER_CUDA_PATH="${GH_CLI_FAKE_CUDA:?}" GPUHIER_CUPTI_PATH="${GH_CLI_FAKE_CUPTI:?}"
export GPUHIER_NVIDIA_VERSION=$T/version GPUHIER_NVIDIA_PARAMS=$T/params XDG_CACHE_HOME=$T/cache

expect_rc 0 "$G" doctor > out.txt 2> err.txt
contains out.txt "ok       driver 580.95.05, CUDA 13.0 driver API"
contains out.txt "ok       device 0: NVIDIA H200, compute capability 9.0, 132 SMs, 140.4 GiB"
contains out.txt "PROBLEM  device 1: Fake GPU/Old 7.0, compute capability 7.0: too old"
contains out.txt "ok       CUPTI $GH_CLI_FAKE_CUPTI (API version 130001)"
contains out.txt "ok       device 0: hardware counters supported"
contains out.txt "PROBLEM  device 1: CUPTI's range profiler is unsupported here (architecture unsupported"
contains out.txt "ok       counter permission: every user may read hardware counters"
contains out.txt "ok       range profiler: counters readable on device 0 (cuptiProfilerGetCounterAvailability answered)"
contains out.txt "ok       instrumentation: CUPTI's SASS metrics API answered on device 0 (60 metrics on GH100; cuptiSassMetricsSetConfig accepted)"
contains out.txt "ok       collector "
contains out.txt "note     NVIDIA H200: copy bandwidth not measured"
contains out.txt "ready to profile: gpuhier run ./your-program"
[ ! -s err.txt ] || { cat err.txt >&2; fail "doctor wrote to stderr"; }

# Calibration: the median of the timed copies, read + write bytes, cached per model.
expect_rc 0 "$G" doctor --calibrate > out.txt 2> err.txt
contains out.txt "measured NVIDIA H200: device-to-device copy of 256 MiB, median of 15: 0.134 ms, 4.00 TB/s"
f=$T/cache/gpuhier/calibration-NVIDIA_H200.txt
[ -f "$f" ] || fail "no $f: $(ls -R "$T/cache" 2>&1)"
[ "$(wc -l < "$f")" -eq 1 ] || fail "$f is not one line"
awk '{ exit !($1 > 3.996e12 && $1 < 4.004e12 && $1 == int($1)) }' "$f" || fail "bandwidth '$(cat "$f")' is not 4e12 bytes/s"
# Spaces and '/' in a device name become '_'.
[ -f "$T/cache/gpuhier/calibration-Fake_GPU_Old_7.0.txt" ] || fail "device names not sanitized: $(ls "$T/cache/gpuhier")"
expect_rc 0 "$G" doctor > out.txt
contains out.txt "ok       NVIDIA H200: measured copy bandwidth 4.00 TB/s ($f)"
# Without XDG_CACHE_HOME the cache is under HOME.
XDG_CACHE_HOME= HOME=$T/home expect_rc 0 "$G" doctor --calibrate > /dev/null
[ -f "$T/home/.cache/gpuhier/calibration-NVIDIA_H200.txt" ] || fail "no calibration under HOME"

# Another driver: the same checks, marked untested.
printf 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  575.51.03  Tue\n' > version
expect_rc 0 "$G" doctor > out.txt
contains out.txt "untested driver 575.51.03, CUDA 13.0 driver API (tested: driver 580 with CUDA 13.0)"

# CUPTI's profiler failing to initialize in doctor's process is a warning:
# only an explicit "unsupported" answer says counters are impossible.
FAKE_CUPTI_INIT_FAIL=1 expect_rc 0 "$G" doctor > out.txt
contains out.txt "warning  cannot ask CUPTI about profiler support: cuptiProfilerInitialize failed: CUPTI_ERROR_FAKE"
contains out.txt "ready to profile"

# Each engine on its own: the range profiler's probe refused (ERR_NVGPUCTRPERM) while the
# instrumentation engine's API answers; then that API refused too, and absent.
FAKE_CUPTI_NO_PERM=1 expect_rc 7 "$G" doctor > out.txt
contains out.txt "PROBLEM  range profiler: refused, no permission to read GPU counters (ERR_NVGPUCTRPERM: cuptiProfilerGetCounterAvailability returned CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)"
contains out.txt "ok       instrumentation: CUPTI's SASS metrics API answered on device 0"
contains out.txt "note     without counter permission the instrumentation engine's API still answers"
contains out.txt "try gpuhier run --counters pattern"
contains out.txt "not ready for the range profiler (see PROBLEM above); the instrumentation engine's API answered"
contains out.txt "'gpuhier run --counters pattern' may still give pattern counts"
FAKE_CUPTI_NO_PERM=1 FAKE_CUPTI_SASS_NO_PERM=1 expect_rc 7 "$G" doctor > out.txt
contains out.txt "PROBLEM  instrumentation: cuptiSassMetricsSetConfig returned CUPTI_ERROR_INSUFFICIENT_PRIVILEGES on device 0 (60 metrics on GH100)"
contains out.txt "not ready: hardware counters are unavailable"
FAKE_CUPTI_NO_SASS=1 expect_rc 0 "$G" doctor > out.txt
contains out.txt "warning  instrumentation: cuptiSassMetricsGetNumOfMetrics returned CUPTI_ERROR_FAKE on GH100"
contains out.txt "ready to profile"

# Counters for admins only, as a user who is not root: not ready, trace still works.
if [ "$(id -u)" -ne 0 ]; then
  printf 'RmProfilingAdminOnly: 1\n' > params
  expect_rc 7 "$G" doctor > out.txt
  contains out.txt "not ready: hardware counters are unavailable"
fi
echo "ok t405"
