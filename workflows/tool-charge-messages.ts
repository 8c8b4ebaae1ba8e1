// Messages of the paid tool call workflow, shared by the API (client) and the workflow.
import { defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ToolChargeAnswer } from '../domain/tool-servers/charge-types';

/** Waits for the call's outcome (or `upstream_uncertain` while nobody knows what the upstream did). */
export const toolChargeOutcomeUpdate = defineUpdate<ToolChargeAnswer>('toolChargeOutcome');

/**
 * Settles a call whose upstream answer never came, once someone knows what happened upstream (an operator,
 * from the upstream's own records): `succeeded` debits the held price, `failed` releases it.
 */
export const toolChargeResolveSignal = defineSignal<['succeeded' | 'failed']>('toolChargeResolve');
