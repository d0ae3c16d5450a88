#!/bin/sh
# `cmake --install` with DESTDIR gives a working gpuhier: bin/gpuhier, the
# collector in lib/gpuhier/, share/gpuhier/{rules,demo}, the man pages,
# the Markdown pages and the bash completion; run from another directory
# it finds its rules, demo and collector relative to its own executable,
# and keeps doing so when the installed tree is moved elsewhere.
. "$(dirname "$0")/t4-cli-lib.sh"
B=${GPUHIER_BINARY_DIR:?}
unset GPUHIER_DATA_DIR GPUHIER_RULES_DIR GPUHIER_COLLECTOR
command -v cmake > /dev/null 2>&1 || { echo "skipped: no cmake"; exit 77; }
DESTDIR=$T/root cmake --install "$B" --prefix /opt/gh > install.log 2>&1 || { cat install.log >&3; fail "cmake --install"; }
P=$T/root/opt/gh
for f in bin/gpuhier lib/gpuhier/libgpuhier-collector.so share/gpuhier/rules/floor-distance.rule \
         share/gpuhier/demo/demo.db share/gpuhier/demo/PROVENANCE.md share/man/man1/gpuhier.1 \
         share/man/man1/gpuhier-run.1 share/doc/gpuhier/cmd-run.md \
         share/bash-completion/completions/gpuhier; do
  [ -e "$P/$f" ] || fail "not installed: $f"
done
for c in analyze check demo diff doctor export report rules run tui; do
  [ -f "$P/share/man/man1/gpuhier-$c.1" ] || fail "no installed man page for $c"
done

# check PREFIX: the installed gpuhier, run from an unrelated directory.
check() {
  pre=$1
  mkdir -p "$T/elsewhere" && cd "$T/elsewhere"
  "$pre/bin/gpuhier" rules > rules.txt || fail "rules"
  contains rules.txt "rules in $pre/bin/../share/gpuhier/rules"
  contains rules.txt "floor-distance"
  [ "$("$pre/bin/gpuhier" demo --path)" = "$pre/bin/../share/gpuhier/demo/demo.db" ] ||
    fail "demo --path: $("$pre/bin/gpuhier" demo --path)"
  "$pre/bin/gpuhier" demo --report > demo.txt || fail "demo --report"
  contains demo.txt "H200"
  "$pre/bin/gpuhier" demo --report --view findings > findings.txt || fail "demo --report --view findings"
  [ "$(wc -l < findings.txt)" -gt 2 ] || fail "the installed demo has no findings"
  "$pre/bin/gpuhier" run --help > run.txt || fail "run --help"
  contains run.txt "usage: gpuhier run"
  # The collector gpuhier run would inject (doctor says which; it exits 7 without a GPU).
  set +e; GPUHIER_CUDA_PATH=/nonexistent "$pre/bin/gpuhier" doctor > doctor.txt; set -e
  contains doctor.txt "collector $pre/lib/gpuhier/libgpuhier-collector.so"
  # help without man: the installed Markdown page.
  mkdir -p nobin
  PATH=$T/elsewhere/nobin "$pre/bin/gpuhier" help diff > help.txt || fail "help diff"
  contains help.txt "# gpuhier diff"
  # Nothing was written beside the demo.
  [ -z "$(ls "$pre/share/gpuhier/demo" | grep -v '\.db$' | grep -v '^PROVENANCE.md$')" ] ||
    fail "files appeared in the installed demo directory: $(ls "$pre/share/gpuhier/demo")"
  cd "$T"
}
check "$P"
if command -v man > /dev/null 2>&1; then
  LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$P/share/man/man1/gpuhier-run.1" > man.txt 2> man.err || { cat man.err >&3; fail "man -l"; }
  contains man.txt "gpuhier-run - profile a program"
  contains man.txt "--profile-budget"
  MANPATH=$P/share/man LC_ALL=C.UTF-8 man gpuhier > man.txt 2> man.err || { cat man.err >&3; fail "man gpuhier"; }
  contains man.txt "gpuhier-report(1)"
fi
# Relocated: the same tree under another prefix still finds its own files.
mv "$T/root/opt/gh" "$T/moved"
check "$T/moved"
echo "t409: ok"
