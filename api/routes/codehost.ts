// Inbound code-host webhook: normalizes `workflow_run`, `pull_request`, `push` and `check_run` into a
// CIEvent and always answers 200, naming the reason when a type is ignored or the body cannot be read.
// The hook's secret is not validated (as the spec says), so nothing here changes state: the event is
// logged for the agents' policy.
import type Koa from 'koa';
import { normalizeCodehostEvent } from '../../domain/codehost/ci-event';
import type { ApiError } from '../../domain/errors';
import { route, type AnyRoute, type Reply } from '../route';

const eventName = (ctx: Koa.Context): string | undefined => ctx.get('X-Codehost-Event') || undefined;

/**
 * The spec says this hook always answers 200: a sender that gets a 4xx retries, then disables the hook,
 * for a body it will never send differently. So unparsable JSON, another content type, an oversized or
 * NUL-bearing body are received and reported as not processed, with the reason.
 */
function unreadable(error: ApiError, ctx: Koa.Context): Reply {
  return {
    status: 200,
    body: {
      received: true,
      event: eventName(ctx) ?? null,
      processed: false,
      reason: `body not read: ${error.message}`,
    },
  };
}

const Received = {
  type: 'object',
  required: ['received', 'event', 'processed'],
  properties: {
    received: { const: true },
    event: { type: ['string', 'null'] },
    action: { type: 'string' },
    repo: { type: 'string', description: '`owner/name`' },
    processed: { type: 'boolean' },
    reason: { type: 'string', description: 'Why an event was not processed.' },
  },
};

export const codehostRoutes: AnyRoute[] = [
  route({
    // Public because a code host cannot send a bearer credential, and so left out of the OpenAPI document,
    // which lists only key-reachable operations and the public ones that issue credentials.
    method: 'post',
    path: '/webhooks/codehost',
    auth: 'public',
    scope: null,
    tags: ['Inbound webhooks'],
    undocumented: true,
    bodyOptional: true,
    operationId: 'receiveCodehostEvent',
    summary: 'Receive a code-host event (header `X-Codehost-Event`)',
    body: { description: "The code host's event payload (JSON, or form-encoded with a `payload` field)." },
    bodyTypes: ['json', 'form'],
    responses: {
      200: {
        description:
          'Always 200, also for a body that is not JSON or form-encoded, or cannot be parsed (`processed: false` with the reason)',
        schema: Received,
      },
    },
    onInputError: unreadable,
    handler({ ctx, body, deps }) {
      const name = eventName(ctx);
      let payload: unknown = body;
      const form = body as Record<string, unknown> | undefined;
      if (typeof form?.payload === 'string') {
        try {
          payload = JSON.parse(form.payload);
        } catch {
          return {
            body: {
              received: true,
              event: name ?? null,
              processed: false,
              reason: 'body not read: the payload field is not valid JSON',
            },
          };
        }
      }
      const result = normalizeCodehostEvent(name, payload);
      if (!result.processed)
        return { body: { received: true, event: name ?? null, processed: false, reason: result.reason } };
      deps.log.info('code-host event', { ci_event: result.event });
      return {
        body: {
          received: true,
          event: name,
          ...(result.action ? { action: result.action } : {}),
          repo: result.event.repo,
          processed: true,
        },
      };
    },
  }),
];
