# SPDX-License-Identifier: MIT
"""proc.run ends a timed-out command's whole process group: a profiler
killed alone left its target holding the counters (device call of
2026-11-29 20:58 UTC: every step after ncu's timeout got
CUPTI_ERROR_HARDWARE_BUSY)."""
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import proc  # noqa: E402


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie of ours counts as gone
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def main():
    fails = 0
    with tempfile.TemporaryDirectory() as d:
        pidfile = os.path.join(d, "pid")
        # the child starts a grandchild that ignores SIGTERM, as a profiled program may
        script = "sh -c 'trap \"\" TERM; echo $$ > %s; exec sleep 60' & wait" % pidfile
        rc, out, dt = proc.run(["sh", "-c", script], 1.0)
        with open(pidfile) as f:
            grandchild = int(f.read())
        time.sleep(0.2)
        for ok, what in ((rc == 124, "rc %d, want 124" % rc),
                         ("[timed out]" in out, "output says it timed out"),
                         (dt < 20, "ended in %.1f s" % dt),
                         (not alive(grandchild), "grandchild %d ended" % grandchild)):
            print(("ok   " if ok else "FAIL ") + what)
            fails += not ok
    for cmd, want in ((["sh", "-c", "echo hi; exit 3"], 3), (["/nonexistent/program"], 127)):
        rc, out, _ = proc.run(cmd, 5)
        print(("ok   " if rc == want else "FAIL ") + "%s: rc %d, want %d" % (cmd[0], rc, want))
        fails += rc != want
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
