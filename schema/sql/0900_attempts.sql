-- One attempts table for every money-out family (wallet execute, paid tool call, consumer spend): the claim
-- on an attempt id with its request fingerprint, the workflow that runs it, its status in one vocabulary,
-- and the answer's bytes as first sent. Rows of spend_attempts and consumer_spend_attempts move here as
-- they are; those names stay as views for readers written against them.
--
-- Attempt ids are unique per organization and door: wallet executes and paid tool calls share one (a tool
-- call may not take a wallet execute's id), consumer spends have their own, as before.
CREATE TABLE attempts (
  org_id text NOT NULL,
  attempt_id text NOT NULL,
  family text NOT NULL CHECK (family IN ('wallet_execute', 'tool_charge', 'consumer_spend')),
  id_space text NOT NULL GENERATED ALWAYS AS (CASE WHEN family = 'consumer_spend' THEN 'consumer' ELSE 'wallet' END) STORED,
  project_id text NOT NULL,
  environment text CHECK (environment IN ('live', 'test')),
  -- The workflow type that runs the attempt: its messages are that type's (attempts claimed before the
  -- one engine keep their own workflow until they end).
  workflow_type text NOT NULL,
  workflow_id text NOT NULL,
  fingerprint text NOT NULL,
  request jsonb,
  status text NOT NULL DEFAULT 'processing' CHECK (status IN
    ('processing', 'completed', 'failed', 'denied', 'refused', 'requires_approval', 'dispatch_uncertain')),
  response_status integer,
  response_body jsonb,
  -- The exact bytes of the answer as first sent; rows answered before they were kept replay the jsonb.
  response_text text,
  -- The claimant answered attempt_in_progress: the first presentation to find the outcome answers it fresh.
  fresh_owed boolean NOT NULL DEFAULT false,
  provider_payment_id text,
  -- The wallet a wallet execute or paid tool call pays from.
  wallet_id text,
  -- A consumer spend's terms: its mandate, consumer, rail, amount and payee, the key every provider call
  -- carries (the settlement webhook finds the attempt by it), and the money it holds.
  caller_attempt boolean,
  mandate_id text,
  consumer_id text,
  rail text CHECK (rail IN ('pix', 'ted')),
  amount_minor bigint CHECK (amount_minor > 0),
  currency text,
  payee text,
  dispatch_key text UNIQUE,
  holds_money boolean NOT NULL DEFAULT false,
  hold_id text,
  approval_id text,
  receipt_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  PRIMARY KEY (org_id, id_space, attempt_id),
  CONSTRAINT attempts_answered CHECK ((status = 'processing') = (response_body IS NULL)),
  CONSTRAINT attempts_wallet CHECK (family = 'consumer_spend' OR (wallet_id IS NOT NULL AND request IS NOT NULL)),
  CONSTRAINT attempts_consumer CHECK (family <> 'consumer_spend' OR (environment IS NOT NULL AND caller_attempt IS NOT NULL
    AND mandate_id IS NOT NULL AND rail IS NOT NULL AND amount_minor IS NOT NULL AND currency IS NOT NULL
    AND payee IS NOT NULL AND dispatch_key IS NOT NULL AND fingerprint ~ '^[0-9a-f]{64}$')),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);
CREATE INDEX attempts_unfinished ON attempts (created_at) WHERE status IN ('processing', 'dispatch_uncertain');
CREATE INDEX attempts_mandate ON attempts (org_id, project_id, mandate_id, created_at DESC) WHERE family = 'consumer_spend';

INSERT INTO attempts (org_id, attempt_id, family, project_id, workflow_type, workflow_id, fingerprint, request, status,
  response_status, response_body, response_text, fresh_owed, provider_payment_id, wallet_id, created_at, updated_at, finished_at)
SELECT org_id, attempt_id,
  CASE WHEN workflow_id LIKE 'tool-charge/%' THEN 'tool_charge' ELSE 'wallet_execute' END,
  project_id,
  CASE WHEN workflow_id LIKE 'tool-charge/%' THEN 'paidToolCall' ELSE 'spendAttempt' END,
  workflow_id, request_hash, request,
  CASE WHEN status = 'requires-approval' THEN 'requires_approval' ELSE status END,
  response_status, response_body, response_text, fresh_owed, provider_payment_id, wallet_id,
  created_at, coalesce(finished_at, created_at), finished_at
FROM spend_attempts;

INSERT INTO attempts (org_id, attempt_id, family, project_id, environment, workflow_type, workflow_id, fingerprint, status,
  response_status, response_body, response_text, fresh_owed, provider_payment_id, caller_attempt, mandate_id, consumer_id,
  rail, amount_minor, currency, payee, dispatch_key, holds_money, hold_id, approval_id, receipt_id, created_at, updated_at, finished_at)
SELECT org_id, attempt_id, 'consumer_spend', project_id, environment, 'consumerSpendAttempt', workflow_id, fingerprint, status,
  response_status, response_body, response_text, fresh_owed, provider_payment_id, caller_attempt, mandate_id, consumer_id,
  rail, amount_minor, currency, payee, dispatch_key, holds_money, hold_id, approval_id, receipt_id, created_at, updated_at, finished_at
FROM consumer_spend_attempts;

-- A hold belongs to a running attempt of its wallet (a consumer spend's hold is on its consumer's wallet).
CREATE OR REPLACE FUNCTION wallet_ledger_entries_owner() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_owner text;
BEGIN
  IF NEW.kind = 'hold' THEN
    IF NEW.attempt_id IS NULL THEN
      RAISE EXCEPTION 'a hold needs the attempt that owns it' USING ERRCODE = 'P0001', HINT = 'ledger_hold_owner';
    END IF;
    IF NOT EXISTS (
         SELECT 1 FROM attempts a
         WHERE a.org_id = NEW.org_id AND a.attempt_id = NEW.attempt_id
           AND a.status IN ('processing', 'requires_approval')
           AND (a.family = 'consumer_spend' OR a.wallet_id = NEW.wallet_id)) THEN
      RAISE EXCEPTION 'attempt % is not a running attempt of this wallet', NEW.attempt_id
        USING ERRCODE = 'P0001', HINT = 'ledger_hold_owner';
    END IF;
  ELSIF NEW.kind = 'release' OR (NEW.kind = 'debit' AND NEW.hold_id IS NOT NULL) THEN
    IF NEW.hold_id IS NULL THEN
      RAISE EXCEPTION 'a release resolves a hold' USING ERRCODE = 'P0001', HINT = 'ledger_hold_owner';
    END IF;
    SELECT h.attempt_id INTO v_owner FROM wallet_holds h WHERE h.id = NEW.hold_id AND h.wallet_id = NEW.wallet_id;
    IF v_owner IS NULL OR NEW.attempt_id IS DISTINCT FROM v_owner THEN
      RAISE EXCEPTION 'hold % belongs to another attempt', NEW.hold_id USING ERRCODE = 'P0001', HINT = 'ledger_hold_owner';
    END IF;
  END IF;
  RETURN NEW;
END $$;

DROP TABLE spend_attempts;
DROP TABLE consumer_spend_attempts;

-- The old names, read-only, with their old spellings.
CREATE VIEW spend_attempts AS
SELECT org_id, attempt_id, project_id, wallet_id, fingerprint AS request_hash, request, workflow_id,
  CASE WHEN status = 'requires_approval' THEN 'requires-approval' ELSE status END AS status,
  response_status, response_body, provider_payment_id, created_at, finished_at, response_text, fresh_owed
FROM attempts WHERE family IN ('wallet_execute', 'tool_charge');

CREATE VIEW consumer_spend_attempts AS
SELECT org_id, attempt_id, project_id, environment, caller_attempt, mandate_id, consumer_id, rail, amount_minor, currency,
  payee, fingerprint, workflow_id, dispatch_key, status, holds_money, approval_id, provider_payment_id, response_status,
  response_body, receipt_id, created_at, updated_at, finished_at, hold_id, response_text, fresh_owed
FROM attempts WHERE family = 'consumer_spend';
