#!/bin/sh
# The naming rule on the demo's real names (PyTorch, cuDNN, a CUTLASS
# kernel libiberty cannot demangle): every kernel has a short listed name
# (no raw mangled name; at most 160 bytes: a cuDNN identifier alone is
# 143), the names are unique, each listed name given back to
# `report --view kernel` opens that kernel, and
# a name several kernels share lists them with their ids, each of which
# opens one; a finding names its kernel as listed, then its signature.
set -eu
src=${GPUHIER_SOURCE_DIR:?} bin=${GPUHIER_BINARY_DIR:?}/gpuhier
demo=$src/demo/demo.db
[ -f "$demo" ] || { echo "skipped: demo/demo.db is not recorded yet"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export LC_ALL=C.UTF-8
fail() { echo "t307: $*"; exit 1; }
"$bin" report --raw "$demo" --view kernels > kernels.txt
sed 1d kernels.txt | sed 's/  .*//' > names.txt
[ "$(wc -l < names.txt)" -gt 50 ] || fail "fewer kernels than the demo has"
dups=$(sort names.txt | uniq -d)
[ -z "$dups" ] || fail "names listed twice: $dups"
! grep -q '^_Z' names.txt || fail "a raw mangled name is listed: $(grep '^_Z' names.txt | cut -c1-80)"
grep -qx 'cutlass__5x_cudnn::Kernel<…> #70' names.txt || fail "the undemangled CUTLASS kernel has no short name"
awk '{ if (length($0) > 160) { print "t307: a name of " length($0) " columns: " $0; exit 1 } }' names.txt
# Round trip: the listed name opens the kernel listed under it.
i=0
while IFS= read -r n; do
  i=$((i + 1))
  [ $i -le 25 ] || break
  "$bin" report --raw "$demo" --view kernel "$n" > k.txt 2> err.txt || fail "'$n' does not open: $(cat err.txt)"
  # The detail wraps a long name at a name boundary (a blank, "::", '<', '('): its lines
  # joined (the blank a break took back after a comma) give it back whole.
  got=$(awk 'NR == 1 { s = substr($0, 14); next }
             /^             [^ ]/ && !done { s = s (s ~ /,$/ ? " " : "") substr($0, 14); next }
             { done = 1 } END { print s }' k.txt)
  [ "$got" = "$n" ] || fail "'$n' opens '$got'"
done < names.txt
# A finding names its kernel as the lists do, then gives the full signature.
for rank in 1 2 3 4 5; do
  "$bin" report --raw "$demo" --view finding $rank > f.txt || fail "finding $rank"
  k=$(sed -n 's/^Kernel       //p' f.txt)
  grep -qxF -- "$k" names.txt || fail "finding $rank names its kernel '$k', not as listed"
  grep -q '^Signature    ' f.txt || fail "finding $rank: no signature"
done
set +e
"$bin" report --raw "$demo" --view kernel reduce_kernel 2> err.txt; rc=$?
set -e
[ $rc = 2 ] || fail "reduce_kernel: rc $rc"
grep -q "matches 4 kernels: 'at::native::reduce_kernel<128, …, ReduceOp<float, …>>' (id [0-9]*)" err.txt ||
  fail "candidates: $(cat err.txt)"
for id in $(grep -o '(id [0-9]*)' err.txt | tr -dc '0-9\n' | tr -s '\n' ' '); do
  "$bin" report --raw "$demo" --view kernel "$id" > k.txt || fail "id $id"
  grep -q '^Kernel       at::native::reduce_kernel<' k.txt || fail "id $id opens $(sed -n 1p k.txt)"
done
echo "t307: ok"
