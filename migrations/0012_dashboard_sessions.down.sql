DROP TABLE IF EXISTS dashboard_signin_codes;
DELETE FROM tokens WHERE kind = 'dashboard';
ALTER TABLE tokens DROP COLUMN IF EXISTS expires_at, DROP COLUMN IF EXISTS kind;
