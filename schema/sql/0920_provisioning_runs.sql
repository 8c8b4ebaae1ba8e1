-- Provisioning runs: a sandbox account opened at a catalog provider for one test project by its
-- `provisioningRun` workflow, ending with the account's credential sealed as the project's connection.
-- The row is the run as the API shows it; its steps are the run's history, append-only. A provider whose
-- runs keep failing at the provider is quarantined for the whole deployment until an operator lifts it.
CREATE TABLE provisioning_runs (
  id text PRIMARY KEY CHECK (id ~ '^prun_[0-9a-z]{26}$'),
  org_id text NOT NULL,
  project_id text NOT NULL,
  -- Sandbox provisioning only: a live project is refused before any row is written.
  environment text NOT NULL CHECK (environment = 'test'),
  provider text NOT NULL,
  method text NOT NULL CHECK (method IN ('signup_api')),
  status text NOT NULL DEFAULT 'running'
    CHECK (status IN ('running', 'awaiting_verification', 'succeeded', 'failed', 'canceled', 'expired')),
  email text NOT NULL,
  label text CHECK (char_length(label) BETWEEN 1 AND 120),
  -- The sign-up's id at the provider, once it exists.
  provider_account_id text,
  -- Where the provider sent its verification code (masked) and until when the run waits for it.
  verification_sent_to text,
  verification_expires_at timestamptz,
  connection_id text,
  failure_code text,
  failure_message text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE,
  CHECK ((status IN ('running', 'awaiting_verification')) = (finished_at IS NULL)),
  CHECK ((status = 'succeeded') = (connection_id IS NOT NULL)),
  CHECK ((status = 'failed') = (failure_code IS NOT NULL))
);
-- One run at a time per project and provider: a second start while one is open is refused.
CREATE UNIQUE INDEX provisioning_runs_one_open ON provisioning_runs (org_id, project_id, provider)
  WHERE finished_at IS NULL;
CREATE INDEX provisioning_runs_project ON provisioning_runs (org_id, project_id, id DESC);
-- The quarantine rule reads a provider's latest finished runs.
CREATE INDEX provisioning_runs_provider_finished ON provisioning_runs (provider, finished_at DESC)
  WHERE finished_at IS NOT NULL;

CREATE TABLE provisioning_run_steps (
  id bigserial PRIMARY KEY,
  run_id text NOT NULL REFERENCES provisioning_runs (id) ON DELETE CASCADE,
  step text NOT NULL CHECK (step ~ '^[a-z_]+(\.[a-z_]+)+$'),
  -- What the step learned; never a credential or a verification code.
  detail jsonb NOT NULL DEFAULT '{}'::jsonb,
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX provisioning_run_steps_run ON provisioning_run_steps (run_id, id);

-- A provider's quarantine: open while lifted_at is null (one at a time), kept after a lift as history.
CREATE TABLE provider_quarantines (
  id bigserial PRIMARY KEY,
  provider text NOT NULL,
  reason text NOT NULL,
  -- The failed runs that tripped it.
  run_ids text[] NOT NULL,
  quarantined_at timestamptz NOT NULL DEFAULT now(),
  lifted_at timestamptz,
  lifted_by text
);
CREATE UNIQUE INDEX provider_quarantines_open ON provider_quarantines (provider) WHERE lifted_at IS NULL;

INSERT INTO event_catalog (type) VALUES
  ('provisioning_run.created'),
  ('provisioning_run.awaiting_verification'),
  ('provisioning_run.succeeded'),
  ('provisioning_run.failed'),
  ('provisioning_run.canceled'),
  ('provisioning_run.expired')
ON CONFLICT DO NOTHING;
