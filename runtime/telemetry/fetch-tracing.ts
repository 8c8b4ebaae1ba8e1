// Client spans for the process's outgoing HTTP calls (providers, webhook receivers) while tracing is on:
// fetch is wrapped so a call made under an active span gets a child span and a traceparent header. The
// span names the method and host and keeps the path without its query, which may hold credentials.
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ATTR, attemptOf } from './attributes';

/** Wraps globalThis.fetch; returns the function that puts the original back. */
export function traceFetch(): () => void {
  const original = globalThis.fetch;
  const traced: typeof fetch = async (input, init) => {
    const parent = context.active();
    if (!trace.getSpan(parent)) return original(input, init);
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const url = new URL(input instanceof Request ? input.url : String(input));
    const span = trace.getTracer('gateway').startSpan(
      `HTTP ${method} ${url.host}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'http.request.method': method,
          'server.address': url.hostname,
          'url.path': url.pathname,
        },
      },
      parent,
    );
    const attemptId = attemptOf(parent);
    if (attemptId) span.setAttribute(ATTR.attemptId, attemptId);
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    propagation.inject(trace.setSpan(parent, span), headers, {
      set: (carrier, key, value) => carrier.set(key, value),
    });
    try {
      const response = await original(input, { ...init, headers });
      span.setAttribute('http.response.status_code', response.status);
      if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      return response;
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).name });
      throw error;
    } finally {
      span.end();
    }
  };
  globalThis.fetch = traced;
  return () => {
    if (globalThis.fetch === traced) globalThis.fetch = original;
  };
}
