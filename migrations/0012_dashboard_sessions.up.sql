-- Dashboard sign-in: a one-time code (from `agent-deck dashboard` or a pasted token) becomes a
-- short-lived admin session. Sessions are token rows of kind 'dashboard' with an expiry, so they
-- are listed and revoked with the other tokens; the code is stored as its sha256 and used once.
ALTER TABLE tokens
    ADD COLUMN kind text NOT NULL DEFAULT 'token' CONSTRAINT tokens_kind_check CHECK (kind IN ('token', 'dashboard')),
    ADD COLUMN expires_at timestamptz;

CREATE TABLE dashboard_signin_codes (
    hash        bytea       PRIMARY KEY CONSTRAINT dashboard_signin_codes_hash_check CHECK (length(hash) = 32),
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    used_at     timestamptz
);
