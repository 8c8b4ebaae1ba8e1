// The two moments of a paid call whose upstream answer never came, each written with its event in the
// transaction that makes it: the charge turns uncertain (the hold stays; the tenant is told), and it is
// resolved by someone who knows what the upstream did (who and how are kept on the charge, written once, in
// the settle or release transaction, so the event exists exactly when the money moved).
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import { recordEvent, type EventScope } from '../events/record';
import type { ToolChargeInput, ToolChargeResolution } from '../../contracts/tool-charge';

export const chargeId = (seq: bigint | string): string => `tch_${seq.toString()}`;

const tenantScope = (input: ToolChargeInput): EventScope => ({
  orgId: input.serverOrgId,
  projectId: input.serverProjectId,
  environment: input.environment,
});

/** The facts a tenant's webhook receiver needs to find the call; never the caller's arguments. */
function chargeFacts(input: ToolChargeInput, seq: bigint) {
  return {
    charge_id: chargeId(seq),
    attempt_id: input.attemptId,
    tool_server_id: input.serverId,
    // Endpoints narrowed by `server_id` name a server as sessions do: by its slug.
    server_id: input.toolName.slice(0, input.toolName.length - input.upstreamTool.length - 1),
    tool: input.toolName,
    price_minor: input.priceMinor,
    currency: input.currency,
    caller_project_id: input.projectId,
  };
}

/**
 * Marks a held charge uncertain (once: a retried activity finds it so and writes no second event), and
 * answers the charge's status before: `debited` or `released` when the step that sent the call moved its
 * money before its own answer was lost, which is then known, not uncertain.
 */
export async function markToolChargeUncertain(
  db: DatabasePool,
  input: ToolChargeInput,
): Promise<string | null> {
  return db.transaction(async (tx) => {
    const found = await tx.maybeOne(sql.type(z.object({ status: z.string(), seq: z.bigint().nullable() }))`
      WITH marked AS (
        UPDATE tool_server_charges SET status = 'uncertain', uncertain_at = now()
        WHERE org_id = ${input.orgId} AND attempt_id = ${input.attemptId} AND status = 'held'
        RETURNING seq)
      SELECT c.status, (SELECT seq FROM marked) AS seq FROM tool_server_charges c
      WHERE c.org_id = ${input.orgId} AND c.attempt_id = ${input.attemptId}`);
    if (found?.seq != null)
      await recordEvent(tx, tenantScope(input), 'tool_charge.uncertain', chargeFacts(input, found.seq));
    return found?.status ?? null;
  });
}

/**
 * Keeps who resolved the charge and how, inside the settle or release transaction that moved the money;
 * `settled` is what that transaction made of it.
 */
export async function recordToolChargeResolution(
  tx: CommonQueryMethods,
  input: ToolChargeInput,
  resolution: ToolChargeResolution,
  settled: { status: 'completed' | 'failed'; tenantShareMinor?: string; feeMinor?: string },
): Promise<void> {
  const seq = await tx.maybeOneFirst(sql.type(z.object({ seq: z.bigint() }))`
    UPDATE tool_server_charges
    SET resolved_outcome = ${resolution.outcome}, resolved_by = ${resolution.resolvedBy}, resolved_at = now()
    WHERE org_id = ${input.orgId} AND attempt_id = ${input.attemptId} AND resolved_outcome IS NULL
    RETURNING seq`);
  if (seq === null) return;
  await recordEvent(tx, tenantScope(input), 'tool_charge.resolved', {
    ...chargeFacts(input, seq),
    outcome: resolution.outcome,
    resolved_by: resolution.resolvedBy,
    status: settled.status,
    ...(settled.tenantShareMinor !== undefined
      ? { tenant_share_minor: settled.tenantShareMinor, fee_minor: settled.feeMinor }
      : {}),
  });
}
