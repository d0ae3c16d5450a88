# The TUI's profiles view and `gpuhier report --view profiles` draw the same rows.
set -eu
LC_ALL=C.UTF-8 "$GPUHIER" report --raw report.db --view profiles reread_kernel_12 > profiles.report
cmp profiles.txt profiles.report
