// Who may use a consent and its records, through HTTP: the partner's submit takes a credential of the
// token's project, a callback_url is any absolute URI that cannot run script, and consent records are
// read across the organization's projects of the caller's environment.
import { sql } from 'slonik';
import { z } from 'zod';
import { createConsent, intent, partnerMandate, startConsentGateway } from './support/consents';
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

const count = (table: 'mandates' | 'consents', orgId: string) =>
  gw.db.oneFirst(
    sql.type(
      z.object({ n: z.number() }),
    )`SELECT count(*)::int AS n FROM ${sql.identifier([table])} WHERE org_id = ${orgId}`,
  );

describe('the callback_url', () => {
  it.each([
    ['an https URL', 'https://partner.example/consents/done?session=7'],
    ['an app scheme', 'myapp://callback'],
    ['a URN', 'urn:example:partner:consent-callback'],
    ['a loopback http URL', 'http://127.0.0.1:8080/done'],
  ])('accepts %s and hands it back at submit', async (_name, callbackUrl) => {
    const consent = await createConsent(gw, tenant.key, { callback_url: callbackUrl });
    expect(
      (await gw.request('GET', `/v1/consents/${consent.token}`, { key: tenant.key })).body.callback_url,
    ).toBe(callbackUrl);
    const submitted = await gw.request('POST', `/v1/consents/${consent.token}/submit`, {
      key: tenant.key,
      body: {},
    });
    expect([submitted.status, submitted.body.callback_url]).toEqual([201, callbackUrl]);
  });

  it.each([
    ['a relative path', '/consents/done'],
    ['a scheme-relative URL', '//partner.example/done'],
    ['a javascript: URI', 'javascript:alert(1)'],
    ['a javascript: URI in mixed case', 'JavaScript:alert(document.domain)'],
    ['a data: URI', 'data:text/html,<script>alert(1)</script>'],
    ['a vbscript: URI', 'vbscript:msgbox(1)'],
    ['text that is no URI', 'not a uri'],
  ])('refuses %s with invalid_body naming callback_url, and writes nothing', async (_name, callbackUrl) => {
    const before = await count('consents', tenant.orgId);
    const refused = await gw.request('POST', '/v1/consents', {
      key: tenant.key,
      body: { agent_id: 'agent-7', intent: intent(), callback_url: callbackUrl },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_body');
    expect(refused.body.error.details.issues.map((issue: { path: string }) => issue.path)).toContain(
      '/callback_url',
    );
    expect(await count('consents', tenant.orgId)).toBe(before);
  });
});

describe('who may submit a consent through the API', () => {
  it('refuses a submit without a credential or with an unknown key, and writes nothing', async () => {
    const consent = await createConsent(gw, tenant.key);
    const before = await count('mandates', tenant.orgId);
    for (const key of [undefined, `csk_test_${'B'.repeat(32)}`]) {
      const refused = await gw.request('POST', `/v1/consents/${consent.token}/submit`, { key, body: {} });
      expect([refused.status, refused.body]).toEqual([401, { error: 'unauthorized' }]);
    }
    expect(await count('mandates', tenant.orgId)).toBe(before);
    expect((await gw.request('GET', `/v1/consents/${consent.token}`, { key: tenant.key })).body.status).toBe(
      'pending',
    );
  });

  it("answers 404 to another project's key, even for a used token, and writes nothing", async () => {
    const sibling = await gw.request('POST', '/v1/projects', {
      key: tenant.key,
      body: { name: 'Sibling', slug: `sibling-${Date.now()}` },
    });
    const siblingKey = await gw.createKey(sibling.body.id);
    const stranger = await gw.createTenant();
    const pending = await createConsent(gw, tenant.key);
    const used = await createConsent(gw, tenant.key);
    expect(
      (await gw.request('POST', `/v1/consents/${used.token}/submit`, { key: tenant.key, body: {} })).status,
    ).toBe(201);
    const before = await count('mandates', tenant.orgId);
    for (const key of [siblingKey.key, stranger.key]) {
      for (const token of [pending.token, used.token]) {
        const refused = await gw.request('POST', `/v1/consents/${token}/submit`, { key, body: {} });
        expect([refused.status, refused.body.error.code]).toEqual([404, 'not_found']);
      }
    }
    expect(await count('mandates', tenant.orgId)).toBe(before);
    expect((await gw.request('GET', `/v1/consents/${pending.token}`, { key: tenant.key })).body.status).toBe(
      'pending',
    );
  });

  it("is an authenticated operation in the OpenAPI document, and the hosted page's own submit is not in it", async () => {
    const document = (await gw.request('GET', '/openapi.json')).body;
    expect(document.paths['/v1/consents/{token}/submit'].post.security).toEqual([{ bearerAuth: [] }]);
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/consent/'))).toEqual([]);
  });

  it('refuses a restricted key with route_scope_unmapped, as the scope table maps no submit', async () => {
    const consent = await createConsent(gw, tenant.key);
    const restricted = await gw.createKey(tenant.projectId, { scopes: ['consents:write'] });
    const refused = await gw.request('POST', `/v1/consents/${consent.token}/submit`, {
      key: restricted.key,
      body: {},
    });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'route_scope_unmapped']);
  });
});

describe('reading consent records', () => {
  it("reads a record from any project of the organization in the caller's environment, but not another organization's or environment's", async () => {
    const { submitted } = await partnerMandate(gw, tenant);
    const path = `/v1/consent-records/${submitted.consent_record_id}`;
    const sibling = await gw.request('POST', '/v1/projects', {
      key: tenant.key,
      body: { name: 'Records sibling', slug: `records-${Date.now()}` },
    });
    const siblingKey = await gw.createKey(sibling.body.id);
    const fromSibling = await gw.request('GET', path, { key: siblingKey.key });
    expect(fromSibling.status).toBe(200);
    expect(fromSibling.body).toEqual((await gw.request('GET', path, { key: tenant.key })).body);
    expect((await gw.operator('GET', path, { project: sibling.body.id })).status).toBe(200);

    const live = await gw.operator('POST', '/v1/projects', {
      project: tenant.projectId,
      body: { name: 'Records live', slug: `records-live-${Date.now()}`, environment: 'live' },
    });
    const liveKey = await gw.createKey(live.body.id);
    const stranger = await gw.createTenant();
    for (const key of [liveKey.key, stranger.key]) {
      const refused = await gw.request('GET', path, { key });
      expect([refused.status, refused.body.error.code]).toEqual([404, 'not_found']);
    }
  });
});
