// The worker probe: proves end to end that a worker polls the task queue and its activities reach
// PostgreSQL. Operators run it from GET /v1/ops/readiness; it holds no state and finishes at once.
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ProbeResult } from '../contracts/probe';

const { probeDatabase } = proxyActivities<Activities>({
  startToCloseTimeout: '5 seconds',
  retry: { maximumAttempts: 2 },
});

export async function workerProbe(): Promise<ProbeResult> {
  return probeDatabase();
}
