ALTER TABLE oauth_refresh_tokens DROP COLUMN IF EXISTS client_id;
