// Consumer spends on real signed mandates, through HTTP against the real workflow, ledger and mock PSP:
// a Pix spend end to end (hold, dispatch, debit, receipt with both signatures, payment.succeeded), the
// verbatim replay and attempt_id_conflict, insufficient funds, racing spends on the cumulative cap, TED
// from the signed withdrawal allowlist, policy denials and approval holds replayed once on approval.
import nacl from 'tweetnacl';
import { sql } from 'slonik';
import { z } from 'zod';
import { receiptSecretBytes } from '../domain/receipts/consumer-secrets';
import { hmacMatches } from '../domain/receipts/signatures';
import type { PixPspMock } from '../providers/mocks/pix-psp';
import type { TedMock } from '../providers/mocks/ted-bank';
import { waitFor } from './support/consents';
import { newAttempt, pixSpend, readyConsumer, TED_DESTINATION, tedSpend } from './support/consumer-spend';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { expectBalanced, fund } from './support/money';

let gw: Gateway;
let tenant: Tenant;
let other: Tenant;
let psp: PixPspMock;
beforeAll(async () => {
  gw = await startGateway();
  tenant = await gw.createTenant();
  other = await gw.createTenant();
  psp = gw.mocks.pix_psp as unknown as PixPspMock;
});
afterAll(async () => {
  await gw?.stop();
});

const execute = (body: unknown, key = tenant.key) =>
  gw.request('POST', '/v1/consumer-payments/execute', { key, body });
const balance = async (walletId: string, t = tenant) =>
  (await gw.request('GET', `/v1/wallets/${walletId}`, { key: t.key })).body.balances[0];
const kinds = async (walletId: string) => {
  const listed = await gw.request('GET', `/v1/wallets/${walletId}/ledger-entries`, { key: tenant.key });
  return (listed.body.entries as Array<{ kind: string; amount_minor: string }>)
    .map((e) => `${e.kind}:${e.amount_minor}`)
    .reverse();
};
const eventCount = async (type: string, attemptId: string) =>
  gw.db.oneFirst(
    sql.type(
      z.object({ n: z.number() }),
    )`SELECT count(*)::int AS n FROM events WHERE type = ${type} AND data->>'attempt_id' = ${attemptId}`,
  );
const paymentsFor = (attemptId: string) => psp.payments().filter((p) => p.reference === attemptId);

describe('a Pix spend on a signed mandate', () => {
  it('holds, dispatches, debits and seals a receipt signed both ways, then says payment.succeeded once', async () => {
    const c = await readyConsumer(gw, tenant, { fundMinor: 10_000 });
    const body = pixSpend(c);
    const result = await execute(body);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({
      status: 'completed',
      attempt_id: body.attempt_id,
      idempotent_replay: false,
      mandate: { id: c.mandateId, consumer_id: c.consumerId },
      payment: {
        rail: 'pix',
        amount_minor: '2500',
        currency: 'BRL',
        provider_payment_id: paymentsFor(body.attempt_id)[0].id,
      },
      wallet: {
        holdId: expect.stringMatching(/^hld_/),
        debitId: expect.any(String),
        releaseId: null,
        insufficientFunds: false,
      },
    });
    expect(result.body.audit.map((s: { step: string }) => s.step)).toEqual(
      expect.arrayContaining([
        'signature',
        'agent',
        'mandate',
        'purpose',
        'currency',
        'per_tx_cap',
        'cumulative_cap',
        'allowlist',
        'policy',
        'hold',
        'dispatch',
        'debit',
        'receipt',
      ]),
    );
    expect(paymentsFor(body.attempt_id)).toHaveLength(1);
    expect(await kinds(c.walletId)).toEqual(['fund:10000', 'hold:-2500', 'debit:-2500']);
    expect(await balance(c.walletId)).toMatchObject({ balance_minor: '7500', available_minor: '7500' });
    await expectBalanced(gw, c.walletId);

    const receipt = result.body.receipt;
    expect(receipt).toMatchObject({
      state: 'paid',
      payment: {
        rail: 'pix',
        amount_minor: '2500',
        attempt_id: body.attempt_id,
        money_moved: true,
        sandbox: true,
      },
    });
    expect(hmacMatches(receiptSecretBytes(c.receiptSecret), receipt.chain.hash, receipt.receipt_sig)).toBe(
      true,
    );
    const jwks = await gw.request('GET', '/v1/receipts/signing-keys', { key: tenant.key });
    const jwk = jwks.body.keys.find((k: { kid: string }) => k.kid === receipt.signatures.ed25519_kid);
    expect(
      nacl.sign.detached.verify(
        new TextEncoder().encode(receipt.signatures.message),
        new Uint8Array(Buffer.from(receipt.receipt_sig_ed25519, 'base64url')),
        new Uint8Array(Buffer.from(jwk.x, 'base64url')),
      ),
    ).toBe(true);
    const listed = await gw.request('GET', `/v1/consumers/${c.consumerId}/receipts`, { key: tenant.key });
    expect(listed.body.receipts.map((r: { receipt_id: string }) => r.receipt_id)).toEqual([
      receipt.receipt_id,
    ]);
    expect(await eventCount('payment.succeeded', body.attempt_id)).toBe(1);

    const mandate = await gw.request('GET', `/v1/consumers/${c.consumerId}/wallet`, { key: tenant.key });
    expect(mandate.status).toBe(200);
    expect(mandate.body.currencies).toEqual([
      expect.objectContaining({ currency: 'BRL', spent_minor: 2500 }),
    ]);
  });

  it('answers a verbatim replay with idempotent_replay: true and pays nothing more; any change is attempt_id_conflict', async () => {
    const c = await readyConsumer(gw, tenant, { fundMinor: 10_000 });
    const body = pixSpend(c, { amount_minor: 1_000 });
    const first = await execute(body);
    expect(first.status).toBe(200);
    const again = await execute(body);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...first.body, idempotent_replay: true });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    for (const change of [
      { amount_minor: 1_001 },
      { payee: 'outra@example.com' },
      { approval: { items_hash: '1'.repeat(64), batch_hash: '2'.repeat(64) } },
    ]) {
      const changed = await execute({ ...body, ...change });
      expect([changed.status, changed.body.error.code]).toEqual([409, 'attempt_id_conflict']);
    }
    expect(paymentsFor(body.attempt_id)).toHaveLength(1);
    expect(await kinds(c.walletId)).toEqual(['fund:10000', 'hold:-1000', 'debit:-1000']);
    expect(await eventCount('payment.succeeded', body.attempt_id)).toBe(1);
  });

  it('spends twice without attempt_id as two payments, never replayed', async () => {
    const c = await readyConsumer(gw, tenant, { fundMinor: 10_000 });
    const body = pixSpend(c, { amount_minor: 700, attempt_id: undefined });
    const [a, b] = [await execute(body), await execute(body)];
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.attempt_id).not.toBe(b.body.attempt_id);
    expect(b.body.idempotent_replay).toBe(false);
    expect(await balance(c.walletId)).toMatchObject({ balance_minor: '8600' });
  });

  it('refuses a spend the sub-account cannot cover with insufficient_funds, holding and paying nothing', async () => {
    const c = await readyConsumer(gw, tenant, { fundMinor: 1_000 });
    const body = pixSpend(c, { amount_minor: 2_000 });
    const result = await execute(body);
    expect(result.status).toBe(422);
    expect(result.body.error).toMatchObject({
      code: 'insufficient_funds',
      details: { available_minor: '1000', amount_minor: '2000' },
    });
    expect(paymentsFor(body.attempt_id)).toHaveLength(0);
    expect(await kinds(c.walletId)).toEqual(['fund:1000']);
    // The reservation was rolled back with the refusal: the full cap is still there for a covered spend.
    await fund(gw, tenant, c.walletId, 5_000);
    expect((await execute(pixSpend(c, { amount_minor: 2_000 }))).status).toBe(200);
  });

  it('releases the hold when the PSP refuses, and says psp_refused', async () => {
    const c = await readyConsumer(gw, tenant, { fundMinor: 5_000 });
    const body = pixSpend(c, { amount_minor: 1_200 });
    psp.script(body.attempt_id, { outcome: 'refuse', reason: 'AM04' });
    const result = await execute(body);
    expect([result.status, result.body.error.code]).toEqual([422, 'psp_refused']);
    expect(await kinds(c.walletId)).toEqual(['fund:5000', 'hold:-1200', 'release:1200']);
    expect(await balance(c.walletId)).toMatchObject({ balance_minor: '5000', available_minor: '5000' });
  });

  it('refuses above the per-transaction cap on the registered-mandate route the same way', async () => {
    const c = await readyConsumer(gw, tenant, { fundMinor: 5_000 });
    const result = await gw.request('POST', `/v1/consumers/mandates/${c.mandateId}/spend`, {
      key: tenant.key,
      body: { ...pixSpend(c, { amount_minor: 1_500 }), mandate: undefined },
    });
    expect(result.status).toBe(200);
    expect(result.body.mandate.id).toBe(c.mandateId);
    const foreign = await gw.request('POST', `/v1/consumers/mandates/${c.mandateId}/spend`, {
      key: other.key,
      body: { ...pixSpend(c), mandate: undefined },
    });
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'mandate_not_found']);
  });
});

describe('caps', () => {
  it('never lets racing spends exceed the cumulative cap', async () => {
    const c = await readyConsumer(gw, tenant, {
      fundMinor: 100_000,
      intent: { cap_minor: 10_000, per_tx_cap_minor: 3_000 },
    });
    const bodies = Array.from({ length: 10 }, () => pixSpend(c, { amount_minor: 2_500 }));
    const results = await Promise.all(bodies.map((b) => execute(b)));
    const completed = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status !== 200);
    expect(completed).toHaveLength(4);
    for (const r of refused) expect([r.status, r.body.error.code]).toEqual([422, 'cumulative_cap_exceeded']);
    expect(await balance(c.walletId)).toMatchObject({ balance_minor: '90000', available_minor: '90000' });
    expect(psp.payments().filter((p) => bodies.some((b) => b.attempt_id === p.reference))).toHaveLength(4);
    await expectBalanced(gw, c.walletId);
  });

  it('holds a Pix spend above the per-transaction cap for a person, and pays it once on approval', async () => {
    const c = await readyConsumer(gw, tenant, { fundMinor: 50_000 });
    const body = pixSpend(c, { amount_minor: 12_000 });
    const held = await execute(body);
    expect(held.status).toBe(403);
    expect(held.body.error).toMatchObject({
      code: 'approval_required',
      details: { approval_id: expect.stringMatching(/^apv_/) },
    });
    const approvalId = held.body.error.details.approval_id as string;
    expect(paymentsFor(body.attempt_id)).toHaveLength(0);
    expect(await kinds(c.walletId)).toEqual(['fund:50000']);

    const decided = await gw.operator('POST', `/v1/orgs/${tenant.orgId}/approvals/${approvalId}/decide`, {
      user: 'alice',
      body: { decision: 'approve' },
    });
    expect(decided.status).toBe(200);
    await waitFor(async () => (await eventCount('payment.succeeded', body.attempt_id)) === 1, 20_000);
    const approval = await gw.request('GET', `/v1/approvals/${approvalId}`, { key: tenant.key });
    expect(approval.body).toMatchObject({ status: 'approved', decided_by: 'user:alice' });
    const again = await gw.operator('POST', `/v1/orgs/${tenant.orgId}/approvals/${approvalId}/decide`, {
      user: 'alice',
      body: { decision: 'approve' },
    });
    expect(again.status).toBe(409);
    const replay = await execute(body);
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({
      status: 'completed',
      idempotent_replay: true,
      payment: { amount_minor: '12000' },
    });
    expect(await kinds(c.walletId)).toEqual(['fund:50000', 'hold:-12000', 'debit:-12000']);
    expect(paymentsFor(body.attempt_id)).toHaveLength(1);
  });
});

describe('TED', () => {
  it("sends money from the consumer's own sub-account to a destination in the signed withdrawal allowlist", async () => {
    const ted = gw.mocks.ted as unknown as TedMock;
    const c = await readyConsumer(gw, tenant, {
      fundMinor: 20_000,
      intent: { withdrawal_allowlist: [TED_DESTINATION] },
    });
    const body = tedSpend(c, { amount_minor: 5_000 });
    const result = await execute(body);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({
      status: 'completed',
      payment: { rail: 'ted', payee: TED_DESTINATION },
    });
    expect(result.body.audit).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          step: 'allowlist',
          detail: expect.stringContaining('withdrawal_allowlist'),
        }),
      ]),
    );
    const sent = ted.transfers().filter((t) => t.reference === body.attempt_id);
    expect(sent).toHaveLength(1);
    expect(JSON.stringify(sent[0])).toContain(c.walletId);
    expect(await kinds(c.walletId)).toEqual(['fund:20000', 'hold:-5000', 'debit:-5000']);
  });

  it('refuses a destination outside the withdrawal allowlist with withdrawal_pin, even under a * merchant allowlist', async () => {
    const c = await readyConsumer(gw, tenant, { fundMinor: 20_000 });
    const result = await execute(tedSpend(c, { amount_minor: 5_000 }));
    expect([result.status, result.body.error.code]).toEqual([403, 'withdrawal_pin']);
    expect(await kinds(c.walletId)).toEqual(['fund:20000']);
  });
});

describe('policy rules', () => {
  it("applies the project's deny rules to consumer spends by tool name", async () => {
    const t = await gw.createTenant();
    const rule = await gw.request('POST', '/v1/policies', {
      key: t.key,
      body: {
        name: 'No Pix for agents',
        type: 'deny',
        agents: ['agent-*'],
        tools: ['consumer_payments.pix'],
      },
    });
    expect(rule.status).toBe(201);
    const c = await readyConsumer(gw, t, { fundMinor: 5_000 });
    const result = await execute(pixSpend(c, { amount_minor: 100 }), t.key);
    expect(result.status).toBe(403);
    expect(result.body).toMatchObject({ reason: 'denied_by_rule', ruleType: 'deny', ruleId: rule.body.id });
    expect(await balance(c.walletId, t)).toMatchObject({ available_minor: '5000' });
  });
});

describe('approval-required rules', () => {
  it('hold a spend for a person, link the evaluation to the approval, and pay once on approval', async () => {
    const t = await gw.createTenant();
    const rule = await gw.request('POST', '/v1/policies', {
      key: t.key,
      body: {
        name: 'Big Pix',
        type: 'approval-required',
        agents: ['agent-*'],
        tools: ['consumer_payments.*'],
        config: { above_minor: '500', currency: 'BRL' },
      },
    });
    expect(rule.status).toBe(201);
    const c = await readyConsumer(gw, t, { fundMinor: 5_000 });
    const body = pixSpend(c, { amount_minor: 1_000 });
    const held = await execute(body, t.key);
    expect(held.status).toBe(403);
    expect(held.body).toMatchObject({
      reason: 'approval_required',
      ruleType: 'approval-required',
      ruleId: rule.body.id,
      approval_id: expect.stringMatching(/^apv_/),
      expires_at: expect.any(String),
    });
    const approvalId = held.body.approval_id as string;
    const evaluations = await gw.db.anyFirst(sql.type(z.object({ approval_id: z.string().nullable() }))`
      SELECT approval_id FROM policy_evaluations WHERE org_id = ${t.orgId} AND tool_name = 'consumer_payments.pix'`);
    expect(evaluations).toEqual([approvalId]);
    expect(await balance(c.walletId, t)).toMatchObject({ available_minor: '5000' });

    const decided = await gw.operator('POST', `/v1/orgs/${t.orgId}/approvals/${approvalId}/decide`, {
      user: 'bob',
      body: { decision: 'approve' },
    });
    expect(decided.status).toBe(200);
    await waitFor(async () => (await eventCount('payment.succeeded', body.attempt_id)) === 1, 20_000);
    expect(await balance(c.walletId, t)).toMatchObject({ balance_minor: '4000', available_minor: '4000' });
    expect(paymentsFor(body.attempt_id)).toHaveLength(1);
  });

  it('move no money when the person denies', async () => {
    const t = await gw.createTenant();
    await gw.request('POST', '/v1/policies', {
      key: t.key,
      body: {
        name: 'Big Pix',
        type: 'approval-required',
        agents: ['agent-*'],
        tools: ['consumer_payments.*'],
        config: { above_minor: '500', currency: 'BRL' },
      },
    });
    const c = await readyConsumer(gw, t, { fundMinor: 5_000 });
    const body = pixSpend(c, { amount_minor: 1_000 });
    const held = await execute(body, t.key);
    const approvalId = held.body.approval_id as string;
    const decided = await gw.operator('POST', `/v1/orgs/${t.orgId}/approvals/${approvalId}/decide`, {
      user: 'bob',
      body: { decision: 'deny' },
    });
    expect(decided.status).toBe(200);
    await waitFor(
      async () =>
        (await gw.request('GET', `/v1/approvals/${approvalId}`, { key: t.key })).body.status === 'denied',
    );
    expect(paymentsFor(body.attempt_id)).toHaveLength(0);
    expect(await balance(c.walletId, t)).toMatchObject({ balance_minor: '5000', available_minor: '5000' });
    const again = await execute(body, t.key);
    expect([again.status, again.body.reason, again.body.approval_id, again.body.idempotent_replay]).toEqual([
      403,
      'approval_required',
      approvalId,
      true,
    ]);
  });
});

describe('the sub-account', () => {
  it("opens once per consumer and is another project's 404", async () => {
    const c = await readyConsumer(gw, tenant);
    const again = await gw.request('POST', `/v1/consumers/${c.consumerId}/sub-account`, { key: tenant.key });
    expect([again.status, again.body.id]).toEqual([200, c.walletId]);
    const foreign = await gw.request('POST', `/v1/consumers/${c.consumerId}/sub-account`, { key: other.key });
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'not_found']);
    expect((await gw.request('GET', `/v1/wallets/${c.walletId}`, { key: other.key })).status).toBe(404);
  });
});

it('keeps attempt ids per organization', async () => {
  const c = await readyConsumer(gw, tenant, { fundMinor: 5_000 });
  const body = pixSpend(c, { amount_minor: 100, attempt_id: newAttempt() });
  expect((await execute(body)).status).toBe(200);
  const elsewhere = await execute(body, other.key);
  expect(elsewhere.status).not.toBe(409);
});
