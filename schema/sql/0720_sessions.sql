-- Sessions of the agent loop and the tool calls made in them. A session belongs to one project and
-- remembers the API key it was opened with (directly or through an OAuth grant), so revoking that key
-- ends it; tool calls are numbered by a bigserial (`tc_<seq>`) and keep their outcome and timing, which
-- discovery reads back as cost, latency and success figures.

-- The minimal sessions table of 0400 (what a consumer spend checks) grows what the agent loop needs.
ALTER TABLE sessions
  ADD COLUMN key_id text,
  -- The agent policies see (`agents` globs); null reads as the session id.
  ADD COLUMN agent_id text,
  ADD COLUMN close_reason text CHECK (close_reason IN ('closed_by_caller', 'key_revoked')),
  ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  ADD CONSTRAINT sessions_closed_when_not_active CHECK ((status = 'active') = (closed_at IS NULL));
CREATE INDEX sessions_project_recent ON sessions (org_id, project_id, id DESC);
CREATE INDEX sessions_active_by_key ON sessions (key_id) WHERE status = 'active';

CREATE TABLE tool_calls (
  seq bigserial PRIMARY KEY,
  org_id text NOT NULL,
  project_id text NOT NULL,
  session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  server_id text NOT NULL,
  tool_name text NOT NULL,
  status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'success', 'error')),
  input jsonb NOT NULL,
  output jsonb,
  error_code text,
  duration_ms integer,
  -- An attempt id makes a paying call idempotent: the same id in the same session is the same call.
  attempt_id text,
  approval_id text,
  routing jsonb NOT NULL DEFAULT '{}'::jsonb,
  failover_trail jsonb NOT NULL DEFAULT '[]'::jsonb,
  called_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE,
  CHECK ((status = 'running') = (finished_at IS NULL))
);
CREATE INDEX tool_calls_session ON tool_calls (session_id, seq DESC);
-- Rate limits count a session's recent calls; discovery reads a tool's recorded outcomes per project.
CREATE INDEX tool_calls_session_recent ON tool_calls (session_id, called_at);
CREATE INDEX tool_calls_tool_stats ON tool_calls (org_id, project_id, server_id, tool_name, called_at DESC);
CREATE UNIQUE INDEX tool_calls_attempt ON tool_calls (session_id, attempt_id) WHERE attempt_id IS NOT NULL;

-- A session's tool calls per clock minute: one row per window, bumped atomically, so every API process
-- counts against the same number and no two calls both take the last slot.
CREATE TABLE session_call_windows (
  session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  window_start timestamptz NOT NULL,
  calls integer NOT NULL,
  PRIMARY KEY (session_id, window_start)
);

-- Revoking a key ends every session opened with it, in the revoking transaction itself, so no API
-- process can open a new call in such a session after the revocation commits.
CREATE FUNCTION end_sessions_of_revoked_key() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE sessions SET status = 'closed', close_reason = 'key_revoked', closed_at = now()
  WHERE key_id = NEW.id AND status = 'active';
  RETURN NEW;
END;
$$;
CREATE TRIGGER api_key_revoked_ends_sessions AFTER UPDATE OF revoked_at ON api_keys
  FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
  EXECUTE FUNCTION end_sessions_of_revoked_key();
