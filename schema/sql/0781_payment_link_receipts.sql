-- A settled link payment's receipt, sealed as consumer receipts are: a canonical JSON body, a hash chain
-- (one chain per link: each receipt commits to the one before), and the gateway's Ed25519 signature
-- over the chain hash, verifiable offline with the published signing keys (/v1/receipts/signing-keys).
-- A link payment has no consumer receipt secret, so there is no HMAC signature.
CREATE TABLE payment_link_receipts (
  id text PRIMARY KEY,
  payment_id text NOT NULL UNIQUE REFERENCES payment_link_payments (id),
  link_id text NOT NULL REFERENCES payment_links (id),
  org_id text NOT NULL,
  project_id text NOT NULL,
  body jsonb NOT NULL,
  chain_seq integer NOT NULL,
  chain_prev_hash text,
  chain_body_hash text NOT NULL,
  chain_hash text NOT NULL,
  chain_version integer NOT NULL,
  receipt_sig_ed25519 text NOT NULL,
  ed25519_kid text NOT NULL,
  sealed_at timestamptz NOT NULL,
  UNIQUE (link_id, chain_seq),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);
