// Registers the hourly OAuth sweep as a Temporal Schedule, once per deployment: every API process
// calls this at start, and all but the first find it already there. Overlapping runs are skipped.
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { workflowIds } from '../contracts/workflow-ids';

export async function ensureOAuthSweepSchedule(
  client: Client,
  taskQueue: string,
): Promise<'created' | 'exists'> {
  try {
    await client.schedule.create({
      scheduleId: workflowIds.oauthSweepSchedule(),
      spec: { intervals: [{ every: '1 hour' }] },
      action: {
        type: 'startWorkflow',
        workflowType: 'oauthCredentialSweep',
        taskQueue,
        workflowId: workflowIds.oauthSweep(),
        workflowExecutionTimeout: '30 minutes',
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
    });
    return 'created';
  } catch (error) {
    if (error instanceof ScheduleAlreadyRunning) return 'exists';
    throw error;
  }
}
