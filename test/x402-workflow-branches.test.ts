// The x402 branch of the link-payment workflow on the real workflow bundle with stub activities, on
// Temporal's time-skipping server: each branch says which activities it called, so the settlement's
// durability is visible on its own: a confirmation lost with its worker is asked again of the chain, and
// the broadcast is never repeated; a reverted or refused settlement releases the reserved use.
import { randomBytes } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { X402_SETTLEMENT_REFUSED, type LinkPaymentInput } from '../contracts/link-payment-messages';
import { startStubWorker, type StubWorker, type Stubs } from './support/stub-worker';

let stubs: StubWorker;
const TX = `0x${'ab'.repeat(32)}`;

beforeAll(async () => {
  stubs = await startStubWorker('x402-branches', [
    'broadcastX402Settlement',
    'confirmX402Settlement',
    'settleLinkPaymentActivity',
    'releaseLinkPaymentActivity',
  ]);
});
afterAll(async () => {
  await stubs?.stop();
});

const input: LinkPaymentInput = {
  paymentId: 'plp_1',
  linkId: 'pl_1',
  orgId: 'org_1',
  projectId: 'prj_1',
  environment: 'test',
  description: 'Agent API credits',
  expiresInSeconds: 300,
  notificationUrl: null,
  rail: 'x402',
};
const run = (branch: Stubs) => {
  stubs.use(branch);
  return stubs.env.client.workflow.execute('linkPayment', {
    taskQueue: stubs.taskQueue,
    workflowId: `x402-branch-${randomBytes(4).toString('hex')}`,
    args: [input],
  }) as Promise<string>;
};
const names = () => stubs.calls.map(([name]) => name);

describe('linkPayment, x402 branch', () => {
  it('asks the chain again after a confirmation lost with its worker, and never broadcasts twice', async () => {
    let confirmations = 0;
    const result = await run({
      broadcastX402Settlement: () => TX,
      confirmX402Settlement: () => {
        // The first worker died while waiting for the receipt: the activity times out or fails and is retried.
        if (++confirmations === 1) throw new Error('worker lost while waiting for the receipt');
        return 'success';
      },
      settleLinkPaymentActivity: () => undefined,
    });
    expect(result).toBe('succeeded');
    expect(names()).toEqual([
      'broadcastX402Settlement',
      'confirmX402Settlement',
      'confirmX402Settlement',
      'settleLinkPaymentActivity',
    ]);
    // Both confirmations asked about the hash recorded before the wait; the payment settles under it.
    expect(stubs.calls.filter(([name]) => name !== 'broadcastX402Settlement').map(([, arg]) => arg)).toEqual([
      { paymentId: 'plp_1', txHash: TX },
      { paymentId: 'plp_1', txHash: TX },
      { paymentId: 'plp_1', providerRef: TX },
    ]);
  });

  it('releases the reserved use when the transfer reverts on chain', async () => {
    const result = await run({
      broadcastX402Settlement: () => TX,
      confirmX402Settlement: () => 'reverted',
      releaseLinkPaymentActivity: () => undefined,
    });
    expect(result).toBe('failed');
    expect(stubs.calls.at(-1)).toEqual([
      'releaseLinkPaymentActivity',
      { paymentId: 'plp_1', outcome: 'failed', reason: 'transaction_reverted' },
    ]);
  });

  it('releases the reserved use, waiting on no receipt, when the settlement is refused', async () => {
    const result = await run({
      broadcastX402Settlement: () => {
        throw ApplicationFailure.nonRetryable(
          'the transfer reverts: authorization is expired',
          X402_SETTLEMENT_REFUSED,
        );
      },
      releaseLinkPaymentActivity: () => undefined,
    });
    expect(result).toBe('failed');
    expect(names()).toEqual(['broadcastX402Settlement', 'releaseLinkPaymentActivity']);
  });
});
