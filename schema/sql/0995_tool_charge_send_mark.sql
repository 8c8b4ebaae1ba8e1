-- A paid call's upstream tools/call may not run twice (MCP has no idempotency key). The step that makes it
-- commits this mark first: a run of that step that finds it set (the worker was lost mid-call, the step
-- timed out) never calls again but looks the charge up, and a held charge without it was never sent.
ALTER TABLE tool_server_charges ADD COLUMN send_begun_at timestamptz;
