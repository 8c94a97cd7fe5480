DROP TRIGGER credentials_notify_insert ON credentials;
DROP TRIGGER credentials_notify_update ON credentials;
DROP TRIGGER credentials_notify_delete ON credentials;
DROP TRIGGER services_notify_insert ON services;
DROP TRIGGER services_notify_update ON services;
DROP TRIGGER services_notify_delete ON services;
DROP TRIGGER playbooks_notify_insert ON playbooks;
DROP TRIGGER playbooks_notify_update ON playbooks;
DROP TRIGGER playbooks_notify_delete ON playbooks;
DROP TRIGGER deck_cards_notify_insert ON deck_cards;
DROP TRIGGER deck_cards_notify_update ON deck_cards;
DROP TRIGGER deck_cards_notify_delete ON deck_cards;
DROP FUNCTION agent_deck_notify_rows();
DROP FUNCTION agent_deck_notify_deck_cards();

CREATE TRIGGER credentials_notify AFTER INSERT OR UPDATE OR DELETE ON credentials
    FOR EACH ROW EXECUTE FUNCTION agent_deck_notify_row();
CREATE TRIGGER services_notify AFTER INSERT OR UPDATE OR DELETE ON services
    FOR EACH ROW EXECUTE FUNCTION agent_deck_notify_row();
CREATE TRIGGER playbooks_notify AFTER INSERT OR UPDATE OR DELETE ON playbooks
    FOR EACH ROW EXECUTE FUNCTION agent_deck_notify_row();
CREATE TRIGGER deck_cards_notify AFTER INSERT OR UPDATE OR DELETE ON deck_cards
    FOR EACH ROW EXECUTE FUNCTION agent_deck_notify_deck_card();
