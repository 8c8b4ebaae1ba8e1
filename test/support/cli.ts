// Builds the `gateway` command-line client as `npm run build:cli` does (document, generated types,
// tsc) into a directory of this test process, and runs it as a child process with its own config dir.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Cli {
  /** The built entry point (dist-like directory of this process). */
  main: string;
  /** A config dir of its own, as `$XDG_CONFIG_HOME`. */
  configHome: string;
  run(
    args: string[],
    options?: { env?: Record<string, string | undefined>; stdin?: string },
  ): Promise<CliRun>;
  spawn(args: string[], options?: { env?: Record<string, string | undefined> }): ChildProcess;
  cleanup(): void;
}

export function buildCli(baseEnv: Record<string, string | undefined> = {}): Cli {
  // Inside the checkout, so the built files resolve commander and openapi-fetch from node_modules.
  const outDir = join(ROOT, 'dist', `cli-test-${process.pid}`);
  execFileSync(
    process.execPath,
    [require.resolve('tsx/cli'), join(ROOT, 'cli', 'build', 'write-openapi.ts')],
    { cwd: ROOT, stdio: 'pipe' },
  );
  execFileSync(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '-p', join(ROOT, 'cli', 'tsconfig.json'), '--outDir', outDir],
    {
      cwd: ROOT,
      stdio: 'pipe',
    },
  );
  const configHome = mkdtempSync(join(tmpdir(), 'gateway-cli-config-'));
  const main = join(outDir, 'cli', 'main.js');
  const environment = (extra: Record<string, string | undefined> = {}) => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries({
      PATH: process.env.PATH,
      HOME: configHome,
      XDG_CONFIG_HOME: configHome,
      ...baseEnv,
      ...extra,
    }))
      if (v !== undefined) env[k] = v;
    return env;
  };
  const start = (args: string[], env?: Record<string, string | undefined>) =>
    spawn(process.execPath, [main, ...args], {
      cwd: ROOT,
      env: environment(env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
  return {
    main,
    configHome,
    spawn: (args, options = {}) => start(args, options.env),
    run: (args, options = {}) =>
      new Promise((resolve, reject) => {
        const child = start(args, options.env);
        let stdout = '';
        let stderr = '';
        child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
        child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
        child.stdin!.end(options.stdin ?? '');
      }),
    cleanup: () => {
      rmSync(outDir, { recursive: true, force: true });
      rmSync(configHome, { recursive: true, force: true });
    },
  };
}

/** Resolves with the first line of a child's stream that matches, while it keeps running. */
export function waitForLine(stream: NodeJS.ReadableStream, pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const onData = (chunk: Buffer | string) => {
      buffer += chunk.toString();
      const match = buffer.match(pattern);
      if (match) {
        stream.off('data', onData);
        resolve(match);
      }
    };
    stream.on('data', onData);
    stream.on('end', () => reject(new Error(`stream ended before ${pattern}: ${buffer}`)));
  });
}
