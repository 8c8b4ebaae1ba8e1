-- Held calls waiting for a human decision. `kind` and `payload` say what to replay on approval, so any
-- area (wallet execute today, mandate-bound consumer spends later) can hold its calls here.
CREATE TABLE approvals (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  project_id text,
  agent_id text NOT NULL,
  session_id text,
  matched_rule_id text,
  matched_rule_name text,
  tool_name text NOT NULL,
  tool_input jsonb NOT NULL DEFAULT '{}'::jsonb,
  kind text NOT NULL,
  payload jsonb NOT NULL,
  origin_ref text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'denied', 'expired', 'execution_failed')),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  decided_at timestamptz,
  decided_by text,
  decision_reason text,
  executed_at timestamptz,
  execution_result jsonb,
  -- The call that raised the hold raises at most one approval, so a retried activity finds its own row.
  CONSTRAINT approvals_origin_key UNIQUE (org_id, kind, origin_ref),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);
CREATE INDEX approvals_pending ON approvals (expires_at) WHERE status = 'pending';
CREATE INDEX approvals_project ON approvals (org_id, project_id, created_at DESC);

-- Deployment-wide record of the sweep that expires overdue holds (GET /v1/approvals/health).
CREATE TABLE approval_sweeps (
  id bigserial PRIMARY KEY,
  swept_at timestamptz NOT NULL DEFAULT now(),
  expired_count integer NOT NULL
);
