// The Temporal Web UI for the cluster's server: Temporal's own UI server (its assets are embedded in
// the Go module, so it builds offline from the module proxy cache) pointed at the frontend. The dev
// server's bundled UI only attaches to the dev server itself, so it cannot serve here.
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ensureTemporalUi } from './binaries';
import { GaveUp, stopChild, waitFor } from './processes';

export interface TemporalUiOptions {
  dataDir: string;
  port: number;
  temporalAddress: string;
  namespace?: string;
  log?: (line: string) => void;
}

export interface RunningTemporalUi {
  url: string;
  stop(): Promise<void>;
}

/** Starts the UI, or returns undefined (after saying why) when its server cannot be built. */
export async function startTemporalUi(options: TemporalUiOptions): Promise<RunningTemporalUi | undefined> {
  const binary = ensureTemporalUi(options.log);
  if (!binary) return undefined;
  const configDir = path.join(options.dataDir, 'config');
  mkdirSync(configDir, { recursive: true });
  // The UI server reads base.yaml, then <env>.yaml over it.
  writeFileSync(
    path.join(configDir, 'base.yaml'),
    [
      `temporalGrpcAddress: ${JSON.stringify(options.temporalAddress)}`,
      'host: 127.0.0.1',
      `port: ${options.port}`,
      'enableUi: true',
      `defaultNamespace: ${JSON.stringify(options.namespace ?? 'default')}`,
      'showTemporalSystemNamespace: false',
      'disableNewsFetch: true',
      'notifyOnNewVersion: false',
      'cors:',
      '  cookieInsecure: true',
      '',
    ].join('\n'),
  );
  writeFileSync(path.join(configDir, 'cluster.yaml'), '# everything is in base.yaml\n{}\n');
  const logFd = openSync(path.join(options.dataDir, 'ui.log'), 'a');
  const child = spawn(
    binary,
    ['--root', options.dataDir, '--config', 'config', '--env', 'cluster', 'start'],
    { stdio: ['ignore', logFd, logFd] },
  );
  closeSync(logFd);
  try {
    await waitFor(
      'Temporal UI',
      30_000,
      () =>
        new Promise<boolean>((resolve, reject) => {
          if (child.exitCode !== null)
            return reject(
              new GaveUp(
                `Temporal UI exited with ${child.exitCode}; see ${path.join(options.dataDir, 'ui.log')}`,
              ),
            );
          const socket = net.connect(options.port, '127.0.0.1');
          socket.once('connect', () => {
            socket.destroy();
            resolve(true);
          });
          socket.once('error', () => resolve(false));
        }),
    );
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { url: `http://127.0.0.1:${options.port}`, stop: () => stopChild(child) };
}
