// Messages of the one money-attempt workflow, shared by orchestration (client) and the workflow.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AttemptAnswer, AttemptProgress, AttemptResult } from './attempt';
import type { ToolChargeResolution } from './tool-charge';

/**
 * Waits for the attempt's result and returns it; orchestration sends it with Update-with-Start. While the
 * outcome of its send is unknown it answers `uncertain`, and each such presentation has the attempt ask
 * again (a status lookup by its idempotency key) first.
 */
export const attemptAnswerUpdate = defineUpdate<AttemptAnswer>('attemptAnswer');
export const attemptResultQuery = defineQuery<AttemptResult | null>('attemptResult');
/** The audit so far, for a caller streaming the attempt's steps as they happen. */
export const attemptProgressQuery = defineQuery<AttemptProgress>('attemptProgress');
/**
 * The other side posted a notice that the attempt's payment settled (a Pix PSP's webhook). A hint only: a
 * settling or uncertain attempt looks its send up again at once, and trusts only what the lookup says.
 */
export const attemptSettlementSignal = defineSignal('attemptSettlement');

/**
 * Settles an attempt whose outcome is unknown, once someone who knows what happened says so (the tenant of
 * a tool server, an operator), answered with the settled result once the money moved. Refused (failure
 * types below) when the attempt is not waiting for a resolution, or was resolved the other way.
 */
export const attemptResolveUpdate = defineUpdate<AttemptResult, [ToolChargeResolution]>('attemptResolve');

/** Failure types of attemptResolveUpdate's refusals (matched by type, never by message). */
export const AttemptResolveFailure = {
  /** Still running towards its send's answer, or settled by that answer: nothing to resolve. */
  NotUncertain: 'charge_not_uncertain',
  /** Already resolved with the other outcome (`details[0].outcome` says which). */
  ResolvedOtherwise: 'charge_resolved_otherwise',
} as const;
