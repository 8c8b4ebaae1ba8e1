// The project's Node: npm scripts and npx run on the Node 24 that npm ci puts in node_modules/.bin, and
// the dev stack, cluster, benchmarks and test setup refuse an older one in one line.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { nodeVersionProblem } from '../../runtime/node-version';

const ROOT = path.join(__dirname, '..', '..');
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

it('runs the tests, and the tsx children they start, on the Node that engines names', () => {
  expect(manifest.engines.node).toBe('>=24');
  expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(24);
  const child = execFileSync(
    process.execPath,
    [require.resolve('tsx/cli'), '-e', 'console.log(process.version)'],
    {
      encoding: 'utf8',
    },
  );
  expect(child.trim()).toBe(`v${process.versions.node}`);
});

it('installs that Node with the packages, as the node on npm scripts’ PATH', () => {
  const binary = path.join(ROOT, 'node_modules', '.bin', 'node');
  const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
  expect(version).toMatch(/^v24\./);
});

it('names an older Node and the way to the project’s, and accepts the same major or newer', () => {
  expect(nodeVersionProblem('20.20.2', 24)).toBe(
    'Node 20.20.2 runs this, the project needs Node 24: run it through npm (npm run dev, npm test, npx …), ' +
      'which finds the Node 24 that npm ci puts in node_modules/.bin (run npm ci if node_modules/.bin/node is missing)',
  );
  expect(nodeVersionProblem('23.11.1', 24)).toMatch(/^Node 23\.11\.1 runs this/);
  expect(nodeVersionProblem('24.0.0', 24)).toBeUndefined();
  expect(nodeVersionProblem('26.10.0', 24)).toBeUndefined();
  expect(nodeVersionProblem('20.20.2')).toMatch(/needs Node 24/);
});
