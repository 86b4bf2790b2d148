-- Each app's ledger is a hash chain, as tamper-evident logs are: every posting made and every
-- reservation settled is an entry, numbered from 1 per app, whose hash is a keyed HMAC over the
-- entry's posting as it then stood and the hash of the entry before it (ledger.ChainHash). An
-- edit, a deletion or an insertion of a posting breaks the chain where it is, and mending it
-- needs the key, which is derived from the service's key and never stored here.
CREATE TABLE ledger_chain (
    app_id     TEXT NOT NULL,
    seq        BIGINT NOT NULL,
    posting_id BIGINT NOT NULL,
    settles    BOOLEAN NOT NULL,
    hash       BYTEA NOT NULL,
    PRIMARY KEY (app_id, seq)
);
-- The last entry of each app's chain, which a writer locks to add the next ones. An app with
-- postings and no head has postings made before this migration: payoutd chains them when it
-- starts (store.ChainUnchained).
CREATE TABLE ledger_chain_heads (
    app_id TEXT PRIMARY KEY,
    seq    BIGINT NOT NULL,
    hash   BYTEA NOT NULL
);
