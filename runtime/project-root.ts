// The repository root, found from this file whether it runs from source (tsx) or compiled (dist/),
// so migrations, the prebuilt bundle and local state resolve the same way in both.
import { existsSync } from 'node:fs';
import path from 'node:path';

function findRoot(start: string): string {
  let dir = start;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) return path.join(start, '..');
    dir = parent;
  }
  return dir;
}

export const PROJECT_ROOT = findRoot(__dirname);
