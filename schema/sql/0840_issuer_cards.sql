-- Issued cards and the mint flows that issue them (the deprecated read GET /v1/issuer/cards/{id}).
-- Ids carry their kind: `icrd_` a card, `imf_` a mint flow; both belong to one organization and project.
CREATE TABLE issuer_cards (
  id text PRIMARY KEY CHECK (id ~ '^icrd_[0-9A-Za-z]+$'),
  org_id text NOT NULL,
  project_id text NOT NULL,
  issuer text NOT NULL,
  card_id text NOT NULL, -- the issuer's own id of the card
  last4 text NOT NULL CHECK (last4 ~ '^[0-9]{4}$'),
  network text NOT NULL,
  status text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE,
  UNIQUE (issuer, card_id)
);
CREATE INDEX issuer_cards_tenant ON issuer_cards (org_id, project_id, created_at DESC);

CREATE TABLE issuer_mint_flows (
  id text PRIMARY KEY CHECK (id ~ '^imf_[0-9A-Za-z]+$'),
  org_id text NOT NULL,
  project_id text NOT NULL,
  issuer text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'minted', 'failed')),
  -- The card the flow minted, once it has.
  card_id text REFERENCES issuer_cards (id) ON DELETE SET NULL,
  failure_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);
CREATE INDEX issuer_mint_flows_tenant ON issuer_mint_flows (org_id, project_id, created_at DESC);
