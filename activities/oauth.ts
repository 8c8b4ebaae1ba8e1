// OAuth housekeeping activities: the sweep of expired codes, tokens and dead grants. Deletes are
// idempotent, so a retried batch simply finds less to delete.
import type { DatabasePool } from '../runtime/database';
import { sweepOAuthBatch, type SweepCounts } from '../domain/oauth/sweep';

export function oauthActivities(db: DatabasePool) {
  return {
    async sweepOAuthCredentials(batch: number): Promise<SweepCounts> {
      return sweepOAuthBatch(db, batch);
    },
  };
}
