// The operator console under /console: sign-in with the service token, one overview page of what needs
// an operator (pending approvals, held tool charges, stuck attempts, open anomalies, recent top-ups,
// endpoints in error; a held charge is resolved in console-tool-charges.ts) and the approval decision,
// which runs the operator API's own decide path (api/flows/approval-decision.ts). Pages, not API
// operations: left out of the OpenAPI document, and refused input is answered as a page.
import type Koa from 'koa';
import { ApiError } from '../../domain/errors';
import { closeConsoleSession, openConsoleSession } from '../../domain/operations/console-sessions';
import { listFailingEndpoints } from '../../domain/webhooks/failing-endpoints';
import { listOpenAnomalies } from '../../domain/reconciliation/open-anomalies';
import { listPendingApprovals } from '../../domain/approvals/pending';
import { listStuckAttempts } from '../../domain/operations/stuck-attempts';
import { listTopupsForOperator } from '../../domain/operations/topups';
import { listChargesForOperator } from '../../domain/tool-servers/charge-list';
import { ApprovalDecide } from '../../schema/http/execute';
import type { JsonSchema } from '../../schema/http/json-schema';
import type { AppDeps } from '../deps';
import { decideApproval } from '../flows/approval-decision';
import { dashboardPage } from '../pages/console-dashboard';
import {
  clearedCookie,
  credentialDigest,
  foreignPost,
  isServiceToken,
  sessionCookie,
  signedIn,
  type SignedIn,
} from '../pages/console-guard';
import { htmlReply, loginPage, messagePage } from '../pages/console-layout';
import { route, type AnyRoute, type Reply } from '../route';
import { check, compile } from '../validation';

const tags = ['Console'];
const LIST_LIMIT = 200;
const OPERATOR_NAME = /^[A-Za-z0-9._@-]{1,64}$/;

// Decisions are checked against the operator API's own body schema and run its own decide path, so the
// console can never drift from its rules.
const validateDecision = compile(ApprovalDecide, 'body');

const text = <const N extends number>(maxLength: N) =>
  ({ type: 'string', maxLength }) as const satisfies JsonSchema;
const form = <const P extends Record<string, JsonSchema>>(properties: P) =>
  ({ type: 'object', additionalProperties: false, properties }) as const satisfies JsonSchema;

const inputError = (error: ApiError): Reply =>
  htmlReply(error.status, messagePage('Request refused', error.message, 'error'));
const signInFirst = (): Reply =>
  htmlReply(
    401,
    messagePage('Sign in first', 'The console needs an operator sign-in with the service token.', 'error'),
  );
const seeOther = (location: string, headers: Record<string, string> = {}): Reply => ({
  status: 303,
  headers: { Location: location, 'Cache-Control': 'no-store', ...headers },
});

function refusedPost(
  deps: AppDeps,
  ctx: Koa.Context,
  csrf: string | undefined,
  session: SignedIn | null,
): Reply | null {
  const why = foreignPost(deps, ctx, csrf, session);
  if (!why) return null;
  const who = session ? { operator: session.session.operator, csrf: session.csrf } : undefined;
  return htmlReply(403, messagePage('Request refused', `Nothing was changed: ${why}.`, 'error', who));
}

interface LoginForm {
  operator?: string;
  token?: string;
}
interface DecideForm {
  decision?: string;
  reason?: string;
  csrf?: string;
}

export const consoleRoutes: AnyRoute[] = [
  route({
    method: 'get',
    path: '/console/login',
    auth: 'public',
    scope: null,
    tags,
    undocumented: true,
    operationId: 'consoleLoginPage',
    summary: 'Operator console sign-in form',
    responses: { 200: { description: 'HTML' } },
    handler: () => htmlReply(200, loginPage()),
  }),
  route({
    method: 'post',
    path: '/console/login',
    auth: 'public',
    scope: null,
    tags,
    undocumented: true,
    bodyOptional: true,
    operationId: 'consoleLogin',
    summary: 'Sign in to the operator console with the service token',
    body: form({ operator: text(256), token: text(1024) }),
    bodyTypes: ['form'],
    responses: {
      303: { description: 'Signed in: to the console' },
      401: { description: 'HTML: not the service token' },
    },
    onInputError: inputError,
    async handler({ deps, body, ctx }) {
      // A forged sign-in would put the victim's browser in someone else's session: same-origin posts only.
      const refused = refusedPost(deps, ctx, undefined, null);
      if (refused) return refused;
      const operator = (body.operator ?? '').trim();
      if (!OPERATOR_NAME.test(operator))
        return htmlReply(400, loginPage('Give your name as 1 to 64 letters, digits or . _ @ -'));
      if (!isServiceToken(body.token ?? '', deps.config.serviceToken))
        return htmlReply(401, loginPage('That is not the service token.'));
      const ttlMs = deps.config.console.sessionTtlMs;
      const { token } = await openConsoleSession(deps.db, {
        operator,
        credentialDigest: credentialDigest(deps.config.serviceToken!),
        ttlMs,
      });
      return seeOther('/console', {
        'Set-Cookie': sessionCookie(deps, ctx, token, Math.floor(ttlMs / 1000)),
      });
    },
  }),
  route({
    method: 'post',
    path: '/console/logout',
    auth: 'public',
    scope: null,
    tags,
    undocumented: true,
    bodyOptional: true,
    operationId: 'consoleLogout',
    summary: 'Sign out of the operator console',
    body: form({ csrf: text(256) }),
    bodyTypes: ['form'],
    responses: { 303: { description: 'Signed out: to the sign-in form' } },
    onInputError: inputError,
    async handler({ deps, body, ctx }) {
      const session = await signedIn(deps, ctx);
      if (!session) return seeOther('/console/login', { 'Set-Cookie': clearedCookie(deps, ctx) });
      const refused = refusedPost(deps, ctx, body.csrf, session);
      if (refused) return refused;
      await closeConsoleSession(deps.db, session.token);
      return seeOther('/console/login', { 'Set-Cookie': clearedCookie(deps, ctx) });
    },
  }),
  route({
    method: 'get',
    path: '/console',
    auth: 'public',
    scope: null,
    tags,
    undocumented: true,
    operationId: 'consoleOverview',
    summary: 'What needs an operator: approvals, stuck attempts, anomalies, failing endpoints',
    query: form({ org: { type: 'string', pattern: '^(org_[0-9A-Za-z]{1,64})?$' } }),
    responses: { 200: { description: 'HTML' }, 303: { description: 'Not signed in: to the sign-in form' } },
    onInputError: inputError,
    async handler({ deps, query, ctx }) {
      const session = await signedIn(deps, ctx);
      if (!session) return seeOther('/console/login');
      const orgId = query.org || undefined;
      const [approvals, stuck, anomalies, endpoints, heldCharges, topups] = await Promise.all([
        listPendingApprovals(deps.db, { orgId, limit: LIST_LIMIT }),
        listStuckAttempts(deps.db, {
          orgId,
          olderThanMs: deps.config.console.stuckAfterMs,
          limit: LIST_LIMIT,
        }),
        listOpenAnomalies(deps.db, { orgId, limit: LIST_LIMIT }),
        listFailingEndpoints(deps.db, { orgId, limit: LIST_LIMIT }),
        listChargesForOperator(deps.db, { orgId, status: 'uncertain', limit: LIST_LIMIT }),
        listTopupsForOperator(deps.db, { orgId, limit: LIST_LIMIT }),
      ]);
      return htmlReply(
        200,
        dashboardPage({
          operator: session.session.operator,
          csrf: session.csrf,
          orgId: orgId ?? null,
          stuckAfterMs: deps.config.console.stuckAfterMs,
          temporalUi: { url: deps.config.temporal.uiUrl, namespace: deps.config.temporal.namespace },
          approvals,
          stuck,
          anomalies,
          endpoints,
          heldCharges,
          topups,
        }),
      );
    },
  }),
  route({
    method: 'post',
    path: '/console/orgs/:orgId/approvals/:id/decide',
    auth: 'public',
    scope: null,
    tags,
    undocumented: true,
    bodyOptional: true,
    operationId: 'consoleDecideApproval',
    summary: 'Approve or deny a held call from the console',
    body: form({ decision: text(32), reason: text(2048), csrf: text(256) }),
    bodyTypes: ['form'],
    responses: {
      200: { description: 'HTML: the decision' },
      403: { description: 'HTML: not from the console' },
    },
    onInputError: inputError,
    async handler({ deps, body, ctx, params }) {
      const session = await signedIn(deps, ctx);
      if (!session) return signInFirst();
      const refused = refusedPost(deps, ctx, body.csrf, session);
      if (refused) return refused;
      const who = { operator: session.session.operator, csrf: session.csrf };
      const decision = {
        decision: body.decision,
        ...(body.reason?.trim() ? { reason: body.reason.trim() } : {}),
      };
      if (!decision.reason)
        return htmlReply(
          400,
          messagePage(
            'Reason needed',
            'Give a reason with every decision made in the console.',
            'error',
            who,
          ),
        );
      try {
        check(validateDecision, decision, 'body');
        const decided = await decideApproval(deps, {
          orgId: params.orgId,
          approvalId: params.id,
          approve: decision.decision === 'approve',
          reason: decision.reason,
          actor: `user:${session.session.operator}`,
        });
        const next =
          decided.status === 'approved'
            ? 'The held call is replayed now; its result appears on the approval.'
            : 'The held call will not run.';
        return htmlReply(
          200,
          messagePage(
            `Approval ${decided.status}`,
            `${decided.id} is ${decided.status}. ${next}`,
            'notice',
            who,
          ),
        );
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        return htmlReply(
          error.status,
          messagePage('Decision refused', `${error.code}: ${error.message}`, 'error', who),
        );
      }
    },
  }),
];
