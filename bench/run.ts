// `npm run bench`: runs every bench/*.bench.ts in turn (or those named on the command line), each in
// its own process so one benchmark's stack cannot skew the next.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { requireProjectNode } from '../runtime/node-version';

requireProjectNode();

const wanted = process.argv.slice(2);
const files = readdirSync(__dirname)
  .filter((file) => file.endsWith('.bench.ts'))
  .filter((file) => wanted.length === 0 || wanted.some((name) => file.startsWith(name)))
  .sort();
// Each benchmark on this same Node (tsx's CLI run by it rather than by whatever `node` PATH finds).
const tsx = require.resolve('tsx/cli');
let failed = 0;
for (const file of files) {
  console.log(`\n== ${file}`);
  const result = spawnSync(process.execPath, [tsx, path.join(__dirname, file)], { stdio: 'inherit' });
  if (result.status !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
