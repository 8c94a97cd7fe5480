-- A proxied call's plan (its deck, service, rules and sampling grant) is cached per replica:
-- announce every sampling grant change as a change of the deck's cards, so every replica drops
-- the plans built from it.
CREATE TRIGGER deck_sampling_notify AFTER INSERT OR UPDATE OR DELETE ON deck_sampling
    FOR EACH ROW EXECUTE FUNCTION agent_deck_notify_deck_card();
