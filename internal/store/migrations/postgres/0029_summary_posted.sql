-- A summary's money in and out is what lines posted in its range moved (the statement's
-- definition), so the summary index holds when each line was posted too: a sample still never
-- visits the table.
DROP INDEX postings_summary;
CREATE INDEX postings_summary ON postings (app_id, created, amount, debit_account, credit_account, user_id, type, state, posted);
