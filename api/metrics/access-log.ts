// One JSON line per answered request (method, route template, status, duration), and the request's log
// fields: its id from the start, then who called (org, project) and the attempt it names once those are
// known, so every line written while serving it (errors included) carries them. Never the query or body.
// The same ids go on the request's trace span when tracing is on.
import { trace } from '@opentelemetry/api';
import type Koa from 'koa';
import { ATTR } from '../../runtime/telemetry/attributes';
import { addLogFields, withLogFields, type Logger } from '../../runtime/logger';

export function accessLog(log: Logger): Koa.Middleware {
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
  const who = (principal ?? {}) as { orgId?: unknown; projectId?: unknown };
  const fields: Record<string, unknown> = {};
  if (typeof who.orgId === 'string') fields.org_id = who.orgId;
  if (typeof who.projectId === 'string') fields.project_id = who.projectId;
  const attemptId = (body as { attempt_id?: unknown } | undefined)?.attempt_id;
  if (typeof attemptId === 'string') fields.attempt_id = attemptId;
  if (fields.org_id === undefined && fields.attempt_id === undefined && fields.project_id === undefined)
    return;
  addLogFields(fields);
  const span = trace.getActiveSpan();
  if (span) {
    if (fields.org_id) span.setAttribute(ATTR.orgId, fields.org_id as string);
    if (fields.attempt_id) span.setAttribute(ATTR.attemptId, fields.attempt_id as string);
  }
}
