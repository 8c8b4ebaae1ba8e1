// Messages of the paid tool call workflow, shared by the API (client) and the workflow.
import { defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ToolChargeAnswer, ToolChargeOutcome, ToolChargeResolution } from './tool-charge';

/** Waits for the call's outcome (or `upstream_uncertain` while nobody knows what the upstream did). */
export const toolChargeOutcomeUpdate = defineUpdate<ToolChargeAnswer>('toolChargeOutcome');

/**
 * Settles a call whose upstream answer never came, once someone knows what happened upstream (an operator,
 * from the upstream's own records): `succeeded` debits the held price, `failed` releases it. Kept for calls
 * resolved without naming who did; the API resolves through toolChargeResolveUpdate.
 */
export const toolChargeResolveSignal = defineSignal<['succeeded' | 'failed']>('toolChargeResolve');

/**
 * The same settlement, naming who resolved it, answered with the settled outcome once the money moved.
 * Refused (failure types below) when the call is not waiting for a resolution, or was resolved the other way.
 */
export const toolChargeResolveUpdate = defineUpdate<ToolChargeOutcome, [ToolChargeResolution]>(
  'toolChargeResolveOutcome',
);

/** Failure types of toolChargeResolveUpdate's refusals (matched by type, never by message). */
export const ToolChargeResolveFailure = {
  /** Still running towards its upstream's answer, or settled by that answer: nothing to resolve. */
  NotUncertain: 'charge_not_uncertain',
  /** Already resolved with the other outcome (`details[0].outcome` says which). */
  ResolvedOtherwise: 'charge_resolved_otherwise',
} as const;
