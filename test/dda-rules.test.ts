// DDA registration rules through HTTP: who may register which document, what a refusal writes (nothing),
// how the provider's refusals, outages and lost answers are told apart, and tenant isolation.
import type { DdaMock } from '../providers/mocks/dda';
import {
  eventsOf,
  newCpf,
  read,
  register,
  remove,
  rowCount,
  statusBecomes,
  verifiedConsumer,
} from './support/dda';
import { startGateway, type Gateway, type Tenant } from './support/harness';

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

  it('ends a registration still waiting for its confirmation; a confirmation after that changes nothing', async () => {
    const document = newCpf();
    const consumerId = await verifiedConsumer(gw, tenant, { document, allowlist: [document] });
    dda.script(document, { outcome: 'hold' });
    const created = await register(gw, tenant, consumerId, { document, idempotency_key: 'k' });
    expect(created.status).toBe(201);
    const deleted = await remove(gw, tenant, consumerId, document);
    expect(deleted.body).toEqual({ document, status: 'deleted' });
    const upstream = dda.subscriptions().find((s) => s.clientRequestId === created.body.client_request_id)!;
    expect(upstream.status).toBe('DELETED');

    await dda.confirm(created.body.client_request_id);
    const late = dda.webhooks().filter((w) => w.clientRequestId === created.body.client_request_id);
    expect(late.map((w) => w.status)).toEqual([200]);
    expect((await read(gw, tenant, consumerId, document)).body).toMatchObject({
      status: 'deleted',
      provider_subscription_id: null,
    });
    expect(
      (await eventsOf(gw, tenant, 'dda.subscription.activated')).filter((e) => e.data.document === document),
    ).toEqual([]);
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
});
