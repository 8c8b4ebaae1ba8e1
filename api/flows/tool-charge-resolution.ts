// The one resolve path for a paid call whose upstream answer never came, shared by the tenant's route, the
// operator API and the operator console: the charge's row says whether there is anything to resolve, the
// workflow (through orchestration) moves the money and answers the settled outcome within a bounded wait,
// and a repeat of the same resolution answers the settled charge. Temporal's refusals are told apart by
// failure type, never by message text.
import { ApiError } from '../../domain/errors';
import type { ToolChargeResolution } from '../../contracts/tool-charge';
import { findCharge, type ChargeListRow } from '../../domain/tool-servers/charge-list';
import { ATTEMPT_WORKFLOW } from '../../contracts/attempt';
import { AttemptResolveFailure } from '../../contracts/attempt-messages';
import { readAttempt } from '../../domain/attempts/store';
import { attemptWorkflowId, resolveAttempt } from '../../orchestration/attempts';
import { resolveLegacyToolCharge } from '../../orchestration/legacy-attempts';
import { isWorkflowMissing, updateFailure } from '../../orchestration/errors';
import { SYNC_WAIT_MS } from '../attempt-engine';
import type { AppDeps } from '../deps';

const SETTLED = new Set(['debited', 'released', 'refused']);

export interface ResolvedCharge {
  charge: ChargeListRow;
  /** False when the money had not moved within the wait (the resolution is accepted; it will). */
  settled: boolean;
}

function notUncertain(row: ChargeListRow): ApiError {
  const why =
    row.resolved_outcome !== null
      ? `it was already resolved as ${row.resolved_outcome}`
      : SETTLED.has(row.status)
        ? "it was settled by the upstream's own answer"
        : 'its upstream call is still under way';
  return new ApiError(409, 'charge_not_uncertain', `The charge is not waiting for a resolution: ${why}`, {
    status: row.status === 'debited' ? 'completed' : SETTLED.has(row.status) ? 'failed' : row.status,
    resolved_outcome: row.resolved_outcome,
  });
}

/** The same resolution again answers the settled charge; anything else settled or not held is refused. */
function settledAnswer(row: ChargeListRow, resolution: ToolChargeResolution): ResolvedCharge | null {
  if (SETTLED.has(row.status) && row.resolved_outcome === resolution.outcome)
    return { charge: row, settled: true };
  if (row.status !== 'uncertain') throw notUncertain(row);
  return null;
}

async function current(deps: Pick<AppDeps, 'db'>, row: ChargeListRow): Promise<ChargeListRow> {
  return (await findCharge(deps.db, `tch_${row.seq.toString()}`)) ?? row;
}

export async function resolveHeldCharge(
  deps: Pick<AppDeps, 'db' | 'temporal'>,
  row: ChargeListRow,
  resolution: ToolChargeResolution,
): Promise<ResolvedCharge> {
  const early = settledAnswer(row, resolution);
  if (early) return early;
  // A call claimed under the workflow type from before the engine takes its resolution through its own
  // message (refused with the same failure types).
  const attempt = await readAttempt(deps.db, row.org_id, row.attempt_id);
  const answer: Promise<unknown> =
    attempt && attempt.workflow_type !== ATTEMPT_WORKFLOW
      ? resolveLegacyToolCharge(deps.temporal, attempt.workflow_id, resolution)
      : resolveAttempt(
          deps.temporal,
          attemptWorkflowId('tool_charge', row.org_id, row.attempt_id),
          resolution,
        );
  answer.catch(() => undefined); // an abandoned wait must not become an unhandled rejection
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'waiting'>((resolve) => {
    timer = setTimeout(() => resolve('waiting'), SYNC_WAIT_MS);
  });
  try {
    const settled = await Promise.race([answer, timeout]);
    const after = await current(deps, row);
    return { charge: after, settled: settled !== 'waiting' && SETTLED.has(after.status) };
  } catch (error) {
    const failure = updateFailure(error);
    const known =
      failure?.type === AttemptResolveFailure.NotUncertain ||
      failure?.type === AttemptResolveFailure.ResolvedOtherwise;
    if (!known && !isWorkflowMissing(error)) throw error;
    if (failure?.type === AttemptResolveFailure.ResolvedOtherwise) {
      const first = (failure.details?.[0] as { outcome?: string } | undefined)?.outcome ?? null;
      throw notUncertain({ ...row, resolved_outcome: first as ChargeListRow['resolved_outcome'] });
    }
    // Refused by the workflow, or it has closed: the row says what happened.
    const after = await current(deps, row);
    const again = settledAnswer(after, resolution);
    if (again) return again;
    throw new ApiError(
      503,
      'charge_unavailable',
      "The charge's workflow cannot take the resolution now (it is not running); retry shortly",
    );
  } finally {
    clearTimeout(timer);
  }
}
