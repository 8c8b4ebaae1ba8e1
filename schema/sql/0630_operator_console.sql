-- The operator console: its sign-in sessions (only a hash of the cookie is kept) and partial indexes
-- that keep its "needs attention" lists cheap as the attempt, anomaly and endpoint tables grow.
CREATE TABLE console_sessions (
  token_hash text PRIMARY KEY CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  operator text NOT NULL CHECK (char_length(operator) BETWEEN 1 AND 64),
  -- A digest of the service credential the operator signed in with: rotating the credential ends every session.
  credential_digest text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX console_sessions_expiry ON console_sessions (expires_at);

CREATE INDEX spend_attempts_unfinished ON spend_attempts (created_at) WHERE status = 'processing';
CREATE INDEX consumer_spend_attempts_unfinished ON consumer_spend_attempts (created_at) WHERE status IN ('processing', 'dispatch_uncertain');
CREATE INDEX wallet_recon_anomalies_open ON wallet_recon_anomalies (detected_at) WHERE status = 'open';
CREATE INDEX webhook_endpoints_in_error ON webhook_endpoints (updated_at) WHERE status = 'error';
-- The held call's policy decision, read beside each pending approval.
CREATE INDEX policy_evaluations_approval ON policy_evaluations (org_id, approval_id) WHERE approval_id IS NOT NULL;
