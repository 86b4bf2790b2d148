-- Year-end 1099-NEC forms. Every version of a payee's form for a year is a row: the first is
-- issued, a later one corrects it (a payment changed after it was issued) or voids it (the payee
-- is no longer reportable), naming the row it replaces. The payer's and payee's blocks as the form
-- showed them are sealed whole (both TINs are on it); the payee TIN's last four are kept in clear.
CREATE TABLE tax_returns (
    id        TEXT PRIMARY KEY,
    app_id    TEXT NOT NULL REFERENCES apps (id),
    user_id   TEXT NOT NULL,
    year      INTEGER NOT NULL,
    amount    BIGINT NOT NULL,
    status    TEXT NOT NULL,
    corrects  TEXT NOT NULL DEFAULT '',
    sealed    BYTEA NOT NULL,
    tin_last4 TEXT NOT NULL,
    created   BIGINT NOT NULL
);
CREATE INDEX tax_returns_year ON tax_returns (app_id, year, user_id, created);

-- A payee's consent to receive their forms electronically (the IRS asks for it before a
-- recipient copy is furnished only online); a payee without one is mailed a paper copy.
CREATE TABLE tax_consents (
    app_id    TEXT NOT NULL REFERENCES apps (id),
    user_id   TEXT NOT NULL,
    consented BIGINT NOT NULL,
    PRIMARY KEY (app_id, user_id)
);
