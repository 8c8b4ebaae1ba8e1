-- A card authorization is an attempt of the wallet id space: decided in one transaction inside the issuer's
-- deadline, it owns the hold its approval places.
ALTER TABLE attempts DROP CONSTRAINT attempts_family_check;
ALTER TABLE attempts ADD CONSTRAINT attempts_family_check
  CHECK (family IN ('wallet_execute', 'tool_charge', 'consumer_spend', 'card_authorization'));
