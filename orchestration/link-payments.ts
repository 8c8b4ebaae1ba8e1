// Link payments' workflows: started (with the buyer waiting on the charge's pay code) when a use was
// reserved, and nudged by the rail's notices. A notice for a finished payment changes nothing.
import { WorkflowNotFoundError } from '@temporalio/client';
import type { linkPayment } from '../workflows/link-payment';
import {
  linkChargeUpdate,
  linkRailNoticeSignal,
  type LinkChargeView,
  type LinkPaymentInput,
} from '../contracts/link-payment-messages';
import { workflowIds } from '../contracts/workflow-ids';
import { searchAttributes } from '../contracts/search-attributes';
import { signal, updateWithStart, type Orchestrator } from './temporal';

export function startLinkPayment(
  o: Orchestrator,
  input: LinkPaymentInput & { rail: 'pix' | 'x402'; amountMinor: bigint },
): Promise<LinkChargeView> {
  const { amountMinor, ...rest } = input;
  const rail = input.rail;
  // Pix workflows keep the input shape their recorded histories carry.
  const args: LinkPaymentInput = rail === 'pix' ? (({ rail: _rail, ...pix }) => pix)(rest) : rest;
  return updateWithStart<typeof linkPayment, LinkChargeView>(
    o,
    'linkPayment',
    {
      workflowId: workflowIds.linkPayment(input.linkId, input.paymentId),
      args: [args],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: searchAttributes({
        orgId: input.orgId,
        projectId: input.projectId,
        environment: input.environment,
        attemptId: input.paymentId,
        rail,
        amountMinor,
      }),
    },
    linkChargeUpdate,
  );
}

/** Tells a payment's workflow the rail has news; false when the workflow has already finished. */
export async function noteLinkRailNotice(
  o: Orchestrator,
  linkId: string,
  paymentId: string,
): Promise<boolean> {
  try {
    await signal(o, workflowIds.linkPayment(linkId, paymentId), linkRailNoticeSignal);
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}
