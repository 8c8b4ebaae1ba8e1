-- Holds belong to attempts. A hold is written only for an attempt the engine has claimed and not yet
-- finished (a wallet execute or paid call in spend_attempts, a consumer spend in consumer_spend_attempts),
-- and only the attempt that made a hold can release or debit it. These are rules of the database, not of
-- a route: whatever code or credential writes an entry, an attempt id cannot be taken over by a post.
--
-- Operator adjustments (fund, reverse, reconcile, fee through the service credential) keep who made them
-- and why, beside the entry they wrote.

CREATE FUNCTION wallet_ledger_entries_owner() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_owner text;
BEGIN
  IF NEW.kind = 'hold' THEN
    IF NEW.attempt_id IS NULL THEN
      RAISE EXCEPTION 'a hold needs the attempt that owns it' USING ERRCODE = 'P0001', HINT = 'ledger_hold_owner';
    END IF;
    IF NOT EXISTS (
         SELECT 1 FROM spend_attempts a
         WHERE a.org_id = NEW.org_id AND a.attempt_id = NEW.attempt_id AND a.wallet_id = NEW.wallet_id
           AND a.status IN ('processing', 'requires-approval'))
       AND NOT EXISTS (
         SELECT 1 FROM consumer_spend_attempts c
         WHERE c.org_id = NEW.org_id AND c.attempt_id = NEW.attempt_id AND c.status IN ('processing', 'requires_approval')) THEN
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
CREATE TRIGGER wallet_ledger_entries_owner BEFORE INSERT ON wallet_ledger_entries
  FOR EACH ROW EXECUTE FUNCTION wallet_ledger_entries_owner();

-- Holds written before owners were required may lack one; every new hold has its attempt.
ALTER TABLE wallet_holds ADD CONSTRAINT wallet_holds_owner CHECK (attempt_id IS NOT NULL) NOT VALID;

CREATE TABLE ledger_adjustments (
  entry_id bigint PRIMARY KEY,
  org_id text NOT NULL,
  project_id text NOT NULL,
  wallet_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('fund', 'reconcile', 'reverse', 'fee')),
  amount_minor bigint NOT NULL,
  -- `user:<x-service-user>`: the operator who made it.
  actor text NOT NULL CHECK (char_length(actor) BETWEEN 1 AND 200),
  reason text NOT NULL CHECK (char_length(reason) BETWEEN 1 AND 500),
  created_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);
CREATE INDEX ledger_adjustments_project ON ledger_adjustments (org_id, project_id, created_at DESC);

INSERT INTO event_catalog (type) VALUES ('ledger.adjustment_posted') ON CONFLICT DO NOTHING;

-- One fresh answer per attempt. The request that claims an attempt answers it fresh; when its wait ran out
-- first (it answered attempt_in_progress), the attempt owes its fresh answer to the first presentation that
-- finds it finished, which takes it by turning this off.
ALTER TABLE spend_attempts ADD COLUMN fresh_owed boolean NOT NULL DEFAULT false;
