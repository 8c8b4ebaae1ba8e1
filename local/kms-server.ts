// The KMS-compatible server for tests and `npm run dev`: moto's server, installed from PyPI into a
// project-local virtualenv (`.kms-venv/`, git-ignored) and started on a loopback port.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, renameSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { PROJECT_ROOT } from '../runtime/project-root';

export const KMS_VENV_DIR = path.join(PROJECT_ROOT, '.kms-venv');
const MOTO_REQUIREMENT = 'moto[server]==5.2.5';
const motoServerBin = (venv: string) => path.join(venv, 'bin', 'moto_server');

export class KmsServerUnavailable extends Error {}

function python(): string {
  for (const name of ['python3', 'python']) {
    const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (found.status === 0 && found.stdout.trim()) return found.stdout.trim();
  }
  throw new KmsServerUnavailable(
    'the KMS test server needs python3 on PATH to install moto[server] from PyPI',
  );
}

/** Path of moto_server, creating the venv and installing moto[server] on first use. */
export function ensureMotoServer(): string {
  if (existsSync(motoServerBin(KMS_VENV_DIR))) return motoServerBin(KMS_VENV_DIR);
  // Built beside the target and renamed into place, so two test workers never share a half-built venv.
  const staging = `${KMS_VENV_DIR}.${process.pid}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  const steps: Array<[string, string[]]> = [
    [python(), ['-m', 'venv', staging]],
    [
      path.join(staging, 'bin', 'python'),
      ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', MOTO_REQUIREMENT],
    ],
  ];
  for (const [command, args] of steps) {
    const result = spawnSync(command, args, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PIP_ROOT_USER_ACTION: 'ignore' },
    });
    if (result.status !== 0) {
      rmSync(staging, { recursive: true, force: true });
      const reason = (result.stderr || result.stdout || String(result.error ?? '')).trim().split('\n').pop();
      throw new KmsServerUnavailable(`could not install ${MOTO_REQUIREMENT} into ${KMS_VENV_DIR}: ${reason}`);
    }
  }
  if (existsSync(motoServerBin(KMS_VENV_DIR))) rmSync(staging, { recursive: true, force: true });
  else renameSync(staging, KMS_VENV_DIR);
  // The venv's scripts carry the staging path in their shebang; run them through the venv's python instead.
  return motoServerBin(KMS_VENV_DIR);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (Date.now() < until) {
    if (child.exitCode !== null)
      throw new KmsServerUnavailable(`moto_server exited with code ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new KmsServerUnavailable(`moto_server did not listen on 127.0.0.1:${port} within ${deadlineMs} ms`);
}

export interface RunningKmsServer {
  endpoint: string;
  stop(): Promise<void>;
}

export async function startKmsServer(): Promise<RunningKmsServer> {
  const bin = ensureMotoServer();
  const port = await freePort();
  const venvPython = path.join(path.dirname(bin), 'python');
  const child = spawn(venvPython, [bin, '-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  await waitForPort(port, child, 30_000);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
