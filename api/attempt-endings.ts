// Hears the attempts of the wallet id space end (domain/attempts/store.ts notifies ATTEMPT_ENDED_CHANNEL in
// the statement that stores an outcome, delivered when it commits), so a caller waiting on its attempt is
// answered from the stored row as soon as the outcome is recorded, not once the workflow's task completes
// and Temporal hands the update's outcome back. A hint only: while nothing is heard (no listener, or its
// connection is down) the update answers as it always did.
import { ATTEMPT_ENDED_CHANNEL, endedPayload } from '../domain/attempts/store';
import type { Logger } from '../runtime/logger';
import { listenOn } from '../runtime/pg-listener';

const LISTENER_NAME = 'gateway-attempt-endings';

export interface AttemptEndings {
  /** Resolves once the attempt's outcome is stored (never, when that is not heard); `cancel` stops listening. */
  ended(orgId: string, attemptId: string): { heard: Promise<void>; cancel(): void };
  stop(): Promise<void>;
}

export async function listenForAttemptEndings(databaseUrl: string, log: Logger): Promise<AttemptEndings> {
  const waiters = new Map<string, Set<() => void>>();
  const listener = await listenOn(
    databaseUrl,
    { name: LISTENER_NAME, channels: [ATTEMPT_ENDED_CHANNEL], log },
    {
      heard(message) {
        if (message.channel !== ATTEMPT_ENDED_CHANNEL || !message.payload) return;
        const waiting = waiters.get(message.payload);
        if (!waiting) return;
        waiters.delete(message.payload);
        for (const wake of waiting) wake();
      },
    },
  );
  return {
    ended(orgId, attemptId) {
      const key = endedPayload(orgId, attemptId);
      let wake: () => void = () => undefined;
      const heard = new Promise<void>((resolve) => (wake = resolve));
      let waiting = waiters.get(key);
      if (!waiting) waiters.set(key, (waiting = new Set()));
      waiting.add(wake);
      return {
        heard,
        cancel() {
          const current = waiters.get(key);
          current?.delete(wake);
          if (current?.size === 0) waiters.delete(key);
        },
      };
    },
    stop: () => listener.stop(),
  };
}
