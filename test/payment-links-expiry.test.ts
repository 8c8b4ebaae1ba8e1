// A link payment nobody pays: when its Pix charge lapses, the workflow releases the use it reserved, so
// the next buyer can pay a capped link. Time-skipping only: the charge lives 15 minutes of workflow time.
import { sql } from 'slonik';
import { z } from 'zod';
import { workflowIds } from '../contracts/workflow-ids';
import { startGateway, type Gateway, type Tenant } from './support/harness';

let gw: Gateway;
let acme: Tenant;

beforeAll(async () => {
  gw = await startGateway({ temporal: 'time-skipping' });
  acme = await gw.createTenant({ name: 'Acme' });
});
afterAll(async () => gw?.stop());

describe('an unpaid link payment', () => {
  it('releases its reserved use when the charge lapses, publishes the expiry, and lets the next buyer pay', async () => {
    const link = (
      await gw.request('POST', '/v1/payment-links', {
        key: acme.key,
        body: {
          title: 'Single seat',
          max_uses: 1,
          accepts: [{ rail: 'pix', amount: '10.00', currency: 'BRL', pix: { key: 'loja@acme.test' } }],
        },
      })
    ).body;
    const first = await gw.request('POST', `/pay/${link.slug}/payments`, { body: { rail: 'pix' } });
    expect(first.status).toBe(201);
    expect(
      (await gw.request('POST', `/pay/${link.slug}/payments`, { body: { rail: 'pix' } })).body.error.details
        .reason,
    ).toBe('max_uses_reached');

    // Waiting on the workflow's result lets the test server skip through the charge's lifetime.
    const outcome = await gw.env.client.workflow
      .getHandle(workflowIds.linkPayment(link.id, first.body.payment_id))
      .result();
    expect(outcome).toBe('expired');
    expect((await gw.request('GET', `/pay/${link.slug}/payments/${first.body.payment_id}`)).body.status).toBe(
      'expired',
    );
    const events = await gw.db.any(sql.type(z.object({ type: z.string() }))`
      SELECT type FROM events WHERE org_id = ${acme.orgId} AND data->>'payment_id' = ${first.body.payment_id}`);
    expect(events.map((e) => e.type)).toEqual(['payment_link.payment_expired']);
    expect((await gw.request('GET', `/v1/payment-links/${link.id}`, { key: acme.key })).body).toMatchObject({
      use_count: 0,
      status: 'active',
    });

    const next = await gw.request('POST', `/pay/${link.slug}/payments`, { body: { rail: 'pix' } });
    expect(next.status).toBe(201);
  });
});
