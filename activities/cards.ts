// The steps of a card mint flow: tell the issuer where to send authorization requests, create the card at
// the issuer (keyed by the flow's id, so a retry creates one card), and record it. Each step acts only from
// the step it expects, so a retried activity or a second run changes nothing; an issuer's refusal is final.
import { ApplicationFailure } from '@temporalio/common';
import {
  advanceMintFlow,
  failMintFlow,
  finishMint,
  mintFlowById,
  requestOf,
  type MintedCard,
} from '../domain/issuer/mint-flows';
import { markExpiriesStarted, unstartedExpiries } from '../domain/issuer/issuer-messages';
import { requireEndpoint } from '../domain/providers/endpoints';
import type { Environment } from '../domain/tenancy/api-key-format';
import { issuerProvider, IssuerRefused, type IssuerProvider } from '../providers/issuer/client';
import { ISSUER_REFUSED } from '../contracts/card-mint';
import type { CardAuthorizationExpiryInput } from '../contracts/card-authorization';
import type { ActivityDeps } from './deps';

/** The issuer route starts an expiry right after the decision commits; the sweep leaves it that long. */
const EXPIRY_START_GRACE_SECONDS = 30;
/** Expiries one sweep starts at most (the next takes the rest). */
const EXPIRY_SWEEP_BATCH = 100;

export function cardActivities(deps: ActivityDeps) {
  const providerFor = (environment: Environment): IssuerProvider =>
    issuerProvider({
      baseUrl: requireEndpoint(deps.config, 'issuer', environment),
      apiKey: deps.config.issuer.apiKey,
      timeoutMs: deps.config.providerTimeoutMs,
    });
  const flowOf = async (flowId: string) => {
    const flow = await mintFlowById(deps.db, flowId);
    if (!flow) throw ApplicationFailure.nonRetryable(`no mint flow ${flowId}`, ISSUER_REFUSED);
    return flow;
  };
  const refused = (error: unknown): never => {
    if (error instanceof IssuerRefused)
      throw ApplicationFailure.nonRetryable(error.message, ISSUER_REFUSED, error.code);
    throw error;
  };
  return {
    async registerIssuerEndpoint(flowId: string, callbackUrl: string): Promise<void> {
      const flow = await flowOf(flowId);
      if (flow.step !== 'requested') return;
      await providerFor(flow.environment).registerEndpoint(callbackUrl).catch(refused);
      await advanceMintFlow(deps.db, flowId, 'requested', 'endpoint_registered');
    },
    /** The issuer's card for the flow: created once under the flow's id, read again by a retry. */
    async createIssuerCard(flowId: string): Promise<MintedCard | null> {
      const flow = await flowOf(flowId);
      if (flow.step !== 'endpoint_registered' && flow.step !== 'card_created') return null;
      const request = requestOf(flow);
      const card = await providerFor(flow.environment)
        .createCard(flowId, { currency: request.currency.toLowerCase(), metadata: { mint_flow_id: flowId } })
        .catch(refused);
      await advanceMintFlow(deps.db, flowId, 'endpoint_registered', 'card_created', card.id);
      return {
        issuerCardId: card.id,
        last4: card.last4,
        network: card.brand,
        expMonth: card.exp_month,
        expYear: card.exp_year,
      };
    },
    async recordMintedCard(flowId: string, card: MintedCard): Promise<string> {
      return finishMint(deps.db, flowId, card);
    },
    async failCardMint(flowId: string, reason: string): Promise<void> {
      await failMintFlow(deps.db, flowId, reason);
    },
    /** For the card expiry sweep: pending approvals decided a while ago whose expiry is not noted started. */
    async unstartedCardExpiries(): Promise<CardAuthorizationExpiryInput[]> {
      return unstartedExpiries(deps.db, EXPIRY_START_GRACE_SECONDS, EXPIRY_SWEEP_BATCH);
    },
    async noteCardExpiriesStarted(
      started: Array<{ issuer: string; issuerAuthorizationId: string }>,
    ): Promise<void> {
      await markExpiriesStarted(deps.db, started);
    },
  };
}
