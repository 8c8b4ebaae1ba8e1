-- Consent intents behind one-shot `ctk_` tokens. Only the token's SHA-256 digest is stored: the token is
-- the consumer's credential for the hosted page and the submit. Pending for 24 hours, then consumed or expired.
CREATE TABLE consents (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  project_id text NOT NULL,
  environment text NOT NULL CHECK (environment IN ('live', 'test')),
  token_digest text NOT NULL UNIQUE CHECK (token_digest ~ '^[0-9a-f]{64}$'),
  token_hint text NOT NULL,
  key_id text,
  agent_id text NOT NULL,
  surface text NOT NULL CHECK (surface IN ('hosted', 'partner')),
  intent jsonb NOT NULL,
  callback_url text,
  consumer_email_hint text,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'consumed', 'expired')),
  expires_at timestamptz NOT NULL,
  consumed_at timestamptz,
  expired_at timestamptz,
  mandate_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((status = 'consumed') = (consumed_at IS NOT NULL AND mandate_id IS NOT NULL)),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);
CREATE INDEX consents_project ON consents (org_id, project_id, created_at DESC);
