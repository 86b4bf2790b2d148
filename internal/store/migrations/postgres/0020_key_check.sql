-- The check value of the encryption key: a known constant sealed under a key derived from it
-- (service/keycheck.go), never the key nor its hash. payoutd refuses to start with a key that
-- does not open it. One row at most.
CREATE TABLE key_check (
    id     SMALLINT PRIMARY KEY CHECK (id = 1),
    sealed BYTEA NOT NULL
);
