// The delivery retry schedule (configuration, `WEBHOOK_RETRY_SCHEDULE`) and the rule that picks the
// wait before the next attempt. Default is Svix's: immediately, then 5 s, 5 min, 30 min, 2 h, 5 h,
// 10 h, 10 h, so eight attempts over about 27.6 hours.

export const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses `5s,5m,30m,2h` into delays in milliseconds; each is the wait after a failed attempt. */
export function parseRetrySchedule(spec: string): number[] {
  const parts = spec
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  if (parts.length === 0 || parts.length > 50)
    throw new Error('a retry schedule lists 1 to 50 delays, e.g. "5s,5m,30m"');
  return parts.map((part) => {
    const match = /^(\d+)(ms|s|m|h|d)$/.exec(part);
    if (!match) throw new Error(`retry delay "${part}" must be a whole number with a unit (ms, s, m, h, d)`);
    const ms = Number(match[1]) * UNIT_MS[match[2]];
    if (ms <= 0 || ms > 7 * UNIT_MS.d)
      throw new Error(`retry delay "${part}" must be more than 0 and at most 7 days`);
    return ms;
  });
}

/** Attempts a chain may make: the first one plus one per scheduled delay. */
export function maxAttempts(schedule: readonly number[]): number {
  return schedule.length + 1;
}

/** A receiver's Retry-After (429/503) may slow a retry down, never speed it up, and never past this cap. */
export const RETRY_AFTER_CAP_MS = 10 * UNIT_MS.h;

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
