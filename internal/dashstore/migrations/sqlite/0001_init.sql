-- Operators of the dashboard, their server-side sessions, the audit log of their actions, failed
-- login attempts (for rate limiting across instances) and the embedded service's credentials.
-- Times are integer microseconds since the epoch (sqldb.Micros).
CREATE TABLE operators (
    id            TEXT PRIMARY KEY,
    email         TEXT NOT NULL UNIQUE,
    name          TEXT NOT NULL,
    role          TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    disabled      BOOLEAN NOT NULL DEFAULT FALSE,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL
);

CREATE TABLE sessions (
    id_hash      TEXT PRIMARY KEY,
    operator_id  TEXT REFERENCES operators (id) ON DELETE CASCADE,
    data         TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL,
    expires_at   BIGINT NOT NULL
);
CREATE INDEX sessions_operator ON sessions (operator_id);
CREATE INDEX sessions_expires ON sessions (expires_at);

CREATE TABLE audit_log (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at     BIGINT NOT NULL,
    operator_id    TEXT NOT NULL,
    operator_email TEXT NOT NULL,
    action         TEXT NOT NULL,
    object_type    TEXT NOT NULL,
    object_id      TEXT NOT NULL,
    detail         TEXT NOT NULL,
    ip             TEXT NOT NULL
);
CREATE INDEX audit_log_operator ON audit_log (operator_id, id);
CREATE INDEX audit_log_object ON audit_log (object_type, object_id, id);

CREATE TABLE login_failures (
    id  INTEGER PRIMARY KEY AUTOINCREMENT,
    key TEXT NOT NULL,
    at  BIGINT NOT NULL
);
CREATE INDEX login_failures_key ON login_failures (key, at);

CREATE TABLE service_credentials (
    name       TEXT PRIMARY KEY,
    app_id     TEXT NOT NULL,
    client_id  TEXT NOT NULL,
    api_key    TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
