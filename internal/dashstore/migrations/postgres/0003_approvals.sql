-- Maker-checker: a payout or payout link one operator asked for above the approval threshold,
-- held until another operator approves it (then it runs, with the request's idempotency key) or
-- rejects it. request is the validated request as JSON; reason is the checker's reason for a
-- rejection or the service's message for a failure. Times are sqldb.Micros.
CREATE TABLE approvals (
    id              TEXT PRIMARY KEY,
    kind            TEXT NOT NULL,
    request         TEXT NOT NULL,
    idempotency_key TEXT NOT NULL UNIQUE,
    amount          BIGINT NOT NULL,
    app_id          TEXT NOT NULL,
    user_id         TEXT NOT NULL,
    payee_name      TEXT NOT NULL,
    payee_email     TEXT NOT NULL,
    method          TEXT NOT NULL,
    maker_id        TEXT NOT NULL,
    maker_email     TEXT NOT NULL,
    status          TEXT NOT NULL,
    checker_id      TEXT NOT NULL DEFAULT '',
    checker_email   TEXT NOT NULL DEFAULT '',
    reason          TEXT NOT NULL DEFAULT '',
    result_id       TEXT NOT NULL DEFAULT '',
    created_at      BIGINT NOT NULL,
    decided_at      BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX approvals_status ON approvals (status, created_at);
