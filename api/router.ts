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
import { decodeBody, parseBody, readBody } from './middleware/body';
import type { Principal } from './principal';
import type { AnyRoute, Reply } from './route';
import { requestSchema } from '../schema/http/json-schema';
import { check, compile, refuseUnsafeInput } from './validation';
import { finalReplies, presentationKey } from './settled-replies';

function mount(router: Router, deps: AppDeps, route: AnyRoute): void {
  const validateBody = route.body ? compile(requestSchema(route.body), 'body') : undefined;
  const validateQuery = route.query ? compile(requestSchema(route.query), 'text') : undefined;
  const validateParams = route.params ? compile(requestSchema(route.params), 'text') : undefined;
  const bodyTypes = route.bodyTypes ?? ['json'];

  const checkQueryAndParams = (query: Record<string, unknown>, params: Record<string, unknown>) => {
    refuseUnsafeInput(query, 'query');
    if (validateQuery) check(validateQuery, query, 'query');
    if (validateParams) check(validateParams, params, 'params');
  };

  router[route.method](route.path, async (ctx: Koa.Context) => {
    refuseUnsafeInput(ctx.params, 'params');
    const challengeScope = route.challengeScope && route.scope ? route.scope : undefined;
    let principal: Awaited<ReturnType<typeof authenticate>>;
    try {
      principal = await authenticate(deps, ctx, route.auth, challengeScope);
    } catch (error) {
      const noProject = error instanceof FlatError && error.body.error === 'project_resolution_failed';
      throw noProject && route.noProjectError ? route.noProjectError() : error;
    }
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
    let presentation: string | undefined;
    const query: Record<string, unknown> = { ...ctx.query };
    const params: Record<string, unknown> = { ...ctx.params };
    try {
      if (route.body) {
        const raw = await readBody(ctx, bodyTypes, deps.config.bodyLimitBytes);
        if (route.keepsFinalAnswers && raw?.type === 'json' && principal && 'orgId' in principal) {
          presentation = presentationKey(principal.orgId, String(principal.projectId), ctx.path, raw.raw);
          // The same bytes passed every body check when their answer was kept; the rest is checked as ever.
          const known = finalReplies(deps.db).get(presentation);
          if (known) {
            checkQueryAndParams(query, params);
            bindRequestLogFields(undefined, { attempt_id: known.attemptId });
            return send(ctx, known.reply);
          }
        }
        body = decodeBody(raw);
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
      checkQueryAndParams(query, params);
      bindRequestLogFields(undefined, body);
    } catch (error) {
      // Routes speaking another protocol (OAuth JSON, HTML pages) render refused input their own way.
      if (!(error instanceof ApiError) || !route.onInputError) throw error;
      return send(ctx, route.onInputError(error, ctx, { body }));
    }

    const reply = await route.handler({
      body,
      query,
      params,
      principal,
      requestId: String(ctx.state.requestId),
      deps,
      ctx,
    });
    if (presentation && reply.final && Buffer.isBuffer(reply.body))
      finalReplies(deps.db).remember(presentation, {
        attemptId: reply.final.attemptId,
        reply: { status: reply.status, body: reply.body, type: reply.type, headers: reply.headers },
      });
    send(ctx, reply);
  });
}

function missingBody(): ApiError {
  return new ApiError(400, 'invalid_body', 'Request body is required', {
    issues: [{ path: '/', message: 'is required', keyword: 'required' }],
  });
}

// What Koa names a JSON body's type (mime-types' answer for 'json'), set here so Koa need not look it up.
const JSON_TYPE = 'application/json; charset=utf-8';

function send(ctx: Koa.Context, reply: Reply): void {
  ctx.status = reply.status ?? 200;
  for (const [name, value] of Object.entries(reply.headers ?? {})) ctx.set(name, value);
  if (reply.type) ctx.type = reply.type;
  else if (isPlainJson(reply.body) && !ctx.response.get('Content-Type')) ctx.set('Content-Type', JSON_TYPE);
  if (reply.body !== undefined) ctx.body = reply.body;
}

/** A body Koa serializes as JSON: an object that is not bytes, a stream or a web body. */
function isPlainJson(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const proto = Object.getPrototypeOf(body) as unknown;
  return proto === Object.prototype || proto === Array.prototype || proto === null;
}

type Layer = Router['stack'][number];
type Match = ReturnType<Router['match']>;

const LITERAL = /^[A-Za-z0-9._~-]+$/;

/** A path's first two segments, lower-cased (routes match case-insensitively), as the index keys them. */
function leading(path: string): [string, string] {
  const [, first = '', second = ''] = path.split('/', 3);
  return [first.toLowerCase(), second.toLowerCase()];
}

/**
 * @koa/router tests every route's regexp in turn, twice a request here (notMatched, then routing), and
 * with some 180 routes that was a tenth of a light request's CPU. This one tests only the routes that can
 * match: those whose first two segments are the request's, those whose first is and whose second is a
 * parameter, and those starting with a parameter, in declaration order, so the answer is @koa/router's.
 */
class IndexedRouter extends Router {
  private index:
    { size: number; byTwo: Map<string, Layer[]>; byOne: Map<string, Layer[]>; rest: Layer[] } | undefined;

  private candidates(path: string): Layer[] {
    if (this.index?.size !== this.stack.length) {
      const order = new Map(this.stack.map((layer, i) => [layer, i]));
      const sorted = (layers: Layer[]) => [...new Set(layers)].sort((a, b) => order.get(a)! - order.get(b)!);
      const two = new Map<string, Layer[]>();
      const one = new Map<string, Layer[]>();
      const rest: Layer[] = [];
      for (const layer of this.stack) {
        const path = typeof layer.path === 'string' ? layer.path : '';
        const [first, second] = leading(path);
        if (!LITERAL.test(first)) rest.push(layer);
        else if (LITERAL.test(second) && path.split('/').length > 2)
          two.set(`${first}/${second}`, [...(two.get(`${first}/${second}`) ?? []), layer]);
        else one.set(first, [...(one.get(first) ?? []), layer]);
      }
      const byOne = new Map([...one].map(([key, layers]) => [key, sorted([...layers, ...rest])]));
      const byTwo = new Map(
        [...two].map(([key, layers]) => [
          key,
          sorted([...layers, ...(one.get(key.split('/')[0]) ?? []), ...rest]),
        ]),
      );
      this.index = { size: this.stack.length, byTwo, byOne, rest };
    }
    // leading()'s answer, read off the path without splitting it: `first/second` is the text up to the third
    // slash, lower-cased as a whole.
    const slash = path.indexOf('/');
    if (slash === -1) return this.index.byTwo.get('/') ?? this.index.byOne.get('') ?? this.index.rest;
    const end = path.indexOf('/', slash + 1);
    const first = (end === -1 ? path.slice(slash + 1) : path.slice(slash + 1, end)).toLowerCase();
    const last = end === -1 ? -1 : path.indexOf('/', end + 1);
    const two =
      end === -1
        ? `${first}/`
        : (last === -1 ? path.slice(slash + 1) : path.slice(slash + 1, last)).toLowerCase();
    return this.index.byTwo.get(two) ?? this.index.byOne.get(first) ?? this.index.rest;
  }

  override match(path: string, method: string): Match {
    const result: Match = { path: [], pathAndMethod: [], route: false };
    const wanted = method.toUpperCase();
    for (const layer of this.candidates(path)) {
      if (!layer.match(path)) continue;
      result.path.push(layer);
      if (layer.methods.length === 0 || layer.methods.includes(wanted)) {
        result.pathAndMethod.push(layer);
        if (layer.methods.length > 0) result.route = true;
      }
    }
    return result;
  }
}

export function buildRouter(deps: AppDeps, routes: AnyRoute[]): Router {
  const router = new IndexedRouter();
  for (const route of routes) mount(router, deps, route);
  return router;
}

/**
 * The methods a URL allows, as OpenAPI matches it: the most concrete template wins, so
 * `/v1/policies/reorder` allows what that path declares and not also what `/v1/policies/:id` does.
 */
type Layers = ReturnType<Router['match']>['path'];

function fewestParams(layers: Layers): number {
  let fewest = Infinity;
  for (const layer of layers) if (layer.paramNames.length < fewest) fewest = layer.paramNames.length;
  return fewest;
}

function allowedMethods(layers: Layers): string[] {
  const fewest = fewestParams(layers);
  const concrete = layers.filter((layer) => layer.paramNames.length === fewest);
  return [...new Set(concrete.flatMap((layer) => layer.methods))].filter((m) => m !== 'HEAD');
}

function methodNotAllowed(ctx: Koa.Context, allowed: string[]): ApiError {
  ctx.set('Allow', allowed.join(', '));
  return new ApiError(405, 'method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}`, { allowed });
}

/**
 * Routing in one step: the request is matched once, a method a URL's concrete path does not declare is 405
 * even when a templated path would take it, and the first matching route runs as @koa/router would run it
 * (its params and template set on the context) but without composing a chain of closures per request: every
 * route here is one handler that answers and never calls next, so the first match is the whole chain. After
 * it, an unknown path is 404 not_found, a known path with the wrong method 405, both in the envelope.
 */
export function dispatch(router: Router): Koa.Middleware {
  // mount() gives every layer exactly its one handler; anything else would need @koa/router's own chain.
  for (const layer of router.stack)
    if (layer.stack.length !== 1)
      throw new Error(`route ${String(layer.path)} has ${layer.stack.length} handlers`);
  return async (ctx, next) => {
    const path = ctx.path;
    const matched = router.match(path, ctx.method);
    if (matched.route) {
      // The usual case first, without building the allowed list: a most concrete path takes the method.
      const fewest = fewestParams(matched.path);
      if (!matched.pathAndMethod.some((layer) => layer.paramNames.length === fewest))
        throw methodNotAllowed(ctx, allowedMethods(matched.path));
      const first = matched.pathAndMethod[0];
      const routed = ctx as Koa.Context & { _matchedRoute?: string | RegExp };
      routed.params = first.params(path, first.captures(path), {});
      routed._matchedRoute = first.path;
      await first.stack[0](ctx as never, next);
    } else {
      await next();
    }
    if (ctx.body !== undefined || ctx.status !== 404) return;
    if (matched.path.length > 0 && !matched.route) throw methodNotAllowed(ctx, allowedMethods(matched.path));
    throw new ApiError(404, 'not_found', `No route for ${ctx.method} ${ctx.path}`);
  };
}
