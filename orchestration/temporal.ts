// The one place the gateway calls Temporal's client to start, update, signal or run workflows: typed
// helpers (`start<typeof wf>`) over an Orchestrator (a client and the task queue its workers poll). The use
// cases beside this file (wallet spend, consumer spend, approvals, consents, contact codes, webhook chains,
// schedules) build their options here; api, worker and runtime call the use cases, and domain never does.
import {
  WithStartWorkflowOperation,
  type Client,
  type WorkflowHandle,
  type WorkflowStartOptions,
} from '@temporalio/client';
import type { SignalDefinition, UpdateDefinition, Workflow, WorkflowResultType } from '@temporalio/common';

export interface Orchestrator {
  client: Client;
  taskQueue: string;
}

/** Start options without the task queue, which the orchestrator names. */
export type StartOptions<W extends Workflow> = Omit<WorkflowStartOptions<W>, 'taskQueue'>;

const onQueue = <O extends object>(o: Orchestrator, options: O) => ({ ...options, taskQueue: o.taskQueue });

// Waits on the same workflow's same argument-less update from this process share one call: a crowd of
// presentations of one attempt costs the server one update instead of one each (it refuses more than ten
// in flight on a workflow), and each caller still gets the answer. Keyed per client, so two clients
// (two namespaces) never share.
const waits = new WeakMap<Client, Map<string, Promise<unknown>>>();

function shared<R>(
  o: Orchestrator,
  workflowId: string,
  updateName: string,
  call: () => Promise<R>,
): Promise<R> {
  let inFlight = waits.get(o.client);
  if (!inFlight) waits.set(o.client, (inFlight = new Map()));
  const key = `${workflowId}\u0000${updateName}`;
  const running = inFlight.get(key) as Promise<R> | undefined;
  if (running) return running;
  const answer = call().finally(() => inFlight.delete(key));
  inFlight.set(key, answer);
  return answer;
}

export function start<W extends Workflow>(
  o: Orchestrator,
  workflowType: string,
  options: StartOptions<W>,
): Promise<WorkflowHandle<W>> {
  return o.client.workflow.start<W>(workflowType, onQueue(o, options) as WorkflowStartOptions<W>);
}

/** Starts the workflow and waits for its result. */
export function execute<W extends Workflow>(
  o: Orchestrator,
  workflowType: string,
  options: StartOptions<W>,
): Promise<WorkflowResultType<W>> {
  return o.client.workflow.execute<W>(workflowType, onQueue(o, options) as WorkflowStartOptions<W>);
}

/** Signals the workflow, starting it first when it is not running. */
export async function signalWithStart<W extends Workflow, A extends unknown[]>(
  o: Orchestrator,
  workflowType: string,
  options: Omit<WorkflowStartOptions<W>, 'taskQueue'> & { signal: SignalDefinition<A>; signalArgs: A },
): Promise<void> {
  // The SDK's option type is a conditional one the compiler cannot match to a generic W; the fields are the same.
  await o.client.workflow.signalWithStart(
    workflowType,
    onQueue(o, options) as unknown as Parameters<Client['workflow']['signalWithStart']>[1],
  );
}

/** Sends an update to a running workflow and waits for its result. */
export function update<R>(
  o: Orchestrator,
  workflowId: string,
  definition: UpdateDefinition<R, []>,
): Promise<R>;
export function update<R, A extends [unknown, ...unknown[]]>(
  o: Orchestrator,
  workflowId: string,
  definition: UpdateDefinition<R, A>,
  ...args: A
): Promise<R>;
export function update<R>(
  o: Orchestrator,
  workflowId: string,
  definition: UpdateDefinition<R, never> | UpdateDefinition<R, []>,
  ...args: unknown[]
): Promise<R> {
  const target = o.client.workflow.getHandle(workflowId);
  // The Temporal SDK types executeUpdate's args by the definition's own tuple, which this implementation
  // signature cannot name; the overloads above have matched them.
  return args.length === 0
    ? shared(o, workflowId, definition.name, () =>
        target.executeUpdate(definition as UpdateDefinition<R, []>),
      )
    : target.executeUpdate(definition as unknown as UpdateDefinition<R, [unknown, ...unknown[]]>, {
        args: args as [unknown, ...unknown[]],
      });
}

export async function signal<A extends unknown[]>(
  o: Orchestrator,
  workflowId: string,
  definition: SignalDefinition<A>,
  ...args: A
): Promise<void> {
  await o.client.workflow.getHandle(workflowId).signal(definition, ...args);
}

export function handle<W extends Workflow = Workflow>(
  o: Orchestrator,
  workflowId: string,
): WorkflowHandle<W> {
  return o.client.workflow.getHandle<W>(workflowId);
}

/**
 * Starts the workflow or joins the running one with the same id, then waits on its answer update, in one
 * Update-with-Start call: a round trip saved where the server implements it. A start that joins one already
 * in flight from this process shares its wait (the conflict policy would join the first start anyway).
 */
export function updateWithStart<W extends Workflow, R>(
  o: Orchestrator,
  workflowType: string,
  options: StartOptions<W> & {
    workflowIdConflictPolicy: NonNullable<WorkflowStartOptions['workflowIdConflictPolicy']>;
  },
  definition: UpdateDefinition<R, []>,
): Promise<R> {
  return shared(o, options.workflowId, definition.name, () => {
    const operation = new WithStartWorkflowOperation<W>(
      workflowType,
      onQueue(o, options) as WorkflowStartOptions<W> & {
        workflowIdConflictPolicy: NonNullable<WorkflowStartOptions['workflowIdConflictPolicy']>;
      },
    );
    return o.client.workflow.executeUpdateWithStart(definition, { startWorkflowOperation: operation });
  });
}
