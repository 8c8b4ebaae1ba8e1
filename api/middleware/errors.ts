// Turns anything thrown below into the spec's bodies: ApiError as the envelope, FlatError verbatim,
// and anything unexpected as a 500 `internal_error` envelope carrying the request id, logged with it;
// the caller never sees a stack, a query or a secret, only the id to quote to an operator.
import type Koa from 'koa';
import { ApiError, FlatError } from '../../domain/errors';
import type { Logger } from '../../runtime/logger';

export function envelope(
  code: string,
  message: string,
  requestId: string,
  details?: Record<string, unknown>,
): Record<string, unknown> {
  return {
    error: details === undefined ? { code, message } : { code, message, details },
    request_id: requestId,
  };
}

export function errors(log: Logger): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (thrown) {
      const requestId = String(ctx.state.requestId);
      if (thrown instanceof ApiError) {
        ctx.status = thrown.status;
        ctx.body = envelope(thrown.code, thrown.message, requestId, thrown.details);
        for (const [name, value] of Object.entries(thrown.headers ?? {})) ctx.set(name, value);
        return;
      }
      if (thrown instanceof FlatError) {
        ctx.status = thrown.status;
        ctx.body = thrown.body;
        for (const [name, value] of Object.entries(thrown.headers ?? {})) ctx.set(name, value);
        return;
      }
      const error = thrown as Error;
      // Only the method and the route template are logged beside the stack: paths (a consent page's token),
      // query strings and bodies may hold secrets.
      const route = (ctx as Koa.Context & { _matchedRoute?: string | RegExp })._matchedRoute;
      log.error('unhandled error', {
        request_id: requestId,
        method: ctx.method,
        route: typeof route === 'string' ? route : 'unmatched',
        error: error?.stack ?? String(error),
      });
      // A handler may have set headers (a stream's content type) before failing; the envelope replaces them.
      ctx.remove('Content-Type');
      ctx.remove('Content-Length');
      ctx.status = 500;
      ctx.body = envelope(
        'internal_error',
        'An internal error occurred; quote the request_id when reporting it',
        requestId,
      );
    }
  };
}
