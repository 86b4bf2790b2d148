-- A transfer's first status is kept in its own row instead of a transfer_events row: the history
-- table and its index are two B-trees fewer for every transfer written, and most transfers (every
-- balance transfer and refill) never reach a second status. transfer_events holds the statuses a
-- transfer reaches after it is created. Rows written before this keep first_status NULL: their
-- first step is still in transfer_events.
ALTER TABLE transfers ADD COLUMN first_status TEXT;
ALTER TABLE transfers ADD COLUMN first_reason TEXT NOT NULL DEFAULT '';
