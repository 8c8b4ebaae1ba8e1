// Policy rules over HTTP: CRUD, reorder, the evaluation log, and a check that runs the rules for a call.
import { ApiError } from '../../domain/errors';
import { isTimeZone, POLICY_CONFIG_SCHEMAS, POLICY_TYPES, type PolicyType } from '../../schema/policy-config';
import { denialBody, policyDenial } from '../../domain/policies/denial';
import { listEvaluations, type EvaluationRow } from '../../domain/policies/evaluations';
import { runGate } from '../../domain/policies/gate';
import {
  createPolicy,
  deletePolicy,
  getPolicy,
  listPolicies,
  reorderPolicies,
  updatePolicy,
  type PolicyRow,
} from '../../domain/policies/policies';
import { ErrorEnvelope } from '../../schema/http/common';
import {
  EvaluationList,
  EvaluationListQuery,
  Policy,
  PolicyCheck,
  PolicyCreate,
  PolicyDenial,
  PolicyList,
  PolicyReorder,
  PolicyUpdate,
} from '../../schema/http/policies';
import { route, type AnyRoute } from '../route';
import { check, compile } from '../validation';

const tags = ['Policies'];
const notFound = {
  description: "`not_found`: no such policy in the caller's project",
  schema: ErrorEnvelope,
};
const badRequest = {
  description: '`invalid_body` with details.issues (a `config` that does not fit its type is refused here)',
  schema: ErrorEnvelope,
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function presentPolicy(row: PolicyRow) {
  // A row written around the API may hold a non-object config; it is shown empty (and evaluated as unusable).
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    config: isObject(row.config) ? row.config : {},
    agents: row.agents,
    tools: row.tools,
    enabled: row.enabled,
    order: row.order,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function presentEvaluation(row: EvaluationRow) {
  return {
    id: row.id,
    timestamp: row.evaluated_at,
    agentId: row.agent_id,
    toolName: row.tool_name,
    ruleName: row.rule_name,
    ruleId: row.rule_id,
    decision: row.decision,
    denialReason: row.denial_reason,
    approvalId: row.approval_id,
  };
}

const CONFIG_ONLY = Object.fromEntries(
  POLICY_TYPES.map((type) => [
    type,
    compile({ type: 'object', properties: { config: POLICY_CONFIG_SCHEMAS[type] } }, 'body'),
  ]),
);

/**
 * The config against its type's schema, a missing one counting as `{}` so each key the type needs is named in
 * details.issues; then what JSON Schema cannot say: a time zone must exist.
 */
function checkConfig(type: PolicyType, config: Record<string, unknown> | undefined): void {
  check(CONFIG_ONLY[type], { config: config ?? {} }, 'body');
  if (type === 'time-window' && !isTimeZone(String(config?.timezone))) {
    throw new ApiError(400, 'invalid_body', `Unknown time zone "${String(config?.timezone)}"`, {
      issues: [{ path: '/config/timezone', message: 'must be an IANA time zone', keyword: 'format' }],
    });
  }
}

/** Amounts are stored as bigint: a larger one is refused here rather than by the database. */
const MAX_AMOUNT_MINOR = 9_223_372_036_854_775_807n;

function checkAmount(amountMinor: string | undefined): bigint | null {
  if (amountMinor === undefined) return null;
  const amount = BigInt(amountMinor);
  if (amount > MAX_AMOUNT_MINOR) {
    throw new ApiError(
      400,
      'invalid_body',
      'Request body is invalid: /amount_minor must be at most 9223372036854775807',
      {
        issues: [
          { path: '/amount_minor', message: `must be at most ${MAX_AMOUNT_MINOR}`, keyword: 'maximum' },
        ],
      },
    );
  }
  return amount;
}

export const policyRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/v1/policies',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'createPolicy',
    summary: 'Create a policy rule; it runs after the existing ones',
    body: PolicyCreate,
    responses: { 201: { description: 'The rule', schema: Policy }, 400: badRequest },
    async handler({ deps, principal, body }) {
      checkConfig(body.type, body.config);
      return {
        status: 201,
        body: presentPolicy(await createPolicy(deps.db, principal.orgId, principal.projectId, body)),
      };
    },
  }),
  route({
    method: 'get',
    path: '/v1/policies',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'listPolicies',
    summary: "List the project's policy rules in evaluation order",
    responses: { 200: { description: 'Rules', schema: PolicyList } },
    async handler({ deps, principal }) {
      return {
        body: {
          policies: (await listPolicies(deps.db, principal.orgId, principal.projectId)).map(presentPolicy),
        },
      };
    },
  }),
  route({
    method: 'post',
    path: '/v1/policies/reorder',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'reorderPolicies',
    summary: 'Set the evaluation order',
    body: PolicyReorder,
    responses: {
      200: { description: 'Rules in their new order', schema: PolicyList },
      400: badRequest,
      404: { description: '`not_found` (details.ids)', schema: ErrorEnvelope },
    },
    async handler({ deps, principal, body }) {
      return {
        body: {
          policies: (await reorderPolicies(deps.db, principal.orgId, principal.projectId, body.ids)).map(
            presentPolicy,
          ),
        },
      };
    },
  }),
  route({
    method: 'get',
    path: '/v1/policies/evaluations',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'listPolicyEvaluations',
    summary: 'The decision log, newest first, filterable by agent, tool and decision',
    query: EvaluationListQuery,
    responses: {
      200: { description: 'A page of evaluations', schema: EvaluationList },
      400: { description: '`invalid_query`', schema: ErrorEnvelope },
    },
    async handler({ deps, principal, query }) {
      const rows = await listEvaluations(deps.db, principal.orgId, principal.projectId, {
        agentId: query.agent_id,
        toolName: query.tool_name,
        decision: query.decision,
        limit: query.limit + 1,
        before: query.before,
      });
      const page = rows.slice(0, query.limit);
      const hasMore = rows.length > query.limit;
      return {
        body: {
          evaluations: page.map(presentEvaluation),
          has_more: hasMore,
          next_before: hasMore ? page[page.length - 1].id : null,
        },
      };
    },
  }),
  route({
    method: 'post',
    path: '/v1/policies/evaluations',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'evaluatePolicies',
    summary: 'Run the rules for a call an agent is about to make and record the decision',
    description:
      'A real decision: it writes an evaluation row and counts toward rate limits. A call an `approval-required` rule would hold answers 403 `approval_required` without creating an approval; route the call itself (e.g. wallet execute) to hold it.',
    body: PolicyCheck,
    responses: {
      201: {
        description: 'Allowed',
        schema: {
          type: 'object',
          required: ['decision', 'evaluation_id'],
          properties: {
            decision: { const: 'allow' },
            evaluation_id: { type: 'string' },
            ruleId: { type: ['string', 'null'] },
          },
        },
      },
      400: badRequest,
      403: { description: 'Denied (flat body)', schema: PolicyDenial },
    },
    async handler({ deps, principal, body }) {
      const amountMinor = checkAmount(body.amount_minor);
      const result = await deps.db.transaction((tx) =>
        runGate(tx, principal.orgId, principal.projectId, {
          agentId: body.agent_id,
          toolName: body.tool_name,
          amountMinor,
          currency: body.currency ?? null,
          now: new Date(),
          approved: false,
        }),
      );
      if (result.decision.decision !== 'allow')
        throw policyDenial({ ...denialBody(result.decision), evaluation_id: result.evaluationId });
      return {
        status: 201,
        body: {
          decision: 'allow',
          evaluation_id: result.evaluationId,
          ruleId: result.decision.rule?.id ?? null,
        },
      };
    },
  }),
  route({
    method: 'get',
    path: '/v1/policies/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'getPolicy',
    summary: 'Retrieve a policy rule',
    responses: { 200: { description: 'The rule', schema: Policy }, 404: notFound },
    async handler({ deps, principal, params }) {
      return {
        body: presentPolicy(await getPolicy(deps.db, principal.orgId, principal.projectId, params.id)),
      };
    },
  }),
  route({
    method: 'patch',
    path: '/v1/policies/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'updatePolicy',
    summary: 'Change a policy rule (order changes go through reorder)',
    body: PolicyUpdate,
    responses: { 200: { description: 'The rule', schema: Policy }, 400: badRequest, 404: notFound },
    async handler({ deps, principal, params, body }) {
      const current = await getPolicy(deps.db, principal.orgId, principal.projectId, params.id);
      const type = body.type ?? current.type;
      if (body.type && body.type !== current.type && body.config === undefined) {
        throw new ApiError(400, 'invalid_body', 'Changing the type needs a config for the new type', {
          issues: [{ path: '/config', message: 'is required when type changes', keyword: 'required' }],
        });
      }
      // Only a patch that brings a config is checked, so a stored rule with a broken config can still be
      // disabled, renamed or deleted; a new config is checked against the (new or stored) type.
      if (body.config !== undefined) checkConfig(type, body.config);
      return {
        body: presentPolicy(
          await updatePolicy(deps.db, principal.orgId, principal.projectId, params.id, body),
        ),
      };
    },
  }),
  route({
    method: 'delete',
    path: '/v1/policies/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'deletePolicy',
    summary: 'Delete a policy rule',
    responses: {
      200: {
        description: 'Deleted',
        schema: {
          type: 'object',
          required: ['id', 'deleted'],
          properties: { id: { type: 'string' }, deleted: { const: true } },
        },
      },
      404: notFound,
    },
    async handler({ deps, principal, params }) {
      await deletePolicy(deps.db, principal.orgId, principal.projectId, params.id);
      return { body: { id: params.id, deleted: true } };
    },
  }),
];
