// Approvals through HTTP: a held wallet execute, the operator-only decision, replay exactly once, deny,
// time-skipped expiry, the health endpoint and its sweep, and tenant isolation.
import { sql } from 'slonik';
import { z } from 'zod';
import type { PaymentsMock } from '../providers/mocks/payments';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { expectBalanced, fund, newWallet } from './support/money';

let gw: Gateway;
let mock: PaymentsMock;
beforeAll(async () => {
  gw = await startGateway();
  mock = gw.mocks.payments as PaymentsMock;
});
afterAll(async () => {
  await gw?.stop();
});

let n = 0;
const attempt = () => `apv-att-${Date.now()}-${++n}`;

/** A tenant whose wallet execute above 50.00 BRL needs a human. */
async function heldSetup(ttlSeconds?: number) {
  const t = await gw.createTenant();
  if (ttlSeconds)
    await gw.request('PATCH', `/v1/projects/${t.projectId}/settings`, {
      key: t.key,
      body: { approval_ttl_seconds: ttlSeconds },
    });
  const rule = await gw.request('POST', '/v1/policies', {
    key: t.key,
    body: { name: 'big spends', type: 'approval-required', config: { above_minor: '5000', currency: 'BRL' } },
  });
  const wallet = await newWallet(gw, t, { agent_id: 'shopper' });
  await fund(gw, t, wallet, 100_000);
  return { t, wallet, ruleId: rule.body.id as string };
}

const spend = (t: Tenant, wallet: string, attemptId: string, amount = 120) =>
  gw.request('POST', `/v1/wallets/${wallet}/execute`, {
    key: t.key,
    body: {
      amount,
      currency: 'BRL',
      recipient: 'vendor-9',
      description: 'Server rack',
      mandate_id: 'mdt_1',
      attempt_id: attemptId,
    },
  });
const decide = (
  t: Tenant,
  id: string,
  decision: string,
  user: string | undefined = 'alice',
  extra: Record<string, unknown> = {},
) =>
  gw.operator('POST', `/v1/orgs/${t.orgId}/approvals/${id}/decide`, { user, body: { decision, ...extra } });
const status = async (t: Tenant, id: string) =>
  (await gw.request('GET', `/v1/approvals/${id}/status`, { key: t.key })).body;

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 100; i += 1) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('holding a call', () => {
  it('answers 403 with approval_id and expires_at, writes a pending approval and moves no money', async () => {
    const { t, wallet, ruleId } = await heldSetup();
    const id = attempt();
    const r = await spend(t, wallet, id);
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({
      reason: 'approval_required',
      ruleType: 'approval-required',
      ruleId,
      status: 'requires-approval',
      wallet: { holdId: null },
    });
    expect(r.body.approval_id).toMatch(/^apv_[0-9A-Za-z]{16}$/);
    expect(Date.parse(r.body.expires_at)).toBeGreaterThan(Date.now() + 86_000_000);
    const approval = await gw.request('GET', `/v1/approvals/${r.body.approval_id}`, { key: t.key });
    expect(approval.status).toBe(200);
    expect(approval.body).toMatchObject({
      status: 'pending',
      agent_id: 'shopper',
      matched_rule_id: ruleId,
      tool_name: 'wallet.execute',
      executed_at: null,
      execution_result: null,
      org_id: t.orgId,
      project_id: t.projectId,
    });
    expect(approval.body.tool_input).toMatchObject({
      wallet_id: wallet,
      amount_minor: '12000',
      recipient: 'vendor-9',
    });
    expect(mock.requests().filter((q) => q.reference === id)).toHaveLength(0);
    const balance = (await gw.request('GET', `/v1/wallets/${wallet}`, { key: t.key })).body.balances[0];
    expect(balance).toMatchObject({ balance_minor: '100000', available_minor: '100000' });
    const small = await spend(t, wallet, attempt(), 50);
    expect(small.body.status).toBe('completed');
    const evaluation = (await gw.request('GET', '/v1/policies/evaluations?decision=deny', { key: t.key }))
      .body.evaluations[0];
    expect(evaluation).toMatchObject({ denialReason: 'approval_required', approvalId: r.body.approval_id });
  });

  it('refuses API keys on the decision with 401, and needs the deciding user', async () => {
    const { t, wallet } = await heldSetup();
    const held = await spend(t, wallet, attempt());
    const withKey = await gw.request(
      'POST',
      `/v1/orgs/${t.orgId}/approvals/${held.body.approval_id}/decide`,
      { key: t.key, body: { decision: 'approve' } },
    );
    expect(withKey.status).toBe(401);
    expect(withKey.body).toEqual({ error: 'unauthorized' });
    const anonymous = await decide(t, held.body.approval_id, 'approve', '');
    expect(anonymous.status).toBe(400);
    expect(anonymous.body.error.code).toBe('user_id_required');
    expect((await decide(t, held.body.approval_id, 'maybe')).body.error.code).toBe('invalid_body');
    expect((await status(t, held.body.approval_id)).approval_status).toBe('pending');
  });
});

describe('deciding', () => {
  it('approves and replays the held call exactly once, recording executed_at and execution_result', async () => {
    const { t, wallet } = await heldSetup();
    const id = attempt();
    const held = await spend(t, wallet, id);
    const approvalId = held.body.approval_id;
    const results = await Promise.all([
      decide(t, approvalId, 'approve', 'alice', { reason: 'budgeted' }),
      decide(t, approvalId, 'approve', 'bob'),
    ]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409]);
    const winner = results.find((r) => r.status === 200)!;
    expect(winner.body).toMatchObject({ status: 'approved' });
    expect(['user:alice', 'user:bob']).toContain(winner.body.decided_by);
    expect(results.find((r) => r.status === 409)!.body.error.code).toBe('approval_not_pending');
    const done = await until(
      () => status(t, approvalId),
      (s) => s.executed_at !== null,
      'the replay',
    );
    expect(done).toMatchObject({ approval_status: 'approved', decided_by: winner.body.decided_by });
    expect(done.execution_result).toMatchObject({ status: 'completed', attempt_id: id });
    expect(
      done.execution_result.audit.map((s: { step: string; status: string }) => `${s.step}:${s.status}`),
    ).toEqual(['policy:pass', 'hold:pass', 'dispatch:pass', 'debit:pass', 'release:skip']);
    expect(mock.payments().filter((p) => p.reference === id)).toHaveLength(1);
    const balance = (await gw.request('GET', `/v1/wallets/${wallet}`, { key: t.key })).body.balances[0];
    expect(balance).toMatchObject({ balance_minor: '88000', available_minor: '88000' });
    await expectBalanced(gw, wallet);
    expect((await decide(t, approvalId, 'deny')).body.error.code).toBe('approval_not_pending');
    const again = await spend(t, wallet, id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(mock.payments().filter((p) => p.reference === id)).toHaveLength(1);
    const events = await gw.db.anyFirst(
      sql.type(
        z.object({ type: z.string() }),
      )`SELECT type FROM events WHERE data->>'approval_id' = ${approvalId} ORDER BY created_at, id`,
    );
    expect(events).toEqual(
      expect.arrayContaining([
        'approval.requested',
        'approval.approved',
        'approval.executed',
        'payment.succeeded',
      ]),
    );
  });

  it('records execution_failed when the approved replay cannot pay', async () => {
    const { t, wallet } = await heldSetup();
    const id = attempt();
    const held = await spend(t, wallet, id);
    mock.script(id, { outcome: 'refuse', code: 'insufficient_limit' });
    expect((await decide(t, held.body.approval_id, 'approve')).status).toBe(200);
    const done = await until(
      () => status(t, held.body.approval_id),
      (s) => s.executed_at !== null,
      'the replay',
    );
    expect(done.approval_status).toBe('execution_failed');
    expect(done.execution_result).toMatchObject({
      status: 'failed',
      failure: { code: 'insufficient_limit' },
    });
    expect((await gw.request('GET', `/v1/wallets/${wallet}`, { key: t.key })).body.balances[0]).toMatchObject(
      { balance_minor: '100000', available_minor: '100000' },
    );
  });

  it('denies: the call is never replayed and no money moves', async () => {
    const { t, wallet } = await heldSetup();
    const id = attempt();
    const held = await spend(t, wallet, id);
    const r = await decide(t, held.body.approval_id, 'deny', 'carol', { reason: 'not in budget' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: 'denied',
      decided_by: 'user:carol',
      decision_reason: 'not in budget',
      executed_at: null,
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await status(t, held.body.approval_id)).approval_status).toBe('denied');
    expect(mock.requests().filter((q) => q.reference === id)).toHaveLength(0);
    expect((await decide(t, held.body.approval_id, 'approve')).status).toBe(409);
  });
});

describe('health and isolation', () => {
  it('reports pending holds of the project and the last sweep', async () => {
    const { t, wallet } = await heldSetup();
    await spend(t, wallet, attempt());
    await spend(t, wallet, attempt());
    const before = await gw.request('GET', '/v1/approvals/health', { key: t.key });
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ status: 'ok', pending_count: 2 });
    expect(before.body.oldest_pending_age_seconds).toBeGreaterThanOrEqual(0);
    const swept = await gw.operator('POST', '/v1/ops/approvals/sweep');
    expect(swept.status).toBe(200);
    const after = await gw.request('GET', '/v1/approvals/health', { key: t.key });
    expect(after.body.last_sweep_at).toBe(swept.body.swept_at);
    const empty = await gw.createTenant();
    expect((await gw.request('GET', '/v1/approvals/health', { key: empty.key })).body).toMatchObject({
      pending_count: 0,
      oldest_pending_age_seconds: null,
    });
  });

  it("hides another tenant's approval on every approval route", async () => {
    const { t, wallet } = await heldSetup();
    const held = await spend(t, wallet, attempt());
    const other = await gw.createTenant();
    for (const path of [
      `/v1/approvals/${held.body.approval_id}`,
      `/v1/approvals/${held.body.approval_id}/status`,
    ]) {
      const r = await gw.request('GET', path, { key: other.key });
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
    const wrongOrg = await gw.operator(
      'POST',
      `/v1/orgs/${other.orgId}/approvals/${held.body.approval_id}/decide`,
      { user: 'mallory', body: { decision: 'approve' } },
    );
    expect(wrongOrg.status).toBe(404);
    expect((await status(t, held.body.approval_id)).approval_status).toBe('pending');
  });
});
