// What a worker needs for tracing: activity spans (children of the workflow's span through the activity's
// headers, with the attempt id as an attribute and in the context of the provider calls below them), and
// the sink the workflow sandbox exports its spans through. Only activities whose headers carry a trace
// are traced, so an untraced workflow costs nothing.
import { context, trace } from '@opentelemetry/api';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  type OpenTelemetrySinks,
} from '@temporalio/interceptors-opentelemetry';
import { TRACE_HEADER } from '@temporalio/interceptors-opentelemetry/lib/instrumentation';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import { withAttempt } from './attributes';
import { annotate, idsOf, tracing } from './tracing';

export const activityTracing: ActivityInterceptorsFactory = (ctx) => {
  const traced = new OpenTelemetryActivityInboundInterceptor(ctx);
  return {
    inbound: {
      execute(input, next) {
        if (!tracing() || !(TRACE_HEADER in input.headers)) return next(input);
        const ids = idsOf(input.args[0]);
        return traced.execute(input, (inner) => {
          annotate(trace.getActiveSpan(), ids);
          return ids.attemptId
            ? context.with(withAttempt(context.active(), ids.attemptId), () => next(inner))
            : next(inner);
        });
      },
    },
  };
};

/** The sink of workflow spans: to the process's span processor, or dropped while tracing is off here. */
export function workflowSpanSinks(): InjectedSinks<OpenTelemetrySinks> {
  const on = tracing();
  if (on) return { exporter: makeWorkflowExporter(on.processor, on.resource) };
  return { exporter: { export: { fn: () => undefined } } };
}
