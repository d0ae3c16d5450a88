# Sourced by the GPU tests that run one program under the collector (t152, t153).
# gpu_setup NAME PROGRAM: $bin is GPUHIER_BINARY_DIR (the build or the stage),
# $lib its collector; without a GPU, python3 or PROGRAM prints "skipped: no GPU"
# and exits 77 (ctest's SKIP_RETURN_CODE); otherwise changes into $OUT/NAME
# (under a new temporary folder without OUT) and sets fail=0.
gpu_setup() {
    bin=${GPUHIER_BINARY_DIR:?}
    lib=$bin/libgpuhier-collector.so
    if ! [ -e /dev/nvidia0 ] || ! command -v python3 >/dev/null || ! [ -x "$2" ]; then
        echo "skipped: no GPU"; exit 77
    fi
    out=${OUT:-$(mktemp -d)}/$1
    mkdir -p "$out" && cd "$out" || exit 1
    fail=0
}
