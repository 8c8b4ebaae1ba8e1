// Approvals: a held call waiting for a human. Rows are written when a rule holds a call and moved only by
// the approval-hold workflow (decide, expire, record the replay) or the sweep; every move is guarded by the
// current status so it happens at most once, and writes its event in the same transaction.
import type { ApprovalKind, ApprovalPayloads } from '../../contracts/approval-kinds';
import { APPROVAL_STATUSES } from '../../contracts/approval-view';
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import { notFound } from '../errors';
import { recordEvent, type EventScope } from '../events/record';
import { prefixedId } from '../ids';

export const approvalRow = z.object({
  id: z.string(),
  org_id: z.string(),
  project_id: z.string().nullable(),
  agent_id: z.string(),
  session_id: z.string().nullable(),
  matched_rule_id: z.string().nullable(),
  matched_rule_name: z.string().nullable(),
  tool_name: z.string(),
  tool_input: z.record(z.unknown()),
  kind: z.string(),
  payload: z.record(z.unknown()),
  status: z.enum(APPROVAL_STATUSES),
  created_at: z.string(),
  expires_at: z.string(),
  decided_at: z.string().nullable(),
  decided_by: z.string().nullable(),
  decision_reason: z.string().nullable(),
  executed_at: z.string().nullable(),
  execution_result: z.record(z.unknown()).nullable(),
});
export type ApprovalRow = z.infer<typeof approvalRow>;
type ApprovalStatus = ApprovalRow['status'];

const COLUMNS = sql.fragment`id, org_id, project_id, agent_id, session_id, matched_rule_id, matched_rule_name, tool_name, tool_input, kind, payload,
  status, created_at, expires_at, decided_at, decided_by, decision_reason, executed_at, execution_result`;

export interface NewApproval<K extends ApprovalKind> {
  agentId: string;
  sessionId: string | null;
  /** Null when the hold comes from a limit rather than a policy rule (a mandate's per-transaction cap). */
  ruleId: string | null;
  ruleName: string | null;
  toolName: string;
  toolInput: Record<string, unknown>;
  /** What to replay on approval: a kind the approval workflow knows, and its payload. */
  kind: K;
  payload: ApprovalPayloads[K];
  /** The call that raised the hold; one approval per call, so a retried write finds its row. */
  originRef: string;
  ttlSeconds: number;
}

export async function createApproval<K extends ApprovalKind>(
  tx: CommonQueryMethods,
  scope: EventScope,
  input: NewApproval<K>,
): Promise<ApprovalRow> {
  const existing = await tx.maybeOne(sql.type(approvalRow)`
    SELECT ${COLUMNS} FROM approvals WHERE org_id = ${scope.orgId} AND kind = ${input.kind} AND origin_ref = ${input.originRef}`);
  if (existing) return existing;
  const row = await tx.one(sql.type(approvalRow)`
    INSERT INTO approvals (id, org_id, project_id, agent_id, session_id, matched_rule_id, matched_rule_name, tool_name, tool_input, kind, payload, origin_ref, expires_at)
    VALUES (${prefixedId('apv')}, ${scope.orgId}, ${scope.projectId}, ${input.agentId}, ${input.sessionId}, ${input.ruleId}, ${input.ruleName},
            ${input.toolName}, ${sql.jsonb(input.toolInput as never)}, ${input.kind}, ${sql.jsonb(input.payload as never)}, ${input.originRef},
            now() + make_interval(secs => ${input.ttlSeconds}))
    RETURNING ${COLUMNS}`);
  await recordEvent(tx, scope, 'approval.requested', presentEventData(row));
  return row;
}

export function presentEventData(row: ApprovalRow): Record<string, unknown> {
  return {
    approval_id: row.id,
    status: row.status,
    agent_id: row.agent_id,
    tool_name: row.tool_name,
    matched_rule_id: row.matched_rule_id,
    expires_at: row.expires_at,
    decided_by: row.decided_by,
  };
}

export async function findApproval(
  db: CommonQueryMethods,
  orgId: string,
  id: string,
): Promise<ApprovalRow | null> {
  return db.maybeOne(
    sql.type(approvalRow)`SELECT ${COLUMNS} FROM approvals WHERE org_id = ${orgId} AND id = ${id}`,
  );
}

/** Read by an API key: the approval must belong to the caller's organization and project. */
export async function getApproval(
  db: CommonQueryMethods,
  orgId: string,
  projectId: string,
  id: string,
): Promise<ApprovalRow> {
  const row = await db.maybeOne(sql.type(approvalRow)`
    SELECT ${COLUMNS} FROM approvals WHERE org_id = ${orgId} AND project_id = ${projectId} AND id = ${id}`);
  if (!row) throw notFound('Approval');
  return row;
}

const scopeOf = (row: ApprovalRow, environment: EventScope['environment']): EventScope => ({
  orgId: row.org_id,
  projectId: row.project_id ?? '',
  environment,
});

async function environmentOf(
  tx: CommonQueryMethods,
  projectId: string | null,
): Promise<EventScope['environment']> {
  const env = await tx.maybeOneFirst(
    sql.type(
      z.object({ environment: z.enum(['live', 'test']) }),
    )`SELECT environment FROM projects WHERE id = ${projectId}`,
  );
  return env ?? 'test';
}

/** pending → approved | denied. Returns null when the approval had already left pending (nothing written). */
export async function decideApproval(
  db: DatabasePool,
  orgId: string,
  id: string,
  decision: { approve: boolean; reason: string | null; decidedBy: string },
): Promise<ApprovalRow | null> {
  return db.transaction(async (tx) => {
    const row = await tx.maybeOne(sql.type(approvalRow)`
      UPDATE approvals SET status = ${decision.approve ? 'approved' : 'denied'}, decided_at = now(), decided_by = ${decision.decidedBy},
        decision_reason = ${decision.reason}
      WHERE org_id = ${orgId} AND id = ${id} AND status = 'pending'
      RETURNING ${COLUMNS}`);
    if (!row) return null;
    await recordEvent(
      tx,
      scopeOf(row, await environmentOf(tx, row.project_id)),
      decision.approve ? 'approval.approved' : 'approval.denied',
      presentEventData(row),
    );
    return row;
  });
}

/** pending → expired; returns the row as it stands (a decision that won the race is left alone). */
export async function expireApproval(db: DatabasePool, orgId: string, id: string): Promise<ApprovalRow> {
  return db.transaction(async (tx) => {
    const row = await tx.maybeOne(sql.type(approvalRow)`
      UPDATE approvals SET status = 'expired' WHERE org_id = ${orgId} AND id = ${id} AND status = 'pending' RETURNING ${COLUMNS}`);
    if (row) {
      await recordEvent(
        tx,
        scopeOf(row, await environmentOf(tx, row.project_id)),
        'approval.expired',
        presentEventData(row),
      );
      return row;
    }
    const current = await findApproval(tx, orgId, id);
    if (!current) throw notFound('Approval');
    return current;
  });
}

/** Records the replay of an approved call once: executed_at and execution_result, or execution_failed. */
export async function recordExecution(
  db: DatabasePool,
  orgId: string,
  id: string,
  ok: boolean,
  result: Record<string, unknown>,
): Promise<ApprovalRow> {
  return db.transaction(async (tx) => {
    const row = await tx.maybeOne(sql.type(approvalRow)`
      UPDATE approvals SET executed_at = now(), execution_result = ${sql.jsonb(result as never)}, status = ${ok ? 'approved' : 'execution_failed'}
      WHERE org_id = ${orgId} AND id = ${id} AND status = 'approved' AND executed_at IS NULL
      RETURNING ${COLUMNS}`);
    if (row) {
      await recordEvent(
        tx,
        scopeOf(row, await environmentOf(tx, row.project_id)),
        ok ? 'approval.executed' : 'approval.execution_failed',
        { ...presentEventData(row), execution_result: result },
      );
      return row;
    }
    const current = await findApproval(tx, orgId, id);
    if (!current) throw notFound('Approval');
    return current;
  });
}
