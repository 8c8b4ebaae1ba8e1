// One JSON line per answered request (method, route template, status, duration), and the request's log
// fields: its id from the start, then who called (org, project) and the attempt it names once those are
// known, so every line written while serving it (errors included) carries them. Never the query or body.
// The same ids go on the request's trace span when tracing is on.
import { trace } from '@opentelemetry/api';
import type Koa from 'koa';
import { ATTR } from '../../runtime/telemetry/attributes';
import { tracing } from '../../runtime/telemetry/tracing';
import { addLogFields, withLogFields, type Logger } from '../../runtime/logger';

export function accessLog(log: Logger): Koa.Middleware {
  // With info lines off, a request is neither timed nor described for a line nobody writes; its fields are
  // still bound for the warnings and errors written while serving it.
  if (log.enabled?.('info') === false)
    return (ctx, next) => withLogFields({ request_id: String(ctx.state.requestId) }, next);
  return (ctx, next) =>
    withLogFields({ request_id: String(ctx.state.requestId) }, async () => {
      const started = process.hrtime.bigint();
      try {
        await next();
      } finally {
        const route = (ctx as Koa.Context & { _matchedRoute?: string | RegExp })._matchedRoute;
        log.info('request', {
          method: ctx.method,
          route: typeof route === 'string' ? route : 'unmatched',
          status: ctx.status,
          duration_ms: Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10,
        });
      }
    });
}

/** Called by the router once the caller is authenticated and the input validated. */
export function bindRequestLogFields(principal: unknown, body: unknown): void {
  const who = principal as { orgId?: unknown; projectId?: unknown } | null | undefined;
  const orgId = typeof who?.orgId === 'string' ? who.orgId : undefined;
  const projectId = typeof who?.projectId === 'string' ? who.projectId : undefined;
  const named = (body as { attempt_id?: unknown } | null | undefined)?.attempt_id;
  const attemptId = typeof named === 'string' ? named : undefined;
  if (orgId === undefined && attemptId === undefined && projectId === undefined) return;
  const fields: Record<string, unknown> = {};
  if (orgId !== undefined) fields.org_id = orgId;
  if (projectId !== undefined) fields.project_id = projectId;
  if (attemptId !== undefined) fields.attempt_id = attemptId;
  addLogFields(fields);
  // Without tracing there is no span to find: the look-up is skipped.
  const span = tracing() && trace.getActiveSpan();
  if (span) {
    if (orgId) span.setAttribute(ATTR.orgId, orgId);
    if (attemptId) span.setAttribute(ATTR.attemptId, attemptId);
  }
}
