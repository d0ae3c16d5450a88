#!/bin/sh
# gpuhier run collects what the rules in use declare (issue 19 point 6):
# a rule's `requires:` names beyond the metric catalogue's sets go to the
# collector in GPUHIER_METRICS, and in GPUHIER_RULE_METRICS, which the
# collector drops with a warning when the chip lacks them. The stand-in
# program prints the variables it was given.
. "$(dirname "$0")/t4-cli-lib.sh"
SRC=${GPUHIER_SOURCE_DIR:?run through ctest}
VARS="GPUHIER_METRICS GPUHIER_RULE_METRICS"

# The shipped rules need nothing beyond the catalogue's sets: a default run costs what it did.
expect_rc 0 "$G" run --no-analyze "$C" env $VARS > out.txt 2> err.txt
contains out.txt "GPUHIER_METRICS unset"
contains out.txt "GPUHIER_RULE_METRICS unset"
lacks err.txt "collecting"

# A user rule that needs a counter the catalogue lacks: collected, and said.
mkdir rules
cp "$SRC"/rules/*.rule rules/
cp "$SRC"/tests/fixtures/user/few-warps-launched.rule rules/
expect_rc 0 "$G" run --no-analyze --rules rules "$C" env $VARS > out.txt 2> err.txt
contains out.txt "GPUHIER_METRICS=smsp__warps_launched.sum"
contains out.txt "GPUHIER_RULE_METRICS=smsp__warps_launched.sum"
contains err.txt "==gpuhier== collecting smsp__warps_launched.sum for rule few-warps-launched (rules/few-warps-launched.rule:13): not in the metric catalogue"

# --metrics names come first and are not repeated; one the user gave is the user's (strict).
expect_rc 0 "$G" run -q --no-analyze --rules rules --metrics dram__bytes_read.sum,smsp__warps_launched.sum \
  "$C" env $VARS > out.txt 2> err.txt
contains out.txt "GPUHIER_METRICS=dram__bytes_read.sum,smsp__warps_launched.sum"
contains out.txt "GPUHIER_RULE_METRICS unset"
[ ! -s err.txt ] || fail "-q printed: $(cat err.txt)"

# A catalogue metric collected only when asked (no set): added, without the warning.
cat > rules/evict-first.rule <<'RULE'
id: evict-first
title: test rule
tier: l2
doc: none
rationale: reads the evict-first sectors when the report has them
requires: optional lts__t_sectors_srcunit_tex_evict_first.sum
query: SELECT config_id, 0 AS time_lost_ns FROM cfg WHERE 0
message: never
remedy: none
RULE
expect_rc 0 "$G" run --no-analyze --rules rules "$C" env $VARS > out.txt 2> err.txt
contains out.txt "GPUHIER_METRICS=lts__t_sectors_srcunit_tex_evict_first.sum,smsp__warps_launched.sum"
contains err.txt "collecting lts__t_sectors_srcunit_tex_evict_first.sum for rule evict-first (rules/evict-first.rule:6)"
lacks err.txt "evict-first.rule:6): not in the metric catalogue"

# A user rule that needs a SASS-patched metric: under user replay (the default) the range profiler
# reads it as 0 (docs/metrics.md), so it is not collected, and the run says why; --replay kernel
# collects it.
cat > rules/sass-user.rule <<'RULE'
id: sass-user
title: test rule
tier: l1
doc: none
rationale: reads a SASS-patched metric
requires: metric smsp__sass_inst_executed_op_shared_ld.sum
query: SELECT config_id, 0 AS time_lost_ns FROM cfg WHERE 0
message: never
remedy: none
RULE
expect_rc 0 "$G" run --no-analyze --rules rules "$C" env $VARS > out.txt 2> err.txt
lacks out.txt "smsp__sass_inst_executed_op_shared_ld.sum"
contains err.txt "==gpuhier== warning: rule sass-user (rules/sass-user.rule:6) asks for smsp__sass_inst_executed_op_shared_ld.sum, which the range profiler reads only under --replay kernel"
expect_rc 0 "$G" run --no-analyze --rules rules --replay kernel "$C" env $VARS > out.txt 2> err.txt
contains out.txt "smsp__sass_inst_executed_op_shared_ld.sum"
lacks err.txt "reads only under --replay kernel"
rm rules/sass-user.rule

# Trace mode collects no metric; --metric-set none exactly --metrics.
expect_rc 0 "$G" run -q --no-analyze --rules rules --mode trace "$C" env $VARS > out.txt
contains out.txt "GPUHIER_METRICS unset"
expect_rc 0 "$G" run -q --no-analyze --rules rules --metric-set none --metrics dram__bytes_read.sum \
  "$C" env $VARS > out.txt
contains out.txt "GPUHIER_METRICS=dram__bytes_read.sum"
contains out.txt "GPUHIER_RULE_METRICS unset"

# A broken rule directory does not stop the program: the run warns, and the analysis says why.
printf 'id: broken\n' > rules/broken.rule
expect_rc 0 "$G" run --no-analyze --rules rules "$C" env $VARS > out.txt 2> err.txt
contains err.txt "warning: cannot read the rules to collect their metrics"
contains out.txt "GPUHIER_METRICS unset"
echo "ok"
