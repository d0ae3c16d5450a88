# Facts the colour dump must show, whatever the layout.
set -eu
# Findings: the error row (rank 1) has error-coloured cells, the warning row warning ones.
sed -n 3p 01-findings.types | grep -q h
sed -n 4p 01-findings.types | grep -q i
# The cursor row (rank 3, after 'j' and 't') is cursor-coloured from edge to edge.
sed -n 5p 01-findings.types | grep -qx 'd*'
# The tagged row (rank 2) shows its mark.
sed -n 4p 01-findings.txt | grep -q '^\*    2 warning'
# Notes have their own colour; the title and key bar theirs.
grep -q j 01-findings.types
sed -n 1p 01-findings.types | grep -qx 'b*'
sed -n 24p 01-findings.types | grep -q g
# Summary: bars are drawn as full and empty cells, sections are marked.
grep -q n 02-summary.types
grep -q o 02-summary.types
grep -q q 02-summary.types
