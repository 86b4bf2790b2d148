-- A list page filtered by amount, creation time, type or status walks the app's rows in keyset
-- order until it has a page. This index holds those columns beside the order, so SQLite tests
-- each row against the filter in the index and reads the table only for the rows it returns: a
-- filter that matches nothing in a month costs a walk of the index, not of the table.
CREATE INDEX transfers_app_filter ON transfers (app_id, seq, created, amount, type, status);
DROP INDEX transfers_app;
