// Approved card authorizations' expiry workflows: started once the decision has committed (never before the
// issuer is answered), one per authorization whatever the number of duplicate requests, and told when the
// issuer's message closed the authorization so its timer need not run out. A start is noted on the
// authorization; one lost to an outage is made by the card expiry sweep (workflows/card-expiry-sweep.ts).
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import {
  cardAuthorizationClosedSignal,
  type CardAuthorizationExpiryInput,
} from '../contracts/card-authorization';
import { searchAttributes } from '../contracts/search-attributes';
import { workflowIds } from '../contracts/workflow-ids';
import { markExpiriesStarted } from '../domain/issuer/issuer-messages';
import type { DatabasePool } from '../runtime/database';
import type { cardAuthorizationExpiry } from '../workflows/card-authorization-expiry';
import { signal, start, type Orchestrator } from './temporal';

export async function startAuthorizationExpiry(
  o: Orchestrator,
  db: DatabasePool,
  expiry: CardAuthorizationExpiryInput,
): Promise<void> {
  const { authorization } = expiry;
  try {
    await start<typeof cardAuthorizationExpiry>(o, 'cardAuthorizationExpiry', {
      workflowId: workflowIds.cardAuthorization(authorization.issuer, authorization.issuerAuthorizationId),
      args: [expiry],
      // One expiry per authorization, ever: its id is the issuer's.
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: searchAttributes(authorization),
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  await markExpiriesStarted(db, [authorization]);
}

/** Ends the authorization's expiry early; nothing to do when it has already ended (or never started). */
export async function noteAuthorizationClosed(
  o: Orchestrator,
  issuer: string,
  issuerAuthorizationId: string,
): Promise<void> {
  try {
    await signal(
      o,
      workflowIds.cardAuthorization(issuer, issuerAuthorizationId),
      cardAuthorizationClosedSignal,
    );
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
}
