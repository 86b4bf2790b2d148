-- Sanctions screening (internal/sanctions). Each load of OFAC's lists is a row; only the newest
-- keeps its entries (JSON), since screening uses the newest alone. version is the SHA-256 of
-- the files loaded.
CREATE TABLE sanctions_lists (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    version     TEXT NOT NULL,
    source      TEXT NOT NULL,
    entry_count INTEGER NOT NULL,
    entries     BLOB,
    loaded      INTEGER NOT NULL
);

-- A payee's match against an entry of a loaded list, scored over the threshold. An operator's
-- release (who, why, when) answers it for that load of the list alone: a newer load asks again.
CREATE TABLE sanctions_hits (
    app_id         TEXT NOT NULL,
    user_id        TEXT NOT NULL,
    list_id        INTEGER NOT NULL,
    entry_uid      TEXT NOT NULL,
    list           TEXT NOT NULL,
    entry_name     TEXT NOT NULL,
    matched_name   TEXT NOT NULL,
    programs       TEXT NOT NULL,
    score          REAL NOT NULL,
    created        INTEGER NOT NULL,
    released_by    TEXT NOT NULL DEFAULT '',
    release_reason TEXT NOT NULL DEFAULT '',
    released_at    INTEGER,
    PRIMARY KEY (app_id, user_id, list_id, entry_uid)
);
