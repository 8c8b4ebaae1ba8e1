// Hears the attempts of the wallet id space end (domain/attempts/store.ts notifies ATTEMPT_ENDED_CHANNEL in
// the statement that stores an outcome, delivered when it commits), so a caller waiting on its attempt is
// answered from the stored row as soon as the outcome is recorded, not once the workflow's task completes
// and Temporal hands the update's outcome back. A hint only: while nothing is heard (no listener, or its
// connection is down) the update answers as it always did.
//
// Each hint heard costs a read of the row, on top of the update's outcome that still comes back. That buys
// a lone caller its answer sooner (about 14 ms on the bench's machine); with many attempts in flight in
// this process the update's outcome is only milliseconds behind, and the extra read per attempt slows every
// caller. So beyond a few waits at once, a new wait is not heard and the update answers it.
import { ATTEMPT_ENDED_CHANNEL, endedPayload } from '../domain/attempts/store';
import type { Logger } from '../runtime/logger';
import { listenOn } from '../runtime/pg-listener';

const LISTENER_NAME = 'gateway-attempt-endings';
/** Waits this process hears at once; a wait beyond them is answered by the update alone. */
export const HEARD_WAITS_AT_MOST = 4;

export interface AttemptEndings {
  /**
   * Resolves once the attempt's outcome is stored (never, when that is not heard); `cancel` stops listening.
   * Undefined while HEARD_WAITS_AT_MOST waits are listening already.
   */
  ended(orgId: string, attemptId: string): { heard: Promise<void>; cancel(): void } | undefined;
  stop(): Promise<void>;
}

export async function listenForAttemptEndings(databaseUrl: string, log: Logger): Promise<AttemptEndings> {
  const waiters = new Map<string, Set<() => void>>();
  let listening = 0;
  const listener = await listenOn(
    databaseUrl,
    { name: LISTENER_NAME, channels: [ATTEMPT_ENDED_CHANNEL], log },
    {
      heard(message) {
        if (message.channel !== ATTEMPT_ENDED_CHANNEL || !message.payload) return;
        const waiting = waiters.get(message.payload);
        if (!waiting) return;
        waiters.delete(message.payload);
        listening -= waiting.size;
        for (const wake of waiting) wake();
      },
    },
  );
  return {
    ended(orgId, attemptId) {
      if (listening >= HEARD_WAITS_AT_MOST) return undefined;
      listening++;
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
          if (current?.delete(wake)) listening--;
          if (current?.size === 0) waiters.delete(key);
        },
      };
    },
    stop: () => listener.stop(),
  };
}
