// tools/call on the current protocol answered without a per-request SDK server once the SDK has accepted a
// request of the same shape: the answer is byte for byte the SDK's own (status, headers, body) for a
// result, a tool error, a tool the session does not publish and arguments that are not an object, and the
// call is the same call (recorded, with its event).
import { Server } from '@modelcontextprotocol/server';
import { API_KEY_SANDBOX } from '../providers/mocks/auth-api-key';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { recordingClient, type SentRequest } from './support/recording-mcp-client';

let gw: Gateway;
let t: Tenant;
let session: string;
let call: Sent;
beforeAll(async () => {
  gw = await startGateway();
  t = await gw.createTenant();
  const connected = await gw.request('POST', '/v1/providers/pix-psp/connections', {
    key: t.key,
    body: { credentials: API_KEY_SANDBOX },
  });
  if (connected.status !== 201) throw new Error(connected.text);
  session = (
    await gw.request('POST', '/v1/sessions', { key: t.key, body: { servers: ['gateway', 'pix-psp'] } })
  ).body.id as string;
  call = await sentCall(`${gw.url}/v1/sessions/${session}/mcp`, t.key);
});
afterAll(async () => {
  await gw?.stop();
});

type Sent = SentRequest & { body: { params: { _meta: Record<string, unknown> } } };

/** The tools/call request a stock client on the current protocol sends, as it sent it. */
async function sentCall(url: string, key: string): Promise<Sent> {
  const { client, sent } = await recordingClient(url, key);
  await client.callTool({ name: 'wallet.balances', arguments: {} });
  await client.close();
  return sent.find((request) => request.body.method === 'tools/call') as Sent;
}

/**
 * `call` sent again raw for `tool` with `args`, by a client named `client` (a shape of its own: the first
 * request of a client name is the SDK's to judge).
 */
async function send(client: string, tool: string, args: unknown, id: unknown = 7) {
  const meta = call.body.params._meta;
  const body = {
    ...call.body,
    id,
    params: {
      name: tool,
      arguments: args,
      _meta: { ...meta, 'io.modelcontextprotocol/clientInfo': { name: client, version: '1.0.0' } },
    },
  };
  const answer = await fetch(call.url, {
    method: 'POST',
    headers: { ...call.headers, 'mcp-name': tool },
    body: JSON.stringify(body),
  });
  const headers = Object.fromEntries(
    [...answer.headers.entries()].filter(([name]) => !['date', 'x-request-id'].includes(name)),
  );
  // Each call records its own tool call; its id is the one thing two answers may differ in.
  const text = (await answer.text()).replace(/"tool_call_id":"[^"]+"/g, '"tool_call_id":"…"');
  return { status: answer.status, headers, text };
}

const recorded = async () =>
  (await gw.request('GET', `/v1/sessions/${session}/tool-calls`, { key: t.key })).body.tool_calls as Array<{
    tool_name: string;
    status: string;
  }>;

/** `action` run while counting the SDK servers connected to a transport. */
async function counting<T>(action: () => Promise<T>): Promise<{ value: T; servers: number }> {
  const connect = jest.spyOn(Server.prototype, 'connect');
  try {
    const value = await action();
    return { value, servers: connect.mock.calls.length };
  } finally {
    connect.mockRestore();
  }
}

describe('tools/call answered without a per-request SDK server', () => {
  it("answers a provider tool's result with the SDK's bytes, and records the call", async () => {
    const args = { pix_key: 'ana@example.com' };
    const before = (await recorded()).length;
    const sdk = await counting(() => send('result-client', 'pix-psp.pix_key_lookup', args));
    expect(sdk.servers).toBe(1);
    const direct = await counting(() => send('result-client', 'pix-psp.pix_key_lookup', args));
    expect(direct.servers).toBe(0);
    expect(sdk.value.status).toBe(200);
    expect(JSON.parse(sdk.value.text)).toMatchObject({ id: 7, result: { _meta: { tool_call_id: '…' } } });
    expect(direct.value).toEqual(sdk.value);
    for (const id of ['x"y\\z', 0, 'another'])
      expect(await send('result-client', 'pix-psp.pix_key_lookup', args, id)).toEqual(
        await send(`result-client-${String(id)}`, 'pix-psp.pix_key_lookup', args, id),
      );
    const calls = await recorded();
    expect(calls.length).toBe(before + 8);
    expect(
      calls.slice(0, 8).every((c) => c.tool_name === 'pix-psp.pix_key_lookup' && c.status === 'success'),
    ).toBe(true);
  });

  it("answers a gateway tool's result with the SDK's bytes", async () => {
    await send('gateway-client', 'wallet.balances', {});
    const direct = await counting(() => send('gateway-client', 'wallet.balances', {}));
    expect(direct.servers).toBe(0);
    expect(direct.value).toEqual(await send('gateway-client-2', 'wallet.balances', {}));
  });

  it("answers a tool error (REST's refusal of the arguments) with the SDK's bytes", async () => {
    const args = { pix_key: 'ana@example.com', unexpected: true };
    const sdk = await send('error-client', 'pix-psp.pix_key_lookup', args);
    const direct = await counting(() => send('error-client', 'pix-psp.pix_key_lookup', args));
    expect(direct.servers).toBe(0);
    expect(JSON.parse(sdk.text)).toMatchObject({
      result: { isError: true, structuredContent: { error: { code: 'invalid_body' } } },
    });
    expect(direct.value).toEqual(sdk);
  });

  it('answers a tool the session does not publish with the SDK’s protocol error, recording nothing', async () => {
    await send('unknown-client', 'wallet.balances', {});
    const before = (await recorded()).length;
    const direct = await counting(() => send('unknown-client', 'pix-psp.not_a_tool', {}));
    expect(direct.servers).toBe(0);
    const sdk = await send('unknown-client-sdk', 'pix-psp.not_a_tool', {});
    expect(JSON.parse(sdk.text)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32602, message: 'Tool pix-psp.not_a_tool not found' },
    });
    expect(direct.value).toEqual(sdk);
    expect((await recorded()).length).toBe(before);
  });

  it('leaves arguments that are not an object to the SDK, which refuses them as invalid params', async () => {
    await send('params-client', 'wallet.balances', {});
    const refused = await counting(() => send('params-client', 'wallet.balances', 'not-an-object'));
    expect(refused.servers).toBe(1);
    expect(refused.value.status).toBe(200);
    expect(JSON.parse(refused.value.text)).toMatchObject({
      id: 7,
      error: { code: -32602, message: expect.stringMatching(/^Invalid tools\/call request/) },
    });
    expect(refused.value).toEqual(await send('params-client-2', 'wallet.balances', 'not-an-object'));
  });
});
