-- A project's clearing accounts: the ledger wallet money passes through when it never rests with the
-- gateway. A Pix spend under a `pix-consent` mandate is pulled at the PSP from the consumer's consented
-- funding source and paid straight out, so it is recorded here as a `fund` and a `debit` of the same
-- amount (netting to zero), never against the consumer's own sub-account. One wallet per project and kind,
-- created on first use; its balance slots are per currency.
CREATE TABLE clearing_accounts (
  org_id text NOT NULL,
  project_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('pix-consent')),
  wallet_id text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, project_id, kind),
  FOREIGN KEY (org_id, project_id, wallet_id) REFERENCES wallets (org_id, project_id, id) ON DELETE CASCADE
);
