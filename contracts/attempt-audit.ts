// The audit trail of a money attempt, one type for every family (wallet execute, consumer spend). Its steps
// are stamped in three places (the route, the workflow, whose clock is the workflow task's start, and the
// activities, on the worker's wall clock), so a step's own clock can read earlier than the step before it;
// each step is stamped no earlier than the last one, and the trail an answer carries never goes backwards
// in time. Pure and types only: workflows use it too.

export type AuditStatus = 'pass' | 'fail' | 'skip';

/** One step of an attempt's audit: what was checked or done, with its verdict and a human detail. */
export interface AuditStep {
  timestamp: string;
  step: string;
  status: AuditStatus;
  detail: string;
}

/** Appends a step stamped now, or at the previous step's time when this clock reads earlier. */
export function appendStep(
  audit: AuditStep[],
  step: string,
  status: AuditStatus,
  detail: string,
  now: Date = new Date(),
): void {
  audit.push({ timestamp: notBefore(audit, now.toISOString()), step, status, detail });
}

/** Appends steps stamped elsewhere (an activity's), keeping the whole trail monotonic. */
export function appendSteps(audit: AuditStep[], steps: readonly AuditStep[]): void {
  for (const s of steps) audit.push({ ...s, timestamp: notBefore(audit, s.timestamp) });
}

// ISO 8601 UTC stamps of one length compare as text in time order.
function notBefore(audit: readonly AuditStep[], timestamp: string): string {
  const last = audit.length > 0 ? audit[audit.length - 1].timestamp : undefined;
  return last !== undefined && last > timestamp ? last : timestamp;
}
