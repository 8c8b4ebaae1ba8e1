// The shapes a consumer spend travels in: from the route to the workflow (SpendRequest), through the
// audit trail, to the stored answer (SpendAnswer). Plain JSON only: workflows serialize their inputs.
import type { AuditStep } from './attempt-audit';
import type { DeniedBy } from './policy-denial';

/** The approval kind the approval-hold workflow replays as a consumer spend (workflows/replays.ts). */
export const CONSUMER_SPEND_KIND = 'consumer.spend';

export type { AuditStep } from './attempt-audit';

export type SpendRail = 'pix' | 'ted';

export interface SpendRequest {
  orgId: string;
  projectId: string;
  environment: 'live' | 'test';
  requestId: string;
  attemptId: string;
  callerAttempt: boolean;
  workflowId: string;
  dispatchKey: string;
  fingerprint: string;
  rail: SpendRail;
  /** Decimal string: bigints do not survive workflow serialization. */
  amountMinor: string;
  currency: 'BRL';
  /** The payee as the caller sent it, and the canonical form the fingerprint and receipt use. */
  payee: string;
  payeeCanonical: string;
  pix: {
    key: string;
    keyType: string;
    txid: string | null;
    merchantName: string | null;
    codeAmountMinor: string | null;
  } | null;
  ted: {
    ispb: string;
    branch: string;
    account: string;
    taxId: string | null;
    name: string | null;
    accountType: string | null;
    personType: string | null;
    clientFinality: string | null;
  } | null;
  purpose: string;
  agentId: string;
  signature: string;
  mandate: unknown;
  mandateId: string;
  quote: {
    seller?: string;
    resource?: string;
    price_minor?: number;
    payee?: string;
    session_id?: string;
    at?: string;
  } | null;
  approval: { items_hash: string; batch_hash: string } | null;
  actor: { type?: string; id?: string; on_behalf_of?: string } | null;
  sessionId: string | null;
  /** Set when an approval-hold replays this attempt after a person approved it. */
  approvedBy: string | null;
  /** Steps the route already ran (payee parsing, session), so the audit tells the whole story. */
  preAudit: AuditStep[];
}

/** What answers the HTTP call: the status and body exactly as stored for replays. */
export interface SpendAnswer {
  httpStatus: number;
  status: 'completed' | 'failed' | 'refused' | 'requires_approval' | 'dispatch_uncertain';
  body: Record<string, unknown>;
}

export interface SpendRefusalInfo {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
  /** Set when a policy rule refused: the answer is then the spec's flat denial body, not the envelope. */
  policy?: DeniedBy;
}

/** What a held spend's later steps need from its mandate; plain JSON so it can cross into the workflow. */
export interface TermsSummary {
  mandateId: string;
  consumerId: string;
  currency: string;
  capMinor: string;
  nonce: string;
  scope: string;
  signature: string;
  /** Absent in attempts authorized before consent pulls existed: those held on the sub-account. */
  funding?: 'sub_account' | 'consent_pull';
  /** The funding source a consent pull goes through at the PSP. */
  fundingSourceId?: string;
}
