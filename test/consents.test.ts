// Consents through HTTP: an agent asks, the consumer (hosted) or a partner submits, the mandate is signed
// with its funding source and grant record in one transaction, and the lifecycle expires unused tokens.
import { sql } from 'slonik';
import { z } from 'zod';
import { tokenDigest } from '../domain/consents/tokens';
import { consentRecordVerifies, getConsentRecord } from '../domain/mandates/consent-records';
import { workflowIds } from '../contracts/workflow-ids';
import {
  CNPJ,
  HOLDER_CPF,
  attestation,
  createConsent,
  createConsumer,
  intent,
  startConsentGateway,
  waitFor,
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

const count = (
  table: 'mandates' | 'consent_records' | 'consumer_funding_sources' | 'consents',
  orgId: string,
) =>
  gw.db.oneFirst(
    sql.type(
      z.object({ n: z.number() }),
    )`SELECT count(*)::int AS n FROM ${sql.identifier([table])} WHERE org_id = ${orgId}`,
  );
const events = (orgId: string, type: string) =>
  gw.db.any(
    sql.type(
      z.object({ data: z.record(z.unknown()) }),
    )`SELECT data FROM events WHERE org_id = ${orgId} AND type = ${type} ORDER BY id`,
  );

describe('asking for consent', () => {
  it('issues a one-shot ctk_ token valid for 24 hours, with the hosted page URL, and stores only its digest', async () => {
    const consent = await createConsent(gw, tenant.key);
    expect(consent.token).toMatch(/^ctk_[0-9A-Za-z]{40}$/);
    expect(consent.surface).toBe('hosted');
    expect(consent.consent_url).toBe(`${gw.url}/consent/${consent.token}`);
    const stored = await gw.db.one(
      sql.unsafe`SELECT to_jsonb(c) AS row, extract(epoch FROM expires_at - created_at)::float8 AS lifetime
                 FROM consents c WHERE token_digest = ${tokenDigest(consent.token)}`,
    );
    // 24 hours from its creation, by the database's own clock (no margin of time to miss).
    expect(stored.lifetime).toBe(24 * 3600);
    expect(Date.parse(consent.expires_at)).toBe(Date.parse(stored.row.expires_at));
    expect(JSON.stringify(stored.row)).not.toContain(consent.token.slice(4));
    expect(stored.row.project_id).toBe(tenant.projectId);
  });

  it('needs the consents:write scope', async () => {
    const without = await gw.createKey(tenant.projectId, { scopes: ['sessions:read'] });
    const refused = await gw.request('POST', '/v1/consents', {
      key: without.key,
      body: { agent_id: 'a', intent: intent() },
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'forbidden', status: 403 });
    expect(refused.body.message).toContain('consents:write');
    const holder = await gw.createKey(tenant.projectId, { scopes: ['consents:write'] });
    const accepted = await gw.request('POST', '/v1/consents', {
      key: holder.key,
      body: { agent_id: 'a', intent: intent() },
    });
    expect(accepted.status).toBe(201);
  });

  it('answers the deprecated /v1/consents/init alias with the same handler and a Deprecation header', async () => {
    const holder = await gw.createKey(tenant.projectId, { scopes: ['consents:write'] });
    const alias = await gw.request('POST', '/v1/consents/init', {
      key: holder.key,
      body: { agent_id: 'a', intent: intent(), surface: 'partner' },
    });
    expect(alias.status).toBe(201);
    expect(alias.body.token).toMatch(/^ctk_/);
    expect(alias.body.surface).toBe('partner');
    expect(alias.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(alias.headers.get('link')).toContain('</v1/consents>; rel="successor-version"');
    const current = await gw.request('POST', '/v1/consents', {
      key: holder.key,
      body: { agent_id: 'a', intent: intent() },
    });
    expect(current.headers.get('deprecation')).toBeNull();
    const document = (await gw.request('GET', '/openapi.json')).body;
    expect(document.paths['/v1/consents/init'].post.deprecated).toBe(true);
    expect(document.paths['/v1/consents'].post.security).toEqual([{ bearerAuth: ['consents:write'] }]);
  });

  it('reads back a pending consent with its defaults filled in', async () => {
    const consent = await createConsent(gw, tenant.key, {
      callback_url: 'https://partner.example/consents/done',
      consumer_email_hint: 'ana@example.com',
    });
    const read = await gw.request('GET', `/v1/consents/${consent.token}`, { key: tenant.key });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      token: consent.token,
      status: 'pending',
      surface: 'hosted',
      agent_id: 'agent-7',
      consent_url: consent.consent_url,
      callback_url: 'https://partner.example/consents/done',
      consumer_email_hint: 'ana@example.com',
      expires_at: consent.expires_at,
    });
    expect(read.body.intent).toMatchObject({
      purpose: 'Weekly groceries',
      cap_minor: 50_000,
      currency: 'BRL',
      merchant_allowlist: ['*'],
    });
  });

  it("keeps consents within their project: another project's key and unknown tokens get 404", async () => {
    const consent = await createConsent(gw, tenant.key);
    const other = await gw.createTenant();
    for (const path of [
      `/v1/consents/${consent.token}`,
      `/v1/consents/ctk_${'x'.repeat(40)}`,
      '/v1/consents/not-a-token',
    ]) {
      const read = await gw.request('GET', path, {
        key: path.includes(consent.token) ? other.key : tenant.key,
      });
      expect([path, read.status, read.body.error.code]).toEqual([path, 404, 'not_found']);
    }
  });

  const CPF_BAD = '52998224724';
  it.each([
    ['a missing purpose', { purpose: undefined }, '/intent/purpose'],
    ['a per-transaction cap above the cap', { per_tx_cap_minor: 60_000 }, '/intent/per_tx_cap_minor'],
    ['a fractional amount', { cap_minor: 10.5 }, '/intent/cap_minor'],
    ['a zero cap', { cap_minor: 0 }, '/intent/cap_minor'],
    ['an amount beyond the supported range', { cap_minor: 10 ** 16 }, '/intent/cap_minor'],
    ['an unknown currency', { currency: 'EUR' }, '/intent/currency'],
    ['a mandate lifetime under a minute', { mandate_ttl_seconds: 59 }, '/intent/mandate_ttl_seconds'],
    [
      'a * in withdrawal_allowlist',
      { withdrawal_allowlist: ['ted:00000000:0001:123', '*'] },
      '/intent/withdrawal_allowlist/1',
    ],
    [
      'a wildcard inside a withdrawal entry',
      { withdrawal_allowlist: ['ted:*'] },
      '/intent/withdrawal_allowlist/0',
    ],
    ['a * in dda_allowlist', { dda_allowlist: ['*'] }, '/intent/dda_allowlist/0'],
    [
      'a dda entry with bad check digits',
      { dda_allowlist: [HOLDER_CPF, CPF_BAD] },
      '/intent/dda_allowlist/1',
    ],
    ['a dda entry of 12 digits', { dda_allowlist: ['123456789012'] }, '/intent/dda_allowlist/0'],
    ['a punctuated dda entry', { dda_allowlist: ['529.982.247-25'] }, '/intent/dda_allowlist/0'],
    [
      'a periodic cap above the cap',
      { periodic_cap: { window: 'week', cap_minor: 60_000 } },
      '/intent/periodic_cap/cap_minor',
    ],
    [
      'an unknown periodic window',
      { periodic_cap: { window: 'fortnight', cap_minor: 1_000 } },
      '/intent/periodic_cap/window',
    ],
    [
      'a Pix slot in dollars',
      { slots: [{ currency: 'USD', rail: 'pix-consent', cap_minor: 100, per_tx_cap_minor: 100 }] },
      '/intent/slots/0/rail',
    ],
    [
      'a repeated slot',
      {
        slots: [
          { currency: 'BRL', rail: 'pix-consent', cap_minor: 100, per_tx_cap_minor: 100 },
          { currency: 'BRL', rail: 'pix-consent', cap_minor: 10, per_tx_cap_minor: 10 },
        ],
      },
      '/intent/slots/1',
    ],
    ['shipping without an address', { shipping: { name: 'Ana' } }, '/intent/shipping/address'],
    ['an unknown intent field', { colour: 'blue' }, '/intent/colour'],
  ])('refuses %s with invalid_body naming the field, and writes nothing', async (_name, change, path) => {
    const before = await count('consents', tenant.orgId);
    const refused = await gw.request('POST', '/v1/consents', {
      key: tenant.key,
      body: { agent_id: 'agent-7', intent: intent(change) },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_body');
    expect(refused.body.error.details.issues.map((issue: { path: string }) => issue.path)).toContain(path);
    expect(await count('consents', tenant.orgId)).toBe(before);
  });

  it('accepts dda entries that are CPFs or CNPJs with valid check digits, and full intents with slots and shipping', async () => {
    const full = intent({
      dda_allowlist: [HOLDER_CPF, CNPJ],
      withdrawal_allowlist: ['ted:00360305:0001:12345-6'],
      merchant_allowlist: ['loja.example'],
      merchant_pin_kind: 'domain',
      periodic_cap: { window: 'month', cap_minor: 20_000 },
      slots: [{ currency: 'BRL', rail: 'pix-partner', cap_minor: 5_000, per_tx_cap_minor: 1_000 }],
      intent_note: 'Only for the weekly order',
      shipping: {
        name: 'Ana Souza',
        address: {
          line1: 'Rua A, 10',
          city: 'São Paulo',
          state: 'SP',
          postal_code: '01000-000',
          country: 'BR',
        },
      },
    });
    const created = await gw.request('POST', '/v1/consents', {
      key: tenant.key,
      body: { agent_id: 'agent-7', intent: full },
    });
    expect(created.status).toBe(201);
  });

  it('refuses bodies that are not the documented shape', async () => {
    const cases = [
      { intent: intent() },
      { agent_id: 'a', intent: intent(), surface: 'kiosk' },
      { agent_id: 'a', intent: intent(), consumer_email_hint: 'not-an-email' },
      { agent_id: 'a', intent: intent(), consumer_id: 'cns_x' },
    ];
    for (const body of cases) {
      const refused = await gw.request('POST', '/v1/consents', { key: tenant.key, body });
      expect([JSON.stringify(body).slice(0, 60), refused.status, refused.body.error.code]).toEqual([
        JSON.stringify(body).slice(0, 60),
        400,
        'invalid_body',
      ]);
    }
  });
});

describe('submitting a consent', () => {
  it('signs a hosted consent: mandate, funding source and grant record written together, token consumed', async () => {
    const consent = await createConsent(gw, tenant.key, {
      callback_url: 'https://partner.example/done',
      consumer_email_hint: 'ana@example.com',
    });
    const submitted = await gw.request('POST', `/v1/consents/${consent.token}/submit`, {
      key: tenant.key,
      body: { display_label: 'Meu Pix' },
    });
    expect(submitted.status).toBe(201);
    const body = submitted.body;
    expect(body.signature).toMatch(/^[0-9a-f]{64}$/);
    expect(body.consent_record_id).toMatch(/^ccsnt_/);
    expect(body.callback_url).toBe('https://partner.example/done');
    expect(body.mandate).toMatchObject({
      version: 1,
      id: body.mandate_id,
      revision: 1,
      agent_id: 'agent-7',
      consumer_id: body.consumer_id,
      funding_source_id: body.funding_source_id,
      rail: 'pix-consent',
      purpose: 'Weekly groceries',
      currency: 'BRL',
      cap_minor: '50000',
      per_tx_cap_minor: '10000',
      merchant_allowlist: ['*'],
      scope: `${tenant.orgId}/${tenant.projectId}/${body.consumer_id}`,
    });
    expect(body.mandate.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(Date.parse(body.mandate.expires_at) - Date.parse(body.mandate.issued_at)).toBe(30 * 86_400_000);

    // A consumer was created for the grant, carrying the email hint.
    const consumer = await gw.request('GET', `/v1/consumers/${body.consumer_id}`, { key: tenant.key });
    expect(consumer.body).toMatchObject({
      status: 'unverified',
      document: null,
      metadata: { created_by: 'consent', email_hint: 'ana@example.com' },
    });

    const record = await gw.request('GET', `/v1/consent-records/${body.consent_record_id}`, {
      key: tenant.key,
    });
    expect(record.status).toBe(200);
    expect(record.body).toMatchObject({
      kind: 'grant',
      consumer_id: body.consumer_id,
      mandate_id: body.mandate_id,
      agent_id: 'agent-7',
      funding_source_id: body.funding_source_id,
      purpose: 'Weekly groceries',
      currency: 'BRL',
      cap_minor: '50000',
      per_tx_cap_minor: '10000',
      expires_at: body.expires_at,
      hmac_secret_version: body.hmac_secret_version,
      ip_address: '127.0.0.1',
      metadata: { action: 'grant', from: 'pending', to: 'active', surface: 'hosted', rail: 'pix-consent' },
    });
    expect(record.body.signed_at).toBe(body.mandate.issued_at);

    const verified = await gw.request('POST', '/v1/mandates/verify', {
      key: tenant.key,
      body: { mandate: body.mandate, signature: body.signature },
    });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({
      valid: true,
      mandate_id: body.mandate_id,
      cap_minor: '50000',
      spent_minor: '0',
      available_minor: '50000',
    });

    const read = await gw.request('GET', `/v1/consents/${consent.token}`, { key: tenant.key });
    expect(read.status).toBe(409);
    expect(read.body.error).toMatchObject({
      code: 'consent_token_consumed',
      details: { mandate_id: body.mandate_id },
    });

    const signed = await events(tenant.orgId, 'mandate.signed');
    expect(signed.map((event) => event.data.mandate_id)).toContain(body.mandate_id);
    const consumed = await events(tenant.orgId, 'consent.consumed');
    expect(consumed.map((event) => event.data.mandate_id)).toContain(body.mandate_id);
  });

  it('binds a hosted grant to an existing consumer named by consumer_id', async () => {
    const consumer = await createConsumer(gw, tenant.key, 'Bruno Lima');
    const consent = await createConsent(gw, tenant.key);
    const submitted = await gw.request('POST', `/v1/consents/${consent.token}/submit`, {
      key: tenant.key,
      body: { consumer_id: consumer.id },
    });
    expect(submitted.status).toBe(201);
    expect(submitted.body.consumer_id).toBe(consumer.id);
    const mandates = await gw.request('GET', `/v1/consumers/${consumer.id}/mandates`, { key: tenant.key });
    expect(mandates.body.mandates.map((m: { id: string }) => m.id)).toEqual([submitted.body.mandate_id]);
  });

  it('refuses an attestation on a hosted consent and writes nothing', async () => {
    const consent = await createConsent(gw, tenant.key);
    const before = await count('mandates', tenant.orgId);
    const refused = await gw.request('POST', `/v1/consents/${consent.token}/submit`, {
      key: tenant.key,
      body: { attestation: attestation() },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('attestation_not_allowed');
    expect(await count('mandates', tenant.orgId)).toBe(before);
    expect((await gw.request('GET', `/v1/consents/${consent.token}`, { key: tenant.key })).body.status).toBe(
      'pending',
    );
  });

  it('requires the attestation and consumer_id on a partner consent, and signs the attestation into the mandate', async () => {
    const consumer = await createConsumer(gw, tenant.key);
    const consent = await createConsent(gw, tenant.key, { surface: 'partner' });
    const noAttestation = await gw.request('POST', `/v1/consents/${consent.token}/submit`, {
      key: tenant.key,
      body: { consumer_id: consumer.id, rail: 'pix-partner', provider_token: 'tok_123456789' },
    });
    expect([noAttestation.status, noAttestation.body.error.code]).toEqual([400, 'attestation_required']);
    const noConsumer = await gw.request('POST', `/v1/consents/${consent.token}/submit`, {
      key: tenant.key,
      body: { rail: 'pix-partner', provider_token: 'tok_123456789', attestation: attestation() },
    });
    expect([noConsumer.status, noConsumer.body.error.code, noConsumer.body.error.details]).toEqual([
      400,
      'missing_required_field',
      { field: 'consumer_id' },
    ]);
    const noToken = await gw.request('POST', `/v1/consents/${consent.token}/submit`, {
      key: tenant.key,
      body: { consumer_id: consumer.id, rail: 'pix-partner', attestation: attestation() },
    });
    expect([noToken.status, noToken.body.error.code, noToken.body.error.details]).toEqual([
      400,
      'missing_required_field',
      { field: 'provider_token' },
    ]);

    const providerToken = 'partner-secret-token-9f8e7d6c';
    const submitted = await gw.request('POST', `/v1/consents/${consent.token}/submit`, {
      key: tenant.key,
      body: {
        consumer_id: consumer.id,
        rail: 'pix-partner',
        provider_token: providerToken,
        display_label: 'Conta ••7d6c',
        attestation: attestation(),
      },
    });
    expect(submitted.status).toBe(201);
    expect(submitted.body.mandate.attestation).toEqual(attestation());
    expect(submitted.body.mandate.rail).toBe('pix-partner');
    expect(submitted.text).not.toContain(providerToken);
    // The provider token is stored sealed, never in clear.
    const source = await gw.db.one(
      sql.unsafe`SELECT provider_token_sealed, provider_token_hint, holder_document FROM consumer_funding_sources WHERE id = ${submitted.body.funding_source_id}`,
    );
    expect(source.provider_token_sealed).toMatch(/^v\d+\./);
    expect(source.provider_token_sealed).not.toContain(providerToken);
    expect(source.provider_token_hint).toBe('…7d6c');
    expect(source.holder_document).toBe(HOLDER_CPF);
    // The consenting party's address is the one the partner attested.
    const record = await gw.request('GET', `/v1/consent-records/${submitted.body.consent_record_id}`, {
      key: tenant.key,
    });
    expect(record.body.ip_address).toBe('203.0.113.9');
    expect(record.body.metadata).toMatchObject({
      surface: 'partner',
      attestation_method: 'partner_session',
      attestation_reference: 'session-42',
    });
  });

  it('records an attested IPv6 address as PostgreSQL spells it, and the signed record still verifies', async () => {
    const consumer = await createConsumer(gw, tenant.key);
    const consent = await createConsent(gw, tenant.key, { surface: 'partner' });
    const evidence = { ip: '2001:0DB8:0000:0000:0000:0000:0000:0001' };
    const submitted = await gw.request('POST', `/v1/consents/${consent.token}/submit`, {
      key: tenant.key,
      body: {
        consumer_id: consumer.id,
        rail: 'pix-partner',
        provider_token: 'tok_ipv6_0001',
        attestation: attestation({ evidence }),
      },
    });
    expect(submitted.status).toBe(201);
    const scope = { orgId: tenant.orgId, projectId: tenant.projectId, environment: 'test' as const };
    const record = await getConsentRecord(gw.db, scope, submitted.body.consent_record_id);
    expect(record.ip_address).toBe('2001:db8::1');
    expect(await consentRecordVerifies(gw.db, gw.config.encryptionKeys, record)).toBe(true);
  });

  it('refuses a second submit of the same consent token and writes nothing', async () => {
    const consent = await createConsent(gw, tenant.key);
    const first = await gw.request('POST', `/v1/consents/${consent.token}/submit`, {
      key: tenant.key,
      body: {},
    });
    expect(first.status).toBe(201);
    const counts = await Promise.all([
      count('mandates', tenant.orgId),
      count('consent_records', tenant.orgId),
      count('consumer_funding_sources', tenant.orgId),
    ]);
    const second = await gw.request('POST', `/v1/consents/${consent.token}/submit`, {
      key: tenant.key,
      body: {},
    });
    expect([second.status, second.body.error.code]).toEqual([409, 'consent_token_consumed']);
    expect(
      await Promise.all([
        count('mandates', tenant.orgId),
        count('consent_records', tenant.orgId),
        count('consumer_funding_sources', tenant.orgId),
      ]),
    ).toEqual(counts);
  });

  it('lets exactly one of several concurrent submits of a token win', async () => {
    const consent = await createConsent(gw, tenant.key);
    const before = await count('mandates', tenant.orgId);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        gw.request('POST', `/v1/consents/${consent.token}/submit`, { key: tenant.key, body: {} }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409, 409]);
    expect(await count('mandates', tenant.orgId)).toBe(before + 1);
  });

  it('refuses a funding rail that cannot fund the intent currency', async () => {
    const consent = await createConsent(gw, tenant.key, { intent: intent({ currency: 'USD' }) });
    const refused = await gw.request('POST', `/v1/consents/${consent.token}/submit`, {
      key: tenant.key,
      body: { rail: 'pix-consent' },
    });
    expect([refused.status, refused.body.error.code, refused.body.error.details]).toEqual([
      409,
      'funding_rail_mismatch',
      { rail: 'pix-consent', currency: 'USD' },
    ]);
  });

  it('does not bind a grant to a consumer of another project, and writes nothing', async () => {
    const other = await gw.createTenant();
    const stranger = await createConsumer(gw, other.key);
    const consent = await createConsent(gw, tenant.key);
    const before = await count('mandates', tenant.orgId);
    const refused = await gw.request('POST', `/v1/consents/${consent.token}/submit`, {
      key: tenant.key,
      body: { consumer_id: stranger.id },
    });
    expect([refused.status, refused.body.error.code]).toEqual([404, 'not_found']);
    expect(await count('mandates', tenant.orgId)).toBe(before);
  });

  it('answers 404 to a submit with an unknown or malformed token', async () => {
    for (const token of [`ctk_${'Z'.repeat(40)}`, 'ctk_short', 'anything']) {
      const refused = await gw.request('POST', `/v1/consents/${token}/submit`, { key: tenant.key, body: {} });
      expect([token, refused.status, refused.body.error.code]).toEqual([token, 404, 'not_found']);
    }
  });
});

describe('the consent lifecycle', () => {
  it('runs one workflow per token, keyed by the token digest, with the tenant and later the mandate as search attributes', async () => {
    const consent = await createConsent(gw, tenant.key);
    const handle = gw.env.client.workflow.getHandle(workflowIds.consent(tokenDigest(consent.token)));
    const pending = await handle.describe();
    expect(pending.status.name).toBe('RUNNING');
    const attrs = (d: typeof pending) =>
      Object.fromEntries(d.typedSearchAttributes.getAll().map((pair) => [pair.key.name, pair.value]));
    expect(attrs(pending)).toMatchObject({
      OrgId: tenant.orgId,
      ProjectId: tenant.projectId,
      Environment: 'test',
    });
    expect(pending.workflowId).not.toContain(consent.token);

    const submitted = await gw.request('POST', `/v1/consents/${consent.token}/submit`, {
      key: tenant.key,
      body: {},
    });
    await waitFor(async () => attrs(await handle.describe()).MandateId === submitted.body.mandate_id);
    expect(attrs(await handle.describe())).toMatchObject({
      ConsumerId: submitted.body.consumer_id,
      MandateId: submitted.body.mandate_id,
    });
  });

  it('expires a pending token after 24 hours on its durable timer: nothing is created and the token is refused', async () => {
    const consent = await createConsent(gw, tenant.key);
    const digest = tokenDigest(consent.token);
    const before = await count('mandates', tenant.orgId);
    const status = async () =>
      await gw.db.oneFirst(
        sql.type(
          z.object({ status: z.string() }),
        )`SELECT status FROM consents WHERE token_digest = ${digest}`,
      );
    // A minute short of 24 hours the token still stands; the durable timer fires at 24 hours.
    await gw.env.sleep('1439 minutes');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await status()).toBe('pending');
    await gw.env.sleep('2 minutes');
    await waitFor(async () => (await status()) === 'expired');
    const handle = gw.env.client.workflow.getHandle(workflowIds.consent(digest));
    expect(await handle.result()).toBe('token_expired');
    const row = await gw.db.one(
      sql.unsafe`SELECT status, expired_at FROM consents WHERE token_digest = ${digest}`,
    );
    expect(row.status).toBe('expired');
    expect(row.expired_at).not.toBeNull();

    const read = await gw.request('GET', `/v1/consents/${consent.token}`, { key: tenant.key });
    expect([read.status, read.body.error.code]).toEqual([410, 'consent_token_expired']);
    const submit = await gw.request('POST', `/v1/consents/${consent.token}/submit`, {
      key: tenant.key,
      body: {},
    });
    expect([submit.status, submit.body.error.code]).toEqual([410, 'consent_token_expired']);
    expect(await count('mandates', tenant.orgId)).toBe(before);
    const expired = await events(tenant.orgId, 'consent.expired');
    expect(expired.length).toBeGreaterThan(0);
  });
});
