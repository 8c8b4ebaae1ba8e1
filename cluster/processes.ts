// The gateway's own processes in a cluster: each API and each worker is a separate Node process
// running the production entry points (api/server.ts, worker/main.ts) through tsx, with its output in a
// log file of its own, supervised: one that dies is started again with backoff until the cluster stops
// it. Also helpers to wait for readiness and to stop a child.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import path from 'node:path';
import { Backoff } from '../runtime/backoff';
import { PROJECT_ROOT } from '../runtime/project-root';

export type GatewayProcessKind = 'api' | 'worker';

export interface GatewayProcess {
  kind: GatewayProcessKind;
  name: string;
  /** The current child's pid: a restart changes it. */
  readonly pid: number;
  /** How many times the process has been started again after it died. */
  readonly restarts: number;
  logFile: string;
  /** The API's own address (the shared port's proxy forwards to it; a restart keeps it); undefined for workers. */
  url: string | undefined;
  /** The pid of the next child that is ready after a restart. */
  nextStart(): Promise<number>;
  /** No more restarts from now on; the cluster says so for every process before it stops any. */
  endSupervision(): void;
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

/** A process that stayed up this long after it was ready starts its next backoff from the first delay. */
const STABLE_MS = 30_000;
const FIRST_START_TIMEOUT_MS = 180_000;

function spawnChild(kind: GatewayProcessKind, env: NodeJS.ProcessEnv, logStream: WriteStream): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', ENTRY[kind]], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.pipe(logStream, { end: false });
  child.stderr!.pipe(logStream, { end: false });
  return child;
}

/**
 * Resolves with the ready line's address once the child says it serves or polls; rejects when it exits
 * first or, with a timeout, when it is not ready in time.
 */
function whenReady(
  child: ChildProcess,
  kind: GatewayProcessKind,
  name: string,
  logFile: string,
  timeoutMs?: number,
): Promise<string | undefined> {
  return new Promise<string | undefined>((resolve, reject) => {
    let seen = '';
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(
            () => reject(new Error(`${name} did not start within ${timeoutMs / 1000} s; see ${logFile}`)),
            timeoutMs,
          );
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer);
      reject(
        new Error(
          `${name} exited (${code ?? signal}) before it was ready; see ${logFile}:\n${seen.split('\n').slice(-15).join('\n')}`,
        ),
      );
    };
    const onData = (chunk: Buffer) => {
      seen = (seen + chunk.toString('utf8')).slice(-4096);
      const match = READY[kind].exec(seen);
      if (!match) return;
      clearTimeout(timer);
      child.stderr!.off('data', onData);
      child.off('exit', onExit);
      resolve(match[1]);
    };
    child.stderr!.on('data', onData);
    child.once('exit', onExit);
  });
}

/**
 * Starts one API or worker process with `env` on top of this process's environment; resolves once it is
 * ready (a first start that fails rejects). From then on it is supervised: when it dies for any reason
 * but a stop, `log` says how (exit code or signal) and it is started again after a backoff of 0.5 s
 * doubling to 15 s, back to 0.5 s once a restarted process has stayed up for 30 s.
 */
export async function startGatewayProcess(
  kind: GatewayProcessKind,
  name: string,
  env: NodeJS.ProcessEnv,
  logDir: string,
  log: (line: string) => void,
): Promise<GatewayProcess> {
  mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, `${name}.log`);
  const logStream = createWriteStream(logFile, { flags: 'a' });
  let child = spawnChild(kind, env, logStream);
  const url = await whenReady(child, kind, name, logFile, FIRST_START_TIMEOUT_MS).catch(
    async (error: Error) => {
      await stopChild(child, 2_000);
      logStream.end();
      throw error;
    },
  );
  // An API comes back on its own port, so the shared port's proxy and anyone holding the address find it.
  const restartEnv = kind === 'api' && url ? { ...env, PORT: new URL(url).port } : env;

  let supervised = true;
  let restarts = 0;
  let readyAt: number | undefined = Date.now();
  let pending: NodeJS.Timeout | undefined;
  const backoff = new Backoff();
  const waiting: Array<(pid: number) => void> = [];

  const watch = (current: ChildProcess) => {
    current.once('exit', (code, signal) => {
      if (!supervised) return;
      if (readyAt !== undefined && Date.now() - readyAt >= STABLE_MS) backoff.reset();
      const delay = backoff.next();
      log(
        `${name} (pid ${current.pid}) exited (${signal ?? `code ${code}`}); restarting in ${delay / 1000} s; see ${logFile}`,
      );
      pending = setTimeout(restart, delay);
    });
  };
  const restart = () => {
    pending = undefined;
    if (!supervised) return;
    restarts += 1;
    readyAt = undefined;
    const current = spawnChild(kind, restartEnv, logStream);
    child = current;
    watch(current);
    // No deadline here: a worker waits for an unreachable Temporal server on its own, logging as it goes.
    whenReady(current, kind, name, logFile).then(
      () => {
        if (!supervised || current !== child) return;
        readyAt = Date.now();
        log(`${name} restarted (pid ${current.pid}, restart ${restarts})`);
        for (const resolve of waiting.splice(0)) resolve(current.pid!);
      },
      // Exited before it was ready: its exit schedules the next try.
      () => undefined,
    );
  };
  const endSupervision = () => {
    supervised = false;
    clearTimeout(pending);
  };
  watch(child);

  return {
    kind,
    name,
    get pid() {
      return child.pid!;
    },
    get restarts() {
      return restarts;
    },
    logFile,
    url,
    nextStart: () => new Promise<number>((resolve) => waiting.push(resolve)),
    endSupervision,
    stop: async () => {
      endSupervision();
      await stopChild(child);
      logStream.end();
    },
  };
}
