// Workflow interceptors, bundled into the workflow code: a workflow started, updated or signalled with a
// trace in its headers (the API traces only when tracing is on) runs under OpenTelemetry's interceptors,
// which parent its span on the caller's and pass the trace on to its activities and children. Any other
// workflow goes straight through, touching nothing, so recorded histories replay unchanged.
import type * as OtelApi from '@opentelemetry/api';
import type * as OtelWorkflow from '@temporalio/interceptors-opentelemetry/lib/workflow';
import type { WorkflowInterceptors } from '@temporalio/workflow';

/** The header OpenTelemetry's interceptors carry a trace in (their `TRACE_HEADER`). */
export const TRACE_HEADER = '_tracer-data';

// A module first required inside a workflow is evaluated for that workflow alone, and OpenTelemetry's are
// a hundred or so: they are loaded only by a workflow that carries a trace, so an untraced one never pays.
const tracing = (): { api: typeof OtelApi; workflow: typeof OtelWorkflow } => ({
  api: require('@opentelemetry/api') as typeof OtelApi,
  workflow: require('@temporalio/interceptors-opentelemetry/lib/workflow') as typeof OtelWorkflow,
});

export const interceptors = (): WorkflowInterceptors => {
  let otel:
    | {
        api: typeof OtelApi;
        inbound: OtelWorkflow.OpenTelemetryInboundInterceptor;
        outbound: OtelWorkflow.OpenTelemetryOutboundInterceptor;
        internals: OtelWorkflow.OpenTelemetryInternalsInterceptor;
      }
    | undefined;
  const tracedBy = (headers: Record<string, unknown>) => {
    if (!(TRACE_HEADER in headers)) return undefined;
    if (!otel) {
      const { api, workflow } = tracing();
      otel = {
        api,
        inbound: new workflow.OpenTelemetryInboundInterceptor(),
        outbound: new workflow.OpenTelemetryOutboundInterceptor(),
        internals: new workflow.OpenTelemetryInternalsInterceptor(),
      };
    }
    return otel;
  };
  const annotate = (arg: unknown) => {
    // The attempt engine's workflow and activities take `{ family, input }`; other workflows their ids flat.
    const outer = (arg ?? {}) as { input?: unknown };
    const ids = (outer.input && typeof outer.input === 'object' ? outer.input : outer) as {
      attemptId?: unknown;
      orgId?: unknown;
    };
    const span = otel?.api.trace.getActiveSpan();
    if (typeof ids.attemptId === 'string') span?.setAttribute('gateway.attempt_id', ids.attemptId);
    if (typeof ids.orgId === 'string') span?.setAttribute('gateway.org_id', ids.orgId);
  };
  return {
    inbound: [
      {
        execute: (input, next) => {
          const on = tracedBy(input.headers);
          return on
            ? on.inbound.execute(input, (inner) => {
                annotate(inner.args[0]);
                return next(inner);
              })
            : next(input);
        },
        handleSignal: (input, next) =>
          tracedBy(input.headers)?.inbound.handleSignal(input, next) ?? next(input),
        handleUpdate: (input, next) =>
          tracedBy(input.headers)?.inbound.handleUpdate(input, next) ?? next(input),
        validateUpdate: (input, next) => {
          const on = tracedBy(input.headers);
          if (on) on.inbound.validateUpdate(input, next);
          else next(input);
        },
      },
    ],
    outbound: [
      {
        scheduleActivity: (input, next) => (otel ? otel.outbound.scheduleActivity(input, next) : next(input)),
        scheduleLocalActivity: (input, next) =>
          otel ? otel.outbound.scheduleLocalActivity(input, next) : next(input),
        startChildWorkflowExecution: (input, next) =>
          otel ? otel.outbound.startChildWorkflowExecution(input, next) : next(input),
        getLogAttributes: (input, next) => (otel ? otel.outbound.getLogAttributes(input, next) : next(input)),
      },
    ],
    internals: [
      {
        // The SDK does not await dispose; the tracing interceptor's is asynchronous (it ends its spans).
        dispose: (input, next) => {
          if (otel) void otel.internals.dispose(input, next);
          else next(input);
        },
      },
    ],
  };
};
