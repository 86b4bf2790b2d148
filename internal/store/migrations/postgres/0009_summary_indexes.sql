-- List summaries sample the newest rows of a creation range (internal/store/summary.go): these
-- indexes hold every column a summary reads, so a sample never visits the tables.
CREATE INDEX transfers_summary ON transfers (app_id, created, type, status, amount, user_id);
CREATE INDEX postings_summary ON postings (app_id, created, amount, debit_account, credit_account, user_id);
