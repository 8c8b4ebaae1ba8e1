// The hosted MCP endpoint with the SDK's own Client over a real port, in both protocol eras the SDK speaks
// (the current stateless one and the 2025 session-based one): listing a session's tools, calling a read
// tool, a paying tool that completes, one a policy denies (a tool error carrying the spec's reason) and one
// held for approval and finished after an operator decides; `/mcp` opening the credential's own session;
// and what the endpoint answers without a credential, without the scope, or from a foreign Origin.
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientProvider,
} from '@modelcontextprotocol/client';
import http from 'node:http';
import { sql } from 'slonik';
import { z } from 'zod';
import { API_KEY_SANDBOX } from '../providers/mocks/auth-api-key';
import type { AuthMock } from '../providers/mocks/auth-mock';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { fund, newWallet } from './support/money';
import { REDIRECT_URI, form } from './support/oauth-flow';

let gw: Gateway;
let pix: AuthMock;
beforeAll(async () => {
  gw = await startGateway();
  pix = gw.mocks.auth_api_key as unknown as AuthMock;
});
afterAll(async () => {
  await gw?.stop();
});

type Era = 'current' | '2025';
const ERAS: Era[] = ['current', '2025'];

async function connect(era: Era, path: string, key: string): Promise<Client> {
  const client = new Client(
    { name: 'gateway-test', version: '1.0.0' },
    era === 'current' ? { versionNegotiation: { mode: 'auto' } } : {},
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${gw.url}${path}`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  // The connection really speaks the era under test: 2026-07-28 per-request, or the 2025 handshake with a session id.
  expect(client.getProtocolEra()).toBe(era === 'current' ? 'modern' : 'legacy');
  if (era === '2025') expect(transport.sessionId).toEqual(expect.any(String));
  return client;
}

async function tenantWithPix(): Promise<Tenant> {
  const t = await gw.createTenant();
  const r = await gw.request('POST', '/v1/providers/pix-psp/connections', {
    key: t.key,
    body: { credentials: API_KEY_SANDBOX },
  });
  if (r.status !== 201) throw new Error(r.text);
  return t;
}
const openSession = async (t: Tenant) =>
  (await gw.request('POST', '/v1/sessions', { key: t.key, body: { servers: ['gateway', 'pix-psp'] } })).body
    .id as string;
const parsed = (result: { content?: unknown }) =>
  JSON.parse((result.content as Array<{ text: string }>)[0].text);

describe.each(ERAS)('an MCP client on the %s protocol', (era) => {
  let t: Tenant;
  let session: string;
  let client: Client;
  beforeAll(async () => {
    t = await tenantWithPix();
    session = await openSession(t);
    client = await connect(era, `/v1/sessions/${session}/mcp`, t.key);
  });
  afterAll(async () => {
    await client?.close();
  });

  it("lists the session's tools with their JSON Schemas", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'wallet.balances',
      'wallet.execute',
      'consumer_payments.execute',
      'wallet.transfer',
      'payment_links.create',
      'payment_links.list',
      'approvals.status',
      'pix-psp.pix_send',
      'pix-psp.pix_charge_create',
      'pix-psp.pix_key_lookup',
    ]);
    const lookup = tools.find((tool) => tool.name === 'pix-psp.pix_key_lookup')!;
    expect(lookup.inputSchema).toMatchObject({
      type: 'object',
      required: ['pix_key'],
      properties: { pix_key: { type: 'string' } },
    });
    expect(lookup.description).toBe("Resolve a Pix key to its holder's name and bank.");
  });

  it('calls a provider read tool through the same path as REST, recorded with its event', async () => {
    const accepted = pix.counts.accepted;
    const result = await client.callTool({
      name: 'pix-psp.pix_key_lookup',
      arguments: { pix_key: 'ana@example.com' },
    });
    expect(result.isError).toBeFalsy();
    expect(parsed(result)).toMatchObject({ method: 'POST', path: '/tools/pix_key_lookup' });
    expect(pix.counts.accepted).toBe(accepted + 1);
    const calls = (await gw.request('GET', `/v1/sessions/${session}/tool-calls`, { key: t.key })).body
      .tool_calls;
    expect(calls[0]).toMatchObject({ tool_name: 'pix-psp.pix_key_lookup', status: 'success' });
    const types = await gw.db.anyFirst(
      sql.type(
        z.object({ type: z.string() }),
      )`SELECT type FROM events WHERE data->>'tool_call_id' = ${calls[0].id}`,
    );
    expect(types).toEqual(['tool_call.succeeded']);
  });

  it("refuses arguments outside the tool's schema with REST's body, before anything is called", async () => {
    const accepted = pix.counts.accepted;
    const result = await client.callTool({
      name: 'pix-psp.pix_key_lookup',
      arguments: { pix_key: 'ana@example.com', unexpected: true },
    });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      error: { code: 'invalid_body', details: { tool: 'pix-psp.pix_key_lookup' } },
    });
    expect(pix.counts.accepted).toBe(accepted);
  });

  it('answers a tool the session does not publish as a protocol error, recording nothing', async () => {
    const before = (await gw.request('GET', `/v1/sessions/${session}/tool-calls`, { key: t.key })).body
      .tool_calls.length;
    await expect(client.callTool({ name: 'pix-psp.not_a_tool', arguments: {} })).rejects.toThrow(
      /Tool pix-psp.not_a_tool not found/,
    );
    const after = (await gw.request('GET', `/v1/sessions/${session}/tool-calls`, { key: t.key })).body
      .tool_calls.length;
    expect(after).toBe(before);
  });

  it('pays through wallet.execute and completes', async () => {
    const wallet = await newWallet(gw, t);
    await fund(gw, t, wallet, 5_000);
    const result = await client.callTool({
      name: 'wallet.execute',
      arguments: {
        wallet_id: wallet,
        amount: 10,
        currency: 'BRL',
        recipient: 'merchant-9',
        description: 'MCP payment',
        mandate_id: 'mdt_test',
        attempt_id: `mcp-${era}-${Date.now()}`,
      },
    });
    expect(result.isError).toBeFalsy();
    expect(parsed(result)).toMatchObject({ status: 'completed', wallet: { insufficientFunds: false } });
    const balance = (await gw.request('GET', `/v1/wallets/${wallet}`, { key: t.key })).body.balances[0];
    expect(balance).toMatchObject({ balance_minor: '4000', available_minor: '4000' });
  });

  it("answers a policy denial as a tool error carrying the spec's reason", async () => {
    const rule = await gw.request('POST', '/v1/policies', {
      key: t.key,
      body: { name: `no charges ${era}`, type: 'deny', tools: ['pix-psp.pix_charge_create'], config: {} },
    });
    const accepted = pix.counts.accepted;
    const result = await client.callTool({
      name: 'pix-psp.pix_charge_create',
      arguments: { amount_minor: '100' },
    });
    expect(result.isError).toBe(true);
    expect(parsed(result)).toMatchObject({
      reason: 'denied_by_rule',
      ruleType: 'deny',
      ruleId: rule.body.id,
      tool_call_id: expect.stringMatching(/^tc_/),
    });
    expect(result.structuredContent).toMatchObject({ reason: 'denied_by_rule' });
    expect(pix.counts.accepted).toBe(accepted);
    await gw.request('DELETE', `/v1/policies/${rule.body.id}`, { key: t.key });
  });

  it("answers a provider's failure as a tool error carrying REST's provider_error body, recorded failed", async () => {
    pix.script({ status: 503, body: { message: `psp busy ${era}` } });
    const result = await client.callTool({
      name: 'pix-psp.pix_charge_create',
      arguments: { amount_minor: '700' },
    });
    expect(result.isError).toBe(true);
    const body = parsed(result);
    expect(body).toEqual({
      error: {
        code: 'provider_error',
        message: expect.any(String),
        details: {
          server_id: 'pix-psp',
          reason: 'provider_status',
          status: 503,
          provider_message: `psp busy ${era}`,
          provider_response: { message: `psp busy ${era}` },
          tool_call_id: expect.stringMatching(/^tc_/),
        },
      },
    });
    const recorded = await gw.request(
      'GET',
      `/v1/sessions/${session}/tool-calls/${body.error.details.tool_call_id}`,
      { key: t.key },
    );
    expect(recorded.body).toMatchObject({ status: 'error', error_code: 'provider_error' });
  });

  it('holds a call for approval and finishes it after an operator approves', async () => {
    const rule = await gw.request('POST', '/v1/policies', {
      key: t.key,
      body: {
        name: `lookups need a person ${era}`,
        type: 'approval-required',
        tools: ['pix-psp.pix_key_lookup'],
        config: {},
      },
    });
    const held = await client.callTool({
      name: 'pix-psp.pix_key_lookup',
      arguments: { pix_key: `held-${era}` },
    });
    expect(held.isError).toBe(true);
    const denial = parsed(held);
    expect(denial).toMatchObject({
      reason: 'approval_required',
      approval_id: expect.stringMatching(/^apv_/),
      expires_at: expect.any(String),
    });
    await gw.request('DELETE', `/v1/policies/${rule.body.id}`, { key: t.key });
    const decided = await gw.operator('POST', `/v1/orgs/${t.orgId}/approvals/${denial.approval_id}/decide`, {
      user: 'carol',
      body: { decision: 'approve' },
    });
    expect(decided.status).toBe(200);
    let status = parsed(
      await client.callTool({ name: 'approvals.status', arguments: { approval_id: denial.approval_id } }),
    );
    while (status.executed_at === null)
      status = parsed(
        await client.callTool({ name: 'approvals.status', arguments: { approval_id: denial.approval_id } }),
      );
    expect(status).toMatchObject({
      approval_status: 'approved',
      execution_result: { error_code: null, output: { path: '/tools/pix_key_lookup' } },
    });
  });
});

describe('ending a 2025-era MCP session', () => {
  it('answers DELETE by ending it: its id is unknown afterwards, and the gateway session stays open', async () => {
    const t = await tenantWithPix();
    const session = await openSession(t);
    const client = new Client({ name: 'gateway-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${gw.url}/v1/sessions/${session}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${t.key}` } },
    });
    await client.connect(transport);
    const mcpSessionId = transport.sessionId!;
    await transport.terminateSession();
    const after = await gw.request('POST', `/v1/sessions/${session}/mcp`, {
      key: t.key,
      body: { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
      headers: {
        Accept: 'application/json, text/event-stream',
        'Mcp-Session-Id': mcpSessionId,
        'Mcp-Protocol-Version': '2025-06-18',
      },
    });
    expect(after.status).toBe(404);
    expect((await gw.request('GET', `/v1/sessions/${session}`, { key: t.key })).body.status).toBe('active');
    await client.close();
  });
});

describe('/mcp without a session id', () => {
  it("opens the credential's own session on every openable server and resumes it on the next connection", async () => {
    const t = await tenantWithPix();
    const first = await connect('current', '/mcp', t.key);
    expect((await first.listTools()).tools.map((tool) => tool.name)).toContain('pix-psp.pix_key_lookup');
    await first.callTool({ name: 'pix-psp.pix_key_lookup', arguments: { pix_key: 'x' } });
    await first.close();
    const second = await connect('2025', '/mcp', t.key);
    await second.callTool({ name: 'pix-psp.pix_key_lookup', arguments: { pix_key: 'y' } });
    await second.close();
    const sessions = (await gw.request('GET', '/v1/sessions', { key: t.key })).body.sessions;
    expect(sessions).toHaveLength(1);
    const openable = (await gw.request('GET', '/v1/servers', { key: t.key })).body.servers.map(
      (s: { id: string }) => s.id,
    );
    expect(sessions[0]).toMatchObject({ servers: openable, metadata: { opened_by: 'mcp' } });
    expect(openable).toEqual(expect.arrayContaining(['gateway', 'pix-psp']));
    const calls = (await gw.request('GET', `/v1/sessions/${sessions[0].id}/tool-calls`, { key: t.key })).body
      .tool_calls;
    expect(calls.map((c: { input: { pix_key: string } }) => c.input.pix_key)).toEqual(['y', 'x']);
  });
});

describe('the server-to-client stream (2025 protocol)', () => {
  /** One raw request; resolves with the status and headers as soon as they arrive, whatever the body does. */
  function headersOf(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: unknown,
  ): Promise<{ status: number; headers: http.IncomingHttpHeaders; request: http.ClientRequest }> {
    return new Promise((resolve, reject) => {
      const request = http.request(new URL(path, gw.url), { method, headers }, (res) => {
        res.on('error', () => undefined);
        resolve({ status: res.statusCode!, headers: res.headers, request });
      });
      request.on('error', reject);
      request.end(body === undefined ? undefined : JSON.stringify(body));
    });
  }

  it.each(['/mcp', 'session'])(
    'sends the status and headers of a GET on %s at once, before any event',
    async (where) => {
      const t = await tenantWithPix();
      const path = where === 'session' ? `/v1/sessions/${await openSession(t)}/mcp` : where;
      const base = {
        Authorization: `Bearer ${t.key}`,
        Accept: 'application/json, text/event-stream',
        'Content-Type': 'application/json',
      };
      const opened = await gw.request('POST', path, {
        key: t.key,
        headers: { Accept: base.Accept },
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'raw', version: '1' },
          },
        },
      });
      expect(opened.status).toBe(200);
      const mcpSession = opened.headers.get('mcp-session-id')!;
      expect(mcpSession).toEqual(expect.any(String));
      const initialized = await gw.request('POST', path, {
        key: t.key,
        headers: { Accept: base.Accept, 'mcp-session-id': mcpSession, 'mcp-protocol-version': '2025-06-18' },
        body: { jsonrpc: '2.0', method: 'notifications/initialized' },
      });
      expect(initialized.status).toBe(202);
      // Nothing is ever sent on this stream here: only flushed headers let this promise settle.
      const stream = await headersOf('GET', path, {
        Authorization: base.Authorization,
        Accept: 'text/event-stream',
        'mcp-session-id': mcpSession,
        'mcp-protocol-version': '2025-06-18',
      });
      try {
        expect(stream.status).toBe(200);
        expect(stream.headers['content-type']).toContain('text/event-stream');
        expect(stream.headers['x-request-id']).toEqual(expect.any(String));
      } finally {
        stream.request.destroy();
      }
    },
  );
});

describe('what the endpoint refuses', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };
  const headers = { Accept: 'application/json, text/event-stream' };

  it('answers no credential with 401 pointing at the protected-resource metadata, which names this authorization server', async () => {
    for (const path of ['/mcp', '/v1/sessions/ses_00000000000000000000000000/mcp']) {
      const r = await gw.request('POST', path, { body: initialize, headers });
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ error: 'unauthorized' });
      const challenge = r.headers.get('www-authenticate')!;
      const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)![1];
      expect(metadataUrl).toBe(`${gw.url}/.well-known/oauth-protected-resource`);
      const metadata = await fetch(metadataUrl).then((m) => m.json());
      expect(metadata).toMatchObject({
        resource: gw.url,
        authorization_servers: [gw.url],
        scopes_supported: expect.arrayContaining(['tools:execute']),
      });
    }
  });

  it('answers a key without tools:execute with 403 and the insufficient_scope challenge', async () => {
    const t = await gw.createTenant();
    const { key } = await gw.createKey(t.projectId, { scopes: ['sessions:read'] });
    for (const method of ['POST', 'GET', 'DELETE']) {
      const r = await gw.request(method, '/mcp', {
        key,
        headers,
        ...(method === 'POST' ? { body: initialize } : {}),
      });
      expect([method, r.status, r.body.error]).toEqual([method, 403, 'forbidden']);
      expect(r.headers.get('www-authenticate')).toContain(
        'error="insufficient_scope", scope="tools:execute"',
      );
    }
    expect((await gw.request('GET', '/v1/sessions', { key })).body.sessions).toEqual([]);
  });

  it("refuses a foreign Origin before the transport, and another project's session as not found", async () => {
    const t = await gw.createTenant();
    const other = await gw.createTenant();
    const session = await openSession(await tenantWithPix());
    const foreign = await gw.request('POST', '/mcp', {
      key: t.key,
      body: initialize,
      headers: { ...headers, Origin: 'https://evil.example' },
    });
    expect(foreign.status).toBe(403);
    const elsewhere = await gw.request('POST', `/v1/sessions/${session}/mcp`, {
      key: other.key,
      body: initialize,
      headers,
    });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.error.code).toBe('not_found');
  });
});

/**
 * An MCP client's OAuth provider whose "browser" is this test: it reads the authorization URL the SDK
 * built (after its own discovery and registration) and submits the gateway's consent page with a pasted key.
 */
class PastedKeyProvider implements OAuthClientProvider {
  information: Awaited<ReturnType<OAuthClientProvider['clientInformation']>>;
  stored: Awaited<ReturnType<OAuthClientProvider['tokens']>>;
  verifier = '';
  callback: URL | undefined;
  authorizationUrl: URL | undefined;
  constructor(private readonly apiKey: string) {}
  get redirectUrl() {
    return REDIRECT_URI;
  }
  get clientMetadata() {
    return {
      client_name: 'MCP test agent',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(info: NonNullable<PastedKeyProvider['information']>) {
    this.information = info;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: NonNullable<PastedKeyProvider['stored']>) {
    this.stored = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  async redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
    const fields = Object.fromEntries(url.searchParams);
    const consent = await fetch(`${url.origin}${url.pathname}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: form({ ...fields, api_key: this.apiKey }),
    });
    this.callback = new URL(consent.headers.get('location')!);
  }
}

describe('an MCP client discovering everything from nothing', () => {
  it('goes 401 → protected-resource metadata → registration → PKCE authorize with a pasted key → token → tools/list', async () => {
    const t = await tenantWithPix();
    const provider = new PastedKeyProvider(t.key);
    const url = new URL(`${gw.url}/mcp`);
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await expect(
      new Client({ name: 'discovering-agent', version: '1.0.0' }).connect(first),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.information?.client_id).toEqual(expect.any(String));
    expect(provider.authorizationUrl!.pathname).toBe('/oauth/authorize');
    expect(provider.authorizationUrl!.searchParams.get('code_challenge_method')).toBe('S256');
    expect(provider.callback!.searchParams.get('code')).toEqual(expect.any(String));
    await first.finishAuth(provider.callback!.searchParams);
    expect(provider.stored).toMatchObject({
      token_type: expect.stringMatching(/^bearer$/i),
      access_token: expect.any(String),
      refresh_token: expect.any(String),
    });

    const client = new Client({ name: 'discovering-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['wallet.execute', 'pix-psp.pix_key_lookup']),
    );
    const result = await client.callTool({ name: 'pix-psp.pix_key_lookup', arguments: { pix_key: 'oauth' } });
    expect(result.isError).toBeFalsy();
    await client.close();
    // The session was opened for the key the grant was made from: revoking that key ends it.
    const [session] = (await gw.request('GET', '/v1/sessions', { key: t.key })).body.sessions;
    await gw.operator('DELETE', `/v1/api-keys/${t.keyId}`, { project: t.projectId });
    const after = await gw.operator('GET', `/v1/sessions/${session.id}`, { project: t.projectId });
    expect(after.body).toMatchObject({ status: 'closed', close_reason: 'key_revoked' });
  });
});
