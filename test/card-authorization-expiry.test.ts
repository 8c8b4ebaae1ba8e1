// An approved card authorization belongs to the engine once decided: its attempt ends through the engine's
// one ending, and its expiry workflow (`card-authorization/<issuer>/<id>`) releases a hold the issuer
// neither captured nor reversed by its expiry. On both Temporal servers the issuer's capture ends the
// workflow early without touching money; on the time-skipping server an authorization left alone is
// released at its expiry (seven days by default, or the issuer's), its event emitted, and a capture that
// arrives after it is forced as a new debit. An expiry whose start failed after the decision (Temporal
// unreachable then) is started by the card expiry sweep, once. Each history is replayed and, when
// recording, saved under test/replay/cards/.
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { sql } from 'slonik';
import { z } from 'zod';
import { workflowIds } from '../contracts/workflow-ids';
import type { IssuerMock } from '../providers/mocks/issuer';
import { afterAnswersSettled } from '../api/after-answer';
import { waitFor } from './support/consents';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';
import {
  localActivities,
  recordedHistories,
  REPLAY_DIR,
  replayBundle,
  replayFinished,
} from './support/histories';
import { fund, newWallet } from './support/money';

const CARDS_REPLAY_DIR = path.join(REPLAY_DIR, 'cards');
const DAY_MS = 24 * 60 * 60 * 1000;

describe.each(TEMPORAL_SERVERS)('card authorization expiry on the %s server', (server) => {
  let gw: Gateway;
  let t: Tenant;
  let issuer: IssuerMock;

  beforeAll(async () => {
    gw = await startGateway({ temporal: server });
    t = await gw.createTenant({ name: 'Card expiry' });
    issuer = gw.mocks.issuer as IssuerMock;
  });
  afterAll(async () => gw?.stop());

  const helper = async (helperPath: string, body: Record<string, unknown> = {}) => {
    const response = await fetch(`${issuer.url}/v1/test_helpers${helperPath}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await response.json()) as Record<string, any>;
  };
  const newCard = async (walletId: string) => {
    const created = await gw.request('POST', '/v1/cards', { key: t.key, body: { wallet_id: walletId } });
    expect(created.status).toBe(201);
    return created.body as { id: string; card_id: string };
  };
  const authorize = (card: { card_id: string }, amount: number, extra: Record<string, unknown> = {}) =>
    helper('/issuing/authorizations', {
      card: card.card_id,
      amount,
      currency: 'brl',
      merchant_data: { category_code: '5734', name: 'Compute Co', network_id: 'mch_compute' },
      ...extra,
    });
  const balances = async (walletId: string) => {
    const wallet = await gw.request('GET', `/v1/wallets/${walletId}`, { key: t.key });
    const brl = wallet.body.balances.find((b: { currency: string }) => b.currency === 'BRL');
    return { balance: brl.balance_minor as string, available: brl.available_minor as string };
  };
  const viewOf = async (card: { id: string }, issuerAuthorizationId: string) =>
    (
      (await gw.request('GET', `/v1/cards/${card.id}/authorizations`, { key: t.key })).body
        .authorizations as Array<Record<string, any>>
    ).find((a) => a.issuer_authorization_id === issuerAuthorizationId)!;
  /** The authorization's expiry workflow, once the route has started it after answering the issuer. */
  const expiryOf = async (issuerAuthorizationId: string) => {
    const workflowId = workflowIds.cardAuthorization('issuer', issuerAuthorizationId);
    await waitFor(() =>
      gw.deps.temporal.client.workflow
        .getHandle(workflowId)
        .describe()
        .then(
          () => true,
          () => false,
        ),
    );
    return workflowId;
  };
  const attemptOf = (issuerAuthorizationId: string) =>
    gw.db.one(sql.type(
      z.object({
        status: z.string(),
        workflow_type: z.string(),
        workflow_id: z.string(),
        response_text: z.string(),
      }),
    )`
      SELECT status, workflow_type, workflow_id, response_text FROM attempts
      WHERE attempt_id = ${`card:${issuerAuthorizationId}`}`);

  it("ends the attempt through the engine's ending, and the issuer's capture ends the expiry early", async () => {
    const walletId = await newWallet(gw, t);
    await fund(gw, t, walletId, 100_00);
    const card = await newCard(walletId);
    const auth = await authorize(card, 30_00);
    expect(auth).toMatchObject({ approved: true, status: 'pending' });
    const workflowId = await expiryOf(auth.id);
    expect(await attemptOf(auth.id)).toEqual({
      status: 'completed',
      workflow_type: 'cardAuthorizationExpiry',
      workflow_id: workflowId,
      response_text: '{"approved":true}',
    });
    const view = await viewOf(card, auth.id);
    expect(Date.parse(view.expires_at) - Date.parse(view.created_at)).toBe(7 * DAY_MS);

    const capture = await helper(`/issuing/authorizations/${auth.id}/capture`, { capture_amount: 30_00 });
    expect(capture.delivered).toEqual([200]);
    const { result, history } = await replayFinished(gw, workflowId, `card-authorization-closed.${server}`, {
      dir: CARDS_REPLAY_DIR,
    });
    expect(result).toEqual({ status: 'closed_by_issuer' });
    expect(localActivities(history)).toEqual([]);
    expect(await balances(walletId)).toEqual({ balance: '7000', available: '7000' });
    expect(await viewOf(card, auth.id)).toMatchObject({ status: 'closed', captured_minor: '3000' });
  });

  it('starts, from the card expiry sweep, an expiry whose start failed after the decision', async () => {
    const walletId = await newWallet(gw, t);
    await fund(gw, t, walletId, 100_00);
    const card = await newCard(walletId);
    // Temporal refuses the expiry's start once, after the decision has committed.
    const workflows = gw.deps.temporal.client.workflow;
    const start = workflows.start.bind(workflows);
    let refused = 0;
    const outage = jest.spyOn(workflows, 'start').mockImplementation(((type: string, options: never) => {
      if (type !== 'cardAuthorizationExpiry' || refused > 0) return start(type, options);
      refused += 1;
      return Promise.reject(new Error('Temporal is unreachable'));
    }) as typeof workflows.start);
    let auth: Record<string, any>;
    try {
      auth = await authorize(card, 30_00);
      await afterAnswersSettled(gw.deps);
    } finally {
      outage.mockRestore();
    }
    expect(auth).toMatchObject({ approved: true, status: 'pending' });
    expect(refused).toBe(1);
    const workflowId = workflowIds.cardAuthorization('issuer', auth.id);
    const exists = () =>
      workflows
        .getHandle(workflowId)
        .describe()
        .then(
          () => true,
          () => false,
        );
    expect(await exists()).toBe(false);
    const noted = () =>
      gw.db.oneFirst(sql.type(z.object({ expiry_started: z.boolean() }))`
        SELECT expiry_started FROM card_authorizations WHERE issuer_authorization_id = ${auth.id}`);
    expect(await noted()).toBe(false);
    // The sweep leaves a decision its route may still be starting alone for half a minute.
    await gw.db.query(sql.unsafe`
      UPDATE card_authorizations SET created_at = created_at - interval '1 minute' WHERE issuer_authorization_id = ${auth.id}`);

    const sweep = (run: string) =>
      workflows.start('cardExpirySweep', {
        taskQueue: gw.taskQueue,
        workflowId: `${workflowIds.cardExpirySweep()}/${server}/${run}`,
        args: [],
      });
    const first = await sweep('first');
    const { result, history } = await replayFinished(
      gw,
      first.workflowId,
      `card-expiry-sweep-started.${server}`,
      { dir: CARDS_REPLAY_DIR },
    );
    expect(result).toEqual({ found: 1, started: 1 });
    expect(history.events?.filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)).toHaveLength(
      1,
    );
    expect(await exists()).toBe(true);
    expect(await noted()).toBe(true);
    // Started once: the next sweep finds nothing.
    expect(await (await sweep('second')).result()).toEqual({ found: 0, started: 0 });

    if (server === 'time-skipping') {
      // Waiting through the test server's client skips its clock to the expiry: the hold is released.
      expect(await gw.env.client.workflow.getHandle(workflowId).result()).toEqual({
        status: 'expired',
        releaseId: expect.any(String),
      });
      expect(await balances(walletId)).toEqual({ balance: '10000', available: '10000' });
      expect(await viewOf(card, auth.id)).toMatchObject({ status: 'expired', held_minor: '0' });
    } else {
      expect(await balances(walletId)).toEqual({ balance: '10000', available: '7000' });
      const capture = await helper(`/issuing/authorizations/${auth.id}/capture`, { capture_amount: 30_00 });
      expect(capture.delivered).toEqual([200]);
      expect(await workflows.getHandle(workflowId).result()).toEqual({ status: 'closed_by_issuer' });
    }
  });

  if (server === 'time-skipping') {
    it('releases an authorization left alone at its expiry, and forces a capture that comes after it', async () => {
      const walletId = await newWallet(gw, t);
      await fund(gw, t, walletId, 100_00);
      const card = await newCard(walletId);
      const auth = await authorize(card, 30_00);
      expect(auth.approved).toBe(true);
      expect(await balances(walletId)).toEqual({ balance: '10000', available: '7000' });
      const workflowId = await expiryOf(auth.id);

      // Waiting through the test server's client skips its clock to the timer: seven days.
      const { result, history } = await replayFinished(
        gw,
        workflowId,
        'card-authorization-expired.time-skipping',
        { skipTime: true, dir: CARDS_REPLAY_DIR },
      );
      expect(result).toEqual({ status: 'expired', releaseId: expect.any(String) });
      expect(localActivities(history)).toEqual(['releaseAttemptIfHeld']);
      expect(await balances(walletId)).toEqual({ balance: '10000', available: '10000' });
      const expired = await viewOf(card, auth.id);
      expect(expired).toMatchObject({ status: 'expired', held_minor: '0', captured_minor: '0' });
      const events = await gw.request('GET', '/v1/events?type=card.authorization.expired', { key: t.key });
      const mine = events.body.events.filter((e: any) => e.data.authorization_id === expired.id);
      expect(mine.map((e: any) => e.data)).toEqual([
        expect.objectContaining({ released_minor: '3000', expired_by: 'gateway', wallet_id: walletId }),
      ]);

      // The network clears it anyway: forced as a new debit while the balance covers it; once only.
      const late = await helper(`/issuing/authorizations/${auth.id}/capture`, {
        capture_amount: 25_00,
        duplicates: 2,
      });
      expect(late.delivered).toEqual([200, 200]);
      expect(await balances(walletId)).toEqual({ balance: '7500', available: '7500' });
      const after = await viewOf(card, auth.id);
      expect(after).toMatchObject({ status: 'expired', held_minor: '0', captured_minor: '2500' });
      expect(after.transactions.map((tx: any) => [tx.type, tx.ledger_minor, tx.unfunded_minor])).toEqual([
        ['capture', '2500', '0'],
      ]);
    });

    it("expires at the issuer's stated expiry rather than the default", async () => {
      const walletId = await newWallet(gw, t);
      await fund(gw, t, walletId, 10_00);
      const card = await newCard(walletId);
      const expiresAt = Math.floor(Date.now() / 1000) + 3600;
      const auth = await authorize(card, 4_00, { expires_at: expiresAt });
      expect(auth.approved).toBe(true);
      const view = await viewOf(card, auth.id);
      expect(Date.parse(view.expires_at)).toBe(expiresAt * 1000);
      const workflowId = await expiryOf(auth.id);
      const handle = gw.env.client.workflow.getHandle(workflowId);
      expect(await handle.result()).toEqual({ status: 'expired', releaseId: expect.any(String) });
      expect(await balances(walletId)).toEqual({ balance: '1000', available: '1000' });
    });
  }
});

describe('recorded card authorization histories', () => {
  it('replay on the current workflow bundle without a determinism error', async () => {
    const histories = recordedHistories(CARDS_REPLAY_DIR).map((r) => ({
      workflowId: r.name,
      history: r.history,
    }));
    expect(histories.map((h) => h.workflowId).sort()).toEqual([
      'card-authorization-closed.dev',
      'card-authorization-closed.time-skipping',
      'card-authorization-expired.time-skipping',
      'card-expiry-sweep-started.dev',
      'card-expiry-sweep-started.time-skipping',
    ]);
    const failures: string[] = [];
    for await (const result of Worker.runReplayHistories(replayBundle(), histories))
      if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
    expect(failures).toEqual([]);
  });
});
