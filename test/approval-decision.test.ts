// One approval decided twice, from the operator API and from the operator console, at once and one after
// the other: whichever path wins, the other is refused with the winner's status (never "already pending"
// and never a 5xx), the held call is replayed once, and the decision on record is the winner's.
import type { PaymentsMock } from '../providers/mocks/payments';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';
import { expectBalanced, fund, newWallet } from './support/money';

let n = 0;
const attemptId = () => `decide-twice-${Date.now()}-${++n}`;

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 300; i += 1) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe.each(TEMPORAL_SERVERS)('deciding one approval twice on the %s Temporal server', (server) => {
  let gw: Gateway;
  let t: Tenant;
  let wallet: string;
  let session: { cookie: string; csrf: string };
  beforeAll(async () => {
    gw = await startGateway({ temporal: server });
    t = await gw.createTenant();
    await gw.request('POST', '/v1/policies', {
      key: t.key,
      body: {
        name: 'big spends',
        type: 'approval-required',
        config: { above_minor: '5000', currency: 'BRL' },
      },
    });
    wallet = await newWallet(gw, t, { agent_id: 'shopper' });
    await fund(gw, t, wallet, 1_000_000);
    const login = await gw.request('POST', '/console/login', {
      raw: new URLSearchParams({ operator: 'carol', token: gw.serviceToken }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: gw.url },
    });
    expect(login.status).toBe(303);
    const cookie = login.headers.get('set-cookie')!.split(';')[0];
    const page = await gw.request('GET', '/console', { headers: { Cookie: cookie } });
    session = { cookie, csrf: /name="csrf" value="([^"]+)"/.exec(page.text)![1] };
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
  });

  async function held(): Promise<{ attempt: string; approvalId: string }> {
    const attempt = attemptId();
    const reply = await gw.request('POST', `/v1/wallets/${wallet}/execute`, {
      key: t.key,
      body: {
        amount: 120,
        currency: 'BRL',
        recipient: 'vendor-9',
        description: 'Server rack',
        mandate_id: 'mdt_1',
        attempt_id: attempt,
      },
    });
    expect(reply.status).toBe(403);
    return { attempt, approvalId: reply.body.approval_id };
  }

  const fromApi = (approvalId: string) =>
    gw.operator('POST', `/v1/orgs/${t.orgId}/approvals/${approvalId}/decide`, {
      user: 'alice',
      body: { decision: 'approve', reason: 'budgeted' },
    });
  const fromConsole = (approvalId: string) =>
    gw.request('POST', `/console/orgs/${t.orgId}/approvals/${approvalId}/decide`, {
      raw: new URLSearchParams({
        decision: 'deny',
        reason: 'not this quarter',
        csrf: session.csrf,
      }).toString(),
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Origin: gw.url,
        Cookie: session.cookie,
      },
    });
  const status = async (approvalId: string) =>
    (await gw.request('GET', `/v1/approvals/${approvalId}/status`, { key: t.key })).body;
  const charges = (attempt: string) =>
    (gw.mocks.payments as PaymentsMock).payments().filter((p) => p.reference === attempt);

  it("refuses the later path with the earlier decision's status, whichever path came first", async () => {
    const first = await held();
    expect((await fromConsole(first.approvalId)).status).toBe(200);
    const late = await fromApi(first.approvalId);
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({ code: 'approval_not_pending', details: { status: 'denied' } });

    const second = await held();
    expect((await fromApi(second.approvalId)).status).toBe(200);
    const lateConsole = await fromConsole(second.approvalId);
    expect(lateConsole.status).toBe(409);
    expect(lateConsole.text).toContain('approval_not_pending: The approval is already approved');
    await until(
      () => status(second.approvalId),
      (s) => s.executed_at !== null,
      'the approved replay',
    );
    expect(charges(first.attempt)).toHaveLength(0);
    expect(charges(second.attempt)).toHaveLength(1);
  });

  it("lets exactly one of two simultaneous decisions win, refuses the other with the winner's status, and replays the call at most once", async () => {
    for (let round = 0; round < 3; round += 1) {
      const { attempt, approvalId } = await held();
      const [api, page] = await Promise.all([fromApi(approvalId), fromConsole(approvalId)]);
      const winner = await status(approvalId);
      expect([api.status, page.status].sort()).toEqual([200, 409]);
      if (api.status === 200) {
        expect(winner).toMatchObject({
          approval_status: 'approved',
          decided_by: 'user:alice',
          decision_reason: 'budgeted',
        });
        expect(api.body).toMatchObject({ id: approvalId, status: 'approved', decided_by: 'user:alice' });
        expect(page.text).toContain('approval_not_pending: The approval is already approved');
        await until(
          () => status(approvalId),
          (s) => s.executed_at !== null,
          'the approved replay',
        );
        expect(charges(attempt)).toHaveLength(1);
      } else {
        expect(winner).toMatchObject({
          approval_status: 'denied',
          decided_by: 'user:carol',
          decision_reason: 'not this quarter',
        });
        expect(page.text).toContain(`${approvalId} is denied`);
        expect(api.body.error).toMatchObject({ code: 'approval_not_pending', details: { status: 'denied' } });
        expect(charges(attempt)).toHaveLength(0);
      }
    }
    await expectBalanced(gw, wallet);
  });
});
