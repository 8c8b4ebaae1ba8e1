// Creates the gateway worker: one task queue, the prebuilt workflow bundle, activities with their deps.
import { installJsonParse } from '../contracts/json-parse';
import { PAYLOAD_CONVERTER_PATH } from './bundle';
import {
  DefaultLogger,
  Runtime,
  Worker,
  type NativeConnection,
  type WorkflowBundleOption,
} from '@temporalio/worker';
import { createActivities } from '../activities';
import type { ActivityDeps } from '../activities/deps';
import { activityLogs } from '../runtime/telemetry/activity-logs';
import { activityTracing, workflowSpanSinks } from '../runtime/telemetry/worker-tracing';

export interface WorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  bundle: WorkflowBundleOption;
  deps: ActivityDeps;
}

let runtimeInstalled = false;

/**
 * Keeps the SDK's core logs at warn so a dev terminal shows the gateway's own lines; with an address, the
 * SDK serves its own worker metrics (task latencies, slots, polls) there in Prometheus format.
 */
export function installRuntime(level: 'WARN' | 'ERROR' = 'WARN', metricsAddress?: string): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({
    logger: new DefaultLogger(level),
    telemetryOptions: {
      logging: { filter: level, forward: {} },
      ...(metricsAddress
        ? {
            metrics: {
              prometheus: {
                bindAddress: metricsAddress,
                countersTotalSuffix: true,
                useSecondsForDurations: true,
              },
            },
          }
        : {}),
    },
  });
}

export async function createWorker(options: WorkerOptions): Promise<Worker> {
  installJsonParse(); // activity inputs, stored documents and provider answers; workflows read through the bundle's converter
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    workflowBundle: options.bundle,
    dataConverter: { payloadConverterPath: PAYLOAD_CONVERTER_PATH },
    activities: createActivities(options.deps),
    interceptors: { activity: [activityTracing, activityLogs(options.deps.log)] },
    sinks: workflowSpanSinks(),
    maxCachedWorkflows: options.deps.config.temporal.maxCachedWorkflows,
  });
}
