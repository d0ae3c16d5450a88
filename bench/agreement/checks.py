# SPDX-License-Identifier: MIT
"""The agreement tests' assertion: check() prints FAIL and the reason and
remembers it; done(name) prints the verdict and returns the exit status."""
failed = 0


def check(cond, what):
    global failed
    if not cond:
        print("FAIL", what)
        failed = 1


def done(name):
    print("%s: %s" % (name, "FAIL" if failed else "ok"))
    return failed
