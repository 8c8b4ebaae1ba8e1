-- A consumer's own sub-account: one wallet per consumer in a project, created on first use inside the
-- transaction that needs it (a hold, a TED source, or opening it to fund in test mode). Its balance
-- slots are per currency, so one wallet carries every currency the consumer's mandates authorize.
CREATE TABLE consumer_sub_accounts (
  org_id text NOT NULL,
  project_id text NOT NULL,
  consumer_id text NOT NULL REFERENCES consumers (id) ON DELETE CASCADE,
  wallet_id text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, project_id, consumer_id),
  FOREIGN KEY (org_id, project_id, wallet_id) REFERENCES wallets (org_id, project_id, id) ON DELETE CASCADE
);
