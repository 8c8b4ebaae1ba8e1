// The delivery retry schedule (configuration, `WEBHOOK_RETRY_SCHEDULE`). Default is Svix's: immediately,
// then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, so eight attempts over about 27.6 hours.

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
