// Provisioning runs as rows: open one (refused for a live project, a provider without a descriptor or in
// quarantine, or while another run of the project and provider is open), read and list them, and move a
// run from state to state with its step and event in the same transaction. A run leaves the open states
// once; every move names the states it leaves, so a late or repeated step changes nothing.
import { sql, UniqueIntegrityConstraintViolationError, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import type { EventType } from '../../contracts/event-catalog';
import type { ProvisioningRunStatus } from '../../contracts/provisioning-messages';
import { ApiError, notFound } from '../errors';
import { recordEvent, type EventScope } from '../events/record';
import { sortableId } from '../ids';
import { engineStatus, type CatalogServer } from '../providers/catalog';
import { quarantinedProviders } from './quarantine';

export const runRow = z.object({
  id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  environment: z.literal('test'),
  provider: z.string(),
  method: z.literal('signup_api'),
  status: z.enum(['running', 'awaiting_verification', 'succeeded', 'failed', 'canceled', 'expired']),
  email: z.string(),
  label: z.string().nullable(),
  provider_account_id: z.string().nullable(),
  verification_sent_to: z.string().nullable(),
  verification_expires_at: z.string().nullable(),
  connection_id: z.string().nullable(),
  failure_code: z.string().nullable(),
  failure_message: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  finished_at: z.string().nullable(),
});
export type RunRow = z.infer<typeof runRow>;

const COLUMNS = sql.fragment`id, org_id, project_id, environment, provider, method, status, email, label,
  provider_account_id, verification_sent_to, verification_expires_at, connection_id, failure_code,
  failure_message, created_at, updated_at, finished_at`;

export const stepRow = z.object({
  id: z.bigint(),
  step: z.string(),
  detail: z.record(z.unknown()),
  at: z.string(),
});
export type StepRow = z.infer<typeof stepRow>;

const OPEN = ['running', 'awaiting_verification'] as const;

/** The event each move of a run publishes. */
const RUN_EVENTS = {
  awaiting_verification: 'provisioning_run.awaiting_verification',
  succeeded: 'provisioning_run.succeeded',
  failed: 'provisioning_run.failed',
  canceled: 'provisioning_run.canceled',
  expired: 'provisioning_run.expired',
} as const satisfies Record<string, EventType>;

const scopeOf = (run: RunRow): EventScope => ({
  orgId: run.org_id,
  projectId: run.project_id,
  environment: run.environment,
});

/** What every event of a run carries, beside what its own move adds. */
const eventData = (run: RunRow, extra: Record<string, unknown> = {}) => ({
  run_id: run.id,
  provider: run.provider,
  status: run.status,
  ...extra,
});

export async function recordStep(
  tx: CommonQueryMethods,
  runId: string,
  step: string,
  detail: Record<string, unknown> = {},
): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO provisioning_run_steps (run_id, step, detail) VALUES (${runId}, ${step}, ${sql.jsonb(detail as never)})`);
}

/** Sandbox provisioning is for test projects: a live one is refused before anything is read or written. */
export function requireTestEnvironment(scope: EventScope): void {
  if (scope.environment !== 'test')
    throw new ApiError(
      422,
      'not_test_environment',
      'Sandbox provisioning runs only for a test project; use a csk_test_ key',
      { environment: scope.environment },
    );
}

export interface RunRequest {
  email: string;
  label: string | null;
}

/**
 * Opens a run for the caller's project: its row, first step and `provisioning_run.created` in one
 * transaction. Nothing is written for a live project or a provider that cannot be provisioned now.
 */
export async function openRun(
  db: DatabasePool,
  scope: EventScope,
  server: CatalogServer,
  request: RunRequest,
): Promise<RunRow> {
  requireTestEnvironment(scope);
  const descriptor = server.provisioning;
  const status = engineStatus(server, await quarantinedProviders(db));
  if (!descriptor || status !== 'available')
    throw new ApiError(422, 'provider_not_provisionable', `${server.id} cannot be provisioned now`, {
      provider: server.id,
      engine_status: status,
    });
  try {
    return await db.transaction(async (tx) => {
      const run = await tx.one(sql.type(runRow)`
        INSERT INTO provisioning_runs (id, org_id, project_id, environment, provider, method, email, label)
        VALUES (${sortableId('prun')}, ${scope.orgId}, ${scope.projectId}, 'test', ${server.id}, ${descriptor.method},
          ${request.email}, ${request.label})
        RETURNING ${COLUMNS}`);
      await recordStep(tx, run.id, 'run.created', { method: run.method });
      await recordEvent(tx, scope, 'provisioning_run.created', eventData(run));
      return run;
    });
  } catch (error) {
    if (!(error instanceof UniqueIntegrityConstraintViolationError)) throw error;
    const open = await db.maybeOne(sql.type(runRow)`
      SELECT ${COLUMNS} FROM provisioning_runs
      WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND provider = ${server.id} AND finished_at IS NULL`);
    throw new ApiError(
      409,
      'run_in_progress',
      `A provisioning run of ${server.id} is already open in this project`,
      { run_id: open?.id ?? null },
    );
  }
}

export async function findRun(db: CommonQueryMethods, id: string): Promise<RunRow | null> {
  return db.maybeOne(sql.type(runRow)`SELECT ${COLUMNS} FROM provisioning_runs WHERE id = ${id}`);
}

/** One run of the caller's project; anything else is 404. */
export async function getRun(
  db: CommonQueryMethods,
  tenant: { orgId: string; projectId: string },
  id: string,
): Promise<RunRow> {
  const row = await db.maybeOne(sql.type(runRow)`
    SELECT ${COLUMNS} FROM provisioning_runs
    WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId} AND id = ${id}`);
  if (!row) throw notFound('Provisioning run');
  return row;
}

export interface RunFilter {
  provider?: string;
  status?: ProvisioningRunStatus;
  limit: number;
  startingAfter?: string;
}

/** The project's runs, newest first. */
export async function listRuns(
  db: CommonQueryMethods,
  tenant: { orgId: string; projectId: string },
  filter: RunFilter,
): Promise<RunRow[]> {
  const rows = await db.any(sql.type(runRow)`
    SELECT ${COLUMNS} FROM provisioning_runs
    WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId}
      ${filter.provider ? sql.fragment`AND provider = ${filter.provider}` : sql.fragment``}
      ${filter.status ? sql.fragment`AND status = ${filter.status}` : sql.fragment``}
      ${filter.startingAfter ? sql.fragment`AND id < ${filter.startingAfter}` : sql.fragment``}
    ORDER BY id DESC LIMIT ${filter.limit}`);
  return [...rows];
}

export async function runSteps(db: CommonQueryMethods, runId: string): Promise<StepRow[]> {
  const rows = await db.any(sql.type(stepRow)`
    SELECT id, step, detail, at FROM provisioning_run_steps WHERE run_id = ${runId} ORDER BY id`);
  return [...rows];
}

/** A move of an open run: the columns it sets, its step, and the event it publishes (if any). */
interface Move {
  set: FragmentSqlToken;
  step: string;
  detail?: Record<string, unknown>;
  event?: keyof typeof RUN_EVENTS;
  eventExtra?: Record<string, unknown>;
  /** The states the run may be in for the move to apply. */
  from?: readonly RunRow['status'][];
}

/**
 * Applies a move to an open run in the caller's transaction; null when the run had already left the
 * states the move starts from (a repeated step), in which case nothing is written.
 */
export async function moveRun(tx: CommonQueryMethods, runId: string, move: Move): Promise<RunRow | null> {
  const from = move.from ?? OPEN;
  const run = await tx.maybeOne(sql.type(runRow)`
    UPDATE provisioning_runs SET ${move.set}, updated_at = now()
    WHERE id = ${runId} AND status = ANY(${sql.array([...from], 'text')})
    RETURNING ${COLUMNS}`);
  if (!run) return null;
  await recordStep(tx, runId, move.step, move.detail ?? {});
  if (move.event)
    await recordEvent(tx, scopeOf(run), RUN_EVENTS[move.event], eventData(run, move.eventExtra));
  return run;
}

/** The provider sent a code: the run waits for it until `expiresAt`. */
export function awaitVerification(
  db: DatabasePool,
  runId: string,
  sign: { accountId: string; sentTo: string; expiresAt: string },
): Promise<RunRow | null> {
  return db.transaction((tx) =>
    moveRun(tx, runId, {
      set: sql.fragment`status = 'awaiting_verification', provider_account_id = ${sign.accountId},
        verification_sent_to = ${sign.sentTo}, verification_expires_at = ${sign.expiresAt}`,
      from: ['running'],
      step: 'verification.sent',
      detail: { account_id: sign.accountId, sent_to: sign.sentTo, expires_at: sign.expiresAt },
      event: 'awaiting_verification',
      eventExtra: { sent_to: sign.sentTo, expires_at: sign.expiresAt },
    }),
  );
}

/** The provider opened the account without asking for a code. */
export function signupVerified(db: DatabasePool, runId: string, accountId: string): Promise<RunRow | null> {
  return db.transaction((tx) =>
    moveRun(tx, runId, {
      set: sql.fragment`provider_account_id = ${accountId}`,
      from: ['running'],
      step: 'signup.created',
      detail: { account_id: accountId, verification: 'none' },
    }),
  );
}

/** The provider accepted the code: the run goes on to its credential. */
export function verificationAccepted(db: DatabasePool, runId: string): Promise<RunRow | null> {
  return db.transaction((tx) =>
    moveRun(tx, runId, {
      set: sql.fragment`status = 'running'`,
      from: ['awaiting_verification'],
      step: 'verification.accepted',
    }),
  );
}

export type RunEnd =
  { status: 'failed'; code: string; message: string } | { status: 'canceled' } | { status: 'expired' };

/** Ends an open run without an account; null when it had already ended. */
export function endRun(tx: CommonQueryMethods, runId: string, end: RunEnd): Promise<RunRow | null> {
  const failure = end.status === 'failed' ? end : null;
  return moveRun(tx, runId, {
    set: sql.fragment`status = ${end.status}, finished_at = now(),
      failure_code = ${failure?.code ?? null}, failure_message = ${failure?.message ?? null}`,
    step: `run.${end.status}`,
    detail: failure ? { code: failure.code, message: failure.message } : {},
    event: end.status,
    eventExtra: failure ? { code: failure.code } : {},
  });
}

/** The account's credential is the project's connection now: the run succeeded. */
export function runSucceeded(
  tx: CommonQueryMethods,
  runId: string,
  connectionId: string,
): Promise<RunRow | null> {
  return moveRun(tx, runId, {
    set: sql.fragment`status = 'succeeded', connection_id = ${connectionId}, finished_at = now()`,
    from: ['running'],
    step: 'run.succeeded',
    detail: { connection_id: connectionId },
    event: 'succeeded',
    eventExtra: { connection_id: connectionId },
  });
}

/** What a run's verification code is sealed under on its way through the workflow. */
export const codeSealContext = (runId: string): string => `provisioning-code:${runId}`;

export const isOpen = (run: RunRow): boolean => (OPEN as readonly string[]).includes(run.status);
