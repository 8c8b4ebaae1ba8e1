// The fuzz tier's runner: installs the pinned schemathesis into a project-local virtualenv (.venv-fuzz/,
// reused when it already holds that version) and runs it against a running gateway's OpenAPI document,
// bounded and derandomized so a run is reproducible and fits the test budget.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../runtime/project-root';

export const SCHEMATHESIS_VERSION = '4.32.5';
export const FUZZ_SEED = 20261124;
export const FUZZ_VENV = path.join(PROJECT_ROOT, '.venv-fuzz');
const ST = path.join(FUZZ_VENV, 'bin', 'st');
// Newest first: CPython before 3.11.8 / 3.12.2 can raise "AST constructor recursion depth mismatch" when
// schemathesis's worker threads parse source at once, which the run reports as an error. Such a Python
// still runs the tier, with one worker thread (threadSafePython).
const PYTHONS = ['python3.13', 'python3.12', 'python3.11', 'python3.10', 'python3'];
const THREAD_SAFE_AST = `import sys
v = sys.version_info[:3]
sys.exit(0 if v >= (3, 12, 2) or (3, 11, 8) <= v < (3, 12) else 1)`;

/** Whether the virtualenv's Python parses source safely from several threads at once. */
function threadSafePython(): boolean {
  return spawnSync(path.join(FUZZ_VENV, 'bin', 'python'), ['-c', THREAD_SAFE_AST]).status === 0;
}

/**
 * Every check schemathesis has: no 5xx, bodies matching the documented schema and content type, only
 * documented statuses, and the document's own promises: every request it calls valid is accepted and
 * every one it calls invalid refused (parameters, bodies, required headers, a missing body), a method it
 * does not list answers 405 with an `Allow` naming only the methods it does.
 */
export const FUZZ_CHECKS = ['all'];

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

/** Pythons on PATH, and those a pyenv installed beside them (which its shims hide unless selected). */
function pythonCandidates(): string[] {
  const pyenvVersions = path.join(process.env.PYENV_ROOT ?? path.join(os.homedir(), '.pyenv'), 'versions');
  const installed = existsSync(pyenvVersions)
    ? readdirSync(pyenvVersions).map((version) => path.join(pyenvVersions, version, 'bin', 'python3'))
    : [];
  return [...PYTHONS, ...installed];
}

function compareVersions(a: number[], b: number[]): number {
  const i = a.findIndex((part, index) => part !== b[index]);
  return i === -1 ? 0 : a[i] - b[i];
}

/** The newest Python 3.10+ with venv among the candidates. */
function findPython(): string {
  let best: { python: string; version: number[] } | undefined;
  for (const python of pythonCandidates()) {
    const probe = spawnSync(
      python,
      [
        '-c',
        'import sys, venv; print(*sys.version_info[:3]); sys.exit(0 if sys.version_info >= (3, 10) else 1)',
      ],
      { encoding: 'utf8' },
    );
    if (probe.status !== 0) continue;
    const version = probe.stdout.trim().split(' ').map(Number);
    const newer = !best || compareVersions(version, best.version) > 0;
    if (newer) best = { python, version };
  }
  if (best) return best.python;
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
  /** One line per failing case: its operation, the checks it failed and the status it got. */
  headlines: string[];
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
 * The failures in a line each (`POST /v1/x: ST101 Server error; ST103 Undocumented status code [500]`), short
 * enough that the last lines of a run's log still name what failed.
 */
export function headlinesOf(failures: string): string[] {
  const headlines: string[] = [];
  let operation = '';
  let current: { checks: string[]; status: string } | null = null;
  const flush = () => {
    if (current) headlines.push(`${operation}: ${current.checks.join('; ')}${current.status}`);
    current = null;
  };
  for (const line of failures.split('\n')) {
    const header = /^_{3,} (.+?) _{3,}$/.exec(line.trim());
    const testCase = /^\d+\. Test Case ID:/.test(line.trim());
    if (header || testCase) flush();
    if (header) operation = header[1];
    if (testCase || (header === null && current === null && /^- \S/.test(line)))
      current = { checks: [], status: '' };
    const check = /^- (.+)$/.exec(line);
    if (current && check) current.checks.push(check[1].trim());
    const status = /^\[(\d{3})\]/.exec(line);
    if (current && status && !current.status) current.status = ` [${status[1]}]`;
  }
  flush();
  return headlines;
}

interface Allowance {
  operations: string[];
  check: 'not_a_server_error' | 'positive_data_acceptance' | 'missing_required_header';
  statuses: string[];
}

const POSITIVE = ['2xx', '3xx', '401', '403', '404', '409', '429'];

/**
 * Per-operation allowances, each for a refusal no schema can state because it turns on stored state, an
 * upstream, or a check the document cannot spell. Every other refusal of a request the document calls
 * valid, and every 5xx, still fails the run.
 */
export const FUZZ_ALLOWANCES: Allowance[] = [
  // The spec's own 5xx: meta-tool discovery answers a free-form intent with 501 when no extractor is wired.
  {
    operations: ['POST /v1/meta-tools/discover'],
    check: 'not_a_server_error',
    statuses: ['2xx', '3xx', '4xx', '501'],
  },
  // A provider's auth type (stored for a generated one) decides which credential fields a connection
  // needs and whether it connects through OAuth; and the spec's own 501 `verify_unsupported` answers a
  // provider that offers no credential check.
  {
    operations: ['POST /v1/providers/{slug}/connections', 'POST /v1/providers/{slug}/oauth/authorize'],
    check: 'positive_data_acceptance',
    statuses: [...POSITIVE, '400'],
  },
  {
    operations: ['POST /v1/providers/{slug}/verify-connection'],
    check: 'not_a_server_error',
    statuses: ['2xx', '3xx', '4xx', '501'],
  },
  // Ids, cursors and names that must exist: a stored OAuth client, code or flow state; a webhook
  // endpoint as `before`; a catalog or tenant tool server; a meta-tool operation; a consent's surface;
  // a policy's stored type; the MCP transport's session (a message before initialize).
  {
    operations: [
      'GET /oauth/authorize',
      'POST /oauth/authorize',
      'POST /oauth/token',
      'POST /oauth/register',
      'GET /v1/providers/oauth/callback',
      'GET /v1/webhook-endpoints',
      'POST /v1/webhook-endpoints',
      'POST /v1/sessions',
      'POST /v1/consents/{token}/submit',
      'PATCH /v1/policies/{id}',
    ],
    check: 'positive_data_acceptance',
    statuses: [...POSITIVE, '400'],
  },
  // The MCP transport's own protocol: a message before initialize (400), or an Accept header that does
  // not admit both its answers (406; OpenAPI states no Accept header).
  {
    operations: ['POST /mcp', 'POST /v1/sessions/{id}/mcp'],
    check: 'positive_data_acceptance',
    statuses: [...POSITIVE, '400', '406'],
  },
  // A generated server's document: whether it is an OpenAPI document the gateway can make tools of
  // (references, operations, security schemes), or whether its URL answers one; and text inside the
  // document sent as free-form JSON (a NUL at any depth).
  {
    operations: ['POST /v1/generate/servers'],
    check: 'positive_data_acceptance',
    statuses: [...POSITIVE, '400', '422'],
  },
  // A structured intent is answered; a free-form one needs an extractor, and without one is the spec's 501.
  {
    operations: ['POST /v1/meta-tools/discover'],
    check: 'positive_data_acceptance',
    statuses: [...POSITIVE, '400', '501'],
  },
  // An upstream URL that the `uri` format admits but the WHATWG URL parser, which every fetch uses, refuses:
  // an empty host (`http://`), a port above 65535, a number too large for an IPv4 host.
  {
    operations: ['POST /v1/mcp-servers/validate'],
    check: 'positive_data_acceptance',
    statuses: [...POSITIVE, '400'],
  },
  // Check digits of a CPF or CNPJ, a Pix key or BR Code, an amount's decimals against the currency
  // of its wallet (stored, not in the body), a price too large for its currency's minor units or a tool
  // its upstream does not list, a contact target against its channel, a mandate's canonical text; rules
  // across fields or items (a date range's order, a rail listed once); text inside free-form JSON.
  {
    operations: [
      'POST /v1/consents',
      'POST /v1/consents/init',
      'GET /v1/consumers/{consumerId}/dda/boletos',
      'POST /v1/payment-links',
      'POST /v1/policies',
      'GET /v1/consumers/{consumerId}/dda/subscriptions/{document}',
      'DELETE /v1/consumers/{consumerId}/dda/subscriptions/{document}',
      'POST /v1/consumers/{consumerId}/dda/subscriptions',
      'POST /v1/kyc/onboardings',
      'POST /v1/consumer-payments/execute',
      'POST /v1/consumer-payments/execute-stream',
      'POST /v1/wallets/{id}/execute',
      'POST /v1/mcp-servers',
      'POST /v1/consumers/{consumerId}/contact-verifications',
      'POST /v1/mandates/verify',
    ],
    check: 'positive_data_acceptance',
    statuses: [...POSITIVE, '400', '422'],
  },
  // Rules a pattern could state but whose refusals the spec names with their own codes, which the
  // validator's `invalid_body` / `invalid_params` would replace: `slug_invalid`, `invalid_delivery_id`.
  {
    operations: [
      'POST /v1/projects',
      'PATCH /v1/projects/{id}',
      'GET /v1/webhook-endpoints/{id}/deliveries/{delivery_id}',
      'POST /v1/webhook-endpoints/deliveries/{delivery_id}/redeliver',
    ],
    check: 'positive_data_acceptance',
    statuses: [...POSITIVE, '400'],
  },
  // The gateway's configuration or the wallets' currencies: a deposit chain, a top-up method, a
  // transfer route, an upstream's handshake.
  {
    operations: [
      'GET /v1/wallets/{id}/deposit-address',
      'POST /v1/wallets/{id}/topups',
      'POST /v1/wallets/{id}/transfers',
    ],
    check: 'positive_data_acceptance',
    statuses: [...POSITIVE, '422'],
  },
  // Provisioning turns on the catalog and stored runs: a provider without a provisioning descriptor (or
  // in quarantine), and a verification code the provider refuses while the run keeps waiting.
  {
    operations: [
      'POST /v1/providers/{slug}/provisioning-runs',
      'POST /v1/provisioning-runs/{id}/verification',
    ],
    check: 'positive_data_acceptance',
    statuses: [...POSITIVE, '410', '422'],
  },
  // A closed or unknown gateway session is answered before the MCP transport reads its headers.
  {
    operations: ['GET /v1/sessions/{id}/mcp', 'DELETE /v1/sessions/{id}/mcp'],
    check: 'missing_required_header',
    statuses: ['400', '401', '403', '404', '406', '409', '415', '422'],
  },
];

/**
 * The allowances as schemathesis's configuration, one block per operation (the first matching block is
 * the one that applies). The stateful phase follows the links the document's answers give (Location
 * headers), not links guessed from field names: a guess carries one resource's id (a cart's `sess_…`) into
 * another's parameter (a gateway session's `ses_…`), a request the document itself calls invalid.
 */
export function fuzzConfig(): string {
  const list = (values: string[]) => `[${values.map((v) => JSON.stringify(v)).join(', ')}]`;
  const byOperation = new Map<string, string[]>();
  for (const allowance of FUZZ_ALLOWANCES) {
    for (const operation of allowance.operations) {
      const lines = byOperation.get(operation) ?? [];
      lines.push(`checks.${allowance.check}.expected-statuses = ${list(allowance.statuses)}`);
      byOperation.set(operation, lines);
    }
  }
  const blocks = [...byOperation].map(
    ([operation, lines]) =>
      `[[operations]]\ninclude-name = ${JSON.stringify(operation)}\n${lines.join('\n')}\n`,
  );
  return ['[phases.stateful.inference]\nalgorithms = ["location-headers"]\n', ...blocks].join('\n');
}

/** Runs schemathesis asynchronously (the gateway under test answers from this same process). */
export function runSchemathesis(options: FuzzOptions): Promise<FuzzResult> {
  const st = ensureSchemathesis();
  const reportDir = mkdtempSync(path.join(os.tmpdir(), 'fuzz-report-'));
  const configFile = path.join(reportDir, 'schemathesis.toml');
  writeFileSync(configFile, fuzzConfig());
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
    // No NUL in generated text. The server refuses NUL at any depth; the document says so for every string
    // and open object's keys a schema confines, but a free-form value's nested keys and strings (metadata)
    // could only be confined by a recursive schema. test/errors.test.ts covers NUL at every depth.
    '--generation-allow-x00',
    'false',
    '--suppress-health-check',
    'all',
    '--workers',
    String(options.workers ?? (threadSafePython() ? 2 : 1)),
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
      const failures = failuresOf(output);
      resolve({
        exitCode: code ?? -1,
        summary: summaryOf(output),
        failures,
        headlines: headlinesOf(failures),
        output,
      });
    });
  });
}
