-- A running bulk job is held by one dashboard process through a lease in the database, not in
-- that process's memory: lease_owner names the process, lease_until (microseconds) is when its
-- hold ends unless renewed. A job left running with its lease ended (its process died) is taken
-- over by another. run_by_* name the operator who confirmed the run, in whose name its result is
-- audited whichever process finishes it.
ALTER TABLE bulk_jobs ADD COLUMN lease_owner TEXT NOT NULL DEFAULT '';
ALTER TABLE bulk_jobs ADD COLUMN lease_until BIGINT NOT NULL DEFAULT 0;
ALTER TABLE bulk_jobs ADD COLUMN run_by_id TEXT NOT NULL DEFAULT '';
ALTER TABLE bulk_jobs ADD COLUMN run_by_email TEXT NOT NULL DEFAULT '';
