-- Webhook endpoints (triggers), their signing secrets and delivery attempts, plus the NOTIFY that
-- wakes the event dispatcher the moment an outbox event commits.

CREATE TABLE webhook_endpoints (
  id text PRIMARY KEY CHECK (id ~ '^trg_[0-9A-Za-z]{16}$'),
  org_id text NOT NULL,
  project_id text NOT NULL,
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 128),
  event text NOT NULL CHECK (event ~ '^[a-z0-9_]+(\.[a-z0-9_]+)+$'),
  webhook_url text NOT NULL CHECK (char_length(webhook_url) BETWEEN 1 AND 2048),
  server_id text,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'error')),
  -- Why the endpoint left `active`: requested (PATCH), gone (receiver answered 410), consecutive_dead (auto-pause).
  status_reason text CHECK (status_reason IN ('requested', 'gone', 'consecutive_dead')),
  total_runs bigint NOT NULL DEFAULT 0,
  last_run_at timestamptz,
  consecutive_dead integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT webhook_endpoints_org_project_id_key UNIQUE (org_id, project_id, id),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);
CREATE INDEX webhook_endpoints_list ON webhook_endpoints (org_id, project_id, created_at DESC, id DESC);
-- The dispatcher's fan-out lookup: active subscribers of one event type in one project.
CREATE INDEX webhook_endpoints_subscribers ON webhook_endpoints (org_id, project_id, event) WHERE status = 'active';

-- The signing secret lives apart from the endpoint so it can be purged (and locked) on its own;
-- `sealed` is AES-256-GCM under a versioned key (domain/crypto/secret-box.ts), never returned.
CREATE TABLE webhook_signing_secrets (
  trigger_id text PRIMARY KEY,
  org_id text NOT NULL,
  project_id text NOT NULL,
  sealed text NOT NULL,
  key_version integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (org_id, project_id, trigger_id) REFERENCES webhook_endpoints (org_id, project_id, id) ON DELETE CASCADE
);

-- One row per attempt. A chain is the attempts of one (event, endpoint) dispatch, redelivery, replay or
-- test-fire; its first row's id names the chain and its delivery workflow (`delivery/<chain_id>`).
CREATE TABLE webhook_deliveries (
  id bigserial PRIMARY KEY,
  org_id text NOT NULL,
  project_id text NOT NULL,
  trigger_id text NOT NULL,
  event_id text NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  chain_id bigint NOT NULL,
  attempt integer NOT NULL CHECK (attempt >= 1),
  origin text NOT NULL CHECK (origin IN ('dispatch', 'redeliver', 'replay', 'test')),
  redelivery_of bigint,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed', 'dead')),
  -- When the attempt is due; the sweep restarts chains whose due attempt is long overdue.
  scheduled_at timestamptz NOT NULL DEFAULT now(),
  -- Set while the attempt waits for its endpoint to become active again.
  held_since timestamptz,
  attempted_at timestamptz,
  duration_ms integer,
  request_url text,
  request_headers jsonb,
  request_body text,
  request_body_truncated boolean NOT NULL DEFAULT false,
  response_status integer,
  response_headers jsonb,
  response_body text,
  response_body_truncated boolean NOT NULL DEFAULT false,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT webhook_deliveries_chain_attempt_key UNIQUE (chain_id, attempt),
  FOREIGN KEY (org_id, project_id, trigger_id) REFERENCES webhook_endpoints (org_id, project_id, id) ON DELETE CASCADE
);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (org_id, project_id, trigger_id, id DESC);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (org_id, project_id, scheduled_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_overdue ON webhook_deliveries (scheduled_at) WHERE status = 'pending';

-- Event listing newest first by time-sortable id, with and without a type filter.
CREATE INDEX events_project_id ON events (org_id, project_id, id DESC);
CREATE INDEX events_project_type_id ON events (org_id, project_id, type, id DESC);

-- Wakes the dispatcher at commit (NOTIFY is delivered only when the inserting transaction commits).
CREATE FUNCTION notify_event_committed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('gateway_events', NEW.id);
  RETURN NULL;
END;
$$;
CREATE TRIGGER events_notify AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION notify_event_committed();
