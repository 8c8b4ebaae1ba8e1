// The operator console's resolution of a held tool charge: the signed-in operator says what the tenant
// upstream's records show, and the same resolve path as the operator API moves the money, naming the
// operator (`user:<name>`) on the charge, its audit trail and its event. A page, not an API operation.
import type Koa from 'koa';
import { ApiError } from '../../domain/errors';
import { findCharge } from '../../domain/tool-servers/charge-list';
import { chargeId } from '../../domain/tool-servers/charge-resolution';
import { ToolChargeResolve } from '../../schema/http/mcp-server-charges';
import type { JsonSchema } from '../../schema/http/json-schema';
import type { AppDeps } from '../deps';
import { resolveHeldCharge } from '../flows/tool-charge-resolution';
import { foreignPost, signedIn, type SignedIn } from '../pages/console-guard';
import { htmlReply, messagePage } from '../pages/console-layout';
import { route, type AnyRoute, type Reply } from '../route';
import { check, compile } from '../validation';

// Checked against the operator API's own body schema, so the console cannot drift from its rules.
const validateResolution = compile(ToolChargeResolve, 'body');
const text = <const N extends number>(maxLength: N) =>
  ({ type: 'string', maxLength }) as const satisfies JsonSchema;

function refusedPost(
  deps: AppDeps,
  ctx: Koa.Context,
  csrf: string | undefined,
  session: SignedIn,
): Reply | null {
  const why = foreignPost(deps, ctx, csrf, session);
  if (!why) return null;
  const who = { operator: session.session.operator, csrf: session.csrf };
  return htmlReply(403, messagePage('Request refused', `Nothing was changed: ${why}.`, 'error', who));
}

export const consoleToolChargeRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/console/orgs/:orgId/tool-charges/:id/resolve',
    auth: 'public',
    scope: null,
    tags: ['Console'],
    undocumented: true,
    bodyOptional: true,
    operationId: 'consoleResolveToolCharge',
    summary: 'Resolve a held tool charge from the console',
    body: { type: 'object', additionalProperties: false, properties: { outcome: text(32), csrf: text(256) } },
    bodyTypes: ['form'],
    responses: {
      200: { description: 'HTML: the settled charge' },
      403: { description: 'HTML: not from the console' },
    },
    onInputError: (error: ApiError) =>
      htmlReply(error.status, messagePage('Request refused', error.message, 'error')),
    async handler({ deps, body, ctx, params }) {
      const session = await signedIn(deps, ctx);
      if (!session)
        return htmlReply(
          401,
          messagePage(
            'Sign in first',
            'The console needs an operator sign-in with the service token.',
            'error',
          ),
        );
      const refused = refusedPost(deps, ctx, body.csrf, session);
      if (refused) return refused;
      const who = { operator: session.session.operator, csrf: session.csrf };
      try {
        const resolution = { outcome: body.outcome };
        check(validateResolution, resolution, 'body');
        const row = await findCharge(deps.db, params.id, params.orgId);
        if (!row) throw new ApiError(404, 'not_found', 'Charge not found');
        const { charge, settled } = await resolveHeldCharge(deps, row, {
          outcome: resolution.outcome as 'succeeded' | 'failed',
          resolvedBy: `user:${session.session.operator}`,
        });
        const moved =
          charge.status === 'debited' ? 'The held price was debited.' : 'The held price was released.';
        return htmlReply(
          settled ? 200 : 202,
          messagePage(
            `Charge resolved as ${resolution.outcome}`,
            `${chargeId(charge.seq)} (attempt ${charge.attempt_id}): ${settled ? moved : 'the money moves shortly.'}`,
            'notice',
            who,
          ),
        );
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        return htmlReply(
          error.status,
          messagePage('Resolution refused', `${error.code}: ${error.message}`, 'error', who),
        );
      }
    },
  }),
];
