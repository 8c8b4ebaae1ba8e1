// One card's mint flow (`card-mint/<imf id>`): register the gateway's endpoint at the issuer, create the
// card there, record it. PostgreSQL holds the flow's step, so a reader sees where it stands while it runs;
// an issuer's refusal ends the flow `failed` with the issuer's code, and nothing is left half-made.
import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { ISSUER_REFUSED, type CardMintInput, type CardMintOutcome } from '../contracts/card-mint';

const steps = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 10,
    nonRetryableErrorTypes: [ISSUER_REFUSED],
  },
});
// Recording the end must land whatever happened before it.
const record = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

function reasonOf(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof ApplicationFailure && cause.type === ISSUER_REFUSED)
    return `issuer_refused:${String(cause.details?.[0] ?? 'unknown')}`;
  return 'issuer_unavailable';
}

export async function cardMint(input: CardMintInput): Promise<CardMintOutcome> {
  try {
    await steps.registerIssuerEndpoint(input.flowId, input.callbackUrl);
    const card = await steps.createIssuerCard(input.flowId);
    if (!card)
      throw ApplicationFailure.nonRetryable('the mint flow moved on without its card', ISSUER_REFUSED);
    const cardId = await record.recordMintedCard(input.flowId, card);
    return { status: 'minted', cardId };
  } catch (error) {
    const reason = reasonOf(error);
    await record.failCardMint(input.flowId, reason);
    return { status: 'failed', reason };
  }
}
