// The least a workflow can be: started, one workflow task, completed. Bundled only by the Temporal floor
// benchmark and the attempt-engine bench, never by the gateway's worker.
import {
  allHandlersFinished,
  condition,
  defineUpdate,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';

export async function emptyWorkflow(): Promise<number> {
  return 1;
}

/** The update an attempt's caller waits on, here answered with the workflow's result. */
export const answerUpdate = defineUpdate<number>('answer');

const local = proxyLocalActivities<{ noop(): Promise<number> }>({ startToCloseTimeout: '10 seconds' });

/**
 * The shape of a money attempt with nothing in it: started by Update-with-Start, one local activity, the
 * update answered with its result. What every attempt costs before it does any work of its own.
 */
export async function emptyAttempt(): Promise<number> {
  let result: number | null = null;
  setHandler(answerUpdate, async () => {
    await condition(() => result !== null);
    return result!;
  });
  result = await local.noop();
  await condition(allHandlersFinished);
  return result;
}
