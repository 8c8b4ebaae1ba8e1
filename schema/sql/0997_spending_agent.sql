-- The agent a spend was decided as, on its hold and debit entries: a budget counts a spend for the agent the
-- policy gate decided it as (a session's agent paying a tool call from any of the project's wallets, the
-- calling agent of a consumer spend), not for whichever wallet paid. Null on entries no agent spent (funds,
-- adjustments, releases) and on spends from before, which count for their wallet's agent as they did.
ALTER TABLE wallet_ledger_entries ADD COLUMN agent_id text;
