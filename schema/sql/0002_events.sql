-- The transactional outbox: every state change a tenant cares about writes one event row in the
-- same transaction as the change. Webhook delivery reads from here; the table doubles as the event log.
CREATE TABLE events (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  project_id text NOT NULL,
  environment text NOT NULL CHECK (environment IN ('live', 'test')),
  type text NOT NULL CHECK (type ~ '^[a-z0-9_]+(\.[a-z0-9_]+)+$'),
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- Set once the dispatcher has fanned the event out to subscribed endpoints.
  dispatched_at timestamptz,
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);
CREATE INDEX events_project_created ON events (org_id, project_id, created_at DESC, id DESC);
CREATE INDEX events_undispatched ON events (created_at) WHERE dispatched_at IS NULL;
