// The scheduled platform-fee sweep (schedule `platform-fee-sweep`, hourly): every organization's tool servers
// move their accrued fees to the organization's platform-fee wallet, as `POST /v1/mcp-servers/platform-fees/sweep`
// does for one organization. The sweep is idempotent, so an overlapping manual sweep is harmless.
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const sweep = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumAttempts: 5 },
});

export async function platformFeeSweep(): Promise<{ moved: number }> {
  return sweep.sweepAllPlatformFees();
}
