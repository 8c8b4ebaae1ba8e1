-- OAuth 2.1 for clients: dynamically registered public clients, grants made by pasting an API key on
-- the consent page, and the authorization codes, access tokens and refresh tokens issued under them.
-- Codes and tokens are stored only as SHA-256 hashes of their values, which are never retrievable.

-- Registered clients are not tenant rows: registration is public and a client may be authorized
-- by keys of many organizations. Only the grants below belong to a tenant.
CREATE TABLE oauth_clients (
  id text PRIMARY KEY,
  client_name text CHECK (char_length(client_name) <= 256),
  redirect_uris text[] NOT NULL CHECK (cardinality(redirect_uris) BETWEEN 1 AND 10),
  grant_types text[] NOT NULL,
  response_types text[] NOT NULL,
  token_endpoint_auth_method text NOT NULL DEFAULT 'none' CHECK (token_endpoint_auth_method = 'none'),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- One grant per approved consent: the family every code and token issued from it belongs to.
-- Revoking it (code reuse, refresh-token reuse) ends every token of the family at once; revoking
-- the API key it was made with ends them too, since token lookups join the live key.
CREATE TABLE oauth_grants (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  project_id text NOT NULL,
  environment text NOT NULL CHECK (environment IN ('live', 'test')),
  client_id text NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
  api_key_id text NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  scopes text[] NOT NULL CHECK (cardinality(scopes) > 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz,
  revoked_reason text CHECK (revoked_reason IN ('authorization_code_reuse', 'refresh_token_reuse')),
  CHECK ((revoked_at IS NULL) = (revoked_reason IS NULL)),
  CONSTRAINT oauth_grants_org_id_key UNIQUE (org_id, project_id, id),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);
CREATE INDEX oauth_grants_api_key ON oauth_grants (api_key_id);
CREATE INDEX oauth_grants_client ON oauth_grants (client_id);

-- Single use, 60 seconds. `redeemed_at` is set by the first redemption attempt, successful or not.
CREATE TABLE oauth_authorization_codes (
  code_hash text PRIMARY KEY CHECK (code_hash ~ '^[0-9a-f]{64}$'),
  org_id text NOT NULL,
  project_id text NOT NULL,
  grant_id text NOT NULL UNIQUE,
  client_id text NOT NULL,
  redirect_uri text NOT NULL,
  code_challenge text NOT NULL CHECK (code_challenge ~ '^[A-Za-z0-9_-]{43}$'),
  expires_at timestamptz NOT NULL,
  redeemed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (org_id, project_id, grant_id) REFERENCES oauth_grants (org_id, project_id, id) ON DELETE CASCADE
);
CREATE INDEX oauth_authorization_codes_expiry ON oauth_authorization_codes (expires_at);

CREATE TABLE oauth_access_tokens (
  token_hash text PRIMARY KEY CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  org_id text NOT NULL,
  project_id text NOT NULL,
  grant_id text NOT NULL,
  scopes text[] NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (org_id, project_id, grant_id) REFERENCES oauth_grants (org_id, project_id, id) ON DELETE CASCADE
);
CREATE INDEX oauth_access_tokens_grant ON oauth_access_tokens (grant_id);
CREATE INDEX oauth_access_tokens_expiry ON oauth_access_tokens (expires_at);

-- Rotated on every use: `rotated_at` marks a spent token, and presenting a spent one revokes the grant.
CREATE TABLE oauth_refresh_tokens (
  token_hash text PRIMARY KEY CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  org_id text NOT NULL,
  project_id text NOT NULL,
  grant_id text NOT NULL,
  expires_at timestamptz NOT NULL,
  rotated_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (org_id, project_id, grant_id) REFERENCES oauth_grants (org_id, project_id, id) ON DELETE CASCADE
);
CREATE INDEX oauth_refresh_tokens_grant ON oauth_refresh_tokens (grant_id);
CREATE INDEX oauth_refresh_tokens_expiry ON oauth_refresh_tokens (expires_at);
