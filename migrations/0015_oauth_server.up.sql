-- Agent Deck as an OAuth authorization server for its own MCP clients (issue 12 §2). A grant is
-- one token row of kind 'oauth' (listed and revoked with the other tokens): its hash is the
-- current access token's and rotates on refresh, its expires_at the access token's expiry.
-- Authorization codes and refresh tokens are stored as their sha256 and used once; a refresh
-- token used twice revokes its grant.
ALTER TABLE tokens DROP CONSTRAINT tokens_kind_check,
    ADD CONSTRAINT tokens_kind_check CHECK (kind IN ('token', 'dashboard', 'oauth'));

CREATE TABLE oauth_clients (
    id            text        PRIMARY KEY CONSTRAINT oauth_clients_id_check CHECK (length(id) BETWEEN 1 AND 200),
    name          text        NOT NULL,
    redirect_uris text[]      NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE oauth_codes (
    hash         bytea       PRIMARY KEY CONSTRAINT oauth_codes_hash_check CHECK (length(hash) = 32),
    client_id    text        NOT NULL,
    client_name  text        NOT NULL,
    redirect_uri text        NOT NULL,
    challenge    text        NOT NULL,
    scope        text        NOT NULL,
    resource     text        NOT NULL,
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    used_at      timestamptz,
    token_id     uuid        REFERENCES tokens (id) ON DELETE SET NULL
);

CREATE TABLE oauth_refresh_tokens (
    hash       bytea       PRIMARY KEY CONSTRAINT oauth_refresh_tokens_hash_check CHECK (length(hash) = 32),
    token_id   uuid        NOT NULL REFERENCES tokens (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX oauth_refresh_tokens_token_id ON oauth_refresh_tokens (token_id);
