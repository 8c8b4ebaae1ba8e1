// Wallet execute through HTTP: the spend-attempt workflow on Temporal's test server with a real worker,
// real PostgreSQL and the mock payment provider as a real HTTP server.
import { sql } from 'slonik';
import { z } from 'zod';
import type { PaymentsMock } from '../providers/mocks/payments';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { expectBalanced, fund, newWallet } from './support/money';

let gw: Gateway;
let t: Tenant;
let mock: PaymentsMock;
beforeAll(async () => {
  process.env.PROVIDER_TIMEOUT_MS = '400';
  // The test server never moves a stopped worker's sticky tasks back to the shared queue; a real server does.
  process.env.TEMPORAL_MAX_CACHED_WORKFLOWS = '0';
  gw = await startGateway();
  mock = gw.mocks.payments as PaymentsMock;
  t = await gw.createTenant();
});
afterAll(async () => {
  await gw?.stop();
});

let n = 0;
const attempt = () => `att-${Date.now()}-${++n}`;
const body = (attemptId: string, extra: Record<string, unknown> = {}) => ({
  amount: 12.34,
  currency: 'BRL',
  recipient: 'merchant-42',
  description: 'Office supplies',
  mandate_id: 'mdt_test',
  purpose: 'supplies',
  attempt_id: attemptId,
  ...extra,
});
const execute = (walletId: string, payload: Record<string, unknown>, tenant = t) =>
  gw.request('POST', `/v1/wallets/${walletId}/execute`, { key: tenant.key, body: payload });
const balance = async (walletId: string) =>
  (await gw.request('GET', `/v1/wallets/${walletId}`, { key: t.key })).body.balances[0];
const steps = (audit: Array<{ step: string; status: string }>) => audit.map((s) => `${s.step}:${s.status}`);
const paymentsFor = (reference: string) => mock.payments().filter((p) => p.reference === reference);
const kinds = async (walletId: string) =>
  (await gw.request('GET', `/v1/wallets/${walletId}/ledger-entries`, { key: t.key })).body.entries
    .map((e: { kind: string; amount_minor: string }) => `${e.kind}:${e.amount_minor}`)
    .reverse();

describe('paying', () => {
  it('completes a payment: policy, hold, dispatch, debit, with every step in the audit', async () => {
    const wallet = await newWallet(gw, t);
    await fund(gw, t, wallet, 10_000);
    const id = attempt();
    const r = await execute(wallet, body(id));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: 'completed',
      attempt_id: id,
      wallet: { insufficientFunds: false, releaseId: null },
    });
    expect(typeof r.body.requestId).toBe('string');
    expect(steps(r.body.audit)).toEqual([
      'policy:pass',
      'hold:pass',
      'dispatch:pass',
      'debit:pass',
      'release:skip',
    ]);
    expect(r.body.wallet.holdId).toMatch(/^hld_/);
    expect(r.body.wallet.debitId).toMatch(/^\d+$/);
    expect(await balance(wallet)).toMatchObject({ balance_minor: '8766', available_minor: '8766' });
    expect(await kinds(wallet)).toEqual(['fund:10000', 'hold:-1234', 'debit:-1234']);
    expect(paymentsFor(id)).toHaveLength(1);
    expect(paymentsFor(id)[0]).toMatchObject({
      amount_minor: '1234',
      currency: 'BRL',
      recipient: 'merchant-42',
    });
    const events = await gw.db.anyFirst(
      sql.type(
        z.object({ type: z.string() }),
      )`SELECT type FROM events WHERE data->>'attempt_id' = ${id} ORDER BY created_at, id`,
    );
    expect(events).toEqual(expect.arrayContaining(['ledger.entry_posted', 'payment.succeeded']));
    await expectBalanced(gw, wallet);
  });

  it('answers a repeated attempt from the stored result without moving money again', async () => {
    const wallet = await newWallet(gw, t);
    await fund(gw, t, wallet, 5_000);
    const id = attempt();
    const first = await execute(wallet, body(id));
    const again = await execute(wallet, body(id));
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(paymentsFor(id)).toHaveLength(1);
    expect(await balance(wallet)).toMatchObject({ balance_minor: '3766' });
  });

  it('moves money once when duplicates of one attempt race', async () => {
    const wallet = await newWallet(gw, t);
    await fund(gw, t, wallet, 5_000);
    const id = attempt();
    const results = await Promise.all(Array.from({ length: 6 }, () => execute(wallet, body(id))));
    for (const r of results) expect([r.status, r.body.status]).toEqual([200, 'completed']);
    expect(new Set(results.map((r) => r.body.wallet.debitId)).size).toBe(1);
    expect(paymentsFor(id)).toHaveLength(1);
    expect(await balance(wallet)).toMatchObject({ balance_minor: '3766', available_minor: '3766' });
    await expectBalanced(gw, wallet);
  });

  it('refuses the same attempt_id with a different body with attempt_id_conflict', async () => {
    const wallet = await newWallet(gw, t);
    await fund(gw, t, wallet, 5_000);
    const id = attempt();
    expect((await execute(wallet, body(id))).status).toBe(200);
    const r = await execute(wallet, body(id, { amount: 99 }));
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('attempt_id_conflict');
    expect(await balance(wallet)).toMatchObject({ balance_minor: '3766' });
  });

  it('reports insufficient funds in the result, holds nothing and calls no provider', async () => {
    const wallet = await newWallet(gw, t);
    await fund(gw, t, wallet, 100);
    const id = attempt();
    const r = await execute(wallet, body(id));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: 'failed',
      wallet: { insufficientFunds: true, holdId: null, debitId: null },
    });
    expect(steps(r.body.audit)).toEqual(['policy:pass', 'hold:fail']);
    expect(paymentsFor(id)).toHaveLength(0);
    expect(mock.requests().filter((q) => q.reference === id)).toHaveLength(0);
    expect(await balance(wallet)).toMatchObject({ balance_minor: '100', available_minor: '100' });
  });

  it('releases the hold when the provider refuses the payment', async () => {
    const wallet = await newWallet(gw, t);
    await fund(gw, t, wallet, 5_000);
    const id = attempt();
    mock.script(id, { outcome: 'refuse', code: 'card_declined' });
    const r = await execute(wallet, body(id));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: 'failed',
      failure: { code: 'card_declined' },
      wallet: { debitId: null },
    });
    expect(r.body.wallet.releaseId).toMatch(/^\d+$/);
    expect(steps(r.body.audit)).toEqual([
      'policy:pass',
      'hold:pass',
      'dispatch:fail',
      'debit:skip',
      'release:pass',
    ]);
    expect(await kinds(wallet)).toEqual(['fund:5000', 'hold:-1234', 'release:1234']);
    expect(await balance(wallet)).toMatchObject({ balance_minor: '5000', available_minor: '5000' });
    await expectBalanced(gw, wallet);
  });

  it('retries a provider that fails once and pays exactly once', async () => {
    const wallet = await newWallet(gw, t);
    await fund(gw, t, wallet, 5_000);
    const id = attempt();
    mock.script(id, { outcome: 'fail_once' });
    const r = await execute(wallet, body(id));
    expect(r.body.status).toBe('completed');
    const requests = mock.requests().filter((q) => q.reference === id);
    expect(requests).toHaveLength(2);
    expect(new Set(requests.map((q) => q.idempotencyKey))).toEqual(new Set([`spend/${t.orgId}/${id}`]));
    expect(paymentsFor(id)).toHaveLength(1);
    expect(await balance(wallet)).toMatchObject({ balance_minor: '3766' });
  });

  it('fails and releases the hold when the provider keeps timing out', async () => {
    const wallet = await newWallet(gw, t);
    await fund(gw, t, wallet, 5_000);
    const id = attempt();
    mock.script(id, { outcome: 'timeout' });
    const r = await execute(wallet, body(id));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'failed', failure: { code: 'provider_unreachable' } });
    expect(mock.requests().filter((q) => q.reference === id)).toHaveLength(3);
    expect(await balance(wallet)).toMatchObject({ balance_minor: '5000', available_minor: '5000' });
    await expectBalanced(gw, wallet);
  });

  it('answers a policy denial with 403, the flat denial body and the result, and holds nothing', async () => {
    const tenant = await gw.createTenant();
    const wallet = await newWallet(gw, tenant, { agent_id: 'buyer-1' });
    await fund(gw, tenant, wallet, 5_000);
    const rule = await gw.request('POST', '/v1/policies', {
      key: tenant.key,
      body: {
        name: 'cap',
        type: 'budget',
        agents: ['buyer-*'],
        config: { currency: 'BRL', cap_minor: '1000', window: 'day' },
      },
    });
    const id = attempt();
    const r = await execute(wallet, body(id), tenant);
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({
      reason: 'budget_exceeded',
      ruleType: 'budget',
      ruleId: rule.body.id,
      status: 'denied',
      wallet: { holdId: null },
    });
    expect(steps(r.body.audit)).toEqual(['policy:fail', 'hold:skip']);
    const evaluations = await gw.request('GET', '/v1/policies/evaluations?tool_name=wallet.execute', {
      key: tenant.key,
    });
    expect(evaluations.body.evaluations[0]).toMatchObject({
      agentId: 'buyer-1',
      decision: 'deny',
      denialReason: 'budget_exceeded',
    });
    const within = await execute(wallet, body(attempt(), { amount: 9.99 }), tenant);
    expect(within.body.status).toBe('completed');
  });

  it('refuses a frozen wallet with wallet_not_active, and the attempt id stays usable', async () => {
    const wallet = await newWallet(gw, t);
    await fund(gw, t, wallet, 5_000);
    await gw.request('POST', `/v1/wallets/${wallet}/freeze`, { key: t.key });
    const id = attempt();
    const r = await execute(wallet, body(id));
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('wallet_not_active');
    await gw.request('POST', `/v1/wallets/${wallet}/unfreeze`, { key: t.key });
    expect((await execute(wallet, body(id))).body.status).toBe('completed');
  });

  it('refuses bad input with invalid_body and starts nothing', async () => {
    const wallet = await newWallet(gw, t);
    for (const payload of [
      body(attempt(), { amount: 1.005 }),
      body(attempt(), { amount: 0 }),
      body(attempt(), { amount: '10' }),
      body(attempt(), { currency: 'EUR' }),
      { ...body(attempt()), mandate_id: undefined },
      body(attempt(), { recipient: '' }),
    ]) {
      const r = await execute(wallet, payload);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('invalid_body');
    }
  });

  it("answers 404 for another tenant's wallet and never reveals another tenant's attempt", async () => {
    const other = await gw.createTenant();
    const wallet = await newWallet(gw, t);
    await fund(gw, t, wallet, 5_000);
    const r = await execute(wallet, body(attempt()), other);
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('not_found');
    const id = attempt();
    await execute(wallet, body(id));
    const theirs = await newWallet(gw, other);
    await fund(gw, other, theirs, 5_000);
    const same = await execute(theirs, body(id), other);
    expect(same.body.status).toBe('completed'); // attempt ids are per organization
    expect(await balance(wallet)).toMatchObject({ balance_minor: '3766' });
  });
});

describe('durability', () => {
  it('completes exactly once when the worker stops after the hold and before the debit', async () => {
    const wallet = await newWallet(gw, t);
    await fund(gw, t, wallet, 5_000);
    const id = attempt();
    mock.script(id, { outcome: 'hang' });
    const pending = execute(wallet, body(id));
    await mock.arrived(id);
    expect(await balance(wallet)).toMatchObject({ balance_minor: '5000', available_minor: '3766' }); // held, not debited
    await gw.stopWorker();
    mock.release(id); // the provider pays, but the worker that asked is gone
    expect(paymentsFor(id)).toHaveLength(1);
    await gw.startWorker();
    let r = await pending;
    // A caller whose wait ran out is told attempt_in_progress and retries with the same attempt_id.
    for (let i = 0; i < 5 && r.status === 409; i += 1) r = await execute(wallet, body(id));
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('completed');
    expect(paymentsFor(id)).toHaveLength(1);
    expect(r.body.payment.provider_payment_id).toBe(paymentsFor(id)[0].id);
    expect(await kinds(wallet)).toEqual(['fund:5000', 'hold:-1234', 'debit:-1234']);
    expect(await balance(wallet)).toMatchObject({ balance_minor: '3766', available_minor: '3766' });
    await expectBalanced(gw, wallet);
    const again = await execute(wallet, body(id));
    expect(again.body).toEqual(r.body);
  });
});
