# The tagged findings (ranks 1 and 2) went out through export_write().
set -eu
test -s out.json
python3 -c 'import json,sys; d=json.load(open("out.json")); s=json.dumps(d); assert "uncoalesced-global-load" in s or "rank" in s, s[:300]' 2>/dev/null ||
  grep -q 'uncoalesced-global-load' out.json
test -s gpuhier-findings.md
! test -e bad.out
