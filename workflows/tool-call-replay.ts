// The replay of a tool call a person approved: one activity makes the held call in its session (a new
// tool call row linked to the approval) and reports its outcome, which the approval stores.
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ToolCallReplayInput, ToolCallReplayResult } from '../activities/tool-calls';

const acts = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  // The activity finds its own earlier row on a retry; a few attempts ride out a restarting worker.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 5 },
});

export async function toolCallReplay(input: ToolCallReplayInput): Promise<ToolCallReplayResult> {
  return acts.replayToolCallActivity(input);
}
