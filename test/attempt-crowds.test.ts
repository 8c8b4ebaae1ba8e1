// A crowd of simultaneous presentations of one new attempt, more than the Temporal server lets wait on one
// workflow at once (ten in-flight updates) while its provider takes its time: every presentation gets the attempt's answer or
// attempt_in_progress, never a 500; exactly one is fresh; the money moves once.
import { sql } from 'slonik';
import { z } from 'zod';
import type { PixPspMock } from '../providers/mocks/pix-psp';
import { newAttempt, pixSpend, readyConsumer } from './support/consumer-spend';
import type { HttpResult } from './support/client';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';
import { fund, newWallet } from './support/money';

const CROWD = 40;

/** Presents until answered: attempt_in_progress (409 with Retry-After) is the contract's "come back". */
async function untilAnswered(present: () => Promise<HttpResult>): Promise<HttpResult[]> {
  const seen: HttpResult[] = [];
  for (let tries = 0; tries < 30; tries++) {
    const answer = await present();
    seen.push(answer);
    if (answer.status !== 409 || answer.body.error?.code !== 'attempt_in_progress') break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return seen;
}

describe.each(TEMPORAL_SERVERS)('crowds of one attempt on the %s Temporal server', (server) => {
  let gw: Gateway;
  let tenant: Tenant;
  beforeAll(async () => {
    gw = await startGateway({ temporal: server });
    tenant = await gw.createTenant();
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it(`answers ${CROWD} simultaneous presentations of one new consumer spend, one fresh, paid once`, async () => {
    const c = await readyConsumer(gw, tenant, { fundMinor: 10_000 });
    const body = pixSpend(c, { amount_minor: 250 });
    // The PSP answers after 3 s, so the whole crowd waits on the running workflow at once.
    const psp = gw.mocks.pix_psp as unknown as PixPspMock;
    psp.script(body.attempt_id, { outcome: 'late', delayMs: 3_000 });
    const runs = await Promise.all(
      Array.from({ length: CROWD }, () =>
        untilAnswered(() => gw.request('POST', '/v1/consumer-payments/execute', { key: tenant.key, body })),
      ),
    );
    const every = runs.flat();
    expect(every.filter((r) => r.status >= 500)).toEqual([]);
    expect(every.filter((r) => r.status !== 200 && r.status !== 409)).toEqual([]);
    const finals = runs.map((run) => run[run.length - 1]);
    for (const r of finals) expect([r.status, r.body.attempt_id]).toEqual([200, body.attempt_id]);
    expect(finals.filter((r) => r.body.idempotent_replay === false)).toHaveLength(1);
    expect(psp.payments().filter((p) => p.reference === body.attempt_id)).toHaveLength(1);
    const balance = (await gw.request('GET', `/v1/wallets/${c.walletId}`, { key: tenant.key })).body
      .balances[0];
    expect(balance).toMatchObject({ balance_minor: '9750', available_minor: '9750' });
    // The crowd waited through one update: this process shares a wait on the same workflow's answer.
    const workflowId = await gw.db.oneFirst(
      sql.type(z.object({ workflow_id: z.string() }))`
        SELECT workflow_id FROM attempts WHERE org_id = ${tenant.orgId} AND attempt_id = ${body.attempt_id}`,
    );
    const history = await gw.env.client.workflow.getHandle(workflowId).fetchHistory();
    const updates = (history.events ?? []).filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
    expect(updates.length).toBeLessThanOrEqual(3);
  });

  it(`answers ${CROWD} simultaneous presentations of one new wallet execute, one fresh, debited once`, async () => {
    const wallet = await newWallet(gw, tenant);
    await fund(gw, tenant, wallet, 10_000);
    const body = {
      amount: 2.5,
      currency: 'BRL',
      recipient: 'merchant-42',
      description: 'crowded',
      mandate_id: 'mdt_test',
      attempt_id: newAttempt(),
    };
    const runs = await Promise.all(
      Array.from({ length: CROWD }, () =>
        untilAnswered(() => gw.request('POST', `/v1/wallets/${wallet}/execute`, { key: tenant.key, body })),
      ),
    );
    const every = runs.flat();
    expect(every.filter((r) => r.status >= 500)).toEqual([]);
    expect(every.filter((r) => r.status !== 200 && r.status !== 409)).toEqual([]);
    const finals = runs.map((run) => run[run.length - 1]);
    for (const r of finals) expect([r.status, r.body.status]).toEqual([200, 'completed']);
    expect(finals.filter((r) => r.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
    const balance = (await gw.request('GET', `/v1/wallets/${wallet}`, { key: tenant.key })).body.balances[0];
    expect(balance).toMatchObject({ balance_minor: '9750', available_minor: '9750' });
  });
});
