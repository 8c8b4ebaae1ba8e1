// Messages of the spend-attempt workflow, shared by the API (client) and the workflow.
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { SpendOutcome } from '../domain/spend/types';

/** Waits for the attempt's outcome and returns it; the API sends it with Update-with-Start. */
export const spendOutcomeUpdate = defineUpdate<SpendOutcome>('spendOutcome');
export const spendOutcomeQuery = defineQuery<SpendOutcome | null>('spendOutcome');
