#!/bin/sh
# gpuhier export on a SYNTHETIC report full of hostile names: every
# format, every output path (stdout, -o FILE, -o DIR/), exit codes, no
# raw control bytes, secrets redacted, and the report never modified.
. "$(dirname "$0")/t45-export-lib.sh"
"$MK" --make-report nasty.db nasty || exit 1
"$MK" --make-report empty.db empty || exit 1
sum0=$(cksum <nasty.db)
for f in md json csv sarif junit html; do
    expect_rc 0 "$G" export nasty.db --raw --format "$f" -o "out.$f"
    mode=; [ "$f" = csv ] && mode=crlf
    n=$(raw_controls "out.$f" $mode)
    [ "$n" = 0 ] || bad "$f: $n raw control bytes"
    grep -q 'ghp_abcdefghij\|hunter2hunter2\|pa55w0rdURL\|s3cr3t-env-value\|secret-home' "out.$f" && bad "$f: a secret leaked"
    expect_rc 0 "$G" export empty.db --raw --format "$f" -o "empty.$f"
done
# JUnit is well-formed XML (schema validation is t451's job).
if command -v xmllint >/dev/null; then
    xmllint --noout out.junit empty.junit || bad "junit is not well-formed"
fi
# Tickets on stdout are separated by the marker; -o DIR/ writes one file each.
# By default only findings of warning or worse become tickets (docs/severity.md): 4 of 5.
"$G" export nasty.db --raw >default.md || bad "export to stdout"
[ "$(grep -c '^<!-- gpuhier:ticket -->$' default.md)" = 3 ] || bad "want 3 separators between 4 default tickets"
"$G" export nasty.db --raw --all >stdout.md || bad "export --all to stdout"
[ "$(grep -c '^<!-- gpuhier:ticket -->$' stdout.md)" = 4 ] || bad "want 4 separators between 5 tickets"
expect_rc 0 "$G" export nasty.db --raw --all -o tickets/
[ "$(ls tickets | wc -l)" = 5 ] || bad "want 5 ticket files, got $(ls tickets | wc -l)"
[ "$(wc -l <rc.out)" = 5 ] || bad "-o DIR/ lists the files it wrote"
expect_rc 0 "$G" export nasty.db --raw --one -o one.md
[ "$(grep -c '^# ' one.md)" = 1 ] || bad "--one: one top-level heading"
# Filters.
"$G" export nasty.db --raw --format csv --rule uncoalesced-global-load >r.csv
[ "$(wc -l <r.csv)" = 3 ] || bad "--rule: want header + 2 rows"
"$G" export nasty.db --raw --format csv --kernel '^transpose' --min-severity error >k.csv
[ "$(wc -l <k.csv)" = 2 ] || bad "--kernel + --min-severity: want header + 1 row"
"$G" export nasty.db --raw --format csv --top 3 >t.csv
[ "$(wc -l <t.csv)" = 4 ] || bad "--top 3: want header + 3 rows"
# --no-redact keeps the command line as recorded (the allowlist still holds).
"$G" export nasty.db --raw --format json --no-redact >nr.json
grep -q hunter2hunter2 nr.json || bad "--no-redact lost the password argument"
grep -q secret-home nr.json && bad "--no-redact leaked a variable outside the allowlist"
# Regression: -o on a special file (FIFO, /dev/null) writes into it and
# never renames a temporary file over it (that replaced /dev/null as root).
mkfifo fifo
cat fifo >fifo.out &
reader=$!
expect_rc 0 "$G" export nasty.db --raw --format csv -o fifo
wait $reader
[ -p fifo ] || bad "-o FIFO: the FIFO was replaced by a regular file"
[ "$(wc -l <fifo.out)" -ge 2 ] || bad "-o FIFO: nothing arrived through it"
ls fifo.tmp.* >/dev/null 2>&1 && bad "-o FIFO: a temporary file was left"
# Errors and exit codes (docs/exit-codes.md).
expect_rc 6 "$G" export nasty.db --raw --format json -o out.json
expect_rc 0 "$G" export nasty.db --raw --format json -o out.json -f
expect_rc 2 "$G" export nasty.db --raw --format pdf
expect_rc 2 "$G" export nasty.db --raw --min-severity fatal
expect_rc 2 "$G" export nasty.db --raw --top 0
expect_rc 2 "$G" export nasty.db --raw --bogus
expect_rc 2 "$G" export
expect_rc 3 "$G" export missing.db --raw
expect_rc 2 "$G" export nasty.db --raw --kernel '(unclosed'
if [ -w /dev/full ]; then
    "$G" export nasty.db --raw --format sarif >/dev/full 2>/dev/null
    [ $? = 6 ] || bad "a full disk on standard output is not exit 6"
fi
# Readers never write: same bytes, and a read-only report in a read-only directory works.
[ "$(cksum <nasty.db)" = "$sum0" ] || bad "export modified the report"
mkdir ro && cp nasty.db ro/ && chmod 444 ro/nasty.db && chmod 555 ro
expect_rc 0 "$G" export ro/nasty.db --raw --format sarif -o ro.sarif
ls ro | grep -qv '^nasty.db$' && bad "export left files beside a read-only report"
# A kernel with no traced time (its launches ran instrumented): the page says so, never "0 ns" or "unknown".
cp nasty.db untimed.db
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("UPDATE kernel_summary SET total_ns = 0, mean_ns = NULL"); c.commit()' untimed.db
# The roofline's tooltips on a recorded report: each number in its place (the grid and block were
# printed as the warp instructions per second and the floor ratio, buffers reused in one call),
# no double space after a count without a unit prefix ("420  warp instructions").
if [ -f "$SRC/demo/demo.db" ]; then
    cp "$SRC/demo/demo.db" demo.db && chmod u+w demo.db
    expect_rc 0 "$G" export demo.db --format html -o demo.html
    grep -q 'per DRAM byte, [0-9.]* \([kMGTPE] \)\{0,1\}warp inst/s; bound by [a-z0-9]*; [0-9.]*\(×\|&#215;\) its floor' demo.html ||
        bad "html: a roofline tooltip's numbers out of place: $(grep -o '[^;]*warp inst/s; [^<]*' demo.html | head -1)"
    grep -q 'x1 warp inst/s\|x1\(×\|&#215;\) its floor' demo.html && bad "html: a grid or block as a roofline tooltip's number"
    grep -q '[0-9]  warp instructions' demo.html && bad "html: a double space before warp instructions"
    # the copies timeline's bars: a span and where it starts, not "from 7.63 s to 7.63 s" (both ends
    # in 3 significant digits read the same)
    grep -qE 'from ([0-9.]+ [mµn]?s) to \1<' demo.html && bad "html: a copy bar from one time to the same: $(grep -oE 'operations?, [^<]*from ([0-9.]+ [mµn]?s) to \1<' demo.html | head -1)"
    grep -qE '<title>[0-9]+ operations, [^<]* within [^<]* from [0-9.]+ [mµn]?s</title>' demo.html || bad "html: no merged copy bar says its span"
    # A pipe tick needs every pipe's counter: with only the tensor pipe's (0.0003 %, a group with it
    # alone) the tick of an FFMA kernel stood 300,000x above its circle and the y axis ran to 1 P.
    cp demo.db pipe.db
    python3 -c 'import sqlite3, sys; c = sqlite3.connect("pipe.db"); c.executescript(sys.argv[1]); c.commit()' "
      INSERT INTO metric_name (name) VALUES ('sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed');
      INSERT INTO metric (launch_id, metric_id, value) SELECT 2, id, 0.0003 FROM metric_name
        WHERE name = 'sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed';" || bad "pipe.db"
    expect_rc 0 "$G" export pipe.db --format html -o pipe.html
    grep -q 'pipe at [0-9.]* %' pipe.html && bad "html: a pipe tick from one pipe's counter: $(grep -o '[a-z0-9]* pipe at [^<]*' pipe.html | head -1)"
    [ "$(grep -oE '<text[^>]*>[0-9.]+ [kMGTPE]</text>' pipe.html | tail -1)" = "$(grep -oE '<text[^>]*>[0-9.]+ [kMGTPE]</text>' demo.html | tail -1)" ] ||
        bad "html: the roofline's y axis changed with a tensor-pipe counter alone"
fi
expect_rc 0 "$G" export untimed.db --raw --format html -o untimed.html
grep -q 'no traced time over [0-9]* launch' untimed.html || bad "html: an untimed kernel's summary"
grep -q '</code> \(—\|&#8212;\) \(0 ns\|unknown\) over' untimed.html && bad "html: an untimed kernel reads 0 ns or unknown"
[ $fail = 0 ] && echo "t450: export formats ok"
exit $fail
