// DDA registration through HTTP on both Temporal servers: a verified consumer's document named in a signed
// mandate allowlist is registered at the (mock) DDA provider, stays `pending` until the provider's signed
// confirmation webhook arrives (however late), and is ended upstream by a delete. Forged and repeated
// confirmations change nothing.
import type { DdaMock } from '../providers/mocks/dda';
import { eventsOf, newCpf, read, register, remove, statusBecomes, verifiedConsumer } from './support/dda';
import { waitFor } from './support/consents';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';

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
