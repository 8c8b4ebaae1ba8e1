// Listens for sessions closing in any API process (schema/sql/0990_session_closings.sql notifies every
// close, by caller or by a key's revocation, and every delete) and drops them from this process's cache of
// open sessions. While the listening connection is down the cache is not trusted, and it is cleared when
// listening again, so a close missed meanwhile cannot keep a session answered. Each drop is acknowledged on
// a second channel, and a process closing a session waits for every listening process's acknowledgement
// (listeners are counted by their connection's application_name) before it answers, so a closed session is
// answered by no API process once the close returns.
import type { Logger } from '../../runtime/logger';
import { listenForDrops, type DroppableCache, type SharedDrops } from '../../runtime/pg-listener';

// The channel schema/sql/0990_session_closings.sql notifies.
const SESSION_CLOSED_CHANNEL = 'gateway_session_closed';

export interface ClosingsListener {
  stop(): Promise<void>;
}

/** What the cache of open sessions (sessions.ts) hands the listener. */
export type OpenSessionCache = DroppableCache;

let listening: SharedDrops | undefined;

/** Whether closes are heard now: only then may a cached session answer for its being open. */
export const closingsHeard = (): boolean => listening?.heard() === true;

/** Resolves once every listening process (this one included) has dropped session `id`, or after the timeout. */
export async function droppedEverywhere(id: string): Promise<void> {
  await listening?.everywhere(id);
}

export async function listenForSessionClosings(
  databaseUrl: string,
  cache: OpenSessionCache,
  log: Logger,
): Promise<ClosingsListener> {
  const drops = await listenForDrops(
    databaseUrl,
    {
      name: 'gateway-session-closings',
      channel: SESSION_CLOSED_CHANNEL,
      ackChannel: `${SESSION_CLOSED_CHANNEL}_dropped`,
      what: 'session close',
      log,
    },
    cache,
  );
  listening = drops;
  return {
    async stop() {
      if (listening === drops) listening = undefined;
      await drops.stop();
    },
  };
}
