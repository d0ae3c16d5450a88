# Sideways scrolling: Shift+Right (and >) moves the rows 8 columns a step
# and widens the name column by as much, so a cut name reads on; Shift+Left
# (and <) comes back, never past the first column; the title, status and
# key bar stay put; each view keeps its own scroll.
set -eu
cmp 01-kernels.txt 03-back.txt
head -1 01-kernels.txt > t1; head -1 02-right.txt > t2; cmp t1 t2
tail -2 01-kernels.txt > k1; tail -2 02-right.txt > k2; cmp k1 k2
# The header scrolled with the rows: "Kernel" is 24 columns left of the screen.
! grep -q '^Kernel' 02-right.txt
sed -n 2p 01-kernels.txt | grep -q '^Kernel'
# Scrolled 24 columns, a row shows from its 25th column of the wide table.
[ "$(sed -n 3p 02-right.txt | cut -c1-8)" != "$(sed -n 3p 01-kernels.txt | cut -c1-8)" ]
# The detail opened unscrolled, then scrolled on its own.
sed -n 2p 05-detail.txt | grep -q '^Kernel '
! sed -n 2p 06-detail-right.txt | grep -q '^Kernel '
