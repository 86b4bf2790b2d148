-- Transfer status history, for timelines, and an index for daily volumes.

CREATE TABLE transfer_events (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id      TEXT NOT NULL,
    transfer_id TEXT NOT NULL,
    status      TEXT NOT NULL,
    reason      TEXT NOT NULL DEFAULT '',
    at          INTEGER NOT NULL
);
CREATE INDEX transfer_events_transfer ON transfer_events (transfer_id, id);

CREATE INDEX transfers_created ON transfers (app_id, created);
