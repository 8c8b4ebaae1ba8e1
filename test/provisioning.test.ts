// Provisioning runs through HTTP, on both Temporal servers: a test project signs up for a sandbox account
// at pix-psp's sign-up API (the mock provider's real HTTP server), waits for the emailed code, and ends
// with the issued key as its connection, which verify-connection accepts. Refusals, a stale pause, a
// cancel, a live project and a provider quarantined after failing runs, each as the API shows them.
import { sql } from 'slonik';
import { z } from 'zod';
import type { ApiKeyMock } from '../providers/mocks/auth-api-key';
import { waitFor } from './support/consents';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';

const PROVIDER = 'pix-psp';

describe.each(TEMPORAL_SERVERS)('provisioning runs on the %s Temporal server', (server) => {
  let gw: Gateway;
  let pix: ApiKeyMock;
  beforeAll(async () => {
    gw = await startGateway({ temporal: server });
    pix = gw.mocks.auth_api_key as unknown as ApiKeyMock;
  });
  afterAll(async () => {
    await gw?.stop();
  });
  afterEach(() => {
    pix.signups.settings.codeTtlSeconds = 900;
    pix.signups.settings.verification = true;
  });

  let n = 0;
  const email = () => `dev-${server}-${++n}@acme.example`;
  const start = (t: Tenant, body: Record<string, unknown>) =>
    gw.request('POST', `/v1/providers/${PROVIDER}/provisioning-runs`, { key: t.key, body });
  const read = (t: Tenant, id: string) => gw.request('GET', `/v1/provisioning-runs/${id}`, { key: t.key });
  const sendCode = (t: Tenant, id: string, code: string) =>
    gw.request('POST', `/v1/provisioning-runs/${id}/verification`, { key: t.key, body: { code } });
  const history = async (t: Tenant, id: string): Promise<string[]> =>
    (await gw.request('GET', `/v1/provisioning-runs/${id}/history`, { key: t.key })).body.steps.map(
      (s: { step: string }) => s.step,
    );
  const until = async (t: Tenant, id: string, status: string) => {
    await waitFor(async () => (await read(t, id)).body.status === status, 30_000);
    return (await read(t, id)).body;
  };
  const eventsOf = (runId: string) =>
    gw.db.anyFirst(sql.type(z.object({ type: z.string() }))`
      SELECT type FROM events WHERE data->>'run_id' = ${runId} ORDER BY id`);
  const catalogRow = async (t: Tenant) =>
    (await gw.request('GET', `/v1/providers/${PROVIDER}`, { key: t.key })).body;

  it('signs a test project up, waits for the emailed code, and stores the issued key as a connection verify-connection accepts', async () => {
    const t = await gw.createTenant();
    const to = email();
    const started = await start(t, { email: to, label: 'Sandbox Pix' });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({
      object: 'provisioning_run',
      provider: PROVIDER,
      status: 'running',
      email: to,
    });
    expect(started.headers.get('location')).toBe(`/v1/provisioning-runs/${started.body.id}`);
    const id: string = started.body.id;

    const paused = await until(t, id, 'awaiting_verification');
    expect(paused.verification).toEqual({ sent_to: 'd***@acme.example', expires_at: expect.any(String) });
    // The code went to the inbox, read the way a person reads it: the provider's outbox over HTTP.
    const inbox = await fetch(`${pix.url}/sandbox/outbox?to=${encodeURIComponent(to)}`).then(
      (r) => r.json() as Promise<{ messages: Array<{ code: string }> }>,
    );
    const code = inbox.messages.at(-1)!.code;

    const resumed = await sendCode(t, id, code);
    expect(resumed.status).toBe(200);
    const done = await until(t, id, 'succeeded');
    expect(done.connection_id).toMatch(/^conn_/);
    expect(done.failure).toBeNull();

    const connection = await gw.request('GET', `/v1/connections/${done.connection_id}`, { key: t.key });
    expect(connection.body).toMatchObject({ provider: PROVIDER, status: 'active', label: 'Sandbox Pix' });
    expect(connection.text).not.toContain('pk_sandbox_');
    const verified = await gw.request('POST', `/v1/providers/${PROVIDER}/verify-connection`, { key: t.key });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ ok: true, provider: PROVIDER });

    const steps = await history(t, id);
    expect(steps).toEqual([
      'run.created',
      'signup.requested',
      'verification.sent',
      'verification.accepted',
      'api_key.issued',
      'connection.stored',
      'run.succeeded',
    ]);
    const historyText = (await gw.request('GET', `/v1/provisioning-runs/${id}/history`, { key: t.key })).text;
    expect(historyText).not.toContain(code);
    expect(historyText).not.toContain('pk_sandbox_');
    expect(await eventsOf(id)).toEqual([
      'provisioning_run.created',
      'provisioning_run.awaiting_verification',
      'provisioning_run.succeeded',
    ]);
    // A code for a run that finished is refused, and changes nothing.
    const late = await sendCode(t, id, code);
    expect([late.status, late.body.error.code]).toEqual([409, 'not_awaiting_verification']);
  });

  it('keeps waiting after a wrong code, resumes on the right one, and lists the run', async () => {
    const t = await gw.createTenant();
    const to = email();
    const id: string = (await start(t, { email: to })).body.id;
    await until(t, id, 'awaiting_verification');
    const wrong = await sendCode(t, id, pix.signups.codeFor(to) === '000000' ? '111111' : '000000');
    expect([wrong.status, wrong.body.error.code]).toEqual([422, 'verification_code_invalid']);
    expect((await read(t, id)).body.status).toBe('awaiting_verification');

    expect((await sendCode(t, id, pix.signups.codeFor(to)!)).status).toBe(200);
    await until(t, id, 'succeeded');
    expect(await history(t, id)).toEqual(
      expect.arrayContaining(['verification.invalid', 'verification.accepted', 'run.succeeded']),
    );
    const listed = await gw.request('GET', '/v1/provisioning-runs?status=succeeded', { key: t.key });
    expect(listed.body).toMatchObject({ runs: [{ id, status: 'succeeded' }], has_more: false });
  });

  it('goes straight to the connection when the provider asks for no code', async () => {
    pix.signups.settings.verification = false;
    const t = await gw.createTenant();
    const id: string = (await start(t, { email: email() })).body.id;
    const done = await until(t, id, 'succeeded');
    expect(done.verification).toBeNull();
    expect(await history(t, id)).toEqual([
      'run.created',
      'signup.requested',
      'signup.created',
      'api_key.issued',
      'connection.stored',
      'run.succeeded',
    ]);
  });

  const sandboxSettings = (settings: Record<string, unknown>) =>
    fetch(`${pix.url}/sandbox/settings`, { method: 'PATCH', body: JSON.stringify(settings) });

  it('refuses a code with 410 run_stale once the pause expired, and stores nothing', async () => {
    // The sandbox's dashboard makes its codes short-lived; the run's pause is as long as the code holds.
    expect((await sandboxSettings({ code_ttl_seconds: 2 })).status).toBe(200);
    const t = await gw.createTenant();
    const to = email();
    const id: string = (await start(t, { email: to })).body.id;
    await until(t, id, 'awaiting_verification');
    await gw.env.sleep(3_000);
    const expired = await until(t, id, 'expired');
    expect(expired.connection_id).toBeNull();
    const stale = await sendCode(t, id, pix.signups.codeFor(to)!);
    expect([stale.status, stale.body.error.code]).toEqual([410, 'run_stale']);
    expect((await history(t, id)).at(-1)).toBe('run.expired');
    expect(await eventsOf(id)).toContain('provisioning_run.expired');
    const connections = await gw.request('GET', '/v1/connections', { key: t.key });
    expect(connections.body.connections).toEqual([]);
  });

  it('cancels a waiting run; a cancel or a code after it is refused', async () => {
    const t = await gw.createTenant();
    const to = email();
    const id: string = (await start(t, { email: to })).body.id;
    await until(t, id, 'awaiting_verification');
    const again = await start(t, { email: to });
    expect([again.status, again.body.error.code, again.body.error.details.run_id]).toEqual([
      409,
      'run_in_progress',
      id,
    ]);

    const canceled = await gw.request('POST', `/v1/provisioning-runs/${id}/cancel`, { key: t.key });
    expect([canceled.status, canceled.body.status]).toEqual([200, 'canceled']);
    const twice = await gw.request('POST', `/v1/provisioning-runs/${id}/cancel`, { key: t.key });
    expect([twice.status, twice.body.error.code]).toEqual([409, 'run_finished']);
    const code = await sendCode(t, id, pix.signups.codeFor(to)!);
    expect([code.status, code.body.error.code]).toEqual([409, 'not_awaiting_verification']);
    expect((await history(t, id)).at(-1)).toBe('run.canceled');
    expect((await gw.request('GET', '/v1/connections', { key: t.key })).body.connections).toEqual([]);
    // The project may start over once its run is closed.
    expect((await start(t, { email: to })).status).toBe(201);
  });

  it('refuses a live project with 422 not_test_environment and starts nothing', async () => {
    const live = await gw.createTenant({ environment: 'live' });
    const refused = await start(live, { email: email() });
    expect([refused.status, refused.body.error.code]).toEqual([422, 'not_test_environment']);
    const rows = await gw.db.oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int AS n FROM provisioning_runs WHERE project_id = ${live.projectId}`);
    expect(rows).toBe(0);
    expect((await gw.request('GET', '/v1/provisioning-runs', { key: live.key })).body.runs).toEqual([]);
  });

  it('refuses a provider without a provisioning descriptor, and a run of another project is 404', async () => {
    const t = await gw.createTenant();
    const none = await gw.request('POST', '/v1/providers/ted-bank/provisioning-runs', {
      key: t.key,
      body: { email: email() },
    });
    expect([none.status, none.body.error.code, none.body.error.details.engine_status]).toEqual([
      422,
      'provider_not_provisionable',
      'none',
    ]);
    const mine: string = (await start(t, { email: email() })).body.id;
    const other = await gw.createTenant();
    expect((await read(other, mine)).status).toBe(404);
    expect(
      (await gw.request('POST', `/v1/provisioning-runs/${mine}/cancel`, { key: other.key })).status,
    ).toBe(404);
    await gw.request('POST', `/v1/provisioning-runs/${mine}/cancel`, { key: t.key });
  });

  it('ends a refused sign-up as failed with the provider’s words, without counting it against the provider', async () => {
    pix.signups.script('signup', {
      status: 422,
      body: { error: { code: 'email_taken', message: 'An account exists for this email' } },
    });
    const t = await gw.createTenant();
    const id: string = (await start(t, { email: email() })).body.id;
    const failed = await until(t, id, 'failed');
    expect(failed.failure).toEqual({ code: 'signup_refused', message: 'An account exists for this email' });
    expect(await history(t, id)).toEqual(['run.created', 'signup.requested', 'signup.refused', 'run.failed']);
    expect((await catalogRow(t)).engine_status).toBe('available');
  });

  it('quarantines a provider whose runs keep failing, shows it in the catalog, and lets an operator lift it', async () => {
    const t = await gw.createTenant();
    const failOne = async () => {
      const id: string = (await start(t, { email: email() })).body.id;
      return until(t, id, 'failed');
    };
    // An outage (no answer after every try), then answers outside the protocol.
    await sandboxSettings({ outage: true });
    expect((await failOne()).failure.code).toBe('provider_unavailable');
    await sandboxSettings({ outage: false });
    pix.signups.script('signup', { status: 201, body: { status: 'pending' } });
    expect((await failOne()).failure.code).toBe('provider_protocol');
    expect((await catalogRow(t)).engine_status).toBe('available');
    pix.signups.script('signup', { status: 201, body: { status: 'pending' } });
    const third = await failOne();
    expect((await history(t, third.id)).at(-1)).toBe('provider.quarantined');

    expect(await catalogRow(t)).toMatchObject({ engine_status: 'quarantined', engine_provisionable: false });
    const listed = await gw.request('GET', '/v1/providers', { key: t.key });
    expect(listed.body.servers.find((s: { id: string }) => s.id === PROVIDER)).toMatchObject({
      engine_status: 'quarantined',
      engine_provisionable: false,
    });
    const refused = await start(t, { email: email() });
    expect([refused.status, refused.body.error.code, refused.body.error.details.engine_status]).toEqual([
      422,
      'provider_not_provisionable',
      'quarantined',
    ]);

    const lifted = await gw.operator('DELETE', `/v1/ops/provider-quarantines/${PROVIDER}`, {
      user: 'ops-ana',
    });
    expect(lifted.status).toBe(200);
    expect(await catalogRow(t)).toMatchObject({ engine_status: 'available', engine_provisionable: true });
    expect((await start(t, { email: email() })).status).toBe(201);
  });
});
