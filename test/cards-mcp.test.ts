// Agent cards through the hosted MCP endpoint with the SDK's own Client, on both Temporal servers: the
// built-in `cards` server a session names, its tools listed, a card issued bound to a wallet with controls,
// read and listed, an authorization the issuer asks about decided and listed, frozen (declining), unfrozen
// and closed, the issuer's display link answered once and recorded nowhere, and the REST routes' refusals
// carried as tool errors; `/mcp`'s own session lists it too, and a restricted key is refused as the routes refuse it.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { sql } from 'slonik';
import { z } from 'zod';
import type { IssuerMock } from '../providers/mocks/issuer';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';
import { fund, newWallet } from './support/money';

const CARD_TOOLS = [
  'cards.create',
  'cards.list',
  'cards.get',
  'cards.freeze',
  'cards.unfreeze',
  'cards.close',
  'cards.display',
  'cards.authorizations',
];

type Result = Awaited<ReturnType<Client['callTool']>>;
const parsed = (result: Result) =>
  JSON.parse((result.content as Array<{ text: string }>)[0].text) as Record<string, any>;

describe.each(TEMPORAL_SERVERS)('agent cards through MCP on the %s server', (server) => {
  let gw: Gateway;
  let t: Tenant;
  let issuer: IssuerMock;
  let client: Client;
  let session: string;

  const connect = async (path: string, key: string): Promise<Client> => {
    const c = new Client({ name: 'card-agent', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(`${gw.url}${path}`), {
        requestInit: { headers: { Authorization: `Bearer ${key}` } },
      }),
    );
    return c;
  };
  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });
  const authorize = async (issuerCardId: string, amount: number) => {
    const response = await fetch(`${issuer.url}/v1/test_helpers/issuing/authorizations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        card: issuerCardId,
        amount,
        currency: 'brl',
        merchant_data: { category_code: '5734', name: 'Compute Co', network_id: 'mch_compute' },
      }),
    });
    return (await response.json()) as Record<string, any>;
  };

  beforeAll(async () => {
    gw = await startGateway({ temporal: server });
    t = await gw.createTenant({ name: 'Card agents' });
    issuer = gw.mocks.issuer as IssuerMock;
    const opened = await gw.request('POST', '/v1/sessions', {
      key: t.key,
      body: { servers: ['gateway', 'cards'] },
    });
    expect(opened.status).toBe(201);
    session = opened.body.id;
    client = await connect(`/v1/sessions/${session}/mcp`, t.key);
  });
  afterAll(async () => {
    await client?.close();
    await gw?.stop();
  });

  it('lists the cards server beside the gateway, with the routes own request schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).filter((name) => name.startsWith('cards.'))).toEqual(CARD_TOOLS);
    const create = tools.find((tool) => tool.name === 'cards.create')!;
    expect(create.inputSchema).toMatchObject({
      type: 'object',
      required: ['wallet_id'],
      properties: { spending_controls: { type: 'object' } },
    });
    const servers = (await gw.request('GET', '/v1/servers', { key: t.key })).body.servers;
    expect(servers.map((s: { id: string }) => s.id).slice(0, 2)).toEqual(['gateway', 'cards']);
  });

  it('issues a card with controls, reads it, and lists it and its decided authorizations', async () => {
    const walletId = await newWallet(gw, t);
    await fund(gw, t, walletId, 100_00);
    const created = await call('cards.create', {
      wallet_id: walletId,
      spending_controls: { spending_limits: [{ interval: 'per_authorization', amount_minor: '5000' }] },
      metadata: { agent: 'mcp-buyer' },
    });
    expect(created.isError).toBeFalsy();
    const card = parsed(created);
    expect(card).toMatchObject({
      object: 'card',
      status: 'active',
      wallet_id: walletId,
      currency: 'BRL',
      spending_controls: { spending_limits: [{ interval: 'per_authorization', amount_minor: '5000' }] },
    });
    expect(card.id).toMatch(/^icrd_/);
    // The same card the REST route reads.
    const rest = await gw.request('GET', `/v1/cards/${card.id}`, { key: t.key });
    expect(parsed(await call('cards.get', { card_id: card.id }))).toEqual(rest.body);
    const listed = parsed(await call('cards.list', { wallet_id: walletId }));
    expect(listed).toEqual({ cards: [rest.body], next_before: null });

    expect(await authorize(card.card_id, 30_00)).toMatchObject({ approved: true });
    expect(await authorize(card.card_id, 60_00)).toMatchObject({
      approved: false,
      decline_reason: 'per_authorization_limit',
    });
    const authorizations = parsed(await call('cards.authorizations', { card_id: card.id }));
    expect(authorizations.authorizations.map((a: any) => [a.approved, a.status, a.held_minor])).toEqual([
      [false, 'declined', '0'],
      [true, 'pending', '3000'],
    ]);
    const restList = await gw.request('GET', `/v1/cards/${card.id}/authorizations`, { key: t.key });
    expect(authorizations).toEqual(restList.body);

    const calls = (await gw.request('GET', `/v1/sessions/${session}/tool-calls`, { key: t.key })).body
      .tool_calls;
    expect(calls[0]).toMatchObject({ tool_name: 'cards.authorizations', status: 'success' });
  });

  it('freezes (declining everything), unfreezes and closes, with the routes events; a closed card is refused as REST refuses it', async () => {
    const walletId = await newWallet(gw, t);
    await fund(gw, t, walletId, 50_00);
    const card = parsed(await call('cards.create', { wallet_id: walletId }));
    expect(parsed(await call('cards.freeze', { card_id: card.id })).status).toBe('frozen');
    expect(await authorize(card.card_id, 10_00)).toMatchObject({
      approved: false,
      decline_reason: 'card_inactive',
    });
    expect(parsed(await call('cards.unfreeze', { card_id: card.id })).status).toBe('active');
    expect(await authorize(card.card_id, 10_00)).toMatchObject({ approved: true });
    expect(parsed(await call('cards.close', { card_id: card.id })).status).toBe('closed');
    const statuses = await gw.db.anyFirst(sql.type(z.object({ status: z.string() }))`
      SELECT data->>'status' AS status FROM events
      WHERE type = 'card.updated' AND data->>'card_id' = ${card.id} ORDER BY created_at, id`);
    expect(statuses).toEqual(['frozen', 'active', 'closed']);

    const again = await call('cards.unfreeze', { card_id: card.id });
    expect(again.isError).toBe(true);
    const rest = await gw.request('POST', `/v1/cards/${card.id}/unfreeze`, { key: t.key });
    expect(rest.status).toBe(409);
    // The REST body's error, as the MCP door carries every refusal (the request id is the HTTP answer's).
    expect(parsed(again)).toEqual({ error: rest.body.error });
  });

  it('answers the display link to the caller alone: the tool call records its expiry, never the link', async () => {
    const walletId = await newWallet(gw, t);
    const card = parsed(await call('cards.create', { wallet_id: walletId }));
    const result = await call('cards.display', { card_id: card.id });
    expect(result.isError).toBeFalsy();
    const display = parsed(result);
    expect(display).toEqual({ url: expect.any(String), expires_at: expect.any(String) });
    const shown = (await (await fetch(display.url)).json()) as Record<string, string>;
    expect(shown.number.endsWith(card.last4)).toBe(true);
    const dump = await gw.db.oneFirst(sql.type(z.object({ dump: z.string() }))`
      SELECT concat_ws('|', (SELECT string_agg(to_jsonb(c)::text, '') FROM tool_calls c),
        (SELECT string_agg(data::text, '') FROM events)) AS dump`);
    expect(dump).not.toContain(display.url);
    expect(dump).not.toContain(shown.number);
    const [recorded] = (await gw.request('GET', `/v1/sessions/${session}/tool-calls`, { key: t.key })).body
      .tool_calls;
    expect(recorded).toMatchObject({
      tool_name: 'cards.display',
      status: 'success',
      output: { card_id: card.id, expires_at: display.expires_at },
    });
  });

  it("refuses as the routes do and changes nothing: another project's card, a wallet that is not the project's, bad arguments", async () => {
    const other = await gw.createTenant({ name: 'Other cards' });
    const otherWallet = await newWallet(gw, other);
    const otherCard = (
      await gw.request('POST', '/v1/cards', { key: other.key, body: { wallet_id: otherWallet } })
    ).body;
    const foreign = await call('cards.get', { card_id: otherCard.id });
    expect(foreign.isError).toBe(true);
    const restForeign = await gw.request('GET', `/v1/cards/${otherCard.id}`, { key: t.key });
    expect(parsed(foreign)).toEqual({ error: restForeign.body.error });
    expect(parsed(foreign).error.code).toBe('not_found');

    const before = await gw.db.oneFirst(
      sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM issuer_cards`,
    );
    const noWallet = await call('cards.create', { wallet_id: otherWallet });
    expect(noWallet.isError).toBe(true);
    expect(parsed(noWallet).error.code).toBe('not_found');
    const bad = await call('cards.create', {
      wallet_id: otherWallet,
      spending_controls: { spending_limits: [{ interval: 'hourly', amount_minor: '1' }] },
    });
    expect(bad.isError).toBe(true);
    expect(parsed(bad).error).toMatchObject({ code: 'invalid_body', details: { tool: 'cards.create' } });
    const badId = await call('cards.freeze', { card_id: 'imf_notacard' });
    expect(parsed(badId).error.code).toBe('invalid_body');
    expect(
      await gw.db.oneFirst(
        sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM issuer_cards`,
      ),
    ).toBe(before);
  });

  it('passes every card tool through the policy gate under its name: a rule on `cards.create` denies it, and nothing is issued', async () => {
    const walletId = await newWallet(gw, t);
    const rule = await gw.request('POST', '/v1/policies', {
      key: t.key,
      body: { name: 'no new cards', type: 'deny', tools: ['cards.create'], config: {} },
    });
    expect(rule.status).toBe(201);
    try {
      const denied = await call('cards.create', { wallet_id: walletId });
      expect(denied.isError).toBe(true);
      expect(parsed(denied)).toMatchObject({
        reason: 'denied_by_rule',
        ruleType: 'deny',
        ruleId: rule.body.id,
      });
      const listed = parsed(await call('cards.list', { wallet_id: walletId }));
      expect(listed).toEqual({ cards: [], next_before: null });
    } finally {
      await gw.request('DELETE', `/v1/policies/${rule.body.id}`, { key: t.key });
    }
  });

  it('refuses up front a card tool a rule would hold for approval (its approval could never run it), writing no approval', async () => {
    const walletId = await newWallet(gw, t);
    const rule = await gw.request('POST', '/v1/policies', {
      key: t.key,
      body: { name: 'cards need a person', type: 'approval-required', tools: ['cards.*'], config: {} },
    });
    expect(rule.status).toBe(201);
    const approvals = () =>
      gw.db.oneFirst(
        sql.type(
          z.object({ n: z.number() }),
        )`SELECT count(*)::int AS n FROM approvals WHERE org_id = ${t.orgId}`,
      );
    const before = await approvals();
    try {
      const refused = await call('cards.create', { wallet_id: walletId });
      expect(refused.isError).toBe(true);
      expect(parsed(refused)).toMatchObject({
        reason: 'approval_unsupported',
        ruleType: 'approval-required',
        ruleId: rule.body.id,
      });
      expect(parsed(refused).approval_id).toBeUndefined();
      const rest = await gw.request('POST', `/v1/sessions/${session}/tool-calls`, {
        key: t.key,
        body: { tool: 'cards.list', arguments: { wallet_id: walletId } },
      });
      expect(rest.status).toBe(403);
      expect(rest.body).toMatchObject({ reason: 'approval_unsupported', ruleId: rule.body.id });
      expect(await approvals()).toBe(before);
    } finally {
      await gw.request('DELETE', `/v1/policies/${rule.body.id}`, { key: t.key });
    }
    expect(parsed(await call('cards.list', { wallet_id: walletId }))).toEqual({
      cards: [],
      next_before: null,
    });
  });

  it("lists the cards server in /mcp's own session, but a key holding only tools:execute gets no more than the card routes give it", async () => {
    const narrow = await gw.createKey(t.projectId, { scopes: ['tools:execute'] });
    const own = await connect('/mcp', narrow.key);
    try {
      const names = (await own.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(CARD_TOOLS));
      const walletId = await newWallet(gw, t);
      const rest = await gw.request('POST', '/v1/cards', { key: narrow.key, body: { wallet_id: walletId } });
      expect([rest.status, rest.body.error?.code]).toEqual([403, 'route_scope_unmapped']);
      for (const [name, args] of [
        ['cards.create', { wallet_id: walletId }],
        ['cards.list', {}],
      ] as const) {
        const refused = await own.callTool({ name, arguments: args });
        expect(refused.isError).toBe(true);
        expect(parsed(refused)).toMatchObject({ error: { code: 'route_scope_unmapped' } });
      }
      const listed = await gw.request('GET', `/v1/cards?wallet_id=${walletId}`, { key: t.key });
      expect(listed.body.cards).toEqual([]);
    } finally {
      await own.close();
    }
  });
});
