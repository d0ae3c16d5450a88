# No raw control character, escape or invalid UTF-8 in any screen or text view.
set -eu
for v in summary kernels findings copies; do
  LC_ALL=C.UTF-8 "$GPUHIER" report --raw report.db --view $v > $v.out
done
LC_ALL=C.UTF-8 "$GPUHIER" report --raw report.db --view kernel huge_ > huge.out
python3 - *.txt *.out <<'PY'
import sys
for f in sys.argv[1:]:
    b = open(f, 'rb').read()
    b.decode('utf-8')  # raises on invalid UTF-8
    bad = [c for c in b if (c < 32 and c != 10) or c == 127]
    assert not bad, (f, bad[:5])
    assert '\u202e' not in b.decode('utf-8'), f
    assert '\u009b' not in b.decode('utf-8'), f
PY
# The 64 KB name is shown whole (wrapped) in the detail view.
test "$(tr -d ' \n' < huge.out | grep -o 'Ab' | wc -l)" -ge 32768
