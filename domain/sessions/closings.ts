// Listens for sessions closing in any API process (schema/sql/0990_session_closings.sql notifies every
// close, by caller or by a key's revocation, and every delete) and drops them from this process's cache of
// open sessions. While the listening connection is down the cache is not trusted, and it is cleared when
// listening again, so a close missed meanwhile cannot keep a session answered. Each drop is acknowledged on
// a second channel, and a process closing a session waits for every listening process's acknowledgement
// (listeners are counted by their connection's application_name) before it answers, so a closed session is
// answered by no API process once the close returns.
import { Client } from 'pg';
import type { Logger } from '../../runtime/logger';

// The channel schema/sql/0990_session_closings.sql notifies.
const SESSION_CLOSED_CHANNEL = 'gateway_session_closed';
const DROPPED_CHANNEL = `${SESSION_CLOSED_CHANNEL}_dropped`;
const LISTENER_NAME = 'gateway-session-closings';
// A process that does not acknowledge in time (stalled, or its connection dropped and it cleared its
// cache) does not hold the close up for longer than this.
const ACK_TIMEOUT_MS = 2_000;

export interface ClosingsListener {
  stop(): Promise<void>;
}

/** What the cache of open sessions (sessions.ts) hands the listener. */
export interface OpenSessionCache {
  drop(id: string): void;
  clear(): void;
}

interface Listening {
  client: Client;
  acks: Map<string, number>;
  waiters: Map<string, () => void>;
  log: Logger;
}

let listening: Listening | undefined;

/** Whether closes are heard now: only then may a cached session answer for its being open. */
export const closingsHeard = (): boolean => listening !== undefined;

/** Resolves once every listening process (this one included) has dropped session `id`, or after the timeout. */
export async function droppedEverywhere(id: string): Promise<void> {
  const current = listening;
  if (!current) return;
  const found = await current.client.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()',
    [LISTENER_NAME],
  );
  const expected = found.rows[0]?.n ?? 0;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      current.log.warn('session close not acknowledged by every API process in time', {
        acknowledged: current.acks.get(id) ?? 0,
        expected,
      });
      finish();
    }, ACK_TIMEOUT_MS);
    const finish = () => {
      clearTimeout(timer);
      current.waiters.delete(id);
      resolve();
    };
    const check = () => {
      if ((current.acks.get(id) ?? 0) >= expected) finish();
    };
    current.waiters.set(id, check);
    check();
  });
}

export async function listenForSessionClosings(
  databaseUrl: string,
  cache: OpenSessionCache,
  log: Logger,
): Promise<ClosingsListener> {
  let stopping = false;
  let retry: NodeJS.Timeout | undefined;
  let client: Client | undefined;
  // Acknowledgements seen per session, kept briefly: one may arrive before its closer starts waiting.
  const acks = new Map<string, number>();
  const waiters = new Map<string, () => void>();

  const connect = async (): Promise<void> => {
    const next = new Client({ connectionString: databaseUrl, application_name: LISTENER_NAME });
    next.on('notification', (message) => {
      if (!message.payload) return;
      if (message.channel === DROPPED_CHANNEL) {
        acks.set(message.payload, (acks.get(message.payload) ?? 0) + 1);
        setTimeout(() => acks.delete(message.payload!), 10_000).unref();
        waiters.get(message.payload)?.();
        return;
      }
      if (message.channel !== SESSION_CLOSED_CHANNEL) return;
      cache.drop(message.payload);
      next.query('SELECT pg_notify($1, $2)', [DROPPED_CHANNEL, message.payload]).catch(() => undefined);
    });
    next.on('error', (error) => {
      log.warn('session closings listener lost its connection', { error: error.message });
      listening = undefined;
      cache.clear();
      next.end().catch(() => undefined);
      if (!stopping) retry = setTimeout(() => void connect().catch(() => undefined), 1_000);
    });
    await next.connect();
    await next.query(`LISTEN ${SESSION_CLOSED_CHANNEL}`);
    await next.query(`LISTEN ${DROPPED_CHANNEL}`);
    cache.clear();
    client = next;
    listening = { client: next, acks, waiters, log };
  };

  await connect();
  return {
    async stop() {
      stopping = true;
      if (listening?.client === client) listening = undefined;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
