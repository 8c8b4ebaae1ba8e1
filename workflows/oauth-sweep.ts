// The OAuth sweep, started hourly by a Temporal Schedule: deletes expired codes and tokens and dead
// grants in batches until a batch comes back short, bounded so one run never grows its history much.
// It is deployment-wide housekeeping with no tenant, so it carries no tenant search attributes.
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { SweepCounts } from '../domain/oauth/sweep';

const { sweepOAuthCredentials } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: {
    initialInterval: '5 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 5,
  },
});

export const OAUTH_SWEEP_BATCH = 1_000;
const MAX_BATCHES_PER_RUN = 50;

export async function oauthCredentialSweep(): Promise<SweepCounts & { batches: number }> {
  const total: SweepCounts = { grants: 0, authorization_codes: 0, access_tokens: 0, refresh_tokens: 0 };
  let batches = 0;
  while (batches < MAX_BATCHES_PER_RUN) {
    const counts = await sweepOAuthCredentials(OAUTH_SWEEP_BATCH);
    batches++;
    for (const kind of Object.keys(total) as Array<keyof SweepCounts>) total[kind] += counts[kind];
    if (Object.values(counts).every((n) => n < OAUTH_SWEEP_BATCH)) break;
  }
  return { ...total, batches };
}
