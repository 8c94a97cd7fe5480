DROP TABLE IF EXISTS oauth_refresh_tokens;
DROP TABLE IF EXISTS oauth_codes;
DROP TABLE IF EXISTS oauth_clients;
DELETE FROM tokens WHERE kind = 'oauth';
ALTER TABLE tokens DROP CONSTRAINT tokens_kind_check,
    ADD CONSTRAINT tokens_kind_check CHECK (kind IN ('token', 'dashboard'));
