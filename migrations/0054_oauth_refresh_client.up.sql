-- The client a refresh token was issued to: a refresh must name it (RFC 6749 §6 and §3.2.1), so
-- a token taken from one client does not work for another or for none. Tokens issued before
-- this column get their client from the code their grant came from; where that code is already
-- pruned it stays NULL and the first refresh that names a client binds the token to it.
ALTER TABLE oauth_refresh_tokens ADD COLUMN client_id text;
UPDATE oauth_refresh_tokens r SET client_id = c.client_id
    FROM oauth_codes c WHERE c.token_id = r.token_id;
