-- The message outbox: every email and text the service sends (a payout link, a one-time code) is
-- a row written in the transaction that caused it, sent by the worker outside any transaction.
-- subject, body and html are sealed with the service's key (they hold claim links and codes).
-- next_attempt is the lease while a worker sends it, then the time of the next try; provider_id
-- is the provider's id of the message (Twilio's SID, the SMTP Message-ID).
CREATE TABLE outbound_messages (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id         TEXT NOT NULL,
    user_id        TEXT NOT NULL DEFAULT '',
    payout_link_id TEXT NOT NULL DEFAULT '',
    purpose        TEXT NOT NULL,
    channel        TEXT NOT NULL,
    recipient      TEXT NOT NULL,
    subject        TEXT NOT NULL,
    body           TEXT NOT NULL,
    html           TEXT NOT NULL,
    status         TEXT NOT NULL,
    attempts       INTEGER NOT NULL DEFAULT 0,
    next_attempt   INTEGER NOT NULL,
    provider       TEXT NOT NULL DEFAULT '',
    provider_id    TEXT NOT NULL DEFAULT '',
    error          TEXT NOT NULL DEFAULT '',
    created        INTEGER NOT NULL,
    updated        INTEGER NOT NULL
);
CREATE INDEX outbound_messages_due ON outbound_messages (status, next_attempt);
CREATE INDEX outbound_messages_user ON outbound_messages (app_id, user_id, id);
CREATE INDEX outbound_messages_link ON outbound_messages (app_id, payout_link_id, id);
