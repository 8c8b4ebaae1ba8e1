// Counts every HTTP request by method, route template (never the raw path, which holds ids) and status,
// and times it. Unknown paths share one label so a scanner cannot grow the series without bound.
import type Koa from 'koa';
import { httpDuration, httpRequests } from '../../runtime/telemetry/metrics';

export function httpMetrics(): Koa.Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const route = (ctx as Koa.Context & { _matchedRoute?: string | RegExp })._matchedRoute;
      const labels = { method: ctx.method, route: typeof route === 'string' ? route : 'unmatched' };
      httpRequests.inc({ ...labels, status: String(ctx.status) });
      httpDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    }
  };
}
