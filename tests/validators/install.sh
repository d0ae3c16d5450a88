#!/bin/sh
# Install the validators the export tests use (ajv + ajv-draft-04 + ajv-formats for
# SARIF, markdownlint-cli for Markdown) from the committed lock file.
# Run by scripts/test; never at test run time. When npm or the registry
# is unreachable it says so and succeeds: the tests that need a
# validator then skip (exit 77) with a message naming this script.
set -u
cd "$(dirname "$0")" || exit 1
if ! command -v npm >/dev/null 2>&1; then
  echo "tests/validators: npm not found; SARIF/Markdown validation tests will skip" >&2
  exit 0
fi
if [ -d node_modules/ajv-draft-04 ] && [ -x node_modules/.bin/markdownlint ] &&
   [ node_modules/.package-lock.json -nt package-lock.json ]; then
  exit 0
fi
if ! npm ci --ignore-scripts --no-audit --no-fund --loglevel=error; then
  echo "tests/validators: npm ci failed; SARIF/Markdown validation tests will skip" >&2
fi
exit 0
