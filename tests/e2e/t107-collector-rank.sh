#!/bin/sh
# A process of a parallel job records its place in it (issue 22 point 1;
# docs/collector.md "Jobs of several processes"): meta rank, local_rank,
# world_size and rank_source from the launcher's variables (torchrun, Open
# MPI, MPICH/PMI, Slurm faked here), and a report name built from the rank
# and the host (%q{RANK}, %h). No GPU needed: InitializeInjection is called
# directly, as cuInit does (CUPTI then refuses the subscription).
set -u
lib=${GPUHIER_BINARY_DIR:?}/libgpuhier-collector.so
[ -f "$lib" ] || { echo "missing $lib"; exit 1; }
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
unset RANK LOCAL_RANK WORLD_SIZE OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_LOCAL_RANK OMPI_COMM_WORLD_SIZE \
    PMIX_RANK PMI_RANK PMI_SIZE MPI_LOCALRANKID SLURM_PROCID SLURM_LOCALID SLURM_NTASKS
case_() { # case_ NAME EXPECTED(rank,local,size,source or "none") VAR=VALUE...
    name=$1 want=$2
    shift 2
    env "$@" GPUHIER_QUIET=1 GPUHIER_OUTPUT="$tmp/$name.db" python3 -c \
        'import ctypes, sys; ctypes.CDLL(sys.argv[1]).InitializeInjection()' "$lib" >/dev/null 2>&1
    got=$(python3 - "$tmp/$name.db" <<'PY'
import sqlite3, sys
try:
    c = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
    m = dict(c.execute("SELECT key, value FROM meta WHERE key IN ('rank','local_rank','world_size','rank_source')"))
except sqlite3.Error as e:
    print("error: %s" % e); sys.exit(0)
print(",".join(m.get(k, "-") for k in ("rank", "local_rank", "world_size", "rank_source")) if m else "none")
PY
)
    [ "$got" = "$want" ] && echo "ok   $name: $got" || { echo "FAIL $name: got '$got', want '$want'"; fail=1; }
}
case_ torchrun "3,1,8,torchrun" RANK=3 LOCAL_RANK=1 WORLD_SIZE=8
case_ openmpi "5,1,16,Open MPI" OMPI_COMM_WORLD_RANK=5 OMPI_COMM_WORLD_LOCAL_RANK=1 OMPI_COMM_WORLD_SIZE=16
case_ mpich "2,0,4,MPICH (PMI)" PMI_RANK=2 MPI_LOCALRANKID=0 PMI_SIZE=4
case_ slurm "7,3,8,Slurm" SLURM_PROCID=7 SLURM_LOCALID=3 SLURM_NTASKS=8
# srun around torchrun: torchrun's own variables name the process, Slurm's the launcher task
case_ srun_torchrun "1,1,2,torchrun" SLURM_PROCID=0 SLURM_LOCALID=0 SLURM_NTASKS=1 RANK=1 LOCAL_RANK=1 WORLD_SIZE=2
case_ bad_rank "2,-,-,Slurm" RANK=two SLURM_PROCID=2
case_ none "none"
# the name from the rank and the host, one report per rank
for r in 0 1; do
    RANK=$r GPUHIER_QUIET=1 GPUHIER_OUTPUT="$tmp/job-%q{RANK}-%h.db" python3 -c \
        'import ctypes, sys; ctypes.CDLL(sys.argv[1]).InitializeInjection()' "$lib" >/dev/null 2>&1
done
h=$(hostname)
[ -f "$tmp/job-0-$h.db" ] && [ -f "$tmp/job-1-$h.db" ] && echo "ok   names: job-0-$h.db and job-1-$h.db" ||
    { echo "FAIL names: $(ls "$tmp")"; fail=1; }
[ $fail = 0 ] && echo "t107: each process of a job records its rank"
exit $fail
