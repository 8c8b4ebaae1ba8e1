// The fuzz tier's runner: installs the pinned schemathesis into a project-local virtualenv (.venv-fuzz/,
// reused when it already holds that version) and runs it against a running gateway's OpenAPI document,
// bounded and derandomized so a run is reproducible and fits the test budget.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../runtime/project-root';

export const SCHEMATHESIS_VERSION = '4.32.5';
export const FUZZ_SEED = 20261124;
export const FUZZ_VENV = path.join(PROJECT_ROOT, '.venv-fuzz');
const ST = path.join(FUZZ_VENV, 'bin', 'st');
const PYTHONS = ['python3.11', 'python3.12', 'python3.13', 'python3.10', 'python3'];

/** What every run checks: no 5xx, bodies matching the documented schema and content type, only documented statuses. */
export const FUZZ_CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_schema_conformance',
];

/** Why the fuzz tier cannot run, in one line: the stack would only point at this runner. */
export class FuzzSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FuzzSetupError';
    this.stack = `${this.name}: ${message}`;
  }
}

function installedVersion(): string | undefined {
  if (!existsSync(ST)) return undefined;
  const result = spawnSync(ST, ['--version'], { encoding: 'utf8' });
  return result.status === 0 ? /version\s+(\S+)/.exec(result.stdout)?.[1] : undefined;
}

function lastLine(text: string): string {
  return text.trim().split('\n').filter(Boolean).pop() ?? 'no output';
}

function findPython(): string {
  for (const name of PYTHONS) {
    const probe = spawnSync(
      name,
      ['-c', 'import sys, venv; sys.exit(0 if sys.version_info >= (3, 10) else 1)'],
      { encoding: 'utf8' },
    );
    if (probe.status === 0) return name;
  }
  throw new FuzzSetupError(
    `schemathesis ${SCHEMATHESIS_VERSION} cannot be installed: no Python 3.10+ with venv on PATH (tried ${PYTHONS.join(', ')})`,
  );
}

/** Path of the pinned `st`, installing it on first use; throws one line saying why when it cannot. */
export function ensureSchemathesis(): string {
  if (installedVersion() === SCHEMATHESIS_VERSION) return ST;
  const python = findPython();
  if (!existsSync(path.join(FUZZ_VENV, 'bin', 'python'))) {
    const venv = spawnSync(python, ['-m', 'venv', FUZZ_VENV], { encoding: 'utf8' });
    if (venv.status !== 0)
      throw new FuzzSetupError(
        `schemathesis ${SCHEMATHESIS_VERSION} cannot be installed: ${python} -m venv ${FUZZ_VENV} failed: ${lastLine(venv.stderr)}`,
      );
  }
  const pip = spawnSync(
    path.join(FUZZ_VENV, 'bin', 'python'),
    [
      '-m',
      'pip',
      'install',
      '--quiet',
      '--disable-pip-version-check',
      `schemathesis==${SCHEMATHESIS_VERSION}`,
    ],
    {
      encoding: 'utf8',
      env: { ...process.env, PIP_ROOT_USER_ACTION: 'ignore' },
    },
  );
  if (pip.status !== 0)
    throw new FuzzSetupError(
      `schemathesis ${SCHEMATHESIS_VERSION} cannot be installed from PyPI into ${FUZZ_VENV}: ${lastLine(pip.stderr)}`,
    );
  const version = installedVersion();
  if (version !== SCHEMATHESIS_VERSION)
    throw new FuzzSetupError(
      `schemathesis ${SCHEMATHESIS_VERSION} cannot be installed: ${ST} reports ${version ?? 'nothing'}`,
    );
  return ST;
}

export interface FuzzOptions {
  /** Base URL of the gateway; its document is read from `<url>/openapi.json`. */
  url: string;
  /** A tenant's API key, so authenticated operations get past authentication. */
  apiKey: string;
  /** Test cases per operation and phase. */
  maxExamples?: number;
  workers?: number;
}

export interface FuzzResult {
  exitCode: number;
  /** Schemathesis's closing line, e.g. `No issues found in 84.2s` or `3 failures, 1 error in 90.1s`. */
  summary: string;
  /** The failures section (and errors) as schemathesis prints them, each with a curl line to replay it. */
  failures: string;
  output: string;
}

function summaryOf(output: string): string {
  const closing = output
    .trim()
    .split('\n')
    .reverse()
    .find((line) => /^=+ .+ =+$/.test(line.trim()));
  return closing ? closing.replace(/^=+\s*|\s*=+$/g, '') : lastLine(output);
}

function failuresOf(output: string): string {
  const start = output.search(/^=+ (FAILURES|ERRORS) =+$/m);
  const end = output.search(/^=+ (WARNINGS|SUMMARY) =+$/m);
  return start < 0 ? '' : output.slice(start, end > start ? end : undefined);
}

/**
 * Per-operation allowances: the 5xx statuses the spec itself prescribes for an operation's documented
 * refusals (meta-tool discovery answers a free-form intent with 501 when no extractor is wired).
 * Every other 5xx of every operation still fails the run.
 */
export const FUZZ_CONFIG = `
[[operations]]
include-path = "/v1/meta-tools/discover"
checks.not_a_server_error.expected-statuses = ["2xx", "3xx", "4xx", "501"]
`;

/** Runs schemathesis asynchronously (the gateway under test answers from this same process). */
export function runSchemathesis(options: FuzzOptions): Promise<FuzzResult> {
  const st = ensureSchemathesis();
  const reportDir = mkdtempSync(path.join(os.tmpdir(), 'fuzz-report-'));
  const configFile = path.join(reportDir, 'schemathesis.toml');
  writeFileSync(configFile, FUZZ_CONFIG);
  const args = [
    '--config-file',
    configFile,
    'run',
    `${options.url}/openapi.json`,
    '--header',
    `Authorization: Bearer ${options.apiKey}`,
    '--mode',
    'all',
    '--phases',
    'examples,coverage,fuzzing,stateful',
    '--checks',
    FUZZ_CHECKS.join(','),
    '--max-examples',
    String(options.maxExamples ?? 20),
    // Derandomized: the same document yields the same cases on every machine (this mode keeps no example
    // database); the fixed seed pins whatever schemathesis still draws outside generation.
    '--generation-deterministic',
    '--seed',
    String(FUZZ_SEED),
    '--suppress-health-check',
    'all',
    '--workers',
    String(options.workers ?? 2),
    '--request-timeout',
    '20',
    '--report',
    'junit',
    '--report-dir',
    reportDir,
    '--no-color',
    '--output-truncate',
    'true',
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(st, args, { cwd: reportDir, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ exitCode: code ?? -1, summary: summaryOf(output), failures: failuresOf(output), output });
    });
  });
}
