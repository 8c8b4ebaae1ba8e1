// Replays of settled attempts served from the API process's memory (api/settled-replies.ts), through HTTP:
// a warm replay is the stored reply byte for byte without reading its attempt from PostgreSQL, yet every
// change is still attempt_id_conflict, another project's or organization's presentation is judged by
// PostgreSQL as before, and an answer that can still change (held for approval) is never kept. Racing
// duplicates of a new attempt still pay once now that the claim and the read of a taken id are one statement.
import { Client } from 'pg';
import { sql } from 'slonik';
import { z } from 'zod';
import * as prepare from '../domain/consumer-payments/prepare';
import { waitFor } from './support/consents';
import { pixSpend, readyConsumer, TED_DESTINATION } from './support/consumer-spend';
import { startGateway, type Gateway, type HttpResult, type Tenant } from './support/harness';
import { fund, newWallet } from './support/money';

let gw: Gateway;
let tenant: Tenant;
let other: Tenant;
beforeAll(async () => {
  gw = await startGateway();
  tenant = await gw.createTenant();
  other = await gw.createTenant();
});
afterAll(async () => {
  await gw?.stop();
});

/** Runs `action`, counting the statements sent to PostgreSQL that touch the attempts table. */
async function attemptStatements<T>(
  action: () => Promise<T>,
): Promise<{ result: T; statements: number; texts: string[] }> {
  const spy = jest.spyOn(Client.prototype, 'query');
  try {
    const result = await action();
    const texts = spy.mock.calls
      .map(([query]) =>
        (typeof query === 'string' ? query : ((query as { text?: string } | undefined)?.text ?? ''))
          .replace(/\s+/g, ' ')
          .trim(),
      )
      .filter((text) => /\battempts\b/.test(text));
    return { result, statements: texts.length, texts };
  } finally {
    spy.mockRestore();
  }
}

/** A second project in the tenant's organization, with its own key. */
async function sisterProject(): Promise<{ key: string }> {
  const created = await gw.request('POST', '/v1/projects', {
    key: tenant.key,
    body: { name: 'Sister', slug: `sister-${Date.now()}` },
  });
  if (created.status !== 201) throw new Error(`project create failed: ${created.status} ${created.text}`);
  return gw.createKey(created.body.id);
}

const execute = (body: unknown, key = tenant.key) =>
  gw.request('POST', '/v1/consumer-payments/execute', { key, body });
const eventCount = async (type: string, attemptId: string) =>
  gw.db.oneFirst(
    sql.type(
      z.object({ n: z.number() }),
    )`SELECT count(*)::int AS n FROM events WHERE type = ${type} AND data->>'attempt_id' = ${attemptId}`,
  );

describe('a settled consumer spend presented again', () => {
  it('answers the stored reply byte for byte every time, and once warm without reading its attempt from PostgreSQL', async () => {
    const c = await readyConsumer(gw, tenant, { fundMinor: 10_000 });
    const body = pixSpend(c, { amount_minor: 1_000 });
    expect((await execute(body)).status).toBe(200);
    const cold = await attemptStatements(() => execute(body));
    const warm = await attemptStatements(() => execute(body));
    expect(cold.statements).toBe(1);
    // The retry is read by key; the claim's insert is only for an id not seen before.
    expect(cold.texts[0]).toMatch(/^SELECT /);
    expect(warm.statements).toBe(0);
    for (const { result } of [cold, warm]) {
      expect([
        result.status,
        result.headers.get('idempotent-replayed'),
        result.headers.get('content-type'),
      ]).toEqual([200, 'true', 'application/json; charset=utf-8']);
      expect(result.body).toMatchObject({
        status: 'completed',
        attempt_id: body.attempt_id,
        idempotent_replay: true,
      });
    }
    expect(warm.result.text).toBe(cold.result.text);
    expect(await eventCount('payment.succeeded', body.attempt_id)).toBe(1);
  });

  it('still refuses every change of amount, payee, mandate, rail, service or approval with attempt_id_conflict once warm', async () => {
    const c = await readyConsumer(gw, tenant, { fundMinor: 10_000 });
    const d = await readyConsumer(gw, tenant);
    const body = pixSpend(c, { amount_minor: 1_000 });
    expect((await execute(body)).status).toBe(200);
    expect((await execute(body)).headers.get('idempotent-replayed')).toBe('true');
    const changes: Array<Record<string, unknown>> = [
      { amount_minor: 1_001 },
      { payee: 'outra@example.com' },
      { mandate: d.mandate, signature: d.signature },
      { payee: TED_DESTINATION, ted: { bank: '60701190', branch: '1234', account: '00098765' } },
      { quote: { seller: 'loja', resource: 'cesta', price_minor: 1_000 } },
      { approval: { items_hash: '1'.repeat(64), batch_hash: '2'.repeat(64) } },
    ];
    for (const change of changes) {
      const changed = await execute({ ...body, ...change });
      expect([changed.status, changed.body.error?.code, changed.headers.get('idempotent-replayed')]).toEqual([
        409,
        'attempt_id_conflict',
        null,
      ]);
    }
    const replay = await execute(body);
    expect([replay.status, replay.body.idempotent_replay]).toEqual([200, true]);
  });

  it("is attempt_id_conflict for another project of the organization, and another organization's own attempt", async () => {
    const c = await readyConsumer(gw, tenant, { fundMinor: 10_000 });
    const body = pixSpend(c, { amount_minor: 1_000 });
    const first = await execute(body);
    expect((await execute(body)).headers.get('idempotent-replayed')).toBe('true');
    const sister = await sisterProject();
    const fromSister = await execute(body, sister.key);
    expect([fromSister.status, fromSister.body.error?.code]).toEqual([409, 'attempt_id_conflict']);
    const elsewhere = await execute(body, other.key);
    // The other organization's attempt is its own: it runs (and fails on a mandate it never signed).
    expect(elsewhere.headers.get('idempotent-replayed')).toBeNull();
    expect(elsewhere.status).not.toBe(200);
    expect(elsewhere.text).not.toContain(first.body.payment.provider_payment_id);
    expect((await execute(body)).body).toEqual({ ...first.body, idempotent_replay: true });
  });

  it('replays a refusal the same way, warm or cold', async () => {
    const c = await readyConsumer(gw, tenant, { fundMinor: 100 });
    const body = pixSpend(c, { amount_minor: 1_000 });
    const refused = await execute(body);
    expect([refused.status, refused.body.error.code]).toEqual([422, 'insufficient_funds']);
    const cold = await execute(body);
    const warm = await attemptStatements(() => execute(body));
    expect(warm.statements).toBe(0);
    expect([warm.result.status, warm.result.headers.get('idempotent-replayed')]).toEqual([422, 'true']);
    expect(warm.result.text).toBe(cold.text);
    expect(warm.result.body).toEqual({ ...refused.body, idempotent_replay: true });
  });
});

describe('the same bytes presented again once the attempt has settled', () => {
  /** Runs `action`, counting the spend fingerprints computed (each one a body parsed, validated and prepared). */
  async function fingerprints<T>(action: () => Promise<T>): Promise<{ result: T; computed: number }> {
    const spy = jest.spyOn(prepare, 'spendFingerprint');
    try {
      return { result: await action(), computed: spy.mock.calls.length };
    } finally {
      spy.mockRestore();
    }
  }
  const answerOf = (r: HttpResult) => [
    r.status,
    r.headers.get('content-type'),
    r.headers.get('content-length'),
    r.headers.get('idempotent-replayed'),
    r.text,
  ];

  it('answers the kept reply byte for byte, headers included, without preparing the body again', async () => {
    const c = await readyConsumer(gw, tenant, { fundMinor: 10_000 });
    const body = pixSpend(c, { amount_minor: 1_000 });
    expect((await execute(body)).status).toBe(200);
    const settled = await fingerprints(() => execute(body));
    const kept = await fingerprints(() => attemptStatements(() => execute(body)));
    expect([settled.computed, kept.computed, kept.result.statements]).toEqual([1, 0, 0]);
    expect(answerOf(kept.result.result)).toEqual(answerOf(settled.result));
    // Other bytes of the same payment (another key order) are judged afresh, and answer the same.
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const other = await fingerprints(() => execute(reordered));
    expect(other.computed).toBe(1);
    expect(answerOf(other.result)).toEqual(answerOf(settled.result));
  });

  it("never answers another project's or organization's presentation, nor skips the query's checks", async () => {
    const c = await readyConsumer(gw, tenant, { fundMinor: 10_000 });
    const body = pixSpend(c, { amount_minor: 1_000 });
    expect((await execute(body)).status).toBe(200);
    await execute(body);
    expect((await fingerprints(() => execute(body))).computed).toBe(0);
    const sister = await sisterProject();
    const fromSister = await execute(body, sister.key);
    expect([fromSister.status, fromSister.body.error?.code]).toEqual([409, 'attempt_id_conflict']);
    const elsewhere = await execute(body, other.key);
    expect(elsewhere.headers.get('idempotent-replayed')).toBeNull();
    const bad = await gw.request('POST', '/v1/consumer-payments/execute?note=%00', { key: tenant.key, body });
    const badFresh = await gw.request('POST', '/v1/consumer-payments/execute?note=%00', {
      key: tenant.key,
      body: { ...body, attempt_id: `${body.attempt_id}-other` },
    });
    expect(bad.status).toBe(400);
    expect([bad.status, bad.body.error]).toEqual([badFresh.status, badFresh.body.error]);
  });
});

describe('claiming an attempt in one statement', () => {
  it('pays once when duplicates of one new attempt race, and every duplicate gets that payment', async () => {
    const c = await readyConsumer(gw, tenant, { fundMinor: 10_000 });
    const body = pixSpend(c, { amount_minor: 1_000 });
    const results = await Promise.all(Array.from({ length: 6 }, () => execute(body)));
    for (const r of results) expect([r.status, r.body.status]).toEqual([200, 'completed']);
    expect(new Set(results.map((r) => r.body.payment.provider_payment_id)).size).toBe(1);
    expect(await eventCount('payment.succeeded', body.attempt_id)).toBe(1);
    const balance = (await gw.request('GET', `/v1/wallets/${c.walletId}`, { key: tenant.key })).body
      .balances[0];
    expect(balance).toMatchObject({ balance_minor: '9000' });
  });
});

describe('an attempt held for approval', () => {
  it('is answered from PostgreSQL each time, so once approved it answers the payment, not the old hold', async () => {
    const c = await readyConsumer(gw, tenant, { fundMinor: 50_000 });
    const body = pixSpend(c, { amount_minor: 12_000 });
    const held = await execute(body);
    expect([held.status, held.body.error.code]).toEqual([403, 'approval_required']);
    for (let i = 0; i < 2; i++) {
      const again = await attemptStatements(() => execute(body));
      expect(again.statements).toBe(1);
      expect([
        again.result.status,
        again.result.body.error.code,
        again.result.headers.get('idempotent-replayed'),
      ]).toEqual([403, 'approval_required', 'true']);
    }
    const approvalId = held.body.error.details.approval_id as string;
    const decided = await gw.operator('POST', `/v1/orgs/${tenant.orgId}/approvals/${approvalId}/decide`, {
      user: 'alice',
      body: { decision: 'approve' },
    });
    expect(decided.status).toBe(200);
    await waitFor(async () => (await eventCount('payment.succeeded', body.attempt_id)) === 1, 20_000);
    const paid = await execute(body);
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({
      status: 'completed',
      idempotent_replay: true,
      payment: { amount_minor: '12000' },
    });
  });
});

describe('a finished wallet execute presented again', () => {
  const walletBody = (attemptId: string, extra: Record<string, unknown> = {}) => ({
    amount: 12.34,
    currency: 'BRL',
    recipient: 'merchant-42',
    description: 'Office supplies',
    mandate_id: 'mdt_test',
    purpose: 'supplies',
    attempt_id: attemptId,
    ...extra,
  });
  const pay = (walletId: string, payload: unknown, key = tenant.key) =>
    gw.request('POST', `/v1/wallets/${walletId}/execute`, { key, body: payload });

  it('answers the stored result byte for byte, once warm without reading PostgreSQL, and judges every other presentation there', async () => {
    const wallet = await newWallet(gw, tenant);
    const second = await newWallet(gw, tenant);
    await fund(gw, tenant, wallet, 5_000);
    const id = `att-wallet-${Date.now()}`;
    const first = await pay(wallet, walletBody(id));
    expect(first.status).toBe(200);
    const cold = await attemptStatements(() => pay(wallet, walletBody(id)));
    const warm = await attemptStatements(() => pay(wallet, walletBody(id)));
    expect([cold.statements, warm.statements]).toEqual([1, 0]);
    expect(cold.texts[0]).toMatch(/^SELECT /);
    expect(warm.result.text).toBe(cold.result.text);
    expect([
      warm.result.status,
      warm.result.headers.get('idempotent-replayed'),
      warm.result.headers.get('content-type'),
    ]).toEqual([200, 'true', 'application/json; charset=utf-8']);
    expect(warm.result.body).toEqual(first.body);

    const sister = await sisterProject();
    const sisterWallet = await newWallet(gw, { ...tenant, key: sister.key });
    const presentations: Array<[Promise<HttpResult>, number, string]> = [
      [pay(wallet, walletBody(id, { amount: 99 })), 409, 'attempt_id_conflict'],
      [pay(second, walletBody(id)), 409, 'attempt_id_conflict'],
      [pay(sisterWallet, walletBody(id), sister.key), 409, 'attempt_id_conflict'],
      [pay(wallet, walletBody(id), sister.key), 404, 'not_found'],
    ];
    for (const [presented, status, code] of presentations) {
      const r = await presented;
      expect([r.status, r.body.error?.code, r.headers.get('idempotent-replayed')]).toEqual([
        status,
        code,
        null,
      ]);
    }
    const foreign = await pay(wallet, walletBody(id), other.key);
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'not_found']);
    expect(
      (await gw.request('GET', `/v1/wallets/${wallet}`, { key: tenant.key })).body.balances[0],
    ).toMatchObject({ balance_minor: '3766' });
  });
});
