-- A bulk row repeats an earlier one when it pays the same user the same amount by the same
-- method (dashstore.BulkRepeats); the memo is no part of it. The stored fingerprint hashed the
-- memo in, so editing a memo made a row new: repeats are now found by the row's own columns,
-- which every row stored before has too, so no row needs rewriting.
DROP INDEX bulk_rows_fingerprint;
ALTER TABLE bulk_rows DROP COLUMN fingerprint;
CREATE INDEX bulk_rows_payment ON bulk_rows (user_id, amount);
