// OpenTelemetry tracing of a process, off unless OTEL_EXPORTER_OTLP_ENDPOINT is set (tests pass an
// exporter): one trace runs from the HTTP request through the Temporal client call, the workflow, its
// activities and their provider calls. Spans carry the request id and the attempt id as attributes.
import { context, propagation, trace, type Span, type Tracer } from '@opentelemetry/api';
import type { ClientInterceptors } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { ATTR } from './attributes';
import { AsyncLocalContextManager } from './context-manager';
import { traceFetch } from './fetch-tracing';

export interface Tracing {
  processor: SpanProcessor;
  resource: Resource;
  tracer: Tracer;
  shutdown(): Promise<void>;
}

let active: Tracing | undefined;

/** The process's tracing, or undefined when it is off. */
export function tracing(): Tracing | undefined {
  return active;
}

/**
 * Turns tracing on for this process: with `exporter` (tests), spans go to it as they end; otherwise with
 * an OTLP endpoint they are batched to it (the exporter reads the standard OTEL_EXPORTER_OTLP_* settings).
 * Without either, tracing stays off and nothing here costs anything.
 */
export function startTracing(options: {
  serviceName: string;
  otlpEndpoint?: string;
  exporter?: SpanExporter;
}): Tracing | undefined {
  // Returns only what this call started, so a caller never shuts down tracing another part of the process owns.
  if (active) return undefined;
  if (!options.exporter && !options.otlpEndpoint) return undefined;
  const resource = new Resource({ 'service.name': options.serviceName });
  const processor = options.exporter
    ? new SimpleSpanProcessor(options.exporter)
    : new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new BasicTracerProvider({ resource });
  provider.addSpanProcessor(processor);
  // register() also installs the default propagator (W3C trace context), which carries the trace into Temporal headers.
  provider.register({ contextManager: new AsyncLocalContextManager() });
  const untraceFetch = traceFetch();
  active = {
    processor,
    resource,
    tracer: provider.getTracer('gateway'),
    async shutdown() {
      untraceFetch();
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
      active = undefined;
    },
  };
  return active;
}

/** The attempt and organization an activity or workflow argument names, wherever the gateway's inputs keep them. */
export function idsOf(arg: unknown): { attemptId?: string; orgId?: string } {
  const found: { attemptId?: string; orgId?: string } = {};
  const visit = (value: unknown, depth: number) => {
    if (!value || typeof value !== 'object' || depth > 2) return;
    const record = value as Record<string, unknown>;
    if (typeof record.attemptId === 'string') found.attemptId ??= record.attemptId;
    if (typeof record.orgId === 'string') found.orgId ??= record.orgId;
    for (const nested of ['input', 'req']) visit(record[nested], depth + 1);
  };
  visit(arg, 0);
  return found;
}

export function annotate(span: Span | undefined, ids: { attemptId?: string; orgId?: string }): void {
  if (!span) return;
  if (ids.attemptId) span.setAttribute(ATTR.attemptId, ids.attemptId);
  if (ids.orgId) span.setAttribute(ATTR.orgId, ids.orgId);
}

/** A Temporal client's interceptors: with tracing on, workflow starts, updates and signals carry the caller's trace. */
export function clientInterceptors(): ClientInterceptors | undefined {
  return active ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : undefined;
}
