// A route is declared once, with its auth, scope, schemas and handler; the router, the scope checks
// and the OpenAPI document are all built from these declarations, so they cannot drift apart.
import type Koa from 'koa';
import type { ParsedUrlQuery } from 'node:querystring';
import type { JsonSchema, SchemaValue } from '../schema/http/json-schema';
import type { ApiError } from '../domain/errors';
import type { Scope } from '../contracts/scopes';
import type { OperatorPrincipal, Principal } from './principal';
import type { AppDeps } from './deps';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * `public`: no credential. `key`: API key, OAuth access token, or service credential with x-service-project.
 * `operator`: the service credential only (left out of the OpenAPI document; API keys get 401).
 */
export type AuthKind = 'public' | 'key' | 'operator';

/** A scope name; `null` when the route needs none (whoami); `unmapped` refuses every restricted key. */
export type RouteScope = Scope | null | 'unmapped';

export interface ResponseSpec {
  description: string;
  schema?: JsonSchema;
  contentType?: string;
}

export interface Reply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  type?: string;
  /**
   * Set by a flow whose answer to these exact bytes from this caller can no longer change (a settled
   * attempt's replay, with nothing else checked that may change): on a route that keeps final answers, the
   * router sends it again for the same presentation without reading the body anew (settled-replies.ts).
   */
  final?: { attemptId: string };
}

export interface HandlerInput<TBody, TQuery, TParams, TPrincipal> {
  body: TBody;
  query: TQuery;
  params: TParams;
  principal: TPrincipal;
  requestId: string;
  deps: AppDeps;
  ctx: Koa.Context;
}

type PrincipalFor<A extends AuthKind> = A extends 'key'
  ? Principal
  : A extends 'operator'
    ? OperatorPrincipal
    : null;

export interface RouteDefinition<
  TBody = unknown,
  TQuery = unknown,
  TParams = Record<string, string>,
  A extends AuthKind = AuthKind,
> {
  method: HttpMethod;
  path: string; // Koa style: /v1/projects/:id
  auth: A;
  scope: A extends 'key' ? RouteScope : null;
  operationId: string;
  summary: string;
  tags: string[];
  description?: string;
  deprecated?: boolean;
  /**
   * The route's scope rides in its `WWW-Authenticate` challenges (RFC 6750 `scope`): on a 401, so an OAuth
   * client such as MCP's asks for that scope alone rather than every one the metadata lists, and on the 403
   * of a restricted key lacking it (`error="insufficient_scope"`), which such clients read to step up.
   */
  challengeScope?: boolean;
  /** Public pages and probes that are not API operations stay out of the OpenAPI document. */
  undocumented?: boolean;
  body?: JsonSchema;
  /**
   * A route with a body refuses a request without one (400 `invalid_body`), as the document says; pages
   * and provider webhooks whose callers may post nothing judge an absent body as `{}` instead.
   */
  bodyOptional?: boolean;
  bodyTypes?: Array<'json' | 'form'>; // default json
  /** Answers its flows mark final (`Reply.final`) are kept by presentation and sent again as they were. */
  keepsFinalAnswers?: boolean;
  query?: JsonSchema;
  params?: JsonSchema;
  /**
   * Request headers the operation reads, as an object schema (names as sent): documented as header
   * parameters. The handler's own protocol checks them (the MCP transport its session header).
   */
  headers?: JsonSchema;
  responses: Record<number, ResponseSpec>;
  /**
   * Renders a refused body, query or params in the route's own protocol instead of the envelope:
   * OAuth's `{error, error_description}`, an HTML page for pages a person sees, or a webhook's receipt;
   * or answers a rule the document states with the contract's own code (`input.body`: the parsed body).
   */
  onInputError?(error: ApiError, ctx: Koa.Context, input: { body: unknown }): Reply;
  /** The refusal of a credential that resolves to no project, where the spec gives the route its own (a 400). */
  noProjectError?(): ApiError;
  handler(input: HandlerInput<TBody, TQuery, TParams, PrincipalFor<A>>): Promise<Reply> | Reply;
}

/** The names of a Koa-style path's `:name` segments, each a string. */
type PathParams<P extends string> = string extends P
  ? Record<string, string>
  : { [K in ParamNames<P>]: string };
type ParamNames<P extends string> = P extends `${string}:${infer Rest}`
  ? Rest extends `${infer Name}/${infer Tail}`
    ? Name | ParamNames<`/${Tail}`>
    : Rest
  : never;

/** What a declared schema gives the handler, and what it gets without one (then inferred as the constraint). */
type Declared<S, Otherwise> = undefined extends S ? Otherwise : SchemaValue<S>;

/**
 * A route as declared: the handler's body, query and params take the types of the declared schemas
 * (params, without a schema, the path's `:name` segments; query, without one, the raw query string).
 */
type Declaration<
  P extends string,
  A extends AuthKind,
  B extends JsonSchema | undefined,
  Q extends JsonSchema | undefined,
  S extends JsonSchema | undefined,
> = Omit<RouteDefinition<never, never, never, A>, 'path' | 'body' | 'query' | 'params' | 'handler'> & {
  path: P;
  body?: B;
  query?: Q;
  params?: S;
  handler(
    input: HandlerInput<
      Declared<B, undefined>,
      Declared<Q, ParsedUrlQuery>,
      Declared<S, PathParams<P>>,
      PrincipalFor<A>
    >,
  ): Promise<Reply> | Reply;
};

/** Declares a route; its handler is typed against the schemas it declares. */
export function route<
  const P extends string,
  A extends AuthKind,
  const B extends JsonSchema | undefined,
  const Q extends JsonSchema | undefined,
  const S extends JsonSchema | undefined,
>(
  definition: Declaration<P, A, B, Q, S>,
): RouteDefinition<Declared<B, undefined>, Declared<Q, ParsedUrlQuery>, Declared<S, PathParams<P>>, A>;
/** The same with the handler's types given by hand, for declarations not yet written against their schemas. */
export function route<TBody, TQuery, TParams, A extends AuthKind>(
  definition: RouteDefinition<TBody, TQuery, TParams, A>,
): RouteDefinition<TBody, TQuery, TParams, A>;
export function route(definition: AnyRoute): AnyRoute {
  return definition;
}

// Routes of every shape live in one list; the handler's typing has done its work by then.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteDefinition<any, any, any, AuthKind>;
