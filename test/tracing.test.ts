// OpenTelemetry traces through HTTP, on both Temporal servers: one wallet execute is one trace, from the
// API's server span (named by route, with the request id) through the Temporal client's update-with-start,
// the moneyAttempt workflow, its activities and the call to the payment provider, which name the attempt.
// Spans are collected in memory.
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { TRACE_HEADER as LIBRARY_TRACE_HEADER } from '@temporalio/interceptors-opentelemetry/lib/instrumentation';
import { startTracing, type Tracing } from '../runtime/telemetry/tracing';
import { TRACE_HEADER } from '../runtime/telemetry/workflow-interceptors';
import { startGateway, TEMPORAL_SERVERS, type Gateway } from './support/harness';
import { fund, newWallet } from './support/money';

const exporter = new InMemorySpanExporter();
let tracing: Tracing;
beforeAll(() => {
  // Before any gateway starts, as the API and worker processes start it before their Temporal client and worker.
  tracing = startTracing({ serviceName: 'gateway-test', exporter })!;
});
afterAll(async () => {
  await tracing?.shutdown();
});

async function until<T>(read: () => T | Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 300; i += 1) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}

it("looks for a workflow's trace under the header OpenTelemetry's interceptors write", () => {
  // The workflow interceptors name it without loading the library, which only a traced workflow loads.
  expect(TRACE_HEADER).toBe(LIBRARY_TRACE_HEADER);
});

const parentOf = (span: ReadableSpan) => span.parentSpanId;

describe.each(TEMPORAL_SERVERS)('tracing on the %s Temporal server', (server) => {
  let gw: Gateway;
  beforeAll(async () => {
    // Tracing is on before the gateway starts, so the harness's API client carries its interceptors, as
    // the API process's does.
    gw = await startGateway({ temporal: server });
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
  });

  it('makes one wallet execute one trace, from the HTTP request through the workflow and its activities to the provider call', async () => {
    const t = await gw.createTenant();
    const wallet = await newWallet(gw, t, { agent_id: 'shopper' });
    await fund(gw, t, wallet, 100_000);
    exporter.reset();
    const attemptId = `trace-${server}-${Date.now()}`;
    const executed = await gw.request('POST', `/v1/wallets/${wallet}/execute`, {
      key: t.key,
      body: {
        amount: 12.5,
        currency: 'BRL',
        recipient: 'vendor-9',
        description: 'Cables',
        mandate_id: 'mdt_1',
        attempt_id: attemptId,
      },
    });
    expect(executed.status).toBe(200);
    const requestId = executed.headers.get('x-request-id');

    // The answer can reach the caller before every span has ended (the client's update-with-start call may
    // still be returning when the settled reply is sent), so the trace is read once all of them have.
    const expected = [
      'POST /v1/wallets/:id/execute',
      'UpdateWithStartWorkflow:attemptAnswer',
      'RunWorkflow:moneyAttempt',
      'HandleUpdate:attemptAnswer',
      // Authorized, sent and settled in one step.
      'StartActivity:decideAttempt',
      'RunActivity:decideAttempt',
    ];
    const spans = await until(
      () => exporter.getFinishedSpans(),
      (all) => expected.every((name) => all.some((span) => span.name === name)),
      'the spans of the trace',
    );
    const root = spans.find((span) => span.name === 'POST /v1/wallets/:id/execute')!;
    expect(root).toBeDefined();
    expect(root.attributes).toMatchObject({
      'gateway.request_id': requestId,
      'gateway.attempt_id': attemptId,
      'gateway.org_id': t.orgId,
      'http.route': '/v1/wallets/:id/execute',
      'http.response.status_code': 200,
    });
    expect(parentOf(root)).toBeUndefined();

    const traceId = root.spanContext().traceId;
    const inTrace = spans.filter((span) => span.spanContext().traceId === traceId);
    const names = inTrace.map((span) => span.name);
    expect(names).toEqual(expect.arrayContaining(expected));
    // Every span of the trace hangs off another span of it: one tree, rooted at the request.
    const ids = new Set(inTrace.map((span) => span.spanContext().spanId));
    for (const span of inTrace) if (span !== root) expect(ids.has(parentOf(span)!)).toBe(true);

    const workflow = inTrace.find((span) => span.name === 'RunWorkflow:moneyAttempt')!;
    expect(workflow.attributes['gateway.attempt_id']).toBe(attemptId);
    const dispatch = inTrace.find((span) => span.name === 'RunActivity:decideAttempt')!;
    expect(dispatch.attributes['gateway.attempt_id']).toBe(attemptId);
    const providerUrl = new URL(gw.mocks.payments.url);
    const providerCall = inTrace.find((span) => span.name === `HTTP POST ${providerUrl.host}`)!;
    expect(providerCall).toBeDefined();
    expect(providerCall.attributes).toMatchObject({
      'gateway.attempt_id': attemptId,
      'http.response.status_code': expect.any(Number),
    });
    expect(parentOf(providerCall)).toBe(dispatch.spanContext().spanId);

    // Nothing of this attempt escaped into another trace.
    const named = spans.filter((span) => span.attributes['gateway.attempt_id'] === attemptId);
    expect(named.length).toBeGreaterThanOrEqual(3);
    expect(new Set(named.map((span) => span.spanContext().traceId))).toEqual(new Set([traceId]));
  });
});
