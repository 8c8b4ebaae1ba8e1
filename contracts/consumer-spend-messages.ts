// Messages of the consumer spend-attempt workflow, shared by the API (client) and the workflow.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AuditStep, SpendAnswer } from './consumer-spend';

/** Waits for the attempt's current answer; the API sends it with Update-with-Start. */
export const consumerSpendAnswerUpdate = defineUpdate<SpendAnswer>('consumerSpendAnswer');
/** The caller presented an uncertain attempt again: ask the provider, then answer. */
export const consumerSpendRetryUpdate = defineUpdate<SpendAnswer>('consumerSpendRetry');
/** The audit so far and the answer once there is one, for the execute stream. */
export const consumerSpendProgressQuery = defineQuery<{
  audit: AuditStep[];
  answer: SpendAnswer | null;
  generation: number;
}>('consumerSpendProgress');
/** The provider posted a settlement notice for this attempt; its body is not trusted, the workflow asks. */
export const consumerSpendSettlementSignal = defineSignal('consumerSpendSettlement');
