// Inbound code-host webhook: normalizes `workflow_run`, `pull_request`, `push` and `check_run` into a
// CIEvent and always answers 200, naming the reason when a type is ignored. The hook's secret is not
// validated (as the spec says), so nothing here changes state: the event is logged for the agents' policy.
import { normalizeCodehostEvent } from '../../domain/codehost/ci-event';
import { route, type AnyRoute } from '../route';

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
  route<unknown, unknown, Record<string, string>, 'public'>({
    method: 'post', path: '/webhooks/codehost', auth: 'public', scope: null, tags: ['Inbound webhooks'],
    operationId: 'receiveCodehostEvent', summary: 'Receive a code-host event (header `X-Codehost-Event`)',
    body: { description: 'The code host\'s event payload (JSON, or form-encoded with a `payload` field).' },
    bodyTypes: ['json', 'form'],
    responses: { 200: { description: 'Always 200', schema: Received } },
    handler({ ctx, body, deps }) {
      const name = ctx.get('X-Codehost-Event') || undefined;
      let payload: unknown = body;
      const form = body as Record<string, unknown> | undefined;
      if (typeof form?.payload === 'string') {
        try {
          payload = JSON.parse(form.payload);
        } catch {
          payload = undefined;
        }
      }
      const result = normalizeCodehostEvent(name, payload);
      if (!result.processed) return { body: { received: true, event: name ?? null, processed: false, reason: result.reason } };
      deps.log.info('code-host event', { ci_event: result.event });
      return {
        body: { received: true, event: name, ...(result.action ? { action: result.action } : {}), repo: result.event.repo, processed: true },
      };
    },
  }),
];
