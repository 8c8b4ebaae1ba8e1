-- Whether an approved authorization's expiry workflow is known to have started. Its start follows the
-- decision's commit, so an outage then leaves it false; the card expiry sweep starts (idempotently) what
-- is still pending and false. Authorizations pending before this column are swept once too.
ALTER TABLE card_authorizations ADD COLUMN expiry_started boolean NOT NULL DEFAULT false;
UPDATE card_authorizations SET expiry_started = true WHERE status <> 'pending';
CREATE INDEX card_authorizations_expiry_unstarted ON card_authorizations (created_at)
  WHERE status = 'pending' AND NOT expiry_started;
