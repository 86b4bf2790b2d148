-- Money the dashboard sent (or let a checker send) to payees, one row per request or bulk row,
-- counted by the approval policy over its rolling window per payee and per operator. outflow_key is the
-- request's idempotency key (a bulk row's: bulk:<job>:<row>), so a form sent twice counts once.
-- payee is a user id, or the contact a payout link names (email:..., phone:...), or empty for a
-- link that names nobody. Times are sqldb.Micros.
CREATE TABLE approval_outflows (
    outflow_key TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,
    payee       TEXT NOT NULL,
    operator_id TEXT NOT NULL,
    amount      BIGINT NOT NULL,
    created_at  BIGINT NOT NULL
);
CREATE INDEX approval_outflows_payee ON approval_outflows (payee, created_at);
CREATE INDEX approval_outflows_operator ON approval_outflows (operator_id, created_at);

-- Who a held request pays, as approval_outflows names payees, and the policy's reasons for
-- holding it (JSON), shown on its page.
ALTER TABLE approvals ADD COLUMN payee_key TEXT NOT NULL DEFAULT '';
ALTER TABLE approvals ADD COLUMN held_for TEXT NOT NULL DEFAULT '';
