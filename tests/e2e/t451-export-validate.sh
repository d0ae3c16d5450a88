#!/bin/sh
# Exports validated against the real schemas: SARIF against the OASIS
# SARIF 2.1.0 JSON schema (ajv with draft-04 + formats), JUnit against
# Jenkins' junit-10.xsd (xmllint --schema), Markdown tickets with
# markdownlint. Schemas come from ../shared/schemas beside the source
# tree; validators from tests/validators/install.sh. Skips (77) when
# either is missing.
. "$(dirname "$0")/t45-export-lib.sh"
schemas=$SRC/../shared/schemas
val=$SRC/tests/validators
if [ ! -f "$schemas/sarif-schema-2.1.0.json" ] || [ ! -f "$schemas/junit-10.xsd" ]; then
    echo "skipped: $schemas/{sarif-schema-2.1.0.json,junit-10.xsd} not found (the shared schemas folder is absent)"
    exit 77
fi
if ! command -v node >/dev/null || [ ! -d "$val/node_modules/ajv-draft-04" ] ||
   [ ! -x "$val/node_modules/.bin/markdownlint" ] || ! command -v xmllint >/dev/null; then
    echo "skipped: validators not installed (run tests/validators/install.sh; needs node, npm and xmllint)"
    exit 77
fi
"$MK" --make-report nasty.db nasty || exit 1
"$MK" --make-report empty.db empty || exit 1
"$MK" --make-report after.db after || exit 1
for r in nasty empty after; do
    "$G" export $r.db --raw --format sarif -o $r.sarif || bad "$r: sarif export"
    "$G" export $r.db --raw --format junit -o $r.xml || bad "$r: junit export"
    "$G" export $r.db --raw --format junit --min-severity note -o $r-note.xml || bad "$r: junit export"
    "$G" export $r.db --raw -o $r-tickets/ >/dev/null || bad "$r: md export"
    "$G" export $r.db --raw --one -o $r-one.md || bad "$r: md --one export"
done
node "$val/validate-sarif.cjs" "$schemas/sarif-schema-2.1.0.json" nasty.sarif empty.sarif after.sarif ||
    bad "SARIF does not validate"
xmllint --noout --schema "$schemas/junit-10.xsd" nasty.xml empty.xml after.xml nasty-note.xml empty-note.xml after-note.xml ||
    bad "JUnit does not validate"
"$val/node_modules/.bin/markdownlint" -c "$val/markdownlint.json" nasty-tickets/*.md after-tickets/*.md \
    nasty-one.md empty-one.md after-one.md || bad "Markdown does not lint"
[ $fail = 0 ] && echo "t451: SARIF, JUnit and Markdown validate"
exit $fail
