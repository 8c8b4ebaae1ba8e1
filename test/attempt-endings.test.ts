// A wallet execute's wait hears its attempt end (api/attempt-endings.ts): the statement that stores the
// outcome announces it when it commits, the listener wakes every wait on exactly that attempt, and the
// claimant's answer is still its fresh one, byte for byte the stored first answer.
import { sql } from 'slonik';
import { z } from 'zod';
import { ATTEMPT_ENDED_CHANNEL, endedPayload } from '../domain/attempts/store';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { fund, newWallet } from './support/money';

let gw: Gateway;
let t: Tenant;
beforeAll(async () => {
  gw = await startGateway();
  t = await gw.createTenant();
});
afterAll(async () => {
  await gw?.stop();
});

const endings = () => gw.deps.attemptEndings!;
const announce = (orgId: string, attemptId: string) =>
  gw.db.query(sql.unsafe`SELECT pg_notify(${ATTEMPT_ENDED_CHANNEL}, ${endedPayload(orgId, attemptId)})`);

describe('an attempt heard ending', () => {
  it('wakes every wait on that attempt, and a cancelled wait is forgotten', async () => {
    const first = endings().ended('org_a', 'att-1');
    const second = endings().ended('org_a', 'att-1');
    const cancelled = endings().ended('org_a', 'att-2');
    cancelled.cancel();
    const woken: string[] = [];
    void first.heard.then(() => woken.push('first'));
    void second.heard.then(() => woken.push('second'));
    await announce('org_b', 'att-1');
    await announce('org_a', 'att-1');
    await Promise.all([first.heard, second.heard]);
    expect(woken.sort()).toEqual(['first', 'second']);
    // Announced again with nobody waiting: nothing is kept for it.
    await announce('org_a', 'att-2');
    const later = endings().ended('org_a', 'att-2');
    await announce('org_a', 'att-2');
    await later.heard;
  });

  it("is announced by a wallet execute's stored outcome, and the claimant's answer is the stored bytes, fresh", async () => {
    const wallet = await newWallet(gw, t);
    await fund(gw, t, wallet, 10_000);
    const attemptId = `att-ending-${Date.now()}`;
    const body = {
      amount: 1.5,
      currency: 'BRL',
      recipient: 'merchant-1',
      description: 'heard',
      mandate_id: 'mdt_test',
      attempt_id: attemptId,
    };
    const execute = () => gw.request('POST', `/v1/wallets/${wallet}/execute`, { key: t.key, body });
    const waiting = endings().ended(t.orgId, attemptId);
    const r = await execute();
    await waiting.heard;
    expect([r.status, r.headers.get('idempotent-replayed'), r.headers.get('content-type')]).toEqual([
      200,
      null,
      'application/json; charset=utf-8',
    ]);
    const stored = await gw.db.oneFirst(
      sql.type(z.object({ response_text: z.string() }))`
        SELECT response_text FROM attempts WHERE org_id = ${t.orgId} AND id_space = 'wallet' AND attempt_id = ${attemptId}`,
    );
    expect(r.text).toBe(stored);
    const replay = await execute();
    expect([replay.status, replay.headers.get('idempotent-replayed'), replay.text]).toEqual([
      200,
      'true',
      stored,
    ]);
  });
});
