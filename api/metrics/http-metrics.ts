// Counts every HTTP request by method, route template (never the raw path, which holds ids) and status,
// and times it. Unknown paths share one label so a scanner cannot grow the series without bound.
import type Koa from 'koa';
import { httpDuration, httpRequests } from '../../runtime/telemetry/metrics';

interface Series {
  timed: { observe(seconds: number): void };
  counted: Map<number, { inc(): void }>;
}

// The label children of each method and route, bound once: a request then builds no label objects. Both
// keys are bounded (HTTP methods, route templates), and so are the statuses under them.
const series = new Map<string, Map<string, Series>>();

function seriesOf(method: string, route: string): Series {
  let byRoute = series.get(method);
  if (!byRoute) series.set(method, (byRoute = new Map()));
  let found = byRoute.get(route);
  if (!found) {
    found = { timed: httpDuration.labels(method, route), counted: new Map() };
    byRoute.set(route, found);
  }
  return found;
}

export function httpMetrics(): Koa.Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const matched = (ctx as Koa.Context & { _matchedRoute?: string | RegExp })._matchedRoute;
      const method = ctx.method;
      const route = typeof matched === 'string' ? matched : 'unmatched';
      const found = seriesOf(method, route);
      const status = ctx.status;
      let counter = found.counted.get(status);
      if (!counter) {
        counter = httpRequests.labels(method, route, String(status));
        found.counted.set(status, counter);
      }
      counter.inc();
      found.timed.observe(Number(process.hrtime.bigint() - started) / 1e9);
    }
  };
}
