// The readiness probe: one worker probe workflow per request, waited on at most `timeoutMs`, so an
// operator learns that a worker polls and reaches PostgreSQL (or gets 503 worker_unavailable).
import type { ProbeResult } from '../contracts/probe';
import { workflowIds } from '../contracts/workflow-ids';
import type { workerProbe } from '../workflows/probe';
import { runWorkflowBounded } from './bounded';
import type { Orchestrator } from './temporal';

export async function runWorkerProbe(
  o: Orchestrator,
  requestId: string,
  timeoutMs: number,
): Promise<{ workflowId: string; result: ProbeResult }> {
  const workflowId = workflowIds.probe(requestId);
  const result = await runWorkflowBounded<typeof workerProbe>(
    o,
    'workerProbe',
    { workflowId, args: [], timeoutMs },
    'the probe',
  );
  return { workflowId, result };
}
