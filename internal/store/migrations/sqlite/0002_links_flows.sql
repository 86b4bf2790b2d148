-- Payout links and hosted flows.

CREATE TABLE payout_links (
    seq              INTEGER PRIMARY KEY AUTOINCREMENT,
    id               TEXT NOT NULL UNIQUE,
    app_id           TEXT NOT NULL REFERENCES apps (id),
    amount           INTEGER NOT NULL,
    status           TEXT NOT NULL,
    payee_first_name TEXT NOT NULL DEFAULT '',
    payee_last_name  TEXT NOT NULL DEFAULT '',
    payee_email      TEXT NOT NULL DEFAULT '',
    payee_country    TEXT NOT NULL DEFAULT '',
    payee_phone      TEXT NOT NULL DEFAULT '',
    delivery_method  TEXT NOT NULL,
    delivery_message TEXT NOT NULL DEFAULT '',
    tax_exempt       INTEGER NOT NULL DEFAULT 0,
    force_compliance INTEGER NOT NULL DEFAULT 0,
    user_id          TEXT,
    claimed_user_id  TEXT,
    flow_id          TEXT,
    transfer_id      TEXT,
    memo             TEXT NOT NULL DEFAULT '',
    metadata         TEXT,
    fee_party        TEXT NOT NULL DEFAULT '',
    search           TEXT NOT NULL,
    created          INTEGER NOT NULL,
    updated          INTEGER NOT NULL
);
CREATE INDEX payout_links_app ON payout_links (app_id, seq);
CREATE INDEX payout_links_status ON payout_links (app_id, status, seq);
CREATE INDEX payout_links_delivery ON payout_links (status, updated);

CREATE TABLE flows (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    app_id          TEXT NOT NULL REFERENCES apps (id),
    user_id         TEXT,
    steps           TEXT NOT NULL,
    completed_steps TEXT NOT NULL,
    payout_link_id  TEXT,
    redirect_url    TEXT NOT NULL DEFAULT '',
    metadata        TEXT,
    created         INTEGER NOT NULL
);
CREATE INDEX flows_app ON flows (app_id, seq);

-- The sandbox notifier's inbox: every SMS and email the service sent.
CREATE TABLE sandbox_messages (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id  TEXT NOT NULL,
    channel TEXT NOT NULL,
    recipient TEXT NOT NULL,
    subject TEXT NOT NULL,
    body    TEXT NOT NULL,
    created INTEGER NOT NULL
);
CREATE INDEX sandbox_messages_app ON sandbox_messages (app_id, id);
