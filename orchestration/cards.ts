// Card mint flows' workflows: a create starts the flow's run and waits a bounded time for its outcome, so a
// caller usually gets the card itself; a run that takes longer keeps going and the flow stays readable.
import type { cardMint } from '../workflows/card-mint';
import type { CardMintInput, CardMintOutcome } from '../contracts/card-mint';
import { searchAttributes, type SearchAttributeValues } from '../contracts/search-attributes';
import { workflowIds } from '../contracts/workflow-ids';
import { start, type Orchestrator } from './temporal';

/** Starts the flow's run and answers its outcome, or null when `waitMs` passed first. */
export async function mintCard(
  o: Orchestrator,
  input: CardMintInput,
  scope: SearchAttributeValues,
  waitMs: number,
): Promise<CardMintOutcome | null> {
  const run = await start<typeof cardMint>(o, 'cardMint', {
    workflowId: workflowIds.cardMint(input.flowId),
    args: [input],
    // One run per flow: the flow's id is new for every create.
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    typedSearchAttributes: searchAttributes(scope),
  });
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), waitMs);
  });
  try {
    return await Promise.race([run.result(), waited]);
  } finally {
    clearTimeout(timer);
  }
}
