#!/usr/bin/env node
// The package's `gateway` bin. An installed package (`npm pack`) runs the compiled client in dist/cli/;
// a checkout runs the TypeScript sources through tsx, so `npx gateway` works straight after `npm ci`
// with no build step and never runs a stale build. There the OpenAPI document the commands come from
// is (re)written, as `npm run build:cli` writes it, when missing or older than the sources it is built from.
'use strict';
const { execFileSync } = require('node:child_process');
const { existsSync, readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const source = join(root, 'cli', 'main.ts');
const document = join(root, 'cli', 'generated', 'openapi.json');
// The route declarations and schemas the document is built from (cli/build/document.ts).
const documentSources = ['api', 'schema', 'domain', 'cli/build'];

function newestChange(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const changed = entry.isDirectory() ? newestChange(path) : statSync(path).mtimeMs;
    if (changed > newest) newest = changed;
  }
  return newest;
}

function documentIsCurrent() {
  if (!existsSync(document)) return false;
  const written = statSync(document).mtimeMs;
  return documentSources.every((dir) => newestChange(join(root, dir)) <= written);
}

function load() {
  if (!existsSync(source)) return require(join(root, 'dist', 'cli', 'main.js'));
  if (!documentIsCurrent()) {
    execFileSync(
      process.execPath,
      [require.resolve('tsx/cli'), join(root, 'cli', 'build', 'write-openapi.ts')],
      {
        cwd: root,
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
  }
  require('tsx/cjs/api').register();
  return require(source);
}

load().run();
