// A card authorization as the engine knows it once the gateway has decided it (in one transaction inside the
// issuer's deadline): the attempt it is, and the workflow that releases its hold at expiry unless the
// issuer's capture or reversal closes it first. Types and constants only, so workflow code can import them.
import { defineSignal } from '@temporalio/workflow';

/** What the engine is given of a decided card authorization: the attempt, named by the issuer's id. */
export interface CardAuthorizationInput {
  orgId: string;
  projectId: string;
  environment: 'live' | 'test';
  /** `card:<issuer authorization id>` in the attempts table. */
  attemptId: string;
  issuer: string;
  issuerAuthorizationId: string;
  /** What the approval holds, in minor units as decimal digits. */
  amountMinor: string;
  /** The issuer's authorization request, for the answer the engine stores; never held for approval. */
  requestId: null;
  approvalId?: undefined;
}

/** The expiry workflow of one approved authorization: it sleeps until `expiresAt` (ISO 8601). */
export interface CardAuthorizationExpiryInput {
  authorization: CardAuthorizationInput;
  expiresAt: string;
}

export type CardAuthorizationExpiryOutcome =
  /** The issuer's capture or reversal (or its own expiry) closed it first. */
  | { status: 'closed_by_issuer' }
  /** The gateway released what it still held at expiry (the hold it released). */
  | { status: 'expired'; releaseId: string | null };

/** Sent once the issuer's message closed the authorization: nothing is left for the timer to release. */
export const cardAuthorizationClosedSignal = defineSignal('cardAuthorizationClosed');

/**
 * How long an approved authorization holds its amount when the issuer states no expiry: seven days, as card
 * networks let an authorization stand before it must be captured or falls away.
 */
export const DEFAULT_AUTHORIZATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
