// The API's Temporal client runs over the SDK's native connection (runtime/temporal.ts). Every error the
// gateway tells apart (orchestration/errors.ts) must read the same as on the grpc-js connection it replaced:
// each case below runs on both, against a real dev server, and both must land in the same class with the
// same gRPC status, including a server killed with SIGKILL under an update in flight, and a deadline.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection, isGrpcServiceError, WithStartWorkflowOperation } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { answerIsStored, isAlreadyStarted, isWorkflowMissing, updateFailure } from '../orchestration/errors';
import { clientOver } from '../runtime/temporal';
import { startDevServer, type RunningDevServer } from '../temporal-dev/dev-server';
import { quietLogger } from '../worker/bundle';
import { installRuntime } from '../worker/worker';
import { freePort } from './support/free-port';
import { refuse, release, waitForRelease } from './support/client-workflows';

interface Classified {
  error: string;
  grpcCode: number | null;
  answerIsStored: boolean;
  missing: boolean;
  alreadyStarted: boolean;
  failureType: string | null;
}

/** What the gateway reads from an error: its class, the gRPC status under it, and each predicate. */
function classify(error: unknown): Classified {
  const cause = (error as { cause?: unknown }).cause;
  const grpc = isGrpcServiceError(error) ? error : isGrpcServiceError(cause) ? cause : undefined;
  return {
    error: (error as Error).constructor.name,
    grpcCode: grpc?.code ?? null,
    answerIsStored: answerIsStored(error),
    missing: isWorkflowMissing(error),
    alreadyStarted: isAlreadyStarted(error),
    failureType: updateFailure(error)?.type ?? null,
  };
}

async function failure(call: Promise<unknown>): Promise<Classified> {
  try {
    await call;
  } catch (error) {
    return classify(error);
  }
  throw new Error('the call succeeded');
}

interface Server {
  dev: RunningDevServer;
  dataDir: string;
  native: NativeConnection;
  grpc: Connection;
  clients: { native: Client; grpc: Client };
}

async function startServer(): Promise<Server> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'client-errors-'));
  const dev = await startDevServer({
    dataDir,
    port: await freePort(),
    uiPort: await freePort(),
    namespace: 'default',
  });
  const native = await NativeConnection.connect({ address: dev.address });
  const grpc = await Connection.connect({ address: dev.address });
  return {
    dev,
    dataDir,
    native,
    grpc,
    clients: { native: clientOver(native, 'default'), grpc: new Client({ connection: grpc }) },
  };
}

/** Closes the connections and removes the data; `killed`: the server's process is already gone. */
async function stopServer(server: Server | undefined, killed = false): Promise<void> {
  if (!server) return;
  await server.native.close();
  await server.grpc.close();
  if (!killed) await server.dev.stop();
  rmSync(server.dataDir, { recursive: true, force: true });
}

/** The same call on both clients, each failing: their readings, native first. */
async function onEach(
  call: (client: Client, id: string) => Promise<unknown>,
): Promise<[Classified, Classified]> {
  const [native, grpc] = await Promise.all(
    (['native', 'grpc'] as const).map((kind) =>
      failure(call(server.clients[kind], `${kind}-${randomBytes(4).toString('hex')}`)),
    ),
  );
  return [native, grpc];
}

/** The same call on both clients; both must fail alike, and that reading is returned. */
async function onBoth(call: (client: Client, id: string) => Promise<unknown>): Promise<Classified> {
  const [native, grpc] = await onEach(call);
  expect(native).toEqual(grpc);
  return native;
}

const taskQueue = 'client-errors';
let server: Server;
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  installRuntime('ERROR');
  server = await startServer();
  worker = await Worker.create({
    connection: server.native,
    taskQueue,
    workflowBundle: await bundleWorkflowCode({
      workflowsPath: require.resolve('./support/client-workflows'),
      logger: quietLogger,
    }),
  });
  running = worker.run();
}, 120_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await stopServer(server);
}, 60_000);

const start = (client: Client, workflowId: string) =>
  client.workflow.start('holder', { taskQueue, workflowId });

it('reads a second start of a running workflow as already started', async () => {
  const read = await onBoth(async (client, id) => {
    await start(client, id);
    await start(client, id);
  });
  expect(read).toMatchObject({ error: 'WorkflowExecutionAlreadyStartedError', alreadyStarted: true });
});

it('reads a signal or an update to a workflow that never ran as missing', async () => {
  const signalled = await onBoth((client, id) => client.workflow.getHandle(id).signal(release));
  expect(signalled).toMatchObject({ error: 'WorkflowNotFoundError', missing: true, answerIsStored: true });
  const updated = await onBoth((client, id) => client.workflow.getHandle(id).executeUpdate(refuse));
  expect(updated).toMatchObject({ error: 'WorkflowNotFoundError', missing: true, answerIsStored: true });
});

it("reads an update's business failure, alone and in Update-with-Start", async () => {
  const alone = await onBoth(async (client, id) => {
    const handle = await start(client, id);
    await handle.executeUpdate(refuse);
  });
  expect(alone).toMatchObject({ error: 'WorkflowUpdateFailedError', failureType: 'test_refusal' });
  const withStart = await onBoth((client, id) =>
    client.workflow.executeUpdateWithStart(refuse, {
      startWorkflowOperation: new WithStartWorkflowOperation('holder', {
        taskQueue,
        workflowId: id,
        workflowIdConflictPolicy: 'USE_EXISTING',
      }),
    }),
  );
  expect(withStart).toEqual(alone);
});

it('reads Update-with-Start on a closed workflow whose id may not be reused as a stored answer', async () => {
  const read = await onBoth(async (client, id) => {
    const handle = await start(client, id);
    await handle.signal(release);
    await handle.result();
    await client.workflow.executeUpdateWithStart(waitForRelease, {
      startWorkflowOperation: new WithStartWorkflowOperation('holder', {
        taskQueue,
        workflowId: id,
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      }),
    });
  });
  expect(read).toMatchObject({ alreadyStarted: true, answerIsStored: true });
});

it('reads an update cut short by its deadline as a stored answer', async () => {
  const [native, grpc] = await onEach(async (client, id) => {
    const handle = await start(client, id);
    await client.withDeadline(Date.now() + 500, () => handle.executeUpdate(waitForRelease));
  });
  // Where the native connection's own timer ends the call before the server's answer does, it reports
  // CANCELLED and grpc-js DEADLINE_EXCEEDED; the gateway reads both the same.
  expect([1, 4]).toContain(native.grpcCode);
  expect({ ...native, grpcCode: grpc.grpcCode }).toEqual(grpc);
  expect(native).toMatchObject({ error: 'WorkflowUpdateRPCTimeoutOrCancelledError', answerIsStored: true });
  // A start past its deadline is wrapped as a service error, and still read as a stored answer on both.
  const [nativeStart, grpcStart] = await onEach((client, id) =>
    client.withDeadline(Date.now() - 1, () => start(client, id)),
  );
  expect([1, 4]).toContain(nativeStart.grpcCode);
  expect({ ...nativeStart, grpcCode: grpcStart.grpcCode }).toEqual(grpcStart);
  expect(nativeStart).toMatchObject({ error: 'ServiceError', answerIsStored: true });
});

it('reads an update in flight when the server is killed, and a start after it, alike', async () => {
  const doomed = await startServer();
  try {
    // No worker polls this server: each update waits on the server to be accepted when it dies. (Were
    // one still on its way, it would meet the dead server instead; both clients must read that alike too.)
    const handles = await Promise.all(
      (['native', 'grpc'] as const).map((kind) => start(doomed.clients[kind], `${kind}-killed`)),
    );
    const inFlight = handles.map((handle) => failure(handle.executeUpdate(waitForRelease)));
    await new Promise((resolve) => setTimeout(resolve, 300));
    process.kill(doomed.dev.pid, 'SIGKILL');
    const [native, grpc] = await Promise.all(inFlight);
    expect(native).toEqual(grpc);
    expect(native).toMatchObject({ grpcCode: 14, answerIsStored: true });

    const [nativeStart, grpcStart] = await Promise.all(
      (['native', 'grpc'] as const).map((kind) => failure(start(doomed.clients[kind], `${kind}-late`))),
    );
    expect(nativeStart).toEqual(grpcStart);
    expect(nativeStart).toMatchObject({ error: 'ServiceError', grpcCode: 14 });
  } finally {
    await stopServer(doomed, true);
  }
}, 120_000); // grpc-js retries an unreachable server for about 20 s per call, the native connection for about 6 s
