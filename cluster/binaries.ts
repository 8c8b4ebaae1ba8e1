// The real Temporal server, its SQL schema tool and the Temporal UI server, built from the Go module
// proxy with CGO off into .cluster/bin/<name>-<version>/ once per pinned version; a later start finds
// them there. The SQL tool carries the PostgreSQL schemas embedded, by name.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../runtime/project-root';

export const TEMPORAL_SERVER_VERSION = 'v1.32.1';
export const TEMPORAL_UI_VERSION = 'v2.55.0';
export const CLUSTER_DIR = path.join(PROJECT_ROOT, '.cluster');
const BIN_DIR = path.join(CLUSTER_DIR, 'bin');

export interface TemporalBinaries {
  server: string;
  sqlTool: string;
}

function goBinary(): string {
  const candidates = [process.env.GO, '/usr/local/go/bin/go'].filter((value): value is string =>
    Boolean(value),
  );
  for (const candidate of candidates) if (existsSync(candidate)) return candidate;
  const found = spawnSync('sh', ['-c', 'command -v go'], { encoding: 'utf8' });
  if (found.status === 0 && found.stdout.trim()) return found.stdout.trim();
  throw new Error(
    'Go is needed once to build the Temporal server: install it (https://go.dev/dl) or set GO to its binary',
  );
}

function go(args: string[], env: NodeJS.ProcessEnv, log: (line: string) => void): void {
  const started = Date.now();
  const result = spawnSync(goBinary(), args, {
    encoding: 'utf8',
    env: { ...process.env, CGO_ENABLED: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0)
    throw new Error(
      `go ${args.join(' ')} failed (${result.status}):\n${result.stderr.split('\n').slice(-30).join('\n')}`,
    );
  log(`  built in ${Math.round((Date.now() - started) / 1000)} s`);
}

// Installs into a staging folder and renames it into place, so a concurrent or interrupted build never
// leaves a folder that looks complete.
function buildInto(target: string, packages: string[], log: (line: string) => void): void {
  const staging = `${target}.${process.pid}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    go(['install', '-trimpath', ...packages], { GOBIN: staging }, log);
    if (!existsSync(target)) renameSync(staging, target);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

export function ensureTemporalServer(log: (line: string) => void = () => undefined): TemporalBinaries {
  const dir = path.join(BIN_DIR, `temporal-${TEMPORAL_SERVER_VERSION}`);
  const binaries = { server: path.join(dir, 'server'), sqlTool: path.join(dir, 'sql') };
  if (existsSync(binaries.server) && existsSync(binaries.sqlTool)) return binaries;
  log(
    `Building Temporal server ${TEMPORAL_SERVER_VERSION} from the Go module proxy (once; a few minutes on a small machine)`,
  );
  buildInto(
    dir,
    [
      `go.temporal.io/server/cmd/server@${TEMPORAL_SERVER_VERSION}`,
      `go.temporal.io/server/cmd/tools/sql@${TEMPORAL_SERVER_VERSION}`,
    ],
    log,
  );
  return binaries;
}

/** The Temporal UI server, or undefined when it cannot be built (the cluster then runs without a UI). */
export function ensureTemporalUi(log: (line: string) => void = () => undefined): string | undefined {
  const dir = path.join(BIN_DIR, `ui-server-${TEMPORAL_UI_VERSION}`);
  const binary = path.join(dir, 'server');
  if (existsSync(binary)) return binary;
  log(`Building Temporal UI server ${TEMPORAL_UI_VERSION} from the Go module proxy (once)`);
  try {
    buildInto(dir, [`github.com/temporalio/ui-server/v2/cmd/server@${TEMPORAL_UI_VERSION}`], log);
  } catch (error) {
    log(`  Temporal UI not built: ${(error as Error).message.split('\n')[0]}`);
    return undefined;
  }
  return binary;
}
