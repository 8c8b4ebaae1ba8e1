// Registers the money areas' Temporal Schedules once per deployment (every API process calls this at start;
// all but the first find them there): the approval sweep every minute and wallet reconciliation hourly, the
// card expiry sweep every minute.
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { workflowIds } from '../contracts/workflow-ids';

const SCHEDULES = [
  {
    scheduleId: workflowIds.approvalSweepSchedule(),
    every: '1 minute',
    workflowType: 'approvalSweep',
    workflowId: workflowIds.approvalSweep(),
    timeout: '5 minutes',
  },
  {
    scheduleId: workflowIds.reconciliationSweepSchedule(),
    every: '1 hour',
    workflowType: 'reconciliationSweep',
    workflowId: workflowIds.reconciliationSweep(),
    timeout: '50 minutes',
  },
  {
    scheduleId: 'platform-fee-sweep',
    every: '1 hour',
    workflowType: 'platformFeeSweep',
    workflowId: 'platform-fee-sweep/run',
    timeout: '30 minutes',
  },
  {
    scheduleId: workflowIds.cardExpirySweepSchedule(),
    every: '1 minute',
    workflowType: 'cardExpirySweep',
    workflowId: workflowIds.cardExpirySweep(),
    timeout: '5 minutes',
  },
] as const;

export async function ensureMoneySchedules(
  client: Client,
  taskQueue: string,
): Promise<Record<string, 'created' | 'exists'>> {
  const result: Record<string, 'created' | 'exists'> = {};
  for (const schedule of SCHEDULES) {
    try {
      await client.schedule.create({
        scheduleId: schedule.scheduleId,
        spec: { intervals: [{ every: schedule.every }] },
        action: {
          type: 'startWorkflow',
          workflowType: schedule.workflowType,
          taskQueue,
          workflowId: schedule.workflowId,
          workflowExecutionTimeout: schedule.timeout,
        },
        policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '10 minutes' },
      });
      result[schedule.scheduleId] = 'created';
    } catch (error) {
      if (!(error instanceof ScheduleAlreadyRunning)) throw error;
      result[schedule.scheduleId] = 'exists';
    }
  }
  return result;
}
