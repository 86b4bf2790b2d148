-- Events (a transactional outbox) and their delivery to webhook endpoints.

CREATE TABLE events (
    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    id        TEXT NOT NULL UNIQUE,
    app_id    TEXT NOT NULL REFERENCES apps (id),
    type      TEXT NOT NULL,
    object_id TEXT NOT NULL,
    data      TEXT NOT NULL,
    created   INTEGER NOT NULL
);
CREATE INDEX events_app ON events (app_id, seq);
CREATE INDEX events_object ON events (app_id, object_id, seq);
CREATE INDEX events_type ON events (app_id, type, seq);

CREATE TABLE webhook_endpoints (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    app_id          TEXT NOT NULL REFERENCES apps (id),
    url             TEXT NOT NULL,
    event_types     TEXT NOT NULL DEFAULT '',
    enabled         INTEGER NOT NULL,
    description     TEXT NOT NULL DEFAULT '',
    disabled_reason TEXT NOT NULL DEFAULT '',
    secret          BLOB NOT NULL,
    old_secret      BLOB,
    old_secret_until INTEGER NOT NULL DEFAULT 0,
    failing_since   INTEGER NOT NULL DEFAULT 0,
    created         INTEGER NOT NULL
);
CREATE INDEX webhook_endpoints_app ON webhook_endpoints (app_id, seq);

-- One row per event and endpoint; next_attempt is also the lease of a worker sending it.
CREATE TABLE webhook_deliveries (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id       TEXT NOT NULL,
    event_id     TEXT NOT NULL REFERENCES events (id),
    endpoint_id  TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    object_id    TEXT NOT NULL,
    status       TEXT NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    next_attempt INTEGER NOT NULL,
    created      INTEGER NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt);
CREATE INDEX webhook_deliveries_object ON webhook_deliveries (endpoint_id, object_id, status, id);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, status, created);

CREATE TABLE webhook_attempts (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id      TEXT NOT NULL,
    delivery_id INTEGER NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    endpoint_id TEXT NOT NULL,
    event_id    TEXT NOT NULL,
    event_type  TEXT NOT NULL,
    status_code INTEGER NOT NULL,
    latency_ms  INTEGER NOT NULL,
    response    TEXT NOT NULL,
    outcome     TEXT NOT NULL,
    created     INTEGER NOT NULL
);
CREATE INDEX webhook_attempts_endpoint ON webhook_attempts (endpoint_id, id);
CREATE INDEX webhook_attempts_event ON webhook_attempts (app_id, event_id, id);
