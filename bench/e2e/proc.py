# SPDX-License-Identifier: MIT
"""Running a command for the bench scripts: output captured, time limit, log."""
import os
import signal
import subprocess
import time


def _kill_group(p):
    """Ends p's whole process group: a profiler killed alone leaves its
    target running with the counters held (CUPTI_ERROR_HARDWARE_BUSY for
    whatever profiles next)."""
    for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            return
        try:
            p.wait(wait)
            # the leader is gone; others of its group may not be
        except subprocess.TimeoutExpired:
            continue


def run_group(cmd, timeout, env=None):
    """Run cmd in its own session with stdout and stderr together. After
    timeout seconds its whole process group is ended (rc 124, like
    timeout(1)); rc 127 when it cannot start. Returns (rc, output bytes)."""
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             env=env, start_new_session=True)
    except OSError as e:
        return 127, str(e).encode()
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out
    except subprocess.TimeoutExpired:
        _kill_group(p)
        try:
            os.killpg(p.pid, signal.SIGKILL)   # what outlived its leader
        except ProcessLookupError:
            pass
        out, _ = p.communicate()
        return 124, out + b"\n[timed out]"


def run(cmd, timeout, log=None, env=None, keep=None):
    """run_group with a log: appends the command, its output (the last
    `keep` characters when given) and rc to `log` when given.
    Returns (rc, output, seconds)."""
    t0 = time.time()
    rc, out = run_group(cmd, timeout, env)
    out = out.decode(errors="replace")
    dt = time.time() - t0
    if log:
        with open(log, "a") as f:
            f.write("$ %s\n%s\n[rc %d, %.1f s]\n\n" % (" ".join(cmd), out[-keep:] if keep else out, rc, dt))
    return rc, out, dt
