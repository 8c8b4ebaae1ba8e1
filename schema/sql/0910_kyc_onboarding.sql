-- KYC onboarding started through the API: one workflow per proposal follows the provider and writes
-- here. A proposal records its environment (which provider it lives at), when the gateway started its
-- onboarding (null for proposals opened elsewhere, which the deprecated poll still refreshes itself),
-- the provider's rejection reason, and when the consumer's document was marked verified.
ALTER TABLE kyc_proposals ADD COLUMN environment text CHECK (environment IN ('live', 'test'));
UPDATE kyc_proposals k SET environment = p.environment FROM projects p
  WHERE p.org_id = k.org_id AND p.id = k.project_id;
ALTER TABLE kyc_proposals ALTER COLUMN environment SET NOT NULL;
ALTER TABLE kyc_proposals
  ADD COLUMN onboarding_started_at timestamptz,
  ADD COLUMN rejection_reason text CHECK (length(rejection_reason) <= 500),
  ADD COLUMN document_verified_at timestamptz,
  ADD COLUMN pix_key_attempts integer NOT NULL DEFAULT 0 CHECK (pix_key_attempts >= 0);

-- One onboarding in flight or approved per consumer: a second start while one stands is refused.
CREATE UNIQUE INDEX kyc_proposals_consumer_onboarding ON kyc_proposals (org_id, project_id, consumer_id)
  WHERE onboarding_started_at IS NOT NULL AND status <> 'rejected';

-- Provider webhooks seen, by the provider's event id: a replayed or duplicated delivery is acknowledged
-- and applied once. Rows older than the signature tolerance could go; they are kept as the audit trail.
CREATE TABLE kyc_webhook_receipts (
  event_id text PRIMARY KEY CHECK (length(event_id) BETWEEN 1 AND 128),
  proposal_id text NOT NULL REFERENCES kyc_proposals (id) ON DELETE CASCADE,
  status text,
  received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX kyc_webhook_receipts_proposal ON kyc_webhook_receipts (proposal_id, received_at);

INSERT INTO event_catalog (type) VALUES
  ('kyc.onboarding.started'),
  ('kyc.onboarding.pending'),
  ('kyc.onboarding.documentscopy_pending'),
  ('kyc.onboarding.approved'),
  ('kyc.onboarding.rejected'),
  ('kyc.pix_key.registered'),
  ('kyc.pix_key.registration_failed')
ON CONFLICT DO NOTHING;
