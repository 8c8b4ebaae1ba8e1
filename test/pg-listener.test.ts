// The listening connection behind every cross-process cache (keys revoked, sessions closed): an end is
// dropped here and acknowledged, the ender waits for the acknowledgement, and a dropped connection clears
// the cache, is not trusted while down, and listens again by itself.
import { sql } from 'slonik';
import { createLogger } from '../runtime/logger';
import { listenForDrops, type SharedDrops } from '../runtime/pg-listener';
import { startGateway, type Gateway } from './support/harness';

const NAME = 'gateway-test-drops';
const CHANNEL = 'gateway_test_dropped';

let gw: Gateway;
let drops: SharedDrops;
const seen: string[] = [];
beforeAll(async () => {
  gw = await startGateway({ worker: false });
  drops = await listenForDrops(
    gw.config.databaseUrl!,
    {
      name: NAME,
      channel: CHANNEL,
      ackChannel: `${CHANNEL}_ack`,
      what: 'test drop',
      log: createLogger('error'),
    },
    { drop: (id) => seen.push(`drop ${id}`), clear: () => seen.push('clear') },
  );
}, 120_000);
afterAll(async () => {
  await drops?.stop();
  await gw?.stop();
});

const notify = (id: string) => gw.db.query(sql.unsafe`SELECT pg_notify(${CHANNEL}, ${id})`);

/** Waits for a condition that a notification or a reconnection makes true (no clock in the assertion). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 20));
}

it('drops what another process ends, and the ender waits for the acknowledgement', async () => {
  expect(drops.heard()).toBe(true);
  expect(seen).toEqual(['clear']);
  await notify('a');
  await until(() => seen.includes('drop a'));
  // This process is the one listener, and it acknowledged.
  await drops.everywhere('a');
  expect(seen).toEqual(['clear', 'drop a']);
});

it('clears the cache when its connection drops, is not trusted while down, and listens again by itself', async () => {
  seen.length = 0;
  await gw.db.query(
    sql.unsafe`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ${NAME}`,
  );
  await until(() => !drops.heard());
  expect(seen[0]).toBe('clear');
  await until(() => drops.heard());
  // Cleared once when lost, once when listening again.
  expect(seen).toEqual(['clear', 'clear']);
  await notify('b');
  await until(() => seen.includes('drop b'));
  await drops.everywhere('b');
  expect(seen).toEqual(['clear', 'clear', 'drop b']);
}, 30_000);
