// Mounts declared routes on a Koa router as the visible chain
// body → authenticate → requireScope → validate → handler → reply.
import Router from '@koa/router';
import type Koa from 'koa';
import { ApiError } from '../domain/errors';
import { authenticate } from './auth/authenticate';
import { requireScope } from './auth/scope';
import type { AppDeps } from './deps';
import { parseBody } from './middleware/body';
import type { Principal } from './principal';
import type { AnyRoute, Reply } from './route';
import { check, compile } from './validation';

// NUL, or half of a UTF-16 surrogate pair (a JSON \ud800 escape): UTF-16 code units, so no u flag.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** PostgreSQL text cannot hold NUL and jsonb refuses unpaired surrogates, so either anywhere in the input is refused up front as bad input. */
function hasNul(value: unknown): boolean {
  if (typeof value === 'string') return UNSTORABLE.test(value);
  if (Array.isArray(value)) return value.some(hasNul);
  if (value && typeof value === 'object') return Object.entries(value).some(([key, inner]) => hasNul(key) || hasNul(inner));
  return false;
}

function refuseNul(value: unknown, kind: 'body' | 'query' | 'params'): void {
  if (!hasNul(value)) return;
  const code = kind === 'body' ? 'invalid_body' : kind === 'query' ? 'invalid_query' : 'invalid_params';
  throw new ApiError(400, code, 'Input must not contain NUL characters or unpaired UTF-16 surrogates', { issues: [{ path: '/', message: 'contains a NUL character or an unpaired surrogate', keyword: 'nul' }] });
}

function mount(router: Router, deps: AppDeps, route: AnyRoute): void {
  const validateBody = route.body ? compile(route.body, 'body') : undefined;
  const validateQuery = route.query ? compile(route.query, 'text') : undefined;
  const validateParams = route.params ? compile(route.params, 'text') : undefined;
  const bodyTypes = route.bodyTypes ?? ['json'];

  router[route.method](route.path, async (ctx: Koa.Context) => {
    refuseNul(ctx.params, 'params');
    const principal = await authenticate(deps, ctx, route.auth);
    if (route.auth === 'key') requireScope(principal as Principal, route.scope);

    let body: unknown = undefined;
    const query: Record<string, unknown> = { ...ctx.query };
    const params: Record<string, unknown> = { ...ctx.params };
    try {
      if (route.body) {
        body = await parseBody(ctx, bodyTypes, deps.config.bodyLimitBytes);
        // An absent body on a route that takes one is judged as {} so required fields are reported by name.
        if (body === undefined) body = {};
        refuseNul(body, 'body');
        check(validateBody!, body, 'body');
      } else if (route.method !== 'get' && route.method !== 'delete') {
        await parseBody(ctx, bodyTypes, deps.config.bodyLimitBytes);
      }
      refuseNul(query, 'query');
      if (validateQuery) check(validateQuery, query, 'query');
      if (validateParams) check(validateParams, params, 'params');
    } catch (error) {
      // Routes speaking another protocol (OAuth JSON, HTML pages) render refused input their own way.
      if (!(error instanceof ApiError) || !route.onInputError) throw error;
      return send(ctx, route.onInputError(error));
    }

    send(ctx, await route.handler({ body, query, params, principal, requestId: String(ctx.state.requestId), deps, ctx }));
  });
}

function send(ctx: Koa.Context, reply: Reply): void {
  ctx.status = reply.status ?? 200;
  for (const [name, value] of Object.entries(reply.headers ?? {})) ctx.set(name, value);
  if (reply.type) ctx.type = reply.type;
  if (reply.body !== undefined) ctx.body = reply.body;
}

export function buildRouter(deps: AppDeps, routes: AnyRoute[]): Router {
  const router = new Router();
  for (const route of routes) mount(router, deps, route);
  return router;
}

/** After routing: an unknown path is 404 not_found, a known path with the wrong method 405, both in the envelope. */
export function notMatched(router: Router): Koa.Middleware {
  return async (ctx, next) => {
    await next();
    if (ctx.body !== undefined || ctx.status !== 404) return;
    const matched = router.match(ctx.path, ctx.method);
    if (matched.path.length > 0 && !matched.route) {
      const allowed = [...new Set(matched.path.flatMap((layer) => layer.methods))].filter((m) => m !== 'HEAD');
      ctx.set('Allow', allowed.join(', '));
      throw new ApiError(405, 'method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}`, { allowed });
    }
    throw new ApiError(404, 'not_found', `No route for ${ctx.method} ${ctx.path}`);
  };
}
