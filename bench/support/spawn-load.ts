// Runs the HTTP load generator in a child process and returns its result.
import { execFile } from 'node:child_process';
import path from 'node:path';
import type { LoadResult } from './load';

export function spawnLoad(options: {
  label: string;
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  total: number;
  concurrency: number;
  warmup?: number;
}): Promise<LoadResult> {
  const script = path.join(__dirname, 'http-load.ts');
  const tsx = path.join(__dirname, '..', '..', 'node_modules', '.bin', 'tsx');
  return new Promise((resolve, reject) => {
    execFile(tsx, [script, JSON.stringify(options)], { maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`${error.message}\n${stderr}`));
      resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as LoadResult);
    });
  });
}
