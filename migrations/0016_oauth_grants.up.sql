-- What an OAuth grant keeps across refreshes. A refresh may ask for a narrower scope than the
-- grant's (RFC 6749 §6): the access token gets it, while every refresh token of the grant keeps
-- the scope first granted (NULL: the grant's token row's scope, as before this column).
ALTER TABLE oauth_refresh_tokens ADD COLUMN scope text;

-- The deck a person chose on the consent screen: the code carries it to the grant, whose MCP
-- sessions start bound to it (unless the client names another deck). A deleted deck unbinds.
ALTER TABLE oauth_codes ADD COLUMN deck_id uuid REFERENCES decks (id) ON DELETE SET NULL;
ALTER TABLE tokens ADD COLUMN deck_id uuid REFERENCES decks (id) ON DELETE SET NULL;
