// A link payment's status stream through a raw SSE reader: the current state at once, the settled state
// once the buyer pays, heartbeats on the configured interval, and the close a fixed delay after the
// terminal state. Timings are shortened through configuration.
import type { PixPspMock } from '../providers/mocks/pix-psp';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { readStream } from './support/sse-reader';

const HEARTBEAT_MS = 300;
const CLOSE_DELAY_MS = 1_000;
let gw: Gateway;
let acme: Tenant;

beforeAll(async () => {
  process.env.GATEWAY_SSE_HEARTBEAT_MS = String(HEARTBEAT_MS);
  process.env.GATEWAY_SSE_CLOSE_DELAY_MS = String(CLOSE_DELAY_MS);
  gw = await startGateway();
  acme = await gw.createTenant({ name: 'Acme' });
});
afterAll(async () => gw?.stop());

describe('the link payment status stream', () => {
  it('sends pending at once, succeeded once paid, heartbeats meanwhile, and closes after the delay', async () => {
    const link = (
      await gw.request('POST', '/v1/payment-links', {
        key: acme.key,
        body: {
          title: 'Stream',
          accepts: [{ rail: 'pix', amount: '3.00', currency: 'BRL', pix: { key: 'loja@acme.test' } }],
        },
      })
    ).body;
    const opened = await gw.request('POST', `/pay/${link.slug}/payments`, { body: { rail: 'pix' } });
    const psp = gw.mocks.pix_psp as PixPspMock;
    let paying: Promise<unknown> | null = null;
    const result = await readStream(
      `${gw.url}/pay/${link.slug}/payments/${opened.body.payment_id}/events`,
      {},
      (event) => {
        if (event.event === 'status' && event.data.status === 'pending')
          paying = psp.cobs.pay(opened.body.pix.txid);
      },
    );
    await paying;
    expect(result.status).toBe(200);
    expect(result.contentType).toContain('text/event-stream');
    const statuses = result.events.filter((e) => e.event === 'status');
    expect(statuses.map((e) => e.data.status)).toEqual(['pending', 'succeeded']);
    expect(statuses[1].data).toMatchObject({
      payment_id: opened.body.payment_id,
      amount_minor: '300',
      settled_at: expect.any(String),
    });
    // After the terminal state the stream stays open (heartbeats, the interval being shorter than the
    // close delay) and then ends; how long is the event stream's rule, tested on a fake clock.
    const after = result.events.slice(result.events.indexOf(statuses[1]) + 1);
    expect(after.length).toBeGreaterThanOrEqual(1);
    expect(after.map((e) => e.event)).toEqual(after.map(() => 'heartbeat'));
  });

  it('answers an unknown payment with 404 and no stream', async () => {
    const link = (
      await gw.request('POST', '/v1/payment-links', {
        key: acme.key,
        body: {
          title: 'Stream 2',
          accepts: [{ rail: 'pix', amount: '3.00', currency: 'BRL', pix: { key: 'loja@acme.test' } }],
        },
      })
    ).body;
    const missing = await gw.request('GET', `/pay/${link.slug}/payments/plp_nothing/events`);
    expect([missing.status, missing.body.error.code]).toEqual([404, 'not_found']);
  });
});
