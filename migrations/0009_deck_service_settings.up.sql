-- A deck's own rules for a service it links: which of the service's tools the deck exposes (an
-- allow-list or a deny-list, on top of the service's own disabled tools) and which credential the
-- deck's calls present (over the service's default). Rows are keyed by deck and service, not by the
-- deck_cards row, so relinking or reordering a deck's services keeps them; they apply only while
-- the service is linked to the deck.
CREATE TABLE deck_service_settings (
    deck_id        uuid   NOT NULL REFERENCES decks (id) ON DELETE CASCADE,
    service_id     uuid   NOT NULL REFERENCES services (id) ON DELETE CASCADE,
    -- Empty means no allow-list; at most one of the two lists is set.
    allow_tools    text[] NOT NULL DEFAULT '{}',
    deny_tools     text[] NOT NULL DEFAULT '{}',
    -- A deleted credential drops the deck's choice: the service's default applies again.
    credential_id  text   REFERENCES credentials (id) ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT deck_service_settings_one_list_check
        CHECK (cardinality(allow_tools) = 0 OR cardinality(deny_tools) = 0),
    PRIMARY KEY (deck_id, service_id)
);
CREATE INDEX deck_service_settings_service_id_idx ON deck_service_settings (service_id);
CREATE INDEX deck_service_settings_credential_id_idx ON deck_service_settings (credential_id)
    WHERE credential_id IS NOT NULL;

-- The settings are part of what a deck's cached links and snapshot show: announce every change
-- as a change of the deck's cards.
CREATE TRIGGER deck_service_settings_notify AFTER INSERT OR UPDATE OR DELETE ON deck_service_settings
    FOR EACH ROW EXECUTE FUNCTION agent_deck_notify_deck_card();
