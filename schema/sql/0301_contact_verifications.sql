-- Contact verifications: one row per code sent to a consumer's email or phone. The target and the code
-- are stored only as keyed hashes; the masked target is what the API shows.
CREATE TABLE contact_verifications (
  id uuid PRIMARY KEY,
  org_id text NOT NULL,
  project_id text NOT NULL,
  consumer_id text NOT NULL,
  channel text NOT NULL CHECK (channel IN ('email', 'phone')),
  target_hash text NOT NULL CHECK (target_hash ~ '^[0-9a-f]{64}$'),
  target_masked text NOT NULL,
  provider text NOT NULL CHECK (provider IN ('dev', 'prelude', 'resend')),
  locale text NOT NULL,
  -- `sending`: reserved, the code may be on its way; it counts against the hourly ceiling but cannot be verified.
  status text NOT NULL DEFAULT 'sending' CHECK (status IN ('sending', 'sent', 'verified', 'superseded')),
  code_length integer NOT NULL CHECK (code_length BETWEEN 4 AND 8),
  code_key_version integer NOT NULL,
  code_hash text CHECK (code_hash ~ '^[0-9a-f]{64}$'), -- null when the provider (prelude) owns the code
  attempts_used integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL CHECK (max_attempts > 0),
  provider_reference text,
  expires_at timestamptz NOT NULL,
  sent_at timestamptz,
  verified_at timestamptz,
  superseded_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (attempts_used BETWEEN 0 AND max_attempts),
  FOREIGN KEY (org_id, project_id, consumer_id) REFERENCES consumers (org_id, project_id, id) ON DELETE RESTRICT
);
-- The hourly ceiling counts a contact's recent sends; supersession finds its open rows.
CREATE INDEX contact_verifications_contact ON contact_verifications (org_id, project_id, target_hash, created_at DESC);
CREATE INDEX contact_verifications_consumer ON contact_verifications (org_id, project_id, consumer_id, created_at DESC);
