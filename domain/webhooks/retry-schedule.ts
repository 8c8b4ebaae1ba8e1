// The rule that picks the wait before a delivery's next attempt, from the retry schedule that configuration
// reads (runtime/retry-schedule.ts) and a receiver's Retry-After.

/** Attempts a chain may make: the first one plus one per scheduled delay. */
export function maxAttempts(schedule: readonly number[]): number {
  return schedule.length + 1;
}

/** A receiver's Retry-After (429/503) may slow a retry down, never speed it up, and never past this cap. */
export const RETRY_AFTER_CAP_MS = 10 * 3_600_000;

/**
 * The wait before attempt `attempt + 1`, or null when `attempt` was the last allowed one.
 * `retryAfterMs` is the receiver's Retry-After, honoured only when it asks for more patience.
 */
export function nextRetryDelay(
  schedule: readonly number[],
  attempt: number,
  retryAfterMs: number | null = null,
): number | null {
  if (attempt >= maxAttempts(schedule)) return null;
  const scheduled = schedule[attempt - 1];
  if (retryAfterMs === null || retryAfterMs <= scheduled) return scheduled;
  return Math.min(retryAfterMs, RETRY_AFTER_CAP_MS);
}

/** Retry-After is either delta-seconds or an HTTP date; anything else is ignored. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d{1,9}$/.test(trimmed)) return Number(trimmed) * 1_000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - nowMs);
}
