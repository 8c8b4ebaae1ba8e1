// Receipts through HTTP: the consumer's receipt secret, listing and reading sealed receipts, verifying
// them offline (HMAC with the shown secret, Ed25519 with tweetnacl against the published JWKS, the hash
// chain recomputed), the delivery / exception / void moves, and tenant isolation.
import nacl from 'tweetnacl';
import { sql } from 'slonik';
import { z } from 'zod';
import { verifyChain } from '../domain/receipts/chain';
import { receiptSecretBytes } from '../domain/receipts/consumer-secrets';
import { hmacMatches } from '../domain/receipts/signatures';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { insertConsumer, sealTestReceipt } from './support/receipt-factory';

let gw: Gateway;
let tenant: Tenant;
let other: Tenant;
beforeAll(async () => {
  gw = await startGateway({ worker: false });
  tenant = await gw.createTenant();
  other = await gw.createTenant();
});
afterAll(async () => {
  await gw?.stop();
});

async function consumerWithSecret(): Promise<{ consumerId: string; secret: string }> {
  const consumerId = await insertConsumer(gw, tenant);
  const created = await gw.request('POST', `/v1/consumers/${consumerId}/receipt-secret`, { key: tenant.key });
  expect(created.status).toBe(201);
  return { consumerId, secret: created.body.secret };
}

const eventsOf = async (type: string, receiptId: string) =>
  gw.db.manyFirst(
    sql.type(
      z.object({ n: z.number() }),
    )`SELECT count(*)::int AS n FROM events WHERE type = ${type} AND data->>'receipt_id' = ${receiptId}`,
  );

describe('receipt secret', () => {
  it('shows a new secret once per rotation and never again', async () => {
    const consumerId = await insertConsumer(gw, tenant);
    const first = await gw.request('POST', `/v1/consumers/${consumerId}/receipt-secret`, { key: tenant.key });
    const second = await gw.request('POST', `/v1/consumers/${consumerId}/receipt-secret`, {
      key: tenant.key,
    });
    expect(first.body).toMatchObject({
      consumer_id: consumerId,
      version: 1,
      secret: expect.stringMatching(/^rsec_[A-Za-z0-9_-]{43}$/),
    });
    expect(second.body.version).toBe(2);
    expect(second.body.secret).not.toBe(first.body.secret);
    expect(first.headers.get('cache-control')).toBe('no-store');
    const stored = await gw.db.anyFirst(
      sql.type(
        z.object({ s: z.string() }),
      )`SELECT secret_sealed AS s FROM consumer_receipt_secrets WHERE consumer_id = ${consumerId}`,
    );
    expect(stored.some((s) => s.includes(first.body.secret.slice(5)))).toBe(false);
  });

  it("is 404 for another project's consumer", async () => {
    const consumerId = await insertConsumer(gw, tenant);
    expect(
      (await gw.request('POST', `/v1/consumers/${consumerId}/receipt-secret`, { key: other.key })).status,
    ).toBe(404);
  });

  it('seals no receipt for a consumer without a secret', async () => {
    const consumerId = await insertConsumer(gw, tenant);
    expect(await sealTestReceipt(gw, tenant, consumerId)).toBeNull();
  });
});

describe('sealed receipts', () => {
  it("lists a consumer's receipts newest first, each verifiable offline with the secret and the published key", async () => {
    const { consumerId, secret } = await consumerWithSecret();
    const approval = { items_hash: '1'.repeat(64), batch_hash: '2'.repeat(64) };
    for (const over of [{}, { approval }, {}]) await sealTestReceipt(gw, tenant, consumerId, over);

    const listed = await gw.request('GET', `/v1/consumers/${consumerId}/receipts`, { key: tenant.key });
    expect(listed.status).toBe(200);
    const receipts = listed.body.receipts as Array<Record<string, any>>;
    expect(receipts.map((r) => r.chain.seq)).toEqual([3, 2, 1]);
    expect(receipts[1]).toMatchObject({
      state: 'paid',
      approval,
      chain: { version: 4, approval_hash: expect.stringMatching(/^[0-9a-f]{64}$/) },
      quote: null,
      exceptions: [],
    });

    const oldestFirst = [...receipts].reverse();
    expect(
      verifyChain(oldestFirst.map((r) => ({ body: r.body, approval: r.approval, chain: r.chain }))),
    ).toEqual({ ok: true });

    const jwks = await gw.request('GET', '/v1/receipts/signing-keys', { key: tenant.key });
    expect(jwks.status).toBe(200);
    for (const receipt of receipts) {
      expect(hmacMatches(receiptSecretBytes(secret), receipt.chain.hash, receipt.receipt_sig)).toBe(true);
      const jwk = jwks.body.keys.find((k: { kid: string }) => k.kid === receipt.signatures.ed25519_kid);
      expect(jwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
      const ok = nacl.sign.detached.verify(
        new TextEncoder().encode(receipt.signatures.message),
        new Uint8Array(Buffer.from(receipt.receipt_sig_ed25519, 'base64url')),
        new Uint8Array(Buffer.from(jwk.x, 'base64url')),
      );
      expect(ok).toBe(true);
      expect(receipt.signatures.message).toBe(`receipt:v4:${receipt.chain.hash}`);
    }

    const one = await gw.request('GET', `/v1/consumers/receipts/${receipts[0].receipt_id}`, {
      key: tenant.key,
    });
    expect(one.body).toEqual(receipts[0]);
    expect(await eventsOf('receipt.sealed', receipts[0].receipt_id)).toEqual([1]);
  });

  it('pages backwards along the chain', async () => {
    const { consumerId } = await consumerWithSecret();
    for (let i = 0; i < 3; i++) await sealTestReceipt(gw, tenant, consumerId);
    const first = await gw.request('GET', `/v1/consumers/${consumerId}/receipts?limit=2`, {
      key: tenant.key,
    });
    expect(first.body.receipts.map((r: any) => r.chain.seq)).toEqual([3, 2]);
    const next = await gw.request(
      'GET',
      `/v1/consumers/${consumerId}/receipts?limit=2&before_seq=${first.body.next_before_seq}`,
      { key: tenant.key },
    );
    expect(next.body.receipts.map((r: any) => r.chain.seq)).toEqual([1]);
    expect(next.body.next_before_seq).toBeNull();
  });

  it('refuses to change the sealed part of a receipt even from SQL', async () => {
    const { consumerId } = await consumerWithSecret();
    const row = await sealTestReceipt(gw, tenant, consumerId);
    await expect(
      gw.db.query(sql.unsafe`UPDATE receipts SET body = '{}'::jsonb WHERE id = ${row!.id}`),
    ).rejects.toThrow(/sealed receipt cannot change/);
  });
});

describe('the published signing keys', () => {
  it('answers only to a credential, never to an anonymous caller, and lists the key as an authenticated operation', async () => {
    for (const key of [undefined, 'csk_test_' + 'A'.repeat(32)]) {
      const anonymous = await gw.request('GET', '/v1/receipts/signing-keys', { key });
      expect([anonymous.status, anonymous.body]).toEqual([401, { error: 'unauthorized' }]);
    }
    const { consumerId } = await consumerWithSecret();
    await sealTestReceipt(gw, tenant, consumerId);
    const jwks = await gw.request('GET', '/v1/receipts/signing-keys', { key: tenant.key });
    expect(jwks.status).toBe(200);
    expect(jwks.body.keys.length).toBeGreaterThan(0);
    // An answer to a credential is not for shared caches.
    expect(jwks.headers.get('cache-control')).toMatch(/^private/);
    const document = (await gw.request('GET', '/openapi.json')).body;
    expect(document.paths['/v1/receipts/signing-keys'].get.security).toEqual([{ bearerAuth: [] }]);
  });
});

describe('receipt moves', () => {
  it('seals a delivery proof once, signed to the receipt, and answers a repeat unchanged', async () => {
    const { consumerId } = await consumerWithSecret();
    const row = await sealTestReceipt(gw, tenant, consumerId);
    const path = `/v1/consumers/receipts/${row!.id}/delivery`;
    const proof = { carrier: 'correios', tracking: 'BR123456789BR', signed_by: 'M. Silva' };
    const delivered = await gw.request('POST', path, {
      key: tenant.key,
      body: { result: 'delivered', proof },
    });
    expect(delivered.status).toBe(200);
    expect(delivered.body).toMatchObject({
      state: 'delivered',
      delivery: { result: 'delivered', proof, proof_hash: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });

    const jwks = await gw.request('GET', '/v1/receipts/signing-keys', { key: tenant.key });
    const jwk = jwks.body.keys.find((k: { kid: string }) => k.kid === delivered.body.delivery.kid);
    const message = `receipt:v4:${delivered.body.chain.hash}:delivery:${delivered.body.delivery.proof_hash}`;
    expect(
      nacl.sign.detached.verify(
        new TextEncoder().encode(message),
        new Uint8Array(Buffer.from(delivered.body.delivery.sig_ed25519, 'base64url')),
        new Uint8Array(Buffer.from(jwk.x, 'base64url')),
      ),
    ).toBe(true);

    const again = await gw.request('POST', path, { key: tenant.key, body: { result: 'delivered', proof } });
    expect(again.body).toEqual(delivered.body);
    const different = await gw.request('POST', path, {
      key: tenant.key,
      body: { result: 'delivered', proof: { tracking: 'other' } },
    });
    expect(different.status).toBe(409);
    expect(different.body.error).toMatchObject({
      code: 'invalid_transition',
      details: { state: 'delivered', move: 'deliver' },
    });
    expect(await eventsOf('receipt.delivered', row!.id)).toEqual([1]);
  });

  it('records exceptions on a delivered receipt and refuses to void it', async () => {
    const { consumerId } = await consumerWithSecret();
    const row = await sealTestReceipt(gw, tenant, consumerId);
    await gw.request('POST', `/v1/consumers/receipts/${row!.id}/delivery`, {
      key: tenant.key,
      body: { result: 'delivered', proof: { ok: true } },
    });
    expect(
      (
        await gw.request('POST', `/v1/consumers/receipts/${row!.id}/void`, {
          key: tenant.key,
          body: { reason: 'oops' },
        })
      ).status,
    ).toBe(409);
    const excepted = await gw.request('POST', `/v1/consumers/receipts/${row!.id}/exceptions`, {
      key: tenant.key,
      body: { code: 'damaged', detail: 'box crushed' },
    });
    expect(excepted.body).toMatchObject({
      state: 'exception',
      exceptions: [{ code: 'damaged', detail: 'box crushed', at: expect.any(String) }],
      delivery: { result: 'delivered' },
    });
    expect(await eventsOf('receipt.exception', row!.id)).toEqual([1]);
  });

  it('voids an undelivered receipt for good', async () => {
    const { consumerId } = await consumerWithSecret();
    const row = await sealTestReceipt(gw, tenant, consumerId);
    const voided = await gw.request('POST', `/v1/consumers/receipts/${row!.id}/void`, {
      key: tenant.key,
      body: { reason: 'order cancelled before shipping' },
    });
    expect(voided.body).toMatchObject({
      state: 'voided',
      exceptions: [{ code: 'voided', detail: 'order cancelled before shipping' }],
    });
    expect(
      (
        await gw.request('POST', `/v1/consumers/receipts/${row!.id}/void`, {
          key: tenant.key,
          body: { reason: 'again' },
        })
      ).body,
    ).toEqual(voided.body);
    expect(
      (
        await gw.request('POST', `/v1/consumers/receipts/${row!.id}/delivery`, {
          key: tenant.key,
          body: { result: 'delivered', proof: {} },
        })
      ).status,
    ).toBe(409);
    expect(await eventsOf('receipt.voided', row!.id)).toEqual([1]);
  });

  it.each([
    ['delivery without proof', 'delivery', { result: 'delivered' }],
    ['exception with a bad code', 'exceptions', { code: 'Not Snake', detail: 'x' }],
    ['void with extra fields', 'void', { reason: 'x', refund: true }],
  ])('refuses %s with invalid_body and changes nothing', async (_name, action, body) => {
    const { consumerId } = await consumerWithSecret();
    const row = await sealTestReceipt(gw, tenant, consumerId);
    const result = await gw.request('POST', `/v1/consumers/receipts/${row!.id}/${action}`, {
      key: tenant.key,
      body,
    });
    expect(result.status).toBe(400);
    expect(result.body.error.code).toBe('invalid_body');
    expect(
      (await gw.request('GET', `/v1/consumers/receipts/${row!.id}`, { key: tenant.key })).body.state,
    ).toBe('paid');
  });
});

describe('tenant isolation', () => {
  it("hides one project's receipts from another project's key", async () => {
    const { consumerId } = await consumerWithSecret();
    const row = await sealTestReceipt(gw, tenant, consumerId);
    const tries = [
      gw.request('GET', `/v1/consumers/${consumerId}/receipts`, { key: other.key }),
      gw.request('GET', `/v1/consumers/receipts/${row!.id}`, { key: other.key }),
      gw.request('POST', `/v1/consumers/receipts/${row!.id}/delivery`, {
        key: other.key,
        body: { result: 'delivered', proof: {} },
      }),
      gw.request('POST', `/v1/consumers/receipts/${row!.id}/exceptions`, {
        key: other.key,
        body: { code: 'x', detail: 'y' },
      }),
      gw.request('POST', `/v1/consumers/receipts/${row!.id}/void`, { key: other.key, body: { reason: 'z' } }),
    ];
    for (const result of await Promise.all(tries)) {
      expect(result.status).toBe(404);
      expect(result.body.error.code).toBe('not_found');
    }
    expect(
      (await gw.request('GET', `/v1/consumers/receipts/${row!.id}`, { key: tenant.key })).body.state,
    ).toBe('paid');
  });

  it('refuses a restricted key on these routes', async () => {
    const restricted = await gw.createKey(tenant.projectId, { scopes: ['sessions:read'] });
    const result = await gw.request('GET', '/v1/consumers/receipts/rcpt_x', { key: restricted.key });
    expect(result.status).toBe(403);
  });
});
