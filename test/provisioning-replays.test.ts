// The provisioning-run workflow replays its histories on the current bundle: each path (a code accepted
// after a wrong one, no code needed, the pause expired, a cancel, a provider that never answered) is
// driven through HTTP on both Temporal servers and replayed at once, and (RECORD_HISTORIES=1, `npm run
// record-histories`) saved under test/replay/provisioning/, where later versions must keep replaying them.
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { workflowIds } from '../contracts/workflow-ids';
import type { ApiKeyMock } from '../providers/mocks/auth-api-key';
import { waitFor } from './support/consents';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';
import {
  recordedHistories,
  REPLAY_DIR,
  replayBundle,
  replayFinished,
  scheduledActivities,
} from './support/histories';

const DIR = path.join(REPLAY_DIR, 'provisioning');
const PATHS = [
  'provisioning-run-verified',
  'provisioning-run-no-code',
  'provisioning-run-expired',
  'provisioning-run-canceled',
  'provisioning-run-unavailable',
];

describe.each(TEMPORAL_SERVERS)('provisioning run histories on the %s server', (server) => {
  let gw: Gateway;
  let pix: ApiKeyMock;
  let t: Tenant;
  beforeAll(async () => {
    gw = await startGateway({ temporal: server });
    pix = gw.mocks.auth_api_key as unknown as ApiKeyMock;
  });
  beforeEach(async () => {
    // A tenant per path: one open run per project and provider.
    t = await gw.createTenant();
  });
  afterEach(() => {
    pix.signups.settings.codeTtlSeconds = 900;
    pix.signups.settings.verification = true;
  });
  afterAll(async () => {
    await gw?.stop();
  });

  let n = 0;
  const start = async () => {
    const email = `replay-${server}-${++n}@acme.example`;
    const r = await gw.request('POST', '/v1/providers/pix-psp/provisioning-runs', {
      key: t.key,
      body: { email },
    });
    expect(r.status).toBe(201);
    return { id: r.body.id as string, email };
  };
  const status = async (id: string) =>
    (await gw.request('GET', `/v1/provisioning-runs/${id}`, { key: t.key })).body.status as string;
  const awaiting = (id: string) =>
    waitFor(async () => (await status(id)) === 'awaiting_verification', 30_000);
  const replay = (id: string, label: string) =>
    replayFinished<string>(gw, workflowIds.provisioningRun(id), `${label}.${server}`, { dir: DIR });

  it('replays a run verified after a wrong code', async () => {
    const { id, email } = await start();
    await awaiting(id);
    const code = (c: string) =>
      gw.request('POST', `/v1/provisioning-runs/${id}/verification`, { key: t.key, body: { code: c } });
    expect((await code(pix.signups.codeFor(email) === '999999' ? '999998' : '999999')).status).toBe(422);
    const right = pix.signups.codeFor(email)!;
    expect((await code(right)).status).toBe(200);
    const { history, result } = await replay(id, 'provisioning-run-verified');
    expect(result).toBe('succeeded');
    // The code travels sealed: no update in the history carries it.
    const updateArgs = (history.events ?? []).flatMap((event) =>
      (
        event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.args?.payloads ?? []
      ).map((payload) => Buffer.from(payload.data ?? []).toString('utf8')),
    );
    expect(updateArgs).toHaveLength(2);
    expect(updateArgs.join(' ')).not.toContain(right);
    expect(scheduledActivities(history)).toEqual([
      'startSandboxSignup',
      'verifySandboxSignup',
      'verifySandboxSignup',
      'issueSandboxCredential',
    ]);
  });

  it('replays a run whose provider asked for no code', async () => {
    pix.signups.settings.verification = false;
    const { id } = await start();
    const { history, result } = await replay(id, 'provisioning-run-no-code');
    expect(result).toBe('succeeded');
    expect(scheduledActivities(history)).toEqual(['startSandboxSignup', 'issueSandboxCredential']);
  });

  it('replays a run whose pause expired', async () => {
    pix.signups.settings.codeTtlSeconds = 2;
    const { id } = await start();
    await awaiting(id);
    await gw.env.sleep(3_000);
    const { history, result } = await replay(id, 'provisioning-run-expired');
    expect(result).toBe('expired');
    expect(scheduledActivities(history)).toEqual(['startSandboxSignup', 'endProvisioningRun']);
  });

  it('replays a canceled run', async () => {
    const { id } = await start();
    await awaiting(id);
    expect((await gw.request('POST', `/v1/provisioning-runs/${id}/cancel`, { key: t.key })).status).toBe(200);
    const { result } = await replay(id, 'provisioning-run-canceled');
    expect(result).toBe('canceled');
  });

  it('replays a run whose provider never answered', async () => {
    pix.signups.script('signup', { status: 503 }, { status: 503 }, { status: 503 });
    const { id } = await start();
    const { history, result } = await replay(id, 'provisioning-run-unavailable');
    expect(result).toBe('failed');
    expect(scheduledActivities(history)).toEqual(['startSandboxSignup', 'endProvisioningRun']);
  });
});

describe('recorded provisioning run histories', () => {
  it('are kept for every path on both servers', () => {
    const recorded = recordedHistories(DIR);
    expect(recorded.map((r) => r.name)).toEqual(
      expect.arrayContaining(PATHS.flatMap((p) => TEMPORAL_SERVERS.map((s) => `${p}.${s}`))),
    );
    expect(new Set(recorded.map((r) => r.workflowType))).toEqual(new Set(['provisioningRun']));
  });

  it('replay on the current workflow bundle without a determinism error', async () => {
    const failures: string[] = [];
    const histories = recordedHistories(DIR).map((r) => ({ workflowId: r.name, history: r.history }));
    for await (const result of Worker.runReplayHistories(replayBundle(), histories)) {
      if (result.error) failures.push(`${result.workflowId}: ${result.error.name}: ${result.error.message}`);
    }
    expect(failures).toEqual([]);
  });
});
