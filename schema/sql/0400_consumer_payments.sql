-- Mandate-bound consumer payments: sessions (minimal, until the sessions area owns them), spend attempts
-- with their stored outcome, cap reservations, receipts and the keys that sign them.

-- A session of a project; spends name one in session_id. Only what a spend needs to check it exists.
CREATE TABLE IF NOT EXISTS sessions (
  id text PRIMARY KEY CHECK (id ~ '^ses_[A-Za-z0-9]+$'),
  org_id text NOT NULL,
  project_id text NOT NULL,
  user_id text,
  servers text[] NOT NULL DEFAULT ARRAY[]::text[],
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'closed', 'error')),
  created_at timestamptz NOT NULL DEFAULT now(),
  closed_at timestamptz,
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS sessions_project ON sessions (org_id, project_id, created_at DESC);

-- One row per consumer spend attempt: the request fingerprint (amount, payee, mandate, rail, service,
-- approval), the workflow running it, and once finished the exact status and body that answered it,
-- so a replay is served from here byte for byte. caller_attempt is false for attempts the caller did
-- not name; those are never replayed.
CREATE TABLE consumer_spend_attempts (
  org_id text NOT NULL,
  attempt_id text NOT NULL,
  project_id text NOT NULL,
  environment text NOT NULL CHECK (environment IN ('live', 'test')),
  caller_attempt boolean NOT NULL,
  mandate_id text NOT NULL,
  consumer_id text,
  rail text NOT NULL CHECK (rail IN ('pix', 'ted')),
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  currency text NOT NULL,
  payee text NOT NULL,
  fingerprint text NOT NULL CHECK (fingerprint ~ '^[0-9a-f]{64}$'),
  workflow_id text NOT NULL,
  -- The idempotency key every provider call of this attempt carries; the settlement webhook finds the attempt by it.
  dispatch_key text NOT NULL UNIQUE,
  status text NOT NULL DEFAULT 'processing'
    CHECK (status IN ('processing', 'completed', 'failed', 'refused', 'requires_approval', 'dispatch_uncertain')),
  -- Money is held for this attempt (hold written, not yet debited or released): a retry skips policy rules.
  holds_money boolean NOT NULL DEFAULT false,
  approval_id text,
  provider_payment_id text,
  response_status integer,
  response_body jsonb,
  receipt_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  PRIMARY KEY (org_id, attempt_id),
  hold_id text,
  CONSTRAINT consumer_spend_attempts_answered CHECK ((status = 'processing') = (response_body IS NULL)),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);
CREATE INDEX consumer_spend_attempts_mandate ON consumer_spend_attempts (org_id, project_id, mandate_id, created_at DESC);

-- Cap reservations: written under the mandate's advisory lock before any money step, so concurrent spends
-- are counted against the cumulative and periodic caps atomically. `spent` after settlement, `released`
-- when the attempt ends without moving money.
CREATE TABLE mandate_cap_reservations (
  org_id text NOT NULL,
  attempt_id text NOT NULL,
  project_id text NOT NULL,
  mandate_id text NOT NULL,
  currency text NOT NULL,
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  status text NOT NULL DEFAULT 'held' CHECK (status IN ('held', 'spent', 'released')),
  created_at timestamptz NOT NULL DEFAULT now(),
  resolved_at timestamptz,
  PRIMARY KEY (org_id, attempt_id),
  CHECK ((status = 'held') = (resolved_at IS NULL)),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);
CREATE INDEX mandate_cap_reservations_usage ON mandate_cap_reservations (org_id, mandate_id, currency, created_at) WHERE status <> 'released';

-- The gateway's Ed25519 receipt signing keys. The newest active key signs; every key stays published so
-- receipts signed before a rotation still verify. Private keys are sealed with the secret box.
CREATE TABLE receipt_signing_keys (
  kid text PRIMARY KEY,
  public_key text NOT NULL UNIQUE,
  private_key_sealed text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  retired_at timestamptz
);

-- Each consumer's receipt HMAC secret, sealed; shown once when created or rotated.
CREATE TABLE consumer_receipt_secrets (
  org_id text NOT NULL,
  project_id text NOT NULL,
  consumer_id text NOT NULL REFERENCES consumers (id) ON DELETE CASCADE,
  version integer NOT NULL CHECK (version > 0),
  secret_sealed text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer_id, version),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);

CREATE TABLE receipts (
  id text PRIMARY KEY CHECK (id ~ '^rcpt_[A-Za-z0-9]+$'),
  org_id text NOT NULL,
  project_id text NOT NULL,
  consumer_id text NOT NULL,
  attempt_id text NOT NULL,
  state text NOT NULL DEFAULT 'paid' CHECK (state IN ('paid', 'delivered', 'exception', 'voided')),
  -- The sealed body exactly as hashed, the caller's approval claim, and the chain link over both.
  body jsonb NOT NULL,
  approval jsonb,
  chain_seq integer NOT NULL CHECK (chain_seq > 0),
  chain_prev_hash text,
  chain_approval_hash text,
  chain_body_hash text NOT NULL,
  chain_hash text NOT NULL,
  chain_version integer NOT NULL,
  receipt_sig text NOT NULL,
  receipt_sig_secret_version integer NOT NULL,
  receipt_sig_ed25519 text NOT NULL,
  ed25519_kid text NOT NULL REFERENCES receipt_signing_keys (kid),
  delivery jsonb,
  exceptions jsonb NOT NULL DEFAULT '[]'::jsonb,
  sealed_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT receipts_attempt_key UNIQUE (org_id, attempt_id),
  CONSTRAINT receipts_chain_key UNIQUE (consumer_id, chain_seq),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);
CREATE INDEX receipts_consumer ON receipts (org_id, project_id, consumer_id, chain_seq DESC);

-- The sealed part of a receipt never changes; only its state, delivery and exceptions move.
CREATE FUNCTION receipts_sealed_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (NEW.id, NEW.org_id, NEW.project_id, NEW.consumer_id, NEW.attempt_id, NEW.body, NEW.approval, NEW.chain_seq, NEW.chain_prev_hash,
      NEW.chain_approval_hash, NEW.chain_body_hash, NEW.chain_hash, NEW.receipt_sig, NEW.receipt_sig_ed25519, NEW.sealed_at)
     IS DISTINCT FROM
     (OLD.id, OLD.org_id, OLD.project_id, OLD.consumer_id, OLD.attempt_id, OLD.body, OLD.approval, OLD.chain_seq, OLD.chain_prev_hash,
      OLD.chain_approval_hash, OLD.chain_body_hash, OLD.chain_hash, OLD.receipt_sig, OLD.receipt_sig_ed25519, OLD.sealed_at) THEN
    RAISE EXCEPTION 'a sealed receipt cannot change' USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER receipts_sealed_immutable BEFORE UPDATE ON receipts FOR EACH ROW EXECUTE FUNCTION receipts_sealed_immutable();
