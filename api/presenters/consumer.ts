// Consumer, contact verification and consent-record bodies as the spec lists their fields.
import type { ConsumerRow } from '../../domain/consumers/consumers';
import type { VerificationRow } from '../../domain/contact-verification/verifications';
import type { ConsentRecordRow } from '../../domain/mandates/consent-records';

export function presentConsumer(row: ConsumerRow) {
  return {
    id: row.id,
    display_name: row.display_name,
    document: row.document,
    document_source: row.document_source,
    document_verified_at: row.document_verified_at,
    person_type: row.person_type,
    tax_type: row.tax_type,
    status: row.status,
    metadata: row.metadata,
    created_at: row.created_at,
  };
}

export function presentVerification(row: VerificationRow) {
  return {
    id: row.id,
    channel: row.channel,
    target_masked: row.target_masked,
    provider: row.provider,
    expires_at: row.expires_at,
    status: row.status === 'verified' ? 'verified' : 'sent',
    verified_at: row.verified_at,
  };
}

export function presentConsentRecord(row: ConsentRecordRow) {
  return {
    id: row.id,
    consumer_id: row.consumer_id,
    mandate_id: row.mandate_id,
    kind: row.kind,
    agent_id: row.agent_id,
    funding_source_id: row.funding_source_id,
    purpose: row.purpose,
    currency: row.currency,
    cap_minor: row.cap_minor === null ? null : row.cap_minor.toString(),
    per_tx_cap_minor: row.per_tx_cap_minor === null ? null : row.per_tx_cap_minor.toString(),
    expires_at: row.expires_at,
    hmac_secret_version: row.hmac_secret_version,
    ip_address: row.ip_address,
    metadata: row.metadata,
    signed_at: row.signed_at,
  };
}
