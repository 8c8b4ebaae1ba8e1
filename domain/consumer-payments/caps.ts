// Cumulative and periodic mandate caps, counted atomically: under a per-mandate advisory lock each
// attempt reserves its amount before any money step, so concurrent spends see each other's
// reservations and can never exceed a cap together. A settled attempt's reservation becomes `spent`;
// one that moved no money is `released` and stops counting.
import { sql, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import type { EventScope } from '../events/record';

const WINDOWS: Record<string, number> = {
  hour: 3_600,
  day: 86_400,
  daily: 86_400,
  week: 604_800,
  weekly: 604_800,
  month: 2_592_000,
  monthly: 2_592_000,
};

export function windowSeconds(window: string): number | null {
  return WINDOWS[window] ?? (/^\d+s$/.test(window) ? Number(window.slice(0, -1)) : null);
}

export type CapVerdict =
  | { ok: true; cumulativeAfter: bigint; periodicAfter: bigint | null }
  | {
      ok: false;
      code: 'cumulative_cap_exceeded' | 'periodic_cap_exceeded';
      capMinor: bigint;
      usedMinor: bigint;
    };

/** Pure: would this amount, on top of what is already reserved or spent, stay within both caps? */
export function judgeCaps(
  amount: bigint,
  caps: { capMinor: bigint; periodicCapMinor: bigint | null },
  used: { cumulative: bigint; periodic: bigint },
): CapVerdict {
  if (used.cumulative + amount > caps.capMinor)
    return {
      ok: false,
      code: 'cumulative_cap_exceeded',
      capMinor: caps.capMinor,
      usedMinor: used.cumulative,
    };
  if (caps.periodicCapMinor !== null && used.periodic + amount > caps.periodicCapMinor) {
    return {
      ok: false,
      code: 'periodic_cap_exceeded',
      capMinor: caps.periodicCapMinor,
      usedMinor: used.periodic,
    };
  }
  return {
    ok: true,
    cumulativeAfter: used.cumulative + amount,
    periodicAfter: caps.periodicCapMinor === null ? null : used.periodic + amount,
  };
}

const usage = z.object({ mine: z.string().nullable(), cumulative: z.bigint(), periodic: z.bigint() });

/**
 * Reserves the attempt's amount if both caps allow it; a retry of an attempt that already reserved
 * gets its reservation back without counting twice. Call inside the authorizing transaction.
 */
export async function reserveCaps(
  tx: CommonQueryMethods,
  scope: EventScope,
  input: {
    mandateId: string;
    currency: string;
    attemptId: string;
    amountMinor: bigint;
    capMinor: bigint;
    periodic: { window: string; capMinor: bigint } | null;
  },
): Promise<CapVerdict> {
  await tx.query(
    sql.unsafe`SELECT pg_advisory_xact_lock(hashtextextended(${`mandate-cap:${scope.orgId}:${input.mandateId}`}, 0))`,
  );
  // Read after the lock (a statement of its own, so it sees every reservation committed before it): this
  // attempt's own reservation, and what the others use.
  const seconds = input.periodic ? (windowSeconds(input.periodic.window) ?? 86_400) : 0;
  const { mine, ...used } = await tx.one(sql.type(usage)`
    SELECT (SELECT status FROM mandate_cap_reservations WHERE org_id = ${scope.orgId} AND attempt_id = ${input.attemptId}) AS mine,
           COALESCE(sum(amount_minor), 0)::bigint AS cumulative,
           COALESCE(sum(amount_minor) FILTER (WHERE created_at > now() - make_interval(secs => ${seconds})), 0)::bigint AS periodic
    FROM mandate_cap_reservations
    WHERE org_id = ${scope.orgId} AND mandate_id = ${input.mandateId} AND currency = ${input.currency} AND status <> 'released'
      AND attempt_id <> ${input.attemptId}`);
  const verdict = judgeCaps(
    input.amountMinor,
    { capMinor: input.capMinor, periodicCapMinor: input.periodic?.capMinor ?? null },
    used,
  );
  if (!verdict.ok) return verdict;
  if (!mine) {
    await tx.query(sql.unsafe`
      INSERT INTO mandate_cap_reservations (org_id, attempt_id, project_id, mandate_id, currency, amount_minor)
      VALUES (${scope.orgId}, ${input.attemptId}, ${scope.projectId}, ${input.mandateId}, ${input.currency}, ${input.amountMinor.toString()})`);
  } else if (mine === 'released') {
    await tx.query(
      sql.unsafe`UPDATE mandate_cap_reservations SET status = 'held', resolved_at = NULL, created_at = now(), budget_agent_id = NULL WHERE org_id = ${scope.orgId} AND attempt_id = ${input.attemptId}`,
    );
  }
  return verdict;
}

/**
 * Makes the attempt's held reservation count against its agent's budgets: a consented pull holds no money in
 * the ledger while in flight, so its reservation stands for its hold until it is spent or released.
 */
export async function countForBudgets(
  tx: CommonQueryMethods,
  scope: Pick<EventScope, 'orgId' | 'projectId'>,
  attemptId: string,
  agentId: string,
): Promise<void> {
  await tx.query(sql.unsafe`
    UPDATE mandate_cap_reservations SET budget_agent_id = ${agentId}
    WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND attempt_id = ${attemptId} AND status = 'held'`);
}

/** The reservation's end (spent or released), for a statement that writes it beside its own work. */
export function reservationEnd(
  scope: Pick<EventScope, 'orgId' | 'projectId'>,
  attemptId: string,
  to: 'spent' | 'released',
): FragmentSqlToken {
  return sql.fragment`
    UPDATE mandate_cap_reservations SET status = ${to}, resolved_at = now()
    WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND attempt_id = ${attemptId} AND status = 'held'`;
}

export async function resolveReservation(
  tx: CommonQueryMethods,
  scope: EventScope,
  attemptId: string,
  to: 'spent' | 'released',
): Promise<void> {
  await tx.query(sql.unsafe`${reservationEnd(scope, attemptId, to)}`);
}
