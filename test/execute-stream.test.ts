// The execute stream through a raw SSE reader: audit steps as events while the attempt runs, then one
// terminal `outcome` carrying exactly what execute answers, heartbeats, and only heartbeats after the
// terminal event until the close. Timings are shortened through configuration; the tests judge the
// order of what arrives, never elapsed time.
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { readEventStream } from './support/sse-client';
import { pixSpend, readyConsumer } from './support/consumer-spend';
import { insertSession, pixBody, tedBody } from './support/spend-factory';

let gw: Gateway;
let tenant: Tenant;
const HEARTBEAT_MS = 300;
const CLOSE_DELAY_MS = 1_000;
beforeAll(async () => {
  process.env.GATEWAY_SSE_HEARTBEAT_MS = String(HEARTBEAT_MS);
  process.env.GATEWAY_SSE_CLOSE_DELAY_MS = String(CLOSE_DELAY_MS);
  gw = await startGateway();
  tenant = await gw.createTenant();
});
afterAll(async () => {
  await gw?.stop();
});

const streamUrl = () => `${gw.url}/v1/consumer-payments/execute-stream`;

it('sends each audit step of a completed spend as an event, then the outcome execute would answer, then closes after the delay', async () => {
  const sessionId = await insertSession(gw, tenant);
  const consumer = await readyConsumer(gw, tenant, { fundMinor: 10_000 });
  const result = await readEventStream(
    streamUrl(),
    tenant.key,
    pixSpend(consumer, { session_id: sessionId }),
  );
  expect(result.status).toBe(200);
  expect(result.contentType).toContain('text/event-stream');
  const audit = result.events
    .filter((e) => e.event === 'audit')
    .map((e) => e.data as { step: string; status: string });
  expect(audit.map((s) => `${s.step}:${s.status}`)).toEqual([
    'payee:pass',
    'session:pass',
    'dict:pass',
    'signature:pass',
    'agent:pass',
    'mandate:pass',
    'purpose:pass',
    'currency:pass',
    'per_tx_cap:pass',
    'cumulative_cap:pass',
    'periodic_cap:skip',
    'allowlist:pass',
    'policy:pass',
    'hold:pass',
    'dispatch:pass',
    'dispatch:pass',
    'debit:pass',
    'receipt:pass',
  ]);
  const terminal = result.events.filter((e) => e.event === 'outcome');
  expect(terminal).toHaveLength(1);
  const outcome = terminal[0].data as {
    http_status: number;
    replay: boolean;
    body: { audit: unknown[]; error: { code: string } };
  };
  expect(outcome).toMatchObject({ http_status: 200, replay: false, body: { status: 'completed' } });
  expect(outcome.body.audit).toEqual(audit);
  // Event ids count up, and the outcome is the last thing before the close: the stream stays open
  // after it (heartbeats keep coming, the interval being shorter than the close delay), then ends.
  // How long it stays open is the event stream's rule, tested on a fake clock (test/unit/event-stream.test.ts).
  const ids = result.events.map((e) => Number(e.id));
  expect(ids).toEqual([...ids].sort((a, b) => a - b));
  const after = result.events.slice(result.events.indexOf(terminal[0]) + 1);
  expect(after.length).toBeGreaterThanOrEqual(1);
  expect(after.map((e) => e.event)).toEqual(after.map(() => 'heartbeat'));
});

it('sends heartbeats while the stream is open', async () => {
  const result = await readEventStream(streamUrl(), tenant.key, tedBody());
  const beats = result.events.filter((e) => e.event === 'heartbeat');
  // The stream stays open CLOSE_DELAY_MS after its outcome, longer than one interval, so a beat is due
  // before the close whatever the machine's pace; the cadence itself is tested on a fake clock.
  expect(beats.length).toBeGreaterThanOrEqual(1);
  for (const beat of beats) expect(Date.parse((beat.data as { at: string }).at)).not.toBeNaN();
});

it('replays a stored outcome as a stream with replay: true', async () => {
  (gw.mocks.pix_psp as unknown as { removeKey(key: string): void }).removeKey('nobody@example.com');
  const body = pixBody({ payee: 'nobody@example.com', attempt_id: 'att-stream-replay' });
  const first = await readEventStream(streamUrl(), tenant.key, body);
  const again = await readEventStream(streamUrl(), tenant.key, body);
  const outcomeOf = (r: typeof first) =>
    r.events.find((e) => e.event === 'outcome')!.data as {
      http_status: number;
      replay: boolean;
      body: Record<string, unknown>;
    };
  expect(outcomeOf(first)).toMatchObject({
    http_status: 422,
    replay: false,
    body: { error: { code: 'pix_key_not_found' } },
  });
  expect(outcomeOf(again)).toMatchObject({
    http_status: 422,
    replay: true,
    body: { ...outcomeOf(first).body, idempotent_replay: true },
  });
});

it('answers refusals found before the attempt starts as plain JSON errors', async () => {
  const result = await gw.request('POST', '/v1/consumer-payments/execute-stream', {
    key: tenant.key,
    body: pixBody({ payee: 'not-a-key' }),
  });
  expect(result.status).toBe(422);
  expect(result.body.error.code).toBe('invalid_pix_key');
});
