// Contact verification through HTTP: codes sent through the dev sink in test projects and through
// Prelude (phones) and Resend (emails) in live ones, each a real HTTP mock speaking the provider's API.
process.env.PRELUDE_API_KEY = 'prelude_test_key_123';
process.env.RESEND_API_KEY = 're_test_key_456';
process.env.RESEND_FROM = 'Gateway <verify@gateway.example>';

import { sql } from 'slonik';
import { z } from 'zod';
import type { DevSenderMock } from '../providers/mocks/otp-dev';
import type { PreludeMock } from '../providers/mocks/prelude';
import type { ResendMock } from '../providers/mocks/resend';
import { HOLDER_CPF, createConsumer, partnerMandate, startConsentGateway } from './support/consents';
import type { Gateway, Tenant } from './support/harness';

let gw: Gateway;
let tenant: Tenant;
let dev: DevSenderMock;
let prelude: PreludeMock;
let resend: ResendMock;
beforeAll(async () => {
  gw = await startConsentGateway();
  tenant = await gw.createTenant();
  dev = gw.mocks.otp_dev as DevSenderMock;
  prelude = gw.mocks.prelude as PreludeMock;
  resend = gw.mocks.resend as ResendMock;
});
afterAll(async () => {
  await gw?.stop();
});

let serial = 0;
const uniquePhone = () => `+55119${String(70000000 + ++serial * 7919).slice(-8)}`;
const uniqueEmail = () => `ana.${++serial}.${Date.now()}@example.com`;

async function partnerConsumer(owner: Tenant = tenant): Promise<string> {
  return (await partnerMandate(gw, owner)).consumer.id;
}
const start = (consumerId: string, body: Record<string, unknown>, key = tenant.key) =>
  gw.request('POST', `/v1/consumers/${consumerId}/contact-verifications`, { key, body });
const check = (consumerId: string, id: string, body: Record<string, unknown>, key = tenant.key) =>
  gw.request('POST', `/v1/consumers/${consumerId}/contact-verifications/${id}/verify`, { key, body });
const rows = (consumerId: string) =>
  gw.db.any(sql.type(
    z.object({
      id: z.string(),
      status: z.string(),
      target_hash: z.string(),
      code_hash: z.string().nullable(),
      attempts_used: z.number(),
      expires_at: z.string(),
    }),
  )`
    SELECT id, status, target_hash, code_hash, attempts_used, expires_at FROM contact_verifications WHERE consumer_id = ${consumerId} ORDER BY created_at`);
const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('in a test project (dev sender)', () => {
  it('sends a code, verifies it, and marks the consumer verified with the partner-attested document', async () => {
    const consumerId = await partnerConsumer();
    const email = uniqueEmail();
    const started = await start(consumerId, { channel: 'email', target: email, locale: 'pt-BR' });
    expect(started.status).toBe(201);
    expect(started.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      channel: 'email',
      target_masked: `a***@example.com`,
      provider: 'dev',
      expires_at: expect.any(String),
      status: 'sent',
      verified_at: null,
    });
    // The code lives 10 minutes from its creation, by the database's own clock (no margin of time to miss).
    const lifetime = await gw.db.oneFirst(sql.type(z.object({ lifetime: z.number() }))`
      SELECT extract(epoch FROM expires_at - created_at)::float8 AS lifetime FROM contact_verifications
      WHERE id = ${started.body.id}`);
    expect(lifetime).toBe(10 * 60);
    const message = dev.messages.find((m) => m.to === email)!;
    expect(message.text).toMatch(/Seu código de verificação é \d{6}/);
    expect(message.idempotency_key).toBe(`contact-verification/${started.body.id}`);

    const verified = await check(consumerId, started.body.id, { code: dev.latestCode(email)! });
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({
      id: started.body.id,
      status: 'verified',
      verified_at: expect.any(String),
    });
    const consumer = await gw.request('GET', `/v1/consumers/${consumerId}`, { key: tenant.key });
    expect(consumer.body).toMatchObject({
      status: 'verified',
      document: HOLDER_CPF,
      document_source: 'partner_attestation',
      person_type: 'natural',
    });
    expect(consumer.body.document_verified_at).not.toBeNull();
    const types = await gw.db.any(sql.type(z.object({ type: z.string() }))`
      SELECT type FROM events WHERE data->>'consumer_id' = ${consumerId} AND type LIKE 'con%' ORDER BY id`);
    expect(types.map((t) => t.type)).toEqual(
      expect.arrayContaining([
        'contact_verification.sent',
        'contact_verification.verified',
        'consumer.verified',
      ]),
    );

    const again = await check(consumerId, started.body.id, { code: dev.latestCode(email)! });
    expect([again.status, again.body.error.code]).toEqual([409, 'already_verified']);
  });

  it('stores the target and the code only as keyed hashes', async () => {
    const consumerId = await partnerConsumer();
    const phone = uniquePhone();
    const started = await start(consumerId, {
      channel: 'phone',
      target: phone.replace(/(\d{2})(\d{5})(\d{4})$/, ' ($1) $2-$3'),
    });
    expect(started.status).toBe(201);
    expect(started.body.target_masked).toBe(
      `${phone.slice(0, 3)}${'*'.repeat(phone.length - 7)}${phone.slice(-4)}`,
    );
    const code = dev.latestCode(phone)!;
    const stored = await gw.db.one(
      sql.unsafe`SELECT to_jsonb(v)::text AS row FROM contact_verifications v WHERE id = ${started.body.id}`,
    );
    expect(stored.row).not.toContain(phone.slice(1));
    expect(stored.row).not.toContain(`"${code}"`);
    const [row] = await rows(consumerId);
    expect(row.target_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.code_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("refuses a consumer without an active partner account, another organization's consumer and an unknown one with no_partner_account", async () => {
    const plain = await createConsumer(gw, tenant.key);
    const other = await gw.createTenant();
    const foreign = await partnerConsumer(other);
    for (const consumerId of [plain.id, foreign, 'cns_doesnotexist00']) {
      const refused = await start(consumerId, { channel: 'email', target: uniqueEmail() });
      expect([consumerId, refused.status, refused.body.error.code]).toEqual([
        consumerId,
        422,
        'no_partner_account',
      ]);
    }
  });

  it.each([
    ['email', 'not-an-email'],
    ['email', 'ana@'],
    ['phone', '11987654321'],
    ['phone', '+0 11 98765'],
    ['phone', 'ana@example.com'],
  ])('refuses the %s target %p with invalid_target', async (channel, target) => {
    const consumerId = await partnerConsumer();
    const refused = await start(consumerId, { channel, target });
    expect([refused.status, refused.body.error.code]).toEqual([400, 'invalid_target']);
    expect(await rows(consumerId)).toHaveLength(0);
  });

  it('refuses bodies outside the schema with invalid_body', async () => {
    const consumerId = await partnerConsumer();
    for (const body of [
      { channel: 'sms', target: '+5511987654321' },
      { target: 'a@b.co' },
      { channel: 'email', target: 'a@b.co', locale: 'not a locale!' },
      { channel: 'email', target: 'a@b.co', extra: 1 },
    ]) {
      const refused = await start(consumerId, body);
      expect([refused.status, refused.body.error.code]).toEqual([400, 'invalid_body']);
    }
  });

  it('spends an attempt only on a mismatch, and after the last one answers too_many_attempts without reset', async () => {
    const consumerId = await partnerConsumer();
    const email = uniqueEmail();
    const started = await start(consumerId, { channel: 'email', target: email });
    const code = dev.latestCode(email)!;
    for (const malformed of ['12', '123456789', 'abcdef', '12 34']) {
      const refused = await check(consumerId, started.body.id, { code: malformed });
      expect([refused.status, refused.body.error.code, refused.body.error.details]).toEqual([
        400,
        'invalid_code',
        { attempts_left: 5 },
      ]);
    }
    for (const left of [4, 3, 2, 1, 0]) {
      const refused = await check(consumerId, started.body.id, { code: wrong(code) });
      expect([refused.status, refused.body.error.code, refused.body.error.details]).toEqual([
        400,
        'invalid_code',
        { attempts_left: left },
      ]);
    }
    const exhausted = await check(consumerId, started.body.id, { code });
    expect([exhausted.status, exhausted.body.error.code]).toEqual([429, 'too_many_attempts']);
    expect((await gw.request('GET', `/v1/consumers/${consumerId}`, { key: tenant.key })).body.status).toBe(
      'unverified',
    );
  });

  it('supersedes an older code when a newer one is sent: the older answers verification_expired', async () => {
    const consumerId = await partnerConsumer();
    const email = uniqueEmail();
    const first = await start(consumerId, { channel: 'email', target: email });
    const firstCode = dev.latestCode(email)!;
    const second = await start(consumerId, { channel: 'email', target: email });
    expect(second.status).toBe(201);
    const stale = await check(consumerId, first.body.id, { code: firstCode });
    expect([stale.status, stale.body.error.code]).toEqual([410, 'verification_expired']);
    const [old] = await rows(consumerId);
    expect([old.status, Date.parse(old.expires_at) <= Date.now()]).toEqual(['superseded', true]);
    expect((await check(consumerId, second.body.id, { code: dev.latestCode(email)! })).status).toBe(200);
  });

  it('answers verification_expired once the code is past its 10 minutes', async () => {
    const consumerId = await partnerConsumer();
    const email = uniqueEmail();
    const started = await start(consumerId, { channel: 'email', target: email });
    await gw.db.query(
      sql.unsafe`UPDATE contact_verifications SET expires_at = now() - interval '1 second' WHERE id = ${started.body.id}`,
    );
    const refused = await check(consumerId, started.body.id, { code: dev.latestCode(email)! });
    expect([refused.status, refused.body.error.code]).toEqual([410, 'verification_expired']);
  });

  it('answers not_found, and spends an attempt, when the target does not match the row', async () => {
    const consumerId = await partnerConsumer();
    const email = uniqueEmail();
    const started = await start(consumerId, { channel: 'email', target: email });
    const refused = await check(consumerId, started.body.id, {
      code: dev.latestCode(email)!,
      target: 'someone.else@example.com',
    });
    expect([refused.status, refused.body.error.code]).toEqual([404, 'not_found']);
    expect((await rows(consumerId))[0].attempts_used).toBe(1);
    const badTarget = await check(consumerId, started.body.id, {
      code: dev.latestCode(email)!,
      target: 'nope',
    });
    expect([badTarget.status, badTarget.body.error.code]).toEqual([400, 'invalid_target']);
    expect(
      (
        await check(consumerId, started.body.id, {
          code: dev.latestCode(email)!,
          target: email.toUpperCase(),
        })
      ).status,
    ).toBe(200);
  });

  it("answers not_found for unknown, malformed, another consumer's and another organization's verifications", async () => {
    const consumerId = await partnerConsumer();
    const email = uniqueEmail();
    const started = await start(consumerId, { channel: 'email', target: email });
    const neighbour = await partnerConsumer();
    const other = await gw.createTenant();
    const cases: Array<[string, string, string]> = [
      [consumerId, '00000000-0000-4000-8000-000000000000', tenant.key],
      [consumerId, 'not-a-uuid', tenant.key],
      [neighbour, started.body.id, tenant.key],
      [consumerId, started.body.id, other.key],
    ];
    for (const [consumer, id, key] of cases) {
      const refused = await check(consumer, id, { code: '123456' }, key);
      expect([id, refused.status, refused.body.error.code]).toEqual([id, 404, 'not_found']);
    }
    expect((await rows(consumerId))[0].attempts_used).toBe(0);
  });

  it('keeps each contact under its hourly send ceiling, also when starts race', async () => {
    const consumerId = await partnerConsumer();
    const email = uniqueEmail();
    const answers = await Promise.all(
      Array.from({ length: 7 }, () => start(consumerId, { channel: 'email', target: email })),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429, 429]);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.body.error).toMatchObject({
      code: 'too_many_requests',
      details: { window_seconds: 3600, max_sends: 5 },
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3500);
    // Another contact of the same consumer has its own ceiling.
    expect((await start(consumerId, { channel: 'email', target: uniqueEmail() })).status).toBe(201);
  });

  it('removes the row when the send fails, so a retry is free', async () => {
    const consumerId = await partnerConsumer();
    const email = uniqueEmail();
    dev.faults.push(503, { code: 'unavailable' }, 3);
    const failed = await start(consumerId, { channel: 'email', target: email });
    expect([failed.status, failed.body.error.code, failed.body.error.details]).toEqual([
      503,
      'otp_sender_unavailable',
      undefined,
    ]);
    expect(await rows(consumerId)).toHaveLength(0);
    for (let i = 0; i < 5; i++)
      expect((await start(consumerId, { channel: 'email', target: email })).status).toBe(201);
  });

  it('retries a flaky sender with the same idempotency key and sends one message', async () => {
    const consumerId = await partnerConsumer();
    const email = uniqueEmail();
    dev.faults.push(502, { code: 'bad_gateway' }, 1);
    const before = dev.requestCount();
    const started = await start(consumerId, { channel: 'email', target: email });
    expect(started.status).toBe(201);
    expect(dev.requestCount() - before).toBe(2);
    expect(dev.messages.filter((m) => m.to === email)).toHaveLength(1);
    expect((await check(consumerId, started.body.id, { code: dev.latestCode(email)! })).status).toBe(200);
  });

  it('answers otp_sender_refused when the sender refuses the target: nothing sent, nothing counted', async () => {
    const consumerId = await partnerConsumer();
    const email = uniqueEmail();
    dev.faults.push(422, { code: 'undeliverable' }, 1);
    const refused = await start(consumerId, { channel: 'email', target: email });
    expect([refused.status, refused.body.error.code, refused.body.error.details]).toEqual([
      422,
      'otp_sender_refused',
      { provider: 'dev' },
    ]);
    expect(await rows(consumerId)).toHaveLength(0);
  });

  it('answers otp_sender_unavailable and writes nothing when no sender is configured', async () => {
    const consumerId = await partnerConsumer();
    const url = gw.config.providerUrls.otp_dev;
    delete gw.config.providerUrls.otp_dev;
    try {
      const refused = await start(consumerId, { channel: 'email', target: uniqueEmail() });
      expect([refused.status, refused.body.error.code, refused.body.error.details]).toEqual([
        503,
        'otp_sender_unavailable',
        undefined,
      ]);
      expect(await rows(consumerId)).toHaveLength(0);
    } finally {
      gw.config.providerUrls.otp_dev = url;
    }
  });

  it('reports a code that was sent but could not be opened with its verification_id; that row stands and counts', async () => {
    const consumerId = await partnerConsumer();
    const email = uniqueEmail();
    const first = await start(consumerId, { channel: 'email', target: email });
    // Another transaction holds the older row, so the new one cannot supersede it and open.
    let release!: () => void;
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holder = gw.db.transaction(async (tx) => {
      await tx.query(sql.unsafe`SELECT id FROM contact_verifications WHERE id = ${first.body.id} FOR UPDATE`);
      locked();
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    await lockTaken;
    const stuck = await start(consumerId, { channel: 'email', target: email });
    release();
    await holder;
    expect([stuck.status, stuck.body.error.code]).toEqual([503, 'otp_sender_unavailable']);
    const id = stuck.body.error.details.verification_id;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(dev.messages.filter((m) => m.to === email)).toHaveLength(2);
    const all = await rows(consumerId);
    expect(all.map((r) => [r.id, r.status])).toEqual([
      [first.body.id, 'sent'],
      [id, 'sending'],
    ]);
    const unusable = await check(consumerId, id, { code: dev.latestCode(email)! });
    expect([unusable.status, unusable.body.error.code]).toEqual([404, 'not_found']);
    for (let i = 0; i < 3; i++)
      expect((await start(consumerId, { channel: 'email', target: email })).status).toBe(201);
    expect((await start(consumerId, { channel: 'email', target: email })).status).toBe(429);
  });
});

describe('in a live project', () => {
  let live: Tenant;
  beforeAll(async () => {
    live = await gw.createTenant({ environment: 'live' });
  });

  it('sends phone codes through Prelude, which owns the code; verify needs the target', async () => {
    const consumerId = await partnerConsumer(live);
    const phone = uniquePhone();
    const started = await start(consumerId, { channel: 'phone', target: phone, locale: 'es' }, live.key);
    expect(started.status).toBe(201);
    expect(started.body.provider).toBe('prelude');
    expect(prelude.authorizations.at(-1)).toBe('Bearer prelude_test_key_123');
    const code = prelude.codeFor(phone)!;
    expect((await rows(consumerId))[0].code_hash).toBeNull();

    const noTarget = await check(consumerId, started.body.id, { code }, live.key);
    expect([noTarget.status, noTarget.body.error.code]).toEqual([400, 'invalid_target']);
    const mismatch = await check(consumerId, started.body.id, { code: wrong(code), target: phone }, live.key);
    expect([mismatch.status, mismatch.body.error.code, mismatch.body.error.details]).toEqual([
      400,
      'invalid_code',
      { attempts_left: 4 },
    ]);
    const verified = await check(consumerId, started.body.id, { code, target: phone }, live.key);
    expect(verified.status).toBe(200);
    expect((await gw.request('GET', `/v1/consumers/${consumerId}`, { key: live.key })).body.status).toBe(
      'verified',
    );
  });

  it('answers otp_sender_refused with provider prelude when Prelude blocks the number', async () => {
    const consumerId = await partnerConsumer(live);
    prelude.blockNext('suspicious');
    const refused = await start(consumerId, { channel: 'phone', target: uniquePhone() }, live.key);
    expect([refused.status, refused.body.error.code, refused.body.error.details]).toEqual([
      422,
      'otp_sender_refused',
      { provider: 'prelude' },
    ]);
    expect(await rows(consumerId)).toHaveLength(0);
  });

  it('spends the attempt and answers otp_sender_unavailable with attempts_left when Prelude does not answer a check', async () => {
    const consumerId = await partnerConsumer(live);
    const phone = uniquePhone();
    const started = await start(consumerId, { channel: 'phone', target: phone }, live.key);
    prelude.faults.push(503, { code: 'internal_error', message: 'down' }, 1);
    const down = await check(
      consumerId,
      started.body.id,
      { code: prelude.codeFor(phone)!, target: phone },
      live.key,
    );
    expect([down.status, down.body.error.code, down.body.error.details]).toEqual([
      503,
      'otp_sender_unavailable',
      { attempts_left: 4 },
    ]);
    expect(
      (await check(consumerId, started.body.id, { code: prelude.codeFor(phone)!, target: phone }, live.key))
        .status,
    ).toBe(200);
  });

  it("answers otp_sender_unavailable without spending anything when the row's provider is no longer configured", async () => {
    const consumerId = await partnerConsumer(live);
    const phone = uniquePhone();
    const started = await start(consumerId, { channel: 'phone', target: phone }, live.key);
    const url = gw.config.providerUrls.prelude;
    delete gw.config.providerUrls.prelude;
    try {
      const refused = await check(
        consumerId,
        started.body.id,
        { code: prelude.codeFor(phone)!, target: phone },
        live.key,
      );
      expect([refused.status, refused.body.error.code, refused.body.error.details]).toEqual([
        503,
        'otp_sender_unavailable',
        undefined,
      ]);
      expect((await rows(consumerId))[0].attempts_used).toBe(0);
    } finally {
      gw.config.providerUrls.prelude = url;
    }
  });

  it('sends email codes through Resend with the API key and an idempotency key', async () => {
    const consumerId = await partnerConsumer(live);
    const email = uniqueEmail();
    const started = await start(consumerId, { channel: 'email', target: email, locale: 'en-US' }, live.key);
    expect([started.status, started.body.provider]).toEqual([201, 'resend']);
    const sent = resend.emails.find((e) => e.to.includes(email))!;
    expect(sent).toMatchObject({
      from: 'Gateway <verify@gateway.example>',
      authorization: 'Bearer re_test_key_456',
      idempotency_key: `contact-verification/${started.body.id}`,
    });
    expect(sent.subject).toMatch(/^Your verification code: \d{6}$/);
    expect(
      (await check(consumerId, started.body.id, { code: resend.latestCode(email)! }, live.key)).status,
    ).toBe(200);
  });

  it('answers otp_sender_refused with provider resend when Resend rejects the message', async () => {
    const consumerId = await partnerConsumer(live);
    resend.faults.push(422, { statusCode: 422, name: 'validation_error', message: 'Invalid `to` field.' }, 1);
    const refused = await start(consumerId, { channel: 'email', target: uniqueEmail() }, live.key);
    expect([refused.status, refused.body.error.code, refused.body.error.details]).toEqual([
      422,
      'otp_sender_refused',
      { provider: 'resend' },
    ]);
  });
});
