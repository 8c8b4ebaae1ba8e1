// tools/list on the current protocol answers kept bytes for a request it answered before: the same bytes
// the SDK wrote (with the request's own id), the same status and headers; and a tenant tool server whose
// tools change is listed as it is now, by the same client, without anything being evicted by hand; and a
// session closed here or by another API process is answered 409 by its very next tools/list.
import { Server } from '@modelcontextprotocol/server';
import { sql } from 'slonik';
import { MCP_UPSTREAM_AUTH, type McpUpstreamMock } from '../providers/mocks/mcp-upstream';
import { droppedEverywhere } from '../domain/sessions/closings';
import { startGateway, type Gateway } from './support/harness';
import { recordingClient, type SentRequest } from './support/recording-mcp-client';

let gw: Gateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.stop();
});

async function raw(request: SentRequest, id: unknown) {
  const answer = await fetch(request.url, {
    method: 'POST',
    headers: request.headers,
    body: JSON.stringify({ ...request.body, id }),
  });
  const headers = Object.fromEntries(
    [...answer.headers.entries()].filter(
      ([name]) => !['date', 'x-request-id', 'content-length'].includes(name),
    ),
  );
  return { status: answer.status, headers, text: await answer.text() };
}

describe('tools/list answered again', () => {
  it("answers the SDK's own bytes with the request's id, whatever id it carries", async () => {
    const t = await gw.createTenant();
    const opened = await gw.request('POST', '/v1/sessions', {
      key: t.key,
      body: { servers: ['gateway', 'postal-codes'] },
    });
    const { client, sent } = await recordingClient(`${gw.url}/v1/sessions/${opened.body.id}/mcp`, t.key);
    try {
      const listed = await client.listTools();
      expect(listed.tools.some((tool) => tool.name === 'wallet.balances')).toBe(true);
      const list = sent.find((request) => request.body.method === 'tools/list')!;
      expect(list).toBeDefined();

      const first = await raw(list, 'first-id');
      expect(first.status).toBe(200);
      expect(first.headers['content-type']).toMatch(/^application\/json/);
      const body = JSON.parse(first.text) as { id: unknown; result: { tools: unknown[] } };
      expect(body).toMatchObject({ jsonrpc: '2.0', id: 'first-id' });
      expect(body.result.tools).toEqual(listed.tools);
      // Kept answers are made without an SDK server (nor the web request one would be handed).
      const connect = jest.spyOn(Server.prototype, 'connect');
      try {
        for (const id of [7, 'x"y\\z', 0, 'first-id']) {
          const again = await raw(list, id);
          expect(again.status).toBe(first.status);
          expect(again.headers).toEqual(first.headers);
          expect(again.text).toBe(first.text.replace(/"id":"first-id"}$/, `"id":${JSON.stringify(id)}}`));
        }
        expect(connect).not.toHaveBeenCalled();
      } finally {
        connect.mockRestore();
      }
    } finally {
      await client.close();
    }
  });

  it('answers a malformed tools/list as the SDK does, every time', async () => {
    const t = await gw.createTenant();
    const opened = await gw.request('POST', '/v1/sessions', { key: t.key, body: { servers: ['gateway'] } });
    const { client, sent } = await recordingClient(`${gw.url}/v1/sessions/${opened.body.id}/mcp`, t.key);
    try {
      await client.listTools();
      const list = sent.find((request) => request.body.method === 'tools/list')!;
      const bad = { ...list, body: { ...list.body, params: { ...(list.body.params as object), cursor: 5 } } };
      const answers = [await raw(bad, 1), await raw(bad, 1)];
      expect(answers[1]).toEqual(answers[0]);
      expect(JSON.parse(answers[0].text)).toMatchObject({
        jsonrpc: '2.0',
        id: 1,
        error: { message: expect.stringContaining('cursor') },
      });
    } finally {
      await client.close();
    }
  });

  it("lists a tenant tool server's tools as they are now: a paused tool leaves the listing, resumed it comes back", async () => {
    const upstream = gw.mocks.mcp_upstream as McpUpstreamMock;
    const tenant = await gw.createTenant();
    const caller = await gw.createTenant();
    const created = await gw.request('POST', '/v1/mcp-servers', {
      key: tenant.key,
      body: {
        slug: 'freight-listing',
        name: 'Freight quotes',
        upstream_url: upstream.url,
        upstream_auth: MCP_UPSTREAM_AUTH,
        platform_fee_bps: 1000,
        tools: [
          { tool_name: 'echo', price: '0' },
          { tool_name: 'quote', price: '0.25' },
        ],
      },
    });
    expect(created.status).toBe(201);
    const opened = await gw.request('POST', '/v1/sessions', {
      key: caller.key,
      body: { servers: ['gateway', 'freight-listing'] },
    });
    const { client } = await recordingClient(`${gw.url}/v1/sessions/${opened.body.id}/mcp`, caller.key);
    const names = async () =>
      (await client.listTools()).tools.map((tool) => tool.name).filter((name) => name.startsWith('freight'));
    const setQuote = async (active: boolean) => {
      const r = await gw.request('PATCH', `/v1/mcp-servers/${created.body.id}/tools/quote`, {
        key: tenant.key,
        body: { active },
      });
      expect(r.status).toBe(200);
    };
    try {
      expect(await names()).toEqual(['freight-listing.echo', 'freight-listing.quote']);
      expect(await names()).toEqual(['freight-listing.echo', 'freight-listing.quote']);
      await setQuote(false);
      expect(await names()).toEqual(['freight-listing.echo']);
      await setQuote(true);
      expect(await names()).toEqual(['freight-listing.echo', 'freight-listing.quote']);
      const paused = await gw.request('PATCH', `/v1/mcp-servers/${created.body.id}`, {
        key: tenant.key,
        body: { active: false },
      });
      expect(paused.status).toBe(200);
      expect(await names()).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe('tools/list of a closed session', () => {
  async function listedThenClosed(close: (sessionId: string, key: string) => Promise<void>) {
    const t = await gw.createTenant();
    const opened = await gw.request('POST', '/v1/sessions', { key: t.key, body: { servers: ['gateway'] } });
    const { client, sent } = await recordingClient(`${gw.url}/v1/sessions/${opened.body.id}/mcp`, t.key);
    try {
      await client.listTools();
      const list = sent.find((request) => request.body.method === 'tools/list')!;
      expect((await raw(list, 1)).status).toBe(200);
      await close(opened.body.id, t.key);
      const after = await raw(list, 2);
      expect(after.status).toBe(409);
      expect(JSON.parse(after.text)).toMatchObject({
        error: { code: 'session_closed', details: { status: 'closed', close_reason: 'closed_by_caller' } },
      });
    } finally {
      await client.close();
    }
  }

  it('answers 409 session_closed as soon as the session is closed here', async () => {
    await listedThenClosed(async (id, key) => {
      const closed = await gw.request('POST', `/v1/sessions/${id}/close`, { key });
      expect(closed.status).toBe(200);
    });
  });

  it('answers 409 session_closed once another API process has closed the session', async () => {
    // What another process's close does: the write (whose commit every process hears), then the wait
    // until every listening process has dropped the session.
    await listedThenClosed(async (id) => {
      await gw.db.query(sql.unsafe`
        UPDATE sessions SET status = 'closed', close_reason = 'closed_by_caller', closed_at = now() WHERE id = ${id}`);
      await droppedEverywhere(id);
    });
  });
});
