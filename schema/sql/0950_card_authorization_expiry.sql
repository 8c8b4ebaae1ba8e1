-- An approved card authorization lapses at expires_at (the issuer's, or seven days after the decision):
-- unless the issuer's capture or reversal closed it before, the gateway's expiry workflow releases its hold.
ALTER TABLE card_authorizations ADD COLUMN expires_at timestamptz;
UPDATE card_authorizations SET expires_at = created_at + interval '7 days' WHERE approved;
ALTER TABLE card_authorizations ADD CONSTRAINT card_authorizations_expiry CHECK (approved = (expires_at IS NOT NULL));
