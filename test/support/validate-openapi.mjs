// Validates an OpenAPI document with an independent OpenAPI 3.1 validator (ESM-only, hence a child
// process). Usage: node validate-openapi.mjs <file>; prints {valid, errors} as JSON.
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';

const validator = new Validator();
const document = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const result = await validator.validate(document);
process.stdout.write(
  JSON.stringify({ valid: result.valid, version: validator.version, errors: result.errors ?? null }),
);
