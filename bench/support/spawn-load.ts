// Runs the HTTP load generator in a child process and returns its result.
import { execFile } from 'node:child_process';
import path from 'node:path';
import type { HttpLoadOptions, LoadResult } from './load';

export function spawnLoad(options: HttpLoadOptions): Promise<LoadResult> {
  const script = path.join(__dirname, 'http-load.ts');
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [require.resolve('tsx/cli'), script, JSON.stringify(options)],
      { maxBuffer: 1 << 20 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`${error.message}\n${stderr}`));
        resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as LoadResult);
      },
    );
  });
}
