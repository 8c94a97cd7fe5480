-- Decks and cards that belong to someone (issue 26). Every deck and card has an owner; a deck is
-- private (its owner only), shared with everyone, or shared with the people in deck_shares. A
-- member sees their own cards and those linked to decks they may use; admins see everything.
-- An install from before people: everything belongs to its first admin and stays private,
-- which changes nothing for an admin.
ALTER TABLE decks
    ADD COLUMN owner_id uuid REFERENCES people (id),
    ADD COLUMN sharing text NOT NULL DEFAULT 'private'
        CONSTRAINT decks_sharing_check CHECK (sharing IN ('private', 'everyone', 'people'));
UPDATE decks SET owner_id = (SELECT id FROM people WHERE founder);
ALTER TABLE decks ALTER COLUMN owner_id SET NOT NULL;
CREATE INDEX decks_owner_id_idx ON decks (owner_id);

CREATE TABLE deck_shares (
    deck_id    uuid NOT NULL REFERENCES decks (id) ON DELETE CASCADE,
    person_id  uuid NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    PRIMARY KEY (deck_id, person_id)
);
CREATE INDEX deck_shares_person_id_idx ON deck_shares (person_id);

-- Who may use a deck is part of what a replica caches about it: announce share changes as
-- changes of the deck.
CREATE FUNCTION agent_deck_notify_deck_share() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    r record;
BEGIN
    IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
    PERFORM pg_notify('agent_deck_changes', 'decks:' || r.deck_id::text);
    RETURN NULL;
END $$;
CREATE TRIGGER deck_shares_notify AFTER INSERT OR UPDATE OR DELETE ON deck_shares
    FOR EACH ROW EXECUTE FUNCTION agent_deck_notify_deck_share();

ALTER TABLE services ADD COLUMN owner_id uuid REFERENCES people (id);
UPDATE services SET owner_id = (SELECT id FROM people WHERE founder);
ALTER TABLE services ALTER COLUMN owner_id SET NOT NULL;
CREATE INDEX services_owner_id_idx ON services (owner_id);

ALTER TABLE credentials ADD COLUMN owner_id uuid REFERENCES people (id);
UPDATE credentials SET owner_id = (SELECT id FROM people WHERE founder);
ALTER TABLE credentials ALTER COLUMN owner_id SET NOT NULL;
CREATE INDEX credentials_owner_id_idx ON credentials (owner_id);

ALTER TABLE playbooks ADD COLUMN owner_id uuid REFERENCES people (id);
UPDATE playbooks SET owner_id = (SELECT id FROM people WHERE founder);
ALTER TABLE playbooks ALTER COLUMN owner_id SET NOT NULL;
CREATE INDEX playbooks_owner_id_idx ON playbooks (owner_id);
