// One event catalog, both ways: every type the code or the SQL writes is in the catalog, every catalog
// type is written by something (except the three the spec names that capabilities being built will
// emit), the database refuses a type outside it, subscribing accepts exactly it, the main flows driven
// through HTTP leave only catalog types in the outbox, and the API serves and documents it.
import { CheckIntegrityConstraintViolationError, sql } from 'slonik';
import { z } from 'zod';
import type { PaymentsMock } from '../providers/mocks/payments';
import {
  EVENT_CATALOG,
  EVENT_TYPES,
  RESERVED_EVENT_TYPES,
  SUBSCRIBABLE_EVENT_TYPES,
  isEventType,
} from '../contracts/event-catalog';
import { pixSpend, readyConsumer } from './support/consumer-spend';
import { scanEmitters } from './support/emitted-events';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { fund, newWallet, post } from './support/money';

const sorted = (values: Iterable<string>) => [...values].sort();

describe('the catalog against the code that emits events', () => {
  const scan = scanEmitters();

  it('can tell what every emitter writes, and nothing writes the events table around the typed funnels', () => {
    expect(scan.unresolved).toEqual([]);
    expect(scan.bypasses).toEqual([]);
    // The scan reaches the SQL function that posts ledger entries, not only the TypeScript.
    expect(scan.emitted.get('ledger.entry_posted')).toEqual(
      expect.arrayContaining(['schema/sql/0461_ledger_post.sql']),
    );
  });

  it('has every type an emitter writes', () => {
    const outside = [...scan.emitted.keys()]
      .filter((type) => !isEventType(type))
      .map((type) => `${type} (${scan.emitted.get(type)!.join(', ')})`);
    expect(outside).toEqual([]);
  });

  it('lists nothing that no emitter writes, except exactly the reserved types the spec names', () => {
    expect(sorted(EVENT_TYPES.filter((type) => !scan.emitted.has(type)))).toEqual(
      sorted(RESERVED_EVENT_TYPES),
    );
    expect(sorted(RESERVED_EVENT_TYPES)).toEqual([]);
    for (const type of EVENT_TYPES) expect(EVENT_CATALOG[type].description.length).toBeGreaterThan(10);
  });
});

describe('the catalog through the gateway', () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw?.stop();
  });

  const subscribe = (tenant: Tenant, event: string) =>
    gw.request('POST', '/v1/webhook-endpoints', {
      key: tenant.key,
      body: { name: event, event, webhook_url: 'http://127.0.0.1:9/hooks' },
    });
  const outbox = async (tenant: Tenant) =>
    gw.db.anyFirst(sql.type(z.object({ type: z.string() }))`
    SELECT DISTINCT type FROM events WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId}`);

  it("keeps the database's list equal to the catalog and refuses any other type, writing nothing", async () => {
    const listed = await gw.db.oneFirst(
      sql.type(z.object({ types: z.array(z.string()) }))`SELECT event_catalog_types() AS types`,
    );
    expect(sorted(listed)).toEqual(sorted(EVENT_TYPES));
    const table = await gw.db.anyFirst(
      sql.type(z.object({ type: z.string() }))`SELECT type FROM event_catalog`,
    );
    expect(sorted(table)).toEqual(sorted(EVENT_TYPES));
    await expect(
      gw.db.query(sql.unsafe`DELETE FROM event_catalog WHERE type = 'payment.succeeded'`),
    ).rejects.toThrow(/only ever added/);
    // A migration's insert is all it takes to add a type: the check's list follows the table.
    const rollback = new Error('rollback');
    await expect(
      gw.db.transaction(async (tx) => {
        await tx.query(sql.unsafe`INSERT INTO event_catalog (type) VALUES ('sample_area.sample_happened')`);
        const after = await tx.oneFirst(
          sql.type(z.object({ types: z.array(z.string()) }))`SELECT event_catalog_types() AS types`,
        );
        expect(sorted(after)).toEqual(sorted([...EVENT_TYPES, 'sample_area.sample_happened']));
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    const tenant = await gw.createTenant();
    for (const type of ['payment.completed', 'approval.created', 'wallet.funded']) {
      await expect(
        gw.db.query(sql.unsafe`
        INSERT INTO events (id, org_id, project_id, environment, type, data)
        VALUES (${`evt_${type.replace(/\W/g, '')}`}, ${tenant.orgId}, ${tenant.projectId}, 'test', ${type}, '{}'::jsonb)`),
      ).rejects.toBeInstanceOf(CheckIntegrityConstraintViolationError);
    }
    expect(await outbox(tenant)).toEqual([]);
  });

  it('lets an endpoint subscribe to every catalog type but the test-fire, and to nothing else', async () => {
    const tenant = await gw.createTenant();
    for (const type of SUBSCRIBABLE_EVENT_TYPES)
      expect([type, (await subscribe(tenant, type)).status]).toEqual([type, 201]);
    for (const type of [
      'webhook_endpoint.test',
      'payment.completed',
      'approval.created',
      'wallet.anomaly_opened',
      'wallet.funded',
      'dda.registration.active',
    ]) {
      const refused = await subscribe(tenant, type);
      expect([type, refused.status, refused.body.error.code]).toEqual([type, 400, 'invalid_body']);
    }
    const listed = await gw.request('GET', '/v1/webhook-endpoints?limit=100', { key: tenant.key });
    expect(sorted(listed.body.triggers.map((t: { event: string }) => t.event))).toEqual(
      sorted(SUBSCRIBABLE_EVENT_TYPES),
    );
  });

  it('serves the catalog to API keys at GET /v1/event-types, with descriptions and what is reserved', async () => {
    const tenant = await gw.createTenant();
    const r = await gw.request('GET', '/v1/event-types', { key: tenant.key });
    expect(r.status).toBe(200);
    expect(r.body.event_types.map((t: { type: string }) => t.type)).toEqual(EVENT_TYPES);
    expect(r.body.event_types.find((t: { type: string }) => t.type === 'payment.succeeded')).toEqual({
      type: 'payment.succeeded',
      area: 'payments',
      description: EVENT_CATALOG['payment.succeeded'].description,
      subscribable: true,
      reserved: false,
    });
    expect(
      r.body.event_types.find((t: { type: string }) => t.type === 'commerce.ted_in.succeeded'),
    ).toMatchObject({ subscribable: true, reserved: false });
    expect(r.body.event_types.find((t: { type: string }) => t.type === 'tool_call.failed')).toMatchObject({
      subscribable: true,
      reserved: false,
    });
    expect(
      r.body.event_types.find((t: { type: string }) => t.type === 'webhook_endpoint.test'),
    ).toMatchObject({ subscribable: false, reserved: false });
    expect((await gw.request('GET', '/v1/event-types')).status).toBe(401);
  });

  it('documents the catalog in the OpenAPI document: the subscribable enum and a description per type', async () => {
    const doc = (await gw.request('GET', '/openapi.json')).body;
    const event =
      doc.paths['/v1/webhook-endpoints'].post.requestBody.content['application/json'].schema.properties.event;
    expect(event.enum).toEqual(SUBSCRIBABLE_EVENT_TYPES);
    expect(event['x-enum-descriptions']).toHaveLength(SUBSCRIBABLE_EVENT_TYPES.length);
    expect(event['x-enum-descriptions'][SUBSCRIBABLE_EVENT_TYPES.indexOf('approval.requested')]).toContain(
      EVENT_CATALOG['approval.requested'].description,
    );
    const type = doc.components.schemas.Event.properties.type;
    expect(type.enum).toEqual(EVENT_TYPES);
    expect(type['x-enum-descriptions']).toHaveLength(EVENT_TYPES.length);
    expect(doc.paths['/v1/event-types'].get.responses['200']).toBeDefined();
    for (const t of EVENT_TYPES) expect(doc.paths['/v1/events'].get.description).toContain(`\`${t}\``);
  });

  it('leaves only catalog types in the outbox from the main flows: wallets, the ledger, execute, approvals, consumer spends, reconciliation', async () => {
    const tenant = await gw.createTenant();
    // An agent wallet: funded, frozen (a post is refused), unfrozen, then paid from.
    const wallet = await newWallet(gw, tenant, { agent_id: 'shopper' });
    await fund(gw, tenant, wallet, 100_000);
    expect((await gw.request('POST', `/v1/wallets/${wallet}/freeze`, { key: tenant.key })).status).toBe(200);
    expect((await post(gw, tenant, wallet, 'fund', 1)).status).toBe(409);
    expect((await gw.request('POST', `/v1/wallets/${wallet}/unfreeze`, { key: tenant.key })).status).toBe(
      200,
    );
    const execute = (attemptId: string, amount: number) =>
      gw.request('POST', `/v1/wallets/${wallet}/execute`, {
        key: tenant.key,
        body: {
          amount,
          currency: 'BRL',
          recipient: 'vendor-9',
          description: 'Supplies',
          mandate_id: 'mdt_1',
          attempt_id: attemptId,
        },
      });
    expect((await execute(`cat-paid-${Date.now()}`, 12)).status).toBe(200);
    // A held call, approved and replayed; then a denied one.
    await gw.request('POST', '/v1/policies', {
      key: tenant.key,
      body: { name: 'big', type: 'approval-required', config: { above_minor: '5000', currency: 'BRL' } },
    });
    const held = await execute(`cat-held-${Date.now()}`, 120);
    expect([held.status, held.body.reason]).toEqual([403, 'approval_required']);
    const decided = await gw.operator(
      'POST',
      `/v1/orgs/${tenant.orgId}/approvals/${held.body.approval_id}/decide`,
      { user: 'alice', body: { decision: 'approve' } },
    );
    expect(decided.status).toBe(200);
    await until(
      async () =>
        (await gw.request('GET', `/v1/approvals/${held.body.approval_id}/status`, { key: tenant.key })).body
          .executed_at !== null,
    );
    await gw.request('POST', '/v1/policies', { key: tenant.key, body: { name: 'no more', type: 'deny' } });
    expect((await execute(`cat-denied-${Date.now()}`, 1)).status).toBe(403);
    // A consumer with a signed mandate spends through Pix (the deny rule gone), which seals a receipt.
    const consumer = await readyConsumer(gw, tenant, { fundMinor: 10_000 });
    const deny = (await gw.request('GET', '/v1/policies', { key: tenant.key })).body.policies.find(
      (p: { name: string }) => p.name === 'no more',
    );
    await gw.request('DELETE', `/v1/policies/${deny.id}`, { key: tenant.key });
    const spent = await gw.request('POST', '/v1/consumer-payments/execute', {
      key: tenant.key,
      body: pixSpend(consumer),
    });
    expect([spent.status, spent.body.status]).toEqual([200, 'completed']);
    // Reconciliation finds a provider settlement no debit explains, and the anomaly is resolved.
    (gw.mocks.payments as PaymentsMock).addSettlement({
      payment_id: `mpay_catalog_${Date.now()}`,
      reference: 'unknown-attempt',
      amount_minor: '5',
      currency: 'BRL',
      settled_at: new Date().toISOString(),
      metadata: { org_id: tenant.orgId, project_id: tenant.projectId },
    });
    expect(
      (await gw.request('POST', '/v1/wallet-reconciliations', { key: tenant.key })).body.anomalies_opened,
    ).toBe(1);
    const [anomaly] = (await gw.request('GET', '/v1/wallet-anomalies', { key: tenant.key })).body.anomalies;
    expect(
      (
        await gw.request('POST', `/v1/wallet-anomalies/${anomaly.id}/resolve`, {
          key: tenant.key,
          body: { status: 'dismissed', note: 'provider test deposit' },
        })
      ).status,
    ).toBe(200);

    const types = await outbox(tenant);
    expect(types.filter((type) => !isEventType(type))).toEqual([]);
    expect(types).toEqual(
      expect.arrayContaining([
        'wallet.created',
        'wallet.frozen',
        'wallet.unfrozen',
        'ledger.entry_posted',
        'ledger.entry_refused',
        'payment.succeeded',
        'payment.requires_approval',
        'approval.requested',
        'approval.approved',
        'approval.executed',
        'payment.denied',
        'consumer.created',
        'consent.consumed',
        'mandate.signed',
        'receipt.sealed',
        'wallet.anomaly_detected',
        'wallet.anomaly_resolved',
      ]),
    );
    // And an endpoint can subscribe to each of them.
    const listener = await gw.createTenant();
    for (const type of types) expect([type, (await subscribe(listener, type)).status]).toEqual([type, 201]);
  });
});

async function until(done: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i += 1) {
    if (await done()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('timed out waiting for the approved call to replay');
}
