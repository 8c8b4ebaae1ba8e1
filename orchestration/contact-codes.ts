// Contact codes: the delivery and check workflows, run to their end while the HTTP caller waits. Their
// refusals arrive as the workflow's failure types (orchestration/errors.ts reads them).
import type { ContactCodeCheckInput, ContactCodeDeliveryInput } from '../contracts/contact-code';
import { searchAttributes, type SearchAttributeValues } from '../contracts/search-attributes';
import { workflowIds } from '../contracts/workflow-ids';
import type { contactCodeCheck, contactCodeDelivery } from '../workflows/contact-code';
import { execute, type Orchestrator } from './temporal';

/** Sends the code (the sender's reference comes back) and opens the verification for checks. */
export function runContactCodeDelivery(
  o: Orchestrator,
  input: ContactCodeDeliveryInput,
  filter: SearchAttributeValues,
): Promise<{ providerReference: string | null }> {
  return execute<typeof contactCodeDelivery>(o, 'contactCodeDelivery', {
    workflowId: workflowIds.contactCodeDelivery(input.verificationId),
    args: [input],
    workflowExecutionTimeout: '2 minutes',
    typedSearchAttributes: searchAttributes(filter),
  });
}

/** Asks the provider that owns the code; `attempt` names the check, one workflow per attempt. */
export function runContactCodeCheck(
  o: Orchestrator,
  input: ContactCodeCheckInput,
  attempt: number,
  filter: SearchAttributeValues,
) {
  return execute<typeof contactCodeCheck>(o, 'contactCodeCheck', {
    workflowId: workflowIds.contactCodeCheck(input.verificationId, attempt),
    args: [input],
    workflowExecutionTimeout: '1 minute',
    typedSearchAttributes: searchAttributes(filter),
  });
}
