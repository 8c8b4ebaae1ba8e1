-- Wallets and their ledger. The ledger is append-only; each (wallet, currency) balance row is updated in
-- the same transaction as its entry, and CHECK constraints make an overdraft impossible, not just unlikely.
CREATE TABLE wallets (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  project_id text NOT NULL,
  agent_id text,
  display_name text NOT NULL CHECK (char_length(display_name) BETWEEN 1 AND 120),
  currency text NOT NULL CHECK (currency IN ('BRL', 'USD', 'MXN', 'COP', 'ARS', 'USDC', 'BRLA')),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'frozen', 'closed')),
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  closed_at timestamptz,
  CONSTRAINT wallets_closed_at CHECK ((status = 'closed') = (closed_at IS NOT NULL)),
  CONSTRAINT wallets_tenant_id_key UNIQUE (org_id, project_id, id),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);
CREATE INDEX wallets_project ON wallets (org_id, project_id, created_at DESC, id DESC);

CREATE TABLE wallet_balances (
  wallet_id text NOT NULL REFERENCES wallets (id) ON DELETE CASCADE,
  org_id text NOT NULL,
  project_id text NOT NULL,
  currency text NOT NULL CHECK (currency IN ('BRL', 'USD', 'MXN', 'COP', 'ARS', 'USDC', 'BRLA')),
  balance_minor bigint NOT NULL DEFAULT 0,
  available_minor bigint NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (wallet_id, currency),
  -- Holds only ever reduce available, so available never exceeds the balance and never goes below zero.
  CONSTRAINT wallet_balances_available_nonnegative CHECK (available_minor >= 0),
  CONSTRAINT wallet_balances_available_within_balance CHECK (available_minor <= balance_minor)
);

-- amount_minor is the signed amount shown to clients; balance_delta and available_delta are the entry's
-- exact effects, so balance_minor = sum(balance_delta) and available_minor = sum(available_delta).
CREATE TABLE wallet_ledger_entries (
  id bigserial PRIMARY KEY,
  -- The wallet is reached through the balance row below; a second foreign key would only add a lock per post.
  wallet_id text NOT NULL,
  org_id text NOT NULL,
  project_id text NOT NULL,
  currency text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('fund', 'hold', 'release', 'debit', 'reconcile', 'reverse', 'fee')),
  amount_minor bigint NOT NULL,
  balance_delta bigint NOT NULL,
  available_delta bigint NOT NULL,
  hold_id text,
  mandate_id text,
  attempt_id text,
  external_ref text,
  reconciled_at timestamptz,
  posted_at timestamptz NOT NULL DEFAULT now(),
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  CONSTRAINT wallet_ledger_entries_external_ref_key UNIQUE (wallet_id, external_ref),
  FOREIGN KEY (wallet_id, currency) REFERENCES wallet_balances (wallet_id, currency) ON DELETE CASCADE
);
CREATE INDEX wallet_ledger_entries_wallet ON wallet_ledger_entries (wallet_id, id DESC);
CREATE INDEX wallet_ledger_entries_spend ON wallet_ledger_entries (org_id, project_id, currency, posted_at) WHERE kind IN ('debit', 'fee');

-- Append-only: entries are corrected by new entries (reverse, reconcile), never edited, except that
-- reconciliation stamps reconciled_at once.
CREATE FUNCTION wallet_ledger_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    -- Deleting a whole wallet (project deletion cascades) is allowed; removing single entries is not.
    IF EXISTS (SELECT 1 FROM wallets WHERE id = OLD.wallet_id) THEN
      RAISE EXCEPTION 'wallet_ledger_entries is append-only' USING ERRCODE = 'P0001';
    END IF;
    RETURN OLD;
  END IF;
  IF (NEW.id, NEW.wallet_id, NEW.currency, NEW.kind, NEW.amount_minor, NEW.balance_delta, NEW.available_delta, NEW.hold_id,
      NEW.mandate_id, NEW.attempt_id, NEW.external_ref, NEW.posted_at, NEW.metadata)
     IS DISTINCT FROM
     (OLD.id, OLD.wallet_id, OLD.currency, OLD.kind, OLD.amount_minor, OLD.balance_delta, OLD.available_delta, OLD.hold_id,
      OLD.mandate_id, OLD.attempt_id, OLD.external_ref, OLD.posted_at, OLD.metadata)
     OR (OLD.reconciled_at IS NOT NULL AND NEW.reconciled_at IS DISTINCT FROM OLD.reconciled_at) THEN
    RAISE EXCEPTION 'wallet_ledger_entries is append-only' USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER wallet_ledger_entries_append_only BEFORE UPDATE OR DELETE ON wallet_ledger_entries
  FOR EACH ROW EXECUTE FUNCTION wallet_ledger_entries_append_only();

-- A hold is resolved at most once, by a release or a debit (a partial debit releases the remainder).
CREATE TABLE wallet_holds (
  id text PRIMARY KEY,
  wallet_id text NOT NULL REFERENCES wallets (id) ON DELETE CASCADE,
  currency text NOT NULL,
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  attempt_id text,
  hold_entry_id bigint NOT NULL,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'debited', 'released')),
  resolved_entry_id bigint,
  created_at timestamptz NOT NULL DEFAULT now(),
  resolved_at timestamptz,
  CONSTRAINT wallet_holds_resolution CHECK ((status = 'open') = (resolved_at IS NULL)),
  CONSTRAINT wallet_holds_attempt_key UNIQUE (wallet_id, attempt_id)
);

-- Provider connections a wallet can be funded from. The providers area owns connecting a server;
-- this is the narrow view the wallet needs (rail and status), keyed like theirs.
CREATE TABLE provider_connections (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  project_id text NOT NULL,
  provider text NOT NULL,
  rail text NOT NULL,
  status text NOT NULL CHECK (status IN ('active', 'inactive', 'error')),
  created_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);

CREATE TABLE wallet_funding_sources (
  wallet_id text NOT NULL REFERENCES wallets (id) ON DELETE CASCADE,
  org_id text NOT NULL,
  project_id text NOT NULL,
  connection_id text NOT NULL REFERENCES provider_connections (id) ON DELETE CASCADE,
  currency text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (wallet_id, connection_id),
  CONSTRAINT wallet_funding_sources_currency_key UNIQUE (wallet_id, currency)
);

CREATE TABLE wallet_recon_anomalies (
  id text PRIMARY KEY,
  wallet_id text REFERENCES wallets (id) ON DELETE CASCADE,
  org_id text NOT NULL,
  project_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('debit_without_receipt', 'receipt_without_debit')),
  ledger_entry_id bigint,
  external_ref text,
  amount_minor bigint,
  currency text,
  detected_at timestamptz NOT NULL DEFAULT now(),
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved', 'dismissed')),
  resolved_at timestamptz,
  resolution_note text,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- One anomaly per finding, so a re-run of reconciliation never opens a duplicate.
  CONSTRAINT wallet_recon_anomalies_finding_key UNIQUE (org_id, project_id, kind, external_ref),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);
CREATE INDEX wallet_recon_anomalies_project ON wallet_recon_anomalies (org_id, project_id, detected_at DESC);

CREATE TABLE wallet_recon_runs (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  project_id text NOT NULL,
  status text NOT NULL CHECK (status IN ('running', 'completed', 'failed')),
  started_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  debits_checked integer NOT NULL DEFAULT 0,
  receipts_checked integer NOT NULL DEFAULT 0,
  anomalies_opened integer NOT NULL DEFAULT 0,
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);
