-- Agent cards: virtual cards an issuer holds (number and CVC stay with the issuer), bound to a wallet and
-- optionally a consumer's mandate, with the spending controls the gateway applies to every authorization.
-- Cards written before binding existed (the deprecated read's rows) have no wallet and authorize nothing.
ALTER TABLE issuer_cards
  ADD COLUMN environment text NOT NULL DEFAULT 'test' CHECK (environment IN ('live', 'test')),
  ADD COLUMN wallet_id text,
  ADD COLUMN mandate_id text,
  ADD COLUMN currency text,
  -- {per_authorization_minor, limits: [{interval, amount_minor}], allowed_categories, blocked_categories,
  --  allowed_merchants}: the shape schema/http/cards.ts documents.
  ADD COLUMN controls jsonb NOT NULL DEFAULT '{}'::jsonb,
  ADD COLUMN exp_month integer,
  ADD COLUMN exp_year integer,
  -- The card authorizes nothing from this instant; null: until the card itself expires.
  ADD COLUMN expires_at timestamptz,
  ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now(),
  ADD CONSTRAINT issuer_cards_wallet FOREIGN KEY (org_id, project_id, wallet_id) REFERENCES wallets (org_id, project_id, id);

ALTER TABLE issuer_mint_flows
  ADD COLUMN environment text NOT NULL DEFAULT 'test' CHECK (environment IN ('live', 'test')),
  -- Where the flow stands: requested → endpoint_registered → card_created → minted (or failed at any step).
  ADD COLUMN step text NOT NULL DEFAULT 'requested'
    CHECK (step IN ('requested', 'endpoint_registered', 'card_created', 'minted', 'failed')),
  -- The card asked for (wallet, mandate, controls, expiry, metadata), as validated.
  ADD COLUMN request jsonb NOT NULL DEFAULT '{}'::jsonb,
  ADD COLUMN issuer_card_id text;

-- One authorization request of the issuer, keyed by the issuer's own id. Its money is an attempt in
-- spend_attempts (`card:<issuer authorization id>`), which owns the hold.
CREATE TABLE card_authorizations (
  id text PRIMARY KEY CHECK (id ~ '^cauth_[0-9A-Za-z]+$'),
  org_id text NOT NULL,
  project_id text NOT NULL,
  card_id text NOT NULL REFERENCES issuer_cards (id),
  wallet_id text NOT NULL,
  attempt_id text NOT NULL,
  issuer text NOT NULL,
  issuer_authorization_id text NOT NULL,
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  currency text NOT NULL,
  merchant jsonb NOT NULL,
  approved boolean NOT NULL,
  decline_reason text,
  -- pending: approved and held; closed: captured; reversed / expired: released; declined: nothing held.
  status text NOT NULL CHECK (status IN ('pending', 'closed', 'reversed', 'expired', 'declined')),
  held_minor bigint NOT NULL DEFAULT 0 CHECK (held_minor >= 0),
  captured_minor bigint NOT NULL DEFAULT 0 CHECK (captured_minor >= 0),
  refunded_minor bigint NOT NULL DEFAULT 0 CHECK (refunded_minor >= 0),
  -- The issuer numbers each authorization's messages from 1 (the request itself); the next one applied is applied_seq + 1.
  applied_seq integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (approved = (status <> 'declined')),
  CHECK ((status = 'declined') = (decline_reason IS NOT NULL)),
  UNIQUE (issuer, issuer_authorization_id),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);
CREATE INDEX card_authorizations_card ON card_authorizations (card_id, created_at DESC);

-- Money the issuer moved for an authorization: captures (clearing) debit, refunds credit. Keyed by the issuer's id.
CREATE TABLE card_transactions (
  id text PRIMARY KEY CHECK (id ~ '^ctxn_[0-9A-Za-z]+$'),
  org_id text NOT NULL,
  project_id text NOT NULL,
  authorization_id text NOT NULL REFERENCES card_authorizations (id),
  issuer text NOT NULL,
  issuer_transaction_id text NOT NULL,
  type text NOT NULL CHECK (type IN ('capture', 'refund')),
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  -- What the ledger moved for it; a capture beyond the network's tolerance moves less and says by how much.
  ledger_minor bigint NOT NULL CHECK (ledger_minor >= 0),
  unfunded_minor bigint NOT NULL DEFAULT 0 CHECK (unfunded_minor >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (issuer, issuer_transaction_id),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);
CREATE INDEX card_transactions_authorization ON card_transactions (authorization_id, created_at);

-- Every message the issuer sent after an authorization request, by the issuer's message id: a duplicate
-- finds its row, and a message that arrives before its predecessors waits here until they are applied.
CREATE TABLE card_issuer_messages (
  issuer text NOT NULL,
  message_id text NOT NULL,
  issuer_authorization_id text NOT NULL,
  sequence integer NOT NULL CHECK (sequence > 1),
  type text NOT NULL,
  payload jsonb NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  applied_at timestamptz,
  PRIMARY KEY (issuer, message_id),
  UNIQUE (issuer, issuer_authorization_id, sequence)
);

INSERT INTO event_catalog (type) VALUES
  ('card.created'),
  ('card.updated'),
  ('card.authorization.approved'),
  ('card.authorization.declined'),
  ('card.authorization.reversed'),
  ('card.authorization.expired'),
  ('card.transaction.captured'),
  ('card.transaction.refunded')
ON CONFLICT DO NOTHING;
