// The gateway as production runs it: the real Temporal server on PostgreSQL (built once from the Go
// module proxy into .cluster/bin/), two worker processes and two API processes behind one shared port,
// all separate Node processes. Duplicate wallet executes racing across both API processes move money
// once, a key revoked through one process is refused by every process straight away, and an API and a
// worker killed with SIGKILL are started again and serve and poll.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { freeTemporalPorts } from '../cluster/ports';
import { waitFor } from '../cluster/processes';
import { startCluster, type RunningCluster } from '../cluster/stack';
import { ensureDatabase } from '../local/postgres';
import { loadConfig } from '../runtime/config';
import type { PaymentsMock } from '../providers/mocks/payments';
import type { PixPspMock } from '../providers/mocks/pix-psp';
import { gatewayClient, type GatewayClient, type HttpResult, type Tenant } from './support/client';
import { pixSpend, readyConsumer } from './support/consumer-spend';
import { TEMPLATE_DATABASE } from './support/global-setup';

let cluster: RunningCluster;
let dataDir: string;
let shared: GatewayClient;
let perApi: GatewayClient[];
let payments: PaymentsMock;
const logged: string[] = [];
const serviceToken = randomBytes(24).toString('hex');

beforeAll(async () => {
  const adminUrl = process.env.TEST_DATABASE_ADMIN_URL;
  if (!adminUrl) throw new Error('TEST_DATABASE_ADMIN_URL is unset: run the tests through jest');
  const suffix = randomBytes(4).toString('hex');
  const database = `test_cluster_${suffix}`;
  await ensureDatabase(adminUrl, database, TEMPLATE_DATABASE);
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'gateway-cluster-'));
  cluster = await startCluster({
    dataDir,
    databaseUrl: adminUrl.replace(/\/[^/]*$/, `/${database}`),
    temporal: {
      postgresUrl: adminUrl,
      databases: { main: `temporal_${suffix}`, visibility: `temporal_visibility_${suffix}` },
      historyShards: 2,
      ports: await freeTemporalPorts(),
    },
    workers: 2,
    apis: 2,
    host: '127.0.0.1',
    port: 0,
    serviceToken,
    env: { LOG_LEVEL: 'warn' },
    mocks: true,
    log: (line) => logged.push(line),
  });
  shared = gatewayClient(cluster.url, serviceToken);
  perApi = cluster.apis.map((api) => gatewayClient(api.url!, serviceToken));
  payments = cluster.mocks.payments as PaymentsMock;
}, 30 * 60_000); // the first run in a checkout builds the Temporal server: 5-20 minutes on 2 cores, then cached in .cluster/bin

afterAll(async () => {
  await cluster?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

let n = 0;
const attempt = () => `att-cluster-${Date.now()}-${++n}`;
const spend = (attemptId: string) => ({
  amount: 12.34,
  currency: 'BRL',
  recipient: 'merchant-42',
  description: 'Office supplies',
  mandate_id: 'mdt_test',
  purpose: 'supplies',
  attempt_id: attemptId,
});

async function fundedWallet(tenant: Tenant, amountMinor: number): Promise<string> {
  const created = await shared.request('POST', '/v1/wallets', {
    key: tenant.key,
    body: { display_name: 'Ops wallet', currency: 'BRL' },
  });
  expect(created.status).toBe(201);
  const funded = await shared.request('POST', '/v1/ledger-entries', {
    key: tenant.key,
    body: {
      wallet_id: created.body.id,
      org_id: tenant.orgId,
      currency: 'BRL',
      amount_minor: String(amountMinor),
      kind: 'fund',
    },
  });
  expect(funded.status).toBe(201);
  return created.body.id;
}

describe('two API and two worker processes on a real Temporal server', () => {
  it('runs every API and worker as a process of its own, the APIs sharing one port', async () => {
    const pids = new Set(
      [...cluster.apis, ...cluster.workers].map((p) => p.pid).concat(process.pid, cluster.temporalPid),
    );
    expect(pids.size).toBe(6);
    for (const client of [shared, ...perApi]) {
      const answer = await client.request('GET', '/openapi.json');
      expect(answer.status).toBe(200);
      expect(answer.body.openapi).toBe('3.1.0');
    }
  });

  it('moves money once when duplicates of each wallet execute race across both API processes', async () => {
    const tenant = await shared.createTenant();
    const wallet = await fundedWallet(tenant, 10_000);
    const ids = Array.from({ length: 4 }, attempt);
    // Each attempt is presented six times at once: three times to each API process directly.
    const results = await Promise.all(
      ids.flatMap((id) =>
        Array.from({ length: 6 }, (_, i) =>
          perApi[i % 2]
            .request('POST', `/v1/wallets/${wallet}/execute`, { key: tenant.key, body: spend(id) })
            .then((r) => ({ id, r })),
        ),
      ),
    );
    for (const { id, r } of results) {
      expect([r.status, r.body.status, r.body.attempt_id]).toEqual([200, 'completed', id]);
    }
    for (const id of ids) {
      const answers = results.filter((result) => result.id === id).map(({ r }) => r.body.wallet.debitId);
      expect(new Set(answers).size).toBe(1); // every duplicate names the same single debit
      expect(payments.payments().filter((p) => p.reference === id)).toHaveLength(1);
    }
    const balance = (await shared.request('GET', `/v1/wallets/${wallet}`, { key: tenant.key })).body
      .balances[0];
    expect(balance).toMatchObject({
      balance_minor: String(10_000 - 4 * 1234),
      available_minor: String(10_000 - 4 * 1234),
    });
    const entries = (await shared.request('GET', `/v1/wallets/${wallet}/ledger-entries`, { key: tenant.key }))
      .body.entries as Array<{ kind: string }>;
    expect(entries.map((e) => e.kind).sort()).toEqual([
      'debit',
      'debit',
      'debit',
      'debit',
      'fund',
      'hold',
      'hold',
      'hold',
      'hold',
    ]);
  });

  it('refuses a key revoked through one API process on every process at once', async () => {
    for (let round = 0; round < 5; round++) {
      const tenant = await shared.createTenant();
      // Both processes have seen the key, so each holds it in its cache.
      for (const client of perApi)
        expect((await client.request('GET', '/v1/wallets', { key: tenant.key })).status).toBe(200);
      const revoked = await perApi[round % 2].operator('DELETE', `/v1/api-keys/${tenant.keyId}`, {
        project: tenant.projectId,
      });
      expect(revoked.status).toBe(200);
      // The other process first: the revoke has answered, so it must already refuse the key.
      for (const client of [perApi[(round + 1) % 2], perApi[round % 2]]) {
        expect((await client.request('GET', '/v1/wallets', { key: tenant.key })).status).toBe(401);
      }
      const late = await perApi[(round + 1) % 2].request('POST', '/v1/wallets', {
        key: tenant.key,
        body: { display_name: 'Late', currency: 'BRL' },
      });
      expect(late.status).toBe(401);
    }
  });
});

describe('a process that dies', () => {
  /** The identities polling the gateway's workflow task queue, as the Temporal server sees them. */
  async function pollers(): Promise<string[]> {
    const connection = await Connection.connect({ address: cluster.temporalAddress });
    try {
      const config = loadConfig();
      const described = await connection.workflowService.describeTaskQueue({
        namespace: config.temporal.namespace,
        taskQueue: { name: config.temporal.taskQueue },
        taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
      });
      return (described.pollers ?? []).map((poller) => poller.identity ?? '');
    } finally {
      await connection.close();
    }
  }

  it('is started again after SIGKILL, an API on its own address and a worker polling, and a wallet execute completes', async () => {
    const [api, worker] = [cluster.apis[0], cluster.workers[0]];
    const [apiPid, workerPid] = [api.pid, worker.pid];
    const back = Promise.all([api.nextStart(), worker.nextStart()]);
    process.kill(apiPid, 'SIGKILL');
    process.kill(workerPid, 'SIGKILL');
    const [apiNow, workerNow] = await back;

    expect([apiNow === apiPid, workerNow === workerPid, api.pid, worker.pid]).toEqual([
      false,
      false,
      apiNow,
      workerNow,
    ]);
    expect([api.restarts, worker.restarts]).toEqual([1, 1]);
    expect(logged).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          new RegExp(`^api-1 \\(pid ${apiPid}\\) exited \\(SIGKILL\\); restarting in 0.5 s`),
        ),
        expect.stringMatching(
          new RegExp(`^worker-1 \\(pid ${workerPid}\\) exited \\(SIGKILL\\); restarting in 0.5 s`),
        ),
      ]),
    );
    // Serving on the address it had, which the shared port's proxy forwards to.
    expect((await perApi[0].request('GET', '/openapi.json')).status).toBe(200);
    // The SDK names a worker `<pid>@<host>`: the new process is among the task queue's pollers.
    await waitFor('the restarted worker to poll', 60_000, async () =>
      (await pollers()).includes(`${workerNow}@${os.hostname()}`),
    );

    const tenant = await shared.createTenant();
    const wallet = await fundedWallet(tenant, 5_000);
    const id = attempt();
    const executed = await perApi[0].request('POST', `/v1/wallets/${wallet}/execute`, {
      key: tenant.key,
      body: spend(id),
    });
    expect([executed.status, executed.body.status, executed.body.attempt_id]).toEqual([200, 'completed', id]);
    expect(payments.payments().filter((p) => p.reference === id)).toHaveLength(1);
  });

  it('answers a consumer Pix spend once and pays it once when every worker is killed with SIGKILL while the PSP holds its answer', async () => {
    const pix = cluster.mocks.pix_psp as unknown as PixPspMock;
    const tenant = await shared.createTenant();
    const consumer = await readyConsumer(shared, tenant, { fundMinor: 10_000 });
    const body = pixSpend(consumer, { amount_minor: 1_500 });
    // The PSP pays at once and answers late: the worker that sent it dies before the answer comes.
    pix.script(body.attempt_id, { outcome: 'late', delayMs: 5_000 });
    const execute = (client: GatewayClient) =>
      client.request('POST', '/v1/consumer-payments/execute', { key: tenant.key, body });
    const first = execute(perApi[0]);
    await pix.arrived(body.attempt_id);
    const restarted = cluster.workers.map((worker) => worker.nextStart());
    for (const worker of cluster.workers) process.kill(worker.pid, 'SIGKILL');
    await Promise.all(restarted);

    // Told to come back (409 attempt_in_progress) until a new worker has finished it, then answered.
    const answers: HttpResult[] = [await first];
    while (answers.at(-1)!.status === 409 && answers.length < 60) {
      expect(answers.at(-1)!.body.error.code).toBe('attempt_in_progress');
      await new Promise((resolve) => setTimeout(resolve, 500));
      answers.push(await execute(perApi[1]));
    }
    const answered = answers.at(-1)!;
    expect([answered.status, answered.body.status]).toEqual([200, 'completed']);
    // One fresh answer (the claimant's, or the first presentation to find it once the claimant was told to
    // come back); every later presentation is its replay.
    const replay = await execute(perApi[0]);
    expect(answers.filter((a) => a.status === 200).map((a) => a.body.idempotent_replay)).toEqual([false]);
    expect(replay.body).toEqual({ ...answered.body, idempotent_replay: true });
    // The new worker asked the PSP under the same key: one payment, whatever it sent again.
    expect(pix.payments().filter((p) => p.reference === body.attempt_id)).toHaveLength(1);
    const wallet = await shared.request('GET', `/v1/wallets/${consumer.walletId}`, { key: tenant.key });
    expect(wallet.body.balances[0]).toMatchObject({ balance_minor: '8500', available_minor: '8500' });
  });
});
