// Consumers through HTTP: create, read, list, patch, the wallet roll-up from active mandates and their
// spends, consent records, and the tenant wall around all of it.
import { sql } from 'slonik';
import { recordMandateSpend } from '../domain/mandates/spends';
import { verifyPresentedMandate } from '../domain/mandates/verify';
import {
  createConsent,
  createConsumer,
  intent,
  partnerMandate,
  startConsentGateway,
} from './support/consents';
import type { Gateway, Tenant } from './support/harness';

let gw: Gateway;
let tenant: Tenant;
beforeAll(async () => {
  gw = await startConsentGateway();
  tenant = await gw.createTenant();
});
afterAll(async () => {
  await gw?.stop();
});

describe('consumers', () => {
  it('creates a consumer without a document, unverified, and reads it back', async () => {
    const created = await gw.request('POST', '/v1/consumers', {
      key: tenant.key,
      body: { display_name: 'Ana Souza', metadata: { crm_id: '42' } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^cns_[0-9A-Za-z]{16}$/),
      display_name: 'Ana Souza',
      document: null,
      document_source: null,
      document_verified_at: null,
      person_type: null,
      tax_type: null,
      status: 'unverified',
      metadata: { crm_id: '42' },
      created_at: expect.any(String),
    });
    const read = await gw.request('GET', `/v1/consumers/${created.body.id}`, { key: tenant.key });
    expect(read.body).toEqual(created.body);
    const bare = await gw.request('POST', '/v1/consumers', { key: tenant.key, body: {} });
    expect([bare.status, bare.body.display_name, bare.body.metadata]).toEqual([201, null, {}]);
    // The body is required even where every field is optional: a request without one creates nothing.
    const before = await gw.db.oneFirst(sql.unsafe`SELECT count(*)::int FROM consumers`);
    const absent = await gw.request('POST', '/v1/consumers', { key: tenant.key });
    expect([absent.status, absent.body.error.code, absent.body.error.details.issues]).toEqual([
      400,
      'invalid_body',
      [{ path: '/', message: 'is required', keyword: 'required' }],
    ]);
    expect(await gw.db.oneFirst(sql.unsafe`SELECT count(*)::int FROM consumers`)).toBe(before);
    const event = await gw.db.maybeOne(
      sql.unsafe`SELECT 1 FROM events WHERE type = 'consumer.created' AND data->>'consumer_id' = ${created.body.id}`,
    );
    expect(event).not.toBeNull();
  });

  it.each([
    ['a document', { document: '52998224725' }],
    ['a status', { status: 'verified' }],
    ['an empty display name', { display_name: '' }],
    ['metadata that is not an object', { metadata: ['a'] }],
    [
      'more than 50 metadata keys',
      { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) },
    ],
  ])('refuses a create with %s', async (_name, body) => {
    const refused = await gw.request('POST', '/v1/consumers', { key: tenant.key, body });
    expect([refused.status, refused.body.error.code]).toEqual([400, 'invalid_body']);
    expect(refused.body.error.details.issues.length).toBeGreaterThan(0);
  });

  it('patches the display name, tax type and metadata (merged, null removes a key)', async () => {
    const created = await gw.request('POST', '/v1/consumers', {
      key: tenant.key,
      body: { display_name: 'Old', metadata: { a: 1, b: 2 } },
    });
    const patched = await gw.request('PATCH', `/v1/consumers/${created.body.id}`, {
      key: tenant.key,
      body: { tax_type: 'MEI', metadata: { b: null, c: 3 } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ display_name: 'Old', tax_type: 'MEI', metadata: { a: 1, c: 3 } });
    expect(patched.body.metadata).not.toHaveProperty('b');
    const cleared = await gw.request('PATCH', `/v1/consumers/${created.body.id}`, {
      key: tenant.key,
      body: { display_name: null },
    });
    expect(cleared.body.display_name).toBeNull();
    for (const taxType of ['PJ', 'ME', 'PF']) {
      expect(
        (
          await gw.request('PATCH', `/v1/consumers/${created.body.id}`, {
            key: tenant.key,
            body: { tax_type: taxType },
          })
        ).body.tax_type,
      ).toBe(taxType);
    }
  });

  it.each([
    ['an unknown tax type', { tax_type: 'LTDA' }],
    ['an empty patch', {}],
    ['a document', { document: '52998224725' }],
    ['a status', { status: 'verified' }],
  ])('refuses a patch with %s and changes nothing', async (_name, body) => {
    const created = await createConsumer(gw, tenant.key, 'Stable');
    const refused = await gw.request('PATCH', `/v1/consumers/${created.id}`, { key: tenant.key, body });
    expect([refused.status, refused.body.error.code]).toEqual([400, 'invalid_body']);
    const read = await gw.request('GET', `/v1/consumers/${created.id}`, { key: tenant.key });
    expect(read.body).toMatchObject({ display_name: 'Stable', tax_type: null, status: 'unverified' });
  });

  it('lists consumers newest first, filtered by verified and bounded by limit', async () => {
    const own = await gw.createTenant();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await createConsumer(gw, own.key, `C${i}`)).id);
    await gw.db.query(sql.unsafe`UPDATE consumers SET status = 'verified' WHERE id = ${ids[1]}`);
    const all = await gw.request('GET', '/v1/consumers', { key: own.key });
    expect(all.body.consumers.map((c: { id: string }) => c.id)).toEqual([...ids].reverse());
    const limited = await gw.request('GET', '/v1/consumers?limit=2', { key: own.key });
    expect(limited.body.consumers.map((c: { id: string }) => c.id)).toEqual([ids[3], ids[2]]);
    const verified = await gw.request('GET', '/v1/consumers?verified=true', { key: own.key });
    expect(verified.body.consumers.map((c: { id: string }) => c.id)).toEqual([ids[1]]);
    const unverified = await gw.request('GET', '/v1/consumers?verified=false', { key: own.key });
    expect(unverified.body.consumers).toHaveLength(3);
    for (const query of ['limit=0', 'limit=101', 'limit=x', 'verified=maybe', 'page=2']) {
      const refused = await gw.request('GET', `/v1/consumers?${query}`, { key: own.key });
      expect([query, refused.status, refused.body.error.code]).toEqual([query, 400, 'invalid_query']);
    }
  });

  it("answers 404 for another organization's consumer on every route, and never lists it", async () => {
    const { consumer, submitted } = await partnerMandate(gw, tenant);
    const other = await gw.createTenant();
    const calls: Array<[string, string, unknown]> = [
      ['GET', `/v1/consumers/${consumer.id}`, undefined],
      ['PATCH', `/v1/consumers/${consumer.id}`, { display_name: 'Hijacked' }],
      ['GET', `/v1/consumers/${consumer.id}/wallet`, undefined],
      ['GET', `/v1/consumers/${consumer.id}/mandates`, undefined],
      ['GET', `/v1/consent-records/${submitted.consent_record_id}`, undefined],
    ];
    for (const [method, path, body] of calls) {
      const answer = await gw.request(method, path, { key: other.key, body });
      expect([path, answer.status, answer.body.error.code]).toEqual([path, 404, 'not_found']);
    }
    const listed = await gw.request('GET', '/v1/consumers', { key: other.key });
    expect(listed.body.consumers.map((c: { id: string }) => c.id)).not.toContain(consumer.id);
    expect(
      (await gw.request('GET', `/v1/consumers/${consumer.id}`, { key: tenant.key })).body.display_name,
    ).toBe('Ana Souza');
  });

  it('refuses restricted keys with route_scope_unmapped, since the scope table maps no consumer route', async () => {
    const restricted = await gw.createKey(tenant.projectId, { scopes: ['consents:write'] });
    const refused = await gw.request('GET', '/v1/consumers', { key: restricted.key });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'route_scope_unmapped']);
  });
});

describe('consent records', () => {
  it('reads a grant row with every field the spec lists', async () => {
    const { consumer, submitted } = await partnerMandate(gw, tenant);
    const record = await gw.request('GET', `/v1/consent-records/${submitted.consent_record_id}`, {
      key: tenant.key,
    });
    expect(record.status).toBe(200);
    expect(Object.keys(record.body).sort()).toEqual([
      'agent_id',
      'cap_minor',
      'consumer_id',
      'currency',
      'expires_at',
      'funding_source_id',
      'hmac_secret_version',
      'id',
      'ip_address',
      'kind',
      'mandate_id',
      'metadata',
      'per_tx_cap_minor',
      'purpose',
      'signed_at',
    ]);
    expect(record.body).toMatchObject({
      consumer_id: consumer.id,
      kind: 'grant',
      cap_minor: '50000',
      per_tx_cap_minor: '10000',
    });
    expect((await gw.request('GET', '/v1/consent-records/ccsnt_unknown', { key: tenant.key })).status).toBe(
      404,
    );
  });

  it('keeps the consent log append-only in the database itself', async () => {
    const { submitted } = await partnerMandate(gw, tenant);
    await expect(
      gw.db.query(
        sql.unsafe`UPDATE consent_records SET purpose = 'changed' WHERE id = ${submitted.consent_record_id}`,
      ),
    ).rejects.toThrow(/append-only/);
    await expect(
      gw.db.query(sql.unsafe`DELETE FROM consent_records WHERE id = ${submitted.consent_record_id}`),
    ).rejects.toThrow(/append-only/);
  });
});

describe('wallet roll-up', () => {
  it('sums the caps of active mandates per currency, with their mandates and funding sources, as exact integers', async () => {
    const own = await gw.createTenant();
    const first = await partnerMandate(gw, own, {
      intent: {
        cap_minor: 50_000,
        slots: [{ currency: 'BRL', rail: 'pix-partner', cap_minor: 5_000, per_tx_cap_minor: 1_000 }],
      },
    });
    const consumerId = first.consumer.id;
    // A second grant for the same consumer on the hosted page.
    const hosted = await createConsent(gw, own.key, {
      intent: intent({ cap_minor: 25_000, per_tx_cap_minor: 5_000 }),
    });
    const second = (
      await gw.request('POST', `/v1/consents/${hosted.token}/submit`, {
        key: own.key,
        body: { consumer_id: consumerId },
      })
    ).body;
    // A revoked mandate authorizes nothing.
    const third = (
      await gw.request('POST', `/v1/consents/${(await createConsent(gw, own.key)).token}/submit`, {
        key: own.key,
        body: { consumer_id: consumerId },
      })
    ).body;
    await gw.request('POST', `/v1/mandates/${third.mandate_id}/revoke`, { key: own.key, body: {} });

    const wallet = await gw.request('GET', `/v1/consumers/${consumerId}/wallet`, { key: own.key });
    expect(wallet.status).toBe(200);
    expect(wallet.body).toEqual({
      consumer_id: consumerId,
      currencies: [
        {
          currency: 'BRL',
          authorized_minor: 75_000,
          spent_minor: 0,
          available_minor: 75_000,
          overspent: false,
          funding_source_ids: [second.funding_source_id, first.submitted.funding_source_id],
          mandate_ids: [second.mandate_id, first.submitted.mandate_id],
        },
      ],
    });
    expect(wallet.text).toContain('"authorized_minor":75000');
  });

  it('subtracts what the payments area recorded as spent, and flags an overspent currency', async () => {
    const own = await gw.createTenant();
    const { consumer, submitted } = await partnerMandate(gw, own, {
      intent: { cap_minor: 10_000, per_tx_cap_minor: 10_000 },
    });
    const scope = { orgId: own.orgId, projectId: own.projectId };
    // The seam as the payments area uses it: verify under a lock, then record the settled attempt once.
    await gw.db.transaction(async (tx) => {
      const verified = await verifyPresentedMandate(
        tx,
        gw.config.encryptionKeys,
        scope,
        { mandate: submitted.mandate, signature: submitted.signature, agentId: 'agent-7' },
        { lock: true },
      );
      expect(verified).toMatchObject({
        mandateId: submitted.mandate_id,
        capMinor: 10_000n,
        perTxCapMinor: 10_000n,
        currency: 'BRL',
        merchantAllowlist: ['*'],
      });
      await recordMandateSpend(tx, scope, {
        mandateId: submitted.mandate_id,
        amountMinor: 3_500n,
        currency: 'BRL',
        attemptId: 'att-1',
      });
    });
    // A retried attempt finds its own earlier row instead of spending twice.
    const replay = await recordMandateSpend(gw.db, scope, {
      mandateId: submitted.mandate_id,
      amountMinor: 3_500n,
      currency: 'BRL',
      attemptId: 'att-1',
    });
    expect(replay.replayed).toBe(true);

    let wallet = await gw.request('GET', `/v1/consumers/${consumer.id}/wallet`, { key: own.key });
    expect(wallet.body.currencies[0]).toMatchObject({
      authorized_minor: 10_000,
      spent_minor: 3_500,
      available_minor: 6_500,
      overspent: false,
    });
    const verified = await gw.request('POST', '/v1/mandates/verify', {
      key: own.key,
      body: { mandate: submitted.mandate, signature: submitted.signature },
    });
    expect(verified.body).toMatchObject({ spent_minor: '3500', available_minor: '6500' });

    // An amendment may not drop the cap below what was spent.
    const tooLow = await gw.request('POST', `/v1/mandates/${submitted.mandate_id}/amend`, {
      key: own.key,
      body: { cap_minor: 3_000 },
    });
    expect([tooLow.status, tooLow.body.error.code, tooLow.body.error.details.reason]).toEqual([
      409,
      'invalid_transition',
      'below_spent',
    ]);

    await recordMandateSpend(gw.db, scope, {
      mandateId: submitted.mandate_id,
      amountMinor: 7_000n,
      currency: 'BRL',
      attemptId: 'att-2',
    });
    wallet = await gw.request('GET', `/v1/consumers/${consumer.id}/wallet`, { key: own.key });
    expect(wallet.body.currencies[0]).toMatchObject({
      authorized_minor: 10_000,
      spent_minor: 10_500,
      available_minor: 0,
      overspent: true,
    });
  });

  it('answers an empty roll-up for a consumer without mandates', async () => {
    const consumer = await createConsumer(gw, tenant.key);
    const wallet = await gw.request('GET', `/v1/consumers/${consumer.id}/wallet`, { key: tenant.key });
    expect(wallet.body).toEqual({ consumer_id: consumer.id, currencies: [] });
  });
});
