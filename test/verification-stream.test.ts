// A contact verification's status stream through a raw SSE reader: the current state at once, each
// change (verified, superseded, expired, attempts exhausted), heartbeats on the configured interval,
// and the close a fixed delay after the terminal state. Timings are shortened through configuration.
import { sql } from 'slonik';
import type { DevSenderMock } from '../providers/mocks/otp-dev';
import { partnerMandate } from './support/consents';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { readStream as readRaw, type SseEvent, type StreamResult } from './support/sse-reader';

const HEARTBEAT_MS = 300;
const CLOSE_DELAY_MS = 1_000;
let gw: Gateway;
let acme: Tenant;
let globex: Tenant;
let dev: DevSenderMock;

beforeAll(async () => {
  process.env.GATEWAY_SSE_HEARTBEAT_MS = String(HEARTBEAT_MS);
  process.env.GATEWAY_SSE_CLOSE_DELAY_MS = String(CLOSE_DELAY_MS);
  gw = await startGateway();
  acme = await gw.createTenant({ name: 'Acme' });
  globex = await gw.createTenant({ name: 'Globex' });
  dev = gw.mocks.otp_dev as DevSenderMock;
});
afterAll(async () => gw?.stop());

/** GETs a stream of this gateway with a key. */
const readStream = (path: string, key: string, onEvent?: (event: SseEvent) => void) =>
  readRaw(`${gw.url}${path}`, { authorization: `Bearer ${key}` }, onEvent);

let serial = 0;
const uniqueEmail = () => `stream.${++serial}.${Date.now()}@example.com`;

async function startVerification(tenant: Tenant = acme) {
  const { consumer } = await partnerMandate(gw, tenant);
  const email = uniqueEmail();
  const started = await gw.request('POST', `/v1/consumers/${consumer.id}/contact-verifications`, {
    key: tenant.key,
    body: { channel: 'email', target: email },
  });
  expect(started.status).toBe(201);
  return { consumerId: consumer.id as string, id: started.body.id as string, email };
}
const eventsPath = (consumerId: string, id: string) =>
  `/v1/consumers/${consumerId}/contact-verifications/${id}/events`;
const check = (consumerId: string, id: string, code: string) =>
  gw.request('POST', `/v1/consumers/${consumerId}/contact-verifications/${id}/verify`, {
    key: acme.key,
    body: { code },
  });
const statuses = (result: StreamResult) =>
  result.events.filter((e) => e.event === 'status').map((e) => e.data.status);
/**
 * The stream stays open after its terminal event (heartbeats come, the interval being shorter than the
 * close delay) and then ends. How long it stays open is the event stream's rule, tested on a fake clock
 * (test/unit/event-stream.test.ts): here only the order is judged, never elapsed time.
 */
function expectOnlyHeartbeatsAfter(result: StreamResult, terminal: StreamResult['events'][number]): void {
  const after = result.events.slice(result.events.indexOf(terminal) + 1);
  expect(after.length).toBeGreaterThanOrEqual(1);
  expect(after.map((e) => e.event)).toEqual(after.map(() => 'heartbeat'));
}
const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('the verification status stream', () => {
  it('sends sent at once, verified once the code matches, heartbeats meanwhile, and closes after the delay', async () => {
    const { consumerId, id, email } = await startVerification();
    const verifying: Array<Promise<{ status: number }>> = [];
    const result = await readStream(eventsPath(consumerId, id), acme.key, (event) => {
      // The check waits two heartbeats so the stream shows the code waiting.
      if (event.event === 'status' && event.data.status === 'sent')
        verifying.push(
          new Promise((resolve) => setTimeout(resolve, HEARTBEAT_MS * 2)).then(() =>
            check(consumerId, id, dev.latestCode(email)!),
          ),
        );
    });
    expect((await Promise.all(verifying)).map((r) => r.status)).toEqual([200]);
    expect(result.status).toBe(200);
    expect(result.contentType).toContain('text/event-stream');
    expect(statuses(result)).toEqual(['sent', 'verified']);
    const [sent, verified] = result.events.filter((e) => e.event === 'status');
    expect(sent.data).toMatchObject({
      id,
      channel: 'email',
      provider: 'dev',
      verified_at: null,
      attempts_left: 5,
    });
    expect(verified.data).toMatchObject({ id, status: 'verified', verified_at: expect.any(String) });
    // Heartbeats while the code waited, and only heartbeats after the terminal state until the close.
    const end = result.events.indexOf(verified);
    expect(result.events.slice(0, end).some((e) => e.event === 'heartbeat')).toBe(true);
    expectOnlyHeartbeatsAfter(result, verified);
  });

  it('ends with superseded when a newer code is sent to the same contact', async () => {
    const { consumerId, id, email } = await startVerification();
    const result = await readStream(eventsPath(consumerId, id), acme.key, (event) => {
      if (event.event === 'status' && event.data.status === 'sent')
        void gw.request('POST', `/v1/consumers/${consumerId}/contact-verifications`, {
          key: acme.key,
          body: { channel: 'email', target: email },
        });
    });
    expect(statuses(result)).toEqual(['sent', 'superseded']);
  });

  it('ends with expired once the code passes its lifetime', async () => {
    const { consumerId, id } = await startVerification();
    const result = await readStream(eventsPath(consumerId, id), acme.key, (event) => {
      if (event.event === 'status' && event.data.status === 'sent')
        void gw.db.query(
          sql.unsafe`UPDATE contact_verifications SET expires_at = now() - interval '1 second' WHERE id = ${id}`,
        );
    });
    expect(statuses(result)).toEqual(['sent', 'expired']);
  });

  it('ends with attempts_exhausted once every attempt is spent on a wrong code', async () => {
    const { consumerId, id, email } = await startVerification();
    const spending: Array<Promise<number[]>> = [];
    const result = await readStream(eventsPath(consumerId, id), acme.key, (event) => {
      if (event.event === 'status' && event.data.status === 'sent')
        spending.push(
          (async () => {
            const answers: number[] = [];
            for (let i = 0; i < 5; i++)
              answers.push((await check(consumerId, id, wrong(dev.latestCode(email)!))).status);
            return answers;
          })(),
        );
    });
    expect(await Promise.all(spending)).toEqual([[400, 400, 400, 400, 400]]);
    expect(statuses(result).at(0)).toBe('sent');
    expect(statuses(result).at(-1)).toBe('attempts_exhausted');
    expect(result.events.filter((e) => e.event === 'status').at(-1)!.data.attempts_left).toBe(0);
  });

  it('opens on a terminal verification with its state and still closes after the delay', async () => {
    const { consumerId, id, email } = await startVerification();
    expect((await check(consumerId, id, dev.latestCode(email)!)).status).toBe(200);
    const result = await readStream(eventsPath(consumerId, id), acme.key);
    expect(statuses(result)).toEqual(['verified']);
    expectOnlyHeartbeatsAfter(
      result,
      result.events.find((e) => e.event === 'status')!,
    );
  });

  it("answers 404 and no stream for an unknown id, another consumer's or another organization's verification", async () => {
    const { consumerId, id } = await startVerification();
    const other = await startVerification();
    const foreign = await startVerification(globex);
    const cases: Array<[string, string]> = [
      [eventsPath(consumerId, '00000000-0000-4000-8000-000000000000'), acme.key],
      [eventsPath(consumerId, 'not-a-uuid'), acme.key],
      [eventsPath(other.consumerId, id), acme.key],
      [eventsPath(foreign.consumerId, foreign.id), acme.key],
      [eventsPath(consumerId, id), globex.key],
    ];
    for (const [path, key] of cases) {
      const res = await gw.request('GET', path, { key });
      expect([res.status, res.body.error.code]).toEqual([404, 'not_found']);
    }
  });
});
