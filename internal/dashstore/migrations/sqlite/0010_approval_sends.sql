-- What the approval policy counts, one row per attempt to send (a request, or a row of a bulk
-- file), written before the request goes to the service. A row is pending until the service
-- answers: refused (any 4xx) deletes that attempt's row alone; a success marks it sent with
-- the id of what the service made (a transfer or a payout link), so one thing counts once
-- however often its idempotency key is sent; no answer (a timeout, a 5xx) leaves it pending,
-- counted. outflow_key is the request's idempotency key; payee a user id, or the contact a
-- payout link names when it is nobody's yet; operator_id who asked. Times are sqldb.Micros.
CREATE TABLE approval_sends (
    attempt_id  TEXT PRIMARY KEY,
    outflow_key TEXT NOT NULL,
    kind        TEXT NOT NULL,
    payee       TEXT NOT NULL,
    operator_id TEXT NOT NULL,
    amount      BIGINT NOT NULL,
    state       TEXT NOT NULL,
    result_id   TEXT NOT NULL DEFAULT '',
    created_at  BIGINT NOT NULL
);
CREATE INDEX approval_sends_payee ON approval_sends (payee, created_at);
CREATE INDEX approval_sends_operator ON approval_sends (operator_id, created_at);
CREATE INDEX approval_sends_key ON approval_sends (outflow_key, kind);
CREATE UNIQUE INDEX approval_sends_result ON approval_sends (kind, result_id) WHERE result_id <> '';

-- What the old table counted still counts, as sent.
INSERT INTO approval_sends (attempt_id, outflow_key, kind, payee, operator_id, amount, state, created_at)
    SELECT outflow_key, outflow_key, kind, payee, operator_id, amount, 'sent', created_at FROM approval_outflows;
DROP TABLE approval_outflows;
