// The mandate document: every term the consumer agreed to, in the shape that is canonicalized and
// signed. Amounts are decimal strings (exact at any size); times are ISO 8601 UTC with milliseconds.
import { randomBytes } from 'node:crypto';
import type { AttestationInput, IntentInput } from '../../schema/http/consents';

export const MANDATE_DOCUMENT_VERSION = 1;

export interface MandateDocument {
  version: 1;
  id: string;
  revision: number;
  nonce: string;
  scope: string;
  agent_id: string;
  consumer_id: string;
  funding_source_id: string;
  rail: string;
  purpose: string;
  currency: string;
  cap_minor: string;
  per_tx_cap_minor: string;
  merchant_allowlist: string[];
  merchant_pin_kind?: string;
  withdrawal_allowlist?: string[];
  dda_allowlist?: string[];
  periodic_cap?: { window: string; cap_minor: string };
  slots?: Array<{ currency: string; rail: string; cap_minor: string; per_tx_cap_minor: string }>;
  shipping?: Record<string, unknown>;
  attestation?: AttestationInput;
  issued_at: string;
  expires_at: string;
}

export function mandateScope(orgId: string, projectId: string, consumerId: string): string {
  return `${orgId}/${projectId}/${consumerId}`;
}

export function newNonce(): string {
  return randomBytes(16).toString('hex');
}

export function buildMandateDocument(input: {
  id: string;
  orgId: string;
  projectId: string;
  consumerId: string;
  fundingSourceId: string;
  rail: string;
  agentId: string;
  intent: IntentInput;
  attestation?: AttestationInput;
  issuedAt: Date;
}): MandateDocument {
  const { intent } = input;
  const expiresAt = new Date(input.issuedAt.getTime() + intent.mandate_ttl_seconds * 1000);
  return {
    version: MANDATE_DOCUMENT_VERSION,
    id: input.id,
    revision: 1,
    nonce: newNonce(),
    scope: mandateScope(input.orgId, input.projectId, input.consumerId),
    agent_id: input.agentId,
    consumer_id: input.consumerId,
    funding_source_id: input.fundingSourceId,
    rail: input.rail,
    purpose: intent.purpose,
    currency: intent.currency,
    cap_minor: String(intent.cap_minor),
    per_tx_cap_minor: String(intent.per_tx_cap_minor),
    merchant_allowlist: intent.merchant_allowlist,
    merchant_pin_kind: intent.merchant_pin_kind,
    withdrawal_allowlist: intent.withdrawal_allowlist,
    dda_allowlist: intent.dda_allowlist,
    periodic_cap: intent.periodic_cap
      ? { window: intent.periodic_cap.window, cap_minor: String(intent.periodic_cap.cap_minor) }
      : undefined,
    slots: intent.slots?.map((slot) => ({
      currency: slot.currency,
      rail: slot.rail,
      cap_minor: String(slot.cap_minor),
      per_tx_cap_minor: String(slot.per_tx_cap_minor),
    })),
    shipping: intent.shipping,
    attestation: input.attestation,
    issued_at: input.issuedAt.toISOString(),
    expires_at: expiresAt.toISOString(),
  };
}

/** Drops absent members so the stored JSON equals the signed canonical form member for member. */
export function compactDocument(document: MandateDocument): MandateDocument {
  return JSON.parse(JSON.stringify(document)) as MandateDocument;
}
