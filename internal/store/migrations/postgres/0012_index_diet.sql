-- Every index on a table a transfer writes is one more B-tree to update (and WAL-log) in each
-- commit. These go or shrink because no query needs them whole.

-- (app_id, created) is a prefix of transfers_summary (app_id, created, type, status, amount,
-- user_id), which serves every seek and order on an app's creation time just as well.
DROP INDEX transfers_created;

-- The settlement scan (and the worker backlog) read only pending payouts: those are the index.
-- Transfers written completed (every balance transfer and refill) no longer enter it, and a
-- settled payout leaves it. The queries name the same literals, so the planner can use it.
DROP INDEX transfers_settle;
CREATE INDEX transfers_settle ON transfers (settle_at) WHERE status = 'pending' AND type = 'payout';

-- A webhook delivery is written pending with every event an endpoint takes and leaves pending when
-- it succeeds or fails for good. The claim scan and its in-order check read pending deliveries
-- only, so only those are in their indexes: a delivery that succeeds leaves them instead of moving
-- within them, and they stay the size of the queue, not of the history.
DROP INDEX webhook_deliveries_due;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt, id) WHERE status = 'pending';
DROP INDEX webhook_deliveries_object;
CREATE INDEX webhook_deliveries_object ON webhook_deliveries (endpoint_id, object_id, id) WHERE status = 'pending';
