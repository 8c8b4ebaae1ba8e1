-- Wallet execute idempotency: the attempt key with its request fingerprint, final status and stored
-- response. A finished attempt is answered from here without touching Temporal.
CREATE TABLE spend_attempts (
  org_id text NOT NULL,
  attempt_id text NOT NULL,
  project_id text NOT NULL,
  wallet_id text NOT NULL,
  request_hash text NOT NULL,
  request jsonb NOT NULL,
  workflow_id text NOT NULL,
  status text NOT NULL DEFAULT 'processing' CHECK (status IN ('processing', 'completed', 'denied', 'requires-approval', 'failed')),
  response_status integer,
  response_body jsonb,
  provider_payment_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  PRIMARY KEY (org_id, attempt_id),
  CONSTRAINT spend_attempts_finished CHECK ((status = 'processing') = (response_body IS NULL)),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);
