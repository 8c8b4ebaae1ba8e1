// Policy rules of a project: create, list in order, read, update, delete and reorder.
import { sql, type FragmentSqlToken, type IdentifierSqlToken } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import { ApiError, notFound } from '../errors';
import { prefixedId } from '../ids';
import type { PolicyType } from '../../schema/policy-config';
import type { Rule } from './evaluate';

export const policyRow = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(['allow', 'deny', 'budget', 'rate-limit', 'time-window', 'approval-required']),
  // Not checked here: a row written before configs were validated must still list, read and be fixed.
  config: z.unknown(),
  agents: z.array(z.string()),
  tools: z.array(z.string()),
  enabled: z.boolean(),
  order: z.number(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type PolicyRow = z.infer<typeof policyRow>;

const COLUMNS = sql.fragment`id, name, type, config, agents, tools, enabled, "order", created_at, updated_at`;

/**
 * A project's rules in order as one jsonb array, for a statement that reads them beside its own work (a tool
 * call's limit count) so the gate needs no read of its own; `rulesOf` turns the array into rules. The org
 * and project are values or columns of the carrying statement.
 */
export function rulesJson(
  orgId: string | IdentifierSqlToken,
  projectId: string | IdentifierSqlToken,
): FragmentSqlToken {
  return sql.fragment`(SELECT coalesce(jsonb_agg(jsonb_build_object('id', id, 'name', name, 'type', type, 'config', config,
      'agents', agents, 'tools', tools, 'enabled', enabled, 'order', "order") ORDER BY "order", id), '[]'::jsonb)
    FROM policies WHERE org_id = ${orgId} AND project_id = ${projectId})`;
}

const rulesArray = z.array(policyRow.omit({ created_at: true, updated_at: true }));
export const rulesOf = (json: unknown): Rule[] =>
  rulesArray.parse(json).map((row) => ({ ...row, config: row.config }));

export interface PolicyInput {
  name: string;
  type: PolicyType;
  config: Record<string, unknown>;
  agents: string[];
  tools: string[];
  enabled: boolean;
}

export async function createPolicy(
  db: DatabasePool,
  orgId: string,
  projectId: string,
  input: PolicyInput,
): Promise<PolicyRow> {
  return db.transaction(async (tx) => {
    // Serialize appends per project so two creates never take the same order.
    await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtextextended(${`policies:${projectId}`}, 0))`);
    return tx.one(sql.type(policyRow)`
      INSERT INTO policies (id, org_id, project_id, name, type, config, agents, tools, enabled, "order")
      VALUES (${prefixedId('pol')}, ${orgId}, ${projectId}, ${input.name}, ${input.type}, ${sql.jsonb(input.config as never)},
              ${sql.array(input.agents, 'text')}, ${sql.array(input.tools, 'text')}, ${input.enabled},
              (SELECT COALESCE(max("order") + 1, 0) FROM policies WHERE org_id = ${orgId} AND project_id = ${projectId}))
      RETURNING ${COLUMNS}`);
  });
}

export async function listPolicies(
  db: CommonQueryMethods,
  orgId: string,
  projectId: string,
): Promise<PolicyRow[]> {
  const rows = await db.any(sql.type(policyRow)`
    SELECT ${COLUMNS} FROM policies WHERE org_id = ${orgId} AND project_id = ${projectId} ORDER BY "order", id`);
  return [...rows];
}

export async function getPolicy(
  db: CommonQueryMethods,
  orgId: string,
  projectId: string,
  id: string,
): Promise<PolicyRow> {
  const row = await db.maybeOne(sql.type(policyRow)`
    SELECT ${COLUMNS} FROM policies WHERE org_id = ${orgId} AND project_id = ${projectId} AND id = ${id}`);
  if (!row) throw notFound('Policy');
  return row;
}

export async function updatePolicy(
  db: CommonQueryMethods,
  orgId: string,
  projectId: string,
  id: string,
  patch: Partial<PolicyInput>,
): Promise<PolicyRow> {
  const current = await getPolicy(db, orgId, projectId, id);
  const next = { ...current, ...patch };
  const row = await db.maybeOne(sql.type(policyRow)`
    UPDATE policies SET name = ${next.name}, type = ${next.type}, config = ${sql.jsonb(next.config as never)},
      agents = ${sql.array(next.agents, 'text')}, tools = ${sql.array(next.tools, 'text')}, enabled = ${next.enabled}, updated_at = now()
    WHERE org_id = ${orgId} AND project_id = ${projectId} AND id = ${id}
    RETURNING ${COLUMNS}`);
  if (!row) throw notFound('Policy');
  return row;
}

export async function deletePolicy(
  db: CommonQueryMethods,
  orgId: string,
  projectId: string,
  id: string,
): Promise<void> {
  const row = await db.maybeOne(
    sql.unsafe`DELETE FROM policies WHERE org_id = ${orgId} AND project_id = ${projectId} AND id = ${id} RETURNING id`,
  );
  if (!row) throw notFound('Policy');
}

/** The listed ids run first, in the given order; the others keep their relative order after them. */
export async function reorderPolicies(
  db: DatabasePool,
  orgId: string,
  projectId: string,
  ids: string[],
): Promise<PolicyRow[]> {
  if (new Set(ids).size !== ids.length)
    throw new ApiError(400, 'invalid_body', 'ids must not repeat', {
      issues: [{ path: '/ids', message: 'must not repeat', keyword: 'uniqueItems' }],
    });
  return db.transaction(async (tx) => {
    await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtextextended(${`policies:${projectId}`}, 0))`);
    const current = await listPolicies(tx, orgId, projectId);
    const known = new Set(current.map((p) => p.id));
    const unknown = ids.filter((id) => !known.has(id));
    if (unknown.length > 0) throw new ApiError(404, 'not_found', 'Policy not found', { ids: unknown });
    const listed = new Set(ids);
    const order = [...ids, ...current.filter((p) => !listed.has(p.id)).map((p) => p.id)];
    await tx.query(sql.unsafe`
      UPDATE policies p SET "order" = o.position - 1, updated_at = now()
      FROM unnest(${sql.array(order, 'text')}::text[]) WITH ORDINALITY AS o(id, position)
      WHERE p.org_id = ${orgId} AND p.project_id = ${projectId} AND p.id = o.id`);
    return listPolicies(tx, orgId, projectId);
  });
}

export function toRule(row: PolicyRow): Rule {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    config: row.config,
    agents: row.agents,
    tools: row.tools,
    enabled: row.enabled,
    order: row.order,
  };
}
