-- One fresh answer per consumer spend, as for wallet execute (0880): when the request that claimed the
-- attempt was told to come back (attempt_in_progress), the first presentation that finds the answer takes
-- the fresh one by turning this off.
ALTER TABLE consumer_spend_attempts ADD COLUMN fresh_owed boolean NOT NULL DEFAULT false;
