DROP TABLE IF EXISTS credential_person_secrets;
DROP FUNCTION IF EXISTS agent_deck_notify_person_secret();
ALTER TABLE services DROP COLUMN IF EXISTS personal;
ALTER TABLE credentials DROP COLUMN IF EXISTS personal;
