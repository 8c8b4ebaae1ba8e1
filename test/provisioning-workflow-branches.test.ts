// The provisioning-run workflow's code update on the real workflow bundle with stub activities, on
// Temporal's time-skipping server. The sign-up step marks the run awaiting its code before the workflow
// hears that the step ended, so a client that sends the code as soon as the run reads so reaches the
// workflow mid-step: here the code is sent from inside the step, the narrowest form of that window.
import { randomBytes } from 'node:crypto';
import { WorkflowUpdateStage, type WorkflowUpdateHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import {
  NOT_AWAITING_VERIFICATION,
  provisioningCodeUpdate,
  type CodeAnswer,
  type ProvisioningRunInput,
  type SignupStep,
} from '../contracts/provisioning-messages';
import { startStubWorker, type StubWorker, type Stubs } from './support/stub-worker';

let stubs: StubWorker;

beforeAll(async () => {
  stubs = await startStubWorker('provisioning-branches', [
    'startSandboxSignup',
    'verifySandboxSignup',
    'issueSandboxCredential',
    'endProvisioningRun',
  ]);
});
afterAll(async () => {
  await stubs?.stop();
});

const input: ProvisioningRunInput = { runId: 'prun_1', orgId: 'org_1', projectId: 'prj_1' };
const names = () => stubs.calls.map(([name]) => name);

/**
 * Runs the workflow with a sign-up step that sends a code before it returns (what its row already says
 * by then), and answers the code's update and the run's outcome.
 */
async function codeDuringSignup(
  signup: () => SignupStep,
  branch: Stubs,
): Promise<{ answer: Promise<CodeAnswer>; outcome: string }> {
  const workflowId = `provisioning-branch-${randomBytes(4).toString('hex')}`;
  let sent: WorkflowUpdateHandle<CodeAnswer> | undefined;
  stubs.use({
    ...branch,
    startSandboxSignup: async () => {
      sent = await stubs.env.client.workflow.getHandle(workflowId).startUpdate(provisioningCodeUpdate, {
        args: ['sealed-code'],
        waitForStage: WorkflowUpdateStage.ACCEPTED,
      });
      return signup();
    },
  });
  const outcome = (await stubs.env.client.workflow.execute('provisioningRun', {
    taskQueue: stubs.taskQueue,
    workflowId,
    args: [input],
  })) as string;
  return { answer: sent!.result(), outcome };
}

describe('provisioningRun, a code sent while the sign-up step is ending', () => {
  it('waits for the step, then reaches the provider', async () => {
    const { answer, outcome } = await codeDuringSignup(
      () => ({ verification: 'required', expiresInSeconds: 900 }),
      {
        verifySandboxSignup: () => 'accepted',
        issueSandboxCredential: () => undefined,
      },
    );
    await expect(answer).resolves.toEqual({ outcome: 'accepted' });
    expect(outcome).toBe('succeeded');
    expect(names()).toEqual(['startSandboxSignup', 'verifySandboxSignup', 'issueSandboxCredential']);
  });

  it('is refused as not awaiting when the provider asked for no code', async () => {
    const { answer, outcome } = await codeDuringSignup(() => ({ verification: 'none' }), {
      issueSandboxCredential: () => undefined,
    });
    await expect(answer).rejects.toMatchObject({ cause: { type: NOT_AWAITING_VERIFICATION } });
    expect(outcome).toBe('succeeded');
    expect(names()).toEqual(['startSandboxSignup', 'issueSandboxCredential']);
  });

  it('is refused as not awaiting when the sign-up was refused', async () => {
    const { answer, outcome } = await codeDuringSignup(
      () => {
        throw ApplicationFailure.nonRetryable('the email is taken', 'SignupRefused');
      },
      { endProvisioningRun: () => undefined },
    );
    await expect(answer).rejects.toMatchObject({ cause: { type: NOT_AWAITING_VERIFICATION } });
    expect(outcome).toBe('failed');
    expect(names()).toEqual(['startSandboxSignup', 'endProvisioningRun']);
  });
});
