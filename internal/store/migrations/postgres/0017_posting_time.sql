-- A statement dates each ledger line by when it was posted, which for a reservation (a payout's
-- lines, a fee, a payout link's escrow) is when it settled, not when it was made: a balance as of
-- any instant is then the sum of the lines posted before it. Lines posted before this migration
-- were posted when made, or are dated by their making, the closest time they have.
ALTER TABLE postings ADD COLUMN posted BIGINT;
UPDATE postings SET posted = created WHERE state = 'posted';
-- A statement reads one account's posted lines by time, from either side of the line.
CREATE INDEX postings_debit_posted ON postings (debit_account, posted) WHERE posted IS NOT NULL;
CREATE INDEX postings_credit_posted ON postings (credit_account, posted) WHERE posted IS NOT NULL;
-- Summaries count only posted lines (a voided reservation counts nowhere) and break their sums
-- down by type: the summary index holds both, so a sample still never visits the table.
DROP INDEX postings_summary;
CREATE INDEX postings_summary ON postings (app_id, created, amount, debit_account, credit_account, user_id, type, state);
