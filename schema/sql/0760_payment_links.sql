-- Payment links: a priced page a buyer pays over one of its accepted rails. Slugs share one global
-- namespace (the pay URL carries no tenant), and a deleted link keeps its slug so an old pay URL can
-- never start collecting money for someone else. Uses are counted twice: `use_count` settled payments,
-- `reserved_count` payments in flight; a payment reserves a use before any money moves, so the cap
-- check and the reservation are one row update.
CREATE TABLE payment_links (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  project_id text NOT NULL,
  slug text NOT NULL,
  title text NOT NULL,
  description text,
  -- Normalized accepts: [{rail, currency, amount_atomic, pay_to, pay_to_kind, ...}]
  accepts jsonb NOT NULL,
  environment text NOT NULL CHECK (environment IN ('live', 'test')),
  one_time boolean NOT NULL DEFAULT false,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paid', 'void')),
  use_count integer NOT NULL DEFAULT 0 CHECK (use_count >= 0),
  reserved_count integer NOT NULL DEFAULT 0 CHECK (reserved_count >= 0),
  max_uses integer CHECK (max_uses > 0),
  expires_at timestamptz,
  redirect_url text,
  active boolean NOT NULL DEFAULT true,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  CONSTRAINT payment_links_slug_key UNIQUE (slug),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE,
  -- The cap is never exceeded, whatever the interleaving of buyers.
  CHECK (max_uses IS NULL OR use_count + reserved_count <= max_uses),
  CHECK (NOT one_time OR use_count + reserved_count <= 1)
);
CREATE INDEX payment_links_project_recent ON payment_links (org_id, project_id, created_at DESC) WHERE deleted_at IS NULL;
