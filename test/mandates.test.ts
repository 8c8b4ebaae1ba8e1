// Mandates through HTTP: read, verify, revoke, amend (narrowing only, re-signed), concurrent
// transitions, expiry on the lifecycle's durable timer, and secret rotation that keeps old mandates valid.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { sql } from 'slonik';
import { z } from 'zod';
import { tokenDigest } from '../domain/consents/tokens';
import { consentRecordVerifies, getConsentRecord } from '../domain/mandates/consent-records';
import { mandatePaymentSeam } from '../domain/mandates/payment-seam';
import { workflowIds } from '../contracts/workflow-ids';
import { createConsent, intent, partnerMandate, startConsentGateway, waitFor } from './support/consents';
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

async function hostedMandate(intentChanges: Record<string, unknown> = {}) {
  const consent = await createConsent(gw, tenant.key, { intent: intent(intentChanges) });
  const submitted = await gw.request('POST', `/v1/consents/${consent.token}/submit`, {
    key: tenant.key,
    body: {},
  });
  if (submitted.status !== 201) throw new Error(submitted.text);
  return { token: consent.token, ...submitted.body } as {
    token: string;
    mandate_id: string;
    mandate: Record<string, unknown>;
    signature: string;
    consumer_id: string;
    hmac_secret_version: number;
  };
}

const verify = (mandate: unknown, signature: string, key = tenant.key, extra: Record<string, unknown> = {}) =>
  gw.request('POST', '/v1/mandates/verify', { key, body: { mandate, signature, ...extra } });
const lifecycle = (token: string) =>
  gw.env.client.workflow.getHandle(workflowIds.consent(tokenDigest(token)));
const status = async (mandateId: string) =>
  (await gw.request('GET', `/v1/mandates/${mandateId}`, { key: tenant.key })).body.status as string;
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));
const eventTypes = async (mandateId: string) =>
  (
    await gw.db.any(
      sql.type(
        z.object({ type: z.string() }),
      )`SELECT type FROM events WHERE data->>'mandate_id' = ${mandateId} AND type LIKE 'mandate.%' ORDER BY created_at, id`,
    )
  ).map((e) => e.type);

describe('reading and verifying', () => {
  it('returns the signed document and its signature, which verify as presented', async () => {
    const signed = await hostedMandate();
    const read = await gw.request('GET', `/v1/mandates/${signed.mandate_id}`, { key: tenant.key });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      id: signed.mandate_id,
      status: 'active',
      revision: 1,
      cap_minor: '50000',
      per_tx_cap_minor: '10000',
      signature: signed.signature,
    });
    expect(read.body.mandate).toEqual(signed.mandate);
    expect((await verify(read.body.mandate, read.body.signature)).status).toBe(200);
  });

  it('verifies the canonical text as well as the object, whatever the member order', async () => {
    const signed = await hostedMandate();
    const reordered = Object.fromEntries(Object.entries(signed.mandate).reverse());
    expect((await verify(reordered, signed.signature)).status).toBe(200);
    expect((await verify(JSON.stringify(reordered), signed.signature)).status).toBe(200);
    expect((await verify(signed.mandate, signed.signature.toUpperCase())).status).toBe(200);
  });

  it.each([
    ['a raised cap', (m: Record<string, unknown>) => ({ ...m, cap_minor: '5000000' })],
    ['another agent', (m: Record<string, unknown>) => ({ ...m, agent_id: 'agent-evil' })],
    ['a wider allowlist', (m: Record<string, unknown>) => ({ ...m, merchant_allowlist: ['*', 'x'] })],
    ['a later expiry', (m: Record<string, unknown>) => ({ ...m, expires_at: '2099-01-01T00:00:00.000Z' })],
    ['an extra member', (m: Record<string, unknown>) => ({ ...m, note: 'hi' })],
  ])('refuses a document with %s as mandate_signature_invalid', async (_name, tamper) => {
    const signed = await hostedMandate();
    const refused = await verify(tamper(signed.mandate), signed.signature);
    expect([refused.status, refused.body.error.code]).toEqual([403, 'mandate_signature_invalid']);
  });

  it('refuses a wrong signature, a wrong agent, and a mandate of another project', async () => {
    const signed = await hostedMandate();
    const wrong = await verify(signed.mandate, 'f'.repeat(64));
    expect([wrong.status, wrong.body.error.code, wrong.body.error.details.reason]).toEqual([
      403,
      'mandate_signature_invalid',
      'signature_mismatch',
    ]);
    const agent = await verify(signed.mandate, signed.signature, tenant.key, { agent_id: 'agent-8' });
    expect([agent.status, agent.body.error.code]).toEqual([403, 'agent_mismatch']);
    expect((await verify(signed.mandate, signed.signature, tenant.key, { agent_id: 'agent-7' })).status).toBe(
      200,
    );
    const other = await gw.createTenant();
    const foreign = await verify(signed.mandate, signed.signature, other.key);
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'mandate_not_found']);
  });

  it('keeps mandates and their logs invisible to another organization on every route', async () => {
    const signed = await hostedMandate();
    const other = await gw.createTenant();
    const calls: Array<[string, string, unknown]> = [
      ['GET', `/v1/mandates/${signed.mandate_id}`, undefined],
      ['GET', `/v1/mandates/${signed.mandate_id}/consent-records`, undefined],
      ['POST', `/v1/mandates/${signed.mandate_id}/revoke`, {}],
      ['POST', `/v1/mandates/${signed.mandate_id}/amend`, { cap_minor: 10 }],
    ];
    for (const [method, path, body] of calls) {
      const answer = await gw.request(method, path, { key: other.key, body });
      expect([path, answer.status, answer.body.error.code]).toEqual([path, 404, 'mandate_not_found']);
    }
    expect(
      (await gw.request('GET', `/v1/mandates/${signed.mandate_id}`, { key: tenant.key })).body.status,
    ).toBe('active');
  });
});

describe('revoking', () => {
  it('revokes once, appends a revoke row to the consent log, and ends the lifecycle', async () => {
    const signed = await hostedMandate();
    const revoked = await gw.request('POST', `/v1/mandates/${signed.mandate_id}/revoke`, {
      key: tenant.key,
      body: { reason: 'customer asked' },
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body.mandate).toMatchObject({ status: 'revoked' });
    expect(revoked.body.mandate.revoked_at).not.toBeNull();
    expect(revoked.body.consent_record).toMatchObject({
      kind: 'revoke',
      mandate_id: signed.mandate_id,
      consumer_id: signed.consumer_id,
      cap_minor: null,
      per_tx_cap_minor: null,
      purpose: null,
      currency: null,
      metadata: { action: 'revoke', from: 'active', to: 'revoked', reason: 'customer asked' },
    });
    expect(revoked.body.consent_record.id).toMatch(/^ccsnt_/);

    const again = await gw.request('POST', `/v1/mandates/${signed.mandate_id}/revoke`, {
      key: tenant.key,
      body: {},
    });
    expect([again.status, again.body.error.code]).toEqual([409, 'mandate_already_revoked']);
    const amend = await gw.request('POST', `/v1/mandates/${signed.mandate_id}/amend`, {
      key: tenant.key,
      body: { cap_minor: 100 },
    });
    expect([amend.status, amend.body.error.code]).toEqual([409, 'mandate_already_revoked']);
    const spend = await verify(signed.mandate, signed.signature);
    expect([spend.status, spend.body.error.code, spend.body.error.details]).toEqual([
      409,
      'mandate_not_active',
      { status: 'revoked' },
    ]);

    const log = await gw.request('GET', `/v1/mandates/${signed.mandate_id}/consent-records`, {
      key: tenant.key,
    });
    expect(log.body.consent_records.map((r: { kind: string }) => r.kind)).toEqual(['grant', 'revoke']);
    expect(await lifecycle(signed.token).result()).toBe('mandate_revoked');
    expect(await eventTypes(signed.mandate_id)).toEqual(['mandate.signed', 'mandate.revoked']);
  });

  it('refuses to revoke an unknown mandate with mandate_not_found', async () => {
    const refused = await gw.request('POST', '/v1/mandates/mnd_unknown/revoke', {
      key: tenant.key,
      body: {},
    });
    expect([refused.status, refused.body.error.code]).toEqual([404, 'mandate_not_found']);
  });
});

describe('amending', () => {
  it('narrows the caps and allowlists, re-signs the mandate, and stops the old signature from verifying', async () => {
    const signed = await hostedMandate({
      merchant_allowlist: ['loja-a.example', 'loja-b.example'],
      dda_allowlist: ['52998224725', '11144477735'],
    });
    const amended = await gw.request('POST', `/v1/mandates/${signed.mandate_id}/amend`, {
      key: tenant.key,
      body: {
        cap_minor: 20_000,
        per_tx_cap_minor: 5_000,
        merchant_allowlist: ['loja-a.example'],
        dda_allowlist: ['52998224725'],
        reason: 'budget cut',
      },
    });
    expect(amended.status).toBe(200);
    const mandate = amended.body.mandate;
    expect(mandate).toMatchObject({
      status: 'active',
      revision: 2,
      cap_minor: '20000',
      per_tx_cap_minor: '5000',
    });
    expect(mandate.mandate).toMatchObject({
      id: signed.mandate_id,
      revision: 2,
      cap_minor: '20000',
      merchant_allowlist: ['loja-a.example'],
      dda_allowlist: ['52998224725'],
    });
    expect(mandate.mandate.nonce).not.toBe(signed.mandate.nonce);
    expect(mandate.signature).not.toBe(signed.signature);
    expect(amended.body.consent_record).toMatchObject({
      kind: 'amend',
      cap_minor: null,
      per_tx_cap_minor: null,
      metadata: {
        action: 'amend',
        from: 'active',
        to: 'active',
        reason: 'budget cut',
        revision: 2,
        changes: { cap_minor: { from: '50000', to: '20000' } },
      },
    });

    const stale = await verify(signed.mandate, signed.signature);
    expect([stale.status, stale.body.error.code, stale.body.error.details.reason]).toEqual([
      403,
      'mandate_signature_invalid',
      'superseded_revision',
    ]);
    const fresh = await verify(mandate.mandate, mandate.signature);
    expect([fresh.status, fresh.body.cap_minor, fresh.body.revision]).toEqual([200, '20000', 2]);
    expect(await eventTypes(signed.mandate_id)).toEqual(['mandate.signed', 'mandate.amended']);
  });

  it.each([
    ['a higher cap', { cap_minor: 60_000 }, 'cap_minor'],
    ['a higher per-transaction cap', { per_tx_cap_minor: 20_000 }, 'per_tx_cap_minor'],
    ['a new payee', { merchant_allowlist: ['loja-a.example', 'loja-c.example'] }, 'merchant_allowlist'],
    [
      'a cash-out destination the consumer never allowed',
      { withdrawal_allowlist: ['ted:1:2:3'] },
      'withdrawal_allowlist',
    ],
    ['a later expiry', { expires_at: '2099-01-01T00:00:00Z' }, 'expires_at'],
  ])('refuses an amendment with %s as invalid_transition, changing nothing', async (_name, body, field) => {
    const signed = await hostedMandate({ merchant_allowlist: ['loja-a.example'] });
    const refused = await gw.request('POST', `/v1/mandates/${signed.mandate_id}/amend`, {
      key: tenant.key,
      body,
    });
    expect([
      refused.status,
      refused.body.error.code,
      refused.body.error.details.field,
      refused.body.error.details.reason,
    ]).toEqual([409, 'invalid_transition', field, 'widens']);
    expect(
      (await gw.request('GET', `/v1/mandates/${signed.mandate_id}`, { key: tenant.key })).body.revision,
    ).toBe(1);
  });

  it('refuses an amendment that changes nothing, an expiry in the past, and an empty body', async () => {
    const signed = await hostedMandate();
    const same = await gw.request('POST', `/v1/mandates/${signed.mandate_id}/amend`, {
      key: tenant.key,
      body: { cap_minor: 50_000 },
    });
    expect([same.status, same.body.error.code, same.body.error.details.reason]).toEqual([
      409,
      'invalid_transition',
      'no_change',
    ]);
    const past = await gw.request('POST', `/v1/mandates/${signed.mandate_id}/amend`, {
      key: tenant.key,
      body: { expires_at: '2020-01-01T00:00:00Z' },
    });
    expect([past.status, past.body.error.code]).toEqual([400, 'expires_at_in_past']);
    const empty = await gw.request('POST', `/v1/mandates/${signed.mandate_id}/amend`, {
      key: tenant.key,
      body: {},
    });
    expect([empty.status, empty.body.error.code]).toEqual([400, 'invalid_body']);
  });

  it('never applies two racing transitions to the same revision: one waits its turn or is refused', async () => {
    for (let round = 0; round < 3; round++) {
      const signed = await hostedMandate();
      const [revoke, amend] = await Promise.all([
        gw.request('POST', `/v1/mandates/${signed.mandate_id}/revoke`, { key: tenant.key, body: {} }),
        gw.request('POST', `/v1/mandates/${signed.mandate_id}/amend`, {
          key: tenant.key,
          body: { cap_minor: 1_000 },
        }),
      ]);
      const log = await gw.request('GET', `/v1/mandates/${signed.mandate_id}/consent-records`, {
        key: tenant.key,
      });
      const kinds = log.body.consent_records.map((record: { kind: string }) => record.kind);
      if (revoke.status === 200 && amend.status === 200) {
        // The amend committed before the revoke took the row: two transitions, one after the other.
        expect(kinds).toEqual(expect.arrayContaining(['grant', 'amend', 'revoke']));
        expect(kinds).toHaveLength(3);
      } else {
        expect([revoke.status, amend.status].filter((s) => s === 200)).toHaveLength(1);
        const loser = revoke.status === 200 ? amend : revoke;
        expect(['transition_conflict', 'mandate_already_revoked', 'mandate_not_active']).toContain(
          loser.body.error.code,
        );
        expect(kinds).toHaveLength(2);
      }
      const mandate = await gw.request('GET', `/v1/mandates/${signed.mandate_id}`, { key: tenant.key });
      expect(mandate.body.status).toBe(revoke.status === 200 ? 'revoked' : 'active');
    }
  });

  it('answers transition_conflict while another change holds the mandate, and writes nothing', async () => {
    const signed = await hostedMandate();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holder = gw.db.transaction(async (tx) => {
      await tx.query(sql.unsafe`SELECT id FROM mandates WHERE id = ${signed.mandate_id} FOR UPDATE`);
      locked();
      await held;
    });
    await lockTaken;
    const refused = await gw.request('POST', `/v1/mandates/${signed.mandate_id}/revoke`, {
      key: tenant.key,
      body: {},
    });
    release();
    await holder;
    expect([refused.status, refused.body.error.code, refused.body.error.details]).toEqual([
      409,
      'transition_conflict',
      { mandate_id: signed.mandate_id },
    ]);
    expect(
      (await gw.request('GET', `/v1/mandates/${signed.mandate_id}`, { key: tenant.key })).body.status,
    ).toBe('active');
  });
});

describe('expiry', () => {
  it('expires a mandate when mandate_ttl_seconds have passed since signing, on the lifecycle timer', async () => {
    const signed = await hostedMandate({ mandate_ttl_seconds: 3600 });
    await gw.env.sleep('59 minutes');
    await settle();
    expect(await status(signed.mandate_id)).toBe('active');
    await gw.env.sleep('2 minutes');
    await waitFor(async () => (await status(signed.mandate_id)) === 'expired');
    expect(await lifecycle(signed.token).result()).toBe('mandate_expired');
    const read = await gw.request('GET', `/v1/mandates/${signed.mandate_id}`, { key: tenant.key });
    expect(read.body.status).toBe('expired');
    expect(read.body.expired_at).not.toBeNull();
    const spend = await verify(signed.mandate, signed.signature);
    expect([spend.status, spend.body.error.code]).toEqual([410, 'mandate_already_expired']);
    const revoke = await gw.request('POST', `/v1/mandates/${signed.mandate_id}/revoke`, {
      key: tenant.key,
      body: {},
    });
    expect([revoke.status, revoke.body.error.code]).toEqual([410, 'mandate_already_expired']);
    const amend = await gw.request('POST', `/v1/mandates/${signed.mandate_id}/amend`, {
      key: tenant.key,
      body: { cap_minor: 1 },
    });
    expect([amend.status, amend.body.error.code]).toEqual([410, 'mandate_already_expired']);
    expect(await eventTypes(signed.mandate_id)).toEqual(['mandate.signed', 'mandate.expired']);
  });

  it('moves the expiry timer when an amendment shortens the mandate', async () => {
    const signed = await hostedMandate({ mandate_ttl_seconds: 10 * 86_400 });
    const soon = new Date(Date.now() + 2 * 3600_000).toISOString();
    const amended = await gw.request('POST', `/v1/mandates/${signed.mandate_id}/amend`, {
      key: tenant.key,
      body: { expires_at: soon },
    });
    expect(amended.status).toBe(200);
    expect(amended.body.mandate.expires_at).toBe(soon);
    await gw.env.sleep('118 minutes');
    await settle();
    expect(await status(signed.mandate_id)).toBe('active');
    await gw.env.sleep('3 minutes');
    await waitFor(async () => (await status(signed.mandate_id)) === 'expired');
    expect(await lifecycle(signed.token).result()).toBe('mandate_expired');
  });
});

describe('secret rotation', () => {
  it('keeps every mandate and consent record signed under an older version verifiable after a rotation', async () => {
    const before = await hostedMandate();
    const rotated = await gw.operator('POST', '/v1/ops/mandate-secrets/rotate');
    expect(rotated.status).toBe(201);
    expect(rotated.body.version).toBe(before.hmac_secret_version + 1);
    const after = await hostedMandate();
    expect(after.hmac_secret_version).toBe(rotated.body.version);

    expect((await verify(before.mandate, before.signature)).status).toBe(200);
    expect((await verify(after.mandate, after.signature)).status).toBe(200);
    // The old signature was made with the old secret: it does not pass as a new-version signature of the same text.
    expect(before.signature).not.toBe(after.signature);

    const grant = (
      await gw.request('GET', `/v1/mandates/${before.mandate_id}/consent-records`, { key: tenant.key })
    ).body.consent_records[0];
    expect(grant.hmac_secret_version).toBe(before.hmac_secret_version);
    const tenantScope = { orgId: tenant.orgId, projectId: tenant.projectId, environment: 'test' as const };
    expect(
      await consentRecordVerifies(
        gw.db,
        gw.config.encryptionKeys,
        await getConsentRecord(gw.db, tenantScope, grant.id),
      ),
    ).toBe(true);

    // An amendment after rotation re-signs under the new version; the revision's own record says so.
    const amended = await gw.request('POST', `/v1/mandates/${before.mandate_id}/amend`, {
      key: tenant.key,
      body: { cap_minor: 100 },
    });
    expect(amended.body.mandate.hmac_secret_version).toBe(rotated.body.version);
    expect(amended.body.consent_record.hmac_secret_version).toBe(rotated.body.version);
    expect((await verify(amended.body.mandate.mandate, amended.body.mandate.signature)).status).toBe(200);

    const versions = await gw.operator('GET', '/v1/ops/mandate-secrets');
    expect(versions.body.versions.map((v: { version: number }) => v.version)).toEqual([
      before.hmac_secret_version,
      rotated.body.version,
    ]);
    expect(versions.text).not.toMatch(/secret_sealed|v\d+\.[A-Za-z0-9_-]{16}/);
  });

  it('keeps rotation for operators: an API key gets 401', async () => {
    const refused = await gw.request('POST', '/v1/ops/mandate-secrets/rotate', { key: tenant.key });
    expect(refused.status).toBe(401);
  });
});

describe('partner mandates', () => {
  it('carry the partner attestation, and a partner grant verifies like any other', async () => {
    const { submitted } = await partnerMandate(gw, tenant);
    expect(submitted.mandate.attestation.method).toBe('partner_session');
    expect((await verify(submitted.mandate, submitted.signature)).status).toBe(200);
  });
});

describe('the consumer-payments seam', () => {
  it('verifies a presented mandate under a lock, hands back its terms and signed document, and records each spend once', async () => {
    const { submitted } = await partnerMandate(gw, tenant, {
      intent: {
        periodic_cap: { window: 'day', cap_minor: 20_000 },
        withdrawal_allowlist: ['ted:60701190:1234:00098765'],
      },
    });
    const seam = mandatePaymentSeam(gw.config.encryptionKeys);
    const scope = { orgId: tenant.orgId, projectId: tenant.projectId, environment: 'test' as const };
    const terms = await gw.db.transaction(async (tx) => {
      const found = await seam.verify(tx, scope, {
        mandate: submitted.mandate,
        signature: submitted.signature,
        agentId: 'agent-7',
      });
      await seam.recordSpend(tx, scope, {
        mandateId: found.mandateId,
        amountMinor: 1_200n,
        currency: 'BRL',
        attemptId: 'seam-att-1',
      });
      await seam.recordSpend(tx, scope, {
        mandateId: found.mandateId,
        amountMinor: 1_200n,
        currency: 'BRL',
        attemptId: 'seam-att-1',
      });
      return found;
    });
    expect(terms).toMatchObject({
      mandateId: submitted.mandate_id,
      consumerId: submitted.consumer_id,
      agentId: 'agent-7',
      purpose: 'Weekly groceries',
      currency: 'BRL',
      fundingRail: 'pix-partner',
      capMinor: 50_000n,
      perTxCapMinor: 10_000n,
      merchantAllowlist: ['*'],
      withdrawalAllowlist: ['ted:60701190:1234:00098765'],
      periodicCap: { window: 'day', capMinor: 20_000n },
      slots: [],
      nonce: submitted.mandate.nonce,
      scope: submitted.mandate.scope,
      signature: submitted.signature,
    });
    expect(await gw.db.transaction((tx) => seam.registered(tx, scope, submitted.mandate_id))).toEqual(
      submitted.mandate,
    );
    const verified = await verify(submitted.mandate, submitted.signature);
    expect(verified.body.spent_minor).toBe('1200');

    const other = {
      orgId: (await gw.createTenant()).orgId,
      projectId: 'prj_other',
      environment: 'test' as const,
    };
    await expect(
      gw.db.transaction((tx) => seam.registered(tx, other, submitted.mandate_id)),
    ).rejects.toMatchObject({ code: 'mandate_not_found', status: 404 });
    await expect(
      gw.db.transaction((tx) =>
        seam.verify(tx, scope, {
          mandate: submitted.mandate,
          signature: submitted.signature,
          agentId: 'agent-9',
        }),
      ),
    ).rejects.toMatchObject({ code: 'agent_mismatch', status: 403 });
  });
});

describe('determinism', () => {
  const bundle = () => ({ workflowBundle: { codePath: process.env.GATEWAY_WORKFLOW_BUNDLE! } });
  const recorded = path.join(__dirname, 'replay', 'consent-lifecycle-amended.history');

  it('replays lifecycle histories (revoked; amended, then expired on the moved timer) without divergence', async () => {
    const revoked = await hostedMandate();
    await gw.request('POST', `/v1/mandates/${revoked.mandate_id}/revoke`, { key: tenant.key, body: {} });
    const amended = await hostedMandate({ mandate_ttl_seconds: 600 });
    await gw.request('POST', `/v1/mandates/${amended.mandate_id}/amend`, {
      key: tenant.key,
      body: { expires_at: new Date(Date.now() + 120_000).toISOString(), cap_minor: 40_000 },
    });
    await gw.env.sleep('3 minutes');
    await waitFor(async () => (await status(amended.mandate_id)) === 'expired');
    expect([await lifecycle(revoked.token).result(), await lifecycle(amended.token).result()]).toEqual([
      'mandate_revoked',
      'mandate_expired',
    ]);
    for (const token of [revoked.token, amended.token]) {
      await Worker.runReplayHistory(
        bundle(),
        await lifecycle(token).fetchHistory(),
        `consent/${token.slice(-6)}`,
      );
    }
    // RECORD_HISTORIES=1 refreshes the recorded history of the next test from this run.
    if (process.env.RECORD_HISTORIES === '1') {
      writeFileSync(
        recorded,
        temporal.api.history.v1.History.encode(await lifecycle(amended.token).fetchHistory()).finish(),
      );
    }
  });

  it('replays a lifecycle history recorded from an earlier version of the workflow', async () => {
    // Binary History protobuf: signed, amended to an earlier expiry, expired on the moved timer.
    const history = temporal.api.history.v1.History.decode(readFileSync(recorded));
    await Worker.runReplayHistory(bundle(), history, 'consent/recorded');
  });
});
