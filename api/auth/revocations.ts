// Listens for key revocations from any API process and evicts them from this process's key cache.
// When the listening connection drops, the whole cache is cleared before listening again, so a
// revocation missed while disconnected cannot keep a key alive. Each eviction is acknowledged on a
// second channel, and the revoking process waits for every listening process's acknowledgement
// (listeners are counted by their connection's application_name) before it answers, so a revoked key
// is refused by every API process once the revoke call returns, not merely soon after.
import { Client } from 'pg';
import { KEY_REVOKED_CHANNEL } from '../../domain/tenancy/api-keys';
import type { Logger } from '../../runtime/logger';
import type { KeyCache } from './key-cache';

export interface RevocationListener {
  stop(): Promise<void>;
}

const EVICTED_CHANNEL = `${KEY_REVOKED_CHANNEL}_evicted`;
const LISTENER_NAME = 'gateway-key-revocations';
// A process that does not acknowledge in time (stalled, or its connection dropped and it cleared its
// cache) does not hold the revoke call up for longer than this.
const ACK_TIMEOUT_MS = 2_000;

export async function listenForRevocations(
  databaseUrl: string,
  cache: KeyCache,
  log: Logger,
): Promise<RevocationListener> {
  let client: Client | undefined;
  let stopping = false;
  let retry: NodeJS.Timeout | undefined;
  // Acknowledgements seen per key hash, kept briefly: one may arrive before its revoker starts waiting.
  const acks = new Map<string, number>();
  const waiters = new Map<string, () => void>();

  const onAck = (keyHash: string) => {
    acks.set(keyHash, (acks.get(keyHash) ?? 0) + 1);
    setTimeout(() => acks.delete(keyHash), 10_000).unref();
    waiters.get(keyHash)?.();
  };

  // Resolves once every listening process (this one included) has evicted keyHash, or after the timeout.
  const evictedEverywhere = async (keyHash: string): Promise<void> => {
    const listening = client;
    if (!listening) return;
    const found = await listening.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()',
      [LISTENER_NAME],
    );
    const expected = found.rows[0]?.n ?? 0;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        log.warn('key revocation not acknowledged by every API process in time', {
          acknowledged: acks.get(keyHash) ?? 0,
          expected,
        });
        finish();
      }, ACK_TIMEOUT_MS);
      const finish = () => {
        clearTimeout(timer);
        waiters.delete(keyHash);
        resolve();
      };
      const check = () => {
        if ((acks.get(keyHash) ?? 0) >= expected) finish();
      };
      waiters.set(keyHash, check);
      check();
    });
  };

  const connect = async (): Promise<void> => {
    const next = new Client({ connectionString: databaseUrl, application_name: LISTENER_NAME });
    next.on('notification', (message) => {
      if (!message.payload) return;
      if (message.channel === EVICTED_CHANNEL) return onAck(message.payload);
      if (message.channel !== KEY_REVOKED_CHANNEL) return;
      cache.evict(message.payload);
      next.query('SELECT pg_notify($1, $2)', [EVICTED_CHANNEL, message.payload]).catch(() => undefined);
    });
    next.on('error', (error) => {
      log.warn('revocation listener lost its connection', { error: error.message });
      cache.clear();
      next.end().catch(() => undefined);
      if (!stopping) retry = setTimeout(() => void connect().catch(() => undefined), 1_000);
    });
    await next.connect();
    await next.query(`LISTEN ${KEY_REVOKED_CHANNEL}`);
    await next.query(`LISTEN ${EVICTED_CHANNEL}`);
    cache.clear();
    client = next;
  };

  await connect();
  cache.awaitEviction = evictedEverywhere;
  return {
    async stop() {
      stopping = true;
      cache.awaitEviction = undefined;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
