-- Consumers gain a tenant-wide unique key for composite foreign keys, and their funding sources:
-- what a consent submit binds a mandate to (a Pix consent or a partner account), provider token sealed.
ALTER TABLE consumers ADD CONSTRAINT consumers_tenant_id_key UNIQUE (org_id, project_id, id);
CREATE INDEX consumers_project_status ON consumers (org_id, project_id, status, created_at DESC, id DESC);

CREATE TABLE consumer_funding_sources (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  project_id text NOT NULL,
  consumer_id text NOT NULL,
  rail text NOT NULL CHECK (rail IN ('pix-consent', 'pix-partner')),
  currency text NOT NULL CHECK (currency IN ('BRL', 'USD', 'MXN', 'COP', 'ARS', 'USDC', 'BRLA')),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  display_label text CHECK (char_length(display_label) BETWEEN 1 AND 120),
  -- AES-256-GCM sealed (domain/crypto/secret-box.ts); only a hint of its last characters is ever shown.
  provider_token_sealed text,
  provider_token_hint text,
  -- The account holder's CPF/CNPJ when the partner attested it (digits only).
  holder_document text CHECK (holder_document ~ '^([0-9]{11}|[0-9]{14})$'),
  consent_id text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  disabled_at timestamptz,
  CONSTRAINT consumer_funding_sources_tenant_id_key UNIQUE (org_id, project_id, id),
  FOREIGN KEY (org_id, project_id, consumer_id) REFERENCES consumers (org_id, project_id, id) ON DELETE RESTRICT
);
CREATE INDEX consumer_funding_sources_consumer ON consumer_funding_sources (org_id, project_id, consumer_id, rail) WHERE status = 'active';
