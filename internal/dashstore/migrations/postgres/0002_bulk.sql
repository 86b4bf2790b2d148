-- Bulk payouts from a CSV: one job per file per app (its SHA-256), and every row of it with the
-- problem that keeps it from being paid, or its outcome once the job ran. Amounts are cents.
CREATE TABLE bulk_jobs (
    id          TEXT PRIMARY KEY,
    app_id      TEXT NOT NULL,
    file_hash   TEXT NOT NULL,
    file_name   TEXT NOT NULL,
    operator_id TEXT NOT NULL,
    status      TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    UNIQUE (app_id, file_hash)
);

CREATE TABLE bulk_rows (
    job_id      TEXT NOT NULL REFERENCES bulk_jobs (id) ON DELETE CASCADE,
    row_num     INTEGER NOT NULL,
    user_ref    TEXT NOT NULL,
    user_id     TEXT NOT NULL,
    amount      BIGINT NOT NULL,
    memo        TEXT NOT NULL,
    method      TEXT NOT NULL,
    problem     TEXT NOT NULL,
    outcome     TEXT NOT NULL,
    transfer_id TEXT NOT NULL,
    error       TEXT NOT NULL,
    PRIMARY KEY (job_id, row_num)
);
