// Mounts declared routes on a Koa router as the visible chain
// body → authenticate → requireScope → validate → handler → reply.
import Router from '@koa/router';
import type Koa from 'koa';
import { ApiError, FlatError } from '../domain/errors';
import { authenticate } from './auth/authenticate';
import { insufficientScopeChallenge } from './auth/challenge';
import { requireScope } from './auth/scope';
import type { AppDeps } from './deps';
import { bindRequestLogFields } from './metrics/access-log';
import { parseBody } from './middleware/body';
import type { Principal } from './principal';
import type { AnyRoute, Reply } from './route';
import { requestSchema } from '../schema/http/json-schema';
import { check, compile, refuseUnsafeInput } from './validation';

function mount(router: Router, deps: AppDeps, route: AnyRoute): void {
  const validateBody = route.body ? compile(requestSchema(route.body), 'body') : undefined;
  const validateQuery = route.query ? compile(requestSchema(route.query), 'text') : undefined;
  const validateParams = route.params ? compile(requestSchema(route.params), 'text') : undefined;
  const bodyTypes = route.bodyTypes ?? ['json'];

  router[route.method](route.path, async (ctx: Koa.Context) => {
    refuseUnsafeInput(ctx.params, 'params');
    const challengeScope = route.challengeScope && route.scope ? route.scope : undefined;
    const principal = await authenticate(deps, ctx, route.auth, challengeScope).catch((error: unknown) => {
      const noProject = error instanceof FlatError && error.body.error === 'project_resolution_failed';
      throw noProject && route.noProjectError ? route.noProjectError() : error;
    });
    bindRequestLogFields(principal, undefined);
    if (route.auth === 'key') {
      try {
        requireScope(principal as Principal, route.scope);
      } catch (error) {
        if (!route.challengeScope || !(error instanceof FlatError)) throw error;
        throw new FlatError(error.status, error.body, {
          'WWW-Authenticate': insufficientScopeChallenge(deps, ctx, String(route.scope)),
        });
      }
    }

    let body: unknown = undefined;
    const query: Record<string, unknown> = { ...ctx.query };
    const params: Record<string, unknown> = { ...ctx.params };
    try {
      if (route.body) {
        body = await parseBody(ctx, bodyTypes, deps.config.bodyLimitBytes);
        // An absent body is judged as {} so required fields are reported by name; where {} would pass, a
        // route whose body is required still refuses it.
        const absent = body === undefined;
        if (absent) body = {};
        refuseUnsafeInput(body, 'body');
        check(validateBody!, body, 'body');
        if (absent && !route.bodyOptional) throw missingBody();
      } else if (route.method !== 'get' && route.method !== 'delete') {
        await parseBody(ctx, bodyTypes, deps.config.bodyLimitBytes);
      }
      refuseUnsafeInput(query, 'query');
      if (validateQuery) check(validateQuery, query, 'query');
      if (validateParams) check(validateParams, params, 'params');
      bindRequestLogFields(undefined, body);
    } catch (error) {
      // Routes speaking another protocol (OAuth JSON, HTML pages) render refused input their own way.
      if (!(error instanceof ApiError) || !route.onInputError) throw error;
      return send(ctx, route.onInputError(error, ctx));
    }

    send(
      ctx,
      await route.handler({
        body,
        query,
        params,
        principal,
        requestId: String(ctx.state.requestId),
        deps,
        ctx,
      }),
    );
  });
}

function missingBody(): ApiError {
  return new ApiError(400, 'invalid_body', 'Request body is required', {
    issues: [{ path: '/', message: 'is required', keyword: 'required' }],
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

/**
 * The methods a URL allows, as OpenAPI matches it: the most concrete template wins, so
 * `/v1/policies/reorder` allows what that path declares and not also what `/v1/policies/:id` does.
 */
type Layers = ReturnType<Router['match']>['path'];

function allowedMethods(layers: Layers): { allowed: string[]; concrete: Layers } {
  const fewest = Math.min(...layers.map((layer) => layer.paramNames.length));
  const concrete = layers.filter((layer) => layer.paramNames.length === fewest);
  const allowed = [...new Set(concrete.flatMap((layer) => layer.methods))].filter((m) => m !== 'HEAD');
  return { allowed, concrete };
}

function methodNotAllowed(ctx: Koa.Context, allowed: string[]): ApiError {
  ctx.set('Allow', allowed.join(', '));
  return new ApiError(405, 'method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}`, { allowed });
}

/**
 * Around routing: a method a URL's concrete path does not declare is 405 even when a templated path
 * would take it; after routing, an unknown path is 404 not_found, a known path with the wrong method
 * 405, both in the envelope.
 */
export function notMatched(router: Router): Koa.Middleware {
  return async (ctx, next) => {
    const before = router.match(ctx.path, ctx.method);
    if (before.route) {
      const { allowed, concrete } = allowedMethods(before.path);
      if (!before.pathAndMethod.some((layer) => concrete.includes(layer)))
        throw methodNotAllowed(ctx, allowed);
    }
    await next();
    if (ctx.body !== undefined || ctx.status !== 404) return;
    const matched = router.match(ctx.path, ctx.method);
    if (matched.path.length > 0 && !matched.route)
      throw methodNotAllowed(ctx, allowedMethods(matched.path).allowed);
    throw new ApiError(404, 'not_found', `No route for ${ctx.method} ${ctx.path}`);
  };
}
