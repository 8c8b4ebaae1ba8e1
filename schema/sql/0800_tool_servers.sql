-- Tenant tool servers: an organization's own upstream MCP server published through the gateway with a price
-- per tool. The upstream credential is sealed like a provider connection's (envelope encryption, bound to the
-- server's id). Each server has two ledger wallets in its project: the tenant's earnings (`payout_wallet_id`)
-- and the platform fees accrued on its calls (`fee_wallet_id`), swept to the organization's platform-fee wallet.
CREATE TABLE tool_servers (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  project_id text NOT NULL,
  environment text NOT NULL CHECK (environment IN ('live', 'test')),
  slug text NOT NULL CHECK (slug ~ '^[a-z0-9][a-z0-9_-]{2,63}$'),
  name text NOT NULL,
  description text,
  overview_md text,
  category text,
  upstream_url text NOT NULL,
  consumer_id text,
  currency text NOT NULL,
  platform_fee_bps integer NOT NULL CHECK (platform_fee_bps BETWEEN 0 AND 10000),
  auth_header text,
  auth_ciphertext text,
  auth_wrapped_key text,
  auth_key_ref text,
  payout_wallet_id text NOT NULL,
  fee_wallet_id text NOT NULL,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);
-- One namespace across accounts (a session names a server by slug); a deleted server keeps its slug.
CREATE UNIQUE INDEX tool_servers_slug_key ON tool_servers (slug);
CREATE INDEX tool_servers_listed ON tool_servers (environment) WHERE deleted_at IS NULL AND active;

CREATE TABLE tool_server_tools (
  server_id text NOT NULL REFERENCES tool_servers (id) ON DELETE CASCADE,
  tool_name text NOT NULL CHECK (tool_name ~ '^[A-Za-z0-9_-]{1,64}$'),
  description text NOT NULL DEFAULT '',
  input_schema jsonb NOT NULL,
  price_minor bigint NOT NULL CHECK (price_minor >= 0),
  active boolean NOT NULL DEFAULT true,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (server_id, tool_name)
);

-- One paid call: the price it was authorized at and how the debit split it. `attempt_id` is the caller's
-- attempt (spend_attempts); the row is written at authorization and settled once.
CREATE TABLE tool_server_charges (
  org_id text NOT NULL,
  attempt_id text NOT NULL,
  project_id text NOT NULL,
  server_id text NOT NULL,
  tool_name text NOT NULL,
  wallet_id text NOT NULL,
  currency text NOT NULL,
  price_minor bigint NOT NULL CHECK (price_minor > 0),
  platform_fee_bps integer NOT NULL,
  tenant_share_minor bigint,
  fee_minor bigint,
  status text NOT NULL DEFAULT 'held' CHECK (status IN ('held', 'debited', 'released', 'uncertain', 'refused')),
  debit_entry_id bigint,
  created_at timestamptz NOT NULL DEFAULT now(),
  settled_at timestamptz,
  PRIMARY KEY (org_id, attempt_id),
  CHECK (status <> 'debited' OR tenant_share_minor + fee_minor = price_minor)
);
CREATE INDEX tool_server_charges_server ON tool_server_charges (server_id, created_at);

-- A platform-fee sweep: what it moved from each server's fee wallet; keyed so a retried sweep finds its rows.
CREATE TABLE tool_server_fee_sweeps (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  server_id text NOT NULL,
  currency text NOT NULL,
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  to_wallet_id text NOT NULL,
  swept_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tool_server_fee_sweeps_org ON tool_server_fee_sweeps (org_id, swept_at);

INSERT INTO event_catalog (type) VALUES
  ('tool_server.created'), ('tool_server.updated'), ('tool_server.deleted'), ('tool_server.fees_swept')
ON CONFLICT DO NOTHING;
