// Consumer, contact verification and consent-record bodies as the spec lists their fields.
import type { ConsumerRow } from '../../domain/consumers/consumers';
import type { VerificationRow } from '../../domain/contact-verification/verifications';
import { recordPayload, type ConsentRecordRow } from '../../domain/mandates/consent-records';

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
  // The public view is the signed payload without the tenant columns, plus the secret version that signed it.
  const { org_id: _org, project_id: _project, ...signed } = recordPayload(row);
  return { ...signed, hmac_secret_version: row.hmac_secret_version };
}
