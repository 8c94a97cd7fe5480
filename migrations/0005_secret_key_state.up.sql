-- What this database knows of the secret key, in one row: the key's fingerprint (a truncated
-- HMAC-SHA256 keyed by the key, recorded at the first start that sees none) so a server holding
-- another key refuses to start, and the sealing scheme of every stored secret.
-- seal_scheme 0: values sealed without associated data (before this migration); the next start
-- re-seals each one bound to its row and column ("credentials/<id>/secret") in one transaction
-- and sets 1, after which the old format is refused everywhere.
CREATE TABLE secret_key_state (
    singleton    boolean     PRIMARY KEY DEFAULT true
                 CONSTRAINT secret_key_state_singleton_check CHECK (singleton),
    fingerprint  bytea       CONSTRAINT secret_key_state_fingerprint_check CHECK (length(fingerprint) = 16),
    seal_scheme  integer     NOT NULL DEFAULT 0
                 CONSTRAINT secret_key_state_seal_scheme_check CHECK (seal_scheme IN (0, 1)),
    updated_at   timestamptz NOT NULL DEFAULT now()
);
INSERT INTO secret_key_state DEFAULT VALUES;
