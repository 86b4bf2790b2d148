-- An app (or an organization) has several API keys, so that a new one can be made while the old
-- one keeps working until it is revoked or expires: rotating a key locks out no one. Each app's
-- key so far becomes its first row; its last four characters were never kept. Times are
-- microseconds; an unset expiry, revocation or last use is NULL.
CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY,
    app_id       TEXT NOT NULL REFERENCES apps (id),
    name         TEXT NOT NULL,
    last4        TEXT NOT NULL,
    key_hash     BLOB NOT NULL UNIQUE,
    created_by   TEXT NOT NULL,
    created      INTEGER NOT NULL,
    expires_at   INTEGER,
    revoked_at   INTEGER,
    last_used_at INTEGER
);
CREATE INDEX api_keys_app ON api_keys (app_id, created);

INSERT INTO api_keys (id, app_id, name, last4, key_hash, created_by, created)
SELECT id, id, 'first key', '', key_hash, '', created FROM apps;

ALTER TABLE apps DROP COLUMN key_hash;
