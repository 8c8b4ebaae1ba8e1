// Messages of the approval-hold workflow, shared by the API (client) and the workflow.
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { ApprovalView } from './approval-view';

export interface DecideInput {
  approve: boolean;
  reason: string | null;
  decidedBy: string;
}

/** The operator's decision; refused (validator) once the approval left pending. Returns the approval. */
export const decideUpdate = defineUpdate<ApprovalView, [DecideInput]>('decide');
export const approvalStateQuery = defineQuery<string>('approvalState');
