#!/bin/sh
# SPDX-License-Identifier: MIT
# t210: notes with no time lost are hidden by default in analyze, report
# (the TUI's views as text) and md export, and --all shows them; md
# export writes tickets for warnings and errors only (docs/severity.md).
# On the SYNTHETIC sample report of test_analyzer, with two user rules:
# one costs 80 % of the kernel's time (exact: an error), one costs nothing.
. "$(dirname "$0")/sample-report-lib.sh"

mk "$t/r.db"
mkdir "$t/rules"
cat > "$t/rules/costly.rule" <<'R'
id: costly
title: Costly
tier: dram
doc: test
estimate: exact
rationale: test rule
query: SELECT config_id, 0.8 * mean_ns AS time_lost_ns FROM cfg WHERE config_id = 1
message: costly finding
remedy: fix it
R
cat > "$t/rules/free.rule" <<'R'
id: free
title: Free
tier: dram
doc: test
rationale: test rule
query: SELECT config_id, 0 AS time_lost_ns FROM cfg WHERE config_id = 1
message: free finding
remedy: nothing
R
"$bin" analyze "$t/r.db" --rules "$t/rules" > "$t/a" 2>&1
has "$t/a" "costly finding" "analyze lists the costly finding"
lacks "$t/a" "free finding" "analyze hides the free note"
has "$t/a" "1 note with no time lost not shown; --all" "analyze says one is hidden"
"$bin" analyze "$t/r.db" --rules "$t/rules" --all > "$t/a2" 2>&1
has "$t/a2" "free finding" "analyze --all shows it"

"$bin" report "$t/r.db" --raw --view findings > "$t/f" 2>&1
has "$t/f" "costly" "report findings lists the costly one"
lacks "$t/f" "free" "report findings hides the free note"
"$bin" report "$t/r.db" --raw --all --view findings > "$t/f2" 2>&1
has "$t/f2" "free" "report --all shows it"
"$bin" report "$t/r.db" --raw --view summary > "$t/s" 2>&1
lacks "$t/s" " free " "summary's top findings hide it"
has "$t/s" "; 1 at 0 ns hidden" "summary says one is hidden"
"$bin" report "$t/r.db" --raw --view kernel stride > "$t/k" 2>&1
lacks "$t/k" "free finding" "kernel view hides it"
"$bin" report "$t/r.db" --raw --all --view kernel stride > "$t/k2" 2>&1
has "$t/k2" "free finding" "kernel view --all shows it"

"$bin" export "$t/r.db" --raw > "$t/e.md" 2>&1
has "$t/e.md" "costly finding" "md export: a ticket for the error"
lacks "$t/e.md" "free finding" "md export: none for the free note"
"$bin" export "$t/r.db" --raw --all > "$t/e2.md" 2>&1
has "$t/e2.md" "free finding" "md export --all: every finding"
"$bin" export "$t/r.db" --raw --format json > "$t/e.json" 2>&1
has "$t/e.json" "free finding" "json export keeps every finding"

# the kernels view's Worst column names only a finding the lists show: a kernel whose only finding is a
# free note shows none there (a JAX report named occupancy-registers, hidden, on XLA's GEMM fusions)
mkdir "$t/rules2"
sed 's/config_id = 1/config_id = 2/; s/^id: free/id: free2/' "$t/rules/free.rule" > "$t/rules2/free2.rule"
"$bin" analyze "$t/r.db" --rules "$t/rules2" > /dev/null 2>&1
"$bin" report "$t/r.db" --raw --view kernels > "$t/kk" 2>&1
# only a hidden note: the summary's top list and the findings view say a note is hidden, not that
# every rule passed (a trace report of 23 zero-cost notes read "none: every rule passed")
"$bin" report "$t/r.db" --raw --view summary > "$t/s2" 2>&1
lacks "$t/s2" "every rule passed" "summary: not 'every rule passed' beside a hidden note"
has "$t/s2" "^  none that loses time; 1 note with no time lost hidden (--all shows it)\$" \
  "summary: the top list says the note is hidden"
"$bin" report "$t/r.db" --raw --view findings > "$t/f3" 2>&1
has "$t/f3" "1 note with no time lost hidden (--all shows it)" "findings view: the singular"
lacks "$t/kk" "free2" "kernels view: no Worst for a kernel whose only finding is hidden"
"$bin" report "$t/r.db" --raw --all --view kernels > "$t/kk2" 2>&1
has "$t/kk2" "free2" "kernels view --all: names it"
[ $fail = 0 ] && echo "t210: free notes hidden ok"
exit $fail
