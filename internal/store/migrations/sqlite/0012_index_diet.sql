-- Every index on a table a transfer writes is one more B-tree page in each commit's WAL frames
-- and again in the checkpoint. These go or shrink because no query needs them whole.

-- (app_id, created) is a prefix of transfers_summary (app_id, created, type, status, amount,
-- user_id), which serves every seek and order on an app's creation time just as well.
DROP INDEX transfers_created;

-- The settlement scan (and the worker backlog) read only pending payouts: those are the index.
-- Transfers written completed (every balance transfer and refill) no longer enter it, and a
-- settled payout leaves it. The queries name the same literals, so the planner can use it.
DROP INDEX transfers_settle;
CREATE INDEX transfers_settle ON transfers (settle_at) WHERE status = 'pending' AND type = 'payout';

-- An idempotency key is only ever found by (app_id, key): stored WITHOUT ROWID, the row lives in
-- the primary key's B-tree instead of a rowid table plus an index on the key.
CREATE TABLE idempotency_keys_by_key (
    app_id       TEXT NOT NULL,
    key          TEXT NOT NULL,
    operation    TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    resource_id  TEXT,
    created      INTEGER NOT NULL,
    PRIMARY KEY (app_id, key)
) WITHOUT ROWID;
INSERT INTO idempotency_keys_by_key (app_id, key, operation, request_hash, resource_id, created)
    SELECT app_id, key, operation, request_hash, resource_id, created FROM idempotency_keys;
DROP TABLE idempotency_keys;
ALTER TABLE idempotency_keys_by_key RENAME TO idempotency_keys;
CREATE INDEX idempotency_keys_created ON idempotency_keys (created);

-- A webhook delivery is written pending with every event an endpoint takes and leaves pending when
-- it succeeds or fails for good. The claim scan and its in-order check read pending deliveries
-- only, so only those are in their indexes: a delivery that succeeds leaves them instead of moving
-- within them, and they stay the size of the queue, not of the history.
DROP INDEX webhook_deliveries_due;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt, id) WHERE status = 'pending';
DROP INDEX webhook_deliveries_object;
CREATE INDEX webhook_deliveries_object ON webhook_deliveries (endpoint_id, object_id, id) WHERE status = 'pending';
