-- The exact bytes of an attempt's answer as first sent. A replay must return the original body verbatim
-- (spec rule 1), and jsonb keeps keys in its own order, so the jsonb column cannot give them back; it stays
-- for queries. Rows answered before this column existed have none and are replayed from the jsonb.
ALTER TABLE spend_attempts ADD COLUMN response_text text;
ALTER TABLE consumer_spend_attempts ADD COLUMN response_text text;
