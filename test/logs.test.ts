// Structured logs through a full run at debug level: keys are created, a provider connection is made with
// a credential, a webhook endpoint is created (its signing secret shown once) and a spend is delivered to
// it, and a caller pastes its key into a query string. Every line the process writes is captured: the
// gateway's lines are JSON carrying the request id, org, project and attempt id of their work, and no
// secret that was returned or sent appears anywhere in the output.
import { API_KEY_SANDBOX } from '../providers/mocks/auth-api-key';
import { startGateway, type Gateway } from './support/harness';
import { fund, newWallet } from './support/money';
import { startReceiver, type Receiver } from './support/receiver';

const written: string[] = [];
const originals = {
  stdout: process.stdout.write.bind(process.stdout),
  stderr: process.stderr.write.bind(process.stderr),
};
const level = process.env.LOG_LEVEL;
let gw: Gateway;
let receiver: Receiver;

beforeAll(async () => {
  process.env.LOG_LEVEL = 'debug';
  const capture = (chunk: string | Uint8Array) => {
    written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  };
  process.stdout.write = capture as typeof process.stdout.write;
  process.stderr.write = capture as typeof process.stderr.write;
  gw = await startGateway();
  receiver = await startReceiver();
}, 120_000);

afterAll(async () => {
  await receiver?.stop();
  await gw?.stop();
  process.stdout.write = originals.stdout;
  process.stderr.write = originals.stderr;
  if (level === undefined) delete process.env.LOG_LEVEL;
  else process.env.LOG_LEVEL = level;
});

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 300; i += 1) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}

type Line = Record<string, unknown>;
const jsonLines = (): Line[] =>
  written
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{"at":'))
    .map((line) => JSON.parse(line) as Line);

it('writes JSON lines with the request id, org, project and attempt id of their work, and never a secret', async () => {
  const t = await gw.createTenant();
  const second = await gw.createKey(t.projectId, { name: 'reporting' });
  const connection = await gw.request('POST', '/v1/providers/pix-psp/connections', {
    key: t.key,
    body: { label: 'main', credentials: API_KEY_SANDBOX },
  });
  expect(connection.status).toBe(201);
  const hookToken = `hook-${Date.now()}-private`;
  const endpoint = await gw.request('POST', '/v1/webhook-endpoints', {
    key: t.key,
    body: {
      name: 'payments',
      event: 'payment.succeeded',
      webhook_url: `${receiver.url}/hooks?token=${hookToken}`,
    },
  });
  expect(endpoint.status).toBe(201);
  const signingSecret = endpoint.body.signing_secret as string;
  expect(signingSecret).toMatch(/^whsec_/);
  const pasted = await gw.request('GET', `/v1/wallets?api_key=${t.key}`, {
    headers: { Authorization: `Bearer ${t.key}x` },
  });
  expect(pasted.status).toBe(401);

  const wallet = await newWallet(gw, t, { agent_id: 'shopper' });
  await fund(gw, t, wallet, 100_000);
  const attemptId = `logs-${Date.now()}`;
  const executed = await gw.request('POST', `/v1/wallets/${wallet}/execute`, {
    key: t.key,
    body: {
      amount: 12.5,
      currency: 'BRL',
      recipient: 'vendor-9',
      description: 'Cables',
      mandate_id: 'mdt_1',
      attempt_id: attemptId,
    },
  });
  expect(executed.status).toBe(200);
  const delivered = await receiver.waitFor(1);
  expect(delivered[0].headers['webhook-signature']).toBeTruthy();
  await until(
    async () => jsonLines(),
    (lines) =>
      lines.some((line) => line.activity === 'decideAttempt' && line.message === 'activity completed'),
    "the spend's last activity to be logged",
  );

  // The execute request's own line names its request, caller and attempt.
  const request = jsonLines().find(
    (line) => line.message === 'request' && line.route === '/v1/wallets/:id/execute',
  )!;
  expect(request).toMatchObject({
    level: 'info',
    method: 'POST',
    status: 200,
    request_id: executed.headers.get('x-request-id'),
    org_id: t.orgId,
    project_id: t.projectId,
    attempt_id: attemptId,
  });
  // The worker's lines for the spend's activities name the attempt and the organization.
  const dispatch = jsonLines().find(
    (line) => line.activity === 'decideAttempt' && line.message === 'activity completed',
  )!;
  expect(dispatch).toMatchObject({ level: 'debug', attempt_id: attemptId, org_id: t.orgId });
  // The refused request is logged without its query string.
  const refused = jsonLines().find(
    (line) => line.message === 'request' && line.status === 401 && line.route === '/v1/wallets',
  )!;
  expect(refused).toBeDefined();

  const output = written.join('');
  const secrets = {
    'first API key': t.key,
    'second API key': second.key,
    'provider credential': API_KEY_SANDBOX.api_key,
    'webhook signing secret': signingSecret,
    'webhook signing secret body': signingSecret.slice('whsec_'.length),
    'delivery signature': String(delivered[0].headers['webhook-signature']).split(',').pop()!,
    'token in the webhook URL': hookToken,
    'service token': gw.serviceToken,
  };
  for (const [what, secret] of Object.entries(secrets)) {
    expect(secret.length).toBeGreaterThan(8);
    expect({ what, leaked: output.includes(secret) }).toEqual({ what, leaked: false });
  }
});
