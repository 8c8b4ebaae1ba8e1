// The dispatcher's first-attempt lanes: bounded, a chain that waits too long for a lane is handed back
// (the dispatcher then starts its workflow), and draining waits for every attempt under way.
import type { ChainRuntime } from '../domain/webhooks/chains';
import type { DispatchedChain } from '../domain/webhooks/deliveries';
import { createLogger } from '../runtime/logger';
import { firstAttempts } from '../worker/first-attempts';
import type { AttemptResult } from '../contracts/webhook-messages';

const chain = (n: number): DispatchedChain => ({
  chain_id: BigInt(n),
  attempt: 1,
  org_id: 'org_1',
  project_id: 'prj_1',
  environment: 'test',
  trigger_id: 'trg_1',
  event_id: `evt_${n}`,
  event_type: 'payment.succeeded',
  context: {
    delivery_id: BigInt(n),
    trigger_id: 'trg_1',
    status: 'pending',
    error: null,
    response_status: null,
    endpoint_status: 'active',
    webhook_url: 'http://127.0.0.1:1/hooks',
    sealed_secret: null,
    event_id: `evt_${n}`,
    event_type: 'payment.succeeded',
    event_created_at: '2026-01-01T00:00:00.000Z',
    event_data: {},
    project_id: 'prj_1',
    environment: 'test',
    next_due_in_ms: null,
  },
});
// Delivered attempts never reach Temporal, so the runtime's client is not used here.
const runtime = {
  client: undefined,
  taskQueue: 'unused',
  settings: { retrySchedule: [5_000] },
} as unknown as ChainRuntime;

it('runs at most `lanes` attempts at once and hands back a chain that finds them busy past its wait', async () => {
  const gates: Array<() => void> = [];
  const attempted: string[] = [];
  const lanes = firstAttempts({
    lanes: 2,
    runtime,
    log: createLogger('error'),
    attempt: (key) =>
      new Promise<AttemptResult>((resolve) => {
        attempted.push(key.chainId);
        gates.push(() =>
          resolve({ kind: 'delivered', deliveryId: key.chainId, attempt: key.attempt, responseStatus: 200 }),
        );
      }),
  });
  expect(await lanes.offer(chain(1), 50)).toBe(true);
  expect(await lanes.offer(chain(2), 50)).toBe(true);
  expect(await lanes.offer(chain(3), 50)).toBe(false);
  expect(attempted).toEqual(['1', '2']);

  // A lane freed within the wait takes the next chain.
  const offered = lanes.offer(chain(4), 5_000);
  gates.shift()!();
  expect(await offered).toBe(true);
  expect(attempted).toEqual(['1', '2', '4']);

  let drained = false;
  const draining = lanes.drain().then(() => {
    drained = true;
  });
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(drained).toBe(false);
  while (gates.length > 0) gates.shift()!();
  await draining;
  expect(drained).toBe(true);
});
