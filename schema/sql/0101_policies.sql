-- Policy rules that gate calls, and one evaluation row per decision.
CREATE TABLE policies (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  project_id text NOT NULL,
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 128),
  type text NOT NULL CHECK (type IN ('allow', 'deny', 'budget', 'rate-limit', 'time-window', 'approval-required')),
  config jsonb NOT NULL DEFAULT '{}'::jsonb,
  agents text[] NOT NULL DEFAULT '{}',
  tools text[] NOT NULL DEFAULT '{}',
  enabled boolean NOT NULL DEFAULT true,
  "order" integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);
CREATE INDEX policies_project_order ON policies (org_id, project_id, "order", id);

CREATE TABLE policy_evaluations (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  project_id text NOT NULL,
  agent_id text NOT NULL,
  tool_name text NOT NULL,
  rule_id text,
  rule_name text,
  rule_type text,
  decision text NOT NULL CHECK (decision IN ('allow', 'deny')),
  denial_reason text,
  approval_id text,
  amount_minor bigint,
  currency text,
  -- The spend attempt (or approved replay) that asked, so a retried activity finds its own decision.
  attempt_ref text,
  evaluated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT policy_evaluations_attempt_key UNIQUE (org_id, attempt_ref),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);
CREATE INDEX policy_evaluations_project ON policy_evaluations (org_id, project_id, evaluated_at DESC, id DESC);
CREATE INDEX policy_evaluations_agent ON policy_evaluations (org_id, project_id, agent_id, evaluated_at) WHERE decision = 'allow';
