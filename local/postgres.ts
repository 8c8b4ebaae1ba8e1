// Embedded PostgreSQL for machines with no database service: the binaries ship in an npm package,
// the data directory is private to the gateway, and a root caller hands the server to an unprivileged
// user (where that user finds the binaries and the cluster is postgres-files.ts).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chownSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { clusterPlace, nativeDir, type RunAs } from './postgres-files';

export interface EmbeddedPostgresOptions {
  // Holds the cluster in dataDir/cluster (or, when the server user cannot reach dataDir, in a folder
  // keyed by its path; see postgres-files.ts) and its log in dataDir/postgres.log.
  dataDir: string;
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

// Postgres refuses to run as root, so root runs it as a dedicated system user (created once).
function serverUser(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const lookup = () => spawnSync('id', ['-u', SYSTEM_USER], { encoding: 'utf8' });
  let found = lookup();
  if (found.status !== 0) {
    spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', SYSTEM_USER]);
    found = lookup();
  }
  const name = found.status === 0 ? SYSTEM_USER : 'nobody';
  const uid = Number(spawnSync('id', ['-u', name], { encoding: 'utf8' }).stdout.trim());
  const gid = Number(spawnSync('id', ['-g', name], { encoding: 'utf8' }).stdout.trim());
  return { uid, gid, name };
}

interface Server {
  bin: string;
  runAs: RunAs | undefined;
  cwd: string; // the server user's own folder: a private caller's working directory is out of its reach
}

function spawnOptions(server: Server) {
  return {
    cwd: server.cwd,
    ...(server.runAs ? { uid: server.runAs.uid, gid: server.runAs.gid } : {}),
    env: { ...process.env, LC_ALL: 'C' },
  };
}

function run(server: Server, binary: string, args: string[]): void {
  const result = spawnSync(path.join(server.bin, binary), args, {
    encoding: 'utf8',
    ...spawnOptions(server),
  });
  if (result.status !== 0) {
    throw new Error(
      `${binary} failed (${result.status}): ${result.stderr || result.stdout || result.error?.message}`,
    );
  }
}

/**
 * Waits until this cluster's server accepts connections. Whoever answers on the port must serve this
 * cluster's data directory: another server already holding the port would otherwise pass for ours while
 * ours exits unable to bind it.
 */
async function waitUntilReady(
  url: string,
  server: ChildProcess,
  logFile: string,
  cluster: string,
  port: number,
): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (server.exitCode !== null) {
      throw new Error(`postgres exited with ${server.exitCode}; see ${logFile}:\n${tail(logFile)}`);
    }
    const client = new Client({ connectionString: url });
    let served: string;
    try {
      await client.connect();
      served = (await client.query<{ dir: string }>(`SELECT current_setting('data_directory') AS dir`))
        .rows[0].dir;
      await client.end();
    } catch (error) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline)
        throw new Error(`postgres did not accept connections within 60 s: ${String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      continue;
    }
    if (realpathSync(served) === realpathSync(cluster)) return;
    server.kill('SIGINT');
    throw new Error(
      `port ${port} is held by another PostgreSQL server (serving ${served}); stop it or choose another port`,
    );
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
  const runAs = serverUser();
  mkdirSync(options.dataDir, { recursive: true, mode: 0o755 });
  const place = clusterPlace(options.dataDir, runAs);
  const cluster = path.join(place.home, 'cluster');
  const socketDir = path.join(place.home, 'socket');
  const logFile = path.join(options.dataDir, 'postgres.log'); // written through a descriptor opened here
  for (const dir of [place.home, socketDir]) {
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    if (runAs) chownSync(dir, runAs.uid, runAs.gid);
  }
  const server: Server = { bin: path.join(nativeDir(runAs), 'bin'), runAs, cwd: place.home };
  if (!existsSync(path.join(cluster, 'PG_VERSION'))) {
    run(server, 'initdb', [
      '-D',
      cluster,
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
    ]);
    writeFileSync(
      path.join(options.dataDir, 'README'),
      place.relocatedFrom
        ? `PostgreSQL cluster of the gateway lives in ${cluster}: the PostgreSQL user cannot reach this folder. Remove both to start over.\n`
        : 'PostgreSQL cluster of the gateway; remove this folder to start over.\n',
    );
  }
  const logFd = openSync(logFile, 'a');
  const args = [
    '-D',
    cluster,
    '-p',
    String(options.port),
    '-k',
    socketDir,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'max_connections=200',
  ];
  if (options.durable === false)
    args.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  const postgres = spawn(path.join(server.bin, 'postgres'), args, {
    stdio: ['ignore', logFd, logFd],
    ...spawnOptions(server),
  });
  closeSync(logFd);
  const adminUrl = `postgres://postgres@127.0.0.1:${options.port}/postgres`;
  const url = `postgres://postgres@127.0.0.1:${options.port}/${options.database}`;
  await waitUntilReady(adminUrl, postgres, logFile, cluster, options.port);
  await ensureDatabase(adminUrl, options.database);
  const where = place.relocatedFrom
    ? `; ${place.relocatedFrom} is out of ${runAs!.name}'s reach, so the cluster lives there`
    : '';
  options.log?.(`PostgreSQL ${options.port} ready (data in ${cluster}${where})`);

  let stopped: Promise<void> | undefined;
  return {
    url,
    adminUrl,
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        if (postgres.exitCode !== null) return resolve();
        postgres.once('exit', () => resolve());
        postgres.kill('SIGINT'); // "fast" shutdown: rolls back open transactions, writes a checkpoint
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
