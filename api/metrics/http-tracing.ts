// The server span of each HTTP request while tracing is on: parented on an incoming traceparent (a proxy's
// trace), named by route template, with the request id as an attribute. Everything the request does,
// the Temporal client call included, runs inside it.
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type Koa from 'koa';
import { ATTR } from '../../runtime/telemetry/attributes';
import { tracing } from '../../runtime/telemetry/tracing';

export function httpTracing(): Koa.Middleware {
  return (ctx, next) => {
    const on = tracing();
    return on ? traced(on, ctx, next) : next();
  };
}

async function traced(
  on: NonNullable<ReturnType<typeof tracing>>,
  ctx: Koa.Context,
  next: Koa.Next,
): Promise<void> {
  const parent = propagation.extract(ROOT_CONTEXT, ctx.headers);
  const span = on.tracer.startSpan(
    `${ctx.method}`,
    {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': ctx.method, [ATTR.requestId]: String(ctx.state.requestId) },
    },
    parent,
  );
  try {
    await context.with(trace.setSpan(parent, span), next);
  } finally {
    const route = (ctx as Koa.Context & { _matchedRoute?: string | RegExp })._matchedRoute;
    if (typeof route === 'string') {
      span.updateName(`${ctx.method} ${route}`);
      span.setAttribute('http.route', route);
    }
    span.setAttribute('http.response.status_code', ctx.status);
    if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  }
}
