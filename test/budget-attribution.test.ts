// A budget counts a spend for the agent the policy gate decided it as, whichever wallet paid: a session's
// paid tool calls count for its agent even from a wallet of no agent or of another, a consumer spend counts
// for the agent that made it (not the consumer's sub-account), and an approved consumer spend still passes
// its agent's budget, as an approved wallet execute does. On both Temporal servers, through HTTP.
import { sql } from 'slonik';
import { z } from 'zod';
import { MCP_UPSTREAM_AUTH, type McpUpstreamMock } from '../providers/mocks/mcp-upstream';
import type { PixPspMock } from '../providers/mocks/pix-psp';
import { waitFor } from './support/consents';
import { consentConsumer, pixSpend, readyConsumer } from './support/consumer-spend';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';
import { fund, newWallet } from './support/money';

describe.each(TEMPORAL_SERVERS)(
  'budgets count spends by the agent that made them, on the %s server',
  (server) => {
    let gw: Gateway;
    beforeAll(async () => {
      // A pull whose PSP never answers is uncertain once this runs out.
      process.env.PROVIDER_TIMEOUT_MS = '4000';
      gw = await startGateway({ temporal: server });
    });
    afterAll(async () => {
      await gw?.stop();
    });

    const budget = async (t: Tenant, agent: string, capMinor: number) => {
      const r = await gw.request('POST', '/v1/policies', {
        key: t.key,
        body: {
          name: `${agent} cap`,
          type: 'budget',
          agents: [agent],
          config: { currency: 'BRL', cap_minor: String(capMinor), window: 'day' },
        },
      });
      expect(r.status).toBe(201);
      return r.body.id as string;
    };
    /** A wallet execute of `amount` BRL (major units, as the route takes them). */
    const execute = (t: Tenant, wallet: string, amount: number, attempt: string) =>
      gw.request('POST', `/v1/wallets/${wallet}/execute`, {
        key: t.key,
        body: {
          amount,
          currency: 'BRL',
          recipient: 'merchant-42',
          description: 'budget check',
          mandate_id: 'mdt_test',
          attempt_id: attempt,
        },
      });
    const available = async (t: Tenant, wallet: string) =>
      (await gw.request('GET', `/v1/wallets/${wallet}`, { key: t.key })).body.balances[0]
        .available_minor as string;

    /** A session of `agent` on a fresh priced tool server (quote: 300), and a paid call of it. */
    const quoteSession = async (t: Tenant, agent: string) => {
      const upstream = gw.mocks.mcp_upstream as McpUpstreamMock;
      const slug = `attribution-${server}-${t.projectId.slice(-6).toLowerCase()}`;
      const toolServer = await gw.request('POST', '/v1/mcp-servers', {
        key: t.key,
        body: {
          slug,
          name: 'Quotes',
          upstream_url: upstream.url,
          upstream_auth: MCP_UPSTREAM_AUTH,
          platform_fee_bps: 0,
          tools: [{ tool_name: 'quote', price: '3.00' }],
        },
      });
      expect(toolServer.status).toBe(201);
      const session = await gw.request('POST', '/v1/sessions', {
        key: t.key,
        body: { servers: [slug], agent_id: agent },
      });
      expect(session.status).toBe(201);
      return (wallet: string, attempt: string) =>
        gw.request('POST', `/v1/sessions/${session.body.id}/tool-calls`, {
          key: t.key,
          body: {
            tool: `${slug}.quote`,
            arguments: { from: 'A', to: 'B', gateway_payment: { wallet_id: wallet, attempt_id: attempt } },
          },
        });
    };

    it("counts a session's paid tool calls for its agent, not for the wallet that paid", async () => {
      const t = await gw.createTenant();
      const call = await quoteSession(t, 'buyer');
      const buyerCap = await budget(t, 'buyer', 500);
      await budget(t, 'owner', 500);
      // The session's agent pays from a wallet of another agent, and from one of no agent.
      const owners = await newWallet(gw, t, { agent_id: 'owner' });
      const unowned = await newWallet(gw, t);
      await fund(gw, t, owners, 10_000);
      await fund(gw, t, unowned, 10_000);
      const first = await call(owners, `att_buyer_1_${server}`);
      expect(first.status).toBe(200);
      // 300 spent by the buyer: a second 300 would pass 500, from whichever wallet.
      for (const [wallet, attempt] of [
        [unowned, `att_buyer_2_${server}`],
        [owners, `att_buyer_3_${server}`],
      ]) {
        const second = await call(wallet, attempt);
        expect([second.status, second.body.error?.details?.reason ?? second.body.reason]).toEqual([
          403,
          'budget_exceeded',
        ]);
        expect(JSON.stringify(second.body)).toContain(buyerCap);
      }
      expect([await available(t, owners), await available(t, unowned)]).toEqual(['9700', '10000']);
      // The owner spent nothing: its wallet still pays its own 300 within its 500.
      const own = await execute(t, owners, 3, `att_owner_${server}`);
      expect([own.status, own.body.status]).toEqual([200, 'completed']);
      // The wallet's ledger says whose spend each entry is: the fund is no one's.
      const listed = await gw.request('GET', `/v1/wallets/${owners}/ledger-entries`, { key: t.key });
      const spenders = (listed.body.entries as Array<{ kind: string; agent_id: string | null }>)
        .map((e) => `${e.kind} ${e.agent_id}`)
        .reverse();
      expect(spenders).toEqual(['fund null', 'hold buyer', 'debit buyer', 'hold owner', 'debit owner']);
    });

    it('counts a consumer spend for the agent that made it', async () => {
      const t = await gw.createTenant();
      const cap = await budget(t, 'agent-7', 3_000);
      const c = await readyConsumer(gw, t, { fundMinor: 5_000 });
      const spent = await gw.request('POST', '/v1/consumer-payments/execute', {
        key: t.key,
        body: pixSpend(c, { amount_minor: 2_500 }),
      });
      expect([spent.status, spent.body.status]).toEqual([200, 'completed']);
      // The agent's own wallet: 2,500 of its 3,000 are spent, so 1,000 more is over.
      const wallet = await newWallet(gw, t, { agent_id: 'agent-7' });
      await fund(gw, t, wallet, 10_000);
      const over = await execute(t, wallet, 10, `att_agent7_${server}`);
      expect([over.status, over.body.reason, over.body.ruleId]).toEqual([403, 'budget_exceeded', cap]);
      const within = await execute(t, wallet, 5, `att_agent7_within_${server}`);
      expect([within.status, within.body.status]).toEqual([200, 'completed']);
      const again = await gw.request('POST', '/v1/consumer-payments/execute', {
        key: t.key,
        body: pixSpend(c, { amount_minor: 100 }),
      });
      expect([again.status, again.body.reason, again.body.ruleId]).toEqual([403, 'budget_exceeded', cap]);
      expect(await available(t, c.walletId)).toBe('2500');
    });

    it('counts a consented pull in flight, which holds no money, for its agent until it ends', async () => {
      const t = await gw.createTenant();
      const psp = gw.mocks.pix_psp as PixPspMock;
      const cap = await budget(t, 'agent-7', 3_000);
      const c = await consentConsumer(gw, t, { cap_minor: 10_000, per_tx_cap_minor: 5_000 });
      const first = pixSpend(c, { amount_minor: 2_000 });
      psp.script(first.attempt_id, { outcome: 'timeout' });
      const uncertain = await gw.request('POST', '/v1/consumer-payments/execute', {
        key: t.key,
        body: first,
      });
      expect([uncertain.status, uncertain.body.error?.code]).toEqual([502, 'psp_dispatch_uncertain']);
      // Nothing is held in the ledger for the pull, yet its 2,000 count: 2,000 more would pass 3,000.
      const second = pixSpend(c, { amount_minor: 2_000 });
      const over = await gw.request('POST', '/v1/consumer-payments/execute', { key: t.key, body: second });
      expect([over.status, over.body.reason, over.body.ruleId]).toEqual([403, 'budget_exceeded', cap]);
      // Settled, the pull counts once (its debit), not twice: 1,000 still fits, 1,001 does not.
      psp.script(first.attempt_id, { outcome: 'succeed' });
      const settled = await gw.request('POST', '/v1/consumer-payments/execute', { key: t.key, body: first });
      expect([settled.status, settled.body.status]).toEqual([200, 'completed']);
      const past = await gw.request('POST', '/v1/consumer-payments/execute', {
        key: t.key,
        body: pixSpend(c, { amount_minor: 1_001 }),
      });
      expect([past.status, past.body.reason]).toEqual([403, 'budget_exceeded']);
      const fits = await gw.request('POST', '/v1/consumer-payments/execute', {
        key: t.key,
        body: pixSpend(c, { amount_minor: 1_000 }),
      });
      expect([fits.status, fits.body.status]).toEqual([200, 'completed']);
    });

    it('holds an approved consumer spend to its agent budget, spent meanwhile', async () => {
      const t = await gw.createTenant();
      const approval = await gw.request('POST', '/v1/policies', {
        key: t.key,
        body: {
          name: 'Big Pix',
          type: 'approval-required',
          agents: ['agent-*'],
          tools: ['consumer_payments.*'],
          config: { above_minor: '2000', currency: 'BRL' },
        },
      });
      expect(approval.status).toBe(201);
      const cap = await budget(t, 'agent-7', 3_000);
      const c = await readyConsumer(gw, t, { fundMinor: 5_000 });
      const body = pixSpend(c, { amount_minor: 2_500 });
      const held = await gw.request('POST', '/v1/consumer-payments/execute', { key: t.key, body });
      expect([held.status, held.body.reason]).toEqual([403, 'approval_required']);
      // While a person decides, the agent spends 1,000 of its 3,000 from its own wallet.
      const wallet = await newWallet(gw, t, { agent_id: 'agent-7' });
      await fund(gw, t, wallet, 10_000);
      const meanwhile = await execute(t, wallet, 10, `att_meanwhile_${server}`);
      expect([meanwhile.status, meanwhile.body.status]).toEqual([200, 'completed']);
      const approvalId = held.body.approval_id as string;
      const decided = await gw.operator('POST', `/v1/orgs/${t.orgId}/approvals/${approvalId}/decide`, {
        user: 'bob',
        body: { decision: 'approve' },
      });
      expect(decided.status).toBe(200);
      await waitFor(
        async () =>
          (await gw.request('GET', `/v1/approvals/${approvalId}`, { key: t.key })).body.status ===
          'execution_failed',
        20_000,
      );
      const replayed = await gw.request('GET', `/v1/approvals/${approvalId}`, { key: t.key });
      expect(JSON.stringify(replayed.body.execution_result)).toContain('budget_exceeded');
      expect(JSON.stringify(replayed.body.execution_result)).toContain(cap);
      expect(await available(t, c.walletId)).toBe('5000');
      const answer = await gw.request('POST', '/v1/consumer-payments/execute', { key: t.key, body });
      expect([answer.status, answer.body.reason, answer.body.ruleId]).toEqual([403, 'budget_exceeded', cap]);
    });

    it("keeps one agent's budget exact when its wallet executes, paid tool calls and consumer spends race", async () => {
      const t = await gw.createTenant();
      const cap = await budget(t, 'agent-7', 1_000);
      const call = await quoteSession(t, 'agent-7');
      const own = await newWallet(gw, t, { agent_id: 'agent-7' });
      const shared = await newWallet(gw, t);
      await fund(gw, t, own, 10_000);
      await fund(gw, t, shared, 10_000);
      const c = await readyConsumer(gw, t, { fundMinor: 10_000 });
      // Nine spends of 300 at once, three of each family, all agent-7's: three fit under 1,000.
      const answers = await Promise.all(
        Array.from({ length: 9 }, (_, n) => {
          const attempt = `att_race_${server}_${n}`;
          if (n % 3 === 0) return execute(t, own, 3, attempt);
          if (n % 3 === 1) return call(shared, attempt);
          return gw.request('POST', '/v1/consumer-payments/execute', {
            key: t.key,
            body: pixSpend(c, { amount_minor: 300 }),
          });
        }),
      );
      const outcome = (r: { status: number; text: string }) =>
        r.status === 200
          ? 'paid'
          : r.status === 403 && r.text.includes('budget_exceeded')
            ? 'denied'
            : r.text;
      const outcomes = answers.map(outcome);
      expect(outcomes.filter((o) => o === 'paid')).toHaveLength(3);
      expect(outcomes.filter((o) => o === 'denied')).toHaveLength(6);
      for (const r of answers.filter((a) => a.status === 403)) expect(r.text).toContain(cap);
      // What left the three wallets is exactly what agent-7's budget counted, with nothing held.
      const left = await Promise.all(
        [own, shared, c.walletId].map(async (wallet) => {
          const balance = (await gw.request('GET', `/v1/wallets/${wallet}`, { key: t.key })).body.balances[0];
          expect(balance.available_minor).toBe(balance.balance_minor);
          return 10_000 - Number(balance.balance_minor);
        }),
      );
      expect(left.reduce((a, b) => a + b, 0)).toBe(900);
      const spent = await gw.db.oneFirst(sql.type(z.object({ n: z.bigint() }))`
        SELECT COALESCE(sum(-amount_minor), 0)::bigint AS n FROM wallet_ledger_entries
        WHERE org_id = ${t.orgId} AND kind = 'debit' AND agent_id = 'agent-7'`);
      expect(spent).toBe(900n);
    });
  },
);
