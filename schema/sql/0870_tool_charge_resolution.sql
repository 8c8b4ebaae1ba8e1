-- A paid call whose upstream answer never came is settled by someone who knows what the upstream did: the
-- tenant through the API or an operator. The charge keeps who settled it and how, so a repeat of the same
-- resolution answers the settled charge and the other outcome is refused. `seq` names a charge on its own
-- (`tch_<seq>`): an attempt id is the caller's, unique only within the caller's organization.
ALTER TABLE tool_server_charges
  ADD COLUMN seq bigserial,
  ADD COLUMN uncertain_at timestamptz,
  ADD COLUMN resolved_outcome text CHECK (resolved_outcome IN ('succeeded', 'failed')),
  ADD COLUMN resolved_by text,
  ADD COLUMN resolved_at timestamptz;
CREATE UNIQUE INDEX tool_server_charges_seq ON tool_server_charges (seq);
-- The tenant's list of a server's charges, newest first, and the operator's list of held ones.
CREATE INDEX tool_server_charges_server_seq ON tool_server_charges (server_id, seq DESC);
CREATE INDEX tool_server_charges_uncertain ON tool_server_charges (seq DESC) WHERE status = 'uncertain';

INSERT INTO event_catalog (type) VALUES ('tool_charge.uncertain'), ('tool_charge.resolved')
ON CONFLICT DO NOTHING;
