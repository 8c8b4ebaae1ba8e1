// A provider's failure answered the same way on every route that reaches it, through HTTP: a tool call
// and the proxy answer 502 `provider_error` (retriable, the provider's status and words in details, never
// the stored credential), a missing connection 424 `not_connected` with the route that connects it, an
// unknown server 404 `server_unknown`; a tool call is still recorded with its outcome and its
// tool_call.failed event. In live mode a host that does not resolve is unreachable (502, as a provider
// that does not answer) on tool calls, the proxy and verify-connection alike, and one resolving to a
// private address is refused with 403 `proxy_destination_forbidden` by all three, before anything is sent.
import { sql } from 'slonik';
import { z } from 'zod';
import { catalogServer } from '../domain/providers/catalog';
import { API_KEY_SANDBOX } from '../providers/mocks/auth-api-key';
import type { AuthMock } from '../providers/mocks/auth-mock';
import { startGateway, type Gateway, type HttpResult, type Tenant } from './support/harness';

let gw: Gateway;
let pix: AuthMock;
beforeAll(async () => {
  gw = await startGateway({ worker: false });
  pix = gw.mocks.auth_api_key as unknown as AuthMock;
});
afterAll(async () => {
  await gw?.stop();
});

async function connected(environment: 'test' | 'live' = 'test'): Promise<{ t: Tenant; connection: string }> {
  const t = await gw.createTenant({ environment });
  const r = await gw.request('POST', '/v1/providers/pix-psp/connections', {
    key: t.key,
    body: { credentials: API_KEY_SANDBOX },
  });
  if (r.status !== 201) throw new Error(r.text);
  return { t, connection: r.body.id as string };
}
async function openSession(t: Tenant, servers: string[]): Promise<string> {
  const r = await gw.request('POST', '/v1/sessions', { key: t.key, body: { servers } });
  if (r.status !== 201) throw new Error(r.text);
  return r.body.id as string;
}
const call = (t: Tenant, session: string, tool: string, args: Record<string, unknown>) =>
  gw.request('POST', `/v1/sessions/${session}/tool-calls`, { key: t.key, body: { tool, arguments: args } });
const proxy = (t: Tenant, session: string, serverId: string) =>
  gw.request('POST', `/v1/sessions/${session}/proxy_execute`, {
    key: t.key,
    body: { server_id: serverId, method: 'GET', path: '/account' },
  });
const verify = (t: Tenant, slug: string) =>
  gw.request('POST', `/v1/providers/${slug}/verify-connection`, { key: t.key });
const failedEvents = (toolCallId: string) =>
  gw.db.anyFirst(sql.type(z.object({ type: z.string() }))`
    SELECT type FROM events WHERE data->>'tool_call_id' = ${toolCallId} ORDER BY id`);
const seen = () => pix.counts.accepted + pix.counts.refused;

/** The envelope, with request_id equal to the X-Request-Id header. */
function envelope(r: HttpResult): { code: string; message: string; details: Record<string, unknown> } {
  expect(r.body.request_id).toBe(r.headers.get('x-request-id'));
  return r.body.error;
}

describe('a provider that fails a tool call', () => {
  it('answers 502 provider_error with its status and words, and records the call failed with its event', async () => {
    const { t } = await connected();
    const session = await openSession(t, ['pix-psp']);
    pix.script({ status: 500, body: { message: 'psp down' } });
    const r = await call(t, session, 'pix-psp.pix_charge_create', { amount_minor: '990' });
    expect(r.status).toBe(502);
    const error = envelope(r);
    expect(error).toEqual({
      code: 'provider_error',
      message: 'The provider answered 500: psp down',
      details: {
        server_id: 'pix-psp',
        reason: 'provider_status',
        status: 500,
        provider_message: 'psp down',
        provider_response: { message: 'psp down' },
        tool_call_id: expect.stringMatching(/^tc_\d+$/),
      },
    });
    const id = error.details.tool_call_id as string;
    const recorded = await gw.request('GET', `/v1/sessions/${session}/tool-calls/${id}`, { key: t.key });
    expect(recorded.body).toMatchObject({
      status: 'error',
      error_code: 'provider_error',
      output: { error: { code: 'provider_error', details: { status: 500, reason: 'provider_status' } } },
    });
    expect(await failedEvents(id)).toEqual(['tool_call.failed']);
  });

  it('answers a refused credential as 502 provider_error without ever showing the stored credential', async () => {
    const { t } = await connected();
    const session = await openSession(t, ['pix-psp']);
    pix.script({ status: 401, body: { message: `key ${API_KEY_SANDBOX.api_key} is revoked` } });
    const r = await call(t, session, 'pix-psp.pix_key_lookup', { pix_key: 'ana@example.com' });
    expect(r.status).toBe(502);
    expect(envelope(r)).toMatchObject({
      code: 'provider_error',
      details: { reason: 'credential_rejected', status: 401, provider_message: 'key [redacted] is revoked' },
    });
    const recorded = await gw.request('GET', `/v1/sessions/${session}/tool-calls?limit=10`, { key: t.key });
    expect(recorded.body.tool_calls).toEqual([
      expect.objectContaining({ status: 'error', error_code: 'provider_error' }),
    ]);
    for (const text of [r.text, recorded.text]) expect(text).not.toContain(API_KEY_SANDBOX.api_key);
  });
});

describe('a connection deleted after the session opened', () => {
  it('is 424 not_connected with the connect route on tool calls and the proxy alike, and reaches nobody', async () => {
    const { t, connection } = await connected();
    const session = await openSession(t, ['pix-psp']);
    expect((await gw.request('DELETE', `/v1/connections/${connection}`, { key: t.key })).status).toBeLessThan(
      300,
    );
    const before = seen();
    const viaTool = await call(t, session, 'pix-psp.pix_key_lookup', { pix_key: 'ana@example.com' });
    const viaProxy = await proxy(t, session, 'pix-psp');
    expect([viaTool.status, viaProxy.status]).toEqual([424, 424]);
    const details = { server_id: 'pix-psp', hint: 'POST /v1/providers/pix-psp/connections' };
    expect(envelope(viaTool)).toMatchObject({
      code: 'not_connected',
      details: { ...details, tool_call_id: expect.stringMatching(/^tc_/) },
    });
    expect(envelope(viaProxy)).toEqual({ code: 'not_connected', message: expect.any(String), details });
    expect(seen()).toBe(before);
    const id = viaTool.body.error.details.tool_call_id as string;
    const recorded = await gw.request('GET', `/v1/sessions/${session}/tool-calls/${id}`, { key: t.key });
    expect(recorded.body).toMatchObject({ status: 'error', error_code: 'not_connected' });
    expect(await failedEvents(id)).toEqual(['tool_call.failed']);
  });
});

describe('opening a session', () => {
  it('answers a server nobody publishes with 404 server_unknown, and an unconnected OAuth provider with its authorize route', async () => {
    const t = await gw.createTenant();
    const unknown = await gw.request('POST', '/v1/sessions', {
      key: t.key,
      body: { servers: ['gateway', 'no-such-server'] },
    });
    expect(unknown.status).toBe(404);
    expect(envelope(unknown)).toMatchObject({
      code: 'server_unknown',
      details: { server_ids: ['no-such-server'] },
    });
    const oauth = await gw.request('POST', '/v1/sessions', { key: t.key, body: { servers: ['dda-hub'] } });
    expect(oauth.status).toBe(424);
    expect(envelope(oauth)).toMatchObject({
      code: 'not_connected',
      details: { server_ids: ['dda-hub'], hint: 'POST /v1/providers/dda-hub/oauth/authorize' },
    });
    // The hinted route is one that takes this provider.
    const hinted = await gw.request('POST', '/v1/providers/dda-hub/oauth/authorize', {
      key: t.key,
      body: {},
    });
    expect(hinted.status).toBe(201);
    expect((await gw.request('GET', '/v1/sessions', { key: t.key })).body.sessions).toEqual([]);
  });
});

describe("a live provider's host", () => {
  let live: Tenant;
  let session: string;
  const server = catalogServer('postal-codes')!;
  const saved = server.endpoints.live;
  beforeAll(async () => {
    live = await gw.createTenant({ environment: 'live' });
    session = await openSession(live, ['postal-codes']);
  });
  afterEach(() => {
    server.endpoints.live = saved;
  });

  const everyDoor = async () => ({
    tool: await call(live, session, 'postal-codes.postal_code_lookup', { postal_code: '01310100' }),
    proxy: await proxy(live, session, 'postal-codes'),
    verify: await verify(live, 'postal-codes'),
  });

  it('that does not resolve is unreachable, 502 on every door: provider_error, and verify-connection provider_unreachable', async () => {
    server.endpoints.live = 'https://postal-codes.invalid';
    const { tool, proxy: viaProxy, verify: verified } = await everyDoor();
    expect([tool.status, viaProxy.status, verified.status]).toEqual([502, 502, 502]);
    expect(envelope(tool)).toMatchObject({
      code: 'provider_error',
      details: { server_id: 'postal-codes', reason: 'unreachable', tool_call_id: expect.any(String) },
    });
    expect(envelope(viaProxy)).toMatchObject({
      code: 'provider_error',
      details: { server_id: 'postal-codes', reason: 'unreachable' },
    });
    expect(verified.body).toEqual({
      ok: false,
      error: 'provider_unreachable',
      provider: 'postal-codes',
      detail: expect.stringContaining('does not resolve'),
    });
  });

  it('that resolves to a private address is 403 proxy_destination_forbidden on every door, and nothing is sent', async () => {
    const mock = gw.mocks.auth_none as unknown as AuthMock;
    const before = mock.counts.accepted + mock.counts.refused;
    server.endpoints.live = `http://127.0.0.1:${new URL(mock.url).port}`;
    const { tool, proxy: viaProxy, verify: verified } = await everyDoor();
    expect([tool.status, viaProxy.status, verified.status]).toEqual([403, 403, 403]);
    expect(envelope(tool).code).toBe('proxy_destination_forbidden');
    expect(envelope(viaProxy).code).toBe('proxy_destination_forbidden');
    expect(verified.body).toMatchObject({
      ok: false,
      error: 'proxy_destination_forbidden',
      provider: 'postal-codes',
    });
    expect(mock.counts.accepted + mock.counts.refused).toBe(before);
  });
});
