# SPDX-License-Identifier: MIT
"""bench/benchlib.py: what the bench scripts print about where they ran."""
import os
import subprocess


def gpu_name():
    """'NAME, DRIVER' of the GPU as nvidia-smi says it, or why not."""
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "no nvidia-smi"


def stage_commit(stage):
    """The commit scripts/stage.sh recorded in STAGE/COMMIT, or '?'."""
    try:
        with open(os.path.join(stage, "COMMIT")) as f:
            return f.read().strip()
    except OSError:
        return "?"
