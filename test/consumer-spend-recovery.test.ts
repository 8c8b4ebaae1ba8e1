// Consumer spends when the provider or the worker fails, through HTTP: an unknown provider outcome
// answers psp_dispatch_uncertain and presenting the same attempt_id again asks the provider (paid or
// never received) and never pays twice; a worker lost between dispatch and debit completes exactly once.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { sql } from 'slonik';
import { z } from 'zod';
import type { PixPspMock } from '../providers/mocks/pix-psp';
import { pixSpend, readyConsumer } from './support/consumer-spend';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { workflowIds } from '../contracts/workflow-ids';
import { expectBalanced } from './support/money';
import { localActivities } from './support/histories';

let gw: Gateway;
let tenant: Tenant;
let psp: PixPspMock;
beforeAll(async () => {
  process.env.PROVIDER_TIMEOUT_MS = '1500';
  // The test server never moves a stopped worker's sticky tasks back to the shared queue; a real server does.
  process.env.TEMPORAL_MAX_CACHED_WORKFLOWS = '0';
  gw = await startGateway();
  tenant = await gw.createTenant();
  psp = gw.mocks.pix_psp as unknown as PixPspMock;
});
afterAll(async () => {
  await gw?.stop();
});

const execute = (body: unknown) =>
  gw.request('POST', '/v1/consumer-payments/execute', { key: tenant.key, body });
const kinds = async (walletId: string) => {
  const listed = await gw.request('GET', `/v1/wallets/${walletId}/ledger-entries`, { key: tenant.key });
  return (listed.body.entries as Array<{ kind: string; amount_minor: string }>)
    .map((e) => `${e.kind}:${e.amount_minor}`)
    .reverse();
};
const paymentsFor = (attemptId: string) => psp.payments().filter((p) => p.reference === attemptId);
const completedEvents = async (attemptId: string) =>
  gw.db.oneFirst(
    sql.type(
      z.object({ n: z.number() }),
    )`SELECT count(*)::int AS n FROM events WHERE type = 'payment.succeeded' AND data->>'attempt_id' = ${attemptId}`,
  );

/** A caller whose wait ran out hears attempt_in_progress and presents the same attempt again. */
async function settle(body: { attempt_id: string }, first: Promise<Awaited<ReturnType<typeof execute>>>) {
  let result = await first;
  for (let i = 0; i < 10 && result.status === 409 && result.body.error.code === 'attempt_in_progress'; i += 1)
    result = await execute(body);
  return result;
}

describe('psp_dispatch_uncertain', () => {
  it('is resolved by presenting the same attempt_id again when the provider paid but never answered', async () => {
    const c = await readyConsumer(gw, tenant, { fundMinor: 10_000 });
    const body = pixSpend(c, { amount_minor: 3_000 });
    psp.script(body.attempt_id, { outcome: 'timeout' });
    const uncertain = await execute(body);
    expect(uncertain.status).toBe(502);
    expect(uncertain.body.error.code).toBe('psp_dispatch_uncertain');
    expect(await kinds(c.walletId)).toEqual(['fund:10000', 'hold:-3000']); // still held: nothing is known
    expect(paymentsFor(body.attempt_id)).toHaveLength(1);
    // Freezing the sub-account stops new holds, not the settlement of money the provider already moved.
    expect((await gw.request('POST', `/v1/wallets/${c.walletId}/freeze`, { key: tenant.key })).status).toBe(
      200,
    );

    const resolved = await settle(body, execute(body));
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({
      status: 'completed',
      payment: { provider_payment_id: paymentsFor(body.attempt_id)[0].id },
    });
    expect(resolved.body.audit.map((s: { step: string }) => s.step)).toContain('resolve');
    expect(paymentsFor(body.attempt_id)).toHaveLength(1);
    expect(psp.requests().filter((r) => r.reference === body.attempt_id)).toHaveLength(1); // asked, never resent
    expect(await kinds(c.walletId)).toEqual(['fund:10000', 'hold:-3000', 'debit:-3000']);
    expect(await completedEvents(body.attempt_id)).toBe(1);
    const replay = await execute(body);
    expect(replay.body).toEqual({ ...resolved.body, idempotent_replay: true });
    const refused = await execute(pixSpend(c, { amount_minor: 100 }));
    expect([refused.status, refused.body.error.code]).toEqual([409, 'wallet_not_active']);
  });

  it('resends under the same key when the provider says the request never arrived, and pays once', async () => {
    const c = await readyConsumer(gw, tenant, { fundMinor: 10_000 });
    const body = pixSpend(c, { amount_minor: 1_500 });
    psp.script(body.attempt_id, { outcome: 'lost' });
    const uncertain = await execute(body);
    expect([uncertain.status, uncertain.body.error.code]).toEqual([502, 'psp_dispatch_uncertain']);
    expect(paymentsFor(body.attempt_id)).toHaveLength(0);

    psp.script(body.attempt_id, { outcome: 'succeed' });
    const resolved = await settle(body, execute(body));
    expect(resolved.status).toBe(200);
    expect(resolved.body.status).toBe('completed');
    expect(paymentsFor(body.attempt_id)).toHaveLength(1);
    expect(
      new Set(
        psp
          .requests()
          .filter((r) => r.reference === body.attempt_id)
          .map((r) => r.idempotencyKey),
      ).size,
    ).toBe(1);
    expect(await kinds(c.walletId)).toEqual(['fund:10000', 'hold:-1500', 'debit:-1500']);
    await expectBalanced(gw, c.walletId);
  });
});

describe('durability', () => {
  it('completes exactly once when the worker stops between dispatch and debit', async () => {
    const c = await readyConsumer(gw, tenant, { fundMinor: 10_000 });
    const body = pixSpend(c, { amount_minor: 2_000 });
    psp.script(body.attempt_id, { outcome: 'late', delayMs: 600 });
    const pending = execute(body);
    await psp.arrived(body.attempt_id);
    expect(await kinds(c.walletId)).toEqual(['fund:10000', 'hold:-2000']); // dispatched, not debited
    await gw.stopWorker();
    expect(paymentsFor(body.attempt_id)).toHaveLength(1);
    await gw.startWorker();
    const result = await settle(body, pending);
    expect(result.status).toBe(200);
    expect(result.body.status).toBe('completed');
    expect(paymentsFor(body.attempt_id)).toHaveLength(1);
    expect(await kinds(c.walletId)).toEqual(['fund:10000', 'hold:-2000', 'debit:-2000']);
    expect(await completedEvents(body.attempt_id)).toBe(1);
    await expectBalanced(gw, c.walletId);
  });
});

describe('determinism', () => {
  const bundle = () => ({ workflowBundle: { codePath: process.env.GATEWAY_WORKFLOW_BUNDLE! } });

  it('replays a spend whose steps and dispatch ran as local activities, and shows they left no scheduled activity behind', async () => {
    const c = await readyConsumer(gw, tenant, { fundMinor: 10_000 });
    const body = pixSpend(c, { amount_minor: 1_000 });
    expect((await execute(body)).body.status).toBe('completed');
    const handle = gw.env.client.workflow.getHandle(workflowIds.consumerSpend(tenant.orgId, body.attempt_id));
    await handle.result();
    const history = await handle.fetchHistory();
    await Worker.runReplayHistory(bundle(), history, 'consumer-spend/current');
    const scheduled = history.events!.flatMap(
      (event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? [],
    );
    expect(scheduled).toEqual([]);
    // The one engine's steps, authorized, sent and settled in one: the family stores its own answers, so no
    // finishing step follows the debit.
    expect(localActivities(history)).toEqual(['decideAttempt']);
  });

  it('replays a spend recorded before the database steps became local activities', async () => {
    // Binary History protobuf of a completed Pix spend whose lookup, authorization and settlement were scheduled activities.
    const history = temporal.api.history.v1.History.decode(
      readFileSync(path.join(__dirname, 'replay', 'consumer-spend-scheduled-steps.history')),
    );
    await Worker.runReplayHistory(bundle(), history, 'consumer-spend/recorded');
  });
});
