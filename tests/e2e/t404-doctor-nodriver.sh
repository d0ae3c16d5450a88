#!/bin/sh
# gpuhier doctor on a machine without a driver (forced with the test hook
# GPUHIER_CUDA_PATH, so this runs the same on a GPU machine): a clear
# PROBLEM line with what to do, and exit 7 (GH_EXIT_NO_GPU).
. "$(dirname "$0")/t4-cli-lib.sh"

GPUHIER_CUDA_PATH=/nonexistent/libcuda.so.1 expect_rc 7 "$G" doctor > out.txt 2> err.txt
contains out.txt "gpuhier doctor: is this machine ready to profile?"
contains out.txt "PROBLEM  no NVIDIA driver: cannot load /nonexistent/libcuda.so.1"
contains out.txt "fix: install the NVIDIA driver"
contains out.txt "cannot be detected in advance"
contains out.txt "serve one process at a time"
contains out.txt "not ready: gpuhier run cannot collect anything on this machine"
[ ! -s err.txt ] || { cat err.txt >&2; fail "doctor wrote to stderr"; }

# The toolkit's stub libcuda is recognized as such.
for stub in /usr/local/cuda/lib64/stubs/libcuda.so /usr/local/cuda/targets/x86_64-linux/lib/stubs/libcuda.so; do
  if [ -e "$stub" ]; then
    GPUHIER_CUDA_PATH=$stub expect_rc 7 "$G" doctor > out.txt
    contains out.txt "is the CUDA toolkit's stub library, not a driver"
    break
  fi
done

# CUPTI missing.
GPUHIER_CUDA_PATH=/nonexistent GPUHIER_CUPTI_PATH=/nonexistent/libcupti.so expect_rc 7 "$G" doctor > out.txt
contains out.txt "PROBLEM  CUPTI not found"
contains out.txt "GPUHIER_CUPTI_PATH"

# Counter permission, from the driver's params file.
printf 'ResmanDebugLevel: 4294967295\nRmProfilingAdminOnly: 1\n' > params
GPUHIER_CUDA_PATH=/nonexistent GPUHIER_NVIDIA_PARAMS=$T/params expect_rc 7 "$G" doctor > out.txt
if [ "$(id -u)" -eq 0 ]; then
  contains out.txt "admin only (RmProfilingAdminOnly=1), and you are root"
else
  contains out.txt "PROBLEM  counter permission: only admins may read hardware counters (RmProfilingAdminOnly=1)"
  contains out.txt "NVreg_RestrictProfilingToAdminUsers=0"
fi
printf 'RmProfilingAdminOnly: 0\n' > params
GPUHIER_CUDA_PATH=/nonexistent GPUHIER_NVIDIA_PARAMS=$T/params expect_rc 7 "$G" doctor > out.txt
contains out.txt "every user may read hardware counters (RmProfilingAdminOnly=0)"

# --calibrate needs a device; usage errors.
GPUHIER_CUDA_PATH=/nonexistent expect_rc 7 "$G" doctor --calibrate > out.txt 2> err.txt
contains err.txt "--calibrate needs a working driver and device"
expect_rc 2 "$G" doctor --bogus 2> err.txt
contains err.txt "unknown argument '--bogus'"
expect_rc 0 "$G" doctor --help > out.txt
contains out.txt "usage: gpuhier doctor [--calibrate]"
echo "ok t404"
