# No raw control character, escape, bidi control or invalid UTF-8 in any
# screen or text view (no python needed: iconv and tr are in every base system).
set -eu
for v in summary kernels findings copies; do
  LC_ALL=C.UTF-8 "$GPUHIER" report --raw report.db --view $v > $v.out
done
LC_ALL=C.UTF-8 "$GPUHIER" report --raw report.db --view kernel huge_ > huge.out
for f in *.txt *.out; do
  [ "$f" = stdout.txt ] || [ "$f" = stderr.txt ] && continue
  iconv -f UTF-8 -t UTF-8 "$f" > /dev/null || { echo "invalid UTF-8 in $f"; exit 1; }
  n=$(tr -d '\n' < "$f" | LC_ALL=C tr -d '\040-\176\200-\377' | wc -c)
  [ "$n" -eq 0 ] || { echo "$n control bytes in $f"; exit 1; }
  # U+202E (right-to-left override) and the C1 CSI U+009B, as UTF-8 bytes.
  ! LC_ALL=C grep -q "$(printf '\342\200\256')" "$f" || { echo "bidi override in $f"; exit 1; }
  ! LC_ALL=C grep -q "$(printf '\302\233')" "$f" || { echo "C1 CSI in $f"; exit 1; }
done
# The 64 KB name is shown whole (wrapped) in the detail view.
test "$(tr -d ' \n' < huge.out | grep -o 'Ab' | wc -l)" -ge 32768
# Secrets in the command line never reach the screen or the text.
! grep -l 'sk-secret\|ghp_0123' *.txt *.out
grep -q 'Rerun' summary.out
