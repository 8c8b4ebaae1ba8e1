-- A consented pull holds nothing in the ledger while it is in flight: its cap reservation stands for it, so
-- while held a budget counts it for the agent named here. Set only for such pulls; a spend from the
-- consumer's sub-account is counted by its ledger hold instead, and a settled pull by its debit.
ALTER TABLE mandate_cap_reservations ADD COLUMN budget_agent_id text;
CREATE INDEX mandate_cap_reservations_budget ON mandate_cap_reservations (org_id, project_id, currency)
  WHERE status = 'held' AND budget_agent_id IS NOT NULL;
