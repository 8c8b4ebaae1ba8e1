// Runs the rotating-body load generator in a child process and returns its result.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LoadResult, RotatingLoadOptions } from './load';

export function spawnRotating(options: RotatingLoadOptions): Promise<LoadResult> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-load-'));
  const file = path.join(dir, 'options.json');
  writeFileSync(file, JSON.stringify(options));
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [require.resolve('tsx/cli'), path.join(__dirname, 'rotating-load.ts'), file],
      { maxBuffer: 1 << 20 },
      (error, stdout, stderr) => {
        rmSync(dir, { recursive: true, force: true });
        if (error) return reject(new Error(`${error.message}\n${stderr}`));
        resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as LoadResult);
      },
    );
  });
}
