// A wallet execute's wait hears its attempt end (api/attempt-endings.ts): the statement that stores the
// outcome announces it when it commits, the listener wakes every wait on exactly that attempt, and the
// claimant's answer is still its fresh one, byte for byte the stored first answer.
import { sql } from 'slonik';
import { z } from 'zod';
import { HEARD_WAITS_AT_MOST } from '../api/attempt-endings';
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
/** A wait that is heard (fewer than HEARD_WAITS_AT_MOST are listening). */
const heardWait = (orgId: string, attemptId: string) => {
  const wait = endings().ended(orgId, attemptId);
  if (!wait) throw new Error('the wait is not heard');
  return wait;
};
const announce = (orgId: string, attemptId: string) =>
  gw.db.query(sql.unsafe`SELECT pg_notify(${ATTEMPT_ENDED_CHANNEL}, ${endedPayload(orgId, attemptId)})`);

describe('an attempt heard ending', () => {
  it('wakes every wait on that attempt, and a cancelled wait is forgotten', async () => {
    const first = heardWait('org_a', 'att-1');
    const second = heardWait('org_a', 'att-1');
    const cancelled = heardWait('org_a', 'att-2');
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
    const later = heardWait('org_a', 'att-2');
    await announce('org_a', 'att-2');
    await later.heard;
  });

  it('hears only a few waits at once: one more is left to the update until one of them is heard or cancelled', async () => {
    const waits = Array.from({ length: HEARD_WAITS_AT_MOST }, (_, i) => heardWait('org_c', `att-${i}`));
    expect(endings().ended('org_c', 'att-beyond')).toBeUndefined();
    await announce('org_c', 'att-0');
    await waits[0].heard;
    const next = heardWait('org_c', 'att-next');
    expect(endings().ended('org_c', 'att-beyond')).toBeUndefined();
    // A cancelled wait frees its place; cancelling it again, or one already heard, frees nothing more.
    waits[1].cancel();
    waits[1].cancel();
    waits[0].cancel();
    const last = heardWait('org_c', 'att-last');
    expect(endings().ended('org_c', 'att-beyond')).toBeUndefined();
    for (const wait of [...waits.slice(2), next, last]) wait.cancel();
    heardWait('org_c', 'att-free').cancel();
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
    const waiting = heardWait(t.orgId, attemptId);
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
