-- The transfer batch a wallet row was sent in, kept while the batch has not finished (the row's
-- outcome is then 'unsettled'), so the job can ask that batch again instead of guessing.
ALTER TABLE bulk_rows ADD COLUMN batch_id TEXT NOT NULL DEFAULT '';
