-- Wallet top-ups: money that really arrived for a wallet. A Pix top-up is a dynamic charge (`cob`) at the
-- PSP, a row from its request on; a USDC deposit is a row from the moment its transfer has enough
-- confirmations. Either leaves `pending` once, and a credited row names its ledger `fund` entry, whose
-- external_ref is the row's provider_ref: unique per wallet here and in the ledger, so a retried credit
-- finds its own earlier write.
CREATE TABLE wallet_topups (
  id text PRIMARY KEY CHECK (id ~ '^wtu_[0-9a-z]{26}$'),
  org_id text NOT NULL,
  project_id text NOT NULL,
  environment text NOT NULL CHECK (environment IN ('live', 'test')),
  wallet_id text NOT NULL,
  method text NOT NULL CHECK (method IN ('pix', 'usdc')),
  currency text NOT NULL CHECK ((method = 'pix' AND currency = 'BRL') OR (method = 'usdc' AND currency = 'USDC')),
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'credited', 'expired', 'failed')),
  -- The caller's key for a retried create (body `attempt_id`) and the request it named.
  attempt_id text,
  request_fingerprint text,
  -- Pix: the charge's txid (26..35 alphanumerics, unique at the PSP), its BR Code and when it lapses.
  txid text UNIQUE,
  br_code text,
  expires_at timestamptz,
  -- `pix:<endToEndId>` or `usdc:<txhash>:<logIndex>`: the ledger entry's external_ref.
  provider_ref text,
  ledger_entry_id bigint,
  details jsonb NOT NULL DEFAULT '{}'::jsonb,
  failure_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  settled_at timestamptz,
  FOREIGN KEY (org_id, project_id, wallet_id) REFERENCES wallets (org_id, project_id, id),
  CONSTRAINT wallet_topups_provider_ref_key UNIQUE (wallet_id, provider_ref),
  CONSTRAINT wallet_topups_attempt_key UNIQUE (wallet_id, attempt_id),
  CHECK ((status = 'pending') = (settled_at IS NULL)),
  CHECK ((status = 'credited') = (ledger_entry_id IS NOT NULL AND provider_ref IS NOT NULL))
);
CREATE INDEX wallet_topups_wallet ON wallet_topups (wallet_id, id DESC);
CREATE INDEX wallet_topups_operator ON wallet_topups (org_id, created_at DESC);

-- A USDC wallet's deposit address on the chain, and how far its watcher has credited: every block below
-- next_block was scanned and each of its transfers to the address credited.
CREATE TABLE wallet_deposit_addresses (
  wallet_id text PRIMARY KEY,
  org_id text NOT NULL,
  project_id text NOT NULL,
  environment text NOT NULL CHECK (environment IN ('live', 'test')),
  network text NOT NULL,
  asset text NOT NULL,
  address text NOT NULL UNIQUE,
  provider_ref text NOT NULL,
  next_block bigint NOT NULL CHECK (next_block >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  scanned_at timestamptz,
  FOREIGN KEY (org_id, project_id, wallet_id) REFERENCES wallets (org_id, project_id, id)
);

INSERT INTO event_catalog (type) VALUES
  ('wallet.topup.created'),
  ('wallet.topup.credited'),
  ('wallet.topup.expired')
ON CONFLICT DO NOTHING;
