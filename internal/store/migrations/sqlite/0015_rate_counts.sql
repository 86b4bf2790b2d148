-- Rate limits count in the database, not in a process's memory, so that every payoutd on one
-- database shares the counts and a restart keeps them: one row per limited key (its limiter's
-- name and the key), the count of its current fixed window and when that window ends, in
-- microseconds. A window that ended is started again by the next event; the worker deletes rows
-- whose window ended.
CREATE TABLE rate_counts (
    key        TEXT PRIMARY KEY,
    count      INTEGER NOT NULL,
    window_end BIGINT NOT NULL
) WITHOUT ROWID;
