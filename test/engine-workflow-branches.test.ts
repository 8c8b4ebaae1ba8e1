// The money workflows' branches on the real workflow bundle with stub activities, on Temporal's
// time-skipping server: each branch runs in milliseconds and says which activities it called, so a
// change of what a branch does to money (settle, release, hold on) shows here before the full stack runs.
// The one attempt engine (moneyAttempt) is driven for each of its families; spendAttempt and
// consumerSpendAttempt, the types from before it, keep their branches while attempts claimed under them may run.
import { randomBytes } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import type { TermsSummary } from '../domain/consumer-payments/authorize';
import type { SpendAnswer, SpendRequest } from '../contracts/consumer-spend';
import type { Authorization, DispatchStatus, SpendInput, SpendOutcome } from '../contracts/spend';
import type { DispatchResult } from '../activities/consumer-payments';
import { installRuntime } from '../worker/worker';
import { consumerSpendAnswerUpdate, consumerSpendRetryUpdate } from '../contracts/consumer-spend-messages';
import { SEARCH_ATTRIBUTE_FLAGS } from '../contracts/search-attributes';
import { spendOutcomeUpdate } from '../contracts/spend-messages';
import type {
  AttemptAnswer,
  AttemptInput,
  AttemptResult,
  Authorized,
  Looked,
  Sent,
} from '../contracts/attempt';
import {
  AttemptResolveFailure,
  attemptAnswerUpdate,
  attemptResolveUpdate,
  attemptSettlementSignal,
} from '../contracts/attempt-messages';
import type { ToolChargeInput } from '../contracts/tool-charge';
import type { AuditStep } from '../contracts/attempt-audit';
import {
  decideAttempt,
  decideOnce,
  sendAndSettle,
  type DecidingSteps,
  type OnceSteps,
  BEGUN_BEFORE,
} from '../activities/attempts/decide';
import { NOTHING_SENT } from '../activities/attempts/family';
import { localActivities, scheduledActivities } from './support/histories';

let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;
const taskQueue = `branches-${randomBytes(4).toString('hex')}`;
// One worker for the file (the bundle loads once); each test swaps in its own stubs, and notes their calls.
let current: Record<string, (...args: never[]) => unknown> = {};
let calls: string[] = [];
// Whether the send that may not run twice was begun (its mark committed) in the running test.
let begun = false;
const ACTIVITY_NAMES = [
  'authorizeAttempt',
  'sendAttempt',
  'lookupAttempt',
  'settleAttempt',
  'releaseAttempt',
  'releaseAttemptIfHeld',
  'finishAttempt',
  'authorizeSpend',
  'dispatchPayment',
  'paymentStatus',
  'settleSpend',
  'releaseSpend',
  'finishSpend',
  'lookupPixPayee',
  'authorizeConsumerSpend',
  'dispatchConsumerSpend',
  'resolveConsumerDispatch',
  'settleConsumerSpend',
  'releaseConsumerSpend',
  'recordConsumerSpendAnswer',
];

beforeAll(async () => {
  installRuntime('ERROR');
  const testServer = process.env.TEMPORAL_TEST_SERVER_PATH;
  env = await TestWorkflowEnvironment.createTimeSkipping(
    testServer ? { server: { executable: { type: 'existing-path', path: testServer } } } : {},
  );
  const { INDEXED_VALUE_TYPE_KEYWORD, INDEXED_VALUE_TYPE_INT } = temporal.api.enums.v1.IndexedValueType;
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: Object.fromEntries(
      Object.entries(SEARCH_ATTRIBUTE_FLAGS).map(([name, type]) => [
        name,
        type === 'Int' ? INDEXED_VALUE_TYPE_INT : INDEXED_VALUE_TYPE_KEYWORD,
      ]),
    ),
  });
  /** Notes the call and runs the test's stub for it. */
  const call = (name: string, args: never[]) => {
    calls.push(name);
    const stub = current[name];
    if (!stub) throw ApplicationFailure.nonRetryable(`no stub for ${name}`, 'no_stub');
    return stub(...args);
  };
  const activities = Object.fromEntries(
    ACTIVITY_NAMES.map((name) => [name, async (...args: never[]) => call(name, args)]),
  );
  // The folded step of an idempotent send is the real one, made of the stubs (their calls are noted).
  const noted =
    <R>(name: string) =>
    async (...args: unknown[]): Promise<R> =>
      (await call(name, args as never[])) as R;
  type SoFar = Parameters<typeof sendAndSettle>[2];
  const deciding: DecidingSteps = {
    authorizeAttempt: noted('authorizeAttempt'),
    sendAttempt: noted('sendAttempt'),
    settleAttempt: noted('settleAttempt'),
    releaseAttempt: noted('releaseAttempt'),
  };
  // A send that may not run twice is begun as the family begins it: its mark first (the test's `beginSend`
  // stub may break it), null once begun, then the send, whose failure once started is an unknown outcome.
  const once: OnceSteps = {
    ...deciding,
    sendAttemptOnce: async (attempt, how) => {
      if (current.beginSend) await call('beginSend', []);
      if (begun) return null;
      begun = true;
      let sent: Sent;
      try {
        sent = await deciding.sendAttempt(attempt, { ...how, resent: false });
      } catch (error) {
        return { status: 'unknown', message: (error as Error).message };
      }
      // The test's `loseRun` stub loses the step's run once the call went out (a worker lost).
      if (current.loseRun) await call('loseRun', []);
      return sent;
    },
  };
  worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    activities: {
      ...activities,
      decideAttempt: (attempt: AttemptInput) => decideAttempt(deciding, attempt),
      decideOnceAttempt: (attempt: AttemptInput) => decideOnce(once, attempt),
      sendAndSettleAttempt: ({ attempt, ...sofar }: { attempt: AttemptInput } & SoFar) =>
        sendAndSettle(deciding, attempt, sofar),
    },
    workflowBundle: { codePath: process.env.GATEWAY_WORKFLOW_BUNDLE! },
  });
  running = worker.run();
});
afterAll(async () => {
  worker?.shutdown();
  await running;
  await env?.teardown();
});

/** Runs `body` against the file's worker with these stubs as its activities; answers what it returned and the calls made. */
async function withStubs<T>(
  stubs: Record<string, (...args: never[]) => unknown>,
  body: (queue: string) => Promise<T>,
): Promise<{ result: T; calls: string[] }> {
  current = stubs;
  calls = [];
  begun = false;
  const result = await body(taskQueue);
  return { result, calls: [...calls] };
}

/** A provider call that never answered: the workflow sees the activity fail (no retries here, to stay fast). */
const unanswered = () => {
  throw ApplicationFailure.nonRetryable('payment provider unreachable', 'provider_unavailable');
};

const workflowId = (label: string) => `branch-${label}-${randomBytes(4).toString('hex')}`;

const req = (over: Partial<SpendRequest> = {}): SpendRequest => ({
  orgId: 'org_1',
  projectId: 'prj_1',
  environment: 'test',
  requestId: 'req_1',
  attemptId: 'att_1',
  callerAttempt: true,
  workflowId: 'consumer-spend/org_1/att_1',
  dispatchKey: 'key_1',
  fingerprint: 'f',
  rail: 'pix',
  amountMinor: '2500',
  currency: 'BRL',
  payee: 'loja@example.com',
  payeeCanonical: 'pix:email:loja@example.com',
  pix: { key: 'loja@example.com', keyType: 'email', txid: null, merchantName: null, codeAmountMinor: null },
  ted: null,
  purpose: 'Weekly groceries',
  agentId: 'agent-7',
  signature: 'a'.repeat(64),
  mandate: {},
  mandateId: 'mnd_1',
  quote: null,
  approval: null,
  actor: null,
  sessionId: null,
  approvedBy: null,
  preAudit: [],
  ...over,
});

describe('moneyAttempt, the one engine', () => {
  const spend: SpendInput = {
    orgId: 'org_1',
    projectId: 'prj_1',
    environment: 'test',
    attemptId: 'att-e1',
    walletId: 'wal_1',
    agentId: 'agent-1',
    amountMinor: '1234',
    currency: 'BRL',
    recipient: 'merchant-42',
    description: 'Office supplies',
    mandateId: 'mdt_1',
    purpose: null,
    preferredMethod: null,
    targetCurrency: null,
    metadata: {},
    requestId: 'req_1',
  };
  const charge: ToolChargeInput = {
    orgId: 'org_1',
    projectId: 'prj_1',
    environment: 'test',
    attemptId: 'att-e2',
    walletId: 'wal_1',
    agentId: 'agent-1',
    toolName: 'freight.quote',
    upstreamTool: 'quote',
    arguments: { from: 'SP', to: 'RJ' },
    serverId: 'tsv_1',
    serverOrgId: 'org_2',
    serverProjectId: 'prj_2',
    payoutWalletId: 'wal_2',
    feeWalletId: 'wal_3',
    priceMinor: '25',
    currency: 'BRL',
    platformFeeBps: 1500,
    requestId: 'req_2',
  };
  const wallet: AttemptInput = { family: 'wallet_execute', input: spend };
  const tool: AttemptInput = { family: 'tool_charge', input: charge };
  const step = (name: string): AuditStep[] => [
    { timestamp: '2026-01-01T00:00:00.000Z', step: name, status: 'pass', detail: name },
  ];
  const steps = {
    authorizeAttempt: (): Authorized => ({ kind: 'held', holdId: 'hld_1', steps: step('hold') }),
    settleAttempt: ({ finish }: { finish?: AttemptResult }) => ({
      // The step that settles stores the result too: it is given the result so far.
      debitId: finish?.wallet.holdId === 'hld_1' ? '7' : 'not given the result so far',
      paymentId: 'mpay_1',
      output: null,
      split: null,
      steps: step('debit'),
    }),
    releaseAttempt: ({
      sent,
      finish,
    }: {
      sent: Extract<Sent, { status: 'refused' }>;
      finish?: AttemptResult;
    }) => ({
      releaseId: finish?.wallet.holdId === 'hld_1' ? '8' : 'not given the result so far',
      failure: { code: sent.code, message: sent.message },
      output: null,
      steps: step('release'),
    }),
    releaseAttemptIfHeld: () => ({ releaseId: '9', steps: step('release') }),
    finishAttempt: () => undefined,
  };
  const start = (taskQueue: string, attempt: AttemptInput) =>
    env.client.workflow.start('moneyAttempt', {
      taskQueue,
      workflowId: workflowId('engine'),
      args: [attempt],
    });
  const run = async (taskQueue: string, attempt: AttemptInput) =>
    (await (await start(taskQueue, attempt)).result()) as AttemptResult;
  const uncertain = (message: string): Looked => ({ sent: { status: 'uncertain', message }, steps: [] });

  describe.each([
    ['wallet execute', wallet],
    ['paid tool call', tool],
  ])('for a %s', (_family, attempt) => {
    it('settles the hold once the send succeeded, and stores the result once', async () => {
      const { result, calls } = await withStubs(
        { ...steps, sendAttempt: (): Sent => ({ status: 'succeeded', paymentId: 'mpay_1', output: null }) },
        (q) => run(q, attempt),
      );
      expect(result).toMatchObject({ status: 'completed', wallet: { holdId: 'hld_1', debitId: '7' } });
      expect(result.audit.map((s) => s.step)).toEqual(['hold', 'debit']);
      expect(calls).toEqual(['authorizeAttempt', 'sendAttempt', 'settleAttempt']);
    });

    it('releases the hold when the send was refused', async () => {
      const { result, calls } = await withStubs(
        {
          ...steps,
          sendAttempt: (): Sent => ({
            status: 'refused',
            code: 'card_declined',
            message: 'no',
            output: null,
          }),
        },
        (q) => run(q, attempt),
      );
      expect(result).toMatchObject({
        status: 'failed',
        failure: { code: 'card_declined' },
        wallet: { releaseId: '8' },
      });
      expect(calls).toEqual(['authorizeAttempt', 'sendAttempt', 'releaseAttempt']);
    });

    it('sends nothing when the authorization refused before any hold', async () => {
      const { result, calls } = await withStubs(
        {
          ...steps,
          authorizeAttempt: (): Authorized => ({
            kind: 'refused',
            insufficientFunds: true,
            failure: null,
            steps: [],
          }),
        },
        (q) => run(q, attempt),
      );
      expect(result).toMatchObject({ status: 'failed', wallet: { insufficientFunds: true, holdId: null } });
      expect(calls).toEqual(['authorizeAttempt', 'finishAttempt']);
    });

    it('releases what the authorization may hold when it breaks before the send, and fails the attempt', async () => {
      const { result, calls } = await withStubs(
        {
          ...steps,
          authorizeAttempt: () => {
            throw ApplicationFailure.nonRetryable('wallet vanished', 'not_found');
          },
        },
        (q) => run(q, attempt),
      );
      expect(result).toMatchObject({
        status: 'failed',
        failure: { code: 'attempt_failed' },
        wallet: { releaseId: '9' },
      });
      expect(calls).toEqual(['authorizeAttempt', 'releaseAttemptIfHeld', 'finishAttempt']);
    });

    it('settles a send whose answer never came once the status lookup finds it made', async () => {
      const { result, calls } = await withStubs(
        {
          ...steps,
          sendAttempt: unanswered,
          lookupAttempt: (): Looked => ({
            sent: { status: 'succeeded', paymentId: 'mpay_2', output: null },
            steps: [],
          }),
        },
        (q) => run(q, attempt),
      );
      expect(result.status).toBe('completed');
      expect(calls).toEqual(['authorizeAttempt', 'sendAttempt', 'lookupAttempt', 'settleAttempt']);
    });

    it('keeps the hold while the lookup cannot say, asking again each time the attempt is presented', async () => {
      let asked = 0;
      const stubs = {
        ...steps,
        sendAttempt: unanswered,
        lookupAttempt: (): Looked =>
          ++asked === 1
            ? uncertain('status answered 503')
            : {
                sent: {
                  status: 'refused',
                  code: 'provider_unreachable',
                  message: 'never received',
                  output: null,
                },
                steps: [],
              },
      };
      const { result, calls } = await withStubs(stubs, async (q) => {
        const handle = await start(q, attempt);
        expect(await handle.executeUpdate(attemptAnswerUpdate)).toEqual({
          status: 'uncertain',
          detail: 'status answered 503',
        } satisfies AttemptAnswer);
        expect(await handle.executeUpdate(attemptAnswerUpdate)).toMatchObject({ status: 'failed' });
        return (await handle.result()) as AttemptResult;
      });
      expect(result).toMatchObject({ status: 'failed', failure: { code: 'provider_unreachable' } });
      expect(calls).toEqual([
        'authorizeAttempt',
        'sendAttempt',
        'lookupAttempt',
        'lookupAttempt',
        'releaseAttempt',
      ]);
    });
  });

  it('settles a paid call someone who knows resolved as succeeded, answering the settled result', async () => {
    const { result, calls } = await withStubs(
      { ...steps, sendAttempt: unanswered, lookupAttempt: () => uncertain('connection dropped') },
      async (q) => {
        const handle = await start(q, tool);
        expect(await handle.executeUpdate(attemptAnswerUpdate)).toMatchObject({ status: 'uncertain' });
        const settled = await handle.executeUpdate(attemptResolveUpdate, {
          args: [{ outcome: 'succeeded', resolvedBy: 'key:k1' }],
        });
        expect(settled).toMatchObject({ status: 'completed' });
        return (await handle.result()) as AttemptResult;
      },
    );
    expect(result.audit.map((s) => s.step)).toEqual(['hold', 'resolve', 'debit']);
    expect(calls).toEqual(['authorizeAttempt', 'sendAttempt', 'lookupAttempt', 'settleAttempt']);
  });

  it('releases a paid call resolved as failed', async () => {
    const { result, calls } = await withStubs(
      { ...steps, sendAttempt: unanswered, lookupAttempt: () => uncertain('connection dropped') },
      async (q) => {
        const handle = await start(q, tool);
        await handle.executeUpdate(attemptAnswerUpdate);
        await handle.executeUpdate(attemptResolveUpdate, {
          args: [{ outcome: 'failed', resolvedBy: 'key:k1' }],
        });
        return (await handle.result()) as AttemptResult;
      },
    );
    expect(result).toMatchObject({ status: 'failed', wallet: { releaseId: '8' } });
    expect(calls).toEqual(['authorizeAttempt', 'sendAttempt', 'lookupAttempt', 'releaseAttempt']);
  });

  it("folds a wallet execute's authorization, send and settlement into one step, going on from a settlement that failed in it", async () => {
    let settles = 0;
    let history: Awaited<ReturnType<WorkflowHandle['fetchHistory']>> | null = null;
    const { result, calls } = await withStubs(
      {
        ...steps,
        sendAttempt: (): Sent => ({ status: 'succeeded', paymentId: 'mpay_1', output: null }),
        settleAttempt: (after: { finish?: AttemptResult }) => {
          if (++settles === 1) throw new Error('connection reset');
          return steps.settleAttempt(after);
        },
      },
      async (q) => {
        const handle = await start(q, wallet);
        const done = (await handle.result()) as AttemptResult;
        history = await handle.fetchHistory();
        return done;
      },
    );
    expect(result).toMatchObject({ status: 'completed', wallet: { holdId: 'hld_1', debitId: '7' } });
    expect(result.audit.map((s) => s.step)).toEqual(['hold', 'debit']);
    // Sent once: the settlement is retried on its own, never the send.
    expect(calls).toEqual(['authorizeAttempt', 'sendAttempt', 'settleAttempt', 'settleAttempt']);
    expect(localActivities(history!)).toEqual(['decideAttempt', 'settleAttempt']);
  });

  it('settles a paid call in the one step that authorized and sent it, going on from a settlement that failed in it', async () => {
    let settles = 0;
    let history: Awaited<ReturnType<WorkflowHandle['fetchHistory']>> | null = null;
    const { result, calls } = await withStubs(
      {
        ...steps,
        sendAttempt: (): Sent => ({ status: 'succeeded', paymentId: null, output: { ok: true } }),
        settleAttempt: (after: { finish?: AttemptResult }) => {
          if (++settles === 1) throw new Error('connection reset');
          return steps.settleAttempt(after);
        },
      },
      async (q) => {
        const handle = await start(q, tool);
        const done = (await handle.result()) as AttemptResult;
        history = await handle.fetchHistory();
        return done;
      },
    );
    expect(result).toMatchObject({ status: 'completed', wallet: { holdId: 'hld_1', debitId: '7' } });
    // Sent once: the settlement is retried on its own, never the send.
    expect(calls).toEqual(['authorizeAttempt', 'sendAttempt', 'settleAttempt', 'settleAttempt']);
    expect(localActivities(history!)).toEqual(['decideOnceAttempt', 'settleAttempt']);
    expect(scheduledActivities(history!)).toEqual([]);
  });

  it('releases a paid call whose step broke after its mark but before the call started, sending nothing', async () => {
    const { result, calls } = await withStubs(
      {
        ...steps,
        beginSend: () => {
          throw ApplicationFailure.nonRetryable('nothing sent: the vault refused', NOTHING_SENT);
        },
        sendAttempt: (): Sent => ({ status: 'succeeded', paymentId: null, output: { ok: true } }),
      },
      (q) => run(q, tool),
    );
    expect(result).toMatchObject({
      status: 'failed',
      failure: {
        code: 'attempt_failed',
        message: expect.stringContaining('nothing sent: the vault refused'),
      },
      wallet: { holdId: null, releaseId: '9' },
    });
    expect(calls).toEqual(['authorizeAttempt', 'beginSend', 'releaseAttemptIfHeld', 'finishAttempt']);
  });

  it('runs the step again when it broke before its mark, and sends the call once', async () => {
    let begins = 0;
    const { result, calls } = await withStubs(
      {
        ...steps,
        beginSend: () => {
          if (++begins === 1) throw new Error('connection reset');
        },
        sendAttempt: (): Sent => ({ status: 'succeeded', paymentId: null, output: { ok: true } }),
      },
      (q) => run(q, tool),
    );
    expect(result).toMatchObject({ status: 'completed', wallet: { debitId: '7' } });
    expect(calls).toEqual([
      'authorizeAttempt',
      'beginSend',
      'authorizeAttempt',
      'beginSend',
      'sendAttempt',
      'settleAttempt',
    ]);
  });

  it('looks up a paid call whose step was lost after its send, never sending it again', async () => {
    let sends = 0;
    const { result, calls } = await withStubs(
      {
        ...steps,
        sendAttempt: (): Sent => {
          sends++;
          return { status: 'succeeded', paymentId: null, output: { ok: true } };
        },
        // The step's run is lost once the call went out, before its settlement: the step runs again.
        loseRun: () => {
          if (calls.filter((name) => name === 'loseRun').length === 1)
            throw ApplicationFailure.retryable('worker lost', 'lost');
        },
        lookupAttempt: ({ message }: { message: string }): Looked => uncertain(message),
      },
      async (q) => {
        const handle = await start(q, tool);
        // The run after the lost one finds the mark: the outcome is unknown, and asked for.
        expect(await handle.executeUpdate(attemptAnswerUpdate)).toEqual({
          status: 'uncertain',
          detail: BEGUN_BEFORE,
        } satisfies AttemptAnswer);
        await handle.executeUpdate(attemptResolveUpdate, {
          args: [{ outcome: 'succeeded', resolvedBy: 'key:k1' }],
        });
        return (await handle.result()) as AttemptResult;
      },
    );
    expect(sends).toBe(1);
    expect(result).toMatchObject({ status: 'completed' });
    expect(result.audit.map((s) => s.step)).toEqual(['hold', 'resolve', 'debit']);
    expect(calls).toEqual([
      'authorizeAttempt',
      'sendAttempt',
      'loseRun',
      'authorizeAttempt',
      'lookupAttempt',
      'settleAttempt',
    ]);
  });

  it('refuses a resolution of a wallet execute: only its provider says what became of a payment', async () => {
    let asked = 0;
    const { calls } = await withStubs(
      {
        ...steps,
        sendAttempt: unanswered,
        lookupAttempt: (): Looked =>
          ++asked === 1
            ? uncertain('status answered 503')
            : { sent: { status: 'succeeded', paymentId: 'mpay_4', output: null }, steps: [] },
      },
      async (q) => {
        const handle = await start(q, wallet);
        await handle.executeUpdate(attemptAnswerUpdate);
        await expect(
          handle.executeUpdate(attemptResolveUpdate, {
            args: [{ outcome: 'failed', resolvedBy: 'user:bob' }],
          }),
        ).rejects.toMatchObject({ cause: { type: AttemptResolveFailure.NotUncertain } });
        expect(await handle.executeUpdate(attemptAnswerUpdate)).toMatchObject({ status: 'completed' });
        return handle.result();
      },
    );
    expect(calls).toEqual([
      'authorizeAttempt',
      'sendAttempt',
      'lookupAttempt',
      'lookupAttempt',
      'settleAttempt',
    ]);
  });
});

describe('moneyAttempt for a consumer spend', () => {
  const attempt: AttemptInput = { family: 'consumer_spend', input: req() };
  const carry = {
    terms: {
      mandateId: 'mnd_1',
      consumerId: 'cns_1',
      currency: 'BRL',
      capMinor: '50000',
      nonce: 'n',
      scope: 's',
      signature: 'a'.repeat(64),
    },
    sourceAccount: null,
  };
  const stored = (status: SpendAnswer['status'], httpStatus = 200): SpendAnswer => ({
    httpStatus,
    status,
    body: { status },
  });
  const uncertain: Looked = {
    sent: { status: 'uncertain', message: 'no answer' },
    steps: [],
    answer: stored('dispatch_uncertain', 502),
  };
  const steps = {
    authorizeAttempt: (): Authorized => ({ kind: 'held', holdId: 'hld_1', steps: [], carry }),
    settleAttempt: () => ({
      debitId: '7',
      paymentId: 'p1',
      output: null,
      split: null,
      steps: [],
      answer: stored('completed'),
    }),
    releaseAttempt: ({ sent }: { sent: Extract<Sent, { status: 'refused' }> }) => ({
      releaseId: '',
      failure: { code: sent.code, message: sent.message },
      output: null,
      steps: [],
      answer: stored('failed', sent.code === 'not_received' ? 502 : 422),
    }),
  };
  const start = (taskQueue: string) =>
    env.client.workflow.start('moneyAttempt', {
      taskQueue,
      workflowId: workflowId('consumer-engine'),
      args: [attempt],
    });

  it('answers the refusal the family stored, sending nothing and storing nothing more', async () => {
    const { result, calls } = await withStubs(
      {
        authorizeAttempt: (): Authorized => ({
          kind: 'refused',
          insufficientFunds: false,
          failure: { code: 'pix_key_not_found', message: 'no key' },
          steps: [],
          answer: stored('refused', 422),
        }),
      },
      async (q) => (await (await start(q)).result()) as AttemptResult,
    );
    expect(result).toMatchObject({ status: 'failed', answer: { httpStatus: 422, status: 'refused' } });
    expect(calls).toEqual(['authorizeAttempt']);
  });

  it('waits for a send accepted as processing, and settles it once its settlement notice has it looked up', async () => {
    const { result, calls } = await withStubs(
      {
        ...steps,
        sendAttempt: (): Sent => ({ status: 'processing', paymentId: 'p1' }),
        lookupAttempt: ({ reason }: { reason: string }): Looked => ({
          sent: { status: 'succeeded', paymentId: `p1 after ${reason}`, output: null },
          steps: [],
        }),
      },
      async (q) => {
        const handle = await start(q);
        await handle.signal(attemptSettlementSignal);
        return (await handle.result()) as AttemptResult;
      },
    );
    expect(result).toMatchObject({ status: 'completed', answer: { status: 'completed' } });
    expect(calls).toEqual(['authorizeAttempt', 'sendAttempt', 'lookupAttempt', 'settleAttempt']);
  });

  it('answers the stored psp_dispatch_uncertain, and sends again only what the provider never received once presented', async () => {
    const sends: boolean[] = [];
    const lookups: Array<{ round: number; presented: boolean }> = [];
    const stubs = {
      ...steps,
      sendAttempt: (_attempt: AttemptInput, how: { resent: boolean }): Sent => {
        sends.push(how.resent);
        return sends.length === 1
          ? { status: 'unknown', message: 'no answer' }
          : { status: 'succeeded', paymentId: 'p1', output: null };
      },
      lookupAttempt: (asked: { round: number; presented: boolean }): Looked => {
        lookups.push({ round: asked.round, presented: asked.presented });
        return asked.round === 0 ? uncertain : { sent: { status: 'not_received' }, steps: [] };
      },
    };
    const { result, calls } = await withStubs(stubs, async (q) => {
      const handle = await start(q);
      expect(await handle.executeUpdate(attemptAnswerUpdate)).toEqual({
        status: 'uncertain',
        detail: 'no answer',
        answer: stored('dispatch_uncertain', 502),
      } satisfies AttemptAnswer);
      expect(await handle.executeUpdate(attemptAnswerUpdate)).toMatchObject({ status: 'completed' });
      return (await handle.result()) as AttemptResult;
    });
    expect(result.status).toBe('completed');
    expect(sends).toEqual([false, true]);
    expect(lookups).toEqual([
      { round: 0, presented: false },
      { round: 1, presented: true },
    ]);
    expect(calls).toEqual([
      'authorizeAttempt',
      'sendAttempt',
      'lookupAttempt',
      'lookupAttempt',
      'sendAttempt',
      'settleAttempt',
    ]);
  });

  it('releases a send the provider never received when nobody presented it again', async () => {
    const { result, calls } = await withStubs(
      {
        ...steps,
        sendAttempt: (): Sent => ({ status: 'unknown', message: 'no answer' }),
        lookupAttempt: ({ round }: { round: number }): Looked =>
          round === 0 ? uncertain : { sent: { status: 'not_received' }, steps: [] },
      },
      // Waiting on the result skips the test server's clock past the engine's recheck.
      async (q) => (await (await start(q)).result()) as AttemptResult,
    );
    expect(result).toMatchObject({ status: 'failed', failure: { code: 'not_received' } });
    expect(calls).toEqual([
      'authorizeAttempt',
      'sendAttempt',
      'lookupAttempt',
      'lookupAttempt',
      'releaseAttempt',
    ]);
  });

  it('looks up what an earlier run may have sent before sending, and sends what never arrived once', async () => {
    const { result, calls } = await withStubs(
      {
        ...steps,
        authorizeAttempt: (): Authorized => ({
          kind: 'held',
          holdId: 'hld_1',
          steps: [],
          carry,
          resumed: true,
        }),
        lookupAttempt: (): Looked => ({ sent: { status: 'not_received' }, steps: [] }),
        sendAttempt: (): Sent => ({ status: 'succeeded', paymentId: 'p1', output: null }),
      },
      async (q) => (await (await start(q)).result()) as AttemptResult,
    );
    expect(result.status).toBe('completed');
    expect(calls).toEqual(['authorizeAttempt', 'lookupAttempt', 'sendAttempt', 'settleAttempt']);
  });

  it('repeats the answer another run stored, doing nothing again', async () => {
    const { result, calls } = await withStubs(
      {
        authorizeAttempt: (): Authorized => ({
          kind: 'answered',
          status: 'completed',
          answer: stored('completed'),
          steps: [],
        }),
      },
      async (q) => (await (await start(q)).result()) as AttemptResult,
    );
    expect(result).toMatchObject({ status: 'completed', answer: { status: 'completed' } });
    expect(calls).toEqual(['authorizeAttempt']);
  });
});

describe('spendAttempt (wallet execute, the type from before the engine)', () => {
  const input: SpendInput = {
    orgId: 'org_1',
    projectId: 'prj_1',
    environment: 'test',
    attemptId: 'att-1',
    walletId: 'wal_1',
    agentId: 'agent-1',
    amountMinor: '1234',
    currency: 'BRL',
    recipient: 'merchant-42',
    description: 'Office supplies',
    mandateId: 'mdt_1',
    purpose: null,
    preferredMethod: null,
    targetCurrency: null,
    metadata: {},
    requestId: 'req_1',
  };
  const held: Authorization = { kind: 'held', holdId: 'hld_1', evaluationId: 'pev_1', ruleId: null };
  const ledger = {
    authorizeSpend: (): Authorization => held,
    settleSpend: () => ({ debitId: '7' }),
    releaseSpend: () => ({ releaseId: '8' }),
    finishSpend: () => undefined,
  };
  const run = (taskQueue: string, id = workflowId('spend')) =>
    env.client.workflow.execute('spendAttempt', {
      taskQueue,
      workflowId: id,
      args: [input],
    }) as Promise<SpendOutcome>;

  it('debits the hold once the provider pays', async () => {
    const { result, calls } = await withStubs(
      { ...ledger, dispatchPayment: () => ({ status: 'succeeded', paymentId: 'mpay_1' }) },
      (q) => run(q),
    );
    expect([result.status, result.providerPaymentId]).toEqual(['completed', 'mpay_1']);
    expect(calls).toEqual(['authorizeSpend', 'dispatchPayment', 'settleSpend', 'finishSpend']);
  });

  it('releases the hold when the provider refuses', async () => {
    const { result, calls } = await withStubs(
      {
        ...ledger,
        dispatchPayment: () => ({ status: 'refused', code: 'card_declined', message: 'declined' }),
      },
      (q) => run(q),
    );
    expect([result.status, (result.body.failure as { code: string }).code]).toEqual([
      'failed',
      'card_declined',
    ]);
    expect(calls).toEqual(['authorizeSpend', 'dispatchPayment', 'releaseSpend', 'finishSpend']);
  });

  it('holds nothing and dispatches nothing when the hold finds too little money', async () => {
    const { result, calls } = await withStubs(
      {
        ...ledger,
        authorizeSpend: (): Authorization => ({
          kind: 'insufficient_funds',
          evaluationId: 'pev_1',
          available: '10',
        }),
        dispatchPayment: () => ({ status: 'succeeded', paymentId: 'x' }),
      },
      (q) => run(q),
    );
    expect([result.status, (result.body.wallet as { insufficientFunds: boolean }).insufficientFunds]).toEqual(
      ['failed', true],
    );
    expect(calls).toEqual(['authorizeSpend', 'finishSpend']);
  });

  it('debits a payment the provider made without answering, found by the status call', async () => {
    const stubs = {
      ...ledger,
      dispatchPayment: unanswered,
      paymentStatus: (): DispatchStatus => ({ status: 'succeeded', paymentId: 'mpay_2' }),
    };
    const { result, calls } = await withStubs(stubs, (q) => run(q));
    expect([result.status, result.providerPaymentId]).toEqual(['completed', 'mpay_2']);
    expect(calls).toEqual([
      'authorizeSpend',
      'dispatchPayment',
      'paymentStatus',
      'settleSpend',
      'finishSpend',
    ]);
  });

  it('releases only when the provider says it never received the payment', async () => {
    const stubs = {
      ...ledger,
      dispatchPayment: unanswered,
      paymentStatus: (): DispatchStatus => ({ status: 'not_received' }),
    };
    const { result, calls } = await withStubs(stubs, (q) => run(q));
    expect([result.status, (result.body.failure as { code: string }).code]).toEqual([
      'failed',
      'provider_unreachable',
    ]);
    expect(calls).toEqual([
      'authorizeSpend',
      'dispatchPayment',
      'paymentStatus',
      'releaseSpend',
      'finishSpend',
    ]);
  });

  it('keeps the hold while the provider cannot say, and asks again when the attempt is presented again', async () => {
    let answers = 0;
    const stubs = {
      ...ledger,
      dispatchPayment: unanswered,
      paymentStatus: (): DispatchStatus =>
        ++answers === 1
          ? { status: 'uncertain', message: 'status answered 503' }
          : { status: 'succeeded', paymentId: 'mpay_3' },
    };
    const id = workflowId('uncertain');
    const { result, calls } = await withStubs(stubs, async (q) => {
      const handle = await env.client.workflow.start('spendAttempt', {
        taskQueue: q,
        workflowId: id,
        args: [input],
      });
      const first = await handle.executeUpdate(spendOutcomeUpdate);
      expect(first).toEqual({ status: 'provider_uncertain', detail: 'status answered 503' });
      const again = await handle.executeUpdate(spendOutcomeUpdate);
      expect(again).toMatchObject({ status: 'completed', providerPaymentId: 'mpay_3' });
      return (await handle.result()) as SpendOutcome;
    });
    expect(result.status).toBe('completed');
    expect(calls).toEqual([
      'authorizeSpend',
      'dispatchPayment',
      'paymentStatus',
      'paymentStatus',
      'settleSpend',
      'finishSpend',
    ]);
  });
});

describe('consumerSpendAttempt (consumer spend, the type from before the engine)', () => {
  const terms = (funding: TermsSummary['funding']): TermsSummary => ({
    mandateId: 'mnd_1',
    consumerId: 'cns_1',
    currency: 'BRL',
    capMinor: '50000',
    nonce: 'n',
    scope: 's',
    signature: 'a'.repeat(64),
    funding,
    fundingSourceId: 'cfs_1',
  });
  const answer = (status: SpendAnswer['status'], httpStatus = 200): SpendAnswer => ({
    httpStatus,
    status,
    body: { status },
  });
  const steps = {
    lookupPixPayee: () => ({ found: true, ownerName: 'Loja', ispb: '60701190' }),
    authorizeConsumerSpend: () => ({
      kind: 'held',
      holdId: 'hld_1',
      audit: [],
      terms: terms('sub_account'),
      sourceAccount: null,
      retried: false,
    }),
    settleConsumerSpend: () => answer('completed'),
    releaseConsumerSpend: () => answer('failed', 422),
    recordConsumerSpendAnswer: () => undefined,
  };
  const run = (taskQueue: string, request = req()) =>
    env.client.workflow.execute('consumerSpendAttempt', {
      taskQueue,
      workflowId: workflowId('consumer'),
      args: [request],
    }) as Promise<SpendAnswer>;

  it('refuses a Pix key DICT does not know before anything is authorized', async () => {
    const { result, calls } = await withStubs({ ...steps, lookupPixPayee: () => ({ found: false }) }, (q) =>
      run(q),
    );
    expect([result.httpStatus, (result.body.error as { code: string }).code]).toEqual([
      422,
      'pix_key_not_found',
    ]);
    expect(calls).toEqual(['lookupPixPayee', 'recordConsumerSpendAnswer']);
  });

  it('settles what the provider settled, and releases what it refused', async () => {
    const settled = await withStubs(
      {
        ...steps,
        dispatchConsumerSpend: (): DispatchResult => ({
          kind: 'settled',
          settlement: {
            providerPaymentId: 'p1',
            endToEndId: null,
            settledAt: '2026-01-01T00:00:00Z',
            chargedMinor: null,
          },
        }),
      },
      (q) => run(q),
    );
    expect(settled.result.status).toBe('completed');
    expect(settled.calls).toEqual([
      'lookupPixPayee',
      'authorizeConsumerSpend',
      'dispatchConsumerSpend',
      'settleConsumerSpend',
    ]);
    const refused = await withStubs(
      {
        ...steps,
        dispatchConsumerSpend: (): DispatchResult => ({
          kind: 'refused',
          refusal: { status: 422, code: 'psp_refused', message: 'no' },
        }),
      },
      (q) => run(q),
    );
    expect(refused.result.status).toBe('failed');
    expect(refused.calls).toEqual([
      'lookupPixPayee',
      'authorizeConsumerSpend',
      'dispatchConsumerSpend',
      'releaseConsumerSpend',
    ]);
  });

  it("pulls a pix-consent spend through the consumer's funding source, and a partner-account spend through none", async () => {
    const seen: Array<{ fundingSourceId?: string | null }> = [];
    const dispatch = (input: { fundingSourceId?: string | null }): DispatchResult => {
      seen.push(input);
      return {
        kind: 'settled',
        settlement: {
          providerPaymentId: 'p2',
          endToEndId: null,
          settledAt: '2026-01-01T00:00:00Z',
          chargedMinor: null,
        },
      };
    };
    await withStubs(
      {
        ...steps,
        authorizeConsumerSpend: () => ({ ...steps.authorizeConsumerSpend(), terms: terms('consent_pull') }),
        dispatchConsumerSpend: dispatch as never,
      },
      (q) => run(q),
    );
    await withStubs({ ...steps, dispatchConsumerSpend: dispatch as never }, (q) => run(q));
    expect(seen.map((s) => s.fundingSourceId)).toEqual(['cfs_1', null]);
  });

  it('answers psp_dispatch_uncertain, holds on, and settles once the attempt is presented again', async () => {
    let asked = 0;
    const stubs = {
      ...steps,
      dispatchConsumerSpend: (): DispatchResult => ({ kind: 'uncertain', detail: 'no answer' }),
      resolveConsumerDispatch: (): DispatchResult => (
        ++asked,
        {
          kind: 'settled',
          settlement: {
            providerPaymentId: 'p3',
            endToEndId: null,
            settledAt: '2026-01-01T00:00:00Z',
            chargedMinor: null,
          },
        }
      ),
      recordConsumerSpendAnswer: () => undefined,
    };
    const { result, calls } = await withStubs(stubs, async (q) => {
      const handle = await env.client.workflow.start('consumerSpendAttempt', {
        taskQueue: q,
        workflowId: workflowId('uncertain'),
        args: [req()],
      });
      const first = await handle.executeUpdate(consumerSpendAnswerUpdate);
      expect([first.httpStatus, first.status]).toEqual([502, 'dispatch_uncertain']);
      expect(asked).toBe(0);
      const again = await handle.executeUpdate(consumerSpendRetryUpdate);
      expect(again.status).toBe('completed');
      return (await handle.result()) as SpendAnswer;
    });
    expect(result.status).toBe('completed');
    expect(asked).toBe(1);
    expect(calls).toEqual([
      'lookupPixPayee',
      'authorizeConsumerSpend',
      'dispatchConsumerSpend',
      'recordConsumerSpendAnswer',
      'resolveConsumerDispatch',
      'settleConsumerSpend',
    ]);
  });
});
