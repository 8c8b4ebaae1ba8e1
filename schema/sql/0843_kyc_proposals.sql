-- KYC onboarding proposals: a person's application for an account at the KYC/BaaS provider, recorded
-- with the document the gateway verified. Polling the (deprecated) status route moves it through
-- pending, documentscopy_pending, approved or rejected; an approval records the account, at most one
-- funding source and, lazily, the account's Pix key.
CREATE TABLE kyc_proposals (
  id text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 128), -- the provider's proposal id
  org_id text NOT NULL,
  project_id text NOT NULL,
  consumer_id text,
  document_number text NOT NULL CHECK (document_number ~ '^([0-9]{11}|[0-9]{14})$'),
  status text NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'documentscopy_pending', 'approved', 'rejected')),
  hosted_url text,
  account text,
  funding_source_id text UNIQUE REFERENCES consumer_funding_sources (id),
  pix_key text,
  pix_key_type text,
  -- Why the last Pix key registration failed; cleared once a key is registered.
  pix_key_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  approved_at timestamptz,
  CHECK (status <> 'approved' OR account IS NOT NULL),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE,
  FOREIGN KEY (org_id, project_id, consumer_id) REFERENCES consumers (org_id, project_id, id) ON DELETE RESTRICT
);
CREATE INDEX kyc_proposals_tenant ON kyc_proposals (org_id, project_id, created_at DESC);
