-- The x402 rail of payment links. Each x402 link payment carries the buyer's EIP-3009 authorization;
-- (network, asset, payer, nonce) is unique, so a replayed authorization can never open a second payment,
-- even while the first has not reached the chain yet. tx_hash is recorded the moment the settlement is
-- broadcast, before its receipt is awaited, so a retried settlement finds it and never broadcasts twice.
CREATE TABLE payment_link_x402_authorizations (
  payment_id text PRIMARY KEY REFERENCES payment_link_payments (id),
  network text NOT NULL,
  asset text NOT NULL,
  payer text NOT NULL,
  pay_to text NOT NULL,
  value bigint NOT NULL CHECK (value > 0),
  valid_after bigint NOT NULL,
  valid_before bigint NOT NULL,
  nonce text NOT NULL CHECK (nonce ~ '^0x[0-9a-f]{64}$'),
  signature text NOT NULL,
  tx_hash text CHECK (tx_hash ~ '^0x[0-9a-f]{64}$'),
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT payment_link_x402_authorizations_nonce_key UNIQUE (network, asset, payer, nonce)
);

-- A consumer's provisioned x402 receiving wallet: made once at the wallet provider, reused by every link
-- that settles to that consumer.
CREATE TABLE consumer_x402_wallets (
  consumer_id text PRIMARY KEY REFERENCES consumers (id) ON DELETE CASCADE,
  org_id text NOT NULL,
  project_id text NOT NULL,
  address text NOT NULL CHECK (address ~ '^0x[0-9a-fA-F]{40}$'),
  provider_ref text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);
