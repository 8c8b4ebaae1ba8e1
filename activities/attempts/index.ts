// The engine's activities: one per step of an attempt, the same for every family; each finds the attempt's
// family in the registry and runs its step. Business refusals from the domain become non-retryable failures
// typed by their code; ledger conflicts and outages are retried.
import { ApplicationFailure } from '@temporalio/activity';
import type {
  AttemptInput,
  AttemptResult,
  Authorized,
  Decided,
  EngineFamily,
  SentAndEnded,
  FamilyCarry,
  FamilyInputs,
  Looked,
  Released,
  Sent,
  Settled,
} from '../../contracts/attempt';
import type { AuditStep } from '../../contracts/attempt-audit';
import { releasedResult, settledResult } from '../../contracts/attempt-endings';
import { attemptReply } from '../../domain/attempts/answers';
import { endAttempt, finishAttempt, type Finish } from '../../domain/attempts/store';
import type { EventScope } from '../../domain/events/record';
import type { DatabaseTransactionConnection } from '../../runtime/database';
import { joiningTransaction } from '../../runtime/telemetry/after-commit';
import { ApiError } from '../../domain/errors';
import type { ActivityDeps } from '../deps';
import { decideAttempt, decideOnce, sendAndSettle } from './decide';
import type { AfterSend, AttemptFamilySteps, Lookup, ReleasedIfHeld, SoFar } from './family';
import { FAMILIES } from './families';

export async function refusalsAsFailures<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApiError && error.code !== 'ledger_conflict')
      throw ApplicationFailure.nonRetryable(error.message, error.code, error.details);
    throw error;
  }
}

/** The attempt's family steps with its input; the union of families narrows to one here. */
function stepsOf(attempt: AttemptInput): [AttemptFamilySteps<EngineFamily>, FamilyInputs[EngineFamily]] {
  return [FAMILIES[attempt.family] as AttemptFamilySteps<EngineFamily>, attempt.input];
}

type Told = SoFar<EngineFamily>;

export function attemptActivities(deps: ActivityDeps) {
  const steps = {
    authorizeAttempt(attempt: AttemptInput): Promise<Authorized> {
      const [family, input] = stepsOf(attempt);
      return refusalsAsFailures(() => family.authorize(deps, input));
    },
    sendAttempt(
      attempt: AttemptInput,
      how: { carry: FamilyCarry; resent: boolean } = { carry: null, resent: false },
    ): Promise<Sent> {
      const [family, input] = stepsOf(attempt);
      return family.send(deps, input, how);
    },
    /** The send of a family that may not run twice, begun once (family.ts): null when an earlier run began it. */
    sendAttemptOnce(attempt: AttemptInput, how: { carry: FamilyCarry }): Promise<Sent | null> {
      const [family, input] = stepsOf(attempt);
      if (!family.sendOnce)
        throw ApplicationFailure.nonRetryable(
          `The ${attempt.family} family sends under its key`,
          'no_send_once',
        );
      return family.sendOnce(deps, input, how);
    },
    lookupAttempt({
      attempt,
      audit = [],
      carry = null,
      ...lookup
    }: { attempt: AttemptInput } & Partial<Told> &
      Omit<Lookup, 'reason' | 'presented'> &
      Partial<Lookup>): Promise<Looked> {
      const [family, input] = stepsOf(attempt);
      return family.lookup(deps, input, { reason: 'unknown', presented: false, ...lookup }, { audit, carry });
    },
    /** Debits the hold; given the result so far (`finish`), stores the attempt's result as well. */
    async settleAttempt({
      attempt,
      finish,
      ...after
    }: { attempt: AttemptInput; finish?: AttemptResult } & Omit<
      AfterSend<EngineFamily, 'succeeded'>,
      'input'
    >): Promise<Settled> {
      const [family, input] = stepsOf(attempt);
      if (!finish) return refusalsAsFailures(() => family.settle(deps, { ...after, input }));
      return refusalsAsFailures(() =>
        deps.db.transaction(async (tx) => {
          const settled = await family.settle(joined(deps, tx), { ...after, input });
          await endAttempt(tx, scopeOf(attempt), finishOf(attempt, settledResult(finish, settled)));
          return settled;
        }),
      );
    },
    /** Releases the hold; given the result so far (`finish`), stores the attempt's result as well. */
    async releaseAttempt({
      attempt,
      finish,
      ...after
    }: { attempt: AttemptInput; finish?: AttemptResult } & Omit<
      AfterSend<EngineFamily, 'refused'>,
      'input'
    >): Promise<Released> {
      const [family, input] = stepsOf(attempt);
      if (!finish) return refusalsAsFailures(() => family.release(deps, { ...after, input }));
      return refusalsAsFailures(() =>
        deps.db.transaction(async (tx) => {
          const released = await family.release(joined(deps, tx), { ...after, input });
          await endAttempt(tx, scopeOf(attempt), finishOf(attempt, releasedResult(finish, released)));
          return released;
        }),
      );
    },
    releaseAttemptIfHeld({
      attempt,
      message,
      audit = [],
      carry = null,
    }: { attempt: AttemptInput; message: string } & Partial<Told>): Promise<ReleasedIfHeld> {
      const [family, input] = stepsOf(attempt);
      return refusalsAsFailures(() => family.releaseIfHeld(deps, input, message, { audit, carry }));
    },
    /** Stores the result's answer once, with its payment event. */
    async finishAttempt({
      attempt,
      result,
    }: {
      attempt: AttemptInput;
      result: AttemptResult;
    }): Promise<void> {
      await finishAttempt(deps.db, scopeOf(attempt), finishOf(attempt, result));
    },
  };
  return {
    ...steps,
    /** Authorizes, sends and settles or releases in one step, as far as it goes (decide.ts). */
    decideAttempt: (attempt: AttemptInput): Promise<Decided> => decideAttempt(steps, attempt),
    /** Authorizes, sends once and settles or releases in one step, safe to run again (decide.ts). */
    decideOnceAttempt: (attempt: AttemptInput): Promise<Decided> => decideOnce(steps, attempt),
    /** Sends once and settles or releases what it answered, in the same step (decide.ts). */
    sendAndSettleAttempt: ({
      attempt,
      ...sofar
    }: {
      attempt: AttemptInput;
      holdId: string;
      carry: FamilyCarry;
      audit: AuditStep[];
    }): Promise<SentAndEnded> => sendAndSettle(steps, attempt, sofar),
  };
}

/** The step's dependencies with its transactions joining `tx`: settling and storing the result commit as one. */
const joined = (deps: ActivityDeps, tx: DatabaseTransactionConnection): ActivityDeps => ({
  ...deps,
  db: joiningTransaction(deps.db, tx),
});

const scopeOf = ({ input }: AttemptInput): EventScope => ({
  orgId: input.orgId,
  projectId: input.projectId,
  environment: input.environment,
});

/** What storing the result writes: its answer once, with its payment event. */
function finishOf(attempt: AttemptInput, result: AttemptResult): Finish {
  const { input } = attempt;
  return {
    family: attempt.family,
    attemptId: input.attemptId,
    approvalId: 'approvalId' in input ? (input.approvalId ?? null) : null,
    status: result.status,
    reply: attemptReply(attempt, result),
    providerPaymentId: result.providerPaymentId,
  };
}
