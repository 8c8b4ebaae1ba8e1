// DDA registration through HTTP: a verified consumer's document named in a signed mandate allowlist is
// registered at the (mock) DDA provider, stays `pending` until the provider's signed confirmation
// webhook arrives (however late), and is ended upstream by a delete. Forged and repeated confirmations
// change nothing; refusals write nothing.
import { sql } from 'slonik';
import { z } from 'zod';
import { withCheckDigits } from '../domain/consumers/document-number';
import type { DdaMock } from '../providers/mocks/dda';
import type { DevSenderMock } from '../providers/mocks/otp-dev';
import { partnerMandate, waitFor } from './support/consents';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';

let serial = 0;
/** A fresh valid CPF per story, so the provider's per-document scripts never cross. */
const newCpf = () =>
  withCheckDigits(String(310_000_000 + ++serial * 7_919 + Math.floor(Math.random() * 1000)));

async function verifiedConsumer(
  gw: Gateway,
  tenant: Tenant,
  options: { document: string; allowlist?: string[]; verify?: boolean },
): Promise<string> {
  const intent = options.allowlist ? { dda_allowlist: options.allowlist } : {};
  const { consumer } = await partnerMandate(gw, tenant, { intent, holderDocument: options.document });
  if (options.verify === false) return consumer.id;
  const email = `dda.${++serial}.${Date.now()}@example.com`;
  const started = await gw.request('POST', `/v1/consumers/${consumer.id}/contact-verifications`, {
    key: tenant.key,
    body: { channel: 'email', target: email },
  });
  if (started.status !== 201) throw new Error(`verification start failed: ${started.text}`);
  const code = (gw.mocks.otp_dev as DevSenderMock).latestCode(email)!;
  const verified = await gw.request(
    'POST',
    `/v1/consumers/${consumer.id}/contact-verifications/${started.body.id}/verify`,
    { key: tenant.key, body: { code } },
  );
  if (verified.status !== 200) throw new Error(`verify failed: ${verified.text}`);
  return consumer.id;
}

const register = (gw: Gateway, tenant: Tenant, consumerId: string, body: Record<string, unknown>) =>
  gw.request('POST', `/v1/consumers/${consumerId}/dda/subscriptions`, { key: tenant.key, body });
const read = (gw: Gateway, tenant: Tenant, consumerId: string, document: string) =>
  gw.request('GET', `/v1/consumers/${consumerId}/dda/subscriptions/${encodeURIComponent(document)}`, {
    key: tenant.key,
  });
const remove = (gw: Gateway, tenant: Tenant, consumerId: string, document: string) =>
  gw.request('DELETE', `/v1/consumers/${consumerId}/dda/subscriptions/${document}`, { key: tenant.key });
const rowCount = (gw: Gateway, consumerId: string) =>
  gw.db.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM dda_subscriptions WHERE consumer_id = ${consumerId}`);
const eventsOf = (gw: Gateway, tenant: Tenant, type: string) =>
  gw.db.any(sql.type(z.object({ data: z.record(z.unknown()) }))`
    SELECT data FROM events WHERE org_id = ${tenant.orgId} AND type = ${type} ORDER BY id`);

async function statusBecomes(
  gw: Gateway,
  tenant: Tenant,
  consumerId: string,
  document: string,
  status: string,
) {
  await waitFor(async () => (await read(gw, tenant, consumerId, document)).body.status === status);
}

describe.each(TEMPORAL_SERVERS)('DDA registration on the %s server', (temporal) => {
  let gw: Gateway;
  let tenant: Tenant;
  let dda: DdaMock;
  beforeAll(async () => {
    gw = await startGateway({ temporal });
    tenant = await gw.createTenant();
    dda = gw.mocks.dda as DdaMock;
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it('registers, stays pending until a late confirmation, activates once, and a delete ends it upstream', async () => {
    const document = newCpf();
    const consumerId = await verifiedConsumer(gw, tenant, { document, allowlist: [document] });
    dda.script(document, { outcome: 'hold' });

    const created = await register(gw, tenant, consumerId, {
      document,
      idempotency_key: 'reg-1',
      client_name: 'Ana Souza',
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      document,
      status: 'pending',
      client_request_id: expect.stringMatching(/^dda-[0-9a-f]{40}$/),
      mandate_id: expect.any(String),
      replayed: false,
    });
    const crid = created.body.client_request_id;
    expect(dda.subscriptions().filter((s) => s.document === document)).toHaveLength(1);

    // Days pass without a confirmation: nothing polls the provider, the registration waits.
    if (temporal === 'time-skipping') await gw.env.sleep('3 days');
    const waiting = await read(gw, tenant, consumerId, document);
    expect(waiting.body).toEqual({
      document,
      status: 'pending',
      client_request_id: crid,
      provider_subscription_id: null,
    });
    const replay = await register(gw, tenant, consumerId, { document, idempotency_key: 'reg-1' });
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({ status: 'pending', client_request_id: crid, replayed: true });

    // The confirmation arrives, twice: the first activates, the second is harmless.
    await dda.confirm(crid, { duplicate: true });
    await statusBecomes(gw, tenant, consumerId, document, 'active');
    const upstream = dda.subscriptions().find((s) => s.clientRequestId === crid)!;
    const active = await read(gw, tenant, consumerId, document);
    expect(active.body.provider_subscription_id).toBe(upstream.subscriptionId);
    expect(
      dda
        .webhooks()
        .filter((w) => w.clientRequestId === crid)
        .map((w) => w.status),
    ).toEqual([200, 200]);
    expect(
      (await eventsOf(gw, tenant, 'dda.subscription.activated')).filter((e) => e.data.document === document),
    ).toHaveLength(1);
    expect(dda.registrations().filter((r) => r.clientRequestId === crid)).toHaveLength(1);

    // The upstream delete fails: the row is unchanged and the caller hears 502.
    dda.failDeletes(3);
    const refused = await remove(gw, tenant, consumerId, document);
    expect(refused.status).toBe(502);
    expect(refused.body.error.code).toBe('dda_provider_unavailable');
    expect((await read(gw, tenant, consumerId, document)).body.status).toBe('active');

    const deleted = await remove(gw, tenant, consumerId, document);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ document, status: 'deleted' });
    expect(upstream.status).toBe('DELETED');
    expect((await read(gw, tenant, consumerId, document)).body.status).toBe('deleted');
    expect((await remove(gw, tenant, consumerId, document)).body).toEqual({ document, status: 'deleted' });

    // The ended registration's key answers it as it stands; a new key registers the document anew.
    const ended = await register(gw, tenant, consumerId, { document, idempotency_key: 'reg-1' });
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ status: 'deleted', client_request_id: crid, replayed: true });
    const anew = await register(gw, tenant, consumerId, { document, idempotency_key: 'reg-2' });
    expect(anew.status).toBe(201);
    expect(anew.body.client_request_id).not.toBe(crid);
    expect((await read(gw, tenant, consumerId, document)).body.status).toBe('pending');
  });

  it('refuses a confirmation signed with the wrong secret and changes nothing', async () => {
    const document = newCpf();
    const consumerId = await verifiedConsumer(gw, tenant, { document, allowlist: [document] });
    dda.script(document, { outcome: 'forge' });
    const created = await register(gw, tenant, consumerId, { document, idempotency_key: 'forged' });
    expect(created.status).toBe(201);
    await waitFor(async () =>
      dda.webhooks().some((w) => w.clientRequestId === created.body.client_request_id),
    );
    const forged = dda.webhooks().find((w) => w.clientRequestId === created.body.client_request_id)!;
    expect(forged).toMatchObject({ forged: true, status: 401 });
    expect((await read(gw, tenant, consumerId, document)).body).toMatchObject({
      status: 'pending',
      provider_subscription_id: null,
    });
  });
});

describe('DDA registration rules (time-skipping server)', () => {
  let gw: Gateway;
  let tenant: Tenant;
  let dda: DdaMock;
  beforeAll(async () => {
    gw = await startGateway();
    tenant = await gw.createTenant();
    dda = gw.mocks.dda as DdaMock;
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it('strips punctuation, stores digits only, and confirms at once by default', async () => {
    const document = newCpf();
    const formatted = `${document.slice(0, 3)}.${document.slice(3, 6)}.${document.slice(6, 9)}-${document.slice(9)}`;
    const consumerId = await verifiedConsumer(gw, tenant, { document, allowlist: [document] });
    const created = await register(gw, tenant, consumerId, { document: formatted, idempotency_key: 'k' });
    expect(created.status).toBe(201);
    expect(created.body.document).toBe(document);
    await statusBecomes(gw, tenant, consumerId, formatted, 'active');
    expect((await read(gw, tenant, consumerId, formatted)).body.document).toBe(document);
    // Another key for a registered document registers nothing.
    const other = await register(gw, tenant, consumerId, { document, idempotency_key: 'another' });
    expect(other.status).toBe(200);
    expect(other.body).toMatchObject({
      replayed: true,
      status: 'active',
      client_request_id: created.body.client_request_id,
    });
    expect(dda.registrations().filter((r) => r.document === document)).toHaveLength(1);
  });

  it('refuses documents and keys that are not acceptable and writes nothing', async () => {
    const document = newCpf();
    const consumerId = await verifiedConsumer(gw, tenant, { document, allowlist: [document] });
    const before = dda.registrations().length;
    const bad = await register(gw, tenant, consumerId, {
      document: document.slice(0, 10) + ((Number(document[10]) + 1) % 10),
      idempotency_key: 'k',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_body');
    const letters = await register(gw, tenant, consumerId, { document: 'abc', idempotency_key: 'k' });
    expect(letters.status).toBe(400);
    const blank = await register(gw, tenant, consumerId, { document, idempotency_key: '   ' });
    expect(blank.status).toBe(400);
    expect(blank.body.error.code).toBe('invalid_body');
    const missing = await register(gw, tenant, consumerId, { document });
    expect(missing.body.error.details.issues).toBeDefined();
    // Another valid CPF is not the consumer's own document, even when allowlisted.
    const stranger = newCpf();
    const strangerConsumer = await verifiedConsumer(gw, tenant, {
      document,
      allowlist: [document, stranger],
    });
    const notOwned = await register(gw, tenant, strangerConsumer, {
      document: stranger,
      idempotency_key: 'k',
    });
    expect(notOwned.status).toBe(403);
    expect(notOwned.body.error.code).toBe('dda_document_not_owned');
    expect(await rowCount(gw, consumerId)).toBe(0);
    expect(await rowCount(gw, strangerConsumer)).toBe(0);
    expect(dda.registrations().length).toBe(before);
  });

  it('refuses a document no active mandate allowlists, and an unverified or partnerless consumer', async () => {
    const document = newCpf();
    const unlisted = await verifiedConsumer(gw, tenant, { document });
    const refused = await register(gw, tenant, unlisted, { document, idempotency_key: 'k' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('dda_document_unauthorized');

    const unverified = await verifiedConsumer(gw, tenant, { document, allowlist: [document], verify: false });
    const noDocument = await register(gw, tenant, unverified, { document, idempotency_key: 'k' });
    expect(noDocument.status).toBe(422);
    expect(noDocument.body.error.code).toBe('dda_document_not_owned');

    const bare = await gw.request('POST', '/v1/consumers', {
      key: tenant.key,
      body: { display_name: 'Bia' },
    });
    const noPartner = await register(gw, tenant, bare.body.id, { document, idempotency_key: 'k' });
    expect(noPartner.status).toBe(422);
    expect(noPartner.body.error.code).toBe('no_partner_account');
    for (const id of [unlisted, unverified, bare.body.id]) expect(await rowCount(gw, id)).toBe(0);
  });

  it('marks a registration the provider refuses as error', async () => {
    const document = newCpf();
    const consumerId = await verifiedConsumer(gw, tenant, { document, allowlist: [document] });
    dda.script(document, { outcome: 'refuse', reason: 'document_not_eligible' });
    const answered = await register(gw, tenant, consumerId, { document, idempotency_key: 'k' });
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ status: 'error', replayed: true });
    expect((await read(gw, tenant, consumerId, document)).body.status).toBe('error');
    const failed = (await eventsOf(gw, tenant, 'dda.subscription.failed')).filter(
      (e) => e.data.document === document,
    );
    expect(failed).toEqual([{ data: expect.objectContaining({ code: 'document_not_eligible' }) }]);
  });

  it('answers 502 while the provider is down and registers on a retry with the same key', async () => {
    const document = newCpf();
    const consumerId = await verifiedConsumer(gw, tenant, { document, allowlist: [document] });
    dda.script(document, { outcome: 'fail', times: 3, then: { outcome: 'hold' } });
    const down = await register(gw, tenant, consumerId, { document, idempotency_key: 'retry-me' });
    expect(down.status).toBe(502);
    expect(down.body.error.code).toBe('dda_provider_unavailable');
    expect(dda.subscriptions().some((s) => s.document === document)).toBe(false);

    const retried = await register(gw, tenant, consumerId, { document, idempotency_key: 'retry-me' });
    expect(retried.status).toBe(201);
    expect(retried.body).toMatchObject({ status: 'pending', replayed: false });
    await dda.confirm(retried.body.client_request_id);
    await statusBecomes(gw, tenant, consumerId, document, 'active');
  });

  it("activates on a confirmation that arrives after the provider's registration answer was lost", async () => {
    const document = newCpf();
    const consumerId = await verifiedConsumer(gw, tenant, { document, allowlist: [document] });
    dda.script(document, { outcome: 'lost', times: 3 });
    const lost = await register(gw, tenant, consumerId, { document, idempotency_key: 'lost' });
    expect(lost.status).toBe(502);
    expect((await read(gw, tenant, consumerId, document)).body.status).toBe('pending');
    // The provider did register it, and confirms: no run is waiting, the confirmation still lands.
    const upstream = dda.subscriptions().find((s) => s.document === document)!;
    await dda.confirm(upstream.clientRequestId);
    await statusBecomes(gw, tenant, consumerId, document, 'active');
    expect((await read(gw, tenant, consumerId, document)).body.provider_subscription_id).toBe(
      upstream.subscriptionId,
    );
    const replay = await register(gw, tenant, consumerId, { document, idempotency_key: 'lost' });
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({ status: 'active', replayed: true });
  });

  it("ignores an unsigned confirmation and answers 404 for another organization's consumer", async () => {
    const document = newCpf();
    const consumerId = await verifiedConsumer(gw, tenant, { document, allowlist: [document] });
    dda.script(document, { outcome: 'never' });
    const created = await register(gw, tenant, consumerId, { document, idempotency_key: 'k' });
    const unsigned = await gw.request('POST', '/webhooks/dda/subscriptions', {
      body: {
        event: 'DDA_SUBSCRIPTION',
        status: 'ACTIVE',
        clientRequestId: created.body.client_request_id,
        subscriptionId: 'x',
      },
    });
    expect(unsigned.status).toBe(401);
    expect(unsigned.body.error.code).toBe('invalid_signature');
    expect((await read(gw, tenant, consumerId, document)).body.status).toBe('pending');

    const other = await gw.createTenant();
    const foreign = await gw.request('GET', `/v1/consumers/${consumerId}/dda/subscriptions/${document}`, {
      key: other.key,
    });
    expect(foreign.status).toBe(404);
    const foreignDelete = await gw.request(
      'DELETE',
      `/v1/consumers/${consumerId}/dda/subscriptions/${document}`,
      { key: other.key },
    );
    expect(foreignDelete.status).toBe(404);
    expect((await read(gw, tenant, consumerId, 'not-a-cpf')).status).toBe(400);
  });

  it('lists the boletos an active registration owes, only those whose linha digitavel verifies', async () => {
    const document = newCpf();
    const consumerId = await verifiedConsumer(gw, tenant, { document, allowlist: [document] });
    const boletos = (from: string, to: string, key = tenant.key) =>
      gw.request('GET', `/v1/consumers/${consumerId}/dda/boletos?from_date=${from}&to_date=${to}`, { key });

    const none = await boletos('2026-03-01', '2026-03-31');
    expect(none.body).toEqual({ from_date: '2026-03-01', to_date: '2026-03-31', count: 0, boletos: [] });

    await register(gw, tenant, consumerId, { document, idempotency_key: 'k' });
    await statusBecomes(gw, tenant, consumerId, document, 'active');
    dda.setBoletos(document, [
      {
        digitableLine: '23793.38128 60007.827136 95000.063305 9 75520000370000',
        amount: '370.00',
        dueDate: '2026-03-10',
        beneficiaryName: 'Energia SA',
        status: 'OPEN',
      },
      {
        digitableLine: '836200000005 667800481000 180975657313 001589636081',
        amount: '66.78',
        dueDate: '2026-03-20',
        beneficiaryName: 'Prefeitura',
        status: 'PAID',
      },
      // One digit off: never handed on.
      {
        digitableLine: '23793381286000782713695000063305975520000370001',
        amount: '370.00',
        dueDate: '2026-03-11',
        beneficiaryName: 'Forged',
        status: 'OPEN',
      },
      {
        digitableLine: '42297.11504 00001.954411 60020.034520 2 68610000054659',
        amount: '546.59',
        dueDate: '2026-05-01',
        beneficiaryName: 'Outside the range',
        status: 'OPEN',
      },
    ]);
    const listed = await boletos('2026-03-01', '2026-03-31');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      from_date: '2026-03-01',
      to_date: '2026-03-31',
      count: 2,
      boletos: [
        {
          linha_digitavel: '23793381286000782713695000063305975520000370000',
          status: 'open',
          document,
          amount_minor: '37000',
          due_date: '2026-03-10',
          beneficiary_name: 'Energia SA',
        },
        {
          linha_digitavel: '836200000005667800481000180975657313001589636081',
          status: 'paid',
          document,
          amount_minor: '6678',
          due_date: '2026-03-20',
          beneficiary_name: 'Prefeitura',
        },
      ],
    });

    for (const [from, to, code] of [
      ['2026-02-30', '2026-03-10', 'invalid_query'],
      ['2026-03-10', '2026-03-01', 'invalid_query'],
      ['2026-3-1', '2026-03-10', 'invalid_query'],
      ['2026-01-01', '2026-06-30', 'invalid_date_range'],
    ]) {
      const refused = await boletos(from, to);
      expect([from, to, refused.status, refused.body.error.code]).toEqual([from, to, 400, code]);
    }
    const missing = await gw.request('GET', `/v1/consumers/${consumerId}/dda/boletos?from_date=2026-03-01`, {
      key: tenant.key,
    });
    expect(missing.status).toBe(400);
    const other = await gw.createTenant();
    expect((await boletos('2026-03-01', '2026-03-31', other.key)).status).toBe(404);
  });
});
