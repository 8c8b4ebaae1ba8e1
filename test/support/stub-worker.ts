// A workflow of the real bundle run on Temporal's time-skipping server against stub activities: a test sets
// the stubs its branch needs and reads which activities ran, in order, with their first argument. One
// worker per file (the bundle loads once); an activity without a stub fails the workflow at once.
import { randomBytes } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { installRuntime } from '../../worker/worker';

export type Stubs = Record<string, (...args: never[]) => unknown>;

export interface StubWorker {
  env: TestWorkflowEnvironment;
  taskQueue: string;
  /** Every activity call since the last `use`: its name and first argument. */
  readonly calls: Array<[string, unknown]>;
  /** Sets the stubs of the next run and forgets the calls noted so far. */
  use(stubs: Stubs): void;
  stop(): Promise<void>;
}

export async function startStubWorker(prefix: string, activityNames: readonly string[]): Promise<StubWorker> {
  installRuntime('ERROR');
  const testServer = process.env.TEMPORAL_TEST_SERVER_PATH;
  const env = await TestWorkflowEnvironment.createTimeSkipping(
    testServer ? { server: { executable: { type: 'existing-path', path: testServer } } } : {},
  );
  const taskQueue = `${prefix}-${randomBytes(4).toString('hex')}`;
  let current: Stubs = {};
  let calls: Array<[string, unknown]> = [];
  const activities = Object.fromEntries(
    activityNames.map((name) => [
      name,
      async (...args: never[]) => {
        calls.push([name, args[0]]);
        const stub = current[name];
        if (!stub) throw ApplicationFailure.nonRetryable(`no stub for ${name}`, 'no_stub');
        return stub(...args);
      },
    ]),
  );
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    activities,
    workflowBundle: { codePath: process.env.GATEWAY_WORKFLOW_BUNDLE! },
  });
  const running = worker.run();
  return {
    env,
    taskQueue,
    get calls() {
      return calls;
    },
    use(stubs) {
      current = stubs;
      calls = [];
    },
    async stop() {
      worker.shutdown();
      await running;
      await env.teardown();
    },
  };
}
