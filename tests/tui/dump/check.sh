# 'P' writes the same rows as `gpuhier report` (one row builder, two outputs).
set -eu
LC_ALL=C.UTF-8 "$GPUHIER" report --raw report.db --view kernels > kernels.report
cmp gpuhier-kernels.txt kernels.report
LC_ALL=C.UTF-8 "$GPUHIER" report --raw report.db --view findings > findings.report
cmp findings.txt findings.report
LC_ALL=C.UTF-8 "$GPUHIER" report --raw report.db --view summary > summary.report
cmp gpuhier-summary.txt summary.report
