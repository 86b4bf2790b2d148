-- A page of transfers reads their postings by (app, transfer): with an index on transfer_id alone
-- SQLite preferred the (app_id, id) index and scanned the app's whole ledger.
DROP INDEX postings_transfer;
CREATE INDEX postings_transfer ON postings (app_id, transfer_id, id);
