-- Provider connections become real: the stand-in table of 0100 gains the catalog server it connects,
-- the environment and auth type, plain settings, and the envelope-sealed credential (ciphertext, the
-- wrapped data key and which key-encryption key wrapped it). A `none` server has no sealed columns.
ALTER TABLE provider_connections
  ADD COLUMN environment text CHECK (environment IN ('live', 'test')),
  ADD COLUMN auth_type text CHECK (auth_type IN ('api_key', 'path_secret', 'oauth', 'cert', 'none', 'hmac_signed', 'jwt_ecdsa', 'two_header', 'cdp')),
  ADD COLUMN label text CHECK (char_length(label) BETWEEN 1 AND 120),
  ADD COLUMN settings jsonb NOT NULL DEFAULT '{}'::jsonb,
  ADD COLUMN secret_fields text[] NOT NULL DEFAULT '{}',
  ADD COLUMN secret_ciphertext text,
  ADD COLUMN secret_wrapped_key text,
  ADD COLUMN secret_key_ref text,
  ADD COLUMN status_reason text,
  ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now(),
  ADD COLUMN rotated_at timestamptz,
  ADD COLUMN last_verified_at timestamptz,
  ADD CONSTRAINT provider_connections_sealed_together CHECK (
    (secret_ciphertext IS NULL) = (secret_wrapped_key IS NULL) AND (secret_ciphertext IS NULL) = (secret_key_ref IS NULL)),
  ALTER COLUMN rail DROP NOT NULL;

CREATE INDEX provider_connections_project ON provider_connections (org_id, project_id, created_at DESC, id DESC);
CREATE INDEX provider_connections_provider ON provider_connections (org_id, project_id, provider, created_at DESC);
-- Key rotation walks the rows still wrapped under an older key-encryption key.
CREATE INDEX provider_connections_key_ref ON provider_connections (secret_key_ref) WHERE secret_key_ref IS NOT NULL;

-- The OAuth authorization-code flow in flight: one row per `state`, consumed by the managed callback.
CREATE TABLE provider_oauth_states (
  state text PRIMARY KEY,
  org_id text NOT NULL,
  project_id text NOT NULL,
  provider text NOT NULL,
  environment text NOT NULL CHECK (environment IN ('live', 'test')),
  label text,
  redirect_uri text NOT NULL,
  code_verifier text NOT NULL,
  connection_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  consumed_at timestamptz,
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);
