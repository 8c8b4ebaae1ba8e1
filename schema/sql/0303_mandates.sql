-- Signed mandates, the versioned HMAC secrets that sign them, the append-only consent log, and the
-- spend seam the mandate-bound payments area writes (one row per settled attempt).
CREATE TABLE mandate_signing_secrets (
  version integer PRIMARY KEY CHECK (version > 0),
  secret_sealed text NOT NULL, -- AES-256-GCM sealed; never leaves the process in clear
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE mandates (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  project_id text NOT NULL,
  environment text NOT NULL CHECK (environment IN ('live', 'test')),
  consumer_id text NOT NULL,
  funding_source_id text NOT NULL,
  consent_id text NOT NULL UNIQUE REFERENCES consents (id) ON DELETE RESTRICT,
  agent_id text NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked', 'expired')),
  -- Each amendment re-signs the document and bumps the revision; older signatures stop verifying.
  revision integer NOT NULL DEFAULT 1 CHECK (revision > 0),
  purpose text NOT NULL,
  currency text NOT NULL CHECK (currency IN ('BRL', 'USD', 'MXN', 'COP', 'ARS', 'USDC', 'BRLA')),
  cap_minor bigint NOT NULL CHECK (cap_minor > 0),
  per_tx_cap_minor bigint NOT NULL CHECK (per_tx_cap_minor > 0 AND per_tx_cap_minor <= cap_minor),
  document jsonb NOT NULL,
  canonical text NOT NULL,
  signature text NOT NULL CHECK (signature ~ '^[0-9a-f]{64}$'),
  hmac_secret_version integer NOT NULL REFERENCES mandate_signing_secrets (version),
  signed_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL CHECK (expires_at > signed_at),
  amended_at timestamptz,
  revoked_at timestamptz,
  expired_at timestamptz,
  CHECK ((status = 'revoked') = (revoked_at IS NOT NULL)),
  CHECK ((status = 'expired') = (expired_at IS NOT NULL)),
  CONSTRAINT mandates_tenant_id_key UNIQUE (org_id, project_id, id),
  FOREIGN KEY (org_id, project_id, consumer_id) REFERENCES consumers (org_id, project_id, id) ON DELETE RESTRICT,
  FOREIGN KEY (org_id, project_id, funding_source_id) REFERENCES consumer_funding_sources (org_id, project_id, id) ON DELETE RESTRICT
);
CREATE INDEX mandates_consumer ON mandates (org_id, project_id, consumer_id, status);

-- The consent log: grants, revocations and amendments, never updated or deleted. Every row is signed
-- under the secret version it records, so rotation leaves older rows verifiable.
CREATE TABLE consent_records (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  project_id text NOT NULL,
  consumer_id text NOT NULL,
  mandate_id text,
  kind text NOT NULL CHECK (kind IN ('grant', 'revoke', 'amend')),
  agent_id text,
  funding_source_id text,
  purpose text,
  currency text CHECK (currency IN ('BRL', 'USD', 'MXN', 'COP', 'ARS', 'USDC', 'BRLA')),
  cap_minor bigint,
  per_tx_cap_minor bigint,
  expires_at timestamptz,
  hmac_secret_version integer NOT NULL REFERENCES mandate_signing_secrets (version),
  signature text NOT NULL CHECK (signature ~ '^[0-9a-f]{64}$'),
  ip_address inet,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  signed_at timestamptz NOT NULL,
  CHECK (kind <> 'grant' OR (funding_source_id IS NOT NULL AND purpose IS NOT NULL AND currency IS NOT NULL
                             AND cap_minor IS NOT NULL AND per_tx_cap_minor IS NOT NULL)),
  CHECK (kind = 'grant' OR (cap_minor IS NULL AND per_tx_cap_minor IS NULL)),
  FOREIGN KEY (org_id, project_id, consumer_id) REFERENCES consumers (org_id, project_id, id) ON DELETE RESTRICT,
  FOREIGN KEY (org_id, project_id, mandate_id) REFERENCES mandates (org_id, project_id, id) ON DELETE RESTRICT
);
CREATE INDEX consent_records_mandate ON consent_records (org_id, project_id, mandate_id, signed_at);

CREATE FUNCTION consent_records_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'consent_records is append-only' USING ERRCODE = 'restrict_violation';
END
$$;
CREATE TRIGGER consent_records_append_only BEFORE UPDATE OR DELETE ON consent_records
  FOR EACH ROW EXECUTE FUNCTION consent_records_append_only();

-- Written by the mandate-bound payments area, one row per settled attempt; the consumer wallet roll-up
-- reads it as `spent_minor`. The unique attempt key makes a retried insert find its own earlier write.
CREATE TABLE mandate_spends (
  id bigserial PRIMARY KEY,
  org_id text NOT NULL,
  project_id text NOT NULL,
  mandate_id text NOT NULL,
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  currency text NOT NULL CHECK (currency IN ('BRL', 'USD', 'MXN', 'COP', 'ARS', 'USDC', 'BRLA')),
  attempt_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT mandate_spends_attempt_key UNIQUE (org_id, attempt_id),
  FOREIGN KEY (org_id, project_id, mandate_id) REFERENCES mandates (org_id, project_id, id) ON DELETE RESTRICT
);
CREATE INDEX mandate_spends_mandate ON mandate_spends (org_id, project_id, mandate_id, currency);
