// Provider quarantine: a provider whose last provisioning runs all failed at the provider (no answer, an
// answer outside its protocol) is taken out of provisioning for the whole deployment, and the catalog
// shows it `quarantined`; an operator lifts it. A refusal (the provider said no to this sign-up) is an
// answer, not a fault, and breaks the streak like a success does.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import { notFound } from '../errors';

/** How many failed runs in a row quarantine a provider. */
export const QUARANTINE_AFTER_FAILURES = 3;

/** Failure codes that say the provider is at fault, not the request. */
export const PROVIDER_FAULTS = ['provider_unavailable', 'provider_protocol'] as const;

export async function quarantinedProviders(db: CommonQueryMethods): Promise<ReadonlySet<string>> {
  const rows = await db.anyFirst(sql.type(z.object({ provider: z.string() }))`
    SELECT provider FROM provider_quarantines WHERE lifted_at IS NULL`);
  return new Set(rows);
}

/**
 * After a run of `provider` failed: quarantines the provider when its latest finished runs since its
 * last lift (canceled and expired ones aside, which say nothing of the provider) are all provider
 * faults. Answers the failed runs that tripped it, or null. Takes the caller's transaction.
 */
export async function quarantineIfFailing(
  tx: CommonQueryMethods,
  provider: string,
): Promise<string[] | null> {
  const latest = await tx.any(sql.type(z.object({ id: z.string(), fault: z.boolean() }))`
    SELECT id, (status = 'failed' AND failure_code = ANY(${sql.array([...PROVIDER_FAULTS], 'text')})) AS fault
    FROM provisioning_runs
    WHERE provider = ${provider} AND status IN ('succeeded', 'failed')
      AND finished_at > coalesce((SELECT max(lifted_at) FROM provider_quarantines WHERE provider = ${provider}), '-infinity')
    ORDER BY finished_at DESC, id DESC LIMIT ${QUARANTINE_AFTER_FAILURES}`);
  if (latest.length < QUARANTINE_AFTER_FAILURES || latest.some((run) => !run.fault)) return null;
  const runIds = latest.map((run) => run.id);
  const opened = await tx.maybeOne(sql.type(z.object({ id: z.bigint() }))`
    INSERT INTO provider_quarantines (provider, reason, run_ids)
    VALUES (${provider}, 'consecutive_failures', ${sql.array(runIds, 'text')})
    ON CONFLICT (provider) WHERE lifted_at IS NULL DO NOTHING
    RETURNING id`);
  return opened ? runIds : null;
}

/** An operator lifts a provider's quarantine: runs may start again, and the failure count starts over. */
export async function liftQuarantine(
  db: CommonQueryMethods,
  provider: string,
  liftedBy: string,
): Promise<{ provider: string; quarantined_at: string; lifted_at: string }> {
  const lifted = await db.maybeOne(
    sql.type(z.object({ provider: z.string(), quarantined_at: z.string(), lifted_at: z.string() }))`
    UPDATE provider_quarantines SET lifted_at = now(), lifted_by = ${liftedBy}
    WHERE provider = ${provider} AND lifted_at IS NULL
    RETURNING provider, quarantined_at, lifted_at`,
  );
  if (!lifted) throw notFound('Quarantine');
  return lifted;
}
