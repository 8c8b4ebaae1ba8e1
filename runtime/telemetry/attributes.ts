// Names of the gateway's own span attributes, and the attempt id carried in the OpenTelemetry context so
// spans started under an activity (its provider calls) name the attempt too.
import type { Context } from '@opentelemetry/api';

export const ATTR = {
  requestId: 'gateway.request_id',
  attemptId: 'gateway.attempt_id',
  orgId: 'gateway.org_id',
} as const;

const ATTEMPT_KEY = Symbol.for('gateway.attempt_id');

export function withAttempt(parent: Context, attemptId: string): Context {
  return parent.setValue(ATTEMPT_KEY, attemptId);
}

export function attemptOf(ctx: Context): string | undefined {
  const value = ctx.getValue(ATTEMPT_KEY);
  return typeof value === 'string' ? value : undefined;
}
