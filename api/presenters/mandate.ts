// Mandate and consent bodies: the signed document travels verbatim with its signature.
import type { ConsentRow } from '../../domain/consents/consents';
import type { SubmitResult } from '../../domain/consents/submit';
import type { MandateRow } from '../../domain/mandates/mandates';
import type { VerifiedMandate } from '../../domain/mandates/verify';

export function presentMandate(row: MandateRow) {
  return {
    id: row.id,
    status: row.status === 'active' && row.lapsed ? 'expired' : row.status,
    consumer_id: row.consumer_id,
    agent_id: row.agent_id,
    funding_source_id: row.funding_source_id,
    revision: row.revision,
    purpose: row.purpose,
    currency: row.currency,
    cap_minor: row.cap_minor.toString(),
    per_tx_cap_minor: row.per_tx_cap_minor.toString(),
    signed_at: row.signed_at,
    expires_at: row.expires_at,
    amended_at: row.amended_at,
    revoked_at: row.revoked_at,
    expired_at: row.expired_at,
    hmac_secret_version: row.hmac_secret_version,
    mandate: row.document,
    signature: row.signature,
  };
}

export function presentVerifiedMandate(verified: VerifiedMandate) {
  const spent = verified.spentMinor.get(verified.currency) ?? 0n;
  const available = verified.capMinor > spent ? verified.capMinor - spent : 0n;
  return {
    valid: true,
    mandate_id: verified.mandateId,
    status: 'active',
    revision: verified.revision,
    consumer_id: verified.consumerId,
    agent_id: verified.agentId,
    currency: verified.currency,
    cap_minor: verified.capMinor.toString(),
    per_tx_cap_minor: verified.perTxCapMinor.toString(),
    spent_minor: spent.toString(),
    available_minor: available.toString(),
    expires_at: verified.expiresAt,
    hmac_secret_version: verified.hmacSecretVersion,
  };
}

export function presentSubmitted(result: SubmitResult) {
  return {
    mandate_id: result.mandate.id,
    consumer_id: result.consumer.id,
    funding_source_id: result.fundingSource.id,
    consent_record_id: result.record.id,
    mandate: result.mandate.document,
    signature: result.mandate.signature,
    hmac_secret_version: result.mandate.hmac_secret_version,
    expires_at: result.mandate.expires_at,
    callback_url: result.consent.callback_url,
  };
}

export function presentPendingConsent(row: ConsentRow, token: string, consentUrl: string) {
  return {
    token,
    status: 'pending',
    surface: row.surface,
    agent_id: row.agent_id,
    intent: row.intent,
    consent_url: consentUrl,
    callback_url: row.callback_url,
    consumer_email_hint: row.consumer_email_hint,
    expires_at: row.expires_at,
    created_at: row.created_at,
  };
}
