# SPDX-License-Identifier: MIT
"""The readers of bench/e2e/pytorch_vs_ncu.py on a synthetic ncu details CSV
(written here, shaped like ncu 2025.3's `--page details --csv`): launch IDs,
grid and block per launch, rule rows tied to their launch, and the pairing of
latency-not-hidden by its cause."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pytorch_vs_ncu as p  # noqa: E402

HDR = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
       '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value","Rule Name","Rule Type",'
       '"Rule Description","Estimated Speedup Type","Estimated Speedup"')


def row(i, kernel, block, grid, metric="", value="", rule="", rtype="", desc="", speed=""):
    cells = [str(i), "610", "python3.12", "127.0.0.1", kernel, "1", "7", block, grid, "0", "9.0", "S", metric, "",
             value, rule, rtype, desc, "", speed]
    return ",".join('"%s"' % c for c in cells)


CSV = "\n".join([
    "==PROF== Connected to process 610",
    HDR,
    row(3, "_Z4copyPf", "(128, 1, 1)", "(8192, 1, 1)", "Achieved Occupancy", "84.1"),
    row(3, "_Z4copyPf", "(128, 1, 1)", "(8192, 1, 1)", rule="AchievedOccupancy", rtype="OPT",
        desc="The difference between calculated theoretical (100.0%) and measured achieved occupancy", speed="15.6"),
    row(9, "_Z4copyPf", "(128, 1, 1)", "(8192, 1, 1)", rule="UncoalescedGlobalAccess", rtype="OPT",
        desc="This kernel has uncoalesced global accesses", speed="80.9"),
    row(12, "_Z4copyPf", "(128, 1, 1)", "(32, 1, 1)", "Achieved Occupancy", "6.2"),
    "",
])


def main():
    fails = 0

    def check(ok, what):
        nonlocal fails
        print(("ok   " if ok else "FAIL ") + what)
        fails += not ok

    launches = p.ncu_launches(CSV)
    check(sorted(launches) == [3, 9, 12], "three launches by ID: %s" % sorted(launches))
    check(launches.get(3) == ("_Z4copyPf", (8192, 1, 1), (128, 1, 1)), "launch 3's kernel, grid, block")
    check(launches.get(12, (None, None))[1] == (32, 1, 1), "launch 12's grid")
    rules = p.ncu_rules(CSV)
    check([(r["id"], r["rule"], r["type"]) for r in rules] ==
          [(3, "AchievedOccupancy", "OPT"), (9, "UncoalescedGlobalAccess", "OPT")], "rule rows tied to launches")
    # The first launch of configuration <<<8192>>> x 128 is 3: its rules only (9 is a later launch).
    first = min(i for i, (k, g, b) in launches.items() if g == (8192, 1, 1) and b == (128, 1, 1))
    check(first == 3 and [r["rule"] for r in rules if r["id"] == first] == ["AchievedOccupancy"],
          "the configuration's first launch carries AchievedOccupancy only")
    check(p.dims("(8192, 1, 1)") == (8192, 1, 1) and p.dims("n/a") is None, "dims")

    def lat(cause):
        return {"rule_id": "latency-not-hidden", "evidence": [{"name": "cause", "text_value": cause}]}
    check(p.judges(lat("achieved occupancy far below theoretical"), "AchievedOccupancy"), "occupancy cause")
    check(not p.judges(lat("achieved occupancy far below theoretical"), "LaunchConfiguration"),
          "occupancy cause is not a launch-configuration finding")
    check(p.judges(lat("grid smaller than the SM count"), "LaunchConfiguration")
          and p.judges(lat("partial last wave"), "LaunchConfiguration"), "grid and wave causes")
    check(not p.judges(lat("partial last wave"), "AchievedOccupancy"), "wave cause is not an occupancy finding")
    both = lat("achieved occupancy far below theoretical")
    both["evidence"].append({"name": "also", "text_value": "grid smaller than the SM count"})
    check(p.judges(both, "LaunchConfiguration") and p.judges(both, "AchievedOccupancy"),
          "a finding naming two causes judges both")
    check(p.judges({"rule_id": "block-shape"}, "LaunchConfiguration"), "other rules pair by name")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
