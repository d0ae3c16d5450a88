# SPDX-License-Identifier: MIT
"""Running a command for the e2e scripts: output captured, time limit, log."""
import subprocess
import time


def run(cmd, timeout, log=None, env=None, keep=None):
    """Run cmd with stdout and stderr together; give up after timeout seconds
    (rc 124, like timeout(1)); rc 127 when it cannot start. Appends the command,
    its output (the last `keep` characters when given) and rc to `log` when given.
    Returns (rc, output, seconds)."""
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout, env=env)
        out, rc = p.stdout.decode(errors="replace"), p.returncode
    except subprocess.TimeoutExpired as e:
        out, rc = (e.stdout or b"").decode(errors="replace") + "\n[timed out]", 124
    except OSError as e:
        out, rc = str(e), 127
    dt = time.time() - t0
    if log:
        with open(log, "a") as f:
            f.write("$ %s\n%s\n[rc %d, %.1f s]\n\n" % (" ".join(cmd), out[-keep:] if keep else out, rc, dt))
    return rc, out, dt
