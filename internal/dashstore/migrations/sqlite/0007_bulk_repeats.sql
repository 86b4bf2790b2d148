-- A bulk row's fingerprint: a hash of what it pays (the user it resolved to, the amount in cents,
-- the method, the memo with its spacing and case folded), so the same rows in a file saved again
-- (other line endings, a trailing newline, "$1,000.00" for "1000") are found as repeats of an
-- earlier job's. Empty for a row with a problem, and for rows stored before this migration.
ALTER TABLE bulk_rows ADD COLUMN fingerprint TEXT NOT NULL DEFAULT '';
CREATE INDEX bulk_rows_fingerprint ON bulk_rows (fingerprint);

-- The second operator who confirmed paying a job's repeated rows again, and when (microseconds);
-- empty and 0 until one does. The uploader never can.
ALTER TABLE bulk_jobs ADD COLUMN repeats_confirmed_by TEXT NOT NULL DEFAULT '';
ALTER TABLE bulk_jobs ADD COLUMN repeats_confirmed_email TEXT NOT NULL DEFAULT '';
ALTER TABLE bulk_jobs ADD COLUMN repeats_confirmed_at BIGINT NOT NULL DEFAULT 0;
