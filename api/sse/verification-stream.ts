// The verification status stream (spec: Events 5): a contact verification's states as server-sent
// events: the current state at once, each change, a heartbeat on the configured interval (15 s), and
// the close a fixed delay (5 s) after a terminal state. States: `sent` while a code can still be
// checked; terminal `verified`, `expired` (past its lifetime), `superseded` (a newer code was sent) and
// `attempts_exhausted` (every attempt spent).
import { notFound } from '../../domain/errors';
import { findVerification, type VerificationRow } from '../../domain/contact-verification/verifications';
import { ErrorEnvelope } from '../../schema/http/common';
import { tenantOf } from '../routes/consumers';
import type { AppDeps } from '../deps';
import { route, type AnyRoute, type Reply } from '../route';
import { openEventStream } from './event-stream';

type StreamStatus = 'sent' | 'verified' | 'expired' | 'superseded' | 'attempts_exhausted';
const TERMINAL: ReadonlySet<StreamStatus> = new Set([
  'verified',
  'expired',
  'superseded',
  'attempts_exhausted',
]);
// The row changes through other requests; a short poll keeps the stream within a blink of them.
const POLL_MS = 250;

function streamStatus(row: VerificationRow): StreamStatus {
  if (row.status === 'verified') return 'verified';
  if (row.status === 'superseded') return 'superseded';
  if (row.lapsed) return 'expired';
  if (row.attempts_used >= row.max_attempts) return 'attempts_exhausted';
  return 'sent';
}

function present(row: VerificationRow, status: StreamStatus) {
  return {
    id: row.id,
    channel: row.channel,
    target_masked: row.target_masked,
    provider: row.provider,
    expires_at: row.expires_at,
    status,
    verified_at: row.verified_at,
    attempts_left: Math.max(0, row.max_attempts - row.attempts_used),
  };
}

function statusStream(
  deps: AppDeps,
  first: VerificationRow,
  reread: () => Promise<VerificationRow | null>,
): Reply {
  const events = openEventStream(deps.config.sse);
  let last: StreamStatus | null = null;
  const emit = (row: VerificationRow) => {
    const status = streamStatus(row);
    if (status === last) return;
    last = status;
    if (TERMINAL.has(status)) events.finish('status', present(row, status));
    else events.send('status', present(row, status));
  };
  emit(first);
  const watch = async () => {
    while (!events.closed() && last !== null && !TERMINAL.has(last)) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      const row = await reread();
      if (row) emit(row);
      else events.finish('error', { error: { code: 'not_found', message: 'The verification is gone' } });
    }
  };
  watch().catch(() =>
    events.finish('error', { error: { code: 'internal_error', message: 'The status stream stopped' } }),
  );
  return {
    status: 200,
    body: events.stream,
    type: 'text/event-stream',
    headers: {
      'Cache-Control': 'no-cache, no-transform',
      'X-Accel-Buffering': 'no',
      Connection: 'keep-alive',
    },
  };
}

export const verificationStreamRoutes: AnyRoute[] = [
  route({
    method: 'get',
    path: '/v1/consumers/:consumerId/contact-verifications/:id/events',
    auth: 'key',
    scope: 'unmapped',
    tags: ['Contact verification'],
    operationId: 'streamContactVerification',
    summary: "A contact verification's states as server-sent events",
    description:
      'text/event-stream: `status` events (the current state at once, then each change: `sent`, then one of ' +
      '`verified`, `expired`, `superseded`, `attempts_exhausted`), `heartbeat` every 15 s; closes 5 s after a terminal state.',
    responses: {
      200: { description: 'Server-sent events', contentType: 'text/event-stream' },
      404: {
        description:
          "`not_found`: unknown id, another consumer's or organization's row, or a send that never completed",
        schema: ErrorEnvelope,
      },
    },
    async handler({ deps, principal, params }) {
      const tenant = tenantOf(principal);
      const read = () => findVerification(deps.db, tenant, params.consumerId, params.id);
      const row = await read();
      // A reserved row whose send never completed cannot be verified, so it has no states to show.
      if (!row || row.status === 'sending') throw notFound('Verification');
      return statusStream(deps, row, read);
    },
  }),
];
