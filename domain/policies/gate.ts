// The policy gate: inside the caller's transaction, serializes one agent's calls, loads the rules and the
// usage counters they need (ledger spend for budgets, allowed calls for rate limits), decides, and writes
// exactly one evaluation row. A budget counts the spend of every agent it names, so a call that may spend
// under one also takes that budget's lock. Holding the locks until commit (the caller posts its hold in the
// same transaction) keeps budgets and rate limits exact under races.
import { sql, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import { sortableId } from '../ids';
import {
  BUDGET_WINDOWS,
  usableConfig,
  type BudgetConfig,
  type RateLimitConfig,
} from '../../schema/policy-config';
import { evaluate, ruleApplies, type CallContext, type Decision, type Rule, type Usage } from './evaluate';
import { matchesAny } from './glob';
import { listPolicies, rulesJson, rulesOf, toRule } from './policies';

export interface GateResult {
  decision: Decision;
  evaluationId: string;
  /** With `writeLater`: the evaluation row's insert, for the caller to write in its next statement. */
  evaluation?: FragmentSqlToken;
}

const agentSum = z.object({ agent: z.string(), total: z.bigint() });
const toolCount = z.object({ tool_name: z.string(), n: z.number() });

async function budgetSpend(
  tx: CommonQueryMethods,
  orgId: string,
  projectId: string,
  config: BudgetConfig,
  agents: string[],
): Promise<bigint> {
  const seconds = BUDGET_WINDOWS[config.window];
  // Debits and fees in the window, plus open holds and the held reservations of consented pulls in flight
  // (which hold no money); transfers between the project's own wallets are not spend. A spend counts for
  // the agent it was decided as (its entry's, or its hold entry's, agent_id), whichever wallet paid; one no
  // agent made counts for its wallet's agent. One statement, so one snapshot: a hold settled, or a pull's
  // reservation spent, between two reads would be in neither.
  const spent = await tx.any(sql.type(agentSum)`
    SELECT agent, sum(amount)::bigint AS total FROM (
      SELECT COALESCE(e.agent_id, w.agent_id, w.id) AS agent, -e.amount_minor AS amount
      FROM wallet_ledger_entries e JOIN wallets w ON w.id = e.wallet_id
      WHERE e.org_id = ${orgId} AND e.project_id = ${projectId} AND e.currency = ${config.currency} AND e.kind IN ('debit', 'fee')
        AND NOT (e.metadata ? 'transfer_id') AND e.posted_at > now() - make_interval(secs => ${seconds})
      UNION ALL
      SELECT COALESCE(he.agent_id, w.agent_id, w.id), h.amount_minor
      FROM wallet_holds h JOIN wallets w ON w.id = h.wallet_id JOIN wallet_ledger_entries he ON he.id = h.hold_entry_id
      WHERE w.org_id = ${orgId} AND w.project_id = ${projectId} AND h.currency = ${config.currency} AND h.status = 'open'
      UNION ALL
      SELECT r.budget_agent_id, r.amount_minor FROM mandate_cap_reservations r
      WHERE r.org_id = ${orgId} AND r.project_id = ${projectId} AND r.currency = ${config.currency} AND r.status = 'held'
        AND r.budget_agent_id IS NOT NULL
    ) counted GROUP BY agent`);
  return spent.filter((row) => matchesAny(agents, row.agent)).reduce((sum, row) => sum + row.total, 0n);
}

async function allowedCalls(
  tx: CommonQueryMethods,
  orgId: string,
  projectId: string,
  agentId: string,
  config: RateLimitConfig,
  tools: string[],
): Promise<number> {
  const rows = await tx.any(sql.type(toolCount)`
    SELECT tool_name, count(*)::int AS n FROM policy_evaluations
    WHERE org_id = ${orgId} AND project_id = ${projectId} AND agent_id = ${agentId} AND decision = 'allow'
      AND evaluated_at > now() - make_interval(secs => ${config.window_seconds})
    GROUP BY tool_name`);
  return rows.filter((row) => matchesAny(tools, row.tool_name)).reduce((sum, row) => sum + row.n, 0);
}

/** The lock that serializes one agent's calls until commit, for a statement that takes it beside its own read. */
export function agentLock(projectId: string, agentId: string): FragmentSqlToken {
  return sql.fragment`pg_advisory_xact_lock(hashtextextended(${`policy-agent:${projectId}:${agentId}`}, 0))`;
}

/**
 * The budgets this call's amount would count against: enabled, in its currency, naming its agent (whatever
 * their tools, since a budget counts all of its agents' spend). None for a call that spends nothing.
 */
function budgetsCounting(rules: Rule[], ctx: CallContext): Array<{ rule: Rule; config: BudgetConfig }> {
  if (ctx.amountMinor === null) return [];
  const budgets = [];
  for (const rule of rules) {
    if (!rule.enabled || rule.type !== 'budget' || !matchesAny(rule.agents, ctx.agentId)) continue;
    const usable = usableConfig(rule.type, rule.config);
    if (usable?.type === 'budget' && usable.config.currency === ctx.currency)
      budgets.push({ rule, config: usable.config });
  }
  return budgets;
}

/**
 * Takes the budgets' locks in one order (after the agent's), so that of two agents' calls under one budget
 * the second reads the spend only once the first has committed its hold or given up.
 */
async function lockBudgets(
  tx: CommonQueryMethods,
  projectId: string,
  budgets: Array<{ rule: Rule }>,
): Promise<void> {
  const keys = budgets.map(({ rule }) => `policy-budget:${projectId}:${rule.id}`).sort();
  await tx.query(sql.unsafe`
    SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM unnest(${sql.array(keys, 'text')}) WITH ORDINALITY AS u(k, n) ORDER BY n`);
}

export interface GateOptions {
  /** Keys the evaluation row to the attempt it decides, so a retry of the attempt's step finds it. */
  attemptRef?: string;
  /** The caller's transaction took the agent's lock already (agentLock, in a statement of its own work). */
  agentLocked?: boolean;
  /** The project's rules, when the caller read them already in this transaction (rulesJson, beside its own work). */
  rules?: Rule[];
  /** The caller writes the evaluation row (GateResult.evaluation) beside its next statement's own work. */
  writeLater?: boolean;
}

const lockedRules = z.object({ agent_lock: z.string(), rules: z.unknown() });

export async function runGate(
  tx: CommonQueryMethods,
  orgId: string,
  projectId: string,
  ctx: CallContext,
  options: GateOptions = {},
): Promise<GateResult> {
  let rules = options.rules;
  // The rules are not the lock's to order (the usage counters below are): they are read beside it.
  if (!options.agentLocked && !rules) {
    const locked = await tx.one(sql.type(lockedRules)`
      SELECT ${agentLock(projectId, ctx.agentId)}::text AS agent_lock, ${rulesJson(orgId, projectId)} AS rules`);
    rules = rulesOf(locked.rules);
  } else if (!options.agentLocked) await tx.query(sql.unsafe`SELECT ${agentLock(projectId, ctx.agentId)}`);
  rules ??= (await listPolicies(tx, orgId, projectId)).map(toRule);
  const budgets = budgetsCounting(rules, ctx);
  if (budgets.length > 0) await lockBudgets(tx, projectId, budgets);
  const usage: Usage = { spent: new Map(), calls: new Map() };
  // Only a budget this call spends under is read: the evaluator passes over the others.
  for (const { rule, config } of budgets)
    if (ruleApplies(rule, ctx))
      usage.spent.set(rule.id, await budgetSpend(tx, orgId, projectId, config, rule.agents));
  for (const rule of rules) {
    // An unusable config has no usage to count: the evaluator denies on it (fail closed) without reading it.
    const usable = ruleApplies(rule, ctx) ? usableConfig(rule.type, rule.config) : null;
    if (usable?.type === 'rate-limit')
      usage.calls.set(
        rule.id,
        await allowedCalls(tx, orgId, projectId, ctx.agentId, usable.config, rule.tools),
      );
  }
  const decision = evaluate(rules, ctx, usage);
  if (options.writeLater) {
    const { evaluationId, insert } = evaluationInsert(orgId, projectId, ctx, decision, options.attemptRef);
    return { decision, evaluationId, evaluation: insert };
  }
  return {
    decision,
    evaluationId: await recordEvaluation(tx, orgId, projectId, ctx, decision, options.attemptRef ?? null),
  };
}

/** A call's one evaluation row as values, in EVALUATION_COLUMNS' order (`amount_minor` as text). */
export type EvaluationValues = Array<string | null>;

export function evaluationValues(
  orgId: string,
  projectId: string,
  ctx: CallContext,
  decision: Decision,
  attemptRef: string | null = null,
): EvaluationValues {
  return [
    sortableId('pev'),
    orgId,
    projectId,
    ctx.agentId,
    ctx.toolName,
    decision.rule?.id ?? null,
    decision.rule?.name ?? null,
    decision.rule?.type ?? null,
    decision.decision === 'allow' ? 'allow' : 'deny',
    decision.decision === 'allow' ? null : decision.reason,
    ctx.amountMinor?.toString() ?? null,
    ctx.currency,
    attemptRef,
  ];
}

const EVALUATION_COLUMNS = sql.fragment`id, org_id, project_id, agent_id, tool_name, rule_id, rule_name, rule_type, decision, denial_reason, amount_minor, currency, attempt_ref`;

/**
 * The insert of evaluation rows (evaluationValues each), for a statement that writes them beside its own
 * work: the rows travel as arrays, so the statement's text does not grow with them.
 */
export function evaluationsInsert(rows: EvaluationValues[]): FragmentSqlToken {
  return sql.fragment`
    INSERT INTO policy_evaluations (${EVALUATION_COLUMNS})
    SELECT id, org_id, project_id, agent_id, tool_name, rule_id, rule_name, rule_type, decision, denial_reason, amount_minor::bigint, currency, attempt_ref
    FROM ${sql.unnest(rows, Array<string>(13).fill('text'))} AS e(${EVALUATION_COLUMNS})`;
}

/** The insert of a call's one evaluation row, for a statement of its own or one that writes it beside its own work. */
export function evaluationInsert(
  orgId: string,
  projectId: string,
  ctx: CallContext,
  decision: Decision,
  attemptRef: string | null = null,
): { evaluationId: string; insert: FragmentSqlToken } {
  const values = evaluationValues(orgId, projectId, ctx, decision, attemptRef);
  return {
    evaluationId: values[0]!,
    insert: sql.fragment`
    INSERT INTO policy_evaluations (${EVALUATION_COLUMNS})
    VALUES (${sql.join(values, sql.fragment`, `)})`,
  };
}

async function recordEvaluation(
  db: CommonQueryMethods,
  orgId: string,
  projectId: string,
  ctx: CallContext,
  decision: Decision,
  attemptRef: string | null,
): Promise<string> {
  const { evaluationId, insert } = evaluationInsert(orgId, projectId, ctx, decision, attemptRef);
  await db.query(sql.unsafe`${insert}`);
  return evaluationId;
}

/**
 * The decision of a call no usage counter concerns (no rate limit applies to it, and it spends under no
 * budget) when no rule holds it: nothing to serialize, so no lock and no transaction; the caller writes its
 * evaluation row (evaluationInsert). Null when a counter is concerned or the decision is a hold: the caller
 * runs the locked gate.
 */
export function decideUncounted(
  rules: Rule[],
  ctx: CallContext,
): Exclude<Decision, { decision: 'hold' }> | null {
  if (budgetsCounting(rules, ctx).length > 0) return null;
  if (rules.some((rule) => rule.type === 'rate-limit' && ruleApplies(rule, ctx))) return null;
  const decision = evaluate(rules, ctx, { spent: new Map(), calls: new Map() });
  return decision.decision === 'hold' ? null : decision;
}

export async function linkEvaluationToApproval(
  tx: CommonQueryMethods,
  orgId: string,
  evaluationId: string,
  approvalId: string,
): Promise<void> {
  await tx.query(
    sql.unsafe`UPDATE policy_evaluations SET approval_id = ${approvalId} WHERE org_id = ${orgId} AND id = ${evaluationId}`,
  );
}
