// The Temporal harness end to end: the API starts a workflow, the real worker (prebuilt bundle) runs
// it and its activity reaches PostgreSQL; with no worker polling, the operator is told so.
import { startGateway, type Gateway } from './support/harness';

let gw: Gateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.stop();
});

it('runs the probe workflow through the worker and reports the database clock and schema version', async () => {
  const result = await gw.operator('GET', '/v1/ops/readiness');
  expect(result.status).toBe(200);
  expect(result.body).toMatchObject({
    status: 'ok',
    worker: 'polling',
    schema_version: expect.stringMatching(/^\d{4}$/),
  });
  expect(Date.parse(result.body.database_time)).not.toBeNaN();
  const run = await gw.env.client.workflow.getHandle(result.body.workflow_id).describe();
  expect(run.type).toBe('workerProbe');
  expect(run.status.name).toBe('COMPLETED');
  expect(run.taskQueue).toBe(gw.taskQueue);
});

it('answers 503 worker_unavailable when no worker completes the probe', async () => {
  await gw.stopWorker();
  try {
    const result = await gw.operator('GET', '/v1/ops/readiness?timeout_ms=500');
    expect(result.status).toBe(503);
    expect(result.body.error.code).toBe('worker_unavailable');
  } finally {
    await gw.startWorker();
  }
  expect((await gw.operator('GET', '/v1/ops/readiness')).status).toBe(200);
});

it('is closed to API keys', async () => {
  const tenant = await gw.createTenant();
  const result = await gw.request('GET', '/v1/ops/readiness', { key: tenant.key });
  expect(result.status).toBe(401);
});
