-- Every API process keeps the sessions it has read open in memory (domain/sessions/closings.ts): a session
-- leaving `active` (closed by its caller, or by its key's revocation) or deleted with its project is
-- announced to all of them once the change commits, so none answers for it afterwards.
CREATE FUNCTION notify_session_closed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('gateway_session_closed', OLD.id);
  RETURN NULL;
END;
$$;
CREATE TRIGGER session_closed_notifies AFTER UPDATE OF status ON sessions
  FOR EACH ROW WHEN (OLD.status = 'active' AND NEW.status <> 'active')
  EXECUTE FUNCTION notify_session_closed();
CREATE TRIGGER session_deleted_notifies AFTER DELETE ON sessions
  FOR EACH ROW WHEN (OLD.status = 'active')
  EXECUTE FUNCTION notify_session_closed();
