ALTER TABLE playbooks DROP COLUMN IF EXISTS owner_id;
ALTER TABLE credentials DROP COLUMN IF EXISTS owner_id;
ALTER TABLE services DROP COLUMN IF EXISTS owner_id;
DROP TABLE IF EXISTS deck_shares;
DROP FUNCTION IF EXISTS agent_deck_notify_deck_share();
ALTER TABLE decks DROP COLUMN IF EXISTS sharing, DROP COLUMN IF EXISTS owner_id;
