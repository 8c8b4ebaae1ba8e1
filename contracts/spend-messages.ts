// Messages of the spend-attempt workflow, shared by the API (client) and the workflow.
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { SpendAnswer, SpendOutcome } from './spend';

/**
 * Waits for the attempt's outcome and returns it; the API sends it with Update-with-Start. While the provider
 * cannot say what became of the dispatch it answers `provider_uncertain`, and each such presentation has the
 * attempt ask the provider again first.
 */
export const spendOutcomeUpdate = defineUpdate<SpendAnswer>('spendOutcome');
export const spendOutcomeQuery = defineQuery<SpendOutcome | null>('spendOutcome');
