-- Who last gave an operator their access (made the account, changed its role or reset its
-- password), and when (sqldb.Micros; 0 with nobody): an operator does not approve the requests of
-- whoever vouched for them within the approval window.
ALTER TABLE operators ADD COLUMN vouched_by TEXT NOT NULL DEFAULT '';
ALTER TABLE operators ADD COLUMN vouched_at BIGINT NOT NULL DEFAULT 0;
