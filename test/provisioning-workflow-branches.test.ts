// The provisioning-run workflow's code update on the real workflow bundle with stub activities, on
// Temporal's time-skipping server. The sign-up step marks the run awaiting its code before the workflow
// hears that the step ended, so a client that sends the code as soon as the run reads so reaches the
// workflow mid-step: here the code is sent from inside the step, the narrowest form of that window.
import { randomBytes } from 'node:crypto';
import { WorkflowUpdateStage, type WorkflowUpdateHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { installRuntime } from '../worker/worker';
import {
  NOT_AWAITING_VERIFICATION,
  provisioningCodeUpdate,
  type CodeAnswer,
  type ProvisioningRunInput,
  type SignupStep,
} from '../contracts/provisioning-messages';

let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;
const taskQueue = `provisioning-branches-${randomBytes(4).toString('hex')}`;
let current: Record<string, (...args: never[]) => unknown> = {};
let calls: string[] = [];
const ACTIVITY_NAMES = [
  'startSandboxSignup',
  'verifySandboxSignup',
  'issueSandboxCredential',
  'endProvisioningRun',
];

beforeAll(async () => {
  installRuntime('ERROR');
  const testServer = process.env.TEMPORAL_TEST_SERVER_PATH;
  env = await TestWorkflowEnvironment.createTimeSkipping(
    testServer ? { server: { executable: { type: 'existing-path', path: testServer } } } : {},
  );
  const activities = Object.fromEntries(
    ACTIVITY_NAMES.map((name) => [
      name,
      async (...args: never[]) => {
        calls.push(name);
        const stub = current[name];
        if (!stub) throw ApplicationFailure.nonRetryable(`no stub for ${name}`, 'no_stub');
        return stub(...args);
      },
    ]),
  );
  worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    activities,
    workflowBundle: { codePath: process.env.GATEWAY_WORKFLOW_BUNDLE! },
  });
  running = worker.run();
});
afterAll(async () => {
  worker?.shutdown();
  await running;
  await env?.teardown();
});

const input: ProvisioningRunInput = { runId: 'prun_1', orgId: 'org_1', projectId: 'prj_1' };

/**
 * Runs the workflow with a sign-up step that sends a code before it returns (what its row already says
 * by then), and answers the code's update and the run's outcome.
 */
async function codeDuringSignup(
  signup: () => SignupStep,
  stubs: Record<string, (...args: never[]) => unknown>,
): Promise<{ answer: Promise<CodeAnswer>; outcome: string }> {
  const workflowId = `provisioning-branch-${randomBytes(4).toString('hex')}`;
  let sent: WorkflowUpdateHandle<CodeAnswer> | undefined;
  current = {
    ...stubs,
    startSandboxSignup: async () => {
      sent = await env.client.workflow.getHandle(workflowId).startUpdate(provisioningCodeUpdate, {
        args: ['sealed-code'],
        waitForStage: WorkflowUpdateStage.ACCEPTED,
      });
      return signup();
    },
  };
  calls = [];
  const outcome = (await env.client.workflow.execute('provisioningRun', {
    taskQueue,
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
    expect(calls).toEqual(['startSandboxSignup', 'verifySandboxSignup', 'issueSandboxCredential']);
  });

  it('is refused as not awaiting when the provider asked for no code', async () => {
    const { answer, outcome } = await codeDuringSignup(() => ({ verification: 'none' }), {
      issueSandboxCredential: () => undefined,
    });
    await expect(answer).rejects.toMatchObject({ cause: { type: NOT_AWAITING_VERIFICATION } });
    expect(outcome).toBe('succeeded');
    expect(calls).toEqual(['startSandboxSignup', 'issueSandboxCredential']);
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
    expect(calls).toEqual(['startSandboxSignup', 'endProvisioningRun']);
  });
});
