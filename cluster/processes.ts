// The gateway's own processes in a cluster: each API and each worker is a separate Node process
// running the production entry points (api/server.ts, worker/main.ts) through tsx, with its output in a
// log file of its own, and helpers to wait for readiness and to stop a child.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../runtime/project-root';

export type GatewayProcessKind = 'api' | 'worker';

export interface GatewayProcess {
  kind: GatewayProcessKind;
  name: string;
  pid: number;
  logFile: string;
  /** The API's own address (the shared port's proxy forwards to it); undefined for workers. */
  url: string | undefined;
  stop(): Promise<void>;
}

const ENTRY: Record<GatewayProcessKind, string> = {
  api: path.join(PROJECT_ROOT, 'api', 'server.ts'),
  worker: path.join(PROJECT_ROOT, 'worker', 'main.ts'),
};
// The line each entry point writes once it serves (api/server.ts) or polls (worker/main.ts).
const READY: Record<GatewayProcessKind, RegExp> = {
  api: /gateway api listening on (\S+)/,
  worker: /gateway worker polling/,
};

/** Thrown by a readiness check that can never succeed (the process exited): waitFor gives up at once. */
export class GaveUp extends Error {}

export async function waitFor(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      if (await check()) return;
    } catch (error) {
      if (error instanceof GaveUp) throw error;
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${what} not ready within ${timeoutMs / 1000} s${lastError ? `: ${(lastError as Error).message}` : ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export function stopChild(child: ChildProcess, graceMs = 20_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Starts one API or worker process with `env` on top of this process's environment; resolves once it is ready. */
export async function startGatewayProcess(
  kind: GatewayProcessKind,
  name: string,
  env: NodeJS.ProcessEnv,
  logDir: string,
): Promise<GatewayProcess> {
  mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, `${name}.log`);
  const logStream = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(process.execPath, ['--import', 'tsx', ENTRY[kind]], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.pipe(logStream, { end: false });
  child.stderr.pipe(logStream, { end: false });
  child.once('exit', () => logStream.end());
  const url = await new Promise<string | undefined>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(
      () => reject(new Error(`${name} did not start within 180 s; see ${logFile}`)),
      180_000,
    );
    const onData = (chunk: Buffer) => {
      seen = (seen + chunk.toString('utf8')).slice(-4096);
      const match = READY[kind].exec(seen);
      if (!match) return;
      clearTimeout(timer);
      child.stderr.off('data', onData);
      resolve(match[1]);
    };
    child.stderr.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(
        new Error(
          `${name} exited (${code ?? signal}) before it was ready; see ${logFile}:\n${seen.split('\n').slice(-15).join('\n')}`,
        ),
      );
    });
  }).catch(async (error: Error) => {
    await stopChild(child, 2_000);
    throw error;
  });
  let stopping = false;
  // Nothing restarts a process that dies: say so where the operator is looking.
  child.once('exit', (code, signal) => {
    if (!stopping) process.stderr.write(`${name} exited (${code ?? signal}); see ${logFile}\n`);
  });
  return {
    kind,
    name,
    pid: child.pid!,
    logFile,
    url,
    stop: () => {
      stopping = true;
      return stopChild(child);
    },
  };
}
