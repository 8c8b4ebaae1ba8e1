// The deployment-wide sweep that starts the expiry workflows of approved card authorizations whose start,
// right after the decision committed, was lost (Temporal unreachable then, or the process gone): runs from
// the `card-expiry-sweep` Temporal Schedule every minute. Each start is a child under the authorization's
// own workflow id, abandoned so it outlives the sweep; one that already exists is taken as started.
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { proxyActivities, startChild } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { searchAttributes } from '../contracts/search-attributes';
import { workflowIds } from '../contracts/workflow-ids';

const { unstartedCardExpiries, noteCardExpiriesStarted } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 5,
  },
});

export async function cardExpirySweep(): Promise<{ found: number; started: number }> {
  const expiries = await unstartedCardExpiries();
  let started = 0;
  for (const expiry of expiries) {
    const { authorization } = expiry;
    try {
      await startChild('cardAuthorizationExpiry', {
        workflowId: workflowIds.cardAuthorization(authorization.issuer, authorization.issuerAuthorizationId),
        parentClosePolicy: 'ABANDON',
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        args: [expiry],
        typedSearchAttributes: searchAttributes(authorization),
      });
      started += 1;
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }
  await noteCardExpiriesStarted(expiries.map((expiry) => expiry.authorization));
  return { found: expiries.length, started };
}
