#!/usr/bin/env node
// Validate SARIF logs against the OASIS SARIF 2.1.0 JSON schema.
// The schema declares JSON Schema draft-04, which plain ajv 8 (and so
// ajv-cli) no longer speaks: ajv-draft-04 does, with ajv-formats for
// "uri", "uri-reference" and "date-time".
//   node validate-sarif.cjs SCHEMA.json FILE.sarif...
// Exit 0 when every file validates, 1 otherwise (errors on stderr).
'use strict';
const fs = require('fs');
const Ajv = require('ajv-draft-04');
const addFormats = require('ajv-formats');

const [schemaPath, ...files] = process.argv.slice(2);
if (!schemaPath || files.length === 0) {
  console.error('usage: validate-sarif.cjs SCHEMA.json FILE.sarif...');
  process.exit(2);
}
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const validate = ajv.compile(JSON.parse(fs.readFileSync(schemaPath, 'utf8')));
let bad = 0;
for (const f of files) {
  if (validate(JSON.parse(fs.readFileSync(f, 'utf8')))) {
    console.log(`${f} valid`);
  } else {
    bad = 1;
    console.error(`${f} invalid:`);
    for (const e of validate.errors.slice(0, 20))
      console.error(`  ${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
  }
}
process.exit(bad);
