# SPDX-License-Identifier: MIT
"""The agreement tests' assertion: check() prints FAIL and the reason and
remembers it; done(name) prints the verdict and returns the exit status.
check_reuse() checks a counting benchmark's --reuse (benchlib.runs_table())."""
failed = 0


def check(cond, what):
    global failed
    if not cond:
        print("FAIL", what)
        failed = 1


def done(name):
    print("%s: %s" % (name, "FAIL" if failed else "ok"))
    return failed


def check_reuse(main, script, runs, md):
    """main(argv) of a counting benchmark (inst_hang.py, graph_arming.py: `script`), given
    --reuse of a JSON file holding `runs`: it prints the table again and writes OUT/`md`."""
    import io
    import json
    import os
    import tempfile
    from contextlib import redirect_stdout
    tmp = tempfile.mkdtemp()
    src = os.path.join(tmp, "in.json")
    with open(src, "w") as f:
        json.dump({"header": ["- synthetic"], "runs": runs}, f)
    buf = io.StringIO()
    with redirect_stdout(buf):
        rc = main([script, "--reuse", src, "--out", os.path.join(tmp, "o")])
    check(rc == 0 and "recomputed from" in buf.getvalue(), "--reuse prints the table again")
    check(os.path.exists(os.path.join(tmp, "o", md)), "--reuse writes %s" % md)
