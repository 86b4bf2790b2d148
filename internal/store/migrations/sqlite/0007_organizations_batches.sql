-- Organizations above apps, the app's own details (status, metadata, bank account, business
-- compliance), organization transfers, payout requests and transfer batches.
--
-- An organization is a row of apps with kind 'organization': it has credentials and a ledger of
-- its own (its wallet) exactly as an app has, so the ledger's tables keep one owner column.
ALTER TABLE apps ADD COLUMN kind TEXT NOT NULL DEFAULT 'app';
ALTER TABLE apps ADD COLUMN organization_id TEXT REFERENCES apps (id);
ALTER TABLE apps ADD COLUMN status TEXT NOT NULL DEFAULT 'approved';
ALTER TABLE apps ADD COLUMN metadata TEXT;
ALTER TABLE apps ADD COLUMN bank_routing TEXT NOT NULL DEFAULT '';
ALTER TABLE apps ADD COLUMN bank_account_type TEXT NOT NULL DEFAULT '';
ALTER TABLE apps ADD COLUMN bank_last4 TEXT NOT NULL DEFAULT '';
ALTER TABLE apps ADD COLUMN bank_sealed BLOB;
ALTER TABLE apps ADD COLUMN compliance_sealed BLOB;
-- The keyset of an organization's list of apps: the rowid, copied by a trigger (SQLite cannot add
-- an autoincrementing column to a table that has rows).
ALTER TABLE apps ADD COLUMN seq INTEGER;
UPDATE apps SET seq = rowid;
-- (One line: the migration runner splits statements at semicolons that end a line.)
CREATE TRIGGER apps_seq AFTER INSERT ON apps BEGIN UPDATE apps SET seq = NEW.rowid WHERE rowid = NEW.rowid; END;
CREATE INDEX apps_organization ON apps (organization_id, seq);

CREATE TABLE organization_transfers (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    organization_id TEXT NOT NULL REFERENCES apps (id),
    app_id          TEXT NOT NULL REFERENCES apps (id),
    amount          INTEGER NOT NULL,
    status          TEXT NOT NULL,
    metadata        TEXT,
    idempotency_key TEXT NOT NULL DEFAULT '',
    created         INTEGER NOT NULL
);
CREATE INDEX organization_transfers_org ON organization_transfers (organization_id, seq);

CREATE TABLE payout_requests (
    seq              INTEGER PRIMARY KEY AUTOINCREMENT,
    id               TEXT NOT NULL UNIQUE,
    app_id           TEXT NOT NULL REFERENCES apps (id),
    amount           INTEGER NOT NULL,
    status           TEXT NOT NULL,
    user_id          TEXT,
    payee_first_name TEXT NOT NULL DEFAULT '',
    payee_last_name  TEXT NOT NULL DEFAULT '',
    payee_email      TEXT NOT NULL DEFAULT '',
    payee_country    TEXT NOT NULL DEFAULT '',
    payee_phone      TEXT NOT NULL DEFAULT '',
    payout_link_id   TEXT,
    transfer_id      TEXT,
    memo             TEXT NOT NULL DEFAULT '',
    metadata         TEXT,
    reject_reason    TEXT NOT NULL DEFAULT '',
    created          INTEGER NOT NULL,
    updated          INTEGER NOT NULL
);
CREATE INDEX payout_requests_app ON payout_requests (app_id, seq);
CREATE INDEX payout_requests_status ON payout_requests (app_id, status, seq);

CREATE TABLE transfer_batches (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    app_id          TEXT NOT NULL REFERENCES apps (id),
    status          TEXT NOT NULL,
    metadata        TEXT,
    idempotency_key TEXT NOT NULL DEFAULT '',
    created         INTEGER NOT NULL,
    updated         INTEGER NOT NULL
);
CREATE INDEX transfer_batches_app ON transfer_batches (app_id, seq);
CREATE INDEX transfer_batches_status ON transfer_batches (status, seq);

CREATE TABLE transfer_batch_items (
    batch_id        TEXT NOT NULL REFERENCES transfer_batches (id),
    position        INTEGER NOT NULL,
    amount          INTEGER NOT NULL,
    user_id         TEXT NOT NULL,
    tax_exempt      INTEGER NOT NULL DEFAULT 0,
    allow_debit     INTEGER NOT NULL DEFAULT 0,
    idempotency_key TEXT NOT NULL DEFAULT '',
    metadata        TEXT,
    transfer_id     TEXT,
    error           TEXT,
    PRIMARY KEY (batch_id, position)
);
