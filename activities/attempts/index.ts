// The engine's activities: one per step of an attempt, the same for every family; each finds the attempt's
// family in the registry and runs its step. Business refusals from the domain become non-retryable failures
// typed by their code; ledger conflicts and outages are retried.
import { ApplicationFailure } from '@temporalio/activity';
import type {
  AttemptInput,
  AttemptResult,
  Authorized,
  EngineFamily,
  FamilyInputs,
  Looked,
  Released,
  Sent,
  Settled,
} from '../../contracts/attempt';
import type { AuditStep } from '../../contracts/attempt-audit';
import type { ToolChargeResolution } from '../../contracts/tool-charge';
import { attemptReply } from '../../domain/attempts/answers';
import { finishAttempt } from '../../domain/attempts/store';
import { ApiError } from '../../domain/errors';
import type { ActivityDeps } from '../deps';
import type { AttemptFamilySteps } from './family';
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

export function attemptActivities(deps: ActivityDeps) {
  return {
    authorizeAttempt(attempt: AttemptInput): Promise<Authorized> {
      const [family, input] = stepsOf(attempt);
      return refusalsAsFailures(() => family.authorize(deps, input));
    },
    sendAttempt(attempt: AttemptInput): Promise<Sent> {
      const [family, input] = stepsOf(attempt);
      return family.send(deps, input);
    },
    lookupAttempt({
      attempt,
      message,
      round,
    }: {
      attempt: AttemptInput;
      message: string;
      round: number;
    }): Promise<Looked> {
      const [family, input] = stepsOf(attempt);
      return family.lookup(deps, input, { message, round });
    },
    settleAttempt({
      attempt,
      sent,
      resolution,
    }: {
      attempt: AttemptInput;
      sent: Extract<Sent, { status: 'succeeded' }>;
      resolution: ToolChargeResolution | null;
    }): Promise<Settled> {
      const [family, input] = stepsOf(attempt);
      return refusalsAsFailures(() => family.settle(deps, { input, sent, resolution }));
    },
    releaseAttempt({
      attempt,
      sent,
      resolution,
    }: {
      attempt: AttemptInput;
      sent: Extract<Sent, { status: 'refused' }>;
      resolution: ToolChargeResolution | null;
    }): Promise<Released> {
      const [family, input] = stepsOf(attempt);
      return refusalsAsFailures(() => family.release(deps, { input, sent, resolution }));
    },
    releaseAttemptIfHeld({
      attempt,
      message,
    }: {
      attempt: AttemptInput;
      message: string;
    }): Promise<{ releaseId: string | null; steps: AuditStep[] }> {
      const [family, input] = stepsOf(attempt);
      return refusalsAsFailures(() => family.releaseIfHeld(deps, input, message));
    },
    /** Stores the result's answer once, with its payment event. */
    async finishAttempt({
      attempt,
      result,
    }: {
      attempt: AttemptInput;
      result: AttemptResult;
    }): Promise<void> {
      const { input } = attempt;
      await finishAttempt(
        deps.db,
        { orgId: input.orgId, projectId: input.projectId, environment: input.environment },
        {
          family: attempt.family,
          attemptId: input.attemptId,
          approvalId: input.approvalId ?? null,
          status: result.status,
          reply: attemptReply(attempt, result),
          providerPaymentId: result.providerPaymentId,
        },
      );
    },
  };
}
