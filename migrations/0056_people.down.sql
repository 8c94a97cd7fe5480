DROP TRIGGER IF EXISTS people_notify ON people;
ALTER TABLE oauth_codes DROP COLUMN IF EXISTS person_id;
ALTER TABLE dashboard_signin_codes DROP COLUMN IF EXISTS person_id;
ALTER TABLE tokens DROP COLUMN IF EXISTS person_id;
DROP TABLE IF EXISTS people;
