-- Retention (store.Store.Prune) deletes old webhook deliveries and events: a delivery's attempts
-- go with it (ON DELETE CASCADE) and an event goes only when no delivery names it, so both
-- deletes look up the rows that name the one deleted, by these indexes rather than a scan.
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);
