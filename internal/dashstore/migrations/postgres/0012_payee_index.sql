-- The payee index: the dashboard's own copy of the service's users, for a backend that cannot
-- search them (the public Dots API). seq is a user's place in the service's list, newest
-- highest, for the users read from the list (listed); a user re-read alone, not yet met in the
-- list, has seq 0. search is payouts.UserSearchText; data is the user as the service answered.
CREATE TABLE payees (
    id      TEXT PRIMARY KEY,
    seq     BIGINT NOT NULL,
    listed  BOOLEAN NOT NULL,
    search  TEXT NOT NULL,
    email   TEXT NOT NULL,
    data    TEXT NOT NULL,
    read_at BIGINT NOT NULL
);
CREATE INDEX payees_order ON payees (seq, id);
CREATE INDEX payees_email ON payees (email);

-- How far the index has read the list: complete once its oldest user was read; resume_after is
-- the oldest user read so far, where reading older users goes on; synced_at is when the list was
-- last read down from its newest user (sqldb.Micros; 0 never).
CREATE TABLE payee_index (
    id           INTEGER PRIMARY KEY CHECK (id = 1),
    complete     BOOLEAN NOT NULL,
    resume_after TEXT NOT NULL,
    synced_at    BIGINT NOT NULL
);
INSERT INTO payee_index (id, complete, resume_after, synced_at) VALUES (1, FALSE, '', 0);
