-- Cart connect: a person signs in to a merchant inside a browser worker's session. Each start records
-- a pending session on a fresh worker context; the finish is single-use and only for the organization
-- and project that started it. A pending session lapses after its expiry.
CREATE TABLE cart_connect_sessions (
  id text PRIMARY KEY CHECK (id ~ '^ccon_[0-9A-Za-z]+$'),
  org_id text NOT NULL,
  project_id text NOT NULL,
  merchant text NOT NULL CHECK (merchant IN ('meli', 'ifood')),
  context_id text NOT NULL,
  session_id text NOT NULL,
  live_view_url text NOT NULL DEFAULT '',
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'connected')),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  connected_at timestamptz,
  CHECK ((status = 'connected') = (connected_at IS NOT NULL)),
  CONSTRAINT cart_connect_sessions_context_key UNIQUE (context_id),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);
CREATE INDEX cart_connect_sessions_tenant ON cart_connect_sessions (org_id, project_id, created_at DESC);
