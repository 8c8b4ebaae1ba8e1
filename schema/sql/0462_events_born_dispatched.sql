-- An event that no active endpoint subscribes to when it is written has nothing to fan out: it is stored
-- already dispatched, and its commit wakes no dispatcher. Most events (every ledger post writes one) go
-- to projects without a subscriber for their type, and claiming each of them later was a second write
-- per event. Endpoints receive the events written after they became active subscribers, which is what
-- the fan-out gave them before, give or take the moment between an event's write and its dispatch. The
-- check ignores `server_id`: an endpoint narrowed to a server still leaves the event to the fan-out,
-- which applies the narrowing.
CREATE FUNCTION events_mark_unsubscribed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.dispatched_at IS NULL AND NOT EXISTS (
    SELECT 1 FROM webhook_endpoints w
    WHERE w.org_id = NEW.org_id AND w.project_id = NEW.project_id AND w.event = NEW.type AND w.status = 'active'
  ) THEN
    NEW.dispatched_at := now();
  END IF;
  RETURN NEW;
END;
$$;
CREATE TRIGGER events_born_dispatched BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION events_mark_unsubscribed();

-- One wake-up per statement that wrote something to dispatch, instead of one notification per event:
-- the dispatcher ignores the payload, and equal notifications of one transaction are delivered once.
DROP TRIGGER events_notify ON events;
DROP FUNCTION notify_event_committed();
CREATE FUNCTION notify_events_committed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM inserted WHERE dispatched_at IS NULL) THEN
    PERFORM pg_notify('gateway_events', '');
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER events_notify AFTER INSERT ON events REFERENCING NEW TABLE AS inserted
  FOR EACH STATEMENT EXECUTE FUNCTION notify_events_committed();
