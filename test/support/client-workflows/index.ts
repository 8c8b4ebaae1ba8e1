// A workflow that answers updates the ways the gateway's workflows do (a refusal, a wait), for the tests
// that compare the errors of the Temporal clients. Bundled only by those tests, never by the worker.
import { ApplicationFailure, condition, defineSignal, defineUpdate, setHandler } from '@temporalio/workflow';

export const refuse = defineUpdate<string>('refuse');
export const waitForRelease = defineUpdate<string>('waitForRelease');
export const release = defineSignal('release');

/** Runs until released; `refuse` fails with a business failure, `waitForRelease` answers once released. */
export async function holder(): Promise<string> {
  let released = false;
  setHandler(refuse, () => {
    throw ApplicationFailure.nonRetryable('refused', 'test_refusal');
  });
  setHandler(waitForRelease, async () => {
    await condition(() => released);
    return 'released';
  });
  setHandler(release, () => {
    released = true;
  });
  await condition(() => released);
  return 'done';
}
