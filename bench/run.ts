// `npm run bench`: runs every bench/*.bench.ts in turn (or those named on the command line), each in
// its own process so one benchmark's stack cannot skew the next.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

const wanted = process.argv.slice(2);
const files = readdirSync(__dirname)
  .filter((file) => file.endsWith('.bench.ts'))
  .filter((file) => wanted.length === 0 || wanted.some((name) => file.startsWith(name)))
  .sort();
const tsx = path.join(__dirname, '..', 'node_modules', '.bin', 'tsx');
let failed = 0;
for (const file of files) {
  console.log(`\n== ${file}`);
  const result = spawnSync(tsx, [path.join(__dirname, file)], { stdio: 'inherit' });
  if (result.status !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
