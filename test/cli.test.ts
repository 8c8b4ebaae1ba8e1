// The built `gateway` CLI as a child process against the real stack: a command for every documented
// operation, credentials from flags, environment and 0600 profiles, the login through the real
// consent page in Chromium, exit codes by outcome with the request id, redacted `--verbose`, raw
// requests, `listen` forwarding real signed deliveries, `trigger`, and shell completion.
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser } from 'playwright-core';
import { currentDocument } from '../cli/build/document';
import { keyReachableOperations, type OpenApiDocument } from '../cli/operations/document';
import { buildCli, waitForLine, type Cli } from './support/cli';
import { freePort } from './support/free-port';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { fund, newWallet } from './support/money';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const execFileAsync = promisify(execFile);
let gw: Gateway;
let t: Tenant;
let cli: Cli;
beforeAll(async () => {
  cli = buildCli();
  gw = await startGateway();
  t = await gw.createTenant();
}, 120_000);
afterAll(async () => {
  cli?.cleanup();
  await gw?.stop();
});

const asTenant = () => ({ GATEWAY_BASE_URL: gw.url, GATEWAY_API_KEY: t.key });
const gateway = (
  args: string[],
  options: { env?: Record<string, string | undefined>; stdin?: string } = {},
) => cli.run(args, { env: { ...asTenant(), ...options.env }, stdin: options.stdin });
const configFile = () => join(cli.configHome, 'gateway', 'config.json');
const readConfig = () => JSON.parse(readFileSync(configFile(), 'utf8'));

describe('commands', () => {
  it('has its own command for every operation a key can call, as the current routes document them', async () => {
    const listed = await gateway(['commands', '--json']);
    expect(listed.code).toBe(0);
    const commands = JSON.parse(listed.stdout).commands as Array<{
      command: string;
      method: string;
      path: string;
    }>;
    const expected = keyReachableOperations(currentDocument() as unknown as OpenApiDocument).map(
      (op) => `${op.method.toUpperCase()} ${op.path}`,
    );
    expect(expected.length).toBeGreaterThan(50);
    expect(commands.map((c) => `${c.method} ${c.path}`).sort()).toEqual([...expected].sort());
    expect(new Set(commands.map((c) => c.command)).size).toBe(commands.length);
    expect(commands).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          command: 'gateway wallets execute <id>',
          method: 'POST',
          path: '/v1/wallets/{id}/execute',
        }),
        expect.objectContaining({
          command: 'gateway consumers receipts list <consumerId>',
          path: '/v1/consumers/{consumerId}/receipts',
        }),
        expect.objectContaining({
          command: 'gateway consumer-payments execute-stream',
          path: '/v1/consumer-payments/execute-stream',
        }),
      ]),
    );
    // Every listed command answers its help, so each one is registered, not only named.
    for (const { command } of commands.filter((_, i) => i % 9 === 0)) {
      const words = command
        .split(' ')
        .slice(1)
        .filter((w) => !w.startsWith('<'));
      const help = await gateway([...words, '--help']);
      expect([command, help.code]).toEqual([command, 0]);
    }
  });

  it('takes a whole body from a file or stdin, lets flags override its keys, and sends it', async () => {
    const file = join(cli.configHome, 'wallet.json');
    writeFileSync(
      file,
      JSON.stringify({ display_name: 'From file', currency: 'USD', metadata: { team: 'ops' } }),
    );
    const fromFile = await gateway([
      '--json',
      'wallets',
      'create',
      '--data',
      `@${file}`,
      '--currency',
      'BRL',
    ]);
    expect(fromFile.code).toBe(0);
    expect(JSON.parse(fromFile.stdout)).toMatchObject({
      display_name: 'From file',
      metadata: { team: 'ops' },
      balances: [expect.objectContaining({ currency: 'BRL' })],
    });
    const fromStdin = await gateway(['--json', 'wallets', 'create', '--data', '-'], {
      stdin: JSON.stringify({ display_name: 'From stdin', currency: 'BRL' }),
    });
    expect(fromStdin.code).toBe(0);
    expect(JSON.parse(fromStdin.stdout).display_name).toBe('From stdin');
  });

  it('sends raw requests through get|post with the same credential and output', async () => {
    const me = await gateway(['--json', 'get', '/v1/whoami']);
    expect(me.code).toBe(0);
    expect(JSON.parse(me.stdout).project.id).toBe(t.projectId);
    const created = await gateway([
      '--json',
      'post',
      '/v1/wallets',
      '--data',
      JSON.stringify({ display_name: 'Raw', currency: 'BRL' }),
    ]);
    expect(created.code).toBe(0);
    const listed = await gateway(['--json', 'get', '/v1/wallets', '--query', 'limit=100']);
    expect(JSON.parse(listed.stdout).data ?? JSON.parse(listed.stdout).wallets).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: JSON.parse(created.stdout).id })]),
    );
  });
});

describe('output', () => {
  it('prints a table to a person at a terminal and the exact body when piped', async () => {
    const wallet = await newWallet(gw, t, { display_name: 'Terminal wallet' });
    // `script` gives the CLI a pseudo-terminal, as a person's shell does.
    // Asynchronous: the gateway answering it runs in this process.
    const terminal = async (args: string) => {
      const { stdout } = await execFileAsync(
        'script',
        ['-qec', `${process.execPath} ${cli.main} ${args}`, '/dev/null'],
        { encoding: 'utf8', env: { ...process.env, ...asTenant(), XDG_CONFIG_HOME: cli.configHome } },
      );
      return stdout.replace(/\r/g, '');
    };
    const lines = (await terminal('wallets list')).trim().split('\n');
    expect(lines[0]).toMatch(
      /^ID\s+ORG_ID\s+PROJECT_ID\s+AGENT_ID\s+DISPLAY_NAME\s+CURRENCY\s+STATUS\s+CREATED_AT/,
    );
    expect(lines.find((line) => line.startsWith(wallet))).toMatch(/Terminal wallet\s+BRL\s+active/);
    expect(await terminal('whoami')).toMatch(new RegExp(`^project\\s+\\{"id":"${t.projectId}"`, 'm'));
    const piped = await gateway(['wallets', 'get', wallet]);
    const raw = await gw.request('GET', `/v1/wallets/${wallet}`, { key: t.key });
    expect(piped.stdout.trim()).toBe(raw.text);
  });
});

describe('outcomes and exit codes', () => {
  it('exits 1 with the error code and the request id when the API refuses', async () => {
    const missing = await gateway(['wallets', 'get', 'wal_does_not_exist']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: not_found \(HTTP 404\)/);
    const requestId = missing.stderr.match(/request id: (\S+)/)![1];
    expect(requestId).not.toBe('none');
    const asJson = await gateway(['--json', 'wallets', 'get', 'wal_does_not_exist']);
    expect(asJson.code).toBe(1);
    const envelope = JSON.parse(asJson.stdout);
    expect(envelope.error.code).toBe('not_found');
    expect(asJson.stderr).toContain(`request id: ${envelope.request_id}`);
    const unauthorized = await gateway(['whoami'], {
      env: { GATEWAY_API_KEY: `csk_test_${'x'.repeat(32)}` },
    });
    expect(unauthorized.code).toBe(1);
    expect(unauthorized.stderr).toMatch(/^error: unauthorized \(HTTP 401\)/);
    expect(unauthorized.stderr).toMatch(/request id: (?!none)\S+/);
  });

  it('exits 2 on a usage error and sends nothing: a missing required field, a bad number, a value outside the enum', async () => {
    const wallet = await newWallet(gw, t);
    await fund(gw, t, wallet, 1_000);
    const missing = await gateway([
      '--verbose',
      'wallets',
      'execute',
      wallet,
      '--amount',
      '1.00',
      '--currency',
      'BRL',
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing required --recipient, --description, --mandate-id');
    expect(missing.stderr).not.toContain('> POST');
    const notANumber = await gateway([
      'wallets',
      'execute',
      wallet,
      '--amount',
      'ten',
      '--currency',
      'BRL',
      '--recipient',
      'r',
      '--description',
      'd',
      '--mandate-id',
      'm',
    ]);
    expect(notANumber.code).toBe(2);
    expect(notANumber.stderr).toContain('--amount takes a number, not "ten"');
    const badCurrency = await gateway([
      'wallets',
      'execute',
      wallet,
      '--amount',
      '1',
      '--currency',
      'EUR',
      '--recipient',
      'r',
      '--description',
      'd',
      '--mandate-id',
      'm',
    ]);
    expect(badCurrency.code).toBe(2);
    const badJson = await gateway(['wallets', 'create', '--data', '{not json']);
    expect(badJson.code).toBe(2);
    expect((await gateway(['wallets', 'explode'])).code).toBe(2);
    const entries = await gw.request('GET', `/v1/wallets/${wallet}/ledger-entries`, { key: t.key });
    expect(entries.body.entries.map((e: { kind: string }) => e.kind)).toEqual(['fund']);
  });

  it('exits 2 without a credential and 3 when the gateway cannot be reached', async () => {
    const none = await cli.run(['whoami'], { env: { GATEWAY_BASE_URL: gw.url, GATEWAY_PROFILE: 'nobody' } });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no credential');
    const port = await freePort();
    const unreachable = await gateway(['whoami'], { env: { GATEWAY_BASE_URL: `http://127.0.0.1:${port}` } });
    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toContain(`cannot reach http://127.0.0.1:${port}`);
  });

  it('shows the HTTP exchange with --verbose and redacts the credential', async () => {
    const run = await gateway(['--verbose', '--json', 'whoami']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`> GET ${gw.url}/v1/whoami`);
    expect(run.stderr).toContain('> authorization: [redacted]');
    expect(run.stderr).toMatch(/< 200/);
    expect(run.stderr).toContain('< x-request-id: ');
    expect(run.stderr).not.toContain(t.key);
    const created = await gateway([
      '--verbose',
      '--json',
      'webhook-endpoints',
      'create',
      '--name',
      'v',
      '--event',
      'approval.denied',
      '--webhook-url',
      'http://127.0.0.1:9/hook',
    ]);
    expect(created.code).toBe(0);
    const secret = JSON.parse(created.stdout).signing_secret as string;
    expect(secret).toMatch(/^whsec_/);
    expect(created.stderr).toContain('"signing_secret":"[redacted]"');
    expect(created.stderr).not.toContain(secret);
  });
});

describe('profiles and login', () => {
  it('stores a profile 0600 in the config dir and uses it; listing never shows the key', async () => {
    const saved = await cli.run(['profiles', 'set', 'test', '--key-stdin', '--url', gw.url, '--default'], {
      stdin: `${t.key}\n`,
    });
    expect(saved.code).toBe(0);
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
    expect(statSync(join(cli.configHome, 'gateway')).mode & 0o777).toBe(0o700);
    const me = await cli.run(['--json', 'whoami']);
    expect(me.code).toBe(0);
    expect(JSON.parse(me.stdout).project.id).toBe(t.projectId);
    const listed = await cli.run(['--json', 'profiles', 'list']);
    expect(JSON.parse(listed.stdout).profiles).toEqual([
      { name: 'test', default: true, base_url: gw.url, credential: 'api key' },
    ]);
    expect(listed.stdout).not.toContain(t.key);
  });

  it('logs in through the consent page in a browser, stores the tokens 0600, and refreshes them once expired', async () => {
    const browser: Browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    try {
      const child = cli.spawn([
        '--profile',
        'work',
        '--base-url',
        gw.url,
        'login',
        '--no-browser',
        '--scope',
        'projects:settings',
      ]);
      const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
      const [, url] = await waitForLine(child.stderr!, /(http:\/\/\S+\/oauth\/authorize\?\S+)\n/);
      const page = await browser.newPage();
      await page.goto(url);
      expect(await page.locator('#client-name').textContent()).toBe('gateway CLI');
      await page.fill('#api_key', t.key);
      await Promise.all([page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/callback/), page.click('#approve')]);
      expect(await page.textContent('p')).toContain('logged in');
      expect(await exited).toBe(0);

      expect(statSync(configFile()).mode & 0o777).toBe(0o600);
      const stored = readConfig().profiles.work;
      expect(stored).toMatchObject({ base_url: gw.url, oauth: { scope: 'projects:settings' } });
      expect(stored.oauth.access_token).toMatch(/^cso_at_/);
      const me = await cli.run(['--json', '--profile', 'work', 'whoami']);
      expect(me.code).toBe(0);
      expect(JSON.parse(me.stdout).project.id).toBe(t.projectId);

      // Expired: the next command redeems the refresh token first and stores the rotated pair.
      const config = readConfig();
      config.profiles.work.oauth.expires_at = 0;
      writeFileSync(configFile(), JSON.stringify(config), { mode: 0o600 });
      const again = await cli.run(['--json', '--profile', 'work', 'whoami']);
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout).project.id).toBe(t.projectId);
      const refreshed = readConfig().profiles.work.oauth;
      expect(refreshed.refresh_token).not.toBe(stored.oauth.refresh_token);
      expect(refreshed.access_token).not.toBe(stored.oauth.access_token);
      expect(refreshed.expires_at).toBeGreaterThan(Date.now());
      // The token carries only the scope asked for.
      const denied = await cli.run(['--profile', 'work', 'wallets', 'list']);
      expect(denied.code).toBe(1);
      expect(denied.stderr).toMatch(/^error: route_scope_unmapped \(HTTP 403\)/);
      await page.close();
    } finally {
      await browser.close();
    }
  }, 60_000);
});

describe('webhooks', () => {
  let receiver: Server;
  let receiverUrl: string;
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  it('listens on temporary endpoints, forwards signed deliveries (a trigger and a real event) to a local URL, and removes the endpoints on exit', async () => {
    const child = cli.spawn(['--json', 'listen', '--forward-to', receiverUrl, '--events', 'wallet.created'], {
      env: asTenant(),
    });
    const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
    const lines: Array<Record<string, unknown>> = [];
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) =>
      lines.push(
        ...chunk
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l)),
      ),
    );
    await waitForLine(child.stderr!, /Ready: forwarding wallet\.created/);
    const endpoints = await gw.request('GET', '/v1/webhook-endpoints?event=wallet.created', { key: t.key });
    expect(endpoints.body.triggers).toEqual([
      expect.objectContaining({ name: 'gateway listen (wallet.created)', status: 'active' }),
    ]);
    expect(endpoints.body.triggers[0].webhook_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/wallet\.created$/);

    const fired = await gateway(['--json', 'trigger', 'wallet.created']);
    expect(fired.code).toBe(0);
    expect(JSON.parse(fired.stdout).fired).toEqual([
      expect.objectContaining({ trigger_id: endpoints.body.triggers[0].id }),
    ]);
    const test = await waitForDelivery(lines, 'webhook_endpoint.test');
    expect(test).toMatchObject({ signature: 'verified', status: 204, forwarded_to: receiverUrl });

    const wallet = await newWallet(gw, t);
    const real = await waitForDelivery(lines, 'wallet.created');
    expect(real).toMatchObject({ signature: 'verified', status: 204 });
    const forwarded = received.find((r) => r.headers['webhook-id'] === real.webhook_id)!;
    expect(forwarded.headers['webhook-signature']).toMatch(/^v1,/);
    expect(JSON.parse(forwarded.body)).toMatchObject({ type: 'wallet.created', data: { wallet_id: wallet } });

    child.kill('SIGINT');
    expect(await exited).toBe(0);
    const after = await gw.request('GET', '/v1/webhook-endpoints?event=wallet.created', { key: t.key });
    expect(after.body.triggers).toEqual([]);
  }, 60_000);

  it('refuses to trigger an event no endpoint listens to, and an unknown event type', async () => {
    const none = await gateway(['trigger', 'payment.failed']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no_endpoint');
    expect((await gateway(['trigger', 'nothing.happened'])).code).toBe(2);
  });
});

/** Resolves once `listen` has printed a forwarded delivery of this event type. */
async function waitForDelivery(
  lines: Array<Record<string, unknown>>,
  type: string,
): Promise<Record<string, unknown>> {
  for (;;) {
    const line = lines.find((l) => l.type === type);
    if (line) return line;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('completion', () => {
  it('completes resources, operations and flags in bash, and prints the same for zsh', async () => {
    const script = await gateway(['completion', 'bash']);
    expect(script.code).toBe(0);
    const complete = (words: string[]) =>
      execFileSync(
        'bash',
        [
          '-c',
          `${script.stdout}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _gateway; echo "\${COMPREPLY[@]}"`,
        ],
        { encoding: 'utf8' },
      )
        .trim()
        .split(' ');
    expect(complete(['gateway', 'wall']).sort()).toEqual([
      'wallet-anomalies',
      'wallet-reconciliations',
      'wallets',
    ]);
    expect(complete(['gateway', 'wallets', 'ex'])).toEqual(['execute']);
    expect(complete(['gateway', 'wallets', 'execute', 'wal_1', '--att'])).toEqual(['--attempt-id']);
    const zsh = await gateway(['completion', 'zsh']);
    expect(zsh.stdout.split('\n')[0]).toBe('#compdef gateway');
    expect(zsh.stdout).toContain('bashcompinit');
    expect(zsh.stdout).toContain(script.stdout.split('\n').slice(1).join('\n'));
    expect((await gateway(['completion', 'fish'])).code).toBe(2);
  });
});
