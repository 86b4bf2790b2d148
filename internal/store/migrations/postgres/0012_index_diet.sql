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
