// Builds the Koa application (no listen): metrics → request id → access log → trace span → errors → routing (not-found and not-allowed included).
import Koa from 'koa';
import { installJsonParse } from '../contracts/json-parse';
import type { AppDeps } from './deps';
import { accessLog } from './metrics/access-log';
import { httpMetrics } from './metrics/http-metrics';
import { httpTracing } from './metrics/http-tracing';
import { metricsRoutes } from './metrics/route';
import { errors } from './middleware/errors';
import { requestId } from './middleware/request-id';
import { buildRouter, dispatch } from './router';
import { allRoutes } from './routes';
import type { AnyRoute } from './route';

export function createApp(deps: AppDeps, routes: AnyRoute[] = allRoutes()): Koa {
  installJsonParse(); // bodies, stored documents and Temporal answers are read by the gateway's reader
  const app = new Koa({ proxy: false });
  const router = buildRouter(deps, [...routes, ...metricsRoutes]);
  app.use(httpMetrics());
  app.use(requestId());
  app.use(accessLog(deps.log));
  app.use(httpTracing());
  app.use(errors(deps.log));
  app.use(dispatch(router));
  // Koa's own error event would print a second stack trace for errors the middleware already rendered.
  app.silent = true;
  return app;
}
