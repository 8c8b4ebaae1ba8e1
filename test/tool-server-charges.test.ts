// A paid call to a tenant's tool server whose upstream answer never came, settled through the API on both
// Temporal servers: the tenant sees it held in its charges list and is told by an event, then resolves it
// from what its upstream knows (succeeded debits exactly the price with the tenant's share and the platform
// fee credited, failed releases it), idempotently; another organization cannot see or touch it; an operator
// resolves it from the operator API or the console, named in the trail; the caller presenting the same
// attempt again gets the held answer while it is uncertain and the settled one after.
import { defaultPayloadConverter } from '@temporalio/common';
import { sql } from 'slonik';
import { z } from 'zod';
import { attemptActivities } from '../activities/attempts';
import type { AttemptInput } from '../contracts/attempt';
import { readAttempt } from '../domain/attempts/store';
import { MCP_UPSTREAM_AUTH, type McpUpstreamMock } from '../providers/mocks/mcp-upstream';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';
import { expectBalanced, fund, newWallet } from './support/money';
import { startReceiver } from './support/receiver';

describe.each(TEMPORAL_SERVERS)('held tool charges on the %s Temporal server', (temporal) => {
  let gw: Gateway;
  let tenant: Tenant;
  let caller: Tenant;
  let server: { id: string; slug: string; payout_wallet_id: string; fee_wallet_id: string };
  let session: string;
  let seq = 0;

  beforeAll(async () => {
    gw = await startGateway({ temporal });
    const upstream = gw.mocks.mcp_upstream as McpUpstreamMock;
    tenant = await gw.createTenant();
    caller = await gw.createTenant();
    const created = await gw.request('POST', '/v1/mcp-servers', {
      key: tenant.key,
      body: {
        slug: `held-${temporal}`,
        name: 'Held charges',
        upstream_url: upstream.url,
        upstream_auth: MCP_UPSTREAM_AUTH,
        platform_fee_bps: 1500,
        tools: [
          { tool_name: 'quote', price: '0.25' },
          { tool_name: 'vanish', price: '0.50' },
        ],
      },
    });
    if (created.status !== 201) throw new Error(created.text);
    server = created.body;
    session = (
      await gw.request('POST', '/v1/sessions', { key: caller.key, body: { servers: [server.slug] } })
    ).body.id;
  });
  afterAll(async () => {
    await gw?.stop();
  });

  const call = (tool: string, args: Record<string, unknown>) =>
    gw.request('POST', `/v1/sessions/${session}/tool-calls`, {
      key: caller.key,
      body: { tool, arguments: args },
    });
  const balance = async (walletId: string) =>
    (await gw.request('GET', `/v1/wallets/${walletId}`, { key: caller.key })).body.balances[0] as {
      balance_minor: string;
      available_minor: string;
    };
  const entries = async (walletId: string) =>
    (
      await gw.db.anyFirst(sql.type(z.object({ e: z.string() }))`
        SELECT kind || ':' || amount_minor::text AS e FROM wallet_ledger_entries WHERE wallet_id = ${walletId} ORDER BY id`)
    ).slice();
  const charges = (query = '', key = tenant.key) =>
    gw.request('GET', `/v1/mcp-servers/${server.id}/charges${query}`, { key });
  const resolve = (attemptId: string, body: unknown, key = tenant.key) =>
    gw.request('POST', `/v1/mcp-servers/${server.id}/charges/${encodeURIComponent(attemptId)}/resolve`, {
      key,
      body,
    });
  const tenantEvents = async (type: string) =>
    (await gw.request('GET', `/v1/events?type=${type}`, { key: tenant.key })).body.events as Array<{
      data: Record<string, unknown>;
    }>;

  /** A paid call whose upstream drops the connection: the price stays held and the caller is told to come back. */
  async function uncertainCall(attemptId = `att-held-${temporal}-${++seq}`): Promise<{
    wallet: string;
    attemptId: string;
    args: Record<string, unknown>;
  }> {
    const wallet = await newWallet(gw, caller);
    await fund(gw, caller, wallet, 1_000);
    const args = { gateway_payment: { wallet_id: wallet, attempt_id: attemptId } };
    const r = await call(`${server.slug}.vanish`, args);
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('attempt_in_progress');
    expect(await balance(wallet)).toMatchObject({ balance_minor: '1000', available_minor: '950' });
    return { wallet, attemptId, args };
  }

  it('lists the uncertain charge to the owning project, without the caller arguments, and tells the tenant by event', async () => {
    const { attemptId } = await uncertainCall();
    const listed = await charges('?status=uncertain');
    expect(listed.status).toBe(200);
    const item = listed.body.tool_charges.find((c: { attempt_id: string }) => c.attempt_id === attemptId);
    expect(item).toEqual({
      id: expect.stringMatching(/^tch_\d+$/),
      object: 'tool_charge',
      attempt_id: attemptId,
      server_id: server.id,
      tool: `${server.slug}.vanish`,
      price: '0.5',
      price_minor: '50',
      currency: 'BRL',
      tenant_share_minor: null,
      fee_minor: null,
      caller_project_id: caller.projectId,
      status: 'uncertain',
      resolution: null,
      environment: 'test',
      created_at: expect.any(String),
      uncertain_at: expect.any(String),
      settled_at: null,
    });
    expect(JSON.stringify(listed.body)).not.toContain('gateway_payment');
    expect(
      (await charges('?status=completed')).body.tool_charges.map((c: { id: string }) => c.id),
    ).not.toContain(item.id);

    const uncertain = await tenantEvents('tool_charge.uncertain');
    expect(uncertain.map((e) => e.data)).toContainEqual(
      expect.objectContaining({
        charge_id: item.id,
        attempt_id: attemptId,
        tool_server_id: server.id,
        server_id: server.slug,
        price_minor: '50',
      }),
    );
    // The caller's project is not the tenant: it neither sees the server's charges nor its events.
    expect((await charges('', caller.key)).status).toBe(404);
  });

  it('pages through the charges newest first with a cursor', async () => {
    await uncertainCall();
    await uncertainCall();
    const first = await charges('?limit=1');
    expect(first.body).toMatchObject({ has_more: true });
    expect(first.body.tool_charges).toHaveLength(1);
    const second = await charges(`?limit=1&starting_after=${first.body.tool_charges[0].id}`);
    expect(second.body.tool_charges).toHaveLength(1);
    const [a, b] = [first.body.tool_charges[0].id, second.body.tool_charges[0].id].map((id: string) =>
      Number(id.slice(4)),
    );
    expect(b).toBeLessThan(a);
    for (const query of ['?status=maybe', '?starting_after=tch_99999999999999999999', '?limit=0']) {
      const bad = await charges(query);
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('invalid_query');
    }
  });

  it('resolves succeeded: debits exactly the price, credits the tenant and the platform, and the caller gets the settled answer', async () => {
    const { wallet, attemptId, args } = await uncertainCall();
    // Presented again while uncertain: still the held answer, nothing moves.
    const held = await call(`${server.slug}.vanish`, args);
    expect(held.status).toBe(409);
    expect(held.body.error.code).toBe('attempt_in_progress');

    const r = await resolve(attemptId, { outcome: 'succeeded' });
    expect(r.status).toBe(200);
    // 50 × 15 % = 7.5: the fee rounds down to 7, the tenant gets 43.
    expect(r.body).toMatchObject({
      attempt_id: attemptId,
      status: 'completed',
      tenant_share_minor: '43',
      fee_minor: '7',
      resolution: { outcome: 'succeeded', resolved_by: `key:${tenant.keyId}` },
    });
    expect(await balance(wallet)).toEqual(
      expect.objectContaining({ balance_minor: '950', available_minor: '950' }),
    );
    expect(await entries(wallet)).toEqual(['fund:1000', 'hold:-50', 'debit:-50']);
    expect((await entries(server.payout_wallet_id)).at(-1)).toBe('fund:43');
    expect((await entries(server.fee_wallet_id)).at(-1)).toBe('fund:7');
    await expectBalanced(gw, wallet);
    await expectBalanced(gw, server.payout_wallet_id);
    await expectBalanced(gw, server.fee_wallet_id);
    expect((await tenantEvents('tool_charge.resolved')).map((e) => e.data)).toContainEqual(
      expect.objectContaining({
        attempt_id: attemptId,
        outcome: 'succeeded',
        status: 'completed',
        resolved_by: `key:${tenant.keyId}`,
        tenant_share_minor: '43',
        fee_minor: '7',
      }),
    );

    const settled = await call(`${server.slug}.vanish`, args);
    expect(settled.status).toBe(200);
    expect(settled.body).toMatchObject({
      status: 'success',
      output: { resolved: 'succeeded', resolved_by: `key:${tenant.keyId}` },
    });

    // The same resolution again answers the settled charge; the other one is refused; nothing moves twice.
    const again = await resolve(attemptId, { outcome: 'succeeded' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(r.body);
    const other = await resolve(attemptId, { outcome: 'failed' });
    expect(other.status).toBe(409);
    expect(other.body.error).toMatchObject({
      code: 'charge_not_uncertain',
      details: { status: 'completed', resolved_outcome: 'succeeded' },
    });
    expect(await entries(wallet)).toEqual(['fund:1000', 'hold:-50', 'debit:-50']);
  });

  it('resolves failed: releases the held price and the caller gets the failure', async () => {
    const { wallet, attemptId, args } = await uncertainCall();
    const payoutBefore = await entries(server.payout_wallet_id);
    const r = await resolve(attemptId, { outcome: 'failed' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: 'failed',
      tenant_share_minor: null,
      resolution: { outcome: 'failed', resolved_by: `key:${tenant.keyId}` },
    });
    expect(await balance(wallet)).toEqual(
      expect.objectContaining({ balance_minor: '1000', available_minor: '1000' }),
    );
    expect(await entries(wallet)).toEqual(['fund:1000', 'hold:-50', 'release:50']);
    expect(await entries(server.payout_wallet_id)).toEqual(payoutBefore);
    const settled = await call(`${server.slug}.vanish`, args);
    expect(settled.status).toBe(502);
    expect(settled.body.error).toMatchObject({
      code: 'provider_error',
      details: { reason: 'upstream_failed' },
    });
    expect((await resolve(attemptId, { outcome: 'failed' })).status).toBe(200);
    expect((await resolve(attemptId, { outcome: 'succeeded' })).status).toBe(409);
  });

  it('refuses bad bodies, unknown charges, other organizations and charges that are not uncertain, changing nothing', async () => {
    const { wallet, attemptId } = await uncertainCall();
    for (const body of [{}, { outcome: 'maybe' }, { outcome: 'failed', extra: 1 }]) {
      const bad = await resolve(attemptId, body);
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('invalid_body');
    }
    const unknown = await resolve('att-never-made', { outcome: 'failed' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: { code: 'not_found' }, request_id: expect.any(String) });

    const stranger = await gw.createTenant();
    const foreign = await resolve(attemptId, { outcome: 'succeeded' }, stranger.key);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('not_found');
    expect((await charges('', stranger.key)).status).toBe(404);
    expect(await balance(wallet)).toMatchObject({ balance_minor: '1000', available_minor: '950' });
    expect(
      (await charges('?status=uncertain')).body.tool_charges.map((c: { attempt_id: string }) => c.attempt_id),
    ).toContain(attemptId);

    // A call its upstream answered was settled by that answer: there is nothing to resolve.
    const paid = await newWallet(gw, caller);
    await fund(gw, caller, paid, 1_000);
    const answered = `att-held-${temporal}-${++seq}`;
    const ok = await call(`${server.slug}.quote`, {
      from: 'A',
      to: 'B',
      gateway_payment: { wallet_id: paid, attempt_id: answered },
    });
    expect(ok.body.status).toBe('success');
    const settled = await resolve(answered, { outcome: 'failed' });
    expect(settled.status).toBe(409);
    expect(settled.body.error).toMatchObject({
      code: 'charge_not_uncertain',
      details: { status: 'completed' },
    });
    expect(await entries(paid)).toEqual(['fund:1000', 'hold:-25', 'debit:-25']);
  });

  it("tells the tenant's webhooks when a call turns uncertain and when it is resolved", async () => {
    const receiver = await startReceiver();
    try {
      // An endpoint may narrow itself to the tool server by its slug; a slug nobody holds is refused.
      const unknown = await gw.request('POST', '/v1/webhook-endpoints', {
        key: tenant.key,
        body: {
          name: 'x',
          event: 'tool_charge.uncertain',
          webhook_url: receiver.url,
          server_id: 'no-such-tools',
        },
      });
      expect([unknown.status, unknown.body.error?.code]).toEqual([400, 'unknown_server']);
      for (const event of ['tool_charge.uncertain', 'tool_charge.resolved']) {
        const created = await gw.request('POST', '/v1/webhook-endpoints', {
          key: tenant.key,
          body: {
            name: event,
            event,
            webhook_url: `${receiver.url}/${event}`,
            ...(event === 'tool_charge.uncertain' ? { server_id: server.slug } : {}),
          },
        });
        expect(created.status).toBe(201);
      }
      const { attemptId } = await uncertainCall();
      const deliveredFor = async (path: string) => {
        for (let n = 1; ; n++) {
          const found = (await receiver.waitFor(n))
            .filter((r) => r.path === path)
            .map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> })
            .find((b) => b.data.attempt_id === attemptId);
          if (found) return found;
        }
      };
      expect(await deliveredFor('/tool_charge.uncertain')).toMatchObject({
        type: 'tool_charge.uncertain',
        data: { attempt_id: attemptId, server_id: server.slug, price_minor: '50', currency: 'BRL' },
      });
      expect((await resolve(attemptId, { outcome: 'failed' })).status).toBe(200);
      expect(await deliveredFor('/tool_charge.resolved')).toMatchObject({
        type: 'tool_charge.resolved',
        data: {
          attempt_id: attemptId,
          outcome: 'failed',
          status: 'failed',
          resolved_by: `key:${tenant.keyId}`,
        },
      });
    } finally {
      await receiver.stop();
    }
  });

  it('moves the money once when two resolutions with different outcomes race', async () => {
    const { wallet, attemptId } = await uncertainCall();
    const answers = await Promise.all([
      resolve(attemptId, { outcome: 'succeeded' }),
      resolve(attemptId, { outcome: 'failed' }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const [won, lost] = answers[0].status === 200 ? answers : [answers[1], answers[0]];
    expect(lost.body.error.code).toBe('charge_not_uncertain');
    const moved = won.body.resolution.outcome === 'succeeded' ? 'debit:-50' : 'release:50';
    expect(await entries(wallet)).toEqual(['fund:1000', 'hold:-50', moved]);
    await expectBalanced(gw, wallet);
  });

  it('lets an operator list held charges and resolve one through the operator API, named on the charge and the call', async () => {
    const { wallet, attemptId, args } = await uncertainCall();
    const listed = await gw.operator('GET', `/v1/ops/tool-charges?org=${tenant.orgId}`);
    expect(listed.status).toBe(200);
    const item = listed.body.tool_charges.find((c: { attempt_id: string }) => c.attempt_id === attemptId);
    expect(item).toMatchObject({ status: 'uncertain', server_id: server.id });
    expect((await gw.request('GET', '/v1/ops/tool-charges', { key: tenant.key })).status).toBe(401);

    const path = `/v1/orgs/${tenant.orgId}/tool-charges/${item.id}/resolve`;
    const nameless = await gw.operator('POST', path, { body: { outcome: 'succeeded' } });
    expect(nameless.status).toBe(400);
    expect(nameless.body.error.code).toBe('user_id_required');
    const otherOrg = await gw.operator('POST', `/v1/orgs/${caller.orgId}/tool-charges/${item.id}/resolve`, {
      user: 'dora',
      body: { outcome: 'succeeded' },
    });
    expect(otherOrg.status).toBe(404);
    expect(await balance(wallet)).toMatchObject({ available_minor: '950' });

    const r = await gw.operator('POST', path, { user: 'dora', body: { outcome: 'succeeded' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'completed', resolution: { resolved_by: 'user:dora' } });
    expect(await balance(wallet)).toMatchObject({ balance_minor: '950', available_minor: '950' });
    const replayed = await call(`${server.slug}.vanish`, args);
    expect(replayed.body.output).toMatchObject({ resolved: 'succeeded', resolved_by: 'user:dora' });
    const audit = await gw.db.oneFirst(sql.type(z.object({ audit: z.string() }))`
      SELECT response_body::text AS audit FROM spend_attempts WHERE org_id = ${caller.orgId} AND attempt_id = ${attemptId}`);
    expect(JSON.parse(audit).audit).toContainEqual(
      expect.objectContaining({
        step: 'resolve',
        status: 'pass',
        detail: 'resolved as succeeded by user:dora',
      }),
    );
  });

  it('lets a signed-in operator resolve a held charge from the console', async () => {
    // The caller chose the attempt id: the console shows it as text, never as markup.
    const { wallet, attemptId } = await uncertainCall(`att-<i>held</i>-${temporal}-${++seq}`);
    const shown = attemptId.replace(/</g, '&lt;').replace(/>/g, '&gt;');
    const login = await gw.request('POST', '/console/login', {
      raw: new URLSearchParams({ operator: 'erin', token: gw.serviceToken }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: gw.url },
    });
    expect(login.status).toBe(303);
    const cookie = login.headers.get('set-cookie')!.split(';')[0];
    const page = await gw.request('GET', `/console?org=${tenant.orgId}`, { headers: { Cookie: cookie } });
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1];
    expect(page.text).toContain(`<code>${shown}</code>`);
    expect(page.text).not.toContain('<i>held');
    const action = new RegExp(`action="(/console/orgs/[^"]+/tool-charges/(tch_\\d+)/resolve)"`).exec(
      page.text.slice(page.text.indexOf(`<code>${shown}</code>`)),
    );
    expect(action).not.toBeNull();
    const form = (fields: Record<string, string>) =>
      gw.request('POST', action![1], {
        raw: new URLSearchParams(fields).toString(),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie, Origin: gw.url },
      });
    const forged = await form({ outcome: 'failed' });
    expect(forged.status).toBe(403);
    expect(await balance(wallet)).toMatchObject({ available_minor: '950' });

    const done = await form({ outcome: 'failed', csrf });
    expect(done.status).toBe(200);
    expect(done.text).toContain('Charge resolved as failed');
    expect(await balance(wallet)).toMatchObject({ balance_minor: '1000', available_minor: '1000' });
    const listed = await charges('?status=failed');
    expect(
      listed.body.tool_charges.find((c: { attempt_id: string }) => c.attempt_id === attemptId).resolution,
    ).toMatchObject({ outcome: 'failed', resolved_by: 'user:erin' });
  });

  it("tells a run whose settled answer was lost the upstream's own output, never an uncertain charge", async () => {
    // The step that sends a paid call settles and stores its answer too; when the worker is lost after that
    // commit, the run's lookup finds the charge debited and must hand on what the upstream answered.
    const wallet = await newWallet(gw, caller);
    await fund(gw, caller, wallet, 1_000);
    const attemptId = `att-lost-answer-${temporal}-${++seq}`;
    const paid = await call(`${server.slug}.quote`, {
      from: 'A',
      to: 'B',
      gateway_payment: { wallet_id: wallet, attempt_id: attemptId },
    });
    expect(paid.body.status).toBe('success');
    const row = (await readAttempt(gw.db, caller.orgId, attemptId))!;
    const stored = JSON.parse(row.response_text!) as { output: Record<string, unknown> };
    expect(stored.output).toEqual(expect.any(Object));
    const history = await gw.env.client.workflow.getHandle(row.workflow_id).fetchHistory();
    const started = history.events![0].workflowExecutionStartedEventAttributes!;
    const attempt = defaultPayloadConverter.fromPayload<AttemptInput>(started.input!.payloads![0]);

    const activities = attemptActivities({ db: gw.db, log: gw.deps.log, config: gw.deps.config });
    const looked = await activities.lookupAttempt({ attempt, message: 'the answer was lost', round: 0 });
    expect(looked.sent).toEqual({ status: 'succeeded', paymentId: null, output: stored.output });
    // Known, not uncertain: no uncertain event, and the money moved once.
    const charge = await gw.db.oneFirst(sql.type(z.object({ status: z.string() }))`
      SELECT status FROM tool_server_charges WHERE org_id = ${caller.orgId} AND attempt_id = ${attemptId}`);
    expect(charge).toBe('debited');
    expect(await entries(wallet)).toEqual(['fund:1000', 'hold:-25', 'debit:-25']);
  });
});
