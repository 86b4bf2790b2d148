-- Apps, the ledger, users, payout methods, compliance, transfers, idempotency keys.
-- Times are integer microseconds since the epoch; money is integer cents.

CREATE TABLE apps (
    id        TEXT PRIMARY KEY,
    name      TEXT NOT NULL,
    client_id TEXT NOT NULL UNIQUE,
    key_hash  BLOB NOT NULL,
    created   INTEGER NOT NULL
);

CREATE TABLE ledger_accounts (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id          TEXT NOT NULL REFERENCES apps (id),
    kind            TEXT NOT NULL,
    ref             TEXT NOT NULL,
    debits_posted   INTEGER NOT NULL DEFAULT 0,
    credits_posted  INTEGER NOT NULL DEFAULT 0,
    debits_pending  INTEGER NOT NULL DEFAULT 0,
    credits_pending INTEGER NOT NULL DEFAULT 0,
    UNIQUE (app_id, kind, ref),
    -- The last line of defence: the service guards every debit, and the database refuses the rest.
    CHECK (kind = 'external' OR credits_posted - debits_posted - debits_pending >= 0)
);

CREATE TABLE postings (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id           TEXT NOT NULL REFERENCES apps (id),
    transfer_id      TEXT NOT NULL,
    debit_account    INTEGER NOT NULL REFERENCES ledger_accounts (id),
    credit_account   INTEGER NOT NULL REFERENCES ledger_accounts (id),
    amount           INTEGER NOT NULL CHECK (amount > 0),
    state            TEXT NOT NULL,
    type             TEXT NOT NULL,
    user_id          TEXT,
    source_name      TEXT NOT NULL,
    destination_name TEXT NOT NULL,
    metadata         TEXT,
    created          INTEGER NOT NULL
);
CREATE INDEX postings_app ON postings (app_id, id);
CREATE INDEX postings_user ON postings (app_id, user_id, id);
CREATE INDEX postings_transfer ON postings (transfer_id);

CREATE TABLE users (
    seq               INTEGER PRIMARY KEY AUTOINCREMENT,
    id                TEXT NOT NULL UNIQUE,
    app_id            TEXT NOT NULL REFERENCES apps (id),
    first_name        TEXT NOT NULL,
    last_name         TEXT NOT NULL,
    email             TEXT NOT NULL,
    email_key         TEXT NOT NULL,
    country_code      TEXT NOT NULL,
    phone_number      TEXT NOT NULL,
    username          TEXT,
    username_key      TEXT,
    status            TEXT NOT NULL,
    verified          INTEGER NOT NULL DEFAULT 0,
    default_method_id TEXT,
    tax_id_collected  INTEGER NOT NULL DEFAULT 0,
    address_collected INTEGER NOT NULL DEFAULT 0,
    dob_collected     INTEGER NOT NULL DEFAULT 0,
    must_collect_1099 INTEGER NOT NULL DEFAULT 0,
    collected_1099    INTEGER NOT NULL DEFAULT 0,
    w8ben_collected   INTEGER NOT NULL DEFAULT 0,
    flagged           INTEGER NOT NULL DEFAULT 0,
    id_verified       INTEGER NOT NULL DEFAULT 0,
    metadata          TEXT,
    search            TEXT NOT NULL,
    created           INTEGER NOT NULL,
    deleted_at        INTEGER
);
CREATE UNIQUE INDEX users_email ON users (app_id, email_key) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX users_username ON users (app_id, username_key) WHERE deleted_at IS NULL AND username_key IS NOT NULL;
CREATE INDEX users_app ON users (app_id, seq);
CREATE INDEX users_status ON users (app_id, status, seq);

CREATE TABLE verifications (
    app_id     TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    token_hash BLOB NOT NULL,
    expires    INTEGER NOT NULL,
    attempts   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (app_id, user_id)
);

CREATE TABLE payout_methods (
    seq            INTEGER PRIMARY KEY AUTOINCREMENT,
    id             TEXT NOT NULL UNIQUE,
    app_id         TEXT NOT NULL REFERENCES apps (id),
    user_id        TEXT NOT NULL,
    platform       TEXT NOT NULL,
    fingerprint    TEXT NOT NULL,
    description    TEXT NOT NULL,
    mask           TEXT NOT NULL DEFAULT '',
    email          TEXT NOT NULL DEFAULT '',
    phone_number   TEXT NOT NULL DEFAULT '',
    handle         TEXT NOT NULL DEFAULT '',
    cash_tag       TEXT NOT NULL DEFAULT '',
    routing_number TEXT NOT NULL DEFAULT '',
    account_type   TEXT NOT NULL DEFAULT '',
    sealed_account BLOB,
    country        TEXT NOT NULL,
    currency       TEXT NOT NULL,
    created        INTEGER NOT NULL,
    UNIQUE (app_id, user_id, fingerprint)
);
CREATE INDEX payout_methods_user ON payout_methods (app_id, user_id, seq);

CREATE TABLE tax_forms (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id    TEXT NOT NULL,
    user_id   TEXT NOT NULL,
    kind      TEXT NOT NULL,
    sealed    BLOB NOT NULL,
    tin_last4 TEXT NOT NULL,
    created   INTEGER NOT NULL
);
CREATE INDEX tax_forms_user ON tax_forms (app_id, user_id);

CREATE TABLE tax_years (
    app_id  TEXT NOT NULL,
    user_id TEXT NOT NULL,
    year    INTEGER NOT NULL,
    amount  INTEGER NOT NULL,
    PRIMARY KEY (app_id, user_id, year)
);

CREATE TABLE transfers (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    app_id          TEXT NOT NULL REFERENCES apps (id),
    user_id         TEXT,
    status          TEXT NOT NULL,
    type            TEXT NOT NULL,
    amount          INTEGER NOT NULL,
    platform        TEXT NOT NULL DEFAULT '',
    account_id      TEXT NOT NULL DEFAULT '',
    external_id     TEXT NOT NULL DEFAULT '',
    payout_link_id  TEXT,
    metadata        TEXT,
    failure_reason  TEXT NOT NULL DEFAULT '',
    idempotency_key TEXT NOT NULL DEFAULT '',
    fee_party       TEXT NOT NULL DEFAULT '',
    fund            INTEGER NOT NULL DEFAULT 0,
    tax_exempt      INTEGER NOT NULL DEFAULT 0,
    settle_at       INTEGER NOT NULL DEFAULT 0,
    attempts        INTEGER NOT NULL DEFAULT 0,
    created         INTEGER NOT NULL,
    updated         INTEGER NOT NULL
);
CREATE INDEX transfers_app ON transfers (app_id, seq);
CREATE INDEX transfers_user ON transfers (app_id, user_id, seq);
CREATE INDEX transfers_type ON transfers (app_id, type, seq);
CREATE INDEX transfers_status ON transfers (app_id, status, seq);
CREATE INDEX transfers_settle ON transfers (status, settle_at);

CREATE TABLE idempotency_keys (
    app_id       TEXT NOT NULL,
    key          TEXT NOT NULL,
    operation    TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    resource_id  TEXT,
    created      INTEGER NOT NULL,
    PRIMARY KEY (app_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created);
